"""Statistics over difftest records: per-claim agreement, totals, signatures; text or Markdown."""

from __future__ import annotations

from collections import Counter
from typing import List

def summarize(records: List[dict]) -> dict:
    # runner imports this module; its classifiers are read at call time.
    from .runner import IN_PLACE_CLAIMS, category, signature
    valid = [r for r in records if not r.get("invalid")]
    tot = Counter()
    bad = Counter()
    sigs = Counter()
    verdicts = Counter()
    causes = Counter()
    ccauses = Counter()
    for r in valid:
        for k, v in r.get("n", {}).items():
            if isinstance(v, int) and k != "false_in_place":
                tot[k] += v
        vs = r.get("n", {}).get("verdicts", {})
        tot["in_place_claims"] += sum(vs.get(v, 0) for v in IN_PLACE_CLAIMS)
        # the same false claim may show up in both checks: count it once
        tot["false_in_place"] += max(r.get("n", {}).get("in_place_contradicted", 0),
                                     sum(1 for p in r["problems"] if category(p) == "false_in_place"))
        verdicts.update(r.get("n", {}).get("verdicts", {}))
        causes.update(r.get("n", {}).get("causes", {}))
        ccauses.update(r.get("n", {}).get("collective_causes", {}))
        for p in r["problems"]:
            bad[category(p)] += 1
            if p.startswith("copy missed"):
                bad["copies_missed"] += 1
            if p.startswith("copy invented"):
                bad["copies_invented"] += 1
        for s in set(r.get("signatures") or [signature(p) for p in r["problems"]]):
            sigs[s] += 1
    claims = {
        "copies": (tot["copies"] + bad["copies_invented"], bad["copies"]),
        "bytes": (tot["copies"] - bad["copies_missed"], bad["bytes"]),
        "update verdicts": (tot["updates"] + tot["oop_fusions"], bad["verdicts"]),
        # in-place claims where XLA did not share: the oracle's check (updates XLA kept apart) plus
        # hloscope's own claims the buffer assignment contradicts
        "false in-place claims": (tot["in_place_claims"], tot["false_in_place"]),
        "confirmed verdicts": (tot["hl_updates"], bad["confirmed"]),
        "trip counts": (tot["known_trips"], bad["trips"]),
        "collectives (bytes x executions)": (tot["collectives"], bad["collectives"]),
    }
    return {
        "programs": len(records),
        "valid": len(valid),
        "invalid": len(records) - len(valid),
        "invalid_reasons": dict(Counter((r["invalid"] or "")[:60] for r in records if r.get("invalid"))),
        "with_mismatch": sum(1 for r in valid if r["problems"]),
        "crashes": bad["crash"],
        "claims": {k: {"compared": n, "disagree": d} for k, (n, d) in claims.items()},
        "totals": {k: tot[k] for k in ("copies", "copy_bytes", "updates", "shared", "not_shared",
                                       "oop_fusions", "hl_updates", "loops", "known_trips",
                                       "collectives")},
        "verdicts": dict(verdicts),
        "causes": dict(causes),
        "collective_causes": dict(ccauses),
        "signatures": dict(sigs.most_common()),
    }


def format_summary(s: dict, markdown: bool = False) -> str:
    lines = []
    if markdown:
        lines.append(f"{s['programs']} programs ({s['valid']} compiled, {s['invalid']} rejected by JAX), "
                     f"{s['with_mismatch']} with a mismatch.\n")
        lines.append("| claim | compared | disagree | agreement |")
        lines.append("|---|---:|---:|---:|")
    else:
        lines.append(f"{s['programs']} programs: {s['valid']} compiled, {s['invalid']} invalid, "
                     f"{s['with_mismatch']} with mismatches")
    for k, v in s["claims"].items():
        n, d = v["compared"], v["disagree"]
        agree = "n/a" if n == 0 else f"{100.0 * (n - d) / n:.2f} %"
        if k == "false in-place claims":
            k = "in-place claims (false ones)"
        if markdown:
            lines.append(f"| {k} | {n} | {d} | {agree} |")
        else:
            lines.append(f"  {k:30s} compared {n:6d}  disagree {d:5d}  {agree}")
    if not markdown:
        t = s["totals"]
        lines.append(f"  oracle: {t['copies']} copies ({t['copy_bytes']} B), {t['updates']} updates "
                     f"({t['shared']} shared, {t['not_shared']} not), {t['oop_fusions']} out-of-place "
                     f"fusions, {t['loops']} loops ({t['known_trips']} known trip counts)")
        lines.append(f"  hloscope verdicts: {s['verdicts']}")
        lines.append(f"  hloscope copy causes: {s['causes']}")
        if s.get("collective_causes"):
            lines.append(f"  hloscope collective causes: {s['collective_causes']}")
        if s["invalid_reasons"]:
            lines.append(f"  invalid: {s['invalid_reasons']}")
        for sig, c in s["signatures"].items():
            lines.append(f"  {c:5d} programs: {sig}")
    return "\n".join(lines)


