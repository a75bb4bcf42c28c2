"""The findings of a report as dataclasses, built from the engine's JSON (docs/json-format.md).

Every field mirrors the JSON of ``hloscope check --format json``: instruction references are
``Ref`` / ``Position`` objects, exactly as the JSON has them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["Source", "Ref", "Position", "Feed", "Scaling", "Carry", "Copy", "Update", "Loop", "Collective",
           "Parameter",
           "Fusion"]

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
    """One thing a loop moves every iteration: a copy, a carry rewritten in full, a collective,
    a kernel reading the loop's buffer whole."""

    kind: str = "copy"  # copy, carry-rewrite, collective, whole-read
    copy: Optional[Position] = None
    collective: Optional[Ref] = None  # kind collective
    kernel: Optional[Ref] = None  # kind whole-read: the kernel that reads carry `carry` whole
    source: Optional[Source] = None  # kind whole-read: the kernel's line
    # kind whole-read: it reads a dynamic slice (`shape`) spanning every row the loop writes (a layer
    # of a stacked KV cache), not the carry itself.
    slice: bool = False
    # kind whole-read by a relayout or a kernel without a line: the op downstream whose line `source` is.
    for_op: Optional[Ref] = None
    carry: Optional[int] = None
    rewritten_by: Optional[Position] = None
    shape: str = ""
    bytes: Optional[int] = None
    # the array is a buffer the loop works on at run-time positions: it grows with that buffer
    grows_with_buffer: bool = False
    # kind carry-rewrite with XLA's buffer assignment: whether XLA keeps the rewriting value in
    # the carry's own slice (None without the dump)
    confirmed: Optional[bool] = None
    text: str = ""
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def from_json(cls, d: dict) -> "Scaling":
        return _from_dict(cls, d, convert={"copy": Position.from_json, "collective": Ref.from_json,
                                           "kernel": Ref.from_json, "source": Source.from_json,
                                           "rewritten_by": Position.from_json, "for_op": Ref.from_json})


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
    # some loop around it works on the array it copies at run-time positions:
    # a larger buffer makes the copy larger (a copy in a loop under 4 KiB that
    # does not grow is gate small-copies-in-loops, strict only)
    grows_with_buffer: bool = False
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
    # In place after earlier updates of which the first runs on a copy (two writes into one KV
    # cache): that copy, which serves them all once per run.
    shares_copy: Optional[Position] = None
    # Sharded buffers: the collective that gathers the whole buffer so that this update can run
    # at a run-time index (in place on the local shard, the whole buffer moved every time).
    gathered_by: Optional[Ref] = None
    operand: Optional[Position] = None
    reason: str = ""
    buffer_bytes: Optional[int] = None
    bytes_written: Optional[int] = None
    executions: Optional[int] = None
    executions_upper_bound: bool = False
    enclosing_loops: list = field(default_factory=list)  # list[Ref], innermost first
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
                                           "shares_copy": Position.from_json, "gathered_by": Ref.from_json,
                                           "operand": Position.from_json, "output_index": list,
                                           "enclosing_loops": _list(Ref)})


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
    collective_bytes_per_iteration: Optional[int] = None  # per device; None without collectives
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
class Collective:
    """One collective of a sharded module: what it moves per device, how often, and why.

    Bytes are per device (every device runs the same program), counted from the shapes and
    the replica groups as data bytes (TPU tile padding left out); ``total_bytes`` is
    ``bytes × executions`` per call. docs/sharding.md explains each cause.
    """

    instruction: str = ""
    computation: str = ""
    collective: Optional[Ref] = None  # the collective inside an async wrapper or fused kernel
    family: str = ""  # all-gather, all-reduce, reduce-scatter, all-to-all, collective-permute, ...
    shape: Optional[str] = None
    operand_shape: Optional[str] = None
    group_size: int = 0
    num_groups: int = 0
    spans_all_devices: bool = False
    mesh_axes: list = field(default_factory=list)  # list[str]
    bytes_sent: Optional[int] = None
    bytes_received: Optional[int] = None
    bytes: Optional[int] = None  # per device per execution: the larger of sent and received
    exact: bool = True
    executions: Optional[int] = None
    executions_upper_bound: bool = False
    total_bytes: Optional[int] = None  # per device per call
    enclosing_loops: list = field(default_factory=list)  # list[Ref], innermost first
    grows_with_buffer: bool = False
    cause: str = "unknown"
    cause_rule: Optional[str] = None
    cause_facts: dict = field(default_factory=dict)
    cause_detail: str = ""
    hint: Optional[str] = None
    source: Optional[Source] = None
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def in_loop(self) -> bool:
        return bool(self.enclosing_loops)

    @classmethod
    def from_json(cls, d: dict) -> "Collective":
        return _from_dict(cls, d, convert={"source": Source.from_json, "collective": Ref.from_json,
                                           "enclosing_loops": _list(Ref), "mesh_axes": list,
                                           "cause_facts": dict})


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
    # JAX's path of the argument ("state['buf']"); None when the module does not say.
    argument: Optional[str] = None
    # The entry outputs XLA aliases with it (index lists): where a kept donation's memory goes.
    aliased_outputs: list = field(default_factory=list)
    # Bytes per call its copies move only because it is not donated: what donating it saves.
    donation_saves: Optional[int] = None
    # Sharded modules: the sharding XLA printed ({"text", "shards_per_dim", "global_dims",
    # "replicated"}) and the global array's bytes (`bytes` is per device).
    sharding: Optional[dict] = None
    global_bytes: Optional[int] = None
    # Whether the program asked to donate it, and why XLA did not keep a requested donation (with
    # a fix); None when the request is unknown. Known when hloscope compiled the function
    # (inspect, scaling: JAX's donate_argnums), beside an XLA dump (the module before
    # optimization), or from a buffer_donor XLA left unused. Not compared: two doors may know
    # the request from different places.
    donation_requested: Optional[bool] = field(default=None, compare=False)
    donation_dropped: Optional[str] = field(default=None, compare=False)
    extra: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: dict) -> "Parameter":
        return _from_dict(cls, d, convert={"copies": _list(Position), "donation_dropped": _dropped_text})


def _dropped_text(d: Any) -> Optional[str]:
    """The CLI's {"reason", "text", "fix"} as one sentence: "<why>. Fix: <fix>."."""
    if not isinstance(d, dict):
        return d if isinstance(d, str) else None
    return f"{d.get('text', '')}. Fix: {d.get('fix', '')}."


@dataclass
class Fusion:
    """One kernel — a fusion, or work XLA left unfused (a dot, a sort, a collective) — as
    ``hloscope fusions --format json`` shows it."""

    instruction: str = ""
    computation: str = ""
    fused_computation: Optional[str] = None
    kind: str = ""  # kLoop, kInput, kOutput, kCustom; an unfused kernel's opcode (dot, sort, ...)
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
    flops: Optional[int] = None  # per run, XLA's HloCostAnalysis rules; None for a custom-call
    transcendentals: Optional[int] = None
    enclosing_loops: list = field(default_factory=list)  # list[Ref]
    source: Optional[Source] = None
    # A kernel that only lays an array out anew or has no line: the op it serves, with the line it is
    # reported at (its ``source``); None otherwise.
    serves: Optional[Ref] = None
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
                                           "serves": Ref.from_json,
                                           "enclosing_loops": _list(Ref), "updates": _list(Update),
                                           "copies": _list(Copy), "opcode_counts": dict})
