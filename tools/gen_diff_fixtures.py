#!/usr/bin/env python3
"""Generate the dump folders `hloscope diff` is tested on (tests/fixtures/diff/).

    python3 tools/gen_diff_fixtures.py            # JAX of this Python (0.10.2 on 3.11)
    /tmp/py312/bin/python tools/gen_diff_fixtures.py --newest-jax-only
                                                  # the same program under the newest JAX (Python 3.12)

Each case is one compilation of a program of tools/fixture_programs/ring_buffer.py
at one ring size, written as XLA writes a dump folder (only the optimized
module and its buffer assignment are kept) with meta.json (JAX version, sizes):

    slow_1024, slow_2048     read of the replaced row after the write: copies the ring every step
    reordered_1024           read first, then write: XLA still copies
    fixed_1024, fixed_2048   the row carried, read from the updated ring: in place
    extra_copy_1024          the fixed version plus a read of the whole old ring after the update
    slow_1024.jax<V>, fixed_1024.jax<V>   the same programs compiled by another JAX version

Deterministic given the JAX version: fixed arguments, XLA's own text only.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "diff")
FEATURES, STEPS = 64, 50

CASES = {
    "slow_1024": ("rollout_slow", 1024),
    "slow_2048": ("rollout_slow", 2048),
    "reordered_1024": ("rollout_reordered", 1024),
    "fixed_1024": ("rollout_fixed", 1024),
    "fixed_2048": ("rollout_fixed", 2048),
    "extra_copy_1024": ("rollout_extra_copy", 1024),
}
NEWEST_JAX_CASES = ("slow_1024", "fixed_1024")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--newest-jax-only", action="store_true",
                    help="write only the cases compared across JAX versions, named CASE.jaxVERSION")
    args = ap.parse_args()
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("XLA_FLAGS", None)
    sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
    import jax
    import jax.numpy as jnp
    from fixture_programs import ring_buffer

    names = NEWEST_JAX_CASES if args.newest_jax_only else tuple(CASES)
    for case in names:
        fn_name, rows = CASES[case]
        out_name = f"{case}.jax{jax.__version__}" if args.newest_jax_only else case
        out = os.path.join(OUT, out_name)
        fn = getattr(ring_buffer, fn_name)
        ring = jnp.zeros((rows, FEATURES), jnp.float32)
        obs = jnp.ones((STEPS, FEATURES), jnp.float32)
        with tempfile.TemporaryDirectory() as d:
            jax.jit(fn, donate_argnums=0).lower(ring, obs).compile(compiler_options={"xla_dump_to": d})
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            files = sorted(glob.glob(os.path.join(d, "*after_optimizations.txt")) +
                           glob.glob(os.path.join(d, "*after_optimizations-buffer-assignment.txt")))
            for f in files:
                shutil.copy(f, out)
        meta = {"program_file": "tools/fixture_programs/ring_buffer.py", "function": fn_name,
                "ring": [rows, FEATURES], "steps": STEPS, "donate_argnums": [0], "backend": "cpu",
                "jax_version": jax.__version__, "jaxlib_version": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
                "python": sys.version.split()[0], "generated_by": "tools/gen_diff_fixtures.py",
                "files": sorted(os.listdir(out))}
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.relpath(out, REPO_ROOT)}: {', '.join(meta['files'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
