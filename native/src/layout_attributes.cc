#include "presplit/layout_attributes.h"

#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

#include "presplit/bytes.h"
#include "presplit/split_algorithms.h"
#include "presplit/table_canonical.h"
#include "presplit/table_derived.h"

namespace presplit {
namespace {

using json = nlohmann::json;

constexpr std::string_view kSaltPrefix = "salt.";
constexpr std::string_view kGroupPrefix = "group.";

// A whole number as HBase shows it: decimal digits only. Nine digits at most keeps it an int;
// larger values are out of every range anyway.
bool IsWholeNumber(const std::string& value) {
  if (value.empty() || value.size() > 9) return false;
  for (char c : value) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// What Bytes.toStringBinary writes: printable ASCII only.
bool IsPrintableAscii(const std::string& value) {
  for (char c : value) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

Status AttributeError(std::string_view name, const std::string& problem) {
  return Status::InvalidArgument("attribute '" + std::string(name) + "': " + problem);
}

// The document parser's "field 'layout.salt.buckets': ..." as the attribute's own name, since
// that is what an operator sees in the HBase shell.
Status AsAttributeError(const Status& s) {
  constexpr std::string_view kField = "field 'layout";
  const std::string& message = s.message();
  if (message.rfind(kField, 0) == 0) {
    return Status::InvalidArgument("attribute 'presplit.layout" + message.substr(kField.size()));
  }
  return Status::InvalidArgument("layout attributes: " + message);
}

}  // namespace

bool IsLayoutAttribute(std::string_view name) {
  return name.substr(0, kLayoutAttributePrefix.size()) == kLayoutAttributePrefix;
}

std::map<std::string, std::string> LayoutAttributes(const LayoutConfig& layout) {
  const std::string prefix(kLayoutAttributePrefix);
  std::map<std::string, std::string> attributes;
  attributes[kLayoutRecordedAttribute] = "true";
  if (layout.salt) {
    const SaltConfig& salt = *layout.salt;
    attributes[prefix + "salt.buckets"] = std::to_string(salt.buckets);
    attributes[prefix + "salt.encoding"] = std::string(SaltEncodingName(salt.encoding));
    Result<int> width = SaltWidth(salt.encoding, salt.buckets, salt.width);
    attributes[prefix + "salt.width"] = std::to_string(width.ok() ? *width : salt.width);
    attributes[prefix + "salt.hash"] = salt.hash;
    attributes[prefix + "salt.from"] = salt.from;
  }
  if (layout.group) {
    if (layout.group->length) {
      attributes[prefix + "group.length"] = std::to_string(*layout.group->length);
    }
    if (layout.group->delimiter) {
      attributes[prefix + "group.delimiter"] = ToStringBinary(*layout.group->delimiter);
    }
  }
  return attributes;
}

bool IsCreationOnlyAttribute(std::string_view name) { return name == kMigrationGuardAttribute; }

std::map<std::string, std::string> TableAttributes(const TableConfig& config) {
  std::map<std::string, std::string> attributes = SplitPolicyAttributes(config);
  for (auto& [name, value] : LayoutAttributes(config.layout)) attributes[name] = std::move(value);
  attributes[kMigrationGuardAttribute] = kMigrationGuardCoprocessor;
  return attributes;
}

Result<std::optional<LayoutConfig>> LayoutFromAttributes(
    const std::map<std::string, std::string>& attributes) {
  try {
    json layout = json::object();
    bool any = false;
    for (const auto& [name, value] : attributes) {
      if (!IsLayoutAttribute(name)) continue;
      any = true;
      if (name == kLayoutRecordedAttribute) {
        if (value != "true") return AttributeError(name, "must be 'true' (got '" + value + "')");
        continue;
      }
      const std::string key = name.substr(kLayoutAttributePrefix.size());
      std::string object;
      std::string field;
      if (key.rfind(kSaltPrefix, 0) == 0) {
        object = "salt";
        field = key.substr(kSaltPrefix.size());
      } else if (key.rfind(kGroupPrefix, 0) == 0) {
        object = "group";
        field = key.substr(kGroupPrefix.size());
      } else {
        return AttributeError(name, "unknown layout attribute");
      }
      if (field.empty() || field.find('.') != std::string::npos) {
        return AttributeError(name, "unknown layout attribute");
      }
      // The numbers of the document's layout; the rest are strings there too.
      if (field == "buckets" || field == "width" || field == "length") {
        if (!IsWholeNumber(value)) {
          return AttributeError(name,
                                "expected a whole number, got '" + ToStringBinary(value) + "'");
        }
        layout[object][field] = std::stoi(value);
      } else if (!IsPrintableAscii(value)) {
        return AttributeError(name,
                              "expected printable text (a delimiter in "
                              "Bytes.toStringBinary form), got '" +
                                  ToStringBinary(value) + "'");
      } else {
        layout[object][field] = value;
      }
    }
    if (!any) return std::optional<LayoutConfig>();
    // The document's parser is the one definition of a valid layout: the record is checked by
    // the same rules as the document it was written from, around a placeholder table.
    json doc{{"version", kTableConfigVersion},
             {"table", "layout_record"},
             {"layout", layout},
             {"split", {{"algorithm", "uniform"}, {"regions", 1}}},
             {"families", json::array({json{{"name", "f"}}})}};
    Result<TableConfig> config = ParseTableConfig(doc.dump());
    if (!config.ok()) return AsAttributeError(config.status());
    return std::optional<LayoutConfig>(std::move(config->layout));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected failure while reading layout attributes: ") +
                            e.what());
  }
}

std::string LayoutToJson(const LayoutConfig& layout) {
  try {
    TableConfig config;
    config.table = "layout_record";
    config.qualifier = "layout_record";
    config.layout = layout;
    json canonical = json::parse(TableConfigToJson(config), nullptr, /*allow_exceptions=*/false);
    if (canonical.is_discarded() || !canonical.contains("layout")) return "{}";
    return canonical["layout"].dump();
  } catch (...) {
    return "{}";
  }
}

int SaltBucketsOfLayoutJson(std::string_view layout_json) {
  const json parsed = json::parse(layout_json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("salt")) return 0;
  const json& salt = parsed["salt"];
  return salt.is_object() && salt.contains("buckets") && salt["buckets"].is_number_integer()
             ? salt["buckets"].get<int>()
             : 0;
}

}  // namespace presplit
