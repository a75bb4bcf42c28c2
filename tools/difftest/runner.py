"""Run random programs through XLA, hloscope and the oracle; save minimized reproducers.

    python3 tools/difftest.py --n 300 --seed 0 [--start 0] [--hloscope BIN] [--jobs 1]
                              [--results run.jsonl] [--save-dir tests/fixtures/difftest]
    python3 tools/difftest.py --summarize run.jsonl [more.jsonl ...] [--markdown]

For each program index i in [start, start+n): generate(seed, i) -> source -> compile on CPU with
`xla_dump_to` -> compare_with_oracle.compare(hloscope, dir).  A program whose mismatch has a
signature (kind of disagreement, see `signature`) not yet saved under --save-dir is minimized and
saved as <save-dir>/s<seed>_<i>_<slug>/ {program.py, module.hlo.txt, buffer-assignment.txt,
meta.json}.  Exit status 1 if any mismatch was seen.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import List, Optional

from . import generator, spec as specmod
from .summary import format_summary, summarize  # noqa: F401  (re-exported)

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
DEFAULT_SAVE = os.path.join(ROOT, "tests", "fixtures", "difftest")
sys.path.insert(0, TOOLS)
import compare_with_oracle  # noqa: E402
from hloscope_bin import find_hloscope_bin  # noqa: E402

# What programs are compiled for (--target): "cpu", or a GPU/TPU target of
# python/hloscope/_targets.py compiled without the hardware. One per run.
TARGET = "cpu"
# --mesh: every program runs sharded over this many devices (generator.shard): 8 forced CPU host
# devices, a TPU slice's chips (--target tpu-v5e:2x2) or several GPUs (--target
# gpu-h100:8). 0: single-device programs.
MESH_DEVICES = 0


def mesh_devices(target: str) -> int:
    """The device count --mesh shards over on `target`."""
    if target == "cpu":
        return 8
    base, _, dims = target.partition(":")
    # A TPU slice's chips, or several GPUs (gpu-h100:8, gpu-h100:2x4).
    if base.startswith(("tpu", "gpu")) and dims and all(p.isdigit() for p in dims.split("x")):
        n = 1
        for p in dims.split("x"):
            n *= int(p)
        if n in generator.MESHES:
            return n
    raise SystemExit(f"difftest: --mesh needs --target cpu (8 host devices), a TPU slice or GPUs "
                     f"numbering {' or '.join(map(str, sorted(generator.MESHES)))} (e.g. tpu-v5e:2x2, "
                     f"gpu-h100:8), "
                     f"not {target!r}")


def program(seed: int, index: int) -> dict:
    """Program `index` of `seed` as this run compiles it (sharded under --mesh)."""
    sp = generator.generate(seed, index)
    return generator.shard(sp, MESH_DEVICES) if MESH_DEVICES else sp

# Bound here, so that --compare (use_compare_module) does not need to define it.
IN_PLACE_CLAIMS = compare_with_oracle.IN_PLACE_CLAIMS

CATEGORIES = [
    ("false_in_place", re.compile(r"^FALSE IN-PLACE")),
    ("copies", re.compile(r"^copy (missed|invented|without)")),
    ("bytes", re.compile(r"^copy bytes differ")),
    ("verdicts", re.compile(r"^(update missed|update .*XLA shares|(out-of-place|not-materialized) fusion not reported|non-in-place fusion update not reported)")),
    ("confirmed", re.compile(r"^verdict not confirmed")),
    ("trips", re.compile(r"^(trip count differs|loop missed)")),
    ("collectives", re.compile(r"^collective ")),
    ("crash", re.compile(r"^(hloscope failed|oracle failed)")),
]


def category(problem: str) -> str:
    for name, rx in CATEGORIES:
        if rx.search(problem):
            return name
    return "other"


def _base(name: str) -> str:
    return re.sub(r"(\.\d+)+$", "", name.strip())


def _conf_class(conf: str) -> str:
    if not conf or conf == "None":
        return "no confirmation"
    if "may-alias reuse" in conf:
        return "XLA put the output in an operand's buffer"
    if "not in the buffer assignment" in conf:
        return "value not in the buffer assignment"
    if "lists it as a value" in conf:
        return "the buffer assignment lists the fused value"
    if "at allocation" in conf:
        return "allocation/offset disagree"
    return "other"


def signature(problem: str, ours: Optional[dict] = None, oracle: Optional[dict] = None) -> str:
    """A problem line without instruction numbers: the kind of disagreement.  With hloscope's
    module JSON (ours) and the oracle's result, a few kinds say more (what hloscope said instead)."""
    cat = category(problem)
    p = problem
    m = re.match(r"^(?:out-of-place|not-materialized|non-in-place) fusion (?:update )?not reported: (\S+)", p)
    if m and ours is not None:
        key = m.group(1)
        said, why = set(), ""
        for f in (oracle or {}).get("non_inplace_update_fusions", []):
            if f.get("instruction") == key:
                why = "not a fusion output" if f["reason"].startswith("not a fusion output") else \
                    "operand computed in the fusion"
                said |= {u["verdict"] for u in ours["updates"]
                         if (u["fusion"] or u["instruction"]) == key and u["instruction"] == f["fused_update"]}
        return f"{cat}: out-of-place fusion ({why}) reported as {'/'.join(sorted(said)) or 'nothing'}"
    if cat == "copies":
        m = re.match(r"^(copy \w+)(?: without bytes or cause)?:? (\S+)", p)
        return f"{cat}: {m.group(1)} {_base(m.group(2))}" if m else f"{cat}: {p}"
    if cat == "false_in_place":
        m = re.match(r"^FALSE IN-PLACE: (\S+):", p)
        return f"{cat}: {_base(m.group(1)) if m else '?'}"
    if cat == "verdicts":
        m = re.match(r"^update (\S+): XLA shares the buffer, hloscope says (.*)$", p)
        if m:
            verdicts = sorted(set(re.findall(r"'([a-z\-]+)'", m.group(2))))
            return f"{cat}: shared but reported {'/'.join(verdicts) or 'nothing'} ({_base(m.group(1))})"
        m = re.match(r"^(update missed|\S+ fusion (?:update )?not reported): (\S+)", p)
        return f"{cat}: {m.group(1)} {_base(m.group(2))}" if m else f"{cat}: {p}"
    if cat == "confirmed":
        m = re.match(r"^verdict not confirmed: (\S+) (\S+) \((.*)\)$", p)
        if m:
            verdict = "in-place" if m.group(2) == "in-place-on-copy" else m.group(2)
            return f"{cat}: {verdict}: {_conf_class(m.group(3))}"
        return f"{cat}: {p}"
    if cat == "trips":
        m = re.match(r"^trip count differs: \S+: ours (\S+) oracle", p)
        if m:
            return f"{cat}: trip count {'unknown' if m.group(1) == 'None' else 'differs'}"
        return f"{cat}: loop missed"
    if cat == "collectives":
        m = re.match(r"^(collective [a-z_ ]+?): ([a-z\-]+)", p)
        return f"{cat}: {m.group(1)} {m.group(2)}" if m else f"{cat}: {re.sub(r'[0-9]+', 'N', p)[:80]}"
    if cat == "crash":
        return f"{cat}: {re.sub(r'[0-9]+', 'N', p)[:80]}"
    return f"other: {re.sub(r'[0-9]+', 'N', p)[:80]}"


