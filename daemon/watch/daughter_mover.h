// Which daughters of load splits to move, for the tables whose document asks for it
// (load_split.move_daughters): HBase opens both daughters of a split on their parent's server,
// so a split spreads nothing until the balancer moves one. When the balancer has not within the
// document's window, the hotter daughter goes to the least-loaded server, if that lowers the
// busier of the two servers' request rates. Plain code; the LoadWatcher tells it which splits it
// asked for, feeds it each poll's scores and carries out its decisions (a move is
// RegionLoadSource::MoveRegion).
//
// The servers' rates are the sums of the rates of the regions presplit watches (the documented
// tables' regions): the load of other tables is not seen. The live servers come from the same
// poll (RegionLoadSource::LiveServers), so a server without any watched region counts, at 0.
//
// Never thrashes: a split's daughters are moved at most once (a pair is forgotten once moved,
// refused, spread by the balancer, or given up), splits are themselves limited, and moves have
// a cluster-wide rate of their own (the load split limits, counted apart from splits).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "daemon/watch/region_load.h"
#include "daemon/watch/split_planner.h"

namespace presplit::daemon::watch {

class DaughterMover {
 public:
  explicit DaughterMover(ClusterSplitLimits limits) : limits_(limits) {}

  // presplitd asked HBase to split `split`'s region (the request was accepted): its daughters,
  // the two regions that will cover its key range, are watched from now on.
  void SplitRequested(const SplitDecision& split, int64_t now_ms);

  // The moves due at `now_ms`: `loads` are every watched physical table of this poll (the
  // servers' rates are their regions' sums), `settings_of` their settings by physical table,
  // `live_servers` the live RegionServers (may be empty: then the servers the regions name).
  // A returned kMove counts against the rate at once and its pair is forgotten: the caller asks
  // HBase to move the region once, whatever the answer. A skipped move (dry run, rate) is
  // returned again only when its reason changes, until the pair is given up (the document's
  // window plus its cool-down after the split).
  std::vector<SplitDecision> Plan(
      const std::vector<TableLoad>& loads,
      const std::map<std::string, const LoadSplitSettings*>& settings_of,
      const std::vector<std::string>& live_servers, int64_t now_ms);

  // How many splits' daughters are watched (for tests and /status).
  size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    std::string table;           // the document's name
    std::string physical_table;  // the HBase table
    std::string parent;          // the split region's encoded name
    std::string start_key;       // the parent's range: the daughters cover exactly this
    std::string end_key;
    int64_t split_ms = 0;
    std::string last_reason;  // of the last skipped move returned ("" = none returned yet)
  };

  bool RateAllows(int64_t now_ms);

  ClusterSplitLimits limits_;
  std::map<std::string, Pending> pending_;  // by parent region
  std::deque<int64_t> recent_moves_ms_;     // kMove decisions within the window
};

}  // namespace presplit::daemon::watch
