#include "presplit/field_pointer.h"

#include <cctype>

namespace presplit {
namespace {

void AppendSegment(std::string& pointer, std::string_view segment) {
  pointer += '/';
  for (char c : segment) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Whether path[at] starts an index "[digits]"; *close is then the position of its ']'.
bool IndexAt(std::string_view path, size_t at, size_t* close) {
  if (at >= path.size() || path[at] != '[') return false;
  size_t end = path.find(']', at);
  if (end == std::string_view::npos || !AllDigits(path.substr(at + 1, end - at - 1))) return false;
  *close = end;
  return true;
}

}  // namespace

std::string FieldPathToPointer(std::string_view path) {
  std::string pointer;
  size_t at = 0;
  while (at < path.size()) {
    // One member name, up to the next '.' or index; a '[' that starts no index is part of it.
    size_t end = at;
    size_t close = 0;
    while (end < path.size() && path[end] != '.' && !IndexAt(path, end, &close)) ++end;
    if (end > at) AppendSegment(pointer, path.substr(at, end - at));
    at = end;
    // Its indices: "[0]", "[0][1]"...
    while (IndexAt(path, at, &close)) {
      AppendSegment(pointer, path.substr(at + 1, close - at - 1));
      at = close + 1;
    }
    if (at < path.size() && path[at] == '.') ++at;
  }
  return pointer;
}

FieldErrorParts SplitFieldError(std::string_view message) {
  constexpr std::string_view kPrefix = "field '";
  constexpr std::string_view kEnd = "': ";
  if (message.substr(0, kPrefix.size()) == kPrefix) {
    size_t end = message.find(kEnd, kPrefix.size());
    if (end != std::string_view::npos) {
      return {FieldPathToPointer(message.substr(kPrefix.size(), end - kPrefix.size())),
              std::string(message.substr(end + kEnd.size()))};
    }
  }
  return {"", std::string(message)};
}

}  // namespace presplit
