"""Compile for a GPU or TPU this machine does not have: the named targets.

XLA compiles for a device it only knows by description. JAX exposes that as a
*topology* (``jax.experimental.topologies.get_topology_desc``): for a TPU it comes
from libtpu's own tables (``"v5e:2x2"``), for a GPU from a GpuTargetConfigProto
text file (the figures XLA publishes under ``xla/tools/hlo_opt/gpu_specs/``;
hloscope ships its own in ``hloscope/targets/``). Arguments given as
``jax.ShapeDtypeStruct`` with a ``SingleDeviceSharding`` on one of its devices
make ``jit(f).lower(...).compile()`` produce that backend's optimized HLO and
buffer assignment — no hardware, no driver.

The packages this needs are not hloscope's dependencies (libtpu alone is a few
hundred MB): ``pip install`` the line :func:`pip_command` names.

This file imports nothing from hloscope, so the repository's tools
(tools/gen_fixtures.py, tools/difftest) load it by path without building the
extension.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Dict, Optional

__all__ = ["Target", "TARGETS", "resolve", "device_for", "devices_for", "place", "place_sharded", "pip_command",
           "TargetUnavailable"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_CONFIG_DIR = os.path.join(_HERE, "targets")


class TargetUnavailable(RuntimeError):
    """The compile-only packages for a target are missing, or could not describe it."""


@dataclasses.dataclass(frozen=True)
class Target:
    name: str          # "tpu-v5e", "gpu-h100", "gpu:/path/config.pbtxt", "cpu"
    platform: str      # "cpu", "gpu" or "tpu" (what the HLO and the dump are for)
    description: str
    topology: str = ""        # TPU: libtpu's topology name; GPU: the CUDA plugin's "1x1x8"
    config_path: str = ""     # GPU: GpuTargetConfigProto text file

    @property
    def is_host(self) -> bool:
        return self.platform == "cpu"


def _gpu(name: str, desc: str) -> Target:
    return Target(name, "gpu", desc, config_path=os.path.join(_CONFIG_DIR, name + ".pbtxt"))


# One chip of each: a single-device compile is what inspect() and the fixtures
# need. libtpu names the TPU generations; the GPU files are hloscope's.
TARGETS: Dict[str, Target] = {t.name: t for t in (
    Target("cpu", "cpu", "this machine's CPU (XLA:CPU)"),
    _gpu("gpu-h100", "NVIDIA H100 SXM 80 GB, compute capability 9.0 (XLA:GPU, CUDA)"),
    _gpu("gpu-a100", "NVIDIA A100 SXM4 80 GB, compute capability 8.0 (XLA:GPU, CUDA)"),
    Target("tpu-v5e", "tpu", "Google TPU v5e (v5 lite), one chip", topology="v5e:1x1"),
    Target("tpu-v4", "tpu", "Google TPU v4, one chip", topology="v4:1x1x1"),
    Target("tpu-v6e", "tpu", "Google TPU v6e (Trillium), one chip", topology="v6e:1x1"),
)}

# What jax 0.10.2 pins for compile-only use (tools/install-deps.sh --backends
# installs the same). Newer JAX: the same packages at its own version.
_PIP = {
    "tpu": 'pip install "libtpu==0.0.42.*"',
    "gpu": 'pip install "jax-cuda12-plugin=={jax}" "jax-cuda12-pjrt=={jax}"',
}


def pip_command(platform: str) -> str:
    """The pip line that lets this JAX compile for `platform` ("gpu" or "tpu")."""
    try:
        import jax
        version = jax.__version__
    except ImportError:  # pragma: no cover - hloscope's inspect() needs jax anyway
        version = "<your jax version>"
    if platform == "tpu":
        if version.startswith("0.10."):
            return _PIP["tpu"]
        return f'pip install "jax[tpu]=={version}"  # brings the libtpu this JAX pins'
    return _PIP["gpu"].format(jax=version)


def resolve(target: Any) -> Target:
    """A Target from a name in TARGETS, or the path of a GpuTargetConfigProto text file."""
    if isinstance(target, Target):
        return target
    if not isinstance(target, (str, os.PathLike)):
        raise TypeError(f"target must be a name ({', '.join(TARGETS)}) or the path of a GPU "
                        f"target-config file, not {type(target).__name__}")
    s = os.fspath(target)
    if s in TARGETS:
        return TARGETS[s]
    # A TPU slice: "tpu-v5e:2x2", "tpu-v4:2x2x1" (libtpu's topology names after the colon).
    base, _, dims = s.partition(":")
    if dims and base in TARGETS and TARGETS[base].platform == "tpu":
        parts = dims.split("x")
        if not all(p.isdigit() and int(p) > 0 for p in parts):
            raise ValueError(f"unknown TPU topology {dims!r} in {s!r}: write chips per dimension, e.g. "
                             f"{base}:2x2")
        chips = 1
        for p in parts:
            chips *= int(p)
        t = TARGETS[base]
        generation = t.topology.split(":", 1)[0]
        return Target(s, "tpu", f"{t.description.split(',')[0]}, {dims} ({chips} chips)",
                      topology=f"{generation}:{dims}")
    # Several GPUs: "gpu-h100:8" (8 in one host), "gpu-h100:2x4" (2 hosts of 4), or the CUDA
    # plugin's own "slices x hosts x GPUs per host" ("gpu-h100:1x2x4").
    if dims and base in TARGETS and TARGETS[base].platform == "gpu":
        parts = dims.split("x")
        if not (1 <= len(parts) <= 3 and all(p.isdigit() and int(p) > 0 for p in parts)):
            raise ValueError(f"unknown GPU count {dims!r} in {s!r}: write the GPUs in one host "
                             f"({base}:8), hosts x GPUs per host ({base}:2x4), or slices x hosts x "
                             f"GPUs per host ({base}:1x2x4)")
        parts = ["1"] * (3 - len(parts)) + parts
        gpus = int(parts[0]) * int(parts[1]) * int(parts[2])
        t = TARGETS[base]
        return Target(s, "gpu", f"{t.description.split(',')[0]}, {gpus} GPUs ({'x'.join(parts)})",
                      topology="x".join(parts), config_path=t.config_path)
    if s.startswith("gpu:") or s.endswith((".pbtxt", ".txtpb", ".textproto")):
        path = s[4:] if s.startswith("gpu:") else s
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such GPU target-config file: {path!r}")
        return Target(f"gpu:{path}", "gpu", f"GPU described by {path}", config_path=path)
    raise ValueError(f"unknown target {s!r}: use one of {', '.join(TARGETS)}, or the path of a "
                     f"GpuTargetConfigProto text file (XLA writes one into every GPU dump as "
                     f"*.gpu_target_config.pbtxt)")


_DEVICES: Dict[str, Any] = {}


def device_for(target: Any) -> Optional[Any]:
    """A jax Device of `target` to compile for, or None for the host CPU.

    Raises TargetUnavailable, naming the pip command, when the compile-only
    package is missing or cannot describe the target.
    """
    devices = devices_for(target)
    return devices[0] if devices else None


def devices_for(target: Any) -> list:
    """Every jax Device of `target` (a TPU slice has several), [] for the host CPU.

    Public as ``hloscope.target_devices``: build a ``shard_map`` or ``in_shardings`` mesh on a
    slice with them (``Mesh(np.array(hloscope.target_devices("tpu-v5e:2x2")), ("x",))``).
    """
    t = resolve(target)
    if t.is_host:
        return []
    if t.name in _DEVICES:
        return _DEVICES[t.name]
    from jax.experimental import topologies

    try:
        if t.platform == "tpu" and t.name in TARGETS:
            topo = topologies.get_topology_desc(t.topology, "tpu",
                                                chips_per_host_bounds=(1, 1, 1))
        elif t.platform == "tpu":
            topo = topologies.get_topology_desc(t.topology, "tpu")
        else:
            with open(t.config_path) as f:
                config = f.read()
            topo = topologies.get_topology_desc("gpu", "cuda", target_config=config,
                                                topology=t.topology or "1x1x1")
    except Exception as e:  # jax raises RuntimeError, JaxRuntimeError or ValueError here
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        hint = pip_command(t.platform)
        extra = ""
        if t.platform == "gpu" and os.environ.get("JAX_PLATFORMS", "") != "cpu":
            extra = ("; with the CUDA plugin on a machine without a GPU, set JAX_PLATFORMS=cpu "
                     "before importing jax")
        raise TargetUnavailable(
            f"cannot compile for {t.name} here ({msg}). Compiling for a {t.platform.upper()} "
            f"without one needs the compile-only package: {hint}{extra}") from None
    _DEVICES[t.name] = list(topo.devices)
    return _DEVICES[t.name]


def place(args: Any, device: Any) -> Any:
    """`args` (a pytree of arrays, scalars and ShapeDtypeStructs) as abstract values on `device`."""
    import jax
    import numpy as np

    sharding = jax.sharding.SingleDeviceSharding(device)

    def one(x):
        if isinstance(x, jax.ShapeDtypeStruct):
            return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=sharding,
                                        weak_type=getattr(x, "weak_type", False))
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return jax.ShapeDtypeStruct(np.shape(x), x.dtype, sharding=sharding)
        # Python scalars stay as they are: they may be static arguments, and
        # traced ones follow the device of the arrays.
        return x

    return jax.tree_util.tree_map(one, args)


def place_sharded(args: Any, devices: list) -> Any:
    """`args` as abstract values on a TPU slice's (or several GPUs') `devices`, with the user's shardings.

    An argument with a NamedSharding keeps its mesh's shape, axis names and partition spec;
    its devices become the slice's (the mesh must have as many devices as the slice). The
    other arguments are replicated on the same mesh. A function that binds a mesh itself
    (``shard_map(..., mesh=...)``, ``jit(in_shardings=...)``) must be built on
    ``devices_for(target)``.
    """
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    meshes = {}
    first = []

    def mesh_for(mesh):
        key = (tuple(mesh.devices.shape), tuple(mesh.axis_names))
        if key not in meshes:
            if mesh.devices.size != len(devices):
                raise ValueError(f"an argument is sharded over a mesh of {mesh.devices.size} devices "
                                 f"{dict(zip(mesh.axis_names, mesh.devices.shape))}; the target has "
                                 f"{len(devices)}: build the mesh with as many devices as the slice")
            meshes[key] = Mesh(np.array(devices, dtype=object).reshape(mesh.devices.shape), mesh.axis_names)
            first.append(meshes[key])
        return meshes[key]

    leaves = jax.tree_util.tree_leaves(args)
    for x in leaves:
        sh = getattr(x, "sharding", None)
        if isinstance(sh, NamedSharding):
            mesh_for(sh.mesh)
    default = first[0] if first else Mesh(np.array(devices, dtype=object), ("devices",))

    def one(x):
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            return x
        sh = getattr(x, "sharding", None)
        if isinstance(sh, NamedSharding):
            new = NamedSharding(mesh_for(sh.mesh), sh.spec)
        else:
            new = NamedSharding(default, PartitionSpec())
        return jax.ShapeDtypeStruct(np.shape(x), x.dtype, sharding=new,
                                    weak_type=getattr(x, "weak_type", False))

    return jax.tree_util.tree_map(one, args)
