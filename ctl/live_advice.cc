#include "ctl/live_advice.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "daemon/migrate/migration_request.h"

namespace presplit::ctl {
namespace {

using nlohmann::json;

std::string Str(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

double Num(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number()
             ? object[key].get<double>()
             : 0.0;
}

std::string Size(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (std::fabs(bytes) >= 1024 && i < 5) {
    bytes /= 1024;
    ++i;
  }
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(i == 0 ? 0 : 1);
  out << bytes << " " << units[i];
  return out.str();
}

std::string Fixed(double value, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

}  // namespace

Result<LiveFacts> FactsFromStatus(const std::string& table, const json* daemon_status,
                                  const json* table_status) {
  LiveFacts facts;
  facts.table = table;
  facts.physical_table = table;
  if (table_status != nullptr && table_status->is_object()) {
    // The physical table serving the document: the reconciler's rule (a generation above 1,
    // written by a migration's switch, names it).
    const json& s = *table_status;
    const int64_t generation = s.contains("generation") && s["generation"].is_number_integer()
                                   ? s["generation"].get<int64_t>()
                                   : 1;
    const std::string named = Str(s, "physical_table");
    if (generation > 1 && !named.empty()) {
      facts.physical_table = named;
      facts.generation = generation;
    }
    if (s.contains("migration") && s["migration"].is_object()) {
      const std::string phase = Str(s["migration"], "phase");
      const std::string target = Str(s["migration"], "target");
      if (!phase.empty() && !daemon::migrate::IsFinalMigrationPhase(phase) &&
          target != facts.physical_table) {
        facts.migration_target = target;
      }
    }
  }
  if (daemon_status != nullptr && daemon_status->is_object() && daemon_status->contains("load") &&
      (*daemon_status)["load"].is_object() && (*daemon_status)["load"].contains("tables") &&
      (*daemon_status)["load"]["tables"].is_array()) {
    for (const json& t : (*daemon_status)["load"]["tables"]) {
      if (!t.is_object()) continue;
      const std::string physical =
          Str(t, "physical_table").empty() ? Str(t, "table") : Str(t, "physical_table");
      if (Str(t, "table") != table && physical != table) continue;
      if (Str(t, "role") == "migration_target") {
        // Shown beside the serving table while the copy runs: its load is the copy's.
        if (facts.migration_target.empty()) facts.migration_target = physical;
        continue;
      }
      facts.has_load = true;
      // The numbers are this table's: the decisions counted below are about it too.
      facts.physical_table = physical;
      if (t.contains("generation") && t["generation"].is_number_integer()) {
        facts.generation = t["generation"].get<int64_t>();
      }
      facts.region_count = static_cast<int>(Num(t, "region_count"));
      facts.size_bytes = static_cast<int64_t>(Num(t, "size_bytes"));
      facts.requests_per_s = Num(t, "requests_per_s");
      facts.mean_requests_per_s = Num(t, "mean_requests_per_s");
      facts.max_requests_per_s = Num(t, "max_requests_per_s");
      facts.request_skew = Num(t, "request_skew");
      facts.hot_regions = static_cast<int>(Num(t, "hot_regions"));
      if (t.contains("regions") && t["regions"].is_array()) {
        for (const json& r : t["regions"]) {
          if (r.is_object() && r.contains("write_per_s") && r["write_per_s"].is_number()) {
            facts.write_rates.push_back(r["write_per_s"].get<double>());
          }
        }
      }
    }
  }
  if (table_status != nullptr && table_status->is_object()) {
    const json& s = *table_status;
    facts.has_status = true;
    facts.buckets = static_cast<int>(Num(s, "buckets"));
    if (!facts.has_load) facts.region_count = static_cast<int>(Num(s, "regions"));
    const json load = s.contains("load") && s["load"].is_object() ? s["load"] : json::object();
    if (load.contains("size_history") && load["size_history"].is_array()) {
      for (const json& sample : load["size_history"]) {
        if (!sample.is_object()) continue;
        facts.size_history.emplace_back(static_cast<int64_t>(Num(sample, "time_ms")),
                                        static_cast<int64_t>(Num(sample, "size_bytes")));
      }
      if (!facts.has_load && !facts.size_history.empty()) {
        facts.size_bytes = facts.size_history.back().second;
      }
    }
    if (load.contains("decisions") && load["decisions"].is_array()) {
      for (const json& d : load["decisions"]) {
        if (!d.is_object()) continue;
        // About the physical table serving the document now; one written before decisions
        // named theirs was about the document's own table.
        const std::string about =
            Str(d, "physical_table").empty() ? table : Str(d, "physical_table");
        if (about != facts.physical_table) continue;
        // A daughter's move (load_split.move_daughters) says nothing about splitting.
        if (d.contains("to_server")) continue;
        ++facts.decisions;
        const std::string action = d.value("action", std::string());
        const std::string reason = d.value("reason", std::string());
        if (action == "split") {
          if (d.contains("split_key") && d["split_key"].is_string()) ++facts.key_sample_splits;
        } else {
          ++facts.reasons[reason];
          if (reason == "region_budget" && d.contains("max_regions") &&
              d["max_regions"].is_number_integer()) {
            facts.budget_max_regions = d["max_regions"].get<int>();
          }
        }
      }
    }
  }
  if (!facts.has_load && !facts.has_status) {
    return Status::NotFound("table " + table +
                            " is neither in the daemon's /status nor has a status document");
  }
  return facts;
}

LiveAdviceReport AdviseLive(const LiveFacts& f, const AdviceRules& rules) {
  LiveAdviceReport report;
  auto fact = [&](const std::string& line) { report.facts.push_back(line); };
  auto advise = [&](const char* kind, const char* rule, const std::string& text) {
    report.advice.push_back(LiveAdvice{kind, rule, text});
  };

  if (!f.physical_table.empty() && f.physical_table != f.table) {
    fact("physical table: " + f.physical_table + " (generation " + std::to_string(f.generation) +
         "); the numbers below are its own");
  }
  if (!f.migration_target.empty()) {
    fact("migration under way into " + f.migration_target +
         ": its load is the copy's and it is not split by load until the switch; no re-salt "
         "advised meanwhile");
  }
  fact("regions: " + std::to_string(f.region_count) + ", size " + Size(f.size_bytes) +
       (f.region_count > 0
            ? " (" + Size(static_cast<double>(f.size_bytes) / f.region_count) + " per region)"
            : ""));
  if (f.has_load) {
    fact("requests: " + Fixed(f.requests_per_s, 0) + "/s, mean " + Fixed(f.mean_requests_per_s, 0) +
         "/s per region, busiest " + Fixed(f.max_requests_per_s, 0) + "/s (skew " +
         Fixed(f.request_skew, 2) + "), " + std::to_string(f.hot_regions) + " hot");
  } else {
    fact("requests: unknown (the daemon's /status did not have the table)");
  }
  if (f.has_status) {
    fact("buckets: " + (f.buckets > 0 ? std::to_string(f.buckets) : std::string("unsalted")));
  } else {
    fact("buckets, decisions, size history: unknown (no status document read)");
  }

  // Growth: from the oldest to the newest sample, when they span at least an hour.
  if (f.size_history.size() >= 2 &&
      f.size_history.back().first - f.size_history.front().first >= 3'600'000) {
    const double days = (f.size_history.back().first - f.size_history.front().first) / 86'400'000.0;
    report.daily_growth_bytes =
        (f.size_history.back().second - f.size_history.front().second) / days;
    fact("growth: " + Size(*report.daily_growth_bytes) + " a day over the last " + Fixed(days, 1) +
         " days (" + std::to_string(f.size_history.size()) + " samples)");
  } else if (f.has_status) {
    fact("growth: unknown (the status has " + std::to_string(f.size_history.size()) +
         " size sample" + (f.size_history.size() == 1 ? "" : "s") +
         ", less than an hour apart); projected with no growth");
  }

  // size
  const double growth = std::max(0.0, report.daily_growth_bytes.value_or(0.0));
  const double projected = static_cast<double>(f.size_bytes) + growth * rules.horizon_days;
  const int64_t needed =
      rules.region_size > 0
          ? static_cast<int64_t>(std::ceil(projected / static_cast<double>(rules.region_size)))
          : 0;
  if (f.region_count > 0 && needed > f.region_count) {
    advise("more_regions", "size",
           "more regions: " + Size(projected) + " in " + std::to_string(rules.horizon_days) +
               " days needs " + std::to_string(needed) + " regions of " +
               Size(static_cast<double>(rules.region_size)) + ", the table has " +
               std::to_string(f.region_count));
  }
  // budget
  if (auto it = f.reasons.find("region_budget"); it != f.reasons.end() && it->second > 0) {
    // The budget the skips met, as they recorded it: the live region count misses a region the
    // balancer is moving (it has no load report until it opens again).
    const int budget = f.budget_max_regions > 0 ? f.budget_max_regions : f.region_count;
    advise("more_regions", "budget",
           "more regions: " + std::to_string(it->second) +
               " load split decision(s) stopped at the region budget; raise load_split."
               "max_regions above " +
               std::to_string(budget));
  }
  // no_load_split
  if (f.has_load && f.hot_regions > 0 && f.has_status && f.decisions == 0) {
    advise("split_policy", "no_load_split",
           "split policy: " + std::to_string(f.hot_regions) +
               " hot region(s) and no load split decision: turn load splits on (the "
               "document's load_split object)");
  }
  // key_points
  if (f.key_sample_splits > 0 && f.has_load && f.request_skew >= rules.skew_limit) {
    advise("split_policy", "key_points",
           "split policy: " + std::to_string(f.key_sample_splits) +
               " load split(s) at points of key samples and the request skew is still " +
               Fixed(f.request_skew, 2) + " (limit " + Fixed(rules.skew_limit, 1) +
               "): use NativeSplitPolicy (the document's split_policy with load_balanced), "
               "whose points balance requests, not keys");
  }
  // bucket_tails (not while a re-salt is already under way)
  if (f.migration_target.empty() && f.buckets > 0 && f.region_count >= 2 * f.buckets &&
      static_cast<int>(f.write_rates.size()) > f.buckets) {
    std::vector<double> rates = f.write_rates;
    std::sort(rates.begin(), rates.end(), std::greater<>());
    double total = 0, top = 0;
    for (size_t i = 0; i < rates.size(); ++i) {
      total += rates[i];
      if (static_cast<int>(i) < f.buckets) top += rates[i];
    }
    if (total > 0 && top / total >= rules.bucket_tail_share) {
      advise("re_salt", "bucket_tails",
             "re-salt to more buckets: " + Fixed(100 * top / total, 0) + "% of the writes go to " +
                 std::to_string(f.buckets) + " of " + std::to_string(f.region_count) +
                 " regions (one per bucket); " + std::to_string(2 * f.buckets) +
                 " buckets would spread them over twice as many");
    }
  }
  // hot_key
  int unsplittable = 0;
  for (const char* reason : {"unsplittable", "no_split_point", "split_refused"}) {
    if (auto it = f.reasons.find(reason); it != f.reasons.end()) unsplittable += it->second;
  }
  if (unsplittable > 0) {
    advise("hot_key", "hot_key",
           std::to_string(unsplittable) +
               " decision(s) found a hot region unsplittable: its load is on one key (or "
               "requests spanning it); neither more regions nor a re-salt by group divides it");
  }
  return report;
}

}  // namespace presplit::ctl
