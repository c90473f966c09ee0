#!/usr/bin/env bash
# Builds libpresplit's fuzz targets with clang (libFuzzer + ASan + UBSan) and runs each one for
# a bounded time over its seed corpus. A crash, leak or sanitizer report fails the run.
#   run_fuzzers.sh [SECONDS_PER_TARGET]   (default 15; bench/ uses longer runs)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${1:-15}
build=${PRESPLIT_FUZZ_BUILD_DIR:-${PRESPLIT_BUILD_DIR:-$here/../../../build}/fuzz}

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug >/dev/null
# Quiet when it builds; the compiler's or linker's complaint when it does not.
if ! cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1; then
  echo "fuzz: build failed"; tail -n 40 "$build/build.log"; exit 1
fi

status=0
for target in "$build"/fuzz_*; do
  [[ -x $target && -f $target ]] || continue
  name=$(basename "$target")
  corpus=$(mktemp -d)
  [[ -d $here/corpus/${name#fuzz_} ]] && cp "$here/corpus/${name#fuzz_}"/* "$corpus"/ 2>/dev/null || true
  log=$build/$name.log
  if "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      "$corpus" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $name ok ($runs inputs in ${seconds}s)"
  else
    echo "fuzz: $name FAILED"; tail -n 40 "$log"; status=1
  fi
  rm -rf "$corpus"
done
exit $status
