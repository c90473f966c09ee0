#!/usr/bin/env bash
# The writer SDK's benchmarks (issue 5): Java salting per key (pure Java vs one JNI call per key
# vs batched JNI, no cluster), then, on a local HBase 2.6.4 cluster of its own, group look-up
# latency (SaltedTable.scanGroup vs the two-table index design) and ordered scan throughput
# (the SDK's merged scan over 16 buckets vs a plain scan of an unsalted copy). See
# bench/sdk/SaltingBench.java, bench/sdk/SdkBench.java and bench/RESULTS.md.
#
#   bench/run_sdk_bench.sh [--no-build] [--salting-only | --cluster-only]
#                          [SdkBench options: --groups G --group-rows N --lookups L
#                           --lookup-warmup W --scan-rows S --scan-rounds R --range-rows K
#                           --ranges M --caching C --only lookup|scan]
#
# Builds libpresplit_jni and presplit-hbase.jar incrementally first (--no-build: use what is
# there). The cluster is started fresh (ZooKeeper 22210, master 16610, RegionServer 16630, data
# in <build>/sdk-bench-cluster; PRESPLIT_BENCH_* variables choose others) and stopped on every
# exit. PRESPLIT_BENCH_JAVA_OPTS adds JVM options to SdkBench's JVM (e.g. a flight recording:
# -XX:StartFlightRecording=filename=scan.jfr,settings=profile). Prints the measurements and the
# ratios; exits non-zero only on an error or a wrong result, not on a missed target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-sdk"

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_BENCH_CLUSTER_DIR:-$BUILD_DIR/sdk-bench-cluster}
export PRESPLIT_ZK_PORT=${PRESPLIT_BENCH_ZK_PORT:-22210}
export PRESPLIT_MASTER_PORT=${PRESPLIT_BENCH_MASTER_PORT:-16610}
export PRESPLIT_RS_PORT=${PRESPLIT_BENCH_RS_PORT:-16630}

build=1
salting=1
cluster=1
while (($#)); do
  case $1 in
    --no-build) build=0 ;;
    --salting-only) cluster=0 ;;
    --cluster-only) salting=0 ;;
    *) break ;;
  esac
  shift
done

# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_sdk_bench "$build"

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP:$JAR" -d "$WORK_DIR/classes" \
  "$REPO/bench/sdk/SaltingBench.java" "$REPO/bench/sdk/SdkBench.java" \
  "$REPO/bench/sdk/MergedScannerBefore.java" "$REPO/bench/lib/BenchSummary.java"
CP="$WORK_DIR/classes:$HBASE_CP:$JAR"

echo "sdk bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"

if ((salting)); then
  # A fixed heap and one JIT configuration; every variant runs in the same JVM.
  "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xms512m -Xmx512m -Djava.library.path="$LIB_DIR" \
    -cp "$CP" SaltingBench
  echo "load after salting:$(uptime | sed 's/.*load average://')"
fi

if ((cluster)); then
  "$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
    { echo "run_sdk_bench: a cluster already runs in $PRESPLIT_CLUSTER_DIR; stop it first" >&2
      exit 1; }
  trap '"$REPO/scripts/local-cluster" stop >&2 || true' EXIT
  quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)
  echo "cluster: HBase 2.6.4 on $quorum (RegionServer heap ${PRESPLIT_RS_HEAP:-512m}), load:$(uptime | sed 's/.*load average://')"
  read -r -a EXTRA_FLAGS <<<"${PRESPLIT_BENCH_JAVA_OPTS:-}"
  "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" ${EXTRA_FLAGS[@]+"${EXTRA_FLAGS[@]}"} -Xms512m -Xmx512m \
    -cp "$CP" SdkBench --zk "$quorum" "$@"
  echo "load after:$(uptime | sed 's/.*load average://')"
fi
