// What follows from a parsed table document: the split keys the table is created with and the
// table attributes (TableDescriptor values) that carry its split policy and key layout into
// HBase. Pure functions of a TableConfig; ParseTableConfig already ran ComputeSplitKeys once,
// so for a parsed config it only fails on a config built by hand.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "presplit/status.h"
#include "presplit/table_config.h"

namespace presplit {

// The split keys the table is created with: runs the configured algorithm, then
// ValidateSplitKeys. The errors are those of the algorithm (e.g. a range too small for the
// regions) or "algorithm 'salt-buckets' needs layout.salt" for a hand-built config.
Result<std::vector<std::string>> ComputeSplitKeys(const TableConfig& config);

// The table attributes (TableDescriptor values) the daemon sets when it creates the table: with
// "split_policy", SPLIT_POLICY = NativeSplitPolicy, its parameters (presplit.split.*,
// presplit.load.*, MAX_FILESIZE), the LoadSamplingObserver coprocessor when load_balanced, and
// the key layout (LayoutAttributes of presplit/layout_attributes.h; presplit.managed for salted
// tables, which the HMaster's BucketGuardObserver protects). Empty without "split_policy", but for
// NORMALIZATION_ENABLED = false with "load_split" (the normalizer would merge load splits' halves
// straight back): TableAttributes (layout_attributes.h) adds the layout record for every table.
// The names are those of conf/hbase/table-attributes.md.
std::map<std::string, std::string> SplitPolicyAttributes(const TableConfig& config);

}  // namespace presplit
