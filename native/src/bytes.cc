#include "presplit/bytes.h"

#include <cctype>
#include <cstring>

namespace presplit {
namespace {

constexpr char kUpperHex[] = "0123456789ABCDEF";

// Bytes 0x20..0x7E as themselves (the backslash too unless `escape_backslash`), every other byte
// as "\xHH".
std::string Escaped(std::string_view bytes, bool escape_backslash) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b <= 0x7E && !(escape_backslash && b == '\\')) {
      out.push_back(c);
    } else {
      out.append("\\x");
      out.push_back(kUpperHex[b >> 4]);
      out.push_back(kUpperHex[b & 0x0F]);
    }
  }
  return out;
}

// HBase's toBytesBinary only accepts upper-case hex digits; -1 for anything else.
int UpperHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes an escape starting at text[i] == '\\' && text[i+1] == 'x'. Returns the byte, or -1
// when the escape is bogus or cut short.
int DecodeEscape(std::string_view text, size_t i) {
  if (i + 3 >= text.size()) return -1;
  int hi = UpperHexValue(text[i + 2]);
  int lo = UpperHexValue(text[i + 3]);
  if (hi < 0 || lo < 0) return -1;
  return hi * 16 + lo;
}

}  // namespace

std::string ToStringBinary(std::string_view bytes) {
  return Escaped(bytes, /*escape_backslash=*/true);
}

std::string ToStringBinaryPrefix(std::string_view bytes, size_t max_bytes) {
  if (bytes.size() <= max_bytes) return ToStringBinary(bytes);
  return ToStringBinary(bytes.substr(0, max_bytes)) + "...";
}

std::string EscapeNonPrintable(std::string_view text) {
  return Escaped(text, /*escape_backslash=*/false);
}

std::string ToBytesBinary(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == 'x') {
      int b = DecodeEscape(text, i);
      // A bogus escape drops the backslash only; the loop goes on with the 'x'.
      if (b < 0) continue;
      out.push_back(static_cast<char>(b));
      i += 3;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<std::string> ParseBinaryKey(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == 'x') {
      int b = DecodeEscape(text, i);
      if (b < 0) {
        std::string found(text.substr(i, 4));
        return Status::InvalidArgument(
            "malformed escape '" + found + "' at offset " + std::to_string(i) +
            ": \\x must be followed by two hex digits 0-9A-F (upper case), e.g. \\x0A");
      }
      out.push_back(static_cast<char>(b));
      i += 3;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xFF) end.pop_back();
  if (!end.empty()) end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace presplit
