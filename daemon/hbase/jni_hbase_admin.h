// HBaseAdmin over the embedded JVM: calls io.presplit.hbase.admin.AdminBridge (java-shim), which
// uses the official HBase client (retries, meta caching, security come with it).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "daemon/hbase/hbase_admin.h"
#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/permission_check.h"
#include "daemon/hbase/region_loads.h"

namespace presplit::daemon {

class JniHBaseAdmin final : public HBaseAdmin, public RegionLoadSource {
 public:
  // Connects AdminBridge with these HBase client settings (e.g. hbase.zookeeper.quorum).
  static Result<std::unique_ptr<JniHBaseAdmin>> Connect(
      JvmHost& jvm, const std::map<std::string, std::string>& hbase_settings);
  ~JniHBaseAdmin() override;

  Result<TableDescription> DescribeTable(const std::string& table) override;
  Status CreateTable(const TableSpec& spec) override;
  Result<std::vector<RegionLoadReport>> RegionLoads(
      const std::vector<std::string>& tables) override;
  Status SplitRegion(const std::string& encoded_region) override;
  Result<std::vector<std::string>> SampleRowKeys(const std::string& table,
                                                 const std::string& start_key,
                                                 const std::string& end_key, int max_keys,
                                                 int64_t max_rows) override;
  Status SplitRegionAt(const std::string& encoded_region, const std::string& split_point) override;
  std::vector<std::string> LiveServers() override;
  Status MoveRegion(const std::string& encoded_region, const std::string& server) override;
  Status DisableTable(const std::string& table) override;
  Status DeleteTable(const std::string& table) override;
  // Which of the permissions presplitd needs for these tables its principal holds
  // (permission_check.h); `replication`: a migration's replication peers are needed too.
  Result<PermissionReport> CheckPermissions(const std::vector<std::string>& tables,
                                            bool replication);

 private:
  explicit JniHBaseAdmin(JvmHost& jvm) : jvm_(jvm) {}

  JvmHost& jvm_;
  // Global references and method IDs, resolved once on the JVM thread at Connect.
  jclass bridge_class_ = nullptr;
  jobject bridge_ = nullptr;
  jmethodID describe_table_ = nullptr;
  jmethodID create_table_ = nullptr;
  jmethodID region_loads_ = nullptr;
  jmethodID split_region_ = nullptr;
  jmethodID sample_row_keys_ = nullptr;
  jmethodID split_region_at_ = nullptr;
  jmethodID move_region_ = nullptr;
  jmethodID disable_table_ = nullptr;
  jmethodID delete_table_ = nullptr;
  jmethodID check_permissions_ = nullptr;
  jmethodID close_ = nullptr;

  std::mutex live_servers_mu_;
  std::vector<std::string> live_servers_;  // from the last RegionLoads reply
};

}  // namespace presplit::daemon
