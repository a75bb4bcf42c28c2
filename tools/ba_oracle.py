#!/usr/bin/env python3
"""Independent oracle: copies, in-place updates and loops from XLA's own dump text.

    python3 tools/ba_oracle.py MODULE.hlo.txt BUFFER_ASSIGNMENT.txt [--json]

Pure Python, regex/line level, shares no code with hloscope.  It reads an
optimized HLO module (as dumped by --xla_dump_to, or compiled.as_text()) and the
matching ``-buffer-assignment.txt`` and reports

(a) copies: top-level ``copy`` in non-fused computations, ``copy-start`` paired
    with its ``copy-done``, and copy fusions (a fused computation whose root, or
    a root tuple element, is ``copy(parameter)`` with identical shape+layout);
    each with computation, byte size and the enclosing while loops.
(b) updates: ``dynamic-update-slice`` / ``scatter`` at top level of non-fused
    computations and ``fusion`` instructions whose fused root (through
    tuple/bitcast) is a DUS/scatter on a fused parameter (plus
    ``output_to_operand_aliasing`` pairs).  For each, the in-place operand is
    traced (bitcast, get-tuple-element/tuple, while/call/conditional
    parameters, copy-done) to the value that defines it, and both the operand
    value and the result value are looked up in the buffer assignment:
    same_buffer = same allocation and same offset (null if a value is missing).
(c) while loops with ``known_trip_count`` from backend_config (null if absent).

Byte sizes: array = elements x byte width (pred 1; sub-byte types 1 byte unless
the layout has E(n), then ceil(n*elements/8)); tuple = 8 x element count.
See docs xla-reference.md sections 2-5.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# ----------------------------------------------------------------------------- shapes

BYTE_WIDTH = {
    "pred": 1,
    "s1": 1, "u1": 1, "s2": 1, "u2": 1, "s4": 1, "u4": 1,
    "s8": 1, "u8": 1, "s16": 2, "u16": 2, "s32": 4, "u32": 4, "s64": 8, "u64": 8,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16,
    "f4e2m1fn": 1, "f6e2m3fn": 1, "f6e3m2fn": 1, "f8e8m0fnu": 1,
    "token": 0, "opaque": 8,
}
POINTER_SIZE = 8


def _byte_width(ty: str) -> Optional[int]:
    if ty in BYTE_WIDTH:
        return BYTE_WIDTH[ty]
    if ty.startswith("f8"):
        return 1
    return None


def strip_comments(s: str) -> str:
    return re.sub(r"/\*.*?\*/", "", s)


def split_top(s: str, sep: str = ",") -> List[str]:
    """Split at top-level separators, respecting (), {}, [] and quoted strings."""
    out, depth, cur, i = [], 0, [], 0
    while i < len(s):
        c = s[i]
        if c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur or out:
        out.append("".join(cur))
    return [p.strip() for p in out]


def match_balanced(s: str, start: int) -> int:
    """s[start] is an opening bracket; return the index just past its match (string aware)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    i = start
    while i < len(s):
        c = s[i]
        if c in "\"'":
            j = i + 1
            while j < len(s) and s[j] != c:
                j += 2 if s[j] == "\\" else 1
            i = j + 1
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced brackets in: {s[start:start + 80]!r}")


ARRAY_RE = re.compile(r"^([a-z][a-z0-9]*)\[([^\]]*)\](\{[^}]*\})?$")


@dataclass
class Shape:
    text: str
    tuple_elems: Optional[List["Shape"]] = None  # None for arrays
    elem_type: str = ""
    dims: Tuple[int, ...] = ()
    layout: str = ""  # text inside {...}, "" if none

    @property
    def is_tuple(self) -> bool:
        return self.tuple_elems is not None

    def byte_size(self) -> Optional[int]:
        if self.is_tuple:
            return POINTER_SIZE * len(self.tuple_elems)
        n = 1
        for d in self.dims:
            n *= d
        m = re.search(r"E\((\d+)\)", self.layout)
        if m:
            return math.ceil(n * int(m.group(1)) / 8)
        w = _byte_width(self.elem_type)
        return None if w is None else n * w

    def subshape(self, idx: Tuple[int, ...]) -> Optional["Shape"]:
        s = self
        for k in idx:
            if not s.is_tuple or k >= len(s.tuple_elems):
                return None
            s = s.tuple_elems[k]
        return s


