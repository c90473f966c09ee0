#!/usr/bin/env bash
# Re-salting migration benchmark (issue 10): the plain copy a user would write (one scanner, each
# row re-keyed, one BufferedMutator) against CopyBridge.copyChunk with parallel region
# workers plus the per-region verification, on the same data, on a local HBase 2.6.4 cluster of
# its own. See bench/migrate/MigrationBench.java and bench/RESULTS.md. The daemon-level figure
# (checkpoints in ZooKeeper included) is measured with presplitd itself.
#
#   bench/run_migration_bench.sh [--no-build] [MigrationBench options: --rows N --versions V
#                                 --value-bytes B --workers W --chunk C]
#
# Builds libpresplit_jni and presplit-hbase.jar incrementally first (--no-build: use what is
# there). The cluster is started fresh (ZooKeeper 22810, master 17210, RegionServer 17230, data
# in <build>/migration-bench-cluster; PRESPLIT_BENCH_* variables choose others) and stopped on
# every exit. Exits non-zero when a copy differs from the source, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-migration"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/migration-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22810}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-17210}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-17230}

build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi

# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_migration_bench "$build"

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP:$JAR" -d "$WORK_DIR/classes" \
  "$REPO/bench/migrate/MigrationBench.java"
CP="$WORK_DIR/classes:$HBASE_CP:$JAR"

echo "migration bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_migration_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
echo "cluster: HBase 2.6.4 on $quorum (RegionServer heap ${PRESPLIT_RS_HEAP:-512m}), load:$(uptime | sed 's/.*load average://')"
"$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xms512m -Xmx512m -Djava.library.path="$LIB_DIR" \
  -cp "$CP" MigrationBench --zk "$quorum" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
