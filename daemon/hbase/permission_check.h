// The start-time permission check: which of the HBase permissions presplitd needs its principal
// holds (AdminBridge.checkPermissions asks HBase, see java-shim's PermissionCheck), kept for
// /status, /healthz and /metrics, and logged once per missing permission.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "presplit/status.h"

namespace presplit::daemon {

struct MissingPermission {
  std::string permission;  // "CREATE", "ADMIN"
  std::string scope;       // "GLOBAL", "@ns" or "ns:t"
  std::string for_what;    // what presplitd needs it for
  std::string grant;       // the hbase shell command that grants it
};

struct PermissionReport {
  bool authorization = false;  // false: HBase runs without the AccessController
  std::string principal;
  int checked = 0;         // permissions asked about
  int create_checked = 0;  // of which CREATE on a namespace
  std::vector<MissingPermission> missing;
};

// AdminBridge.checkPermissions's JSON.
Result<PermissionReport> ParsePermissionReport(const std::string& json);

// The WARN line for one missing permission.
std::string MissingPermissionLine(const std::string& principal, const MissingPermission& m);

// The last check; thread-safe (the reconcile worker writes, the HTTP handlers read).
class PermissionState {
 public:
  // Keeps the report; returns the lines of the missing permissions not reported before (each is
  // logged once, until a check finds it held).
  std::vector<std::string> Record(PermissionReport report, int64_t now_ms);
  void Failed(const std::string& error, int64_t now_ms);

  // The "permissions" object of /status.
  nlohmann::ordered_json Json() const;
  // Why presplitd cannot work at all ("" otherwise): CREATE held on none of the namespaces it
  // manages. Anything less is degraded, not down: those documents' statuses say why.
  std::string Problem() const;
  // presplit_permissions_missing.
  uint64_t missing() const;
  // Whether the next full pass should check again: never checked, the check failed, or
  // something was missing (a grant since clears it).
  bool NeedsRecheck() const;

 private:
  mutable std::mutex mu_;
  bool checked_ = false;
  int64_t checked_at_ms_ = 0;
  std::string error_;
  PermissionReport report_;
  std::set<std::string> logged_;
};

}  // namespace presplit::daemon
