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

import html
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional

from ._findings import (Carry, Collective, Copy, Feed, Fusion, Loop, Parameter, Position, Ref, Scaling, Source,
                        Update, _from_dict, _list)
from ._units import human_bytes

__all__ = [
    "Source", "Ref", "Position", "Feed", "Scaling", "Carry", "Copy", "Update", "Loop", "Collective",
    "Parameter", "Fusion", "ModuleReport", "Report", "human_bytes",
]


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
    # The ranked answer across every kind of finding ({"stands_out", "lead", "basis",
    # "findings"}: docs/json-format.md, docs/analysis.md "The answer"); None from older JSON.
    answer: Optional[dict] = None
    # What grows with buffer size and moves the most per call (a loop's copy, full rewrite,
    # whole read or collective), with why and what bounds it; None when no loop grows.
    growth: Optional[str] = None
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
    # Sharded modules: every collective (list[Collective], by bytes per call, largest first)
    # and the SPMD layout ({"replica_count", "num_partitions", "devices", "mesh",
    # "mesh_names_from", "text"}: the mesh with the user's axis names where the dump keeps them).
    collectives: list = field(default_factory=list)
    spmd: Optional[dict] = None
    # The module before SPMD partitioning the re-shard origins were read from (a
    # --xla_dump_hlo_pass_re=spmd-partitioning dump), or None (docs/sharding.md).
    pre_partition: Optional[str] = None
    # What one call needs per device by XLA's buffer assignment ({"peak_bytes", "spaces",
    # "temp_peak", "allocations", "allocation_count"}: docs/json-format.md, docs/memory.md);
    # None without the module's buffer-assignment dump.
    memory: Optional[dict] = None
    # The work of one call ({"target", "per_call": {"flops", "transcendentals", "bytes_accessed",
    # "matmul_flops", "estimated_seconds"}, "xla_cost_analysis", "top_kernels", "top_loops", ...}:
    # docs/cost.md); hloscope.cost() has every line, loop and kernel.
    cost: Optional[dict] = None
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

    @property
    def collective_bytes(self) -> Optional[int]:
        """Bytes all collectives move per device per call; None if any count is unknown."""
        total = 0
        for c in self.collectives:
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
    "collectives": _list(Collective),
    "spmd": dict,
    "memory": dict,
    "cost": dict,
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
        try:
            modules = [ModuleReport.from_json(m) for m in doc.get("modules", [])]
        except (TypeError, AttributeError, KeyError) as e:
            # A document of another shape (hand-edited, another tool's): the same kind of
            # error json.loads gives for text that is not JSON, saying what was expected.
            raise ValueError(f"not a check document (hloscope check --format json): {e}") from None
        report = cls(modules=modules, schema_version=doc.get("schema_version", 2),
                     notes=list(notes), _json=text, _text=rendered_text, _engine=_engine)
        for i, m in enumerate(modules):
            m._report, m._index = report, i
        return report

    @classmethod
    def _from_engine(cls, engine: Any, notes: Iterable[str] = ()) -> "Report":
        # The engine's notes (the one channel the CLI prints with "hloscope: note: ")
        # after the ones of how Python made the report.
        json_text, text = engine.check_json(), engine.check_text()
        return cls.from_json(json_text, rendered_text=text, notes=[*notes, *engine.notes()], _engine=engine)

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
    def answer(self) -> str:
        """Each module's answer: its top finding of any kind, in one sentence (or what was
        checked, when nothing stands out), one line per module."""
        return "\n".join(f"{m.name}: {m.answer['lead']}." for m in self.modules if m.answer)

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
    def memory(self) -> Optional[dict]:
        """The memory of the module (a jitted function compiles to one): ModuleReport.memory of
        the first module that has one, or None without a buffer assignment."""
        return next((m.memory for m in self.modules if m.memory is not None), None)

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
