// The HBase connection each of presplitd's workers uses: AdminBridge connected on first use and
// again after a failed connect, so the daemon starts and keeps serving status while HBase is still
// coming up. Moved out of the runner as is; what it reports feeds /healthz.
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/hbase/jni_hbase_admin.h"
#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/kerberos_state.h"
#include "daemon/hbase/permission_check.h"
#include "daemon/hbase/region_loads.h"

namespace presplit::daemon {

// Connects AdminBridge on first use and again after a failed connect, so the daemon starts and
// keeps serving status while HBase is still coming up. A connection-level failure (HBase
// unreachable, or the connection closed under us) drops the admin: the next call reconnects.
// Not thread-safe: each worker has its own. It also tells /healthz whether HBase answered last time
// and whether a JVM call is stuck.
class ConnectOnDemandAdmin final : public HBaseAdmin, public RegionLoadSource {
 public:
  // `kerberos`: the daemon's Kerberos login, or null without one; no connection is opened before
  // it has logged in (it would fail with a less helpful SASL error).
  ConnectOnDemandAdmin(JvmHost& jvm, std::map<std::string, std::string> settings,
                       const KerberosLoginState* kerberos)
      : jvm_(jvm), settings_(std::move(settings)), kerberos_(kerberos) {}

  Result<TableDescription> DescribeTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    auto described = admin_->DescribeTable(table);
    Observe(kDescribe, described.ok() ? Status::Ok() : described.status());
    return described;
  }
  Status CreateTable(const TableSpec& spec) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    {
      std::lock_guard<std::mutex> lock(mu_);
      create_called_ = true;
    }
    Status created = admin_->CreateTable(spec);
    Observe(kCreate, created);
    return created;
  }

  // Reads (meta, on the RegionServers) can work while creates (the HMaster) fail: each kind of
  // call keeps its own problem. A failed create stays reported until a create reaches HBase, or
  // until a pass no longer needs one.
  void PassStarted() {
    std::lock_guard<std::mutex> lock(mu_);
    create_called_ = false;
  }
  void PassFinished() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!create_called_) problems_[kCreate].clear();
  }

  // Why HBase looks unusable ("" when the last call reached it).
  std::string Problem(std::chrono::seconds stuck_after) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (call_started_) {
      auto running = std::chrono::steady_clock::now() - *call_started_;
      if (running > stuck_after) {
        return "embedded JVM: an HBase call has been running for " +
               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(running).count()) +
               " s";
      }
    }
    if (!problems_[kConnect].empty()) return problems_[kConnect];
    if (!problems_[kDescribe].empty()) return problems_[kDescribe];
    return problems_[kCreate];
  }
  Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    auto loads = admin_->RegionLoads(tables);
    Observe(kDescribe, loads.ok() ? Status::Ok() : loads.status());
    return loads;
  }
  Status SplitRegion(const std::string& encoded_region) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status split = admin_->SplitRegion(encoded_region);
    Observe(kDescribe, split);
    return split;
  }
  Result<std::vector<std::string>> SampleRowKeys(const std::string& table,
                                                 const std::string& start_key,
                                                 const std::string& end_key, int max_keys,
                                                 int64_t max_rows) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    auto keys = admin_->SampleRowKeys(table, start_key, end_key, max_keys, max_rows);
    Observe(kDescribe, keys.ok() ? Status::Ok() : keys.status());
    return keys;
  }
  Status SplitRegionAt(const std::string& encoded_region, const std::string& split_point) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status split = admin_->SplitRegionAt(encoded_region, split_point);
    Observe(kDescribe, split);
    return split;
  }
  std::vector<std::string> LiveServers() override {
    return admin_ ? admin_->LiveServers() : std::vector<std::string>{};
  }
  Status MoveRegion(const std::string& encoded_region, const std::string& server) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    Status moved = admin_->MoveRegion(encoded_region, server);
    Observe(kDescribe, moved);
    return moved;
  }
  Status DisableTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    Status disabled = admin_->DisableTable(table);
    Observe(kDescribe, disabled);
    return disabled;
  }
  Status DeleteTable(const std::string& table) override {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    Status deleted = admin_->DeleteTable(table);
    Observe(kDescribe, deleted);
    return deleted;
  }
  Result<PermissionReport> CheckPermissions(const std::vector<std::string>& tables,
                                            bool replication) {
    PRESPLIT_RETURN_IF_ERROR(EnsureConnected());
    InFlight call(*this);
    auto report = admin_->CheckPermissions(tables, replication);
    Observe(kDescribe, report.ok() ? Status::Ok() : report.status());
    return report;
  }

 private:
  // Marks a JVM call in flight for the health check.
  struct InFlight {
    explicit InFlight(ConnectOnDemandAdmin& a) : admin(a) {
      std::lock_guard<std::mutex> lock(admin.mu_);
      admin.call_started_ = std::chrono::steady_clock::now();
    }
    ~InFlight() {
      std::lock_guard<std::mutex> lock(admin.mu_);
      admin.call_started_.reset();
    }
    ConnectOnDemandAdmin& admin;
  };

  static bool IsConnectionLevel(const Status& s) {
    if (s.code() == StatusCode::kUnavailable) return true;
    std::string lower = s.message();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return lower.find("connection is closed") != std::string::npos ||
           lower.find("hconnection is closed") != std::string::npos ||
           lower.find("connection closed") != std::string::npos;
  }

  enum Call { kConnect, kDescribe, kCreate, kCalls };

  void Observe(Call call, const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (s.ok() || !IsConnectionLevel(s)) {
      problems_[call].clear();  // HBase answered, even if it refused
      return;
    }
    problems_[call] = "HBase unreachable: " + s.message();
    spdlog::warn("HBase connection failed ({}); reconnecting on the next call", s.message());
    drop_ = true;
  }

  Status EnsureConnected() {
    if (drop_) {
      drop_ = false;
      admin_.reset();  // closes the old connection
    }
    if (admin_) return Status::Ok();
    if (kerberos_ != nullptr && !kerberos_->logged_in()) {
      return Status::Unavailable("not connected to HBase: no Kerberos login as " +
                                 kerberos_->principal() + " yet");
    }
    Result<std::unique_ptr<JniHBaseAdmin>> admin = Status::Internal("not connected");
    {
      InFlight call(*this);
      admin = JniHBaseAdmin::Connect(jvm_, settings_);
    }
    if (!admin.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      problems_[kConnect] =
          (admin.status().code() == StatusCode::kUnavailable ? "HBase unreachable: "
                                                             : "embedded JVM unusable: ") +
          admin.status().message();
      return admin.status();
    }
    admin_ = std::move(admin).value();
    {
      std::lock_guard<std::mutex> lock(mu_);
      problems_[kConnect].clear();
    }
    spdlog::info("connected to HBase (zookeeper quorum {})",
                 settings_.count("hbase.zookeeper.quorum") ? settings_.at("hbase.zookeeper.quorum")
                                                           : "from hbase-site.xml");
    return Status::Ok();
  }

  JvmHost& jvm_;
  const std::map<std::string, std::string> settings_;
  const KerberosLoginState* const kerberos_;
  std::unique_ptr<JniHBaseAdmin> admin_;  // used on the reconcile worker only
  bool drop_ = false;                     // reconcile worker only
  mutable std::mutex mu_;                 // guards what /healthz reads
  std::string problems_[kCalls];
  bool create_called_ = false;
  std::optional<std::chrono::steady_clock::time_point> call_started_;
};

}  // namespace presplit::daemon
