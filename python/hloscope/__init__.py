"""hloscope: did XLA update my array in place, or copy it?

    import hloscope
    report = hloscope.inspect(step, buf, key)   # lower + compile with JAX, read XLA's buffer assignment
    print(report)                                # what `hloscope check` prints
    hloscope.assert_inplace(jax.jit(step, donate_argnums=0), buf, key)

See docs/python.md.
"""

try:
    from . import _hloscope
except ImportError as _e:  # the source folder python/hloscope, not an installed package
    raise ImportError(
        "hloscope's C++ extension (hloscope._hloscope) is missing: install the package "
        "with `pip install .` (or `pip install --no-build-isolation -ve .`) instead of "
        "importing python/hloscope from the source tree") from _e

from ._errors import ParseError
from ._report import (
    Collective,
    Copy,
    Feed,
    Fusion,
    Loop,
    ModuleReport,
    Parameter,
    Position,
    Carry,
    Ref,
    Report,
    Scaling,
    Source,
    Update,
    human_bytes,
)
from ._api import analyze, inspect
from ._cost import CostReport, cost
from ._assertions import assert_budget, assert_inplace, assert_memory
from ._diff import Diff, ScalingBuffer, ScalingFinding, ScalingResult, assert_no_regression, diff, scaling
from ._watch import BudgetError, Watcher, watch
from ._targets import TARGETS, TargetUnavailable
from ._targets import devices_for as target_devices
__version__ = _hloscope.__version__
JSON_SCHEMA_VERSION = _hloscope.JSON_SCHEMA_VERSION

__all__ = [
    "analyze",
    "inspect",
    "cost",
    "CostReport",
    "assert_inplace",
    "assert_budget",
    "assert_memory",
    "assert_no_regression",
    "diff",
    "scaling",
    "watch",
    "Watcher",
    "BudgetError",
    "TARGETS",
    "target_devices",
    "TargetUnavailable",
    "Diff",
    "ScalingResult",
    "ScalingBuffer",
    "ScalingFinding",
    "ParseError",
    "Collective",
    "Report",
    "ModuleReport",
    "Copy",
    "Update",
    "Loop",
    "Parameter",
    "Fusion",
    "Source",
    "Ref",
    "Position",
    "Feed",
    "Scaling",
    "Carry",
    "human_bytes",
    "JSON_SCHEMA_VERSION",
    "__version__",
]
