"""Seeded random program specs (see spec.py for the representation).

    spec = generate(seed, index)      # same (seed, index) -> same spec, on any machine

Programs are random compositions of: `.at[].set/add/mul/min/max` with static, dynamic, slice and
index-array indices (scatter, with random patterns: duplicates, unique, sorted, reversed, all the
same, out of bounds with mode drop/clip), `lax.dynamic_update_slice`, reads of current and of
superseded versions (read before / after update), element-wise rewrites (`jnp.where`, `roll`,
`flip`, `concatenate`, whole-buffer select), constants, `fori_loop` (static or dynamic trip count),
`while_loop` (counter or data-dependent condition), `scan` (with or without per-step outputs,
forward or reversed), loop unrolling (`unroll=2` / full),
`cond`/`switch` with pass-through branches, and `vmap` over nested bodies.  Loop and branch carries
are chosen at random and returned updated, passed through, swapped with a same-typed carry,
duplicated or replaced by an outer value.  Arguments are f32/bf16/s32/s8/bool of a few small
shapes, donated or not, and may be returned unchanged.
"""

from __future__ import annotations

import random
from typing import Dict, List, Optional

from .spec import index_result_shape, infer_types

SHAPES = [(16,), (32,), (64,), (8, 8), (4, 16), (6, 5), (2, 4, 8), (1, 8), (3, 3), (128,)]
BIG_SHAPES = [(1024,), (32, 32), (4, 256)]  # occasionally: XLA fuses and schedules big arrays differently
DTYPES = [("f32", 6), ("bf16", 1.5), ("s32", 1.5), ("s8", 1), ("bool", 1)]
MAX_DEPTH = 3
# Bump when the same (seed, index) starts to give a different program.  2: loop unrolling and
# reversed scans (drawn from a second random stream, so version-1 programs keep their structure).
GENERATOR_VERSION = 2


def _wchoice(rng: random.Random, items):
    total = sum(w for _, w in items)
    x = rng.random() * total
    for it, w in items:
        x -= w
        if x <= 0:
            return it
    return items[-1][0]


class _Scope:
    def __init__(self, parent: Optional["_Scope"] = None):
        self.vars: List[int] = list(parent.vars) if parent else []
        self.latest: Dict[int, int] = dict(parent.latest) if parent else {}
        self.ctrs: List[int] = list(parent.ctrs) if parent else []
        self.depth = parent.depth + 1 if parent else 0
        self.prefer: List[int] = []  # chains a nested body should mostly work on (its params)


