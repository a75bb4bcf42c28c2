"""The typed report: dataclasses built from the CLI's JSON (docs/json-format.md).

The C++ engine renders the findings once, as the JSON that ``hloscope check
--format json`` prints and as the text ``hloscope check`` prints; the classes
here are a typed view of that JSON. Field names follow the JSON keys, except
``Copy.copy_class`` (JSON ``class``). Keys a newer engine adds land in
``extra`` instead of being dropped. References to other instructions are
``Ref`` / ``Position`` objects, exactly as the JSON has them; nothing here
parses a label.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional

from ._units import human_bytes

__all__ = [
    "Source", "Ref", "Position", "Feed", "Scaling", "Carry", "Copy", "Update", "Loop",
    "Parameter", "Fusion", "ModuleReport", "Report", "human_bytes",
]


def _times(n: Optional[int], upper: bool) -> str:
    if n is None:
        return "?"
    return f"{'≤' if upper else ''}{n}"


_FIELDS: dict = {}


def _from_dict(cls, d: dict, renames: Optional[dict] = None, convert: Optional[dict] = None):
    """Builds dataclass `cls` from JSON dict `d`: known keys to fields, the rest to `extra`."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = frozenset(f.name for f in dataclasses.fields(cls)) - {"extra"}
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in d.items():
        name = renames.get(key, key) if renames else key
        if name in names:
            if convert and value is not None and name in convert:
                value = convert[name](value)
            kwargs[name] = value
        else:
            extra[key] = value
    return cls(**kwargs, extra=extra)


def _opt(cls):
    return lambda d: None if d is None else cls.from_json(d)


def _list(cls):
    return lambda v: [cls.from_json(x) for x in v]


@dataclass
class Source:
    """Where a finding comes from in the user's code.

    ``via`` says how it was found: ``metadata`` (the instruction's own),
    ``update`` (a copy attributed to the update that needed it), ``copied
    value`` (the producer of the copied value) or ``loop``. ``text`` is the
    one form hloscope prints it in (``dir/train.py:42``).
    """

    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    function: Optional[str] = None
    op_name: Optional[str] = None
    via: str = "metadata"
    text: Optional[str] = None
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text or "?"

    def matches(self, spec: "int | str") -> bool:
        """True if this is the line `spec`: ``42``, ``"42"``, ``"file.py:42"`` or ``"dir/file.py:42"``.

        A file in `spec` matches by trailing path components, so ``"train.py:41"``
        matches ``/home/me/project/train.py`` line 41.
        """
        if self.line is None:
            return False
        if isinstance(spec, int):
            return self.line == spec
        spec = str(spec).strip()
        file_part, sep, line_part = spec.rpartition(":")
        if not sep:
            line_part, file_part = spec, ""
        if not line_part.isdigit() or int(line_part) != self.line:
            return False
        if not file_part:
            return True
        if not self.file:
            return False
        want = [p for p in file_part.replace("\\", "/").split("/") if p not in ("", ".")]
        have = [p for p in self.file.replace("\\", "/").split("/") if p]
        return len(want) <= len(have) and have[len(have) - len(want):] == want

    @classmethod
    def from_json(cls, d: dict) -> "Source":
        return _from_dict(cls, d)


@dataclass
class Ref:
    """A reference to an instruction: its name and computation (``str()`` is the name)."""

    instruction: str = ""
    computation: str = ""
    fusion: Optional[str] = None  # for update references: the fusion it is fused into
    source: Optional[Source] = None  # for readers: the line that reads
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.instruction + (f" in {self.fusion}" if self.fusion else "")

    @classmethod
    def from_json(cls, d: dict) -> "Ref":
        return _from_dict(cls, d, convert={"source": Source.from_json})


@dataclass
class Position:
    """A value: an instruction and a shape index (``str()``: ``while.3{1}``)."""

    instruction: str = ""
    computation: str = ""
    index: list = field(default_factory=list)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        if not self.index:
            return self.instruction
        return self.instruction + "{" + ",".join(str(i) for i in self.index) + "}"

    @classmethod
    def from_json(cls, d: dict) -> "Position":
        return _from_dict(cls, d, convert={"index": list})


