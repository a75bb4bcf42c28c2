"""Hostile and odd input through the Python API (docs/robustness.md).

The API raises only its documented exceptions — ParseError for input the
engine rejects, ValueError/TypeError for bad arguments, FileNotFoundError —
never UnicodeDecodeError, never a crash; text it returns (str(report),
messages) holds no control character from the input.
"""

import math
import re
import threading

import pytest

hloscope = pytest.importorskip("hloscope", reason="the hloscope package is not installed "
                               "(pip install --no-build-isolation .)")

# C0 but tab and newline, DEL, C1 (as characters after decoding).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")

# One copy of a non-donated argument, with hostile metadata: an OSC title
# sequence, a clear-screen and a newline that would forge a report line in
# op_name, an escape in source_file.
HOSTILE = (
    'HloModule m\n'
    'ENTRY %e (p: f32[1024]) -> f32[1024] {\n'
    '  %p = f32[1024]{0} parameter(0)\n'
    '  ROOT %c = f32[1024]{0} copy(%p), metadata={op_name="jit(f)/\\x1b]0;pwn\\x07\\x1b[2J\\n'
    'COPIES forged" source_file="/tmp/\\x1b[31mevil.py" source_line=7}\n'
    '}\n')


def test_control_characters_from_metadata_are_escaped_in_str():
    report = hloscope.analyze(HOSTILE, buffer_assignment=False, allow_unoptimized=True)
    text = str(report)
    assert len(report.copies) == 1
    assert not CONTROL.search(text), repr(text)
    assert "\\x1b[31mevil.py:7" in text
    assert "forged" not in text.splitlines()[0]


def test_non_utf8_bytes_give_a_report_not_unicode_decode_error(tmp_path):
    raw = HOSTILE.replace("evil.py", "evil\xff\xfe.py").encode("latin-1")
    path = tmp_path / "module.hlo.txt"
    path.write_bytes(raw)
    for x in (raw, str(path)):
        report = hloscope.analyze(x, buffer_assignment=False, allow_unoptimized=True)
        text = str(report)
        assert len(report.copies) == 1
        assert not CONTROL.search(text), repr(text)
        report.to_json().encode("utf-8")  # valid UTF-8: encodes back


def test_error_window_cutting_a_multibyte_character_is_a_parse_error(tmp_path):
    # A 600-byte line of 2-byte characters with the error at its end: the
    # 240-column window around the caret cuts characters in two.
    line = '  %p = f32[4]{0} parameter(0), metadata={op_name="' + "é" * 300 + '"} @\n'
    text = "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n" + line + "}\n"
    path = tmp_path / "bad.hlo.txt"
    path.write_bytes(text.encode("utf-8"))
    for x in (text, str(path)):
        with pytest.raises(hloscope.ParseError) as e:
            hloscope.analyze(x, buffer_assignment=False, allow_unoptimized=True)
        assert e.value.line == 3
        message = str(e.value)
        assert "^" in message
        assert not CONTROL.search(message)
        message.encode("utf-8")


@pytest.mark.parametrize("body, message", [
    ('  %p = f32[4]{0} parameter(0)\n  ROOT %a = f32[4]{0} add(%p, %a)\n',
     "instruction 'a' is its own operand"),
    ('  %p = f32[4]{0} parameter(0)\n  ROOT %a = f32[4]{0} fusion(%p), kind=kLoop, calls=%e\n',
     "'a' calls the entry computation 'e'"),
    ('  %p = f32[4]{0} parameter(0)\n  ROOT %a = f32[4]{0} copy(%p, %p)\n',
     "copy 'a' has 2 operands; it takes one"),
])
def test_modules_the_analyses_cannot_survive_are_parse_errors(body, message):
    text = "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n" + body + "}\n"
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze(text, buffer_assignment=False, allow_unoptimized=True)
    assert e.value.message == message
    assert e.value.line == 4


def test_a_deep_chain_of_nested_fusions_is_a_parse_error_not_a_crash():
    depth = 2000
    lines = ["HloModule m"]
    for i in range(depth):
        call = f", kind=kLoop, calls=%f{i + 1}" if i + 1 < depth else ""
        op = "fusion" if call else "negate"
        lines += [f"%f{i} (x: f32[4]) -> f32[4] {{", "  %x = f32[4]{0} parameter(0)",
                  f"  ROOT %r = f32[4]{{0}} {op}(%x){call}", "}"]
    lines += ["ENTRY %e (p: f32[4]) -> f32[4] {", "  %p = f32[4]{0} parameter(0)",
              "  ROOT %a = f32[4]{0} fusion(%p), kind=kLoop, calls=%f0", "}"]
    with pytest.raises(hloscope.ParseError) as e:
        hloscope.analyze("\n".join(lines) + "\n", buffer_assignment=False, allow_unoptimized=True)
    assert "nested" in e.value.message


def test_sizes_past_int64_are_not_negative():
    n = 2**62
    text = (f"HloModule m\nENTRY %e (p: f32[{n}]) -> f32[{n}] {{\n"
            f"  %p = f32[{n}]{{0}} parameter(0)\n"
            f"  ROOT %c = f32[{n}]{{0}} copy(%p)\n}}\n")
    report = hloscope.analyze(text, buffer_assignment=False, allow_unoptimized=True)
    (copy,) = report.copies
    assert copy.bytes is None or copy.bytes >= 0
    assert "-" not in str(report).split("\n")[0]
    # An unknown size breaks a byte budget.
    with pytest.raises(AssertionError):
        hloscope.assert_budget(report, max_copy_bytes=100)


@pytest.mark.parametrize("value", [math.nan, math.inf, -1, -0.5, 1.5, 2**63])
def test_budgets_that_pass_everything_are_rejected(value):
    report = hloscope.analyze(HOSTILE, buffer_assignment=False, allow_unoptimized=True)
    with pytest.raises(ValueError, match="max_copy_bytes must be a whole number from 0"):
        hloscope.assert_budget(report, max_copy_bytes=value)


def test_a_budget_that_is_not_a_number_is_a_type_error():
    report = hloscope.analyze(HOSTILE, buffer_assignment=False, allow_unoptimized=True)
    with pytest.raises(TypeError):
        hloscope.assert_budget(report, max_copies="10")
    with pytest.raises(TypeError):
        hloscope.assert_budget(report, max_copies=True)


def test_a_whole_float_budget_is_taken():
    report = hloscope.analyze(HOSTILE, buffer_assignment=False, allow_unoptimized=True)
    assert hloscope.assert_budget(report, max_copy_bytes=1e6) is report


def test_a_directory_is_not_an_hlo_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        hloscope.analyze(str(tmp_path))


def test_one_report_used_from_many_threads_gives_the_same_answers():
    # The analyses are built lazily with the GIL released; the engine
    # serializes calls on one session.
    text = HOSTILE.replace("ROOT %c", "%c").replace("}\n}", "}\n  ROOT %t = (f32[1024]{0}) tuple(%c)\n}")
    report = hloscope.analyze(text, buffer_assignment=False, allow_unoptimized=True)
    engine = report._engine
    results, errors = [], []

    def work():
        try:
            results.append((engine.check_json(), engine.fusions_json(), engine.check_text()))
        except Exception as e:  # noqa: BLE001 — any exception fails the test below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(results)) == 1
