"""assert_inplace() and assert_budget(): hloscope's gates as test assertions.

Both take what inspect() takes (a function and its arguments) — or an
existing Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered — and
raise AssertionError naming the broken part of the report and the user's
source lines. Their own options are keyword-only; every other keyword goes
to the function.

The policy — what counts as a copy in a loop, which updates are in place,
how budgets add up — is the C++ engine's (analysis/policy.h), the very one
behind ``hloscope check --fail-on-* --max-*``: a file gets the same verdict
through both. The message is the engine's too.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import Any, Iterable, Optional, Union

from . import _hloscope as _C
from ._api import _jax_stage_types, analyze, inspect
from ._report import Report

__all__ = ["assert_inplace", "assert_budget"]

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


def _check(kind: str, report: Report, options: "_C.GateOptions") -> Report:
    if report._engine is None:
        raise ValueError(f"hloscope.{kind}: this Report was built from JSON; gates need a report "
                         "from analyze() or inspect()")
    message = report._engine.gate_failure(options, f"hloscope.{kind}")
    if message is not None:
        raise AssertionError(message)
    return report


def _strings(v: Optional[Iterable]) -> list:
    if v is None:
        return []
    if isinstance(v, (str, int)):
        v = [v]
    return [str(x) for x in v]


def assert_inplace(fn: Any, /, *args: Any, updates: Optional[Iterable[str]] = None,
                   lines: Optional[Iterable[LineSpec]] = None,
                   count_scalar_copies: bool = False, include_library: bool = False,
                   min_bytes: int = 0, **kwargs: Any) -> Report:
    """Asserts that ``fn(*args, **kwargs)`` updates its arrays in place.

    Every update must have the verdict ``in-place`` or ``not-materialized`` (an
    update that runs on a copy XLA made first — ``in-place-on-copy`` — fails, and
    so does a verdict XLA's buffer assignment contradicts), and no array copy may
    run inside a loop: ``hloscope check --fail-on-out-of-place
    --fail-on-copies-in-loops``.

    With ``updates=`` (instruction names, e.g. ``["dynamic-update-slice.7"]``; a
    fusion's name selects the updates inside it) and/or ``lines=`` (``42``,
    ``"train.py:42"``) only those updates are checked, with the copies in loops
    that feed them or come from those lines (``--update``, ``--line``).
    Selecting nothing fails.

    Copies of scalars (the loop counter XLA copies in every loop) are ignored
    unless ``count_scalar_copies=True`` (``--count-scalar-copies``); so are
    findings made inside library code (jax.random's jitted helpers, frames under
    site-packages) unless ``include_library=True`` (``--include-library``), and
    copies moving fewer than ``min_bytes`` per call (``--min-bytes``).

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    report = _report_of(fn, args, kwargs)
    options = _C.GateOptions()
    options.fail_on_out_of_place = True
    options.fail_on_copies_in_loops = True
    options.count_scalar_copies = count_scalar_copies
    options.count_library = include_library
    options.min_bytes = _budget("min_bytes", min_bytes)
    options.updates = _strings(updates)
    options.lines = _strings(lines)
    return _check("assert_inplace", report, options)


_INT64_MAX = 2**63 - 1


def _budget(name: str, value: Any) -> Optional[int]:
    """A budget as the CLI takes it: a whole number from 0 to 2**63 - 1.

    NaN, infinities, negative numbers and fractions are a ValueError (a
    NaN budget would pass every program); a non-number is a TypeError.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, numbers.Real)):
        raise TypeError(f"{name} must be a whole number of bytes or copies, not "
                        f"{type(value).__name__}")
    if isinstance(value, numbers.Integral):
        n = int(value)
    else:
        f = float(value)
        if not math.isfinite(f) or not f.is_integer():
            raise ValueError(f"{name} must be a whole number from 0 to {_INT64_MAX}, not {value!r}")
        n = int(f)
    if n < 0 or n > _INT64_MAX:
        raise ValueError(f"{name} must be a whole number from 0 to {_INT64_MAX}, not {value!r}")
    return n


def assert_budget(fn: Any, /, *args: Any, max_copy_bytes: Optional[int] = None,
                  max_copies: Optional[int] = None, max_copies_in_loops: Optional[int] = None,
                  max_copy_bytes_in_loops: Optional[int] = None,
                  count_scalar_copies: bool = False, include_library: bool = False,
                  min_bytes: int = 0, **kwargs: Any) -> Report:
    """Asserts that the copies of ``fn(*args, **kwargs)`` stay within a budget.

    * ``max_copy_bytes``: bytes all copies move per call (bytes × executions);
    * ``max_copies``: number of copy instructions;
    * ``max_copies_in_loops``: number of copy instructions inside loops;
    * ``max_copy_bytes_in_loops``: bytes per call moved by copies inside loops.

    The same budgets as ``hloscope check --max-copy-bytes N --max-copies N
    --max-copies-in-loops N --max-copy-bytes-in-loops N``. Limits are per HLO
    module (one per jitted call). A copy whose execution count is unknown breaks
    any byte limit. Copies of scalars (the loop counter XLA copies in every loop)
    are not counted unless ``count_scalar_copies=True``, copies made inside
    library code unless ``include_library=True``, nor copies moving fewer than
    ``min_bytes`` per call (``--include-library``, ``--min-bytes``). A limit is a whole
    number from 0 to 2**63 - 1: NaN, infinities, negative numbers and
    fractions raise ValueError (as the CLI rejects them with exit 2).

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    if all(v is None for v in (max_copy_bytes, max_copies, max_copies_in_loops,
                               max_copy_bytes_in_loops)):
        raise TypeError("assert_budget() needs at least one of max_copy_bytes, max_copies, "
                        "max_copies_in_loops, max_copy_bytes_in_loops")
    options = _C.GateOptions()
    options.max_copy_bytes = _budget("max_copy_bytes", max_copy_bytes)
    options.max_copies = _budget("max_copies", max_copies)
    options.max_copies_in_loops = _budget("max_copies_in_loops", max_copies_in_loops)
    options.max_copy_bytes_in_loops = _budget("max_copy_bytes_in_loops", max_copy_bytes_in_loops)
    report = _report_of(fn, args, kwargs)
    options.count_scalar_copies = count_scalar_copies
    options.count_library = include_library
    options.min_bytes = _budget("min_bytes", min_bytes)
    return _check("assert_budget", report, options)
