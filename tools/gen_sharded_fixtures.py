#!/usr/bin/env python3
"""Generate the `sharded-*` fixtures: real sharded JAX programs compiled for several devices.

For every program of tools/sharded_programs/ (sorted) this builds a
``jax.sharding.Mesh`` over the target's devices, and compiles

    jax.jit(fn, in_shardings=..., out_shardings=..., donate_argnums=...)
        .lower(*ShapeDtypeStructs with NamedShardings).compile(
            compiler_options={"xla_dump_to": <tmpdir>})

(or the library's own jit), then copies from the dump directory

    module_NNNN.jit_<name>.*after_optimizations.txt                    -> module.hlo.txt
    module_NNNN.jit_<name>.*after_optimizations-buffer-assignment.txt  -> buffer-assignment.txt
    module_NNNN.jit_<name>.*before_optimizations.txt                   -> before-optimizations.hlo.txt

into <out>/<name>/ (and, for programs whose growth is tested, <out>/<name>@4x/ at 4N), with
meta.json (sorted keys, no timestamps: program, description, expected collectives, args with
global and per-device shapes and partition specs, the mesh, the target, donate_argnums, the
jax/jaxlib/libtpu/CUDA-plugin versions, compiled.memory_analysis(), JAX's warnings) and
collectives.oracle.json (tools/collective_oracle.py on module.hlo.txt).

Targets (one process each: libtpu allows one process at a time, and JAX's stack-frame
table makes a module's text depend on what the process compiled before it, so only a full
run of a target is byte-for-byte reproducible):

    cpu        8 host devices (XLA_FLAGS=--xla_force_host_platform_device_count=8, set here
               before jax is imported); every program is also run once
    tpu-v5e    a TPU v5e 2x2 (4 chips), compile only, libtpu's topology "v5e:2x2"
    tpu-v4     a TPU v4 2x2x1 (4 chips, 8 TensorCores = 8 devices), compile only
    gpu-h100   8 NVIDIA H100s in one host (topology "1x1x8" of the CUDA plugin with
               python/hloscope/targets/gpu-h100.pbtxt), compile only, JAX_PLATFORMS=cpu

Usage:
    python3 tools/gen_sharded_fixtures.py --target cpu [--out DIR] [--only NAME ...] [--list]
    python3 tools/gen_sharded_fixtures.py --all [--python PY ...]   # every target, one process each

Default output: tests/fixtures/sharded-<target>/ for JAX 0.10.2 (the project's pinned JAX),
tests/fixtures/sharded-<target>.jax<version>/ for any other JAX. The library programs
(flax, equinox, optax) need /work/libvenv (tools/library_programs/requirements-libvenv.txt,
plus libtpu==0.0.42.1 jax-cuda12-plugin==0.10.2 jax-cuda12-pjrt==0.10.2 for the other
targets); without the libraries they are skipped and their fixtures kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS_DIR = os.path.join(REPO_ROOT, "tools")
FIXTURES = os.path.join(REPO_ROOT, "tests", "fixtures")
GENERATED_BY = "tools/gen_sharded_fixtures.py"
BASE_JAX = "0.10.2"      # fixtures of this JAX go to sharded-<target>/, others get a suffix
CPU_DEVICES = 8
SCALES = (1, 4)
# Which sizes each target gets by default (fixture size: the 4N compiles matter where growth is
# measured (the CPU, which runs them) and for the TPU story; elsewhere N is enough).
DEFAULT_SCALES = {"cpu": (1, 4), "tpu-v5e": (1, 4), "tpu-v4": (1,), "gpu-h100": (1,)}
NEWER_JAX_SCALES = {"cpu": (1, 4)}   # other targets: N only under a newer JAX


# Compile-only targets get their 4N fixture only for the programs whose collectives' bytes
# tell the growth story (the buffer or cache all-gathered per step, or not).
GROWTH_STORY = ("replay_buffer_at_set", "replay_buffer_dus", "replay_buffer_sample",
                "replay_buffer_local_shard_map", "kv_decode_seq_at_set", "kv_decode_seq_dus")


def default_scales(target: str, jax_version: str):
    if jax_version == BASE_JAX:
        return DEFAULT_SCALES[target]
    return NEWER_JAX_SCALES.get(target, (1,))

# name -> (platform, topology, description)
TARGETS = {
    "cpu": ("cpu", "", f"{CPU_DEVICES} XLA:CPU host devices (--xla_force_host_platform_device_count)"),
    "tpu-v5e": ("tpu", "v5e:2x2", "TPU v5e 2x2 (4 chips), compile only"),
    "tpu-v4": ("tpu", "v4:2x2x1", "TPU v4 2x2x1 (4 chips, 8 TensorCores), compile only"),
    "gpu-h100": ("gpu", "1x1x8", "8 x NVIDIA H100 SXM in one host, compile only"),
}


def default_out(target: str, jax_version: str) -> str:
    suffix = "" if jax_version == BASE_JAX else f".jax{jax_version}"
    return os.path.join(FIXTURES, f"sharded-{target}{suffix}")


def _setup_env(target: str) -> None:
    """Before jax is imported: the host platform is the CPU, and only the CPU target gets
    more than one host device (stray XLA_FLAGS would change the HLO)."""
    os.environ["JAX_PLATFORMS"] = "cpu"
    if os.environ.get("XLA_FLAGS"):
        print("gen_sharded_fixtures: ignoring XLA_FLAGS from the environment", file=sys.stderr)
    os.environ.pop("XLA_FLAGS", None)
    if target == "cpu":
        os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={CPU_DEVICES}"


def target_devices(jax, target: str):
    platform, topology, _ = TARGETS[target]
    if platform == "cpu":
        devs = jax.devices()
        if len(devs) < CPU_DEVICES:
            raise RuntimeError(f"expected {CPU_DEVICES} host devices, got {len(devs)}: was jax "
                               f"imported before XLA_FLAGS was set?")
        return devs[:CPU_DEVICES]
    from jax.experimental import topologies
    if platform == "tpu":
        return topologies.get_topology_desc(topology, "tpu").devices
    sys.path.insert(0, TOOLS_DIR)
    import hloscope_targets
    with open(hloscope_targets.resolve(target).config_path) as f:
        config = f.read()
    return topologies.get_topology_desc("gpu", "cuda", target_config=config,
                                        topology=topology).devices


def _find(dump_dir: str, suffix_re: str) -> str:
    pat = re.compile(r"^module_\d+\.jit_.*" + suffix_re + r"$")
    hits = sorted(f for f in os.listdir(dump_dir) if pat.match(f))
    if len(hits) != 1:
        raise RuntimeError(f"expected one dump matching {suffix_re!r}, found {hits} among "
                           f"{sorted(os.listdir(dump_dir))}")
    return os.path.join(dump_dir, hits[0])


def _spec_str(sharding) -> str:
    spec = getattr(sharding, "spec", None)
    return "?" if spec is None else str(spec)


def _arg_entries(jax, args):
    import numpy as np
    out = []
    for i, a in enumerate(args):
        leaves = jax.tree_util.tree_flatten_with_path(a)[0]
        for path, leaf in leaves:
            if not hasattr(leaf, "shape"):
                out.append({"arg": i, "path": jax.tree_util.keystr(path), "python": repr(leaf)})
                continue
            sh = leaf.sharding
            out.append({
                "arg": i,
                "path": jax.tree_util.keystr(path),
                "dtype": np.dtype(leaf.dtype).name,
                "global_shape": list(leaf.shape),
                "shard_shape": list(sh.shard_shape(tuple(leaf.shape))),
                "spec": _spec_str(sh),
            })
    return out


MEMORY_FIELDS = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                 "temp_size_in_bytes", "generated_code_size_in_bytes",
                 "host_argument_size_in_bytes", "host_output_size_in_bytes",
                 "host_alias_size_in_bytes", "host_temp_size_in_bytes")


def _memory(compiled) -> dict:
    try:
        m = compiled.memory_analysis()
    except Exception as e:  # some backends do not implement it
        return {"unavailable": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    if m is None:
        return {"unavailable": "memory_analysis() returned None"}
    return {k: int(getattr(m, k)) for k in MEMORY_FIELDS if hasattr(m, k)}


def _jit(jax, prog, built, fn):
    in_sh = jax.tree.map(lambda a: a.sharding, built.args)
    out_sh = None
    if built.out_specs is not None:
        from jax.sharding import NamedSharding, PartitionSpec
        mesh = jax.tree.leaves(built.args)[0].sharding.mesh
        out_sh = jax.tree.map(lambda s: NamedSharding(mesh, s), built.out_specs,
                              is_leaf=lambda x: isinstance(x, PartitionSpec))
    if built.jit is not None:
        return built.jit(fn, in_sh, out_sh, prog.donate_argnums), out_sh
    kw = {"in_shardings": in_sh, "donate_argnums": prog.donate_argnums}
    if out_sh is not None:
        kw["out_shardings"] = out_sh
    return jax.jit(fn, **kw), out_sh


def generate_one(jax, prog, devices, target: str, scale: int, out_root: str, oracle) -> dict:
    import numpy as np
    from jax.sharding import Mesh
    import gen_fixtures

    n = prog.n * scale
    shape = prog.mesh_shape(len(devices))
    mesh = Mesh(np.array(devices).reshape(shape), prog.axis_names())
    built = prog.factory(mesh, n)
    inner = built.fn

    def named(*a):
        return inner(*a)
    named.__name__ = named.__qualname__ = prog.name

    name = prog.name if scale == 1 else f"{prog.name}@{scale}x"
    dest = os.path.join(out_root, name)
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    jitted, _ = _jit(jax, prog, built, named)
    with tempfile.TemporaryDirectory(prefix=f"hloscope-sharded-{prog.name}-") as tmp:
        dump = os.path.join(tmp, "dump")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lowered = jitted.lower(*built.args)
            compiled = lowered.compile(compiler_options={"xla_dump_to": dump})
        shutil.copyfile(_find(dump, r"after_optimizations\.txt"), os.path.join(dest, "module.hlo.txt"))
        shutil.copyfile(_find(dump, r"after_optimizations-buffer-assignment\.txt"),
                        os.path.join(dest, "buffer-assignment.txt"))
        before = None
        if scale == 1:   # the 4N program is the same program: its N fixture explains it
            with open(_find(dump, r"before_optimizations\.txt")) as f:
                before = f.read()
    before_file, before_same_as = None, None
    if before is not None:
        # The GPU module before optimization is the CPU one (same 8 devices, no layouts):
        # point at the CPU fixture's copy instead of storing it twice.
        cpu_copy = os.path.join(os.path.dirname(out_root),
                                os.path.basename(out_root).replace(f"sharded-{target}", "sharded-cpu"),
                                name, "before-optimizations.hlo.txt")
        if target != "cpu" and os.path.isfile(cpu_copy) and open(cpu_copy).read() == before:
            before_same_as = os.path.relpath(cpu_copy, FIXTURES)
        else:
            before_file = "before-optimizations.hlo.txt"
            with open(os.path.join(dest, before_file), "w") as f:
                f.write(before)
    ran = None
    if target == "cpu":
        from sharded_programs._common import concrete
        real = jax.tree.map(concrete, built.args)
        out = compiled(*real)
        jax.block_until_ready(out)
        ran = True

    with open(os.path.join(dest, "module.hlo.txt")) as f:
        report = oracle.analyze(f.read())
    with open(os.path.join(dest, "collectives.oracle.json"), "w") as f:
        f.write(oracle.dumps_report(report))

    platform = TARGETS[target][0]
    files = ["module.hlo.txt", "buffer-assignment.txt", "collectives.oracle.json", "meta.json"]
    if before_file:
        files.append(before_file)
    meta = {
        "name": name,
        "program": prog.name,
        "description": prog.description,
        "expect": prog.expect,
        **gen_fixtures.backend_versions(jax, platform),
        "backend": platform,
        "target": target,
        "target_description": TARGETS[target][2],
        "topology": TARGETS[target][1],
        "device_kind": devices[0].device_kind,
        "device_count": len(devices),
        "mesh": {"axis_names": list(mesh.axis_names), "shape": [int(s) for s in shape],
                 "device_ids": [int(d.id) for d in np.array(mesh.devices).flat]},
        "program_file": os.path.relpath(sys.modules[prog.module].__file__, REPO_ROOT),
        "function": prog.name,
        "jit": "jax.jit" if built.jit is None else getattr(built.jit, "__qualname__", "custom"),
        "donate_argnums": list(prog.donate_argnums),
        "size": n,
        "scale": scale,
        "base_size": prog.n,
        "size_meaning": prog.size_meaning,
        "grows": prog.grows,
        "has_loop": prog.loop,
        "args": _arg_entries(jax, built.args),
        "out_specs": None if built.out_specs is None else str(built.out_specs),
        "memory_analysis": _memory(compiled),
        "warnings": sorted({str(w.message).strip() for w in caught}),
        "ran_on_host_devices": ran,
        "requires": list(prog.requires),
        "notes": list(built.notes),
        "files": sorted(files),
        "before_optimizations": (before_file if before_file else
                                 f"identical to tests/fixtures/{before_same_as}" if before_same_as else
                                 "not stored for the 4N compile (see the N fixture)"),
        "before_optimizations_sha256": (hashlib.sha256(before.encode()).hexdigest()
                                        if before is not None else None),
        "generated_by": GENERATED_BY,
    }
    if prog.requires:
        from importlib import metadata
        meta["library_versions"] = {r: metadata.version(r) for r in prog.requires}
    with open(os.path.join(dest, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    return meta


def run_target(opts) -> int:
    _setup_env(opts.target)
    sys.path.insert(0, TOOLS_DIR)
    import sharded_programs
    registry = sharded_programs.load_all()
    if opts.list:
        for name, p in registry.items():
            req = f" [needs {', '.join(p.requires)}]" if p.requires else ""
            print(f"{name:34s} N={p.n:<5d} {'grows' if p.grows else 'flat ':5s} {p.description}{req}")
        return 0
    names = sorted(registry)
    if opts.only:
        unknown = sorted(set(opts.only) - set(registry))
        if unknown:
            print(f"gen_sharded_fixtures: unknown program(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = sorted(set(opts.only))

    import jax
    import collective_oracle as oracle
    devices = target_devices(jax, opts.target)
    out_root = os.path.abspath(opts.out or default_out(opts.target, jax.__version__))
    os.makedirs(out_root, exist_ok=True)
    t_all = time.time()
    failed, skipped, written = [], [], set()
    for name in names:
        prog = registry[name]
        missing = prog.missing()
        if missing:
            skipped.append(name)
            print(f"{name:34s} skipped: {', '.join(missing)} not installed", file=sys.stderr)
            continue
        scales = opts.scales or default_scales(opts.target, jax.__version__)
        if not opts.scales and opts.target != "cpu" and name not in GROWTH_STORY:
            scales = (1,)
        for scale in (scales if prog.grows else (1,)):
            if scale == 1 and 1 not in scales:
                continue
            t0 = time.time()
            label = name if scale == 1 else f"{name}@{scale}x"
            try:
                generate_one(jax, prog, devices, opts.target, scale, out_root, oracle)
            except Exception as e:  # keep going: report every program that does not compile
                failed.append(label)
                msg = str(e).strip().splitlines()
                print(f"{label:34s} FAILED: {type(e).__name__}: {msg[0] if msg else ''}",
                      file=sys.stderr)
                shutil.rmtree(os.path.join(out_root, label), ignore_errors=True)
                continue
            written.add(label)
            kb = os.path.getsize(os.path.join(out_root, label, "module.hlo.txt")) / 1024
            print(f"{label:34s} {time.time() - t0:5.2f}s  module {kb:6.1f} KiB", file=sys.stderr)

    if not opts.only and not opts.scales:
        keep = set(written) | set(failed)
        for s in skipped:
            keep |= {s, f"{s}@4x"}
        for d in sorted(os.listdir(out_root)):
            meta = os.path.join(out_root, d, "meta.json")
            if d not in keep and os.path.isfile(meta):
                with open(meta) as f:
                    if json.load(f).get("generated_by") == GENERATED_BY:
                        print(f"gen_sharded_fixtures: removing stale fixture {d}", file=sys.stderr)
                        shutil.rmtree(os.path.join(out_root, d))
    print(f"gen_sharded_fixtures: {opts.target}: {len(written)} fixture(s), {len(failed)} failed, "
          f"{len(skipped)} skipped in {time.time() - t_all:.1f}s -> "
          f"{os.path.relpath(out_root, os.getcwd())}", file=sys.stderr)
    return 1 if failed else 0


def run_all(opts) -> int:
    """Every target, one subprocess each (libtpu's lock; independent stack-frame tables)."""
    rc = 0
    for py in opts.python or [sys.executable]:
        for target in opts.targets or list(TARGETS):
            t0 = time.time()
            cmd = [py, os.path.abspath(__file__), "--target", target]
            if opts.only:
                cmd += ["--only", *opts.only]
            if opts.scales:
                cmd += ["--scales", *map(str, opts.scales)]
            print(f"== {py} --target {target}", file=sys.stderr, flush=True)
            r = subprocess.run(cmd)
            print(f"== {py} --target {target}: exit {r.returncode} in {time.time() - t0:.1f}s",
                  file=sys.stderr, flush=True)
            rc = rc or r.returncode
    return rc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="cpu", choices=sorted(TARGETS))
    ap.add_argument("--all", action="store_true", help="every target, one process each")
    ap.add_argument("--targets", nargs="+", choices=sorted(TARGETS), help="with --all: these targets")
    ap.add_argument("--python", nargs="+", help="with --all: interpreters to run (default: this one)")
    ap.add_argument("--out", help="output root (default: tests/fixtures/sharded-<target>[.jax<ver>])")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="generate only these programs")
    ap.add_argument("--scales", type=int, nargs="+",
                    help="sizes to compile, as multiples of N (default per target: cpu and tpu-v5e "
                         "1 4, others 1; 4 only for growing programs)")
    ap.add_argument("--list", action="store_true", help="list programs and exit")
    opts = ap.parse_args(argv)
    if opts.all:
        return run_all(opts)
    return run_target(opts)


if __name__ == "__main__":
    sys.exit(main())
