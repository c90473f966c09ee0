// Query parameters of the daemon's HTTP endpoint: decoded, bounded, and a bad one answered 400
// before any handler runs; handlers without a request keep working.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "daemon/http/http_endpoint.h"

namespace presplit::daemon {
namespace {

TEST(HttpQuery, DecodesNamesAndValues) {
  auto query = ParseQuery("table=ns%3At&from=-6h&a+b=x+y&empty=&flag&&z=%2f%2F");
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  EXPECT_EQ(query->at("table"), "ns:t");
  EXPECT_EQ(query->at("from"), "-6h");
  EXPECT_EQ(query->at("a b"), "x y");
  EXPECT_EQ(query->at("empty"), "");
  EXPECT_EQ(query->at("flag"), "");
  EXPECT_EQ(query->at("z"), "//");
  EXPECT_TRUE(ParseQuery("").value().empty());
}

TEST(HttpQuery, RefusesWhatBreaksTheBounds) {
  EXPECT_FALSE(ParseQuery("a=%zz").ok());
  EXPECT_FALSE(ParseQuery("a=%4").ok());
  EXPECT_FALSE(ParseQuery("a=%").ok());
  EXPECT_FALSE(ParseQuery("=1").ok());
  const auto twice = ParseQuery("a=1&a=2");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("twice"), std::string::npos);
  EXPECT_FALSE(ParseQuery(std::string(kMaxQueryNameLength + 1, 'n') + "=1").ok());
  EXPECT_FALSE(ParseQuery("v=" + std::string(kMaxQueryValueLength + 1, 'v')).ok());
  EXPECT_TRUE(ParseQuery("v=" + std::string(kMaxQueryValueLength, 'v')).ok());
  std::string many;
  for (size_t i = 0; i <= kMaxQueryParameters; ++i) many += "p" + std::to_string(i) + "=1&";
  EXPECT_FALSE(ParseQuery(many).ok());
}

TEST(HttpQuery, HandlersWithAndWithoutTheRequest) {
  boost::asio::io_context io;
  HttpEndpoint http(io);
  http.Handle("/plain", []() -> HttpResponse { return {200, "text/plain", "plain\n"}; });
  http.Handle("/echo", [](const HttpRequest& request) -> HttpResponse {
    return {200, "text/plain", request.path + " " + request.query.at("x")};
  });
  EXPECT_EQ(http.Respond("GET", "/plain").body, "plain\n");
  EXPECT_EQ(http.Respond("GET", "/plain?ignored=1").body, "plain\n");
  // Not even a bad query reaches a handler that takes none: /healthz?x=% is /healthz.
  EXPECT_EQ(http.Respond("GET", "/plain?x=%g1").code, 200);
  EXPECT_EQ(http.Respond("GET", "/echo?x=a%20b").body, "/echo a b");
  const HttpResponse bad = http.Respond("GET", "/echo?x=%g1");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(bad.content_type, "application/json");
  EXPECT_FALSE(nlohmann::json::parse(bad.body).at("error").get<std::string>().empty());
  EXPECT_EQ(http.Respond("GET", "/nothing?x=%g1").code, 404);
  EXPECT_EQ(http.Respond("POST", "/echo?x=1").code, 405);
}

// Whatever arrives, the answer is a response: a query that parses reaches the handler, any other
// is a 400 in JSON.
TEST(HttpQuery, AnyTargetGetsAnAnswer) {
  boost::asio::io_context io;
  HttpEndpoint http(io);
  int reached = 0;
  http.Handle("/q", [&](const HttpRequest&) -> HttpResponse {
    ++reached;
    return {200, "text/plain", "ok"};
  });
  std::mt19937 random(3);
  const std::string alphabet = "a=&%+0F9g\x00\xff?/";
  int bad = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string target = "/q?";
    const size_t length = random() % 40;
    for (size_t k = 0; k < length; ++k) target += alphabet[random() % alphabet.size()];
    const HttpResponse response = http.Respond("GET", target);
    ASSERT_TRUE(response.code == 200 || response.code == 400) << target;
    if (response.code == 400) {
      ++bad;
      EXPECT_TRUE(nlohmann::json::parse(response.body).contains("error"));
    }
  }
  EXPECT_EQ(reached + bad, 5000);
  EXPECT_GT(reached, 0);
  EXPECT_GT(bad, 0);
}

// Over a real socket: the request line's query reaches the handler, and a bad one is a 400 with
// its reason phrase.
TEST(HttpQuery, OverASocket) {
  boost::asio::io_context io;
  HttpEndpoint http(io);
  http.Handle("/echo", [](const HttpRequest& request) -> HttpResponse {
    return {200, "text/plain", request.query.count("x") ? request.query.at("x") : "-"};
  });
  ASSERT_TRUE(http.Listen("127.0.0.1:0").ok());
  std::thread loop([&] { io.run(); });
  const auto get = [&](const std::string& target) {
    boost::asio::io_context client;
    boost::asio::ip::tcp::socket socket(client);
    socket.connect(
        {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(http.port())});
    const std::string request = "GET " + target + " HTTP/1.0\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(request));
    std::string response;
    boost::system::error_code ec;
    boost::asio::read(socket, boost::asio::dynamic_buffer(response), ec);
    return response;
  };
  const std::string ok = get("/echo?x=ns%3At");
  const std::string bad = get("/echo?x=%zz");
  io.stop();
  loop.join();
  EXPECT_EQ(ok.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << ok;
  EXPECT_EQ(ok.substr(ok.size() - 4), "ns:t");
  EXPECT_EQ(bad.rfind("HTTP/1.0 400 Bad Request\r\n", 0), 0u) << bad;
  EXPECT_NE(bad.find("Content-Type: application/json"), std::string::npos);
}

}  // namespace
}  // namespace presplit::daemon