class _Gen:
    def __init__(self, rng: random.Random, rng2: random.Random):
        self.rng = rng
        self.rng2 = rng2  # draws added in version 2
        self.types: Dict[int, tuple] = {}
        self.chain: Dict[int, int] = {}
        self.next_id = 0
        self.next_sid = 0
        self.ix: Optional[int] = None
        self.budget = 0

    # -- variables
    def new(self, ty, scope: _Scope, chain: Optional[int] = None) -> int:
        i = self.next_id
        self.next_id += 1
        self.types[i] = (tuple(ty[0]), ty[1])
        self.chain[i] = i if chain is None else chain
        scope.vars.append(i)
        scope.latest[self.chain[i]] = i
        return i

    def sid(self) -> int:
        self.next_sid += 1
        return self.next_sid

    def pick(self, scope: _Scope, min_rank=0, pred=None, latest_p=0.85) -> Optional[int]:
        cands = [v for v in scope.vars if len(self.types[v][0]) >= min_rank and (pred is None or pred(v))]
        if not cands:
            return None
        latest = set(scope.latest.values())
        pref = [scope.latest[c] for c in scope.prefer if scope.latest.get(c) in cands]
        if pref and self.rng.random() < 0.7:
            return self.rng.choice(pref)
        fresh = [v for v in cands if v in latest]
        if fresh and self.rng.random() < latest_p:
            return self.rng.choice(fresh)
        return self.rng.choice(cands)

    def raw(self, hi=1000) -> int:
        return self.rng.randrange(hi)

    # -- expressions
    def scalar(self, scope: _Scope) -> dict:
        opts = [("c", 2), ("data", 1)]
        if self.ix is not None:
            opts.append(("ix", 2))
        if scope.ctrs:
            opts.append(("ctr", 5))
        k = _wchoice(self.rng, opts)
        if k == "c":
            return {"k": "c", "v": self.raw(40)}
        if k == "ix":
            return {"k": "ix", "j": self.raw(4)}
        if k == "ctr":
            return {"k": "ctr", "sid": self.rng.choice(scope.ctrs)}
        src = self.pick(scope, latest_p=0.5)
        return {"k": "data", "src": src, "idx": [self.raw() for _ in self.types[src][0]]}

    def index(self, scope: _Scope, rank: int, force_arr=False, allow_oob=False) -> List[dict]:
        n = 1 if rank == 1 or self.rng.random() < 0.6 else self.rng.randint(1, rank)
        out = []
        arr_at = self.rng.randrange(n) if force_arr else None
        for ax in range(n):
            if ax == arr_at:
                k = "arr"
            else:
                k = _wchoice(self.rng, [("int", 3), ("dyn", 3), ("slice", 2),
                                        ("arr", 0 if arr_at is not None or any(e["k"] == "arr" for e in out) else 1)])
            if k == "int":
                out.append({"k": "int", "r": self.raw()})
            elif k == "dyn":
                out.append({"k": "dyn", "e": self.scalar(scope)})
            elif k == "slice":
                out.append({"k": "slice", "a": self.raw(), "l": self.raw()})
            else:
                out.append({"k": "arr", "r": [self.raw() for _ in range(self.rng.randint(1, 6))],
                            "pat": _wchoice(self.rng, [("random", 3), ("unique", 2), ("sorted", 2),
                                                       ("reversed", 1), ("same", 1)]),
                            "oob": allow_oob and self.rng.random() < 0.3})
        return out

    def value(self, scope: _Scope) -> dict:
        if self.rng.random() < 0.6:
            return {"k": "lit", "r": self.raw()}
        src = self.pick(scope, latest_p=0.4)
        return {"k": "read", "src": src, "idx": [self.raw() for _ in self.types[src][0]]}

    # -- statements
    def s_update(self, scope, scatter=False):
        base = self.pick(scope, min_rank=1)
        if base is None:
            return None
        sh, dt = self.types[base]
        fn = "set" if dt == "bool" else _wchoice(self.rng, [("set", 4), ("add", 3), ("mul", 1),
                                                         ("min", 1), ("max", 1)])
        idx_mode = None
        if scatter or self.rng.random() < 0.25:
            idx_mode = _wchoice(self.rng, [(None, 3), ("drop", 1), ("clip", 1), ("promise_in_bounds", 1)])
        elif self.rng.random() < 0.2:
            idx_mode = self.rng.choice(["drop", "promise_in_bounds"])
        idx = self.index(scope, len(sh), force_arr=scatter, allow_oob=idx_mode in ("drop", "clip"))
        s = {"op": "update", "base": base, "idx": idx, "fn": fn, "val": self.value(scope),
             "mode": idx_mode, "flags": self.rng.random() < 0.5}
        s["out"] = [self.new(self.types[base], scope, self.chain[base])]
        return s

    def s_dus(self, scope):
        base = self.pick(scope, min_rank=1)
        if base is None:
            return None
        sh, dt = self.types[base]
        s = {"op": "dus", "base": base, "usize": [self.raw() for _ in sh],
             "starts": [self.scalar(scope) for _ in sh]}
        same = [v for v in scope.vars if self.types[v][0] == sh]
        if self.rng.random() < 0.5:
            s["upd"] = {"k": "full", "r": self.raw()}
        else:
            s["upd"] = {"k": "slice", "src": self.rng.choice(same),
                        "starts": [self.scalar(scope) for _ in sh]}
        s["out"] = [self.new(self.types[base], scope, self.chain[base])]
        return s

    def s_ew(self, scope):
        base = self.pick(scope)
        if base is None:
            return None
        sh, dt = self.types[base]
        fs = [("scale", 1), ("add", 2), ("where_data", 1), ("select", 2)]
        if sh:
            fs += [("where_iota", 2), ("roll", 2), ("flip", 1), ("concat", 2)]
        f = _wchoice(self.rng, fs)
        other = self.pick(scope, pred=lambda v: self.types[v][0] == sh, latest_p=0.5)
        s = {"op": "ew", "base": base, "f": f, "other": other, "r": self.raw(), "axis": self.raw(8)}
        if f == "select":
            s["e"] = self.scalar(scope)
        s["out"] = [self.new(self.types[base], scope, self.chain[base])]
        return s

    def s_read(self, scope):
        src = self.pick(scope, min_rank=1, latest_p=0.5)
        if src is None:
            return None
        sh, dt = self.types[src]
        idx = self.index(scope, len(sh))
        s = {"op": "read", "src": src, "idx": idx}
        s["out"] = [self.new((index_result_shape(sh, idx), dt), scope)]
        return s

    def s_const(self, scope):
        sh = self.rng.choice(SHAPES)
        dt = _wchoice(self.rng, DTYPES)
        s = {"op": "const", "shape": list(sh), "dtype": dt,
             "kind": self.rng.choice(["zeros", "full", "iota", "numpy"]), "r": self.raw()}
        s["out"] = [self.new((sh, dt), scope)]
        return s

    def carries(self, scope, min_rank=0, pred=None) -> List[int]:
        k = _wchoice(self.rng, [(1, 4), (2, 4), (3, 2)])
        out: List[int] = []
        for _ in range(k):
            v = self.pick(scope, min_rank=min_rank, pred=pred)
            if v is None:
                break
            if v in out and self.rng.random() < 0.7:
                continue
            out.append(v)
        if out and self.rng.random() < 0.12:
            out.append(self.rng.choice(out))  # duplicated carry
        return out

    def body(self, scope: _Scope, params: List[int], n: int, force_loop=False):
        """Generate a nested body; returns (stmts, ret, scope at the end)."""
        scope.prefer = [self.chain[p] for p in params]
        stmts = self.block(scope, n, force_loop=force_loop)
        ret = []
        for k, p in enumerate(params):
            ty = self.types[p]
            own = scope.latest.get(self.chain[p], p)
            x = self.rng.random()
            if x < 0.12:
                r = p  # pass-through
            elif x < 0.27:
                same = [q for q in params if q != p and self.types[q] == ty]
                r = scope.latest.get(self.chain[self.rng.choice(same)]) if same else own
            elif x < 0.32:
                outer = [v for v in scope.vars if self.types[v] == ty]
                r = self.rng.choice(outer)
            else:
                r = own
            ret.append(r)
        return stmts, ret

    def body_len(self):
        n = self.rng.randint(0, 4)
        return min(n, max(self.budget, 0))

    def s_loop(self, scope, kind):
        init = self.carries(scope)
        if not init:
            return None
        sid = self.sid()
        inner = _Scope(scope)
        params = [self.new(self.types[i], inner) for i in init]
        inner.ctrs.append(sid)
        s = {"op": kind, "sid": sid, "init": init, "params": params,
             "n": _wchoice(self.rng, [(1, 1), (2, 2), (3, 3), (4, 2), (5, 2), (8, 1), (10, 1)])}
        if kind == "fori":
            s["dyn"] = self.scalar(scope) if self.rng.random() < 0.15 else None
        if kind in ("fori", "scan"):
            s["unroll"] = _wchoice(self.rng2, [(None, 7), (2, 2), (True, 1)])
        if kind == "scan":
            s["reverse"] = self.rng2.random() < 0.25
        if kind == "while":
            s["data"] = self.raw(len(init)) if self.rng.random() < 0.3 else None
        s["body"], s["ret"] = self.body(inner, params, self.body_len())
        if kind == "scan":
            s["ys"], s["ys_out"] = None, None
            if self.rng.random() < 0.6:
                s["ys"] = self.pick(inner, latest_p=0.7)
        s["out"] = [self.new(self.types[i], scope, self.chain[i]) for i in init]
        if kind == "scan" and s["ys"] is not None:
            ysh, ydt = self.types[s["ys"]]
            s["ys_out"] = self.new(((s["n"],) + ysh, ydt), scope)
        return s

    def s_cond(self, scope):
        ops = self.carries(scope)
        if not ops:
            return None
        sid = self.sid()
        s = {"op": "cond", "sid": sid, "ops": ops, "pred": self.scalar(scope), "branches": []}
        for _ in range(2 if self.rng.random() < 0.7 else 3):
            inner = _Scope(scope)
            params = [self.new(self.types[i], inner) for i in ops]
            if self.rng.random() < 0.35:
                b = {"params": params, "body": [], "ret": list(params)}
            else:
                body, ret = self.body(inner, params, self.body_len())
                b = {"params": params, "body": body, "ret": ret}
            s["branches"].append(b)
        s["out"] = [self.new(self.types[i], scope, self.chain[i]) for i in ops]
        return s

    def s_vmap(self, scope):
        first = self.pick(scope, min_rank=1, pred=lambda v: len(self.types[v][0]) >= 2 or self.rng.random() < 0.3)
        if first is None:
            return None
        lead = self.types[first][0][0]
        ops = [first]
        if self.rng.random() < 0.4:
            other = self.pick(scope, min_rank=1, pred=lambda v: self.types[v][0][0] == lead and v != first)
            if other is not None:
                ops.append(other)
        sid = self.sid()
        inner = _Scope(scope)
        params = [self.new((self.types[i][0][1:], self.types[i][1]), inner) for i in ops]
        body, ret = self.body(inner, params, max(1, self.body_len()), force_loop=self.rng.random() < 0.7)
        s = {"op": "vmap", "sid": sid, "ops": ops, "params": params, "body": body, "ret": ret}
        s["out"] = [self.new(self.types[i], scope, self.chain[i]) for i in ops]
        return s

    def block(self, scope: _Scope, n: int, force_loop=False) -> List[dict]:
        stmts = []
        for k in range(n):
            if self.budget <= 0:
                break
            self.budget -= 1
            nested = scope.depth < MAX_DEPTH
            ops = [("update", 6), ("scatter", 3), ("dus", 3), ("ew", 3), ("read", 3), ("const", 0.7)]
            if nested:
                ops += [("fori", 2.5), ("while", 1.2), ("scan", 1.5), ("cond", 1.8), ("vmap", 0.8)]
            op = _wchoice(self.rng, ops)
            if force_loop and k == 0 and nested:
                op = self.rng.choice(["fori", "while", "scan"])
            if op == "scatter":
                s = self.s_update(scope, scatter=True)
            elif op in ("fori", "while", "scan"):
                s = self.s_loop(scope, op)
            else:
                s = getattr(self, "s_" + op)(scope)
            if s is not None:
                stmts.append(s)
        return stmts


