"""Which devices a collective runs between.

Replica groups (the `replica_groups=` attribute, as printed by XLA)
-----------------------------------------------------------------
* explicit ``{{0,1},{2,3}}`` — ReplicaGroupsToString (xla/hlo/ir/replica_group.cc): one
  ``{ids}`` per group; ``{}`` is one group of every participant;
* iota ``[G,S]<=[N]`` and ``[G,S]<=[d0,d1,...]T(p0,p1,...)`` — IotaReplicaGroupList::Print ->
  IotaTileAssignment::Print (xla/hlo/ir/tile_assignment.cc): the device array is
  iota(prod(reshape_dims)) reshaped to reshape_dims, transposed by perm (printed only when
  there is more than one reshape dim), reshaped to [G,S]: row g is group g
  (IotaTileAssignment::value_at);
* mesh axes ``mesh['a'=2,'b'=4] {'b'}``, ``mesh[a=2,b=4], device_ids=(...) {a}``, sub-axes
  ``{'a':(1)2}`` — MeshAxesReplicaGroupList::ToString, Mesh::ToString, AxisRef::ToString
  (xla/hlo/ir/replica_group.cc, xla/hlo/ir/mesh_and_axis.cc). The mesh's device array is iota
  unless ``device_ids=(...)`` gives it (an explicit list, or an iota ``[dims]T(perm)``
  (IotaTileAssignment::PrintArray)); each axis with sub-axes is split into
  [pre, size, rest] factors; the grouped axes are moved last (in the order listed) and the
  array is cut into groups of their product
  (MeshAxesReplicaGroupList::flattened_replica_groups / get_replica_groups_for_full_axes);
* ``source_target_pairs={{0,1},{1,2}}`` for collective-permute —
  HloCollectivePermuteInstruction::PrintExtraAttributesImpl (xla/hlo/ir/hlo_instructions.cc).

Which ids these are follows GetCollectiveOpGroupMode (xla/service/collective_ops_utils.cc,
summarised in shared docs xla-reference-2.md §8.2): no channel_id -> cross-replica (replica
ids); channel_id -> cross-partition (partition ids); channel_id and use_global_device_ids=true
-> flattened ids (replica * num_partitions + partition); channel_id with
use_global_device_ids=false -> cross-replica-and-partition (each group spans every
partition). A JAX SPMD program has replica_count=1, so the ids are the positions 0..N-1 of
the executable's devices. With ``{}`` the group is every replica (cross-replica), every
partition (cross-partition) or every device (flattened).
"""

import math
import re

from .hlo_text import _split_top


def _ints(s):
    return [int(x) for x in re.findall(r"-?\d+", s)]


def _iota_array(dims, reshape, perm):
    """IotaTileAssignment: iota(prod(reshape)) reshaped to `reshape`, transposed by `perm`,
    flattened (then read as `dims`, row-major)."""
    total = math.prod(reshape)
    tdims = [reshape[p] for p in perm]
    out = []
    for lin in range(total):
        # index in the transposed array
        idx, r = [], lin
        for d in reversed(tdims):
            idx.append(r % d)
            r //= d
        idx.reverse()
        src = [0] * len(reshape)
        for k, p in enumerate(perm):
            src[p] = idx[k]
        v = 0
        for k, d in enumerate(reshape):
            v = v * d + src[k]
        out.append(v)
    if math.prod(dims) != total:
        raise ValueError(f"iota dims {dims} do not hold {total} devices")
    return out


def parse_iota(text):
    """'[G,S]<=[N]' or '[G,S]<=[a,b]T(1,0)' -> list of groups."""
    m = re.match(r"^\[([\d,\s]*)\]<=\[([\d,\s]*)\](?:T\(([\d,\s]*)\))?$", text.strip())
    if not m:
        raise ValueError(f"not an iota list: {text!r}")
    dims, reshape = _ints(m.group(1)), _ints(m.group(2))
    perm = _ints(m.group(3)) if m.group(3) else list(range(len(reshape)))
    flat = _iota_array(dims, reshape, perm)
    size = dims[-1] if dims else 1
    return [flat[i:i + size] for i in range(0, len(flat), size)]


def parse_explicit(text):
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"not a group list: {text!r}")
    inner = text[1:-1].strip()
    if not inner:
        return []
    return [_ints(g) for g in re.findall(r"\{([^{}]*)\}", inner)]


