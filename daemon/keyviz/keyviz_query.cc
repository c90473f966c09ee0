#include "daemon/keyviz/keyviz_query.h"

#include <charconv>
#include <limits>

namespace presplit::daemon::keyviz {
namespace {

using nlohmann::ordered_json;

std::string Dump(const ordered_json& json) {
  return json.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

KeyvizReply Error(int code, const std::string& message,
                  const std::vector<std::string>* tables = nullptr) {
  ordered_json body;
  body["error"] = message;
  if (tables != nullptr) body["tables"] = *tables;
  return {code, Dump(body)};
}

// A whole decimal number, no sign, no spaces.
std::optional<int64_t> Number(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Result<int64_t> ParseTime(const std::string& text, int64_t now_ms) {
  if (text == "now") return now_ms;
  const auto bad = [&] {
    return Status::InvalidArgument(
        "'" + text.substr(0, 64) +
        "' is no time: ms since the epoch, now, or -6h, -90m, -30s, -2d");
  };
  if (!text.empty() && text[0] == '-') {
    if (text.size() < 3) return bad();
    int64_t unit = 0;
    switch (text.back()) {
      case 's':
        unit = 1000;
        break;
      case 'm':
        unit = 60'000;
        break;
      case 'h':
        unit = 3'600'000;
        break;
      case 'd':
        unit = 86'400'000;
        break;
      default:
        return bad();
    }
    const auto count = Number(std::string_view(text).substr(1, text.size() - 2));
    // At most ten years back: bounds the arithmetic, and no history is kept that long.
    if (!count || *count > 3650LL * 86'400'000 / unit) return bad();
    return now_ms - *count * unit;
  }
  const auto ms = Number(text);
  if (!ms) return bad();
  return *ms;
}

Result<KeyvizQuery> ParseKeyvizQuery(const std::map<std::string, std::string>& query,
                                     int64_t now_ms) {
  for (const auto& [name, value] : query) {
    if (name != "table" && name != "from" && name != "to" && name != "rows" && name != "view") {
      return Status::InvalidArgument("unknown parameter " + name.substr(0, 64) +
                                     " (table, from, to, rows, view)");
    }
  }
  KeyvizQuery out;
  const auto it = query.find("table");
  if (it == query.end() || it->second.empty()) {
    return Status::InvalidArgument("table is required (?table=ns:qualifier)");
  }
  out.table = it->second;
  out.to_ms = now_ms;
  out.from_ms = now_ms - kDefaultWindowMs;
  if (auto to = query.find("to"); to != query.end()) {
    auto parsed = ParseTime(to->second, now_ms);
    if (!parsed.ok()) return parsed.status().WithContext("to");
    out.to_ms = *parsed;
    if (query.find("from") == query.end()) out.from_ms = out.to_ms - kDefaultWindowMs;
  }
  if (auto from = query.find("from"); from != query.end()) {
    auto parsed = ParseTime(from->second, now_ms);
    if (!parsed.ok()) return parsed.status().WithContext("from");
    out.from_ms = *parsed;
  }
  if (out.from_ms >= out.to_ms) return Status::InvalidArgument("from must be before to");
  if (auto rows = query.find("rows"); rows != query.end()) {
    const auto n = Number(rows->second);
    if (!n || *n < 1 || *n > kMaxRows) {
      return Status::InvalidArgument("rows must be 1 to " + std::to_string(kMaxRows));
    }
    out.rows = static_cast<int>(*n);
  }
  if (auto view = query.find("view"); view != query.end()) {
    auto parsed = ParseView(view->second);
    if (!parsed.ok()) return parsed.status();
    out.view = *parsed;
  }
  return out;
}

KeyvizReply ServeKeyvizJson(const std::map<std::string, std::string>& query,
                            const HistoryReader& read, const TableLister& tables, int64_t now_ms) {
  auto parsed = ParseKeyvizQuery(query, now_ms);
  if (!parsed.ok()) {
    if (query.count("table") == 0) {
      const std::vector<std::string> known = tables ? tables() : std::vector<std::string>();
      return Error(400, parsed.status().message(), &known);
    }
    return Error(400, parsed.status().message());
  }
  if (!read) return Error(404, "no load history for " + parsed->table);
  auto window = read(parsed->table, parsed->from_ms, parsed->to_ms);
  if (!window.ok()) {
    if (window.status().code() == StatusCode::kNotFound) {
      return Error(404, window.status().message());
    }
    if (window.status().code() == StatusCode::kInvalidArgument) {
      return Error(400, window.status().message());
    }
    return Error(503, window.status().message());
  }
  // Legitimate history can be more than one picture holds (finer tiers, a long window): that
  // is the request's size, a 400 asking for less, not a broken store (which Render's 500 is).
  if (window->columns.size() > kMaxColumns || window->epochs.size() > size_t{kMaxAxisEpochs}) {
    return Error(400, "the window has " + std::to_string(window->columns.size()) + " columns and " +
                          std::to_string(window->epochs.size()) + " epochs; at most " +
                          std::to_string(kMaxColumns) + " and " + std::to_string(kMaxAxisEpochs) +
                          " are drawn: ask for a shorter time");
  }
  RenderOptions options;
  options.view = parsed->view.value_or(DefaultView(*window));
  options.rows = parsed->rows;
  options.from_ms = parsed->from_ms;
  options.to_ms = parsed->to_ms;
  auto matrix = Render(*window, options);
  if (!matrix.ok()) return Error(500, matrix.status().message());
  return {200, MatrixJsonText(*matrix, *window) + "\n"};
}

}  // namespace presplit::daemon::keyviz