def generate(seed: int, index: int, name: Optional[str] = None) -> dict:
    rng = random.Random(f"hloscope-difftest:{seed}:{index}")
    g = _Gen(rng, random.Random(f"hloscope-difftest-2:{seed}:{index}"))
    top = _Scope()
    args = []
    n_data = _wchoice(rng, [(1, 4), (2, 4), (3, 2)])
    prev = None
    for k in range(n_data):
        if prev is not None and rng.random() < 0.4:
            sh, dt = prev
        else:
            sh, dt = rng.choice(BIG_SHAPES if rng.random() < 0.08 else SHAPES), _wchoice(rng, DTYPES)
        prev = (sh, dt)
        i = g.new((sh, dt), top)
        args.append({"id": i, "shape": list(sh), "dtype": dt, "donate": rng.random() < 0.5,
                     "role": "data"})
    if rng.random() < 0.5:
        g.ix = g.new(((4,), "s32"), top)
        args.append({"id": g.ix, "shape": [4], "dtype": "s32", "donate": False, "role": "ix"})
    arg_ids = [a["id"] for a in args]
    g.budget = rng.randint(2, 10)
    body = g.block(top, 100)
    # returns: the latest version of most argument chains, maybe a read, maybe an argument itself
    rets = []
    for a in arg_ids:
        if a == g.ix:
            continue
        if rng.random() < 0.75:
            rets.append(top.latest[g.chain[a]])
    others = [v for v in top.vars if v not in arg_ids and v not in rets]
    for _ in range(rng.randint(0, 2)):
        if others:
            rets.append(rng.choice(others))
    if rng.random() < 0.15:
        rets.append(rng.choice(arg_ids))  # returned input
    if rets and rng.random() < 0.1:
        rets.append(rng.choice(rets))  # duplicated output
    if not rets:
        rets.append(top.latest[g.chain[arg_ids[0]]])
    spec = {"name": name or f"p{seed}_{index}", "seed": seed, "index": index,
            "generator_version": GENERATOR_VERSION, "args": args,
            "ix": g.ix, "body": body, "returns": rets}
    infer_types(spec)  # consistency check
    return spec