def parse_shape(text: str) -> Shape:
    t = strip_comments(text).strip()
    if t.startswith("("):
        end = match_balanced(t, 0)
        inner = t[1:end - 1].strip()
        elems = [parse_shape(p) for p in split_top(inner)] if inner else []
        return Shape(text=t, tuple_elems=elems)
    m = ARRAY_RE.match(t)
    if not m:
        return Shape(text=t, elem_type="?")
    dims = []
    for d in m.group(2).split(","):
        d = d.strip()
        if not d:
            continue
        d = d.lstrip("<=")
        dims.append(int(d) if d.isdigit() else 0)
    layout = (m.group(3) or "{}")[1:-1]
    return Shape(text=t, elem_type=m.group(1), dims=tuple(dims), layout=layout)


def read_shape_prefix(s: str) -> Tuple[str, str]:
    """Split 'SHAPE rest' -> (SHAPE, rest) for array or tuple shapes."""
    s = s.lstrip()
    if s.startswith("("):
        end = match_balanced(s, 0)
        return s[:end], s[end:]
    m = re.match(r"[a-z][a-z0-9]*\[[^\]]*\](\{[^}]*\})?", s)
    if not m:
        raise ValueError(f"cannot read shape from {s[:60]!r}")
    return m.group(0), s[m.end():]


# ----------------------------------------------------------------------------- HLO module

@dataclass
class Instr:
    name: str
    shape_text: str
    opcode: str
    operands: List[str]
    attrs: str
    is_root: bool
    comp: str
    operand_text: str = ""

    _shape: Optional[Shape] = None

    @property
    def shape(self) -> Shape:
        if self._shape is None:
            self._shape = parse_shape(self.shape_text)
        return self._shape

    def attr(self, key: str) -> Optional[str]:
        """Raw text of attribute `key` (balanced value), or None."""
        for part in split_top(self.attrs):
            if part.startswith(key + "="):
                return part[len(key) + 1:].strip()
        return None

    def called(self, key: str) -> List[str]:
        v = self.attr(key)
        if v is None:
            return []
        v = v.strip()
        if v.startswith("{"):
            v = v[1:-1]
        return [x.strip().lstrip("%") for x in v.split(",") if x.strip()]


@dataclass
class Computation:
    name: str
    is_entry: bool
    instrs: List[Instr] = field(default_factory=list)
    by_name: Dict[str, Instr] = field(default_factory=dict)
    root: Optional[Instr] = None


@dataclass
class Module:
    name: str
    header: str
    comps: Dict[str, Computation]
    order: List[str]
    entry: Optional[str]
    instr_index: Dict[str, Tuple[str, Instr]]  # name -> (computation, instr)
    fused: set
    callers: Dict[str, List[Tuple[str, Instr, str]]]  # comp -> [(caller comp, caller instr, role)]


INSTR_RE = re.compile(r"^\s*(ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s*(.*)$")
COMP_RE = re.compile(r"^\s*(ENTRY\s+)?%?([A-Za-z_][\w.\-]*)\s*(\(.*\)\s*->\s*.*?)?\s*\{\s*$")


def parse_instr(line: str, comp: str) -> Optional[Instr]:
    m = INSTR_RE.match(line)
    if not m:
        return None
    is_root, name, rest = bool(m.group(1)), m.group(2), m.group(3)
    shape_text, rest = read_shape_prefix(rest)
    m2 = re.match(r"\s*([a-z][a-z0-9\-]*)\s*\(", rest)
    if not m2:
        raise ValueError(f"cannot read opcode: {line[:120]!r}")
    opcode = m2.group(1)
    open_idx = m2.end() - 1
    close = match_balanced(rest, open_idx)
    operand_text = rest[open_idx + 1:close - 1]
    attrs = rest[close:].strip()
    if attrs.startswith(","):
        attrs = attrs[1:].strip()
    operands: List[str] = []
    if opcode not in ("constant", "parameter", "iota", "rng-get-and-update-state"):
        for op in split_top(strip_comments(operand_text)):
            if not op:
                continue
            tok = op.split()[-1]
            operands.append(tok.lstrip("%"))
    return Instr(name=name, shape_text=shape_text, opcode=opcode, operands=operands,
                 attrs=attrs, is_root=is_root, comp=comp, operand_text=operand_text)


