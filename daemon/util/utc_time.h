// The wall clock as presplit writes it into its znodes: "2026-11-26T09:00:00Z" (UTC, seconds).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
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

// A time in milliseconds since the epoch, the same way; with `millis`, to the millisecond
// ("2026-11-26T09:00:00.250Z": a switch's write pause lasts seconds).
inline std::string UtcFromMillis(int64_t ms, bool millis = false) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[48];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (millis) {
    std::snprintf(buf, sizeof(buf), ".%03lld", static_cast<long long>(ms % 1000));
    out += buf;
  }
  return out + "Z";
}

}  // namespace presplit::daemon
