#!/usr/bin/env bash
# Starts an end-to-end test cluster whose HMaster and RegionServer load presplit, as a production
# cluster does: presplit-hbase.jar on their classpath (the split policy, the coprocessors, and the
# change-capture replication endpoint of re-salting migrations) and libpresplit_jni.so on their
# library path. They run on a private copy of both: a rebuild during the tests must not swap
# classes under running JVMs.
set -euo pipefail
: "${PRESPLIT_CLUSTER_LIB_DIR:?}" "${PRESPLIT_JAR:?}" "${PRESPLIT_JNI_LIB:?}"
rm -rf "$PRESPLIT_CLUSTER_LIB_DIR"
mkdir -p "$PRESPLIT_CLUSTER_LIB_DIR"
cp "$PRESPLIT_JAR" "$PRESPLIT_JNI_LIB" "$PRESPLIT_CLUSTER_LIB_DIR"/
exec "$(dirname "${BASH_SOURCE[0]}")/../../scripts/local-cluster" start --fresh
