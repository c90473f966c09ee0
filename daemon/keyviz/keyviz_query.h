// GET /keyviz.json as plain code: the query's parameters checked and resolved, the history read
// through a function the runner gives (the store's LoadHistory::Read), the matrix rendered and
// answered as JSON. The runner only wraps the reply into an HTTP response, so every answer
// (200, 400, 404, 503) is unit-tested here.
//
// Parameters (all optional but table):
//   table  the document's name, "ns:qualifier"
//   from   ms since the epoch, or relative to now: "-6h", "-90m", "-30s", "-2d"; default -6h
//   to     the same forms or "now"; default now. from must be before to.
//   rows   1..1000, default 200
//   view   logical|physical; default logical for a salted table, physical otherwise
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/keyviz/keyviz_render.h"
#include "daemon/keyviz/load_history.h"
#include "presplit/status.h"

namespace presplit::daemon::keyviz {

inline constexpr int64_t kDefaultWindowMs = 6 * 3'600'000LL;

// The history of `table` between two times; NotFound for a table it does not know.
using HistoryReader =
    std::function<Result<HistoryWindow>(const std::string& table, int64_t from_ms, int64_t to_ms)>;
// The tables it has history for (the page lists them when no table is asked for).
using TableLister = std::function<std::vector<std::string>()>;

struct KeyvizQuery {
  std::string table;
  int64_t from_ms = 0;
  int64_t to_ms = 0;
  int rows = kDefaultRows;
  std::optional<View> view;  // unset: the table's default
};

// A time parameter: ms since the epoch, "now", or "-<n><s|m|h|d>" before now.
Result<int64_t> ParseTime(const std::string& text, int64_t now_ms);

// InvalidArgument naming the parameter for anything out of the forms above; unknown parameters
// are refused too (a typo must not silently draw the default).
Result<KeyvizQuery> ParseKeyvizQuery(const std::map<std::string, std::string>& query,
                                     int64_t now_ms);

struct KeyvizReply {
  int code = 200;
  std::string body;  // JSON
};

// The whole answer: 400 for bad parameters (with the tables known when table is missing), 404
// for a table without history, 503 when the history cannot be read, 500 for a window the store
// should not have produced; 200 with MatrixJson otherwise.
KeyvizReply ServeKeyvizJson(const std::map<std::string, std::string>& query,
                            const HistoryReader& read, const TableLister& tables, int64_t now_ms);

}  // namespace presplit::daemon::keyviz
