// presplitctl plan: split keys computed offline, without any server.
#include <iostream>
#include <optional>

#include "ctl_common.h"
#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "presplit/table_config.h"

namespace presplit::ctl {
namespace {

int CmdPlan(const Args& args) {
  if (!args.flags.count("algorithm")) {
    if (args.positional.size() != 1) {
      return UsageError("plan needs a document FILE, or --algorithm and --regions");
    }
    auto text = ReadInput(args.positional[0]);
    if (!text.ok()) return Fail(text.status().message());
    auto config = ParseTableConfig(*text);
    if (!config.ok()) return Fail("document refused: " + config.status().message());
    auto keys = ComputeSplitKeys(*config);
    if (!keys.ok()) return Fail(keys.status().message());
    return PrintKeys(*keys);
  }
  if (!args.positional.empty()) return UsageError("plan takes a FILE or --algorithm, not both");
  auto algorithm = ParseSplitAlgorithm(args.flags.at("algorithm"));
  if (!algorithm.ok()) return UsageError(algorithm.status().message());
  if (!args.flags.count("regions")) return UsageError("plan --algorithm needs --regions N");
  int regions = 0;
  try {
    size_t used = 0;
    regions = std::stoi(args.flags.at("regions"), &used);
    if (used != args.flags.at("regions").size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    return UsageError("--regions needs a whole number, got '" + args.flags.at("regions") + "'");
  }
  std::optional<std::string> first, last;
  if (args.flags.count("first-row")) first = args.flags.at("first-row");
  if (args.flags.count("last-row")) last = args.flags.at("last-row");
  Result<std::vector<std::string>> keys = Status::InvalidArgument("unsupported algorithm");
  switch (*algorithm) {
    case SplitAlgorithm::kHexString:
      keys = HexStringSplit(regions, first, last);
      break;
    case SplitAlgorithm::kDecimalString:
      keys = DecimalStringSplit(regions, first, last);
      break;
    case SplitAlgorithm::kUniform: {
      // Rows on the command line are in toStringBinary form, like every key presplit reads.
      if (first) first = ToBytesBinary(*first);
      if (last) last = ToBytesBinary(*last);
      keys = UniformSplit(regions, first, last);
      break;
    }
    case SplitAlgorithm::kSaltBuckets: {
      auto encoding =
          ParseSaltEncoding(args.flags.count("salt-encoding") ? args.flags.at("salt-encoding")
                                                              : std::string("decimal"));
      if (!encoding.ok()) return UsageError(encoding.status().message());
      keys = SaltBucketSplit(regions, *encoding);
      break;
    }
    case SplitAlgorithm::kExplicit:
      return UsageError("explicit keys come from a document: use plan FILE");
  }
  if (!keys.ok()) return Fail(keys.status().message());
  return PrintKeys(*keys);
}

}  // namespace

std::vector<CommandSpec> PlanCommands() {
  return {
      {"plan",
       {"algorithm", "regions", "first-row", "last-row", "salt-encoding"},
       {},
       "  plan FILE|-           print the split keys a document plans, one per line\n"
       "  plan --algorithm ALGO --regions N [--first-row R] [--last-row R] [--salt-encoding ENC]\n"
       "                        ALGO: hex-string, decimal-string, uniform, salt-buckets\n"
       "                        ENC (salt-buckets): byte, decimal, hex (default decimal)\n",
       &CmdPlan},
  };
}

}  // namespace presplit::ctl
