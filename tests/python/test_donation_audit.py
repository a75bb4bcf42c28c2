"""The donation audit (issue 27, must-have 5) against XLA's own figures.

Every argument says, in JAX's words, whether it is donated, which outputs XLA writes into it,
and — when XLA copies it only because it is not donated — what donating it saves. Each claim is
checked with the hint applied as the user would type it: the copy `donation_saves` counts is gone,
and by `compiled.memory_analysis()` the aliased outputs are what XLA counts as aliased and the
call's footprint drops by exactly the newly aliased arguments' bytes. Programs are a train-state update (a dict of
arrays), a KV cache written at a position, and a dropped donation named by its argument.
"""
import warnings

import pytest

hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def _compile(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # JAX's "Some donated buffers were not usable"
        return f.lower(*args).compile(), hloscope.inspect(f, *args)


def _footprint(compiled):
    """What one call holds outside temporaries, by XLA: arguments + outputs - aliased."""
    m = compiled.memory_analysis()
    return m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes


def _state_step(state, x):
    buf = state["buf"].at[0].set(x)
    return {"buf": buf, "n": state["n"] + 1}


def _kv_write(cache, k, pos):
    return jax.lax.dynamic_update_slice(cache, k[None], (pos, 0, 0))


@pytest.mark.parametrize("name,fn,args,argname", [
    ("train state", _state_step, lambda: ({"buf": jnp.zeros((512, 256)), "n": jnp.zeros(())}, jnp.ones(256)),
     "state"),
    ("kv cache", _kv_write, lambda: (jnp.zeros((64, 8, 128)), jnp.ones((8, 128)), jnp.int32(3)), "cache"),
])
def test_what_donating_saves_is_what_xla_saves(name, fn, args, argname):
    a = args()
    undonated_c, undonated = _compile(jax.jit(fn), *a)
    p = undonated.modules[0].parameters[0]
    assert p.argument in (f"{argname}['buf']", argname)
    assert not p.donated and p.copied and p.aliased_outputs == []
    assert p.donation_saves == p.bytes
    # The hint as printed, applied: XLA drops the copy, and the call holds donation_saves less.
    hint = undonated.modules[0].copies[0].hint
    assert f'donate_argnames="{argname}"' in hint
    donated_c, donated = _compile(jax.jit(fn, donate_argnames=argname), *a)
    q = donated.modules[0].parameters[0]
    assert q.donated and not q.copied and q.donation_saves is None
    assert not donated.modules[0].copies  # the copy donation_saves counted is gone
    # XLA's figures: the arguments now aliased are what XLA counts as aliased, and the call
    # holds exactly their bytes less (the copied argument's among them: donation_saves).
    aliased = sum(x.bytes for x in donated.modules[0].parameters if x.aliased_outputs)
    assert aliased == donated_c.memory_analysis().alias_size_in_bytes
    assert _footprint(undonated_c) - _footprint(donated_c) == aliased
    assert aliased >= p.donation_saves
    assert q.aliased_outputs == [[0]] if name == "train state" else [[]]


def test_a_dropped_donation_is_named_by_its_argument():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = hloscope.inspect(jax.jit(lambda state, x: (state * 2, jnp.concatenate([x, x])),
                                          donate_argnames="x"), jnp.ones(64), jnp.ones(128))
    p = report.modules[0].parameters[1]
    assert p.argument == "x" and p.donation_requested and not p.donated
    assert any(n.startswith("jit__lambda: x (argument 1) was donated but XLA did not keep the donation")
               for n in report.notes), report.notes
    text = str(report)
    # The answer leads with it (docs/analysis.md "The answer").
    assert text.splitlines()[0].startswith(
        "jit__lambda: x (argument 1), 512 B, was donated, but XLA could not reuse it"), text