# ----------------------------------------------------------------------------- sharding

# Mesh shapes per device count (the target's devices: 8 forced CPU host devices, a TPU slice's chips).
MESHES = {
    8: [((8,), 3), ((2, 4), 3), ((4, 2), 2), ((2, 2, 2), 2), ((4,), 0.5), ((2,), 0.5)],
    4: [((4,), 3), ((2, 2), 3), ((2,), 1)],
    2: [((2,), 1)],
}
AXIS_NAMES = ("x", "y", "z")


def _raw_pspec(rng: random.Random, rank: int, axes) -> list:
    """A partition spec before it meets a shape: per dimension None, an axis or two axes.
    spec.effective_pspec drops what does not divide the dimension when rendering, so the
    minimizer's shape edits keep every spec valid."""
    out = []
    for _ in range(rank):
        x = rng.random()
        if x < 0.45:
            out.append(None)
        elif x < 0.9 or len(axes) < 2:
            out.append(rng.choice(axes))
        else:
            out.append(rng.sample(list(axes), 2))
    return out


def shard(spec: dict, devices: int) -> dict:
    """The same program, run sharded: a random mesh over `devices`, a random partition spec per
    argument (replicated sometimes), `with_sharding_constraint`s before some updates and reads,
    and sometimes explicit output shardings.  Drawn from a separate random stream, so the
    single-device program of (seed, index) stays what it was."""
    rng = random.Random(f"hloscope-difftest-mesh:{spec['seed']}:{spec['index']}:{devices}")
    shape = _wchoice(rng, MESHES[devices])
    axes = list(AXIS_NAMES[:len(shape)])
    spec = dict(spec)
    spec["mesh"] = {"shape": list(shape), "axes": axes}
    args = []
    for a in spec["args"]:
        a = dict(a)
        if a.get("role") == "ix" or rng.random() < 0.2:
            a["pspec"] = []
        else:
            a["pspec"] = _raw_pspec(rng, len(a["shape"]), axes)
        args.append(a)
    spec["args"] = args
    types = infer_types(spec)
    next_id = [max(types) + 1]

    def constrain(block: List[dict], in_vmap: bool) -> List[dict]:
        out = []
        for s in block:
            s = dict(s)
            for key in ("branches",):
                if key in s:
                    s[key] = [dict(b, body=constrain(b["body"], in_vmap)) for b in s[key]]
            if "body" in s and s["op"] != "cond":
                s["body"] = constrain(s["body"], in_vmap or s["op"] == "vmap")
            field = {"update": "base", "dus": "base", "ew": "base", "read": "src"}.get(s["op"])
            # Not under vmap: a constraint there is on the unbatched rank, which JAX accepts only
            # with spmd_axis_name; the programs keep to what users write.
            if field and not in_vmap and rng.random() < 0.3 and types[s[field]][0]:
                v = next_id[0]
                next_id[0] += 1
                out.append({"op": "ew", "f": "wsc", "out": [v], "base": s[field],
                            "pspec": _raw_pspec(rng, len(types[s[field]][0]), axes)})
                s[field] = v
            out.append(s)
        return out

    spec["body"] = constrain(spec["body"], False)
    if rng.random() < 0.4:
        types = infer_types(spec)
        spec["out_pspecs"] = [_raw_pspec(rng, len(types[r][0]), axes) if rng.random() < 0.7 else []
                              for r in spec["returns"]]
    infer_types(spec)
    return spec
