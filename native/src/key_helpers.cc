#include "presplit/key_helpers.h"

#include <algorithm>
#include <limits>

#include "presplit/md5.h"

namespace presplit {

std::string Int64BigEndian(int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>(bits >> (56 - 8 * i));
  return out;
}

Result<int64_t> ParseInt64BigEndian(std::string_view bytes) {
  if (bytes.size() != 8) {
    return Status::InvalidArgument("a big-endian long needs 8 bytes (got " +
                                   std::to_string(bytes.size()) + ")");
  }
  uint64_t bits = 0;
  for (char c : bytes) bits = (bits << 8) | static_cast<unsigned char>(c);
  return static_cast<int64_t>(bits);
}

Result<std::string> ReversedTimestamp(int64_t timestamp) {
  if (timestamp < 0) {
    return Status::InvalidArgument("a reversed timestamp needs a timestamp >= 0 (got " +
                                   std::to_string(timestamp) + ")");
  }
  return Int64BigEndian(std::numeric_limits<int64_t>::max() - timestamp);
}

Result<int64_t> ParseReversedTimestamp(std::string_view bytes) {
  PRESPLIT_ASSIGN_OR_RETURN(int64_t reversed, ParseInt64BigEndian(bytes));
  if (reversed < 0) {
    return Status::InvalidArgument("not a reversed timestamp: the encoded value is negative");
  }
  return std::numeric_limits<int64_t>::max() - reversed;
}

std::string ReverseIdentifier(std::string_view id) { return std::string(id.rbegin(), id.rend()); }

std::string Md5Field(std::string_view field) {
  const Md5Digest digest = Md5(field);
  return std::string(digest.begin(), digest.end());
}

Result<std::string> Md5HexPrefix(std::string_view field, int chars) {
  if (chars < 1 || chars > 32) {
    return Status::InvalidArgument("an MD5 hex prefix has 1 to 32 characters (got " +
                                   std::to_string(chars) + ")");
  }
  std::string hex = Md5Hex(field);
  hex.resize(static_cast<size_t>(chars));
  return hex;
}

Result<std::string> NumberedPartitionKey(int64_t id, int64_t partitions) {
  if (partitions < 1) {
    return Status::InvalidArgument("the number of partitions must be at least 1 (got " +
                                   std::to_string(partitions) + ")");
  }
  if (id < 0) {
    return Status::InvalidArgument("a numbered-partition id must be >= 0 (got " +
                                   std::to_string(id) + ")");
  }
  return Int64BigEndian(id % partitions) + Int64BigEndian(id);
}

Result<int64_t> PartitionOf(std::string_view row_key) {
  if (row_key.size() < 8) {
    return Status::InvalidArgument("a numbered-partition key starts with 8 bytes (got " +
                                   std::to_string(row_key.size()) + ")");
  }
  PRESPLIT_ASSIGN_OR_RETURN(int64_t partition, ParseInt64BigEndian(row_key.substr(0, 8)));
  if (partition < 0) return Status::InvalidArgument("the partition prefix is negative");
  return partition;
}

}  // namespace presplit
