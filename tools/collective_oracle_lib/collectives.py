"""The analysis: every collective of a module, its groups, bytes and executions.

What it lists
-------------
Every instruction whose opcode is all-gather, all-reduce, reduce-scatter, all-to-all,
ragged-all-to-all, collective-permute or collective-broadcast, their async forms
(all-gather-start/-done, all-reduce-start/-done, collective-permute-start/-done, and the
sugared reduce-scatter-start/-done, all-to-all-start/-done ...), and every generic
`async-start` whose called computation (``calls=``) contains one of them (the collective is
then reported at the async-start, with the wrapped instruction's attributes, and not again
inside the wrapped computation). Combined collectives (several operands, a tuple result)
are one entry; their bytes are summed over the operands. `-done` (and `async-done`)
instructions are listed with role "done" and 0 bytes: XLA's own models count a collective
once, at its start (gpu_collective_performance_model.cc: `*-done` costs 0).

Output: JSON (sorted keys) with the module's header facts, every collective (computation,
name, opcode, base opcode, role, result and operand shapes, groups as explicit device-id
lists, group size, group mode, bytes sent and received per device per execution,
executions per call, bytes per call), per-opcode totals and the loops.
"""

import re

from .groups import _groups_for
from .hlo_text import Module, shape_bytes, shape_str
from .traffic import _bytes, _element_types, _payload
from .trips import _callees, executions

COLLECTIVES = ("all-gather", "all-reduce", "reduce-scatter", "all-to-all", "ragged-all-to-all",
               "collective-permute", "collective-broadcast")


def _base_opcode(op):
    for c in sorted(COLLECTIVES, key=len, reverse=True):
        if op == c:
            return c, "sync"
        if op == c + "-start":
            return c, "start"
        if op == c + "-done":
            return c, "done"
        if op == c + "-update":
            return c, "update"
    return None, None


