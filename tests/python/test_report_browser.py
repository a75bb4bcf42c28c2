"""The HTML report in a real browser (headless Chromium): what a user sees.

The pages of the bundled example and of a training loop written with optax render
with the answer, the loop picture (SVG) and the annotated source; JavaScript adds
sorting and filters, and the page still reads with JavaScript off; hostile strings
in op_name and source paths stay inert text; sorting by a column really sorts.
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
from html.parser import HTMLParser

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import browser  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "dumps", "replay_rollout.cpu_after_optimizations.txt")
OPTAX = glob.glob(os.path.join(ROOT, "tests", "fixtures", "report", "optax_train", "*after_optimizations.txt"))[0]


@pytest.fixture(scope="module", autouse=True)
def need_chromium():
    if browser.find_chromium() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must have headless Chromium (tools/install-deps.sh installs it)")
        pytest.skip("headless Chromium not installed")


class Dom(HTMLParser):
    """Elements as (tag, attrs, path) plus the text of the page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list = []
        self.stack: list = []
        self.texts: list = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), tuple(self.stack)))
        if tag not in ("br", "meta", "input", "img", "link", "path", "polygon", "ellipse", "polyline"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        self.texts.append(data)

    def find(self, tag=None, **attrs):
        out = []
        for t, a, path in self.elements:
            if tag and t != tag:
                continue
            names = {k: k.rstrip("_").replace("_", "-") for k in attrs}
            if all(a.get(names[k]) == v or (v is True and names[k] in a) for k, v in attrs.items()):
                out.append((t, a, path))
        return out

    @property
    def text(self) -> str:
        return "".join(self.texts)


def report(hloscope_bin, tmp_path, hlo, *extra) -> str:
    out = str(tmp_path / (os.path.basename(hlo) + ".html"))
    r = subprocess.run([hloscope_bin, "report", hlo, "-o", out, *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("hlo", [EXAMPLE, OPTAX], ids=["example", "optax_train"])
def test_the_page_renders_with_findings_picture_and_source(hloscope_bin, tmp_path, hlo):
    dom = Dom(browser.dump_dom(report(hloscope_bin, tmp_path, hlo)))
    root = dom.find("div", class_="hloscope-report")
    assert root and root[0][1].get("data-enhanced") == "true", "the page's script did not run"
    # The answer: a headline and numbered findings that link into the tables.
    assert dom.find("p", class_="headline")
    answer_links = [a for t, a, path in dom.elements if t == "a" and "ol" in path]
    assert answer_links and all(a["href"].startswith("#m0-") for a in answer_links)
    # The loop picture: an inline SVG with the loop and its copied carry.
    svgs = [e for e in dom.find("svg") if "div" in e[2]]
    assert svgs, "no loop picture"
    assert dom.find("g", class_="node")
    assert "copied by copy" in dom.text
    # The annotated source: the user's lines, with a copy mark.
    hits = dom.find("tr", class_=True)
    assert any("hit" in a["class"] and "m-copy" in a["class"] for _, a, _ in hits)
    # Copy rows with the cause, links from source lines back to them.
    copy_rows = [a for t, a, _ in dom.elements if t == "tr" and a.get("id", "").startswith("m0-copy-")]
    assert copy_rows
    assert "read-after-update" in dom.text
    ids = {a["id"] for _, a, _ in dom.elements if "id" in a}
    for _, a, _ in dom.find("a"):
        if a.get("href", "").startswith("#"):
            assert a["href"][1:] in ids, a["href"]


def test_the_library_programs_carries_have_the_users_names(hloscope_bin, tmp_path):
    dom = Dom(browser.dump_dom(report(hloscope_bin, tmp_path, OPTAX)))
    # Carries start as the donated arguments: optax's state by its pytree path
    # (the parameter's op_name, as JAX wrote it).
    assert "argument 5 (opt_state[1][0].mu['b1'])" in dom.text
    assert "grows with buffer size" in dom.text
    # Filters exist for the tables with enough rows.
    assert dom.find("div", class_="filters")


def test_the_page_reads_with_javascript_off(hloscope_bin, tmp_path):
    # The browser runs no script: the page's own policy says so.
    page = report(hloscope_bin, tmp_path, EXAMPLE)
    text = open(page, encoding="utf-8").read()
    assert "script-src 'unsafe-inline'" in text
    with open(page, "w", encoding="utf-8") as f:
        f.write(text.replace("script-src 'unsafe-inline'", "script-src 'none'"))
    dom = Dom(browser.dump_dom(page))
    assert dom.find("div", class_="hloscope-report")[0][1].get("data-enhanced") is None
    assert not dom.find("div", class_="filters")
    assert dom.find("svg")
    assert [a for t, a, _ in dom.elements if t == "tr" and a.get("id", "").startswith("m0-copy-")]
    # Folded parts are <details>, open or closed without a script.
    assert dom.find("details", class_="small")


def hostile_module(tmp_path) -> str:
    src = os.path.join(ROOT, "tests", "fixtures", "jax", "loop_read_after_write", "module.hlo.txt")
    text = open(src, encoding="utf-8").read()
    text = text.replace('"/work/main/tools/fixture_programs/loops.py"',
                        '"/tmp/<img src=x onerror=alert(1)>/\\"><script>document.title=\'pwned\'</script>.py"')
    text = text.replace("jit(loop_read_after_write)/while/body",
                        "jit(loop_read_after_write)/while/body/<svg onload=\\\"document.title='pwned2'\\\">")
    path = tmp_path / "hostile.hlo.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_hostile_strings_stay_inert_in_the_browser(hloscope_bin, tmp_path):
    page = report(hloscope_bin, tmp_path, hostile_module(tmp_path), "--no-buffer-assignment")
    dom = Dom(browser.dump_dom(page))
    assert not dom.find("img")
    assert len(dom.find("script")) == 1  # the report's own
    for _, a, _ in dom.elements:
        assert not any(k.startswith("on") for k in a), a
    # The markup is there as text: the file's last components in the source
    # heading, the whole path and the op_name in tooltips.
    assert "\"><script>document.title='pwned'</script>.py" in dom.text
    titles = " ".join(a.get("title", "") for _, a, _ in dom.elements)
    assert "/tmp/<img src=x onerror=alert(1)>/" in titles
    assert "<svg onload=\"document.title='pwned2'\">" in titles


def test_sorting_by_a_column_sorts_the_rows(hloscope_bin, tmp_path):
    page = report(hloscope_bin, tmp_path, OPTAX)
    # A probe appended to the page clicks "bytes" in the updates table twice
    # and records the row order after each click.
    probe = """<script>
      var t = document.querySelector('section.updates table');
      var th = Array.prototype.filter.call(t.tHead.rows[0].cells, function (c) {
        return c.textContent.indexOf('bytes written') === 0; })[0];
      function order() { return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
        return r.cells[th.cellIndex].getAttribute('data-v'); }).join(','); }
      th.click(); document.body.setAttribute('data-first', order());
      th.click(); document.body.setAttribute('data-second', order());
    </script>"""
    with open(page, "a", encoding="utf-8") as f:
        f.write(probe)
    dom = Dom(browser.dump_dom(page))
    body = dom.find("body")[0][1]
    first = [int(v) for v in body["data-first"].split(",")]
    second = [int(v) for v in body["data-second"].split(",")]
    assert len(first) >= 3
    assert first == sorted(first, reverse=True)
    assert second == sorted(second)


def test_screenshots_can_be_made(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<!DOCTYPE html><html><body><p>x</p></body></html>", encoding="utf-8")
    png = tmp_path / "p.png"
    browser.screenshot(str(page), str(png), width=200, height=100)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
