// The canonical form of a table document (presplit/table_canonical.h).
#include "presplit/table_canonical.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "table_config_internal.h"

namespace presplit {

using ordered_json = nlohmann::ordered_json;
using table_config_internal::NumberRowDefault;

std::string TableConfigToJson(const TableConfig& config) {
  try {
    ordered_json doc;
    doc["version"] = config.version;
    doc["table"] = config.table;
    doc["description"] = config.description;
    ordered_json layout = ordered_json::object();
    if (config.layout.salt) {
      const SaltConfig& s = *config.layout.salt;
      ordered_json salt;
      salt["buckets"] = s.buckets;
      salt["encoding"] = std::string(SaltEncodingName(s.encoding));
      Result<int> width = SaltWidth(s.encoding, s.buckets, s.width);
      salt["width"] = width.ok() ? *width : s.width;
      salt["hash"] = s.hash;
      salt["from"] = s.from;
      layout["salt"] = std::move(salt);
    }
    if (config.layout.group) {
      ordered_json group = ordered_json::object();
      if (config.layout.group->length) group["length"] = *config.layout.group->length;
      if (config.layout.group->delimiter) {
        group["delimiter"] = ToStringBinary(*config.layout.group->delimiter);
      }
      layout["group"] = std::move(group);
    }
    doc["layout"] = std::move(layout);

    const SplitConfig& sp = config.split;
    ordered_json split;
    split["algorithm"] = std::string(SplitAlgorithmName(sp.algorithm));
    switch (sp.algorithm) {
      case SplitAlgorithm::kHexString:
      case SplitAlgorithm::kDecimalString:
        split["regions"] = sp.regions;
        split["first_row"] = sp.first_row ? *sp.first_row : NumberRowDefault(sp.algorithm, true);
        split["last_row"] = sp.last_row ? *sp.last_row : NumberRowDefault(sp.algorithm, false);
        break;
      case SplitAlgorithm::kUniform:
        split["regions"] = sp.regions;
        split["first_row"] = ToStringBinary(sp.first_row ? *sp.first_row : std::string());
        split["last_row"] = ToStringBinary(sp.last_row ? *sp.last_row : std::string(8, '\xFF'));
        break;
      case SplitAlgorithm::kSaltBuckets:
        split["regions"] = sp.regions;
        if (sp.regions_per_bucket > 1) {
          split["regions_per_bucket"] = sp.regions_per_bucket;
          split["within_bucket"] = std::string(SplitAlgorithmName(sp.within_bucket));
          if (sp.within_bucket == SplitAlgorithm::kSampled) {
            ordered_json sample = ordered_json::array();
            for (const std::string& k : sp.sample) sample.push_back(ToStringBinary(k));
            split["sample"] = std::move(sample);
          }
        }
        break;
      case SplitAlgorithm::kPartitions:
        split["regions"] = sp.regions;
        break;
      case SplitAlgorithm::kSampled: {
        split["regions"] = sp.regions;
        ordered_json sample = ordered_json::array();
        for (const std::string& k : sp.sample) sample.push_back(ToStringBinary(k));
        split["sample"] = std::move(sample);
        break;
      }
      case SplitAlgorithm::kExplicit: {
        ordered_json keys = ordered_json::array();
        for (const std::string& k : sp.keys) keys.push_back(ToStringBinary(k));
        split["keys"] = std::move(keys);
        break;
      }
    }
    doc["split"] = std::move(split);

    ordered_json families = ordered_json::array();
    for (const FamilyConfig& f : config.families) {
      ordered_json family;
      family["name"] = f.name;
      family["compression"] = f.compression;
      family["data_block_encoding"] = f.data_block_encoding;
      family["bloom_filter"] = f.bloom_filter;
      family["max_versions"] = f.max_versions;
      family["ttl_seconds"] = f.ttl_seconds;
      family["block_size"] = f.block_size;
      family["in_memory"] = f.in_memory;
      families.push_back(std::move(family));
    }
    doc["families"] = std::move(families);
    if (config.split_policy) {
      const SplitPolicyConfig& p = *config.split_policy;
      ordered_json policy;
      policy["size_policy"] = p.size_policy;
      if (p.max_file_size) policy["max_file_size"] = *p.max_file_size;
      policy["load_balanced"] = p.load_balanced;
      if (p.load_balanced) {
        policy["min_requests"] = p.min_requests;
        policy["max_imbalance"] = p.max_imbalance;
        policy["max_contained_fraction"] = p.max_contained_fraction;
      }
      doc["split_policy"] = std::move(policy);
    }
    if (config.load_split) {
      const LoadSplitConfig& l = *config.load_split;
      ordered_json load;
      load["dry_run"] = l.dry_run;
      load["min_requests_per_s"] = l.min_requests_per_s;
      load["mean_multiple"] = l.mean_multiple;
      load["sustain_s"] = l.sustain_s;
      load["max_regions"] = l.max_regions;
      load["cooldown_s"] = l.cooldown_s;
      load["unsplittable_s"] = l.unsplittable_s;
      // Only when present: the canonical form of a document without it does not change.
      if (l.move_daughters) {
        load["move_daughters"] = {{"after_s", l.move_daughters->after_s},
                                  {"dry_run", l.move_daughters->dry_run}};
      }
      doc["load_split"] = std::move(load);
    }
    if (config.migration) {
      const MigrationConfig& m = *config.migration;
      ordered_json migration;
      migration["allowed"] = m.allowed;
      migration["workers"] = m.workers;
      migration["max_cells_per_s"] = m.max_cells_per_s;
      migration["grace_period_s"] = m.grace_period_s;
      migration["drop_old"] = m.drop_old;
      migration["engine"] = m.engine;
      // Only when not the default: the canonical form of a document without it does not change.
      if (m.replication != "refuse") migration["replication"] = m.replication;
      if (m.max_write_pause_ms != 5000) migration["max_write_pause_ms"] = m.max_write_pause_ms;
      if (!m.throttle.empty()) migration["throttle"] = m.throttle;
      doc["migration"] = std::move(migration);
    }
    // Replace rather than throw on text that is not UTF-8 (only a hand-built config can have it).
    return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  } catch (...) {
    return "{}\n";
  }
}

}  // namespace presplit