def parse_module(text: str) -> Module:
    comps: Dict[str, Computation] = {}
    order: List[str] = []
    header = ""
    name = ""
    entry = None
    cur: Optional[Computation] = None
    seen_module = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        if cur is None:
            if line.startswith("HloModule"):
                if seen_module:
                    break  # only the first module of a multi-module text
                seen_module = True
                header = line
                name = line.split()[1].rstrip(",")
                continue
            m = COMP_RE.match(line)
            if m and not re.match(r"^\s*\d", line):
                cur = Computation(name=m.group(2), is_entry=bool(m.group(1)))
                comps[cur.name] = cur
                order.append(cur.name)
                if cur.is_entry:
                    entry = cur.name
            continue
        if re.match(r"^\s*\}", line):
            if cur.root is None and cur.instrs:
                cur.root = cur.instrs[-1]
            cur = None
            continue
        ins = parse_instr(line, cur.name)
        if ins is None:
            continue
        cur.instrs.append(ins)
        cur.by_name[ins.name] = ins
        if ins.is_root:
            cur.root = ins
    if entry is None and order:
        entry = order[-1]

    instr_index: Dict[str, Tuple[str, Instr]] = {}
    for c in comps.values():
        for ins in c.instrs:
            instr_index.setdefault(ins.name, (c.name, ins))

    callers: Dict[str, List[Tuple[str, Instr, str]]] = {}
    fusion_targets = set()
    for c in comps.values():
        for ins in c.instrs:
            for role in ("calls", "body", "condition", "to_apply", "true_computation",
                         "false_computation", "branch_computations", "called_computations",
                         "select", "scatter"):
                for callee in ins.called(role):
                    callers.setdefault(callee, []).append((c.name, ins, role))
                    if ins.opcode == "fusion" and role == "calls":
                        fusion_targets.add(callee)
    # nested fusions: computations called by fusions inside fused computations are fused too
    fused = set(fusion_targets)
    return Module(name=name, header=header, comps=comps, order=order, entry=entry,
                  instr_index=instr_index, fused=fused, callers=callers)


# ----------------------------------------------------------------------------- buffer assignment

VALUE_RE = re.compile(
    r"^\s*value: <(\d+) ([^ >{]+)(\{[0-9,]*\})?( \(phi\))?( @\d+)?> \(size=(\d+),offset=(\d+)\): (.*)$")
ALLOC_RE = re.compile(r"^allocation (\d+): size (\d+),?\s*(.*):$")


@dataclass
class Value:
    id: int
    name: str
    index: Tuple[int, ...]
    phi: bool
    allocation: int
    size: int
    offset: int
    shape: str


@dataclass
class BufferAssignment:
    allocations: Dict[int, dict]
    values: Dict[Tuple[str, Tuple[int, ...]], Value]


def parse_index(s: Optional[str]) -> Tuple[int, ...]:
    if not s:
        return ()
    inner = s.strip("{}")
    return tuple(int(x) for x in inner.split(",") if x.strip())


def parse_buffer_assignment(text: str) -> BufferAssignment:
    allocs: Dict[int, dict] = {}
    values: Dict[Tuple[str, Tuple[int, ...]], Value] = {}
    cur = None
    for line in text.splitlines():
        m = ALLOC_RE.match(line)
        if m:
            cur = int(m.group(1))
            allocs[cur] = {"index": cur, "size": int(m.group(2)), "attrs": m.group(3)}
            continue
        if cur is None:
            continue
        if line.startswith("Total bytes used") or line.startswith("Used values"):
            cur = None
            continue
        m = VALUE_RE.match(line)
        if m:
            key = (m.group(2), parse_index(m.group(3)))
            if key not in values:
                values[key] = Value(id=int(m.group(1)), name=m.group(2), index=key[1],
                                    phi=bool(m.group(4)), allocation=cur, size=int(m.group(6)),
                                    offset=int(m.group(7)), shape=m.group(8))
    return BufferAssignment(allocations=allocs, values=values)


# ----------------------------------------------------------------------------- analysis

def fmt_value(name: str, idx: Tuple[int, ...]) -> str:
    return name + ("{" + ",".join(map(str, idx)) + "}" if idx else "")


