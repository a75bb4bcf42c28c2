"""A Report as HTML tables, for notebooks (Report._repr_html_)."""

from __future__ import annotations

import html
from typing import Any, Iterable, Sequence

from ._report import Report, Update, _times, human_bytes

_CSS = ("<style>.hloscope table{border-collapse:collapse;margin:4px 0 10px 0}"
        ".hloscope th,.hloscope td{border:1px solid #ccc;padding:2px 6px;text-align:left;"
        "font-family:monospace;font-size:12px;vertical-align:top}"
        ".hloscope .bad{color:#b00020}.hloscope .ok{color:#1b5e20}</style>")


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(report: Report) -> str:
    out = [_CSS, '<div class="hloscope">']
    for m in report.modules:
        out.append(f"<p><b>{_e(m.headline)}</b></p>")
        if m.copies:
            out.append("<div>COPIES (by bytes moved per call)</div>")
            out.append(_table(
                ["copy", "shape", "bytes", "×", "per call", "where", "source", "cause"],
                ([_e(c.instruction), _e(c.shape), _e(human_bytes(c.bytes)),
                  _e(_times(c.executions, c.executions_upper_bound)),
                  _e(human_bytes(c.total_bytes)),
                  _e(f"in {c.enclosing_loops[0]}" if c.enclosing_loops else "entry"),
                  _e(c.source) if c.source else "",
                  f'<span class="bad">{_e(c.cause)}</span> — {_e(c.cause_detail)}'
                  + (f"<br>hint: {_e(c.hint)}" if c.hint else "")]
                 for c in m.copies)))
        if m.updates:
            out.append("<div>UPDATES</div>")

            def confirmed(u: Update) -> str:
                if u.confirmed is None:
                    return ""
                return ('<span class="ok">✓</span>' if u.confirmed
                        else f'<span class="bad">✗ {_e(u.confirmation)}</span>')
            out.append(_table(
                ["verdict", "update", "bytes written", "×", "source", "on copy", "buffer assignment"],
                ([f'<span class="{"ok" if u.in_place else "bad"}">{_e(u.verdict)}</span>',
                  _e(u.label), _e(human_bytes(u.bytes_written)),
                  _e(_times(u.executions, u.executions_upper_bound)),
                  _e(u.source) if u.source else "", _e(u.copy), confirmed(u)]
                 for u in m.updates)))
        if m.loops:
            out.append("<div>LOOPS</div>")
            out.append(_table(
                ["loop", "iterations", "copied / iteration", "rewritten / iteration", "source"],
                ([_e(lp.instruction),
                  _e(f"{lp.trip_count} ({lp.trip_count_source})" if lp.trip_count is not None
                     else "unknown"),
                  _e(human_bytes(lp.copy_bytes_per_iteration)),
                  _e(human_bytes(lp.rewrite_bytes_per_iteration))
                  + (" — grows with buffer size" if lp.scales_with_buffer else ""),
                  _e(lp.source) if lp.source else ""]
                 for lp in m.loops)))
        if m.parameters:
            out.append("<div>PARAMETERS</div>")
            out.append(_table(
                ["#", "name", "shape", "bytes", "donated", "copied"],
                ([_e(p.number), _e(p.name), _e(p.shape), _e(human_bytes(p.bytes)),
                  "donated" if p.donated else "not donated",
                  _e(", ".join(c.instruction for c in p.copies)) if p.copied else "not copied"]
                 for p in m.parameters)))
        if m.buffer_assignment:
            out.append(f"<p>verdicts checked against XLA's buffer assignment "
                       f"({_e(m.buffer_assignment)})</p>")
        else:
            out.append("<p>no buffer assignment: verdicts unconfirmed</p>")
    for n in report.notes:
        out.append(f"<p>note: {_e(n)}</p>")
    out.append("</div>")
    return "".join(out)
