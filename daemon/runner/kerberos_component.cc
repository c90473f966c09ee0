#include "daemon/runner/kerberos_component.h"

#include <spdlog/spdlog.h>

#include "daemon/hbase/kerberos_login.h"
#include "daemon/util/utc_time.h"

namespace presplit::daemon {

KerberosComponent::KerberosComponent(const DaemonContext& context, std::function<void()> logged_in)
    : context_(context), logged_in_(std::move(logged_in)) {
  if (context_.kerberos == nullptr) return;
  worker_ = std::make_unique<PeriodicWorker>("kerberos", KerberosLoginState::kRetryAfterFailure,
                                             [this](bool /*scheduled*/) { LoginOrRenew(); });
}

Status KerberosComponent::Start() {
  if (worker_ != nullptr) worker_->Start();
  return Status::Ok();
}

void KerberosComponent::Stop() {
  if (worker_ != nullptr) worker_->Stop();
}

void KerberosComponent::LoginOrRenew() {
  KerberosLoginState& kerberos = *context_.kerberos;
  const DaemonOptions& options = context_.options;
  try {
    const bool first = !kerberos.logged_in();
    auto ticket = first ? KerberosLoginFromKeytab(context_.jvm, options.kerberos_principal,
                                                  options.kerberos_keytab, context_.hbase_settings)
                        : KerberosCheckAndRelogin(context_.jvm);
    if (ticket.ok()) {
      const uint64_t logins = kerberos.logins();
      kerberos.Succeeded(*ticket);
      if (first) {
        spdlog::info("Kerberos: logged in as {} from keytab {} (ticket valid until {})",
                     ticket->principal, options.kerberos_keytab, UtcFromMillis(ticket->end_ms));
        if (logged_in_) logged_in_();
      } else if (kerberos.logins() != logins) {
        spdlog::info("Kerberos: new ticket for {} from the keytab (valid until {})",
                     ticket->principal, UtcFromMillis(ticket->end_ms));
      }
    } else {
      kerberos.Failed(ticket.status().message());
      spdlog::error("{}; presplitd answers 503 on /healthz and tries again in {} s",
                    ticket.status().message(), KerberosLoginState::kRetryAfterFailure.count());
    }
  } catch (const std::exception& e) {
    exceptions_caught_++;
    kerberos.Failed(std::string("Kerberos login threw: ") + e.what());
    spdlog::error("Kerberos login threw, retrying later: {}", e.what());
  }
  worker_->SetInterval(kerberos.NextCheck(WallMs()));
}

std::string KerberosComponent::Problem() const {
  return context_.kerberos == nullptr ? "" : context_.kerberos->Problem(WallMs());
}

void KerberosComponent::AppendMetrics(metrics::MetricsText& out) const {
  using metrics::Metric;
  const KerberosLoginState* kerberos = context_.kerberos;
  out.Value(Metric::presplit_kerberos_logins_total, kerberos ? kerberos->logins() : 0);
  out.Value(Metric::presplit_kerberos_login_failures_total, kerberos ? kerberos->failures() : 0);
  out.Value(Metric::presplit_kerberos_ticket_end_seconds,
            kerberos ? kerberos->ticket_end_ms() / 1000 : int64_t{0});
}

}  // namespace presplit::daemon
