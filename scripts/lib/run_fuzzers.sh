#!/usr/bin/env bash
# Builds the project of libFuzzer targets (tests/fuzz: libpresplit's and the daemon's) with clang
# (libFuzzer + ASan + UBSan) and runs each target for a bounded time over a copy of its seed
# corpus (the directory named in <build>/<target>.corpus). A crash, leak or sanitizer report
# fails the run. Shared by the test suite (the test `fuzz`, 15 s a target) and
# bench/run_fuzz_long.sh (longer runs).
#   scripts/lib/run_fuzzers.sh PROJECT_DIR BUILD_DIR [SECONDS_PER_TARGET]   (default 15)
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 PROJECT_DIR BUILD_DIR [SECONDS_PER_TARGET]" >&2
  exit 2
fi
project=$(cd "$1" && pwd)
build=$2
seconds=${3:-15}

mkdir -p "$build"
# PRESPLIT_FUZZ_OPT: the targets' optimization level (tests/fuzz/CMakeLists.txt; default -O0).
cmake -S "$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None \
  -DPRESPLIT_FUZZ_OPT="${PRESPLIT_FUZZ_OPT:--O0}" >/dev/null
# Quiet when it builds; the compiler's or linker's complaint when it does not.
if ! cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1; then
  echo "fuzz: build failed"; tail -n 40 "$build/build.log"; exit 1
fi

status=0
ran=0
for target in "$build"/fuzz_*; do
  [[ -x $target && -f $target ]] || continue
  name=$(basename "$target")
  ran=$((ran + 1))
  corpus=$(mktemp -d)
  seeds=$(cat "$build/$name.corpus" 2>/dev/null || true)
  [[ -n $seeds && -d $seeds ]] && cp "$seeds"/* "$corpus"/ 2>/dev/null || true
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
# A project that built no target would otherwise pass without fuzzing anything.
if ((ran == 0)); then
  echo "fuzz: no fuzz_* target built in $build"; status=1
fi
exit $status
