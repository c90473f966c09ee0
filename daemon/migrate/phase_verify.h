// Phase "verifying": source and target compared cell by cell, while writers keep writing to the
// source and the capture peer keeps shipping, in the manner of Vitess's VDiff:
//   1. digests of every source region's rows, per partition (a hash of the logical key), and one
//      pass over the target attributing its rows to the same regions and partitions; the two run
//      at the same time. Equal partitions are done: they hold the same cells (same families,
//      qualifiers, timestamps, values, tags, under the same delete and TTL semantics: live cells
//      of every version the families keep).
//   2. the partitions that differ are compared row by row, after the peer has shipped past the
//      moment of the digests (a probe acknowledged), which names the rows that differ;
//   3. each such row is read again in the source, then, once the peer has shipped past that
//      read, in the target; rows that still differ after verify_rounds such re-reads count,
//      unless their source row changed between two re-reads (a counter, a status row: written
//      all the time, they can never compare equal read at two moments): those are compared once
//      more at the switch, with writes paused, when neither side changes (phase_switch.cc).
// A row that differs is a broken copy (or a write the WAL did not carry and the guard did not
// refuse): nothing switches, the report names the first rows and their cells. A bulk load the
// capture noticed stops the verification before it compares anything (StopForBulkLoads).
// The report is kept in the plan znode, so its size does not grow with the table: totals, counts,
// and only the first few differing regions and rows (kReportRegions, kReportRows), each row's
// description cut at kReportRowBytes. A table of thousands of regions would otherwise push the
// plan past ZooKeeper's 1 MiB.
#pragma once

#include "daemon/migrate/phase_context.h"

namespace presplit::daemon::migrate {

class VerifyPhase {
 public:
  explicit VerifyPhase(PhaseContext& context) : ctx_(context) {}

  // Phase "verifying": the whole comparison, under the adaptive throttle; switching next, or
  // failed_verification with the report.
  Step Verify(PlanNode& node);

 private:
  PhaseContext& ctx_;
};

}  // namespace presplit::daemon::migrate
