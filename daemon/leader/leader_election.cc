#include "daemon/leader/leader_election.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace presplit::daemon {
namespace {

constexpr const char* kNodePrefix = "n_";
// Each attempt either settles or saw a node vanish between two reads; a handful of vanishing
// predecessors in a row is already unusual.
constexpr int kMaxSettleAttempts = 10;

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

int64_t ElectionSequence(const std::string& node_name) {
  const std::string prefix = kNodePrefix;
  if (node_name.size() <= prefix.size() || node_name.compare(0, prefix.size(), prefix) != 0) {
    return -1;
  }
  const std::string digits = node_name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      digits.size() > 18) {
    return -1;
  }
  return std::stoll(digits);
}

LeaderElection::LeaderElection(ZkClient& zk, LeaderElectionOptions options)
    : zk_(zk), options_(std::move(options)) {}

std::string LeaderElection::NodeName() const {
  std::lock_guard<std::mutex> lock(mu_);
  return node_;
}

Status LeaderElection::Refresh() {
  std::lock_guard<std::mutex> lock(mu_);
  Status s = RefreshLocked();
  if (!s.ok() && leading_) LoseLocked("cannot confirm it: " + s.ToString());
  return s;
}

Status LeaderElection::RefreshLocked() {
  if (zk_.SessionExpired()) {
    // The session ended, and the node and the leadership with it. The leadership ends here
    // first, under the lock every lease check takes, and only then does a new session begin:
    // nothing this daemon decided as leader can run on the new session as if it were the old
    // one. With the new session this daemon is a new candidate, at the end of the queue.
    if (leading_) LoseLocked("session expired");
    node_.clear();
    node_session_ = 0;
    watching_.clear();
    session_expired_ = false;
    Status started = zk_.StartNewSession();
    if (!started.ok()) return started.WithContext("opening a new ZooKeeper session");
    spdlog::info("ZooKeeper session expired; entering the election again as a new candidate");
  }
  if (session_expired_.exchange(false) &&
      !(node_session_ != 0 && zk_.SessionId() == node_session_)) {
    // The expiry event of a session already replaced (a Refresh entered again with the new
    // session before the event arrived) changes nothing; otherwise the node went with it.
    node_.clear();
    watching_.clear();
  }
  for (int attempt = 0; attempt < kMaxSettleAttempts; ++attempt) {
    if (!node_.empty() && zk_.SessionId() != node_session_) {
      if (zk_.SessionId() == 0) {
        // Disconnected (an expired session was handled above): the node lives on if the
        // client reconnects in time; until then there is nothing to decide.
        return Status::Unavailable("not connected to ZooKeeper");
      }
      // Another session than the one that created the node: the node went with its session.
      if (leading_) LoseLocked("session expired");
      node_.clear();
    }
    if (node_.empty()) PRESPLIT_RETURN_IF_ERROR(EnterLocked());

    auto listed = zk_.GetChildren(options_.election_path, /*watch=*/false);
    if (!listed.ok()) return listed.status().WithContext("listing election candidates");
    std::vector<std::string> candidates;
    for (const auto& name : *listed) {
      if (ElectionSequence(name) >= 0) candidates.push_back(name);
    }
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
      return ElectionSequence(a) < ElectionSequence(b);
    });
    auto mine = std::find(candidates.begin(), candidates.end(), node_);
    if (mine == candidates.end()) {
      // Removed by hand or with a session we no longer hold: enter again with a new node.
      if (leading_) LoseLocked(node_ + " vanished");
      spdlog::warn("election node {} vanished; entering the election again", node_);
      node_.clear();
      continue;
    }
    if (mine == candidates.begin()) {
      // The leader watches its own node: removed by hand, the event brings a Refresh that
      // re-enters the election at once instead of at the next pass.
      auto own = zk_.Get(JoinZkPath(options_.election_path, node_), /*watch=*/true);
      if (!own.ok()) {
        if (own.status().code() == StatusCode::kNotFound) continue;  // re-entered just above
        return own.status().WithContext("watching election node " + node_);
      }
      watching_.clear();
      if (!leading_) {
        leading_ = true;
        spdlog::info("leading as {}", node_);
      }
      return Status::Ok();
    }
    const std::string predecessor = *(mine - 1);
    // A data watch on the predecessor reports its deletion; if it is already gone, look again.
    auto watched = zk_.Get(JoinZkPath(options_.election_path, predecessor), /*watch=*/true);
    if (!watched.ok()) {
      if (watched.status().code() == StatusCode::kNotFound) continue;
      return watched.status().WithContext("watching election predecessor " + predecessor);
    }
    if (leading_) LoseLocked(predecessor + " precedes " + node_);
    if (watching_ != predecessor) {
      watching_ = predecessor;
      spdlog::info("standing by behind {} ({}) as {}", predecessor, watched->data, node_);
    }
    return Status::Ok();
  }
  return Status::Unavailable("the election did not settle after " +
                             std::to_string(kMaxSettleAttempts) + " attempts");
}

