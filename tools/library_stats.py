#!/usr/bin/env python3
"""What hloscope says about the jax-libs fixtures: copies, causes, headlines, flagged loops.

    python3 tools/library_stats.py [--hloscope BIN] [--details] [DIR ...]

DIR defaults to every tests/fixtures/jax-libs/*/ (each with module.hlo.txt and
buffer-assignment.txt).  Needs only the system python3 and the hloscope binary
(--hloscope, else $HLOSCOPE_BIN, else build/dev/src/hloscope).  Per fixture: the
copies, the non-scalar ones, their causes, how many are `unknown`; whether the
copy the headline names as "Largest" is the one moving the most bytes per call
(bytes per iteration of the unknown-trip loop where the total is unknown: a lower bound); and the
loops flagged "grows with buffer size".  --details lists every non-scalar copy
whose cause is unknown with what it copies, its readers and what it feeds.
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_check(binary, d):
    hlo = os.path.join(d, "module.hlo.txt")
    cmd = [binary, "check", hlo, "--format", "json"]
    ba = os.path.join(d, "buffer-assignment.txt")
    if os.path.isfile(ba):
        cmd[3:3] = ["--buffer-assignment", ba]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[:300])
    module = json.loads(out.stdout)["modules"][0]
    # The "Largest: NAME — why" line is in the text answer (JSON's headline is its first line only).
    text = subprocess.run([c for c in cmd if c not in ("--format", "json")], capture_output=True, text=True)
    module["_text"] = text.stdout
    return module


def weight(c):
    """Bytes per call; where unknown, bytes per iteration of the unknown-trip loop — a lower bound of
    the total when the loop runs at least once, so it ranks first among equals (as hloscope does)."""
    if c.get("total_bytes") is not None:
        return (c["total_bytes"], 0)
    return (c.get("bytes_per_unknown_trip_iteration") or 0, 1)


def headline_largest(headline):
    """The copy the headline names as the largest: its `Largest:` line, or, where the answer leads
    with that copy (and so prints no `Largest:`), the answer's first line."""
    m = re.search(r"Largest: (\S+)", headline or "")
    if m:
        return m.group(1).rstrip(",.;:")
    first = (headline or "").split("\n", 1)[0]
    m = re.match(r"[^:]+: (?:\d+ copies \(([^,)]+)|(\S+) copies )", first)
    return (m.group(1) or m.group(2)) if m else None


def human(b):
    if b is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(b) < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024


def ref(r):
    if not r:
        return "-"
    if "index" in r and r["index"]:
        return f"{r['instruction']}{{{','.join(map(str, r['index']))}}}"
    return r.get("instruction", "?")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hloscope")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("dirs", nargs="*")
    opts = ap.parse_args(argv)
    binary = opts.hloscope or os.environ.get("HLOSCOPE_BIN") or os.path.join(REPO, "build/dev/src/hloscope")
    dirs = opts.dirs or sorted(os.path.dirname(p) for p in glob.glob(
        os.path.join(REPO, "tests/fixtures/jax-libs/*/module.hlo.txt")))
    tot = collections.Counter()
    causes_all = collections.Counter()
    rows, unknowns, headline_issues = [], [], []
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        try:
            m = run_check(binary, d)
        except Exception as e:
            rows.append((name, f"ERROR {e}"))
            continue
        copies = m["copies"]
        ns = [c for c in copies if not c["scalar"]]
        causes = collections.Counter(c["cause"] for c in ns)
        unknown = [c for c in ns if c["cause"] == "unknown"]
        causes_all.update(causes)
        tot["fixtures"] += 1
        tot["copies"] += len(copies)
        tot["nonscalar"] += len(ns)
        tot["unknown"] += len(unknown)
        tot["unknown_all"] += sum(c["cause"] == "unknown" for c in copies)
        named = headline_largest(m["_text"].split("\n\n")[0])
        counted = [c for c in copies if not c.get("minor")]
        top = max(counted, key=weight) if counted else None
        if named is None:
            hl = "-" if not counted else "no 'Largest'"
        elif top is not None and named == top["instruction"]:
            hl = "yes"
        else:
            tied = top is not None and any(c["instruction"] == named and weight(c) == weight(top) for c in counted)
            hl = "tie" if tied else f"NO (max: {top['instruction'] if top else '-'})"
            if not tied:
                headline_issues.append((name, named, top, m["headline"]))
        flagged = [l["instruction"] for l in m["loops"] if l["scales_with_buffer"]]
        tot["loops"] += len(m["loops"])
        tot["flagged"] += len(flagged)
        rows.append((name, len(copies), len(ns), dict(causes), len(unknown), hl, len(m["loops"]), flagged,
                     sum((c["total_bytes"] or 0) for c in ns)))
        for c in unknown:
            unknowns.append((name, c))

    print(f"{'fixture':28s} {'copies':>6s} {'nonscal':>7s} {'unknown':>7s} {'bytes/call':>11s} "
          f"{'headline=max':14s} {'loops':>5s} flagged / causes")
    for r in rows:
        if len(r) == 2:
            print(f"{r[0]:28s} {r[1]}")
            continue
        name, n, ns, causes, unk, hl, nl, flagged, b = r
        cs = ", ".join(f"{k} {v}" for k, v in sorted(causes.items()))
        print(f"{name:28s} {n:6d} {ns:7d} {unk:7d} {human(b):>11s} {hl:14s} {nl:5d} "
              f"{','.join(flagged) or '-'} / {cs or '-'}")
    print()
    pct = 100.0 * tot["unknown"] / tot["nonscalar"] if tot["nonscalar"] else 0.0
    print(f"{tot['fixtures']} fixtures: {tot['copies']} copies, {tot['nonscalar']} non-scalar, "
          f"{tot['unknown']} non-scalar with cause unknown ({pct:.1f}%), {tot['unknown_all']} unknown in all; "
          f"{tot['loops']} loops, {tot['flagged']} flagged grows-with-buffer")
    print("non-scalar copies by cause: " + ", ".join(f"{k} {v}" for k, v in causes_all.most_common()))
    if headline_issues:
        print("\nheadlines not naming the copy with the most bytes:")
        for name, named, top, hl in headline_issues:
            print(f"  {name}: names {named}; most bytes: {top['instruction']} ({human(top['total_bytes'])}/call)")
    if opts.details and unknowns:
        print("\nnon-scalar copies with cause unknown:")
        for name, c in unknowns:
            feeds = "; ".join(f"{f['kind']}:{ref(f.get('update') or f.get('loop'))}" for f in c.get("feeds", []))
            print(f"  {name}: {c['instruction']} in {c['computation']} {c['shape']} {human(c['bytes'])} x "
                  f"{c['executions']} copied_from={ref(c.get('copied_from'))} "
                  f"readers={[r['instruction'] for r in c.get('readers', [])]} feeds=[{feeds}] "
                  f"loops={[l['instruction'] for l in c['enclosing_loops']]}")
            print(f"      {c['cause_detail']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
