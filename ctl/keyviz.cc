// presplitctl keyviz: the key visualizer's data for reports, from the daemon's GET /keyviz.json
// (or a saved copy with --input): a summary with the diagnoses, the JSON as it came (--json), or
// CSV with one line per row and column (--csv FILE, - for stdout).
#include <cctype>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "ctl/common.h"
#include "ctl/http_get.h"

namespace presplit::ctl {
namespace {

using nlohmann::json;

std::string PercentEncode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A CSV field: quoted when it holds a comma, a quote or a line break (keys are printed
// Bytes.toStringBinary-style, so they hold no line break, but may hold the others). Keys are
// users' data: one that starts like a spreadsheet formula (=, +, -, @) gets a leading ' so that
// opening the report runs nothing.
std::string Field(const std::string& input) {
  std::string text = input;
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) {
    text.insert(text.begin(), '\'');
  }
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// As the JSON wrote it (all its digits; a stream's default would round sizes to 6).
std::string Number(const json& v) { return v.is_number() ? v.dump() : ""; }

// One line per (column, row): the column's time, the row's keys and the four numbers.
std::string Csv(const json& body) {
  std::ostringstream out;
  out << "column,start_ms,end_ms,row,start_key,end_key,reads_per_s,writes_per_s,total_per_s,"
         "bytes\n";
  const json& rows = body.at("rows");
  const json& columns = body.at("columns");
  const json& metrics = body.at("metrics");
  for (size_t c = 0; c < columns.size(); ++c) {
    for (size_t r = 0; r < rows.size(); ++r) {
      out << c << ',' << columns[c].at("start_ms").get<int64_t>() << ','
          << columns[c].at("end_ms").get<int64_t>() << ',' << r << ','
          << Field(rows[r].at("start").get<std::string>()) << ','
          << Field(rows[r].at("end").get<std::string>()) << ','
          << Number(metrics.at("reads").at(c).at(r)) << ','
          << Number(metrics.at("writes").at(c).at(r)) << ','
          << Number(metrics.at("total").at(c).at(r)) << ','
          << Number(metrics.at("bytes").at(c).at(r)) << '\n';
    }
  }
  return out.str();
}

std::string Summary(const json& body) {
  std::ostringstream out;
  out << body.at("table").get<std::string>() << "  " << body.at("view").get<std::string>()
      << " view  " << body.at("row_count") << " rows x " << body.at("column_count") << " columns  "
      << body.at("events").size() << " events\n";
  for (const json& e : body.at("events")) {
    out << "event " << e.at("at_ms") << " " << e.at("kind").get<std::string>() << ": "
        << e.at("detail").get<std::string>() << "\n";
  }
  if (body.at("diagnoses").empty()) out << "diagnoses: none\n";
  for (const json& d : body.at("diagnoses")) {
    out << d.at("kind").get<std::string>() << " (columns " << d.at("first_column") << "-"
        << d.at("last_column") << "): " << d.at("text").get<std::string>()
        << "\n  advice: " << d.at("advice").get<std::string>() << "\n";
  }
  return out.str();
}

int CmdKeyviz(const Args& args) {
  if (args.positional.size() != 1) return UsageError("keyviz takes one table");
  if (args.has("csv") && args.has("json")) return UsageError("--csv or --json, not both");
  const std::string& table = args.positional[0];
  std::string body;
  if (args.has("input")) {
    auto read = ReadInput(args.flag("input"));
    if (!read.ok()) return Fail(read.status().message());
    body = std::move(read).value();
  } else {
    std::string path = "/keyviz.json?table=" + PercentEncode(table);
    for (const char* name : {"from", "to", "rows", "view"}) {
      if (args.has(name)) path += std::string("&") + name + "=" + PercentEncode(args.flag(name));
    }
    const std::string daemon = args.has("daemon") ? args.flag("daemon") : "127.0.0.1:9464";
    auto reply = HttpGetAny(daemon, path, std::chrono::seconds(30));
    if (!reply.ok()) return Fail(reply.status().message());
    if (reply->code != 200) {
      const json error = json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
      const std::string message =
          error.is_object() && error.contains("error") && error.at("error").is_string()
              ? error.at("error").get<std::string>()
              : reply->status_line;
      return Fail("keyviz " + table + ": " + message);
    }
    body = std::move(reply->body);
  }
  if (args.has("json")) {
    std::cout << body;
    return kOk;
  }
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return Fail("/keyviz.json is not a JSON object");
  std::string text;
  try {
    text = args.has("csv") ? Csv(parsed) : Summary(parsed);
  } catch (const json::exception& e) {
    return Fail(std::string("unexpected /keyviz.json: ") + e.what());
  }
  if (!args.has("csv") || args.flag("csv") == "-") {
    std::cout << text;
    return kOk;
  }
  std::ofstream file(args.flag("csv"));
  file << text;
  file.close();
  if (!file) return Fail("cannot write " + args.flag("csv"));
  return kOk;
}

}  // namespace

std::vector<CommandSpec> KeyvizCommands() {
  return {{"keyviz",
           {"daemon", "from", "to", "rows", "view", "csv", "input"},
           {"json"},
           "  keyviz T [--daemon HOST:PORT] [--from TIME] [--to TIME] [--rows N]\n"
           "         [--view logical|physical] [--csv FILE|-] [--json] [--input FILE]\n"
           "                    the key visualizer's data for table T from the daemon's GET\n"
           "                    /keyviz.json: a summary and the diagnoses with their advice;\n"
           "                    --csv writes one line per column and row (time, keys, reads/s,\n"
           "                    writes/s, total/s, bytes), --json the JSON as served. TIME: ms\n"
           "                    since the epoch, now, or -6h, -90m, -30s, -2d (default the last\n"
           "                    6 h); --rows 1..1000 (default 200); --view defaults to logical\n"
           "                    for a salted table; --input reads a saved /keyviz.json, - for\n"
           "                    stdin; default daemon 127.0.0.1:9464\n",
           CmdKeyviz}};
}

}  // namespace presplit::ctl
