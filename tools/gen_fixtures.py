#!/usr/bin/env python3
"""Generate hloscope test fixtures from the real JAX programs in tools/fixture_programs/.

For every registered program this compiles
    jax.jit(fn, donate_argnums=..., static_argnums=...).lower(*args).compile(
        compiler_options={"xla_dump_to": <tmpdir>})
on the CPU backend and copies from the dump directory

    module_NNNN.jit_<name>.cpu_after_optimizations.txt                   -> module.hlo.txt
    module_NNNN.jit_<name>.cpu_after_optimizations-buffer-assignment.txt -> buffer-assignment.txt

into <out>/<name>/, together with meta.json.  For a few programs it also writes
    as_text.hlo.txt           compiled.as_text() (the other printer entry point)
    module.inline-frames.hlo.txt   dump made with xla_hlo_print_inline_stack_frames=true

Usage:
    python3 tools/gen_fixtures.py [--out tests/fixtures/jax] [--only NAME ...] [--list]

Deterministic: programs are processed in sorted order, arguments are fixed, and
nothing but XLA's own text is written (meta.json has sorted keys, no timestamps).
A full run (no --only) removes fixture directories of programs that no longer exist.
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
DEFAULT_OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "jax")

# Programs for which compiled.as_text() is saved as well (other printer path).
AS_TEXT_PROGRAMS = ("loop_dus_donated", "scan_ys_output", "seed_at_set_sum")
# Programs for which a dump with inline stack frames (source_file=/source_line=) is saved.
INLINE_FRAMES_PROGRAMS = ("nested_fori", "replay_row_read_after_write", "seed_at_set_sum")

GENERATED_BY = "tools/gen_fixtures.py"


def _setup_jax():
    # Fixtures are CPU dumps; stray XLA_FLAGS would change the HLO.
    os.environ["JAX_PLATFORMS"] = "cpu"
    if os.environ.pop("XLA_FLAGS", None) is not None:
        print("gen_fixtures: ignoring XLA_FLAGS from the environment", file=sys.stderr)
    import jax  # noqa: F401  (imported after the environment is fixed)
    return jax


def _find_dump(dump_dir: str, fn_name: str, suffix: str) -> str:
    pat = re.compile(r"^module_\d+\.jit_" + re.escape(fn_name) + r"\.cpu_after_optimizations" +
                     re.escape(suffix) + r"$")
    hits = sorted(f for f in os.listdir(dump_dir) if pat.match(f))
    if len(hits) != 1:
        raise RuntimeError(f"expected one dump file for jit_{fn_name}{suffix} in {dump_dir}, "
                           f"found {hits} among {sorted(os.listdir(dump_dir))}")
    return os.path.join(dump_dir, hits[0])


def _shape_str(a) -> str:
    import numpy as np
    if isinstance(a, (int, float, bool)) and not hasattr(a, "dtype"):
        return f"python {type(a).__name__} {a!r}"
    a = np.asarray(a)
    return f"{a.dtype.name}[{','.join(str(d) for d in a.shape)}]"


def _compile(jax, prog, args, options):
    jitted = jax.jit(prog.fn, donate_argnums=prog.donate_argnums,
                     static_argnums=prog.static_argnums)
    return jitted.lower(*args).compile(compiler_options=options)


def generate_one(jax, prog, out_root: str) -> dict:
    import jaxlib

    args = prog.make_args()
    dest = os.path.join(out_root, prog.name)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    files = []

    with tempfile.TemporaryDirectory(prefix=f"hloscope-{prog.name}-") as tmp:
        dump = os.path.join(tmp, "dump")
        compiled = _compile(jax, prog, args, {"xla_dump_to": dump})
        shutil.copyfile(_find_dump(dump, prog.name, ".txt"), os.path.join(dest, "module.hlo.txt"))
        shutil.copyfile(_find_dump(dump, prog.name, "-buffer-assignment.txt"),
                        os.path.join(dest, "buffer-assignment.txt"))
        files += ["module.hlo.txt", "buffer-assignment.txt"]

        if prog.name in AS_TEXT_PROGRAMS:
            text = compiled.as_text()
            with open(os.path.join(dest, "as_text.hlo.txt"), "w") as f:
                f.write(text if text.endswith("\n") else text + "\n")
            files.append("as_text.hlo.txt")

        if prog.name in INLINE_FRAMES_PROGRAMS:
            dump2 = os.path.join(tmp, "dump-inline")
            _compile(jax, prog, args, {"xla_dump_to": dump2,
                                       "xla_hlo_print_inline_stack_frames": True})
            shutil.copyfile(_find_dump(dump2, prog.name, ".txt"),
                            os.path.join(dest, "module.inline-frames.hlo.txt"))
            files.append("module.inline-frames.hlo.txt")

    program_file = sys.modules[prog.module].__file__
    meta = {
        "name": prog.name,
        "description": prog.description,
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "backend": "cpu",
        "program_file": os.path.relpath(program_file, REPO_ROOT),
        "function": prog.fn.__name__,
        "donate_argnums": list(prog.donate_argnums),
        "static_argnums": list(prog.static_argnums),
        "args": [_shape_str(a) for a in args],
        "files": sorted(files + ["meta.json"]),
        "generated_by": GENERATED_BY,
    }
    with open(os.path.join(dest, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    return meta


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="output root (default: tests/fixtures/jax)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="generate only these programs")
    ap.add_argument("--list", action="store_true", help="list programs and exit")
    opts = ap.parse_args(argv)

    sys.path.insert(0, TOOLS_DIR)
    import fixture_programs
    registry = fixture_programs.load_all()

    if opts.list:
        for name, prog in registry.items():
            print(f"{name:32s} {prog.description}")
        return 0

    names = sorted(registry)
    if opts.only:
        unknown = sorted(set(opts.only) - set(registry))
        if unknown:
            print(f"gen_fixtures: unknown program(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = sorted(set(opts.only))

    jax = _setup_jax()
    out_root = os.path.abspath(opts.out)
    os.makedirs(out_root, exist_ok=True)

    t_all = time.time()
    for name in names:
        t0 = time.time()
        generate_one(jax, registry[name], out_root)
        print(f"{name:32s} {time.time() - t0:5.2f}s", file=sys.stderr)

    if not opts.only:
        for d in sorted(os.listdir(out_root)):
            meta = os.path.join(out_root, d, "meta.json")
            if d not in registry and os.path.isfile(meta):
                with open(meta) as f:
                    if json.load(f).get("generated_by") == GENERATED_BY:
                        print(f"gen_fixtures: removing stale fixture {d}", file=sys.stderr)
                        shutil.rmtree(os.path.join(out_root, d))

    print(f"gen_fixtures: {len(names)} program(s) in {time.time() - t_all:.1f}s -> "
          f"{os.path.relpath(out_root, os.getcwd())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
