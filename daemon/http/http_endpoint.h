// A minimal HTTP/1.0 endpoint on the daemon's Asio loop for /healthz and /metrics. It serves
// GET only, one small response per connection: enough for systemd watchdogs, load balancers and
// Prometheus scrapes, nothing more.
//
// Nothing a client does holds the daemon's resources for long (HttpLimits): a connection lives
// at most `deadline` from accept to the last byte of its response, whether the client never
// sends its request line or never reads the answer; beyond `max_connections` open at once a new
// connection is closed as soon as it is accepted; an accept that fails (file descriptors
// exhausted) is retried after a pause, not in a loop that spins.
//
// Query parameters reach the handlers that take an HttpRequest, percent-decoded and bounded
// (ParseQuery); a query that breaks the bounds is answered 400 with a JSON error before any
// handler runs. Handlers without a request ignore the query, as before.
//
// Handlers run on the loop, one at a time, so each must answer in well under a millisecond or two;
// one that computes its answer for longer (the key visualizer's JSON) is registered with
// HandleOffLoop and runs on the endpoint's own worker thread, so /healthz and /metrics answer
// while it works.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit::daemon {

struct HttpResponse {
  int code = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// Bounds on a request's query: what the daemon's handlers need, and nothing from the network
// grows beyond it (the request line itself is at most 8 KiB).
inline constexpr size_t kMaxQueryParameters = 32;
inline constexpr size_t kMaxQueryNameLength = 64;
inline constexpr size_t kMaxQueryValueLength = 1024;

struct HttpRequest {
  std::string path;                          // without the query
  std::map<std::string, std::string> query;  // names and values percent-decoded, '+' = space
};

// "a=1&b=x%2Fy" -> {a: 1, b: x/y}. InvalidArgument (naming the parameter) for a bad %-escape, an
// empty or repeated name, more than kMaxQueryParameters parameters or a name or value too long.
// "a" and "a=" are both a with the value "".
Result<std::map<std::string, std::string>> ParseQuery(std::string_view query);

// A JSON body {"error": message} with `code`, for handlers that answer JSON.
HttpResponse JsonError(int code, const std::string& message);

struct HttpLimits {
  size_t max_connections = 64;                        // open at once; more are closed at accept
  std::chrono::milliseconds deadline{10000};          // a connection's whole life
  std::chrono::milliseconds accept_retry_pause{200};  // after an accept that failed
};

using HttpHandler = std::function<HttpResponse()>;
using HttpRequestHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpEndpoint {
 public:
  explicit HttpEndpoint(boost::asio::io_context& io, HttpLimits limits = {})
      : io_(io), limits_(limits), acceptor_(io), accept_pause_(io) {}

  // A handler without a request never sees the query, and the query is not even parsed for it:
  // /healthz?x=% is /healthz, as it was before handlers could take queries.
  void Handle(const std::string& path, HttpHandler handler) {
    handlers_[path] = [handler = std::move(handler)](const HttpRequest&) { return handler(); };
    query_paths_.erase(path);
  }
  void Handle(const std::string& path, HttpRequestHandler handler) {
    handlers_[path] = std::move(handler);
    query_paths_.insert(path);
    off_loop_paths_.erase(path);
  }
  // As Handle, but the handler runs on the endpoint's one worker thread (started by the first
  // call) and its response is written back on the loop. Such requests wait their turn on the
  // worker, at most max_connections of them (the cap on open connections); the connection's
  // deadline still closes one that waits too long. The handler must be thread-safe with respect
  // to what it reads, and it may still run until the endpoint is destroyed (which waits for it).
  // All handlers are registered before Listen.
  void HandleOffLoop(const std::string& path, HttpRequestHandler handler);

  // The response to one request line's method and target: what Serve sends (public for tests).
  HttpResponse Respond(const std::string& method, const std::string& target) const;

  // Binds "host:port" (port 0 picks a free one) and starts accepting.
  Status Listen(const std::string& host_port);
  int port() const;
  void Close();

  // Connections accepted and not yet closed; connections closed at accept for the cap (for tests
  // and the log).
  size_t open_connections() const { return counters_->open.load(); }
  uint64_t refused_connections() const { return counters_->refused.load(); }
  // Waits until exactly `count` connections are open, at most `limit`; whether they were. Woken
  // by every accept and close, so a test waits for the event rather than polling.
  bool WaitForOpenConnections(size_t count, std::chrono::milliseconds limit) const;

 private:
  // Shared with every connection, so that one outliving the endpoint still counts down safely.
  struct Counters {
    std::atomic<size_t> open{0};
    std::atomic<uint64_t> refused{0};
    // `open` changes under `mu` and wakes `changed`, for WaitForOpenConnections.
    std::mutex mu;
    std::condition_variable changed;
    void AddOpen(int delta) {
      {
        std::lock_guard<std::mutex> lock(mu);
        open.fetch_add(static_cast<size_t>(delta));
      }
      changed.notify_all();
    }
  };
  struct Connection;

  void Accept();
  void Serve(std::shared_ptr<Connection> connection);
  // Respond, with a handler's exception turned into a 500 (a handler must not end the daemon).
  HttpResponse RespondOrError(const std::string& method, const std::string& target) const;
  static void Write(std::shared_ptr<Connection> connection, const HttpResponse& response);

  boost::asio::io_context& io_;
  const HttpLimits limits_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_pause_;
  std::shared_ptr<Counters> counters_ = std::make_shared<Counters>();
  std::map<std::string, HttpRequestHandler> handlers_;
  std::set<std::string> query_paths_;     // the paths whose handlers take the request
  std::set<std::string> off_loop_paths_;  // the paths whose handlers run on worker_
  // Declared last, so destroyed first: its destructor waits for a running handler (which reads
  // handlers_) and drops the queued ones before anything else of the endpoint goes.
  std::unique_ptr<boost::asio::thread_pool> worker_;
};

}  // namespace presplit::daemon
