#!/usr/bin/env bash
# Builds libpresplit's benchmarks in Release (a build tree of their own) and runs them, then
# prints the ratios issue 4 sets targets for. CPU times are used (the benchmark's "cpu_time"),
# so other load on the machine inflates wall time more than the ratios.
#   bench/run_native_bench.sh [BUILD_DIR] [extra native_bench flags...]
#   (BUILD_DIR default: build/bench-release; the raw JSON is kept as BUILD_DIR/native_bench.json)
#   bench/run_native_bench.sh "" --benchmark_filter=REGEX   runs some benchmarks only (the
#   summary reports what ran); bench/run_all.sh --quick leaves out the ordered set (~50 s).
# With PRESPLIT_BENCH_SUMMARY set, appends its summary rows to that file (bench/run_all.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/bench-release}
shift || true
[[ -n $build ]] || build=$root/build/bench-release

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target native_bench -j "$(nproc)" >/dev/null

echo "machine: $(nproc) cores; $(uptime | sed 's/.*load average/load average/')"
json=$build/native_bench.json
"$build/bench/native_bench" --benchmark_format=console --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

python3 - "$json" "${PRESPLIT_BENCH_SUMMARY:-}" <<'PY'
import json, sys

summary_rows = []

def summary(id, figure, presplit, baseline, baseline_name, ratio, ratio_of, target, met, note):
    summary_rows.append({"bench": "native", "id": id, "figure": figure, "presplit": presplit,
                         "baseline": baseline, "baseline_name": baseline_name, "ratio": ratio,
                         "ratio_of": ratio_of, "target": target, "met": met, "note": note})

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
if sel:
    print(f"sampled split, 10M 24-byte keys into 120 regions: selection {sel * 1e3:.0f} ms"
          + (f", sort + step {sort * 1e3:.0f} ms" if sort else "")
          + (f", multi-selection (nth_element) {multi * 1e3:.0f} ms" if multi else "")
          + (f", ordered set (the seed's TreeSet method) {tree * 1e3:.0f} ms" if tree else "")
          + (f", one memcpy pass {copy * 1e3:.0f} ms" if copy else ""))
    figure = "sampled split, 10M keys into 120 regions, CPU ms"
    if sort:
        print(f"  sort + step / selection      = {sort / sel:.1f}x  (target >= 20x: {verdict(sort / sel >= 20)})")
        summary("native.sampled_split.sort", figure, sel * 1e3, sort * 1e3, "std::sort + step",
                sort / sel, "baseline/presplit", ">= 20", sort / sel >= 20, "")
    if multi:
        print(f"  multi-selection / selection  = {multi / sel:.1f}x  (no target: the strongest baseline)")
        summary("native.sampled_split.multiselect", figure, sel * 1e3, multi * 1e3,
                "nth_element multi-selection", multi / sel, "baseline/presplit", None, None,
                "the strongest baseline")
    if tree:
        print(f"  ordered set / selection      = {tree / sel:.1f}x  (the seed's method)")
        summary("native.sampled_split.ordered_set", figure, sel * 1e3, tree * 1e3,
                "ordered set (TreeSet method)", tree / sel, "baseline/presplit", None, None,
                "the seed's method")
    if copy:
        print(f"  selection / memcpy           = {sel / copy:.2f}x  (target <= 5x: {verdict(sel / copy <= 5)})")
        summary("native.sampled_split.memcpy", figure, sel * 1e3, copy * 1e3,
                "one memcpy pass (lower bound)", sel / copy, "presplit/baseline", "<= 5",
                sel / copy <= 5, "")
for b in runs:
    name = b["name"]
    if name.startswith("BM_Salt/"):
        _, hash_name, size = name.split("/")[:3]
        per_core = b["items_per_second"]  # single-threaded: keys per second per core
        line = f"salting {hash_name:<13} {size:>2}-byte keys: {per_core / 1e6:7.1f} M keys/s/core"
        if hash_name == "murmur3" and size == "32":
            line += f"  (target >= 100 M: {verdict(per_core >= 100e6)})"
            summary("native.salt.murmur3.32", "salting, murmur3, 32-byte keys, M keys/s/core",
                    per_core / 1e6, None, None, None, None, ">= 100 (absolute)",
                    per_core >= 100e6, "no baseline: an absolute target")
        print(line)
snap = cpu_seconds("BM_SplitDecisionAndSnap")
if snap:
    print(f"split decision + snap: {snap * 1e9:.0f} ns  (target < 200 ns: {verdict(snap < 200e-9)})")
    summary("native.decision_snap", "split decision + snap, pure C++, CPU ns/call", snap * 1e9,
            None, None, None, None, "< 200 ns (absolute)", snap < 200e-9,
            "no baseline: an absolute target")

if len(sys.argv) > 2 and sys.argv[2]:
    with open(sys.argv[2], "a") as out:
        for row in summary_rows:
            out.write(json.dumps(row) + "\n")
PY
