#include "presplit/json_bounds.h"

#include <nlohmann/json.hpp>
#include <string>

namespace presplit {

Status CheckJsonBounds(std::string_view text, JsonBounds bounds) {
  if (text.size() > bounds.max_bytes) {
    return Status::InvalidArgument("JSON of " + std::to_string(text.size()) +
                                   " bytes is larger than the limit of " +
                                   std::to_string(bounds.max_bytes) + " bytes");
  }
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      // Only '"' and '\' matter inside a string; every other byte, UTF-8 or not, is content.
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > bounds.max_depth) {
          return Status::InvalidArgument("JSON nested deeper than " +
                                         std::to_string(bounds.max_depth) +
                                         " levels (at byte offset " + std::to_string(i) + ")");
        }
        break;
      case ']':
      case '}':
        // A closer too many is malformed JSON, the parser's to refuse; not counted below 0 so
        // that it cannot hide an opener after it.
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return Status::Ok();
}

nlohmann::json ParseBoundedJson(std::string_view text, JsonBounds bounds) {
  if (!CheckJsonBounds(text, bounds).ok())
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace presplit
