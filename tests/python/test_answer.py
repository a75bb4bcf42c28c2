"""The ranked answer (docs/analysis.md "The answer"): each kind of finding gets its own headline,
checked on programs written from JAX's public API, each with the maintainer-style diagnosis
confirmed by an ablation — the fix, applied as the answer prints it where it prints one, removes
the finding in JAX's own compile (`memory_analysis()`, `as_text()`) — and the answer of the fixed
program no longer leads with it.
"""
import re
import warnings

import jax
import jax.numpy as jnp
import pytest

import hloscope


from conftest import inspect_one as _inspect, top_finding as _top  # noqa: E402


def _peak(compiled):
    m = compiled.memory_analysis()
    return (m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
            + m.temp_size_in_bytes)


# -- a function that computes nothing ------------------------------------------------------------

def _ghost(x, i):
    x.at[i].set(1.0)  # the result is dropped: the user meant x = x.at[i].set(1.0)


def _ghost_fixed(x, i):
    return x.at[i].set(1.0)


def test_a_function_with_no_outputs_says_it_computes_nothing():
    args = (jnp.zeros((1024, 64)), jnp.int32(3))
    compiled, module = _inspect(_ghost, *args)
    assert _peak(compiled) == 0  # XLA's truth: nothing is computed or kept
    top = _top(module)
    assert module.answer["stands_out"]
    assert top["kind"] == "no-outputs"
    assert module.answer["lead"].startswith("computes nothing")
    assert "x.at[i].set(v)" in top["fix"]
    # The same words as a perfect program are gone: it is no "nothing stands out".
    assert "nothing stands out" not in str(module.answer["lead"])
    # The fix: return the update. The module now computes, and the finding is gone.
    _, fixed = _inspect(_ghost_fixed, *args)
    assert all(f["kind"] != "no-outputs" for f in fixed.answer["findings"])


# -- a train step whose state is not donated ------------------------------------------------------

def _train_state(width=512, layers=3):
    keys = jax.random.split(jax.random.PRNGKey(0), layers)
    params = {f"w{i}": jax.random.normal(k, (width, width)) * 0.01 for i, k in enumerate(keys)}
    return {"params": params, "mu": jax.tree_util.tree_map(jnp.zeros_like, params)}


def _train_step(state, x):
    def loss(p):
        h = x
        for i in range(len(p)):
            h = jnp.tanh(h @ p[f"w{i}"])
        return jnp.mean(h ** 2)

    g = jax.grad(loss)(state["params"])
    mu = jax.tree_util.tree_map(lambda m, gi: 0.9 * m + gi, state["mu"], g)
    params = jax.tree_util.tree_map(lambda p, m: p - 1e-3 * m, state["params"], mu)
    return {"params": params, "mu": mu}


def _apply_donation_fix(fix):
    """The jit keywords the fix prints (`jax.jit(f, donate_argnames="state")`), parsed as written."""
    m = re.search(r"jax\.jit\(f, (donate_arg(?:names|nums))=(\([^)]*\)|\"[^\"]*\"|\d+)\)", fix)
    assert m, fix
    return {m.group(1): eval(m.group(2))}  # noqa: S307 - the tool's own printed Python literal


def test_an_undonated_train_state_leads_with_the_donation_and_its_peak_is_xlas():
    state, x = _train_state(), jnp.ones((64, 512))
    compiled, module = _inspect(_train_step, state, x)
    top = _top(module)
    assert top["kind"] == "undonated", module.answer["lead"]
    assert top["stands_out"] and top["impact"]["measure"] == "memory"
    assert top["count"] == 6  # 3 parameters and 3 momenta
    assert top["peak_before"] == _peak(compiled)
    # The fix as printed, applied: XLA's peak is what the answer promised, and the finding is gone.
    kwargs = _apply_donation_fix(top["fix"])
    assert kwargs == {"donate_argnames": "state"}
    fixed_compiled, fixed = _inspect(_train_step, state, x, **kwargs)
    # The answer's figure is the best case (the arguments' bytes aliased); XLA may pack its
    # temporaries otherwise once the outputs take the arguments' buffers.
    assert top["peak_after"] <= _peak(fixed_compiled) < top["peak_before"]
    assert _peak(fixed_compiled) < _peak(compiled) * 0.8
    assert all(f["kind"] != "undonated" for f in fixed.answer["findings"])
    # Given the plain function, inspect() proves the fix itself, compiling with it as printed:
    # the same peak as compiled here.
    report = hloscope.inspect(_train_step, state, x)
    proved = report.modules[0].answer["findings"][0]
    assert proved["kind"] == "undonated"
    assert proved["peak_after_compiled"] == _peak(fixed_compiled)
    assert any("compiled with donate_argnames='state'" in n for n in report.notes)


