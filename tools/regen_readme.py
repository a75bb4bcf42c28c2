#!/usr/bin/env python3
"""Rewrites the sample output in README.md from a real run.

    python3 tools/regen_readme.py [--hloscope build/dev/src/hloscope] [--check]

Runs the README's main command on the bundled example and replaces the text
between `<!-- sample:begin -->` and `<!-- sample:end -->`. With --check it
only reports whether the README is current (exit 1 if not); the test suite
runs that.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = "examples/dumps/replay_rollout.cpu_after_optimizations.txt"


def sample(binary):
    out = subprocess.run([binary, "check", EXAMPLE], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return f"```\n$ hloscope check {EXAMPLE}\n{out}```\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hloscope", default=os.path.join(ROOT, "build/dev/src/hloscope"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    path = os.path.join(ROOT, "README.md")
    text = open(path).read()
    pattern = re.compile(r"(<!-- sample:begin -->\n)(.*?)(<!-- sample:end -->)", re.S)
    if not pattern.search(text):
        sys.exit("README.md has no sample markers")
    new = pattern.sub(lambda m: m.group(1) + sample(args.hloscope) + m.group(3), text)
    if args.check:
        if new != text:
            print("README.md sample output is stale: run tools/regen_readme.py")
            return 1
        return 0
    open(path, "w").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
