// The re-salt migration's phase table: for each phase, whether the status names the new
// generation, the phases it may move to, and which operator request it accepts (with the reason
// when it refuses one). Nothing else decides these: the Migrator moves a plan only along the
// table (MayMove) and answers requests with Decide; presplitctl answers with the same Decide
// before it writes a request; PresplitAdmin's MigrationPhases and docs/migrations.md are checked
// against tests/vectors/migration_phases.json, which the C++ test checks against this table.
//
// Shared by presplitd and presplitctl (presplit_migrate_request): plain code, no I/O.
#pragma once

#include <string>
#include <vector>

#include "daemon/migrate/migration_request.h"
#include "presplit/status.h"

namespace presplit::daemon::migrate {

// The phases, in order. A migration only moves forward along the table; failed_verification
// stops it (nothing switched) until an operator resumes (verify again) or aborts it; a rollback
// after the switch goes to rolling_back, which drops the new generation and ends the migration
// on the old one. The plan is removed at the end of done and rolling_back, and after an abort:
// "aborted" and "rolled_back" are outcomes only the table's status carries.
enum class Phase {
  kPlanned,             // plan written; the target is not created yet
  kCopying,             // target created, capture peer added; source copied chunk by chunk
  kVerifying,           // source and target compared, live, cell by cell (digests, re-reads)
  kFailedVerification,  // a difference: nothing switched, waits for a resume or an abort
  kSwitching,           // verified; the reverse peer is added, then the status names the target
  kCatchingUp,          // switched; waiting for the forward peer to ship the switch's moment
  kGrace,               // both peers run; a rollback is possible until grace_until_ms
  kFencing,             // the old generation made read-only, the forward peer drained, removed
  kDone,                // the old generation disabled (dropped when asked); plan removed
  kRollingBack,         // rolled back: the status names the old generation; the new one dropped
};
inline constexpr int kPhaseCount = 10;

const char* PhaseName(Phase phase);
Result<Phase> ParsePhase(const std::string& name);

// Whether the status names the new generation in this phase. In `switching` it does not until
// the switch's one status write; a daemon that stopped right after that write leaves the plan at
// `switching`, so a reader that must know (abort, rollback) asks the status (Decide's
// `status_names_target`).
bool IsSwitched(Phase phase);
// The same for a phase's name as the plan's JSON carries it; false for an unknown name.
bool IsSwitchedPhaseName(const std::string& phase);

// Whether a plan in phase `from` may move to `to`.
bool MayMove(Phase from, Phase to);
// The phases `from` may move to, in order.
std::vector<Phase> NextPhases(Phase from);

// How a phase answers a request.
enum class Verdict {
  kAccept,
  kRefuse,
  kAcceptIfSwitched,     // only when the status names the new generation (switching: rollback)
  kAcceptIfNotSwitched,  // only until the status names it (switching: abort)
};
const char* VerdictName(Verdict verdict);

struct RequestRule {
  Verdict verdict;
  // Why the request is refused (kRefuse, or the condition does not hold), with {table},
  // {source}, {target} and {phase} to fill in; "" for kAccept.
  const char* refusal;
};
RequestRule RuleFor(Phase phase, Request request);

// The names a refusal is written with.
struct RefusalNames {
  std::string table;
  std::string source;
  std::string target;
};

struct Decision {
  bool accepted = false;
  std::string refusal;  // "<request> refused: <why>" when not accepted
};
// The answer of a plan in `phase` to `request`. `status_names_target` is consulted only by the
// conditional verdicts (a reader that cannot tell passes what the plan's phase says).
Decision Decide(Phase phase, Request request, bool status_names_target, const RefusalNames& names);

// A refusal template filled in ({table}, {source}, {target}, {phase}).
std::string FillRefusal(const std::string& refusal, Phase phase, const RefusalNames& names);

}  // namespace presplit::daemon::migrate
