#!/usr/bin/env bash
# README command 1: set up a fresh machine, build hloscope, and run the main
# job on the bundled example (a replay buffer that XLA copies every step).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j2 --target hloscope
./build/dev/src/hloscope check examples/dumps/replay_rollout.cpu_after_optimizations.txt