def test_a_small_undonated_argument_is_not_advice():
    # f(x) = 2x: donating x would halve a 4 KiB peak, which matters to nobody.
    _, module = _inspect(lambda x: 2 * x, jnp.ones(1024))
    assert not module.answer["stands_out"]
    assert module.answer["lead"].startswith("nothing stands out — checked 0 array copies")


# -- a temporary that dominates the peak -----------------------------------------------------------

VOCAB, SEQ, BATCH, DIM = 4096, 256, 8, 64


def _one_hot_embed(tokens, table):
    oh = jax.nn.one_hot(tokens, VOCAB)  # [B, L, V]: quadratic in what the user scales
    return jnp.einsum("blv,vd->bld", oh, table)


def _take_embed(tokens, table):
    return jnp.take(table, tokens, axis=0)


def test_a_one_hot_temporary_that_dominates_the_peak_is_named_at_its_line():
    tokens = jnp.zeros((BATCH, SEQ), jnp.int32)
    table = jnp.ones((VOCAB, DIM))
    compiled, module = _inspect(_one_hot_embed, tokens, table)
    top = _top(module)
    assert top["kind"] == "peak-temporary", module.answer["lead"]
    assert top["impact"]["measure"] == "memory"
    assert top["impact"]["bytes"] >= BATCH * SEQ * VOCAB * 4  # the f32 one-hot
    assert top["source"]["line"] == _one_hot_embed.__code__.co_firstlineno + 1
    assert "jnp.take(table, i, axis=0)" in top["fix"], top["fix"]  # what the ablation compiles
    # Ablation: a gather instead of the one-hot product; XLA's peak drops below the one-hot alone.
    fixed_compiled, fixed = _inspect(_take_embed, tokens, table)
    assert _peak(fixed_compiled) < BATCH * SEQ * VOCAB * 4
    assert all(f["kind"] != "peak-temporary" for f in fixed.answer["findings"])


# -- a donation XLA dropped ------------------------------------------------------------------------

def _sum_rows(x):
    return x.sum(axis=0)  # no output of x's shape: the donation cannot be kept


def test_a_dropped_donation_leads():
    _, module = _inspect(_sum_rows, jnp.ones((2048, 256)), donate_argnums=0)
    top = _top(module)
    assert top["kind"] == "dropped-donation", module.answer["lead"]
    assert top["stands_out"]
    assert "x (argument 0)" in top["text"]


# -- the copy answers of before are unchanged ------------------------------------------------------

def _ring(buf, xs):
    def body(i, b):
        old = b[i % b.shape[0]]
        b = b.at[i % b.shape[0]].set(xs[i])
        return b.at[(i + 1) % b.shape[0]].add(old)

    return jax.lax.fori_loop(0, xs.shape[0], body, buf)


def test_a_copy_in_a_loop_still_leads_and_names_its_cause():
    _, module = _inspect(_ring, jnp.zeros((4096, 64)), jnp.ones((100, 64)), donate_argnums=0)
    top = _top(module)
    assert top["kind"] == "copy", module.answer["lead"]
    assert top["loops"] and top["executions"] == 100
    assert top["why"] and top["fix"]


# -- the answer's shares ---------------------------------------------------------------------------

@pytest.mark.parametrize("program", ["ring", "train"])
def test_findings_are_ranked_by_their_share(program):
    if program == "ring":
        _, module = _inspect(_ring, jnp.zeros((4096, 64)), jnp.ones((100, 64)), donate_argnums=0)
    else:
        _, module = _inspect(_train_step, _train_state(), jnp.ones((64, 512)))
    findings = module.answer["findings"]
    assert findings
    standing = [f for f in findings if f["stands_out"]]
    rest = [f for f in findings if not f["stands_out"]]
    assert findings == standing + rest
    shares = [f["impact"]["share"] for f in standing if f["kind"] != "no-outputs"]
    assert shares == sorted(shares, reverse=True)
    assert all(0 <= f["impact"]["share"] <= 1 for f in findings)


