#include "daemon/keyviz/load_samples.h"

#include <map>
#include <string>

namespace presplit::daemon::keyviz {

std::vector<TableSample> SamplesFromLoad(const watch::LoadSnapshot& snapshot,
                                         const std::vector<watch::WatchedTable>& tables) {
  std::map<std::string, const KeyLayout*> layout_of;  // by physical table
  for (const auto& t : tables) layout_of.emplace(t.physical_table, &t.settings.layout);
  std::vector<TableSample> samples;
  samples.reserve(snapshot.tables.size());
  for (const auto& load : snapshot.tables) {
    if (load.migration_target || load.regions.empty()) continue;
    TableSample sample;
    sample.table = load.table;
    sample.physical_table = load.physical_table;
    sample.generation = load.generation;
    if (auto it = layout_of.find(load.physical_table); it != layout_of.end()) {
      sample.layout = *it->second;
    }
    sample.regions.reserve(load.regions.size());
    for (const auto& r : load.regions) {
      TableSample::Region region;
      region.start_key = r.start_key;
      region.end_key = r.end_key;
      region.read_per_s = r.read_per_s;
      region.write_per_s = r.write_per_s;
      region.has_rate = r.has_rate;
      region.size_bytes = r.size_bytes;
      sample.regions.push_back(std::move(region));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace presplit::daemon::keyviz
