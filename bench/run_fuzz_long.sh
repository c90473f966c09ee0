#!/usr/bin/env bash
# Every libFuzzer target (libpresplit's parsers, the daemon's reconcile pass), run longer than in
# the test suite (which runs 15 s each), through the suite's runner, scripts/lib/run_fuzzers.sh.
#   bench/run_fuzz_long.sh [SECONDS_PER_TARGET]   (default 300)
# The fuzz builds go to build/fuzz-long/{native,daemon} (PRESPLIT_FUZZ_BUILD_DIR: another root).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builds=${PRESPLIT_FUZZ_BUILD_DIR:-$root/build/fuzz-long}
seconds=${1:-300}
status=0
"$root/scripts/lib/run_fuzzers.sh" "$root/tests/native/fuzz" "$builds/native" "$seconds" || status=1
"$root/scripts/lib/run_fuzzers.sh" "$root/tests/daemon/fuzz" "$builds/daemon" "$seconds" || status=1
exit $status
