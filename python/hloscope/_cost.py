"""hloscope.cost(): where one call's work goes, estimated and, on request, measured.

Compiles the function as inspect() does, runs `hloscope cost` on its optimized
HLO and, with ``measure=True``, first runs it under ``jax.profiler`` so that
each kernel's measured time stands beside the estimate (docs/cost.md).
"""
import glob
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Optional

from . import _hloscope as _C


@dataclass
class CostReport:
    """What ``hloscope cost --format json`` says (``json``) and prints (``text``)."""

    text: str
    json: dict = field(repr=False)
    notes: list = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(f"note: {n}\n" for n in self.notes) + self.text

    @property
    def module(self) -> dict:
        return self.json["modules"][0]

    @property
    def per_call(self) -> dict:
        """FLOPs, transcendentals, bytes accessed, matmul FLOPs and the estimated seconds of one call."""
        return self.module["per_call"]

    @property
    def kernels(self) -> list:
        return self.module["kernels"]

    @property
    def lines(self) -> list:
        return self.module["lines"]

    @property
    def loops(self) -> list:
        return self.module["loops"]

    @property
    def measured(self) -> Optional[dict]:
        """The trace's figures (calls traced, seconds per call), or None without ``measure=True``."""
        return self.module["measured"]


def _run(args: list) -> str:
    code, out, err = _C.run_cli(args)
    if code != 0:
        raise RuntimeError(f"hloscope {' '.join(args[:1])} failed (exit {code}): {err.strip()}")
    return out


def _trace_calls(compiled: Any, make: Any, folder: str, warmup: int, repeats: int) -> str:
    """Runs `warmup` calls, then `repeats` calls under ``jax.profiler`` into `folder`, each with the
    arguments ``make()`` returns (``(args, kwargs)``, made before the call), and returns the trace's path."""
    import jax

    def call():
        a, k = make()
        jax.block_until_ready((a, k))
        jax.block_until_ready(compiled(*a, **k))

    for _ in range(warmup):
        call()
    with jax.profiler.trace(folder):
        for _ in range(repeats):
            call()
    traces = sorted(glob.glob(os.path.join(folder, "**", "*.trace.json.gz"), recursive=True))
    if not traces:
        raise RuntimeError(f"jax.profiler wrote no *.trace.json.gz under {folder}")
    return traces[-1]


def cost(fn: Any, /, *args: Any, target: Any = None, estimate_for: Optional[str] = None, measure: bool = False,
         warmup: int = 2, repeats: int = 5, top: int = 10, **kwargs: Any) -> CostReport:
    """FLOPs and bytes per call of ``fn(*args, **kwargs)`` by line, loop and kernel (``hloscope cost``).

    `fn`, `args`, `kwargs` and `target` are as for inspect(). `estimate_for` names the
    machine of the roofline estimate (``"cpu"``, ``"h100"``, ``"a100"``, ``"tpu-v5e"``,
    ``"tpu-v5p"``, ``"tpu-v4"``; default: what the module was compiled for). With
    ``measure=True`` the compiled function also runs here — `warmup` calls, then
    `repeats` calls under ``jax.profiler`` — and each kernel's measured time per call
    (from the trace, joined by XLA's instruction names) stands beside its estimate.
    Measuring needs the program to run on this machine (no `target`).
    """
    if measure and target not in (None, "cpu"):
        raise ValueError("measure=True runs the program here: it cannot be given with a target")
    from ._api import _lower, _requested_donations

    lowered, notes = _lower(fn, args, kwargs, target)
    donates = any(_requested_donations(lowered) or ())
    compiled = lowered.compile()
    tmp = tempfile.mkdtemp(prefix="hloscope-cost-")
    try:
        path = os.path.join(tmp, "module.hlo.txt")
        with open(path, "w") as f:
            f.write(compiled.as_text())
        flags = ["--target", estimate_for] if estimate_for else []
        if measure:
            import jax

            def make():
                # A donated argument is consumed by the call: each call gets its own copy (the copies
                # are computations of their own, which the trace keeps apart by module).
                if not donates:
                    return args, kwargs
                return jax.tree_util.tree_map(lambda x: x.copy() if isinstance(x, jax.Array) else x,
                                              (args, kwargs))
            flags += ["--trace", _trace_calls(compiled, make, os.path.join(tmp, "trace"), warmup, repeats)]
        doc = json.loads(_run(["cost", path, "--format", "json", *flags]))
        text = _run(["cost", path, "--top", str(top), *flags])
        return CostReport(text=text, json=doc, notes=notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
