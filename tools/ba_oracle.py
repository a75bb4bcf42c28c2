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
import os
import re
import sys
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ba_oracle_parse import (  # noqa: E402,F401  (the readers: shapes, HLO, buffer assignment)
    BufferAssignment,
    Instr,
    Module,
    parse_buffer_assignment,
    parse_index,
    parse_module,
    parse_shape,
    strip_comments,
)

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
        # The bytes a copy moves are its destination buffer's size as XLA assigned
        # it (TPU's tiled layouts pad: f32[100]{0:T(128)} is 512 B); the shape's
        # own arithmetic only where the dump does not list the value.
        c["shape_bytes"] = c["bytes"]
        if di["size"] is not None:
            c["bytes"] = di["size"]
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
