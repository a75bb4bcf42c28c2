"""Exceptions raised by hloscope."""

from __future__ import annotations

__all__ = ["ParseError"]


class ParseError(ValueError):
    """Malformed HLO text or buffer-assignment dump (or an unreadable file).

    ``str(error)`` is the clang-style diagnostic the CLI prints::

        model.hlo:12:7: error: unknown shape element type 'f33'
          %x = f33[4]{0} parameter(0)
               ^

    Attributes:
        path: the input's name as given (``"<input>"`` for text without a name).
        line: 1-based line, 0 when the error has no position (I/O errors).
        column: 1-based column in bytes, 0 when unknown.
        message: the message alone, without position or ``error:``.
    """

    def __init__(self, message: str, *, path: str = "<input>", line: int = 0,
                 column: int = 0, formatted: str | None = None) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        if formatted is None:
            where = f"{path}:{line}:{column}" if line else path
            formatted = f"{where}: error: {message}"
        self.formatted = formatted
        super().__init__(formatted)

    def __str__(self) -> str:
        return self.formatted

    def __reduce__(self):  # picklable (pytest-xdist, multiprocessing)
        return (_rebuild, (self.message, self.path, self.line, self.column, self.formatted))


def _rebuild(message, path, line, column, formatted):
    return ParseError(message, path=path, line=line, column=column, formatted=formatted)
