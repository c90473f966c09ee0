// The wall clock as presplit writes it into its znodes: "2026-11-26T09:00:00Z" (UTC, seconds).
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace presplit::daemon {

inline std::string UtcNow() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace presplit::daemon
