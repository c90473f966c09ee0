// What presplitd's components share, built once by RunDaemon before any of them: the options,
// the event loop, the embedded JVM, the ZooKeeper session and the leader election, the HBase
// client's settings and the Kerberos login's state. Each component takes this context and the
// few links to other components it needs in its constructor; nothing else is global.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/kerberos_state.h"
#include "daemon/leader/leader_election.h"
#include "daemon/runner/daemon_options.h"
#include "daemon/zk/zk_auth.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon {

struct DaemonContext {
  const DaemonOptions& options;  // as started; SIGHUP's live settings are below
  boost::asio::io_context& io;
  JvmHost& jvm;
  ZkClient& zk;  // unfenced: reads, and the election's own writes
  LeaderElection& election;
  const ZkAccess& zk_access;
  // The HBase client's settings every connection of the daemon is opened with.
  const std::map<std::string, std::string>& hbase_settings;
  // The Kerberos login every connection waits for; null without Kerberos.
  KerberosLoginState* kerberos;
  std::string daemon_id;  // host:pid
  // Set once a stop begins: passes and migrations stop between steps.
  std::atomic<bool>& stopping;
  // SIGHUP may change it.
  std::atomic<int>& resync_interval_s;
  // An HBase call running longer than this is stuck (/healthz).
  std::chrono::seconds stuck_after;

  // No HBase call before the Kerberos login (it would fail with a less helpful SASL error).
  bool may_call_hbase() const { return kerberos == nullptr || kerberos->logged_in(); }
};

// The wall clock in milliseconds since the epoch.
int64_t WallMs();

}  // namespace presplit::daemon
