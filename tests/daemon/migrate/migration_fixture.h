// What the Migrator's test files share: the table document of tinawang:check at a bucket count,
// and the fake ZooKeeper's znodes a migration reads and writes (the document, the table's status,
// the plan, and presplitctl's request), and a throttle's health source that is never asked.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "daemon/migrate/throttle_sampler.h"
#include "tests/daemon/fakes.h"

namespace presplit::daemon::migrate {

// Everything logged while it lives, instead of the default logger's output.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    sink->set_pattern("%l %v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  int Count(const std::string& text) const {
    const std::string all = out_.str();
    int n = 0;
    for (size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) ++n;
    return n;
  }
  std::string Text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

// tinawang:check salted into `buckets` decimal buckets (java-hashcode, 8-byte groups, 3 versions),
// with `migration` (JSON, "" = none) as its migration object.
inline std::string Document(int buckets, const std::string& migration) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "version": 1, "table": "tinawang:check",
    "layout": {"salt": {"buckets": 10, "encoding": "decimal", "hash": "java-hashcode"},
               "group": {"length": 8}},
    "split": {"algorithm": "salt-buckets"},
    "families": [{"name": "f", "max_versions": 3}]})");
  doc["layout"]["salt"]["buckets"] = buckets;
  if (!migration.empty()) doc["migration"] = nlohmann::json::parse(migration);
  return doc.dump();
}

class MigrationZnodesTest : public ::testing::Test {
 protected:
  void PutDoc(const std::string& doc) {
    ASSERT_TRUE(zk_.Upsert("/presplit/tables/tinawang:check", doc).ok());
  }
  nlohmann::json Status() { return Read("/presplit/status/tinawang:check"); }
  nlohmann::json Plan() { return Read("/presplit/migrations/tinawang:check"); }
  // What presplitctl migration pause|resume|abort|rollback writes: a request znode of its own
  // (the plan is the daemon's).
  void Request(const std::string& request) {
    ASSERT_TRUE(
        zk_.Upsert("/presplit/requests/tinawang:check", nlohmann::json{{"request", request}}.dump())
            .ok());
  }
  bool RequestPending() { return zk_.Get("/presplit/requests/tinawang:check", false).ok(); }

  testing::FakeZk zk_;

 private:
  nlohmann::json Read(const std::string& path) {
    auto node = zk_.Get(path, false);
    return node.ok() ? nlohmann::json::parse(node->data) : nlohmann::json();
  }
};

// A health source that is never asked (the sampler's interval is longer than the test).
class QuietHealth : public HealthSource {
 public:
  Result<HealthSample> Sample(std::vector<std::string>&) override {
    return Status::Unavailable("not asked in this test");
  }
};

}  // namespace presplit::daemon::migrate
