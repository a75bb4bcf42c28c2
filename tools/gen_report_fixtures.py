#!/usr/bin/env python3
"""Generate the library programs the HTML report is tested on (tests/fixtures/report/).

    python3 -m pip install optax==0.2.5      # not a test dependency: only to regenerate
    python3 tools/gen_report_fixtures.py

Each case is one compilation, written as XLA writes a dump folder (the optimized
module and its buffer assignment), with meta.json recording the JAX and library
versions:

    optax_train   tools/fixture_programs/optax_train.py: AdamW over a lax.scan, with
                  a loss history and a replay buffer; params, optimizer state,
                  history and replay donated

Deterministic given the versions: fixed arguments, XLA's own text only.
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "report")


def main() -> int:
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("XLA_FLAGS", None)
    sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
    import jax
    import optax
    from fixture_programs import optax_train

    out = os.path.join(OUT, "optax_train")
    args = optax_train.example_args()
    with tempfile.TemporaryDirectory() as d:
        jax.jit(optax_train.train, donate_argnums=(0, 1, 4, 5)).lower(*args).compile(
            compiler_options={"xla_dump_to": d})
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for f in sorted(glob.glob(os.path.join(d, "*after_optimizations.txt")) +
                        glob.glob(os.path.join(d, "*after_optimizations-buffer-assignment.txt"))):
            shutil.copy(f, out)
    meta = {"program_file": "tools/fixture_programs/optax_train.py", "function": "train",
            "donate_argnums": [0, 1, 4, 5], "backend": "cpu", "jax_version": jax.__version__,
            "optax_version": optax.__version__, "python": sys.version.split()[0],
            "generated_by": "tools/gen_report_fixtures.py", "files": sorted(os.listdir(out))}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
