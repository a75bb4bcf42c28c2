"""
hloscope's C++ engine: parse optimized HLO text and check every copy and update.
"""



JSON_SCHEMA_VERSION: int = 1

class CheckResult:
    """Findings of one check run (one entry per HLO module)."""

    def json(self) -> str:
        """
        The report as JSON, byte for byte what `hloscope check --format json` prints.
        """

    def text(self, min_copy_bytes_shown: int = 0, color: bool = False) -> str:
        """The report as text, what `hloscope check` prints."""

    def module_names(self) -> list[str]:
        """Names of the checked modules, in order."""

    def __len__(self) -> int: ...

def check_text(hlo_text: str, path: str = '<input>', buffer_assignment_text: str | None = None, buffer_assignment_path: str = '') -> CheckResult:
    """
    Parse optimized HLO text (and optionally XLA's buffer-assignment dump) and check it.

    `path` and `buffer_assignment_path` only name the inputs in diagnostics and reports.
    Raises hloscope.ParseError on malformed input.
    """

def check_file(path: str, buffer_assignment_path: str | None = None) -> CheckResult:
    """
    Read and check an HLO dump, as `hloscope check PATH [--buffer-assignment BA]`.

    Raises hloscope.ParseError on malformed input or unreadable files.
    """

def list_fusions(hlo_text: str, path: str = '<input>') -> str:
    """
    The fusion instructions (kind, fused opcodes, source) of every module in the HLO
    text, as JSON: one array per module. Not part of the CLI's check schema.
    Raises hloscope.ParseError on malformed input.
    """

def find_buffer_assignment_beside(hlo_path: str) -> str | None:
    """
    The buffer-assignment dump that belongs to an HLO dump (XLA's naming), or None.
    """
