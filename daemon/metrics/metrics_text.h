// The daemon's metrics in Prometheus' text format (version 0.0.4), written only through the table
// of metrics.def: a series has the name, type, labels and HELP line declared there, and nothing
// else can be written. Used by /metrics (daemon/runner) and by the rooms that contribute series
// (daemon/watch's load metrics).
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace presplit::daemon::metrics {

enum class Metric {
#define PRESPLIT_METRIC(name, type, labels, help) name,
#include "daemon/metrics/metrics.def"
#undef PRESPLIT_METRIC
};

// One row of metrics.def.
struct MetricInfo {
  const char* name;
  const char* type;    // "counter" or "gauge"
  const char* labels;  // "" or "table, phase"
  const char* help;
};

const MetricInfo& InfoOf(Metric metric);
// Every row, in the table's order.
const std::vector<MetricInfo>& AllMetrics();

// A Prometheus label value: backslash, double quote and newline escaped.
std::string LabelValue(std::string_view value);

// One /metrics answer being written. Each family's HELP and TYPE lines come once, before its
// first sample (or alone, from Family, for a labelled family with no series now). Not
// thread-safe: one per request.
class MetricsText {
  template <typename T>
  struct IsAtomic : std::false_type {};
  template <typename T>
  struct IsAtomic<std::atomic<T>> : std::true_type {};

 public:
  using Labels = std::initializer_list<std::pair<const char*, std::string_view>>;

  // A family's HELP and TYPE lines, once; `help_suffix` is appended to the table's HELP (what
  // only the running daemon knows, e.g. the phase numbers).
  void Family(Metric metric, std::string_view help_suffix = {});
  // An unlabelled series: any integer or floating-point value, or a std::atomic of one (read
  // once).
  template <typename T>
  void Value(Metric metric, const T& value) {
    Value(metric, Labels{}, value);
  }
  // A labelled series; the label names must be the table's, in its order.
  template <typename T>
  void Value(Metric metric, Labels labels, const T& value) {
    if constexpr (IsAtomic<T>::value) {
      Value(metric, labels, value.load());
    } else if constexpr (std::is_floating_point_v<T>) {
      Sample(metric, labels, Number(value));
    } else {
      static_assert(std::is_integral_v<T>, "a metric's value is a number");
      Sample(metric, labels, std::to_string(value));
    }
  }

  std::string Text() const { return out_.str(); }

 private:
  static std::string Number(double value);
  void Sample(Metric metric, Labels labels, const std::string& value);

  std::ostringstream out_;
  std::set<Metric> written_;
};

}  // namespace presplit::daemon::metrics
