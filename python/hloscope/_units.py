"""Byte counts as the CLI prints them (support/human_bytes.h)."""

from typing import Optional

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def human_bytes(n: Optional[int]) -> str:
    """Bytes the way the CLI prints them: ``512 B``, ``4.0 KiB``; ``?`` for unknown."""
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    v, unit = float(n), 0
    while v >= 1024 and unit < 6:
        v /= 1024
        unit += 1
    return f"{v:.1f} {_UNITS[unit]}"
