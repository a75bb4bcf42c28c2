#!/usr/bin/env python3
"""Compare the facts two hloscope binaries report, across JSON schema versions.

    python3 tools/compare_facts.py --base OLD_BIN --new NEW_BIN [--corpus DIR] [--show N]

Runs `check --format json` and `fusions --format json` of both binaries on
every fixture (tests/fixtures/jax, tests/fixtures/difftest, examples/dumps)
and, with --corpus, on every HLO file of the shared corpus; maps both
documents (schema_version 1 or 2) to the same plain facts — per copy: kind,
class, shape, bytes, executions, loops, cause, copied value, what it feeds,
source line; per update: verdict, copy, operand, bytes, confirmation; per
loop and parameter: every number — and prints every fact that differs: changed, or added (empty in the base).
Wording (cause_detail, hint, reason) is compared after undoing the label
changes of schema 2 and reported separately.

Used to check that a refactoring keeps behaviour (docs/json-format.md lists
the changes between schema versions). Exits 1 when a fact changed.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pos_text(p):
    """A position: v1 string "name{1}" or v2 object {"instruction", "index"}."""
    if p is None or isinstance(p, str):
        return p or None
    idx = p.get("index") or []
    return p["instruction"] + ("{" + ",".join(str(i) for i in idx) + "}" if idx else "")


def feed_text(f):
    if isinstance(f, str):
        return f
    if f["kind"] == "update":
        u = f["update"]
        return u["instruction"] + (f" (in {u['fusion']})" if u.get("fusion") else "")
    return f"{f['loop']['instruction']} (loop state {{{','.join(str(i) for i in f['carry'])}}})"


def loop_names(v):
    return [x if isinstance(x, str) else x["instruction"] for x in v]


def src(s):
    if not s:
        return None
    return (s.get("file"), s.get("line"), s.get("via"))


def check_facts(doc):
    out = {}
    for mi, m in enumerate(doc["modules"]):
        key = f"{mi}:{m['name']}"
        copies = {}
        for c in m["copies"]:
            # Schema 1 has no output_index: copies are keyed by instruction.
            k = (c["instruction"], c["computation"])
            n = sum(1 for x in copies if x[:2] == k)
            copies[k + (n,)] = {
                "kind": c["kind"], "class": c["class"], "shape": c["shape"], "scalar": c["scalar"],
                "bytes": c["bytes"], "executions": c["executions"],
                "upper": c["executions_upper_bound"], "total": c["total_bytes"],
                "loops": loop_names(c["enclosing_loops"]), "cause": c["cause"],
                "copied_from": pos_text(c["copied_from"]),
                "feeds": sorted(feed_text(f) for f in c["feeds"]), "source": src(c["source"]),
            }
        order = [(c["instruction"], c["computation"]) for c in m["copies"]]
        updates = {}
        for u in m["updates"]:
            copy = u.get("copy") if "copy" in u else (u["runs_on"] or {}).get("instruction")
            k = (u["instruction"], u["fusion"])
            n = sum(1 for x in updates if x[:2] == k)
            updates[k + (n,)] = {
                "opcode": u["opcode"], "computation": u["computation"], "verdict": u["verdict"],
                "full_rewrite": u["full_rewrite"], "copy": copy, "operand": pos_text(u["operand"]),
                "buffer_bytes": u["buffer_bytes"], "bytes_written": u["bytes_written"],
                "executions": u["executions"], "upper": u["executions_upper_bound"],
                "confirmed": u["confirmed"], "source": src(u["source"]),
            }
        loops = {}
        for lp in m["loops"]:
            loops[lp["instruction"]] = {
                k: lp[k] for k in ("computation", "trip_count", "trip_count_source", "executions",
                                   "copy_bytes_per_iteration", "rewrite_bytes_per_iteration",
                                   "scales_with_buffer")}
            loops[lp["instruction"]]["scaling"] = len(lp["scaling"])
            loops[lp["instruction"]]["loops"] = loop_names(lp["enclosing_loops"])
            loops[lp["instruction"]]["source"] = src(lp["source"])
        params = {}
        for p in m["parameters"]:
            params[p["number"]] = {"name": p["name"], "shape": p["shape"], "bytes": p["bytes"],
                                   "donated": p["donated"], "copied": p["copied"],
                                   "copies": [x if isinstance(x, str) else x["instruction"]
                                              for x in p["copies"]]}
        out[key] = {"copies": copies, "copy_order": order, "updates": updates, "loops": loops,
                    "parameters": params, "buffer_assignment": m["buffer_assignment"]}
    return out


def unlabel(text):
    """Schema-2 labels back in schema-1 form, for comparing wording."""
    if text is None:
        return None
    text = re.sub(r"(\S+) in (\S+_fusion[\w.\-]*|fusion[\w.\-]*|\S*fusion\S*)", r"\1 (in \2)", text)
    text = re.sub(r"\(([\w\-]+/)([\w.\-]+\.py:\d+)\)", r"(\2)", text)
    return text


def wording(doc):
    out = {}
    for mi, m in enumerate(doc["modules"]):
        for c in m["copies"]:
            out[(mi, "copy", c["instruction"])] = (unlabel(c["cause_detail"]), c["hint"])
        for u in m["updates"]:
            out[(mi, "update", u["instruction"], u["fusion"])] = unlabel(u["reason"])
        out[(mi, "headline")] = m["headline"]
    return out


def fusion_facts(doc):
    out = {}
    for mi, m in enumerate(doc["modules"]):
        for f in m["fusions"]:
            name = f.get("instruction") or f.get("name")
            out[(mi, name)] = {
                "kind": f["kind"], "shape": f["shape"], "count": f["instruction_count"],
                "ops": f["opcode_counts"], "read": f["bytes_read"], "written": f["bytes_written"],
                "executions": f["executions"],
                "lines": [(x["file"], x["lines"]) for x in f["source_lines"]],
                "findings": len(f["findings"]) if "findings" in f else len(f["updates"]) + len(f["copies"]),
            }
    return out


def run(binary, args):
    r = subprocess.run([binary] + args, capture_output=True, text=True, errors="replace")
    if r.returncode not in (0, 1):
        return None
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return None


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a:
                out.append(f"{path}/{k}: only new: {b[k]}")
            elif k not in b:
                out.append(f"{path}/{k}: only base: {a[k]}")
            else:
                diff(a[k], b[k], f"{path}/{k}", out)
    elif a != b:
        # A fact the base left empty and the new binary fills is an addition.
        kind = "added" if a in (None, [], "") else "changed"
        out.append(f"{kind}: {path}: base {a!r} new {b!r}")


def inputs(corpus):
    files = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/jax/*/module*.hlo.txt")))
    files += sorted(glob.glob(os.path.join(REPO, "tests/fixtures/difftest/*/module.hlo.txt")))
    files += sorted(f for f in glob.glob(os.path.join(REPO, "examples/dumps/*.txt"))
                    if "buffer-assignment" not in f)
    if corpus:
        for f in sorted(glob.glob(os.path.join(corpus, "**/*"), recursive=True)):
            if os.path.isfile(f) and not f.endswith((".tsv", ".md", ".json", ".py")):
                files.append(f)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--show", type=int, default=40, help="differences printed per kind")
    args = ap.parse_args()
    facts, words, fus = [], [], []
    compared = Counter()
    for f in inputs(args.corpus):
        rel = os.path.relpath(f, REPO)
        a, b = run(args.base, ["check", f, "--format", "json"]), run(args.new, ["check", f, "--format", "json"])
        if a is None and b is None:
            compared["unparsed"] += 1
            continue
        if (a is None) != (b is None):
            facts.append(f"{rel}: one binary failed (base ok: {a is not None}, new ok: {b is not None})")
            continue
        compared["files"] += 1
        compared["copies"] += sum(len(m["copies"]) for m in b["modules"])
        compared["updates"] += sum(len(m["updates"]) for m in b["modules"])
        compared["loops"] += sum(len(m["loops"]) for m in b["modules"])
        d = []
        diff(check_facts(a), check_facts(b), rel, d)
        facts += d
        d = []
        diff(wording(a), wording(b), rel, d)
        words += d
        fa, fb = run(args.base, ["fusions", f, "--format", "json"]), run(args.new, ["fusions", f, "--format", "json"])
        if fa and fb:
            d = []
            diff(fusion_facts(fa), fusion_facts(fb), rel + " fusions", d)
            fus += d
    print(f"compared {compared['files']} inputs ({compared['unparsed']} unparsable by both): "
          f"{compared['copies']} copies, {compared['updates']} updates, {compared['loops']} loops")
    added = [d for d in facts if d.startswith("added: ")]
    changed = [d for d in facts if not d.startswith("added: ")]
    for title, items in (("facts changed", changed), ("facts added (empty in base)", added),
                         ("fusion differences", fus), ("wording differences", words)):
        print(f"\n{title}: {len(items)}")
        for line in items[:args.show]:
            print("  " + line)
        if len(items) > args.show:
            print(f"  ... and {len(items) - args.show} more")
    return 1 if changed or fus else 0


if __name__ == "__main__":
    sys.exit(main())
