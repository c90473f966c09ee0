// The table config document: the versioned JSON that the portal (or presplitctl) writes to
// /presplit/tables/<namespace>:<table>, describing how a table is to be laid out and created.
//
//   {
//     "version": 1,                                  // required; this presplit understands 1
//     "table": "tinawang:check",                     // required; [namespace:]qualifier
//     "description": "free text",                    // optional
//     "layout": {                                    // optional
//       "salt": { "buckets": 10, "encoding": "decimal", "width": 1,
//                 "hash": "java-hashcode", "from": "group" },
//       "group": { "length": 32 }                    // or { "delimiter": "|" }
//     },
//     "split": {                                     // required
//       // hex-string | decimal-string | uniform | salt-buckets | explicit | partitions | sampled
//       "algorithm": "salt-buckets",
//       "regions": 10, "first_row": "00000000", "last_row": "FFFFFFFF",
//       "keys": ["a", "b\\x00"],
//       "regions_per_bucket": 4, "within_bucket": "hex-string",   // salt-buckets only
//       "sample": ["k1", "k2"]                                    // sampled only
//     },
//     "split_policy": { "size_policy": "stepping", "max_file_size": 10737418240,   // optional
//                       "load_balanced": true, "min_requests": 100, "max_imbalance": 0.25,
//                       "max_contained_fraction": 0.5 },
//     "load_split": { "dry_run": true, "min_requests_per_s": 1000, "mean_multiple": 3,  // optional
//                     "sustain_s": 10, "max_regions": 240, "cooldown_s": 600,
//                     "unsplittable_s": 3600,
//                     "move_daughters": { "after_s": 300, "dry_run": false } },  // optional
//     "migration": { "allowed": true, "workers": 4, "max_cells_per_s": 0,           // optional
//                    "grace_period_s": 3600, "drop_old": false, "engine": "put" },
//     "families": [ { "name": "f", "compression": "SNAPPY", "data_block_encoding": "FAST_DIFF",
//                     "bloom_filter": "ROW", "max_versions": 1, "ttl_seconds": 2147483647,
//                     "block_size": 65536, "in_memory": false } ]   // required, at least one
//   }
//
// The document's rooms: this header holds the structs and the parser (the one place that knows
// the JSON field names on the way in); presplit/table_name.h the table name rules and the
// canonical "ns:qualifier"; presplit/table_canonical.h the canonical JSON (the way out);
// presplit/table_derived.h what follows from a config (split keys, table attributes). A new field
// touches its struct and parser here, TableConfigToJson, and the derived code that uses it.
//
// Rules (every violation is an InvalidArgument whose message starts with "field '<json path>': ",
// e.g. "field 'families[0].compression': unknown compression 'SNAPPYX' (expected one of ...)"):
//  - table: a valid HBase table name (ValidateTableName);
//  - unknown fields, wrong JSON types, missing required fields, duplicate keys and malformed JSON
//    are errors (malformed JSON: "malformed JSON: " + the parser's message with the position);
//  - the text is checked against presplit/json_bounds.h's limits before it is parsed: more than
//    kMaxJsonBytes (1 MiB) or arrays and objects nested more than kMaxJsonDepth (64) levels is
//    an InvalidArgument whose message is CheckJsonBounds's (e.g. "JSON nested deeper than 64
//    levels (at byte offset 64)"; no "field" prefix: no field was read);
//  - layout.salt: buckets required (1..256 for byte encoding, 1..10000 for decimal and hex);
//    encoding "byte" (default) | "decimal" | "hex"; width optional (0 or absent = the minimum,
//    see SaltWidth); hash "murmur3" (default) | "phoenix" | "java-hashcode"; from "group"
//    (default, needs layout.group) | "key";
//  - layout.group: exactly one of length (1..32767) or delimiter (a non-empty string in
//    toStringBinary form, parsed strictly);
//  - split.algorithm required. hex-string, decimal-string, uniform: regions required
//    (1..10000), first_row / last_row optional (hex/decimal: digits of the radix; uniform:
//    toStringBinary form), keys not allowed. salt-buckets: needs layout.salt; regions optional
//    and must equal layout.salt.buckets * regions_per_bucket; regions_per_bucket optional
//    (1..10000, default 1; buckets * regions_per_bucket at most 10000) sub-splits every bucket
//    with within_bucket (hex-string, decimal-string, uniform (the default), partitions or
//    sampled; see SaltedSubSplit), the within-bucket algorithm's default rows; sample required
//    with within_bucket "sampled" (full row keys, salt prefix included), else not allowed; no
//    rows or keys. explicit: keys required (toStringBinary form, non-empty, strictly increasing,
//    at most 9999), regions and rows not allowed. partitions: regions required (1..10000),
//    nothing else (split keys: 8-byte big-endian ids 1..regions-1). sampled: regions required
//    (1..10000) and sample required (an array of at most 100000 row keys in toStringBinary form;
//    empty keys ignored; the split keys are its quantiles, fewer regions when it has too few
//    distinct keys); rows and keys not allowed. regions_per_bucket, within_bucket and sample are
//    not allowed with any other algorithm. The split
//    keys are computed during validation, so a range too small for the regions is caught here;
//  - families: at least one; name non-empty printable ASCII without ':', '\', '/', not starting
//    with '.', not "recovered.edits", unique; compression NONE, GZ, LZO, SNAPPY, LZ4, BZIP2, ZSTD,
//    LZMA; data_block_encoding NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1; bloom_filter NONE,
//    ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH (these three in any letter case, stored upper case);
//    max_versions >= 1; ttl_seconds 1..2147483647; block_size 1024..16 MiB.
//  - load_split (optional; absent = presplitd never splits the table on load): dry_run (default
//    true: decide and report, never split); min_requests_per_s (> 0, default 1000) and
//    mean_multiple (> 1, default 3): a region is hot at or above both this rate and this multiple
//    of its table's mean rate per region, for sustain_s seconds (1..86400, default 10);
//    max_regions (the table's region budget: at least split.regions, at most 10000; default twice
//    split.regions, capped at 10000); cooldown_s (1..86400, default 600) between splits of one
//    region and, a quarter of it, of one table; unsplittable_s (1..604800, default 3600): how long
//    a region that did not split is left alone; move_daughters (optional object; absent = the
//    daughters of a load split stay where HBase puts them): after_s (0..86400, default 300) how
//    long the balancer has to spread a split's daughters before presplitd moves the hotter one
//    itself, dry_run (default false: a load_split in dry run never moves either) decide and
//    report moves, never move.
//  - migration (optional; absent or allowed false = a changed salt layout is reported as drift):
//    allowed (default false) lets presplitd re-salt the table to the document's layout online;
//    workers (1..64, default 4) source regions copied at once; max_cells_per_s (0 = unlimited,
//    default 0; at most 10^9) the copy's rate limit over all workers; grace_period_s
//    (0..31536000, default 3600) between the switch and disabling the old generation; drop_old
//    (default false) drops the old generation after the grace period once a final check finds
//    nothing missing; engine "put" (puts through the HBase client) | "hfile" (presplitd writes
//    HFiles and bulk-loads them) | "mapreduce" (a bulk-load job) | "auto" (default);
//    replication "refuse" (default) | "follow" | "stop": what the new generation does about
//    replication peers (other than presplit's own) that ship the old one to another cluster
//    (refuse: the migration does not start while one does; follow: the new generation keeps
//    REPLICATION_SCOPE and joins every peer that names the old one; stop: it is created with
//    REPLICATION_SCOPE 0, so that replication of the table ends at the switch);
//    max_write_pause_ms (500..600000, default 5000) how long writers may be paused at the switch
//    while the capture drains the old generation (longer: that attempt is abandoned, retried);
//    throttle "adaptive" | "off" (absent: the daemon's migration_throttle): whether the copy
//    and the verification follow the RegionServers' health (max_cells_per_s stays a ceiling).
//  Names of presplit's own enums (algorithm, encoding, hash, from) are also accepted in any
//  letter case and stored in lower case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/split_algorithms.h"
#include "presplit/status.h"