# -- a sharded update that gathers the whole array --------------------------------------------------

_SHARDED_UPDATE = r'''
import json, os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import hloscope

mesh = Mesh(jax.devices()[:8], ("x",))
rows = NamedSharding(mesh, P("x", None))
a = jax.device_put(jnp.zeros((1024, 256)), rows)
v = jnp.ones((3, 256))

def static_slice(a, v):
    return a.at[0:3].set(v)          # a static slice across the sharded dimension

def dynamic(a, v):
    return jax.lax.dynamic_update_slice(a, v, (0, 0))

out = {}
for name, fn in (("static", static_slice), ("dynamic", dynamic)):
    jitted = jax.jit(fn, in_shardings=(rows, None), out_shardings=rows, donate_argnums=0)
    m = hloscope.inspect(jitted, a, v).modules[0]
    text = jitted.lower(a, v).compile().as_text()
    out[name] = {"top": m.answer["findings"][0] if m.answer["findings"] else None,
                 "stands_out": m.answer["stands_out"], "lead": m.answer["lead"],
                 "all_gathers_in_hlo": text.count(" all-gather(") + text.count(" all-gather-start(")}
print(json.dumps(out))
'''


def test_a_sharded_static_slice_update_leads_with_its_gather():
    from conftest import run_program_json
    out = run_program_json(_SHARDED_UPDATE)
    static = out["static"]
    # XLA's truth: the static-slice update gathers the array across the 8 devices.
    assert static["all_gathers_in_hlo"] >= 1
    assert static["stands_out"], static["lead"]
    assert static["top"]["kind"] == "collective", static["lead"]
    assert static["lead"].startswith("an all-gather of f32[1024,256]"), static["lead"]
    # Ablation: the same update as a dynamic_update_slice at index 0 gathers nothing, and the
    # answer no longer leads with a collective.
    dynamic = out["dynamic"]
    assert dynamic["all_gathers_in_hlo"] == 0
    assert not dynamic["top"] or dynamic["top"]["kind"] != "collective"


# -- more programs with a known diagnosis, each with its ablation ----------------------------------

def _where_loop(buf, xs):
    def body(i, b):
        return jnp.where(jnp.arange(b.shape[0])[:, None] == i, xs[i], b)  # rewrites the whole buffer

    return jax.lax.fori_loop(0, xs.shape[0], body, buf)


def _set_loop(buf, xs):
    return jax.lax.fori_loop(0, xs.shape[0], lambda i, b: b.at[i].set(xs[i]), buf)


def test_a_carry_rewritten_by_where_leads_and_its_fix_removes_it():
    args = (jnp.zeros((4096, 64)), jnp.ones((100, 64)))
    _, module = _inspect(_where_loop, *args, donate_argnums=0)
    top = _top(module)
    assert top["kind"] == "carry-rewrite", module.answer["lead"]
    assert top["grows_with_buffer"] and top["executions"] == 100
    assert top["source"]["line"] == _where_loop.__code__.co_firstlineno + 2
    assert "buf.at[i].set(v)" in top["fix"]
    _, fixed = _inspect(_set_loop, *args, donate_argnums=0)
    assert not fixed.answer["stands_out"], fixed.answer["lead"]


def _add_row(buf, i, x):
    return buf.at[i].set(x)


def test_an_undonated_buffer_update_leads_with_its_copy_and_the_printed_donation_removes_it():
    args = (jnp.zeros((65536, 64)), jnp.int32(3), jnp.ones(64))
    compiled, module = _inspect(_add_row, *args)
    top = _top(module)
    assert top["kind"] == "copy", module.answer["lead"]
    assert top["members"] and top["members"][0] in compiled.as_text()  # XLA's own copy
    kwargs = _apply_donation_fix(top["fix"])
    assert kwargs == {"donate_argnames": "buf"}
    fixed_compiled, fixed = _inspect(_add_row, *args, **kwargs)
    assert not fixed.answer["stands_out"], fixed.answer["lead"]
    assert _peak(fixed_compiled) < _peak(compiled)


