// Parses and validates the table document (the rules are in presplit/table_config.h); the
// canonical form and what is derived from a config live in table_canonical.cc and
// table_derived.cc.
#include "presplit/table_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <exception>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "presplit/bigint.h"
#include "presplit/bytes.h"
#include "presplit/json_bounds.h"
#include "presplit/split_points.h"
#include "presplit/split_policy.h"
#include "presplit/table_name.h"
#include "table_config_internal.h"

namespace presplit {
namespace {

using table_config_internal::FormatNumber;

using json = nlohmann::json;

constexpr std::array<std::string_view, 8> kCompressions = {"NONE", "GZ",    "LZO",  "SNAPPY",
                                                           "LZ4",  "BZIP2", "ZSTD", "LZMA"};
constexpr std::array<std::string_view, 5> kDataBlockEncodings = {"NONE", "PREFIX", "DIFF",
                                                                 "FAST_DIFF", "ROW_INDEX_V1"};
constexpr std::array<std::string_view, 4> kBloomFilters = {"NONE", "ROW", "ROWCOL",
                                                           "ROWPREFIX_FIXED_LENGTH"};
constexpr std::array<std::string_view, 3> kHashes = {"murmur3", "phoenix", "java-hashcode"};
constexpr std::array<std::string_view, 2> kSaltFrom = {"group", "key"};

constexpr int kMaxGroupLength = 32767;
constexpr int kMinBlockSize = 1024;
constexpr int kMaxBlockSize = 16 * 1024 * 1024;
constexpr int64_t kMaxTtlSeconds = std::numeric_limits<int32_t>::max();

Status FieldError(const std::string& path, const std::string& problem) {
  return Status::InvalidArgument("field '" + path + "': " + problem);
}

std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number with a fraction";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <size_t N>
std::string ListOf(const std::array<std::string_view, N>& names) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  return out;
}

// Finds `value` (compared after `normalize`) among `names`; error names the field and the
// choices.
template <size_t N>
Result<std::string> OneOf(const std::string& path, std::string_view what, const std::string& value,
                          const std::array<std::string_view, N>& names,
                          std::string (*normalize)(std::string_view)) {
  std::string normalized = normalize(value);
  for (std::string_view n : names) {
    if (n == normalized) return normalized;
  }
  return FieldError(path, "unknown " + std::string(what) + " '" + ToStringBinary(value) +
                              "' (expected one of " + ListOf(names) + ")");
}

// Reads the members of one JSON object, with the path of the object for error messages.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string PathOf(std::string_view key) const { return Join(path_, key); }
  bool Has(std::string_view key) const { return object_.contains(std::string(key)); }

  Status CheckKnownFields(std::initializer_list<std::string_view> known) const {
    for (const auto& item : object_.items()) {
      if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
        // What is allowed here, so a misspelt key ("regoins") is fixed without the manual.
        std::string allowed;
        for (std::string_view k : known) allowed += (allowed.empty() ? "" : ", ") + std::string(k);
        return FieldError(PathOf(ToStringBinary(item.key())),
                          "unknown field (expected one of " + allowed + ")");
      }
    }
    return Status::Ok();
  }

  // nullptr when absent; error when required and absent.
  Result<const json*> Get(std::string_view key, bool required) const {
    auto it = object_.find(std::string(key));
    if (it == object_.end()) {
      if (required) return FieldError(PathOf(key), "missing required field");
      return static_cast<const json*>(nullptr);
    }
    return &*it;
  }

  Result<std::optional<int64_t>> GetInt(std::string_view key, bool required, int64_t min,
                                        int64_t max) const {
    PRESPLIT_ASSIGN_OR_RETURN(const json* v, Get(key, required));
    if (v == nullptr) return std::optional<int64_t>();
    if (!v->is_number_integer()) {
      return FieldError(PathOf(key), std::string("expected an integer, got ") + TypeName(*v));
    }
    bool in_range;
    int64_t value = 0;
    if (v->is_number_unsigned()) {
      auto u = v->get<uint64_t>();
      in_range = u <= static_cast<uint64_t>(max) && static_cast<int64_t>(u) >= min;
      value = in_range ? static_cast<int64_t>(u) : 0;
      if (!in_range) {
        return FieldError(PathOf(key), "must be between " + std::to_string(min) + " and " +
                                           std::to_string(max) + " (got " + std::to_string(u) +
                                           ")");
      }
    } else {
      value = v->get<int64_t>();
      if (value < min || value > max) {
        return FieldError(PathOf(key), "must be between " + std::to_string(min) + " and " +
                                           std::to_string(max) + " (got " + std::to_string(value) +
                                           ")");
      }
    }
    return std::optional<int64_t>(value);
  }

  Result<std::optional<std::string>> GetString(std::string_view key, bool required) const {
    PRESPLIT_ASSIGN_OR_RETURN(const json* v, Get(key, required));
    if (v == nullptr) return std::optional<std::string>();
    if (!v->is_string()) {
      return FieldError(PathOf(key), std::string("expected a string, got ") + TypeName(*v));
    }
    return std::optional<std::string>(v->get<std::string>());
  }

  // A number in (min, max]; integers are accepted as numbers.
  Result<std::optional<double>> GetFraction(std::string_view key, double min, double max) const {
    PRESPLIT_ASSIGN_OR_RETURN(const json* v, Get(key, false));
    if (v == nullptr) return std::optional<double>();
    if (!v->is_number()) {
      return FieldError(PathOf(key), std::string("expected a number, got ") + TypeName(*v));
    }
    const double value = v->get<double>();
    if (!(value > min && value <= max)) {
      return FieldError(PathOf(key), "must be greater than " + FormatNumber(min) + " and at most " +
                                         FormatNumber(max) + " (got " + FormatNumber(value) + ")");
    }
    return std::optional<double>(value);
  }

  Result<std::optional<bool>> GetBool(std::string_view key) const {
    PRESPLIT_ASSIGN_OR_RETURN(const json* v, Get(key, false));
    if (v == nullptr) return std::optional<bool>();
    if (!v->is_boolean()) {
      return FieldError(PathOf(key), std::string("expected a boolean, got ") + TypeName(*v));
    }
    return std::optional<bool>(v->get<bool>());
  }

  // The member as an object reader; nullopt when absent.
  Result<std::optional<ObjectReader>> GetObject(std::string_view key, bool required) const {
    PRESPLIT_ASSIGN_OR_RETURN(const json* v, Get(key, required));
    if (v == nullptr) return std::optional<ObjectReader>();
    if (!v->is_object()) {
      return FieldError(PathOf(key), std::string("expected an object, got ") + TypeName(*v));
    }
    return std::optional<ObjectReader>(ObjectReader(*v, PathOf(key)));
  }

 private:
  const json& object_;
  std::string path_;
};

