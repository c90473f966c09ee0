// A minimal HTTP/1.0 endpoint on the daemon's Asio loop for /healthz and /metrics. It serves
// GET only, one small response per connection: enough for systemd watchdogs, load balancers and
// Prometheus scrapes, nothing more.
#pragma once

#include <boost/asio.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "presplit/status.h"

namespace presplit::daemon {

struct HttpResponse {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse()>;

class HttpEndpoint {
 public:
  explicit HttpEndpoint(boost::asio::io_context& io) : io_(io), acceptor_(io) {}

  void Handle(const std::string& path, HttpHandler handler) {
    handlers_[path] = std::move(handler);
  }

  // Binds "host:port" (port 0 picks a free one) and starts accepting.
  Status Listen(const std::string& host_port);
  int port() const;
  void Close();

 private:
  void Accept();
  void Serve(std::shared_ptr<boost::asio::ip::tcp::socket> socket);

  boost::asio::io_context& io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::map<std::string, HttpHandler> handlers_;
};

}  // namespace presplit::daemon
