# Shared by bench/run_*_bench.sh (source it after setting REPO and BUILD_DIR): builds, unless told
# not to, and checks the two artifacts a benchmark runs against, presplit-hbase.jar and
# libpresplit_jni.so, and sets JAR and LIB_DIR.
#   bench_artifacts SCRIPT_NAME BUILD(0|1)
bench_artifacts() {
  local name=$1 build=$2
  if ((build)); then
    cmake --build "$BUILD_DIR" --target presplit_jni >/dev/null
    mvn -q -B -f "$REPO/java-shim/pom.xml" package -DskipTests -Dpresplit.jni.dir="$BUILD_DIR/jni"
  fi
  JAR="$REPO/java-shim/target/presplit-hbase.jar"
  LIB_DIR="$BUILD_DIR/jni"
  [[ -f $JAR ]] || { echo "$name: $JAR missing (run scripts/build)" >&2; exit 1; }
  [[ -f $LIB_DIR/libpresplit_jni.so ]] ||
    { echo "$name: $LIB_DIR/libpresplit_jni.so missing (run scripts/build)" >&2; exit 1; }
}
