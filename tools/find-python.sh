#!/usr/bin/env bash
# Prints the path of a Python interpreter of the version asked (e.g. 3.12),
# or exits 1: on PATH (python3.12), under pyenv (whose shim fails when that
# version is not selected), or in /usr/bin.
set -uo pipefail
version=${1:?usage: find-python.sh 3.12}
candidates=("python$version")
root=${PYENV_ROOT:-$HOME/.pyenv}
for d in "$root"/versions/"$version".*/bin/python"$version"; do candidates+=("$d"); done
candidates+=("/usr/bin/python$version" "/usr/local/bin/python$version")
for py in "${candidates[@]}"; do
  if out=$("$py" -c 'import sys, venv; print(sys.executable)' 2>/dev/null); then
    echo "$out"
    exit 0
  fi
done
exit 1