// The parser keeps the last of duplicate keys silently; a config with two "regions" is more
// likely a mistake than an intent, so the callback records the first duplicate.
class DuplicateKeyDetector {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        CountElement();
        frames_.push_back(Frame{false, {}, {}, 0});
        break;
      case json::parse_event_t::array_start:
        CountElement();
        frames_.push_back(Frame{true, {}, {}, 0});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key:
        if (!frames_.empty() && parsed.is_string()) {
          Frame& f = frames_.back();
          f.key = parsed.get<std::string>();
          if (!f.keys.insert(f.key).second && !duplicate_) duplicate_ = Path();
        }
        break;
      case json::parse_event_t::value:
        CountElement();
        break;
    }
    return true;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool is_array;
    std::set<std::string> keys;
    std::string key;
    int next_index;  // arrays: index of the element being read + 1
  };
  void CountElement() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().next_index;
  }
  std::string Path() const {
    std::string path;
    for (const Frame& f : frames_) {
      if (f.is_array) {
        path += "[" + std::to_string(f.next_index - 1) + "]";
      } else {
        path += (path.empty() ? "" : ".") + ToStringBinary(f.key);
      }
    }
    return path;
  }

  std::vector<Frame> frames_;
  std::optional<std::string> duplicate_;
};

Status ValidateFamilyName(const std::string& path, const std::string& name) {
  if (name.empty()) return FieldError(path, "a column family name must not be empty");
  if (name[0] == '.') {
    return FieldError(path,
                      "column family name '" + ToStringBinary(name) + "' must not start with '.'");
  }
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c > 0x7E || c == ':' || c == '\\' || c == '/') {
      return FieldError(path, "column family name '" + ToStringBinary(name) +
                                  "' has a forbidden character at offset " + std::to_string(i) +
                                  " (printable ASCII other than ':', '\\' and '/' only)");
    }
  }
  if (name == "recovered.edits") {
    return FieldError(path, "'recovered.edits' is reserved by HBase");
  }
  return Status::Ok();
}