def enclosing_whiles(mod: Module, comp: str) -> List[str]:
    """While instructions whose body/condition (transitively) contains `comp`, innermost first."""
    out: List[str] = []
    seen = set()
    c = comp
    while c not in seen:
        seen.add(c)
        cs = mod.callers.get(c)
        if not cs:
            break
        caller_comp, ins, role = cs[0]
        if ins.opcode == "while" and role in ("body", "condition"):
            out.append(ins.name)
        c = caller_comp
    return out


def find_copies(mod: Module, include_layout_fusions: bool = False) -> List[dict]:
    """Copies per (a).  With include_layout_fusions=True instead: only fusions whose root (or a
    root tuple element) is copy(parameter) with a *different* layout (CPU `wrapped_copy`
    transposes) -- physical transposes that the brief's copy definition leaves out."""
    out = []
    for cname in mod.order:
        if cname in mod.fused:
            continue
        comp = mod.comps[cname]
        for ins in comp.instrs:
            if include_layout_fusions and ins.opcode != "fusion":
                continue
            if ins.opcode == "copy":
                src = comp.by_name.get(ins.operands[0]) if ins.operands else None
                src_shape = src.shape if src else None
                out.append({
                    "kind": "copy",
                    "instruction": ins.name,
                    "computation": cname,
                    "shape": ins.shape.text,
                    "bytes": ins.shape.byte_size(),
                    "operand": ins.operands[0] if ins.operands else None,
                    "operand_shape": src_shape.text if src_shape else None,
                    "layout_change": (src_shape is not None and not src_shape.is_tuple
                                      and src_shape.layout != ins.shape.layout),
                    "has_metadata": "metadata=" in ins.attrs,
                    "enclosing_whiles": enclosing_whiles(mod, cname),
                })
            elif ins.opcode == "copy-start":
                done = [d.name for d in comp.instrs
                        if d.opcode == "copy-done" and d.operands and d.operands[0] == ins.name]
                dest = ins.shape.subshape((0,)) if ins.shape.is_tuple else ins.shape
                out.append({
                    "kind": "copy-start",
                    "instruction": ins.name,
                    "copy_done": done[0] if done else None,
                    "computation": cname,
                    "shape": dest.text if dest else ins.shape.text,
                    "bytes": dest.byte_size() if dest else None,
                    "operand": ins.operands[0] if ins.operands else None,
                    "has_metadata": "metadata=" in ins.attrs,
                    "enclosing_whiles": enclosing_whiles(mod, cname),
                })
            elif ins.opcode == "fusion":
                callee = ins.called("calls")
                fc = mod.comps.get(callee[0]) if callee else None
                if fc is None or fc.root is None:
                    continue
                root = fc.root
                elems = ([(fc.by_name.get(o), (i,)) for i, o in enumerate(root.operands)]
                         if root.opcode == "tuple" else [(root, ())])
                for el, idx in elems:
                    if el is None or el.opcode != "copy":
                        continue
                    p = fc.by_name.get(el.operands[0])
                    if p is None or p.opcode != "parameter":
                        continue
                    same_layout = strip_comments(p.shape_text) == strip_comments(el.shape_text)
                    if not same_layout and not include_layout_fusions:
                        continue
                    if same_layout and include_layout_fusions:
                        continue
                    out.append({
                        "kind": "copy-fusion" if same_layout else "layout-copy-fusion",
                        "operand_shape": p.shape.text,
                        "layout_change": not same_layout,
                        "instruction": ins.name,
                        "fused_instruction": el.name,
                        "fused_computation": fc.name,
                        "output_index": list(idx),
                        "computation": cname,
                        "shape": el.shape.text,
                        "bytes": el.shape.byte_size(),
                        "operand": ins.operands[int(p.operand_text.strip())],
                        "has_metadata": "metadata=" in ins.attrs,
                        "enclosing_whiles": enclosing_whiles(mod, cname),
                    })
    return out


def _inplace_pairs_of(ins: Instr) -> List[Tuple[int, Tuple[int, ...]]]:
    """(operand number, output index) pairs of a top-level DUS / scatter."""
    if ins.opcode == "dynamic-update-slice":
        return [(0, ())]
    if ins.opcode == "scatter":
        n = (len(ins.operands) - 1) // 2
        return [(0, ())] if n == 1 else [(i, (i,)) for i in range(n)]
    return []


