#!/usr/bin/env python3
"""Generate the `jax-libs` fixtures: real JAX-library workloads compiled on CPU.

Run with the library venv (not the system python3, which has no flax/optax/...):

    /work/libvenv/bin/python tools/gen_library_fixtures.py [--out DIR] [--only NAME ...] [--list]

The venv (Python 3.11):

    python3.11 -m venv /work/libvenv
    /work/libvenv/bin/pip install jax==0.10.2 jaxlib==0.10.2 flax==0.12.8 optax==0.2.8 \
        equinox==0.13.8 diffrax==0.7.2 numpyro==0.22.0 blackjax==1.7.1 dm-haiku==0.0.17 \
        flashbax==0.1.3 optimistix==0.1.0 lineax==0.1.1 mctx==0.0.71 gymnax==1.0.1 six==1.17.0 \
        evosax==0.3.2

For every workload of tools/library_programs/ this compiles, at its base size,
    jax.jit(fn, donate_argnums=..., static_argnums=...).lower(*args).compile(
        compiler_options={"xla_dump_to": <tmpdir>})
(equinox's own eqx.filter_jit(donate="all") for the equinox workload) and writes
<out>/<name>/{module.hlo.txt, buffer-assignment.txt, meta.json} in the format of
tests/fixtures/jax/ (tools/gen_fixtures.py), with meta.json also recording the
library, its version and the size.  Default out: tests/fixtures/jax-libs, which
tests/analysis/check_fixtures_test.cc and tests/python/test_check_vs_oracle.py
pick up through their `jax-*` globs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS_DIR = os.path.join(REPO_ROOT, "tools")
DEFAULT_OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "jax-libs")
GENERATED_BY = "tools/gen_library_fixtures.py"

sys.path.insert(0, TOOLS_DIR)
import gen_fixtures  # noqa: E402  (stdlib-only at import: _setup_jax, _find_dump, backend_versions)


def arg_summary(a) -> str:
    """One line per argument: gen_fixtures' form for arrays and ints, a leaf list for pytrees."""
    import jax
    import numpy as np
    if isinstance(a, (int, float, bool)) or hasattr(a, "dtype"):
        return gen_fixtures._shape_str(a)
    leaves = [l for l in jax.tree.leaves(a) if hasattr(l, "dtype")]
    shapes = [f"{np.dtype(l.dtype).name}[{','.join(str(d) for d in l.shape)}]" for l in leaves]
    head = ", ".join(shapes[:8]) + (", ..." if len(shapes) > 8 else "")
    return f"{type(a).__name__} pytree of {len(leaves)} arrays: {head}"


def find_module_dump(dump_dir: str, name: str, suffix: str) -> str:
    """The dump of jit_<name>; where a library's jit names the module otherwise (equinox), the
    only after_optimizations dump there is."""
    try:
        return gen_fixtures._find_dump(dump_dir, name, suffix)
    except RuntimeError:
        pat = re.compile(r"^module_\d+\.jit_.*\.cpu_after_optimizations" + re.escape(suffix) + r"$")
        hits = sorted(f for f in os.listdir(dump_dir) if pat.match(f))
        if len(hits) != 1:
            raise
        return os.path.join(dump_dir, hits[0])


def generate_one(jax, w, out_root: str, size: int | None = None) -> dict:
    size = w.base_size if size is None else size
    args = w.make_args(size)
    dest = os.path.join(out_root, w.name)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tempfile.TemporaryDirectory(prefix=f"hloscope-lib-{w.name}-") as tmp:
        dump = os.path.join(tmp, "dump")
        w.compile(args, {"xla_dump_to": dump})
        hlo = find_module_dump(dump, w.name, ".txt")
        shutil.copyfile(hlo, os.path.join(dest, "module.hlo.txt"))
        shutil.copyfile(hlo[:-len(".txt")] + "-buffer-assignment.txt",
                        os.path.join(dest, "buffer-assignment.txt"))
    program_file = sys.modules[w.module].__file__
    meta = {
        "name": w.name,
        "description": w.description,
        **gen_fixtures.backend_versions(jax, "cpu"),
        "backend": "cpu",
        "target": "cpu",
        "device_kind": "cpu",
        "program_file": os.path.relpath(program_file, REPO_ROOT),
        "function": w.fn.__name__,
        "jit": "jax.jit" if w.jit is None else f"{w.jit.__module__}.{w.jit.__name__}",
        "donate_argnums": list(w.donate_argnums),
        "static_argnums": list(w.static_argnums),
        "args": [arg_summary(a) for a in args],
        "size": size,
        "size_meaning": w.size_meaning,
        "library": w.library,
        "library_version": w.library_version,
        "files": sorted(["module.hlo.txt", "buffer-assignment.txt", "meta.json"]),
        "generated_by": GENERATED_BY,
    }
    with open(os.path.join(dest, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    return meta


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output root (default: tests/fixtures/jax-libs)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="generate only these workloads")
    ap.add_argument("--list", action="store_true", help="list workloads and exit")
    ap.add_argument("--in-process", action="store_true",
                    help="compile in this process (default: one subprocess per workload, because JAX's "
                         "stack-frame table grows across compilations and would make a module's text "
                         "depend on what was compiled before it)")
    opts = ap.parse_args(argv)

    jax = gen_fixtures._setup_jax()   # JAX_PLATFORMS=cpu, no stray XLA_FLAGS
    import library_programs
    registry = library_programs.load_all()
    if opts.list:
        for name, w in registry.items():
            print(f"{name:30s} {w.library}=={w.library_version:8s} N={w.base_size:<6d} {w.description}")
        return 0
    names = sorted(registry)
    if opts.only:
        unknown = sorted(set(opts.only) - set(registry))
        if unknown:
            print(f"gen_library_fixtures: unknown workload(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = sorted(set(opts.only))
    out_root = os.path.abspath(opts.out)
    os.makedirs(out_root, exist_ok=True)
    t_all = time.time()
    failed = []
    for name in names:
        t0 = time.time()
        try:
            if opts.in_process or len(names) == 1:
                generate_one(jax, registry[name], out_root)
            else:
                import subprocess
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "--out", out_root,
                                    "--only", name], capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed")
        except Exception as e:  # keep going: report every workload that does not compile
            failed.append(name)
            print(f"{name:30s} FAILED: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        kb = os.path.getsize(os.path.join(out_root, name, "module.hlo.txt")) / 1024
        print(f"{name:30s} {time.time() - t0:5.2f}s  module {kb:6.1f} KiB", file=sys.stderr)
    if not opts.only:
        for d in sorted(os.listdir(out_root)):
            meta = os.path.join(out_root, d, "meta.json")
            if d not in registry and os.path.isfile(meta):
                with open(meta) as f:
                    if json.load(f).get("generated_by") == GENERATED_BY:
                        print(f"gen_library_fixtures: removing stale fixture {d}", file=sys.stderr)
                        shutil.rmtree(os.path.join(out_root, d))
    print(f"gen_library_fixtures: {len(names) - len(failed)} of {len(names)} workload(s) in "
          f"{time.time() - t_all:.1f}s -> {os.path.relpath(out_root, os.getcwd())}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
