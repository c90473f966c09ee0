#include "daemon/migrate/migration_phase.h"

#include <array>

namespace presplit::daemon::migrate {
namespace {

// Why a request is refused; see RequestRule.
constexpr const char* kAbortSwitched =
    "the status already names {target}; until the grace period ends `rollback` switches back "
    "without losing a write";
constexpr const char* kAbortFinishing =
    "the status names {target} and the old generation {source} is fenced (phase {phase}): the "
    "migration can only finish";
constexpr const char* kAbortRollingBack =
    "a rollback is under way (phase {phase}): the status names {source} again and {target} is "
    "being dropped";
constexpr const char* kRollbackNotSwitched =
    "the migration of {table} has not switched (phase {phase}); abort it instead";
constexpr const char* kRollbackFenced =
    "the old generation {source} is fenced already (phase {phase}): it no longer has the writes "
    "made since the switch";
constexpr const char* kRollbackUnderWay = "a rollback is under way already (phase {phase})";
constexpr const char* kPauseWaiting =
    "the migration waits already (phase {phase}): `resume` verifies again, `abort` ends it";

constexpr RequestRule kAccept{Verdict::kAccept, ""};
constexpr RequestRule Refuse(const char* why) { return {Verdict::kRefuse, why}; }

constexpr unsigned Bit(Phase phase) { return 1u << static_cast<unsigned>(phase); }

struct PhaseRow {
  Phase phase;
  const char* name;
  bool switched;
  unsigned next;                        // Bit()s of the phases it may move to
  std::array<RequestRule, 4> requests;  // indexed by Request: pause, resume, abort, rollback
};

// The table. Pause holds a migration in any phase that has work left (even the fence or the
// drop, for an operator who wants to stop a drop_old); resume is always accepted (whether
// anything is paused is the plan's state, not its phase).
constexpr std::array<PhaseRow, kPhaseCount> kPhases = {{
    {Phase::kPlanned,
     "planned",
     false,
     Bit(Phase::kCopying),
     {kAccept, kAccept, kAccept, Refuse(kRollbackNotSwitched)}},
    {Phase::kCopying,
     "copying",
     false,
     Bit(Phase::kVerifying),
     {kAccept, kAccept, kAccept, Refuse(kRollbackNotSwitched)}},
    {Phase::kVerifying,
     "verifying",
     false,
     Bit(Phase::kFailedVerification) | Bit(Phase::kSwitching),
     {kAccept, kAccept, kAccept, Refuse(kRollbackNotSwitched)}},
    {Phase::kFailedVerification,
     "failed_verification",
     false,
     Bit(Phase::kVerifying),
     {Refuse(kPauseWaiting), kAccept, kAccept, Refuse(kRollbackNotSwitched)}},
    {Phase::kSwitching,
     "switching",
     false,
     Bit(Phase::kFailedVerification) | Bit(Phase::kCatchingUp) | Bit(Phase::kRollingBack),
     {kAccept, kAccept, RequestRule{Verdict::kAcceptIfNotSwitched, kAbortSwitched},
      RequestRule{Verdict::kAcceptIfSwitched, kRollbackNotSwitched}}},
    {Phase::kCatchingUp,
     "catching_up",
     true,
     Bit(Phase::kGrace) | Bit(Phase::kRollingBack),
     {kAccept, kAccept, Refuse(kAbortSwitched), kAccept}},
    {Phase::kGrace,
     "grace",
     true,
     Bit(Phase::kFencing) | Bit(Phase::kRollingBack),
     {kAccept, kAccept, Refuse(kAbortSwitched), kAccept}},
    {Phase::kFencing,
     "fencing",
     true,
     Bit(Phase::kDone),
     {kAccept, kAccept, Refuse(kAbortFinishing), Refuse(kRollbackFenced)}},
    {Phase::kDone,
     "done",
     true,
     0,
     {kAccept, kAccept, Refuse(kAbortFinishing), Refuse(kRollbackFenced)}},
    {Phase::kRollingBack,
     "rolling_back",
     true,
     0,
     {kAccept, kAccept, Refuse(kAbortRollingBack), Refuse(kRollbackUnderWay)}},
}};

constexpr bool RowsInOrder() {
  for (size_t i = 0; i < kPhases.size(); ++i) {
    if (static_cast<size_t>(kPhases[i].phase) != i) return false;
  }
  return true;
}
static_assert(RowsInOrder(), "kPhases must list the phases in the enum's order");

const PhaseRow& Row(Phase phase) { return kPhases[static_cast<size_t>(phase)]; }

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

const char* PhaseName(Phase phase) { return Row(phase).name; }

Result<Phase> ParsePhase(const std::string& name) {
  for (const PhaseRow& row : kPhases) {
    if (name == row.name) return row.phase;
  }
  return Status::InvalidArgument("unknown migration phase '" + name + "'");
}

bool IsSwitched(Phase phase) { return Row(phase).switched; }

bool IsSwitchedPhaseName(const std::string& phase) {
  auto parsed = ParsePhase(phase);
  return parsed.ok() && IsSwitched(*parsed);
}

bool MayMove(Phase from, Phase to) { return (Row(from).next & Bit(to)) != 0; }

std::vector<Phase> NextPhases(Phase from) {
  std::vector<Phase> out;
  for (const PhaseRow& row : kPhases) {
    if (MayMove(from, row.phase)) out.push_back(row.phase);
  }
  return out;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAccept:
      return "accept";
    case Verdict::kRefuse:
      return "refuse";
    case Verdict::kAcceptIfSwitched:
      return "accept_if_switched";
    case Verdict::kAcceptIfNotSwitched:
      return "accept_if_not_switched";
  }
  return "refuse";
}

RequestRule RuleFor(Phase phase, Request request) {
  return Row(phase).requests[static_cast<size_t>(request)];
}

std::string FillRefusal(const std::string& refusal, Phase phase, const RefusalNames& names) {
  std::string out = refusal;
  ReplaceAll(out, "{table}", names.table);
  ReplaceAll(out, "{source}", names.source);
  ReplaceAll(out, "{target}", names.target);
  ReplaceAll(out, "{phase}", PhaseName(phase));
  return out;
}

Decision Decide(Phase phase, Request request, bool status_names_target, const RefusalNames& names) {
  const RequestRule rule = RuleFor(phase, request);
  bool accepted = rule.verdict == Verdict::kAccept ||
                  (rule.verdict == Verdict::kAcceptIfSwitched && status_names_target) ||
                  (rule.verdict == Verdict::kAcceptIfNotSwitched && !status_names_target);
  Decision out;
  out.accepted = accepted;
  if (!accepted) {
    out.refusal =
        std::string(RequestName(request)) + " refused: " + FillRefusal(rule.refusal, phase, names);
  }
  return out;
}

}  // namespace presplit::daemon::migrate
