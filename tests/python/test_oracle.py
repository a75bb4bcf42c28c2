"""Tests for tools/ba_oracle.py on the generated JAX fixtures (tests/fixtures/jax).

Every fact asserted on a fixture was checked by reading that fixture's module.hlo.txt and
buffer-assignment.txt by hand (JAX/jaxlib 0.10.2, CPU).  The hand-written modules at the end
cover printer variants and GPU-only constructs that the CPU fixtures do not contain.
"""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "jax")
ORACLE_PATH = os.path.join(REPO, "tools", "ba_oracle.py")

_spec = importlib.util.spec_from_file_location("ba_oracle", ORACLE_PATH)
oracle = importlib.util.module_from_spec(_spec)
sys.modules["ba_oracle"] = oracle  # dataclasses need the module registered
_spec.loader.exec_module(oracle)

ALL_FIXTURES = sorted(d for d in os.listdir(FIXTURES)
                      if os.path.isfile(os.path.join(FIXTURES, d, "meta.json")))


def run(name, module_file="module.hlo.txt"):
    d = os.path.join(FIXTURES, name)
    with open(os.path.join(d, module_file)) as f:
        hlo = f.read()
    with open(os.path.join(d, "buffer-assignment.txt")) as f:
        ba = f.read()
    return oracle.analyze(hlo, ba)


def big_copies(r, min_bytes=64):
    """Copies of buffers (ignores the scalar induction-variable copies XLA adds around loops)."""
    return [c for c in r["copies"] if (c["bytes"] or 0) >= min_bytes]


# ----------------------------------------------------------------------------- all fixtures

def test_enough_fixtures():
    assert len(ALL_FIXTURES) >= 34


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_fixture_files_and_meta(name):
    d = os.path.join(FIXTURES, name)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    assert meta["name"] == name
    assert meta["function"] == name
    assert meta["generated_by"] == "tools/gen_fixtures.py"
    assert meta["program_file"].startswith("tools/fixture_programs/")
    assert os.path.isfile(os.path.join(REPO, meta["program_file"]))
    assert meta["description"]
    for f in meta["files"]:
        assert os.path.isfile(os.path.join(d, f)), f
    with open(os.path.join(d, "module.hlo.txt")) as f:
        assert f.readline().startswith(f"HloModule jit_{name},")


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_inplace_pair_shares_its_buffer(name):
    # Must-alias pairs are one HloBuffer (xla-reference 2.3): the oracle must find every
    # update's operand and result values at the same allocation+offset.
    r = run(name)
    for u in r["updates"]:
        assert u["same_buffer"] is True, u


# ----------------------------------------------------------------------------- loops

def test_loop_dus_donated_in_place_no_copy():
    r = run("loop_dus_donated")
    assert r["input_output_alias"] == [
        {"output_index": [], "parameter": 0, "parameter_index": [], "kind": "may-alias"}]
    assert big_copies(r) == []
    (u,) = r["updates"]
    assert u["instruction"] == "select_dynamic-update-slice_fusion"
    assert u["update_opcode"] == "dynamic-update-slice"
    assert u["same_buffer"] is True
    assert u["operand_value"] == "arg_tuple.6{1}"          # the while body parameter (phi)
    assert u["operand_allocation"] == u["result_allocation"] == 0   # the parameter's allocation
    assert (u["operand_origin"], u["operand_origin_opcode"]) == ("buf.1", "parameter")
    assert u["enclosing_whiles"] == ["while.3"]
    (w,) = r["whiles"]
    assert w["known_trip_count"] == 100 and w["init"] == 0 and w["step"] == 1


def test_loop_dus_not_donated_copies_parameter_once():
    r = run("loop_dus_not_donated")
    assert r["input_output_alias"] == []
    (c,) = big_copies(r)
    assert c["instruction"] == "copy.7"
    assert c["operand"] == "buf.1" and c["operand_value_opcode"] == "parameter"
    assert c["bytes"] == 4096 and c["shape"] == "f32[1024]{0}"
    assert c["computation"] == "main.5" and c["enclosing_whiles"] == []
    assert c["has_metadata"] is False and c["layout_change"] is False
    (u,) = r["updates"]
    assert u["same_buffer"] is True
    assert (u["operand_origin"], u["operand_origin_opcode"]) == ("copy.7", "copy")


