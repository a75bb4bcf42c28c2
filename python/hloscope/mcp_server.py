"""`hloscope mcp`: hloscope for coding agents, over the Model Context Protocol.

An agent asked "is XLA copying my buffer?" calls a tool with a dump file or
folder and gets what a person gets from the CLI: the command's documented
JSON (docs/json-format.md) as the tool's structured content, and the
beginning of its text answer as the tool's text.

The tools run the `hloscope` executable (the C++ CLI this package ships), one
process per call, instead of the C++ in this process: a call that runs out of
memory or time ends that process, not the server, and the CLI's own limits
and diagnostics apply unchanged (--max-input-bytes; `file:line:col: error:`
with the line and a caret, which an agent reads as a tool error).

What it may read: the files and folders under the roots it is started with
(--root, the current folder when none is given); a path outside them is
refused before anything is opened. The files the CLI finds inside a dump
folder or beside a module are read only if they resolve inside that folder
(support/found_file.h), so inside the roots: a link out of a dump is never
followed. Source lines are read from the --source-root folders only (by
default the roots), as the CLI does.

Served over stdio with the `mcp` SDK (`pip install 'hloscope[mcp]'`);
docs/agents.md shows how to register it with an agent.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

# The text answer an agent reads first; the JSON has every finding. A check
# of a large train step prints thousands of lines.
TEXT_LINES = 60
# A call that runs longer is ended (the 105 MB train step checks in < 1 s).
DEFAULT_TIMEOUT_S = 300.0


class HloscopeToolError(Exception):
    """Why a tool could not answer: shown to the agent as a tool error."""


@dataclass
class ServerOptions:
    hloscope: str
    roots: list[str] = field(default_factory=list)  # resolved folders it may read
    source_roots: list[str] = field(default_factory=list)
    max_input_bytes: Optional[int] = None
    timeout_s: float = DEFAULT_TIMEOUT_S


def find_cli() -> Optional[str]:
    """The `hloscope` executable: $HLOSCOPE_BIN, this environment's, then PATH's."""
    from .__main__ import _installed_cli  # `python -m hloscope`'s lookup: this environment's, then PATH's
    return os.environ.get("HLOSCOPE_BIN") or _installed_cli()


class Tools:
    """The tools, without the protocol: each returns (text, JSON document)."""

    def __init__(self, options: ServerOptions):
        self.options = options

    # -- what may be read ---------------------------------------------------

    def allowed_path(self, path: str, what: str = "FILE") -> str:
        if not isinstance(path, str) or not path or "\0" in path:
            raise HloscopeToolError(f"{what}: give the path of an optimized HLO file or an XLA dump folder")
        full = os.path.realpath(os.path.join(self.options.roots[0], os.path.expanduser(path)))
        inside = any(full == root or full.startswith(root.rstrip(os.sep) + os.sep) for root in self.options.roots)
        if not inside:
            raise HloscopeToolError(
                f"{what}: {path} is outside the folders this server may read "
                f"({', '.join(self.options.roots)}; start it with --root DIR to allow another)")
        if not os.path.exists(full):
            raise HloscopeToolError(f"{what}: {path}: no such file or folder")
        if not (os.path.isfile(full) or os.path.isdir(full)):
            raise HloscopeToolError(f"{what}: {path} is not a regular file or a folder")
        return full

    # -- running the CLI ----------------------------------------------------

    def _run(self, command: str, positionals: list[str], flags: list[str], sources: bool) -> str:
        """`hloscope COMMAND FLAGS -- POSITIONALS`: after `--` a location or an instruction that
        starts with '-' stays a positional, never a flag."""
        flags = list(flags)
        if sources:  # only check and where take --source-root
            for root in self.options.source_roots:
                flags += ["--source-root", root]
        if self.options.max_input_bytes:
            flags += ["--max-input-bytes", str(self.options.max_input_bytes)]
        argv = [self.options.hloscope, command, *flags, "--", *positionals]
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                               timeout=self.options.timeout_s, cwd=self.options.roots[0])
        except subprocess.TimeoutExpired:
            raise HloscopeToolError(f"hloscope {command}: no answer within {self.options.timeout_s:g} s; "
                                    "the server ended it") from None
        except OSError as e:
            raise HloscopeToolError(f"cannot run {self.options.hloscope}: {e.strerror}") from None
        if r.returncode < 0:
            name = signal.Signals(-r.returncode).name if -r.returncode in signal.valid_signals() else -r.returncode
            raise HloscopeToolError(f"hloscope {command} ended by {name} on this input "
                                    f"(a bug in hloscope: please report it){_tail(r.stderr)}")
        # 1 is a gate that failed; the tools set none, so only 0 answers.
        if r.returncode != 0:
            raise HloscopeToolError(r.stderr.strip() or f"hloscope {command} failed (exit {r.returncode})")
        return r.stdout

    def _answer(self, command: str, positionals: list[str], flags: Optional[list[str]] = None,
                sources: bool = False) -> tuple[str, dict[str, Any]]:
        flags = flags or []
        document = json.loads(self._run(command, positionals, [*flags, "--format", "json"], sources))
        text = _head(self._run(command, positionals, flags, sources))
        return text, document

    # -- the tools ----------------------------------------------------------

    def check(self, path: str, scope: Optional[str] = None, include_minor: bool = False,
              include_library: bool = False, min_bytes: Optional[int] = None) -> tuple[str, dict]:
        flags = []
        if scope:
            flags += ["--scope", scope]
        if include_minor:
            flags.append("--include-minor")
        if include_library:
            flags.append("--include-library")
        if min_bytes is not None:
            flags += ["--min-bytes", str(int(min_bytes))]
        return self._answer("check", [self.allowed_path(path)], flags, sources=True)

    def where(self, path: str, location: str) -> tuple[str, dict]:
        return self._answer("where", [self.allowed_path(path), location], sources=True)

    def explain(self, path: str, instruction: Optional[str] = None) -> tuple[str, dict]:
        return self._answer("explain", [self.allowed_path(path), *([instruction] if instruction else [])])

    def fusions(self, path: str, scope: Optional[str] = None) -> tuple[str, dict]:
        return self._answer("fusions", [self.allowed_path(path)], ["--scope", scope] if scope else [])

    def cost(self, path: str, target: Optional[str] = None) -> tuple[str, dict]:
        return self._answer("cost", [self.allowed_path(path)], ["--target", target] if target else [])

    def scopes(self, path: str) -> tuple[str, dict]:
        return self._answer("scopes", [self.allowed_path(path)])

    def memory(self, path: str) -> tuple[str, dict]:
        return self._answer("memory", [self.allowed_path(path)])

    def diff(self, a: str, b: str) -> tuple[str, dict]:
        return self._answer("diff", [self.allowed_path(a, "A"), self.allowed_path(b, "B")])

    def collectives(self, path: str) -> tuple[str, dict]:
        """`check`'s collectives part: every collective, bytes × executions, per device."""
        full = self.allowed_path(path)
        document = json.loads(self._run("check", [full], ["--format", "json"], sources=True))
        modules = [{"name": m.get("name"), "path": m.get("path"), "spmd": m.get("spmd"),
                    "collectives": m.get("collectives", [])} for m in document.get("modules", [])]
        out = {k: document[k] for k in ("schema_version", "tool", "tool_version") if k in document}
        out.update(command="collectives", modules=modules)
        counts = [f"{m['name']}: {len(m['collectives'])} collective{'s' if len(m['collectives']) != 1 else ''}"
                  for m in modules]
        listed = _section(self._run("check", [full], [], sources=True), "COLLECTIVES")
        return _head("\n".join(counts + listed) + "\n"), out


