#!/usr/bin/env python3
"""Compare what two hloscope binaries print, command by command, on every fixture.

    python3 tools/compare_outputs.py --base OLD_BIN --new NEW_BIN [--corpus DIR] [--jobs N]
        [--allow FILE] [--show N] [--only SUBSTRING]

The check of a refactoring that must keep behaviour (issue 26, "JSON of every
command identical on every fixture"). For every fixture module (tests/fixtures/**:
module.hlo.txt and the library, sharded and report dumps; examples/dumps) and,
with --corpus, every HLO file of the shared corpus, both binaries run

    check --format json | check (text) | check --format sarif | fusions --format json |
    stats --format json | scopes --format json | explain --format json |
    annotate --format json | report (HTML)

and diff A B --format json for the committed diff pairs. JSON is compared as
data; a difference is allowed only where --allow lists it: one rule per line,
`COMMAND JSON-PATH-GLOB added|changed|removed [FIXTURE-GLOB]` (e.g. `check $.modules[*].copies[*].cause_facts added`;
tools/compare_outputs.allow holds the changes a change set declares). Text and HTML are
compared line by line. Prints every difference not allowed, grouped; exits 1 if any.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMANDS = {
    "check": ["check", "{f}", "--format", "json", "--kernels"],
    "check-text": ["check", "{f}"],
    "check-sarif": ["check", "{f}", "--format", "sarif"],
    "fusions": ["fusions", "{f}", "--format", "json"],
    "stats": ["stats", "{f}", "--format", "json"],
    "scopes": ["scopes", "{f}", "--format", "json"],
    "explain": ["explain", "{f}", "--format", "json"],
    "annotate": ["annotate", "{f}", "--format", "json"],
    "report": ["report", "{f}"],
}


def fixtures(corpus: str | None) -> list[str]:
    out = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/**/module.hlo.txt"), recursive=True))
    out += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/**/*after_optimizations.txt"), recursive=True))
    out += sorted(glob.glob(os.path.join(REPO, "examples/dumps/*after_optimizations.txt")))
    if corpus:
        for p in sorted(glob.glob(os.path.join(corpus, "**/*"), recursive=True)):
            if os.path.isfile(p) and (p.endswith(".txt") or p.endswith(".hlo")) and "buffer" not in p:
                out.append(p)
    seen, unique = set(), []
    for p in out:
        if p not in seen and "/hostile/" not in p:
            seen.add(p)
            unique.append(p)
    return unique


def diff_pairs() -> list[tuple[str, str]]:
    pairs = []
    for d in sorted(glob.glob(os.path.join(REPO, "tests/fixtures/diff/*/"))):
        files = sorted(glob.glob(os.path.join(d, "*after_optimizations.txt")) + glob.glob(os.path.join(d, "module.hlo.txt")))
        pairs += [(a, b) for a, b in zip(files, files[1:])]
    groups = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/diff/*")))
    hlos = [g for g in groups if os.path.isfile(os.path.join(g, "module.hlo.txt"))]
    for a, b in zip(hlos, hlos[1:]):
        pairs.append((os.path.join(a, "module.hlo.txt"), os.path.join(b, "module.hlo.txt")))
    return pairs


def run(binary: str, args: list[str]) -> tuple[int, str, str]:
    try:
        p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timeout"


def walk(a, b, path: str, out: list):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                out.append((f"{path}.{k}", "removed", a[k], None))
            else:
                walk(a[k], b[k], f"{path}.{k}", out)
        for k in b:
            if k not in a:
                out.append((f"{path}.{k}", "added", None, b[k]))
        return
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
        if len(a) != len(b):
            out.append((f"{path}.length", "changed", len(a), len(b)))
        return
    if a != b:
        out.append((path, "changed", a, b))


def glob_path(path: str) -> str:
    return re.sub(r"\[\d+\]", "[*]", path)


def load_allow(path: str | None) -> list[tuple[str, str, str]]:
    rules = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                parts = line.split()
                rules.append((parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else "*"))
    return rules


def allowed(rules, cmd: str, path: str, kind: str, fixture: str = "") -> bool:
    g = glob_path(path)
    # `[` is literal in the paths (list indices), not a character class.
    return any(fnmatch.fnmatchcase(cmd, c) and fnmatch.fnmatchcase(g, p.replace("[", "[[]")) and k in (kind, "any")
               and fnmatch.fnmatchcase(fixture, "*" + f) for c, p, k, f in rules)


def compare_one(base: str, new: str, cmd: str, args: list[str], rules, fixture: str) -> list[tuple]:
    ra, oa, ea = run(base, args)
    rb, ob, eb = run(new, args)
    diffs = []
    if ra != rb:
        if not allowed(rules, cmd, "$.exit_code", "changed", fixture):
            diffs.append(("$.exit_code", "changed", ra, rb))
    if cmd in ("check-text", "report") or not (oa.lstrip().startswith("{") and ob.lstrip().startswith("{")):
        if oa != ob and not allowed(rules, cmd, "$.text", "changed", fixture):
            la, lb = oa.splitlines(), ob.splitlines()
            for i, (x, y) in enumerate(zip(la, lb)):
                if x != y:
                    diffs.append((f"$.text:{i + 1}", "changed", x[:300], y[:300]))
                    break
            else:
                diffs.append(("$.text.lines", "changed", len(la), len(lb)))
        return diffs
    try:
        ja, jb = json.loads(oa), json.loads(ob)
    except json.JSONDecodeError:
        if oa != ob:
            diffs.append(("$.output", "changed", oa[:200], ob[:200]))
        return diffs
    raw = []
    walk(ja, jb, "$", raw)
    return diffs + [d for d in raw if not allowed(rules, cmd, d[0], d[1], fixture)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--allow", default=os.path.join(REPO, "tools", "compare_outputs.allow"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    args = ap.parse_args()
    rules = load_allow(args.allow)
    jobs = []
    for f in fixtures(args.corpus):
        if args.only and args.only not in f:
            continue
        for name in args.commands.split(","):
            if name in COMMANDS:
                jobs.append((name, [a.replace("{f}", f) for a in COMMANDS[name]], f))
    if "diff" in args.commands.split(","):
        for a, b in diff_pairs():
            jobs.append(("diff", ["diff", a, b, "--format", "json"], f"{a} -> {b}"))
    found = defaultdict(list)
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(compare_one, args.base, args.new, c, a, rules, f): (c, f) for c, a, f in jobs}
        for fut in cf.as_completed(futs):
            c, f = futs[fut]
            for d in fut.result():
                found[(c, glob_path(d[0]), d[1])].append((f, d))
    print(f"compared {len(jobs)} command runs")
    if not found:
        print("no difference outside the allowed changes")
        return 0
    for (c, p, kind), items in sorted(found.items()):
        print(f"\n{c} {p} {kind}: {len(items)} occurrence(s)")
        for f, d in items[: args.show]:
            print(f"  {os.path.relpath(f, REPO) if f.startswith('/') else f}: {d[0]}: {json.dumps(d[2])[:200]} -> {json.dumps(d[3])[:200]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
