#!/usr/bin/env bash
# Every libFuzzer target (libpresplit's parsers, the daemon's reconcile pass), run longer than in
# the test suite (which runs 15 s each), through the suite's runner, scripts/lib/run_fuzzers.sh.
#   bench/run_fuzz_long.sh [SECONDS_PER_TARGET]   (default 300)
# The fuzz build goes to build/fuzz-long (PRESPLIT_FUZZ_BUILD_DIR: another directory).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRESPLIT_FUZZ_BUILD_DIR:-$root/build/fuzz-long}
seconds=${1:-300}
# Longer runs are worth an optimized build (more inputs a second); the suite's is -O0.
PRESPLIT_FUZZ_OPT=${PRESPLIT_FUZZ_OPT:--O1} exec "$root/scripts/lib/run_fuzzers.sh" \
  "$root/tests/fuzz" "$build" "$seconds"
