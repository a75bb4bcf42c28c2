"""Edits of a difftest spec, for the minimizer (tools/difftest/minimize.py).

Part of tools/difftest/spec.py, which re-exports these; each edit returns a
new, repaired spec or None when the edit does not apply.
"""

from __future__ import annotations

import copy
import json
from typing import Dict, List, Optional

from .spec import COMPOUND, LOOPS, iter_stmts, stmt_blocks

# ----------------------------------------------------------------------------- edits (minimizer)

def _scalar_refs(e: Optional[dict]) -> List[int]:
    return [e["src"]] if e and e.get("k") == "data" else []


def input_refs(s: dict) -> List[int]:
    """Ids a statement reads in the enclosing scope (not its nested bodies)."""
    op = s["op"]
    out: List[int] = []
    if op == "update":
        out.append(s["base"])
        for e in s["idx"]:
            if e["k"] == "dyn":
                out += _scalar_refs(e["e"])
        if s["val"]["k"] == "read":
            out.append(s["val"]["src"])
    elif op == "dus":
        out.append(s["base"])
        for e in s["starts"]:
            out += _scalar_refs(e)
        if s["upd"]["k"] == "slice":
            out.append(s["upd"]["src"])
            for e in s["upd"]["starts"]:
                out += _scalar_refs(e)
    elif op == "ew":
        out += [s["base"], s.get("other", s["base"])] + _scalar_refs(s.get("e"))
    elif op == "read":
        out.append(s["src"])
        for e in s["idx"]:
            if e["k"] == "dyn":
                out += _scalar_refs(e["e"])
    elif op in LOOPS:
        out += s["init"] + _scalar_refs(s.get("dyn"))
    elif op == "cond":
        out += s["ops"] + _scalar_refs(s["pred"])
    elif op == "vmap":
        out += s["ops"]
    return out


def defs(s: dict) -> List[int]:
    out = list(s["out"])
    if s["op"] == "scan" and s.get("ys_out") is not None:
        out.append(s["ys_out"])
    return out


def all_refs(spec: dict) -> set:
    refs = set(spec["returns"])
    for s, _ in iter_stmts(spec["body"]):
        refs.update(input_refs(s))
        for b in stmt_blocks(s):
            refs.update(b["ret"])
        if s["op"] == "scan" and s.get("ys") is not None:
            refs.add(s["ys"])
        # ix use
        blob = json.dumps(s)
        if '"k": "ix"' in blob and spec.get("ix") is not None:
            refs.add(spec["ix"])
    return refs


def _resolve(m: Dict[int, int], i: int) -> int:
    seen = 0
    while i in m and seen < 10000:
        i = m[i]
        seen += 1
    return i


def _fix_scalar(e, m, dead):
    if e and e.get("k") == "data":
        e["src"] = _resolve(m, e["src"])
        if e["src"] in dead:
            e.clear()
            e.update({"k": "c", "v": 0})


def _replacements(s: dict) -> Dict[int, Optional[int]]:
    """out id -> the id that stands for it once s is dropped (None: nothing can)."""
    op = s["op"]
    if op in ("update", "dus", "ew"):
        return {s["out"][0]: s["base"]}
    if op in LOOPS or op in ("cond", "vmap"):
        ins = s["init"] if op in LOOPS else s["ops"]
        r = dict(zip(s["out"], ins))
        if op == "scan" and s.get("ys_out") is not None:
            r[s["ys_out"]] = None
        return r
    return {o: None for o in s["out"]}


def _drop(s, m, dead):
    for o, rep in _replacements(s).items():
        if rep is None:
            dead.add(o)
        else:
            m[o] = rep