Result<SaltConfig> ParseSalt(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(r.CheckKnownFields({"buckets", "encoding", "width", "hash", "from"}));
  SaltConfig salt;
  PRESPLIT_ASSIGN_OR_RETURN(auto encoding, r.GetString("encoding", false));
  if (encoding) {
    Result<SaltEncoding> e = ParseSaltEncoding(*encoding);
    if (!e.ok()) return FieldError(r.PathOf("encoding"), e.status().message());
    salt.encoding = *e;
  }
  const int max_buckets = salt.encoding == SaltEncoding::kByte ? 256 : kMaxConfigRegions;
  PRESPLIT_ASSIGN_OR_RETURN(auto buckets_field, r.Get("buckets", true));
  if (salt.encoding == SaltEncoding::kByte && buckets_field->is_number_integer() &&
      (buckets_field->get<int64_t>() > 256)) {
    return FieldError(r.PathOf("buckets"), "must be between 1 and 256 for byte encoding (got " +
                                               std::to_string(buckets_field->get<int64_t>()) + ")");
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto buckets, r.GetInt("buckets", true, 1, max_buckets));
  salt.buckets = static_cast<int>(*buckets);
  PRESPLIT_ASSIGN_OR_RETURN(auto width, r.GetInt("width", false, 0, 10));
  Result<int> resolved =
      SaltWidth(salt.encoding, salt.buckets, width ? static_cast<int>(*width) : 0);
  if (!resolved.ok()) return FieldError(r.PathOf("width"), resolved.status().message());
  salt.width = *resolved;
  PRESPLIT_ASSIGN_OR_RETURN(auto hash, r.GetString("hash", false));
  if (hash) {
    PRESPLIT_ASSIGN_OR_RETURN(salt.hash, OneOf(r.PathOf("hash"), "hash", *hash, kHashes, Lower));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto from, r.GetString("from", false));
  if (from) {
    PRESPLIT_ASSIGN_OR_RETURN(salt.from,
                              OneOf(r.PathOf("from"), "salt source", *from, kSaltFrom, Lower));
  }
  return salt;
}

Result<GroupConfig> ParseGroup(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(r.CheckKnownFields({"length", "delimiter"}));
  if (r.Has("length") == r.Has("delimiter")) {
    return FieldError(r.path(), "needs exactly one of 'length' or 'delimiter'");
  }
  GroupConfig group;
  PRESPLIT_ASSIGN_OR_RETURN(auto length, r.GetInt("length", false, 1, kMaxGroupLength));
  if (length) group.length = static_cast<int>(*length);
  PRESPLIT_ASSIGN_OR_RETURN(auto delimiter, r.GetString("delimiter", false));
  if (delimiter) {
    Result<std::string> bytes = ParseBinaryKey(*delimiter);
    if (!bytes.ok()) return FieldError(r.PathOf("delimiter"), bytes.status().message());
    if (bytes->empty()) return FieldError(r.PathOf("delimiter"), "must not be empty");
    group.delimiter = *bytes;
  }
  return group;
}

Status ParseLayout(const ObjectReader& r, LayoutConfig* layout) {
  PRESPLIT_RETURN_IF_ERROR(r.CheckKnownFields({"salt", "group"}));
  PRESPLIT_ASSIGN_OR_RETURN(auto salt, r.GetObject("salt", false));
  if (salt) {
    PRESPLIT_ASSIGN_OR_RETURN(layout->salt, ParseSalt(*salt));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto group, r.GetObject("group", false));
  if (group) {
    PRESPLIT_ASSIGN_OR_RETURN(layout->group, ParseGroup(*group));
  }
  if (layout->salt && layout->salt->from == "group" && !layout->group) {
    return FieldError(r.PathOf("salt.from"),
                      "salting from the group needs 'layout.group' (or set \"from\": \"key\")");
  }
  return Status::Ok();
}

Status NotAllowed(const ObjectReader& r, std::string_view key, SplitAlgorithm algorithm) {
  if (!r.Has(key)) return Status::Ok();
  return FieldError(r.PathOf(key), "not allowed with algorithm '" +
                                       std::string(SplitAlgorithmName(algorithm)) + "'");
}

// A hex/decimal first or last row: digits of the radix.
Result<std::optional<std::string>> GetNumberRow(const ObjectReader& r, std::string_view key,
                                                int radix) {
  PRESPLIT_ASSIGN_OR_RETURN(auto row, r.GetString(key, false));
  if (!row) return row;
  if (row->size() > kMaxRowKeyLength) {
    return FieldError(r.PathOf(key), "longer than " + std::to_string(kMaxRowKeyLength) +
                                         " characters (got " + std::to_string(row->size()) + ")");
  }
  Result<BigUint> value = BigUint::FromString(*row, radix);
  if (!value.ok()) return FieldError(r.PathOf(key), value.status().message());
  return row;
}

Result<std::optional<std::string>> GetBinaryRow(const ObjectReader& r, std::string_view key) {
  PRESPLIT_ASSIGN_OR_RETURN(auto row, r.GetString(key, false));
  if (!row) return row;
  Result<std::string> bytes = ParseBinaryKey(*row);
  if (!bytes.ok()) return FieldError(r.PathOf(key), bytes.status().message());
  return std::optional<std::string>(*bytes);
}

