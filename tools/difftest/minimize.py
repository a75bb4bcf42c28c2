"""Greedy, time-bounded minimization of a program spec while a predicate (the mismatch) holds.

Passes, largest cuts first: drop whole statements (outermost first, users that cannot be
redirected go with them), replace a loop or cond by one run of its body / one branch, make
loop/branch/vmap bodies pass-throughs, drop carries, drop returned
values, drop nested statements, turn dynamic and array indices into constants, lower trip counts,
halve the shapes, undonate arguments, replicate arguments and drop output shardings (sharded
programs), drop unused arguments.  Each accepted edit restarts nothing:
the pass continues at the same position; passes repeat until one changes nothing or the time
(budget_s) or the number of tries (max_tries) runs out.
"""

from __future__ import annotations

import time
from typing import Callable, Optional, Tuple

from . import spec as S


def _edits(sp: dict):
    """(name, count(spec), apply(spec, k)) for each kind of edit."""
    return [
        ("drop statement", S.count_stmts, S.drop_stmt),
        ("inline body", lambda s: sum(len(S.stmt_blocks(c)) for c in S.compounds(s)), _inline_nth),
        ("clear body", lambda s: sum(len(S.stmt_blocks(c)) for c in S.compounds(s)), _clear_nth),
        ("drop carry", lambda s: sum(len(c.get("init", c.get("ops", []))) for c in S.compounds(s)),
         _drop_carry_nth),
        ("drop return", lambda s: len(s["returns"]), S.drop_return),
        ("simplify index", S.count_stmts, S.simplify_index),
        ("trip count 1", lambda s: sum(1 for c in S.compounds(s) if c["op"] in S.LOOPS),
         lambda s, k: S.set_trip(s, k, 1)),
        ("trip count 2", lambda s: sum(1 for c in S.compounds(s) if c["op"] in S.LOOPS),
         lambda s, k: S.set_trip(s, k, 2)),
        ("shrink shapes", lambda s: 1, lambda s, k: S.shrink_shapes(s)),
        ("undonate", lambda s: len(s["args"]), S.undonate),
        ("replicate argument", lambda s: len(s["args"]), S.unshard),
        ("drop output shardings", lambda s: 1, lambda s, k: S.drop_out_pspecs(s)),
        ("drop unused args", lambda s: 1, lambda s, k: S.drop_unused_args(s)),
    ]


def _clear_nth(sp: dict, k: int) -> Optional[dict]:
    for n, c in enumerate(S.compounds(sp)):
        nb = len(S.stmt_blocks(c))
        if k < nb:
            return S.clear_body(sp, n, k)
        k -= nb
    return None


def _inline_nth(sp: dict, k: int) -> Optional[dict]:
    for n, c in enumerate(S.compounds(sp)):
        nb = len(S.stmt_blocks(c))
        if k < nb:
            return S.inline_body(sp, n, k)
        k -= nb
    return None


def _drop_carry_nth(sp: dict, k: int) -> Optional[dict]:
    for n, c in enumerate(S.compounds(sp)):
        nc = len(c.get("init", c.get("ops", [])))
        if k < nc:
            return S.drop_carry(sp, n, k)
        k -= nc
    return None


def minimize(sp: dict, holds: Callable[[dict], bool], budget_s: float = 120,
             max_tries: int = 1000) -> Tuple[dict, int]:
    """Smallest spec found for which holds(spec) is True; holds(sp) is assumed True."""
    t0 = time.time()
    tries = 0
    changed = True
    while changed:
        changed = False
        for _name, count, apply in _edits(sp):
            k = 0
            while k < count(sp):
                if time.time() - t0 > budget_s or tries >= max_tries:
                    return sp, tries
                cand = apply(sp, k)
                ok = False
                if cand is not None and cand != sp:
                    try:
                        S.render(cand)  # raises SpecError if inconsistent (infer_types)
                        tries += 1
                        ok = holds(cand)
                    except S.SpecError:
                        ok = False
                if ok:
                    sp = cand
                    changed = True
                else:
                    k += 1
    return sp, tries
