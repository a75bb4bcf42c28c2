"""Bytes per device per execution (the convention; logical bytes)
-------------------------------------------------------------
Shapes in optimized SPMD HLO are per device. B(x) = elements x element size of a shape
(no tile padding: what crosses the wire is the data, not the TPU tile layout; pred/s8/u8/f8
1, bf16/f16/s16/u16 2, f32/s32/u32 4, f64/s64/u64/c64 8, c128 16, s4/u4 1/2; tuples sum;
dynamic dimensions ``<=N`` at their bound). G = group size. "Ring-free" accounting: what a
device must receive from (and send to) its peers, whatever the algorithm:

Bytes sent are counted in the operand's element type, bytes received in the result's (the
same unless XLA moved a convert into the collective: TPU all-reduces f32 partial sums as bf16
in these fixtures, marked "element_type_changes": true). B = operand bytes, R = result bytes:

* all-gather: B -> R = G*B. received = result - own block = (G-1)/G * R (= (G-1)*B);
  sent = (G-1)*B (its block goes to each of the G-1 peers; a ring forwards G-1 blocks of B:
  the same volume).
* reduce-scatter: B -> R = B/G. received = (G-1)*R (the G-1 peers' contributions to its
  block); sent = (G-1)/G * B (its contributions to theirs).
* all-reduce: B -> R = B, as reduce-scatter + all-gather: sent = 2*(G-1)/G * B, received =
  2*(G-1)/G * R (the ring / two-phase figure of sol_gpu_cost_model.cc `NumRounds` = 2 and
  xla-reference-2.md §8.3).
* all-to-all: B -> R = B, the operand split in G chunks, one kept: sent = (G-1)/G * B,
  received = (G-1)/G * R. The tuple form (G operands, no dimensions=) is the same on the
  total.
* collective-permute: per (source, target) pair the source sends B and the target receives
  R; a device that is no target receives nothing (XLA zero-fills its result); a pair (i,i)
  moves no bytes over the wire. Reported: the largest per-device figure, and every device's.
* collective-broadcast: the first id of each group is the root (**unconfirmed**: XLA's
  collective_broadcast semantics, root = first replica in the group): it sends B to G-1
  peers; the others receive B. Reported: sent = (G-1)*B (root), received = B.
* ragged-all-to-all: data dependent (the send sizes are runtime values): reported as upper
  bounds, sent <= B(input), received <= B(output), with "data_dependent": true.
* G = 1: 0 bytes.
"""


def _bytes(base, operand_bytes, result_bytes, g, pairs=None):
    """(sent, received, per-device {id: [sent, received]} or None) per execution."""
    if base == "collective-permute":
        per = {}
        for s, t in pairs:
            if s == t:
                continue
            per.setdefault(s, [0, 0])[0] += operand_bytes
            per.setdefault(t, [0, 0])[1] += result_bytes
        sent = max((v[0] for v in per.values()), default=0)
        recv = max((v[1] for v in per.values()), default=0)
        return sent, recv, {str(k): v for k, v in sorted(per.items())}
    if g <= 1:
        return 0, 0, None
    # sent: in the operand's element type; received: in the result's (they differ where XLA
    # moved a convert into the collective, e.g. TPU's f32 -> bf16 all-reduce).
    if base == "all-gather":
        return (g - 1) * operand_bytes, result_bytes * (g - 1) // g, None
    if base == "reduce-scatter":
        return operand_bytes * (g - 1) // g, (g - 1) * result_bytes, None
    if base == "all-to-all":
        return operand_bytes * (g - 1) // g, result_bytes * (g - 1) // g, None
    if base == "all-reduce":
        return 2 * operand_bytes * (g - 1) // g, 2 * result_bytes * (g - 1) // g, None
    if base == "collective-broadcast":
        return (g - 1) * operand_bytes, operand_bytes, None
    if base == "ragged-all-to-all":
        return operand_bytes, result_bytes, None
    return None, None, None


def _payload(ins, mod, base, role, inner=None):
    """(operand shapes, result shapes) of the data the collective moves."""
    src = inner or ins
    if base == "ragged-all-to-all":
        ops = [mod.operand_shape(o) for o in ins.operands[:1]]
        res = [src.shape]
        return ops, res
    ops = [mod.operand_shape(o) for o in ins.operands]
    if base == "collective-permute" and len(ops) == 4 and "slice_sizes" in src.attrs:
        ops = ops[:1]   # in-place form: (input, output, input_start, output_start)
    shape = src.shape
    if role == "start" and inner is None:
        # all-gather-start: (operand(s), result(s)); collective-permute-start: (in, out, ctx...);
        # all-reduce-start: the result itself; sugared reduce-scatter-start: ((ops), result).
        if base == "all-reduce":
            res = [shape]
        elif shape[0] == "tuple" and len(shape[1]) >= 2:
            res = [shape[1][1]]
        else:
            res = [shape]
    else:
        res = [shape]
    flat = []
    for r in res:
        if r[0] == "tuple" and base in ("all-gather", "all-reduce", "reduce-scatter", "all-to-all"):
            flat.extend(r[1])
        else:
            flat.append(r)
    return ops, flat


def _element_types(shapes):
    out = set()
    for sh in shapes:
        if sh is None:
            continue
        if sh[0] == "tuple":
            out |= _element_types(sh[1])
        else:
            out.add(sh[1])
    return out
