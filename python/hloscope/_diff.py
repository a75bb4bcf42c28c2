"""Comparing compilations from Python: diff(), scaling() and assert_no_regression().

The comparison itself is the C++ engine's (`hloscope diff`, docs/diff.md):
findings matched by what they are, growth judged per run against the
arguments. This module turns reports, files and folders into the check
documents the engine compares, compiles a function at several sizes, times
it, and fits exponents.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from . import _hloscope as _C
from ._options import finding_filter, gate_names, gate_options
from ._report import Report
from ._units import human_bytes

__all__ = ["Diff", "diff", "ScalingBuffer", "ScalingFinding", "ScalingResult", "scaling", "assert_no_regression"]


def _document(x: Any) -> "tuple[str, str]":
    """(check JSON document with kernels, name) of a Report, a path (HLO, baseline, folder) or JSON text."""
    if isinstance(x, Report):
        engine = x._engine
        if engine is not None:
            return engine.check_json("", True), "<report>"
        return x.to_json(), "<report>"
    if isinstance(x, os.PathLike):
        x = os.fspath(x)
    if isinstance(x, str):
        if x.lstrip().startswith("{"):
            return x, "<json>"
        return _C.load_check_document(x), x
    raise TypeError(f"diff() compares Reports, paths and check JSON documents, not {type(x).__name__}")


@dataclass
class Diff:
    """What `hloscope diff A B` says: ``str(d)`` its text, ``d.json`` its document
    (docs/json-format.md, "diff"), ``d.regressions`` the gates' failures."""

    text: str
    json: dict
    regressions: list = field(default_factory=list)

    def __str__(self) -> str:
        return self.text

    @property
    def modules(self) -> list:
        return self.json.get("modules", [])

    def items(self, *, kind: Optional[str] = None, status: Optional[str] = None,
              grows: Optional[bool] = None) -> list:
        """The matched findings (JSON objects) of every module pair, filtered."""
        out = []
        for m in self.modules:
            for it in m["items"]:
                if kind is not None and it["kind"] != kind:
                    continue
                if status is not None and it["status"] != status:
                    continue
                if grows is not None and it["grows"] != grows:
                    continue
                out.append(it)
        return out

    @property
    def passed(self) -> bool:
        return not self.regressions

    @property
    def memory(self) -> list:
        """Per module pair, its memory (JSON, docs/json-format.md "diff"): the peak of A and of B
        and the buffers that make the difference, largest change first; None where neither side
        was compiled with its buffer assignment."""
        return [m.get("memory") for m in self.modules]


def diff(a: Any, b: Any, *, fail_on: Any = (), min_bytes: int = 0, include_minor: bool = False,
         include_library: bool = False, fail_on_new_copies: bool = False, fail_on_new_out_of_place: bool = False,
         fail_on_more_bytes_per_iteration: bool = False, count_scalar_copies: bool = False) -> Diff:
    """Compares two compilations, as ``hloscope diff A B``.

    `a` and `b` are Reports (from inspect()/analyze()), paths of optimized HLO,
    of a ``check --format json`` baseline or of a dump folder, or check JSON
    text. `fail_on` names the gates as ``--fail-on`` does (``"regressions"``,
    ``"new-copies"``, ``"new-not-in-place"``, ``"more-bytes-per-iteration"``,
    ``"default"`` ...); the ``fail_on_*`` switches are their old spellings. Which
    findings count is the shared filter (``min_bytes``, ``include_minor``,
    ``include_library``). The gates fill ``Diff.regressions``; nothing is raised.
    """
    names = gate_names(fail_on, keyword="fail_on", diff=True)
    names += [n for n, on in (("new-copies", fail_on_new_copies), ("new-not-in-place", fail_on_new_out_of_place),
                              ("more-bytes-per-iteration", fail_on_more_bytes_per_iteration)) if on]
    a_doc, a_name = _document(a)
    b_doc, b_name = _document(b)
    text, doc, regressions = _C.diff(a_doc, b_doc, a_name, b_name, gate_options(names),
                                     finding_filter(min_bytes=min_bytes, include_library=include_library,
                                                    include_minor=include_minor or count_scalar_copies))
    return Diff(text=text, json=json.loads(doc), regressions=list(regressions))


# ---- scaling --------------------------------------------------------------------------


def _flops(item: dict, side: str) -> Optional[int]:
    """A kernel item's FLOPs per run on one side ("a" or "b") of a diff; None for other findings."""
    return (item.get(side) or {}).get("flops")


