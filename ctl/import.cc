// presplitctl import TABLE FILE...: bulk-loads row files into a salted, pre-split table by
// running presplit-hbase.jar's SaltedImport (ctl/import_command.h builds the command). The
// process becomes that `java`, so its exit status, output and signals are the operator's.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "ctl/common.h"
#include "ctl/import_command.h"

namespace presplit::ctl {
namespace {

std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

int CmdImport(const Args& args) {
  ImportRequest request;
  request.zk_quorum = args.zk_quorum;
  request.zk_root = args.root;
  request.zk_auth_file = args.zk_auth_file;
  if (Status parsed = ParseImportArguments(args.positional, request); !parsed.ok()) {
    std::cerr << "presplitctl: import: " << parsed.message()
              << "\n(see presplitctl import --help)\n";
    return kUsage;
  }
  if (request.help) {
    std::cout << ImportHelp();
    return kOk;
  }
  auto command = PrepareImportCommand(request, Environment("JAVA_HOME"), Environment("PATH"));
  // A missing piece is the operator's to fix, like a usage error: nothing ran.
  if (!command.ok()) {
    std::cerr << "presplitctl: import: " << command.status().message() << "\n";
    return kUsage;
  }
  std::vector<char*> argv;
  for (auto& word : *command) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(argv[0], argv.data());
  std::cerr << "presplitctl: import: cannot run " << argv[0] << ": " << std::strerror(errno)
            << "\n";
  return kUsage;
}

}  // namespace

std::vector<CommandSpec> ImportCommands() {
  CommandSpec import{
      "import",
      {},
      {},
      "  import TABLE FILE... --columns MAPPING [--config FILE] [options]\n"
      "                    bulk-loads row files (TSV, CSV) into a table presplitd\n"
      "                    created: keys salted with its layout, HFiles per region,\n"
      "                    bulk-loaded; runs presplit-hbase.jar's SaltedImport with\n"
      "                    the Java side of presplitd's config file (default\n"
      "                    /etc/presplit/presplitd.conf); --dry-run checks only;\n"
      "                    import --help lists the options\n",
      &CmdImport};
  import.passes_arguments_through = true;
  return {import};
}

}  // namespace presplit::ctl