def test_replay_read_after_write_copies_every_iteration():
    r = run("replay_row_read_after_write")
    copies = big_copies(r)
    assert [(c["instruction"], c["bytes"]) for c in copies] == [("copy.5", 65536), ("copy", 65536)]
    assert all(c["enclosing_whiles"] == ["while.4"] for c in copies)
    (u,) = r["updates"]
    assert u["operand_origin"] == "copy" and u["same_buffer"] is True
    assert r["whiles"][0]["known_trip_count"] == 100


@pytest.mark.parametrize("name", ["replay_row_write_only", "replay_row_read_feeds_write",
                                  "loop_read_before_write", "scan_buffer_carry",
                                  "loop_scatter_add"])
def test_in_place_loops_without_buffer_copies(name):
    r = run(name)
    assert big_copies(r) == []
    (u,) = r["updates"]
    assert u["same_buffer"] is True and u["operand_origin_opcode"] == "parameter"


def test_read_before_write_with_extra_use_still_copies():
    # The old row also feeds a sum; the DUS fusion recomputes its own dynamic-slice, so the
    # outside read is unordered with the write -> copies, like read-after-write.
    r = run("replay_row_read_before_write")
    assert [c["bytes"] for c in big_copies(r)] == [65536, 65536]


def test_data_dependent_trip_count_is_unknown():
    r = run("while_data_dependent_trip")
    (w,) = r["whiles"]
    assert w["known_trip_count"] is None
    assert run("vmap_while")["whiles"][0]["known_trip_count"] is None


def test_nested_loops_trip_counts_and_nesting():
    r = run("nested_fori")
    trips = {w["instruction"]: w["known_trip_count"] for w in r["whiles"]}
    assert trips == {"while.23": 64, "while.24": 32}
    inner = next(w for w in r["whiles"] if w["instruction"] == "while.23")
    assert inner["enclosing_whiles"] == ["while.24"]
    (u,) = r["updates"]
    assert u["enclosing_whiles"] == ["while.23", "while.24"]


def test_swapped_carries_copy_in_body():
    r = run("while_swapped_carries")
    copies = big_copies(r)
    assert len(copies) == 4
    assert all(c["bytes"] == 4096 and c["enclosing_whiles"] == ["while.6"] for c in copies)


def test_scan_ys_dus_through_bitcast():
    r = run("scan_ys_output")
    (u,) = r["updates"]
    assert u["instruction"] == "bitcast_dynamic-update-slice_fusion"
    assert u["same_buffer"] is True
    assert u["operand_origin_opcode"] == "fusion"         # broadcast fusion initialising ys
    assert big_copies(r) == []


def test_true_constant_copied_but_iota_constant_not():
    r = run("loop_update_true_constant")
    (c,) = big_copies(r)
    assert c["operand_value_opcode"] == "constant" and c["bytes"] == 4096
    assert big_copies(run("loop_update_arange_constant")) == []


# ----------------------------------------------------------------------------- top level

def test_seed_example_copy_and_unfused_dus():
    r = run("seed_at_set_sum")
    (c,) = r["copies"]
    assert (c["instruction"], c["operand"], c["bytes"]) == ("copy.1", "x.1", 4096)
    assert c["shape"] == "s32[1024]{0}"
    (u,) = r["updates"]
    # On JAX 0.10.2 CPU the DUS is a top-level instruction, not fused with the reduce.
    assert (u["instruction"], u["opcode"]) == ("dynamic-update-slice.5", "dynamic-update-slice")
    assert u["operand_value"] == "copy.1" and u["same_buffer"] is True
    assert u["operand_allocation"] == u["result_allocation"] == 10


def test_donated_vs_not_donated_top_level_set():
    r = run("at_set_donated")
    assert r["copies"] == []
    assert r["updates"][0]["operand_value"] == "x.1"
    r = run("at_set_not_donated")
    assert [c["bytes"] for c in r["copies"]] == [4096]
    assert r["updates"][0]["operand_value"] == "copy.1"


def test_output_aliasing_copies():
    assert [c["bytes"] for c in run("output_twice_param")["copies"]] == [4096, 4096]
    assert [c["bytes"] for c in run("output_twice_computed")["copies"]] == [4096]
    assert [c["bytes"] for c in run("return_param_unchanged")["copies"]] == [4096]
    assert run("return_param_donated")["copies"] == []


