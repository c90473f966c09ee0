#include "daemon/metrics/metrics_text.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <stdexcept>
#include <string>

namespace presplit::daemon::metrics {
namespace {

TEST(MetricsTable, EveryRowIsAPrometheusNameTypeAndHelp) {
  std::set<std::string> names;
  const std::regex name("presplit_[a-z0-9_]+");
  for (const MetricInfo& m : AllMetrics()) {
    EXPECT_TRUE(std::regex_match(m.name, name)) << m.name;
    EXPECT_TRUE(names.insert(m.name).second) << m.name << " twice";
    EXPECT_TRUE(std::string(m.type) == "counter" || std::string(m.type) == "gauge") << m.name;
    EXPECT_FALSE(std::string(m.help).empty()) << m.name;
    EXPECT_NE(std::string(m.help).back(), '.') << m.name << ": the writer adds the period";
  }
  EXPECT_EQ(std::string(InfoOf(Metric::presplit_leader).name), "presplit_leader");
  EXPECT_EQ(std::string(InfoOf(Metric::presplit_tables).labels), "phase");
}

TEST(MetricsText, WritesEachFamilysHeaderOnceAndItsSamples) {
  MetricsText out;
  out.Value(Metric::presplit_reconcile_passes_total, uint64_t{7});
  out.Family(Metric::presplit_tables);
  out.Value(Metric::presplit_tables, {{"phase", "ready"}}, 3);
  out.Value(Metric::presplit_tables, {{"phase", "drift"}}, 0);
  out.Value(Metric::presplit_load_poll_age_seconds, 2.5);
  out.Family(Metric::presplit_migration_rows);  // no series now: the header alone
  EXPECT_EQ(out.Text(),
            "# HELP presplit_reconcile_passes_total Reconcile passes run.\n"
            "# TYPE presplit_reconcile_passes_total counter\n"
            "presplit_reconcile_passes_total 7\n"
            "# HELP presplit_tables " +
                std::string(InfoOf(Metric::presplit_tables).help) +
                ".\n"
                "# TYPE presplit_tables gauge\n"
                "presplit_tables{phase=\"ready\"} 3\n"
                "presplit_tables{phase=\"drift\"} 0\n"
                "# HELP presplit_load_poll_age_seconds " +
                InfoOf(Metric::presplit_load_poll_age_seconds).help +
                ".\n"
                "# TYPE presplit_load_poll_age_seconds gauge\n"
                "presplit_load_poll_age_seconds 2.5\n"
                "# HELP presplit_migration_rows " +
                InfoOf(Metric::presplit_migration_rows).help +
                ".\n"
                "# TYPE presplit_migration_rows gauge\n");
}

TEST(MetricsText, EscapesLabelValuesAndAppendsAHelpSuffix) {
  MetricsText out;
  out.Family(Metric::presplit_migration_phase, ": 0 planned");
  out.Value(Metric::presplit_migration_phase, {{"table", "ns:t\"x\\\n"}, {"phase", "planned"}}, 0);
  const std::string text = out.Text();
  EXPECT_NE(
      text.find(std::string(InfoOf(Metric::presplit_migration_phase).help) + ": 0 planned.\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("presplit_migration_phase{table=\"ns:t\\\"x\\\\\\n\",phase=\"planned\"} 0\n"),
            std::string::npos)
      << text;
}

TEST(MetricsText, RefusesLabelsTheTableDoesNotDeclare) {
  MetricsText out;
  EXPECT_THROW(out.Value(Metric::presplit_tables, 1), std::logic_error) << "phase missing";
  EXPECT_THROW(out.Value(Metric::presplit_tables, {{"table", "t"}}, 1), std::logic_error);
  EXPECT_THROW(out.Value(Metric::presplit_leader, {{"table", "t"}}, 1), std::logic_error);
  EXPECT_THROW(out.Value(Metric::presplit_migration_capture_lag_seconds,
                         {{"peer", "p"}, {"table", "t"}}, 1.0),
               std::logic_error)
      << "the table's order";
}

}  // namespace
}  // namespace presplit::daemon::metrics
