#include "daemon/zk/zk_auth.h"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace presplit::daemon {
namespace {

constexpr int kDigestLength = 28;  // base64 of SHA-1's 20 bytes

std::string Trim(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

bool IsBase64Digest(const std::string& s) {
  if (s.size() != kDigestLength || s.back() != '=') return false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!std::isalnum(c) && c != '+' && c != '/') return false;
  }
  return true;
}

// One ACL identity of the file: the identity's own user name, or "user:DIGEST".
Result<std::string> ParseDigestId(const std::string& key, const std::string& value,
                                  const ZkCredentials& identity) {
  const size_t colon = value.find(':');
  if (colon == std::string::npos) {
    if (value.empty()) return Status::InvalidArgument(key + ": empty identity");
    if (value != identity.user) {
      return Status::InvalidArgument(
          key + ": user '" + value +
          "' is not this file's identity; give it in hashed form user:DIGEST (presplitctl "
          "zk-digest prints it)");
    }
    const std::string password = identity.secret.substr(identity.user.size() + 1);
    return value + ":" + ZkDigest(value, password);
  }
  const std::string user = value.substr(0, colon);
  if (user.empty()) return Status::InvalidArgument(key + ": empty user name");
  // The part after the colon is not echoed: a password written there by mistake stays unprinted.
  if (!IsBase64Digest(value.substr(colon + 1))) {
    return Status::InvalidArgument(
        key + ": the identity of '" + user +
        "' is not a digest (base64 of SHA-1, 28 characters ending in '='); presplitctl "
        "zk-digest user:password prints it");
  }
  return value;
}

void AddPerms(ZkAcl& acl, const std::string& scheme, const std::string& id, int perms) {
  for (auto& entry : acl) {
    if (entry.scheme == scheme && entry.id == id) {
      entry.perms |= perms;
      return;
    }
  }
  acl.push_back({perms, scheme, id});
}

// `owner` may do everything; the other of portal/daemon and the readers may read.
ZkAcl OwnedAcl(const ZkAuthConfig& config, const std::string& owner) {
  ZkAcl acl;
  AddPerms(acl, "digest", owner, kZkPermAll);
  AddPerms(acl, "digest", config.portal, kZkPermRead);
  AddPerms(acl, "digest", config.daemon, kZkPermRead);
  if (config.readers.empty()) {
    AddPerms(acl, "world", "anyone", kZkPermRead);
  } else {
    for (const auto& reader : config.readers) AddPerms(acl, "digest", reader, kZkPermRead);
  }
  return acl;
}

}  // namespace

ZkAcl OpenAcl() { return {{kZkPermAll, "world", "anyone"}}; }

bool WritableByAnyone(const ZkAcl& acl) {
  for (const auto& entry : acl) {
    if (entry.scheme == "world" && entry.id == "anyone" && (entry.perms & ~kZkPermRead) != 0) {
      return true;
    }
  }
  return false;
}

std::string FormatAcl(const ZkAcl& acl) {
  std::string out;
  for (const auto& entry : acl) {
    if (!out.empty()) out += ",";
    std::string perms;
    if (entry.perms & kZkPermCreate) perms += 'c';
    if (entry.perms & kZkPermDelete) perms += 'd';
    if (entry.perms & kZkPermRead) perms += 'r';
    if (entry.perms & kZkPermWrite) perms += 'w';
    if (entry.perms & kZkPermAdmin) perms += 'a';
    out += entry.scheme + ":" + entry.id + ":" + perms;
  }
  return out;
}

std::string ZkDigest(const std::string& user, const std::string& password) {
  const std::string plain = user + ":" + password;
  unsigned char sha1[EVP_MAX_MD_SIZE];
  unsigned int sha1_length = 0;
  EVP_Digest(plain.data(), plain.size(), sha1, &sha1_length, EVP_sha1(), nullptr);
  unsigned char base64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int length = EVP_EncodeBlock(base64, sha1, static_cast<int>(sha1_length));
  return std::string(reinterpret_cast<const char*>(base64), static_cast<size_t>(length));
}

Result<std::string> ZkDigestId(const std::string& user_colon_password) {
  const size_t colon = user_colon_password.find(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument("expected user:password");
  }
  const std::string user = user_colon_password.substr(0, colon);
  return user + ":" + ZkDigest(user, user_colon_password.substr(colon + 1));
}

