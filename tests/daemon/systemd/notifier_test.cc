// The sd_notify messages presplitd sends, as a service manager receives them: a datagram socket
// of the test's own named by NOTIFY_SOCKET, as systemd does for a Type=notify unit.
#include "daemon/systemd/notifier.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "daemon/systemd/loop_watchdog.h"

namespace presplit::daemon {
namespace {

// Clears the variables systemd sets, so each test starts as a process started by hand.
class ServiceManagerEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { Clear(); }
  void TearDown() override {
    Clear();
    if (fd_ >= 0) close(fd_);
    if (!path_.empty()) std::filesystem::remove_all(std::filesystem::path(path_).parent_path());
  }

  static void Clear() {
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
  }

  // Binds a datagram socket in a fresh directory and points NOTIFY_SOCKET at it.
  void Listen() {
    char dir[] = "/tmp/presplit-notify-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    path_ = std::string(dir) + "/notify";
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd_, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path_.c_str());
    ASSERT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    timeval timeout{5, 0};  // a deadline for messages that never come, not a pacing sleep
    ASSERT_EQ(setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)), 0);
    setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  }

  // The next datagram, or nullopt after the 5 s deadline.
  std::optional<std::string> Receive() {
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n < 0) return std::nullopt;
    return std::string(buf, static_cast<size_t>(n));
  }

  std::string path_;
  int fd_ = -1;
};

TEST_F(ServiceManagerEnvironment, WithoutNotifySocketEveryCallIsANoOp) {
  Notifier notifier;
  EXPECT_FALSE(notifier.enabled());
  EXPECT_TRUE(notifier.Ready("up").ok());
  EXPECT_TRUE(notifier.Watchdog().ok());
  EXPECT_TRUE(notifier.Stopping("down").ok());
  EXPECT_EQ(notifier.watchdog_interval().count(), 0);
}

TEST_F(ServiceManagerEnvironment, SendsReadyStatusWatchdogAndStoppingAsTheProtocolSpells) {
  Listen();
  Notifier notifier;
  ASSERT_TRUE(notifier.enabled());

  ASSERT_TRUE(notifier.Ready("watching /presplit on zk1:2181").ok());
  EXPECT_EQ(Receive(), "READY=1\nSTATUS=watching /presplit on zk1:2181");

  ASSERT_TRUE(notifier.SetStatus("pass failed").ok());
  EXPECT_EQ(Receive(), "STATUS=pass failed");

  ASSERT_TRUE(notifier.Watchdog().ok());
  EXPECT_EQ(Receive(), "WATCHDOG=1");

  ASSERT_TRUE(notifier.Stopping("shutting down").ok());
  EXPECT_EQ(Receive(), "STOPPING=1\nSTATUS=shutting down");
}

TEST_F(ServiceManagerEnvironment, AStatusTextCannotInjectAssignments) {
  Listen();
  Notifier notifier;
  ASSERT_TRUE(notifier.SetStatus("zk down\nREADY=1").ok());
  EXPECT_EQ(Receive(), "STATUS=zk down READY=1");
}

TEST_F(ServiceManagerEnvironment, AnUnreachableSocketIsAnErrorNotACrash) {
  setenv("NOTIFY_SOCKET", "/nonexistent-dir/notify", 1);
  Notifier notifier;
  ASSERT_TRUE(notifier.enabled());
  Status sent = notifier.Ready("up");
  EXPECT_FALSE(sent.ok());
  EXPECT_NE(sent.message().find("READY=1"), std::string::npos) << sent.message();
}

TEST_F(ServiceManagerEnvironment, WatchdogIntervalIsForThisProcessOnly) {
  setenv("WATCHDOG_USEC", "4000000", 1);
  EXPECT_EQ(Notifier().watchdog_interval(), std::chrono::seconds(4));

  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  EXPECT_EQ(Notifier().watchdog_interval(), std::chrono::seconds(4));

  // Inherited from a parent that was the watched process: not ours to feed.
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);
  EXPECT_EQ(Notifier().watchdog_interval().count(), 0);
}

TEST_F(ServiceManagerEnvironment, LoopWatchdogPingsAtHalfTheIntervalWhileTheLoopRuns) {
  Listen();
  setenv("WATCHDOG_USEC", "200000", 1);
  Notifier notifier;
  boost::asio::io_context io;
  LoopWatchdog watchdog(io, notifier);
  EXPECT_EQ(watchdog.period(), std::chrono::milliseconds(100));
  watchdog.Start();
  std::thread loop([&io] { io.run(); });

  // The first ping at Start, then one per period from the loop's timer.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Receive(), "WATCHDOG=1") << "ping " << i;

  boost::asio::post(io, [&] { watchdog.Stop(); });
  loop.join();  // the stopped timer was the loop's only work: run() returns
}

TEST_F(ServiceManagerEnvironment, LoopWatchdogDoesNothingWithoutWatchdogSec) {
  Listen();
  Notifier notifier;
  boost::asio::io_context io;
  LoopWatchdog watchdog(io, notifier);
  watchdog.Start();
  EXPECT_EQ(io.run(), 0u);  // no timer was armed
}

}  // namespace
}  // namespace presplit::daemon
