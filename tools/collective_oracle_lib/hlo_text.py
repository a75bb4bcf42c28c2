"""Lexing the text of an optimized HLO module: the header (name, replica_count,
num_partitions), computations, instructions (shape, opcode, operands, attributes) and shapes
with their byte sizes. Text based, standard library only; it shares no code with hloscope's
C++ parser.

Byte sizes (logical bytes): B(x) = elements x element size of a shape (no tile padding: what
crosses the wire is the data, not the TPU tile layout; pred/s8/u8/f8 1, bf16/f16/s16/u16 2,
f32/s32/u32 4, f64/s64/u64/c64 8, c128 16, s4/u4 1/2; tuples sum; dynamic dimensions ``<=N``
at their bound).
"""

import math
import re

ELEMENT_BYTES = {
    "pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "s32": 4, "u32": 4, "s64": 8, "u64": 8,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16, "s4": 0.5, "u4": 0.5,
    "s2": 0.25, "u2": 0.25, "s1": 0.125, "u1": 0.125, "token": 0, "opaque": 0,
}


def _elem_bytes(dtype):
    if dtype in ELEMENT_BYTES:
        return ELEMENT_BYTES[dtype]
    if dtype.startswith("f8") or dtype.startswith("f4") or dtype.startswith("f6"):
        return {"f8": 1, "f6": 0.75, "f4": 0.5}[dtype[:2]]
    return None


# ---------------------------------------------------------------------------- text scanning

_CLOSE = {"(": ")", "[": "]", "{": "}"}


def _balanced(s, i):
    """Index just past the bracket group that opens at s[i]; strings in quotes are skipped."""
    stack = [_CLOSE[s[i]]]
    j = i + 1
    while j < len(s) and stack:
        c = s[j]
        if c == '"':
            j += 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
        elif c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c == stack[-1]:
            stack.pop()
        j += 1
    return j


def _split_top(s, sep=","):
    """Split on `sep` outside brackets and quotes."""
    parts, depth, start, j = [], 0, 0, 0
    while j < len(s):
        c = s[j]
        if c == '"':
            j += 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(s[start:j])
            start = j + 1
        j += 1
    parts.append(s[start:])
    return [p.strip() for p in parts if p.strip()]


_ARRAY_RE = re.compile(r"^([a-z][a-z0-9]*)\[([^\]]*)\]")


def parse_shape(text):
    """A shape text -> nested structure: ("array", dtype, dims) or ("tuple", [elements])."""
    text = re.sub(r"/\*.*?\*/", "", text).strip()
    if text.startswith("("):
        end = _balanced(text, 0)
        return ("tuple", [parse_shape(e) for e in _split_top(text[1:end - 1])])
    m = _ARRAY_RE.match(text)
    if m:
        dims = []
        for d in m.group(2).split(","):
            d = d.strip()
            if d:
                dims.append(int(d.lstrip("<=").lstrip("?") or 0))
        return ("array", m.group(1), dims)
    tok = re.match(r"^[a-z][a-z0-9]*", text)
    return ("array", tok.group(0) if tok else text, [])   # token[], scalar without brackets


def shape_bytes(shape):
    if shape[0] == "tuple":
        total = 0
        for e in shape[1]:
            b = shape_bytes(e)
            if b is None:
                return None
            total += b
        return total
    eb = _elem_bytes(shape[1])
    if eb is None:
        return None
    return int(math.ceil(eb * math.prod(shape[2]) if shape[2] else eb))


def shape_str(shape):
    if shape[0] == "tuple":
        return "(" + ", ".join(shape_str(e) for e in shape[1]) + ")"
    return f"{shape[1]}[{','.join(str(d) for d in shape[2])}]"


_INSTR_RE = re.compile(r"^\s+(ROOT\s+)?%?([^\s=]+)\s*=\s*(.*)$")
_COMP_RE = re.compile(r"^(ENTRY\s+)?%?([^\s(]+)\s*(\(.*)?\{\s*$")


class Instr:
    __slots__ = ("name", "shape_text", "shape", "opcode", "operands", "attrs_text", "attrs",
                 "computation", "is_root", "line")


