// The parts presplitd is made of (the reconciler, the migrations, the load watcher, the Kerberos
// login, the HTTP endpoint) as components with one lifecycle: a ComponentSet starts them in the
// order they were added and stops them in the reverse one, so that what a component uses is
// started before it and stopped after it. Each contributes its reason to be unhealthy, its
// metrics and its part of /status; the set asks them in the same order. Plain code: the order
// and the contributions are unit-tested with fakes (tests/daemon/runner/component_test.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/metrics/metrics_text.h"
#include "presplit/status.h"

namespace presplit::daemon {

class Component {
 public:
  virtual ~Component() = default;

  // A short name for the log ("reconcile", "migrate"...).
  virtual std::string_view name() const = 0;

  // Starts the component's threads or sockets. An error leaves nothing of it running; the set
  // then stops the components started before it.
  virtual Status Start() { return Status::Ok(); }

  // Stops what Start started and waits for it. Called once, after the components started after
  // this one have stopped; never for a component whose Start failed.
  virtual void Stop() {}

  // Why this component makes the daemon unhealthy (/healthz answers 503 with it), or "".
  virtual std::string Problem() const { return ""; }

  // Its series for /metrics (metrics.def declares every one).
  virtual void AppendMetrics(metrics::MetricsText& /*out*/) const {}

  // Its keys of /status's JSON object.
  virtual void AppendStatus(nlohmann::ordered_json& /*status*/) const {}

  // Exceptions its tasks caught and logged since the start (they go on after one).
  virtual uint64_t exceptions_caught() const { return 0; }
};

// Components in their start order. Not thread-safe for Add/Start/Stop (the daemon's main thread
// calls them); Problem, AppendMetrics and AppendStatus only read, from any thread, once started.
class ComponentSet {
 public:
  // Appends a component; the set does not own it, and it must outlive the set's Stop.
  void Add(Component& component) { components_.push_back(&component); }

  // Starts each in order. On the first error, the ones already started are stopped in reverse
  // order and the error is returned, naming the component.
  Status Start();

  // Stops the started ones in reverse order. A second call does nothing.
  void Stop();

  // The first component's problem, in start order, or "".
  std::string Problem() const;

  void AppendMetrics(metrics::MetricsText& out) const;
  void AppendStatus(nlohmann::ordered_json& status) const;
  uint64_t exceptions_caught() const;

  // The names in start order ("http, kerberos, reconcile, ..."), for the log.
  std::string Names() const;

 private:
  std::vector<Component*> components_;
  size_t started_ = 0;  // components_[0, started_) are running
};

}  // namespace presplit::daemon
