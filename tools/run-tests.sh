#!/usr/bin/env bash
# README command 2: the whole test suite — C++ (GoogleTest via ctest: unit,
# corpus, fixtures) and Python (pytest: oracle comparison, the package, the
# examples). Installs the tests' tools first (tools/install-deps.sh: GoogleTest,
# Google Benchmark, clang for the fuzzers, Chromium, JAX, pytest, ...), unless
# .ci/run has just done so. After tools/quickstart.sh the C++ is compiled once:
# ccache gives this build the package build's objects (tools/ccache-env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=2
# Where tools/quickstart.sh made a venv (the system Python refused pip), the
# tests install into it and run with it, in this shell too.
venv=${HLOSCOPE_VENV:-$HOME/.local/share/hloscope/venv}
if [[ -x $venv/bin/python ]]; then export PATH="$venv/bin:$PATH"; fi
if [[ ${HLOSCOPE_DEPS_INSTALLED:-} != 1 ]]; then bash tools/install-deps.sh; fi
# shellcheck source=tools/ccache-env.sh
source tools/ccache-env.sh

# The suite must leave the checkout as it found it: 614 dump files once
# landed in a folder named `"` at the root (a test wrote to a quoted path
# taken literally). What git sees now is compared with what it sees at the
# end (tools/check-clean-tree.sh).
tree_before=$(git status --porcelain --untracked-files=all 2>/dev/null || true)

phase_start=$SECONDS
phase() { echo "hloscope: $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }

cmake --preset dev -DHLOSCOPE_BUILD_TESTS=ON -DHLOSCOPE_BUILD_BENCHMARKS=ON >/dev/null
cmake --build --preset dev -j2
phase "the C++ build"
ctest --preset dev -j2
phase "ctest"

# The Python package, built from the same C++ (also puts `hloscope` on PATH).
python3 -m pip install -q --no-build-isolation --disable-pip-version-check .
# The newest JAX too, where tools/install-deps.sh --newest-jax made its venv
# (a Python 3.12 is needed; .ci/run asks for it): the package built again
# for that Python, the Python suite run again with it.
newest=${HLOSCOPE_NEWEST_JAX_VENV:-build/py312}
if [[ -x $newest/bin/python ]]; then
  "$newest/bin/python" -m pip install -q --no-build-isolation --disable-pip-version-check .
fi
phase "the Python packages' build"

# -rs: every skip with its reason (a compile-only package missing, a lock), so a skip is seen.
# One suite after the other: side by side (one per core) they took longer
# (~17.5 min against 16.1 in one CI run each; XLA compiles on both cores).
HLOSCOPE_BIN="$PWD/build/dev/src/hloscope" python3 -m pytest -q -rs tests/python
phase "the Python suite (JAX 0.10.2)"
if [[ -x $newest/bin/python ]]; then
  echo "hloscope: the Python suite again with $("$newest/bin/python" -c \
    'import sys, jax; print(f"JAX {jax.__version__} on Python {sys.version.split()[0]}")')"
  HLOSCOPE_BIN="$PWD/build/dev/src/hloscope" "$newest/bin/python" -m pytest -q -rs -p no:cacheprovider tests/python
  phase "the Python suite (newest JAX)"
else
  echo "hloscope: no newest-JAX venv ($newest): the Python suite ran with JAX 0.10.2 only" \
    "(bash tools/install-deps.sh --newest-jax adds it where a Python 3.12 is)"
fi

# CI: a short run of each fuzzer (libFuzzer + ASan + UBSan, clang-14 from
# tools/install-deps.sh) over the corpus and fixture seeds; a crash, hang,
# leak or sanitizer report fails the run. HLOSCOPE_FUZZ_SECONDS=0 skips it;
# locally it runs when HLOSCOPE_FUZZ_SECONDS is set.
fuzz_seconds=${HLOSCOPE_FUZZ_SECONDS:-}
if [[ -z $fuzz_seconds && ${CI:-} == true ]]; then fuzz_seconds=30; fi
if [[ -n $fuzz_seconds && $fuzz_seconds != 0 ]]; then
  for target in pipeline_fuzzer buffer_assignment_fuzzer parse_fuzzer check_json_fuzzer dump_folder_fuzzer; do
    log=build/fuzz/$target.log
    mkdir -p build/fuzz
    status=0
    bash fuzz/run_fuzz.sh "$fuzz_seconds" "$target" >"$log" 2>&1 || status=$?
    grep -E "seeds;|^Done|stat::number_of_executed_units" "$log" || true
    if [[ $status -ne 0 ]]; then
      tail -60 "$log"
      echo "$target failed (exit $status); the input is in build/fuzz/artifacts/$target/" >&2
      exit 1
    fi
  done
  phase "the fuzzers (build and run)"
fi

# Nothing the suite wrote may be left in the checkout (ignored build output
# aside), and no path may hold a quote.
tree_after=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
if [[ "$tree_after" != "$tree_before" ]]; then
  echo "hloscope: the test suite changed the checkout (git status before and after differ):" >&2
  diff <(echo "$tree_before") <(echo "$tree_after") >&2 || true
  exit 1
fi
if git ls-files -z --others --cached --exclude-standard | tr '\0' '\n' | grep -q '["'"'"']'; then
  echo "hloscope: a path in the checkout holds a quote:" >&2
  git ls-files --others --cached --exclude-standard | grep '["'"'"']' | head >&2
  exit 1
fi
echo "hloscope: the checkout is as the suite found it"