// An array of row keys in toStringBinary form.
Result<std::vector<std::string>> GetKeyArray(const ObjectReader& r, std::string_view field,
                                             size_t max_keys) {
  PRESPLIT_ASSIGN_OR_RETURN(const json* keys, r.Get(field, true));
  if (!keys->is_array()) {
    return FieldError(r.PathOf(field), std::string("expected an array, got ") + TypeName(*keys));
  }
  if (keys->size() > max_keys) {
    return FieldError(r.PathOf(field), "at most " + std::to_string(max_keys) + " keys (got " +
                                           std::to_string(keys->size()) + ")");
  }
  std::vector<std::string> out;
  out.reserve(keys->size());
  for (size_t i = 0; i < keys->size(); ++i) {
    const json& k = (*keys)[i];
    const std::string path = r.PathOf(field) + "[" + std::to_string(i) + "]";
    if (!k.is_string()) {
      return FieldError(path, std::string("expected a string, got ") + TypeName(k));
    }
    Result<std::string> bytes = ParseBinaryKey(k.get<std::string>());
    if (!bytes.ok()) return FieldError(path, bytes.status().message());
    if (bytes->size() > kMaxRowKeyLength) {
      return FieldError(path, "longer than " + std::to_string(kMaxRowKeyLength) + " bytes (got " +
                                  std::to_string(bytes->size()) + ")");
    }
    out.push_back(std::move(bytes).value());
  }
  return out;
}

Status NotAllowedSubSplitFields(const ObjectReader& r, SplitAlgorithm algorithm) {
  PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "regions_per_bucket", algorithm));
  PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "within_bucket", algorithm));
  if (algorithm != SplitAlgorithm::kSampled) {
    PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "sample", algorithm));
  }
  return Status::Ok();
}

Status ParseSaltBucketsSplit(const ObjectReader& r, const LayoutConfig& layout,
                             SplitConfig* split) {
  PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "first_row", split->algorithm));
  PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "last_row", split->algorithm));
  PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "keys", split->algorithm));
  if (!layout.salt) {
    return FieldError(r.PathOf("algorithm"), "'salt-buckets' needs 'layout.salt'");
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto per_bucket,
                            r.GetInt("regions_per_bucket", false, 1, kMaxConfigRegions));
  split->regions_per_bucket = per_bucket ? static_cast<int>(*per_bucket) : 1;
  const int64_t total = static_cast<int64_t>(layout.salt->buckets) * split->regions_per_bucket;
  if (total > kMaxConfigRegions) {
    return FieldError(r.PathOf("regions_per_bucket"),
                      std::to_string(layout.salt->buckets) + " buckets x " +
                          std::to_string(split->regions_per_bucket) + " = " +
                          std::to_string(total) + " regions (at most " +
                          std::to_string(kMaxConfigRegions) + ")");
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto within, r.GetString("within_bucket", false));
  if (within) {
    Result<SplitAlgorithm> w = ParseSplitAlgorithm(*within);
    if (!w.ok()) return FieldError(r.PathOf("within_bucket"), w.status().message());
    if (*w == SplitAlgorithm::kSaltBuckets || *w == SplitAlgorithm::kExplicit) {
      return FieldError(r.PathOf("within_bucket"),
                        "'" + std::string(SplitAlgorithmName(*w)) +
                            "' cannot split a bucket (expected one of hex-string, "
                            "decimal-string, uniform, partitions, sampled)");
    }
    if (split->regions_per_bucket == 1) {
      return FieldError(r.PathOf("within_bucket"), "needs regions_per_bucket > 1");
    }
    split->within_bucket = *w;
  }
  if (split->within_bucket == SplitAlgorithm::kSampled) {
    PRESPLIT_ASSIGN_OR_RETURN(split->sample, GetKeyArray(r, "sample", kMaxConfigSampleKeys));
  } else if (r.Has("sample")) {
    return FieldError(r.PathOf("sample"), "only allowed with \"within_bucket\": \"sampled\"");
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto regions, r.GetInt("regions", false, 1, kMaxConfigRegions));
  if (regions && *regions != total) {
    return FieldError(
        r.PathOf("regions"),
        "must equal layout.salt.buckets (" + std::to_string(layout.salt->buckets) + ")" +
            (split->regions_per_bucket > 1
                 ? " x regions_per_bucket (" + std::to_string(split->regions_per_bucket) +
                       ") = " + std::to_string(total)
                 : std::string()) +
            " with algorithm 'salt-buckets' (got " + std::to_string(*regions) + ")");
  }
  split->regions = static_cast<int>(total);
  return Status::Ok();
}