def _stax_adam_step():
    from jax.example_libraries import optimizers, stax
    init, apply = stax.serial(stax.Dense(512), stax.Relu, stax.Dense(512), stax.Relu, stax.Dense(10))
    _, params = init(jax.random.PRNGKey(0), (-1, 256))
    opt_init, opt_update, get_params = optimizers.adam(1e-3)

    def step(i, state, x, y):
        p = get_params(state)
        g = jax.grad(lambda p: jnp.mean((apply(p, x) - y) ** 2))(p)
        return opt_update(i, g, state)

    return step, (0, opt_init(params), jnp.ones((32, 256)), jnp.ones((32, 10)))


def test_an_example_libraries_adam_state_not_donated_leads_and_the_printed_fix_cuts_the_peak():
    step, args = _stax_adam_step()
    compiled, module = _inspect(step, *args)
    top = _top(module)
    assert top["kind"] == "undonated", module.answer["lead"]
    assert top["count"] == 18  # 3 layers × (w, b) × (params, m, v)
    kwargs = _apply_donation_fix(top["fix"])
    assert kwargs == {"donate_argnames": "state"}
    fixed_compiled, fixed = _inspect(step, *args, **kwargs)
    assert top["peak_after"] <= _peak(fixed_compiled) < 0.8 * _peak(compiled)
    assert all(f["kind"] != "undonated" for f in fixed.answer["findings"])


def _shift(buf, xs):
    return jax.lax.fori_loop(0, xs.shape[0], lambda i, b: jnp.concatenate([b[1:], xs[i][None]], axis=0), buf)


def test_a_buffer_rebuilt_by_concatenate_leads_with_its_copy():
    args = (jnp.zeros((4096, 64)), jnp.ones((100, 64)))
    _, module = _inspect(_shift, *args, donate_argnums=0)
    top = _top(module)
    assert top["kind"] == "copy", module.answer["lead"]
    assert top["loops"] and top["executions"] == 100
    assert "concatenate" in top["fix"]
    _, fixed = _inspect(_set_loop, *args, donate_argnums=0)
    assert not fixed.answer["stands_out"]


def _decode(cache, q, ks):
    def body(t, c):
        c = c.at[t].set(ks[t])
        s = c @ q  # attention over the whole cache, every step
        return c.at[t].add(jax.nn.softmax(s)[t] * 0)

    return jax.lax.fori_loop(0, ks.shape[0], body, cache)


def _decode_window(cache, q, ks):
    def body(t, c):
        c = c.at[t].set(ks[t])
        s = jax.lax.dynamic_slice_in_dim(c, t, 16) @ q  # a fixed window: no growth
        return c.at[t].add(jax.nn.softmax(s)[0] * 0)

    return jax.lax.fori_loop(0, ks.shape[0], body, cache)


def test_attention_over_a_whole_cache_leads_with_its_growing_read():
    args = (jnp.zeros((8192, 64)), jnp.ones(64), jnp.ones((32, 64)))
    _, module = _inspect(_decode, *args, donate_argnums=0)
    top = _top(module)
    assert top["kind"] == "growing-read", module.answer["lead"]
    assert top["grows_with_buffer"]
    # XLA:CPU keeps no metadata on the dot: the read is named at the attention's line or at the
    # softmax that consumes it (served_op.h), never at the loop or the cache's update.
    first = _decode.__code__.co_firstlineno
    assert top["source"]["line"] in (first + 3, first + 4)
    _, fixed = _inspect(_decode_window, *args, donate_argnums=0)
    assert all(f["kind"] != "growing-read" for f in fixed.answer["findings"])


# -- a loop XLA made --------------------------------------------------------------------------------