def _fit(xs: Sequence[float], ys: Sequence[Optional[float]]) -> Optional[float]:
    """Least-squares slope of log(y) on log(x): the exponent of y in x."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y is not None and y > 0 and x > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    if den == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den


@dataclass
class ScalingFinding:
    """One finding of the smallest compilation followed across the sizes."""

    kind: str
    what: str
    source: Optional[str]
    bytes: list  # bytes per run at each size (None where absent)
    bytes_per_call: list
    exponent: Optional[float]  # of bytes per run in the size
    # Kernels: FLOPs per run at each size and their exponent; loops: what their kernels read of
    # the loop's buffer whole per iteration, and its exponent (None where not known).
    flops: list = field(default_factory=list)
    flops_exponent: Optional[float] = None
    whole_read: list = field(default_factory=list)
    whole_read_exponent: Optional[float] = None
    # `hloscope diff`'s verdict, smallest size against each larger one (None where the finding
    # is not at that size): one growth rule for check, diff and scaling (docs/diff.md).
    diff_grows: list = field(default_factory=list)
    # With measure=True: the seconds per call its kernels took in jax.profiler's trace at each size
    # (a loop: the kernels inside it; None where the trace has no event of them), and the exponent.
    measured: list = field(default_factory=list)
    measured_exponent: Optional[float] = None

    @property
    def grows(self) -> bool:
        """The diff's verdict against the largest size the finding is at (bytes, FLOPs or whole
        reads per run growing at least as the square root of the arguments, by more than 5 %)."""
        known = [g for g in self.diff_grows if g is not None]
        if known:
            return known[-1]
        return self.exponent is not None and self.exponent >= 0.5

    def __str__(self) -> str:
        where = f" at {self.source}" if self.source else ""
        what = self.what if self.what.startswith(self.kind) else f"{self.kind} {self.what}"
        # The figure that grows the most: bytes, else a kernel's FLOPs or a loop's whole reads.
        figure, e = "bytes per run", self.exponent
        for name, other in (("FLOPs per run", self.flops_exponent),
                            ("whole reads per iteration", self.whole_read_exponent)):
            if other is not None and (e is None or other > e + 0.25):
                figure, e = name, other
        text = f"{what}{where}: {figure} ∝ size^{'?' if e is None else f'{e:.2f}'}"
        if self.measured_exponent is not None:
            text += f", measured time ∝ size^{self.measured_exponent:.2f}"
        return text


@dataclass
class ScalingBuffer:
    """A buffer of the peak (an argument, an output, a value live where the temporaries peak)
    followed across the sizes."""

    label: str  # at the largest size: "output stacked by a loop f32[4096,64] at rnn.py:12"
    role: str
    source: Optional[str]
    bytes: list  # at each size (None where not listed)
    exponent: Optional[float]

    @property
    def grows(self) -> bool:
        return self.exponent is not None and self.exponent >= 0.5

    def __str__(self) -> str:
        e = "?" if self.exponent is None else f"{self.exponent:.2f}"
        return f"{self.label}: bytes ∝ size^{e}"


@dataclass
class ScalingResult:
    """What scaling() found: per finding the exponent of its bytes in the size,
    with ``measure=True`` the median time per call and its exponent, and a verdict."""

    sizes: list
    findings: list  # ScalingFinding, largest per call first
    diffs: list  # Diff of the smallest size against each larger one
    times: Optional[list] = None  # median seconds per call at each size
    time_exponent: Optional[float] = None
    # With measure=True: the seconds per call in the module's kernels in jax.profiler's trace at
    # each size (None where the trace has no event of the module).
    kernel_times: Optional[list] = None
    # The memory one call needs per device at each size (XLA's buffer
    # assignment; None where unknown), its exponent, and the buffers whose
    # growth makes it (largest at the largest size first).
    peaks: list = field(default_factory=list)
    peak_exponent: Optional[float] = None
    buffers: list = field(default_factory=list)  # ScalingBuffer
    max_bytes: Optional[int] = None

    @property
    def memory_verdict(self) -> str:
        """"peak ∝ size^1.00 (128.6 KiB → 512.6 KiB): output stacked by a loop … at rnn.py:6 ∝ size^1.00; …",
        and with ``max_bytes`` the first size over it and the buffers that push it over."""
        if not self.peaks or any(p is None for p in self.peaks):
            return "memory: unknown (no buffer assignment)"
        e = "?" if self.peak_exponent is None else f"{self.peak_exponent:.2f}"
        growing = [b for b in self.buffers if b.grows]
        text = f"peak per device ∝ size^{e} ({human_bytes(self.peaks[0])} → {human_bytes(self.peaks[-1])})"
        if growing:
            text += ": " + "; ".join(str(b) for b in growing[:5])
        if self.max_bytes is not None:
            over = next((i for i, p in enumerate(self.peaks) if p > self.max_bytes), None)
            if over is None:
                text += f"; under {human_bytes(self.max_bytes)} at every size"
            else:
                # What grew between the last size under the budget (or the first) and the first over it.
                lo = over - 1 if over > 0 else 0
                pushed = sorted(((b.bytes[over] or 0) - (b.bytes[lo] or 0), b.label) for b in growing)
                names = "; ".join(f"{label} (+{human_bytes(add)})" for add, label in reversed(pushed) if add > 0)
                text += (f"; over {human_bytes(self.max_bytes)} from size {self.sizes[over]} "
                         f"({human_bytes(self.peaks[over])})" + (f", pushed over by: {names}" if names else ""))
        return text

    @property
    def growing(self) -> list:
        return [f for f in self.findings if f.grows]

    @property
    def verdict(self) -> str:
        g = self.growing
        names = "; ".join(str(f) for f in g[:5])
        if self.time_exponent is None:
            return (f"grows with size: {names}" if g
                    else "nothing grows: no copy, update, loop or kernel moves more per run at larger sizes")
        t = f"time per call ∝ size^{self.time_exponent:.2f}"
        if self.time_exponent >= 0.5 and g:
            return f"{t}, explained by: {names}" + self._measured_words()
        if self.time_exponent >= 0.5:
            return (f"{t}, but no finding grows: the HLO does not change with size: the cost is in the "
                    "backend's code for these kernels")
        if g:
            return f"{t} (flat), though these grow: {names}"
        return f"{t}: flat, and nothing grows"

    @property
    def measured_top(self) -> Optional["ScalingFinding"]:
        """With measure=True: the growing kernel, copy or collective that took the most traced time at
        the largest size, else such a loop (None when no growing finding has a measured time there)."""
        timed = [f for f in self.growing if f.measured and f.measured[-1] is not None]
        # A loop's time is its kernels', which are findings of their own: the kernel names the op,
        # so a loop is named only when none of the growing kernels has a time.
        ops = [f for f in timed if f.kind != "loop"]
        return max(ops or timed, key=lambda f: f.measured[-1], default=None)

    def _measured_words(self) -> str:
        top = self.measured_top
        if top is None:
            return ""
        share = ""
        if self.kernel_times and self.kernel_times[-1]:
            share = f", {100 * top.measured[-1] / self.kernel_times[-1]:.0f}% of the traced kernel time"
        first = next((m for m in top.measured if m is not None), None)
        where = f" at {top.source}" if top.source else ""
        return (f"; measured: {top.what}{where} took {first * 1e3:.3g} → {top.measured[-1] * 1e3:.3g} ms per "
                f"call{share} at the largest size")

    def __str__(self) -> str:
        lines = [f"sizes {self.sizes}"]
        if self.times is not None:
            lines.append("time per call: " + ", ".join(f"{t * 1e3:.3g} ms" for t in self.times))
        lines.append(self.verdict)
        for f in self.findings:
            if f.grows:
                lines.append(f"  {f}")
        if self.peaks:
            lines.append("memory: " + self.memory_verdict)
        return "\n".join(lines)


def _block(x: Any) -> None:
    import jax
    jax.block_until_ready(x)


def _time_per_call(compiled: Any, make: Callable[[], tuple], warmup: int, repeats: int) -> float:
    # Fresh arguments for every call (donated ones are consumed), made outside
    # the timed region.
    for _ in range(warmup):
        args = make()
        _block(args)
        _block(compiled(*args))
    samples = []
    for _ in range(repeats):
        args = make()
        _block(args)
        t0 = time.perf_counter()
        _block(compiled(*args))
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def _traced_times(compiled: Any, make: Callable[[], tuple], repeats: int, folder: str) -> dict:
    """Runs `repeats` calls under jax.profiler (as hloscope.cost(measure=True) does) and joins the trace
    with the compiled module by XLA's instruction names (`hloscope cost --trace`): seconds per call for
    each kernel and loop by name, and the module's total ("" key; None where the trace has none)."""
    from ._cost import _trace_calls

    try:
        trace = _trace_calls(compiled, lambda: (make(), {}), os.path.join(folder, "trace"), 0, repeats)
    except RuntimeError:  # no trace written: nothing measured
        return {}
    path = os.path.join(folder, "module.hlo.txt")
    with open(path, "w") as f:
        f.write(compiled.as_text())
    code, out, err = _C.run_cli(["cost", path, "--format", "json", "--trace", trace])
    if code != 0:
        return {}
    module = json.loads(out)["modules"][0]
    times = {k["instruction"]: k.get("measured_seconds") for k in module.get("kernels", [])}
    times.update({("loop", l["instruction"]): l.get("measured_seconds") for l in module.get("loops", [])})
    times[""] = (module.get("measured") or {}).get("seconds_per_call")
    return times


