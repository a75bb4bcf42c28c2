"""The structure the code promises (HACKING.md), checked on the source tree.

* Layers: cmake/CheckLayers.cmake (run by every build) passes on the tree and
  fails, naming file and line, when a file includes a header of a layer above.
* Findings refer to the IR, not to names: analysis/findings.h has no string
  fields but the dump's path, and no code above the parser looks an
  instruction up by name except to resolve what a user typed.
* No source file is much over 600 lines; the version is written once.
"""

import glob
import os
import re
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check_layers(root):
    return subprocess.run(["cmake", f"-DROOT={root}", "-P", os.path.join(REPO, "cmake", "CheckLayers.cmake")],
                          capture_output=True, text=True)


def test_layer_check_passes_on_the_tree():
    r = check_layers(REPO)
    assert r.returncode == 0, r.stderr


def test_layer_check_fails_on_an_include_up_a_layer(tmp_path):
    if not shutil.which("cmake"):
        pytest.skip("no cmake")
    for d in ("include", "src", "python/src"):
        shutil.copytree(os.path.join(REPO, d), tmp_path / d)
    bad = tmp_path / "src" / "analysis" / "check.cc"
    text = bad.read_text()
    bad.write_text(text.replace('#include "hloscope/analysis/check.h"',
                                '#include "hloscope/analysis/check.h"\n#include "hloscope/report/wording.h"', 1))
    r = check_layers(tmp_path)
    assert r.returncode != 0
    message = " ".join(r.stderr.split())  # cmake wraps long messages
    assert "src/analysis/check.cc:4: error: layer 'analysis' includes 'report', a layer above it" in message


# Lookups by name, and the label formats the old string-typed findings used.
FORBIDDEN = [
    (re.compile(r"\bGet(Instruction|Computation)\("), "a lookup by name"),
    (re.compile(r"FindInstructionByName"), "a lookup by name"),
    (re.compile(r"\(in \{?\}?\)|\" \(in \"|\(loop state"), "a label another stage would parse"),
    (re.compile(r"ParsePosition"), "parsing a printed position"),
]


def upper_layer_files():
    files = []
    for layer in ("analysis", "report", "app"):
        files += glob.glob(os.path.join(REPO, "src", layer, "*.cc"))
        files += glob.glob(os.path.join(REPO, "src", layer, "*.h"))
        files += glob.glob(os.path.join(REPO, "include", "hloscope", layer, "*.h"))
    files += glob.glob(os.path.join(REPO, "python", "src", "*.cc"))
    files += glob.glob(os.path.join(REPO, "python", "hloscope", "*.py"))
    return sorted(files)


def test_no_name_lookups_or_label_parsing_above_the_parser():
    problems = []
    for path in upper_layer_files():
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for pattern, what in FORBIDDEN:
                    if pattern.search(line):
                        problems.append(f"{os.path.relpath(path, REPO)}:{n}: {what}: {line.strip()}")
    assert not problems, "\n".join(problems)


def test_findings_carry_no_names():
    with open(os.path.join(REPO, "include", "hloscope", "analysis", "findings.h")) as f:
        fields = re.findall(r"^\s+std::(?:string|string_view|vector<std::string>)\s+(\w+)", f.read(), re.M)
    # Paths, XLA's name for a thunk's kind (an open set, from the GPU dump), the JAX primitive an
    # op_name ends in, mesh axis names and shardings as the module writes them (a parameter's; the
    # two a re-shard's origin compares), where the user's mesh axis names were read, where a
    # donation request was read (a path, or the source's name), and the diagnostics of collectives
    # that do not decode: no names of the IR's instructions.
    assert fields == ["kind", "primitive", "consumer_sharding", "operand_sharding", "mesh_axes", "mesh_names_from",
                      "text", "path",
                      "buffer_assignment_path", "pre_partition_path", "donation_request_source", "undecoded"]


def test_no_source_file_is_much_over_600_lines():
    long = []
    patterns = ["src/**/*.cc", "src/**/*.h", "include/**/*.h", "python/**/*.py", "python/src/*.cc",
                "tools/**/*.py", "tests/**/*.cc", "tests/**/*.py", "bench/*.cc", "bench/*.py"]
    for pattern in patterns:
        for path in glob.glob(os.path.join(REPO, pattern), recursive=True):
            if "/fixtures/" in path:
                continue
            with open(path, encoding="utf-8") as f:
                n = sum(1 for _ in f)
            if n > 620:
                long.append(f"{os.path.relpath(path, REPO)}: {n} lines")
    assert not long, "\n".join(long)


