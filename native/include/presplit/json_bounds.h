// Bounds on JSON text that comes from outside the process (the documents, statuses and migration
// plans in ZooKeeper), checked before any parser sees it.
//
// Why: nlohmann::json parses any depth (its parser keeps an explicit stack), but copying,
// comparing and dumping a value recurse once per level, so a valid JSON nested 200,000 deep
// overflows the stack of whichever process touches it next. Every reader of such text checks it
// here first and treats text out of bounds like malformed JSON, with the reason in its error.
// Pure: no I/O, no allocation, no recursion.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "presplit/status.h"

namespace presplit {

// ZooKeeper's default jute.maxbuffer: no znode of a default ZooKeeper holds more, and no
// document, status or plan of presplit's comes near it.
inline constexpr size_t kMaxJsonBytes = 1024 * 1024;
// presplit's own documents nest 4 levels deep (a status's load.decisions[i]); 64 leaves room and
// keeps every recursion over a parsed value a few kilobytes of stack.
inline constexpr int kMaxJsonDepth = 64;

struct JsonBounds {
  size_t max_bytes = kMaxJsonBytes;
  int max_depth = kMaxJsonDepth;
};

// OK when `text` has at most bounds.max_bytes bytes and no array or object in it is nested more
// than bounds.max_depth deep (the outermost array or object is level 1; a scalar alone is level
// 0; brackets inside strings, escaped quotes included, do not count). Otherwise InvalidArgument,
// e.g. "JSON of 2097152 bytes is larger than the limit of 1048576 bytes" or "JSON nested deeper
// than 64 levels (at byte offset 64)" (offset of the first bracket past the limit). Nothing else
// is validated: malformed text within the bounds is OK here and left to the parser, which
// refuses it. For any text the parser accepts, the depth counted here is the parser's depth;
// except that nlohmann's parser stops reading at a NUL byte outside a string, while every byte is
// counted here (so "{}\0[[[..." may be refused for what the parser would not have read).
// One pass over the text, O(1) memory.
Status CheckJsonBounds(std::string_view text, JsonBounds bounds = {});

// nlohmann::json::parse(text, nullptr, false) after CheckJsonBounds: the parsed value, or a
// discarded value (is_discarded()) when the text is out of bounds or is not JSON. Never throws.
// For readers that treat an unreadable znode as absent; one that reports why calls
// CheckJsonBounds itself.
nlohmann::json ParseBoundedJson(std::string_view text, JsonBounds bounds = {});

}  // namespace presplit
