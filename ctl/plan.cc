// presplitctl plan: split keys computed offline, without any server.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "ctl/common.h"
#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "presplit/split_points.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

namespace presplit::ctl {
namespace {

Result<int> WholeNumber(const Args& args, const std::string& flag) {
  const std::string& text = args.flags.at(flag);
  try {
    size_t used = 0;
    int value = std::stoi(text, &used);
    if (used != text.size()) throw std::invalid_argument("trailing");
    return value;
  } catch (const std::exception&) {
    return Status::InvalidArgument("--" + flag + " needs a whole number, got '" + text + "'");
  }
}

// Prints keys one a line (text) or as a JSON object; notes go to stderr in text form.
int Output(const Args& args, const std::vector<std::string>& keys,
           const std::vector<std::string>& notes) {
  const std::string format = args.has("format") ? args.flag("format") : "text";
  if (format == "json") {
    nlohmann::ordered_json out;
    out["regions"] = keys.size() + 1;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& k : keys) list.push_back(ToStringBinary(k));
    out["keys"] = std::move(list);
    out["notes"] = notes;
    std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return kOk;
  }
  for (const auto& n : notes) std::cerr << "presplitctl: note: " << n << "\n";
  return PrintKeys(keys);
}

Result<std::vector<std::string>> ReadSample(const std::string& path) {
  PRESPLIT_ASSIGN_OR_RETURN(std::string text, ReadInput(path));
  Result<std::vector<std::string>> keys = ParseKeyList(text);
  if (!keys.ok()) return keys.status().WithContext("sample " + path);
  return keys;
}

int CmdPlan(const Args& args) {
  if (args.has("format") && args.flag("format") != "text" && args.flag("format") != "json") {
    return UsageError("--format is text or json");
  }
  if (!args.has("algorithm") && !args.has("keys-file")) {
    if (args.positional.size() != 1) {
      return UsageError(
          "plan needs a document FILE, --keys-file FILE, or --algorithm and --regions");
    }
    auto text = ReadInput(args.positional[0]);
    if (!text.ok()) return Fail(text.status().message());
    auto config = ParseTableConfig(*text);
    if (!config.ok()) return RefuseDocument("document refused", config.status());
    auto keys = ComputeSplitKeys(*config);
    if (!keys.ok()) return RefuseDocument("document refused", keys.status());
    std::vector<std::string> notes;
    if (config->split.algorithm == SplitAlgorithm::kSampled) {
      auto sampled = SampledSplit(config->split.sample, config->split.regions);
      if (sampled.ok()) notes = sampled->notes;
    }
    return Output(args, *keys, notes);
  }
  if (!args.positional.empty()) return UsageError("plan takes a FILE or flags, not both");
  SplitAlgorithm algorithm = SplitAlgorithm::kExplicit;
  if (args.has("algorithm")) {
    auto parsed = ParseSplitAlgorithm(args.flag("algorithm"));
    if (!parsed.ok()) return UsageError(parsed.status().message());
    algorithm = *parsed;
  }
  if (algorithm == SplitAlgorithm::kExplicit) {
    if (!args.has("keys-file")) return UsageError("explicit keys come from --keys-file FILE");
    auto text = ReadInput(args.flag("keys-file"));
    if (!text.ok()) return Fail(text.status().message());
    auto keys = ParseSplitsFile(*text);
    if (!keys.ok()) return Fail(keys.status().WithContext(args.flag("keys-file")).message());
    return Output(args, *keys, {});
  }
  if (args.has("keys-file")) return UsageError("--keys-file goes with --algorithm explicit");
  if (!args.has("regions")) return UsageError("plan --algorithm needs --regions N");
  auto regions = WholeNumber(args, "regions");
  if (!regions.ok()) return UsageError(regions.status().message());
  std::optional<std::string> first, last;
  if (args.has("first-row")) first = args.flag("first-row");
  if (args.has("last-row")) last = args.flag("last-row");
  const bool sub_split = args.has("regions-per-bucket") || args.has("within-bucket");
  if (sub_split && algorithm != SplitAlgorithm::kSaltBuckets) {
    return UsageError("--regions-per-bucket and --within-bucket go with --algorithm salt-buckets");
  }
  if (args.has("sample") && algorithm != SplitAlgorithm::kSampled &&
      !(args.has("within-bucket") && args.flag("within-bucket") == "sampled")) {
    return UsageError("--sample goes with --algorithm sampled or --within-bucket sampled");
  }
  Result<std::vector<std::string>> keys = Status::InvalidArgument("unsupported algorithm");
  std::vector<std::string> notes;
  switch (algorithm) {
    case SplitAlgorithm::kHexString:
      keys = HexStringSplit(*regions, first, last);
      break;
    case SplitAlgorithm::kDecimalString:
      keys = DecimalStringSplit(*regions, first, last);
      break;
    case SplitAlgorithm::kUniform: {
      // Rows on the command line are in toStringBinary form, like every key presplit reads.
      if (first) first = ToBytesBinary(*first);
      if (last) last = ToBytesBinary(*last);
      keys = UniformSplit(*regions, first, last);
      break;
    }
    case SplitAlgorithm::kSaltBuckets: {
      auto encoding = ParseSaltEncoding(args.has("salt-encoding") ? args.flag("salt-encoding")
                                                                  : std::string("decimal"));
      if (!encoding.ok()) return UsageError(encoding.status().message());
      if (!sub_split) {
        keys = SaltBucketSplit(*regions, *encoding);
        break;
      }
      SaltedSplitOptions options;
      options.buckets = *regions;
      options.encoding = *encoding;
      options.regions_per_bucket = 1;
      if (args.has("regions-per-bucket")) {
        auto k = WholeNumber(args, "regions-per-bucket");
        if (!k.ok()) return UsageError(k.status().message());
        options.regions_per_bucket = *k;
      }
      if (args.has("within-bucket")) {
        auto within = ParseSplitAlgorithm(args.flag("within-bucket"));
        if (!within.ok()) return UsageError(within.status().message());
        options.within_bucket = *within;
      }
      if (options.within_bucket == SplitAlgorithm::kUniform) {
        if (first) first = ToBytesBinary(*first);
        if (last) last = ToBytesBinary(*last);
      }
      options.first_row = first;
      options.last_row = last;
      std::vector<std::string> sample;
      if (options.within_bucket == SplitAlgorithm::kSampled) {
        if (!args.has("sample")) return UsageError("--within-bucket sampled needs --sample FILE|-");
        auto read = ReadSample(args.flag("sample"));
        if (!read.ok()) return Fail(read.status().message());
        sample = std::move(read).value();
        options.sample = &sample;
      }
      keys = SaltedSubSplit(options, &notes);
      break;
    }
    case SplitAlgorithm::kPartitions:
      keys = PartitionSplit(*regions);
      break;
    case SplitAlgorithm::kSampled: {
      if (!args.has("sample")) return UsageError("--algorithm sampled needs --sample FILE|-");
      auto sample = ReadSample(args.flag("sample"));
      if (!sample.ok()) return Fail(sample.status().message());
      auto sampled = SampledSplit(*sample, *regions);
      if (!sampled.ok()) return Fail(sampled.status().message());
      notes = sampled->notes;
      keys = std::move(sampled->keys);
      break;
    }
    case SplitAlgorithm::kExplicit:
      break;  // handled above
  }
  if (!keys.ok()) return Fail(keys.status().message());
  return Output(args, *keys, notes);
}

}  // namespace

