#!/usr/bin/env bash
# The bulk re-salting job (io.presplit.mapreduce.ResaltBulkJob) submitted to YARN instead of the
# local job runner: Hadoop's single-process YARN (MiniMRYarnCluster: ResourceManager, one
# NodeManager, every map and reduce task in its own container JVM) beside a local HBase, 10 -> 16
# salt buckets, then every cell compared with the source. Opt-in, not part of the suite: on a
# 2-core machine the job alone takes minutes (README: "Bulk jobs on MapReduce").
#
#   tests/yarn/run_resalt_on_mini_yarn.sh [--rows N]      (default 50,000 rows, 3 versions)
#
# Needs scripts/build's artifacts; resolves hadoop-minicluster with Maven (tests/yarn/pom.xml).
# Its HBase: ZooKeeper 23460, master 18460, RegionServer 18480, data in <build>/mini-yarn-check
# (PRESPLIT_YARN_CHECK_* variables choose others). Exits non-zero unless a second submit of the
# migration killed the first, unfinished job (an orphan whose id its submitter never recorded),
# the second job ran on YARN and succeeded, and the target holds every source cell once at its new
# key.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${PRESPLIT_BUILD_DIR:-$REPO/build}
WORK_DIR="$BUILD_DIR/mini-yarn-check"
rows=50000
while (($#)); do
  case $1 in
    --rows) rows=$2; shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "run_resalt_on_mini_yarn: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

export PRESPLIT_BUILD_DIR=$BUILD_DIR
export PRESPLIT_CLUSTER_DIR=${PRESPLIT_YARN_CHECK_CLUSTER_DIR:-$WORK_DIR/hbase}
export PRESPLIT_ZK_PORT=${PRESPLIT_YARN_CHECK_ZK_PORT:-23460}
export PRESPLIT_MASTER_PORT=${PRESPLIT_YARN_CHECK_MASTER_PORT:-18460}
export PRESPLIT_RS_PORT=${PRESPLIT_YARN_CHECK_RS_PORT:-18480}

# shellcheck source=../../bench/lib/artifacts.sh
source "$REPO/bench/lib/artifacts.sh"
bench_artifacts run_resalt_on_mini_yarn 0
eval "$("$REPO/scripts/local-cluster" env)"
HBASE_CP=$(<"$PRESPLIT_HBASE_CLASSPATH_FILE")
read -r -a JVM_FLAGS <<<"$PRESPLIT_HBASE_JVM_FLAGS"

"$REPO/scripts/local-cluster" status >/dev/null 2>&1 &&
  { echo "run_resalt_on_mini_yarn: a cluster already runs in $PRESPLIT_CLUSTER_DIR" >&2; exit 1; }
rm -rf "$WORK_DIR/classes" "$WORK_DIR/staging" "$WORK_DIR/yarn-conf" "$WORK_DIR/yarn" \
  "$WORK_DIR/up" "$WORK_DIR/yarn.log"
mkdir -p "$WORK_DIR/classes" "$WORK_DIR/yarn"

echo "resolving hadoop-minicluster"
mvn -q -B -f "$REPO/tests/yarn/pom.xml" dependency:build-classpath \
  -Dmdep.outputFile="$WORK_DIR/yarn-classpath.txt" >"$WORK_DIR/mvn.log" 2>&1 ||
  { tail -20 "$WORK_DIR/mvn.log" >&2; exit 1; }
YARN_CP=$(<"$WORK_DIR/yarn-classpath.txt")
"$JAVA_HOME/bin/javac" -nowarn -cp "$YARN_CP" -d "$WORK_DIR/classes" "$REPO/tests/yarn/MiniYarn.java"
"$JAVA_HOME/bin/javac" -nowarn -cp "$HBASE_CP:$JAR" -d "$WORK_DIR/classes" \
  "$REPO/tests/e2e/java/MapReduceE2E.java"
CP="$WORK_DIR/classes:$HBASE_CP:$JAR"
java_run() { "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xmx768m -cp "$CP" "$@"; }

# The containers' classpath: one jar whose manifest names every jar (HBase's runtime, presplit,
# Hadoop's MapReduce application master).
python3 - "$CP:$YARN_CP" "$WORK_DIR/container-classpath.jar" <<'PY'
import os, sys, zipfile
urls = " ".join("file://" + os.path.abspath(e) + ("/" if os.path.isdir(e) else "")
                for e in sys.argv[1].split(":") if e)
text = "Manifest-Version: 1.0\r\nClass-Path: " + urls
lines = [text[:70]] + [" " + text[i:i + 69] for i in range(70, len(text), 69)]
with zipfile.ZipFile(sys.argv[2], "w") as jar:
    jar.writestr("META-INF/MANIFEST.MF", "\r\n".join(lines) + "\r\n\r\n")
PY

yarn_pid=
cleanup() {
  if [[ -n $yarn_pid ]]; then  # SIGTERM: MiniYarn's shutdown hook stops YARN
    kill "$yarn_pid" 2>/dev/null || true
    wait "$yarn_pid" 2>/dev/null || true
  fi
  "$REPO/scripts/local-cluster" stop >&2 || true
}
trap cleanup EXIT
quorum=$("$REPO/scripts/local-cluster" start --fresh | tail -1)

old='{"salt":{"buckets":10,"encoding":"decimal","hash":"murmur3"},"group":{"delimiter":"|"}}'
new='{"salt":{"buckets":16,"encoding":"decimal","hash":"murmur3"},"group":{"delimiter":"|"}}'
echo "source: $(java_run MapReduceE2E --zk "$quorum" fill yarn:source "$old" "$rows" 3)"
java_run MapReduceE2E --zk "$quorum" create yarn:target "$new" 3 >/dev/null

# MiniYarn writes one line into this named pipe once YARN is up: reading it waits for that event.
mkfifo "$WORK_DIR/up"
(cd "$WORK_DIR/yarn" && exec "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xmx1g -cp "$WORK_DIR/classes:$YARN_CP" \
  MiniYarn "$WORK_DIR/yarn-conf" "$WORK_DIR/up" "$WORK_DIR/container-classpath.jar" \
  "$PRESPLIT_HBASE_JVM_FLAGS") >"$WORK_DIR/yarn.log" 2>&1 &
yarn_pid=$!
exec 3<>"$WORK_DIR/up"  # read-write: opening does not block, and a dead MiniYarn is no EOF
read -r -t 180 -u 3 up ||
  { echo "YARN not up after 180 s; see $WORK_DIR/yarn.log" >&2; tail -30 "$WORK_DIR/yarn.log" >&2; exit 1; }
exec 3<&-
echo "$up"

cat >"$WORK_DIR/spec.json" <<JSON
{"source": "yarn:source", "target": "yarn:target", "old_layout": $old, "new_layout": $new,
 "staging_dir": "file://$WORK_DIR/staging", "hbase_conf_dir": "$PRESPLIT_HBASE_CONF_DIR",
 "hadoop_conf_dir": "$WORK_DIR/yarn-conf"}
JSON
job() { java_run io.presplit.mapreduce.ResaltBulkJob "$1" "$WORK_DIR/spec.json" "${@:2}" 2>>"$WORK_DIR/job.log"; }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ""))' "$@"; }

# A daemon that died between submit and recording the job id: its job goes on, unknown to
# anyone. The next submit of the same migration kills it before it submits its own.
started=$(date +%s)
orphan=$(job submit)
echo "submitted $orphan from a JVM that exited; submitting again"
: >"$WORK_DIR/job.log"
second=$(job submit)
grep -q "killed $orphan" "$WORK_DIR/job.log" ||
  { echo "the second submit did not kill $orphan" >&2; cat "$WORK_DIR/job.log" >&2; exit 1; }
killed=$(field "$(job progress "$orphan")" state)
[[ $killed == KILLED ]] || { echo "$orphan is $killed, not KILLED" >&2; exit 1; }
echo "the second submit killed $orphan and submitted $second"
# wait: Hadoop's job monitor follows the job to its end (exit 1 unless it succeeded)
ended=$(timeout 1800 "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -Xmx768m -cp "$CP" \
  io.presplit.mapreduce.ResaltBulkJob wait "$WORK_DIR/spec.json" "$second" 2>>"$WORK_DIR/job.log") ||
  { echo "job $second did not succeed: $ended; see $WORK_DIR/job.log" >&2; exit 1; }
loaded=$(job load)
echo "job $second: $ended, loaded $loaded, $(($(date +%s) - started)) s"
job cleanup
result="{\"job_id\": \"$second\", \"state\": \"$(field "$ended" state)\"}"
compared=$(java_run MapReduceE2E --zk "$quorum" compare yarn:source "$old" yarn:target "$new")
echo "compare: $compared"
python3 - "$result" "$compared" "$rows" <<'PY'
import json, sys
result, compared, rows = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
problems = []
if result["job_id"].startswith("job_local"):
    problems.append("the job ran on the local runner, not on YARN")
if result["state"] != "SUCCEEDED":
    problems.append("job state " + result["state"])
if compared["target_rows"] != rows or compared["target_cells"] != compared["source_cells"]:
    problems.append("target differs from the source")
if compared["missing"] or compared["extra"] or compared["misplaced"]:
    problems.append("missing, extra or misplaced cells")
if problems:
    sys.exit("run_resalt_on_mini_yarn: FAILED: " + "; ".join(problems))
print("run_resalt_on_mini_yarn: the job ran on YARN; every cell at its new key, once")
PY
