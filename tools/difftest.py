#!/usr/bin/env python3
"""Differential test: random JAX programs, `hloscope check` vs the independent oracle.

    python3 tools/difftest.py --n 300 --seed S [--hloscope BIN] [--jobs 1]

See tools/difftest/ (generator, runner, minimizer) and docs/accuracy.md.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftest.runner import main  # noqa: E402  (the package tools/difftest/, not this file)

if __name__ == "__main__":
    sys.exit(main())
