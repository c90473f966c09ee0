// The table attributes that carry a document's split policy into HBase (presplit/table_derived.h).
#include "presplit/table_derived.h"

#include <utility>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "presplit/split_points.h"
#include "table_config_internal.h"

namespace presplit {

using table_config_internal::FormatNumber;

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
  return attributes;
}

}  // namespace presplit
