#include "daemon/hbase/jdk_options.h"

namespace presplit::daemon {

std::vector<std::string> HBaseJdk17Options() {
  return {
      "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
      "--add-modules=jdk.unsupported",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
      "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "--add-exports=java.base/sun.net.dns=ALL-UNNAMED",
      "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
  };
}

std::string JoinClasspath(const std::vector<std::string>& entries) {
  std::string out;
  for (const auto& e : entries) {
    if (e.empty()) continue;
    if (!out.empty()) out += ':';
    out += e;
  }
  return out;
}

}  // namespace presplit::daemon
