// The one home of a migration's records in ZooKeeper (see migration_plan.h for their shapes):
// paths, reads, creation, compare-and-set writes and removal of the plan, its checkpoints and the
// operators' requests. Nothing else reads or writes those znodes.
//
// Every write is compare-and-set on the version the caller read and is refused when this daemon
// does not hold the lease (checked right before the write, under the same lock): a conflict is
// reported as FailedPrecondition and nothing is merged, so the caller reads again and decides
// again; it never writes back state it read before someone else's write.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "daemon/migrate/migration_plan.h"
#include "daemon/migrate/migration_request.h"
#include "daemon/zk/zk_client.h"

namespace presplit::daemon::migrate {

// The largest plan written, in bytes of JSON. ZooKeeper refuses a request larger than its
// jute.maxbuffer (1 MiB by default) by dropping the connection, which a caller could not tell
// from a network fault and would retry forever; the path and the request's header travel with
// the data, hence the margin. ParsePlan reads up to kMaxJsonBytes, so every plan written is
// readable.
inline constexpr size_t kMaxPlanBytes = 1024 * 1024 - 4096;

// Parts. A plan's per-region fields (source_regions; capture.closed_before, written at the switch,
// the fence and a rollback) grow with the table's region count: 10,000 regions with 100-byte keys
// are about 3 MB of JSON. Each one larger than PlanPartLimits.inline_bytes (kInlinePartBytes by
// default) is kept out of the plan's znode, in chunks of at most chunk_bytes named by the MD5
// of its JSON: <root>/migration-parts/<table>/<md5>.<k>. The plan then holds, instead of the
// field, {"parts": {"<field>": {"md5": "...", "chunks": N, "bytes": B}, ...}}. A write creates the
// chunks it names that are missing (a name says its content), then writes the plan, then deletes
// the chunks no plan names any more: the plan's compare-and-set stays the one commit point, and
// a plan's znode stays the same size whatever the region count. A field of more than
// max_chunks chunks is refused like a plan too large (InvalidArgument, nothing written).
inline constexpr size_t kInlinePartBytes = 64 * 1024;
inline constexpr size_t kPartChunkBytes = 512 * 1024;
inline constexpr size_t kMaxPartChunks = 64;
struct PlanPartLimits {
  size_t inline_bytes = kInlinePartBytes;
  size_t chunk_bytes = kPartChunkBytes;
  size_t max_chunks = kMaxPartChunks;
};

class PlanStore {
 public:
  struct Versioned {
    MigrationPlan plan;
    int version = 0;
  };
  struct PendingRequest {
    Request request;
    int version = 0;
  };

  // `lease` is asked right before every write, under the store's lock (unset: always granted).
  // `zk_mu`, when given, is the lock of every ZooKeeper call of the store's owner too (one call
  // at a time through it), else the store has its own.
  PlanStore(ZkClient& zk, std::string zk_root, ZkAcls acls, std::function<bool()> lease = nullptr,
            std::mutex* zk_mu = nullptr)
      : zk_(zk),
        root_(std::move(zk_root)),
        acls_(std::move(acls)),
        lease_(std::move(lease)),
        mu_(zk_mu != nullptr ? *zk_mu : own_mu_) {}

  // See "Parts" above; tests make them smaller.
  void set_part_limits(PlanPartLimits limits) { parts_ = limits; }

  // Creates <root>/migrations, <root>/migration-parts and <root>/requests when missing.
  Status Prepare();

  // The tables with a plan. An absent migrations znode is an empty list.
  Result<std::vector<std::string>> List();

  // NotFound when the table has no plan; InvalidArgument when the plan cannot be parsed.
  Result<Versioned> Read(const std::string& table);

  // AlreadyExists when the table has a plan. InvalidArgument (nothing written), naming the size,
  // when the plan's JSON is larger than kMaxPlanBytes.
  Status Create(const MigrationPlan& plan);

  // Writes node.plan over the version node.version (then increments it). FailedPrecondition when
  // the plan changed since it was read (re-read and re-decide) or when the lease is lost;
  // InvalidArgument (nothing written) when it is larger than kMaxPlanBytes.
  Status CompareAndSet(Versioned& node);

  // Removes the plan, its checkpoints, its parts and a pending request (each NotFound-safe).
  Status Remove(const std::string& table);

  // One checkpoint per source region (absent ones: default, version -1).
  struct Checkpoint {
    RegionCheckpoint checkpoint;
    int version = -1;  // -1: not written yet
  };
  Result<std::vector<Checkpoint>> ReadCheckpoints(const std::string& table, size_t regions);
  // Creates (version -1) or compare-and-sets a region's checkpoint; updates `cp.version`.
  Status WriteCheckpoint(const std::string& table, size_t region, Checkpoint& cp);

  // The operators' pending request, if any. A request that is not valid is an error naming it.
  Result<std::optional<PendingRequest>> ReadRequest(const std::string& table);
  // Removes a handled request: only the version that was read (a newer one stays pending).
  Status ClearRequest(const std::string& table, int version);

 private:
  bool Leads();
  std::string CheckpointsPath(const std::string& table) const;
  // One chunk znode to create: its name under PlanPartsPath and its bytes.
  struct PartChunk {
    std::string name;
    std::string data;
  };
  // The plan's JSON for its znode, the chunks of the fields moved to parts.
  struct StoredPlan {
    std::string json;
    std::vector<PartChunk> chunks;
  };
  Result<StoredPlan> ToStored(const MigrationPlan& plan) const;
  // Creates the chunks that are missing (under mu_).
  Status WriteChunksLocked(const std::string& table, const std::vector<PartChunk>& chunks);
  // Deletes the chunks of `table` that `kept` does not name (under mu_); errors only logged.
  void DeleteOtherChunksLocked(const std::string& table, const std::vector<PartChunk>& kept);
  // The plan's JSON with its parts read back in (under mu_).
  Result<std::string> WithPartsLocked(const std::string& table, const std::string& json);

  ZkClient& zk_;
  const std::string root_;
  const ZkAcls acls_;
  const std::function<bool()> lease_;
  std::mutex own_mu_;
  std::mutex& mu_;  // one ZooKeeper call (and its lease check) at a time
  PlanPartLimits parts_;
  // The chunks this store knows exist, per table (created or found by it, not deleted since):
  // not created again on every write of the plan.
  std::map<std::string, std::set<std::string>> chunks_known_;
};

}  // namespace presplit::daemon::migrate
