// The daemon's Kerberos login, as plain code: the ticket the embedded JVM reports
// (io.presplit.hbase.admin.KerberosLogin's JSON) and the bookkeeping around it that /healthz,
// /metrics and the renewal worker read. The JVM calls are in kerberos_login.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "daemon/util/utc_time.h"  // UtcFromMillis, for the ticket's times
#include "presplit/status.h"

namespace presplit::daemon {

// The login user's ticket-granting ticket. Times are milliseconds since the epoch.
struct KerberosTicket {
  std::string principal;  // as logged in ("_HOST" resolved)
  int64_t start_ms = 0;
  int64_t end_ms = 0;      // 0: no ticket found
  int64_t refresh_ms = 0;  // 80 % of the lifetime: from then on a check logs in again
  int64_t now_ms = 0;      // the JVM's clock when it answered
  bool relogged = false;   // this check obtained a new ticket
};

// Parses KerberosLogin's JSON; InvalidArgument when it is not that.
Result<KerberosTicket> ParseKerberosTicket(const std::string& json);

// Thread-safe: the renewal worker writes, /healthz and /metrics read.
class KerberosLoginState {
 public:
  // How long after a failed login or renewal the worker tries again.
  static constexpr std::chrono::seconds kRetryAfterFailure{30};
  // The longest wait between two checks (a check that is not due asks no KDC).
  static constexpr std::chrono::seconds kMaxCheckInterval{60};

  KerberosLoginState(std::string principal, std::string keytab);

  // A login or check that succeeded. A ticket unlike the last one counts as a login: the first,
  // each renewal, and one HBase's client renewed by itself.
  void Succeeded(const KerberosTicket& ticket);
  // A login or check that failed; `message` names the principal, the keytab and the reason.
  void Failed(const std::string& message);

  // A login has succeeded since the daemon started (the HBase connections may be opened).
  bool logged_in() const;
  // Why the login is a problem, "" when the last attempt succeeded: the failure's message and
  // what is left of the current ticket; before the first attempt, that it is under way.
  std::string Problem(int64_t now_ms) const;
  // When the worker should look again: just after the refresh time (at most kMaxCheckInterval
  // ahead, at least a second), or kRetryAfterFailure after a failure.
  std::chrono::milliseconds NextCheck(int64_t now_ms) const;

  uint64_t logins() const;
  uint64_t failures() const;
  int64_t ticket_end_ms() const;  // 0 before a login
  const std::string& principal() const { return principal_; }
  const std::string& keytab() const { return keytab_; }

 private:
  const std::string principal_;
  const std::string keytab_;
  mutable std::mutex mu_;
  bool attempted_ = false;
  bool logged_in_ = false;
  std::string failure_;  // the last attempt's, "" when it succeeded
  KerberosTicket ticket_;
  uint64_t logins_ = 0;
  uint64_t failures_ = 0;
};

}  // namespace presplit::daemon
