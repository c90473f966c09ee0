// Any bytes in a document znode (and in the status znode beside it) go through a reconcile pass
// without crashing, and end as a status that is JSON with a printable error. Drives the real
// Reconciler over the in-memory fakes; the first input byte picks the surroundings (an existing
// table, a status already there, HBase failing).
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "daemon/reconcile/reconciler.h"
#include "tests/daemon/fakes.h"

namespace {

using presplit::daemon::PassKind;
using presplit::daemon::Reconciler;
using presplit::daemon::ReconcilerOptions;
using presplit::daemon::testing::FakeAdmin;
using presplit::daemon::testing::FakeZk;

void Require(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

bool Printable(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  // Mode bit 3: the rest is split at the first 0xFF into the document and a status already there.
  std::string document = rest, old_status;
  if (mode & 8) {
    size_t cut = rest.find('\xff');
    if (cut != std::string::npos) {
      document = rest.substr(0, cut);
      old_status = rest.substr(cut + 1);
    }
  }
  const std::string name = (mode & 1) ? "default:t" : "ns:fuzz";

  FakeZk zk;
  FakeAdmin admin;
  Reconciler reconciler(zk, admin, ReconcilerOptions{"/presplit", "fuzz:1"});
  Require(reconciler.Prepare().ok(), "prepare");
  Require(zk.Upsert("/presplit/tables/" + name, document).ok(), "put document");
  if (mode & 8) Require(zk.Upsert("/presplit/status/" + name, old_status).ok(), "put status");
  if (mode & 2) {
    presplit::daemon::TableDescription existing;
    existing.exists = true;
    existing.enabled = true;
    existing.table = name;
    admin.tables[name] = existing;
  }
  if (mode & 4) admin.create_error = presplit::Status::Unavailable("fuzz: hbase down \xff");

  Require(reconciler.ReconcileAll().ok(), "first pass");
  if (mode & 16) admin.tables.clear();
  Require(reconciler.ReconcileAll(PassKind::kFull).ok(), "full pass");

  auto status = zk.Get("/presplit/status/" + name, false);
  Require(status.ok(), "a status exists");
  auto parsed = nlohmann::json::parse(status->data, nullptr, /*allow_exceptions=*/false);
  Require(parsed.is_object(), "the status is a JSON object");
  const auto& generation = parsed["generation"];
  if (generation.is_number_integer() && generation.get<int64_t>() > 1) {
    return 0;  // a migration's status, left as it was
  }
  Require(parsed.contains("phase") && parsed["phase"].is_string(), "the status has a phase");
  if (parsed["error"].is_string()) {
    Require(Printable(parsed["error"].get<std::string>()), "the error is printable");
  }
  return 0;
}
