#!/usr/bin/env python3
"""Generate hloscope test fixtures from the real JAX programs in tools/fixture_programs/.

For every registered program this compiles
    jax.jit(fn, donate_argnums=..., static_argnums=...).lower(*args).compile(
        compiler_options={"xla_dump_to": <tmpdir>})
for a target (default: this machine's CPU) and copies from the dump directory

    module_NNNN.jit_<name>.<backend>after_optimizations.txt                   -> module.hlo.txt
    module_NNNN.jit_<name>.<backend>after_optimizations-buffer-assignment.txt -> buffer-assignment.txt
    module_NNNN.jit_<name>.thunk_sequence.txt (GPU only)                       -> thunk_sequence.txt
    module_NNNN.jit_<name>.thunk_metadata.txt (GPU only)                       -> thunk_metadata.txt

(<backend> is "cpu_", "sm_9.0a_gpu_" or TPU's "cl_<build>.") into <out>/<name>/, together
with meta.json. On the CPU it also writes, for a few programs,
    as_text.hlo.txt           compiled.as_text() (the other printer entry point)
    module.inline-frames.hlo.txt   dump made with xla_hlo_print_inline_stack_frames=true

A GPU or TPU target (--target gpu-h100, gpu-a100, tpu-v5e, tpu-v4, tpu-v6e; see
python/hloscope/_targets.py) compiles for that device without the hardware: it needs the
compile-only packages (`bash tools/install-deps.sh --backends`). Its fixtures go to
tests/fixtures/jax-<target>/ and meta.json records the jaxlib, libtpu and CUDA plugin versions.

Usage:
    python3 tools/gen_fixtures.py [--target cpu] [--out DIR] [--only NAME ...] [--list]

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


def backend_versions(jax, platform: str) -> dict:
    """jaxlib and, where installed, the compile-only packages a GPU/TPU fixture came from."""
    from importlib import metadata
    import jaxlib
    out = {"jax_version": jax.__version__, "jaxlib_version": jaxlib.__version__}
    packages = {"tpu": (("libtpu_version", "libtpu"),),
                "gpu": (("cuda_plugin_version", "jax-cuda12-plugin"),
                        ("cuda_pjrt_version", "jax-cuda12-pjrt"))}
    for key, dist in packages.get(platform, ()):
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    return out


def _setup_jax():
    # The host backend is the CPU (GPU/TPU targets compile without hardware, which
    # needs JAX_PLATFORMS=cpu with the CUDA plugin installed); stray XLA_FLAGS
    # would change the HLO.
    os.environ["JAX_PLATFORMS"] = "cpu"
    if os.environ.pop("XLA_FLAGS", None) is not None:
        print("gen_fixtures: ignoring XLA_FLAGS from the environment", file=sys.stderr)
    import jax  # noqa: F401  (imported after the environment is fixed)
    return jax


def _find_dump(dump_dir: str, fn_name: str, suffix: str) -> str:
    # CPU: .cpu_after_optimizations, GPU: .sm_9.0a_gpu_after_optimizations,
    # TPU: .cl_<build>.after_optimizations.
    pat = re.compile(r"^module_\d+\.jit_" + re.escape(fn_name) +
                     r"\.(cpu_|sm_[0-9.a-z]+_gpu_|cl_\d+\.)after_optimizations" +
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


def _placed(targets, prog, args, device):
    """Traced arguments as ShapeDtypeStructs on `device`; static ones stay Python values."""
    if device is None:
        return args
    return tuple(a if i in prog.static_argnums else targets.place(a, device)
                 for i, a in enumerate(args))


def _find_thunks(dump_dir: str, fn_name: str, what: str = "sequence"):
    pat = re.compile(r"^module_\d+\.jit_" + re.escape(fn_name) + r"\.thunk_" + what + r"\.txt$")
    hits = sorted(f for f in os.listdir(dump_dir) if pat.match(f))
    return os.path.join(dump_dir, hits[-1]) if hits else None


def generate_one(jax, prog, out_root: str, target=None, targets=None) -> dict:
    host = target is None or target.is_host
    device = None if host else targets.device_for(target)
    args = prog.make_args()
    compile_args = _placed(targets, prog, args, device)
    dest = os.path.join(out_root, prog.name)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    files = []

    with tempfile.TemporaryDirectory(prefix=f"hloscope-{prog.name}-") as tmp:
        dump = os.path.join(tmp, "dump")
        compiled = _compile(jax, prog, compile_args, {"xla_dump_to": dump})
        shutil.copyfile(_find_dump(dump, prog.name, ".txt"), os.path.join(dest, "module.hlo.txt"))
        shutil.copyfile(_find_dump(dump, prog.name, "-buffer-assignment.txt"),
                        os.path.join(dest, "buffer-assignment.txt"))
        files += ["module.hlo.txt", "buffer-assignment.txt"]
        # GPU: the thunks that run, and which HLO instruction each comes from
        # (profile_annotation): a kCopy thunk is a copy that really runs.
        for what in ("sequence", "metadata"):
            thunks = _find_thunks(dump, prog.name, what)
            if thunks:
                shutil.copyfile(thunks, os.path.join(dest, f"thunk_{what}.txt"))
                files.append(f"thunk_{what}.txt")

        if host and prog.name in AS_TEXT_PROGRAMS:
            text = compiled.as_text()
            with open(os.path.join(dest, "as_text.hlo.txt"), "w") as f:
                f.write(text if text.endswith("\n") else text + "\n")
            files.append("as_text.hlo.txt")

        if host and prog.name in INLINE_FRAMES_PROGRAMS:
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
        **backend_versions(jax, "cpu" if host else target.platform),
        "backend": "cpu" if host else target.platform,
        "target": "cpu" if host else target.name,
        "device_kind": "cpu" if host else device.device_kind,
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
    ap.add_argument("--target", default="cpu",
                    help="cpu (default), gpu-h100, gpu-a100, tpu-v5e, tpu-v4, tpu-v6e, or a GPU "
                         "target-config file; GPU/TPU need `tools/install-deps.sh --backends`")
    ap.add_argument("--out", help="output root (default: tests/fixtures/jax, "
                                  "tests/fixtures/jax-<target> for other targets)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="generate only these programs")
    ap.add_argument("--list", action="store_true", help="list programs and exit")
    opts = ap.parse_args(argv)

    # Before the programs import jax (see _setup_jax).
    os.environ["JAX_PLATFORMS"] = "cpu"
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
    import hloscope_targets as targets
    target = targets.resolve(opts.target)
    out = opts.out or (DEFAULT_OUT if target.is_host else f"{DEFAULT_OUT}-{target.name}")
    out_root = os.path.abspath(out)
    os.makedirs(out_root, exist_ok=True)

    t_all = time.time()
    for name in names:
        t0 = time.time()
        generate_one(jax, registry[name], out_root, target, targets)
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
