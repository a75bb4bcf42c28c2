"""python3 -m collective_oracle_lib (from tools/): the same as python3 tools/collective_oracle.py."""

import sys

from .cli import main

sys.exit(main())