def _measured(item: dict, side: str, times: dict) -> Optional[float]:
    """Seconds per call a diff item's kernels took in a trace (a loop: the loop's kernels)."""
    names = (item.get(side) or {}).get("instructions") or []
    if item["kind"] == "loop":
        found = [times.get(("loop", n)) for n in names]
    else:
        found = [times.get(n) for n in names]
    found = [t for t in found if t is not None]
    return sum(found) if found else None


def _memory_buffers(sizes: list, diffs: list) -> list:
    """The buffers of the first diff's memory followed through the other diffs (they share A)."""
    def key(b: dict) -> tuple:
        return (b["where"], b["role"], b["parameter_number"], b["a_shape"], b["source"])

    first = diffs[0].memory[0] if diffs and diffs[0].modules else None
    if not first:
        return []
    out = []
    for b in first["buffers"]:
        if b["a_bytes"] is None:
            continue
        series, label = [b["a_bytes"]], b["label"]
        for d in diffs:
            mem = d.memory[0] if d.modules else None
            match = next((x for x in (mem or {}).get("buffers", []) if key(x) == key(b)), None)
            # A buffer the larger size leaves unchanged is not listed: same bytes as at A.
            series.append(match["b_bytes"] if match else b["a_bytes"])
            if match:
                label = match["label"]
        out.append(ScalingBuffer(label=label, role=b["role"], source=b["source"], bytes=series,
                                 exponent=_fit(sizes, series)))
    out.sort(key=lambda x: -(x.bytes[-1] or 0))
    return out