Result<ZkAuthConfig> ParseZkAuthConfig(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    const std::string where = "line " + std::to_string(number);
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument(where + ": expected key = value");
    }
    const std::string key = Trim(line.substr(0, eq));
    if (key != "scheme" && key != "identity" && key != "portal" && key != "daemon" &&
        key != "readers") {
      return Status::InvalidArgument(where + ": unknown key '" + key +
                                     "' (scheme, identity, portal, daemon, readers)");
    }
    if (values.count(key)) return Status::InvalidArgument(where + ": " + key + " given twice");
    values[key] = Trim(line.substr(eq + 1));
  }

  ZkAuthConfig config;
  const std::string scheme = values.count("scheme") ? values["scheme"] : "digest";
  if (scheme != "digest") {
    return Status::InvalidArgument(
        "scheme '" + scheme +
        "' is not supported: presplitd and presplitctl authenticate with digest only (the "
        "ZooKeeper C client they use is built without SASL)");
  }
  for (const char* required : {"identity", "portal", "daemon"}) {
    if (!values.count(required) || values[required].empty()) {
      return Status::InvalidArgument(std::string("missing ") + required);
    }
  }
  const std::string& identity = values["identity"];
  const size_t colon = identity.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == identity.size()) {
    return Status::InvalidArgument("identity: expected user:password");
  }
  config.identity = {scheme, identity.substr(0, colon), identity};
  PRESPLIT_ASSIGN_OR_RETURN(config.portal,
                            ParseDigestId("portal", values["portal"], config.identity));
  PRESPLIT_ASSIGN_OR_RETURN(config.daemon,
                            ParseDigestId("daemon", values["daemon"], config.identity));
  const std::string readers = values.count("readers") ? values["readers"] : "world";
  if (readers != "world") {
    std::istringstream items(readers);
    std::string item;
    while (std::getline(items, item, ',')) {
      PRESPLIT_ASSIGN_OR_RETURN(std::string reader,
                                ParseDigestId("readers", Trim(item), config.identity));
      config.readers.push_back(std::move(reader));
    }
    if (config.readers.empty()) {
      return Status::InvalidArgument("readers: expected world or a list of identities");
    }
  }
  return config;
}

Result<LoadedZkAuth> LoadZkAuthFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read ZooKeeper credentials file " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto config = ParseZkAuthConfig(buffer.str());
  if (!config.ok()) return config.status().WithContext(path);
  LoadedZkAuth loaded{std::move(*config), ""};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    loaded.warning = "ZooKeeper credentials file " + path + " is accessible to its group or " +
                     "others (mode " + mode + "); make it readable by its owner only: chmod 600 " +
                     path;
  }
  return loaded;
}

ZkAcls OpenAcls() {
  ZkAcls acls;
  acls.open = true;
  acls.root = acls.tables = acls.document = acls.status_dir = acls.status = acls.migration_plan =
      acls.migration_requests = acls.migration_request = acls.leader = OpenAcl();
  return acls;
}

ZkAcls BuildZkAcls(const ZkAuthConfig& config) {
  ZkAcls acls;
  acls.open = false;
  acls.root = OwnedAcl(config, config.daemon);
  AddPerms(acls.root, "digest", config.portal, kZkPermCreate);
  acls.tables = OwnedAcl(config, config.portal);
  acls.document = OwnedAcl(config, config.portal);
  acls.status_dir = OwnedAcl(config, config.daemon);
  acls.status = OwnedAcl(config, config.daemon);
  // A plan is the daemon's alone (it names tables to drop); operators ask through requests.
  acls.migration_plan = OwnedAcl(config, config.daemon);
  acls.migration_requests = OwnedAcl(config, config.daemon);
  AddPerms(acls.migration_requests, "digest", config.portal, kZkPermCreate | kZkPermDelete);
  acls.migration_request = OwnedAcl(config, config.daemon);
  AddPerms(acls.migration_request, "digest", config.portal, kZkPermWrite);
  acls.leader = OwnedAcl(config, config.daemon);
  return acls;
}

Result<ZkAccess> LoadZkAccess(const std::string& auth_file, const std::string& root) {
  ZkAccess access;
  if (auth_file.empty()) {
    spdlog::warn(
        "ZooKeeper access control is off (no zk_auth_file): anyone who reaches ZooKeeper can "
        "change the documents under {0}/tables and the statuses under {0}/status",
        root);
    return access;
  }
  PRESPLIT_ASSIGN_OR_RETURN(LoadedZkAuth loaded, LoadZkAuthFile(auth_file));
  if (!loaded.warning.empty()) spdlog::warn("{}", loaded.warning);
  access.credentials = loaded.config.identity;
  access.acls = BuildZkAcls(loaded.config);
  auto user_of = [](const std::string& id) { return id.substr(0, id.find(':')); };
  std::string readers;
  for (const auto& reader : loaded.config.readers) {
    readers += (readers.empty() ? "" : ", ") + user_of(reader);
  }
  spdlog::info(
      "ZooKeeper access control on: authenticating as {}; documents under {}/tables writable by "
      "{} only, statuses under {}/status by {} only, both readable by {}",
      access.credentials.scheme + ":" + access.credentials.user, root,
      user_of(loaded.config.portal), root, user_of(loaded.config.daemon),
      readers.empty() ? "anyone" : readers);
  return access;
}

}  // namespace presplit::daemon