def test_dtype_byte_sizes():
    assert [c["bytes"] for c in run("at_set_bool")["copies"]] == [1024]           # pred = 1 byte
    assert [c["bytes"] for c in big_copies(run("loop_dus_bf16"))] == [32768, 32768]
    assert [c["bytes"] for c in run("dus_lax_not_donated")["copies"]] == [65536]


def test_sub_byte_update_is_not_in_place():
    r = run("at_set_int4")
    assert r["updates"] == []
    (n,) = r["non_inplace_update_fusions"]
    assert n["output_shape"] == "s4[1024]{0:E(4)}" and n["output_bytes"] == 512


def test_bf16_loop_update_not_in_place_and_copied():
    r = run("loop_dus_bf16_donated")
    assert r["updates"] == []
    (n,) = r["non_inplace_update_fusions"]
    assert n["enclosing_whiles"] == ["while.1"] and n["output_bytes"] == 32768
    (c,) = big_copies(r)
    assert c["enclosing_whiles"] == ["while.1"] and c["bytes"] == 32768


def test_conditional_self_copies():
    r = run("cond_both_branches_update")
    copies = r["copies"]
    assert len(copies) == 2
    assert all(c["same_slice_as_operand"] is True for c in copies)
    assert {c["computation"] for c in copies} == {"region_0.2", "region_2.4"}


def test_transposes():
    r = run("transpose_update")
    (c,) = r["copies"]
    assert c["bytes"] == 65536 and c["layout_change"] is False
    assert c["allocation"] == 0            # into the donated parameter's allocation
    (n,) = r["non_inplace_update_fusions"]
    assert "copy" in n["reason"]
    r = run("transpose_in_loop")
    assert big_copies(r) == []
    (lf,) = r["layout_copy_fusions"]
    assert lf["instruction"] == "wrapped_copy" and lf["bytes"] == 65536
    assert lf["operand_shape"] == "f32[64,256]{0,1}" and lf["shape"] == "f32[64,256]{1,0}"


# ----------------------------------------------------------------------------- printer variants

@pytest.mark.parametrize("name", ["seed_at_set_sum", "loop_dus_donated", "scan_ys_output"])
def test_as_text_variant_same_analysis(name):
    assert run(name, "as_text.hlo.txt") == run(name)


@pytest.mark.parametrize("name", ["seed_at_set_sum", "nested_fori", "replay_row_read_after_write"])
def test_inline_frames_variant_same_analysis(name):
    with open(os.path.join(FIXTURES, name, "module.inline-frames.hlo.txt")) as f:
        assert "source_file=" in f.read()
    assert run(name, "module.inline-frames.hlo.txt") == run(name)


