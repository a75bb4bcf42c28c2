#!/usr/bin/env python3
"""Generate (on demand, cached) one large, real, optimized HLO module with JAX.

The module is the XLA:CPU-optimized HLO of a full training step of a deep
LLaMA-style decoder (RMSNorm, RoPE, causal attention, SwiGLU MLP, bf16 compute
with f32 master weights, softmax cross-entropy, global-norm clipping, AdamW).
The layers are unrolled with a Python for-loop (no lax.scan), so the module
size grows linearly with the layer count. The text is taken verbatim from the
`*.cpu_after_optimizations.txt` file that XLA writes with `xla_dump_to`, so it
carries everything the real dump carries (metadata op_name / source info,
FileNames / FunctionNames / FileLocations / StackFrames tables, schedule,
layouts, input/output aliasing).

The layer count is chosen automatically: two small calibration compiles give
the (linear) bytes-per-layer, then the full module is compiled; if it comes
out short of --min-mb the layer count is increased and it is compiled again.

Each compile runs in a child process. By default the child is stopped as soon
as XLA has written the optimized-module dump: at that point every HLO pass and
buffer assignment has run, and only LLVM code generation is left, which does
not change the HLO text (verified byte-identical with --full-compile) but would
roughly double the time. The child is killed if it gets close to running the
machine out of memory (--max-rss-gb, --min-free-gb).

Cost (jax 0.10.2, 2-core VM shared with builds, load ~10): ~220 KB of text
per layer, so >= 100 MB is 462 layers -> 105.2 MB, 1.03 M lines. That compile
took 31.7 min wall / ~12.5 min CPU (lowering 94 s; the rest XLA HLO passes,
single-threaded) and peaked at 15.2 GiB RSS; time and memory grow faster than
linearly with depth (~N^1.4). --min-mb 5 (23 layers) takes ~40 s. The sidecar
records the actual timings.

Usage:
  tools/gen_large_module.py                 # >= 100 MB -> ~/.cache/hloscope/large_module.hlo.txt
  tools/gen_large_module.py --min-mb 5      # quick variant -> ~/.cache/hloscope/large_module_5mb.hlo.txt
  tools/gen_large_module.py --out PATH [--layers N] [--force]

A JSON sidecar (PATH + ".json") records the jax/jaxlib versions, layer count,
model config, bytes, sha256 and timings. If PATH and its sidecar already exist
and match the requested parameters (and the file's size and sha256 match the
sidecar), nothing is done. The output path is printed on the last stdout line.

Note: LayerNorm (mean-subtracting) is deliberately not used: on XLA:CPU its
backward pass triggers fusion duplication along the residual stream, which
makes the optimized module grow quadratically with depth (64 layers: ~80 MB
and ~20 GB of compiler memory). RMSNorm stays linear.
"""

import argparse
import glob
import hashlib
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time

# Bump when the model / procedure changes so stale caches are regenerated.
GENERATOR_VERSION = 1

# Model shape (per layer). Tensor sizes do not matter for compile time (no
# buffers are allocated when compiling), only the op count does; they are kept
# modest but realistic-looking.
CONFIG = dict(
    batch=4,
    seq=128,
    d_model=256,
    n_heads=8,
    d_ff=688,
    vocab=1024,
    compute_dtype="bfloat16",
    param_dtype="float32",
)


def log(msg):
    print(f"[gen_large_module] {msg}", file=sys.stderr, flush=True)


def default_out(min_mb):
    base = os.path.join(os.path.expanduser("~"), ".cache", "hloscope")
    if float(min_mb) == 100:
        return os.path.join(base, "large_module.hlo.txt")
    mb = int(min_mb) if float(min_mb).is_integer() else min_mb
    return os.path.join(base, f"large_module_{mb}mb.hlo.txt")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 24), b""):
            h.update(chunk)
    return h.hexdigest()


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------


