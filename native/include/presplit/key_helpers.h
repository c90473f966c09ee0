// Row-key helpers that belong with the layouts: reversed timestamps, reversed identifiers, MD5
// of a field, numbered partitions. Every multi-byte number is big-endian, as HBase's
// Bytes.toBytes(long) writes it, so byte order is numeric order for non-negative values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit {

// `value` as 8 bytes, big-endian two's complement (Bytes.toBytes(long)).
std::string Int64BigEndian(int64_t value);
// The inverse: InvalidArgument unless `bytes` is exactly 8 bytes long.
Result<int64_t> ParseInt64BigEndian(std::string_view bytes);

// Long.MAX_VALUE - timestamp as 8 bytes, big-endian: newer timestamps sort first, so the newest
// row of a key comes first in a prefix scan. InvalidArgument for a negative timestamp (Java would
// wrap around and sort it before every other).
Result<std::string> ReversedTimestamp(int64_t timestamp);
// The timestamp a ReversedTimestamp encodes; InvalidArgument unless 8 bytes encoding a value in
// 0..Long.MAX_VALUE.
Result<int64_t> ParseReversedTimestamp(std::string_view bytes);

// `id` with its bytes in reverse order ("12345" -> "54321"), to spread monotonically increasing
// identifiers. Identifiers are ASCII in practice, where bytes are characters; other bytes are
// reversed byte by byte too (so a multi-byte UTF-8 character is not kept whole), which makes the
// function its own inverse on any input.
std::string ReverseIdentifier(std::string_view id);

// MD5 of a field as 16 raw bytes: a fixed-length stand-in for a variable-length field.
std::string Md5Field(std::string_view field);
// The first `chars` (1..32) lower-case hex characters of the field's MD5; InvalidArgument
// outside 1..32. Md5HexPrefix(f, 32) is the whole digest, as the reference case's bulk load
// wrote it.
Result<std::string> Md5HexPrefix(std::string_view field, int chars);

// Numbered partitions: [id % partitions as 8 bytes][id as 8 bytes], big-endian, so the table
// splits at the 8-byte keys 1..partitions-1. InvalidArgument unless id >= 0 and
// partitions >= 1.
Result<std::string> NumberedPartitionKey(int64_t id, int64_t partitions);
// The partition a NumberedPartitionKey (or any key with that 8-byte prefix) belongs to;
// InvalidArgument when the key is shorter than 8 bytes or the prefix is negative.
Result<int64_t> PartitionOf(std::string_view row_key);

}  // namespace presplit
