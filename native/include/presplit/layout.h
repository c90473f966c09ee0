// Row-key layouts: [salt][group][rest].
//
// A *logical key* is what the application writes: the group (the part look-ups go by, e.g. the
// reference case's check_id) followed by the rest. The *row key* (physical key) is the salt
// prefix followed by the logical key. The group is cut by
//  - a fixed length L: the group is the first L bytes of the logical key, the rest what follows;
//  - a delimiter D (one or more bytes): the group is everything before the first occurrence of
//    D, the rest everything after it. The delimiter itself belongs to neither the group nor the
//    rest (logical key = group + D + rest), but it does belong to the *group prefix* (salt +
//    group + D), so that a prefix scan for group "ab" does not also return group "abc".
// The salt is computed from the group (the default: every row of a group lands in one bucket, so
// a group look-up is one prefix scan) or from the whole logical key (spreads writes evenly, but
// every range read must scan every bucket). A logical key that does not fit the layout (shorter
// than the group length, without the delimiter) is an error whenever a group is configured, even
// when the salt comes from the whole key.
//
// bucket = hash(salt source) mod buckets, as each SaltHash defines it (see hash.h), written with
// SaltPrefix(encoding, buckets, bucket, salt_width).
//
// Split-point snapping lives here too (SnapSplitPoint), since it is defined by the layout.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/split_algorithms.h"
#include "presplit/status.h"
#include "presplit/table_config.h"

