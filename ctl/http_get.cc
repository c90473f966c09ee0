#include "ctl/http_get.h"

#include <boost/asio.hpp>

namespace presplit::ctl {

namespace asio = boost::asio;

Result<std::string> HttpGet(const std::string& host_port, const std::string& path,
                            std::chrono::milliseconds timeout) {
  auto reply = HttpGetAny(host_port, path, timeout);
  if (!reply.ok()) return reply.status();
  if (reply->code != 200) {
    return Status::Unavailable("http://" + host_port + path + ": " + reply->status_line);
  }
  return std::move(reply->body);
}

Result<HttpReply> HttpGetAny(const std::string& host_port, const std::string& path,
                             std::chrono::milliseconds timeout) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size()) {
    return Status::InvalidArgument("expected HOST:PORT, got '" + host_port + "'");
  }
  const std::string host = host_port.substr(0, colon), port = host_port.substr(colon + 1);
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  asio::ip::tcp::resolver resolver(io);
  boost::system::error_code failure;
  std::string response;
  asio::streambuf buffer;
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: " + host + "\r\n\r\n";

  // Asynchronous steps on one io_context, so one deadline bounds them all.
  resolver.async_resolve(host, port, [&](auto ec, auto endpoints) {
    if (ec) return void(failure = ec);
    asio::async_connect(socket, endpoints, [&](auto ec, auto) {
      if (ec) return void(failure = ec);
      asio::async_write(socket, asio::buffer(request), [&](auto ec, size_t) {
        if (ec) return void(failure = ec);
        asio::async_read(socket, buffer, [&](auto ec, size_t) {
          if (ec && ec != asio::error::eof) failure = ec;
        });
      });
    });
  });
  io.run_for(timeout);
  if (!io.stopped()) {
    return Status::Unavailable("http://" + host_port + path + ": no answer within " +
                               std::to_string(timeout.count()) + " ms");
  }
  if (failure) return Status::Unavailable("http://" + host_port + path + ": " + failure.message());
  response.assign(asio::buffers_begin(buffer.data()), asio::buffers_end(buffer.data()));
  const size_t line_end = response.find("\r\n");
  const std::string status_line = response.substr(0, line_end);
  const size_t body = response.find("\r\n\r\n");
  if (status_line.rfind("HTTP/", 0) != 0 || body == std::string::npos) {
    return Status::Unavailable("http://" + host_port + path + ": not an HTTP response");
  }
  // "HTTP/1.0 200 OK": the code after the first space.
  const size_t space = status_line.find(' ');
  int code = 0;
  if (space != std::string::npos && space + 4 <= status_line.size()) {
    for (size_t i = space + 1; i < space + 4; ++i) {
      const char c = status_line[i];
      code = c >= '0' && c <= '9' ? code * 10 + (c - '0') : -1000;
    }
  }
  if (code < 100) {
    return Status::Unavailable("http://" + host_port + path + ": not an HTTP response");
  }
  return HttpReply{code, status_line, response.substr(body + 4)};
}

}  // namespace presplit::ctl
