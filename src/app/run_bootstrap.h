// The Python file `hloscope run --no-buffer-assignment` and `--raise` put
// first on the program's PYTHONPATH as sitecustomize.py. When the program
// imports jax._src.compiler it wraps compile_or_get_cached:
//   * HLOSCOPE_RUN_HLO_DIR (--no-buffer-assignment, no XLA dumps): each
//     compiled module's optimized HLO, read from the executable with its
//     metadata, is written there whole (a rename), named
//     PID.N.MODULE.after_optimizations.txt;
//   * HLOSCOPE_RUN_SYNC_DIR (--raise): after each compile it leaves
//     PID.N.compiled there and waits for hloscope's PID.N.verdict (empty:
//     fine; else the problems), raising BudgetError in the compiling call;
//   * HLOSCOPE_RUN_PROFILE_DIR (--profile): at the first compile it starts
//     jax.profiler's trace into that folder, stopped when the program exits.
// It imports nothing of JAX's itself (--profile: jax.profiler, once JAX has
// compiled), needs no hloscope package in the program's Python, and then
// runs the environment's own sitecustomize.
#ifndef HLOSCOPE_APP_RUN_BOOTSTRAP_H_
#define HLOSCOPE_APP_RUN_BOOTSTRAP_H_

#include <string_view>

namespace hloscope {

inline constexpr std::string_view kRunBootstrap =
    R"py(# Written by `hloscope run --no-buffer-assignment` (src/app/run_bootstrap.h).
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import os
import sys
import time

_DIR = os.environ.get("HLOSCOPE_RUN_HLO_DIR")
_SYNC = os.environ.get("HLOSCOPE_RUN_SYNC_DIR")
_PROFILE = os.environ.get("HLOSCOPE_RUN_PROFILE_DIR")
_tracing = []
_count = itertools.count()
_syncs = itertools.count()


class BudgetError(AssertionError):
    """hloscope run --raise: this compilation broke the budget."""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def _verdict():
    # hloscope's folder gone (a worker outliving the run): no verdict, and
    # the compile is not broken for hloscope's sake.
    try:
        return _wait_for_verdict()
    except OSError:
        return ""


def _wait_for_verdict():
    marker = os.path.join(_SYNC, "%d.%d" % (os.getpid(), next(_syncs)))
    open(marker + ".compiled", "w").close()
    # hloscope gone (killed, crashed): the program runs on at once, not after
    # the 120 s that remain the limit for an answer.
    watcher = int(os.environ.get("HLOSCOPE_RUN_PID", "0") or 0)
    deadline = time.monotonic() + 120
    polls = 0
    while not os.path.exists(marker + ".verdict"):
        if time.monotonic() > deadline:
            return ""
        polls += 1
        if watcher > 0 and polls % 50 == 0 and not _alive(watcher):
            return ""
        time.sleep(0.002)
    with open(marker + ".verdict", encoding="utf-8") as f:
        return f.read()


def _write(executable):
    for module in executable.hlo_modules():
        text = module.to_string()
        first = text.split(None, 2)
        name = first[1].rstrip(",") if len(first) > 1 and first[0] == "HloModule" else "module"
        name = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:120]
        path = os.path.join(_DIR, "@RUN_HLO_FILE_FORMAT@" % (os.getpid(), next(_count), name))
        with open(path + ".part", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".part", path)


def _stop_trace():
    # Ours only, once: at exit, or when the program starts a trace of its own.
    if _tracing != [True]:
        return
    _tracing.append(False)
    try:
        from jax._src import profiler
        profiler.stop_trace()
    except Exception:
        pass


def _start_trace():
    # Once, at the first compile (JAX is imported by then), into a folder of
    # this process's own (a worker process traces apart); stopped at exit,
    # which writes the trace. One trace runs at a time: a trace the program
    # starts itself (start_trace, trace()) ends ours first. A profiler that
    # cannot start leaves the program as it was.
    _tracing.append(True)
    try:
        import atexit
        from jax._src import profiler
        profiler.start_trace(os.path.join(_PROFILE, str(os.getpid())))
        atexit.register(_stop_trace)
        own_start = profiler.start_trace

        def start_trace(*args, **kwargs):
            _stop_trace()
            return own_start(*args, **kwargs)

        profiler.start_trace = start_trace
        import jax.profiler
        jax.profiler.start_trace = start_trace
        # Newer JAX: trace() starts a ProfileSession without start_trace.
        session = getattr(profiler, "ProfileSession", None)
        if session is not None and hasattr(session, "start"):
            own_session_start = session.start

            def session_start(self, *args, **kwargs):
                _stop_trace()
                return own_session_start(self, *args, **kwargs)

            session.start = session_start
    except Exception as e:
        _tracing.append(False)
        sys.stderr.write("hloscope run: --profile could not start jax.profiler: %s\n" % (e,))


def _install(compiler):
    original = compiler.compile_or_get_cached

    def compile_or_get_cached(*args, **kwargs):
        if _PROFILE and not _tracing:
            _start_trace()
        executable = original(*args, **kwargs)
        if _DIR:
            try:
                _write(executable)
            except Exception as e:  # never break the program for hloscope's sake
                sys.stderr.write("hloscope run: could not read a compiled module: %s\n" % (e,))
        if _SYNC:
            problems = _verdict()
            if problems:
                raise BudgetError(problems)
        return executable

    compiler.compile_or_get_cached = compile_or_get_cached


class _HookJaxCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "jax._src.compiler":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_hook(module):
            exec_module(module)
            _install(module)

        spec.loader.exec_module = exec_and_hook
        return spec


if _DIR or _SYNC or _PROFILE:
    sys.meta_path.insert(0, _HookJaxCompiler())

# The environment's own sitecustomize, if any, still runs (found on the rest of
# the path; this module keeps its name, which the import system needs).
_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in sys.path if os.path.abspath(p or ".") != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
)py";

}  // namespace hloscope

#endif  // HLOSCOPE_APP_RUN_BOOTSTRAP_H_
