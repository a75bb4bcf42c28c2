"""Program specs: a JSON-able description of a small JAX program, rendered to standalone source.

A spec is a dict

    {"name": "p0_12", "seed": 0, "index": 12,
     "args": [{"id": 0, "shape": [16], "dtype": "f32", "donate": true, "role": "data"}, ...],
     "ix": 3 | None,          # id of the int32[4] index argument, if any
     "body": [STMT, ...],     # the function body, in order
     "returns": [ID, ...]}    # returned values (may repeat, may be arguments)

Every value is a variable `v<ID>` defined once (SSA).  Statements (field `op`):

    const   out=[v] shape dtype kind(zeros|full|iota|numpy) r  v = jnp.zeros/full/arange/asarray
    update  out=[v] base idx op(set|add|mul|min|max) val mode flags
                                                               v = base.at[idx].op(val, mode=...)
    dus     out=[v] base usize starts upd                      v = lax.dynamic_update_slice(...)
    ew      out=[v] base f other r axis e                      where / roll / concatenate / ...
    read    out=[v] src idx                                    v = src[idx]
    fori    sid out init params n dyn unroll body ret          lax.fori_loop
    while   sid out init params n data body ret                lax.while_loop (counter in slot 0)
    scan    sid out init params n reverse unroll body ret ys ys_out
                                                               lax.scan over jnp.arange(n)
    cond    sid out ops pred branches=[{params body ret}]      lax.cond (2 branches) / lax.switch
    vmap    sid out ops params body ret                        jax.vmap of a nested function

Index entries (leading axes): {"k":"int","r"} | {"k":"dyn","e":SCALAR} | {"k":"slice","a","l"} |
{"k":"arr","r":[...],"pat","oob"}.  Raw numbers are reduced modulo the axis size when rendering,
so shrinking the argument shapes keeps every index valid.  SCALAR (an int32 expression):
{"k":"c","v"} | {"k":"ix","j"} (the index argument) | {"k":"ctr","sid"} (a loop counter) |
{"k":"data","src","idx"} (an element of an array).  Update values: {"k":"lit","r"} |
{"k":"read","src","idx"}.

Types are inferred from the argument shapes (`infer_types`), never stored, so the minimizer's
edits (drop a statement, drop a carry, halve the shapes, ...) only have to keep ids consistent.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

DTYPES = {"f32": "jnp.float32", "bf16": "jnp.bfloat16", "s32": "jnp.int32", "s8": "jnp.int8",
          "bool": "jnp.bool_"}
NP_NAMES = {"f32": "float32", "bf16": "bfloat16", "s32": "int32", "s8": "int8", "bool": "bool"}
COMPOUND = ("fori", "while", "scan", "cond", "vmap")
LOOPS = ("fori", "while", "scan")

Type = Tuple[Tuple[int, ...], str]


class SpecError(Exception):
    """The spec is inconsistent (an edit broke it); the candidate is discarded."""


# ----------------------------------------------------------------------------- helpers

def arr_values(e: dict, d: int) -> List[int]:
    """The index list of an `arr` entry for an axis of size d (pattern applied after the modulo)."""
    m = d + 3 if e.get("oob") else d
    vals = [r % m for r in e["r"]]
    pat = e.get("pat", "random")
    if pat == "unique":
        vals = list(dict.fromkeys(vals))
    elif pat == "sorted":
        vals = sorted(set(vals))
    elif pat == "reversed":
        vals = sorted(set(vals), reverse=True)
    elif pat == "same":
        vals = [vals[0]] * len(vals)
    return vals


def slice_bounds(e: dict, d: int) -> Tuple[int, int]:
    a = e["a"] % d
    return a, a + 1 + e["l"] % (d - a)


def index_result_shape(shape: Tuple[int, ...], idx: List[dict]) -> Tuple[int, ...]:
    if len(idx) > len(shape):
        raise SpecError("index longer than rank")
    out: List[int] = []
    arr_done = False
    for ax, e in enumerate(idx):
        d = shape[ax]
        if e["k"] in ("int", "dyn"):
            continue
        if e["k"] == "slice":
            a, b = slice_bounds(e, d)
            out.append(b - a)
        elif e["k"] == "arr":
            if arr_done:
                raise SpecError("two array indices")
            arr_done = True
            out.append(len(arr_values(e, d)))
    return tuple(out) + tuple(shape[len(idx):])


def effective_pspec(raw: Optional[list], shape, mesh: dict) -> tuple:
    """The partition spec a raw one (generator.shard) becomes on `shape`: an axis whose size does
    not divide its dimension, or that an earlier dimension already uses, is dropped (None)."""
    sizes = dict(zip(mesh["axes"], mesh["shape"]))
    used: set = set()
    out = []
    for d, e in zip(shape, raw or []):
        names = [] if e is None else ([e] if isinstance(e, str) else list(e))
        n = 1
        for a in names:
            n *= sizes.get(a, 0) or 1 << 30
        if not names or used & set(names) or d % n:
            out.append(None)
            continue
        used |= set(names)
        out.append(names[0] if len(names) == 1 else tuple(names))
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def pspec_source(p: tuple) -> str:
    return "P(" + ", ".join(repr(e) for e in p) + ")"


def stmt_blocks(s: dict) -> List[dict]:
    """The nested scopes of a compound statement: dicts with params/body/ret."""
    if s["op"] == "cond":
        return s["branches"]
    if s["op"] in LOOPS or s["op"] == "vmap":
        return [s]
    return []


def iter_stmts(block: List[dict]):
    """Pre-order: (statement, the list holding it)."""
    for s in block:
        yield s, block
        for b in stmt_blocks(s):
            yield from iter_stmts(b["body"])


# ----------------------------------------------------------------------------- types

def infer_types(spec: dict) -> Dict[int, Type]:
    types: Dict[int, Type] = {}
    for a in spec["args"]:
        types[a["id"]] = (tuple(a["shape"]), a["dtype"])

    def T(i):
        if i not in types:
            raise SpecError(f"v{i} used before definition")
        return types[i]

    def block(stmts):
        for s in stmts:
            op = s["op"]
            if op == "const":
                types[s["out"][0]] = (tuple(s["shape"]), s["dtype"])
            elif op in ("update", "dus", "ew"):
                types[s["out"][0]] = T(s["base"])
            elif op == "read":
                sh, dt = T(s["src"])
                types[s["out"][0]] = (index_result_shape(sh, s["idx"]), dt)
            elif op in LOOPS or op == "cond" or op == "vmap":
                ins = s["init"] if op in LOOPS else s["ops"]
                in_types = [T(i) for i in ins]
                if op == "vmap":
                    lead = {t[0][0] if t[0] else None for t in in_types}
                    if None in lead or len(lead) != 1:
                        raise SpecError("vmap operands need one common leading dimension")
                    p_types = [(t[0][1:], t[1]) for t in in_types]
                else:
                    p_types = in_types
                for b in stmt_blocks(s):
                    if len(b["params"]) != len(ins) or len(b["ret"]) != len(ins):
                        raise SpecError("carry count mismatch")
                    for p, t in zip(b["params"], p_types):
                        types[p] = t
                    block(b["body"])
                    for r, t in zip(b["ret"], p_types):
                        if T(r) != t:
                            raise SpecError(f"v{r} returned where {t} is carried")
                if len(s["out"]) != len(ins):
                    raise SpecError("out count mismatch")
                for o, t in zip(s["out"], in_types):
                    types[o] = t
                if op == "scan" and s.get("ys_out") is not None:
                    ysh, ydt = T(s["ys"])
                    types[s["ys_out"]] = ((s["n"],) + ysh, ydt)
            else:
                raise SpecError(f"unknown op {op}")

    block(spec["body"])
    for r in spec["returns"]:
        T(r)
    return types


# ----------------------------------------------------------------------------- rendering

def _lit(dt: str, r: int) -> str:
    if dt == "bool":
        return "True" if r % 2 else "False"
    if dt in ("f32", "bf16"):
        return f"{r % 5}.5"
    return str(r % 5 + 1)


class _Renderer:
    def __init__(self, spec: dict):
        self.spec = spec
        self.types = infer_types(spec)
        self.lines: List[str] = []

    def emit(self, depth: int, text: str):
        self.lines.append("    " * depth + text)

    def v(self, i: int) -> str:
        return f"v{i}"

    def scalar(self, e: dict) -> str:
        k = e["k"]
        if k == "c":
            return str(e["v"])
        if k == "ix":
            if self.spec.get("ix") is None:
                raise SpecError("ix used without an index argument")
            return f"v{self.spec['ix']}[{e['j'] % 4}]"
        if k == "ctr":
            return f"i{e['sid']}"
        if k == "data":
            return self.elem(e["src"], e["idx"]) + ".astype(jnp.int32)"
        raise SpecError(f"bad scalar {e}")

    def elem(self, src: int, raws: List[int]) -> str:
        sh, _ = self.types[src]
        if not sh:
            return self.v(src)
        idx = ", ".join(str(raws[a % len(raws)] % d) if raws else "0" for a, d in enumerate(sh))
        return f"{self.v(src)}[{idx}]"

    def index(self, shape, idx: List[dict]) -> str:
        parts = []
        for ax, e in enumerate(idx):
            d = shape[ax]
            k = e["k"]
            if k == "int":
                parts.append(str(e["r"] % d))
            elif k == "dyn":
                parts.append(f"({self.scalar(e['e'])}) % {d}")
            elif k == "slice":
                a, b = slice_bounds(e, d)
                parts.append(f"{a}:{b}")
            elif k == "arr":
                parts.append(f"jnp.array({arr_values(e, d)}, jnp.int32)")
        return ", ".join(parts)

    def value(self, val: dict, dt: str) -> str:
        if val["k"] == "lit":
            return _lit(dt, val["r"])
        return f"{self.elem(val['src'], val['idx'])}.astype({DTYPES[dt]})"

    def tup(self, ids) -> str:
        return "(" + "".join(f"{self.v(i)}, " for i in ids).rstrip(" ") + ")" if ids else "()"

    def block(self, stmts, depth):
        for s in stmts:
            getattr(self, "s_" + s["op"])(s, depth)

    # statements
    def s_const(self, s, d):
        sh, dt = tuple(s["shape"]), s["dtype"]
        o = self.v(s["out"][0])
        if s["kind"] == "zeros":
            self.emit(d, f"{o} = jnp.zeros({sh}, {DTYPES[dt]})")
        elif s["kind"] == "full":
            self.emit(d, f"{o} = jnp.full({sh}, {_lit(dt, s['r'])}, {DTYPES[dt]})")
        else:
            n = 1
            for x in sh:
                n *= x
            if s["kind"] == "numpy":  # a NumPy array closed over: an HLO constant
                self.emit(d, f"{o} = jnp.asarray((np.arange({n}) % 7).reshape({sh}).astype("
                             f"jnp.dtype({NP_NAMES[dt]!r})))")
            else:
                self.emit(d, f"{o} = (jnp.arange({n}) % 7).reshape({sh}).astype({DTYPES[dt]})")

    def s_update(self, s, d):
        sh, dt = self.types[s["base"]]
        if not sh:
            raise SpecError("update of a scalar")
        args = [self.value(s["val"], dt)]
        has_arr = any(e["k"] == "arr" for e in s["idx"])
        if s.get("mode"):
            args.append(f"mode={s['mode']!r}")
        if has_arr and s.get("flags"):
            for ax, e in enumerate(s["idx"]):
                if e["k"] == "arr":
                    vals = arr_values(e, sh[ax])
                    if max(vals) >= sh[ax]:
                        continue
                    if len(set(vals)) == len(vals):
                        args.append("unique_indices=True")
                    if vals == sorted(vals):
                        args.append("indices_are_sorted=True")
        self.emit(d, f"{self.v(s['out'][0])} = {self.v(s['base'])}.at[{self.index(sh, s['idx'])}]"
                     f".{s['fn']}({', '.join(args)})")

    def s_dus(self, s, d):
        sh, dt = self.types[s["base"]]
        if not sh:
            raise SpecError("dus of a scalar")
        us = tuple(1 + r % x for r, x in zip(s["usize"] * len(sh), sh))
        starts = [self.scalar(e) for e in (s["starts"] * len(sh))[:len(sh)]]
        u = s["upd"]
        if u["k"] == "full":
            upd = f"jnp.full({us}, {_lit(dt, u['r'])}, {DTYPES[dt]})"
        else:
            if self.types[u["src"]][0] != sh:
                raise SpecError("dus source shape")
            ss = [self.scalar(e) for e in (u["starts"] * len(sh))[:len(sh)]]
            upd = f"lax.dynamic_slice({self.v(u['src'])}, ({', '.join(ss)},), {us}).astype({DTYPES[dt]})"
        self.emit(d, f"{self.v(s['out'][0])} = lax.dynamic_update_slice({self.v(s['base'])}, {upd}, "
                     f"({', '.join(starts)},))")

    def s_ew(self, s, d):
        sh, dt = self.types[s["base"]]
        b, o = self.v(s["base"]), self.v(s.get("other", s["base"]))
        if self.types[s.get("other", s["base"])][0] != sh:
            raise SpecError("ew operand shape")
        DT = DTYPES[dt]
        f = s["f"]
        ax = s.get("axis", 0) % max(len(sh), 1)
        if f in ("roll", "flip", "concat", "where_iota") and not sh:
            f = "scale"
        if f == "wsc":  # a sharding constraint (generator.shard); a no-op without a mesh
            if "mesh" not in self.spec:
                e = b
            else:
                p = effective_pspec(s.get("pspec"), sh, self.spec["mesh"])
                e = f"jax.lax.with_sharding_constraint({b}, NamedSharding(MESH, {pspec_source(p)}))"
        elif f == "scale":
            e = f"~{b}" if dt == "bool" else f"{b} * 2"
        elif f == "add":
            e = f"{b} ^ {o}.astype(jnp.bool_)" if dt == "bool" else f"{b} + {o}.astype({DT})"
        elif f == "where_iota":
            e = (f"jnp.where(lax.broadcasted_iota(jnp.int32, {tuple(sh)}, {ax}) < {s['r'] % sh[ax]}, "
                 f"{b}, {o}.astype({DT}))")
        elif f == "where_data":
            e = f"jnp.where({o}.astype(jnp.float32) > 0.5, {b}, jnp.zeros_like({b}))"
        elif f == "select":
            e = f"jnp.where(({self.scalar(s['e'])}) % 2 == 0, {b}, {o}.astype({DT}))"
        elif f == "roll":
            e = f"jnp.roll({b}, {s['r'] % sh[ax]}, axis={ax})"
        elif f == "flip":
            e = f"jnp.flip({b}, axis={ax})"
        elif f == "concat":
            k = s["r"] % (sh[0] + 1)
            e = f"jnp.concatenate([{b}[:{k}], {o}.astype({DT})[{k}:]], axis=0)"
        else:
            raise SpecError(f"bad ew {f}")
        self.emit(d, f"{self.v(s['out'][0])} = {e}")

    def s_read(self, s, d):
        sh, _ = self.types[s["src"]]
        idx = self.index(sh, s["idx"])
        self.emit(d, f"{self.v(s['out'][0])} = {self.v(s['src'])}[{idx if idx else '...'}]")

    def _body(self, s, d, head: str, unpack: str, ret_wrap):
        self.emit(d, head)
        if unpack:
            self.emit(d + 1, unpack)
        self.block(s["body"], d + 1)
        self.emit(d + 1, "return " + ret_wrap(self.tup(s["ret"])))

    def s_fori(self, s, d):
        sid = s["sid"]
        self._body(s, d, f"def body{sid}(i{sid}, c):", f"{self.tup(s['params'])} = c", lambda t: t)
        n = str(s["n"]) if s.get("dyn") is None else f"({self.scalar(s['dyn'])}) % {s['n']} + 1"
        extra = f", unroll={s['unroll']}" if s.get("unroll") is not None and s.get("dyn") is None else ""
        self.emit(d, f"{self.tup(s['out'])} = lax.fori_loop(0, {n}, body{sid}, {self.tup(s['init'])}{extra})")

    def s_while(self, s, d):
        sid = s["sid"]
        c = f"c[0] < {s['n']}"
        if s.get("data") is not None:
            k = s["data"] % len(s["init"])
            c = f"({c}) & (jnp.ravel(c[{k + 1}])[0].astype(jnp.float32) < 1000.0)"
        self.emit(d, f"def cond{sid}(c):")
        self.emit(d + 1, f"return {c}")
        ps = "".join(f", {self.v(p)}" for p in s["params"])
        self._body(s, d, f"def body{sid}(c):", f"(i{sid}{ps}) = c",
                   lambda t: f"(i{sid} + 1, {t[1:-1]})")
        outs = "".join(f", {self.v(o)}" for o in s["out"])
        ins = "".join(f", {self.v(i)}" for i in s["init"])
        self.emit(d, f"(_w{sid}{outs}) = lax.while_loop(cond{sid}, body{sid}, (jnp.int32(0){ins}))")

    def s_scan(self, s, d):
        sid = s["sid"]
        y = self.v(s["ys"]) if s.get("ys") is not None else "None"
        self._body(s, d, f"def body{sid}(c, i{sid}):", f"{self.tup(s['params'])} = c",
                   lambda t: f"{t}, {y}")
        yo = self.v(s["ys_out"]) if s.get("ys_out") is not None else f"_y{sid}"
        extra = (", reverse=True" if s.get("reverse") else "") + \
            (f", unroll={s['unroll']}" if s.get("unroll") is not None else "")
        self.emit(d, f"{self.tup(s['out'])}, {yo} = lax.scan(body{sid}, {self.tup(s['init'])}, "
                     f"jnp.arange({s['n']}, dtype=jnp.int32){extra})")

    def s_cond(self, s, d):
        sid = s["sid"]
        names = []
        for k, b in enumerate(s["branches"]):
            name = f"br{sid}_{k}"
            names.append(name)
            self.emit(d, f"def {name}({', '.join(self.v(p) for p in b['params'])}):")
            self.block(b["body"], d + 1)
            self.emit(d + 1, f"return {self.tup(b['ret'])}")
        ops = ", ".join(self.v(i) for i in s["ops"])
        p = self.scalar(s["pred"])
        if len(names) == 2:
            self.emit(d, f"{self.tup(s['out'])} = lax.cond(({p}) % 2 == 0, {names[0]}, {names[1]}, {ops})")
        else:
            self.emit(d, f"{self.tup(s['out'])} = lax.switch(({p}) % {len(names)}, "
                         f"[{', '.join(names)}], {ops})")

    def s_vmap(self, s, d):
        sid = s["sid"]
        self._body(s, d, f"def vm{sid}({', '.join(self.v(p) for p in s['params'])}):", "", lambda t: t)
        self.emit(d, f"{self.tup(s['out'])} = jax.vmap(vm{sid})({', '.join(self.v(i) for i in s['ops'])})")


HEADER = '''"""difftest program {name} (seed {seed}, index {index}); generated by tools/difftest.

    python3 {file} OUT_DIR   # writes OUT_DIR/module.hlo.txt and OUT_DIR/buffer-assignment.txt