@dataclass
class Feed:
    """What a copy is made for: an update that writes into it (``kind == "update"``),
    or the state of a loop that overwrites it (``"loop-state"``)."""

    kind: str = "update"
    update: Optional[Ref] = None
    loop: Optional[Ref] = None
    carry: list = field(default_factory=list)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: dict) -> "Feed":
        return _from_dict(cls, d, convert={"update": Ref.from_json, "loop": Ref.from_json})


@dataclass
class Scaling:
    """One thing in a loop that grows with a buffer: a copy, or a carry rewritten in full."""

    kind: str = "copy"  # copy, carry-rewrite
    copy: Optional[Position] = None
    carry: Optional[int] = None
    rewritten_by: Optional[Position] = None
    shape: str = ""
    bytes: Optional[int] = None
    text: str = ""
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def from_json(cls, d: dict) -> "Scaling":
        return _from_dict(cls, d, convert={"copy": Position.from_json,
                                           "rewritten_by": Position.from_json})


@dataclass
class Copy:
    """One copy XLA makes: its bytes, how often it runs, and why it exists."""

    instruction: str = ""
    computation: str = ""
    output_index: list = field(default_factory=list)
    kind: str = "copy"  # copy, copy-start, copy-fusion
    copy_class: str = "protective"  # protective, layout-change, memory-space-move
    shape: str = ""
    scalar: bool = False  # rank 0 (loop counters)
    # scalar, or a constant of at most 1 KiB moved to another memory space (TPU's
    # index-table prefetches): summarised in text output, skipped by gates
    minor: bool = False
    bytes: Optional[int] = None
    executions: Optional[int] = None
    executions_upper_bound: bool = False
    total_bytes: Optional[int] = None
    enclosing_loops: list = field(default_factory=list)  # list[Ref], innermost first
    # total_bytes unknown because a trip count is: the innermost such loop and
    # the bytes moved per iteration of it (what copies are ranked by then).
    unknown_trip_loop: Optional["Ref"] = None
    bytes_per_unknown_trip_iteration: Optional[int] = None
    cause: str = "unknown"
    cause_rule: str = "none"
    # The rule's typed facts ({"family": ..., ...}: docs/json-format.md), so
    # no code need read cause_detail's prose; None when no rule matched.
    cause_facts: Optional[dict] = None
    cause_detail: str = ""
    hint: Optional[str] = None
    copied_from: Optional[Position] = None
    readers: list = field(default_factory=list)  # list[Ref]: reads of the old contents
    feeds: list = field(default_factory=list)  # list[Feed]
    source: Optional[Source] = None
    # With XLA:GPU's thunk dump: {"id", "kind"} of the thunk that runs the copy
    # ("kCopy": a device-to-device memcpy; other kinds are kernels).
    thunk: Optional[dict] = None
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def in_loop(self) -> bool:
        return bool(self.enclosing_loops)

    @property
    def is_scalar(self) -> bool:
        """A copy of a rank-0 value (e.g. the loop counter XLA copies in every loop)."""
        return self.scalar

    @classmethod
    def from_json(cls, d: dict) -> "Copy":
        return _from_dict(cls, d, renames={"class": "copy_class"},
                          convert={"source": Source.from_json, "enclosing_loops": _list(Ref),
                                   "unknown_trip_loop": Ref.from_json,
                                   "copied_from": Position.from_json, "readers": _list(Ref),
                                   "feeds": _list(Feed), "output_index": list})


@dataclass
class Update:
    """One in-place-capable update (dynamic-update-slice, scatter, ...) and its verdict.

    ``verdict`` is ``in-place``, ``in-place-on-copy`` (in place, but on a copy
    XLA made first: ``runs_on``), ``out-of-place`` or ``not-materialized`` (fused
    away). ``confirmed`` is True/False when XLA's buffer assignment confirms or
    contradicts the verdict, None without a dump.
    """

    instruction: str = ""
    computation: str = ""
    opcode: str = ""
    fusion: Optional[str] = None
    output_index: list = field(default_factory=list)
    verdict: str = "in-place"
    in_place: bool = True  # the gates' rule, computed by the engine (analysis/policy.h)
    full_rewrite: bool = False
    runs_on: Optional[Position] = None
    operand: Optional[Position] = None
    reason: str = ""
    buffer_bytes: Optional[int] = None
    bytes_written: Optional[int] = None
    executions: Optional[int] = None
    executions_upper_bound: bool = False
    confirmed: Optional[bool] = None
    confirmation: Optional[str] = None
    confirmation_basis: str = "no-dump"
    source: Optional[Source] = None
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def copy(self) -> Optional[str]:
        """The name of the copy it runs on (in-place-on-copy), else None."""
        return self.runs_on.instruction if self.runs_on else None

    @property
    def label(self) -> str:
        return self.instruction + (f" in {self.fusion}" if self.fusion else "")

    @classmethod
    def from_json(cls, d: dict) -> "Update":
        return _from_dict(cls, d, convert={"source": Source.from_json, "runs_on": Position.from_json,
                                           "operand": Position.from_json, "output_index": list})


