#!/usr/bin/env bash
# The bulk re-salting benchmark (issue 11): rows per second of the MapReduce bulk path
# (io.presplit.mapreduce.ResaltBulkJob: snapshot -> re-keying mapper -> HFiles per target region
# -> BulkLoadHFiles, Hadoop's local job runner) against the plain copy a user would write (one
# scanner, rows re-keyed, puts through a BufferedMutator: bench/bulk/PlainCopy.java), on the same
# cluster and the same source table, 10 -> 16 salt buckets. Both targets are compared with the
# source cell by cell (every version, original timestamps) before a figure counts.
#
#   bench/run_bulk_bench.sh [--no-build] [--rows N] [--versions V] [--local-tasks T]
#
# Defaults: 200,000 rows, 3 versions of one column + one more column (about 800,000 cells), 2
# local tasks. The cluster is started fresh (ZooKeeper 22710, master 17110, RegionServer 17130,
# data in <build>/bulk-bench-cluster; PRESPLIT_BENCH_* variables choose others) and stopped on
# every exit. Exits non-zero only on an error or a wrong result, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-bulk"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/bulk-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22710}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17110}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17130}

build=1
rows=200000
versions=3
local_tasks=2
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --rows) rows=$2; shift ;;
    --versions) versions=$2; shift ;;
    --local-tasks) local_tasks=$2; shift ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "run_bulk_bench: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_bulk_bench "$build"

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

rm -rf "$WORK_DIR"
mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP:$JAR" -d "$WORK_DIR/classes" \
  "$REPO/bench/bulk/PlainCopy.java" "$REPO/tests/e2e/java/MapReduceE2E.java"
CP="$WORK_DIR/classes:$HBASE_CP:$JAR"
java_run() { "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xmx768m -cp "$CP" "$@"; }
json_field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read().splitlines()[-1])[sys.argv[1]])' "$1"; }

echo "bulk bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_bulk_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2; exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4 on $quorum (RegionServer heap ${PRESPLIT_RS_HEAP:-512m})"

old='{"salt":{"buckets":10,"encoding":"decimal","hash":"murmur3"},"group":{"delimiter":"|"}}'
new='{"salt":{"buckets":16,"encoding":"decimal","hash":"murmur3"},"group":{"delimiter":"|"}}'
filled=$(java_run MapReduceE2E --zk "$quorum" fill bench:source "$old" "$rows" "$versions")
echo "source: bench:source, 10 buckets, $filled (flushed)"

# --- the bulk path: snapshot, job, bulk load (wall clock of the whole run) -------------------
java_run MapReduceE2E --zk "$quorum" create bench:bulk "$new" "$versions" >/dev/null
cat >"$WORK_DIR/spec.json" <<EOF
{"source": "bench:source", "target": "bench:bulk", "old_layout": $old, "new_layout": $new,
 "staging_dir": "$WORK_DIR/staging", "hbase_conf_dir": "$PRESPLIT_HBASE_CONF_DIR",
 "local_tasks": $local_tasks}
EOF
echo "load before bulk:$(uptime | sed 's/.*load average://')"
start=$(date +%s%N)
bulk=$(java_run io.presplit.mapreduce.ResaltBulkJob run "$WORK_DIR/spec.json" 2>"$WORK_DIR/bulk.log")
bulk_ms=$((($(date +%s%N) - start) / 1000000))
echo "bulk: $bulk, wall ${bulk_ms} ms (JVM start included)"
java_run io.presplit.mapreduce.ResaltBulkJob cleanup "$WORK_DIR/spec.json"
java_run MapReduceE2E --zk "$quorum" compare bench:source "$old" bench:bulk "$new" >"$WORK_DIR/bulk-compare.json"
echo "bulk verified: $(cat "$WORK_DIR/bulk-compare.json")"

# --- the plain copy ------------------------------------------------------------------------
java_run MapReduceE2E --zk "$quorum" create bench:plain "$new" "$versions" >/dev/null
echo "load before plain:$(uptime | sed 's/.*load average://')"
start=$(date +%s%N)
plain=$(java_run PlainCopy --zk "$quorum" bench:source "$old" bench:plain "$new")
plain_ms=$((($(date +%s%N) - start) / 1000000))
echo "plain: $plain, wall ${plain_ms} ms (JVM start included)"
java_run MapReduceE2E --zk "$quorum" compare bench:source "$old" bench:plain "$new" >"$WORK_DIR/plain-compare.json"
echo "plain verified: $(cat "$WORK_DIR/plain-compare.json")"

bulk_rps=$((rows * 1000 / bulk_ms))
plain_rps=$((rows * 1000 / plain_ms))
echo "load after:$(uptime | sed 's/.*load average://')"
python3 - "$bulk_rps" "$plain_rps" <<'EOF'
import sys
bulk, plain = int(sys.argv[1]), int(sys.argv[2])
ratio = bulk / plain
print(f"rows/s (wall clock, JVM start included): bulk {bulk}, plain copy {plain}, "
      f"ratio {ratio:.2f}x (target >= 4x: {'met' if ratio >= 4 else 'NOT met'})")
EOF
