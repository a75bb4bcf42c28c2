#!/usr/bin/env python3
"""Generate tests/fixtures/reshard-origin/: sharded programs whose re-shard has a known origin,
each compiled as written and with that origin removed.

Each program is compiled with

    jax.jit(fn, out_shardings=...).lower(*ShapeDtypeStructs with NamedShardings).compile(
        compiler_options={"xla_dump_to": <tmp>, "xla_dump_hlo_pass_re": "spmd-partitioning"})

and the dump copied as

    module_NNNN.jit_<name>.*after_optimizations.txt                  -> module.hlo.txt
    module_NNNN.jit_<name>.*after_optimizations-buffer-assignment.txt -> buffer-assignment.txt
    module_NNNN.jit_<name>.*.before_[tpu-]spmd-partitioning.txt      -> before-partitioning.hlo.txt

into <out>/<target>/<name>/ (as written) and <out>/<target>/<name>.fixed/ (the sharding that
differed made to agree, as hloscope's before-partitioning sentence says: the argument given
the consumer's sharding, the constraint or the output sharding removed), with meta.json
(the program's source, the shardings, the versions). tests/python/test_reshard_origin.py
checks hloscope's sentence on the first and that the collective is gone from the second.

    python3 tools/gen_reshard_origin_fixtures.py                 # cpu (8 host devices)
    python3 tools/gen_reshard_origin_fixtures.py --target tpu-v5e:2x2   # compile only (libtpu)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "reshard-origin")

# name -> (source of fn, argument shapes, argument specs, out spec or None, fixed variant)
# Specs are PartitionSpec entries over a 1-D mesh axis "x". A fixed variant changes
# "args" (argument specs), "out" (the output spec) or "src" (the function).
PROGRAMS = {
    "elementwise_operand": dict(
        doc="a.T + b with both arguments row-sharded: the add wants b split like a.T (by columns)",
        src="def fn(a, b):\n    return a.T + b\n",
        shapes=[(64, 64), (64, 64)], args=[("x",), ("x",)], out=None,
        fixed=dict(args=[("x",), (None, "x")])),
    "sharding_constraint": dict(
        doc="with_sharding_constraint asks for columns of a row-sharded product",
        src=("def fn(x):\n    y = x * 2\n"
             "    y = jax.lax.with_sharding_constraint(y, NamedSharding(MESH, P(None, 'x')))\n"
             "    return y + 1\n"),
        shapes=[(64, 64)], args=[("x",)], out=None,
        fixed=dict(src="def fn(x):\n    y = x * 2\n    return y + 1\n")),
    "output_sharding": dict(
        doc="out_shardings ask for columns of a row-sharded result",
        src="def fn(x):\n    return x * 2\n",
        shapes=[(64, 64)], args=[("x",)], out=(None, "x"),
        fixed=dict(out=("x",))),
    "dynamic_update_buffer": dict(
        doc="a row written into a column-sharded buffer constrained to rows",
        src=("def fn(buf, row, i):\n"
             "    buf = jax.lax.with_sharding_constraint(buf * 1, NamedSharding(MESH, P('x')))\n"
             "    return jax.lax.dynamic_update_slice(buf, row[None], (i, 0))\n"),
        shapes=[(64, 64), (64,), ()], args=[(None, "x"), (), ()], out=None, dtypes=["f32", "f32", "i32"],
        fixed=dict(args=[("x",), (), ()])),
}


def _devices(target):
    import jax
    if target == "cpu":
        return jax.devices()
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import hloscope_targets
    return hloscope_targets.devices_for(target)


def compile_one(prog, variant, devices, dest):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    p = dict(prog, **variant)
    mesh = Mesh(np.array(devices, dtype=object), ("x",))
    ns = {"jax": jax, "jnp": jnp, "NamedSharding": NamedSharding, "P": P, "MESH": mesh}
    exec(compile(p["src"], "program.py", "exec"), ns)
    fn = ns["fn"]
    fn.__name__ = "fn"
    dtypes = p.get("dtypes") or ["f32"] * len(p["shapes"])
    args = [jax.ShapeDtypeStruct(s, jnp.float32 if d == "f32" else jnp.int32,
                                 sharding=NamedSharding(mesh, P(*spec)))
            for s, spec, d in zip(p["shapes"], p["args"], dtypes)]
    kw = {} if p["out"] is None else {"out_shardings": NamedSharding(mesh, P(*p["out"]))}
    with tempfile.TemporaryDirectory() as tmp:
        jax.jit(fn, **kw).lower(*args).compile(
            compiler_options={"xla_dump_to": tmp, "xla_dump_hlo_pass_re": "spmd-partitioning"})
        os.makedirs(dest, exist_ok=True)
        for pattern, name in (("*jit_fn.*after_optimizations.txt", "module.hlo.txt"),
                              ("*jit_fn.*after_optimizations-buffer-assignment.txt", "buffer-assignment.txt"),
                              ("*jit_fn.*.before_*spmd-partitioning.txt", "before-partitioning.hlo.txt")):
            hits = sorted(glob.glob(os.path.join(tmp, pattern)))
            if not hits:
                raise RuntimeError(f"no {pattern} in the dump")
            shutil.copyfile(hits[0], os.path.join(dest, name))
    return p


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="cpu")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args(argv)
    if a.target == "cpu":
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jaxlib
    from importlib import metadata

    devices = _devices(a.target)
    versions = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    if a.target.startswith("tpu"):
        versions["libtpu"] = metadata.version("libtpu")
    for name, prog in PROGRAMS.items():
        for suffix, variant in (("", {}), (".fixed", prog["fixed"])):
            dest = os.path.join(a.out, a.target.replace(":", "-"), name + suffix)
            p = compile_one(prog, variant, devices, dest)
            meta = {"program": name, "variant": "fixed" if suffix else "as written", "doc": prog["doc"],
                    "source": p["src"], "shapes": p["shapes"], "arg_specs": p["args"], "out_spec": p["out"],
                    "mesh": {"x": len(devices)}, "target": a.target, "versions": versions,
                    "generated_by": "tools/gen_reshard_origin_fixtures.py"}
            with open(os.path.join(dest, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"wrote {os.path.relpath(dest, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