def parse_mesh_groups(text):
    """MeshAxesReplicaGroupList text -> groups (see the module docstring)."""
    m = re.match(r"^(?:mesh)\[([^\]]*)\](?:,\s*device_ids=\((.*)\))?\s*\{(.*)\}\s*$", text.strip())
    if not m:
        m2 = re.match(r"^maximal_mesh\[device_id=(\d+)\]", text.strip())
        if m2:
            return [[int(m2.group(1))]]
        raise ValueError(f"not a mesh replica-group list: {text!r}")
    names, sizes = [], []
    for ax in _split_top(m.group(1)):
        k, _, v = ax.rpartition("=")
        names.append(k.strip().strip("'\""))
        sizes.append(int(v))
    total = math.prod(sizes)
    if m.group(2):
        da = m.group(2).strip()
        if da.startswith("["):
            im = re.match(r"^\[([\d,\s]*)\](?:T\(([\d,\s]*)\))?$", da)
            reshape = _ints(im.group(1))
            perm = _ints(im.group(2)) if im.group(2) else list(range(len(reshape)))
            devices = _iota_array([total], reshape, perm)
        else:
            devices = _ints(da)
    else:
        devices = list(range(total))
    # axes: name or name:(pre)size
    axes = []
    for a in _split_top(m.group(3)):
        am = re.match(r"^['\"]?([^'\":]+)['\"]?(?::\((\d+)\)(\d+))?$", a.strip())
        if not am:
            raise ValueError(f"bad mesh axis {a!r}")
        nm = am.group(1)
        idx = names.index(nm) if nm in names else int(nm)
        axes.append((idx, (int(am.group(2)), int(am.group(3))) if am.group(2) else None))
    # Split each referenced mesh dim into factors (major to minor), note which factor each axis is.
    factor_dims, factor_of_axis = [], {}
    for d, size in enumerate(sizes):
        refs = [(k, sub) for k, (ai, sub) in enumerate(axes) if ai == d]
        if not refs:
            factor_dims.append(size)
            continue
        if len(refs) == 1 and refs[0][1] is None:
            factor_of_axis[refs[0][0]] = len(factor_dims)
            factor_dims.append(size)
            continue
        prefix = 1
        for k, (pre, sz) in sorted(((k, sub) for k, sub in refs), key=lambda r: r[1][0]):
            if pre != prefix:
                factor_dims.append(pre // prefix)
                prefix = pre
            factor_of_axis[k] = len(factor_dims)
            factor_dims.append(sz)
            prefix *= sz
        if prefix != size:
            factor_dims.append(size // prefix)
    grouped = [factor_of_axis[k] for k in range(len(axes))]
    perm = [i for i in range(len(factor_dims)) if i not in grouped] + grouped
    # transpose the device array (reshaped to factor_dims) by perm
    strides = [math.prod(factor_dims[i + 1:]) for i in range(len(factor_dims))]
    tdims = [factor_dims[p] for p in perm]
    flat = []
    for lin in range(total):
        idx, r = [], lin
        for d in reversed(tdims):
            idx.append(r % d)
            r //= d
        idx.reverse()
        src = sum(idx[k] * strides[p] for k, p in enumerate(perm))
        flat.append(devices[src])
    gsize = math.prod(factor_dims[g] for g in grouped) if grouped else 1
    return [flat[i:i + gsize] for i in range(0, total, gsize)]


def resolve_groups(text):
    """replica_groups text -> (form, groups)."""
    t = text.strip()
    if t.startswith(("mesh[", "maximal_mesh[")):
        return "mesh", parse_mesh_groups(t)
    if t.startswith("["):
        return "iota", parse_iota(t)
    if t in ("{}", "{ }"):
        return "empty", []
    return "explicit", parse_explicit(t)


def group_mode(attrs):
    has_channel = "channel_id" in attrs
    ugdi = attrs.get("use_global_device_ids", "false") == "true"
    if not has_channel:
        return "cross_replica" if not ugdi else "invalid"
    return "flattened_id" if ugdi else ("cross_partition" if "use_global_device_ids" not in attrs
                                        else "cross_replica_and_partition")


def _groups_for(ins, mod, base):
    """(form, text, groups as id lists, mode)."""
    attrs = ins.attrs
    mode = group_mode(attrs)
    if base == "collective-permute":
        text = attrs.get("source_target_pairs", "{}")
        pairs = [tuple(p) for p in parse_explicit(text)]
        return "source_target_pairs", text, pairs, ("cross_partition" if "channel_id" in attrs
                                                     else "cross_replica")
    text = attrs.get("replica_groups")
    if text is None:   # not printed: the default, empty list (one group of every participant)
        form, groups = "absent", []
    else:
        form, groups = resolve_groups(text)
    if not groups:
        n = mod.num_partitions if mode == "cross_partition" else (
            mod.replica_count if mode in ("cross_replica", "cross_replica_and_partition")
            else mod.replica_count * mod.num_partitions)
        groups = [list(range(n))]
    return form, text, groups, mode
