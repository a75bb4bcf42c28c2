"""jax.random's internals are library code under any transformation, on real compiles.

Under `vmap` JAX names the helper `vmap(jit(_threefry_split))`, under `grad` `transpose(jvp(...))`,
under `checkpoint` `checkpoint(...)`: the copies XLA makes inside them are jax.random's doing,
with hints about "swapping loop carries" a user cannot act on. They were listed as the user's
(162 of them in one RL workload); grouping now reads the op_name's structure (jax_op_name.h).
"""
import os
import subprocess
import warnings

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def envs_step(keys, buf):
    """An RL-style rollout: per-environment keys split and sampled under vmap every step."""
    def body(i, c):
        keys, buf = c
        ks = jax.vmap(lambda k: jax.random.split(k, 2))(keys)
        noise = jax.vmap(lambda k: jax.random.normal(k, (16,)))(ks[:, 1])
        return ks[:, 0], buf.at[i].set(noise)
    return jax.lax.fori_loop(0, buf.shape[0], body, (keys, buf))


def remat_grad_step(key, w):
    """Dropout-like noise inside jax.checkpoint, differentiated."""
    def loss(w):
        f = jax.checkpoint(lambda w: jnp.sum(jnp.tanh(w * jax.random.uniform(key, w.shape))))
        return f(w)
    return jax.grad(loss)(w)


def _compiled(fn, *args, **jit_kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jax.jit(fn, **jit_kwargs).lower(*args).compile().as_text()


def _check(hloscope_bin, tmp_path, text, *flags):
    path = tmp_path / "module.hlo.txt"
    path.write_text(text)
    return subprocess.run([hloscope_bin, "check", str(path), *flags], capture_output=True, text=True)


def _user_copy_blocks(out):
    """The COPIES part above the library heading: the copies listed as the user's."""
    part = out.split("COPIES", 1)[1].split("\n\n", 1)[0]
    return part.split("made inside library code", 1)[0]


def test_vmapped_random_helpers_are_library_code_and_skipped_by_the_gates(hloscope_bin, tmp_path):
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    text = _compiled(envs_step, keys, jnp.zeros((32, 8, 16)), donate_argnums=1)
    # The helpers really are spelled with vmap around the jit on this JAX.
    assert "vmap(jit(_threefry_split))" in text
    out = _check(hloscope_bin, tmp_path, text).stdout
    assert "made inside library code (gates skip these unless --include-library):" in out
    assert "    vmap(jit(_threefry_split)) " in out and "    vmap(jit(_normal)) " in out
    user = _user_copy_blocks(out)
    assert "avoid swapping loop carries" not in user and "trade places" not in user, user
    # The user's own copy stays theirs: the keys carry that was not donated.
    assert "donate keys" in user, user
    # The gate fails only when asked to count library code.
    # (Key copies are small loop state: the small-copies-in-loops gate, strict only.)
    assert _check(hloscope_bin, tmp_path, text, "--fail-on", "small-copies-in-loops").returncode == 0
    assert _check(hloscope_bin, tmp_path, text, "--fail-on", "small-copies-in-loops", "--include-library").returncode == 1
    report = hloscope.analyze(str(tmp_path / "module.hlo.txt"))
    hloscope.assert_inplace(report, gates="small-copies-in-loops")  # the same in Python
    with pytest.raises(AssertionError):
        hloscope.assert_inplace(report, gates="small-copies-in-loops", include_library=True)


def test_random_under_checkpoint_and_grad_is_library_code(hloscope_bin, tmp_path):
    text = _compiled(remat_grad_step, jax.random.PRNGKey(1), jnp.ones((64, 64)))
    out = _check(hloscope_bin, tmp_path, text, "--include-minor").stdout
    user = _user_copy_blocks(out) if "COPIES" in out else ""
    assert "_threefry" not in user and "_uniform" not in user, user
