#!/usr/bin/env python3
"""Regenerate (or check) the golden outputs of hloscope's commands.

The cases are tests/golden/cases.txt (NAME | ARGUMENTS) and the expected
outputs tests/golden/NAME.txt. The test that compares them,
tests/analysis/explore_golden_test.cc, is also what writes them: run with
HLOSCOPE_UPDATE_GOLDEN=1, it rewrites each file whose case's output
(normalised, with stderr and the exit code as the test records them) differs,
and prints "hloscope golden: wrote tests/golden/NAME.txt". This script only
builds that test and runs it, so the format and the path normaliser exist
once, in the test.

Usage:
    python3 tools/update_golden.py [--build build/dev] [--no-build] [--check] [NAME ...]

--check writes nothing and exits 1 when a golden file differs (the test's
own failure messages say where). --hloscope PATH, from when this script ran
the CLI binary, still works: it names the build folder that holds PATH
(build/dev/src/hloscope -> build/dev).

Same without this script:
    cmake --build build/dev --target explore_golden_test
    HLOSCOPE_UPDATE_GOLDEN=1 build/dev/tests/analysis/explore_golden_test
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = "explore_golden_test"
CASE_TEST = "Cases/ExploreGolden.MatchesGoldenFile/"
WROTE = "hloscope golden: wrote "


def build_dir(opts) -> str:
    if opts.hloscope:
        # <build>/src/hloscope
        return os.path.dirname(os.path.dirname(os.path.abspath(opts.hloscope)))
    return os.path.abspath(opts.build)


def case_names(test: str) -> list[str]:
    listed = subprocess.run([test, "--gtest_list_tests", f"--gtest_filter={CASE_TEST}*"],
                            capture_output=True, text=True, check=True).stdout
    # "Cases/ExploreGolden.\n  MatchesGoldenFile/NAME  # GetParam() = NAME"
    return [line.split()[0].split("/", 1)[1] for line in listed.splitlines()
            if line.startswith("  MatchesGoldenFile/")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO_ROOT, "build", "dev"),
                    help="the CMake build folder (default build/dev)")
    ap.add_argument("--hloscope", help=argparse.SUPPRESS)
    ap.add_argument("--no-build", action="store_true", help=f"run {TARGET} as it is, without building it")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    ap.add_argument("names", nargs="*", help="only these cases")
    opts = ap.parse_args(argv)

    build = build_dir(opts)
    test = os.path.join(build, "tests", "analysis", TARGET)
    if not opts.no_build:
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            print(f"update_golden: {build} is no configured build folder "
                  "(cmake --preset dev, or pass --build)", file=sys.stderr)
            return 2
        if subprocess.run(["cmake", "--build", build, "--target", TARGET]).returncode != 0:
            print(f"update_golden: building {TARGET} failed", file=sys.stderr)
            return 2
    if not os.path.isfile(test):
        print(f"update_golden: no {test} (build it, or pass --build)", file=sys.stderr)
        return 2

    cmd = [test, "--gtest_brief=1"]
    if opts.names:
        known = set(case_names(test))
        unknown = [n for n in opts.names if n not in known]
        if unknown:
            print(f"update_golden: no such case in tests/golden/cases.txt: {' '.join(unknown)}",
                  file=sys.stderr)
            return 2
        cmd.append("--gtest_filter=" + ":".join(CASE_TEST + n for n in opts.names))
    env = dict(os.environ)
    env.pop("HLOSCOPE_UPDATE_GOLDEN", None)
    if not opts.check:
        env["HLOSCOPE_UPDATE_GOLDEN"] = "1"
    proc = subprocess.run(cmd, env=env, cwd=REPO_ROOT, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    if opts.check:
        if proc.returncode != 0:
            print("update_golden: goldens differ; if the change is intended: python3 tools/update_golden.py")
            return 1
        print("update_golden: every golden matches")
        return 0
    wrote = sum(1 for line in proc.stdout.splitlines() if line.startswith(WROTE))
    if proc.returncode != 0:
        print(f"update_golden: {TARGET} failed (see above); {wrote} file(s) written", file=sys.stderr)
        return 2
    print(f"update_golden: {wrote} file(s) written" if wrote else "update_golden: every golden was up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
