// Errors as values: every fallible function at a module boundary of presplit returns a Status
// (no value) or a Result<T> (a value or a Status). Exceptions never cross these boundaries.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace presplit {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from a user or a config document; retrying will not help
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,  // the world is not in the state the call needs (e.g. table differs)
  kUnavailable,         // a server could not be reached; retrying may help
  kPermissionDenied,    // the caller's identity may not do this (e.g. a ZooKeeper ACL)
  kInternal,            // a bug or an unexpected failure of a dependency
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status PermissionDenied(std::string m) {
    return {StatusCode::kPermissionDenied, std::move(m)};
  }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "context: message" (no-op on OK).
  Status WithContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value of T or a non-OK Status. Accessing value() of an error is a programming error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  const T& value() const& { return std::get<T>(data_); }
  T& value() & { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace presplit

#define PRESPLIT_CONCAT_INNER(a, b) a##b
#define PRESPLIT_CONCAT(a, b) PRESPLIT_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define PRESPLIT_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    ::presplit::Status presplit_status_ = (expr);        \
    if (!presplit_status_.ok()) return presplit_status_; \
  } while (0)

// `PRESPLIT_ASSIGN_OR_RETURN(auto x, Compute());` binds the value or returns the error.
#define PRESPLIT_ASSIGN_OR_RETURN(lhs, expr) \
  PRESPLIT_ASSIGN_OR_RETURN_IMPL(PRESPLIT_CONCAT(presplit_result_, __LINE__), lhs, expr)
#define PRESPLIT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