def test_the_version_is_written_once():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        version = re.search(r"project\(hloscope VERSION ([0-9.]+)", f.read()).group(1)
    hits = []
    for pattern in ["src/**/*", "include/**/*", "python/**/*", "pyproject.toml", "cmake/*"]:
        for path in glob.glob(os.path.join(REPO, pattern), recursive=True):
            if os.path.isfile(path) and not path.endswith((".pyi", ".ref")):
                with open(path, encoding="utf-8", errors="replace") as f:
                    if re.search(rf"['\"]{re.escape(version)}['\"]", f.read()):
                        hits.append(os.path.relpath(path, REPO))
    assert not hits, f"version {version} also written in {hits}"


def test_cpp_is_formatted():
    """clang-format (.clang-format) leaves every C++ file as it is."""
    binary = shutil.which("clang-format-14") or shutil.which("clang-format")
    if not binary:
        pytest.skip("clang-format not installed (tools/install-deps.sh installs clang-format-14)")
    files = subprocess.run(["git", "ls-files", "*.cc", "*.h"], cwd=REPO, capture_output=True,
                           text=True).stdout.split()
    files = [f for f in files if not f.startswith("tests/fixtures/")]
    if not files:
        pytest.skip("not a git checkout")
    r = subprocess.run([binary, "--dry-run", "--Werror", *files], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, "run: clang-format-14 -i $(git ls-files '*.cc' '*.h')\n" + r.stderr[:3000]


def source_files(*patterns):
    out = []
    for pattern in patterns:
        out += glob.glob(os.path.join(REPO, pattern), recursive=True)
    return sorted(out)


def code_lines(path):
    """(line number, line) without // and # comments (string literals kept)."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("//") or stripped.startswith("#") and not stripped.startswith("#include"):
                continue
            yield n, re.sub(r"\s//\s.*$", "", line)  # a trailing comment


def offenders(files, patterns, home):
    found = []
    for path in files:
        rel = os.path.relpath(path, REPO)
        if rel in home:
            continue
        for n, line in code_lines(path):
            for p in patterns:
                if p.search(line):
                    found.append(f"{rel}:{n}: {line.strip()}")
    return found


ENGINE = ("src/**/*.cc", "src/**/*.h", "include/**/*.h", "python/src/*.cc")


def test_no_format_dispatch_outside_the_one_switch():
    # Render (report/format.cc) is the only switch on an output format; the
    # command table lists which formats each command has.
    patterns = [re.compile(r"(==|!=)\s*OutputFormat::k"), re.compile(r"case OutputFormat::k"),
                re.compile(r'format\s*==\s*"')]
    assert offenders(source_files(*ENGINE), patterns, {"src/report/format.cc"}) == []


def test_xla_dump_naming_has_one_home():
    # XLA's file naming is parser/dump_naming.cc's; the Python package asks
    # it through the binding (is_optimized_dump_name, find_buffer_assignment_beside).
    literal = re.compile(r'"(-?buffer-assignment\.txt|\.?thunk_metadata\.txt|after_optimizations(\.txt)?|'
                         r'before_optimizations|module_)"')
    python_glob = re.compile(r"(glob|compile|endswith|startswith|fnmatch|match)\(.*(after_optimizations|buffer-assignment)")
    files = source_files(*ENGINE)
    assert offenders(files, [literal], {"src/parser/dump_naming.cc"}) == []
    assert offenders(source_files("python/hloscope/*.py"), [python_glob], set()) == []


def test_jax_wrapper_list_has_one_home():
    patterns = [re.compile(r'"(closed_call|eval_jaxpr|core_call|remat2?|checkpoint|rematted_computation)"')]
    assert offenders(source_files(*ENGINE), patterns, {"src/analysis/jax_op_name.cc"}) == []


def test_backend_config_is_decoded_in_one_place():
    # The IR keeps it as text; analysis/backend_config.cc is the one reader.
    patterns = [re.compile(r"\bbackend_config\(\)")]
    files = [f for f in source_files(*ENGINE) if "/ir/" not in f and "/parser/" not in f]
    assert offenders(files, patterns, {"src/analysis/backend_config.cc"}) == []
