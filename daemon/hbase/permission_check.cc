#include "daemon/hbase/permission_check.h"

namespace presplit::daemon {

Result<PermissionReport> ParsePermissionReport(const std::string& json) {
  try {
    const auto j = nlohmann::json::parse(json);
    PermissionReport report;
    report.authorization = j.at("authorization").get<bool>();
    report.principal = j.at("principal").get<std::string>();
    report.checked = j.at("checked").get<int>();
    report.create_checked = j.at("create_checked").get<int>();
    for (const auto& m : j.at("missing")) {
      report.missing.push_back({m.at("permission").get<std::string>(),
                                m.at("scope").get<std::string>(), m.at("for").get<std::string>(),
                                m.at("grant").get<std::string>()});
    }
    return report;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("unexpected permission check from AdminBridge: ") +
                            e.what());
  }
}

std::string MissingPermissionLine(const std::string& principal, const MissingPermission& m) {
  const std::string where =
      m.scope == "GLOBAL" ? "global " + m.permission : m.permission + " on " + m.scope;
  return "HBase permission missing: presplitd's principal " + principal + " lacks " + where +
         ", needed for " + m.for_what + "; as HBase's superuser: " + m.grant;
}

std::vector<std::string> PermissionState::Record(PermissionReport report, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  checked_ = true;
  checked_at_ms_ = now_ms;
  error_.clear();
  std::vector<std::string> lines;
  std::set<std::string> still;
  for (const auto& m : report.missing) {
    std::string line = MissingPermissionLine(report.principal, m);
    still.insert(line);
    if (!logged_.count(line)) lines.push_back(line);
  }
  logged_ = std::move(still);  // a permission granted and revoked again is reported again
  report_ = std::move(report);
  return lines;
}

void PermissionState::Failed(const std::string& error, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  checked_at_ms_ = now_ms;
  error_ = error;
}

nlohmann::ordered_json PermissionState::Json() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::ordered_json out;
  std::string summary;
  if (!error_.empty()) {
    summary = "check failed: " + error_;
  } else if (!checked_) {
    summary = "not checked yet";
  } else if (!report_.authorization) {
    summary = "authorization off, not checked";
  } else if (report_.missing.empty()) {
    summary = "all " + std::to_string(report_.checked) + " held";
  } else {
    summary = std::to_string(report_.missing.size()) + " of " + std::to_string(report_.checked) +
              " missing";
  }
  out["summary"] = summary;
  out["checked_at_ms"] = checked_at_ms_ == 0 ? nlohmann::ordered_json(nullptr)
                                             : nlohmann::ordered_json(checked_at_ms_);
  out["authorization"] =
      checked_ ? nlohmann::ordered_json(report_.authorization) : nlohmann::ordered_json(nullptr);
  out["principal"] = report_.principal.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(report_.principal);
  out["missing"] = nlohmann::ordered_json::array();
  for (const auto& m : report_.missing) {
    nlohmann::ordered_json item;
    item["permission"] = m.permission;
    item["scope"] = m.scope;
    item["for"] = m.for_what;
    item["grant"] = m.grant;
    out["missing"].push_back(std::move(item));
  }
  return out;
}

std::string PermissionState::Problem() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!checked_ || !report_.authorization || report_.create_checked == 0) return "";
  std::vector<const MissingPermission*> create;
  for (const auto& m : report_.missing) {
    if (m.permission == "CREATE") create.push_back(&m);
  }
  if (static_cast<int>(create.size()) < report_.create_checked) return "";
  std::string out = "presplitd's principal " + report_.principal +
                    " holds CREATE on none of the namespaces of its documents; as HBase's "
                    "superuser: ";
  for (size_t i = 0; i < create.size(); ++i) out += (i ? "; " : "") + create[i]->grant;
  return out;
}

uint64_t PermissionState::missing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return report_.missing.size();
}

bool PermissionState::NeedsRecheck() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !checked_ || !error_.empty() || !report_.missing.empty();
}

}  // namespace presplit::daemon
