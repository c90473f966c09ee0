// One leader-only component's lease (the reconciler's, the migrator's, the status publisher's):
// the check it runs right before it acts, and the ZooKeeper client its writes go through.
//
// A lease check and the write it allows are two calls; a session may expire between them, and
// the election may have started a new session and re-entered with it before the write runs.
// Through zk(), a write runs only on the session this component's last successful Check() was
// confirmed on, and only while the election still leads with that session; otherwise it fails
// with Unavailable and reaches no ZooKeeper server. The comparison and the write are one step
// (ZkClient::WithSession: no new session can begin between them). So a write decided under an
// old session's lease is refused even once the daemon leads again with a new session: the
// component has to check its lease again first. Reads go through unchanged: they decide nothing.
//
// Threading: Check() and the calls of zk() may come from any thread; a component whose threads
// share one LeaseFence shares its last checked session (the migrator's copy threads, which take
// turns).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "daemon/leader/leader_election.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {

class LeaseFence {
 public:
  // `zk` is the client `election` runs on.
  LeaseFence(LeaderElection& election, ZkClient& zk);

  // The lease check (LeaderElection::HoldsLease); remembers the session it was confirmed on
  // (none when it says no, so a "no" also stops the writes that follow).
  bool Check();

  // The client for this component's reads and writes. Writes (Create, Set, Delete,
  // CreateEphemeralSequential, and EnsurePath and Upsert through them) run only as described
  // above; StartNewSession is refused (the election alone starts sessions).
  ZkClient& zk() { return fenced_; }

  // The session of the last successful Check(); 0 before one, or after a "no".
  int64_t checked_session() const { return checked_session_; }

 private:
  class FencedZk final : public ZkClient {
   public:
    explicit FencedZk(LeaseFence& fence) : fence_(fence) {}
    Result<ZkNode> Get(const std::string& path, bool watch) override;
    Result<std::vector<std::string>> GetChildren(const std::string& path, bool watch) override;
    Status Create(const std::string& path, const std::string& data, const ZkAcl& acl) override;
    Status Set(const std::string& path, const std::string& data, int version) override;
    Status Delete(const std::string& path, int version) override;
    Result<ZkAcl> GetAcl(const std::string& path) override;
    Result<std::string> CreateEphemeralSequential(const std::string& path_prefix,
                                                  const std::string& data,
                                                  const ZkAcl& acl) override;
    int64_t SessionId() override;
    bool SessionExpired() override;
    Status StartNewSession() override;
    void WithSession(const std::function<void(int64_t session)>& call) override;

   private:
    // Runs `write` inside WithSession when the session is the fence's; else the refusal.
    Status Fenced(const std::string& what, const std::function<Status()>& write);
    LeaseFence& fence_;
  };

  LeaderElection& election_;
  ZkClient& zk_;
  std::atomic<int64_t> checked_session_{0};
  FencedZk fenced_{*this};
};

}  // namespace presplit::daemon
