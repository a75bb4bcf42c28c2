"""Executions per call
-------------------
The product of the enclosing while loops' trip counts, from
``backend_config={"known_trip_count":{"n":"N"}}`` on each `while` (XLA's WhileLoopTripCount
annotation; xla-reference.md §4), found by walking call sites from ENTRY: a while's body runs
N times per execution of the while, its condition N+1 times; `call`, `fusion`, `async-start`
(`calls=`), `custom-call` (`called_computations=`) run their computation once; each
`conditional` branch is counted as if taken (an upper bound: "executions_exact": false). A
computation called from several sites adds them up. A while without known_trip_count (TPU
loops carry none) gets the count of XLA's simple pattern (ComputeWhileLoopTripCount in
xla/service/while_loop_analysis.cc): the condition's root compares tuple element k of its
parameter with a constant (LT/LE, either side; looking through copies and a loop fusion that
wraps the compare), element k starts at a constant and the body adds a constant step:
trip = ceil((limit - start) / step) for LT. "trip_count_source" says which ("known_trip_count"
or "condition"); on every fixture whose loops carry known_trip_count the two agree (105 loops).
A loop of neither kind makes the count unknown (null) for everything inside it.
"""

import re

_CALLS_RE = re.compile(r"\b(body|condition|to_apply|calls|true_computation|false_computation|"
                       r"branch_computations|called_computations|scatter|select)=(\{[^}]*\}|%?[\w.\-]+)")
_TRIP_RE = re.compile(r'"known_trip_count":\{"n":"(\d+)"\}')


def _callees(ins):
    """(callee, multiplier kind) for the computations an instruction runs."""
    out = []
    for key, val in _CALLS_RE.findall(ins.attrs_text):
        names = [v.strip().lstrip("%") for v in val.strip("{}").split(",") if v.strip()]
        for n in names:
            out.append((key, n))
    return out


def _const_value(mod, operand, depth=0):
    """The integer value of a scalar constant operand, looking through copy/bitcast/convert."""
    name = operand.partition("#")[0]
    ins = mod.instrs.get(name)
    if ins is None or depth > 8:
        return None
    if ins.opcode == "constant":
        # constant(8): the literal is what _parse_instruction read as the only operand
        lit = ins.operands[0] if len(ins.operands) == 1 else ""
        return int(lit) if re.fullmatch(r"-?\d+", lit) else None
    if ins.opcode in ("copy", "bitcast", "convert", "copy-done") and ins.operands:
        return _const_value(mod, ins.operands[0], depth + 1)
    if ins.opcode == "copy-start" and ins.operands:
        return _const_value(mod, ins.operands[0], depth + 1)
    return None


def _tuple_index(mod, operand):
    """(tuple name, index) for get-tuple-element(x), index=k or newest XLA's x#k; else None."""
    name, _, idx = operand.partition("#")
    if idx and idx.isdigit():
        return name, int(idx)
    ins = mod.instrs.get(name)
    for _ in range(8):   # through copies (TPU copies the counter before incrementing it)
        if ins is None or ins.opcode not in ("copy", "bitcast") or not ins.operands:
            break
        if "#" in ins.operands[0]:
            return _tuple_index(mod, ins.operands[0])
        ins = mod.instrs.get(ins.operands[0])
    if ins is not None and ins.opcode == "get-tuple-element" and "index" in ins.attrs:
        return ins.operands[0].partition("#")[0], int(ins.attrs["index"])
    return None


def _look_through_fusion(mod, ins):
    """(opcode, attrs, operands) of `ins`, or of the single compare/add a loop fusion wraps
    (XLA:CPU wraps the loop's compare and increment: %wrapped_compare = fusion(i, c))."""
    if ins.opcode != "fusion":
        return ins.opcode, ins.attrs, ins.operands
    comp = ins.attrs.get("calls", "").lstrip("%")
    root = next((i for i in mod.computations.get(comp, []) if i.is_root), None)
    if root is None:
        return ins.opcode, ins.attrs, ins.operands
    mapped = []
    for o in root.operands:
        p = mod.instrs.get(o)
        if p is None or p.opcode != "parameter" or p.computation != comp:
            return ins.opcode, ins.attrs, ins.operands
        k = int(p.operands[0]) if p.operands and p.operands[0].isdigit() else -1
        if not 0 <= k < len(ins.operands):
            return ins.opcode, ins.attrs, ins.operands
        mapped.append(ins.operands[k])
    return root.opcode, root.attrs, mapped