"""
import glob
import os
import shutil
import sys
import tempfile

os.environ.setdefault("JAX_PLATFORMS", "cpu")
{flags}
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

NAME = {name!r}
DONATE = {donate!r}
ARGS = {args!r}  # (shape, dtype) per argument; "ix" is the int32 index argument
'''

# Before `import jax`: a sharded program runs on 8 CPU host devices.
FORCE_DEVICES = '''if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=8").strip()
'''

MESH_HEADER = '''from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

MESH_SHAPE = {shape!r}
MESH_AXES = {axes!r}
IN_SPECS = {in_specs!r}  # per argument: the PartitionSpec's entries
OUT_SPECS = {out_specs!r}  # per returned value, or None: XLA chooses
MESH = None  # set by dump(): the mesh's devices depend on the target


def _mesh(devices):
    return Mesh(np.array(list(devices)[:{devices}], dtype=object).reshape(MESH_SHAPE), MESH_AXES)
'''

FOOTER = '''

def make_args():
    out = []
    for shape, dt in ARGS:
        n = int(np.prod(shape)) if shape else 1
        if dt == "ix":
            out.append(np.array([3, 1, 4, 1], np.int32))
        else:
            out.append((np.arange(n) % 7).reshape(shape).astype(jnp.dtype(dt)))
    return tuple(out)


def dump(out_dir, device=None, devices=None):
    """Compile with XLA dumps; copy the optimized HLO and the buffer assignment to out_dir.

    On this machine's CPU, or for `device` (a GPU/TPU device from a compile-only topology,
    as tools/difftest --target makes): the arguments become ShapeDtypeStructs on it.  A sharded
    program (MESH_SHAPE) builds its mesh on `devices` (a TPU slice's), else on jax.devices()."""
    global MESH
    os.makedirs(out_dir, exist_ok=True)
    args = make_args()
    jit_kw = {{}}
    if "MESH_SHAPE" in globals():
        MESH = _mesh(devices or jax.devices())
        args = tuple(jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(MESH, P(*s)))
                     for a, s in zip(args, IN_SPECS))
        if OUT_SPECS is not None:
            outs = tuple(NamedSharding(MESH, P(*s)) for s in OUT_SPECS)
            jit_kw["out_shardings"] = outs
    elif device is not None:
        sharding = jax.sharding.SingleDeviceSharding(device)
        args = tuple(jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding) for a in args)
    with tempfile.TemporaryDirectory(prefix="difftest-") as tmp:
        options = {{"xla_dump_to": tmp}}
        wanted = [(".txt", "module.hlo.txt"), ("-buffer-assignment.txt", "buffer-assignment.txt")]
        if MESH is not None:
            # the module as the SPMD partitioner received it: why each re-shard
            options["xla_dump_hlo_pass_re"] = "spmd-partitioning"
        jax.jit({name}, donate_argnums=DONATE, **jit_kw).lower(*args).compile(compiler_options=options)
        if MESH is not None:
            hits = sorted(glob.glob(os.path.join(tmp, f"module_*.jit_{{NAME}}.*before_*spmd-partitioning.txt")))
            if hits:
                shutil.copyfile(hits[0], os.path.join(out_dir, "before-partitioning.hlo.txt"))
        for suffix, dest in wanted:
            # cpu_after_optimizations, sm_9.0a_gpu_after_optimizations, TPU's cl_<build>.after_optimizations
            hits = glob.glob(os.path.join(tmp, f"module_*.jit_{{NAME}}.*after_optimizations{{suffix}}"))
            if len(hits) != 1:
                raise RuntimeError(f"expected one dump for {{suffix}}, found {{hits}}")
            shutil.copyfile(hits[0], os.path.join(out_dir, dest))