Status ParseSplit(const ObjectReader& r, const LayoutConfig& layout, SplitConfig* split) {
  PRESPLIT_RETURN_IF_ERROR(
      r.CheckKnownFields({"algorithm", "regions", "first_row", "last_row", "keys",
                          "regions_per_bucket", "within_bucket", "sample"}));
  PRESPLIT_ASSIGN_OR_RETURN(auto algorithm, r.GetString("algorithm", true));
  Result<SplitAlgorithm> parsed = ParseSplitAlgorithm(*algorithm);
  if (!parsed.ok()) return FieldError(r.PathOf("algorithm"), parsed.status().message());
  split->algorithm = *parsed;
  switch (split->algorithm) {
    case SplitAlgorithm::kHexString:
    case SplitAlgorithm::kDecimalString:
    case SplitAlgorithm::kUniform: {
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "keys", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowedSubSplitFields(r, split->algorithm));
      PRESPLIT_ASSIGN_OR_RETURN(auto regions, r.GetInt("regions", true, 1, kMaxConfigRegions));
      split->regions = static_cast<int>(*regions);
      if (split->algorithm == SplitAlgorithm::kUniform) {
        PRESPLIT_ASSIGN_OR_RETURN(split->first_row, GetBinaryRow(r, "first_row"));
        PRESPLIT_ASSIGN_OR_RETURN(split->last_row, GetBinaryRow(r, "last_row"));
      } else {
        int radix = split->algorithm == SplitAlgorithm::kHexString ? 16 : 10;
        PRESPLIT_ASSIGN_OR_RETURN(split->first_row, GetNumberRow(r, "first_row", radix));
        PRESPLIT_ASSIGN_OR_RETURN(split->last_row, GetNumberRow(r, "last_row", radix));
      }
      break;
    }
    case SplitAlgorithm::kSaltBuckets: {
      PRESPLIT_RETURN_IF_ERROR(ParseSaltBucketsSplit(r, layout, split));
      break;
    }
    case SplitAlgorithm::kPartitions:
    case SplitAlgorithm::kSampled: {
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "first_row", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "last_row", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "keys", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowedSubSplitFields(r, split->algorithm));
      PRESPLIT_ASSIGN_OR_RETURN(auto regions, r.GetInt("regions", true, 1, kMaxConfigRegions));
      split->regions = static_cast<int>(*regions);
      if (split->algorithm == SplitAlgorithm::kSampled) {
        PRESPLIT_ASSIGN_OR_RETURN(split->sample, GetKeyArray(r, "sample", kMaxConfigSampleKeys));
        Result<SampledSplitResult> sampled = SampledSplit(split->sample, split->regions);
        if (!sampled.ok()) return FieldError(r.PathOf("sample"), sampled.status().message());
      }
      break;
    }
    case SplitAlgorithm::kExplicit: {
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "first_row", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowed(r, "last_row", split->algorithm));
      PRESPLIT_RETURN_IF_ERROR(NotAllowedSubSplitFields(r, split->algorithm));
      if (r.Has("regions")) {
        return FieldError(r.PathOf("regions"),
                          "not allowed with algorithm 'explicit' (the table gets one region more "
                          "than there are keys)");
      }
      PRESPLIT_ASSIGN_OR_RETURN(const json* keys, r.Get("keys", true));
      if (!keys->is_array()) {
        return FieldError(r.PathOf("keys"),
                          std::string("expected an array, got ") + TypeName(*keys));
      }
      if (keys->size() > static_cast<size_t>(kMaxConfigRegions - 1)) {
        return FieldError(r.PathOf("keys"), "at most " + std::to_string(kMaxConfigRegions - 1) +
                                                " keys (got " + std::to_string(keys->size()) + ")");
      }
      for (size_t i = 0; i < keys->size(); ++i) {
        const json& k = (*keys)[i];
        const std::string path = r.PathOf("keys") + "[" + std::to_string(i) + "]";
        if (!k.is_string()) {
          return FieldError(path, std::string("expected a string, got ") + TypeName(k));
        }
        Result<std::string> bytes = ParseBinaryKey(k.get<std::string>());
        if (!bytes.ok()) return FieldError(path, bytes.status().message());
        split->keys.push_back(*bytes);
      }
      Status valid = ValidateSplitKeys(split->keys);
      if (!valid.ok()) return FieldError(r.PathOf("keys"), valid.message());
      split->regions = static_cast<int>(split->keys.size()) + 1;
      break;
    }
  }
  return Status::Ok();
}

