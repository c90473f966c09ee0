// What follows from a parsed table document for HBase: the table attributes (TableDescriptor
// values) that carry its split policy. A pure function of a TableConfig. The split keys are
// ComputeSplitKeys (presplit/table_config.h), the layout record presplit/layout_attributes.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "presplit/status.h"
#include "presplit/table_config.h"

namespace presplit {

// The table attributes (TableDescriptor values) the daemon sets when it creates the table: with
// "split_policy", SPLIT_POLICY = NativeSplitPolicy, its parameters (presplit.split.*,
// presplit.load.*, MAX_FILESIZE), the LoadSamplingObserver coprocessor when load_balanced, and
// presplit.managed for salted tables (which the HMaster's BucketGuardObserver protects). Empty
// without "split_policy", but for NORMALIZATION_ENABLED = false with "load_split" (the
// normalizer would merge load splits' halves straight back). The key layout's record is not
// here: TableAttributes (layout_attributes.h) adds it, for every table.
// The names are those of conf/hbase/table-attributes.md.
std::map<std::string, std::string> SplitPolicyAttributes(const TableConfig& config);

}  // namespace presplit
