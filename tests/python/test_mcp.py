"""`hloscope mcp`: an agent's MCP client, over stdio, gets what the CLI gives.

The client is the `mcp` SDK's own (the one agents embed); the server is
started as an agent starts it, `hloscope mcp --root DIR`.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(REPO, "examples", "dumps", "replay_rollout.cpu_after_optimizations.txt")
TOOLS = {"check", "where", "explain", "fusions", "cost", "scopes", "memory", "diff", "collectives"}


def serve(hloscope_bin, calls, *flags, cwd=REPO):
    """Starts `hloscope mcp FLAGS`, lists its tools, makes each (name, args) call in turn."""
    params = StdioServerParameters(command=hloscope_bin, args=["mcp", *flags], cwd=cwd,
                                   env={**os.environ, "HLOSCOPE_PYTHON": sys.executable})

    async def session():
        with open(os.devnull, "w") as quiet:  # the server logs each failed call on stderr
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    listed = await s.list_tools()
                    results = [await s.call_tool(name, args) for name, args in calls]
                    return listed.tools, results

    return anyio.run(session)


def cli_json(hloscope_bin, *args):
    r = subprocess.run([hloscope_bin, *args, "--format", "json"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_an_agent_lists_the_tools_and_gets_check_on_the_bundled_example(hloscope_bin):
    tools, [result] = serve(hloscope_bin, [("check", {"path": os.path.relpath(EXAMPLE, REPO)})])
    assert {t.name for t in tools} == TOOLS
    for t in tools:
        assert t.annotations.read_only_hint is True, t.name  # nothing is written
        assert t.description, t.name
        assert set(t.input_schema["required"]) == ({"a", "b"} if t.name == "diff" else {"path", "location"} if t.name == "where" else {"path"}), t.name
    assert not result.is_error, result.content
    # The structured content is the CLI's documented JSON, field for field.
    assert result.structured_content == cli_json(hloscope_bin, "check", EXAMPLE)
    module = result.structured_content["modules"][0]
    assert [c["instruction"] for c in module["copies"]][:1] == ["copy.7"]
    text = result.content[0].text
    # The text leads with the ranked answer (docs/analysis.md "The answer").
    assert text.splitlines()[0] == f"{module['name']}: {module['answer']['lead']}."
    assert "copy.7" in text and "read-after-update" in text


def test_each_tool_answers_with_its_command_json(hloscope_bin):
    rel = os.path.relpath(EXAMPLE, REPO)
    calls = [("where", {"path": rel, "location": "make_dumps.py:32"}),
             ("explain", {"path": rel, "instruction": "copy.7"}),
             ("fusions", {"path": rel}),
             ("cost", {"path": rel, "target": "h100"}),
             ("scopes", {"path": rel}),
             ("memory", {"path": rel}),
             ("diff", {"a": rel, "b": rel}),
             ("collectives", {"path": rel})]
    _, results = serve(hloscope_bin, calls)
    for (name, args), r in zip(calls, results):
        assert not r.is_error, (name, r.content)
        assert r.structured_content["command"] == name
        assert r.content[0].text.strip(), name
    where, explain, fusions, cost, scopes, memory, diff, collectives = (r.structured_content for r in results)
    assert where == cli_json(hloscope_bin, "where", EXAMPLE, "make_dumps.py:32", "--source-root", REPO)
    assert "new_buf = buf.at[ptr].set(x)" in results[0].content[0].text  # the source, from the root
    assert explain == cli_json(hloscope_bin, "explain", EXAMPLE, "copy.7")
    assert fusions == cli_json(hloscope_bin, "fusions", EXAMPLE)
    assert cost == cli_json(hloscope_bin, "cost", EXAMPLE, "--target", "h100")
    assert cost["modules"][0]["target"]["name"] == "h100"
    assert memory == cli_json(hloscope_bin, "memory", EXAMPLE)
    assert memory["modules"][0]["memory"]["peak_bytes"] > 0
    assert collectives["modules"][0]["collectives"] == []
    assert results[7].content[0].text.startswith("jit_rollout: 0 collectives")


def test_collectives_of_a_sharded_module(hloscope_bin):
    sharded = os.path.join(REPO, "tests", "fixtures", "difftest", "m43_0196_tpu_aliasing_operands_scalar_predicate",
                           "module.hlo.txt")
    _, [r] = serve(hloscope_bin, [("collectives", {"path": os.path.relpath(sharded, REPO)})])
    assert not r.is_error, r.content
    expected = cli_json(hloscope_bin, "check", sharded)["modules"][0]["collectives"]
    assert r.structured_content["modules"][0]["collectives"] == expected and len(expected) == 3
    text = r.content[0].text
    assert text.splitlines()[0].endswith(": 3 collectives")
    assert "COLLECTIVES (bytes per device" in text and "all-reduce.3" in text


def test_errors_are_tool_errors_and_the_server_keeps_answering(hloscope_bin, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "bad.hlo").write_text("HloModule m\n\nENTRY e {\n  p = f32[4 parameter(0)\n}\n")
    shutil.copy(EXAMPLE, root / "ok.txt")
    outside = tmp_path / "secret.txt"
    outside.write_text("not yours")
    os.symlink(outside, root / "link.txt")
    calls = [("check", {"path": "bad.hlo"}),
             ("check", {"path": str(outside)}),
             ("check", {"path": "link.txt"}),  # a link out of the root is outside it
             ("check", {"path": "../secret.txt"}),
             ("check", {"path": "missing.txt"}),
             ("check", {"path": 3}),
             ("where", {"path": "ok.txt"}),  # LOCATION missing
             ("explain", {"path": "ok.txt", "instruction": "--format"}),  # a name, not a flag
             ("check", {"path": "ok.txt"})]
    _, results = serve(hloscope_bin, calls, "--root", str(root), cwd=str(tmp_path))
    texts = [r.content[0].text for r in results]
    assert [r.is_error for r in results] == [True] * 8 + [False]
    # The CLI's own diagnostic: file:line:col, the line and a caret.
    assert f"{root / 'bad.hlo'}:4:" in texts[0] and ": error: " in texts[0] and "^" in texts[0]
    for t in texts[1:4]:
        assert "is outside the folders this server may read" in t, t
        assert "not yours" not in t
    assert "missing.txt: no such file or folder" in texts[4]
    assert "path" in texts[5]
    assert "location" in texts[6].lower()
    assert "--format" in texts[7] and "instruction" in texts[7]
    assert results[8].structured_content["modules"][0]["copies"]


def test_the_cli_input_limit_applies(hloscope_bin):
    _, [r] = serve(hloscope_bin, [("check", {"path": os.path.relpath(EXAMPLE, REPO)})], "--max-input-bytes", "1000")
    assert r.is_error
    assert "larger than" in r.content[0].text and "1000" in r.content[0].text


def test_a_python_that_cannot_serve_is_named(hloscope_bin):
    r = subprocess.run([hloscope_bin, "mcp"], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       env={**os.environ, "HLOSCOPE_PYTHON": "/nonexistent/python3"})
    assert r.returncode == 2
    assert r.stderr.startswith("hloscope mcp: error: cannot start /nonexistent/python3 (No such file or directory)")


def test_no_tool_reads_a_link_out_of_the_roots_found_in_a_dump(hloscope_bin, tmp_path):
    """docs/agents.md: nothing outside the roots is read. A dump folder inside the root whose
    files link to a secret outside it, to /proc/self/environ (the server's environment) and to
    another project's dump: every tool answers from the dump's own files only."""
    root, other = tmp_path / "root", tmp_path / "other_project"
    dump = root / "dump"
    dump.mkdir(parents=True)
    other.mkdir()
    (tmp_path / "secret.txt").write_text("CI_JOB_TOKEN=hloscope-test-secret-7f3a\n")
    fixture = os.path.join(REPO, "tests", "fixtures", "jax")
    shutil.copy(os.path.join(fixture, "loop_read_after_write", "module.hlo.txt"),
                other / "module_0007.jit_other.cpu_after_optimizations.txt")
    shutil.copy(os.path.join(fixture, "loop_read_after_write", "buffer-assignment.txt"),
                other / "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt")
    hlo = "module_0001.jit_step.cpu_after_optimizations.txt"
    shutil.copy(os.path.join(fixture, "loop_dus_donated", "module.hlo.txt"), dump / hlo)
    os.symlink(tmp_path / "secret.txt", dump / "module_0001.jit_step.before_optimizations.txt")
    os.symlink("/proc/self/environ", dump / "module_0002.jit_env.cpu_after_optimizations.txt")
    os.symlink(other / "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt",
               dump / "module_0001.jit_step.cpu_after_optimizations-buffer-assignment.txt")
    os.symlink(other / "module_0007.jit_other.cpu_after_optimizations.txt",
               dump / "module_0003.jit_linked.cpu_after_optimizations.txt")
    calls = [("check", {"path": "dump"}), ("check", {"path": f"dump/{hlo}"}), ("memory", {"path": "dump"}),
             ("memory", {"path": f"dump/{hlo}"}), ("collectives", {"path": "dump"}),
             ("diff", {"a": "dump", "b": "dump"}), ("explain", {"path": f"dump/{hlo}"}),
             ("cost", {"path": f"dump/{hlo}"}), ("fusions", {"path": f"dump/{hlo}"}),
             ("scopes", {"path": f"dump/{hlo}"}), ("where", {"path": f"dump/{hlo}", "location": "x.py:1"})]
    params = {"CI_JOB_TOKEN": "hloscope-env-secret-19c2"}
    old = {k: os.environ.get(k) for k in params}
    os.environ.update(params)  # the server's environment, what /proc/self/environ would give away
    try:
        _, results = serve(hloscope_bin, calls, "--root", str(root), cwd=str(tmp_path))
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    for (name, args), r in zip(calls, results):
        seen = r.content[0].text + json.dumps(r.structured_content or {})
        for leaked in ("hloscope-test-secret", "hloscope-env-secret", "CI_JOB_TOKEN", "jit_other",
                       "loop_read_after_write"):
            assert leaked not in seen, (name, args, seen[:2000])
        if name in ("check", "memory") and not r.is_error:
            assert all(m["buffer_assignment"] is None for m in r.structured_content["modules"]), (name, args)
    assert not results[0].is_error and [m["name"] for m in results[0].structured_content["modules"]] == [
        "jit_loop_dus_donated"]
