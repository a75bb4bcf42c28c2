"""An independent oracle for the collectives of an optimized HLO module: which, where, how many
bytes per device, how often.

Pure Python, standard library only, text based. It shares no code with hloscope's C++ parser:
it is the second opinion the `sharded-*` fixtures are checked against.

    python3 tools/collective_oracle.py MODULE.hlo.txt [...]          # JSON on stdout
    python3 tools/collective_oracle.py --fixtures tests/fixtures/sharded-*   # writes
        <fixture>/collectives.oracle.json next to every module.hlo.txt
    python3 tools/collective_oracle.py --self-test

The package, one concept a module (tools/collective_oracle.py is the command-line entry point
and re-exports what other tools import):

* hlo_text.py — lexing an HLO module's text: computations, instructions, attributes, shapes
  and their byte sizes;
* groups.py — replica groups in every printed form, source_target_pairs, the group mode;
* traffic.py — bytes sent and received per device per execution, per collective kind;
* trips.py — while-loop trip counts and executions per call;
* collectives.py — what it lists, and the analysis that puts the above together;
* selftest.py — the inline self-test (``--self-test``);
* cli.py, __main__.py — the command line (``python3 -m collective_oracle_lib`` from tools/).
"""

from .collectives import COLLECTIVES, analyze
from .cli import dumps_report, main, write_fixtures
from .groups import group_mode, parse_explicit, parse_iota, parse_mesh_groups, resolve_groups
from .hlo_text import ELEMENT_BYTES, Instr, Module, parse_shape, shape_bytes, shape_str
from .selftest import self_test
from .trips import executions, infer_trip_count

__all__ = [
    "COLLECTIVES", "ELEMENT_BYTES", "Instr", "Module", "analyze", "dumps_report", "executions",
    "group_mode", "infer_trip_count", "main", "parse_explicit", "parse_iota", "parse_mesh_groups",
    "parse_shape", "resolve_groups", "self_test", "shape_bytes", "shape_str", "write_fixtures",
]