@dataclass
class Carry:
    """One element of a loop's state, with the user's name for it where the program reveals one."""

    index: int = 0
    shape: str = ""
    bytes: Optional[int] = None
    name: Optional[str] = None  # the entry argument it starts from, as JAX names it ("buf", "params['w']")
    parameter: Optional[int] = None  # that argument's number
    init: Optional[Ref] = None  # makes the value the loop starts from; update: its new value (None: passed through)
    init_source: Optional[Source] = None
    update: Optional[Ref] = None
    update_source: Optional[Source] = None
    text: str = ""
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def from_json(cls, d: dict) -> "Carry":
        return _from_dict(cls, d, convert={"init": Ref.from_json, "update": Ref.from_json,
                                           "init_source": Source.from_json, "update_source": Source.from_json})


@dataclass
class Loop:
    """One while loop: trip count, and what it copies and rewrites per iteration."""

    instruction: str = ""
    computation: str = ""
    trip_count: Optional[int] = None
    trip_count_source: str = "unknown"
    executions: Optional[int] = None
    copy_bytes_per_iteration: Optional[int] = None
    rewrite_bytes_per_iteration: Optional[int] = None
    scales_with_buffer: bool = False
    scaling: list = field(default_factory=list)  # list[Scaling]
    enclosing_loops: list = field(default_factory=list)  # list[Ref]
    source: Optional[Source] = None
    carries: list = field(default_factory=list)  # list[Carry]
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: dict) -> "Loop":
        return _from_dict(cls, d, convert={"source": Source.from_json, "scaling": _list(Scaling),
                                           "enclosing_loops": _list(Ref), "carries": _list(Carry)})


@dataclass
class Parameter:
    """One entry parameter: size, whether it is donated, and the copies made of it."""

    number: int = 0
    name: str = ""
    shape: str = ""
    bytes: Optional[int] = None
    donated: bool = False
    donation: Optional[str] = None  # input-output-alias, buffer-donor
    copied: bool = False
    copies: list = field(default_factory=list)  # list[Position]
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: dict) -> "Parameter":
        return _from_dict(cls, d, convert={"copies": _list(Position)})


@dataclass
class Fusion:
    """One fusion instruction (one kernel), as ``hloscope fusions --format json`` shows it."""

    instruction: str = ""
    computation: str = ""
    fused_computation: Optional[str] = None
    kind: str = ""  # kLoop, kInput, kOutput, kCustom
    backend_kind: Optional[str] = None
    shape: str = ""
    instruction_count: int = 0
    opcode_counts: dict = field(default_factory=dict)
    notable: list = field(default_factory=list)  # list[Ref] (with opcode, shape in extra)
    source_lines: list = field(default_factory=list)
    lines_text: str = ""
    bytes_read: Optional[int] = None
    bytes_written: Optional[int] = None
    executions: Optional[int] = None
    executions_upper_bound: bool = False
    bytes_per_call: Optional[int] = None
    enclosing_loops: list = field(default_factory=list)  # list[Ref]
    source: Optional[Source] = None
    updates: list = field(default_factory=list)  # list[Update] on this kernel
    copies: list = field(default_factory=list)  # list[Copy] this kernel is
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def fused_opcodes(self) -> list:
        """The distinct opcodes fused into the kernel, most frequent first."""
        return list(self.opcode_counts)

    @classmethod
    def from_json(cls, d: dict) -> "Fusion":
        return _from_dict(cls, d, convert={"source": Source.from_json, "notable": _list(Ref),
                                           "enclosing_loops": _list(Ref), "updates": _list(Update),
                                           "copies": _list(Copy), "opcode_counts": dict})


