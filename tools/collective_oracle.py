#!/usr/bin/env python3
"""An independent oracle for the collectives of an optimized HLO module: which, where, how many
bytes per device, how often.

Pure Python, standard library only, text based. It shares no code with hloscope's C++ parser:
it is the second opinion the `sharded-*` fixtures are checked against.

    python3 tools/collective_oracle.py MODULE.hlo.txt [...]          # JSON on stdout
    python3 tools/collective_oracle.py --fixtures tests/fixtures/sharded-*   # writes
        <fixture>/collectives.oracle.json next to every module.hlo.txt
    python3 tools/collective_oracle.py --self-test

The entry point, and what other tools import (`import collective_oracle` with tools/ on the
path: analyze, dumps_report, ...). The code, and the conventions it follows (replica groups,
bytes per device, executions per call, with the XLA sources cited), are in the package
tools/collective_oracle_lib/, one concept a module (its __init__.py lists them).
"""

import os
import sys

if os.path.dirname(os.path.abspath(__file__)) not in [os.path.abspath(p) for p in sys.path]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from collective_oracle_lib import *  # noqa: E402,F401,F403  (the API other tools use)
from collective_oracle_lib import __all__, main  # noqa: E402,F401

if __name__ == "__main__":
    sys.exit(main())