Result<FamilyConfig> ParseFamily(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(
      r.CheckKnownFields({"name", "compression", "data_block_encoding", "bloom_filter",
                          "max_versions", "ttl_seconds", "block_size", "in_memory"}));
  FamilyConfig family;
  PRESPLIT_ASSIGN_OR_RETURN(auto name, r.GetString("name", true));
  PRESPLIT_RETURN_IF_ERROR(ValidateFamilyName(r.PathOf("name"), *name));
  family.name = *name;
  PRESPLIT_ASSIGN_OR_RETURN(auto compression, r.GetString("compression", false));
  if (compression) {
    PRESPLIT_ASSIGN_OR_RETURN(family.compression, OneOf(r.PathOf("compression"), "compression",
                                                        *compression, kCompressions, Upper));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto encoding, r.GetString("data_block_encoding", false));
  if (encoding) {
    PRESPLIT_ASSIGN_OR_RETURN(family.data_block_encoding,
                              OneOf(r.PathOf("data_block_encoding"), "data block encoding",
                                    *encoding, kDataBlockEncodings, Upper));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto bloom, r.GetString("bloom_filter", false));
  if (bloom) {
    PRESPLIT_ASSIGN_OR_RETURN(family.bloom_filter, OneOf(r.PathOf("bloom_filter"), "bloom filter",
                                                         *bloom, kBloomFilters, Upper));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto versions,
                            r.GetInt("max_versions", false, 1, std::numeric_limits<int>::max()));
  if (versions) family.max_versions = static_cast<int>(*versions);
  PRESPLIT_ASSIGN_OR_RETURN(auto ttl, r.GetInt("ttl_seconds", false, 1, kMaxTtlSeconds));
  if (ttl) family.ttl_seconds = *ttl;
  PRESPLIT_ASSIGN_OR_RETURN(auto block_size,
                            r.GetInt("block_size", false, kMinBlockSize, kMaxBlockSize));
  if (block_size) family.block_size = static_cast<int>(*block_size);
  PRESPLIT_ASSIGN_OR_RETURN(auto in_memory, r.GetBool("in_memory"));
  if (in_memory) family.in_memory = *in_memory;
  return family;
}

constexpr int64_t kMinMaxFileSize = 1LL << 20;    // 1 MiB: HBase refuses smaller regions
constexpr int64_t kMaxMaxFileSize = 100LL << 40;  // 100 TiB

