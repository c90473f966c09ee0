// Handlers registered with HandleOffLoop run on the endpoint's worker thread: while one works,
// the loop answers /healthz; the response still reaches its client; an exception is a 500; an
// endpoint destroyed with such a request under way waits for its handler.
#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "daemon/http/http_endpoint.h"

namespace presplit::daemon {
namespace {

using boost::asio::ip::tcp;
using namespace std::chrono_literals;

// An endpoint on its own loop thread, its handlers registered by `setup` before it listens.
class OffLoopServer {
 public:
  explicit OffLoopServer(const std::function<void(HttpEndpoint&)>& setup)
      : http_(std::make_unique<HttpEndpoint>(io_)) {
    http_->Handle("/healthz", []() -> HttpResponse { return {200, "text/plain", "ok\n"}; });
    setup(*http_);
    EXPECT_TRUE(http_->Listen("127.0.0.1:0").ok());
    port_ = http_->port();
    loop_ = std::thread([this] { io_.run(); });
  }
  ~OffLoopServer() {
    io_.stop();
    loop_.join();
  }

  // Destroys the endpoint while its loop runs, as the daemon does at shutdown.
  void DestroyEndpoint() { http_.reset(); }

  // The whole response, or what arrived of it when `limit` ran out (a loop held by a handler
  // answers nothing: the test fails instead of hanging).
  std::string Get(const std::string& target, std::chrono::milliseconds limit = 30s) {
    boost::asio::io_context client_io;
    tcp::socket socket(client_io);
    socket.connect(
        {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)});
    const std::string request = "GET " + target + " HTTP/1.0\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(request));
    std::string response;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char buffer[4096];
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd fd{socket.native_handle(), POLLIN, 0};
      if (left.count() <= 0 || ::poll(&fd, 1, static_cast<int>(left.count())) <= 0) break;
      boost::system::error_code ec;
      const size_t n = socket.read_some(boost::asio::buffer(buffer), ec);
      response.append(buffer, n);
      if (ec) break;  // the end of the response (or a reset)
    }
    return response;
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<HttpEndpoint> http_;
  int port_ = 0;
  std::thread loop_;
};

// A handler that says it has started and then holds its thread until released.
struct HeldHandler {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  HttpRequestHandler Handler() {
    return [this](const HttpRequest& request) -> HttpResponse {
      started.set_value();
      released.wait();
      return {200, "text/plain", "rendered " + request.query.at("table") + "\n"};
    };
  }
};

// A client thread, joined (after releasing the handler it waits for) however the test ends.
struct Client {
  HeldHandler& held;
  std::thread thread;
  std::string response;
  bool released = false;
  Client(HeldHandler& h, OffLoopServer& server, const std::string& target) : held(h) {
    thread = std::thread([this, &server, target] { response = server.Get(target); });
  }
  void Release() {
    if (!released) held.release.set_value();
    released = true;
  }
  // Releases the handler and waits for the response.
  const std::string& Finish() {
    Release();
    if (thread.joinable()) thread.join();
    return response;
  }
  ~Client() { Finish(); }
};

TEST(HttpOffLoop, TheLoopAnswersWhileAnOffLoopHandlerWorks) {
  HeldHandler held;
  OffLoopServer server(
      [&](HttpEndpoint& http) { http.HandleOffLoop("/keyviz.json", held.Handler()); });
  Client client(held, server, "/keyviz.json?table=ns%3At");
  ASSERT_EQ(held.started.get_future().wait_for(10s), std::future_status::ready);
  // The handler holds its thread: /healthz is answered on the loop all the same, many times.
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(server.Get("/healthz", 10s).substr(0, 15), "HTTP/1.0 200 OK") << i;
  }
  const std::string& response = client.Finish();
  EXPECT_EQ(response.substr(0, 15), "HTTP/1.0 200 OK") << response;
  EXPECT_NE(response.find("\r\n\r\nrendered ns:t\n"), std::string::npos) << response;
}

TEST(HttpOffLoop, AThrowingOffLoopHandlerIsA500AndTheEndpointGoesOn) {
  std::atomic<int> calls{0};
  OffLoopServer server([&](HttpEndpoint& http) {
    http.HandleOffLoop("/boom", [&](const HttpRequest&) -> HttpResponse {
      if (++calls == 1) throw std::runtime_error("render failed");
      return {200, "text/plain", "fine\n"};
    });
  });
  const std::string first = server.Get("/boom");
  EXPECT_EQ(first.substr(0, 12), "HTTP/1.0 500") << first;
  EXPECT_NE(first.find("the handler failed; see the daemon's log"), std::string::npos) << first;
  const std::string second = server.Get("/boom");
  EXPECT_NE(second.find("\r\n\r\nfine\n"), std::string::npos) << second;
  EXPECT_EQ(server.Get("/healthz").substr(0, 15), "HTTP/1.0 200 OK");
  // A query that breaks the bounds is refused before the worker is asked.
  const std::string bad = server.Get("/boom?a=%zz");
  EXPECT_EQ(bad.substr(0, 12), "HTTP/1.0 400") << bad;
  EXPECT_EQ(calls, 2);
}

TEST(HttpOffLoop, AnEndpointDestroyedMidRequestWaitsForItsHandler) {
  HeldHandler held;
  std::atomic<bool> returned{false};
  auto server = std::make_unique<OffLoopServer>([&](HttpEndpoint& http) {
    http.HandleOffLoop("/keyviz.json", [&](const HttpRequest& request) -> HttpResponse {
      HttpResponse response = held.Handler()(request);
      returned = true;
      return response;
    });
  });
  Client client(held, *server, "/keyviz.json?table=t");
  ASSERT_EQ(held.started.get_future().wait_for(10s), std::future_status::ready);
  std::thread destroy([&] { server->DestroyEndpoint(); });
  client.Release();
  destroy.join();
  EXPECT_TRUE(returned) << "the endpoint's destructor returned before its handler did";
}

}  // namespace
}  // namespace presplit::daemon
