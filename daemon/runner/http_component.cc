#include "daemon/runner/http_component.h"

#include <spdlog/spdlog.h>

#include "daemon/web/keyviz_page.h"
#include "daemon/web/status_page.h"

namespace presplit::daemon {

HttpComponent::HttpComponent(const DaemonContext& context, Links links)
    : context_(context), links_(std::move(links)), http_(context.io) {}

std::string HttpComponent::UnhealthyReason() const {
  if (links_.zk_connected != nullptr && !*links_.zk_connected) {
    return "not connected to ZooKeeper " + context_.options.zk_quorum;
  }
  return links_.components->Problem();
}

Status HttpComponent::Start() {
  const std::string& listen = context_.options.http_listen;
  if (listen.empty()) return Status::Ok();
  http_.Handle("/healthz", [this]() -> HttpResponse {
    std::string reason = UnhealthyReason();
    if (reason.empty()) return {200, "text/plain", "ok\n"};
    return {503, "text/plain", reason + "\n"};
  });
  http_.Handle("/", []() -> HttpResponse {
    return {200, "text/html; charset=utf-8", std::string(web::StatusPageHtml())};
  });
  http_.Handle("/keyviz", []() -> HttpResponse {
    return {200, "text/html; charset=utf-8", std::string(web::KeyvizPageHtml())};
  });
  // Off the loop: a big table's matrix takes up to about a hundred milliseconds to build, which
  // /healthz and /metrics must not wait for.
  http_.HandleOffLoop("/keyviz.json", [this](const HttpRequest& request) -> HttpResponse {
    auto reply = keyviz::ServeKeyvizJson(request.query, links_.read_history, links_.history_tables,
                                         WallMs());
    return {reply.code, "application/json", std::move(reply.body)};
  });
  http_.Handle("/status", [this] { return StatusResponse(); });
  http_.Handle("/metrics", [this] { return MetricsResponse(); });
  PRESPLIT_RETURN_IF_ERROR(http_.Listen(listen));
  spdlog::info("serving /, /status, /keyviz, /keyviz.json, /healthz and /metrics on {}:{}",
               listen.substr(0, listen.rfind(':')), http_.port());
  return Status::Ok();
}

void HttpComponent::Stop() { http_.Close(); }

HttpResponse HttpComponent::StatusResponse() const {
  nlohmann::ordered_json status;
  status["daemon"]["id"] = context_.daemon_id;
  status["daemon"]["leader"] = context_.election.IsLeader();
  status["daemon"]["zk_root"] = context_.options.zk_root;
  links_.components->AppendStatus(status);
  return {200, "application/json",
          status.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n"};
}

HttpResponse HttpComponent::MetricsResponse() const {
  using metrics::Metric;
  metrics::MetricsText out;
  out.Value(Metric::presplit_leader, context_.election.IsLeader() ? 1 : 0);
  out.Value(Metric::presplit_healthy, UnhealthyReason().empty() ? 1 : 0);
  out.Value(Metric::presplit_exceptions_caught_total,
            links_.components->exceptions_caught() +
                (links_.loop_exceptions != nullptr ? links_.loop_exceptions->load() : 0));
  links_.components->AppendMetrics(out);
  return {200, "text/plain; version=0.0.4", out.Text()};
}

}  // namespace presplit::daemon
