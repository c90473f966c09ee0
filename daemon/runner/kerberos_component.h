// The Kerberos login from the keytab: the first one, then a look at the ticket when 80 % of its
// lifetime has passed (a new login then), on a thread of its own attached to the JVM, so that a
// slow KDC holds up neither startup nor the HBase calls. A failure is logged, counted, reported
// on /healthz (503) and tried again every 30 s; presplitd keeps running. Without a principal it
// does nothing and reports zeros.
#pragma once

#include <functional>
#include <memory>

#include "daemon/runner/component.h"
#include "daemon/runner/daemon_context.h"
#include "daemon/util/periodic_worker.h"

namespace presplit::daemon {

class KerberosComponent final : public Component {
 public:
  // `logged_in`: called on the login worker after the first login (the passes waited for it).
  KerberosComponent(const DaemonContext& context, std::function<void()> logged_in);

  std::string_view name() const override { return "kerberos"; }
  Status Start() override;
  void Stop() override;
  std::string Problem() const override;
  void AppendMetrics(metrics::MetricsText& out) const override;
  uint64_t exceptions_caught() const override { return exceptions_caught_; }

 private:
  void LoginOrRenew();

  const DaemonContext& context_;
  const std::function<void()> logged_in_;
  std::unique_ptr<PeriodicWorker> worker_;  // null without Kerberos
  std::atomic<uint64_t> exceptions_caught_{0};
};

}  // namespace presplit::daemon
