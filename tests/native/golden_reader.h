// Reads the golden files under golden/ (formats documented at the top of each file).
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace presplit::golden {

inline std::vector<std::string> ReadGoldenLines(const std::string& name) {
  std::ifstream in(std::string(PRESPLIT_GOLDEN_DIR) + "/" + name);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    lines.push_back(line);
  }
  return lines;
}

// Splits on every occurrence of `sep` (empty fields kept).
inline std::vector<std::string> SplitFields(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) fields.push_back(field);
  if (!line.empty() && line.back() == sep) fields.push_back("");
  return fields;
}

inline std::string HexOf(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (bytes.empty()) return "-";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

inline std::string BytesOfHex(const std::string& hex) {
  if (hex == "-") return "";
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

}  // namespace presplit::golden