Status LeaderElection::EnterLocked() {
  PRESPLIT_RETURN_IF_ERROR(zk_.EnsurePath(options_.election_path, options_.acl));
  const int64_t session = zk_.SessionId();
  if (session == 0) return Status::Unavailable("no ZooKeeper session");
  // A create whose reply was lost (connection loss) may have left a node owned by this very
  // session; it would stand in the queue ahead of the new one forever (this candidate waiting
  // behind itself), so remove it before queueing again. Only this session's nodes: another
  // daemon's are never touched.
  auto listed = zk_.GetChildren(options_.election_path, /*watch=*/false);
  if (!listed.ok()) return listed.status().WithContext("listing election candidates");
  for (const auto& name : *listed) {
    const std::string path = JoinZkPath(options_.election_path, name);
    auto node = zk_.Get(path, /*watch=*/false);
    if (node.ok() && node->ephemeral_owner == session) {
      spdlog::info("removing {}, a leftover election node of this daemon", name);
      Status removed = zk_.Delete(path);
      if (!removed.ok() && removed.code() != StatusCode::kNotFound) return removed;
    }
  }
  // The candidate node carries the election path's ACL: only daemons may change who queues.
  auto created = zk_.CreateEphemeralSequential(JoinZkPath(options_.election_path, kNodePrefix),
                                               options_.candidate_id, options_.acl);
  if (!created.ok()) return created.status().WithContext("entering the election");
  if (zk_.SessionId() != session) {
    // The node may belong to a session that began meanwhile; start over with that session. Should
    // this delete fail, the next entry removes the leftover.
    (void)zk_.Delete(*created);
    return Status::Unavailable("the ZooKeeper session changed while entering the election");
  }
  node_ = BaseName(*created);
  node_session_ = session;
  watching_.clear();
  spdlog::info("entered the leader election as {}", node_);
  return Status::Ok();
}

bool LeaderElection::HoldsLease(int64_t* on_session) {
  std::lock_guard<std::mutex> lock(mu_);
  if (on_session != nullptr) *on_session = 0;
  if (!leading_) return false;
  const int64_t session = zk_.SessionId();
  if (session == 0) {
    LoseLocked("not connected to ZooKeeper");
    return false;
  }
  if (session != node_session_) {
    LoseLocked("session expired");
    return false;
  }
  auto listed = zk_.GetChildren(options_.election_path, /*watch=*/false);
  if (!listed.ok()) {
    LoseLocked("cannot confirm the lease: " + listed.status().ToString());
    return false;
  }
  std::string lowest;
  for (const auto& name : *listed) {
    if (ElectionSequence(name) < 0) continue;
    if (lowest.empty() || ElectionSequence(name) < ElectionSequence(lowest)) lowest = name;
  }
  if (lowest != node_) {
    LoseLocked(lowest.empty() ? node_ + " is gone" : lowest + " is now the lowest, not " + node_);
    return false;
  }
  if (on_session != nullptr) *on_session = session;
  return true;
}

int64_t LeaderElection::LeaseSession() const {
  // leading_ is cleared before a new session can begin (Refresh, under mu_), so a non-zero
  // answer is a session this candidate leads with.
  const int64_t session = node_session_;
  return leading_ ? session : 0;
}

void LeaderElection::OnSessionExpired() {
  // No lock and no ZooKeeper call: this runs on the event loop, which must not wait for a
  // Refresh in progress. The node is dropped by the next Refresh.
  session_expired_ = true;
  if (leading_.exchange(false)) spdlog::warn("lost leadership: session expired");
}

void LeaderElection::Resign() {
  std::lock_guard<std::mutex> lock(mu_);
  if (node_.empty()) return;
  if (leading_.exchange(false)) spdlog::info("resigning leadership ({})", node_);
  Status s = zk_.Delete(JoinZkPath(options_.election_path, node_));
  if (!s.ok() && s.code() != StatusCode::kNotFound) {
    spdlog::warn("cannot remove election node {}: {}", node_, s.ToString());
  }
  node_.clear();
  watching_.clear();
}

void LeaderElection::LoseLocked(const std::string& reason) {
  if (leading_.exchange(false)) spdlog::warn("lost leadership: {}", reason);
}

}  // namespace presplit::daemon