def scaling(fn: Any, make_args: Callable[[int], Sequence[Any]], sizes: Sequence[int] = (1024, 2048, 4096), *,
            measure: bool = False, warmup: int = 2, repeats: int = 7, progress: bool = True,
            max_bytes: Optional[int] = None) -> ScalingResult:
    """Compiles ``fn(*make_args(n))`` at each size n, diffs the compilations and fits exponents.

    Each finding of the smallest compilation is followed to the larger ones
    (matched as ``hloscope diff`` matches them) and the exponent of its bytes
    per run in n is fitted. With ``measure=True`` each compiled program also
    runs (``warmup`` calls, then the median of ``repeats``), and the exponent
    of the time per call is fitted; the verdict says which findings explain a
    growing time, or that none does. The memory peak per device is followed too
    (``peaks``, ``peak_exponent``, and the ``buffers`` whose growth makes it);
    with ``max_bytes`` the verdict names the first size whose peak is over it
    and the buffers that pushed it over. Progress goes to stderr.
    """
    import jax

    from ._api import _compile_and_check

    sizes = [int(n) for n in sizes]
    if len(sizes) < 2:
        raise ValueError("scaling() needs at least two sizes")
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    reports, times, traced = [], [], []
    for n in sizes:
        if progress:
            print(f"hloscope.scaling: size {n}: compiling", end="", file=sys.stderr, flush=True)
        # One compilation per size: the executable that is checked is the one timed.
        report, compiled = _compile_and_check(jitted.lower(*make_args(n)))
        reports.append(report)
        if measure:
            if progress:
                print(f", timing ({warmup} warm-up + {repeats} calls)", end="", file=sys.stderr, flush=True)
            times.append(_time_per_call(compiled, lambda: tuple(make_args(n)), warmup, repeats))
            if progress:
                print(f": {times[-1] * 1e3:.3g} ms per call; tracing {min(repeats, 3)} calls", end="",
                      file=sys.stderr, flush=True)
            # The time of each kernel, from a profiler trace of a few more calls.
            with tempfile.TemporaryDirectory(prefix="hloscope-scaling-") as folder:
                traced.append(_traced_times(compiled, lambda: tuple(make_args(n)), min(repeats, 3), folder))
        if progress:
            print(file=sys.stderr, flush=True)

    base_doc, _ = _document(reports[0])
    diffs = [diff(base_doc, _document(r)[0]) for r in reports[1:]]
    findings = []
    if diffs and diffs[0].modules:
        first = diffs[0].modules[0]["items"]
        for k, it in enumerate(first):
            if it["a"] is None or it["kind"] == "parameter":
                continue
            per_run = [it["a"]["bytes"]]
            per_call = [it["a"]["bytes_per_call"]]
            flops = [_flops(it, "a")]
            whole = [it["a"].get("whole_read_bytes")]
            measured = [_measured(it, "a", traced[0])] if traced else []
            grows = []
            for d in diffs:
                items = d.modules[0]["items"] if d.modules else []
                # The same finding of A: the diffs share A, so its k-th item of A
                # is found by A's instructions.
                match = next((x for x in items if x["a"] is not None and x["a"]["instructions"] ==
                              it["a"]["instructions"] and x["kind"] == it["kind"]), None)
                b = match["b"] if match else None
                per_run.append(b["bytes"] if b else None)
                per_call.append(b["bytes_per_call"] if b else None)
                flops.append(_flops(match, "b") if b else None)
                whole.append(b.get("whole_read_bytes") if b else None)
                grows.append(match["grows"] if b else None)
                if traced:
                    measured.append(_measured(match, "b", traced[len(grows)]) if b else None)
            findings.append(ScalingFinding(
                kind=it["kind"], what=it["what"], source=it["source"], bytes=per_run, bytes_per_call=per_call,
                exponent=_fit(sizes, per_run), flops=flops, flops_exponent=_fit(sizes, flops),
                whole_read=whole, whole_read_exponent=_fit(sizes, whole), diff_grows=grows,
                measured=measured, measured_exponent=_fit(sizes, measured) if measured else None))
    findings.sort(key=lambda f: -(f.bytes_per_call[-1] or f.bytes_per_call[0] or 0))
    result = ScalingResult(sizes=sizes, findings=findings, diffs=diffs, max_bytes=max_bytes)
    result.peaks = [(r.memory or {}).get("peak_bytes") for r in reports]
    if all(p is not None for p in result.peaks):
        result.peak_exponent = _fit(sizes, result.peaks)
        result.buffers = _memory_buffers(sizes, diffs)
    if measure:
        result.times = times
        result.time_exponent = _fit(sizes, times)
        result.kernel_times = [t.get("") for t in traced]
    return result


