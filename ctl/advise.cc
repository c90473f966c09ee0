// presplitctl advise: how many regions a table should start with, and why.
#include <iostream>
#include <nlohmann/json.hpp>

#include "ctl/common.h"
#include "presplit/planning.h"

namespace presplit::ctl {
namespace {

Result<int64_t> SizeFlag(const Args& args, const std::string& flag) {
  Result<int64_t> size = ParseByteSize(args.flag(flag));
  if (!size.ok()) return size.status().WithContext("--" + flag);
  return size;
}

Result<int> CountFlag(const Args& args, const std::string& flag) {
  const std::string& text = args.flag(flag);
  try {
    size_t used = 0;
    int value = std::stoi(text, &used);
    if (used != text.size() || value < 0) throw std::invalid_argument("bad");
    return value;
  } catch (const std::exception&) {
    return Status::InvalidArgument("--" + flag + " needs a whole number >= 0, got '" + text + "'");
  }
}

int CmdAdvise(const Args& args) {
  const std::string format = args.has("format") ? args.flag("format") : "text";
  if (format != "text" && format != "json") return UsageError("--format is text or json");
  if (!args.positional.empty()) return UsageError("advise takes flags only");
  if (!args.has("size")) return UsageError("advise needs --size SIZE (e.g. 11GB)");
  AdviseInput in;
  struct SizeSetting {
    const char* flag;
    int64_t* target;
  };
  for (const SizeSetting& s :
       {SizeSetting{"size", &in.table_size}, SizeSetting{"daily-growth", &in.daily_growth},
        SizeSetting{"creation-region-size", &in.creation_region_size},
        SizeSetting{"region-size", &in.grown_region_size}}) {
    if (!args.has(s.flag)) continue;
    auto v = SizeFlag(args, s.flag);
    if (!v.ok()) return UsageError(v.status().message());
    *s.target = *v;
  }
  struct CountSetting {
    const char* flag;
    int* target;
  };
  for (const CountSetting& c : {CountSetting{"horizon-days", &in.horizon_days},
                                CountSetting{"region-servers", &in.region_servers},
                                CountSetting{"max-regions", &in.max_regions}}) {
    if (!args.has(c.flag)) continue;
    auto v = CountFlag(args, c.flag);
    if (!v.ok()) return UsageError(v.status().message());
    *c.target = *v;
  }
  auto advice = Advise(in);
  if (!advice.ok()) return Fail(advice.status().message());
  if (format == "json") {
    nlohmann::ordered_json out;
    out["regions"] = advice->regions;
    out["table_size"] = in.table_size;
    out["projected_size"] = advice->projected_size;
    out["by_creation_size"] = advice->by_creation_size;
    out["by_grown_size"] = advice->by_grown_size;
    out["explanation"] = advice->explanation;
    std::cout << out.dump(2) << "\n";
    return kOk;
  }
  std::cout << advice->regions << "\n";
  for (const std::string& line : advice->explanation) std::cout << "  " << line << "\n";
  return kOk;
}

}  // namespace

std::vector<CommandSpec> AdviseCommands() {
  return {
      {"advise",
       {"size", "daily-growth", "horizon-days", "region-servers", "creation-region-size",
        "region-size", "max-regions", "format"},
       {},
       "  advise --size SIZE [--daily-growth SIZE --horizon-days D] [--region-servers N]\n"
       "         [--creation-region-size SIZE (2GB)] [--region-size SIZE (10GB)]\n"
       "         [--max-regions N (120)] [--format text|json]\n"
       "                        a region count for a new table, with the reasoning; sizes like\n"
       "                        11GB, 500M (binary units)\n",
       &CmdAdvise},
  };
}

}  // namespace presplit::ctl
