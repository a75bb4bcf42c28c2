"""assert_inplace(), assert_budget() and assert_memory(): hloscope's gates as test assertions.

Both take what inspect() takes (a function and its arguments) — or an
existing Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered — and
raise AssertionError naming the broken part of the report and the user's
source lines. Their own options are keyword-only; every other keyword goes
to the function.

The policy — what counts as a copy in a loop, which updates are in place,
how budgets add up — is the C++ engine's (analysis/policy.h), the very one
behind ``hloscope check --fail --fail-on --max-*``, ``hloscope run --fail`` and
``hloscope.watch(raise_on=...)``: a module gets the same verdict through all of
them. The options are the engine's structs (hloscope/_options.py); the message is
the engine's too.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Union

from . import _hloscope as _C
from ._api import _jax_stage_types, analyze, inspect
from ._options import finding_filter, gate_names, gate_options
from ._report import Report

__all__ = ["assert_inplace", "assert_budget", "assert_memory"]

LineSpec = Union[int, str]


def _report_of(fn: Any, args: tuple, kwargs: dict) -> Report:
    if isinstance(fn, Report):
        if args or kwargs:
            raise TypeError("no arguments can be passed with a Report")
        return fn
    lowered_t, compiled_t = _jax_stage_types()
    if (isinstance(fn, (str, bytes, bytearray, os.PathLike))
            or (lowered_t is not None and isinstance(fn, (lowered_t, compiled_t)))):
        if args or kwargs:
            raise TypeError("no arguments can be passed with HLO text, a path or a "
                            "Lowered/Compiled object")
        return analyze(fn)
    return inspect(fn, *args, **kwargs)


def _check(kind: str, report: Report, gates: "_C.GateOptions", filter: "_C.FindingFilter") -> Report:
    if report._engine is None:
        raise ValueError(f"hloscope.{kind}: this Report was built from JSON; gates need a report "
                         "from analyze() or inspect()")
    message = report._engine.gate_failure(gates, filter, f"hloscope.{kind}")
    if message is not None:
        raise AssertionError(message)
    return report


def assert_inplace(fn: Any, /, *args: Any, updates: Optional[Iterable[str]] = None,
                   lines: Optional[Iterable[LineSpec]] = None, gates: Any = "default",
                   include_minor: bool = False, include_library: bool = False,
                   min_bytes: int = 0, count_scalar_copies: bool = False, **kwargs: Any) -> Report:
    """Asserts that ``fn(*args, **kwargs)`` updates its arrays in place.

    The default gates of the one policy (``hloscope check --fail``): no array copy
    of 4 KiB or more (or one that grows with the buffer) may run inside a loop —
    smaller fixed-size loop state fails only under ``gates="strict"`` or
    ``"small-copies-in-loops"`` — every update must be in place (an update that XLA's
    buffer assignment contradicts, or that runs on a copy, fails — except on the
    once-per-call copy of an argument that is not donated, which is advice:
    ``gates="strict"`` or ``gates=("default", "undonated")`` fails on it too), and
    no buffer may be rewritten in full every iteration of a loop. `gates` takes
    gate and preset names as ``--fail-on`` does (``hloscope rules`` lists them).

    With ``updates=`` (instruction names, e.g. ``["dynamic-update-slice.7"]``; a
    fusion's name selects the updates inside it) and/or ``lines=`` (``42``,
    ``"train.py:42"``) only those updates are checked, with the copies that feed
    them or come from those lines (``--update``, ``--line``). Selecting nothing
    fails.

    Which findings count is the filter every command shares: minor copies (the loop
    counter XLA copies in every loop) only with ``include_minor=True``
    (``count_scalar_copies`` is its old name), findings made inside library code
    only with ``include_library=True``, and none moving fewer than ``min_bytes``
    per call.

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    report = _report_of(fn, args, kwargs)
    options = gate_options(gate_names(gates, keyword="gates"), updates=updates, lines=lines)
    filt = finding_filter(include_minor=include_minor or count_scalar_copies, include_library=include_library,
                          min_bytes=min_bytes)
    return _check("assert_inplace", report, options, filt)


def assert_budget(fn: Any, /, *args: Any, max_copy_bytes: Optional[int] = None,
                  max_copies: Optional[int] = None, max_copies_in_loops: Optional[int] = None,
                  max_copy_bytes_in_loops: Optional[int] = None,
                  include_minor: bool = False, include_library: bool = False,
                  min_bytes: int = 0, count_scalar_copies: bool = False, **kwargs: Any) -> Report:
    """Asserts that the copies of ``fn(*args, **kwargs)`` stay within a budget.

    * ``max_copy_bytes``: bytes all copies move per call (bytes × executions);
    * ``max_copies``: number of copy instructions;
    * ``max_copies_in_loops``: number of copy instructions inside loops;
    * ``max_copy_bytes_in_loops``: bytes per call moved by copies inside loops.

    The same budgets as ``hloscope check --max-copy-bytes N --max-copies N
    --max-copies-in-loops N --max-copy-bytes-in-loops N``. Limits are per HLO
    module (one per jitted call). A copy whose execution count is unknown breaks
    any byte limit. Which copies count is the shared filter (``include_minor``,
    ``include_library``, ``min_bytes``: ``--include-minor``, ``--include-library``,
    ``--min-bytes``). A limit is a whole number from 0 to 2**63 - 1: NaN,
    infinities, negative numbers and fractions raise ValueError (as the CLI
    rejects them with exit 2).

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    if all(v is None for v in (max_copy_bytes, max_copies, max_copies_in_loops,
                               max_copy_bytes_in_loops)):
        raise TypeError("assert_budget() needs at least one of max_copy_bytes, max_copies, "
                        "max_copies_in_loops, max_copy_bytes_in_loops")
    options = gate_options(None, max_copy_bytes=max_copy_bytes, max_copies=max_copies,
                           max_copies_in_loops=max_copies_in_loops,
                           max_copy_bytes_in_loops=max_copy_bytes_in_loops)
    filt = finding_filter(include_minor=include_minor or count_scalar_copies, include_library=include_library,
                          min_bytes=min_bytes)
    report = _report_of(fn, args, kwargs)
    return _check("assert_budget", report, options, filt)


def assert_memory(fn: Any, /, *args: Any, max_bytes: int, **kwargs: Any) -> Report:
    """Asserts that one call of ``fn(*args, **kwargs)`` needs at most ``max_bytes`` per device.

    The figure is the memory peak by XLA's buffer assignment: arguments + outputs - donated +
    temporaries of the device's memory space (``Report.memory["peak_bytes"]``, ``hloscope
    memory``; docs/memory.md) — the same budget as ``hloscope check --max-peak-bytes N``. A
    report without the buffer assignment breaks it (the peak is unknown). The message names
    the parts; ``hloscope memory`` lists what fills them.

    `fn` is anything inspect() takes (``target=`` compiles for a GPU or TPU this machine does
    not have) — every other keyword argument goes to `fn` — or a Report, HLO text, a dump
    path, or a jax.stages.Compiled/Lowered. Returns the Report on success.
    """
    options = gate_options(None, max_peak_bytes=max_bytes)
    report = _report_of(fn, args, kwargs)
    return _check("assert_memory", report, options, finding_filter())
