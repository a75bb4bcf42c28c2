"""scaling(measure=True) puts each growing finding's measured time beside its bytes.

Each size's compiled program runs a few more calls under jax.profiler, and the trace is joined with the
module by XLA's instruction names (`hloscope cost --trace`): a kernel finding gets the seconds per call
its kernels took, a loop the seconds of the kernels inside it. The verdict then names the growing
finding that took the most time. Nothing here asserts a speed: only that the trace was read, that the
time is where the work is (the kernel reading the whole cache), and the words.
"""
import os

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
jax = pytest.importorskip("jax")
jnp = jax.numpy
hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed")


def decode(k, q):
    """A decode loop: writes row t of the cache in place, then a dot reads the whole cache."""
    def body(t, c):
        k, q = c
        k = jax.lax.dynamic_update_slice(k, q[None, :], (t, 0))
        return k, jnp.tanh(jax.nn.softmax(k @ q) @ k)
    return jax.lax.fori_loop(0, 16, body, (k, q))


def test_a_growing_kernel_gets_its_measured_time_at_each_size():
    # Sizes at which XLA:CPU names the loop's kernels in its trace: with JAX 0.12 a 2,048-row cache's
    # loop ran without kernel events (`hloscope cost --trace` counts them as kernels without events).
    r = hloscope.scaling(jax.jit(decode, donate_argnums=0), lambda n: (jnp.zeros((n, 64)), jnp.ones((64,))),
                         sizes=(4096, 16384), measure=True, warmup=1, repeats=3, progress=False)
    assert len(r.kernel_times) == 2 and all(t and t > 0 for t in r.kernel_times)
    top = r.measured_top
    assert top is not None and top.grows
    # The time is in a kernel that reads the cache (a dot or its fusion), measured at both sizes.
    assert top.kind == "kernel", top
    assert len(top.measured) == 2 and all(m and m > 0 for m in top.measured)
    assert top.measured[-1] <= r.kernel_times[-1] * 1.0001
    assert top.measured_exponent is not None
    assert f"measured time ∝ size^{top.measured_exponent:.2f}" in str(top)
    # Named at the attention's line, as the growth line names it: a dot XLA:CPU keeps no metadata for
    # (or a relayout in front of it) is named at the line of the op it serves.
    attention = decode.__code__.co_firstlineno + 5
    assert top.source and top.source.endswith(f"test_scaling_measured.py:{attention}"), (top, attention)
    if r.time_exponent >= 0.5:
        assert f"; measured: {top.what} at {top.source} took " in r.verdict, r.verdict
        assert "% of the traced kernel time at the largest size" in r.verdict


def test_the_measured_words_name_the_finding_that_took_the_most_time():
    def finding(kind, what, measured):
        return hloscope.ScalingFinding(kind=kind, what=what, source=None, bytes=[1, 4], bytes_per_call=[1, 4],
                                       exponent=1.0, diff_grows=[True], measured=measured,
                                       measured_exponent=1.0)
    loop = finding("loop", "loop while.1", [0.003, 0.009])
    dot = finding("kernel", "kernel dot.3", [0.002, 0.008])
    sort = finding("kernel", "kernel sort.1", [0.001, None])
    r = hloscope.ScalingResult(sizes=[1, 4], findings=[loop, sort, dot], diffs=[], times=[0.003, 0.01],
                               time_exponent=0.87, kernel_times=[0.0025, 0.01])
    # The kernel, not the loop holding it (whose time is its kernels'); a finding without a time at
    # the largest size is not a candidate.
    assert r.measured_top is dot
    assert r.verdict.endswith("; measured: kernel dot.3 took 2 → 8 ms per call, 80% of the traced kernel "
                              "time at the largest size")
    untimed = hloscope.ScalingResult(sizes=[1, 4], findings=[sort], diffs=[], times=[0.003, 0.01],
                                     time_exponent=0.87)
    assert untimed.measured_top is None and "measured:" not in untimed.verdict
