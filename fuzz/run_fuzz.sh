#!/usr/bin/env bash
# Builds a fuzzer (clang++-14, libFuzzer + ASan + UBSan) and runs it for
# SECONDS (default 600), seeded from ../shared/corpus and tests/fixtures.
#
#   fuzz/run_fuzz.sh [SECONDS] [TARGET]
#
# TARGET is one of
#   pipeline_fuzzer           parse → verify → every analysis → every
#                             renderer, text and JSON (the default); inputs
#                             may carry a buffer-assignment dump after a
#                             "BufferAssignment:" line; a structure-aware
#                             mutator runs beside byte mutation
#   parse_fuzzer              the parser and the printer's round trip
#   buffer_assignment_fuzzer  the buffer-assignment and GPU thunk-dump parsers
#   check_json_fuzzer         the JSON `diff` reads back (a saved baseline):
#                             reading, diffing, gating, rendering
#   dump_folder_fuzzer        a dump folder's listing grouped into modules
#
# Seeds go to build/fuzz/seeds/TARGET; new inputs libFuzzer finds to
# build/fuzz/corpus/TARGET; crashes, timeouts and leaks to
# build/fuzz/artifacts/TARGET/ (crash-*, timeout-*, leak-*, oom-*). Nothing
# here is committed: a finding becomes a regression test
# (tests/app/hostile_input_test.cc). Extra libFuzzer flags go in FUZZ_FLAGS,
# e.g. FUZZ_FLAGS=-jobs=2 or FUZZ_FLAGS=-runs=2000 (CI's short run).
set -euo pipefail

seconds=${1:-600}
target=${2:-pipeline_fuzzer}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/fuzz
corpus_src=${HLOSCOPE_CORPUS_DIR:-$root/../shared/corpus}

cd "$root"
cmake --preset fuzz >/dev/null
cmake --build "$build" --target "$target" -j "${JOBS:-2}"

seeds=$build/seeds/$target
mkdir -p "$seeds" "$build/corpus/$target" "$build/artifacts/$target"
copy_seed() {  # FILE NAME
  [[ -f $1 ]] && [[ $(stat -c %s "$1") -lt 65536 ]] && cp "$1" "$seeds/$2" || true
}
case $target in
  buffer_assignment_fuzzer)
    if [[ -d $corpus_src ]]; then
      find "$corpus_src" -type f -path '*buffer_assignment*' | while read -r f; do
        copy_seed "$f" "$(basename "$f")"
      done
    fi
    for f in "$root"/tests/fixtures/jax/*/buffer-assignment.txt; do
      copy_seed "$f" "jax_$(basename "$(dirname "$f")").txt"
    done
    # The same target reads the GPU thunk dumps (the other dump check reads).
    for f in "$root"/tests/fixtures/jax-gpu-h100/*/thunk_metadata.txt; do
      copy_seed "$f" "thunks_$(basename "$(dirname "$f")").txt"
    done
    ;;
  check_json_fuzzer)
    # hloscope's own check and diff documents (the goldens).
    for f in "$root"/tests/golden/*_json.txt; do
      copy_seed "$f" "$(basename "$f")"
    done
    ;;
  dump_folder_fuzzer)
    # Real dump folders' listings (fuzz/seeds/dump_folder/, with the JAX
    # that wrote them) and every fixture folder's.
    for f in "$root"/fuzz/seeds/dump_folder/*.txt; do
      copy_seed "$f" "$(basename "$f")"
    done
    for d in "$root"/tests/fixtures/*/*/; do
      ls "$d" > "$seeds/$(basename "$(dirname "$d")")_$(basename "$d").txt"
    done
    ;;
  *)
    if [[ -d $corpus_src ]]; then
      # Every HLO text file (not the buffer-assignment dumps), flat names.
      find "$corpus_src" -type f \( -name '*.hlo' -o -name '*.hlotxt' -o -name '*.txt' \) \
          -not -path '*buffer_assignment*' | while read -r f; do
        copy_seed "$f" "$(basename "$f")"
      done
    fi
    for d in "$root"/tests/fixtures/jax/*/; do
      name=jax_$(basename "$d")
      copy_seed "$d/module.hlo.txt" "$name.hlo.txt"
      # The module with its dump after it: the verdict checks are reached.
      if [[ $target == pipeline_fuzzer && -f $d/buffer-assignment.txt ]] &&
          [[ $(cat "$d/module.hlo.txt" "$d/buffer-assignment.txt" | wc -c) -lt 65536 ]]; then
        cat "$d/module.hlo.txt" "$d/buffer-assignment.txt" > "$seeds/$name.with_ba.txt"
      fi
    done
    ;;
esac
echo "$target: $(ls "$seeds" | wc -l) seeds; running ${seconds}s" >&2

# Graphviz's and the font stack's process-wide caches are not leaks of ours.
export LSAN_OPTIONS="suppressions=$root/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
exec "$build/fuzz/$target" "$build/corpus/$target" "$seeds" \
  -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$target/" ${FUZZ_FLAGS:-}