if __name__ == "__main__":
    dump(sys.argv[1] if len(sys.argv) > 1 else ".")
'''


def render(spec: dict, file: str = "program.py") -> str:
    """Standalone Python source for the spec (raises SpecError if the spec is inconsistent)."""
    r = _Renderer(spec)
    name = spec["name"]
    params = ", ".join(r.v(a["id"]) for a in spec["args"])
    r.emit(0, f"def {name}({params}):")
    r.block(spec["body"], 1)
    r.emit(1, f"return {r.tup(spec['returns'])}")
    donate = tuple(k for k, a in enumerate(spec["args"]) if a.get("donate"))
    args = [(tuple(a["shape"]), "ix" if a.get("role") == "ix" else NP_NAMES[a["dtype"]])
            for a in spec["args"]]
    mesh = spec.get("mesh")
    head = HEADER.format(name=name, seed=spec.get("seed"), index=spec.get("index"), file=file,
                         donate=donate, args=args, flags=FORCE_DEVICES if mesh else "")
    if mesh:
        types = r.types
        in_specs = [effective_pspec(a.get("pspec"), a["shape"], mesh) for a in spec["args"]]
        outs = spec.get("out_pspecs")
        if outs is not None and len(outs) != len(spec["returns"]):
            raise SpecError("one output sharding per returned value")
        out_specs = None if outs is None else [effective_pspec(o, types[i][0], mesh)
                                               for o, i in zip(outs, spec["returns"])]
        head += MESH_HEADER.format(shape=tuple(mesh["shape"]), axes=tuple(mesh["axes"]),
                                   devices=_prod(mesh["shape"]), in_specs=in_specs,
                                   out_specs=out_specs)
    else:
        head += "MESH = None\n"
    return head + "\n\n" + "\n".join(r.lines) + "\n" + FOOTER.format(name=name)


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


# The minimizer's edits live in spec_edits.py (imported last: they use the
# helpers above).
from .spec_edits import (  # noqa: E402,F401
    input_refs,
    defs,
    all_refs,
    repair,
    count_stmts,
    drop_stmt,
    compounds,
    drop_carry,
    clear_body,
    drop_return,
    unshard,
    drop_out_pspecs,
    undonate,
    drop_unused_args,
    set_trip,
    shrink_shapes,
    simplify_index,
    inline_body,
)
