"""Sharded JAX programs whose compiled HLO becomes the `sharded-*` fixtures (issue 32).

Every program is written from JAX's public APIs the way a user writes a sharded
program: ``jax.jit`` with ``NamedSharding``/``PartitionSpec`` in and out shardings,
``jax.lax.with_sharding_constraint``, ``jax.shard_map`` with ``lax.psum`` /
``all_gather`` / ``psum_scatter`` / ``all_to_all`` / ``ppermute``, and
``donate_argnums``; a few use flax (linen, nnx), equinox and optax sharding APIs
(those need the library venv, see tools/gen_sharded_fixtures.py).

A program is registered with :func:`sharded_program` on a *factory*:

    @sharded_program(mesh=(("x", -1),), n=4096, grows=True, donate=(0,),
                     desc="...", expect="...")
    def replay_buffer_at_set(mesh, n):
        def fn(buf, obs): ...
        args = (sds(mesh, (n, 64), F32, P("x", None)), sds(mesh, (T, 64), F32, P()))
        return Built(fn, args)

``mesh`` names the mesh axes and their sizes (-1: whatever the device count leaves;
a CPU target has 8 host devices, a TPU v5e 2x2 has 4). The factory gets the
``jax.sharding.Mesh`` and the size parameter ``n`` (the buffer rows, sequence
length or batch that should grow; the generator compiles at ``n`` and, for
``grows=True`` programs, at ``4n``) and returns a :class:`Built`: the function to
jit and its arguments as ``jax.ShapeDtypeStruct`` with a ``NamedSharding`` (global
shapes). ``in_shardings`` are the arguments' shardings; ``out_specs`` (optional)
become ``out_shardings``. The generator names the function after the program, so
the compiled module is ``jit_<name>``.

Nothing here imports jax at import time except through the program modules, and
modules whose libraries are missing register their programs with ``requires``
so that they are listed, and skipped, rather than failing.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
from typing import Any, Callable, Dict, Optional, Tuple


@dataclasses.dataclass
class Built:
    """What a factory returns: the function to jit and its (abstract, sharded) arguments."""
    fn: Callable[..., Any]
    args: Tuple[Any, ...]                 # pytrees of jax.ShapeDtypeStruct with NamedSharding
    out_specs: Any = None                 # pytree of PartitionSpec (-> out_shardings) or None
    jit: Optional[Callable[..., Any]] = None  # a library's own jit: jit(fn, in_sh, out_sh, donate)
    notes: Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ShardedProgram:
    name: str
    factory: Callable[[Any, int], Built]
    mesh_axes: Tuple[Tuple[str, int], ...]   # (axis name, size or -1)
    n: int                                   # default size parameter
    size_meaning: str
    grows: bool                              # compiled at 4n as well and timed by the bench
    loop: bool                               # has a while loop (the growth bench times these)
    donate_argnums: Tuple[int, ...]
    description: str
    expect: str                              # the collectives we expect, in words
    requires: Tuple[str, ...]                # importable modules it needs (flax, equinox, optax)
    module: str

    def missing(self) -> Tuple[str, ...]:
        return tuple(r for r in self.requires if importlib.util.find_spec(r) is None)

    def mesh_shape(self, n_devices: int) -> Tuple[int, ...]:
        fixed = 1
        for _, s in self.mesh_axes:
            if s != -1:
                fixed *= s
        if n_devices % fixed:
            raise ValueError(f"{self.name}: {n_devices} devices do not fit mesh {self.mesh_axes}")
        return tuple(n_devices // fixed if s == -1 else s for _, s in self.mesh_axes)

    def axis_names(self) -> Tuple[str, ...]:
        return tuple(a for a, _ in self.mesh_axes)


REGISTRY: Dict[str, ShardedProgram] = {}


def sharded_program(*, mesh, n: int, desc: str, expect: str, size: str = "rows",
                    grows: bool = False, loop: bool = False, donate=(), requires=()):
    def deco(factory):
        name = factory.__name__
        if name in REGISTRY:
            raise ValueError(f"duplicate sharded program {name!r}")
        if not name.replace("_", "").isalnum() or name.lower() != name:
            raise ValueError(f"program name must be snake_case: {name!r}")
        REGISTRY[name] = ShardedProgram(
            name=name, factory=factory, mesh_axes=tuple(tuple(a) for a in mesh), n=int(n),
            size_meaning=size, grows=bool(grows), loop=bool(loop or grows),
            donate_argnums=tuple(donate), description=desc, expect=expect,
            requires=tuple(requires), module=factory.__module__)
        return factory
    return deco


def load_all() -> Dict[str, ShardedProgram]:
    """Import every module of this package (sorted) and return the registry, sorted by name."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(REGISTRY.items()))
