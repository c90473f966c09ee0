// Split-point algorithms: where a table's initial regions begin.
//
// HexStringSplit, DecimalStringSplit and UniformSplit produce byte-for-byte the split keys of
// HBase 2.6's org.apache.hadoop.hbase.util.RegionSplitter algorithms of the same names (the
// golden tests compare them with HBase's own output); salt buckets give one region per bucket.
// All functions return split keys: the start keys of every region but the first, which is what
// HBase's Admin.createTable(descriptor, splitKeys) takes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presplit/status.h"

namespace presplit {

// kPartitions and kSampled are implemented in split_points.h.
enum class SplitAlgorithm {
  kHexString,
  kDecimalString,
  kUniform,
  kSaltBuckets,
  kExplicit,
  kPartitions,
  kSampled,
};
enum class SaltEncoding { kByte, kDecimal, kHex };

// The algorithms refuse more regions than this, so a bad input cannot allocate without bound.
// (HBase has no such limit; nobody pre-splits a table into a million regions.)
inline constexpr int kMaxSplitRegions = 1'000'000;

// HBase's limit on a row key's length (Short.MAX_VALUE), which a split key must respect too.
inline constexpr size_t kMaxRowKeyLength = 32767;

// "hex-string", "decimal-string", "uniform", "salt-buckets", "explicit", "partitions",
// "sampled" (any letter case);
// InvalidArgument lists the valid names.
Result<SplitAlgorithm> ParseSplitAlgorithm(std::string_view name);
std::string_view SplitAlgorithmName(SplitAlgorithm algorithm);

// "byte", "decimal", "hex" (any letter case).
Result<SaltEncoding> ParseSaltEncoding(std::string_view name);
std::string_view SaltEncodingName(SaltEncoding encoding);

// Width in characters (bytes) of the salt prefix of a table with `buckets` buckets (>= 1):
//  - byte: 1 (one raw byte, so at most 256 buckets; requested_width must be 0 or 1);
//  - decimal: the number of decimal digits of buckets - 1, at least 1;
//  - hex: the number of hex digits of buckets - 1, at least 1.
// A requested_width > 0 (at most 10) is used instead, but must be able to hold buckets - 1
// (InvalidArgument: "a 1-character decimal salt cannot hold 11 buckets"). requested_width 0
// means "the minimum".
Result<int> SaltWidth(SaltEncoding encoding, int buckets, int requested_width = 0);

// The salt prefix of `bucket` (0 <= bucket < buckets): one raw byte for byte encoding; the
// bucket number zero-padded to SaltWidth characters for decimal and hex (hex in lower case).
Result<std::string> SaltPrefix(SaltEncoding encoding, int buckets, int bucket,
                               int requested_width = 0);

// HBase's HexStringSplit: rows are numbers written in hex, by default "00000000".."FFFFFFFF".
// With first = first_row, last = last_row (inclusive) read in base 16 (either letter case),
// range = last - first + 1, step = range / regions; key i (1 <= i < regions) is first + step * i
// in lower-case hex, left-padded with '0' to the length of last_row (8 when last_row is not
// given), as HBase does. InvalidArgument when regions is outside 1..kMaxSplitRegions, a row is
// empty or has a character that is not a digit of the radix (HBase would also take a leading
// sign; presplit does not), last <= first, or regions > range. regions == 1 gives no keys.
Result<std::vector<std::string>> HexStringSplit(int regions,
                                                std::optional<std::string> first_row = {},
                                                std::optional<std::string> last_row = {});

// HBase's DecimalStringSplit: the same as HexStringSplit in base 10, by default
// "00000000".."99999999".
Result<std::vector<std::string>> DecimalStringSplit(int regions,
                                                    std::optional<std::string> first_row = {},
                                                    std::optional<std::string> last_row = {});

// HBase's UniformSplit (Bytes.split(first, last, true, regions - 1)): rows are raw bytes, by
// default empty .. eight 0xFF bytes. The shorter row is padded at the tail with 0x00 to the
// length L of the longer; the range is (last - first + 1) read as unsigned big-endian numbers of
// L bytes; while the range is smaller than `regions`, both rows get one more 0x00 byte (L + 1),
// which multiplies the range by 256; key i is first + (range / regions) * i as L bytes.
// InvalidArgument when regions is outside 1..kMaxSplitRegions, last <= first (unsigned byte
// order), or the rows are equal once padded ("a" and "a\x00"). regions == 1 gives no keys
// (HBase throws IllegalArgumentException "num cannot be <= 0" for one region; one region simply
// needs no split key).
Result<std::vector<std::string>> UniformSplit(int regions,
                                              std::optional<std::string> first_row = {},
                                              std::optional<std::string> last_row = {});

// One region per salt bucket: the salt prefixes of buckets 1..buckets-1 (Phoenix's SALT_BUCKETS
// pre-split for byte encoding). buckets == 1 gives no keys. Errors as SaltWidth.
Result<std::vector<std::string>> SaltBucketSplit(int buckets, SaltEncoding encoding,
                                                 int requested_width = 0);

// Checks split keys the way HBase's Admin.createTable needs them: no empty key, none longer
// than kMaxRowKeyLength, strictly increasing in unsigned byte order (so no duplicates), at most
// kMaxSplitRegions - 1 keys. The error names the offending index and key in toStringBinary form,
// e.g. "split key 2 'b' is not greater than split key 1 'b' (duplicate)".
Status ValidateSplitKeys(const std::vector<std::string>& keys);

}  // namespace presplit
