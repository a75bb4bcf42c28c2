"""The oracle's readers of XLA's text: shapes, HLO modules, buffer-assignment dumps.

Part of tools/ba_oracle.py (the independent oracle); regex/line level and, like
the oracle, sharing no code with hloscope.
"""

from __future__ import annotations

import math
import re
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