def _fusion_pairs(mod: Module, ins: Instr) -> List[dict]:
    """Discovered in-place pairs of a fusion (xla-reference 2.2) plus output_to_operand_aliasing."""
    pairs = []
    callee = ins.called("calls")
    fc = mod.comps.get(callee[0]) if callee else None
    if fc is not None and fc.root is not None:
        root = fc.root
        outs = ([(o, (i,)) for i, o in enumerate(root.operands)]
                if root.opcode == "tuple" else [(root.name, ())])
        for oname, out_idx in outs:
            node = fc.by_name.get(oname)
            while node is not None and node.opcode == "bitcast":
                node = fc.by_name.get(node.operands[0])
            if node is None or node.opcode not in ("dynamic-update-slice", "scatter"):
                continue
            for opno, sub in _inplace_pairs_of(node):
                if sub:  # multi-input scatter inside a fusion: not modelled
                    continue
                src = fc.by_name.get(node.operands[opno])
                while src is not None and src.opcode == "bitcast":
                    src = fc.by_name.get(src.operands[0])
                if src is not None and src.opcode == "parameter":
                    pairs.append({"operand_index": int(src.operand_text.strip()),
                                  "output_index": out_idx, "fused_root": node.name,
                                  "fused_root_opcode": node.opcode,
                                  "fused_computation": fc.name, "source": "discovered"})
    ota = ins.attr("output_to_operand_aliasing")
    if ota:
        for m in re.finditer(r"\{([0-9,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([0-9,\s]*)\}\s*\)", ota):
            out_idx = parse_index("{" + m.group(1) + "}")
            opno = int(m.group(2))
            if not any(p["operand_index"] == opno and p["output_index"] == out_idx for p in pairs):
                pairs.append({"operand_index": opno, "output_index": out_idx,
                              "fused_root": None, "fused_root_opcode": None,
                              "fused_computation": fc.name if fc else None,
                              "source": "output_to_operand_aliasing",
                              "operand_shape_index": list(parse_index("{" + m.group(3) + "}"))})
    return pairs


def resolve_value(mod: Module, ba: Optional[BufferAssignment], comp: str, name: str,
                  idx: Tuple[int, ...]) -> Tuple[Optional[Tuple[str, Tuple[int, ...]]], List[str]]:
    """Follow non-defining instructions to the value defining (name, idx).

    With a buffer assignment: returns ((name, idx) of the first value present in it, or None, path).
    With ba=None ("origin" mode): keeps going through while/conditional/call parameters and while
    results (to the while's init) and returns the first instruction that really produces data
    (parameter of the entry, copy, fusion, constant, ...).
    """
    path: List[str] = []
    for _ in range(1000):
        path.append(fmt_value(name, idx))
        if ba is not None and (name, idx) in ba.values:
            return (name, idx), path
        c = mod.comps.get(comp)
        ins = c.by_name.get(name) if c else None
        if ins is None:
            hit = mod.instr_index.get(name)
            if hit is None:
                return None, path
            comp, ins = hit
        op = ins.opcode
        if op in ("bitcast", "domain") and ins.operands:
            name = ins.operands[0]
        elif op in ("opt-barrier", "optimization-barrier") and ins.operands:
            name = ins.operands[0]
        elif op == "get-tuple-element":
            k = int(ins.attr("index"))
            name, idx = ins.operands[0], (k,) + idx
        elif op == "tuple" and idx:
            name, idx = ins.operands[idx[0]], idx[1:]
        elif op == "copy-done":
            name, idx = ins.operands[0], (0,) + idx
        elif op == "while":
            name = ins.operands[0]
        elif op == "call":
            callee = mod.comps.get(ins.called("to_apply")[0])
            if callee is None or callee.root is None:
                return None, path
            comp, name = callee.name, callee.root.name
        elif op == "parameter" and comp != mod.entry:
            cs = mod.callers.get(comp)
            if not cs:
                return None, path
            caller_comp, caller, role = cs[0]
            pno = int(ins.operand_text.strip())
            if caller.opcode == "while":
                comp, name = caller_comp, caller.operands[0]
            elif caller.opcode == "call":
                comp, name = caller_comp, caller.operands[pno]
            elif caller.opcode == "conditional":
                branches = (caller.called("branch_computations") or
                            caller.called("true_computation") + caller.called("false_computation"))
                comp, name = caller_comp, caller.operands[1 + branches.index(c.name)]
            else:
                return None, path
        else:
            return ((name, idx), path) if ba is None else (None, path)
    return None, path


