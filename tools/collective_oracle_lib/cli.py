"""The command line: JSON for one or more modules on stdout, collectives.oracle.json next to
every fixture's module.hlo.txt (``--fixtures``), or the self-test (``--self-test``).
"""

import json
import os
import sys

from . import __doc__ as _PACKAGE_DOC
from .collectives import analyze
from .selftest import self_test


def dumps_report(rep):
    """JSON with sorted keys, one collective (and one loop) per line: small and diffable."""
    lines = ["{"]
    keys = sorted(rep)
    for i, k in enumerate(keys):
        v = rep[k]
        end = "," if i + 1 < len(keys) else ""
        if isinstance(v, list) and v:
            lines.append(f" {json.dumps(k)}: [")
            for j, item in enumerate(v):
                lines.append("  " + json.dumps(item, sort_keys=True, separators=(",", ":"))
                             + ("," if j + 1 < len(v) else ""))
            lines.append(" ]" + end)
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_fixtures(roots):
    n = 0
    for root in roots:
        for dirpath, _, files in sorted(os.walk(root)):
            if "module.hlo.txt" in files:
                with open(os.path.join(dirpath, "module.hlo.txt")) as f:
                    rep = analyze(f.read())
                with open(os.path.join(dirpath, "collectives.oracle.json"), "w") as f:
                    f.write(dumps_report(rep))
                n += 1
    print(f"collective_oracle: wrote {n} collectives.oracle.json", file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--self-test":
        return self_test()
    if argv and argv[0] == "--fixtures":
        return write_fixtures(argv[1:])
    if not argv or argv[0] in ("-h", "--help"):
        print(_PACKAGE_DOC.split("\n\n")[0] + "\n\nusage: collective_oracle.py FILE... | --fixtures DIR... | --self-test")
        return 0 if argv else 2
    reports = []
    for path in argv:
        with open(path) as f:
            rep = analyze(f.read())
        rep["file"] = path
        reports.append(rep)
    if len(reports) == 1:
        sys.stdout.write(dumps_report(reports[0]))
    else:
        json.dump(reports, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
    return 0
