#!/usr/bin/env bash
# presplitd's reaction time (issue 8): a table document written into ZooKeeper -> the table
# enabled with its 120 regions online, against a bare Admin.createTable with the same split keys
# on the same cluster, interleaved round by round. See bench/reaction/ReactionBench.java and
# bench/RESULTS.md.
#
#   bench/run_reaction_bench.sh [--no-build] [--rounds R] [--poll-ms P]
#
# Starts a fresh local cluster of its own (ZooKeeper 22410, master 16810, RegionServer 16830, data
# in <build>/reaction-bench-cluster; PRESPLIT_BENCH_* variables choose others) and a presplitd on
# it, stops both on every exit. Exits non-zero only on an error, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-reaction"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/reaction-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22410}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-16810}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-16830}
HTTP_PORT=${PRESPLIT_BENCH_HTTP_PORT:-19490}

build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi

if ((build)); then
  cmake --build "$BUILD_DIR" --target presplitd presplitctl >/dev/null
fi
# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_reaction_bench "$build"
PRESPLITD=$BUILD_DIR/bin/presplitd
PRESPLITCTL=$BUILD_DIR/bin/presplitctl

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP" -d "$WORK_DIR/classes" \
  "$REPO/bench/reaction/ReactionBench.java" "$REPO/bench/lib/BenchSummary.java"

# The split keys presplitctl plans for the document: the baseline creates exactly these.
sed 's/@TABLE@/reactionbench:planned/' "$REPO/bench/reaction/document.json" >"$WORK_DIR/planned.json"
"$PRESPLITCTL" plan "$WORK_DIR/planned.json" >"$WORK_DIR/keys.txt"

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_reaction_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
daemon_pid=""
cleanup() {
  if [[ -n $daemon_pid ]]; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  "$REPO/scripts/local-cluster" stop >&2 || true
}
trap cleanup EXIT

echo "reaction bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4 on $quorum, load:$(uptime | sed 's/.*load average://')"

root=/presplit-reaction-bench
cat >"$WORK_DIR/presplitd.conf" <<CONF
zk_quorum = $quorum
zk_root = $root
presplit_jar = $JAR
jvm_classpath_file = $PRESPLIT_HBASE_CLASSPATH_FILE
http_listen = 127.0.0.1:$HTTP_PORT
log_level = info
CONF
"$PRESPLITD" --config "$WORK_DIR/presplitd.conf" >"$WORK_DIR/presplitd.log" 2>&1 &
daemon_pid=$!
healthy() {
  python3 -c 'import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=2)' "$HTTP_PORT" \
    >/dev/null 2>&1
}
deadline=$((SECONDS + 120))
until healthy; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$WORK_DIR/presplitd.log" >&2; exit 1; }
  ((SECONDS < deadline)) ||
    { echo "run_reaction_bench: presplitd not healthy" >&2; cat "$WORK_DIR/presplitd.log" >&2; exit 1; }
  sleep 0.2
done

"$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xms256m -Xmx256m -cp "$WORK_DIR/classes:$HBASE_CP" \
  ReactionBench --zk "$quorum" --root "$root" --document "$REPO/bench/reaction/document.json" \
  --keys "$WORK_DIR/keys.txt" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