def slug(sig: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", sig.lower()).strip("_")[:48]


# ----------------------------------------------------------------------------- JAX side

class CompileError(Exception):
    """JAX/XLA rejected the program, or XLA aborted the compiling process."""


class Compiler:
    """A child interpreter (difftest/worker.py) that imports JAX once and compiles programs on
    request.  This process never imports JAX, so an XLA abort costs one program, not the run."""

    def __init__(self, timeout_s: float = 300):
        self.proc: Optional[subprocess.Popen] = None
        self.timeout_s = timeout_s
        self.err = None

    def _start(self):
        env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=TOOLS)
        env.pop("XLA_FLAGS", None)
        env.pop("HLOSCOPE_DIFFTEST_DEVICES", None)
        if MESH_DEVICES and TARGET == "cpu":
            env["HLOSCOPE_DIFFTEST_DEVICES"] = str(MESH_DEVICES)
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "difftest.worker"], cwd=TOOLS, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     text=True, bufsize=1)

    def _ask(self, req: dict) -> dict:
        import select
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout_s)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            if ready:
                self.proc.wait(timeout=30)
            msg = "XLA compile timed out" if not ready else f"XLA aborted: {self._last_err()}"
            self.close()
            raise CompileError(msg)
        return json.loads(line)

    def _last_err(self) -> str:
        if self.err is None:
            return "?"
        self.err.seek(0)
        lines = [l.strip() for l in self.err.read().splitlines()
                 if l.strip() and not l.strip().startswith("@") and "stack trace" not in l]
        # drop glog's "F1130 02:46:45.091781    1243 " prefix (time and thread id)
        return re.sub(r"^[FEW]\d{4} [\d:.]+\s+\d+\s+", "", lines[-1])[:200] if lines else "?"

    def build(self, src: str, out_dir: str) -> None:
        req = {"src": src, "out": out_dir}
        if TARGET != "cpu":
            req["target"] = TARGET
        if MESH_DEVICES:
            req["sharded"] = True
        r = self._ask(req)
        if "error" in r:
            raise CompileError(r["error"])

    def versions(self) -> dict:
        return self._ask({"version": True})

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
        if self.err is not None:
            self.err.close()
            self.err = None


