"""Differential testing of `hloscope check` against tools/ba_oracle.py on random JAX programs.

    python3 tools/difftest.py --n 300 --seed 0 [--hloscope BIN] [--jobs 1]

Modules:
  spec       the program representation (a JSON-able dict), type inference, rendering to
             standalone Python source, and the edits the minimizer uses;
  generator  seeded random programs (updates, scatters, reads, loops, cond/switch, vmap, ...);
  runner     compile with XLA dumps, compare with the oracle, statistics, reproducers, CLI;
  worker     the compile server the runner talks to (JAX is imported only there, so an XLA abort
             costs one program, not the run);
  minimize   greedy, time-bounded shrinking of a program while a mismatch persists.

Nothing here needs JAX except the runner's compile step; the generator and the minimizer's edits
are pure Python (tests/python/test_difftest.py checks them without JAX).
"""