def _value_info(ba: BufferAssignment, key) -> dict:
    if key is None or key not in ba.values:
        return {"value": fmt_value(*key) if key else None, "allocation": None, "offset": None,
                "size": None}
    v = ba.values[key]
    return {"value": fmt_value(v.name, v.index), "allocation": v.allocation, "offset": v.offset,
            "size": v.size}


def find_updates(mod: Module, ba: BufferAssignment) -> List[dict]:
    out = []
    for cname in mod.order:
        if cname in mod.fused:
            continue
        comp = mod.comps[cname]
        for ins in comp.instrs:
            if ins.opcode in ("dynamic-update-slice", "scatter"):
                pairs = [{"operand_index": o, "output_index": i, "fused_root": None,
                          "fused_root_opcode": ins.opcode, "fused_computation": None,
                          "source": "instruction"} for o, i in _inplace_pairs_of(ins)]
            elif ins.opcode == "fusion":
                pairs = _fusion_pairs(mod, ins)
            else:
                continue
            for p in pairs:
                opno, out_idx = p["operand_index"], tuple(p["output_index"])
                operand = ins.operands[opno]
                op_shape_index = tuple(p.get("operand_shape_index", ()))
                op_key, path = resolve_value(mod, ba, cname, operand, op_shape_index)
                res_key, _ = resolve_value(mod, ba, cname, ins.name, out_idx)
                oi, ri = _value_info(ba, op_key), _value_info(ba, res_key)
                same = None
                if oi["allocation"] is not None and ri["allocation"] is not None:
                    same = oi["allocation"] == ri["allocation"] and oi["offset"] == ri["offset"]
                definer = mod.instr_index.get(op_key[0])[1] if op_key and op_key[0] in mod.instr_index else None
                origin, origin_path = resolve_value(mod, None, cname, operand, op_shape_index)
                origin_ins = mod.instr_index.get(origin[0])[1] if origin and origin[0] in mod.instr_index else None
                shape = ins.shape.subshape(out_idx)
                out.append({
                    "instruction": ins.name,
                    "opcode": ins.opcode,
                    "computation": cname,
                    "fused_computation": p["fused_computation"],
                    "fused_root": p["fused_root"],
                    "update_opcode": p["fused_root_opcode"],
                    "pair_source": p["source"],
                    "operand_index": opno,
                    "output_index": list(out_idx),
                    "operand": operand,
                    "operand_value": oi["value"],
                    "operand_value_opcode": definer.opcode if definer else None,
                    "operand_path": path,
                    "operand_origin": fmt_value(*origin) if origin else None,
                    "operand_origin_opcode": origin_ins.opcode if origin_ins else None,
                    "operand_origin_path": origin_path,
                    "result_value": ri["value"],
                    "same_buffer": same,
                    "operand_allocation": oi["allocation"],
                    "operand_offset": oi["offset"],
                    "result_allocation": ri["allocation"],
                    "result_offset": ri["offset"],
                    "bytes": shape.byte_size() if shape else None,
                    "enclosing_whiles": enclosing_whiles(mod, cname),
                })
    return out


def _json_attr(ins: Instr, key: str) -> Optional[dict]:
    v = ins.attr(key)
    if v is None:
        return None
    v = v.strip()
    if v.startswith('"'):
        try:
            v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
        except Exception:
            return None
    try:
        return json.loads(v)
    except Exception:
        return None


def find_whiles(mod: Module) -> List[dict]:
    out = []
    for cname in mod.order:
        for ins in mod.comps[cname].instrs:
            if ins.opcode != "while":
                continue
            cfg = _json_attr(ins, "backend_config") or {}
            ktc = cfg.get("known_trip_count", {})
            n = ktc.get("n") if isinstance(ktc, dict) else None
            kiv = cfg.get("known_induction_variable") or {}
            kis = cfg.get("known_init_step") or {}
            out.append({
                "instruction": ins.name,
                "computation": cname,
                "body": (ins.called("body") or [None])[0],
                "condition": (ins.called("condition") or [None])[0],
                "known_trip_count": int(n) if n is not None else None,
                "induction_variable_index": (int(kiv["tuple_index"])
                                             if "tuple_index" in kiv else None),
                "init": int(kis["init"]) if "init" in kis else None,
                "step": int(kis["step"]) if "step" in kis else None,
                "enclosing_whiles": enclosing_whiles(mod, cname),
            })
    return out