_local = __import__("threading").local()


def compiler() -> Compiler:
    c = getattr(_local, "compiler", None)
    if c is None:
        import atexit
        c = _local.compiler = Compiler()
        atexit.register(c.close)
    return c


def build(src: str, out_dir: str) -> None:
    """Compile a rendered program (its dump(out_dir)) in this thread's worker process."""
    compiler().build(src, out_dir)


# ----------------------------------------------------------------------------- comparison

def _binary_ready(binary: str, wait_s: float = 600) -> None:
    t0 = time.time()
    while not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        if time.time() - t0 > wait_s:
            raise FileNotFoundError(binary)
        time.sleep(10)


def compare_dir(binary: str, d: str) -> dict:
    """compare_with_oracle.compare plus the counts the statistics need; never raises."""
    rec: dict = {"problems": [], "n": {}}
    for attempt in range(3):
        try:
            _binary_ready(binary)
            r, ours, oracle = compare_with_oracle.compare_full(binary, d)
            break
        except OSError as e:
            # the binary may be mid-rebuild (missing, text file busy): wait and retry
            if attempt < 2:
                time.sleep(15)
                continue
            rec["problems"] = [f"hloscope failed: {e}"]
            return rec
        except (subprocess.CalledProcessError, json.JSONDecodeError) as e:
            err = getattr(e, "stderr", "") or str(e)
            rec["problems"] = [f"hloscope failed: {err.strip().splitlines()[-1] if err.strip() else e}"]
            return rec
        except Exception as e:  # the oracle
            rec["problems"] = [f"oracle failed: {type(e).__name__}: {e}"]
            return rec
    rec["problems"] = list(r["problems"])
    rec["signatures"] = sorted({signature(p, ours, oracle) for p in rec["problems"]})
    copies = oracle["copies"] + oracle.get("layout_copy_fusions", [])
    rec["n"] = {
        "copies": len(copies),
        "copy_bytes": sum(c["bytes"] or 0 for c in copies),
        "hl_copies": len(ours["copies"]),
        "updates": len(oracle["updates"]),
        "shared": sum(1 for u in oracle["updates"] if u["same_buffer"] is True),
        "not_shared": sum(1 for u in oracle["updates"] if u["same_buffer"] is False),
        "oop_fusions": len(oracle.get("non_inplace_update_fusions", [])),
        "hl_updates": len(ours["updates"]),
        "verdicts": dict(Counter(u["verdict"] for u in ours["updates"])),
        "in_place_contradicted": sum(1 for u in ours["updates"] if u["confirmed"] is False and
                                     u["verdict"] in IN_PLACE_CLAIMS),
        "causes": dict(Counter(c["cause"] for c in ours["copies"])),
        "loops": len(oracle["whiles"]),
        "known_trips": sum(1 for w in oracle["whiles"] if w["known_trip_count"] is not None),
        "collectives": r.get("collectives", 0),
        "collective_causes": dict(Counter(c["cause"] or "unexplained" for c in ours.get("collectives", []))),
        "false_in_place": r["false_in_place"],
    }
    return rec