_VMAPPED_DUS = r'''
import json, sys, warnings
import jax, jax.numpy as jnp
import hloscope

def vmapped(bufs, rows, idx):          # a row into each of 100 buffers, at its own index
    return jax.vmap(lambda b, r, i: jax.lax.dynamic_update_slice(b, r[None], (i, 0)))(bufs, rows, idx)

def selected(bufs, rows, idx):         # the same rows, written by a select over every position
    hit = jnp.arange(bufs.shape[1])[None, :, None] == idx[:, None, None]
    return jnp.where(hit, rows[:, None, :], bufs)

args = (jnp.zeros((100, 512, 128)), jnp.ones((100, 128)), jnp.arange(100, dtype=jnp.int32))
out = {}
for name, fn in (("vmapped", vmapped), ("selected", selected)):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = hloscope.inspect(jax.jit(fn, donate_argnums=0), *args, target="tpu-v5e")
    except hloscope.TargetUnavailable as e:
        print(json.dumps({"unavailable": str(e)}))
        sys.exit(0)
    m = r.modules[0]
    out[name] = {"findings": m.answer["findings"], "lead": m.answer["lead"],
                 "whiles": [(l.instruction, l.trip_count, l.source.op_name if l.source else None)
                            for l in m.loops]}
print(json.dumps(out))
'''


def test_a_scatter_xla_made_into_a_serial_loop_leads_on_tpu():
    from conftest import run_program_json
    out = run_program_json(_VMAPPED_DUS)
    v = out["vmapped"]
    # XLA's truth: the optimized module has a 100-iteration while named after the scatter.
    assert any(trips == 100 and op and op.endswith("/scatter") for _, trips, op in v["whiles"]), v["whiles"]
    top = v["findings"][0]
    assert top["kind"] == "serial-loop" and top["stands_out"], v["lead"]
    assert v["lead"].startswith("XLA made a serial loop: the scatter at "), v["lead"]
    assert top["source"]["line"] == 7  # the vmapped dynamic_update_slice (the program's line 7)
    assert "jnp.where(jnp.arange(n)[None, :, None] == idx[:, None, None]" in top["fix"], top["fix"]  # as below
    # Ablation: the select makes no loop, and nothing serial is reported.
    s = out["selected"]
    assert not s["whiles"]
    assert all(f["kind"] != "serial-loop" for f in s["findings"])


# -- an FSDP step with one out_shardings mistake: short, and the dropped donations first -----------

_FSDP = r'''
import json, os, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import hloscope

mesh = Mesh(jax.devices()[:8], ("fsdp",))
shard, repl = NamedSharding(mesh, P("fsdp")), NamedSharding(mesh, P())
L, D = 4, 256
params = {f"l{i}": {"w1": jnp.ones((D, 4 * D)) * .01, "b1": jnp.zeros((4 * D,)), "w2": jnp.ones((4 * D, D)) * .01,
                    "b2": jnp.zeros((D,)), "g": jnp.ones((D,)), "wq": jnp.ones((D, D)) * .01} for i in range(L)}
state = {"params": params, "m": jax.tree_util.tree_map(jnp.zeros_like, params),
         "v": jax.tree_util.tree_map(jnp.zeros_like, params)}
state_sh = jax.tree_util.tree_map(lambda a: shard, state)
state = jax.device_put(state, state_sh)
x = jax.device_put(jnp.ones((64, D)), NamedSharding(mesh, P("fsdp", None)))

def loss(p, x):
    h = x
    for i in range(L):
        l = p[f"l{i}"]
        h = h * l["g"]
        h = h + jnp.tanh(h @ l["wq"])
        h = h + jax.nn.gelu(h @ l["w1"] + l["b1"]) @ l["w2"] + l["b2"]
    return jnp.mean(h ** 2)

def step(state, x):
    g = jax.grad(loss)(state["params"], x)
    m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, state["m"], g)
    v = jax.tree_util.tree_map(lambda v, g: 0.99 * v + 0.01 * g * g, state["v"], g)
    p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), state["params"], m, v)
    return {"params": p, "m": m, "v": v}

out = {}
for name, out_sh in (("mistake", repl), ("fixed", state_sh)):
    j = jax.jit(step, in_shardings=(state_sh, x.sharding), out_shardings=out_sh, donate_argnums=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ma = j.lower(state, x).compile().memory_analysis()
        r = hloscope.inspect(j, state, x)
    m = r.modules[0]
    out[name] = {"text": str(r), "top": m.answer["findings"][0]["kind"] if m.answer["findings"] else None,
                 "dropped": sum(1 for p in m.parameters if p.donation_dropped),
                 "alias": ma.alias_size_in_bytes}
print(json.dumps(out))
'''


