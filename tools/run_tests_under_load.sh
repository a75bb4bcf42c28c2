#!/usr/bin/env bash
# The tests of `hloscope run` (timing, signals, dump folders), repeated on
# a loaded machine: BUSY busy loops (default: one per core) run beside
# them, and every repetition must pass (issue 28: "pass 20 times in a row
# under load"). On demand, not in CI (about 3 minutes per repetition on 2
# loaded cores).
#
#   [BUSY=N] tools/run_tests_under_load.sh [REPETITIONS] [PYTEST ARGS...]
#
# Needs the build (build/dev/src/hloscope) and the Python package.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-20}
shift || true
tests=(tests/python/test_run.py tests/python/test_hostile_doors.py)
busy=()
for _ in $(seq "${BUSY:-$(nproc)}"); do
  (while :; do :; done) &
  busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null || true' EXIT
echo "load: ${#busy[@]} busy loops on $(nproc) cores"
passed=0
for i in $(seq "$reps"); do
  start=$SECONDS
  if HLOSCOPE_BIN="$PWD/build/dev/src/hloscope" python3 -m pytest -q -x -p no:cacheprovider "${tests[@]}" "$@" \
      >"build/under_load.$i.log" 2>&1; then
    passed=$((passed + 1))
    echo "repetition $i: passed ($((SECONDS - start)) s): $(tail -1 "build/under_load.$i.log")"
  else
    echo "repetition $i: FAILED ($((SECONDS - start)) s); log: build/under_load.$i.log"
    tail -30 "build/under_load.$i.log"
    exit 1
  fi
done
echo "$passed of $reps repetitions passed in a row under load"
