// ComputeSplitKeys (presplit/table_config.h): the split keys a document's table is created with.
// Apart from table_config.cc so that the parser's rules and the split algorithms stay two files,
// one unit.
#include <utility>

#include "presplit/split_algorithms.h"
#include "presplit/split_points.h"
#include "presplit/table_config.h"

namespace presplit {

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

}  // namespace presplit
