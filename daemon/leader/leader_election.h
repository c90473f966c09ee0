// One leader among several presplitd: the classic ZooKeeper election recipe. Each candidate
// creates <election_path>/n_ EPHEMERAL|SEQUENCE with its id (host:pid) as data; the lowest
// sequence leads; every other candidate watches only its predecessor (no herd effect when the
// leader goes). Plain code over the ZkClient interface, unit-tested with the in-memory fake.
//
// Sessions: the ZooKeeper client never opens a new session by itself (zk_client.h). After an
// expiry, Refresh ends the leadership first, then starts the new session, then enters the
// election with it as a new candidate; no lease check succeeds in between, and none succeeds for
// a session other than the one this candidate's node belongs to. LeaseFence (lease_fence.h)
// carries that to the writes: a write allowed by a lease check runs on that check's session or
// not at all.
//
// Threading: Refresh, HoldsLease and Resign may be called from any thread; they serialise on an
// internal mutex. OnSessionExpired, IsLeader and LeaseSession never wait for ZooKeeper nor for a
// Refresh in progress (event loop, metrics, health).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "daemon/zk/zk_client.h"
#include "presplit/status.h"

namespace presplit::daemon {

struct LeaderElectionOptions {
  std::string election_path = "/presplit/leader";  // the candidates' parent znode
  std::string candidate_id;                        // the node's data: who this is ("host:pid")
  // Of election_path when this candidate creates it, and of its candidate node (zk_auth.h's
  // leader).
  ZkAcl acl = OpenAcl();
};

class LeaderElection {
 public:
  LeaderElection(ZkClient& zk, LeaderElectionOptions options);

  // Enters the election when this candidate has no live node (first call, after a session
  // expiry, or when its node vanished), then finds its place: leading when its node is the
  // lowest, else standing by with a one-shot data watch on its predecessor (the event that
  // watch reports, or kSessionExpired / kConnected, should lead to another Refresh). Every
  // transition is logged. An error (ZooKeeper unreachable) leaves this candidate not leading.
  // When the client's session expired, this is where the new one is started
  // (ZkClient::StartNewSession), after the leadership ended and before the new candidate
  // enters; the only place in presplitd that starts one.
  Status Refresh();

  // The lease check to run right before every action only the leader may take: true only when
  // this candidate was leading, its session is still connected and is the one that created its
  // node, and that node is still the lowest. Asks ZooKeeper (one children listing). A failed
  // check ends the leadership at once; it is regained only through Refresh. With `on_session`,
  // the session the lease was confirmed on (0 when it was not).
  bool HoldsLease(int64_t* on_session = nullptr);

  // The session this candidate leads with, 0 when it does not lead (as last known: no call to
  // the ZooKeeper servers). Never the id of a session begun after the one the leadership was
  // confirmed on, since Refresh ends the leadership before it starts a new session.
  int64_t LeaseSession() const;

  // The session expired: its node is gone, so leadership is lost at once. The next Refresh
  // re-enters the election with a new node. Never blocks (safe on an event loop).
  void OnSessionExpired();

  // Leaves the election (deletes this candidate's node) so a standby takes over without waiting
  // for the session to time out. Used at shutdown.
  void Resign();

  // Whether this candidate led at the last Refresh or lease check and its session is still
  // connected (a disconnected leader reports false at once). No call to the ZooKeeper servers.
  bool IsLeader() const { return leading_ && zk_.SessionId() == node_session_; }
  // This candidate's node name ("n_0000000003"), "" when not in the election.
  std::string NodeName() const;

 private:
  Status RefreshLocked();
  Status EnterLocked();
  void LoseLocked(const std::string& reason);

  ZkClient& zk_;
  const LeaderElectionOptions options_;
  mutable std::mutex mu_;
  std::string node_;                      // this candidate's node name, "" when none
  std::atomic<int64_t> node_session_{0};  // the session that created node_
  std::string watching_;                  // the predecessor watched while standing by
  std::atomic<bool> leading_{false};
  std::atomic<bool> session_expired_{false};  // set by OnSessionExpired, handled by Refresh
};

// The sequence number of an election node name ("n_0000000003" -> 3); -1 when it has none.
int64_t ElectionSequence(const std::string& node_name);

}  // namespace presplit::daemon
