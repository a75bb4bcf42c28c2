#!/usr/bin/env bash
# README command 2: the whole test suite — C++ (GoogleTest via ctest: unit,
# corpus, fixtures) and Python (pytest: oracle comparison, the package, the
# examples). Assumes tools/install-deps.sh has run (tools/quickstart.sh or
# .ci/run do that).
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL=2

cmake --preset dev -DHLOSCOPE_BUILD_TESTS=ON -DHLOSCOPE_BUILD_BENCHMARKS=ON >/dev/null
cmake --build --preset dev -j2
ctest --preset dev -j2

# The Python package, built from the same C++ (also puts `hloscope` on PATH).
python3 -m pip install -q --no-build-isolation --disable-pip-version-check .
HLOSCOPE_BIN="$PWD/build/dev/src/hloscope" python3 -m pytest -q tests/python