def run_spec(binary: str, sp: dict, keep: Optional[str] = None) -> dict:
    """Render, compile and compare one spec.  rec['invalid'] is set if it does not compile."""
    rec: dict = {"name": sp["name"], "seed": sp.get("seed"), "index": sp.get("index")}
    if TARGET != "cpu":
        rec["target"] = TARGET
    if sp.get("mesh"):
        rec["mesh"] = sp["mesh"]["shape"]
    try:
        src = specmod.render(sp)
    except specmod.SpecError as e:
        rec.update(invalid=f"spec: {e}", problems=[])
        return rec
    tmp = tempfile.mkdtemp(prefix="difftest-")
    try:
        t0 = time.time()
        try:
            build(src, tmp)
        except CompileError as e:
            rec.update(invalid=str(e)[:300], problems=[])
            return rec
        t1 = time.time()
        rec.update(compare_dir(binary, tmp))
        rec["t_compile"] = round(t1 - t0, 3)
        rec["t_compare"] = round(time.time() - t1, 3)
        rec.setdefault("signatures", sorted({signature(p) for p in rec["problems"]}))
        if keep and rec["problems"]:
            dest = os.path.join(keep, sp["name"])
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(tmp, dest)
            with open(os.path.join(dest, "program.py"), "w") as f:
                f.write(src)
        return rec
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_index(binary: str, seed: int, index: int, keep: Optional[str] = None) -> dict:
    try:
        sp = program(seed, index)
    except specmod.SpecError as e:
        return {"name": f"p{seed}_{index}", "seed": seed, "index": index,
                "invalid": f"generator: {e}", "problems": []}
    return run_spec(binary, sp, keep)


# ----------------------------------------------------------------------------- reproducers

def saved_reproducers(save_dir: str = DEFAULT_SAVE) -> List[dict]:
    out = []
    for meta in sorted(glob.glob(os.path.join(save_dir, "*", "meta.json"))):
        with open(meta) as f:
            m = json.load(f)
        m["dir"] = os.path.dirname(meta)
        out.append(m)
    return out


def _build_standalone(binary: str, sp: dict, dest: str) -> dict:
    """Write dest/program.py and run it in a fresh interpreter (so the dump's stack frames name only
    program.py), then compare."""
    with open(os.path.join(dest, "program.py"), "w") as f:
        f.write(specmod.render(sp))
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    subprocess.run([sys.executable, "program.py", "."], cwd=dest, env=env, check=True,
                   capture_output=True, text=True)
    return compare_dir(binary, dest)