@dataclass(repr=False)
class ModuleReport:
    """Everything ``hloscope check`` reports for one HLO module.

    ``fusions`` (the ``fusions`` command's JSON) is listed on first access.
    """

    name: str = ""
    entry: str = ""
    path: Optional[str] = None
    entry_signature: str = ""  # "(f32[1024,64], s32[]) -> f32[1024,64]", layouts left out
    headline: str = ""
    buffer_assignment: Optional[str] = None  # the dump the verdicts were checked against
    buffer_assignment_unused: Optional[str] = None  # a dump not applied (several modules)
    buffer_assignment_mismatch: Optional[str] = None  # why that dump is another module's
    # The copies checked against what XLA:GPU runs (thunk_metadata.txt), as in
    # `check --format json`; None without a GPU thunk dump.
    thunks: Optional[dict] = None
    parameters: list = field(default_factory=list)  # list[Parameter]
    copies: list = field(default_factory=list)  # list[Copy], by bytes moved, largest first
    updates: list = field(default_factory=list)  # list[Update]
    loops: list = field(default_factory=list)  # list[Loop]
    extra: dict = field(default_factory=dict, repr=False, compare=False)
    _report: Optional["Report"] = field(default=None, repr=False, compare=False)
    _index: int = field(default=0, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"<hloscope.ModuleReport {self.headline or self.name}>"

    @property
    def fusions(self) -> list:
        """The module's fusion instructions (list[Fusion]); [] when the HLO is not at hand."""
        if self._report is None:
            return []
        return self._report._fusions_of(self._index)

    @property
    def copies_in_loops(self) -> list:
        return [c for c in self.copies if c.enclosing_loops]

    @property
    def copy_bytes(self) -> Optional[int]:
        """Bytes all copies move per call; None if any copy's count is unknown."""
        total = 0
        for c in self.copies:
            if c.total_bytes is None:
                return None
            total += c.total_bytes
        return total

    @classmethod
    def from_json(cls, d: dict) -> "ModuleReport":
        return _from_dict(cls, d, convert=_MODULE_CONVERT)


_MODULE_CONVERT = {
    "parameters": _list(Parameter),
    "copies": _list(Copy),
    "updates": _list(Update),
    "loops": _list(Loop),
}


@dataclass(repr=False)
class Report:
    """The answer for one program: one ModuleReport per HLO module.

    ``str(report)`` is the text ``hloscope check`` prints; ``report.to_json()``
    is exactly what ``hloscope check --format json`` prints; in a notebook the
    report shows as HTML tables. A report made by analyze()/inspect() keeps the
    parsed module (about 3× the HLO text) for its fusions and for the
    assertions; ``del report`` frees it.
    """

    modules: list = field(default_factory=list)  # list[ModuleReport]
    schema_version: int = 2
    # Things the user should know about how the report was made (e.g. no
    # buffer-assignment dump could be obtained).
    notes: list = field(default_factory=list)
    _json: Optional[str] = field(default=None, repr=False, compare=False)
    _text: Optional[str] = field(default=None, repr=False, compare=False)
    _engine: Any = field(default=None, repr=False, compare=False)
    _fusions: Optional[list] = field(default=None, repr=False, compare=False)
    _html: Optional[str] = field(default=None, repr=False, compare=False)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_json(cls, text: "str | bytes", *, rendered_text: Optional[str] = None,
                  notes: Iterable[str] = (), _engine: Any = None) -> "Report":
        """Builds a Report from the CLI's JSON (``hloscope check --format json``)."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        doc = json.loads(text)
        modules = [ModuleReport.from_json(m) for m in doc.get("modules", [])]
        report = cls(modules=modules, schema_version=doc.get("schema_version", 2),
                     notes=list(notes), _json=text, _text=rendered_text, _engine=_engine)
        for i, m in enumerate(modules):
            m._report, m._index = report, i
        return report

    @classmethod
    def _from_engine(cls, engine: Any, notes: Iterable[str] = ()) -> "Report":
        return cls.from_json(engine.check_json(), rendered_text=engine.check_text(), notes=notes,
                             _engine=engine)

    def __getstate__(self) -> dict:
        # The C++ engine does not pickle: the kernels are listed now and
        # travel with the report; gates need a fresh analyze()/inspect().
        state = dict(self.__dict__)
        if self._engine is not None:
            self._fusions_of(0)
            state["_fusions"] = self._fusions
            state["_html"] = self.to_html(compact=True)
        state["_engine"] = None
        return state

    def _fusions_of(self, index: int) -> list:
        if self._fusions is None:
            if self._engine is None:
                return []
            doc = json.loads(self._engine.fusions_json())
            self._fusions = [[Fusion.from_json(f) for f in m["fusions"]] for m in doc["modules"]]
        return self._fusions[index] if index < len(self._fusions) else []

    # -- rendering ----------------------------------------------------------------------
    def to_json(self) -> str:
        """The report in the CLI's JSON schema, byte for byte what the CLI prints."""
        if self._json is not None:
            return self._json
        raise ValueError("this Report was built by hand; only reports from analyze() or "
                         "inspect() carry the CLI's JSON")

    def __str__(self) -> str:
        text = self._text if self._text is not None else self._fallback_text()
        if self.notes:
            text += "".join(f"note: {n}\n" for n in self.notes)
        return text

    def __repr__(self) -> str:
        heads = "; ".join(m.headline or m.name for m in self.modules)
        return f"<hloscope.Report {heads}>"

    def _fallback_text(self) -> str:
        return "".join(m.headline + "\n" for m in self.modules)

    def to_html(self, *, compact: bool = False, scope: str = "",
                source_roots: Iterable[str] = (), title: str = "") -> str:
        """The page ``hloscope report`` writes: the answer, the loop picture, the annotated
        source, sortable tables (one self-contained HTML file). `compact` is the notebook
        form: the page body alone, picture and source folded. `source_roots` are the
        directories holding your sources (the current directory by default). A `scope` no
        instruction lies in raises ValueError naming the closest ones."""
        return self._require_engine("to_html").report_html(
            scope=scope, compact=compact, source_roots=[os.fspath(r) for r in source_roots],
            title=title)

    def save_html(self, path: "str | os.PathLike", *, scope: str = "",
                  source_roots: Iterable[str] = ()) -> None:
        """Writes the ``hloscope report`` page to `path` (readable offline, no network)."""
        page = self.to_html(scope=scope, source_roots=source_roots, title=os.fspath(path))
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)

    def to_sarif(self, *, scope: str = "", source_roots: Iterable[str] = ()) -> str:
        """SARIF 2.1.0, as ``hloscope check --format sarif [--sarif-root R]`` prints it: paths
        under the first of `source_roots` are written relative to it. An unknown `scope`
        raises ValueError, as ``--scope`` fails on the command line."""
        return self._require_engine("to_sarif").check_sarif(
            scope=scope, source_roots=[os.fspath(r) for r in source_roots])

    def _require_engine(self, what: str) -> Any:
        if self._engine is None:
            raise ValueError(f"Report.{what}() needs the parsed module: this Report was built from "
                             "JSON or unpickled; make it with analyze() or inspect()")
        return self._engine

    def _repr_html_(self) -> str:
        # The engine's report page in its compact form when the module is at
        # hand (or was, before pickling); a report built from JSON alone shows
        # the text the engine rendered, preformatted: Python renders no HTML
        # of its own.
        if self._engine is not None:
            return self.to_html(compact=True)
        if self._html is not None:
            return self._html
        return "<pre>" + html.escape(str(self)) + "</pre>"

    # -- convenience --------------------------------------------------------------------
    @property
    def headline(self) -> str:
        return "\n".join(m.headline for m in self.modules)

    @property
    def copies(self) -> list:
        return [c for m in self.modules for c in m.copies]

    @property
    def updates(self) -> list:
        return [u for m in self.modules for u in m.updates]

    @property
    def loops(self) -> list:
        return [lp for m in self.modules for lp in m.loops]

    @property
    def parameters(self) -> list:
        return [p for m in self.modules for p in m.parameters]

    @property
    def fusions(self) -> list:
        return [f for m in self.modules for f in m.fusions]

    @property
    def copies_in_loops(self) -> list:
        return [c for m in self.modules for c in m.copies if c.enclosing_loops]

    def __iter__(self) -> Iterator[ModuleReport]:
        return iter(self.modules)

    def __len__(self) -> int:
        return len(self.modules)
