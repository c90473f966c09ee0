#include "presplit/table_name.h"

#include <cstddef>

#include "presplit/bytes.h"

namespace presplit {
namespace {

constexpr size_t kMaxNamePartLength = 255;

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

}  // namespace

Status ValidateTableName(std::string_view name) {
  const std::string shown = "invalid table name '" + ToStringBinary(name) + "': ";
  if (name.empty()) return Status::InvalidArgument(shown + "must not be empty");
  size_t colon = name.find(':');
  std::string_view ns;
  std::string_view qualifier = name;
  if (colon != std::string_view::npos) {
    ns = name.substr(0, colon);
    qualifier = name.substr(colon + 1);
    if (qualifier.find(':') != std::string_view::npos) {
      return Status::InvalidArgument(shown + "more than one ':'");
    }
    if (ns.empty()) return Status::InvalidArgument(shown + "the namespace before ':' is empty");
    if (ns.size() > kMaxNamePartLength) {
      return Status::InvalidArgument(shown + "the namespace is longer than " +
                                     std::to_string(kMaxNamePartLength) + " characters");
    }
    for (size_t i = 0; i < ns.size(); ++i) {
      char c = ns[i];
      if (!IsAsciiAlnum(c) && c != '_') {
        return Status::InvalidArgument(shown + "the namespace may only contain [A-Za-z0-9_] ('" +
                                       ToStringBinary(ns.substr(i, 1)) + "' at offset " +
                                       std::to_string(i) + ")");
      }
    }
    if (ns == "hbase") {
      return Status::InvalidArgument(shown +
                                     "the namespace 'hbase' is reserved for HBase's system tables");
    }
  }
  if (qualifier.empty()) return Status::InvalidArgument(shown + "the table qualifier is empty");
  if (qualifier.size() > kMaxNamePartLength) {
    return Status::InvalidArgument(shown + "the table qualifier is longer than " +
                                   std::to_string(kMaxNamePartLength) + " characters");
  }
  if (qualifier[0] == '.' || qualifier[0] == '-') {
    return Status::InvalidArgument(shown + "the table qualifier must not start with '" +
                                   std::string(1, qualifier[0]) + "'");
  }
  for (size_t i = 0; i < qualifier.size(); ++i) {
    char c = qualifier[i];
    if (!IsAsciiAlnum(c) && c != '_' && c != '-' && c != '.') {
      return Status::InvalidArgument(
          shown + "the table qualifier may only contain [A-Za-z0-9_.-] ('" +
          ToStringBinary(qualifier.substr(i, 1)) + "' at offset " + std::to_string(i) + ")");
    }
  }
  if (qualifier == "zookeeper") {
    return Status::InvalidArgument(shown + "'zookeeper' is not allowed as a table qualifier");
  }
  return Status::Ok();
}

Result<TableNameParts> SplitTableName(std::string_view name) {
  PRESPLIT_RETURN_IF_ERROR(ValidateTableName(name));
  TableNameParts parts;
  size_t colon = name.find(':');
  if (colon == std::string_view::npos) {
    parts.namespace_name = std::string(kDefaultNamespace);
    parts.qualifier = std::string(name);
  } else {
    parts.namespace_name = std::string(name.substr(0, colon));
    parts.qualifier = std::string(name.substr(colon + 1));
  }
  return parts;
}

std::string CanonicalTableName(std::string_view name) {
  if (name.find(':') != std::string_view::npos) return std::string(name);
  return std::string(kDefaultNamespace) + ":" + std::string(name);
}

}  // namespace presplit
