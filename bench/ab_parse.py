#!/usr/bin/env python3
"""Interleaved A/B comparison of the parser at two git revisions.

On a shared, noisy machine the same binary's timings swing up to 2x from
one minute to the next, so a speed change is measured as a ratio of two
parsers run alternately in the same conditions:

    python3 bench/ab_parse.py --base REV [--new REV|--new-build DIR] [--file F] [--rounds 3]

For each revision (a git worktree under build/ab/REV), the parser library
(hloscope_parser and the layers below it; hloscope_core before the layers
were split) is built in Release and bench/parse_driver.cc (from this
checkout; it uses only the public parser API) is compiled against it. Then
each round runs base and new once (alternating which goes first), N parses each in one process; the first
parse of each process is dropped (it pays for fresh memory, see
docs/performance.md). Prints medians of wall and user time and new/base.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = Path.home() / ".cache" / "hloscope" / "large_module.hlo.txt"


def run(cmd, **kw):
    print("[ab_parse]", " ".join(str(c) for c in cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


def build_driver(rev, jobs):
    """Builds hloscope_core at `rev` and links parse_driver.cc against it."""
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    tree = ROOT / "build" / "ab" / sha
    if not tree.exists():
        run(["git", "-C", ROOT, "worktree", "add", "--detach", tree, sha])
    build = tree / "build-ab"
    run(["cmake", "-S", tree, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         "-DHLOSCOPE_BUILD_TESTS=OFF", "-DHLOSCOPE_BUILD_BENCHMARKS=OFF"],
        stdout=subprocess.DEVNULL)
    # One library per layer since the model refactoring; one hloscope_core before.
    layered = (tree / "cmake" / "CheckLayers.cmake").exists()
    target = "hloscope_parser" if layered else "hloscope_core"
    run(["cmake", "--build", build, "--target", target, "-j", str(jobs)], stdout=subprocess.DEVNULL)
    return sha, link_driver(tree / "include", build, build / "parse_driver")


def parser_libraries(build):
    """The static libraries the parser needs, in link order."""
    src = build / "src"
    if (src / "libhloscope_core.a").exists():
        return [src / "libhloscope_core.a"]
    return [src / f"libhloscope_{layer}.a" for layer in ("parser", "ir", "support")]


def link_driver(include, build, exe):
    """Compiles bench/parse_driver.cc (this checkout's) against the build's parser libraries."""
    run(["g++", "-std=c++20", "-O2", f"-I{include}", f"-I{build / 'generated' / 'include'}",
         ROOT / "bench" / "parse_driver.cc", *parser_libraries(build), "-lfmt", "-o", exe])
    return exe


def parses(exe, path, n):
    out = subprocess.run([exe, path, str(n)], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"parse (\d+) wall_ms ([\d.]+) user_ms ([\d.]+) sys_ms ([\d.]+)", line)
        if m and int(m.group(1)) > 0:  # drop the first parse of the process
            rows.append((float(m.group(2)), float(m.group(3))))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="git revision of the baseline parser")
    ap.add_argument("--new", default=None, help="git revision of the new parser (default: HEAD)")
    ap.add_argument("--new-build", default=None,
                    help="use this build directory's src/libhloscope_core.a (e.g. build/dev, "
                         "uncommitted changes) instead of --new")
    ap.add_argument("--file", default=str(DEFAULT_FILE))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parses", type=int, default=3, help="parses per process (first dropped)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not Path(args.file).exists():
        sys.exit(f"{args.file} not found (python3 tools/gen_large_module.py makes it)")

    base_sha, base_exe = build_driver(args.base, args.jobs)
    if args.new_build:
        build = Path(args.new_build).resolve()
        new_sha, new_exe = f"{build}", link_driver(ROOT / "include", build, build / "ab_parse_driver")
    else:
        new_sha, new_exe = build_driver(args.new or "HEAD", args.jobs)

    data = {"base": [], "new": []}
    exes = {"base": base_exe, "new": new_exe}
    for r in range(args.rounds):
        # Alternate which runs first: the second process of a round measured
        # up to 10% slower than the first on these VMs, whichever it was.
        for k in (("base", "new") if r % 2 == 0 else ("new", "base")):
            data[k] += parses(exes[k], args.file, args.parses)
    size_mb = os.path.getsize(args.file) / 1e6
    med = {}
    for k, label in (("base", base_sha), ("new", new_sha)):
        wall = statistics.median(x[0] for x in data[k])
        user = statistics.median(x[1] for x in data[k])
        med[k] = wall
        print(f"{k:<5} {label:<12} median wall {wall:8.1f} ms  user {user:8.1f} ms  "
              f"{size_mb / (wall / 1e3):7.1f} MB/s  ({len(data[k])} parses)")
    print(f"new/base wall time: {med['new'] / med['base']:.3f}")


if __name__ == "__main__":
    main()
