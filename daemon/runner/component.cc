#include "daemon/runner/component.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon {

Status ComponentSet::Start() {
  for (; started_ < components_.size(); ++started_) {
    Component& component = *components_[started_];
    Status started = component.Start();
    if (!started.ok()) {
      spdlog::error("{}: cannot start: {}", component.name(), started.ToString());
      Stop();
      return started.WithContext(std::string(component.name()));
    }
  }
  return Status::Ok();
}

void ComponentSet::Stop() {
  while (started_ > 0) {
    Component& component = *components_[--started_];
    spdlog::debug("stopping {}", component.name());
    component.Stop();
  }
}

std::string ComponentSet::Problem() const {
  for (const Component* component : components_) {
    std::string problem = component->Problem();
    if (!problem.empty()) return problem;
  }
  return "";
}

void ComponentSet::AppendMetrics(metrics::MetricsText& out) const {
  for (const Component* component : components_) component->AppendMetrics(out);
}

void ComponentSet::AppendStatus(nlohmann::ordered_json& status) const {
  for (const Component* component : components_) component->AppendStatus(status);
}

uint64_t ComponentSet::exceptions_caught() const {
  uint64_t total = 0;
  for (const Component* component : components_) total += component->exceptions_caught();
  return total;
}

std::string ComponentSet::Names() const {
  std::string names;
  for (const Component* component : components_) {
    names += (names.empty() ? "" : ", ") + std::string(component->name());
  }
  return names;
}

}  // namespace presplit::daemon
