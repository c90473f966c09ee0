// presplitctl advise --table: advice for a live table from what the daemon's load watcher
// measured (its GET /status) and recorded (the table's status znode: buckets, the last load
// split decisions, the size history). Plain functions, unit-tested; the command does the I/O.
//
// The rules (README "Advice from live data" lists them too), each advice naming its rule:
//  - size:         the projected size (size now + daily growth x horizon days; growth from the
//                  status's size history, 0 when it has none) needs more regions of the target
//                  region size than the table has          -> more regions
//  - budget:       load split decisions were skipped for "region_budget"
//                                                           -> more regions (raise max_regions)
//  - no_load_split: hot regions, but the watcher decided nothing for them (load_split is off)
//                                                           -> split policy (turn load_split on)
//  - key_points:   presplitd split at points of key samples (the table has HBase's own policy)
//                  and the request skew is still at least the skew limit
//                                                           -> split policy (NativeSplitPolicy)
//  - bucket_tails: a salted table whose writes sit in at most `buckets` regions (>= 90% of its
//                  write rate) while it has at least twice as many regions: each bucket's tail
//                  takes the writes (rising keys)          -> re-salt to more buckets
//  - hot_key:      hot regions were found unsplittable    -> none of the three helps (one key)
//
// Everything is about the physical table serving the document as its status names it (after a
// re-salting migration's switch, "ns:t__g2"): the load of that table (not of a migration's
// target, which the watcher shows beside it), and the decisions about it (not those about an
// earlier generation). While a migration is under way no re-salt is advised (bucket_tails).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::ctl {

struct LiveFacts {
  std::string table;           // the document's name, as asked
  std::string physical_table;  // the table serving it (the document's name before any switch)
  int64_t generation = 1;
  // The target of a re-salting migration under way and not switched yet ("" when none is).
  std::string migration_target;
  bool has_load = false;  // the daemon's /status had the table
  int region_count = 0;
  int64_t size_bytes = 0;
  double requests_per_s = 0;
  double mean_requests_per_s = 0;
  double max_requests_per_s = 0;
  double request_skew = 0;
  int hot_regions = 0;
  std::vector<double> write_rates;                        // per region with a rate
  bool has_status = false;                                // the table's status znode was read
  int buckets = 0;                                        // from the status; 0 = unsalted
  std::vector<std::pair<int64_t, int64_t>> size_history;  // (time_ms, size_bytes), oldest first
  int decisions = 0;
  std::map<std::string, int> reasons;  // skip reason -> decisions
  // The budget the latest "region_budget" skip met (its decision's max_regions); 0 when no skip
  // named one (decisions written before they did).
  int budget_max_regions = 0;
  int key_sample_splits = 0;           // split decisions at a point presplitd computed
};

struct AdviceRules {
  int64_t region_size = 10LL << 30;  // target region size
  int horizon_days = 90;
  double skew_limit = 3;           // max/mean request rate that counts as skewed
  double bucket_tail_share = 0.9;  // share of writes in `buckets` regions
};

struct LiveAdvice {
  std::string kind;  // "more_regions", "split_policy", "re_salt", "hot_key"
  std::string rule;  // the rule's name, as in the list above
  std::string text;  // the advice with its numbers
};

struct LiveAdviceReport {
  std::vector<std::string> facts;            // what the advice is based on, one line each
  std::optional<double> daily_growth_bytes;  // unset without a size history
  std::vector<LiveAdvice> advice;            // empty: no change needed
};

// The facts for `table` from the daemon's /status answer and the table's status document (either
// may be null: what it would tell is then missing). `table` is the document's name; /status's
// entry for it is the one of its serving physical table (a physical table's name finds it too).
// NotFound when neither knows the table.
Result<LiveFacts> FactsFromStatus(const std::string& table, const nlohmann::json* daemon_status,
                                  const nlohmann::json* table_status);

LiveAdviceReport AdviseLive(const LiveFacts& facts, const AdviceRules& rules);

}  // namespace presplit::ctl
