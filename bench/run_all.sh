#!/usr/bin/env bash
# Every benchmark that needs no more than the local cluster, from one command: builds what they
# run against, then runs in turn bench/run_native_bench.sh, run_policy_bench.sh,
# run_sampler_bench.sh, run_sdk_bench.sh and run_reaction_bench.sh (each starts and stops a
# cluster of its own where it needs one), and prints one summary table (figure, presplit,
# baseline, ratio, target, met?) of the rows they append to $PRESPLIT_BENCH_SUMMARY. The table
# is also written as JSON (default <build>/bench-summary.json), with the machine's load.
#
#   bench/run_all.sh [--quick] [--no-build] [--only native,policy,sampler,sdk,reaction]
#                    [--json FILE]
#
# --quick: small sizes and few rounds (~10 minutes on 2 cores; the full run ~20), for proving
# that everything works or for a loaded machine; its figures are noisier (RESULTS.md says which
# runs were quick). The full logs of each benchmark go to <build>/bench-logs/NAME.log.
# Exits non-zero when a benchmark fails (an error or a wrong result), not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
export PRESPLIT_BUILD_DIR=$BUILD_DIR

quick=0
build=1
only=native,policy,sampler,sdk,reaction
json=$BUILD_DIR/bench-summary.json
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --only) only=$2; shift ;;
    --json) json=$2; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_all: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

load() { uptime | sed 's/.*load average: *//'; }

if ((build)); then
  # What the benchmarks run against: the JNI library, presplitd and presplitctl (reaction), and
  # presplit-hbase.jar; the native benchmark builds its own Release tree.
  cmake -S "$REPO" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD_DIR" --target presplit_jni presplitd presplitctl >/dev/null
  mvn -q -B -f "$REPO/java-shim/pom.xml" package -DskipTests -Dpresplit.jni.dir="$BUILD_DIR/jni"
fi

logs=$BUILD_DIR/bench-logs
mkdir -p "$logs"
rows=$BUILD_DIR/bench-summary.jsonl
: >"$rows"
export PRESPLIT_BENCH_SUMMARY=$rows

if ((quick)); then
  native_args=("" "--benchmark_filter=BM_(SampledSplit_(Selection|SortAndStep|MultiSelect|MemcpyPass)|Salt/murmur3|SplitDecisionAndSnap)")
  policy_args=(--rows 20000 --groups 200 --ops 1000 --rounds 7 --warmup 3)
  sampler_args=(--run-rounds 0 --rounds 6 --max-rounds 12 --puts 10000)
  sdk_args=(--cluster-only --groups 300 --group-rows 50 --lookups 600 --lookup-warmup 100
    --scan-rows 50000 --scan-rounds 5 --ranges 10)
  reaction_args=(--rounds 3)
else
  native_args=()
  policy_args=()
  sampler_args=()
  sdk_args=(--groups 1000 --lookups 3000 --lookup-warmup 300 --scan-rows 100000
    --scan-rounds 10 --ranges 20)
  reaction_args=()
fi

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_start=$(load)
declare -a ran=() failed=() loads=()
run() {
  local name=$1
  shift
  [[ ,$only, == *,$name,* ]] || return 0
  local before
  before=$(load)
  echo "run_all: $name ($(date -u +%H:%M:%S), load $before) -> $logs/$name.log"
  if "$@" >"$logs/$name.log" 2>&1; then
    ran+=("$name")
  else
    echo "run_all: $name FAILED (exit $?); the end of its log:" >&2
    tail -20 "$logs/$name.log" >&2
    failed+=("$name")
  fi
  loads+=("$name: $before -> $(load)")
}

run native "$REPO/bench/run_native_bench.sh" "${native_args[@]}"
run policy "$REPO/bench/run_policy_bench.sh" --no-build "${policy_args[@]}"
run sampler "$REPO/bench/run_sampler_bench.sh" --no-build "${sampler_args[@]}"
run sdk "$REPO/bench/run_sdk_bench.sh" --no-build "${sdk_args[@]}"
run reaction "$REPO/bench/run_reaction_bench.sh" --no-build "${reaction_args[@]}"

python3 - "$rows" "$json" "$started" "$load_start" "$(load)" "$quick" "$(nproc)" \
  "${loads[@]+"${loads[@]}"}" <<'PY'
import json, sys

rows_file, json_file, started, load_start, load_end, quick, cores = sys.argv[1:8]
loads = sys.argv[8:]
rows = [json.loads(line) for line in open(rows_file) if line.strip()]
by_id = {r["id"]: r for r in rows}

# The policy benchmark times the decision through JNI with the inputs of the C++ benchmark:
# set the two side by side (what JNI and the per-call layout validation add).
jni, cpp = by_id.get("policy.jni_decision_snap"), by_id.get("native.decision_snap")
if jni and cpp and jni.get("presplit") and cpp.get("presplit"):
    jni.update(baseline=cpp["presplit"], baseline_name="the same decision in pure C++",
               ratio=jni["presplit"] / cpp["presplit"], ratio_of="JNI/C++",
               note="the production path's native call vs native_bench's figure")

def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:#.3g}"

def met(r):
    if r.get("target") is None:
        return "-"
    if r.get("met") is None:
        return "unresolved"
    return "yes" if r["met"] else "NO"

table = [("bench", "figure", "presplit", "baseline", "ratio", "target", "met?")]
for r in rows:
    ratio = "-" if r.get("ratio") is None else f"{r['ratio']:#.3g}x ({r.get('ratio_of') or ''})"
    baseline = fmt(r.get("baseline"))
    if r.get("baseline_name"):
        baseline += f" ({r['baseline_name']})"
    table.append((r["bench"], r["figure"], fmt(r.get("presplit")), baseline, ratio,
                  r.get("target") or "-", met(r)))
widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
print()
print(f"== presplit benchmark summary{' (--quick)' if quick == '1' else ''}: {started}, "
      f"{cores} cores, load {load_start} at the start, {load_end} at the end ==")
for i, row in enumerate(table):
    print("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
    if i == 0:
        print("  ".join("-" * w for w in widths))
for r in rows:
    if r.get("note"):
        print(f"  {r['id']}: {r['note']}")
print("load (1, 5, 15 min) before -> after each benchmark: " + "; ".join(loads))

with open(json_file, "w") as out:
    json.dump({"started": started, "quick": quick == "1", "cores": int(cores),
               "load_start": load_start, "load_end": load_end, "loads": loads, "rows": rows},
              out, indent=2)
    out.write("\n")
print(f"summary written to {json_file}")
PY

if ((${#failed[@]})); then
  echo "run_all: failed: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