def save_reproducer(binary: str, sp: dict, sig: str, original: List[str], save_dir: str,
                    minimize_s: float, log=print) -> Optional[str]:
    from . import minimize
    versions = compiler().versions()

    def still_fails(cand: dict) -> bool:
        r = run_spec(binary, cand)
        return not r.get("invalid") and sig in r.get("signatures", [])

    t0 = time.time()
    before = specmod.count_stmts(sp)
    small, tries = minimize.minimize(sp, still_fails, budget_s=minimize_s)
    name = f"s{sp['seed']}_{sp['index']:04d}_{slug(sig)}"
    dest = os.path.join(save_dir, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    r = _build_standalone(binary, small, dest)
    if sig not in r.get("signatures", []):  # not reproducible standalone: keep the full program
        small = sp
        r = _build_standalone(binary, small, dest)
    problems = r["problems"]
    meta = {
        "name": name,
        "seed": sp["seed"],
        "index": sp["index"],
        "signature": sig,
        "category": sig.split(":")[0],
        "mismatch": problems,
        "original_mismatch": original,
        "status": "open",
        "reason": f"open hloscope bug (not yet triaged): {sig}",
        "jax_version": versions["jax"],
        "jaxlib_version": versions["jaxlib"],
        "backend": "cpu",
        "original_program": (f"python3 tools/difftest.py --print-source --seed {sp['seed']} --start {sp['index']}"
                             + (" --mesh" if sp.get("mesh") else "")),
        "minimize": {"statements_before": before, "statements_after": specmod.count_stmts(small),
                     "tries": tries, "seconds": round(time.time() - t0, 1)},
        "files": ["buffer-assignment.txt", "meta.json", "module.hlo.txt", "program.py"],
        "generated_by": "tools/difftest",
        "generator_version": generator.GENERATOR_VERSION,
        "spec": small,
    }
    with open(os.path.join(dest, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    log(f"  saved {os.path.relpath(dest, os.getcwd())} ({before} -> {specmod.count_stmts(small)} "
        f"statements, {tries} tries, {time.time() - t0:.0f}s)")
    return dest


# Statistics (summarize, format_summary) live in summary.py.

# ----------------------------------------------------------------------------- driver

def run(binary: str, seed: int, n: int, start: int = 0, jobs: int = 1, results: Optional[str] = None,
        save_dir: Optional[str] = DEFAULT_SAVE, max_per_signature: int = 1, minimize_s: float = 120,
        keep: Optional[str] = None, resume: bool = False, log=print) -> List[dict]:
    done = set()
    if results and resume and os.path.exists(results):
        with open(results) as f:
            for line in f:
                r = json.loads(line)
                if r.get("seed") == seed:
                    done.add(r["index"])
    known = Counter()
    if save_dir:
        for m in saved_reproducers(save_dir):
            known[m.get("signature")] += 1
    indices = [i for i in range(start, start + n) if i not in done]
    out = []
    t0 = time.time()
    pool = None
    if jobs > 1:  # threads, each with its own compile worker process
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(jobs)
        it = pool.map(lambda i: run_index(binary, seed, i, keep), indices)
    else:
        it = (run_index(binary, seed, i, keep) for i in indices)
    try:
        for k, rec in enumerate(it):
            out.append(rec)
            if results:
                with open(results, "a") as f:
                    f.write(json.dumps(rec, sort_keys=True) + "\n")
            if rec.get("invalid"):
                log(f"{rec['name']}: invalid program: {rec['invalid']}")
            for p in rec.get("problems", []):
                log(f"{rec['name']}: {p}")
            if save_dir and rec.get("problems"):
                for sig in rec["signatures"]:
                    if known[sig] >= max_per_signature:
                        continue
                    known[sig] += 1
                    try:
                        save_reproducer(binary, program(seed, rec["index"]), sig,
                                        rec["problems"], save_dir, minimize_s, log)
                    except Exception as e:  # keep the run going
                        log(f"  could not save a reproducer for {rec['name']}: {type(e).__name__}: {e}")
            if (k + 1) % 25 == 0:
                log(f"[{k + 1}/{len(indices)}] {time.time() - t0:.0f}s, "
                    f"{sum(1 for r in out if r.get('problems'))} with mismatches")
    finally:
        if pool is not None:
            pool.shutdown()
    return out


def use_compare_module(path: str) -> None:
    """Use another compare_with_oracle.py (e.g. a fix under review) instead of tools/'s."""
    global compare_with_oracle
    import importlib.util
    spec = importlib.util.spec_from_file_location("compare_with_oracle_alt", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "compare_full"):  # a copy older than compare_full: run both again
        tools_module = compare_with_oracle

        def compare_full(binary: str, d: str):
            r = mod.compare(binary, d)
            return (r,) + tools_module.compare_full(binary, d)[1:]
        mod.compare_full = compare_full
    compare_with_oracle = mod


def snapshot_binary(binary: str) -> str:
    """A private copy, so a rebuild by someone else does not change the binary mid-run."""
    _binary_ready(binary)
    fd, path = tempfile.mkstemp(prefix="hloscope-difftest-")
    os.close(fd)
    shutil.copyfile(binary, path)
    os.chmod(path, 0o755)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="random JAX programs: hloscope check vs tools/ba_oracle.py")
    ap.add_argument("--n", type=int, default=300, help="number of programs (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first program index")
    ap.add_argument("--hloscope", default=None, help="hloscope binary (default: HLOSCOPE_BIN, build/dev)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--results", help="append one JSON line per program here")
    ap.add_argument("--resume", action="store_true", help="skip indices already in --results")
    ap.add_argument("--save-dir", default=DEFAULT_SAVE, help="where minimized reproducers go")
    ap.add_argument("--no-save", action="store_true", help="do not save reproducers")
    ap.add_argument("--max-per-signature", type=int, default=1)
    ap.add_argument("--minimize-seconds", type=float, default=120)
    ap.add_argument("--keep", help="copy the dumps of mismatching programs here (unminimized)")
    ap.add_argument("--no-snapshot", action="store_true", help="run the binary in place, not a copy")
    ap.add_argument("--summarize", nargs="+", metavar="JSONL", help="only summarize result files")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="write the summary as JSON here")
    ap.add_argument("--print-source", action="store_true", help="print program --start and exit")
    ap.add_argument("--compare", metavar="PY", help="use this compare_with_oracle.py instead of tools/'s")
    ap.add_argument("--mesh", action="store_true",
                    help="run every program sharded: a random mesh over 8 CPU host devices (or the "
                         "TPU slice or GPUs of --target, e.g. tpu-v5e:2x2, gpu-h100:8), random "
                         "partition specs, "
                         "sharding constraints and output shardings")
    ap.add_argument("--target", default="cpu",
                    help="compile for cpu (default), gpu-h100, gpu-a100, tpu-v5e, tpu-v4, tpu-v6e "
                         "(without the hardware: needs `tools/install-deps.sh --backends`)")
    a = ap.parse_args(argv)
    global TARGET, MESH_DEVICES
    TARGET = a.target
    MESH_DEVICES = mesh_devices(TARGET) if a.mesh else 0
    if TARGET != "cpu" and not a.no_save and not a.print_source and not a.summarize:
        # a reproducer is rebuilt standalone on this machine's CPU: not the target's program
        print("difftest: not saving reproducers for a GPU/TPU target (use --keep DIR)", file=sys.stderr)
        a.no_save = True

    if a.compare:
        use_compare_module(a.compare)
    if a.print_source:
        print(specmod.render(program(a.seed, a.start)))
        return 0
    if a.summarize:
        recs = []
        for path in a.summarize:
            with open(path) as f:
                recs += [json.loads(line) for line in f if line.strip()]
        s = summarize(recs)
    else:
        binary = a.hloscope or find_hloscope_bin()
        if not binary:
            print("difftest: no hloscope binary (use --hloscope or HLOSCOPE_BIN)", file=sys.stderr)
            return 2
        run_bin = binary if a.no_snapshot else snapshot_binary(binary)
        t0 = time.time()
        try:
            recs = run(run_bin, a.seed, a.n, a.start, a.jobs, a.results,
                       None if a.no_save else a.save_dir, a.max_per_signature, a.minimize_seconds,
                       a.keep, a.resume, log=lambda m: print(m, flush=True))
        finally:
            if run_bin != binary:
                os.unlink(run_bin)
        s = summarize(recs)
        versions = compiler().versions()
        s["jax_version"] = versions["jax"]
        s["target"] = TARGET
        if TARGET.startswith("tpu") and "libtpu" in versions:
            s["libtpu_version"] = versions["libtpu"]
        if TARGET.startswith("gpu") and "cuda_plugin" in versions:
            s["cuda_plugin_version"] = versions["cuda_plugin"]
        compiler().close()
        s["command"] = (f"python3 tools/difftest.py --n {a.n} --seed {a.seed}"
                        + (f" --start {a.start}" if a.start else "")
                        + (f" --target {TARGET}" if TARGET != "cpu" else "")
                        + (" --mesh" if MESH_DEVICES else ""))
        s["seconds"] = round(time.time() - t0, 1)
    print(format_summary(s, a.markdown))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(s, f, indent=2, sort_keys=True)
    return 1 if s["with_mismatch"] else 0
