#!/usr/bin/env bash
# The key visualizer's GET /keyviz.json (issue 26): the handler's work after the store's Read
# (parameters, the matrix over one key axis, the diagnoses, the JSON) for a synthetic 1,000-region
# salted table over 6 h of 1-minute columns. Target: at most 200 ms. No cluster needed. Release
# build in a tree of its own, like run_native_bench.sh.
#   bench/run_keyviz_bench.sh [BUILD_DIR] [keyviz_bench flags: --regions R --buckets B
#                                           --columns C --runs N]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench-release}
shift || true
[[ -n $build ]] || build=$root/build/bench-release

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target keyviz_bench -j "$(nproc)" >/dev/null
echo "machine: $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
"$build/bench/keyviz_bench" "$@"
