"""GPU and TPU: the committed compile-only fixtures, the same causes on every backend, and
hloscope.inspect(..., target=...).

The fixtures under tests/fixtures/jax-<target>/ were compiled on this kind of machine without
the hardware (`tools/gen_fixtures.py --target tpu-v5e`, `--target gpu-h100`); each records the
jax, jaxlib and libtpu / CUDA-plugin versions it came from. tests/python/test_check_vs_oracle.py
checks every verdict on them against the independent oracle, as on CPU; here:

* the same program gets the same *semantic* cause for the copies of the same argument, and for
  the copies that run the same update, on CPU, GPU and TPU, whatever mechanism XLA uses (a
  `copy`, or TPU's `copy-start` into memory space 1);
* TPU's tiled sizes, constant prefetches and memory-space moves read as the docs say;
* inspect() compiles for a TPU and a GPU target here (skipped, saying why, when the compile-only
  packages are missing: `bash tools/install-deps.sh --backends`).
"""
import collections
import re
import functools
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
CPU = "jax"
OTHERS = ["jax-gpu-h100", "jax-tpu-v5e"]
# Causes that say how XLA moved bytes, not why a copy exists: no backend is "wrong" to differ.
MECHANISMS = {"memory-space-move", "layout-change"}


def _names(d):
    return sorted(n for n in os.listdir(os.path.join(FIXTURES, d))
                  if os.path.isfile(os.path.join(FIXTURES, d, n, "meta.json")))


