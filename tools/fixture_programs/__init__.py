"""Small real JAX programs whose compiled HLO becomes hloscope's test fixtures.

Every program is a plain function registered with :func:`program`.  The
function's ``__name__`` must equal the program name, because ``jax.jit`` names
the compiled module ``jit_<__name__>`` and ``tools/gen_fixtures.py`` finds the
dump files by that name.

Argument factories return NumPy arrays (or Python scalars for static
arguments) built deterministically, so regenerating the fixtures gives the
same HLO.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, Callable, Dict, Tuple


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]
    make_args: Callable[[], Tuple[Any, ...]]
    donate_argnums: Tuple[int, ...]
    static_argnums: Tuple[int, ...]
    description: str
    module: str  # python module name, e.g. "fixture_programs.loops"


REGISTRY: Dict[str, Program] = {}


def program(*, args: Callable[[], Tuple[Any, ...]], desc: str,
            donate: Tuple[int, ...] = (), static: Tuple[int, ...] = ()):
    """Register the decorated function as a fixture program.

    args:   zero-argument callable returning the example arguments.
    desc:   one line: what hloscope should find in the compiled HLO.
    donate: donate_argnums for jax.jit.
    static: static_argnums for jax.jit.
    """

    def deco(fn):
        name = fn.__name__
        if name in REGISTRY:
            raise ValueError(f"duplicate fixture program name {name!r}")
        if not name.replace("_", "").isalnum() or name.lower() != name:
            raise ValueError(f"program name must be snake_case: {name!r}")
        REGISTRY[name] = Program(
            name=name,
            fn=fn,
            make_args=args,
            donate_argnums=tuple(donate),
            static_argnums=tuple(static),
            description=desc,
            module=fn.__module__,
        )
        return fn

    return deco


def load_all() -> Dict[str, Program]:
    """Import every module of this package (sorted) and return the registry."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(REGISTRY.items()))