Result<SplitPolicyConfig> ParseSplitPolicy(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(
      r.CheckKnownFields({"size_policy", "max_file_size", "load_balanced", "min_requests",
                          "max_imbalance", "max_contained_fraction"}));
  SplitPolicyConfig policy;
  PRESPLIT_ASSIGN_OR_RETURN(auto size_policy, r.GetString("size_policy", false));
  if (size_policy) {
    Result<SizePolicyKind> kind = ParseSizePolicy(*size_policy);
    if (!kind.ok()) return FieldError(r.PathOf("size_policy"), kind.status().message());
    policy.size_policy = std::string(SizePolicyName(*kind));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto max_file_size,
                            r.GetInt("max_file_size", false, kMinMaxFileSize, kMaxMaxFileSize));
  policy.max_file_size = max_file_size;
  PRESPLIT_ASSIGN_OR_RETURN(auto load_balanced, r.GetBool("load_balanced"));
  if (load_balanced) policy.load_balanced = *load_balanced;
  PRESPLIT_ASSIGN_OR_RETURN(auto min_requests, r.GetInt("min_requests", false, 1, 1'000'000'000));
  if (min_requests) policy.min_requests = *min_requests;
  PRESPLIT_ASSIGN_OR_RETURN(auto imbalance, r.GetFraction("max_imbalance", 0.0, 1.0));
  if (imbalance) policy.max_imbalance = *imbalance;
  PRESPLIT_ASSIGN_OR_RETURN(auto contained, r.GetFraction("max_contained_fraction", 0.0, 1.0));
  if (contained) policy.max_contained_fraction = *contained;
  if (!policy.load_balanced) {
    for (const char* key : {"min_requests", "max_imbalance", "max_contained_fraction"}) {
      if (r.Has(key)) return FieldError(r.PathOf(key), "only applies with load_balanced true");
    }
  }
  return policy;
}

Result<MoveDaughtersConfig> ParseMoveDaughters(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(r.CheckKnownFields({"after_s", "dry_run"}));
  MoveDaughtersConfig move;
  PRESPLIT_ASSIGN_OR_RETURN(auto after, r.GetInt("after_s", false, 0, 86400));
  if (after) move.after_s = *after;
  PRESPLIT_ASSIGN_OR_RETURN(auto dry_run, r.GetBool("dry_run"));
  if (dry_run) move.dry_run = *dry_run;
  return move;
}

Result<LoadSplitConfig> ParseLoadSplit(const ObjectReader& r, int created_regions) {
  PRESPLIT_RETURN_IF_ERROR(
      r.CheckKnownFields({"dry_run", "min_requests_per_s", "mean_multiple", "sustain_s",
                          "max_regions", "cooldown_s", "unsplittable_s", "move_daughters"}));
  LoadSplitConfig load;
  PRESPLIT_ASSIGN_OR_RETURN(auto dry_run, r.GetBool("dry_run"));
  if (dry_run) load.dry_run = *dry_run;
  PRESPLIT_ASSIGN_OR_RETURN(auto min_rate, r.GetFraction("min_requests_per_s", 0, 1e12));
  if (min_rate) load.min_requests_per_s = *min_rate;
  PRESPLIT_ASSIGN_OR_RETURN(auto multiple, r.GetFraction("mean_multiple", 1, 1e6));
  if (multiple) load.mean_multiple = *multiple;
  PRESPLIT_ASSIGN_OR_RETURN(auto sustain, r.GetInt("sustain_s", false, 1, 86400));
  if (sustain) load.sustain_s = *sustain;
  PRESPLIT_ASSIGN_OR_RETURN(auto cooldown, r.GetInt("cooldown_s", false, 1, 86400));
  if (cooldown) load.cooldown_s = *cooldown;
  PRESPLIT_ASSIGN_OR_RETURN(auto unsplittable, r.GetInt("unsplittable_s", false, 1, 604800));
  if (unsplittable) load.unsplittable_s = *unsplittable;
  PRESPLIT_ASSIGN_OR_RETURN(auto max_regions,
                            r.GetInt("max_regions", false, created_regions, kMaxConfigRegions));
  load.max_regions = max_regions ? static_cast<int>(*max_regions)
                                 : std::min(2 * created_regions, kMaxConfigRegions);
  PRESPLIT_ASSIGN_OR_RETURN(auto move_daughters, r.GetObject("move_daughters", false));
  if (move_daughters) {
    PRESPLIT_ASSIGN_OR_RETURN(load.move_daughters, ParseMoveDaughters(*move_daughters));
  }
  return load;
}

constexpr std::array<std::string_view, 4> kMigrationEngines = {"put", "hfile", "mapreduce", "auto"};
constexpr std::array<std::string_view, 3> kMigrationReplication = {"refuse", "follow", "stop"};
constexpr std::array<std::string_view, 2> kMigrationThrottle = {"adaptive", "off"};

Result<MigrationConfig> ParseMigration(const ObjectReader& r) {
  PRESPLIT_RETURN_IF_ERROR(r.CheckKnownFields(
      {"allowed", "workers", "max_cells_per_s", "grace_period_s", "drop_old", "engine",
       "replication", "max_write_pause_ms", "throttle"}));
  MigrationConfig migration;
  PRESPLIT_ASSIGN_OR_RETURN(auto allowed, r.GetBool("allowed"));
  if (allowed) migration.allowed = *allowed;
  PRESPLIT_ASSIGN_OR_RETURN(auto workers, r.GetInt("workers", false, 1, 64));
  if (workers) migration.workers = static_cast<int>(*workers);
  PRESPLIT_ASSIGN_OR_RETURN(auto rate, r.GetInt("max_cells_per_s", false, 0, 1'000'000'000));
  if (rate) migration.max_cells_per_s = *rate;
  PRESPLIT_ASSIGN_OR_RETURN(auto grace, r.GetInt("grace_period_s", false, 0, 31'536'000));
  if (grace) migration.grace_period_s = *grace;
  PRESPLIT_ASSIGN_OR_RETURN(auto drop_old, r.GetBool("drop_old"));
  if (drop_old) migration.drop_old = *drop_old;
  PRESPLIT_ASSIGN_OR_RETURN(auto engine, r.GetString("engine", false));
  if (engine) {
    PRESPLIT_ASSIGN_OR_RETURN(migration.engine, OneOf(r.PathOf("engine"), "migration engine",
                                                      *engine, kMigrationEngines, Lower));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto replication, r.GetString("replication", false));
  if (replication) {
    PRESPLIT_ASSIGN_OR_RETURN(migration.replication,
                              OneOf(r.PathOf("replication"), "migration replication", *replication,
                                    kMigrationReplication, Lower));
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto pause, r.GetInt("max_write_pause_ms", false, 500, 600'000));
  if (pause) migration.max_write_pause_ms = *pause;
  PRESPLIT_ASSIGN_OR_RETURN(auto throttle, r.GetString("throttle", false));
  if (throttle) {
    PRESPLIT_ASSIGN_OR_RETURN(migration.throttle, OneOf(r.PathOf("throttle"), "migration throttle",
                                                        *throttle, kMigrationThrottle, Lower));
  }
  return migration;
}

Result<TableConfig> ParseTableConfigOrThrow(std::string_view text) {
  DuplicateKeyDetector detector;
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), std::ref(detector));
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("malformed JSON: ") + e.what());
  }
  if (detector.duplicate()) {
    return FieldError(*detector.duplicate(), "duplicate key");
  }
  if (!doc.is_object()) {
    return Status::InvalidArgument(std::string("the document must be a JSON object, got ") +
                                   TypeName(doc));
  }
  ObjectReader r(doc, "");
  TableConfig config;
  // The version first: a newer document may have fields this presplit does not know.
  PRESPLIT_ASSIGN_OR_RETURN(auto version_field, r.Get("version", true));
  if (version_field->is_number_integer() &&
      !(version_field->is_number_unsigned() &&
        version_field->get<uint64_t>() == static_cast<uint64_t>(kTableConfigVersion))) {
    std::string got = version_field->is_number_unsigned()
                          ? std::to_string(version_field->get<uint64_t>())
                          : std::to_string(version_field->get<int64_t>());
    return FieldError("version", "unsupported version " + got + " (this presplit understands " +
                                     std::to_string(kTableConfigVersion) + ")");
  }
  PRESPLIT_ASSIGN_OR_RETURN(auto version,
                            r.GetInt("version", true, kTableConfigVersion, kTableConfigVersion));
  config.version = static_cast<int>(*version);
  PRESPLIT_RETURN_IF_ERROR(
      r.CheckKnownFields({"version", "table", "description", "layout", "split", "families",
                          "split_policy", "load_split", "migration"}));

  PRESPLIT_ASSIGN_OR_RETURN(auto table, r.GetString("table", true));
  Result<TableNameParts> name = SplitTableName(*table);
  if (!name.ok()) return FieldError("table", name.status().message());
  config.namespace_name = std::move(name->namespace_name);
  config.qualifier = std::move(name->qualifier);
  config.table = *table;

  PRESPLIT_ASSIGN_OR_RETURN(auto description, r.GetString("description", false));
  if (description) config.description = *description;

  PRESPLIT_ASSIGN_OR_RETURN(auto layout, r.GetObject("layout", false));
  if (layout) PRESPLIT_RETURN_IF_ERROR(ParseLayout(*layout, &config.layout));

  PRESPLIT_ASSIGN_OR_RETURN(auto split, r.GetObject("split", true));
  PRESPLIT_RETURN_IF_ERROR(ParseSplit(*split, config.layout, &config.split));

  PRESPLIT_ASSIGN_OR_RETURN(const json* families, r.Get("families", true));
  if (!families->is_array()) {
    return FieldError("families", std::string("expected an array, got ") + TypeName(*families));
  }
  if (families->empty()) return FieldError("families", "at least one column family is needed");
  for (size_t i = 0; i < families->size(); ++i) {
    const std::string path = "families[" + std::to_string(i) + "]";
    const json& f = (*families)[i];
    if (!f.is_object()) {
      return FieldError(path, std::string("expected an object, got ") + TypeName(f));
    }
    PRESPLIT_ASSIGN_OR_RETURN(FamilyConfig family, ParseFamily(ObjectReader(f, path)));
    for (size_t j = 0; j < config.families.size(); ++j) {
      if (config.families[j].name == family.name) {
        return FieldError(path + ".name", "duplicate column family '" +
                                              ToStringBinary(family.name) + "' (also families[" +
                                              std::to_string(j) + "])");
      }
    }
    config.families.push_back(std::move(family));
  }

  PRESPLIT_ASSIGN_OR_RETURN(auto split_policy, r.GetObject("split_policy", false));
  if (split_policy) {
    PRESPLIT_ASSIGN_OR_RETURN(config.split_policy, ParseSplitPolicy(*split_policy));
  }

  PRESPLIT_ASSIGN_OR_RETURN(auto load_split, r.GetObject("load_split", false));
  if (load_split) {
    PRESPLIT_ASSIGN_OR_RETURN(config.load_split, ParseLoadSplit(*load_split, config.split.regions));
  }

  PRESPLIT_ASSIGN_OR_RETURN(auto migration, r.GetObject("migration", false));
  if (migration) {
    PRESPLIT_ASSIGN_OR_RETURN(config.migration, ParseMigration(*migration));
  }

  // Running the algorithm catches what only the combination of fields reveals (a range too
  // small for the regions, a last row below the first).
  Result<std::vector<std::string>> keys = ComputeSplitKeys(config);
  if (!keys.ok()) return FieldError("split", keys.status().message());
  return config;
}

}  // namespace

std::string TableConfig::FullName() const { return namespace_name + ":" + qualifier; }

// Error texts quote pieces of the document (the JSON parser's last token, key names), which may
// be any bytes: keep printable ASCII, write every other byte as \xNN so the message is safe to
// log and to store in a JSON status.
namespace {
Status WithPrintableMessage(const Status& status) {
  return Status(status.code(), EscapeNonPrintable(status.message()));
}
}  // namespace

Result<TableConfig> ParseTableConfig(std::string_view json_text) {
  // Before the parser: a document nested deeper would overflow the stack of whoever copies or
  // dumps the parsed value later.
  if (Status bounded = CheckJsonBounds(json_text); !bounded.ok()) return bounded;
  try {
    Result<TableConfig> config = ParseTableConfigOrThrow(json_text);
    if (!config.ok()) return WithPrintableMessage(config.status());
    return config;
  } catch (const std::exception& e) {
    return WithPrintableMessage(
        Status::Internal(std::string("unexpected failure while reading the config: ") + e.what()));
  } catch (...) {
    return Status::Internal("unexpected failure while reading the config");
  }
}

}  // namespace presplit
