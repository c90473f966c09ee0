#include "daemon/http/http_endpoint.h"

#include <spdlog/spdlog.h>

namespace presplit::daemon {

namespace asio = boost::asio;
using asio::ip::tcp;

Status HttpEndpoint::Listen(const std::string& host_port) {
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("http_listen: expected host:port, got '" + host_port + "'");
  }
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host_port.substr(0, colon), ec);
  if (ec) return Status::InvalidArgument("http_listen: bad address in '" + host_port + "'");
  int port = 0;
  try {
    port = std::stoi(host_port.substr(colon + 1));
  } catch (const std::exception&) {
    return Status::InvalidArgument("http_listen: bad port in '" + host_port + "'");
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::Unavailable("http_listen " + host_port + ": " + ec.message());
  Accept();
  return Status::Ok();
}

int HttpEndpoint::port() const {
  boost::system::error_code ec;
  auto endpoint = acceptor_.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

void HttpEndpoint::Close() {
  boost::system::error_code ec;
  acceptor_.close(ec);
}

void HttpEndpoint::Accept() {
  auto socket = std::make_shared<tcp::socket>(io_);
  acceptor_.async_accept(*socket, [this, socket](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) Serve(socket);
    Accept();
  });
}

void HttpEndpoint::Serve(std::shared_ptr<tcp::socket> socket) {
  auto request = std::make_shared<asio::streambuf>(8192);
  asio::async_read_until(
      *socket, *request, "\r\n",
      [this, socket, request](const boost::system::error_code& ec, size_t) {
        if (ec) return;
        std::istream in(request.get());
        std::string method, target;
        in >> method >> target;
        HttpResponse response;
        auto it = handlers_.find(target.substr(0, target.find('?')));
        if (method != "GET") {
          response = {405, "text/plain", "only GET is served\n"};
        } else if (it == handlers_.end()) {
          response = {404, "text/plain", "not found; try /healthz or /metrics\n"};
        } else {
          response = it->second();
        }
        const char* reason = response.code == 200   ? "OK"
                             : response.code == 404 ? "Not Found"
                             : response.code == 405 ? "Method Not Allowed"
                                                    : "Service Unavailable";
        auto out = std::make_shared<std::string>(
            "HTTP/1.0 " + std::to_string(response.code) + " " + reason + "\r\nContent-Type: " +
            response.content_type + "\r\nContent-Length: " + std::to_string(response.body.size()) +
            "\r\nConnection: close\r\n\r\n" + response.body);
        asio::async_write(*socket, asio::buffer(*out),
                          [socket, out](const boost::system::error_code&, size_t) {
                            boost::system::error_code ignored;
                            socket->shutdown(tcp::socket::shutdown_both, ignored);
                          });
      });
}

}  // namespace presplit::daemon