namespace presplit {

inline constexpr int kTableConfigVersion = 1;
inline constexpr int kMaxConfigRegions = 10000;
inline constexpr size_t kMaxConfigSampleKeys = 100000;

struct SaltConfig {
  int buckets = 1;
  SaltEncoding encoding = SaltEncoding::kByte;
  int width = 1;                 // resolved by SaltWidth, never 0 after parsing
  std::string hash = "murmur3";  // "murmur3" | "phoenix" | "java-hashcode"
  std::string from = "group";    // "group" | "key"
};

struct GroupConfig {
  std::optional<int> length;
  std::optional<std::string> delimiter;  // raw bytes
};

struct LayoutConfig {
  std::optional<SaltConfig> salt;
  std::optional<GroupConfig> group;
};

struct SplitConfig {
  SplitAlgorithm algorithm = SplitAlgorithm::kHexString;
  // The number of regions the table is created with; for salt-buckets the bucket count times
  // regions_per_bucket, for explicit the number of keys + 1, for sampled the number asked for
  // (the table gets fewer when the sample has too few distinct keys).
  int regions = 1;
  // As given for hex-string / decimal-string; raw bytes for uniform; unset = the default.
  std::optional<std::string> first_row, last_row;
  std::vector<std::string> keys;  // raw bytes; explicit only
  int regions_per_bucket = 1;     // salt-buckets only
  // salt-buckets with regions_per_bucket > 1: how each bucket is split.
  SplitAlgorithm within_bucket = SplitAlgorithm::kUniform;
  std::vector<std::string> sample;  // raw bytes; sampled, or salt-buckets within "sampled"
};

struct FamilyConfig {
  std::string name;
  std::string compression = "NONE";
  std::string data_block_encoding = "NONE";
  std::string bloom_filter = "ROW";
  int max_versions = 1;
  int64_t ttl_seconds = 2147483647;  // HBase's "forever"
  int block_size = 65536;
  bool in_memory = false;
};

// How the table's regions split after creation: presplit's NativeSplitPolicy on the
// RegionServers (java-shim), whose parameters travel as table attributes.
struct SplitPolicyConfig {
  std::string size_policy = "stepping";  // stepping | increasing-to-upper-bound | constant-size
  std::optional<int64_t> max_file_size;  // bytes: the table's MAX_FILESIZE; unset = the site's
  bool load_balanced = true;             // sample request keys and split where load balances
  int64_t min_requests = 100;            // requests a candidate key needs before it counts
  double max_imbalance = 0.25;           // |left - right| / (left + right) must be below this
  double max_contained_fraction = 0.5;   // share of requests spanning the key must be below this
};

// Moving the hotter daughter of a load split off its sibling's server (see the rules above).
struct MoveDaughtersConfig {
  int64_t after_s = 300;
  bool dry_run = false;
};

// Load-based splits by presplitd's load watcher (see the rules above for each field).
struct LoadSplitConfig {
  bool dry_run = true;
  double min_requests_per_s = 1000;
  double mean_multiple = 3;
  int64_t sustain_s = 10;
  int max_regions = 0;  // resolved at parse time: never 0 after parsing
  int64_t cooldown_s = 600;
  int64_t unsplittable_s = 3600;
  std::optional<MoveDaughtersConfig> move_daughters;  // unset: daughters are never moved
};

// Re-salting migrations by presplitd (see the rules above for each field).
struct MigrationConfig {
  bool allowed = false;
  int workers = 4;
  int64_t max_cells_per_s = 0;  // 0 = unlimited
  int64_t grace_period_s = 3600;
  bool drop_old = false;
  // "put" | "hfile" | "mapreduce" | "auto" (the default: presplitd picks by the source table's
  // size, mapreduce from its migration_mapreduce_threshold_bytes on)
  std::string engine = "auto";
  // "refuse" | "follow" | "stop": see the rules above. Only written into the canonical form when
  // it is not "refuse", so documents written before it keep their canonical form.
  std::string replication = "refuse";
  // The longest writers are paused at the switch (and at a rollback) while the capture drains;
  // a drain that takes longer abandons that attempt (writes resume on the old generation) and
  // is tried again later.
  int64_t max_write_pause_ms = 5000;
  // "adaptive" | "off", or "" (absent: the daemon's migration_throttle setting decides).
  std::string throttle;
};

struct TableConfig {
  int version = kTableConfigVersion;
  std::string table;                       // as given in the document
  std::string namespace_name = "default";  // "default" when the name has no namespace
  std::string qualifier;
  std::string description;
  LayoutConfig layout;
  SplitConfig split;
  std::vector<FamilyConfig> families;
  std::optional<SplitPolicyConfig> split_policy;  // unset: HBase's own split policy
  std::optional<LoadSplitConfig> load_split;      // unset: no load-based splits by presplitd
  std::optional<MigrationConfig> migration;       // unset: a changed layout is drift

  // "namespace:qualifier", always with the namespace, e.g. "default:t".
  std::string FullName() const;
};

// The split keys the table is created with: runs the configured algorithm, then
// ValidateSplitKeys. The errors are those of the algorithm (e.g. a range too small for the
// regions) or "algorithm 'salt-buckets' needs layout.salt" for a hand-built config.
Result<std::vector<std::string>> ComputeSplitKeys(const TableConfig& config);

// Parses and validates a document (see the rules above); the table name through
// presplit/table_name.h, the split keys once through ComputeSplitKeys. Never throws.
Result<TableConfig> ParseTableConfig(std::string_view json);

}  // namespace presplit