def _section(text: str, heading: str) -> list[str]:
    """The lines of `check`'s text part `heading` (each module's), up to the next part."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith(heading):
            inside = True
        elif line and not line[0].isspace():
            inside = False
        if inside:
            out.append(line)
    return out


def _head(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= TEXT_LINES:
        return text
    return "\n".join(lines[:TEXT_LINES]) + (
        f"\n… {len(lines) - TEXT_LINES} more lines: the structured content (the JSON) has every finding\n")


def _tail(stderr: str) -> str:
    stderr = stderr.strip()
    return f": {stderr[-500:]}" if stderr else ""


# -- the protocol -------------------------------------------------------------

DESCRIPTIONS = {
    "check": "Every copy, update, loop, parameter, collective and the memory peak of optimized HLO (a file such "
             "as module.after_optimizations.txt, or an XLA dump folder): bytes × executions per call, cause, "
             "the user's source line and a fix, each verdict checked against XLA's buffer assignment when the "
             "dump has it. The JSON is `hloscope check --format json` (docs/json-format.md).",
    "where": "The HLO instructions that come from a line of the user's code (LOCATION: train.py:42, :42-50, or "
             "a function name), with their kernel, loop, copies and updates.",
    "explain": "One instruction in plain words (opcode, shape, fusion, metadata, in place or not); without "
               "INSTRUCTION, a guided reading of the module.",
    "fusions": "Every kernel (each fusion, and each dot, sort, collective, ... left unfused): its kind, the "
               "operations and source lines in it, bytes read and written, FLOPs, executions per call.",
    "cost": "Where one call's work goes: FLOPs and bytes of every kernel × its executions (loop bodies as often "
            "as they run), by source line, loop and kernel, with a roofline time estimate; target is cpu, h100, "
            "a100, tpu-v5e, tpu-v5p or tpu-v4 (default: what the module was compiled for).",
    "scopes": "The jax.named_scope paths in the module, with how many instructions each holds.",
    "memory": "What one call needs per device by XLA's buffer assignment: the peak and its parts (arguments, "
              "outputs, donations, temporaries), what is live at the peak, every argument's donation.",
    "diff": "Compare two compilations (HLO files, dump folders or `check` JSON baselines), e.g. the same "
            "program at two buffer sizes: what grows with the arguments, what is new, what is gone.",
    "collectives": "Every collective of a sharded module (all-gather, all-reduce, reduce-scatter, all-to-all, "
                   "collective-permute): bytes moved per device × executions per call, and the source line "
                   "(the `collectives` part of `check`).",
}


def build_server(options: ServerOptions):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations

    from . import __version__

    tools = Tools(options)
    server = MCPServer(
        name="hloscope", version=__version__,
        instructions="hloscope answers whether XLA updates arrays in place or copies them, where, how often "
                     "and why, from optimized HLO (compile with XLA_FLAGS=--xla_dump_to=DIR and give DIR or a "
                     "*after_optimizations.txt file). Start with `check`; `where` maps a source line to HLO.")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def answer(fn, *args, **kwargs) -> CallToolResult:
        try:
            text, document = fn(*args, **kwargs)
        except HloscopeToolError as e:
            raise ToolError(str(e)) from None
        except (ValueError, UnicodeError) as e:  # JSON that does not parse: never expected
            raise ToolError(f"hloscope gave an answer that could not be read: {e}") from None
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=document)

    def register(name, fn):
        server.tool(name=name, description=DESCRIPTIONS[name], annotations=read_only,
                    structured_output=False)(fn)

    def check(path: str, scope: Optional[str] = None, include_minor: bool = False,
              include_library: bool = False, min_bytes: Optional[int] = None) -> CallToolResult:
        return answer(tools.check, path, scope, include_minor, include_library, min_bytes)

    def where(path: str, location: str) -> CallToolResult:
        return answer(tools.where, path, location)

    def explain(path: str, instruction: Optional[str] = None) -> CallToolResult:
        return answer(tools.explain, path, instruction)

    def fusions(path: str, scope: Optional[str] = None) -> CallToolResult:
        return answer(tools.fusions, path, scope)

    def cost(path: str, target: Optional[str] = None) -> CallToolResult:
        return answer(tools.cost, path, target)

    def scopes(path: str) -> CallToolResult:
        return answer(tools.scopes, path)

    def memory(path: str) -> CallToolResult:
        return answer(tools.memory, path)

    def diff(a: str, b: str) -> CallToolResult:
        return answer(tools.diff, a, b)

    def collectives(path: str) -> CallToolResult:
        return answer(tools.collectives, path)

    for fn in (check, where, explain, fusions, cost, scopes, memory, diff, collectives):
        register(fn.__name__, fn)
    return server


def parse_options(argv: list[str]) -> ServerOptions:
    p = argparse.ArgumentParser(prog="hloscope mcp", description="hloscope's MCP server over stdio")
    p.add_argument("--hloscope", help="the hloscope executable the tools run (default: this environment's)")
    p.add_argument("--root", action="append", default=[],
                   help="a folder the tools may read (repeatable; default: the current folder)")
    p.add_argument("--source-root", action="append", default=[],
                   help="a folder holding the user's sources (repeatable; default: the roots)")
    p.add_argument("--max-input-bytes", type=int, help="refuse inputs larger than this (the CLI's default: 2 GiB)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds one tool call may run")
    a = p.parse_args(argv)
    cli = a.hloscope or find_cli()
    if not cli:
        p.error("no hloscope executable found (pip install hloscope, or give --hloscope PATH)")
    roots = [os.path.realpath(r) for r in (a.root or [os.getcwd()])]
    for r in roots:
        if not os.path.isdir(r):
            p.error(f"--root {r}: not a folder")
    sources = [os.path.realpath(r) for r in a.source_root] or roots
    return ServerOptions(hloscope=cli, roots=roots, source_roots=sources, max_input_bytes=a.max_input_bytes,
                         timeout_s=a.timeout)


def main(argv: Optional[list[str]] = None) -> int:
    options = parse_options(sys.argv[1:] if argv is None else argv)
    try:
        server = build_server(options)
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] in ("mcp", "mcp_types"):
            sys.stderr.write("hloscope mcp: the MCP server needs the `mcp` package: "
                             "pip install 'hloscope[mcp]'\n")
            return 2
        raise
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
