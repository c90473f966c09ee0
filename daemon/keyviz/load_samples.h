// The key visualizer's input: one load poll (the load watcher's snapshot) as LoadHistory's
// samples. Plain code, the only place the history meets the load watcher's types.
#pragma once

#include <vector>

#include "daemon/keyviz/load_history.h"
#include "daemon/watch/load_watcher.h"
#include "daemon/watch/watched_tables.h"

namespace presplit::daemon::keyviz {

// One sample per document, of the physical table serving it, under the layout its watched table
// records (`tables`, as given to the load watcher; the default layout for a physical table not
// among them). A migration's target before its switch is not the document's history: skipped.
// A table without regions in the poll (not found, not created yet) is skipped too, so that it
// does not start an empty epoch.
std::vector<TableSample> SamplesFromLoad(const watch::LoadSnapshot& snapshot,
                                         const std::vector<watch::WatchedTable>& tables);

}  // namespace presplit::daemon::keyviz