def test_an_fsdp_step_with_an_out_shardings_mistake_is_short_and_leads_with_the_dropped_donations():
    from conftest import run_program_json
    out = run_program_json(_FSDP)
    mistake, fixed = out["mistake"], out["fixed"]
    # XLA's truth: with replicated outputs it aliases nothing; with the fix it aliases the state.
    assert mistake["alias"] == 0 and fixed["alias"] > 0
    assert mistake["dropped"] == 72 and fixed["dropped"] == 0
    lines = mistake["text"].splitlines()
    assert lines[0].startswith("jit_step: 72 arguments: state["), lines[0]
    assert "was donated" not in lines[0] and "were donated, but XLA could not reuse them" in lines[0]
    assert lines[1].startswith("  Fix: return an output with the argument's shape, dtype and sharding "
                               "(out_shardings = its in_shardings)")
    # The budget: one screen by default (was 531 lines for such a step), every fact in the JSON.
    assert len(lines) <= 80, len(lines)
    assert fixed["top"] != "dropped-donation"


# -- more: a dtype that drops a donation, and two programs where nothing should stand out ------------

def _scale_to_f32(x):
    return (x * 2).astype(jnp.float32)  # bf16 in, f32 out: no output can take x's buffer


def _scale(x):
    return x * 2


def test_a_donation_dropped_by_a_dtype_change_leads_and_keeping_the_dtype_fixes_it():
    x = jnp.ones((1024, 1024), jnp.bfloat16)
    compiled, module = _inspect(_scale_to_f32, x, donate_argnums=0)
    assert compiled.memory_analysis().alias_size_in_bytes == 0  # XLA kept nothing
    top = _top(module)
    assert top["kind"] == "dropped-donation", module.answer["lead"]
    assert "keeping it would cut the peak" in top["text"]
    assert "dtype" in top["fix"]
    fixed_compiled, fixed = _inspect(_scale, x, donate_argnums=0)
    assert fixed_compiled.memory_analysis().alias_size_in_bytes == 2 * 1024 * 1024
    assert not fixed.answer["stands_out"], fixed.answer["lead"]


_QUIET_SHARDED = r'''
import json, os, warnings
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
from jax.experimental.shard_map import shard_map
import hloscope

mesh = Mesh(jax.devices()[:8], ("x",))
rows = NamedSharding(mesh, P("x", None))

def data_parallel_step(w, x):       # the gradient all-reduce the program asks for
    g = shard_map(lambda w, x: jax.lax.psum(x.T @ (x @ w), "x"), mesh=mesh,
                  in_specs=(P(), P("x", None)), out_specs=P())(w, x)
    return w - 1e-3 * g

def replay(buf, xs):                 # rows written into a row-sharded buffer
    return jax.lax.fori_loop(0, 32, lambda i, b: b.at[i].set(xs[i]), buf)

out = {}
for name, j, args in (
        ("dp", jax.jit(data_parallel_step, donate_argnums=0),
         (jnp.ones((256, 256)), jax.device_put(jnp.ones((1024, 256)), rows))),
        ("replay", jax.jit(replay, in_shardings=(rows, None), out_shardings=rows, donate_argnums=0),
         (jax.device_put(jnp.zeros((4096, 64)), rows), jnp.ones((32, 64))))):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = j.lower(*args).compile().as_text()
        m = hloscope.inspect(j, *args).modules[0]
    out[name] = {"stands_out": m.answer["stands_out"], "lead": m.answer["lead"],
                 "kinds": [f["kind"] for f in m.answer["findings"]],
                 "all_reduces": text.count(" all-reduce("), "all_gathers": text.count(" all-gather(")}
print(json.dumps(out))
'''


def test_the_communication_a_program_asks_for_and_a_partitioned_update_do_not_stand_out():
    from conftest import run_program_json
    out = run_program_json(_QUIET_SHARDED)
    dp, replay = out["dp"], out["replay"]
    # XLA's truth: the psum is one all-reduce; the sharded buffer is updated without a gather.
    assert dp["all_reduces"] >= 1 and "collective" in dp["kinds"]
    assert not dp["stands_out"], dp["lead"]
    assert dp["lead"].startswith("nothing stands out — checked 0 array copies, 1 collective")
    assert replay["all_gathers"] == 0
    assert "collective" not in replay["kinds"] and not replay["stands_out"], replay["lead"]
