// The HTTP endpoint on the daemon's loop: the status page (/), /status, the key visualizer
// (/keyviz, /keyviz.json), /healthz and /metrics. /healthz, /status and /metrics are made of what
// every component contributes (ComponentSet), after the daemon's own parts: the ZooKeeper
// connection, its id and role, the exceptions caught. Listens on Start (an address in use fails
// the start before any worker runs); nothing without http_listen.
#pragma once

#include <atomic>
#include <string>

#include "daemon/http/http_endpoint.h"
#include "daemon/keyviz/keyviz_query.h"
#include "daemon/runner/component.h"
#include "daemon/runner/daemon_context.h"

namespace presplit::daemon {

class HttpComponent final : public Component {
 public:
  struct Links {
    const ComponentSet* components = nullptr;  // the others, for /healthz, /status, /metrics
    keyviz::HistoryReader read_history;
    keyviz::TableLister history_tables;
    const std::atomic<bool>* zk_connected = nullptr;
    // Exceptions the event loop caught (outside any component's task).
    const std::atomic<uint64_t>* loop_exceptions = nullptr;
  };

  HttpComponent(const DaemonContext& context, Links links);

  std::string_view name() const override { return "http"; }
  Status Start() override;
  // Closes the listening socket; a second call does nothing (the daemon closes it as soon as a
  // stop begins, the ComponentSet again in its turn).
  void Stop() override;

  // Why the daemon is unhealthy, or "": ZooKeeper first, then each component in order.
  std::string UnhealthyReason() const;

 private:
  HttpResponse StatusResponse() const;
  HttpResponse MetricsResponse() const;

  const DaemonContext& context_;
  const Links links_;
  HttpEndpoint http_;
};

}  // namespace presplit::daemon
