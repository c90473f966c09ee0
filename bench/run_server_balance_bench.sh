#!/usr/bin/env bash
# Per-server balance on three RegionServers (issue 24): a skewed read workload, and the busiest
# server's share of the table's reads after two minutes with HBase's balancer alone, with an
# operator's one manual split, with presplit's load splits, and with its daughter moves too. See
# bench/server_balance/server_balance_bench.py and bench/RESULTS.md.
#
#   bench/run_server_balance_bench.sh [--no-build] [--default-balancer]
#                                     [--cases hbase,manual,presplit,moves]
#                                     [--seconds S (120)] [--window W (30)] [--clients C (2)]
#                                     [--hot-groups G (50)] [--hot-percent P (80)]
#                                     [--min-requests-per-s N (200)]
#
# Starts a fresh local cluster of its own with three RegionServers that load presplit-hbase.jar
# and libpresplit_jni.so (ZooKeeper 23010, master 17410, RegionServers 17430-17432, data in
# <build>/server-balance-bench-cluster; PRESPLIT_BENCH_* variables choose others), the balancer
# every 10 s weighing read requests (tests/e2e/split_policy_site.xml; --default-balancer keeps
# HBase's own settings: every 5 minutes, reads weighed 5 against 500 for region counts), and a
# presplitd on it (HTTP 19730); stops both on every exit. Exits non-zero only on an error, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-server-balance"

build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi
tuned_balancer=1
if [[ ${1:-} == --default-balancer ]]; then
  tuned_balancer=0
  shift
fi
if ((build)); then
  cmake --build "$BUILD_DIR" --target presplitd presplitctl >/dev/null
fi
# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_server_balance_bench "$build"

# The RegionServers run a private copy of the jar and the library: a rebuild meanwhile must not
# swap classes under them.
LIB_COPY="$WORK_DIR/lib"
rm -rf "$LIB_COPY"
mkdir -p "$LIB_COPY"
cp "$JAR" "$LIB_DIR/libpresplit_jni.so" "$LIB_COPY"/
if ((tuned_balancer)); then
  cat "$REPO/conf/hbase/hbase-site.xml" "$REPO/tests/e2e/split_policy_site.xml" >"$WORK_DIR/site.xml"
else
  cp "$REPO/conf/hbase/hbase-site.xml" "$WORK_DIR/site.xml"
fi

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_SOURCE_DIR=$REPO
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/server-balance-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-23010}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17410}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17430}
export PRESPLIT_ZK_QUORUM=127.0.0.1:$PRESPLIT_ZK_PORT
export PRESPLIT_HBASE_CLASSPATH_FILE=$BUILD_DIR/hbase-runtime.classpath
export PRESPLIT_CLUSTER_EXTRA_CLASSPATH=$LIB_COPY/presplit-hbase.jar
export PRESPLIT_CLUSTER_JAVA_OPTS=-Djava.library.path=$LIB_COPY
export PRESPLIT_CLUSTER_EXTRA_SITE=$WORK_DIR/site.xml
export PRESPLIT_REGIONSERVERS=3
export PRESPLIT_RS_HEAP=${PRESPLIT_RS_HEAP:-512m}
export PRESPLIT_E2E_PORT_OFFSET=0
# Five JVMs on a busy machine start slowly.
export PRESPLIT_CLUSTER_START_TIMEOUT=${PRESPLIT_CLUSTER_START_TIMEOUT:-300}

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_server_balance_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT

echo "server balance bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4, 3 RegionServers on $quorum, balancer $( ((tuned_balancer)) && echo 'every 10 s, reads weighed 500' || echo "HBase's defaults"), load:$(uptime | sed 's/.*load average://')"
python3 -u "$REPO/bench/server_balance/server_balance_bench.py" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
