// MD5 (RFC 1321), for fixed-length hashes of variable-length key fields. Not for security.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace presplit {

using Md5Digest = std::array<uint8_t, 16>;

// The MD5 digest of `bytes`: what java.security.MessageDigest.getInstance("MD5") returns.
Md5Digest Md5(std::string_view bytes);

// The digest as 32 lower-case hex characters.
std::string Md5Hex(std::string_view bytes);

}  // namespace presplit
