#!/usr/bin/env python3
"""Regenerate (or check) the golden outputs of hloscope's commands.

Reads tests/golden/cases.txt (NAME | ARGUMENTS), runs `hloscope ARGUMENTS`
for each case with {ROOT} replaced by the repository root, normalises
absolute paths (everything before /tools/ or /tests/fixtures/ becomes
<ROOT>, so the goldens do not depend on where the repository or the fixture
programs were), and writes tests/golden/NAME.txt.

tests/analysis/explore_golden_test.cc runs the same cases through RunCli
(the CLI, in-process) and compares with these files.

Usage:
    python3 tools/update_golden.py [--hloscope build/dev/src/hloscope] [--check] [NAME ...]

--check writes nothing and exits 1 when a golden file differs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN_DIR = os.path.join(REPO_ROOT, "tests", "golden")
CASES = os.path.join(GOLDEN_DIR, "cases.txt")
MARKERS = ("/tools/", "/tests/fixtures/")
PATH_STOPS = " \t\n\"'(),="


def read_cases():
    cases = []
    with open(CASES, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            name, _, args = line.partition("|")
            cases.append((name.strip(), args.strip().split(" ")))
    return cases


def recorded(out: str, err: str, code: int) -> str:
    """What a golden file holds: stdout, then stderr and the exit code when
    either says something (same rule as Recorded() in explore_golden_test.cc)."""
    if code == 0 and not err:
        return out
    return f"{out}--- stderr (exit {code}) ---\n{err}"


def normalize(text: str) -> str:
    """Same rule as NormalizePaths() in tests/analysis/explore_golden_test.cc."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        hit = -1
        marker = ""
        for m in MARKERS:
            k = text.find(m, i)
            if k >= 0 and (hit < 0 or k < hit):
                hit, marker = k, m
        if hit < 0:
            out.append(text[i:])
            break
        start = hit
        while start > i and text[start - 1] not in PATH_STOPS:
            start -= 1
        if start < hit and text[start] == "/":
            out.append(text[i:start])
            out.append("<ROOT>")
        else:
            out.append(text[i:hit])
        out.append(marker)
        i = hit + len(marker)
    return "".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hloscope", default=os.path.join(REPO_ROOT, "build", "dev", "src", "hloscope"))
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    ap.add_argument("names", nargs="*", help="only these cases")
    opts = ap.parse_args(argv)
    if not os.path.isfile(opts.hloscope):
        print(f"update_golden: no hloscope binary at {opts.hloscope} (build it, or pass --hloscope)",
              file=sys.stderr)
        return 2
    differ = 0
    for name, args in read_cases():
        if opts.names and name not in opts.names:
            continue
        argv_ = [opts.hloscope] + [a.replace("{ROOT}", REPO_ROOT) for a in args]
        proc = subprocess.run(argv_, capture_output=True, text=True, cwd=REPO_ROOT)
        if proc.returncode not in (0, 1):
            print(f"update_golden: {name}: exit {proc.returncode}\n{proc.stderr}", file=sys.stderr)
            return 2
        text = normalize(recorded(proc.stdout, proc.stderr, proc.returncode))
        path = os.path.join(GOLDEN_DIR, name + ".txt")
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        differ += 1
        if opts.check:
            print(f"update_golden: {name} differs from {os.path.relpath(path, REPO_ROOT)}")
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"update_golden: wrote {os.path.relpath(path, REPO_ROOT)}")
    if opts.check and differ:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
