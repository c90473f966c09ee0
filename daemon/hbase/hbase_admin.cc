#include "daemon/hbase/hbase_admin.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "presplit/bytes.h"

namespace presplit::daemon {
namespace {

using nlohmann::json;

json FamilyToJson(const FamilyConfig& f) {
  return json{{"name", f.name},
              {"compression", f.compression},
              {"data_block_encoding", f.data_block_encoding},
              {"bloom_filter", f.bloom_filter},
              {"max_versions", f.max_versions},
              {"ttl_seconds", f.ttl_seconds},
              {"block_size", f.block_size},
              {"in_memory", f.in_memory}};
}

FamilyConfig FamilyFromJson(const json& j) {
  FamilyConfig f;
  f.name = j.at("name").get<std::string>();
  f.compression = j.value("compression", f.compression);
  f.data_block_encoding = j.value("data_block_encoding", f.data_block_encoding);
  f.bloom_filter = j.value("bloom_filter", f.bloom_filter);
  f.max_versions = j.value("max_versions", f.max_versions);
  f.ttl_seconds = j.value("ttl_seconds", f.ttl_seconds);
  f.block_size = j.value("block_size", f.block_size);
  f.in_memory = j.value("in_memory", f.in_memory);
  return f;
}

template <typename T>
void CompareField(std::vector<std::string>& out, const std::string& family, const char* field,
                  const T& actual, const T& wanted) {
  if (actual == wanted) return;
  std::ostringstream line;
  line << "family '" << family << "': " << field << " is " << actual << ", config asks for "
       << wanted;
  out.push_back(line.str());
}

}  // namespace

std::string TableSpecToBridgeJson(const TableSpec& spec) {
  json families = json::array();
  for (const auto& f : spec.families) families.push_back(FamilyToJson(f));
  json doc{{"table", spec.table}, {"families", families}, {"attributes", spec.attributes}};
  return doc.dump();
}

Result<TableDescription> ParseBridgeDescription(const std::string& text) {
  try {
    json j = json::parse(text);
    TableDescription d;
    d.exists = j.at("exists").get<bool>();
    d.table = j.value("table", "");
    if (!d.exists) return d;
    d.enabled = j.value("enabled", false);
    for (const auto& f : j.at("families")) d.families.push_back(FamilyFromJson(f));
    if (j.contains("attributes")) {
      for (const auto& [k, v] : j.at("attributes").items()) d.attributes[k] = v.get<std::string>();
    }
    for (const auto& r : j.at("regions")) {
      RegionInfo region;
      region.name = r.value("name", "");
      region.start_key = ToBytesBinary(r.at("start_key").get<std::string>());
      region.end_key = ToBytesBinary(r.at("end_key").get<std::string>());
      if (r.contains("server") && r.at("server").is_string()) region.server = r.at("server");
      d.regions.push_back(std::move(region));
    }
    for (const auto& k : j.at("split_keys"))
      d.split_keys.push_back(ToBytesBinary(k.get<std::string>()));
    return d;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected table description from AdminBridge: ") +
                            e.what());
  }
}

std::vector<std::string> CompareTable(const TableSpec& wanted, const TableDescription& actual) {
  std::vector<std::string> out;
  for (const auto& w : wanted.families) {
    auto it = std::find_if(actual.families.begin(), actual.families.end(),
                           [&](const FamilyConfig& a) { return a.name == w.name; });
    if (it == actual.families.end()) {
      out.push_back("family '" + w.name + "' is missing");
      continue;
    }
    CompareField(out, w.name, "compression", it->compression, w.compression);
    CompareField(out, w.name, "data_block_encoding", it->data_block_encoding,
                 w.data_block_encoding);
    CompareField(out, w.name, "bloom_filter", it->bloom_filter, w.bloom_filter);
    CompareField(out, w.name, "max_versions", it->max_versions, w.max_versions);
    CompareField(out, w.name, "ttl_seconds", it->ttl_seconds, w.ttl_seconds);
    CompareField(out, w.name, "block_size", it->block_size, w.block_size);
    CompareField(out, w.name, "in_memory", it->in_memory, w.in_memory);
  }
  for (const auto& a : actual.families) {
    bool wanted_family = std::any_of(wanted.families.begin(), wanted.families.end(),
                                     [&](const FamilyConfig& w) { return w.name == a.name; });
    if (!wanted_family) out.push_back("family '" + a.name + "' exists but is not in the config");
  }
  for (const auto& [key, value] : wanted.attributes) {
    auto it = actual.attributes.find(key);
    if (it == actual.attributes.end()) {
      out.push_back("attribute " + key + " is not set, config asks for '" + value + "'");
    } else if (it->second != value) {
      out.push_back("attribute " + key + " is '" + it->second + "', config asks for '" + value +
                    "'");
    }
  }
  // Regions HBase split later are normal growth; a planned boundary that is gone (a merge, or a
  // table created with another plan) is a difference.
  std::set<std::string> boundaries(actual.split_keys.begin(), actual.split_keys.end());
  std::vector<std::string> missing;
  for (const auto& key : wanted.split_keys) {
    if (!boundaries.count(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    std::ostringstream line;
    line << "regions: " << missing.size() << " of " << wanted.split_keys.size()
         << " planned split keys are not region boundaries (first: '"
         << ToStringBinary(missing.front()) << "'); the table has " << actual.regions.size()
         << " regions";
    out.push_back(line.str());
  }
  return out;
}

}  // namespace presplit::daemon
