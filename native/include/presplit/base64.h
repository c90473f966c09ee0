// Base64 (RFC 4648) for row keys in JSON: the daemon's plans and its calls into the JVM carry
// binary keys this way. Pure computation.
#pragma once

#include <string>

#include "presplit/status.h"

namespace presplit {

// Standard alphabet, with padding.
std::string Base64Encode(const std::string& bytes);

// Standard or URL-safe alphabet ('-' and '_' read as '+' and '/'), padded to a multiple of four
// characters; InvalidArgument for anything else.
Result<std::string> Base64Decode(const std::string& text);

}  // namespace presplit
