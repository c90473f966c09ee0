// Helpers shared by the pieces of the table document (table_config.cc parses it,
// table_canonical.cc writes its canonical form, table_derived.cc computes what follows from it).
// Internal to libpresplit: not installed, not included from outside native/src.
#pragma once

#include <charconv>
#include <string>
#include <system_error>

#include "presplit/split_algorithms.h"

namespace presplit::table_config_internal {

// The shortest text that reads back as the same double, so a value written into an error
// message or a table attribute is exactly the one the document gave.
inline std::string FormatNumber(double value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

// The first or last row HBase's RegionSplitter uses for hex-string and decimal-string when the
// document gives none ("00000000".."FFFFFFFF", "00000000".."99999999").
inline std::string NumberRowDefault(SplitAlgorithm algorithm, bool first) {
  if (first) return "00000000";
  return algorithm == SplitAlgorithm::kHexString ? "FFFFFFFF" : "99999999";
}

}  // namespace presplit::table_config_internal
