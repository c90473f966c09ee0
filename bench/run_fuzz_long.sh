#!/usr/bin/env bash
# libpresplit's fuzz targets, run longer than in the test suite (which runs 15 s each).
#   bench/run_fuzz_long.sh [SECONDS_PER_TARGET]   (default 300)
# The fuzz build goes to build/fuzz-long unless PRESPLIT_FUZZ_BUILD_DIR says otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PRESPLIT_FUZZ_BUILD_DIR=${PRESPLIT_FUZZ_BUILD_DIR:-$root/build/fuzz-long}
exec "$root/tests/native/fuzz/run_fuzzers.sh" "${1:-300}"
