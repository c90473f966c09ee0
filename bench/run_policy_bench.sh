#!/usr/bin/env bash
# Policy cost: one split decision (region.checkSplit: shouldSplit + getSplitPoint + the table's
# split restriction) of presplit's NativeSplitPolicy (through JNI, delimited-group layout)
# against HBase's SteppingSplitPolicy + DelimitedKeyPrefix restriction, side by side on real
# HRegions opened on the local filesystem (no cluster needed). See bench/policy/PolicyBench.java
# and bench/RESULTS.md.
#
#   bench/run_policy_bench.sh [--no-build] [PolicyBench options: --rows N --groups G
#                              --flushes F --ops N --rounds R --warmup W]
#
# Builds libpresplit_jni and presplit-hbase.jar incrementally first (--no-build: use what is
# there). Prints the measurements and the ratio; exits non-zero only on an error, not on a
# missed target. Run `scripts/setup && scripts/build` once first on a fresh machine.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/bench-policy"

build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi

# shellcheck source=lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_policy_bench "$build"

eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

mkdir -p "$WORK_DIR/classes"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP:$JAR" -d "$WORK_DIR/classes" \
  "$REPO/bench/policy/PolicyBench.java" "$REPO/bench/lib/BenchSummary.java"

echo "policy bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load:$(uptime | sed 's/.*load average://')"
echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
# A fixed heap and one JIT configuration for every variant; all variants run in the same JVM.
"$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xms512m -Xmx512m \
  -Djava.library.path="$LIB_DIR" -cp "$WORK_DIR/classes:$HBASE_CP:$JAR" \
  PolicyBench --dir "$WORK_DIR" "$@"
echo "load after:$(uptime | sed 's/.*load average://')"