def analyze(text):
    mod = Module(text)
    counts, trips = executions(mod)
    # computations that are the body of a generic async-start wrapping a collective
    wrapped = {}
    for ins in mod.instrs.values():
        if ins.opcode == "async-start":
            for key, callee in _callees(ins):
                if key == "calls" and callee in mod.computations:
                    inner = [i for i in mod.computations[callee] if _base_opcode(i.opcode)[0]]
                    if inner:
                        wrapped[callee] = (ins, inner[0])
    async_starts = {w[0].name: w[1] for w in wrapped.values()}
    # TPU async collective fusions: one collective split into a start kernel (its computation
    # calls custom-call AsyncCollectiveStart), continuation kernels and a done kernel, each holding
    # a copy of the collective tagged frontend_attributes={chain_id="N"}. The data moves once: the
    # chain is counted at its start kernel, the other members are listed as role "chain" with 0
    # bytes (like -done).
    def _chain(ins):
        m = re.search(r'chain_id="([^"]*)"', ins.attrs.get("frontend_attributes", ""))
        return (m.group(1), ins.attrs.get("channel_id")) if m else None

    def _calls_target(comp, target):
        return any(i.opcode == "custom-call" and target in i.attrs.get("custom_call_target", "")
                   for i in mod.computations[comp])

    chain_starts = {}
    for comp in mod.order:
        if _calls_target(comp, "AsyncCollectiveStart"):
            for i in mod.computations[comp]:
                if _base_opcode(i.opcode)[0] and _chain(i):
                    chain_starts.setdefault(_chain(i), i.name)
    chains_counted = {}
    # async-done instructions whose start wraps a collective
    out = []
    for comp in mod.order:
        if comp in wrapped:
            continue
        for ins in mod.computations[comp]:
            inner = None
            if ins.opcode in ("async-start", "async-update", "async-done"):
                start = ins
                while start is not None and start.opcode != "async-start":
                    start = mod.instrs.get(start.operands[0].partition("#")[0]) if start.operands else None
                if start is None or start.name not in async_starts:
                    continue
                inner = async_starts[start.name]
                base = _base_opcode(inner.opcode)[0]
                role = {"async-start": "start", "async-update": "update", "async-done": "done"}[ins.opcode]
            else:
                base, role = _base_opcode(ins.opcode)
                if base is None:
                    continue
            attrs_src = inner or ins
            key = _chain(ins) if inner is None else None
            if key is not None:
                start_name = chain_starts.get(key) or chains_counted.setdefault(key, ins.name)
                if start_name != ins.name:
                    form, gtext, groups, mode = _groups_for(ins, mod, base)
                    entry = _entry(ins, comp, base, "chain", inner, form, gtext, groups, mode, counts)
                    entry.update({"result_shapes": [shape_str(ins.shape)], "operand_shapes": [],
                                  "bytes_sent_per_device": 0, "bytes_received_per_device": 0,
                                  "bytes_sent_per_call": 0, "bytes_received_per_call": 0,
                                  "counted_at": start_name})
                    out.append(entry)
                    continue
            if role in ("done", "update"):
                start = ins
                while start is not None and start.opcode.endswith(("-done", "-update")):
                    start = mod.instrs.get(start.operands[0].partition("#")[0]) if start.operands else None
                form, gtext, groups, mode = _groups_for(start if start is not None and inner is None
                                                        else attrs_src, mod, base)
                entry = _entry(ins, comp, base, role, inner, form, gtext, groups, mode, counts)
                entry.update({"result_shapes": [shape_str(ins.shape)], "operand_shapes": [],
                              "bytes_sent_per_device": 0, "bytes_received_per_device": 0,
                              "bytes_sent_per_call": 0, "bytes_received_per_call": 0,
                              "counted_at": start.name if start is not None else None})
                out.append(entry)
                continue
            form, gtext, groups, mode = _groups_for(attrs_src, mod, base)
            ops, res = _payload(ins, mod, base, role, inner)
            ob = sum(shape_bytes(s) or 0 for s in ops if s is not None)
            rb = sum(shape_bytes(s) or 0 for s in res if s is not None)
            if form == "source_target_pairs":
                g = len({d for p in groups for d in p})
                sent, recv, per = _bytes(base, ob, rb, g, groups)
            else:
                sizes = sorted({len(x) for x in groups})
                g = max(sizes) if sizes else 1
                if mode == "cross_replica_and_partition":
                    g *= mod.num_partitions
                sent, recv, per = _bytes(base, ob, rb, g)
            entry = _entry(ins, comp, base, role, inner, form, gtext, groups, mode, counts)
            execs = entry["executions_per_call"]
            entry.update({
                "operand_shapes": [shape_str(s) if s else None for s in ops],
                "result_shapes": [shape_str(s) for s in res],
                "operand_bytes": ob,
                "result_bytes": rb,
                "group_size": g,
                "bytes_sent_per_device": sent,
                "bytes_received_per_device": recv,
                "bytes_sent_per_call": None if execs is None or sent is None else sent * execs,
                "bytes_received_per_call": None if execs is None or recv is None else recv * execs,
            })
            if per is not None:
                entry["per_device"] = per
            if _element_types(ops) != _element_types(res) and None not in ops:
                entry["element_type_changes"] = True
            if base == "ragged-all-to-all":
                entry["data_dependent"] = True
            for k in ("dimensions", "channel_id", "use_global_device_ids", "to_apply", "constrain_layout"):
                if k in attrs_src.attrs:
                    entry[k] = attrs_src.attrs[k]
            out.append(entry)

    totals = {}
    for e in out:
        t = totals.setdefault(e["base_opcode"], {"count": 0, "bytes_sent_per_call": 0,
                                                "bytes_received_per_call": 0, "unknown_executions": 0})
        if e["role"] in ("done", "update", "chain"):
            continue
        t["count"] += 1
        if e["bytes_sent_per_call"] is None:
            t["unknown_executions"] += 1
        else:
            t["bytes_sent_per_call"] += e["bytes_sent_per_call"]
            t["bytes_received_per_call"] += e["bytes_received_per_call"]
    loops = [{"while": w, "computation": mod.instrs[w].computation, "trip_count": t,
              "trip_count_source": mod.trip_sources.get(w),
              "executions_per_call": counts.get(mod.instrs[w].computation, (None,))[0]}
             for w, t in sorted(trips.items())]
    return {
        "oracle": "tools/collective_oracle.py",
        "module": mod.name,
        "replica_count": mod.replica_count,
        "num_partitions": mod.num_partitions,
        "entry": mod.entry,
        "collectives": out,
        "totals": totals,
        "loops": loops,
    }


def _entry(ins, comp, base, role, inner, form, gtext, groups, mode, counts):
    execs, exact, loops = counts.get(comp, (None, False, []))
    e = {
        "computation": comp,
        "name": ins.name,
        "opcode": ins.opcode,
        "base_opcode": base,
        "role": role,
        "replica_groups_form": form,
        "replica_groups_text": gtext,
        "groups": [list(p) for p in groups],
        "group_mode": mode,
        "executions_per_call": execs,
        "executions_exact": exact and execs is not None,
        "enclosing_loops": loops,
    }
    if inner is not None:
        e["wrapped"] = {"computation": inner.computation, "name": inner.name, "opcode": inner.opcode}
    return e
