// What follows from a table document: split keys and table attributes
// (presplit/table_derived.h).
#include "presplit/table_derived.h"

#include <utility>

#include "presplit/bytes.h"
#include "presplit/layout_attributes.h"
#include "presplit/split_algorithms.h"
#include "presplit/split_points.h"
#include "table_config_internal.h"

namespace presplit {

using table_config_internal::FormatNumber;

Result<std::vector<std::string>> ComputeSplitKeys(const TableConfig& config) {
  const SplitConfig& sp = config.split;
  std::vector<std::string> keys;
  switch (sp.algorithm) {
    case SplitAlgorithm::kHexString: {
      PRESPLIT_ASSIGN_OR_RETURN(keys, HexStringSplit(sp.regions, sp.first_row, sp.last_row));
      break;
    }
    case SplitAlgorithm::kDecimalString: {
      PRESPLIT_ASSIGN_OR_RETURN(keys, DecimalStringSplit(sp.regions, sp.first_row, sp.last_row));
      break;
    }
    case SplitAlgorithm::kUniform: {
      PRESPLIT_ASSIGN_OR_RETURN(keys, UniformSplit(sp.regions, sp.first_row, sp.last_row));
      break;
    }
    case SplitAlgorithm::kSaltBuckets: {
      if (!config.layout.salt) {
        return Status::InvalidArgument("algorithm 'salt-buckets' needs layout.salt");
      }
      const SaltConfig& s = *config.layout.salt;
      if (sp.regions_per_bucket <= 1) {
        PRESPLIT_ASSIGN_OR_RETURN(keys, SaltBucketSplit(s.buckets, s.encoding, s.width));
        break;
      }
      SaltedSplitOptions options;
      options.buckets = s.buckets;
      options.encoding = s.encoding;
      options.salt_width = s.width;
      options.regions_per_bucket = sp.regions_per_bucket;
      options.within_bucket = sp.within_bucket;
      options.sample = &sp.sample;
      PRESPLIT_ASSIGN_OR_RETURN(keys, SaltedSubSplit(options));
      break;
    }
    case SplitAlgorithm::kPartitions: {
      PRESPLIT_ASSIGN_OR_RETURN(keys, PartitionSplit(sp.regions));
      break;
    }
    case SplitAlgorithm::kSampled: {
      PRESPLIT_ASSIGN_OR_RETURN(SampledSplitResult sampled, SampledSplit(sp.sample, sp.regions));
      keys = std::move(sampled.keys);
      break;
    }
    case SplitAlgorithm::kExplicit:
      keys = sp.keys;
      break;
  }
  PRESPLIT_RETURN_IF_ERROR(ValidateSplitKeys(keys));
  return keys;
}

std::map<std::string, std::string> SplitPolicyAttributes(const TableConfig& config) {
  std::map<std::string, std::string> attributes;
  // Load splits add regions on purpose; HBase's normalizer would merge the halves straight back.
  if (config.load_split) attributes["NORMALIZATION_ENABLED"] = "false";
  if (!config.split_policy) return attributes;
  const SplitPolicyConfig& p = *config.split_policy;
  attributes["SPLIT_POLICY"] = "io.presplit.hbase.NativeSplitPolicy";
  attributes["presplit.split.size-policy"] = p.size_policy;
  if (p.max_file_size) attributes["MAX_FILESIZE"] = std::to_string(*p.max_file_size);
  attributes["presplit.load.enabled"] = p.load_balanced ? "true" : "false";
  if (p.load_balanced) {
    attributes["presplit.load.min-requests"] = std::to_string(p.min_requests);
    attributes["presplit.load.max-imbalance"] = FormatNumber(p.max_imbalance);
    attributes["presplit.load.max-contained-fraction"] = FormatNumber(p.max_contained_fraction);
    // A table coprocessor at the user priority (Coprocessor.PRIORITY_USER), no jar path: the
    // class is on the RegionServers' classpath (conf/hbase/hbase-env.sh).
    attributes["coprocessor$1"] = "|io.presplit.hbase.coprocessor.LoadSamplingObserver|1073741823|";
  }
  if (config.layout.salt) attributes["presplit.managed"] = "true";
  // The layout record is the one every table gets (layout_attributes.h); the policy reads it.
  attributes.merge(LayoutAttributes(config.layout));
  return attributes;
}

}  // namespace presplit
