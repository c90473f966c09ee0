// presplitctl simulate: a key sample through a plan, per-region counts and skew, and which
// regions a size policy would split first.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ctl/common.h"
#include "presplit/bytes.h"
#include "presplit/planning.h"
#include "presplit/split_points.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

namespace presplit::ctl {
namespace {

std::string Fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

Result<int64_t> IntFlag(const Args& args, const std::string& flag, int64_t min) {
  const std::string& text = args.flag(flag);
  try {
    size_t used = 0;
    long long value = std::stoll(text, &used);
    if (used != text.size() || value < min) throw std::invalid_argument("bad");
    return static_cast<int64_t>(value);
  } catch (const std::exception&) {
    return Status::InvalidArgument("--" + flag + " needs a whole number >= " + std::to_string(min) +
                                   ", got '" + text + "'");
  }
}

int CmdSimulate(const Args& args) {
  const std::string format = args.has("format") ? args.flag("format") : "text";
  if (format != "text" && format != "json") return UsageError("--format is text or json");
  if (!args.has("sample")) return UsageError("simulate needs --sample FILE|-");
  if (args.has("keys-file") == (args.positional.size() == 1) || args.positional.size() > 1) {
    return UsageError("simulate needs a document FILE or --keys-file FILE (one of them)");
  }
  if (args.has("keys-file") && args.flag("keys-file") == "-" && args.flag("sample") == "-") {
    return UsageError("only one of the plan and the sample can come from stdin");
  }
  std::vector<std::string> split_keys;
  if (args.has("keys-file")) {
    auto text = ReadInput(args.flag("keys-file"));
    if (!text.ok()) return Fail(text.status().message());
    auto keys = ParseSplitsFile(*text);
    if (!keys.ok()) return Fail(keys.status().WithContext(args.flag("keys-file")).message());
    split_keys = std::move(keys).value();
  } else {
    if (args.positional[0] == "-" && args.flag("sample") == "-") {
      return UsageError("only one of the plan and the sample can come from stdin");
    }
    auto text = ReadInput(args.positional[0]);
    if (!text.ok()) return Fail(text.status().message());
    auto config = ParseTableConfig(*text);
    if (!config.ok()) return RefuseDocument("document refused", config.status());
    auto keys = ComputeSplitKeys(*config);
    if (!keys.ok()) return RefuseDocument("document refused", keys.status());
    split_keys = std::move(keys).value();
  }
  auto sample_text = ReadInput(args.flag("sample"));
  if (!sample_text.ok()) return Fail(sample_text.status().message());
  auto sample = ParseKeyList(*sample_text);
  if (!sample.ok()) return Fail(sample.status().WithContext("sample").message());

  SimulateOptions options;
  if (args.has("value-size")) {
    auto v = ParseByteSize(args.flag("value-size"));
    if (!v.ok()) return UsageError(v.status().WithContext("--value-size").message());
    options.value_size = *v;
  }
  if (args.has("policy")) {
    auto kind = ParseSizePolicy(args.flag("policy"));
    if (!kind.ok()) return UsageError(kind.status().message());
    options.policy.kind = *kind;
  }
  for (const char* flag : {"max-file-size", "flush-size", "initial-size"}) {
    if (!args.has(flag)) continue;
    auto v = ParseByteSize(args.flag(flag));
    if (!v.ok()) return UsageError(v.status().WithContext(std::string("--") + flag).message());
    if (std::string(flag) == "max-file-size") options.policy.max_file_size = *v;
    if (std::string(flag) == "flush-size") options.policy.flush_size = *v;
    if (std::string(flag) == "initial-size") options.policy.initial_size = *v;
  }
  if (args.has("jitter")) {
    try {
      size_t used = 0;
      options.policy.jitter = std::stod(args.flag("jitter"), &used);
      if (used != args.flag("jitter").size() || !(options.policy.jitter >= 0)) {
        throw std::invalid_argument("bad");
      }
    } catch (const std::exception&) {
      return UsageError("--jitter needs a number >= 0, got '" + args.flag("jitter") + "'");
    }
  }
  if (args.has("jitter-seed")) {
    auto v = IntFlag(args, "jitter-seed", 0);
    if (!v.ok()) return UsageError(v.status().message());
    options.policy.jitter_seed = static_cast<uint64_t>(*v);
  }
  if (args.has("region-servers")) {
    auto v = IntFlag(args, "region-servers", 1);
    if (!v.ok() || *v > 100000) return UsageError("--region-servers needs a number 1..100000");
    options.region_servers = static_cast<int>(*v);
  }
  options.policy.overall_files = args.has("overall-files");

  auto sim = Simulate(split_keys, *sample, options);
  if (!sim.ok()) return Fail(sim.status().message());

  if (format == "json") {
    nlohmann::ordered_json out;
    out["regions"] = sim->regions.size();
    out["sample_keys"] = sim->total_keys;
    out["total_bytes"] = sim->total_bytes;
    out["mean_bytes"] = sim->mean_bytes;
    out["max_bytes"] = sim->max_bytes;
    out["max_over_mean"] = sim->max_over_mean;
    out["cv_bytes"] = sim->cv_bytes;
    out["cv_keys"] = sim->cv_keys;
    out["empty_regions"] = sim->empty_regions;
    out["policy"] = std::string(SizePolicyName(options.policy.kind));
    out["table_regions_on_server"] = sim->table_regions_on_server;
    out["split_threshold"] = sim->split_threshold;
    nlohmann::ordered_json regions = nlohmann::ordered_json::array();
    for (const SimulatedRegion& r : sim->regions) {
      regions.push_back({{"start_key", ToStringBinary(r.start_key)},
                         {"end_key", ToStringBinary(r.end_key)},
                         {"keys", r.keys},
                         {"bytes", r.bytes}});
    }
    out["per_region"] = std::move(regions);
    nlohmann::ordered_json order = nlohmann::ordered_json::array();
    for (const SplitForecast& f : sim->split_order) {
      order.push_back({{"region", f.region},
                       {"start_key", ToStringBinary(sim->regions[f.region].start_key)},
                       {"growth_factor", f.growth_factor},
                       {"table_bytes", f.growth_factor * static_cast<double>(sim->total_bytes)}});
    }
    out["split_order"] = std::move(order);
    std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return kOk;
  }
  std::cout << sim->regions.size() << " regions, " << sim->total_keys << " sample keys, "
            << sim->total_bytes << " bytes (key length + " << options.value_size
            << " bytes of value each)\n";
  std::cout << "bytes per region: mean " << Fixed(sim->mean_bytes, 1) << ", max " << sim->max_bytes
            << " (" << Fixed(sim->max_over_mean, 2) << " x mean), CV " << Fixed(sim->cv_bytes, 3)
            << "; keys CV " << Fixed(sim->cv_keys, 3) << "; " << sim->empty_regions
            << " empty regions\n";
  std::cout << "region  start_key  keys  bytes\n";
  for (size_t i = 0; i < sim->regions.size(); ++i) {
    const SimulatedRegion& r = sim->regions[i];
    std::cout << i << "  '" << ToStringBinary(r.start_key) << "'  " << r.keys << "  " << r.bytes
              << "\n";
  }
  std::cout << "split order under " << SizePolicyName(options.policy.kind) << " ("
            << sim->table_regions_on_server << " regions of the table per server, threshold "
            << sim->split_threshold << " bytes), as the table grows uniformly:\n";
  size_t shown = 0;
  for (const SplitForecast& f : sim->split_order) {
    if (++shown > 20) {
      std::cout << "  ... " << sim->split_order.size() - 20 << " more\n";
      break;
    }
    std::cout << "  region " << f.region << " '" << ToStringBinary(sim->regions[f.region].start_key)
              << "' at " << Fixed(f.growth_factor, 1) << " x the sample's data\n";
  }
  if (sim->split_order.empty()) std::cout << "  none (no region holds data)\n";
  return kOk;
}

}  // namespace

std::vector<CommandSpec> SimulateCommands() {
  return {
      {"simulate",
       {"sample", "keys-file", "value-size", "policy", "max-file-size", "flush-size",
        "initial-size", "jitter", "jitter-seed", "region-servers", "format"},
       {"overall-files"},
       "  simulate FILE|--keys-file FILE --sample FILE|- [--value-size SIZE]\n"
       "           [--policy stepping|increasing-to-upper-bound|constant-size]\n"
       "           [--max-file-size SIZE] [--flush-size SIZE] [--initial-size SIZE]\n"
       "           [--jitter J --jitter-seed N] [--overall-files] [--region-servers N]\n"
       "           [--format text|json]\n"
       "                        keys and bytes per planned region for a key sample (one key a\n"
       "                        line), skew, and the order in which regions would split\n",
       &CmdSimulate},
  };
}

}  // namespace presplit::ctl
