#include "daemon/leader/lease_fence.h"

#include <sstream>

namespace presplit::daemon {
namespace {

std::string Hex(int64_t session) {
  std::ostringstream out;
  out << "0x" << std::hex << session;
  return out.str();
}

}  // namespace

LeaseFence::LeaseFence(LeaderElection& election, ZkClient& zk) : election_(election), zk_(zk) {}

bool LeaseFence::Check() {
  int64_t session = 0;
  const bool held = election_.HoldsLease(&session);
  checked_session_ = held ? session : 0;
  return held;
}

Status LeaseFence::FencedZk::Fenced(const std::string& what, const std::function<Status()>& write) {
  Status result;
  fence_.zk_.WithSession([&](int64_t session) {
    const int64_t checked = fence_.checked_session_;
    if (session != 0 && session == checked && fence_.election_.LeaseSession() == session) {
      result = write();
      return;
    }
    std::string why;
    if (checked == 0) {
      why = "no lease check confirmed the leadership";
    } else if (session != checked) {
      why = "the lease was confirmed on ZooKeeper session " + Hex(checked) +
            (session == 0 ? ", which is no longer connected"
                          : ", not on the current " + Hex(session));
    } else {
      why = "this daemon no longer leads";
    }
    result = Status::Unavailable("not written (" + what + "): " + why);
  });
  return result;
}

Result<ZkNode> LeaseFence::FencedZk::Get(const std::string& path, bool watch) {
  return fence_.zk_.Get(path, watch);
}

Result<std::vector<std::string>> LeaseFence::FencedZk::GetChildren(const std::string& path,
                                                                   bool watch) {
  return fence_.zk_.GetChildren(path, watch);
}

Status LeaseFence::FencedZk::Create(const std::string& path, const std::string& data,
                                    const ZkAcl& acl) {
  return Fenced("create " + path, [&] { return fence_.zk_.Create(path, data, acl); });
}

Status LeaseFence::FencedZk::Set(const std::string& path, const std::string& data, int version) {
  return Fenced("set " + path, [&] { return fence_.zk_.Set(path, data, version); });
}

Status LeaseFence::FencedZk::Delete(const std::string& path, int version) {
  return Fenced("delete " + path, [&] { return fence_.zk_.Delete(path, version); });
}

Result<ZkAcl> LeaseFence::FencedZk::GetAcl(const std::string& path) {
  return fence_.zk_.GetAcl(path);
}

Result<std::string> LeaseFence::FencedZk::CreateEphemeralSequential(const std::string& path_prefix,
                                                                    const std::string& data,
                                                                    const ZkAcl& acl) {
  Result<std::string> created = Status::Internal("not run");
  Status s = Fenced("create " + path_prefix, [&] {
    created = fence_.zk_.CreateEphemeralSequential(path_prefix, data, acl);
    return created.ok() ? Status::Ok() : created.status();
  });
  if (!s.ok()) return s;
  return created;
}

int64_t LeaseFence::FencedZk::SessionId() { return fence_.zk_.SessionId(); }

bool LeaseFence::FencedZk::SessionExpired() { return fence_.zk_.SessionExpired(); }

Status LeaseFence::FencedZk::StartNewSession() {
  return Status::FailedPrecondition(
      "a leader-only component does not start ZooKeeper sessions; the leader election does");
}

void LeaseFence::FencedZk::WithSession(const std::function<void(int64_t session)>& call) {
  fence_.zk_.WithSession(call);
}

}  // namespace presplit::daemon
