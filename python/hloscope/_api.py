"""analyze() and inspect(): from HLO text, a dump, or a JAX function to a Report."""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys
import tempfile
import warnings
from typing import Any, Optional

from . import _hloscope as _C
from ._report import Report
from ._units import human_bytes

__all__ = ["analyze", "inspect"]



def _report(engine: "_C.Session", notes=()) -> Report:
    return Report._from_engine(engine, notes)


def _jax_stage_types():
    """(Lowered, Compiled) if jax is imported, else (None, None): never imports jax itself."""
    if "jax" not in sys.modules:
        return None, None
    from jax import stages
    return stages.Lowered, stages.Compiled


def _looks_like_text(s: str, first_word: str) -> bool:
    return "\n" in s or s.lstrip().startswith(first_word)


def _read_text(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def analyze(x: Any, buffer_assignment: Any = None, *, allow_unoptimized: bool = False) -> Report:
    """Checks optimized HLO and returns the Report ``hloscope check`` would print.

    `x` is one of:

    * HLO text (a ``str`` with a newline or starting with ``HloModule``, or ``bytes``);
    * a path (``os.PathLike``, or a one-line ``str``) to an HLO dump such as
      ``module_0001.jit_f.cpu_after_optimizations.txt``;
    * a ``jax.stages.Compiled``: its ``as_text()`` is analyzed. A Compiled object
      does not expose XLA's buffer assignment, so verdicts stay unconfirmed unless
      `buffer_assignment` is given; ``inspect()`` gets the dump for you;
    * a ``jax.stages.Lowered``: compiled here with a temporary dump, like ``inspect()``.

    `buffer_assignment` is XLA's ``-buffer-assignment.txt`` dump (text or path),
    ``None`` to look for it beside a path the way the CLI does, or ``False`` for
    none (``--no-buffer-assignment``). As in the CLI, it is applied only when the
    input holds exactly one module.

    HLO before optimization (a ``before_optimizations`` dump,
    ``lowered.as_text(dialect="hlo")``: not scheduled) raises ParseError, as
    ``hloscope check`` refuses it — XLA has not decided its copies yet — unless
    ``allow_unoptimized=True``. StableHLO, a jaxpr or a buffer-assignment dump
    given as `x` raise ParseError saying what they are.

    Raises ParseError on malformed HLO or dump text, FileNotFoundError for a
    missing file.
    """
    require = not allow_unoptimized
    lowered_t, compiled_t = _jax_stage_types()
    if lowered_t is not None and isinstance(x, lowered_t):
        if buffer_assignment not in (None, False):
            raise TypeError("buffer_assignment cannot be given with a jax.stages.Lowered: "
                            "it is compiled here and XLA's own dump is used")
        return _check_lowered(x)

    ba_text: Optional[str] = None
    ba_path = ""
    if buffer_assignment is not None and buffer_assignment is not False:
        ba_text, ba_path = _load_ba(buffer_assignment)

    if compiled_t is not None and isinstance(x, compiled_t):
        text = x.as_text()
        if not text:
            raise ValueError("this jax.stages.Compiled has no HLO text (as_text() is empty)")
        return _text_report(text, "<compiled.as_text()>", ba_text, ba_path, require=require)

    if isinstance(x, (bytes, bytearray)):
        return _text_report(bytes(x).decode("utf-8", errors="replace"), "<input>", ba_text,
                            ba_path, require=require)
    if isinstance(x, str) and _looks_like_text(x, "HloModule"):
        return _text_report(x, "<input>", ba_text, ba_path, require=require)
    if isinstance(x, (str, os.PathLike)):
        path = os.fspath(x)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such HLO file: {path!r} (HLO text must contain a "
                                    "newline or start with 'HloModule')")
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (os.fsdecode's surrogates): the engine takes UTF-8
            # paths, so Python reads the file and names it with the undecodable bytes replaced.
            shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            return _text_report(_read_text(path), shown, ba_text, ba_path, require=require)
        if ba_text is not None:
            return _text_report(_read_text(path), path, ba_text, ba_path, require=require)
        return _report(_C.Session.open_file(path, None, buffer_assignment is None, require))
    raise TypeError(f"hloscope.analyze() takes HLO text, a path, a jax.stages.Compiled or "
                    f"jax.stages.Lowered, not {type(x).__name__}")


def _text_report(text: str, name: str, ba_text: Optional[str] = None, ba_path: str = "",
                 notes=(), require: bool = False, pre_text: Optional[str] = None, pre_path: str = "",
                 donation_requested: "Optional[list[bool]]" = None,
                 before_header: Optional[str] = None) -> Report:
    return _report(_C.Session.open_text(text, name, ba_text, ba_path, require, pre_text, pre_path,
                                        donation_requested, before_header), notes)


def _first_line(path: Optional[str]) -> Optional[str]:
    """The header line of an HLO dump (the module's attributes: Shardy's mesh), or None."""
    if not path:
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline(1 << 20)


def _load_ba(ba: Any) -> "tuple[str, str]":
    if isinstance(ba, (bytes, bytearray)):
        return bytes(ba).decode("utf-8", errors="replace"), "<buffer-assignment>"
    if isinstance(ba, str) and _looks_like_text(ba, "BufferAssignment"):
        return ba, "<buffer-assignment>"
    if isinstance(ba, (str, os.PathLike)):
        path = os.fspath(ba)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such buffer-assignment file: {path!r}")
        return _read_text(path), path
    raise TypeError(f"buffer_assignment must be text, a path, None or False, "
                    f"not {type(ba).__name__}")


def inspect(fn: Any, /, *args: Any, target: Any = None, **kwargs: Any) -> Report:
    """Compiles ``fn(*args, **kwargs)`` with JAX and checks the optimized HLO.

    `fn` is a plain function (wrapped in ``jax.jit``) or a ``jax.jit``-wrapped one,
    whose ``donate_argnums``, ``static_argnums``/``static_argnames`` and shardings
    are respected: hloscope calls ``fn.lower(*args, **kwargs).compile(...)``.
    Arguments may be arrays, ``jax.ShapeDtypeStruct`` or pytrees of them; every
    keyword argument is passed on to `fn`. A plain function sees all arguments
    as traced; use ``jax.jit(fn, static_argnums=...)`` for static ones.

    XLA's own buffer assignment is read from a temporary ``xla_dump_to``
    directory (removed afterwards), so every update verdict is confirmed or
    contradicted by the compiler. The executable is compiled anew, never taken
    from JAX's caches.

    `target` compiles for a device this machine does not have: ``"tpu-v5e"``,
    ``"tpu-v4"``, ``"tpu-v6e"``, ``"gpu-h100"``, ``"gpu-a100"``, or the path of a
    GpuTargetConfigProto text file (every XLA GPU dump writes one as
    ``*.gpu_target_config.pbtxt``). Array arguments become
    ``jax.ShapeDtypeStruct``s on that device; nothing runs. It needs the
    compile-only package for that backend (libtpu, or the CUDA plugin with
    ``JAX_PLATFORMS=cpu``); without it TargetUnavailable names the pip command.
    ``None`` or ``"cpu"``: this machine's default backend. (A function keyword
    argument named ``target`` has to go through ``functools.partial``.)
    """
    lowered_t, compiled_t = _jax_stage_types()
    if lowered_t is not None and isinstance(fn, (lowered_t, compiled_t)):
        if args or kwargs:
            raise TypeError("inspect() takes no arguments with a Lowered or Compiled object")
        if target not in (None, "cpu"):
            raise TypeError("target= cannot be given with a Lowered or Compiled object: it was "
                            "already lowered for its own device")
        return analyze(fn)
    lowered, notes = _lower(fn, args, kwargs, target)
    report = _compile_and_check(lowered, notes)[0]
    if not hasattr(fn, "lower"):
        _prove_donation_fix(report, fn, args, kwargs, target)
    return report


_DONATE_FIX = re.compile(r"jax\.jit\(f, (donate_argnames)=(\([^)]*\)|\"[^\"]*\")\)")


def _prove_donation_fix(report: Report, fn: Any, args: tuple, kwargs: dict, target: Any) -> None:
    """Where the answer advises donating arguments (an ``undonated`` finding that stands out),
    compiles `fn` with that donation, exactly as the fix prints it, and records the peak XLA's
    ``memory_analysis()`` gives then (``peak_after_compiled`` in the finding, and a note): the
    engine's ``peak_after`` is the best case, XLA may pack its temporaries otherwise."""
    import jax

    for module in report.modules:
        answer = module.answer or {}
        for finding in answer.get("findings", []):
            if finding.get("kind") != "undonated" or not finding.get("stands_out"):
                continue
            m = _DONATE_FIX.search(finding.get("fix") or "")
            if not m:
                continue
            names = ast.literal_eval(m.group(2))
            try:
                lowered, _ = _lower(jax.jit(fn, donate_argnames=names), args, kwargs, target)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mem = lowered.compile().memory_analysis()
                peak = (mem.argument_size_in_bytes + mem.output_size_in_bytes - mem.alias_size_in_bytes
                        + mem.temp_size_in_bytes)
            except Exception as e:  # noqa: BLE001 - the proof is extra; say why it is missing
                report.notes.append(f"{module.name}: the donation fix could not be compiled to measure it: "
                                    f"{type(e).__name__}: {e}")
                continue
            finding["peak_after_compiled"] = peak
            report.notes.append(
                f"{module.name}: compiled with donate_argnames={names!r}, as the fix says: the peak is "
                f"{human_bytes(peak)} (was {human_bytes(finding.get('peak_before') or 0)}; XLA's "
                f"memory_analysis())")


def _lower(fn: Any, args: tuple, kwargs: dict, target: Any) -> "tuple[Any, list]":
    """``fn.lower(*args, **kwargs)`` (fn jitted if it is not), for `target` when one is named
    (inspect()'s targets), and the notes that say so."""
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    notes = []
    if target is not None:
        from . import _targets
        t = _targets.resolve(target)
        devices = _targets.devices_for(t)
        if len(devices) > 1:
            # A slice: the arguments keep the user's shardings, on the slice's devices.
            args = _targets.place_sharded(args, devices)
            kwargs = _targets.place_sharded(kwargs, devices)
            notes.append(f"compiled for {t.name} ({len(devices)} × {devices[0].device_kind}) without the "
                         f"hardware")
        elif devices:
            args = _targets.place(args, devices[0])
            kwargs = _targets.place(kwargs, devices[0])
            notes.append(f"compiled for {t.name} ({devices[0].device_kind}) without the hardware")
    return jitted.lower(*args, **kwargs), notes


def _find_dump(folder: str) -> "Optional[tuple[str, Optional[str]]]":
    """The main module's optimized HLO in an xla_dump_to folder and its buffer assignment."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return None
    candidates = []
    for n in names:
        # XLA's naming is the engine's to know (parser/dump_naming.h).
        if not _C.is_optimized_dump_name(n):
            continue
        path = os.path.join(folder, n)
        ba = _C.find_buffer_assignment_beside(path)
        candidates.append((ba is not None, os.path.getsize(path), n, ba))
    if not candidates:
        return None
    # The module with a buffer assignment; among several, the largest (the program
    # itself rather than a helper XLA compiled alongside).
    has_ba, _, name, ba_path = max(candidates)
    return os.path.join(folder, name), ba_path


# Dump options besides xla_dump_to. Without the buffer-assignment *analysis*
# XLA still writes -buffer-assignment.txt (identical), but skips the
# -buffer-assignment-values.txt and -live-range.txt files and their analysis,
# which halves what the dump adds to compile time.
# The module before SPMD partitioning too (a sharded program's re-shards say which
# shardings differed; docs/sharding.md): one more HLO file, only where XLA partitions.
_EXTRA_DUMP_OPTIONS = {"xla_dump_buffer_assignment_analysis": False,
                       "xla_dump_hlo_pass_re": "spmd-partitioning"}


def _compile_with_dump(lowered: Any, folder: str) -> Any:
    global _EXTRA_DUMP_OPTIONS
    if _EXTRA_DUMP_OPTIONS:
        try:
            return lowered.compile(compiler_options={"xla_dump_to": folder,
                                                     **_EXTRA_DUMP_OPTIONS})
        except Exception as e:  # an XLA without that option: "No such compile option"
            if not any(k in str(e) for k in _EXTRA_DUMP_OPTIONS):
                raise
            _EXTRA_DUMP_OPTIONS = {}
    return lowered.compile(compiler_options={"xla_dump_to": folder})


def _check_lowered(lowered: Any) -> Report:
    return _compile_and_check(lowered)[0]


def _compile_and_check(lowered: Any, notes=()) -> "tuple[Report, Any]":
    """Compiles with a temporary dump; the report and the compiled executable
    (scaling() times the very executable it checked)."""
    tmp = tempfile.mkdtemp(prefix="hloscope-")
    try:
        compiled = _compile_with_dump(lowered, tmp)
        report = _report_of_dump(tmp, compiled, notes, _requested_donations(lowered))
        _note_dropped_donations(report)
        return report, compiled
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _requested_donations(lowered: Any) -> "Optional[list[bool]]":
    """The donation the user asked for (``donate_argnums``), one flag per argument XLA received.

    JAX knows which arguments were donated, including those it dropped itself before lowering
    (no output of the same shape: only a warning); the module only says which ones XLA aliases.
    The session compares the two and gives each dropped donation its reason and a fix
    (``Parameter.donation_requested``, ``donation_dropped``). None for another JAX.
    """
    try:
        import jax
        leaves = jax.tree_util.tree_leaves(lowered.args_info)
        kept = lowered._lowering.compile_args.get("kept_var_idx")
    except Exception:  # noqa: BLE001 - another JAX: the request is unknown, say nothing
        return None
    if kept is None:
        return None
    return [bool(getattr(leaf, "donated", False)) for i, leaf in enumerate(leaves) if i in kept]


def _note_dropped_donations(report: Report) -> None:
    """One note per reason XLA did not keep donations the user asked for, naming every argument
    it applies to (an FSDP step drops 50 donations for one reason: one note, not 50)."""
    for module in report.modules:
        by_reason: dict = {}
        for p in module.parameters:
            if p.donation_dropped:
                # One note per fix: the reasons differ only by each argument's shape.
                by_reason.setdefault(str(p.donation_dropped).rsplit(". Fix: ", 1)[-1], []).append(p)
        for params in by_reason.values():
            reason = params[0].donation_dropped
            if len(params) == 1:
                p = params[0]
                who = f"{p.argument or p.name} (argument {p.number}) was"
            else:
                names = [f"{p.argument or p.name} (argument {p.number})" for p in params[:4]]
                more = f" and {len(params) - 4} more" if len(params) > 4 else ""
                who = f"{len(params)} arguments, {', '.join(names)}{more}, were"
                reason = f"for {params[0].argument or params[0].name}: {reason}"
            report.notes.append(f"{module.name}: {who} donated but XLA did not keep the donation: {reason}")


def _report_of_dump(tmp: str, compiled: Any, extra_notes=(), donation_requested=None) -> Report:
    """The report of the optimized module XLA dumped into `tmp`."""
    found = _find_dump(tmp)
    if found is None:
        # No dump: JAX's persistent compilation cache served the executable
        # (xla_dump_to is not part of its key), or the backend does not dump.
        text = compiled.as_text()
        note = ("XLA wrote no dump (the executable probably came from JAX's persistent "
                "compilation cache), so the verdicts are not checked against XLA's "
                "buffer assignment")
        return _text_report(text, "<compiled.as_text()>", notes=[*extra_notes, note],
                            donation_requested=donation_requested)
    hlo_path, ba_path = found
    hlo_text = _read_text(hlo_path)
    notes = list(extra_notes)
    if ba_path is None:
        ba_text = None
        notes.append("XLA wrote no buffer-assignment dump; verdicts are unconfirmed")
    else:
        ba_text = _read_text(ba_path)
    pre_path = _C.find_pre_partition_beside(hlo_path)
    pre_text = _read_text(pre_path) if pre_path else None
    return _text_report(hlo_text, os.path.basename(hlo_path), ba_text,
                        os.path.basename(ba_path) if ba_path else "", notes,
                        pre_text=pre_text, pre_path=os.path.basename(pre_path) if pre_path else "",
                        donation_requested=donation_requested,
                        before_header=_first_line(_C.find_before_optimizations_beside(hlo_path)))
