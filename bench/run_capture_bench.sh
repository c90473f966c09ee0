#!/usr/bin/env bash
# What a re-salting migration costs the RegionServers and the application (issue 22's
# benchmark): RegionServer CPU seconds per million cells for presplitd's engines against the
# plain copy a user would write, the p99 latency of a steady SDK workload with and without a
# migration (its capture peer active), and the change capture's RegionServer CPU per write. See
# bench/migrate/capture_bench.py and bench/RESULTS.md.
#
#   bench/run_capture_bench.sh [--no-build] [--rows N (200000)] [--workers W (2)]
#                              [--engines put,hfile,hfile-snapshot,mapreduce] [--rate OPS (200)]
#                              [--seconds S (90)] [--latency-engine E (hfile)]
#                              [--max-cells-per-s N (0)] [--throttle adaptive|off (adaptive)]
#                              [--capture-writes N (200000)] [--set KEY=VALUE ...]
#                              [--skip copy,latency,capture]
#
# Starts a fresh local cluster of its own whose HMaster and RegionServer load presplit-hbase.jar
# and libpresplit_jni.so, as a production cluster does (ZooKeeper 22920, master 17120,
# RegionServer 17140, info servers 17110 and 17111, data in <build>/capture-bench-cluster;
# PRESPLIT_BENCH_ZK_PORT, _MASTER_PORT, _RS_PORT, _INFO_PORT, _CLUSTER_DIR choose others) and a
# presplitd on it (HTTP 19795; --set gives it a setting), and stops both on every exit.
# PRESPLIT_BENCH_EXTRA_JAVA_OPTS adds JVM options to the HMaster and RegionServer (e.g.
# -Xlog:gc:file=/tmp/gc-%p.log:uptime,time to see their GC pauses). Exits non-zero on an error
# (a migration that fails included), not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}

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
bench_artifacts run_capture_bench "$build"
rm -rf "$BUILD_DIR/bench-capture/classes"  # the bench programs compiled again, once

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_SOURCE_DIR=$REPO
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/capture-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22920}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17120}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17140}
# The info servers on, as on a production cluster: the adaptive throttle reads each
# RegionServer's JMX there (call queue, GC, memstores); without them it has its probes alone.
export PRESPLIT_INFO_PORT=${PRESPLIT_BENCH_INFO_PORT:-17110}
export PRESPLIT_ZK_QUORUM=127.0.0.1:$PRESPLIT_ZK_PORT
export PRESPLIT_HBASE_CLASSPATH_FILE=$BUILD_DIR/hbase-runtime.classpath
export PRESPLIT_E2E_PORT_OFFSET=0
export PRESPLIT_CLUSTER_START_TIMEOUT=${PRESPLIT_CLUSTER_START_TIMEOUT:-300}
# The copy, a reference table and the capture's catch-up share one RegionServer: 512 MB, the
# cluster script's default, is a laptop's size, not a RegionServer's.
export PRESPLIT_RS_HEAP=${PRESPLIT_RS_HEAP:-1g}
# The RegionServer runs the capture's endpoint: presplit-hbase.jar and libpresplit_jni.so, a
# private copy (tests/e2e/start_cluster.sh).
export PRESPLIT_CLUSTER_LIB_DIR=$BUILD_DIR/capture-bench-lib
export PRESPLIT_JAR=$JAR PRESPLIT_JNI_LIB=$LIB_DIR/libpresplit_jni.so
export PRESPLIT_CLUSTER_EXTRA_CLASSPATH=$PRESPLIT_CLUSTER_LIB_DIR/presplit-hbase.jar
export PRESPLIT_CLUSTER_JAVA_OPTS="-Djava.library.path=$PRESPLIT_CLUSTER_LIB_DIR ${PRESPLIT_BENCH_EXTRA_JAVA_OPTS:-}"

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_capture_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT

echo "capture bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
quorum=$("$REPO/tests/e2e/start_cluster.sh" | tail -1)
echo "cluster: HBase 2.6.4 on $quorum (RegionServer heap ${PRESPLIT_RS_HEAP:-512m}), load:$(uptime | sed 's/.*load average://')"
python3 -u "$REPO/bench/migrate/capture_bench.py" \
  --http-port "${PRESPLIT_BENCH_HTTP_PORT:-19795}" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
