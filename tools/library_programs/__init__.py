"""Realistic JAX-library workloads whose compiled HLO becomes the `jax-libs` fixtures.

Each module here writes programs the way a user of one library does, from that
library's public API (flax, optax, equinox, diffrax, numpyro, blackjax, haiku,
flashbax, optimistix, mctx, gymnax, evosax), plus plain jax.random loops and a
user-style replay ring buffer (slow and fixed).  They need the libraries, so
they run with /work/libvenv/bin/python (see tools/gen_library_fixtures.py for
the pinned versions), not with the system python3.

A workload is a function of arrays (and static Python ints) registered with
:func:`workload`.  Its ``__name__`` is the workload name, so ``jax.jit`` names
the compiled module ``jit_<name>``.  ``make_args(size)`` builds deterministic
arguments for a size: buffer rows, saved points, samples, simulations,
generations or batch rows (``size_meaning`` says which).  ``work_units(size)``
is how much work one call does in the bench's units: 1 when the work per call
is fixed while the buffer grows (then time per call should be flat if nothing
is copied per step), ``size`` when the number of steps/samples itself grows
(then time per unit should be flat).
"""
from __future__ import annotations

import dataclasses
import importlib
import os
import pkgutil
from typing import Any, Callable, Dict, Optional, Tuple

os.environ.setdefault("JAX_PLATFORMS", "cpu")


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    fn: Callable[..., Any]
    make_args: Callable[[int], Tuple[Any, ...]]
    base_size: int
    size_meaning: str
    work_units: Callable[[int], float]
    donate_argnums: Tuple[int, ...]
    static_argnums: Tuple[int, ...]
    description: str
    library: str              # PyPI distribution name ("jax" for plain JAX programs)
    expect: str               # "flat": time per unit should not grow with size; "grows": it should
    jit: Optional[Callable[[Callable[..., Any]], Any]]  # a library's own jit (eqx.filter_jit); None: jax.jit
    module: str

    @property
    def library_version(self) -> str:
        from importlib import metadata
        return metadata.version(self.library)

    def jitted(self):
        if self.jit is not None:
            return self.jit(self.fn)
        import jax
        return jax.jit(self.fn, donate_argnums=self.donate_argnums, static_argnums=self.static_argnums)

    def dynamic_args(self, args):
        return tuple(a for i, a in enumerate(args) if i not in self.static_argnums)

    def compile(self, args, compiler_options=None):
        """(compiled, text): the XLA executable for `args` and its optimized HLO text.

        `compiled` is called with `dynamic_args(args)`."""
        lowered = self.jitted().lower(*args)
        compiled = lowered.compile(compiler_options=compiler_options or {})
        inner = getattr(compiled, "compiled", None)   # equinox's Compiled wraps jax's
        text = (inner if inner is not None else compiled).as_text()
        return compiled, text


REGISTRY: Dict[str, Workload] = {}


def workload(*, args: Callable[[int], Tuple[Any, ...]], base: int, size: str, desc: str, library: str,
             units: str = "call", donate: Tuple[int, ...] = (), static: Tuple[int, ...] = (),
             expect: str = "flat", jit: Optional[Callable] = None):
    """Register a workload.  units: "call" (work per call fixed) or "size" (work ∝ size)."""
    if units not in ("call", "size"):
        raise ValueError(units)

    def deco(fn):
        name = fn.__name__
        if name in REGISTRY:
            raise ValueError(f"duplicate workload {name!r}")
        if not name.replace("_", "").isalnum() or name.lower() != name:
            raise ValueError(f"workload name must be snake_case: {name!r}")
        REGISTRY[name] = Workload(
            name=name, fn=fn, make_args=args, base_size=base, size_meaning=size,
            work_units=(lambda n: 1.0) if units == "call" else (lambda n: float(n)),
            donate_argnums=tuple(donate), static_argnums=tuple(static), description=desc,
            library=library, expect=expect, jit=jit, module=fn.__module__)
        return fn

    return deco


def load_all() -> Dict[str, Workload]:
    """Import every module of this package (sorted) and return the registry.

    A module whose library does not import is skipped with a message on stderr."""
    import sys
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            importlib.import_module(f"{__name__}.{info.name}")
        except ImportError as e:  # a library missing from this environment
            print(f"library_programs: skipping {info.name}: {e}", file=sys.stderr)
    return dict(sorted(REGISTRY.items()))