def _repair_block(block: List[dict], m: Dict[int, int], dead: set) -> None:
    i = 0
    while i < len(block):
        s = block[i]
        op = s["op"]
        # soft references: degrade instead of dropping the statement
        if op == "update":
            for e in s["idx"]:
                if e["k"] == "dyn":
                    _fix_scalar(e["e"], m, dead)
            if s["val"]["k"] == "read":
                s["val"]["src"] = _resolve(m, s["val"]["src"])
                if s["val"]["src"] in dead:
                    s["val"] = {"k": "lit", "r": 1}
        elif op == "dus":
            for e in s["starts"]:
                _fix_scalar(e, m, dead)
            if s["upd"]["k"] == "slice":
                s["upd"]["src"] = _resolve(m, s["upd"]["src"])
                for e in s["upd"]["starts"]:
                    _fix_scalar(e, m, dead)
                if s["upd"]["src"] in dead:
                    s["upd"] = {"k": "full", "r": 1}
        elif op == "ew":
            _fix_scalar(s.get("e"), m, dead)
            if "other" in s:
                s["other"] = _resolve(m, s["other"])
                if s["other"] in dead:
                    s["other"] = s["base"]
        elif op == "read":
            for e in s["idx"]:
                if e["k"] == "dyn":
                    _fix_scalar(e["e"], m, dead)
        elif op in LOOPS:
            _fix_scalar(s.get("dyn"), m, dead)
        elif op == "cond":
            _fix_scalar(s["pred"], m, dead)
        # hard references
        for key in ("base", "src"):
            if key in s:
                s[key] = _resolve(m, s[key])
        for key in ("init", "ops"):
            if key in s:
                s[key] = [_resolve(m, x) for x in s[key]]
        if any(x in dead for x in input_refs(s)):
            _drop(s, m, dead)
            del block[i]
            continue
        broken = False
        for b in stmt_blocks(s):
            _repair_block(b["body"], m, dead)
            b["ret"] = [_resolve(m, x) for x in b["ret"]]
            if any(x in dead for x in b["ret"]):
                broken = True
        if op == "scan" and s.get("ys") is not None:
            s["ys"] = _resolve(m, s["ys"])
            if s["ys"] in dead:
                s["ys"] = None
                if s.get("ys_out") is not None:
                    dead.add(s["ys_out"])
                    s["ys_out"] = None
        if broken:
            _drop(s, m, dead)
            del block[i]
            continue
        i += 1


def repair(spec: dict, m: Dict[int, int], dead: set) -> Optional[dict]:
    _repair_block(spec["body"], m, dead)
    spec["returns"] = [x for x in (_resolve(m, r) for r in spec["returns"]) if x not in dead]
    if not spec["returns"]:
        return None
    return spec


def count_stmts(spec: dict) -> int:
    return sum(1 for _ in iter_stmts(spec["body"]))


def drop_stmt(spec: dict, n: int) -> Optional[dict]:
    """Spec without its n-th statement (pre-order); users that cannot be redirected go too."""
    spec = copy.deepcopy(spec)
    for k, (s, block) in enumerate(iter_stmts(spec["body"])):
        if k == n:
            m: Dict[int, int] = {}
            dead: set = set()
            _drop(s, m, dead)
            for b in stmt_blocks(s):
                dead.update(b["params"])
            block.remove(s)
            return repair(spec, m, dead)
    return None


def compounds(spec: dict) -> List[dict]:
    return [s for s, _ in iter_stmts(spec["body"]) if s["op"] in COMPOUND]


def drop_carry(spec: dict, n: int, j: int) -> Optional[dict]:
    """Remove carry/operand j of the n-th compound statement."""
    spec = copy.deepcopy(spec)
    cs = compounds(spec)
    if n >= len(cs):
        return None
    s = cs[n]
    key = "init" if s["op"] in LOOPS else "ops"
    if len(s[key]) < 2 or j >= len(s[key]):
        return None
    m: Dict[int, int] = {}
    dead: set = set()
    src = s[key].pop(j)
    m[s["out"].pop(j)] = src
    for b in stmt_blocks(s):
        p = b["params"].pop(j)
        if s["op"] == "vmap":
            dead.add(p)
        else:
            m[p] = src
        b["ret"].pop(j)
    if s["op"] == "while" and s.get("data") is not None:
        if s["data"] == j:
            s["data"] = None
        elif s["data"] > j:
            s["data"] -= 1
    return repair(spec, m, dead)


def clear_body(spec: dict, n: int, k: int = 0) -> Optional[dict]:
    """Make the k-th scope of the n-th compound statement a pass-through."""
    spec = copy.deepcopy(spec)
    cs = compounds(spec)
    if n >= len(cs):
        return None
    s = cs[n]
    bs = stmt_blocks(s)
    if k >= len(bs) or (not bs[k]["body"] and bs[k]["ret"] == bs[k]["params"]):
        return None
    b = bs[k]
    dead = set()
    for t, _ in iter_stmts(b["body"]):
        dead.update(defs(t))
    b["body"] = []
    b["ret"] = list(b["params"])
    if s["op"] == "scan" and s.get("ys") in dead:
        s["ys"] = None
        if s.get("ys_out") is not None:
            dead.add(s["ys_out"])
            s["ys_out"] = None
    return repair(spec, {}, dead)


def drop_return(spec: dict, j: int) -> Optional[dict]:
    if len(spec["returns"]) < 2 or j >= len(spec["returns"]):
        return None
    spec = copy.deepcopy(spec)
    spec["returns"].pop(j)
    if spec.get("out_pspecs") is not None:
        spec["out_pspecs"].pop(j)
    return spec