def build_step(n_layers, cfg):
    """Returns (jitted train step, abstract args)."""
    import jax
    import jax.numpy as jnp

    B, S, D = cfg["batch"], cfg["seq"], cfg["d_model"]
    H, F, V = cfg["n_heads"], cfg["d_ff"], cfg["vocab"]
    Dh = D // H
    # Flax-style module paths in op_name metadata
    # (e.g. ".../TransformerLM/decoder/layers_17/mlp/wi_0/dot_general").
    ns = jax.named_scope
    cdt = jnp.dtype(cfg["compute_dtype"])
    pdt = jnp.dtype(cfg["param_dtype"])

    def rms_norm(x, g):
        x32 = x.astype(jnp.float32)
        y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-6)
        return (y * g).astype(cdt)

    def rope(x, positions):
        # x: [B, S, H, Dh]; positions: [B, S] int32 (an input, so nothing is
        # constant-folded into huge literals).
        half = Dh // 2
        inv_freq = 1.0 / (10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
        ang = positions.astype(jnp.float32)[:, :, None] * inv_freq  # [B,S,half]
        sin = jnp.sin(ang)[:, :, None, :].astype(cdt)
        cos = jnp.cos(ang)[:, :, None, :].astype(cdt)
        x1, x2 = x[..., :half], x[..., half:]
        return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)

    def dense(name, h, w):
        with ns(name):
            return h @ w.astype(cdt)

    def attention(p, h, positions):
        q = dense("query", h, p["wq"]).reshape(B, S, H, Dh)
        k = dense("key", h, p["wk"]).reshape(B, S, H, Dh)
        v = dense("value", h, p["wv"]).reshape(B, S, H, Dh)
        with ns("rotary_embedding"):
            q, k = rope(q, positions), rope(k, positions)
        with ns("attention_weights"):
            logits = jnp.einsum("bshd,bthd->bhst", q, k).astype(jnp.float32)
            logits = logits * (1.0 / math.sqrt(Dh))
            causal = jnp.tril(jnp.ones((S, S), dtype=bool))
            logits = jnp.where(causal, logits, jnp.finfo(jnp.float32).min)
            probs = jax.nn.softmax(logits, axis=-1).astype(cdt)
        with ns("attention_combine"):
            o = jnp.einsum("bhst,bthd->bshd", probs, v).reshape(B, S, D)
        return dense("out", o, p["wo"])

    def mlp(p, h):
        gate = dense("wi_0", h, p["w_gate"])
        up = dense("wi_1", h, p["w_up"])
        with ns("activation"):
            a = jax.nn.silu(gate) * up
        return dense("wo", a, p["w_down"])

    def block(p, x, positions):
        with ns("pre_self_attention_norm"):
            h = rms_norm(x, p["attn_norm"])
        with ns("self_attention"):
            x = x + attention(p, h, positions)
        with ns("pre_ffw_norm"):
            h = rms_norm(x, p["mlp_norm"])
        with ns("mlp"):
            x = x + mlp(p, h)
        return x

    def loss_fn(params, tokens, positions, targets):
        with ns("embedder"):
            x = jnp.take(params["embed"].astype(cdt), tokens, axis=0)
        with ns("decoder"):
            for i, p in enumerate(params["layers"]):  # unrolled on purpose (no scan)
                with ns(f"layers_{i}"):
                    x = block(p, x, positions)
            with ns("decoder_norm"):
                x = rms_norm(x, params["final_norm"])
            with ns("logits_dense"):
                logits = (x @ params["lm_head"].astype(cdt)).astype(jnp.float32)
        with ns("cross_entropy_loss"):
            logp = jax.nn.log_softmax(logits, axis=-1)
            nll = -jnp.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
            return jnp.mean(nll)

    def train_step(params, opt_state, tokens, positions, targets):
        with ns("TransformerLM"):
            loss, grads = jax.value_and_grad(loss_fn)(params, tokens, positions, targets)
        with ns("optimizer"):
            return apply_updates(params, opt_state, grads, loss)

    def apply_updates(params, opt_state, grads, loss):
        # global-norm gradient clipping
        leaves = jax.tree.leaves(grads)
        gnorm = jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in leaves))
        scale = jnp.minimum(1.0, 1.0 / (gnorm + 1e-6))
        grads = jax.tree.map(lambda g: g * scale, grads)
        # AdamW
        step = opt_state["step"] + 1
        b1, b2, lr, wd, eps = 0.9, 0.95, 3e-4, 0.1, 1e-8
        mu = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, opt_state["mu"], grads)
        nu = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, opt_state["nu"], grads)
        t = step.astype(jnp.float32)
        bc1, bc2 = 1 - b1**t, 1 - b2**t
        params = jax.tree.map(
            lambda p, m, v: p - lr * ((m / bc1) / (jnp.sqrt(v / bc2) + eps) + wd * p),
            params, mu, nu)
        return params, dict(step=step, mu=mu, nu=nu), dict(loss=loss, grad_norm=gnorm)

    sds = jax.ShapeDtypeStruct
    layer_shapes = dict(
        attn_norm=(D,), wq=(D, D), wk=(D, D), wv=(D, D), wo=(D, D),
        mlp_norm=(D,), w_gate=(D, F), w_up=(D, F), w_down=(F, D))
    params = dict(
        embed=sds((V, D), pdt),
        layers=[{n: sds(s, pdt) for n, s in layer_shapes.items()} for _ in range(n_layers)],
        final_norm=sds((D,), pdt),
        lm_head=sds((D, V), pdt),
    )
    opt_state = dict(step=sds((), jnp.int32), mu=params, nu=params)
    tok = sds((B, S), jnp.int32)
    step_fn = jax.jit(train_step, donate_argnums=(0, 1))
    return step_fn, (params, opt_state, tok, tok, tok)


