"""assert_inplace() and assert_budget(): hloscope findings as test assertions.

Both take what inspect() takes (a function and its arguments) — or an
existing Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered — and
raise AssertionError naming the broken part of the report and the user's
source lines. Their own options are keyword-only; every other keyword goes
to the function.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence, Union

from ._api import _jax_stage_types, analyze, inspect
from ._report import (IN_PLACE_VERDICTS, Copy, ModuleReport, Report, Update, _times,
                      human_bytes)

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


def _where(source) -> str:
    return f" at {source}" if source is not None and source.file else ""


def _copy_line(c: Copy) -> str:
    where = f"inside {c.enclosing_loops[0]}" if c.enclosing_loops else "outside any loop"
    line = (f"{c.instruction} {c.shape} {where} moves {human_bytes(c.bytes)} × "
            f"{_times(c.executions, c.executions_upper_bound)} = {human_bytes(c.total_bytes)} "
            f"per call{_where(c.source)} — {c.cause}: {c.cause_detail}")
    if c.hint:
        line += f"\n      hint: {c.hint}"
    return line


def _update_line(u: Update, module: ModuleReport) -> str:
    if u.verdict in IN_PLACE_VERDICTS and u.confirmed is False:
        what = f"is {u.verdict} by hloscope's rules but CONTRADICTED by XLA's buffer assignment"
        detail = u.confirmation or u.reason
    else:
        what = f"is {u.verdict}" + (f" (on {u.copy})" if u.copy else "")
        detail = u.reason
    line = f"{u.label}{_where(u.source)} {what}: {detail}"
    if u.copy:
        for c in module.copies:
            if c.instruction == u.copy:
                line += "\n    " + _copy_line(c)
    return line


def _names(update: Update) -> set:
    return {update.instruction} | ({update.fusion} if update.fusion else set())


def _feeds_name(feed: str) -> str:
    # "dynamic-update-slice.2 (in select_dynamic-update-slice_fusion)" -> instruction name
    return feed.split(" ", 1)[0]


def _message(kind: str, report: Report, problems: Sequence[str]) -> str:
    n = len(problems)
    head = f"hloscope.{kind}: {n} problem{'s' if n != 1 else ''}"
    body = "".join(f"\n  {p}" for p in problems)
    summary = "".join(f"\n    {m.headline}" for m in report.modules)
    return f"{head}{body}\n  report:{summary}"


def assert_inplace(fn: Any, /, *args: Any, updates: Optional[Iterable[str]] = None,
                   lines: Optional[Iterable[LineSpec]] = None,
                   count_scalar_copies: bool = False, **kwargs: Any) -> Report:
    """Asserts that ``fn(*args, **kwargs)`` updates its arrays in place.

    Every update must have the verdict ``in-place`` or ``not-materialized`` (an
    update that runs on a copy XLA made first — ``in-place-on-copy`` — fails, and
    so does a verdict XLA's buffer assignment contradicts), and no copy may run
    inside a loop.

    With ``updates=`` (instruction names, e.g. ``["dynamic-update-slice.7"]``; a
    fusion's name selects the updates inside it) and/or ``lines=`` (``42``,
    ``"train.py:42"``) only those updates are checked, with the copies in loops
    that feed them or come from those lines. Selecting nothing fails.

    Copies of scalars (the loop counter XLA copies in every loop) are ignored
    unless ``count_scalar_copies=True``.

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    report = _report_of(fn, args, kwargs)
    if isinstance(updates, str):
        updates = [updates]
    if isinstance(lines, (str, int)):
        lines = [lines]
    want_names = set(updates) if updates is not None else None
    want_lines = list(lines) if lines is not None else None
    filtered = want_names is not None or want_lines is not None

    def selected(u: Update) -> bool:
        if not filtered:
            return True
        if want_names is not None and _names(u) & want_names:
            return True
        return (want_lines is not None and u.source is not None
                and any(u.source.matches(s) for s in want_lines))

    problems = []
    any_selected = False
    for m in report.modules:
        chosen = [u for u in m.updates if selected(u)]
        any_selected |= bool(chosen)
        for u in chosen:
            if not u.in_place:
                problems.append(_update_line(u, m))
        chosen_names = {u.instruction for u in chosen}
        chosen_copies = {u.copy for u in chosen if u.copy}
        for c in m.copies:
            if not c.enclosing_loops or (c.is_scalar and not count_scalar_copies):
                continue
            if filtered and not (
                    c.instruction in chosen_copies
                    or any(_feeds_name(f) in chosen_names for f in c.feeds)
                    or (want_lines is not None and c.source is not None
                        and any(c.source.matches(s) for s in want_lines))):
                continue
            # A copy already shown under its update is not repeated.
            if any(u.copy == c.instruction and not u.in_place for u in chosen):
                continue
            problems.append(_copy_line(c))
    if filtered and not any_selected:
        available = ", ".join(f"{u.label}{_where(u.source)}" for u in report.updates) or "none"
        problems.append(f"no update matches updates={sorted(want_names) if want_names else None}"
                        f" lines={want_lines}; updates in the program: {available}")
    if problems:
        raise AssertionError(_message("assert_inplace", report, problems))
    return report


def assert_budget(fn: Any, /, *args: Any, max_copy_bytes: Optional[int] = None,
                  max_copies: Optional[int] = None, max_copies_in_loops: Optional[int] = None,
                  max_copy_bytes_in_loops: Optional[int] = None,
                  count_scalar_copies: bool = False, **kwargs: Any) -> Report:
    """Asserts that the copies of ``fn(*args, **kwargs)`` stay within a budget.

    * ``max_copy_bytes``: bytes all copies move per call (bytes × executions);
    * ``max_copies``: number of copy instructions;
    * ``max_copies_in_loops``: number of copy instructions inside loops;
    * ``max_copy_bytes_in_loops``: bytes per call moved by copies inside loops.

    Limits are per HLO module (one per jitted call). A copy whose execution count
    is unknown breaks any byte limit. Copies of scalars (the loop counter XLA
    copies in every loop) are not counted unless ``count_scalar_copies=True``.

    `fn` is anything inspect() takes — every other keyword argument goes to `fn`
    — or a Report, HLO text, a dump path, or a jax.stages.Compiled/Lowered.
    Returns the Report on success.
    """
    if all(v is None for v in (max_copy_bytes, max_copies, max_copies_in_loops,
                               max_copy_bytes_in_loops)):
        raise TypeError("assert_budget() needs at least one of max_copy_bytes, max_copies, "
                        "max_copies_in_loops, max_copy_bytes_in_loops")
    report = _report_of(fn, args, kwargs)
    problems = []
    for m in report.modules:
        copies = [c for c in m.copies if count_scalar_copies or not c.is_scalar]
        in_loops = [c for c in copies if c.enclosing_loops]

        def over_bytes(limit: Optional[int], cs: list, what: str) -> None:
            if limit is None:
                return
            known = sum(c.total_bytes for c in cs if c.total_bytes is not None)
            unknown = any(c.total_bytes is None for c in cs)
            if known > limit or unknown:
                problems.append(
                    f"{m.name}: {what} move {human_bytes(known)} per call"
                    f"{' plus an unknown amount' if unknown else ''}, budget "
                    f"{human_bytes(limit)}:" + "".join(f"\n    {_copy_line(c)}" for c in cs))

        def over_count(limit: Optional[int], cs: list, what: str) -> None:
            if limit is not None and len(cs) > limit:
                problems.append(f"{m.name}: {len(cs)} {what}, budget {limit}:"
                                + "".join(f"\n    {_copy_line(c)}" for c in cs))

        over_bytes(max_copy_bytes, copies, "copies")
        over_count(max_copies, copies, "copies")
        over_count(max_copies_in_loops, in_loops, "copies inside loops")
        over_bytes(max_copy_bytes_in_loops, in_loops, "copies inside loops")
    if problems:
        raise AssertionError(_message("assert_budget", report, problems))
    return report
