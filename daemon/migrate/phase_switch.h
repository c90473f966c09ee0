// Phases "switching" and "catching_up". The switch moves readers and writers to the target only
// once the target has every write the source took, with writers paused for a bounded time:
//   1. the reverse capture peer (new generation -> old) is added, so that every write made to the
//      new generation from the switch on is also in the old one (a rollback loses nothing); the
//      old generation's grants and quotas are copied again;
//   2. the pause: the status says writes are paused until now + max_write_pause_ms (the SDK holds
//      its writes), and the source is made read-only (a raw client's write is refused, loudly);
//      the read-only change reopens every region, whose close is its last WAL entry;
//   3. the drain: once the forward peer has shipped every region's close, every write the source
//      took is in the target; the rows the verification deferred (they kept changing) are
//      compared now, when neither side changes;
//   4. ONE status write names the target (and ends the pause); the source is made writable again
//      (the reverse peer writes into it during the grace period, and a late raw writer's write
//      still reaches the target through the forward peer).
// A drain that does not finish within the pause abandons the attempt: the source writable again,
// the pause lifted, the switch tried again options.switch_retry later, as Vitess's SwitchTraffic
// does. A deferred row that still differs is a broken copy: failed_verification, nothing switched.
// "catching_up" then writes one more probe into the source and waits for it, which is immediate
// after a drain; it is kept for plans that switched before the pause existed. A bulk load the
// capture noticed (one that got past the MigrationGuard) stops the switch before its status
// write, or pauses the migration after it (PlanRecord::StopForBulkLoads).
#pragma once

#include <string>

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class SwitchPhase {
 public:
  explicit SwitchPhase(PhaseContext& context) : ctx_(context) {}

  // Phase "switching": one attempt (or the end of one a stopped daemon left under way).
  Step Switch(PlanNode& node);
  // Phase "catching_up": one probe shipped, then the grace period.
  Step CatchUp(PlanNode& node);

 private:
  // The write pause under way (plan.writes_paused_until_ms set, the status saying so, the source
  // read-only): drained in time, the status names the target; not, AbandonSwitch.
  Step SwitchDuringPause(PlanNode& node);
  // Ends a pause without switching: the source writable again, the status without the pause,
  // the next attempt no sooner than options.switch_retry from now; `why` is logged and kept in
  // `error`.
  Step AbandonSwitch(PlanNode& node, const std::string& why);
  // Ends the pause of a switch that happened (the status names the target): the source writable
  // again (the reverse peer and late writers write to it during the grace period).
  Step EndSwitchPause(PlanNode& node);

  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