AFTER_OPT_GLOB = "*.cpu_after_optimizations.txt"
# XLA:CPU writes these right after the module text (same DumpHloModuleIfEnabled
# call, after buffer assignment, before LLVM code generation). Once the last of
# them exists, the module text file is complete.
DONE_MARKER_GLOB = "*.cpu_after_optimizations-memory-usage-report.txt"


def _child_compile(n_layers, dump_dir, progress_path):
    """Runs in a child process: lower + compile with xla_dump_to."""
    def event(name, **kw):
        with open(progress_path, "a") as f:
            f.write(json.dumps(dict(event=name, t=time.time(), **kw)) + "\n")

    event("start")
    step_fn, args = build_step(n_layers, CONFIG)
    lowered = step_fn.lower(*args)
    event("lowered")
    lowered.compile(compiler_options={"xla_dump_to": dump_dir})
    event("compiled")


def _read_events(path):
    ev = {}
    try:
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                    ev[e["event"]] = e["t"]
                except ValueError:
                    pass
    except OSError:
        pass
    return ev


def _proc_status(pid):
    """(VmRSS, VmHWM) of pid in bytes, or (None, None)."""
    rss = hwm = None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss, hwm


def _proc_cpu_s(pid):
    """utime + stime of pid (its threads included) in seconds, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def compile_and_dump(n_layers, dump_dir, full_compile=False, max_rss_gb=None,
                     min_free_gb=1.0, poll_s=0.25):
    """Compiles the n-layer train step on CPU in a child process.

    Unless full_compile, the child is stopped as soon as XLA has written the
    optimized-module dump (i.e. after all HLO passes and buffer assignment;
    only LLVM code generation, which does not change the HLO text, is skipped).
    The child is killed if its RSS exceeds max_rss_gb or the machine's
    MemAvailable drops below min_free_gb. Returns (text path, info dict).
    """
    import subprocess

    progress = os.path.join(dump_dir, ".progress.jsonl")
    cmd = [sys.executable, os.path.abspath(__file__), "--_child", str(n_layers), dump_dir, progress]
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    peak = 0
    cpu_s = None
    stopped_early = False
    reason = None
    try:
        while True:
            rc = proc.poll()
            rss, hwm = _proc_status(proc.pid)
            peak = max(peak, hwm or 0, rss or 0)
            cpu_s = _proc_cpu_s(proc.pid) or cpu_s
            if rc is not None:
                if rc != 0:
                    raise RuntimeError(f"compile child for {n_layers} layers exited with {rc}")
                break
            if not full_compile and glob.glob(os.path.join(dump_dir, DONE_MARKER_GLOB)):
                stopped_early = True
                break
            if max_rss_gb and rss and rss > max_rss_gb * 2**30:
                reason = f"RSS {rss / 2**30:.1f} GiB > --max-rss-gb {max_rss_gb}"
            avail = _mem_available()
            if min_free_gb and avail is not None and avail < min_free_gb * 2**30:
                reason = f"MemAvailable {avail / 2**30:.2f} GiB < {min_free_gb} GiB"
            if reason:
                raise MemoryError(f"aborted compile of {n_layers} layers after "
                                  f"{time.time() - t0:.0f}s: {reason}")
            time.sleep(poll_s)
    finally:
        if proc.poll() is None:
            proc.kill()  # our own child only
            proc.wait()
    t_end = time.time()

    hits = glob.glob(os.path.join(dump_dir, AFTER_OPT_GLOB))
    if not hits:
        raise RuntimeError(f"no {AFTER_OPT_GLOB} in {dump_dir}: {sorted(os.listdir(dump_dir))[:20]}")
    path = max(hits, key=os.path.getsize)
    ev = _read_events(progress)
    t_start, t_low = ev.get("start", t0), ev.get("lowered")
    t_dump = os.path.getmtime(path)
    info = dict(
        layers=n_layers,
        bytes=os.path.getsize(path),
        process_start_s=round(t_start - t0, 3),            # python + jax import
        lower_s=round(t_low - t_start, 3) if t_low else None,  # trace + StableHLO
        hlo_passes_s=round(t_dump - t_low, 3) if t_low else None,  # XLA HLO opt + buffer assignment + dump
        compile_s=round(ev["compiled"] - t_low, 3) if "compiled" in ev and t_low else None,
        wall_s=round(t_end - t0, 3),
        cpu_s=round(cpu_s, 1) if cpu_s is not None else None,  # child CPU time (last sample)
        stopped_after_dump=stopped_early,
        peak_rss_mb=round(peak / 2**20, 1),
    )
    return path, info


def _fmt_info(i):
    parts = [f"{i['layers']} layers: {i['bytes'] / 1e6:.2f} MB",
             f"lower {i['lower_s']:.1f}s" if i["lower_s"] is not None else None,
             f"HLO passes+dump {i['hlo_passes_s']:.1f}s" if i["hlo_passes_s"] is not None else None,
             f"full compile {i['compile_s']:.1f}s" if i["compile_s"] is not None else None,
             f"wall {i['wall_s']:.1f}s",
             f"CPU {i['cpu_s']:.0f}s" if i.get("cpu_s") is not None else None,
             f"peak RSS {i['peak_rss_mb'] / 1024:.2f} GiB"]
    return ", ".join(p for p in parts if p)


def compile_size(n_layers, workdir, **kw):
    d = tempfile.mkdtemp(prefix=f"dump_{n_layers}_", dir=workdir)
    try:
        _, info = compile_and_dump(n_layers, d, **kw)
        log("  " + _fmt_info(info))
        return info
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--_child":
        _child_compile(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return 0

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output path (default: ~/.cache/hloscope/large_module[_<N>mb].hlo.txt)")
    ap.add_argument("--min-mb", type=float, default=100.0,
                    help="minimum module text size in MB (10^6 bytes); default 100")
    ap.add_argument("--layers", type=int, default=None,
                    help="use exactly this many layers (skips calibration; size may end up below --min-mb)")
    ap.add_argument("--force", action="store_true", help="regenerate even if cached")
    ap.add_argument("--margin", type=float, default=0.02,
                    help="relative safety margin on the size estimate (default 0.02)")
    ap.add_argument("--full-compile", action="store_true",
                    help="let XLA finish LLVM code generation instead of stopping once the "
                         "optimized HLO has been dumped (same text, much slower)")
    ap.add_argument("--max-rss-gb", type=float, default=None,
                    help="abort if the compiler's RSS exceeds this (default: 85%% of MemTotal)")
    ap.add_argument("--min-free-gb", type=float, default=1.0,
                    help="abort if the machine's MemAvailable drops below this (default 1.0)")
    args = ap.parse_args()

    out = os.path.abspath(os.path.expanduser(args.out or default_out(args.min_mb)))
    sidecar = out + ".json"
    min_bytes = int(args.min_mb * 1e6)
    if args.max_rss_gb is None:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            args.max_rss_gb = round(0.85 * total / 2**30, 1)
        except (ValueError, OSError):
            args.max_rss_gb = None
    ckw = dict(full_compile=args.full_compile, max_rss_gb=args.max_rss_gb,
               min_free_gb=args.min_free_gb)

    import jax
    import jaxlib

    request = dict(generator_version=GENERATOR_VERSION, min_mb=args.min_mb,
                   layers_override=args.layers, config=CONFIG,
                   jax_version=jax.__version__, jaxlib_version=jaxlib.__version__)

    if not args.force and os.path.exists(out) and os.path.exists(sidecar):
        try:
            with open(sidecar) as f:
                meta = json.load(f)
            same = all(meta.get("request", {}).get(k) == v for k, v in request.items())
            if same and os.path.getsize(out) == meta.get("bytes") and sha256_file(out) == meta.get("sha256"):
                log(f"cached: {meta['bytes'] / 1e6:.1f} MB, {meta['layers']} layers, "
                    f"jax {meta['jax_version']}")
                print(out)
                return 0
            log("cache present but parameters/contents differ; regenerating")
        except (OSError, ValueError) as e:
            log(f"unreadable sidecar ({e}); regenerating")

    os.makedirs(os.path.dirname(out), exist_ok=True)
    # Dumps (plus the LLVM IR / object files XLA also dumps) go next to the
    # output rather than into a possibly small /tmp.
    workdir = tempfile.mkdtemp(prefix=".gen_large_module_", dir=os.path.dirname(out))
    t_start = time.perf_counter()
    calibration = []
    attempts = []
    try:
        if args.layers is not None:
            n = args.layers
        else:
            # Calibration: the text size is linear in the layer count (a + b*n).
            n1, n2 = 4, 8
            calibration = [compile_size(n1, workdir, **ckw), compile_size(n2, workdir, **ckw)]
            s1, s2 = calibration[0]["bytes"], calibration[1]["bytes"]
            slope = (s2 - s1) / (n2 - n1)
            icpt = s1 - slope * n1
            n = max(1, math.ceil((min_bytes * (1 + args.margin) - icpt) / slope))
            log(f"calibration: {slope / 1e3:.1f} KB/layer + {icpt / 1e3:.1f} KB -> {n} layers")

        while True:
            log(f"compiling {n} layers ...")
            d = tempfile.mkdtemp(prefix=f"dump_{n}_", dir=workdir)
            path, info = compile_and_dump(n, d, **ckw)
            attempts.append(info)
            log("  " + _fmt_info(info))
            size = info["bytes"]
            if size >= min_bytes or args.layers is not None:
                break
            shutil.rmtree(d, ignore_errors=True)
            n = math.ceil(n + (min_bytes - size) * (1 + args.margin) / (size / n)) + 1

        tmp_out = out + ".tmp"
        shutil.copyfile(path, tmp_out)
        digest = sha256_file(tmp_out)
        with open(tmp_out, "rb") as f:
            n_lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))
        os.replace(tmp_out, out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    final = attempts[-1]
    meta = dict(
        request=request,
        path=out,
        jax_version=jax.__version__,
        jaxlib_version=jaxlib.__version__,
        backend="cpu",
        source_dump_file=os.path.basename(path),
        layers=n,
        bytes=size,
        lines=n_lines,
        sha256=digest,
        lower_s=final["lower_s"],
        hlo_passes_s=final["hlo_passes_s"],
        compile_s=final["compile_s"],
        stopped_after_dump=final["stopped_after_dump"],
        peak_rss_mb=final["peak_rss_mb"],
        final_wall_s=final["wall_s"],
        final_cpu_s=final.get("cpu_s"),
        total_s=round(time.perf_counter() - t_start, 3),
        calibration=calibration,
        attempts=attempts,
        python=platform.python_version(),
        machine=platform.machine(),
        cpu_count=os.cpu_count(),
        loadavg_at_end=os.getloadavg() if hasattr(os, "getloadavg") else None,
        created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    )
    with open(sidecar + ".tmp", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    os.replace(sidecar + ".tmp", sidecar)
    log(f"wrote {size / 1e6:.1f} MB ({n_lines} lines, {n} layers) in {meta['total_s']:.0f}s total; "
        f"final module: {_fmt_info(final)}; jax {jax.__version__}")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