namespace presplit {

enum class SaltHash {
  kMurmur3,       // "murmur3": Murmur3_32(source, kMurmur3Seed = 0) as unsigned, mod buckets
  kPhoenix,       // "phoenix": PhoenixSaltByte(source, buckets); at most 256 buckets
  kJavaHashCode,  // "java-hashcode": JavaStringHashBucket(source, buckets); UTF-8 sources only
};

// "murmur3", "phoenix", "java-hashcode" (any letter case); InvalidArgument lists them.
Result<SaltHash> ParseSaltHash(std::string_view name);
std::string_view SaltHashName(SaltHash hash);

struct KeyLayout {
  int buckets = 0;  // 0 = unsalted
  SaltEncoding encoding = SaltEncoding::kByte;
  int salt_width = 0;  // bytes of the salt prefix; 0 when unsalted
  SaltHash hash = SaltHash::kMurmur3;
  bool salt_from_key = false;  // false: salt computed from the group
  std::optional<int> group_length;
  std::optional<std::string> group_delimiter;  // raw bytes
};

inline bool IsSalted(const KeyLayout& layout) { return layout.buckets > 0; }

// Validates a layout given field by field (e.g. from command-line flags) with the rules of the
// table document's "layout" (table_config.h) and returns it with salt_width resolved:
//  - buckets 0 = unsalted (encoding, hash and salt_width are then ignored and reset; salt_from_key
//    must be false); otherwise 1..256 for byte encoding, 1..10000 for decimal and hex, and at
//    most 256 for the phoenix hash (Phoenix's limit);
//  - salt_width: 0 = the minimum for the bucket count, else as SaltWidth accepts it;
//  - at most one of group_length (1..32767) and group_delimiter (non-empty);
//  - a salt computed from the group needs a group.
Result<KeyLayout> MakeLayout(const KeyLayout& spec);

// The layout of a parsed table document (no "layout.salt" = unsalted).
Result<KeyLayout> LayoutFromConfig(const LayoutConfig& config);

// The bucket of a logical key (group + rest, no salt): 0..buckets-1; 0 for an unsalted layout.
// InvalidArgument when the key does not fit the layout, or (java-hashcode) the salt source is not
// well-formed UTF-8.
Result<int> BucketOf(const KeyLayout& layout, std::string_view logical_key);

// BucketOf for many keys at once, without allocating per key: out is resized to keys.size() and
// out[i] is the bucket of keys[i], or -1 when that key does not fit the layout.
void BucketsOf(const KeyLayout& layout, const std::vector<std::string_view>& keys,
               std::vector<int>& out);

// The row key: salt prefix + logical key. InvalidArgument as BucketOf, or when the row key would
// be empty or longer than kMaxRowKeyLength.
Result<std::string> EncodeKey(const KeyLayout& layout, std::string_view logical_key);

struct DecodedKey {
  int bucket = -1;    // 0..buckets-1; 0 for an unsalted layout
  std::string group;  // empty when the layout has no group
  std::string rest;   // after the group (after the delimiter); the whole logical key if no group
};

// Splits a row key into bucket, group and rest, and checks it: InvalidArgument naming the row
// key (in toStringBinary form) when it is shorter than the salt, when its salt is not a bucket of
// the layout ("\x0C" with 10 buckets, "zz" for a decimal salt), when the group is shorter than its
// length or the delimiter is missing, or when the salt disagrees with the hash ("row key '...' is
// in bucket 3 but its group hashes to 5"). For every logical key k that fits the layout,
// DecodeKey(EncodeKey(k)) gives back k's group and rest.
Result<DecodedKey> DecodeKey(const KeyLayout& layout, std::string_view row_key);

// The group prefix of a row key: salt + group, and + the delimiter for delimiter layouts (the
// prefix a scan for all rows of that group uses). Checks the key's structure (salt is a bucket,
// group complete) but not its salt against the hash. InvalidArgument when the layout has no
// group.
Result<std::string> GroupPrefix(const KeyLayout& layout, std::string_view row_key);

// The scan prefix for every row of `group`: its salt + group (+ the delimiter). InvalidArgument
// when the layout has no group, the group does not have the configured length or contains the
// delimiter, or its hash fails (java-hashcode on non-UTF-8). With a salt from the whole key there
// is no single prefix: InvalidArgument too.
Result<std::string> GroupScanPrefix(const KeyLayout& layout, std::string_view group);

// A physical key range [start, stop) for one scan; an empty stop is the end of the table.
struct KeyRange {
  std::string start;
  std::string stop;
};

// The scan range of one group's rows: [GroupScanPrefix, PrefixEnd(GroupScanPrefix)). Errors as
// GroupScanPrefix.
Result<KeyRange> GroupScanRange(const KeyLayout& layout, std::string_view group);

// The physical ranges that together hold the rows of the logical range [logical_start,
// logical_stop) (logical keys: group + rest, no salt; an empty stop = unbounded): one range per
// bucket, in bucket order, [salt(b) + start, salt(b) + stop), or up to the next bucket's salt for
// an unbounded stop; one range for an unsalted layout. Merging the buckets' rows in logical key
// order (each with its salt stripped) gives the rows an unsalted table would return.
// InvalidArgument when logical_stop is not after logical_start.
Result<std::vector<KeyRange>> BucketScanRanges(const KeyLayout& layout,
                                               std::string_view logical_start,
                                               std::string_view logical_stop);

// The logical key of a physical row key: the row key without its salt prefix, without
// checking that the salt matches (DecodeKey checks). InvalidArgument when the key is shorter
// than the salt.
Result<std::string_view> StripSalt(const KeyLayout& layout, std::string_view row_key);

// Re-keying for a re-salting migration: the row key under `to` of the logical key of `row_key`
// under `from` (the row key without from's salt; the old salt is not checked against the hash,
// so a row stored under a wrong salt is still moved, by its logical key). InvalidArgument naming
// the row key when it is shorter than from's salt, or its logical key does not fit `to`
// (EncodeKey's errors).
Result<std::string> Rekey(const KeyLayout& from, const KeyLayout& to, std::string_view row_key);

// Rekey for many row keys in one call, without a per-key allocation: the new keys are written
// back to back into `out` and ends[i] (ends is resized to row_keys.size()) is where key i ends,
// so key i is out[ends[i-1], ends[i]) (from 0 for i = 0). A key that cannot be re-keyed gets an
// empty slot and its index is appended to `failed` (cleared first), in increasing order; Rekey
// says why.
void RekeyAll(const KeyLayout& from, const KeyLayout& to,
              const std::vector<std::string_view>& row_keys, std::string& out,
              std::vector<size_t>& ends, std::vector<size_t>& failed);

// Split points and groups.
//
// A key group is the set of every row key that starts with a given group prefix (see
// GroupPrefix), i.e. the key range [prefix, next(prefix)). A row key that has no complete group
// (too short, no delimiter) is a group of its own; so is every key of a layout without a group. A
// split point s *cuts* a group when some key of the group is < s and another >= s, which happens
// exactly when s strictly extends the group's prefix.
//
// A valid split point is non-empty, cuts no group and, for a salted layout, starts with a complete
// salt of one of the layout's buckets: it is then either that bucket's salt prefix alone (a bucket
// boundary) or lies inside that bucket without cutting a group. (A partial salt such as "0" for a
// 2-character decimal salt, or a salt that is no bucket, is never valid.)
bool IsValidSplitPoint(const KeyLayout& layout, std::string_view split_point);

// Snaps a candidate split point (e.g. the largest store's mid key, or a load-balanced key) of a
// region [region_start, region_end) (empty end = unbounded) to a key-group boundary:
//  - P = the candidate's group prefix (salt + group (+ delimiter)), or the candidate itself when
//    it has no complete group; when start < P, the result is P;
//  - when P <= start (the candidate's group contains the start key, HBASE-23620's case), the
//    result is the smallest valid split point greater than the start key: the first key after
//    the candidate's group (the group prefix with trailing 0xFF bytes dropped and its last byte
//    incremented), or, when the group's bytes are all 0xFF, the next bucket's salt prefix;
//  - a candidate that starts with no bucket's complete salt (a partial salt such as "1" for a
//    2-character decimal salt, or a salt beyond the last bucket) has no group: the result is the
//    first valid split point at or after it when that is inside the region, else the smallest
//    valid split point greater than the start key;
//  - std::nullopt when that point is not below region_end, or does not exist: the region must not
//    split. Never the region's start key; always a valid split point strictly inside the region.
// An empty candidate (HBase found no mid key) gives std::nullopt. A candidate outside
// [region_start, region_end), or region_end <= region_start, is InvalidArgument.
// Allocates only the returned key in the common case (P inside the region).
Result<std::optional<std::string>> SnapSplitPoint(const KeyLayout& layout,
                                                  std::string_view region_start,
                                                  std::string_view region_end,
                                                  std::string_view candidate);

}  // namespace presplit
