#!/usr/bin/env bash
# Builds libpresplit's benchmarks in Release (a build tree of their own) and runs them, then
# prints the ratios issue 4 sets targets for. CPU times are used (the benchmark's "cpu_time"),
# so other load on the machine inflates wall time more than the ratios.
#   bench/run_native_bench.sh [BUILD_DIR] [extra native_bench flags...]
#   (BUILD_DIR default: build/bench-release; the raw JSON is kept as BUILD_DIR/native_bench.json)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench-release}
shift || true

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target native_bench -j "$(nproc)" >/dev/null

echo "machine: $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
json=$build/native_bench.json
"$build/bench/native_bench" --benchmark_format=console --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

python3 - "$json" <<'PY'
import json, sys

with open(sys.argv[1]) as f:
    runs = [b for b in json.load(f)["benchmarks"] if b.get("run_type", "iteration") == "iteration"]

def cpu_seconds(prefix):
    """Mean CPU seconds per iteration of the first benchmark whose name starts with prefix."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for b in runs:
        if b["name"].startswith(prefix):
            return b["cpu_time"] * scale[b["time_unit"]]
    return None

def verdict(ok):
    return "meets target" if ok else "MISSES target"

print()
print("== libpresplit targets (CPU time) ==")
sel = cpu_seconds("BM_SampledSplit_Selection")
sort = cpu_seconds("BM_SampledSplit_SortAndStep")
multi = cpu_seconds("BM_SampledSplit_MultiSelect")
tree = cpu_seconds("BM_SampledSplit_OrderedSet")
copy = cpu_seconds("BM_SampledSplit_MemcpyPass")
if sel and sort and multi and tree and copy:
    print(f"sampled split, 10M 24-byte keys into 120 regions: selection {sel * 1e3:.0f} ms, "
          f"sort + step {sort * 1e3:.0f} ms, multi-selection (nth_element) {multi * 1e3:.0f} ms, "
          f"ordered set (the seed's TreeSet method) {tree * 1e3:.0f} ms, one memcpy pass {copy * 1e3:.0f} ms")
    print(f"  sort + step / selection      = {sort / sel:.1f}x  (target >= 20x: {verdict(sort / sel >= 20)})")
    print(f"  multi-selection / selection  = {multi / sel:.1f}x  (no target: the strongest baseline)")
    print(f"  ordered set / selection      = {tree / sel:.1f}x  (the seed's method)")
    print(f"  selection / memcpy           = {sel / copy:.2f}x  (target <= 5x: {verdict(sel / copy <= 5)})")
for b in runs:
    name = b["name"]
    if name.startswith("BM_Salt/"):
        _, hash_name, size = name.split("/")[:3]
        per_core = b["items_per_second"]  # single-threaded: keys per second per core
        line = f"salting {hash_name:<13} {size:>2}-byte keys: {per_core / 1e6:7.1f} M keys/s/core"
        if hash_name == "murmur3" and size == "32":
            line += f"  (target >= 100 M: {verdict(per_core >= 100e6)})"
        print(line)
snap = cpu_seconds("BM_SplitDecisionAndSnap")
if snap:
    print(f"split decision + snap: {snap * 1e9:.0f} ns  (target < 200 ns: {verdict(snap < 200e-9)})")
PY
