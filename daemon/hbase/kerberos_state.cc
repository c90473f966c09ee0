#include "daemon/hbase/kerberos_state.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>

namespace presplit::daemon {

Result<KerberosTicket> ParseKerberosTicket(const std::string& json) {
  try {
    const auto j = nlohmann::json::parse(json);
    KerberosTicket t;
    t.principal = j.at("principal").get<std::string>();
    t.start_ms = j.at("start_ms").get<int64_t>();
    t.end_ms = j.at("end_ms").get<int64_t>();
    t.refresh_ms = j.at("refresh_ms").get<int64_t>();
    t.now_ms = j.at("now_ms").get<int64_t>();
    t.relogged = j.at("relogged").get<bool>();
    return t;
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("KerberosLogin answered no ticket: ") + e.what());
  }
}

KerberosLoginState::KerberosLoginState(std::string principal, std::string keytab)
    : principal_(std::move(principal)), keytab_(std::move(keytab)) {}

void KerberosLoginState::Succeeded(const KerberosTicket& ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool new_ticket = !logged_in_ || ticket.relogged || ticket.end_ms != ticket_.end_ms ||
                          ticket.start_ms != ticket_.start_ms;
  if (new_ticket) ++logins_;
  attempted_ = true;
  logged_in_ = true;
  failure_.clear();
  ticket_ = ticket;
}

void KerberosLoginState::Failed(const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  attempted_ = true;
  ++failures_;
  failure_ = message.empty() ? "Kerberos login as " + principal_ + " from keytab " + keytab_ +
                                   " failed (no reason given)"
                             : message;
}

bool KerberosLoginState::logged_in() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logged_in_;
}

std::string KerberosLoginState::Problem(int64_t now_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!attempted_) {
    return "Kerberos: logging in as " + principal_ + " from keytab " + keytab_;
  }
  if (failure_.empty()) return "";
  if (!logged_in_ || ticket_.end_ms == 0) return failure_ + " (no ticket)";
  if (ticket_.end_ms <= now_ms) {
    return failure_ + " (the last ticket expired at " + UtcFromMillis(ticket_.end_ms) + ")";
  }
  return failure_ + " (the current ticket is valid until " + UtcFromMillis(ticket_.end_ms) + ")";
}

std::chrono::milliseconds KerberosLoginState::NextCheck(int64_t now_ms) const {
  using std::chrono::milliseconds;
  std::lock_guard<std::mutex> lock(mu_);
  const milliseconds longest = kMaxCheckInterval;
  if (!failure_.empty() || !logged_in_) return kRetryAfterFailure;
  // Past the refresh time without a new ticket (Hadoop waits 60 s between two logins): soon.
  milliseconds wait = ticket_.refresh_ms > now_ms ? milliseconds(ticket_.refresh_ms - now_ms + 1000)
                                                  : milliseconds(5000);
  return std::clamp(wait, milliseconds(1000), longest);
}

uint64_t KerberosLoginState::logins() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logins_;
}

uint64_t KerberosLoginState::failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

int64_t KerberosLoginState::ticket_end_ms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return logged_in_ ? ticket_.end_ms : 0;
}

}  // namespace presplit::daemon
