#!/usr/bin/env bash
# Builds the parser fuzzer (clang++-14, libFuzzer + ASan + UBSan) and runs it
# for SECONDS (default 600), seeded with the HLO files of ../shared/corpus.
#
#   fuzz/run_fuzz.sh [SECONDS]
#
# Seeds are copied to build/fuzz/seeds; new inputs libFuzzer finds go to
# build/fuzz/corpus; crashes, timeouts and leaks to build/fuzz/artifacts/
# (crash-*, timeout-*, leak-*, oom-*). Nothing here is committed.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS, e.g. FUZZ_FLAGS=-jobs=2.
set -euo pipefail

seconds=${1:-600}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/fuzz
corpus_src=${HLOSCOPE_CORPUS_DIR:-$root/../shared/corpus}

cd "$root"
cmake --preset fuzz >/dev/null
cmake --build "$build" --target parse_fuzzer -j "${JOBS:-2}"

mkdir -p "$build/seeds" "$build/corpus" "$build/artifacts"
if [[ -d $corpus_src ]]; then
  # Every HLO text file (not the buffer-assignment dump), flat names.
  find "$corpus_src" -type f \( -name '*.hlo' -o -name '*.hlotxt' -o -name '*.txt' \) \
      -not -path '*/buffer_assignment/*' -size -64k |
    while read -r f; do
      cp "$f" "$build/seeds/$(basename "$f")"
    done
fi
for f in "$root"/tests/fixtures/jax/*/module.hlo.txt; do
  [[ -f $f ]] && [[ $(stat -c %s "$f") -lt 65536 ]] &&
    cp "$f" "$build/seeds/jax_$(basename "$(dirname "$f")").hlo.txt"
done
echo "seeds: $(ls "$build/seeds" | wc -l) files; running ${seconds}s" >&2

exec "$build/fuzz/parse_fuzzer" "$build/corpus" "$build/seeds" \
  -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/" ${FUZZ_FLAGS:-}
