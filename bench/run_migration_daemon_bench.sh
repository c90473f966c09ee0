#!/usr/bin/env bash
# presplitd's re-salting migration end to end (issue 10's benchmark at the daemon level): rows/s
# from the copy's start to the verification's end, ZooKeeper checkpoints included, beside the
# plain copy a user would write (one scanner, each row re-keyed, one BufferedMutator) of the same
# source on the same cluster, in one run. See bench/migrate/daemon_migration_bench.py and
# bench/RESULTS.md.
#
#   bench/run_migration_daemon_bench.sh [--no-build] [--rows N (200000)] [--workers W (4)]
#                                       [--engine put|hfile (hfile)]
#                                       [--chunk C (put 5000, hfile 100000)]
#                                       [--source live|snapshot (live; engine hfile)]
#                                       [--jfr FILE (a flight recording of presplitd's JVM)]
#
# Starts a fresh local cluster of its own (ZooKeeper 22910, master 17110, RegionServer 17130,
# data in <build>/migration-daemon-bench-cluster; PRESPLIT_BENCH_ZK_PORT, _MASTER_PORT, _RS_PORT,
# _CLUSTER_DIR choose others) and a presplitd on it (HTTP 19790, PRESPLIT_BENCH_HTTP_PORT), stops
# both on every exit. Exits non-zero on an error (a copy that differs included), not on a missed
# target.
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
bench_artifacts run_migration_daemon_bench "$build"
rm -rf "$BUILD_DIR/bench-migration/daemon-classes"  # MigrationBench compiled again, once

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_SOURCE_DIR=$REPO
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/migration-daemon-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22910}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17110}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17130}
export PRESPLIT_ZK_QUORUM=127.0.0.1:$PRESPLIT_ZK_PORT
export PRESPLIT_HBASE_CLASSPATH_FILE=$BUILD_DIR/hbase-runtime.classpath
export PRESPLIT_E2E_PORT_OFFSET=0
# A busy machine starts HBase slowly.
export PRESPLIT_CLUSTER_START_TIMEOUT=${PRESPLIT_CLUSTER_START_TIMEOUT:-300}

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_migration_daemon_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT

echo "migration daemon bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4 on $quorum (RegionServer heap ${PRESPLIT_RS_HEAP:-512m}), load:$(uptime | sed 's/.*load average://')"
python3 -u "$REPO/bench/migrate/daemon_migration_bench.py" \
  --http-port "${PRESPLIT_BENCH_HTTP_PORT:-19790}" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
