// The phase table (daemon/migrate/migration_phase.h): its rules, and its data form
// (daemon/migrate/migration_phases.json), which PresplitAdmin reads and the docs are checked
// against, equal to it field by field.
#include "daemon/migrate/migration_phase.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace presplit::daemon::migrate {
namespace {

using nlohmann::json;

constexpr Request kRequests[] = {Request::kPause, Request::kResume, Request::kAbort,
                                 Request::kRollback};

std::vector<Phase> AllPhases() {
  std::vector<Phase> out;
  for (int i = 0; i < kPhaseCount; ++i) out.push_back(static_cast<Phase>(i));
  return out;
}

// The table as the JSON file writes it.
json TableAsJson() {
  json phases = json::array();
  for (Phase phase : AllPhases()) {
    json next = json::array();
    for (Phase to : NextPhases(phase)) next.push_back(PhaseName(to));
    json requests = json::object();
    for (Request request : kRequests) {
      RequestRule rule = RuleFor(phase, request);
      json r{{"verdict", VerdictName(rule.verdict)}};
      if (rule.verdict != Verdict::kAccept) r["refusal"] = rule.refusal;
      requests[RequestName(request)] = r;
    }
    phases.push_back({{"name", PhaseName(phase)},
                      {"switched", IsSwitched(phase)},
                      {"next", next},
                      {"requests", requests}});
  }
  return phases;
}

// A JSON file of the project (a path from its root); discarded when missing or not JSON.
json ReadProjectJson(const std::string& path) {
  std::ifstream in(std::string(PRESPLIT_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

TEST(PhaseTable, TheJsonFileIsTheTable) {
  json file = ReadProjectJson("daemon/migrate/migration_phases.json");
  ASSERT_TRUE(file.is_object() && file.contains("phases")) << "not the phase table's JSON";
  EXPECT_EQ(file["phases"], TableAsJson())
      << "migration_phases.json differs from migration_phase.cc; its \"phases\" should be:\n"
      << TableAsJson().dump(2);
}

TEST(PhaseTable, NamesRoundTripAndUnknownNamesAreRefused) {
  for (Phase phase : AllPhases()) {
    auto parsed = ParsePhase(PhaseName(phase));
    ASSERT_TRUE(parsed.ok()) << PhaseName(phase);
    EXPECT_EQ(*parsed, phase);
    EXPECT_EQ(IsSwitchedPhaseName(PhaseName(phase)), IsSwitched(phase));
  }
  EXPECT_FALSE(ParsePhase("aborted").ok());  // an outcome in the status, not a plan's phase
  EXPECT_FALSE(ParsePhase("").ok());
  EXPECT_FALSE(IsSwitchedPhaseName("Grace"));
}

// Every phase can be reached from `planned`, and only done and rolling_back end the table (the
// plan is removed there); a migration never goes back to an earlier phase except into a failed
// verification (listed before switching) and out of it (verified again).
TEST(PhaseTable, EveryPhaseIsReachableAndOnlyTheEndsHaveNoWayOn) {
  std::set<Phase> reached{Phase::kPlanned};
  std::vector<Phase> todo{Phase::kPlanned};
  while (!todo.empty()) {
    Phase from = todo.back();
    todo.pop_back();
    for (Phase to : NextPhases(from)) {
      if (reached.insert(to).second) todo.push_back(to);
      if (to < from) {
        EXPECT_TRUE(from == Phase::kFailedVerification || to == Phase::kFailedVerification)
            << PhaseName(from) << " -> " << PhaseName(to);
      }
    }
  }
  EXPECT_EQ(reached.size(), static_cast<size_t>(kPhaseCount));
  for (Phase phase : AllPhases()) {
    bool end = phase == Phase::kDone || phase == Phase::kRollingBack;
    EXPECT_EQ(NextPhases(phase).empty(), end) << PhaseName(phase);
  }
  EXPECT_FALSE(MayMove(Phase::kGrace, Phase::kCopying));
  EXPECT_FALSE(MayMove(Phase::kFencing, Phase::kRollingBack));
  EXPECT_TRUE(MayMove(Phase::kSwitching, Phase::kRollingBack));
}

// The rules an operator relies on: no abort once readers use the new generation (it would drop
// their writes), no rollback before the switch or after the fence.
TEST(PhaseTable, AbortOnlyBeforeTheSwitchAndRollbackOnlyBetweenTheSwitchAndTheFence) {
  const RefusalNames names{"ns:t", "ns:t", "ns:t__g2"};
  for (Phase phase : AllPhases()) {
    for (bool status_names_target : {false, true}) {
      // A status that disagrees with a phase other than `switching` is the plan checks' business
      // (CheckTablesAgree); the table answers by the phase there.
      bool switched = phase == Phase::kSwitching ? status_names_target : IsSwitched(phase);
      Decision abort = Decide(phase, Request::kAbort, status_names_target, names);
      EXPECT_EQ(abort.accepted, !switched) << PhaseName(phase);
      Decision rollback = Decide(phase, Request::kRollback, status_names_target, names);
      bool rollback_expected = switched && (phase == Phase::kSwitching ||
                                            phase == Phase::kCatchingUp || phase == Phase::kGrace);
      EXPECT_EQ(rollback.accepted, rollback_expected) << PhaseName(phase);
      EXPECT_TRUE(Decide(phase, Request::kResume, status_names_target, names).accepted);
    }
  }
}

TEST(PhaseTable, ARefusalNamesTheRequestTheTablesAndThePhase) {
  const RefusalNames names{"ns:orders", "ns:orders", "ns:orders__g2"};
  Decision abort = Decide(Phase::kGrace, Request::kAbort, true, names);
  ASSERT_FALSE(abort.accepted);
  EXPECT_EQ(abort.refusal,
            "abort refused: the status already names ns:orders__g2; until the grace period ends "
            "`rollback` switches back without losing a write");
  Decision rollback = Decide(Phase::kCopying, Request::kRollback, false, names);
  ASSERT_FALSE(rollback.accepted);
  EXPECT_EQ(rollback.refusal,
            "rollback refused: the migration of ns:orders has not switched (phase copying); "
            "abort it instead");
  Decision fenced = Decide(Phase::kFencing, Request::kRollback, true, names);
  EXPECT_NE(fenced.refusal.find("ns:orders is fenced already (phase fencing)"), std::string::npos)
      << fenced.refusal;
  // Every refusal template is filled in completely.
  for (Phase phase : AllPhases()) {
    for (Request request : kRequests) {
      for (bool status_names_target : {false, true}) {
        Decision d = Decide(phase, request, status_names_target, names);
        EXPECT_EQ(d.refusal.find('{'), std::string::npos) << d.refusal;
        EXPECT_EQ(d.accepted, d.refusal.empty());
      }
    }
  }
}

// The answers PresplitAdmin gives too (tests/vectors/migration_requests.json), word for word.
TEST(PhaseTable, AnswersEveryRequestAsTheSharedVectorsSay) {
  json vectors = ReadProjectJson("tests/vectors/migration_requests.json");
  ASSERT_TRUE(vectors.is_object() && vectors.contains("cases"))
      << "tests/vectors/migration_requests.json missing or not the vectors";
  const json& n = vectors["names"];
  const RefusalNames names{n["table"], n["source"], n["target"]};
  // The answers as this table gives them, in the file's order (phase, request, status).
  json answers = json::array();
  for (Phase phase : AllPhases()) {
    for (Request request : kRequests) {
      for (bool status_names_target : {false, true}) {
        Decision d = Decide(phase, request, status_names_target, names);
        json c{{"phase", PhaseName(phase)},
               {"request", RequestName(request)},
               {"status_names_target", status_names_target},
               {"accepted", d.accepted}};
        if (!d.accepted) c["refusal"] = d.refusal;
        answers.push_back(c);
      }
    }
  }
  EXPECT_EQ(vectors["cases"], answers)
      << "tests/vectors/migration_requests.json differs from the table; its \"cases\" should be:\n"
      << answers.dump(1);
  const size_t checked = vectors["cases"].size();
  EXPECT_EQ(checked, static_cast<size_t>(kPhaseCount) * 4 * 2);  // every phase, request, status
}

TEST(PhaseTable, PauseIsRefusedOnlyWhereTheMigrationWaitsAlready) {
  const RefusalNames names{"ns:t", "ns:t", "ns:t__g2"};
  for (Phase phase : AllPhases()) {
    EXPECT_EQ(Decide(phase, Request::kPause, false, names).accepted,
              phase != Phase::kFailedVerification)
        << PhaseName(phase);
  }
}

}  // namespace
}  // namespace presplit::daemon::migrate
