"""The options vocabulary, shared by every door of the Python API.

The structs are the C++ engine's own (``hloscope._hloscope.FindingFilter`` and
``GateOptions``: analysis/finding_filter.h and analysis/policy.h), so a keyword here
means exactly what the CLI flag of the same name means:

==================  =======================  ===========================================
Python keyword      CLI flag                 meaning
==================  =======================  ===========================================
include_minor       --include-minor          count scalar copies and small prefetches
include_library     --include-library        count findings made inside library code
min_bytes           --min-bytes              leave out findings under N bytes per call
scope               --scope                  only findings inside a jax.named_scope
fail_on / raise_on  --fail-on                gates and presets by name (``hloscope rules``)
updates             --update                 only these updates (instruction names)
lines               --line                   only the updates of these lines
max_copy_bytes ...  --max-copy-bytes ...     budgets
==================  =======================  ===========================================

Gate names may be spelled with ``_`` for ``-`` (``copies_in_loops``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Optional, Union

from . import _hloscope as _C

__all__ = ["finding_filter", "gate_options", "gate_names", "budget"]

_INT64_MAX = 2**63 - 1

# Names of the API before the one vocabulary, and what they are now.
LEGACY_FINDING_GATES = {"out_of_place": "not-in-place", "any": "default"}  # watch(raise_on=...)
LEGACY_DIFF_GATES = {"copies": "new-copies", "out_of_place": "new-not-in-place",  # assert_no_regression
                     "bytes_per_iteration": "more-bytes-per-iteration"}


def budget(name: str, value: Any) -> Optional[int]:
    """A budget as the CLI takes it: a whole number from 0 to 2**63 - 1.

    NaN, infinities, negative numbers and fractions are a ValueError (a NaN budget
    would pass every program); a non-number is a TypeError.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, numbers.Real)):
        raise TypeError(f"{name} must be a whole number of bytes or copies, not {type(value).__name__}")
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


def finding_filter(*, include_minor: bool = False, include_library: bool = False, min_bytes: Any = 0,
                   scope: str = "") -> "_C.FindingFilter":
    f = _C.FindingFilter()
    f.include_minor = bool(include_minor)
    f.include_library = bool(include_library)
    f.min_bytes = budget("min_bytes", min_bytes) or 0
    f.scope = scope or ""
    return f


def _strings(v: Union[None, str, int, Iterable]) -> list:
    if v is None:
        return []
    if isinstance(v, (str, int)):
        v = [v]
    return [str(x) for x in v]


def gate_names(names: Union[None, str, Iterable[str]], *, keyword: str = "gates", diff: bool = False) -> list:
    """Gate and preset names in the engine's spelling (``-``, legacy names mapped). A name
    that is no gate or preset — or, outside diff, a diff-only one — raises ValueError
    naming `keyword`."""
    known = {name: diff_only for name, _, _, diff_only in _C.gate_names()}
    legacy = LEGACY_DIFF_GATES if diff else LEGACY_FINDING_GATES
    out = []
    for n in _strings(names):
        name = legacy.get(n, n).replace("_", "-")
        if name not in known or (known[name] and not diff):
            allowed = [k for k, d in known.items() if diff or not d]
            raise ValueError(f"{keyword}={n!r}: expected one of {', '.join(allowed)}")
        out.append(name)
    return out


def gate_options(gates: Union[None, str, Iterable[str]] = None, *, max_copy_bytes: Any = None,
                 max_copies: Any = None, max_copies_in_loops: Any = None, max_copy_bytes_in_loops: Any = None,
                 max_peak_bytes: Any = None, updates: Union[None, str, Iterable[str]] = None,
                 lines: Union[None, int, str, Iterable] = None) -> "_C.GateOptions":
    o = _C.GateOptions()
    o.gates = gate_names(gates, diff=True)
    o.max_copy_bytes = budget("max_copy_bytes", max_copy_bytes)
    o.max_copies = budget("max_copies", max_copies)
    o.max_copies_in_loops = budget("max_copies_in_loops", max_copies_in_loops)
    o.max_copy_bytes_in_loops = budget("max_copy_bytes_in_loops", max_copy_bytes_in_loops)
    o.max_peak_bytes = budget("max_peak_bytes", max_peak_bytes)
    o.updates = _strings(updates)
    o.lines = _strings(lines)
    return o
