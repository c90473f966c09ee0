// How a JVM that runs the HBase client is started, shared by the daemon's embedded JVM
// (JvmHost) and the `java` that presplitctl import runs: plain code, no JNI.
#pragma once

#include <string>
#include <vector>

namespace presplit::daemon {

// The flags HBase's own launcher passes on JDK 11+ (module opens for Netty and friends).
std::vector<std::string> HBaseJdk17Options();

// Classpath entries joined with ':', empty entries left out.
std::string JoinClasspath(const std::vector<std::string>& entries);

}  // namespace presplit::daemon
