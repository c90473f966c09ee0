#!/usr/bin/env bash
# The key visualizer's history at cluster scale (issue 26): presplitd's LoadHistory fed 2,000
# tables and 100,000 regions on a fake clock until 4 days of history are kept, then measured
# over an hour of 10 s polls. Prints the memory it added (its own estimate and the resident
# memory), CPU per poll and its share of one core (targets: <= 256 MiB, <= 1% at 10 s) and
# the time of a 6-hour Read. No cluster needed. Release build in a tree of its own.
#   bench/run_keyviz_history_bench.sh [BUILD_DIR] [keyviz_history_bench flags: --tables T --regions R
#                              --interval-s S --measure-polls P --fine-resolution-s S
#                              --fine-retention-h H --coarse-resolution-s S
#                              --coarse-retention-h H --budget-mb M]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench-release}
shift || true

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target keyviz_history_bench -j "$(nproc)" >/dev/null
echo "machine: $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
"$build/bench/keyviz_history_bench" "$@"
