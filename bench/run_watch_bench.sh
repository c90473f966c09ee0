#!/usr/bin/env bash
# The load watcher at cluster scale (issue 9): presplitd's LoadWatcher (tracker, scorer, planner)
# fed by a synthetic cluster of 2,000 tables and 100,000 regions, polled as the daemon polls it.
# Prints CPU per poll, the share of one core at a 10 s interval (target <= 5%) and resident memory.
# No cluster needed. Release build in a tree of its own, like run_native_bench.sh.
#   bench/run_watch_bench.sh [BUILD_DIR] [watch_bench flags: --tables T --regions R --polls P
#                                          --interval-s S]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench-release}
shift || true

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target watch_bench -j "$(nproc)" >/dev/null
echo "machine: $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
"$build/bench/watch_bench" "$@"