def header_aliases(header: str) -> List[dict]:
    m = re.search(r"input_output_alias=\{(.*?)\}\s*(,\s*[a-z_]+=|$)", header)
    out = []
    if not m:
        return out
    for a in re.finditer(r"\{([0-9,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([0-9,\s]*)\}\s*(?:,\s*([a-z\-]+))?\s*\)",
                         m.group(1)):
        out.append({"output_index": list(parse_index("{" + a.group(1) + "}")),
                    "parameter": int(a.group(2)),
                    "parameter_index": list(parse_index("{" + a.group(3) + "}")),
                    "kind": a.group(4) or "may-alias"})
    return out


def annotate_copies(mod: Module, ba: BufferAssignment, copies: List[dict]) -> None:
    """Add source/destination slices: a copy whose source value and own value sit at the same
    allocation+offset moves data onto itself."""
    for c in copies:
        if c["kind"] == "copy":
            dst_key = (c["instruction"], ())
        elif c["kind"] == "copy-start":
            dst_key = (c["instruction"], (0,))
        else:
            dst_key = (c["instruction"], tuple(c["output_index"]))
        dst, _ = resolve_value(mod, ba, c["computation"], *dst_key)
        src, _ = (resolve_value(mod, ba, c["computation"], c["operand"], ())
                  if c.get("operand") else (None, []))
        di, si = _value_info(ba, dst), _value_info(ba, src)
        definer = mod.instr_index.get(src[0]) if src else None
        c["value"] = di["value"]
        c["allocation"], c["offset"] = di["allocation"], di["offset"]
        c["operand_value"] = si["value"]
        c["operand_value_opcode"] = definer[1].opcode if definer else None
        c["operand_allocation"], c["operand_offset"] = si["allocation"], si["offset"]
        c["same_slice_as_operand"] = (None if di["allocation"] is None or si["allocation"] is None
                                      else (di["allocation"], di["offset"]) ==
                                      (si["allocation"], si["offset"]))


def find_non_inplace_update_fusions(mod: Module) -> List[dict]:
    """Fusions that contain a DUS/scatter but have no in-place pair for it (xla-reference 2.7-2):
    the fusion writes its whole output into a fresh buffer."""
    out = []
    for cname in mod.order:
        if cname in mod.fused:
            continue
        for ins in mod.comps[cname].instrs:
            if ins.opcode != "fusion":
                continue
            callee = ins.called("calls")
            fc = mod.comps.get(callee[0]) if callee else None
            if fc is None:
                continue
            paired = {p["fused_root"] for p in _fusion_pairs(mod, ins)}
            for u in fc.instrs:
                if u.opcode not in ("dynamic-update-slice", "scatter") or u.name in paired:
                    continue
                src = fc.by_name.get(u.operands[0])
                while src is not None and src.opcode == "bitcast":
                    src = fc.by_name.get(src.operands[0])
                users = [x.name for x in fc.instrs if u.name in x.operands]
                if u is fc.root or (fc.root.opcode == "tuple" and u.name in fc.root.operands):
                    reason = f"operand 0 is {src.opcode if src else '?'} {src.name if src else ''}, not a fused parameter".strip()
                else:
                    reason = f"not a fusion output: used by {', '.join(users) or 'nothing'}"
                    if src is not None and src.opcode != "parameter":
                        reason += f"; operand 0 is {src.opcode} {src.name}"
                out.append({
                    "instruction": ins.name,
                    "computation": cname,
                    "fused_computation": fc.name,
                    "fused_update": u.name,
                    "update_opcode": u.opcode,
                    "reason": reason,
                    "output_shape": ins.shape.text,
                    "output_bytes": ins.shape.byte_size(),
                    "enclosing_whiles": enclosing_whiles(mod, cname),
                })
    return out


