#include "daemon/metrics/metrics_text.h"

#include <stdexcept>

namespace presplit::daemon::metrics {
namespace {

// The table, with each name once as a string.
const std::vector<MetricInfo>& Table() {
  static const std::vector<MetricInfo> table = {
#define PRESPLIT_METRIC(name, type, labels, help) {#name, #type, labels, help},
#include "daemon/metrics/metrics.def"
#undef PRESPLIT_METRIC
  };
  return table;
}

// "table, phase" -> {"table", "phase"}.
std::vector<std::string> LabelNames(const char* labels) {
  std::vector<std::string> names;
  std::string current;
  for (const char* c = labels; *c != '\0'; ++c) {
    if (*c == ',') {
      names.push_back(current);
      current.clear();
    } else if (*c != ' ') {
      current += *c;
    }
  }
  if (!current.empty()) names.push_back(current);
  return names;
}

}  // namespace

const MetricInfo& InfoOf(Metric metric) { return Table().at(static_cast<size_t>(metric)); }

const std::vector<MetricInfo>& AllMetrics() { return Table(); }

std::string LabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void MetricsText::Family(Metric metric, std::string_view help_suffix) {
  if (!written_.insert(metric).second) return;
  const MetricInfo& info = InfoOf(metric);
  out_ << "# HELP " << info.name << ' ' << info.help << help_suffix << ".\n# TYPE " << info.name
       << ' ' << info.type << '\n';
}

std::string MetricsText::Number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

void MetricsText::Sample(Metric metric, Labels labels, const std::string& value) {
  Family(metric);
  const MetricInfo& info = InfoOf(metric);
  // A label the table does not declare is a bug in the caller: refused loudly, in every build.
  const std::vector<std::string> names = LabelNames(info.labels);
  if (names.size() != labels.size()) {
    throw std::logic_error(std::string("metric ") + info.name + ": " +
                           std::to_string(labels.size()) + " labels given, metrics.def says '" +
                           info.labels + "'");
  }
  out_ << info.name;
  size_t i = 0;
  for (const auto& [name, label_value] : labels) {
    if (names[i] != name) {
      throw std::logic_error(std::string("metric ") + info.name + ": label '" + name +
                             "' where metrics.def says '" + names[i] + "'");
    }
    out_ << (i == 0 ? "{" : ",") << name << "=\"" << LabelValue(label_value) << '"';
    ++i;
  }
  if (i > 0) out_ << '}';
  out_ << ' ' << value << '\n';
}

}  // namespace presplit::daemon::metrics