std::vector<CommandSpec> PlanCommands() {
  return {
      {"plan",
       {"algorithm", "regions", "first-row", "last-row", "salt-encoding", "keys-file", "sample",
        "regions-per-bucket", "within-bucket", "format"},
       {},
       "  plan FILE|-           print the split keys a document plans, one per line\n"
       "  plan --algorithm ALGO --regions N [--first-row R] [--last-row R] [--salt-encoding ENC]\n"
       "                        ALGO: hex-string, decimal-string, uniform, salt-buckets,\n"
       "                        partitions (8-byte big-endian ids 1..N-1), sampled\n"
       "                        ENC (salt-buckets): byte, decimal, hex (default decimal)\n"
       "  plan --keys-file FILE explicit keys in the HBase shell's SPLITS_FILE format, checked\n"
       "  plan --algorithm sampled --regions N --sample FILE|-\n"
       "                        the N-quantiles of a key sample (one key a line)\n"
       "  plan --algorithm salt-buckets --regions BUCKETS --regions-per-bucket K\n"
       "       [--within-bucket hex-string|decimal-string|uniform|partitions|sampled]\n"
       "                        BUCKETS x K regions; each bucket split by the second algorithm\n"
       "                        (default uniform; sampled takes --sample)\n"
       "                        plan's --format json prints {regions, keys, notes}; text prints\n"
       "                        keys only (notes on stderr)\n",
       &CmdPlan},
  };
}

}  // namespace presplit::ctl
