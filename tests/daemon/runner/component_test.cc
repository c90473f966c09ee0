#include "daemon/runner/component.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace presplit::daemon {
namespace {

// Records its calls in a log shared with the other fakes.
class FakeComponent : public Component {
 public:
  FakeComponent(std::string name, std::vector<std::string>& log)
      : name_(std::move(name)), log_(log) {}

  std::string_view name() const override { return name_; }
  Status Start() override {
    log_.push_back("start " + name_);
    return start_error;
  }
  void Stop() override { log_.push_back("stop " + name_); }
  std::string Problem() const override { return problem; }
  void AppendMetrics(metrics::MetricsText& out) const override {
    if (leads) out.Value(metrics::Metric::presplit_leader, 1);
  }
  void AppendStatus(nlohmann::ordered_json& status) const override { status[name_] = true; }
  uint64_t exceptions_caught() const override { return exceptions; }

  Status start_error = Status::Ok();
  std::string problem;
  bool leads = false;
  uint64_t exceptions = 0;

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

TEST(ComponentSetTest, StartsInOrderAndStopsInReverseOnce) {
  std::vector<std::string> log;
  FakeComponent http("http", log), reconcile("reconcile", log), watch("watch", log);
  ComponentSet set;
  set.Add(http);
  set.Add(reconcile);
  set.Add(watch);
  EXPECT_EQ(set.Names(), "http, reconcile, watch");
  ASSERT_TRUE(set.Start().ok());
  set.Stop();
  set.Stop();  // a second stop stops nothing again
  EXPECT_EQ(log, (std::vector<std::string>{"start http", "start reconcile", "start watch",
                                           "stop watch", "stop reconcile", "stop http"}));
}

TEST(ComponentSetTest, AFailedStartStopsOnlyTheOnesStartedBeforeIt) {
  std::vector<std::string> log;
  FakeComponent http("http", log), kerberos("kerberos", log), reconcile("reconcile", log);
  kerberos.start_error = Status::InvalidArgument("keytab unreadable");
  ComponentSet set;
  set.Add(http);
  set.Add(kerberos);
  set.Add(reconcile);
  Status started = set.Start();
  EXPECT_EQ(started.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(started.message().find("kerberos"), std::string::npos) << started.message();
  EXPECT_NE(started.message().find("keytab unreadable"), std::string::npos) << started.message();
  EXPECT_EQ(log, (std::vector<std::string>{"start http", "start kerberos", "stop http"}));
  set.Stop();  // nothing left running
  EXPECT_EQ(log.size(), 3u);
}

TEST(ComponentSetTest, TheFirstProblemInStartOrderIsTheDaemons) {
  std::vector<std::string> log;
  FakeComponent kerberos("kerberos", log), reconcile("reconcile", log);
  ComponentSet set;
  set.Add(kerberos);
  set.Add(reconcile);
  EXPECT_EQ(set.Problem(), "");
  reconcile.problem = "HBase unreachable: connection refused";
  EXPECT_EQ(set.Problem(), "HBase unreachable: connection refused");
  kerberos.problem = "Kerberos: no ticket";
  EXPECT_EQ(set.Problem(), "Kerberos: no ticket");
}

TEST(ComponentSetTest, EachContributesItsMetricsStatusAndExceptions) {
  std::vector<std::string> log;
  FakeComponent reconcile("reconcile", log), migrate("migrate", log);
  reconcile.exceptions = 2;
  migrate.exceptions = 3;
  migrate.leads = true;
  ComponentSet set;
  set.Add(reconcile);
  set.Add(migrate);
  EXPECT_EQ(set.exceptions_caught(), 5u);
  nlohmann::ordered_json status;
  set.AppendStatus(status);
  EXPECT_EQ(status.dump(), R"({"reconcile":true,"migrate":true})") << "in start order";
  metrics::MetricsText out;
  set.AppendMetrics(out);
  EXPECT_NE(out.Text().find("presplit_leader 1"), std::string::npos) << out.Text();
}

}  // namespace
}  // namespace presplit::daemon
