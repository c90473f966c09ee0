#!/usr/bin/env bash
# Sampler cost on the write path: puts per second into tables identical but for
# io.presplit.hbase.coprocessor.LoadSamplingObserver (and the dormant MigrationGuard presplitd
# adds to every table it creates), on a local HBase 2.6.4 cluster of its own (RegionServer with
# presplit-hbase.jar and libpresplit_jni.so, as deployed), interleaved rounds.
# See bench/sampler/SamplerBench.java and bench/RESULTS.md.
#
#   bench/run_sampler_bench.sh [--no-build] [SamplerBench options: --rounds R --max-rounds M
#                               --run-rounds Q --warmup W --puts N --batch B --threads T
#                               --regions K --value-bytes V]
#
# Builds libpresplit_jni and presplit-hbase.jar incrementally first (--no-build: use what is
# there), starts the cluster fresh (ZooKeeper 22010, master 16410, RegionServer 16430, data in
# <build>/bench-cluster), runs the client, and stops the cluster on every exit. Prints the
# measurements and the ratio; exits non-zero only on an error (or a sampler that recorded
# nothing), not on a missed target. With PRESPLIT_BENCH_SUMMARY set, appends its summary row
# to that file (bench/run_all.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-sampler"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22010}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-16410}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-16430}

build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi

# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_sampler_bench "$build"

export PRESPLIT_CLUSTER_EXTRA_CLASSPATH=$JAR
export PRESPLIT_CLUSTER_JAVA_OPTS="-Djava.library.path=$LIB_DIR"

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP" -d "$WORK_DIR/classes" \
  "$REPO/bench/sampler/SamplerBench.java" "$REPO/bench/lib/BenchSummary.java"

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_sampler_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
    exit 1; }
trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
rs_pid=$(<"$PRESPLIT_CLUSTER_DIR/run/regionserver.pid")

echo "sampler bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "cluster: HBase 2.6.4 on $quorum, RegionServer pid $rs_pid (heap ${PRESPLIT_RS_HEAP:-512m})"
"$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xmx512m -cp "$WORK_DIR/classes:$HBASE_CP" \
  SamplerBench --zk "$quorum" --rs-pid "$rs_pid" --clk-tck "$(getconf CLK_TCK)" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
