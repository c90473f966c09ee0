#!/usr/bin/env bash
# Load splits on a real cluster (issue 9): how long presplitd takes from the first overloaded
# second of one region to its split request, with the document's default load_split rule, and how
# evenly the halves share the skewed load after NativeSplitPolicy's split, against HBase's size
# midpoint on the same workload. See bench/load_split/load_split_bench.py and bench/RESULTS.md.
#
#   bench/run_load_split_bench.sh [--no-build] [--runs R (3)] [--hot-groups G (20)] [--clients C (2)]
#                                 [--min-requests-per-s N] [--no-midpoint]
#
# Starts a fresh local cluster of its own whose RegionServer loads presplit-hbase.jar and
# libpresplit_jni.so (ZooKeeper 22610, master 17010, RegionServer 17030, data in
# <build>/load-split-bench-cluster; PRESPLIT_BENCH_* variables choose others) and a presplitd on it
# (HTTP 19690), stops both on every exit. Exits non-zero only on an error, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-load-split"

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
bench_artifacts run_load_split_bench "$build"

# The RegionServer runs a private copy of the jar and the library: a rebuild meanwhile must not
# swap classes under it.
LIB_COPY="$WORK_DIR/lib"
rm -rf "$LIB_COPY"
mkdir -p "$LIB_COPY"
cp "$JAR" "$LIB_DIR/libpresplit_jni.so" "$LIB_COPY"/
cat "$REPO/conf/hbase/hbase-site.xml" >"$WORK_DIR/site.xml"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_SOURCE_DIR=$REPO
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/load-split-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22610}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17010}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17030}
export PRESPLIT_ZK_QUORUM=127.0.0.1:$PRESPLIT_ZK_PORT
export PRESPLIT_HBASE_CLASSPATH_FILE=$BUILD_DIR/hbase-runtime.classpath
export PRESPLIT_CLUSTER_EXTRA_CLASSPATH=$LIB_COPY/presplit-hbase.jar
export PRESPLIT_CLUSTER_JAVA_OPTS=-Djava.library.path=$LIB_COPY
export PRESPLIT_CLUSTER_EXTRA_SITE=$WORK_DIR/site.xml
export PRESPLIT_E2E_PORT_OFFSET=0
# A busy machine starts HBase slowly.
export PRESPLIT_CLUSTER_START_TIMEOUT=${PRESPLIT_CLUSTER_START_TIMEOUT:-300}

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_load_split_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT

echo "load split bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4 on $quorum, load:$(uptime | sed 's/.*load average://')"
python3 -u "$REPO/bench/load_split/load_split_bench.py" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