@functools.lru_cache(maxsize=None)
def check(hloscope_bin, fixture_set, name):
    d = os.path.join(FIXTURES, fixture_set, name)
    out = subprocess.run([hloscope_bin, "check", os.path.join(d, "module.hlo.txt"),
                          "--buffer-assignment", os.path.join(d, "buffer-assignment.txt"),
                          "--format", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["modules"][0]


def copy(module, instruction):
    (c,) = [c for c in module["copies"] if c["instruction"] == instruction]
    return c


# ----------------------------------------------------------------------------- the fixtures

@pytest.mark.parametrize("fixture_set", OTHERS)
def test_every_cpu_program_has_a_fixture_on_each_backend(fixture_set):
    assert _names(fixture_set) == _names(CPU)


@pytest.mark.parametrize("fixture_set", OTHERS)
def test_fixture_meta_records_target_and_versions(fixture_set):
    target = fixture_set[len("jax-"):]
    for name in _names(fixture_set):
        with open(os.path.join(FIXTURES, fixture_set, name, "meta.json")) as f:
            meta = json.load(f)
        assert meta["target"] == target
        assert meta["backend"] == target.split("-")[0]
        assert meta["jax_version"] and meta["jaxlib_version"]
        if meta["backend"] == "tpu":
            assert meta["libtpu_version"] and meta["device_kind"].startswith("TPU v5")
        else:
            assert meta["cuda_plugin_version"] == meta["jax_version"]
            assert "H100" in meta["device_kind"]
            # GPU dumps name the copies that really run: XLA's thunk sequence.
            assert "thunk_sequence.txt" in meta["files"]
        with open(os.path.join(FIXTURES, fixture_set, name, "module.hlo.txt")) as f:
            assert f.readline().startswith(f"HloModule jit_{name},")


# ----------------------------------------------------------------------------- same causes

def _semantic_causes(module):
    """{key: causes} for array copies: key 'argument NAME' for copies of an entry argument,
    'update LINE' for copies an update at that source line runs on."""
    params = {p["name"] for p in module["parameters"]}
    out = collections.defaultdict(set)
    for c in module["copies"]:
        if c["minor"] or c["cause"] in MECHANISMS:
            continue
        src = c["copied_from"]["instruction"]
        if src in params:
            out["argument " + src].add(c["cause"])
        if c["source"] and c["source"].get("via") == "update":
            out[f"update line {c['source']['line']}"].add(c["cause"])
    return out


def test_same_program_same_semantic_causes_on_cpu_gpu_tpu(hloscope_bin):
    compared, disagreements = 0, []
    for name in _names(CPU):
        per_backend = {s: _semantic_causes(check(hloscope_bin, s, name)) for s in [CPU] + OTHERS}
        keys = set().union(*per_backend.values())
        for key in sorted(keys):
            seen = {s: frozenset(c[key]) for s, c in per_backend.items() if c.get(key)}
            if len(seen) < 2:
                continue
            compared += 1
            if len(set(seen.values())) > 1:
                disagreements.append(f"{name} {key}: " + ", ".join(
                    f"{s}={sorted(v)}" for s, v in seen.items()))
    assert disagreements == []
    # Not vacuous: many copies exist on at least two backends.
    assert compared >= 20


def test_tpu_moves_a_non_donated_argument_and_says_not_donated(hloscope_bin):
    # CPU copies buf with `copy`; TPU moves it into memory space 1 with copy-start and runs the
    # loop's updates there. Both: "not donated". CPU: "donate it". TPU: no donate hint, since
    # memory-space assignment may keep such a move when the argument is donated (it does for a
    # KV cache, an MoE layer and a train step: tests/python/test_donate_hints_per_backend.py).
    cpu = check(hloscope_bin, CPU, "loop_dus_not_donated")
    tpu = check(hloscope_bin, "jax-tpu-v5e", "loop_dus_not_donated")
    (cpu_copy,) = [c for c in cpu["copies"] if not c["minor"]]
    assert cpu_copy["cause"] == "non-donated-parameter"
    moved = copy(tpu, "copy-start.1")
    assert moved["class"] == "memory-space-move"
    assert moved["cause"] == "non-donated-parameter"
    assert cpu_copy["hint"] == ('donate buf: jax.jit(f, donate_argnames="buf"); if the jit already has '
                                "donate_argnums, add buf's position there instead")
    assert moved["hint"] is None
    assert moved["cause_detail"].endswith(
        "(donating it may not remove the copy: XLA:TPU's memory-space assignment can prefetch the array all "
        "the same); XLA makes this copy by moving the buffer from memory space 0 to 1 (a prefetch)")
    # The result moves back for the caller: an eviction, which no argument causes.
    back = copy(tpu, "copy-start")
    assert back["cause"] == "memory-space-move"
    assert "from memory space 1 to 0 (an eviction back to device memory)" in back["cause_detail"]
    # With the argument donated, this program's TPU compile copies nothing (others keep the move).
    donated = check(hloscope_bin, "jax-tpu-v5e", "loop_dus_donated")
    assert [c for c in donated["copies"] if not c["minor"]] == []


def test_tpu_constant_prefetch_is_summarised_like_scalar_copies(hloscope_bin):
    # nested_fori on TPU: the only non-scalar "copy" is an s32[2] constant moved to S(1).
    m = check(hloscope_bin, "jax-tpu-v5e", "nested_fori")
    prefetch = copy(m, "copy-start")
    assert prefetch["minor"] is True and prefetch["scalar"] is False
    assert prefetch["shape"] == "s32[2]{0:T(128)S(1)}"
    assert prefetch["bytes"] == 512  # a whole (128) tile, as the buffer assignment says
    assert m["headline"].startswith("jit_nested_fori: no array copies (+")
    assert "+1 constant prefetch" in m["headline"]
    assert check(hloscope_bin, CPU, "nested_fori")["headline"].startswith(
        "jit_nested_fori: no array copies")


def test_tpu_sizes_are_the_buffer_assignments(hloscope_bin):
    # Tiled layouts pad: f32[100]{0:T(128)} holds 512 bytes. Every copy's bytes equal the size
    # XLA's buffer assignment gives its value (the oracle takes sizes from the dump).
    m = check(hloscope_bin, "jax-tpu-v5e", "replay_scan_rollout")
    c = copy(m, "copy-start.4")
    assert c["shape"] == "f32[100]{0:T(128)}"
    assert c["bytes"] == 512


def test_tpu_declared_aliasing_counts_as_in_place(hloscope_bin):
    # TPU's backend_config aliasing_operands: loop_where_update's select fusion writes its
    # output into its operand's buffer (no dynamic-update-slice in it): an in-place update,
    # confirmed by the buffer assignment. On plain instructions TPU's list is only a
    # permission (tools/difftest found copies it did not share) and is not used.
    m = check(hloscope_bin, "jax-tpu-v5e", "loop_where_update")
    (u,) = [u for u in m["updates"] if u["instruction"] == "fusion.2"]
    assert u["verdict"] == "in-place" and u["confirmed"] is True
    assert u["fusion"] is None


# ----------------------------------------------------------------------------- inspect(target=)

def _have(dist):
    try:
        from importlib import metadata
        metadata.version(dist)
        return True
    except Exception:
        return False


needs_tpu = pytest.mark.skipif(not _have("libtpu"), reason="libtpu not installed "
                               "(bash tools/install-deps.sh --backends)")
needs_gpu = pytest.mark.skipif(not _have("jax-cuda12-plugin"), reason="jax-cuda12-plugin not "
                               "installed (bash tools/install-deps.sh --backends)")


def _program():
    import jax.numpy as jnp

    def step(buf, i):
        return buf.at[i].set(1.0)

    return step, jnp.zeros(4096, jnp.float32)


def _inspect_in_subprocess(code):
    # A fresh interpreter: JAX_PLATFORMS=cpu must be set before jax is imported (the CUDA
    # plugin's version check otherwise fails on a machine without a GPU).
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


INSPECT = r"""
import json, jax, jax.numpy as jnp, hloscope
def step(buf, i):
    return buf.at[i].set(1.0)
buf = jnp.zeros(4096, jnp.float32)
out = {}
for target in TARGETS:
    for donate in (False, True):
        fn = jax.jit(step, donate_argnums=(0,) if donate else ())
        rep = hloscope.inspect(fn, buf, 3, target=target)
        m = rep.modules[0]
        out[f"{target} {donate}"] = {
            "name": m.name, "headline": m.headline,
            "causes": sorted(c.cause for c in m.copies if not c.minor),
            "confirmed": [u.confirmed for u in m.updates],
            "notes": rep.notes}
print(json.dumps(out))
"""


@needs_tpu
def test_inspect_for_a_tpu_without_one():
    r = _inspect_in_subprocess(INSPECT.replace("TARGETS", '["tpu-v5e", "tpu-v4"]'))
    for t in ("tpu-v5e", "tpu-v4"):
        assert r[f"{t} False"]["causes"] == ["non-donated-parameter"]
        assert r[f"{t} True"]["causes"] == []
        assert all(r[f"{t} {d}"]["confirmed"] == [True] for d in (False, True))
    assert r["tpu-v5e False"]["notes"] == ["compiled for tpu-v5e (TPU v5 lite) without the hardware"]


@needs_gpu
def test_inspect_for_a_gpu_without_one_and_with_a_config_file():
    config = os.path.join(ROOT, "python", "hloscope", "targets", "gpu-a100.pbtxt")
    r = _inspect_in_subprocess(INSPECT.replace("TARGETS", f'["gpu-h100", {config!r}]'))
    for t in ("gpu-h100", config):
        assert r[f"{t} False"]["causes"] == ["non-donated-parameter"]
        assert r[f"{t} True"]["causes"] == []
        assert r[f"{t} True"]["confirmed"] == [True]


def _load_targets():
    import hloscope_targets  # tools/, on sys.path via conftest
    return hloscope_targets


def test_unknown_target_names_the_known_ones():
    t = _load_targets()
    with pytest.raises(ValueError, match=r"unknown target 'tpu-v9': use one of cpu, gpu-h100, "
                                         r"gpu-a100, tpu-v5e, tpu-v4, tpu-v6e"):
        t.resolve("tpu-v9")
    with pytest.raises(FileNotFoundError, match="no such GPU target-config file"):
        t.resolve("/nonexistent/h200.pbtxt")


def test_missing_compile_only_package_names_the_pip_command(monkeypatch):
    pytest.importorskip("jax")
    t = _load_targets()
    from jax.experimental import topologies

    def no_plugin(*a, **k):
        raise RuntimeError("Unknown backend tpu")

    monkeypatch.setattr(topologies, "get_topology_desc", no_plugin)
    with pytest.raises(t.TargetUnavailable) as e:
        t.device_for("tpu-v6e")
    msg = str(e.value)
    assert msg.startswith("cannot compile for tpu-v6e here (Unknown backend tpu). Compiling for "
                          "a TPU without one needs the compile-only package: pip install ")
    assert "libtpu" in msg
    with pytest.raises(t.TargetUnavailable, match=r"jax-cuda12-plugin==.*jax-cuda12-pjrt=="):
        t.device_for("gpu-h100")


# ----------------------------------------------------------------------------- GPU copy thunks

THUNK_RE = re.compile(r'profile_annotation: "([^"]*)"\s*thunk_id: \d+\s*}\s*thunk_kind: "([^"]*)"')


def _oracle_parser():
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import ba_oracle_parse
    return ba_oracle_parse


GPU_SETS = [(s, n) for s in ("jax-gpu-h100", "jax-gpu-h100.jax0.12.0.1") for n in _names(s)]


@pytest.mark.parametrize("fixture_set,name", GPU_SETS, ids=[f"{s}/{n}" for s, n in GPU_SETS])
def test_gpu_copies_are_the_copy_thunks_that_run(hloscope_bin, fixture_set, name):
    # XLA:GPU's thunk_metadata.txt names the HLO instruction of every thunk it runs. Every
    # copy hloscope lists runs as a kCopy thunk (or as the kernel of its copy fusion), and
    # every kCopy thunk is a copy hloscope lists, or a fusion XLA runs as a device-to-device
    # memcpy: a one-element dynamic-update-slice (which hloscope lists as an update, not a
    # copy) or a contiguous (dynamic-)slice, a read.
    d = os.path.join(FIXTURES, fixture_set, name)
    with open(os.path.join(d, "thunk_metadata.txt")) as f:
        text = f.read()
    thunks = THUNK_RE.findall(text)
    m = check(hloscope_bin, fixture_set, name)
    if not thunks:  # a program that runs nothing (returns its donated argument)
        assert m["copies"] == [] and m["thunks"]["thunks"] == 0 and m["thunks"]["applied"]
        return
    kinds = {n: k for n, k in thunks}
    copy_thunks = {n for n, k in thunks if k == "kCopy"}
    ours = {c["instruction"]: c for c in m["copies"]}
    for n, c in ours.items():
        expected = "kCopy" if c["kind"] in ("copy", "copy-start") else "kKernel"
        assert n in kinds, f"{n}: no thunk runs it"
        if expected == "kCopy":
            assert n in copy_thunks, f"{n} runs as {kinds[n]}"
    with open(os.path.join(d, "module.hlo.txt")) as f:
        mod = _oracle_parser().parse_module(f.read())
    updated_by = {u.get("fusion") or u["instruction"] for u in m["updates"]}
    memcpy_fusions = {}
    for n in copy_thunks - set(ours):
        comp, _ = mod.instr_index[n]
        if comp not in mod.fused:  # the fusion itself is annotated
            memcpy_fusions[n] = n
            continue
        (caller,) = [ins.name for _, ins, _ in mod.callers[comp]]
        memcpy_fusions[caller] = n
        if any(i.opcode in ("slice", "dynamic-slice") for i in mod.comps[comp].instrs):
            continue
        assert caller in updated_by, f"{n}: its fusion {caller} is not an update hloscope lists"

    # hloscope's own check of the same (check finds thunk_metadata.txt beside the HLO) says
    # what was just found independently.
    t = m["thunks"]
    assert t["applied"] and t["copies_not_run"] == []
    # Thunks XLA makes up (newest XLA's command buffers, an unannotated one) name no
    # instruction; every memcpy does.
    assert t["thunks"] == text.count("thunk_metadata {")
    assert t["unmatched_thunks"] == t["thunks"] - len([n for n, _ in thunks if n in mod.instr_index])
    assert all(n in mod.instr_index for n in copy_thunks)
    assert t["copy_thunks"] == len([k for _, k in thunks if k == "kCopy"])
    assert t["copies_as_copy_thunks"] == len([c for c in ours.values() if kinds[c["instruction"]] == "kCopy"])
    for c in ours.values():
        assert c["thunk"]["kind"] == kinds[c["instruction"]]
    others = {o["instruction"]["instruction"]: o["runs"] for o in t["other_copy_thunks"]}
    assert set(others) == set(memcpy_fusions)
    assert set(others.values()) <= {"fused-update", "slice"}
    assert {f for f, runs in others.items() if runs == "fused-update"} <= updated_by


# ----------------------------------------------------------------------------- newest JAX

# The same programs compiled by JAX 0.12.0.1 (Python 3.12; libtpu 0.0.50, jax-cuda12-plugin
# 0.12.0.1), beside the 0.10.2 set of the same backend. Its XLA prints no get-tuple-element
# lines, runs GPU fusions as async-start/async-done pairs and gives inserted copies the metadata
# of the while they serve, yet the facts are the same. (test_check_vs_oracle checks every
# verdict of these sets against the buffer assignment too.)
NEWEST = [("jax", "jax-cpu.jax0.12.0.1"), ("jax-gpu-h100", "jax-gpu-h100.jax0.12.0.1"),
          ("jax-tpu-v5e", "jax-tpu-v5e.jax0.12.0.1")]
# Where newer XLA really compiles differently (seen in both compilations' HLO and buffer
# assignment), and what changed.
XLA_CHANGED = {
    ("jax-cpu.jax0.12.0.1", "loop_dus_bf16"):
        "the bf16 row update is no longer upcast to f32 inside the fusion: it is in place on the "
        "argument's copy, the per-iteration copy is gone, and that copy feeds the update (line 74) "
        "instead of the loop (line 75)",
    ("jax-cpu.jax0.12.0.1", "loop_dus_bf16_donated"): "the same, donated: no copy at all",
}


def _copy_lines(module):
    """{(cause, source line)} of the array copies."""
    return {(c["cause"], (c["source"] or {}).get("line")) for c in module["copies"]
            if not c["minor"] and c["cause"] not in MECHANISMS}


@pytest.mark.parametrize("old_set,new_set", NEWEST, ids=[n for _, n in NEWEST])
def test_newest_jax_fixtures_have_the_same_facts(hloscope_bin, old_set, new_set):
    names = _names(new_set)
    assert len(names) >= 50 and set(names) <= set(_names(old_set))
    compared, disagreements = 0, []
    for name in names:
        old, new = (check(hloscope_bin, s, name) for s in (old_set, new_set))
        with open(os.path.join(FIXTURES, new_set, name, "meta.json")) as f:
            assert json.load(f)["jax_version"] == "0.12.0.1"
        assert all(u["confirmed"] is True for u in new["updates"]), name
        if (new_set, name) in XLA_CHANGED:
            continue
        a, b = _semantic_causes(old), _semantic_causes(new)
        # Newer XLA drops some copies (the conditional-branch copies of cond_passthrough_in_loop
        # and switch_in_loop): compare the copies both compilations make.
        for key in set(a) & set(b):
            compared += 1
            if a[key] != b[key]:
                disagreements.append(f"{name} {key}: {sorted(a[key])} -> {sorted(b[key])}")
        # Every copy the newer compile makes is told at the line, with the cause, of 0.10.2's.
        added = _copy_lines(new) - _copy_lines(old)
        if added:
            disagreements.append(f"{name} copies at new lines: {sorted(added)} "
                                 f"(0.10.2: {sorted(_copy_lines(old))})")
        # In place (on a copy or not) versus a full rewrite: the same kinds of verdict (TPU
        # 0.10.2 fuses loop_dus_int8's update twice, 0.12 once: both in place).
        kind = {"in-place": "in place", "in-place-on-copy": "in place"}
        verdicts = [sorted({kind.get(u["verdict"], u["verdict"]) for u in m["updates"]}) for m in (old, new)]
        if verdicts[0] != verdicts[1]:
            disagreements.append(f"{name} verdicts: {verdicts[0]} -> {verdicts[1]}")
    assert disagreements == []
    assert compared >= 20


def test_newest_jax_changes_listed_are_real(hloscope_bin):
    # The exceptions above are what XLA did, not what hloscope says: the 0.10.2 compile has a
    # copy in the loop and the 0.12 one has none (counted from the HLO text).
    for (new_set, name) in XLA_CHANGED:
        old_set = dict((n, o) for o, n in NEWEST)[new_set]
        texts = [open(os.path.join(FIXTURES, s, name, "module.hlo.txt")).read() for s in (old_set, new_set)]
        big = [len(re.findall(r"= bf16\[256,64\]\{1,0\} copy\(", t)) for t in texts]
        assert big[0] > big[1], (name, big)