def analyze(hlo_text: str, ba_text: str) -> dict:
    mod = parse_module(hlo_text)
    ba = parse_buffer_assignment(ba_text)
    copies = find_copies(mod)
    annotate_copies(mod, ba, copies)
    layout_fusions = find_copies(mod, include_layout_fusions=True)
    annotate_copies(mod, ba, layout_fusions)
    return {
        "module": mod.name,
        "entry": mod.entry,
        "input_output_alias": header_aliases(mod.header),
        "copies": copies,
        "copy_count": len(copies),
        "copy_bytes": sum(c["bytes"] or 0 for c in copies),
        "layout_copy_fusions": layout_fusions,
        "updates": find_updates(mod, ba),
        "non_inplace_update_fusions": find_non_inplace_update_fusions(mod),
        "whiles": find_whiles(mod),
    }


# ----------------------------------------------------------------------------- CLI

def format_text(r: dict) -> str:
    lines = [f"module {r['module']} (entry {r['entry']})"]
    if r["input_output_alias"]:
        al = ", ".join(f"out{{{','.join(map(str, a['output_index']))}}} <- param {a['parameter']}"
                       f" ({a['kind']})" for a in r["input_output_alias"])
        lines.append(f"input_output_alias: {al}")
    lines.append(f"copies: {r['copy_count']} ({r['copy_bytes']} bytes per execution of their computations)")
    for c in r["copies"]:
        loops = f"  in loop {'/'.join(c['enclosing_whiles'])}" if c["enclosing_whiles"] else ""
        extra = " layout-change" if c.get("layout_change") else ""
        if c.get("same_slice_as_operand"):
            extra += " SAME-SLICE-AS-SOURCE"
        lines.append(f"  {c['kind']:11s} {c['instruction']:28s} {c['shape']:24s} {c['bytes']:>9} B"
                     f"  in {c['computation']}  of {c['operand']}{extra}{loops}")
    for c in r["layout_copy_fusions"]:
        loops = f"  in loop {'/'.join(c['enclosing_whiles'])}" if c["enclosing_whiles"] else ""
        lines.append(f"  (layout copy fusion, not counted) {c['instruction']} {c['operand_shape']} -> "
                     f"{c['shape']} {c['bytes']} B in {c['computation']}{loops}")
    lines.append(f"updates: {len(r['updates'])}")
    for u in r["updates"]:
        where = f" ({u['fused_root']} in {u['fused_computation']})" if u["fused_root"] else ""
        sb = {True: "SAME buffer", False: "DIFFERENT buffer", None: "unknown"}[u["same_buffer"]]
        lines.append(f"  {u['instruction']}{where} in {u['computation']}: operand {u['operand_index']} "
                     f"= {u['operand_value']} [{u['operand_value_opcode']}] "
                     f"(alloc {u['operand_allocation']} @{u['operand_offset']}) -> "
                     f"{u['result_value']} (alloc {u['result_allocation']} @{u['result_offset']}): {sb}")
        lines.append(f"      origin of operand: {u['operand_origin']} [{u['operand_origin_opcode']}]")
    if r["non_inplace_update_fusions"]:
        lines.append(f"update fusions without an in-place pair: {len(r['non_inplace_update_fusions'])}")
        for u in r["non_inplace_update_fusions"]:
            lines.append(f"  {u['instruction']} ({u['fused_update']} in {u['fused_computation']}) in "
                         f"{u['computation']}: {u['reason']}; writes {u['output_bytes']} B")
    lines.append(f"whiles: {len(r['whiles'])}")
    for w in r["whiles"]:
        lines.append(f"  {w['instruction']} in {w['computation']}: body={w['body']} "
                     f"known_trip_count={w['known_trip_count']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="copies / in-place updates / loops from XLA dump text")
    ap.add_argument("module", help="optimized HLO text (…after_optimizations.txt)")
    ap.add_argument("buffer_assignment", help="matching …-buffer-assignment.txt")
    ap.add_argument("--json", action="store_true", help="print JSON")
    opts = ap.parse_args(argv)
    with open(opts.module) as f:
        hlo = f.read()
    with open(opts.buffer_assignment) as f:
        ba = f.read()
    r = analyze(hlo, ba)
    if opts.json:
        json.dump(r, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        print(format_text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
