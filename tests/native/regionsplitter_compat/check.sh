#!/usr/bin/env bash
# Regenerates the golden files with the real HBase (RegionSplitter, Bytes) and fails on any
# difference from the committed ones, which the native unit tests compare libpresplit against.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
classpath=$(cat "${PRESPLIT_HBASE_CLASSPATH_FILE:?}")
java -cp "$classpath" "$here/RegionSplitterGolden.java" 2>/dev/null |
  diff -u "$here/../golden/regionsplitter.txt" -
java -cp "$classpath" "$here/RegionSplitterGolden.java" bytes 2>/dev/null |
  diff -u "$here/../golden/bytes.txt" -
echo "golden files equal HBase's own output ($(grep -c '^case' "$here/../golden/regionsplitter.txt") split cases)"
