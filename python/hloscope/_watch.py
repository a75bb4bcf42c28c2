"""hloscope.watch(): every XLA compilation of this process checked as it happens.

    with hloscope.watch(raise_on="copies_in_loops", min_bytes=1 << 20):
        train_step(state, batch)          # raises at the compile that breaks the budget

    w = hloscope.watch(warn=True)         # a plain call: watches until w.stop() (or exit)
    ...
    print(w.summary())

How: each compilation JAX starts while watching gets XLA's `xla_dump_to` among its
per-compilation options (the same mechanism as ``.compile(compiler_options=...)``),
pointing at a private folder, so the optimized module and its buffer assignment are
written whether or not JAX was initialized before; right after XLA returns, the new
module is checked (verdicts confirmed against the buffer assignment), a warning is
printed or hloscope.BudgetError raised in the call that compiled. This wraps two
functions of jax._src.compiler (get_compile_options, compile_or_get_cached); if a
JAX version lacks them, watch() says so instead of watching nothing.

``buffer_assignment=False`` is the cheap form: no dumps at all (on CPU XLA also writes
every kernel's LLVM IR and object file when it dumps, a quarter of the compile time);
each module's optimized HLO is read from the executable XLA returns, and verdicts are
unconfirmed (no buffer assignment).

Not seen: functions compiled before watching began, and compilations JAX serves from
its caches (in memory, or the persistent compilation cache): nothing is compiled,
so there is nothing to check; summary() counts the latter.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from typing import Optional

from . import _hloscope as _C
from ._options import finding_filter, gate_names, gate_options
from ._report import Report

__all__ = ["watch", "Watcher", "BudgetError"]

class BudgetError(AssertionError):
    """Raised by watch(raise_on=...) in the call whose compilation broke the budget."""


class Watcher:
    """What watch() returns: the compilations checked so far, and how to stop."""

    _lock = threading.Lock()
    _active: Optional["Watcher"] = None

    def __init__(self, raise_on, warn: bool, filter: "_C.FindingFilter", keep_dumps: Optional[str],
                 buffer_assignment: bool = True):
        # The engine's gate policy decides (analysis/policy.h): the gates named
        # here raise; --warn reports what the default gates catch.
        self.raise_on = tuple(gate_names(raise_on, keyword="raise_on"))  # unknown names: ValueError now
        self._raise_gates = gate_options(self.raise_on)
        self._warn_gates = gate_options("default")
        self._filter = filter
        self.warn = warn
        self.min_bytes = filter.min_bytes
        self.reports: list = []        # (dump file name, Report) in compile order
        self.cache_hits = 0            # compilations served without compiling
        self.buffer_assignment = buffer_assignment
        if keep_dumps and not buffer_assignment:
            raise ValueError("keep_dumps needs dumps: buffer_assignment=False writes none")
        self._keep = keep_dumps is not None
        self._dir = None
        if buffer_assignment:
            self._dir = os.path.abspath(keep_dumps) if keep_dumps else tempfile.mkdtemp(prefix="hloscope-watch-")
            os.makedirs(self._dir, exist_ok=True)
        self._seen: set = set()
        self._saved = None

    # -- the hooks ------------------------------------------------------------------------
    def _install(self) -> None:
        try:
            from jax._src import compiler
        except ImportError as e:  # pragma: no cover - jax is a dependency of this feature
            raise RuntimeError("hloscope.watch() needs jax") from e
        if not (hasattr(compiler, "get_compile_options") and hasattr(compiler, "compile_or_get_cached")):
            raise RuntimeError("hloscope.watch(): this JAX has no jax._src.compiler.get_compile_options/"
                               "compile_or_get_cached to hook; use `hloscope run -- python ...` instead")
        with Watcher._lock:
            if Watcher._active is not None:
                raise RuntimeError("hloscope.watch() is already watching in this process")
            Watcher._active = self
        get_options, compile_cached = compiler.get_compile_options, compiler.compile_or_get_cached
        watcher = self

        def get_compile_options(*args, **kwargs):
            env = dict(kwargs.get("env_options_overrides") or {})
            env.setdefault("xla_dump_to", watcher._dir)
            kwargs["env_options_overrides"] = env
            return get_options(*args, **kwargs)

        def compile_or_get_cached(*args, **kwargs):
            before = len(watcher._seen)
            executable = compile_cached(*args, **kwargs)
            if watcher.buffer_assignment:
                watcher._scan()
            else:
                watcher._check_executable(executable)
            if len(watcher._seen) == before:
                watcher.cache_hits += 1
            return executable

        if self.buffer_assignment:
            compiler.get_compile_options = get_compile_options
        compiler.compile_or_get_cached = compile_or_get_cached
        self._saved = (compiler, get_options, compile_cached)

    def _scan(self) -> None:
        from ._api import analyze
        for name in sorted(os.listdir(self._dir)):
            # XLA's naming is the engine's to know (parser/dump_naming.h).
            if name in self._seen or not _C.is_optimized_dump_name(name):
                continue
            path = os.path.join(self._dir, name)
            self._seen.add(name)
            self._checked(name, analyze(path))

    def _check_executable(self, executable) -> None:
        # A cache hit returns an executable too; its id marks it as seen.
        key = f"executable-{id(executable)}"
        if key in self._seen:
            return
        try:
            texts = [m.to_string() for m in executable.hlo_modules()]
        except Exception as e:  # an executable type without hlo_modules(): say so once
            raise RuntimeError(f"hloscope.watch(buffer_assignment=False): cannot read the optimized HLO "
                               f"from {type(executable).__name__}: {e}") from e
        from ._api import analyze
        self._seen.add(key)
        self._checked(key, analyze("\n".join(texts), buffer_assignment=False))

    def _problems(self, report: Report, gates) -> list:
        return list(report._engine.violation_lines(gates, self._filter)) if report._engine else []

    def _checked(self, name: str, report: Report) -> None:
        self.reports.append((name, report))
        problems = self._problems(report, self._warn_gates)
        if self.warn and problems:
            print(f"hloscope: warning: {report.modules[0].name}: {problems[0]}"
                  + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""), file=sys.stderr)
        if not self.raise_on:
            return
        message = report._engine.gate_failure(self._raise_gates, self._filter,
                                              f"hloscope.watch: {report.modules[0].name} broke the gates "
                                              f"{','.join(self.raise_on)}")
        if message is not None:
            raise BudgetError(message + "\n" + str(report))

    # -- the public side --------------------------------------------------------------------
    def stop(self) -> None:
        """Stops watching; the dump folder is removed unless keep_dumps was given."""
        if self._saved is None:
            return
        compiler, get_options, compile_cached = self._saved
        compiler.get_compile_options = get_options
        compiler.compile_or_get_cached = compile_cached
        self._saved = None
        with Watcher._lock:
            Watcher._active = None
        if not self._keep and self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> "Watcher":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def problems(self) -> list:
        """(module, problem) for every compilation that breaks the default gates (copies in
        loops, updates not in place, full rewrites in loops), counting what the filter counts."""
        return [(r.modules[0].name, p) for _, r in self.reports for p in self._problems(r, self._warn_gates)]

    def summary(self) -> str:
        lines = [f"hloscope.watch: {len(self.reports)} compilation(s) checked, "
                 f"{self.cache_hits} served from JAX's caches (not checked)"]
        for name, r in self.reports:
            lines.append(f"  {r.headline}")
        return "\n".join(lines)


def watch(*, raise_on=None, warn: bool = False, min_bytes: int = 0, include_minor: bool = False,
          include_library: bool = False, keep_dumps: Optional[str] = None,
          buffer_assignment: bool = True) -> Watcher:
    """Starts checking every compilation of this process; returns the Watcher (also a
    context manager that stops it). `raise_on`: gate or preset names as ``--fail-on``
    takes them (``"default"``, ``"copies_in_loops"``, ``"not-in-place"``, ...; the
    old ``"out_of_place"`` and ``"any"`` still work): raise hloscope.BudgetError in the
    call that compiled a module breaking them. `warn`: print a line on stderr for each
    module the default gates catch. `min_bytes`, `include_minor`, `include_library`:
    which findings count, as everywhere (``--min-bytes`` ...). ``buffer_assignment=False``:
    no dumps, the HLO read from each executable, verdicts unconfirmed (the cheap form)."""
    w = Watcher(raise_on, warn, finding_filter(include_minor=include_minor, include_library=include_library,
                                               min_bytes=min_bytes), keep_dumps, buffer_assignment)
    w._install()
    return w