def unshard(spec: dict, j: int) -> Optional[dict]:
    """Argument j replicated (a sharded program's edit)."""
    if j >= len(spec["args"]) or not spec["args"][j].get("pspec"):
        return None
    spec = copy.deepcopy(spec)
    spec["args"][j]["pspec"] = []
    return spec


def drop_out_pspecs(spec: dict) -> Optional[dict]:
    """No output shardings: XLA chooses them."""
    if spec.get("out_pspecs") is None:
        return None
    spec = copy.deepcopy(spec)
    del spec["out_pspecs"]
    return spec


def undonate(spec: dict, j: int) -> Optional[dict]:
    if j >= len(spec["args"]) or not spec["args"][j].get("donate"):
        return None
    spec = copy.deepcopy(spec)
    spec["args"][j]["donate"] = False
    return spec


def drop_unused_args(spec: dict) -> Optional[dict]:
    refs = all_refs(spec)
    keep = [a for a in spec["args"] if a["id"] in refs]
    if len(keep) == len(spec["args"]):
        return None
    spec = copy.deepcopy(spec)
    spec["args"] = [a for a in spec["args"] if a["id"] in refs]
    if spec.get("ix") is not None and spec["ix"] not in refs:
        spec["ix"] = None
    return spec


def set_trip(spec: dict, n: int, trips: int) -> Optional[dict]:
    spec = copy.deepcopy(spec)
    loops = [s for s in compounds(spec) if s["op"] in LOOPS]
    if n >= len(loops) or loops[n]["n"] <= trips:
        return None
    loops[n]["n"] = trips
    return spec


def shrink_shapes(spec: dict) -> Optional[dict]:
    """Halve every array dimension of the data arguments and constants (at least 1)."""
    spec = copy.deepcopy(spec)
    changed = False

    def half(shape):
        nonlocal changed
        new = [max(1, d // 2) for d in shape]
        changed |= new != list(shape)
        return new

    for a in spec["args"]:
        if a.get("role") != "ix":
            a["shape"] = half(a["shape"])
    for s, _ in iter_stmts(spec["body"]):
        if s["op"] == "const":
            s["shape"] = half(s["shape"])
    return spec if changed else None


def simplify_index(spec: dict, n: int) -> Optional[dict]:
    """Turn the dynamic/array indices of the n-th statement into constants."""
    spec = copy.deepcopy(spec)
    for k, (s, _) in enumerate(iter_stmts(spec["body"])):
        if k != n:
            continue
        changed = False
        for e in s.get("idx", []):
            if e["k"] in ("dyn", "arr"):
                e.clear()
                e.update({"k": "int", "r": 1})
                changed = True
        for key in ("starts",):
            for e in s.get(key, []):
                if e["k"] != "c":
                    e.clear()
                    e.update({"k": "c", "v": 1})
                    changed = True
        return spec if changed else None
    return None


def _replace_ctr(obj, sid: int) -> None:
    if isinstance(obj, dict):
        if obj.get("k") == "ctr" and obj.get("sid") == sid:
            obj.clear()
            obj.update({"k": "c", "v": 0})
            return
        for v in obj.values():
            _replace_ctr(v, sid)
    elif isinstance(obj, list):
        for v in obj:
            _replace_ctr(v, sid)


def inline_body(spec: dict, n: int, k: int = 0) -> Optional[dict]:
    """Replace the n-th compound statement by its k-th body, run once on its inputs
    (loops: one iteration, counter 0; cond: that branch).  Not for vmap."""
    spec = copy.deepcopy(spec)
    for s, block in iter_stmts(spec["body"]):
        if s["op"] not in COMPOUND:
            continue
        if n:
            n -= 1
            continue
        bs = stmt_blocks(s)
        if s["op"] == "vmap" or k >= len(bs):
            return None
        b = bs[k]
        ins = s["init"] if s["op"] in LOOPS else s["ops"]
        m: Dict[int, int] = {}
        dead: set = set()
        for p, i in zip(b["params"], ins):
            m[p] = i
        for o, r in zip(s["out"], b["ret"]):
            m[o] = r
        if s["op"] == "scan" and s.get("ys_out") is not None:
            dead.add(s["ys_out"])
        body = b["body"]
        if s["op"] in LOOPS:
            _replace_ctr(body, s["sid"])
        pos = block.index(s)
        block[pos:pos + 1] = body
        return repair(spec, m, dead)
    return None
