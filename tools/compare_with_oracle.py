#!/usr/bin/env python3
"""Compare `hloscope check --format json` with the independent oracle.

    python3 tools/compare_with_oracle.py --hloscope build/dev/src/hloscope DIR [DIR...]

Each DIR holds module.hlo.txt and buffer-assignment.txt (tests/fixtures/jax
layout). Checks, per module:
  * copies: the same instructions as the oracle's copies and layout-copy
    fusions, with equal bytes (none missed, none invented);
  * updates: every oracle update whose operand and result share a slice is
    reported by hloscope as in-place / in-place-on-copy (a claim of in-place
    where XLA did not share is the worst error and counted separately), every
    in-place verdict hloscope makes is confirmed by the buffer assignment,
    and out-of-place fusions agree;
  * loops: trip counts equal where the oracle knows them;
  * collectives (sharded modules): the same collectives as tools/collective_oracle.py, with
    equal bytes sent and received per device per execution and executions per call (none
    missed, none invented, none counted twice).
Prints one line per mismatch and a summary; exits 1 on any mismatch.
Used by tests/python/test_check_vs_oracle.py and tools/difftest.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ba_oracle  # noqa: E402
from collective_oracle_lib.collectives import analyze as analyze_collectives  # noqa: E402

# hloscope verdicts that claim the update writes into its operand's buffer.
IN_PLACE_CLAIMS = ("in-place", "in-place-on-copy")


def run_hloscope(binary: str, hlo: str, ba: str) -> dict:
    out = subprocess.run([binary, "check", hlo, "--buffer-assignment", ba, "--format", "json"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["modules"][0]


def compare(binary: str, d: str) -> dict:
    """The mismatches between hloscope and the oracle on DIR d, and how much was compared."""
    return compare_full(binary, d)[0]


def compare_full(binary: str, d: str) -> Tuple[dict, dict, dict]:
    """compare() plus what it compared: (result, hloscope's module JSON, the oracle's result)."""
    hlo = os.path.join(d, "module.hlo.txt")
    ba = os.path.join(d, "buffer-assignment.txt")
    ours = run_hloscope(binary, hlo, ba)
    with open(hlo) as f, open(ba) as g:
        text = f.read()
        oracle = ba_oracle.analyze(text, g.read())
    oracle["collective_oracle"] = analyze_collectives(text)
    return _compare(d, ours, oracle), ours, oracle


def collective_problems(ours: dict, theirs: dict) -> list:
    """hloscope's collectives against the collective oracle's: (instruction, bytes sent, bytes
    received per device per execution, executions per call), as a multiset.  The oracle names a
    wrapped or fused collective by the instruction inside it (a generic async-start by itself)."""
    from collections import Counter
    want = Counter()
    for c in theirs["collectives"]:
        if c["role"] in ("done", "update", "chain"):  # counted at the start
            continue
        want[(c["name"], c["bytes_sent_per_device"], c["bytes_received_per_device"],
              c["executions_per_call"])] += 1
    names = {k[0] for k in want}
    got = Counter()
    for c in ours.get("collectives", []):
        name = c["collective"]["instruction"] if c.get("collective") else c["instruction"]
        if name not in names and c["instruction"] in names:
            name = c["instruction"]
        got[(name, c["bytes_sent"], c["bytes_received"], c["executions"])] += 1
    problems = []
    theirs_by_name = {k[0]: k for k in want}
    ours_by_name = {k[0]: k for k in got}
    for k in sorted(want - got):
        if k[0] in ours_by_name:
            problems.append(f"collective bytes differ: {k[0]}: ours {ours_by_name[k[0]][1:]} oracle {k[1:]}")
        else:
            problems.append(f"collective missed: {k[0]} ({k[1]} B sent, {k[3]} executions)")
    for k in sorted(got - want):
        if k[0] not in theirs_by_name:
            problems.append(f"collective invented: {k[0]}")
        elif got[k] > want.get(k, 0) and k in want:
            problems.append(f"collective counted twice: {k[0]}")
    spmd = ours.get("spmd") or {}
    for key in ("num_partitions", "replica_count"):
        if key in theirs and spmd.get(key, 1) != theirs[key]:
            problems.append(f"collective {key} differs: ours {spmd.get(key)} oracle {theirs[key]}")
    return problems


def _compare(d: str, ours: dict, oracle: dict) -> dict:
    problems = []
    counts = {"copies": 0, "updates": 0, "loops": 0, "collectives": 0, "false_in_place": 0}

    theirs = {c["instruction"]: c["bytes"] for c in oracle["copies"] + oracle.get("layout_copy_fusions", [])}
    mine = {c["instruction"]: c["bytes"] for c in ours["copies"]}
    counts["copies"] = len(theirs)
    for name, b in theirs.items():
        if name not in mine:
            problems.append(f"copy missed: {name} ({b} B)")
        elif mine[name] != b:
            problems.append(f"copy bytes differ: {name}: ours {mine[name]} oracle {b}")
    for name in mine:
        if name not in theirs:
            problems.append(f"copy invented: {name}")
    for c in ours["copies"]:
        if c["bytes"] is None or c["cause"] is None:
            problems.append(f"copy without bytes or cause: {c['instruction']}")

    by_key = {}
    for u in ours["updates"]:
        by_key.setdefault(u["fusion"] or u["instruction"], []).append(u)
    for u in oracle["updates"]:
        counts["updates"] += 1
        key = u["instruction"]
        mine_u = by_key.get(key, [])
        if not mine_u:
            problems.append(f"update missed: {key}")
            continue
        claims_in_place = any(m["verdict"] in IN_PLACE_CLAIMS for m in mine_u)
        if u["same_buffer"] is True and not claims_in_place:
            problems.append(f"update {key}: XLA shares the buffer, hloscope says {[m['verdict'] for m in mine_u]}")
        if u["same_buffer"] is False and claims_in_place:
            counts["false_in_place"] += 1
            problems.append(f"FALSE IN-PLACE: {key}: XLA did not share the buffer")
    for f in oracle.get("non_inplace_update_fusions", []):
        key = f.get("instruction")
        # The oracle lists fusions holding a DUS/scatter that is not an
        # in-place pair; hloscope says out-of-place when it is an output and
        # not-materialized when the kernel consumes it (e.g. dynamic-slice of it).
        if not any(m["verdict"] in ("out-of-place", "not-materialized") for m in by_key.get(key, [])):
            problems.append(f"non-in-place fusion update not reported: {key}")
    for m in ours["updates"]:
        if m["confirmed"] is not True:
            problems.append(f"verdict not confirmed: {m['instruction']} {m['verdict']} ({m['confirmation']})")

    loops = {l["instruction"]: l for l in ours["loops"]}
    for w in oracle["whiles"]:
        counts["loops"] += 1
        name = w["instruction"]
        n = w.get("known_trip_count")
        if name not in loops:
            problems.append(f"loop missed: {name}")
        elif n is not None and loops[name]["trip_count"] != n:
            problems.append(f"trip count differs: {name}: ours {loops[name]['trip_count']} oracle {n}")
    if "collective_oracle" in oracle:
        problems += collective_problems(ours, oracle["collective_oracle"])
        counts["collectives"] = sum(1 for c in oracle["collective_oracle"]["collectives"]
                                    if c["role"] not in ("done", "update", "chain"))
    return {"dir": d, "problems": problems, **counts}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hloscope", required=True)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    total = {"copies": 0, "updates": 0, "loops": 0, "collectives": 0, "false_in_place": 0, "mismatches": 0}
    for d in args.dirs:
        r = compare(args.hloscope, d)
        for k in ("copies", "updates", "loops", "collectives", "false_in_place"):
            total[k] += r.get(k, 0)
        total["mismatches"] += len(r["problems"])
        for p in r["problems"]:
            print(f"{os.path.basename(d.rstrip('/'))}: {p}")
    print(f"{len(args.dirs)} modules: {total['copies']} copies, {total['updates']} updates, "
          f"{total['loops']} loops, {total['collectives']} collectives compared; "
          f"{total['mismatches']} mismatches, "
          f"{total['false_in_place']} false in-place claims")
    return 1 if total["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
