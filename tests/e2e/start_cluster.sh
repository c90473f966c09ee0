#!/usr/bin/env bash
# Starts the split-policy test cluster on a private copy of presplit-hbase.jar and
# libpresplit_jni.so: a rebuild during the tests must not swap classes under running JVMs.
set -euo pipefail
: "${PRESPLIT_SPLIT_LIB_DIR:?}" "${PRESPLIT_JAR:?}" "${PRESPLIT_JNI_LIB:?}"
rm -rf "$PRESPLIT_SPLIT_LIB_DIR"
mkdir -p "$PRESPLIT_SPLIT_LIB_DIR"
cp "$PRESPLIT_JAR" "$PRESPLIT_JNI_LIB" "$PRESPLIT_SPLIT_LIB_DIR"/
exec "$(dirname "${BASH_SOURCE[0]}")/../../scripts/local-cluster" start --fresh
