"""The oracle's inline self-test (``--self-test``): small hand-written modules, one per family
of forms (explicit, iota and mesh replica groups; sync, async and async-start-wrapped
collectives; combined and type-changing collectives; collective-permute, -broadcast and
ragged-all-to-all; known and inferred trip counts), with the figures the formulas give.
"""

from .collectives import analyze
from .groups import parse_iota

_SELF_TESTS = [
    # (name, hlo, expectations: list of (instruction, field, value))
    ("explicit groups, all-reduce in a known-trip-count loop", """
HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}, num_partitions=4

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[8]{0} get-tuple-element(%p), index=1
  %ar = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
  ROOT %t = (s32[], f32[8]{0}) tuple(%i, %ar)
}

%cond (p: (s32[], f32[8])) -> pred[] {
  %p = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %c = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %c), direction=LT
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  %z = s32[] constant(0)
  %t = (s32[], f32[8]{0}) tuple(%z, %x)
  %w = (s32[], f32[8]{0}) while(%t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"10"}}
  ROOT %r = f32[8]{0} get-tuple-element(%w), index=1
}
""", [("ar", "groups", [[0, 1], [2, 3]]), ("ar", "group_size", 2), ("ar", "group_mode", "flattened_id"),
      ("ar", "bytes_sent_per_device", 32), ("ar", "executions_per_call", 10),
      ("ar", "bytes_sent_per_call", 320)]),
    ("iota groups, all-gather, transposed iota reduce-scatter, all-to-all", """
HloModule m, num_partitions=8

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[16,4]) -> (f32[64,4], f32[4,4], f32[16,4]) {
  %x = f32[16,4]{1,0} parameter(0)
  %ag = f32[64,4]{1,0} all-gather(%x), channel_id=1, replica_groups=[2,4]<=[8], dimensions={0}, use_global_device_ids=true
  %rs = f32[4,4]{1,0} reduce-scatter(%x), channel_id=2, replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, use_global_device_ids=true, to_apply=%add
  %a2a = f32[16,4]{1,0} all-to-all(%x), channel_id=3, replica_groups=[1,8]<=[8], dimensions={0}
  ROOT %t = (f32[64,4]{1,0}, f32[4,4]{1,0}, f32[16,4]{1,0}) tuple(%ag, %rs, %a2a)
}
""", [("ag", "groups", [[0, 1, 2, 3], [4, 5, 6, 7]]), ("ag", "bytes_received_per_device", 3 * 256),
      ("ag", "bytes_sent_per_device", 768),
      ("rs", "groups", [[0, 2, 4, 6], [1, 3, 5, 7]]), ("rs", "bytes_received_per_device", 192),
      ("a2a", "groups", [list(range(8))]), ("a2a", "bytes_sent_per_device", 224),
      ("a2a", "group_mode", "cross_partition")]),
    ("mesh forms, empty groups, cross-replica", """
HloModule m, replica_count=2, num_partitions=4

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[128,32]) -> f32[128,32] {
  %x = f32[128,32]{1,0} parameter(0)
  %m1 = f32[128,32]{1,0} all-reduce(%x), replica_groups=mesh['axis_0'=2,'axis_1'=2] {'axis_1'}, to_apply=%add
  %m2 = f32[128,32]{1,0} all-reduce(%m1), channel_id=1, replica_groups=mesh[a=2,b=4], device_ids=([4,2]T(1,0)) {a}, use_global_device_ids=true, to_apply=%add
  %m3 = f32[128,32]{1,0} all-reduce(%m2), channel_id=1, replica_groups=mesh['a'=8] {'a':(2)2}, use_global_device_ids=true, to_apply=%add
  %m4 = f32[128,32]{1,0} all-reduce(%m3), channel_id=1, replica_groups=mesh['a'=2,'b'=2], device_ids=(3,2,1,0) {'b','a'}, use_global_device_ids=true, to_apply=%add
  %e = f32[128,32]{1,0} all-reduce(%m4), replica_groups={}, to_apply=%add
  ROOT %e2 = f32[128,32]{1,0} all-reduce(%e), channel_id=2, replica_groups={}, to_apply=%add
}
""", [("m1", "groups", [[0, 1], [2, 3]]), ("m1", "replica_groups_form", "mesh"),
      ("m2", "groups", [[0, 1], [2, 3], [4, 5], [6, 7]]),
      ("m3", "groups", [[0, 2], [1, 3], [4, 6], [5, 7]]),
      ("m4", "groups", [[3, 1, 2, 0]]),
      ("e", "groups", [[0, 1]]), ("e", "group_mode", "cross_replica"),
      ("e2", "groups", [[0, 1, 2, 3]]), ("e2", "group_mode", "cross_partition")]),
    ("async pairs, collective-permute, combined all-reduce, async-start wrapper", """
HloModule m, num_partitions=4

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%wrapped_all_to_all (p0: f32[8,4]) -> f32[8,4] {
  %p0 = f32[8,4]{1,0} parameter(0)
  ROOT %a2a = f32[8,4]{1,0} all-to-all(%p0), channel_id=5, replica_groups={{0,1,2,3}}, dimensions={0}
}

ENTRY %main (x: f32[8,4], y: bf16[16]) -> f32[8,4] {
  %x = f32[8,4]{1,0} parameter(0)
  %y = bf16[16]{0} parameter(1)
  %ags = (f32[8,4]{1,0}, f32[32,4]{1,0}) all-gather-start(%x), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  %agd = f32[32,4]{1,0} all-gather-done(%ags)
  %cps = (f32[8,4]{1,0}, f32[8,4]{1,0}, u32[], u32[]) collective-permute-start(%x), channel_id=2, source_target_pairs={{0,1},{1,2},{2,3}}
  %cpd = f32[8,4]{1,0} collective-permute-done(%cps)
  %ars = f32[8,4]{1,0} all-reduce-start(%cpd), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
  %ard = f32[8,4]{1,0} all-reduce-done(%ars)
  %comb = (f32[8,4]{1,0}, bf16[16]{0}) all-reduce(%ard, %y), channel_id=4, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
  %c0 = f32[8,4]{1,0} get-tuple-element(%comb), index=0
  %mixed = bf16[8,4]{1,0} all-reduce(%x), channel_id=6, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
  %as = ((f32[8,4]{1,0}), f32[8,4]{1,0}, s32[]) async-start(%c0), calls=%wrapped_all_to_all
  ROOT %ad = f32[8,4]{1,0} async-done(%as)
}
""", [("ags", "bytes_received_per_device", 3 * 128), ("ags", "result_shapes", ["f32[32,4]"]),
      ("agd", "bytes_sent_per_device", 0), ("agd", "role", "done"),
      ("cps", "bytes_sent_per_device", 128), ("cps", "per_device",
                                              {"0": [128, 0], "1": [128, 128], "2": [128, 128], "3": [0, 128]}),
      ("ars", "bytes_sent_per_device", 2 * 128 * 3 // 4),
      ("comb", "operand_bytes", 128 + 32), ("comb", "bytes_sent_per_device", 160),
      ("as", "base_opcode", "all-to-all"), ("as", "bytes_sent_per_device", 96),
      ("ad", "role", "done"),
      ("mixed", "bytes_sent_per_device", 192), ("mixed", "bytes_received_per_device", 96),
      ("mixed", "element_type_changes", True)]),
    ("collective-broadcast and ragged-all-to-all, conditional upper bound, 0.12 #k operands", """
HloModule m, replica_count=4

%b0 (p: f32[128,32]) -> f32[128,32] {
  %p = f32[128,32]{1,0} parameter(0)
  ROOT %cb = f32[128,32]{1,0} collective-broadcast(%p), replica_groups={{1,0},{2,3}}
}

%b1 (p: f32[128,32]) -> f32[128,32] {
  ROOT %p = f32[128,32]{1,0} parameter(0)
}

ENTRY %main (i: bf16[1024,256], o: bf16[1024,256], a: s32[4], b: s32[4], c: s32[4], d: s32[4], k: s32[]) -> f32[128,32] {
  %i = bf16[1024,256]{1,0} parameter(0)
  %o = bf16[1024,256]{1,0} parameter(1)
  %a = s32[4]{0} parameter(2)
  %b = s32[4]{0} parameter(3)
  %c = s32[4]{0} parameter(4)
  %d = s32[4]{0} parameter(5)
  %k = s32[] parameter(6)
  %ra = bf16[1024,256]{1,0} ragged-all-to-all(%i, %o, %a, %b, %c, %d), replica_groups=[1,4]<=[4]
  %tup = (bf16[1024,256]{1,0}, f32[128,32]{1,0}) tuple(%ra, %ra)
  ROOT %cond = f32[128,32]{1,0} conditional(%k, %tup#1, %tup#1), branch_computations={%b0, %b1}
}
""", [("cb", "groups", [[1, 0], [2, 3]]), ("cb", "bytes_sent_per_device", 16384),
      ("cb", "bytes_received_per_device", 16384), ("cb", "executions_exact", False),
      ("ra", "data_dependent", True), ("ra", "bytes_sent_per_device", 524288)]),
]


def self_test():
    failures = 0
    for title, hlo, checks in _SELF_TESTS:
        rep = analyze(hlo)
        by = {c["name"]: c for c in rep["collectives"]}
        for name, field, want in checks:
            got = by.get(name, {}).get(field, "<missing>")
            ok = got == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {title}: {name}.{field} = {got!r}"
                  + ("" if ok else f" (want {want!r})"))
    # a loop without known_trip_count: the count comes from its condition and increment
    hlo = _SELF_TESTS[0][1].replace(', backend_config={"known_trip_count":{"n":"10"}}', "")
    hlo = hlo.replace("ROOT %t = (s32[], f32[8]{0}) tuple(%i, %ar)",
                      "%one = s32[] constant(1)\n  %inc = s32[] add(%i, %one)\n"
                      "  ROOT %t = (s32[], f32[8]{0}) tuple(%inc, %ar)")
    rep = analyze(hlo)
    got = ([c["executions_per_call"] for c in rep["collectives"]],
           [(l["trip_count"], l["trip_count_source"]) for l in rep["loops"]])
    ok = got == ([10], [(10, "condition")])
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} trip count from the loop condition: {got!r}")
    # iota canonical forms agree with the explicit list they stand for
    assert parse_iota("[4,2]<=[2,4]T(1,0)") == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert parse_iota("[2,2]<=[2,2]T(1,0)") == [[0, 2], [1, 3]]
    assert parse_iota("[1,4]<=[4]") == [[0, 1, 2, 3]]
    print(f"collective_oracle self-test: {'FAILED' if failures else 'passed'} "
          f"({sum(len(c) for _, _, c in _SELF_TESTS)} checks)")
    return 1 if failures else 0
