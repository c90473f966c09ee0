#include "daemon/runner/daemon_context.h"

namespace presplit::daemon {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace presplit::daemon
