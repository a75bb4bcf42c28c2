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
    sarif_lines = {}
    for run in sarif["runs"]:
        for r in run["results"]:
            name = r.get("properties", {}).get("instruction")
            for loc in r.get("locations", []):
                region = loc.get("physicalLocation", {}).get("region", {})
                if name and region.get("startLine"):
                    sarif_lines.setdefault(name, set()).add(region["startLine"])
    diff_sources = {i["source"] for m in diff["modules"] for i in m["items"] if i["source"]}
    bad = []
    for module in check["modules"]:
        for kind in ("copies", "updates"):
            for x in module[kind]:
                src = x.get("source")
                if not src or not src.get("file") or not src.get("line"):
                    continue
                where = (kind, x["instruction"], src["text"])
                lines = on_line.get((kind, x["instruction"]))
                if lines is not None and (src["file"], src["line"]) not in lines:
                    bad.append(("annotate",) + where + (sorted(lines),))
                if x["instruction"] in sarif_lines and src["line"] not in sarif_lines[x["instruction"]]:
                    bad.append(("sarif",) + where + (sorted(sarif_lines[x["instruction"]]),))
                if not (kind == "copies" and x.get("scalar")) and src["text"] not in diff_sources:
                    bad.append(("diff",) + where)
    return bad


def test_check_annotate_where_sarif_and_diff_give_every_finding_one_line(hloscope_bin):
    assert len(FIXTURES) > 300
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda p: (p, _disagreements(hloscope_bin, p)), FIXTURES))
    bad = [(os.path.relpath(p, REPO),) + b for p, found in results for b in found]
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:10]}"
