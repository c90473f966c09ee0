#include "daemon/http/http_endpoint.h"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

namespace presplit::daemon {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> Decode(std::string_view text, const std::string& what) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      const bool complete = i + 2 < text.size();
      const int high = complete ? HexDigit(text[i + 1]) : -1;
      const int low = complete ? HexDigit(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return Status::InvalidArgument(what + " has a % not followed by two hex digits");
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

const char* Reason(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    default:
      return "Service Unavailable";
  }
}

}  // namespace

Result<std::map<std::string, std::string>> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  size_t count = 0;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;  // "a=1&&b=2"
    if (++count > kMaxQueryParameters) {
      return Status::InvalidArgument("more than " + std::to_string(kMaxQueryParameters) +
                                     " query parameters");
    }
    const size_t eq = pair.find('=');
    auto name = Decode(pair.substr(0, eq), "a parameter's name");
    if (!name.ok()) return name.status();
    if (name->empty()) return Status::InvalidArgument("a query parameter has no name");
    if (name->size() > kMaxQueryNameLength) {
      return Status::InvalidArgument("a query parameter's name is longer than " +
                                     std::to_string(kMaxQueryNameLength) + " bytes");
    }
    auto value = Decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                        "parameter " + *name);
    if (!value.ok()) return value.status();
    if (value->size() > kMaxQueryValueLength) {
      return Status::InvalidArgument("parameter " + *name + " is longer than " +
                                     std::to_string(kMaxQueryValueLength) + " bytes");
    }
    if (!out.emplace(*name, std::move(value).value()).second) {
      return Status::InvalidArgument("parameter " + *name + " is given twice");
    }
  }
  return out;
}

HttpResponse JsonError(int code, const std::string& message) {
  nlohmann::json body;
  body["error"] = message;
  return {code, "application/json",
          body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"};
}

HttpResponse HttpEndpoint::Respond(const std::string& method, const std::string& target) const {
  const size_t question = target.find('?');
  HttpRequest request;
  request.path = target.substr(0, question);
  auto it = handlers_.find(request.path);
  if (method != "GET") return {405, "text/plain", "only GET is served\n"};
  if (it == handlers_.end()) return {404, "text/plain", "not found; try /healthz or /metrics\n"};
  if (question != std::string::npos && query_paths_.count(request.path) > 0) {
    auto query = ParseQuery(std::string_view(target).substr(question + 1));
    if (!query.ok()) return JsonError(400, query.status().message());
    request.query = std::move(query).value();
  }
  return it->second(request);
}

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
  accept_pause_.cancel();
}

// One accepted connection: its socket, its request buffer and the timer that ends it at the
// deadline. It leaves the open count when the last handler holding it lets go.
struct HttpEndpoint::Connection {
  Connection(asio::io_context& io, std::shared_ptr<Counters> counters)
      : socket(io), deadline(io), request(8192), counters(std::move(counters)) {}
  ~Connection() { counters->AddOpen(-1); }

  void End() {
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
    deadline.cancel();
  }

  tcp::socket socket;
  asio::steady_timer deadline;
  asio::streambuf request;
  std::shared_ptr<Counters> counters;
};

bool HttpEndpoint::WaitForOpenConnections(size_t count, std::chrono::milliseconds limit) const {
  std::unique_lock<std::mutex> lock(counters_->mu);
  return counters_->changed.wait_for(lock, limit, [&] { return counters_->open.load() == count; });
}

void HttpEndpoint::Accept() {
  auto socket = std::make_shared<tcp::socket>(io_);
  acceptor_.async_accept(*socket, [this, socket](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // EMFILE and its kind fail again at once: pause rather than spin on the loop.
      spdlog::warn("http: accept failed ({}); accepting again in {} ms", ec.message(),
                   limits_.accept_retry_pause.count());
      accept_pause_.expires_after(limits_.accept_retry_pause);
      accept_pause_.async_wait([this](const boost::system::error_code& wait_ec) {
        if (!wait_ec) Accept();
      });
      return;
    }
    if (counters_->open.load() >= limits_.max_connections) {
      const uint64_t refused = counters_->refused.fetch_add(1) + 1;
      if (refused == 1 || refused % 1000 == 0) {
        spdlog::warn("http: {} connections open, the most allowed; closed a new one ({} so far)",
                     limits_.max_connections, refused);
      }
      boost::system::error_code ignored;
      socket->close(ignored);
    } else {
      counters_->AddOpen(1);
      auto connection = std::make_shared<Connection>(io_, counters_);
      connection->socket = std::move(*socket);
      Serve(connection);
    }
    Accept();
  });
}

void HttpEndpoint::HandleOffLoop(const std::string& path, HttpRequestHandler handler) {
  Handle(path, std::move(handler));
  off_loop_paths_.insert(path);
  if (!worker_) worker_ = std::make_unique<asio::thread_pool>(1);
}

HttpResponse HttpEndpoint::RespondOrError(const std::string& method,
                                          const std::string& target) const {
  try {
    return Respond(method, target);
  } catch (const std::exception& e) {
    spdlog::error("http: GET {} threw: {}", target.substr(0, target.find('?')), e.what());
    return JsonError(500, "the handler failed; see the daemon's log");
  }
}

void HttpEndpoint::Write(std::shared_ptr<Connection> connection, const HttpResponse& response) {
  const char* reason = Reason(response.code);
  auto out =
      std::make_shared<std::string>("HTTP/1.0 " + std::to_string(response.code) + " " + reason +
                                    "\r\nContent-Type: " + response.content_type +
                                    "\r\nContent-Length: " + std::to_string(response.body.size()) +
                                    "\r\nConnection: close\r\n\r\n" + response.body);
  asio::async_write(
      connection->socket, asio::buffer(*out),
      [connection, out](const boost::system::error_code&, size_t) { connection->End(); });
}

void HttpEndpoint::Serve(std::shared_ptr<Connection> connection) {
  // The timer holds the connection only weakly: a connection that ended early goes at once.
  connection->deadline.expires_after(limits_.deadline);
  connection->deadline.async_wait(
      [weak = std::weak_ptr<Connection>(connection)](const boost::system::error_code& ec) {
        if (ec) return;  // cancelled: the connection ended in time
        if (auto alive = weak.lock()) alive->End();
      });
  asio::async_read_until(
      connection->socket, connection->request, "\r\n",
      [this, connection](const boost::system::error_code& ec, size_t) {
        if (ec) return connection->End();
        std::istream in(&connection->request);
        std::string method, target;
        in >> method >> target;
        if (method == "GET" && off_loop_paths_.count(target.substr(0, target.find('?'))) > 0) {
          // Computed on the worker, written on the loop (the socket is the loop's).
          asio::post(*worker_, [this, connection, method, target] {
            HttpResponse response = RespondOrError(method, target);
            asio::post(
                io_, [connection, response = std::move(response)] { Write(connection, response); });
          });
          return;
        }
        Write(connection, RespondOrError(method, target));
      });
}

}  // namespace presplit::daemon
