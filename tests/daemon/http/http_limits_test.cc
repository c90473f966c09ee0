// What a client can hold of the daemon's HTTP endpoint: a connection that never sends its request
// line is closed at the deadline, connections beyond the cap are closed at accept, and the
// endpoint answers again once they are gone.
#include <gtest/gtest.h>
#include <poll.h>

#include <boost/asio.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "daemon/http/http_endpoint.h"

namespace presplit::daemon {
namespace {

using boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// An endpoint on its own loop thread, serving /healthz.
class Server {
 public:
  explicit Server(HttpLimits limits) : http_(io_, limits) {
    http_.Handle("/healthz", []() -> HttpResponse { return {200, "text/plain", "ok\n"}; });
    EXPECT_TRUE(http_.Listen("127.0.0.1:0").ok());
    loop_ = std::thread([this] { io_.run(); });
  }
  ~Server() {
    io_.stop();
    loop_.join();
  }
  HttpEndpoint& http() { return http_; }

  // A connected client socket that has sent nothing.
  std::unique_ptr<tcp::socket> Connect() {
    auto socket = std::make_unique<tcp::socket>(client_io_);
    socket->connect(
        {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(http_.port())});
    return socket;
  }

  std::string Get(const std::string& target) {
    auto socket = Connect();
    const std::string request = "GET " + target + " HTTP/1.0\r\n\r\n";
    boost::asio::write(*socket, boost::asio::buffer(request));
    std::string response;
    boost::system::error_code ec;
    boost::asio::read(*socket, boost::asio::dynamic_buffer(response), ec);
    return response;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::io_context client_io_;
  HttpEndpoint http_;
  std::thread loop_;
};

// True if the server closed `socket` (a read sees the end of the stream) within `limit`.
bool ClosedByTheServerWithin(tcp::socket& socket, std::chrono::milliseconds limit) {
  pollfd fd{socket.native_handle(), POLLIN, 0};
  if (::poll(&fd, 1, static_cast<int>(limit.count())) <= 0) return false;
  char byte;
  boost::system::error_code ec;
  const size_t n = socket.read_some(boost::asio::buffer(&byte, 1), ec);
  return n == 0 && (ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset);
}

TEST(HttpLimits, AConnectionThatSendsNothingIsClosedAtTheDeadline) {
  Server server({.max_connections = 8, .deadline = std::chrono::milliseconds(300)});
  const auto started = Clock::now();  // before the accept, so the deadline is after it
  auto idle = server.Connect();
  ASSERT_TRUE(server.http().WaitForOpenConnections(1, std::chrono::seconds(5)));
  EXPECT_TRUE(ClosedByTheServerWithin(*idle, std::chrono::seconds(10)));
  EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(300)) << "not before the deadline";
  EXPECT_TRUE(server.http().WaitForOpenConnections(0, std::chrono::seconds(5)));
  // A half-sent request line is no different.
  auto slow = server.Connect();
  boost::asio::write(*slow, boost::asio::buffer(std::string("GET /heal")));
  EXPECT_TRUE(ClosedByTheServerWithin(*slow, std::chrono::seconds(10)));
  EXPECT_EQ(server.Get("/healthz").substr(0, 15), "HTTP/1.0 200 OK");
}

TEST(HttpLimits, ConnectionsBeyondTheCapAreClosedAndTheEndpointAnswersAgain) {
  Server server({.max_connections = 3, .deadline = std::chrono::seconds(60)});
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(server.Connect());
  ASSERT_TRUE(server.http().WaitForOpenConnections(3, std::chrono::seconds(5)));
  auto fourth = server.Connect();
  EXPECT_TRUE(ClosedByTheServerWithin(*fourth, std::chrono::seconds(10)));
  EXPECT_EQ(server.http().refused_connections(), 1u);
  EXPECT_EQ(server.http().open_connections(), 3u);

  // The clients that held the slots go away: the server sees their end and frees the slots.
  idle.clear();
  ASSERT_TRUE(server.http().WaitForOpenConnections(0, std::chrono::seconds(10)));
  EXPECT_EQ(server.Get("/healthz").substr(0, 15), "HTTP/1.0 200 OK");
  EXPECT_TRUE(server.http().WaitForOpenConnections(0, std::chrono::seconds(5)));
}

TEST(HttpLimits, ManyRequestsOneAfterAnotherLeaveNothingOpen) {
  Server server({.max_connections = 2, .deadline = std::chrono::seconds(60)});
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(server.Get("/healthz").substr(0, 15), "HTTP/1.0 200 OK") << i;
  }
  EXPECT_TRUE(server.http().WaitForOpenConnections(0, std::chrono::seconds(5)));
  EXPECT_EQ(server.http().refused_connections(), 0u);
}

}  // namespace
}  // namespace presplit::daemon
