// Fuzzes row-key layouts: the first bytes of the input choose a layout (skipped when MakeLayout
// refuses it), the rest is a row key for DecodeKey / GroupPrefix / IsValidSplitPoint, a logical
// key for EncodeKey, and three keys for SnapSplitPoint. Nothing may crash, and:
//  - a (non-empty) key that decodes encodes back from its decoded parts to the same row key;
//  - a logical key that encodes decodes back to its group and rest;
//  - a group prefix is a prefix of its key and a valid split point;
//  - a snapped split point is valid and strictly inside its region.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "presplit/bytes.h"
#include "presplit/layout.h"

namespace {

using presplit::KeyLayout;

void Check(bool ok) {
  if (!ok) std::abort();
}

// Layout bytes: [buckets][flags][group parameter][delimiter bytes...]
//  flags bits 0-1 encoding (byte, decimal, hex, byte), 2-3 hash (murmur3, phoenix, java-hashcode,
//  murmur3), 4 salt from key, 5-6 group (none, length, delimiter, length), 7 buckets x 40.
// Returns the number of bytes used, or 0 when the input is too short.
size_t ReadLayout(std::string_view in, KeyLayout* spec) {
  if (in.size() < 3) return 0;
  const auto b0 = static_cast<unsigned char>(in[0]);
  const auto flags = static_cast<unsigned char>(in[1]);
  const auto b2 = static_cast<unsigned char>(in[2]);
  spec->buckets = (flags & 0x80) ? b0 * 40 : b0;
  static constexpr presplit::SaltEncoding kEncodings[] = {
      presplit::SaltEncoding::kByte, presplit::SaltEncoding::kDecimal,
      presplit::SaltEncoding::kHex, presplit::SaltEncoding::kByte};
  static constexpr presplit::SaltHash kHashes[] = {
      presplit::SaltHash::kMurmur3, presplit::SaltHash::kPhoenix,
      presplit::SaltHash::kJavaHashCode, presplit::SaltHash::kMurmur3};
  spec->encoding = kEncodings[flags & 3];
  spec->hash = kHashes[(flags >> 2) & 3];
  spec->salt_from_key = (flags & 0x10) != 0;
  size_t used = 3;
  switch ((flags >> 5) & 3) {
    case 1:
    case 3:
      spec->group_length = b2 % 40;  // 0 is refused by MakeLayout
      break;
    case 2: {
      const size_t length = b2 % 4;  // 0 is refused by MakeLayout
      if (in.size() < used + length) return 0;
      spec->group_delimiter = std::string(in.substr(used, length));
      used += length;
      break;
    }
    default:
      break;
  }
  return used;
}

std::string_view Piece(std::string_view& in) {
  if (in.empty()) return {};
  const size_t length = std::min<size_t>(static_cast<unsigned char>(in[0]) % 32, in.size() - 1);
  std::string_view piece = in.substr(1, length);
  in.remove_prefix(1 + length);
  return piece;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  KeyLayout spec;
  const size_t used = ReadLayout(input, &spec);
  if (used == 0) return 0;
  auto made = presplit::MakeLayout(spec);
  if (!made.ok()) return 0;
  const KeyLayout& layout = *made;
  const std::string_view key = input.substr(used);

  // Decode, then encode the decoded logical key: the same row key.
  auto decoded = presplit::DecodeKey(layout, key);
  if (decoded.ok()) {
    Check(decoded->bucket >= 0 && decoded->bucket < std::max(layout.buckets, 1));
    std::string logical = decoded->group;
    if (layout.group_delimiter) logical += *layout.group_delimiter;
    logical += decoded->rest;
    auto encoded = presplit::EncodeKey(layout, logical);
    Check(encoded.ok() && *encoded == key);
  }

  // Encode the bytes as a logical key, then decode: the same group and rest.
  auto encoded = presplit::EncodeKey(layout, key);
  if (encoded.ok()) {
    auto back = presplit::DecodeKey(layout, *encoded);
    Check(back.ok());
    auto bucket = presplit::BucketOf(layout, key);
    Check(bucket.ok() && *bucket == back->bucket);
    std::string logical = back->group;
    if (layout.group_delimiter) logical += *layout.group_delimiter;
    logical += back->rest;
    Check(logical == key);
  }

  auto prefix = presplit::GroupPrefix(layout, key);
  if (prefix.ok()) {
    Check(key.substr(0, prefix->size()) == *prefix);
    Check(presplit::IsValidSplitPoint(layout, *prefix));
  }
  (void)presplit::IsValidSplitPoint(layout, key);

  // Three pieces, sorted, as region start <= candidate < end (an empty end is unbounded).
  std::string_view rest = key;
  std::string_view pieces[3] = {Piece(rest), Piece(rest), Piece(rest)};
  std::sort(pieces, pieces + 3, [](std::string_view a, std::string_view b) {
    return presplit::CompareBytes(a, b) < 0;
  });
  const bool unbounded = !rest.empty() && (static_cast<unsigned char>(rest[0]) & 1);
  const std::string_view start = pieces[0], candidate = pieces[1];
  const std::string_view end = unbounded ? std::string_view() : pieces[2];
  auto snapped = presplit::SnapSplitPoint(layout, start, end, candidate);
  if (snapped.ok() && snapped->has_value()) {
    const std::string& point = **snapped;
    Check(presplit::IsValidSplitPoint(layout, point));
    Check(presplit::CompareBytes(point, start) > 0);
    Check(end.empty() || presplit::CompareBytes(point, end) < 0);
  }
  return 0;
}
