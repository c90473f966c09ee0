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

}  // namespace

std::string FieldPathToPointer(std::string_view path) {
  std::string pointer;
  size_t at = 0;
  while (at < path.size()) {
    // One member name, up to the next '.' or '[' (an index).
    size_t end = path.find_first_of(".[", at);
    if (end == std::string_view::npos) end = path.size();
    if (end > at) AppendSegment(pointer, path.substr(at, end - at));
    at = end;
    // Its indices: "[0]", "[0][1]"...
    while (at < path.size() && path[at] == '[') {
      size_t close = path.find(']', at);
      std::string_view index = close == std::string_view::npos
                                   ? std::string_view()
                                   : path.substr(at + 1, close - at - 1);
      if (!AllDigits(index)) {
        // Not an index after all: the rest is one member name.
        AppendSegment(pointer, path.substr(at));
        return pointer;
      }
      AppendSegment(pointer, index);
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