def infer_trip_count(mod, w):
    """A while without known_trip_count: XLA's simple pattern (ComputeWhileLoopTripCount,
    xla/service/while_loop_analysis.cc): the condition's root compares tuple element k of
    its parameter with a constant, element k starts at a constant and the body adds a
    constant step to it. None where the loop is not of that shape."""
    cond = w.attrs.get("condition", "").lstrip("%")
    body = w.attrs.get("body", "").lstrip("%")
    if cond not in mod.computations or body not in mod.computations or not w.operands:
        return None
    root = next((i for i in mod.computations[cond] if i.is_root), None)
    if root is None:
        return None
    opcode, rattrs, rops = _look_through_fusion(mod, root)
    if opcode != "compare" or len(rops) != 2:
        return None
    direction = rattrs.get("direction")
    a, b = rops
    ta, tb = _tuple_index(mod, a), _tuple_index(mod, b)
    if ta is not None and _const_value(mod, b) is not None:
        k, limit = ta[1], _const_value(mod, b)
    elif tb is not None and _const_value(mod, a) is not None:
        k, limit = tb[1], _const_value(mod, a)
        direction = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE"}.get(direction, direction)
    else:
        return None
    init = mod.instrs.get(w.operands[0].partition("#")[0])
    if init is None or init.opcode != "tuple" or k >= len(init.operands):
        return None
    start = _const_value(mod, init.operands[k])
    broot = next((i for i in mod.computations[body] if i.is_root), None)
    if start is None or broot is None or broot.opcode != "tuple" or k >= len(broot.operands):
        return None
    upd = mod.instrs.get(broot.operands[k].partition("#")[0])
    for _ in range(8):
        if upd is None or upd.opcode not in ("copy", "bitcast") or not upd.operands:
            break
        upd = mod.instrs.get(upd.operands[0].partition("#")[0])
    if upd is None:
        return None
    uop, _, uops = _look_through_fusion(mod, upd)
    if uop != "add" or len(uops) != 2:
        return None
    step = None
    for x, y in ((uops[0], uops[1]), (uops[1], uops[0])):
        t = _tuple_index(mod, x)
        if t is not None and t[1] == k and _const_value(mod, y) is not None:
            step = _const_value(mod, y)
    if not step or step <= 0:
        return None
    if direction == "LT":
        return max(0, -(-(limit - start) // step))
    if direction == "LE":
        return max(0, (limit - start) // step + 1)
    return None


def executions(mod):
    """computation -> (executions per call or None, exact, [enclosing (while, trip)])."""
    trips, sources = {}, {}
    for ins in mod.instrs.values():
        if ins.opcode == "while":
            m = _TRIP_RE.search(ins.attrs_text)
            if m:
                trips[ins.name], sources[ins.name] = int(m.group(1)), "known_trip_count"
            else:
                t = infer_trip_count(mod, ins)
                trips[ins.name] = t
                sources[ins.name] = "condition" if t is not None else None
    mod.trip_sources = sources
    # callers: callee -> [(caller comp, factor, exact, loop)]
    callers = {}
    for comp, instrs in mod.computations.items():
        for ins in instrs:
            for key, callee in _callees(ins):
                if key in ("to_apply", "scatter", "select") and ins.opcode not in ("call",):
                    continue  # reducers/comparators: applied per element, no collectives inside
                if ins.opcode == "while":
                    t = trips.get(ins.name)
                    factor = None if t is None else (t if key == "body" else t + 1)
                    callers.setdefault(callee, []).append((comp, factor, True, (ins.name, t)))
                elif ins.opcode == "conditional":
                    callers.setdefault(callee, []).append((comp, 1, False, None))
                else:
                    callers.setdefault(callee, []).append((comp, 1, True, None))
    memo = {}

    def visit(comp, depth=0):
        if comp in memo:
            return memo[comp]
        if comp == mod.entry:
            memo[comp] = (1, True, [])
            return memo[comp]
        if depth > 200 or comp not in callers:
            memo[comp] = (0, True, []) if comp not in callers else (None, False, [])
            return memo[comp]
        memo[comp] = (None, False, [])   # cycle guard
        total, exact, loops = 0, True, []
        for caller, factor, ex, loop in callers[comp]:
            c, cex, cloops = visit(caller, depth + 1)
            if c is None or factor is None or total is None:
                total = None
            else:
                total += c * factor
            exact = exact and ex and cex
            this = cloops + ([{"while": loop[0], "trip_count": loop[1]}] if loop else [])
            if not loops:
                loops = this
        memo[comp] = (total, exact, loops)
        return memo[comp]

    return {c: visit(c) for c in mod.computations}, trips
