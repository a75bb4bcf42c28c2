"""Every finding is on one line, whichever command shows it.

`check` chooses a copy's line once (analysis/check.cc AttributeCopy: its own line unless XLA
inherited it from the operand or the loop, else the update that needed it, the copied value, the
loop) and an update's (its own line, or its fusion's). `annotate` and `where` (one line table,
analysis/line_facts.cc), SARIF and `diff` must put each finding on that same line. Under JAX 0.12
`check` and `annotate` put the same copies on two different lines (XLA 0.12 gives an inserted copy
its operand's metadata; the line table kept it while `check` set it aside). Checked on every
fixture, JAX 0.10.2 and 0.12, CPU, GPU and TPU compiles, sharded ones included.
"""
import glob
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = sorted(glob.glob(os.path.join(REPO, "tests/fixtures/*/*/module.hlo.txt")))
ALL = ["--include-minor", "--include-library"]


def _json(hloscope_bin, *args):
    out = subprocess.run([hloscope_bin, *args], capture_output=True, text=True)
    assert out.returncode in (0, 1), (args, out.stderr)
    return json.loads(out.stdout)


def _disagreements(hloscope_bin, path):
    check = _json(hloscope_bin, "check", path, "--format", "json", *ALL)
    annotate = _json(hloscope_bin, "annotate", path, "--format", "json")
    sarif = _json(hloscope_bin, "check", path, "--format", "sarif", *ALL)
    diff = _json(hloscope_bin, "diff", path, path, "--format", "json", *ALL)
    on_line = {}
    for module in annotate["modules"]:
        for f in module.get("files", []):
            for line in f.get("lines", []):
                for kind in ("copies", "updates"):
                    for x in line.get(kind, []):
                        on_line.setdefault((kind, x["instruction"]), set()).add((f["file"], line["line"]))
    sarif_lines, sarif_copies = {}, set()
    for run in sarif["runs"]:
        for r in run["results"]:
            for loc in r.get("locations", []):
                region = loc.get("physicalLocation", {}).get("region", {})
                # A result names its instruction as its logical location (SARIF has no
                # properties.instruction: reading that matched nothing, and checked nothing).
                for logical in loc.get("logicalLocations", []):
                    if logical.get("kind") == "instruction" and region.get("startLine"):
                        sarif_lines.setdefault(logical["name"], set()).add(region["startLine"])
                        if r.get("ruleId", "").startswith("copy/"):
                            sarif_copies.add(logical["name"])
    diff_sources = {i["source"] for m in diff["modules"] for i in m["items"] if i["source"]}
    bad, compared = [], {"annotate": 0, "sarif": 0, "diff": 0}
    sourced = set()
    for module in check["modules"]:
        for kind in ("copies", "updates"):
            for x in module[kind]:
                src = x.get("source")
                if not src or not src.get("file") or not src.get("line"):
                    continue
                # SARIF names an update by its fusion where it has one (the kernel that runs).
                names = [n for n in (x["instruction"], x.get("fusion")) if n]
                sourced.update(names)
                where = (kind, x["instruction"], src["text"])
                lines = on_line.get((kind, x["instruction"]))
                # annotate shows every finding that has a line: one it leaves out is a disagreement
                # too, not a finding with nothing to compare.
                if lines is None:
                    bad.append(("annotate: missing",) + where)
                elif (src["file"], src["line"]) not in lines:
                    bad.append(("annotate",) + where + (sorted(lines),))
                else:
                    compared["annotate"] += 1
                for name in names:
                    if name not in sarif_lines:
                        continue
                    if src["line"] not in sarif_lines[name]:
                        bad.append(("sarif",) + where + (sorted(sarif_lines[name]),))
                    else:
                        compared["sarif"] += 1
                if not (kind == "copies" and x.get("scalar")):
                    if src["text"] not in diff_sources:
                        bad.append(("diff",) + where)
                    else:
                        compared["diff"] += 1
    # Every SARIF copy result with a line is one of check's copies with a line (other rules, e.g. a
    # loop's full rewrite, name kernels that are no copy or update of check's).
    bad += [("sarif: not in check", name, sorted(sarif_lines[name])) for name in sarif_copies
            if name not in sourced]
    return bad, compared


def test_check_annotate_where_sarif_and_diff_give_every_finding_one_line(hloscope_bin):
    assert len(FIXTURES) > 300
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda p: (p, _disagreements(hloscope_bin, p)), FIXTURES))
    bad = [(os.path.relpath(p, REPO),) + b for p, (found, _) in results for b in found]
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:10]}"
    # Not vacuous: each other command put findings on lines that were compared, in many fixtures
    # (more than half of them have a copy or an update with a line; SARIF reports copies only).
    for command in ("annotate", "sarif", "diff"):
        fixtures = [p for p, (_, compared) in results if compared[command]]
        assert len(fixtures) > len(FIXTURES) // (2 if command != "sarif" else 10), (command, len(fixtures))