def test_cli_json():
    d = os.path.join(FIXTURES, "loop_dus_not_donated")
    out = subprocess.run([sys.executable, ORACLE_PATH, os.path.join(d, "module.hlo.txt"),
                          os.path.join(d, "buffer-assignment.txt"), "--json"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    assert r["module"] == "jit_loop_dus_not_donated"
    assert r["copy_bytes"] == 4096 + 4 + 4
    text = subprocess.run([sys.executable, ORACLE_PATH, os.path.join(d, "module.hlo.txt"),
                           os.path.join(d, "buffer-assignment.txt")],
                          check=True, capture_output=True, text=True).stdout
    assert "copy.7" in text and "known_trip_count=100" in text


# ----------------------------------------------------------------------------- hand-written

GPU_LIKE = """\
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }

fused_copy (param_0: f32[16]) -> (f32[16], f32[16]) {
  param_0 = f32[16]{0} parameter(0)
  copy.9 = f32[16]{0} copy(param_0)
  neg = f32[16]{0} negate(param_0)
  ROOT tuple = (f32[16]{0}, f32[16]{0}) tuple(neg, copy.9)
}

dus_fused (p0: f32[16], p1: f32[1], p2: s32[]) -> f32[16] {
  p0 = f32[16]{0} parameter(0)
  b0 = f32[4,4]{1,0} bitcast(p0)
  p1 = f32[1]{0} parameter(1)
  b1 = f32[1,1]{1,0} bitcast(p1)
  p2 = s32[] parameter(2)
  dus = f32[4,4]{1,0} dynamic-update-slice(b0, b1, p2, p2)
  ROOT out = f32[16]{0} bitcast(dus)
}

ENTRY main (a: f32[16], b: f32[16], u: f32[1], i: s32[]) -> (f32[16], f32[16]) {
  a = f32[16]{0} parameter(0)
  b = f32[16]{0:S(1)} parameter(1)
  u = f32[1]{0} parameter(2)
  i = s32[] parameter(3)
  cs = (f32[16]{0}, f32[16]{0:S(1)}, u32[]) copy-start(f32[16]{0:S(1)} b)
  cd = f32[16]{0} copy-done((f32[16]{0}, f32[16]{0:S(1)}, u32[]) cs)
  cf = (f32[16]{0}, f32[16]{0}) fusion(f32[16]{0} cd), kind=kLoop, calls=fused_copy
  g1 = f32[16]{0} get-tuple-element(cf), index=1
  d = f32[16]{0} fusion(f32[16]{0} a, f32[1]{0} u, s32[] i), kind=kLoop, calls=dus_fused
  ROOT t = (f32[16]{0}, f32[16]{0}) tuple(d, g1)
}
"""

GPU_LIKE_BA = """\
BufferAssignment:
allocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}, maybe-live-out:
 value: <0 a @0> (size=64,offset=0): f32[16]{0}
 value: <5 d @0> (size=64,offset=0): f32[16]{0}
allocation 1: size 64, parameter 1, shape |f32[16]| at ShapeIndex {}:
 value: <1 b @0> (size=64,offset=0): f32[16]{0:S(1)}
allocation 2: size 256, preallocated-temp:
 value: <6 cs{} @0> (size=24,offset=0): (f32[16]{0}, f32[16]{0:S(1)}, u32[])
 value: <7 cs{0} @0> (size=64,offset=64): f32[16]{0}
 value: <8 cs{2} @0> (size=4,offset=128): u32[]
 value: <9 cf{0} @0> (size=64,offset=192): f32[16]{0}
"""


def test_handwritten_gpu_like_module():
    r = oracle.analyze(GPU_LIKE, GPU_LIKE_BA)
    kinds = sorted((c["kind"], c["instruction"], c["bytes"]) for c in r["copies"])
    assert kinds == [("copy-fusion", "cf", 64), ("copy-start", "cs", 64)]
    cs = next(c for c in r["copies"] if c["kind"] == "copy-start")
    assert cs["copy_done"] == "cd"
    cf = next(c for c in r["copies"] if c["kind"] == "copy-fusion")
    assert cf["output_index"] == [1] and cf["fused_instruction"] == "copy.9"
    (u,) = r["updates"]
    assert u["instruction"] == "d" and u["fused_root"] == "dus"     # through root bitcast
    assert u["operand_value"] == "a" and u["same_buffer"] is True
    assert r["whiles"] == []


@pytest.mark.parametrize("shape,size", [
    ("f32[4,4]{1,0}", 64), ("pred[10]{0}", 10), ("s4[7]{0:E(4)}", 4), ("s4[7]{0}", 7),
    ("bf16[3]{0}", 6), ("(f32[2]{0}, s32[], /*index=2*/pred[])", 24), ("f32[]", 4),
    ("c64[2]{0}", 16), ("f8e4m3fn[5]{0}", 5), ("token[]", 0),
])
def test_byte_sizes(shape, size):
    assert oracle.parse_shape(shape).byte_size() == size


def test_copy_inside_fusion_is_not_a_copy():
    hlo = """\
HloModule m
f (p: f32[4,8]) -> f32[8,4] {
  p = f32[4,8]{1,0} parameter(0)
  t = f32[8,4]{0,1} transpose(p), dimensions={1,0}
  ROOT c = f32[8,4]{1,0} copy(t)
}
ENTRY e (x: f32[4,8]) -> f32[8,4] {
  x = f32[4,8]{1,0} parameter(0)
  ROOT y = f32[8,4]{1,0} fusion(x), kind=kLoop, calls=f
}
"""
    r = oracle.analyze(hlo, "")
    assert r["copies"] == [] and r["layout_copy_fusions"] == []