def _parse_instruction(rest):
    """'SHAPE opcode(operands), attrs' -> (shape_text, opcode, operand list, attrs text)."""
    rest = rest.strip()
    if rest.startswith("("):
        end = _balanced(rest, 0)
    else:
        m = re.match(r"^\S+", rest)
        if m is None:
            return None
        end = m.end()
    shape_text = rest[:end]
    tail = rest[end:].lstrip()
    m = re.match(r"^([a-z][a-z0-9\-_.]*)\(", tail)
    if not m:
        return None
    opcode = m.group(1)
    op_start = m.end() - 1
    op_end = _balanced(tail, op_start)
    operands = []
    for o in _split_top(tail[op_start + 1:op_end - 1]):
        names = re.findall(r"%([^\s,)]+)", o)
        if names:
            operands.append(names[-1])
        else:
            toks = o.split()
            operands.append(toks[-1] if toks else o)
    attrs_text = tail[op_end:].lstrip(", ").strip()
    return shape_text, opcode, operands, attrs_text


def _attr_map(attrs_text):
    """key -> value text. `replica_groups` values in the mesh form contain a top-level
    ', device_ids=(...)' and a ' {axes}' tail: they are re-joined here."""
    out = {}
    parts = _split_top(attrs_text)
    i = 0
    while i < len(parts):
        p = parts[i]
        k, _, v = p.partition("=")
        k = k.strip()
        v = v.strip()
        if k == "replica_groups" and v.startswith(("mesh[", "maximal_mesh[")) and \
                i + 1 < len(parts) and parts[i + 1].startswith("device_ids="):
            v = v + ", " + parts[i + 1]
            i += 1
        out[k] = v
        i += 1
    return out


def _logical_lines(text):
    """Lines, with an instruction continued on indented lines (hand-written HLO) joined."""
    out = []
    for line in text.splitlines():
        if (out and line[:1].isspace() and line.strip() and not _INSTR_RE.match(line)
                and _INSTR_RE.match(out[-1]) and not line.strip().startswith(("//", "}"))):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return out


class Module:
    def __init__(self, text):
        self.name = None
        self.replica_count = 1
        self.num_partitions = 1
        self.computations = {}      # name -> [Instr]
        self.order = []
        self.entry = None
        self.instrs = {}            # name -> Instr (XLA names are unique in a module)
        comp = None
        for line in _logical_lines(text):
            if line.startswith("HloModule "):
                m = re.match(r"HloModule\s+([^\s,]+)", line)
                self.name = m.group(1) if m else None
                m = re.search(r"\breplica_count=(\d+)", line)
                if m:
                    self.replica_count = int(m.group(1))
                m = re.search(r"\bnum_partitions=(\d+)", line)
                if m:
                    self.num_partitions = int(m.group(1))
                continue
            if not line.strip() or line.lstrip().startswith("//"):
                continue
            if not line[0].isspace():
                if line.startswith("}"):
                    comp = None
                    continue
                m = _COMP_RE.match(line)
                if m:
                    comp = m.group(2)
                    self.computations[comp] = []
                    self.order.append(comp)
                    if m.group(1):
                        self.entry = comp
                continue
            if comp is None:
                continue
            m = _INSTR_RE.match(line)
            if not m:
                continue
            parsed = _parse_instruction(m.group(3))
            if parsed is None:
                continue
            ins = Instr()
            ins.name = m.group(2)
            ins.is_root = bool(m.group(1))
            ins.shape_text, ins.opcode, ins.operands, ins.attrs_text = parsed
            ins.shape = parse_shape(ins.shape_text)
            ins.attrs = _attr_map(ins.attrs_text)
            ins.computation = comp
            ins.line = line.strip()
            self.computations[comp].append(ins)
            self.instrs[ins.name] = ins
        if self.entry is None and self.order:
            self.entry = self.order[-1]

    def operand_shape(self, operand):
        """Shape of an operand name; 'x#2' (newest XLA's tuple-element shorthand) is element 2."""
        name, _, idx = operand.partition("#")
        ins = self.instrs.get(name)
        if ins is None:
            return None
        shape = ins.shape
        if idx:
            for k in idx.split("#"):
                if shape[0] != "tuple" or int(k) >= len(shape[1]):
                    return None
                shape = shape[1][int(k)]
        return shape
