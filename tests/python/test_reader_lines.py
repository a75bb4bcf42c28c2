"""The read that forces a read-after-update copy is named at the line that reads.

The reading kernel is usually a fusion whose own metadata is the enclosing `fori_loop`/`scan`
call's line, or an arithmetic op's next to the read, or absent; XLA keeps each fused
instruction's metadata, so the line is that of the fused instruction that reads the old buffer.
The writer (the in-place update the copy feeds) is named at its line too. Each program marks
the reading line `# READ` and the writing line `# WRITE`; the test compiles it, on this
machine's CPU (and for an H100 where it makes such a copy), and checks the copy's cause and JSON readers against them.
"""
import inspect
import json
import os
import warnings

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
hloscope = pytest.importorskip("hloscope")
jax = pytest.importorskip("jax")
jnp = jax.numpy


def ring_fori(buf, xs):
    def body(i, c):
        buf, acc = c
        new = buf.at[i].set(xs[i])  # WRITE
        old_row = buf[(i + 1) % buf.shape[0]]  # READ
        return new, acc + jnp.tanh(old_row) * 3.0
    return jax.lax.fori_loop(0, buf.shape[0], body, (buf, jnp.zeros(buf.shape[1])))


def ring_scan(buf, xs):
    def body(c, x):
        buf, i = c
        nxt = buf.at[i].set(x)  # WRITE
        stale = jnp.sum(buf[i - 1] * 2.0)  # READ
        return (nxt, i + 1), stale
    (buf, _), ys = jax.lax.scan(body, (buf, 0), xs)
    return buf, ys


def entry_read(state, row):
    new = state.at[3].set(row)  # WRITE
    norm = jnp.sqrt(jnp.sum(state[5] ** 2))  # READ
    return new, norm


def _marked_lines(fn):
    lines, first = inspect.getsourcelines(fn)
    found = {}
    for k, text in enumerate(lines):
        for mark in ("READ", "WRITE"):
            if text.rstrip().endswith("# " + mark):
                found[mark] = first + k
    return found


def _ring_args():
    return jnp.zeros((64, 256)), jnp.ones((64, 256))


# (program, its arguments, target). An H100 makes this copy only for the fori_loop ring (the scan
# ring's copy is of its constant start, and the entry update reads nothing stale there); a TPU
# v5e stages the carry through another memory space instead. So: each program on this machine's
# CPU, and the ring on an H100 compiled without one.
CASES = [
    (ring_fori, _ring_args, None),
    (ring_scan, _ring_args, None),
    (entry_read, lambda: (jnp.zeros((64, 256)), jnp.ones((256,))), None),
    (ring_fori, _ring_args, "gpu-h100"),
]


@pytest.mark.parametrize("fn,args,target", CASES, ids=[f"{c[0].__name__}-{c[2] or 'cpu'}" for c in CASES])
def test_the_reading_and_writing_lines_are_named(fn, args, target):
    marks = _marked_lines(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = hloscope.inspect(jax.jit(fn, donate_argnums=0), *args(), target=target)
    doc = json.loads(report.to_json())
    copies = [c for m in doc["modules"] for c in m["copies"] if c["cause"] == "read-after-update"]
    assert copies, [(c["instruction"], c["cause"]) for m in doc["modules"] for c in m["copies"]]
    base = os.path.basename(__file__)
    for c in copies:
        read_lines = {r["source"]["line"] for r in c["readers"] if r.get("source")}
        assert marks["READ"] in read_lines, (c["instruction"], c["readers"], marks)
        first = c["readers"][0]["source"]
        assert (first["line"], os.path.basename(first["file"])) == (marks["READ"], base), c["cause_detail"]
        assert f"{base}:{marks['READ']})" in c["cause_detail"], c["cause_detail"]
        assert f"/{base}:{marks['WRITE']})" in c["cause_detail"], c["cause_detail"]


def scoped_ring(buf, xs):
    def body(i, c):
        buf, acc = c
        with jax.named_scope("writer"):
            new = buf.at[i].set(xs[i])
        with jax.named_scope("stale_read"):
            old_row = buf[(i + 1) % buf.shape[0]]
        return new, acc + jnp.tanh(old_row) * 3.0
    return jax.lax.fori_loop(0, buf.shape[0], body, (buf, jnp.zeros(buf.shape[1])))


def test_scope_of_the_stale_read_lists_the_copy_it_forces(hloscope_bin, tmp_path):
    """`check --scope` on the scope holding the read names the copy (it said "no array copies")."""
    import subprocess
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = jax.jit(scoped_ring, donate_argnums=0).lower(*_ring_args()).compile().as_text()
    path = tmp_path / "module.hlo.txt"
    path.write_text(text)

    def copies(scope):
        out = subprocess.run([hloscope_bin, "check", str(path), "--scope", scope, "--format", "json"],
                             capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        return [c for c in json.loads(out.stdout)["modules"][0]["copies"] if not c["scalar"]]

    read = copies("stale_read")
    assert read and all(c["cause"] == "read-after-update" for c in read), read
    assert {c["instruction"] for c in read} <= {c["instruction"] for c in copies("writer")}


def test_annotate_marks_and_sarif_relates_the_reading_line(hloscope_bin, tmp_path):
    """annotate's ▲ and a SARIF result's relatedLocations are at the line that reads, as the cause."""
    import subprocess
    marks = _marked_lines(ring_fori)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = jax.jit(ring_fori, donate_argnums=0).lower(*_ring_args()).compile().as_text()
    path = tmp_path / "module.hlo.txt"
    path.write_text(text)

    def run(*args):
        out = subprocess.run([hloscope_bin, *args], capture_output=True, text=True)
        assert out.returncode in (0, 1), out.stderr
        return json.loads(out.stdout)

    lines = {l["line"]: l for f in run("annotate", str(path), "--format", "json")["modules"][0]["files"]
             for l in f["lines"]}
    assert lines[marks["READ"]]["mark"] == "▲", lines[marks["READ"]]
    assert {r["reader"]["source"]["line"] for r in lines[marks["READ"]]["reads"]} == {marks["READ"]}
    assert lines[marks["WRITE"]]["mark"] == "■"
    results = [r for r in run("check", str(path), "--format", "sarif")["runs"][0]["results"]
               if r["ruleId"].endswith("read-after-update")]
    assert results
    for r in results:
        assert r["locations"][0]["physicalLocation"]["region"]["startLine"] == marks["WRITE"]
        related = {loc["physicalLocation"]["region"]["startLine"] for loc in r["relatedLocations"]}
        assert related == {marks["READ"]}, r["relatedLocations"]
