"""
hloscope's C++ engine: parse optimized HLO text and check every copy and update.
"""

from collections.abc import Sequence


JSON_SCHEMA_VERSION: int = 2

class FindingFilter:
    """
    Which findings count (analysis/finding_filter.h): --include-minor, --include-library, --min-bytes, --scope.
    """

    def __init__(self) -> None: ...

    @property
    def include_minor(self) -> bool:
        """
        count minor copies too (scalars, small constants moved to another memory space)
        """

    @include_minor.setter
    def include_minor(self, arg: bool, /) -> None: ...

    @property
    def include_library(self) -> bool:
        """count findings made inside library code too"""

    @include_library.setter
    def include_library(self, arg: bool, /) -> None: ...

    @property
    def min_bytes(self) -> int:
        """leave out findings moving fewer bytes per call"""

    @min_bytes.setter
    def min_bytes(self, arg: int, /) -> None: ...

    @property
    def scope(self) -> str:
        """only findings inside this jax.named_scope path"""

    @scope.setter
    def scope(self, arg: str, /) -> None: ...

class GateOptions:
    """
    What fails (analysis/policy.h): gates and presets by name (--fail-on), budgets (--max-*), and a selection (--update, --line).
    """

    def __init__(self) -> None: ...

    @property
    def gates(self) -> list[str]:
        """
        the gates that fail, by name; presets ('default', 'strict', 'regressions') expand to their gates
        """

    @gates.setter
    def gates(self, arg: Sequence[str], /) -> None: ...

    @property
    def max_copy_bytes(self) -> int | None: ...

    @max_copy_bytes.setter
    def max_copy_bytes(self, arg: int | None, /) -> None: ...

    @property
    def max_copies(self) -> int | None: ...

    @max_copies.setter
    def max_copies(self, arg: int | None, /) -> None: ...

    @property
    def max_copies_in_loops(self) -> int | None: ...

    @max_copies_in_loops.setter
    def max_copies_in_loops(self, arg: int | None, /) -> None: ...

    @property
    def max_copy_bytes_in_loops(self) -> int | None: ...

    @max_copy_bytes_in_loops.setter
    def max_copy_bytes_in_loops(self, arg: int | None, /) -> None: ...

    @property
    def max_peak_bytes(self) -> int | None:
        """
        the memory one call needs per device (unknown without the buffer assignment: fails)
        """

    @max_peak_bytes.setter
    def max_peak_bytes(self, arg: int | None, /) -> None: ...

    @property
    def updates(self) -> list[str]:
        """restrict to these updates (instruction or fusion names)"""

    @updates.setter
    def updates(self, arg: Sequence[str], /) -> None: ...

    @property
    def lines(self) -> list[str]:
        """restrict to the updates of these lines ('train.py:42', '42')"""

    @lines.setter
    def lines(self, arg: Sequence[str], /) -> None: ...

def gate_names() -> list[tuple[str, str, bool, bool]]:
    """
    (name, help, is_preset, diff_only) of every gate and preset (analysis/policy.h).
    """

class Session:
    """An opened HLO input and its analyses (app/session.h)."""

    @staticmethod
    def open_text(hlo_text: str, path: str = '<input>', buffer_assignment_text: str | None = None, buffer_assignment_path: str = '', require_optimized: bool = False, pre_partition_text: str | None = None, pre_partition_path: str = '', donation_requested: Sequence[bool] | None = None, before_optimizations_text: str | None = None) -> Session:
        """
        Parse HLO text (and optionally XLA's buffer-assignment dump, and the module before SPMD
        partitioning: a --xla_dump_hlo_pass_re=spmd-partitioning dump).

        `donation_requested`: one flag per entry parameter, the donation the program asked
        for (JAX's donate_argnums); each one XLA dropped gets its reason.
        `before_optimizations_text`: the module before optimization (its header line is
        enough): the user's mesh axis names (Shardy's xla.sdy.meshes).
        `path`, `buffer_assignment_path` and `pre_partition_path` only name the inputs in
        diagnostics and reports.
        Raises hloscope.ParseError on malformed input.
        """

    @staticmethod
    def open_file(path: str, buffer_assignment_path: str | None = None, find_buffer_assignment: bool = True, require_optimized: bool = False) -> Session:
        """
        Read an HLO dump as `hloscope check PATH [--buffer-assignment BA]` does (the dump
        beside PATH is found unless find_buffer_assignment is False).
        Raises hloscope.ParseError on malformed input or unreadable files.
        """

    def module_names(self) -> list[str]:
        """Names of the modules, in order."""

    @property
    def buffer_assignment_path(self) -> str:
        """The dump the verdicts are checked against, or ''."""

    def notes(self) -> list[str]:
        """
        What to know about how the report was made (app/session.h notes), one sentence each.
        """

    def check_json(self, scope: str = '', kernels: bool = False) -> str:
        """What `hloscope check --format json [--scope S] [--kernels]` prints."""

    def check_text(self, filter: FindingFilter = ...) -> str:
        """
        What `hloscope check` prints with this filter (--scope, --min-bytes, --include-*).
        """

    def fusions_json(self, scope: str = '') -> str:
        """What `hloscope fusions --format json [--scope S]` prints."""

    def report_html(self, scope: str = '', compact: bool = False, source_roots: Sequence[str] = [], title: str = '') -> str:
        """
        What `hloscope report` writes: one self-contained HTML page (compact: the notebook form).
        """

    def check_sarif(self, scope: str = '', source_roots: Sequence[str] = [], input_path: str = '') -> str:
        """
        What `hloscope check --format sarif [--sarif-root R]` prints (SARIF 2.1.0).
        """

    def gate_failure(self, gates: GateOptions, filter: FindingFilter, title: str) -> str | None:
        """The failure message of these gates, or None when they pass."""

    def violation_lines(self, gates: GateOptions, filter: FindingFilter) -> list[str]:
        """One line per violation of these gates (empty when they pass)."""

    def gate_json(self, gates: GateOptions, filter: FindingFilter) -> str:
        """
        The check document with the gates' verdict, as `hloscope check --format json` with the
        same flags prints it.
        """

def load_check_document(path: str) -> str:
    """
    One side of `hloscope diff`: a check JSON baseline as saved, optimized HLO checked now (with its
    kernels), or every optimized module of a dump folder. Raises hloscope.ParseError.
    """

def diff(a_json: str, b_json: str, a_name: str = 'A', b_name: str = 'B', gates: GateOptions = ..., filter: FindingFilter = ...) -> tuple[str, str, list[str]]:
    """
    `hloscope diff` of two check documents: (text, JSON document, regressions of the gates asked for).
    """

def run_cli(args: Sequence[str]) -> tuple[int, str, str]:
    """Run `hloscope ARGS...` in-process: (exit code, stdout, stderr)."""

def is_optimized_dump_name(file_name: str) -> bool:
    """
    True if `file_name` is an optimized module's HLO as XLA's --xla_dump_to names it (parser/dump_naming.h).
    """

def find_pre_partition_beside(hlo_path: str) -> str | None:
    """
    The dump of the module before SPMD partitioning that belongs to an HLO dump (XLA's naming), or None.
    """

def find_before_optimizations_beside(hlo_path: str) -> str | None:
    """
    The dump of the module before optimization that belongs to an HLO dump (XLA's naming), or None.
    """

def find_buffer_assignment_beside(hlo_path: str) -> str | None:
    """
    The buffer-assignment dump that belongs to an HLO dump (XLA's naming), or None.
    """