# ---- the regression gate for a test suite ----------------------------------------------


def assert_no_regression(fn: Any, /, *args: Any, baseline: "str | os.PathLike", update: Optional[bool] = None,
                         fail_on: Iterable[str] = ("regressions",),
                         min_bytes: int = 0, **kwargs: Any) -> Diff:
    """Fails (AssertionError) when ``fn(*args, **kwargs)`` compiles to something worse than `baseline`.

    `baseline` is a check JSON document (``hloscope check FILE --format json
    --kernels``, or written here): when it does not exist, or with
    ``update=True`` (default: the environment variable
    ``HLOSCOPE_UPDATE_BASELINE=1``), the current compilation is written to it
    and the assertion passes. `fail_on` names the gates of ``hloscope diff
    --fail-on`` (default: the preset ``regressions`` = ``new-copies``,
    ``new-not-in-place``, ``more-bytes-per-iteration``; the old names ``copies``,
    ``out_of_place``, ``bytes_per_iteration`` still work).
    """
    from ._api import inspect

    gates = gate_names(fail_on, keyword="fail_on", diff=True)  # an unknown name: ValueError before compiling
    path = os.fspath(baseline)
    if update is None:
        update = os.environ.get("HLOSCOPE_UPDATE_BASELINE", "") not in ("", "0")
    report = inspect(fn, *args, **kwargs)
    current, _ = _document(report)
    if update or not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(current)
        return Diff(text=f"baseline written: {path}", json={}, regressions=[])
    with open(path, encoding="utf-8") as f:
        saved = f.read()
    d = diff(saved, current, fail_on=gates, min_bytes=min_bytes)
    if d.regressions:
        raise AssertionError("hloscope.assert_no_regression: " + f"{len(d.regressions)} regression"
                             f"{'' if len(d.regressions) == 1 else 's'} against {path}\n  " +
                             "\n  ".join(d.regressions) + "\n\n" + d.text)
    return d
