// The HTML report's style sheet and script, inlined into every page (the
// page is one self-contained file). Styles are scoped to .hloscope-report so
// that the notebook form does not restyle the notebook. The script only
// adds: sorting by a column header, and a filter bar above each findings
// table (text, scope, loop, origin); without it every row is shown.
#ifndef HLOSCOPE_REPORT_HTML_ASSETS_H_
#define HLOSCOPE_REPORT_HTML_ASSETS_H_

#include <string_view>

namespace hloscope {

inline constexpr std::string_view kHtmlReportCss = R"css(
.hloscope-report{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;color:#1d1d1f;max-width:1400px;margin:0 auto;padding:0 12px}
.hloscope-report h1{font-size:20px;margin:12px 0 2px}
.hloscope-report h2{font-size:17px;margin:18px 0 4px;border-bottom:1px solid #ddd}
.hloscope-report h3{font-size:15px;margin:16px 0 4px}
.hloscope-report h4{font-size:13px;margin:10px 0 2px;font-family:monospace}
.hloscope-report .headline{font-size:16px;font-weight:600;margin:6px 0}
.hloscope-report table{border-collapse:collapse;margin:4px 0 10px}
.hloscope-report th,.hloscope-report td{border:1px solid #d0d0d0;padding:2px 6px;text-align:left;vertical-align:top;font-size:12px}
.hloscope-report th{background:#f2f4f8}
.hloscope-report table.findings td:first-child{font-family:monospace}
.hloscope-report td.num{text-align:right;white-space:nowrap;font-family:monospace}
.hloscope-report .bad,.hloscope-report .cause{color:#b00020}
.hloscope-report .ok{color:#1b5e20}
.hloscope-report .muted{color:#6b6b6b}
.hloscope-report ol.answer li{margin:3px 0}
.hloscope-report table.source{border:none;width:100%}
.hloscope-report table.source td{border:none;padding:0 6px;font-size:12px}
.hloscope-report table.source tr.hit{background:#fff7e0}
.hloscope-report table.source tr.m-copy{background:#ffe3e3}
.hloscope-report table.source tr.m-inplace{background:#eaf6ea}
.hloscope-report table.source td.ln{color:#888;text-align:right;font-family:monospace}
.hloscope-report table.source td.mark{text-align:center}
.hloscope-report table.source code{white-space:pre}
.hloscope-report ul.line-findings{margin:2px 0 4px 18px;padding:0;font-size:12px}
.hloscope-report :target{outline:2px solid #1565c0}
.hloscope-report details{margin:6px 0}
.hloscope-report summary{cursor:pointer;color:#333}
.hloscope-report .svg text{font-family:Helvetica,Arial,"Liberation Sans",sans-serif}
.hloscope-report .svg{overflow:auto;max-height:900px;border:1px solid #eee}
.hloscope-report .filters{margin:4px 0;font-size:12px}
.hloscope-report .filters input,.hloscope-report .filters select{font-size:12px;margin-right:8px}
.hloscope-report th.sortable{cursor:pointer}
)css";

inline constexpr std::string_view kHtmlReportScript = R"js(
(function () {
  var root = document.currentScript ? document.currentScript.previousElementSibling : null;
  if (!root || !root.classList.contains('hloscope-report')) root = document;
  function cellValue(row, i) {
    var c = row.cells[i];
    if (!c) return '';
    return c.hasAttribute('data-v') ? parseFloat(c.getAttribute('data-v')) : c.textContent.trim();
  }
  root.querySelectorAll('table.sortable').forEach(function (table) {
    var body = table.tBodies[0];
    if (!body) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.classList.add('sortable');
      th.title = 'sort by ' + th.textContent;
      var descending = true;
      th.addEventListener('click', function () {
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, i), y = cellValue(b, i);
          var r = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
          return descending ? -r : r;
        });
        descending = !descending;
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
    var facets = ['scope', 'loop', 'origin'];
    var bar = document.createElement('div');
    bar.className = 'filters';
    var text = document.createElement('input');
    text.type = 'search';
    text.placeholder = 'filter rows';
    bar.appendChild(text);
    var selects = {};
    facets.forEach(function (f) {
      var values = {};
      Array.prototype.forEach.call(body.rows, function (r) {
        var v = r.getAttribute('data-' + f);
        if (v) values[v] = true;
      });
      var keys = Object.keys(values).sort();
      if (keys.length < 2) return;
      var s = document.createElement('select');
      s.setAttribute('data-facet', f);
      var all = document.createElement('option');
      all.value = '';
      all.textContent = 'any ' + f;
      s.appendChild(all);
      keys.forEach(function (k) {
        var o = document.createElement('option');
        o.value = k;
        o.textContent = k;
        s.appendChild(o);
      });
      selects[f] = s;
      bar.appendChild(s);
    });
    function apply() {
      var needle = text.value.toLowerCase();
      Array.prototype.forEach.call(body.rows, function (r) {
        var show = !needle || r.textContent.toLowerCase().indexOf(needle) >= 0;
        Object.keys(selects).forEach(function (f) {
          var want = selects[f].value;
          if (want && r.getAttribute('data-' + f) !== want) show = false;
        });
        r.style.display = show ? '' : 'none';
      });
    }
    text.addEventListener('input', apply);
    Object.keys(selects).forEach(function (f) { selects[f].addEventListener('change', apply); });
    if (body.rows.length > 3) table.parentNode.insertBefore(bar, table);
  });
  root.querySelectorAll('a[href^="#"]').forEach(function (a) {
    a.addEventListener('click', function () {
      var target = document.getElementById(a.getAttribute('href').slice(1));
      for (var p = target; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    });
  });
  if (root.setAttribute) root.setAttribute('data-enhanced', 'true');
  else document.documentElement.setAttribute('data-enhanced', 'true');
})();
)js";

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_HTML_ASSETS_H_
