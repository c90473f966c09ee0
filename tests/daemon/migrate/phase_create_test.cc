// CreatePhase on its own (phase "planned"), over a context of fakes: the target created pre-split
// from the document, marked and guarded, before the source's guard is on and confirmed and the
// capture runs; engine "auto" decided by the source's size; an engine this daemon cannot run
// refused; a migration presplit cannot carry out aborted before anything exists; a plan of an
// older presplitd given an id first.
#include "daemon/migrate/phase_create.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/daemon/migrate/fake_phase_context.h"
#include "tests/daemon/migrate/migration_fixture.h"

namespace presplit::daemon::migrate {
namespace {

using testing::FakeMigrationBridge;
using testing::FakePhaseContext;

constexpr const char* kLive = "tinawang:check";
constexpr const char* kCreated = "tinawang:check__g2";

class CreatePhaseTest : public ::testing::Test {
 protected:
  CreatePhaseTest() : f_(testing::PhaseTestOptions()), phase_(f_.context) {
    TableSpec source;
    source.table = kLive;
    source.split_keys = {"3", "6"};
    EXPECT_TRUE(f_.admin.CreateTable(source).ok());
    MigrationPlan& plan = node_.plan;
    plan.table = plan.source = kLive;
    plan.target = kCreated;
    plan.plan_id = "0123456789abcdef";
    plan.phase = Phase::kPlanned;
    plan.engine = "put";
    plan.document = Document(16, R"({"allowed": true})");
  }
  MigrationPlan& plan() { return node_.plan; }
  // Where `event` is in the bridge's changes, in order (-1: never).
  int At(const std::string& event) {
    auto it = std::find(f_.bridge.events.begin(), f_.bridge.events.end(), event);
    return it == f_.bridge.events.end() ? -1 : static_cast<int>(it - f_.bridge.events.begin());
  }

  FakePhaseContext f_;
  CreatePhase phase_;
  PlanNode node_;
};

TEST_F(CreatePhaseTest, TheTargetExistsGuardedBeforeTheCaptureAndTheCaptureBeforeTheCopy) {
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kAdvanced);

  // Pre-split for the document's 16 buckets, marked as this plan's target, guarded at birth.
  ASSERT_EQ(f_.admin.tables.count(kCreated), 1u);
  EXPECT_EQ(f_.admin.tables[kCreated].regions.size(), 16u);
  EXPECT_EQ(f_.admin.tables[kCreated].attributes[FakeMigrationBridge::kMarkerPlan], plan().plan_id);
  EXPECT_EQ(f_.bridge.guards[kCreated].plan, plan().plan_id);
  // The source guarded (one reopen: presplitd did not create it), then captured, then confirmed.
  const int attached = At("attach guard tinawang:check");
  const int captured = At("capture tinawang:check");
  ASSERT_GE(attached, 0);
  EXPECT_LT(At("create tinawang:check__g2"), attached);
  EXPECT_LT(attached, captured);
  EXPECT_EQ(f_.bridge.confirms, std::vector<std::string>{kLive});
  EXPECT_EQ(f_.bridge.keep_deleted_history.back(), "tinawang:check__g2=TRUE");
  EXPECT_EQ(plan().phase, Phase::kCopying);
  EXPECT_EQ(plan().copy_started_ms, f_.control.now_ms);
  EXPECT_EQ(plan().capture.started_ms, f_.control.now_ms);
}

TEST_F(CreatePhaseTest, EngineAutoIsDecidedByTheSourcesSize) {
  plan().engine = "auto";
  f_.options.mapreduce_threshold_bytes = 1000;
  f_.table_bytes[kLive] = 999;
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kAdvanced);
  EXPECT_EQ(plan().engine, "put");

  PlanNode big;
  big.plan = plan();
  big.plan.engine = "auto";
  big.plan.phase = Phase::kPlanned;
  f_.table_bytes[kLive] = 1000;
  EXPECT_EQ(phase_.CreateTarget(big), Step::kAdvanced);  // the target is there: resumed
  EXPECT_EQ(big.plan.engine, "mapreduce");

  // Unknown size: the put engine.
  PlanNode unknown;
  unknown.plan = plan();
  unknown.plan.engine = "auto";
  unknown.plan.phase = Phase::kPlanned;
  f_.table_bytes.clear();
  EXPECT_EQ(phase_.CreateTarget(unknown), Step::kAdvanced);
  EXPECT_EQ(unknown.plan.engine, "put");
}

TEST_F(CreatePhaseTest, TheLocalJobRunnerIsRefusedInAHeapTooSmallForIt) {
  plan().engine = "mapreduce";
  f_.options.jvm_max_heap_bytes = int64_t{256} << 20;
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kWaiting);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_NE(f_.record.failures[0].find("raise jvm_max_heap"), std::string::npos);
  EXPECT_EQ(f_.admin.tables.count(kCreated), 0u);  // nothing created

  // And "auto" stays on put there, however large the source.
  PlanNode automatic;
  automatic.plan = plan();
  automatic.plan.engine = "auto";
  f_.options.mapreduce_threshold_bytes = 1;
  f_.table_bytes[kLive] = 1 << 30;
  EXPECT_EQ(phase_.CreateTarget(automatic), Step::kAdvanced);
  EXPECT_EQ(automatic.plan.engine, "put");
}

TEST_F(CreatePhaseTest, AnEngineThisDaemonCannotRunIsRefused) {
  plan().engine = "distcp";
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kWaiting);
  ASSERT_EQ(f_.record.failures.size(), 1u);
  EXPECT_NE(f_.record.failures[0].find("engine 'distcp' is not available"), std::string::npos);
  EXPECT_EQ(f_.bridge.generation_creates, 0);
}

TEST_F(CreatePhaseTest, AMigrationPresplitCannotCarryOutIsAbortedBeforeAnythingExists) {
  f_.bridge.generation_refusal = "cells with visibility labels";
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kWaiting);
  EXPECT_EQ(f_.record.aborts,
            std::vector<std::string>{"not started: cells with visibility labels"});
  EXPECT_EQ(f_.admin.tables.count(kCreated), 0u);
  EXPECT_TRUE(f_.bridge.peers.empty());
  EXPECT_EQ(f_.bridge.guards.count(kLive), 0u);
}

TEST_F(CreatePhaseTest, APlanOfAnOlderPresplitdGetsAnIdSavedBeforeTheTargetCarriesIt) {
  plan().plan_id.clear();
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kAdvanced);
  ASSERT_GE(f_.record.saved.size(), 2u);
  EXPECT_EQ(f_.record.saved[0].plan_id.size(), 32u);
  EXPECT_EQ(f_.record.saved[0].phase, Phase::kPlanned);
  EXPECT_EQ(f_.admin.tables[kCreated].attributes[FakeMigrationBridge::kMarkerPlan],
            f_.record.saved[0].plan_id);
}

TEST_F(CreatePhaseTest, WithoutTheLeaseNothingIsCreated) {
  f_.control.lease = false;
  EXPECT_EQ(phase_.CreateTarget(node_), Step::kStopped);
  EXPECT_EQ(f_.bridge.generation_creates, 0);
  EXPECT_TRUE(f_.bridge.peers.empty());
}

}  // namespace
}  // namespace presplit::daemon::migrate
