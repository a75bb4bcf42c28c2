#!/usr/bin/env bash
# README command 1: on a fresh Debian 12 machine, install what building and
# running hloscope needs (not the tests' tools), build it once — the Python
# package, which carries the `hloscope` CLI — put `hloscope` on PATH and
# `import hloscope` in reach, and run the main job on the bundled example (a
# replay buffer that XLA copies every step).
#
# Python: the package goes into `python3` where pip may install there (a
# pyenv or conda Python, a venv that is active); where the system Python
# refuses (Debian's "externally managed" python3, PEP 668) into a venv,
# $HLOSCOPE_VENV (default ~/.local/share/hloscope/venv), made with the
# system's packages visible, and ~/.bashrc puts that venv first on PATH in
# new shells (so `python3 -c "import hloscope"` works there; one line, added
# once, marked "hloscope quickstart"). The CLI is linked into /usr/local/bin
# (root) or ~/.local/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
step() { printf '\n\033[1mhloscope quickstart [%d s]: %s\033[0m\n' "$((SECONDS - start))" "$*"; }

step "1/4 system packages: compiler, CMake, Ninja, ccache, fmt, CLI11, nlohmann-json, Graphviz, Python headers"
bash tools/install-deps.sh --runtime

step "2/4 choosing the Python to install into"
python=python3
if ! python3 - <<'PY'
import os, sys, sysconfig
in_venv = sys.prefix != sys.base_prefix
managed = os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
try:
    import pip  # noqa: F401
except ImportError:
    sys.exit(1)
sys.exit(0 if in_venv or not managed else 1)
PY
then
  venv=${HLOSCOPE_VENV:-$HOME/.local/share/hloscope/venv}
  echo "$(command -v python3) is managed by the system (PEP 668): installing into the venv $venv"
  [[ -x $venv/bin/python ]] || python3 -m venv --system-site-packages "$venv"
  python=$venv/bin/python
  line="export PATH=\"$venv/bin:\$PATH\"  # hloscope quickstart: the venv with hloscope"
  if ! grep -qsF "# hloscope quickstart:" "$HOME/.bashrc"; then
    echo "$line" >>"$HOME/.bashrc"
    echo "added to ~/.bashrc (new shells): $line"
  fi
fi
echo "Python: $("$python" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
"$python" -m pip install -q --disable-pip-version-check "nanobind==3.1.0" "scikit-build-core==1.1.2"

step "3/4 building hloscope once (the CLI and the Python module; progress below: [done/total] files)"
# shellcheck source=tools/ccache-env.sh
source tools/ccache-env.sh
# -v streams CMake's and Ninja's progress; the build folder
# (build/<wheel tag>) is kept, so tools/run-tests.sh and a second install
# rebuild only what changed.
mkdir -p build
log=build/quickstart-build.log
set +e
"$python" -m pip install -v --no-build-isolation --disable-pip-version-check . 2>&1 | tee "$log" |
  grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] |^Successfully installed'
status=${PIPESTATUS[0]}
set -e
if [[ $status != 0 ]]; then
  tail -40 "$log"
  echo "hloscope quickstart: the build failed (exit $status); the whole log is in $log" >&2
  exit 1
fi
scripts=$("$python" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
cli=$scripts/hloscope
[[ -x $cli ]] || { echo "hloscope quickstart: the build left no $cli" >&2; exit 1; }

# On PATH: the scripts folder already is (pyenv, an active venv), or a link
# in a folder that is.
on_path=$(command -v hloscope || true)
if [[ $(readlink -f "${on_path:-/nonexistent}") != $(readlink -f "$cli") ]]; then
  if [[ $(id -u) == 0 ]]; then bin=/usr/local/bin; else bin=$HOME/.local/bin; fi
  mkdir -p "$bin"
  ln -sfn "$cli" "$bin/hloscope"
  on_path=$bin/hloscope
fi

step "4/4 hloscope check on the bundled example"
"$cli" check examples/dumps/replay_rollout.cpu_after_optimizations.txt

step "done in $((SECONDS - start)) s"
echo "  CLI:    $on_path -> $cli ($("$cli" --version))"
echo "  Python: $python -c 'import hloscope'   (package in $("$python" -c 'import hloscope, os; print(os.path.dirname(hloscope.__file__))'))"
if [[ $python != python3 ]]; then
  echo "          (python3 in a new shell: ~/.bashrc puts the venv first; here: source ${python%/bin/python}/bin/activate)"
fi
case ":$PATH:" in *":$(dirname "$on_path"):"*) ;; *)
  echo "  note: $(dirname "$on_path") is not on PATH in this shell; add it (export PATH=$(dirname "$on_path"):\$PATH)" ;;
esac
echo "  Next:   hloscope check /tmp/dump (XLA_FLAGS=--xla_dump_to=/tmp/dump python train.py); README.md"
echo "  Tests:  bash tools/run-tests.sh (installs the tests' tools, reuses this build)"
