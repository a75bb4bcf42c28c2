#!/usr/bin/env python3
"""One-shot parse benchmark: hloscope vs. XLA's parser vs. `wc -l`, on one file.

Measures, on the same HLO text file:
  (a) hloscope parse (and, if present, BM_CheckFile = parse + check, BM_CheckCommand = the
      whole `check` command) throughput, from the
      Google Benchmark binary BENCH_BIN run as
        BENCH_BIN --benchmark_filter='^BM_(ParseFile|CheckFile|CheckCommand)' \
                  --benchmark_repetitions=R --benchmark_format=json
      with HLOSCOPE_BENCH_FILE=FILE; the median aggregate is used
      (bytes_per_second if reported, else file size / real_time);
  (b) XLA's own text parser, in-process via jaxlib (bench/xla_parse_baseline.py);
  (c) `wc -l FILE` wall time (median of R runs, after one warm-up run);
  (d) peak RSS of `BIN stats FILE` (via /usr/bin/time -v), relative to the file size.

Prints a small table; --json-out PATH writes the same numbers as JSON.
MB = 10^6 bytes throughout.

Parts whose inputs are missing are skipped (e.g. no --bench: no (a);
--no-xla: no (b); no --hloscope: no (d)). --bench-json PATH reads an existing
Google Benchmark JSON file instead of running BENCH_BIN (for testing).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FILE = os.path.join(os.path.expanduser("~"), ".cache", "hloscope", "large_module.hlo.txt")
TIME_UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def log(msg):
    print(f"[run_parse_bench] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# (a) Google Benchmark JSON
# --------------------------------------------------------------------------


def _run_name(b):
    """Benchmark name without aggregate suffix or /arg decorations."""
    name = b.get("run_name")
    if not name:
        name = b.get("name", "")
        agg = b.get("aggregate_name")
        if agg and name.endswith("_" + agg):
            name = name[: -len(agg) - 1]
    return name


def _family(b):
    return _run_name(b).split("/")[0]


def summarize_family(benchmarks, family, file_bytes):
    """Median-based summary of one benchmark family (e.g. 'BM_ParseFile').

    Prefers the 'median' aggregate; falls back to the median of the
    individual iteration runs (e.g. --benchmark_repetitions=1 emits no
    aggregates). Returns None if the family is absent.
    """
    rows = [b for b in benchmarks if _family(b) == family and "error_occurred" not in b]
    errors = [b for b in benchmarks if _family(b) == family and b.get("error_occurred")]
    if not rows:
        if errors:
            return dict(error=errors[0].get("error_message", "error"))
        return None
    iters = [b for b in rows if b.get("run_type", "iteration") == "iteration"]
    med = [b for b in rows if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"]

    def secs(b, key):
        return b[key] * TIME_UNIT_S[b.get("time_unit", "ns")]

    if med:
        m = med[0]
        real_s, cpu_s = secs(m, "real_time"), secs(m, "cpu_time")
        bps = m.get("bytes_per_second")
        source = "median aggregate"
    else:
        real_s = statistics.median(secs(b, "real_time") for b in iters)
        cpu_s = statistics.median(secs(b, "cpu_time") for b in iters)
        vals = [b["bytes_per_second"] for b in iters if "bytes_per_second" in b]
        bps = statistics.median(vals) if vals else None
        source = f"median of {len(iters)} runs"
    if bps is None and file_bytes:
        bps = file_bytes / real_s
        bps_source = "file size / real_time"
    else:
        bps_source = "bytes_per_second"
    out = dict(
        name=_run_name(med[0] if med else iters[0]),
        real_time_s=real_s,
        cpu_time_s=cpu_s,
        mb_per_s=(bps / 1e6) if bps else None,
        mb_per_s_source=bps_source,
        source=source,
        repetitions=len(iters),
        iterations_per_repetition=[b.get("iterations") for b in iters],
        real_times_s=[secs(b, "real_time") for b in iters],
    )
    # Keep user counters reported on the median row (anything non-standard).
    std = {"name", "run_name", "run_type", "family_index", "per_family_instance_index",
           "repetitions", "repetition_index", "threads", "iterations", "real_time",
           "cpu_time", "time_unit", "aggregate_name", "aggregate_unit", "bytes_per_second",
           "items_per_second", "label"}
    counters = {k: v for k, v in (med[0] if med else iters[0]).items() if k not in std}
    if counters:
        out["counters"] = counters
    return out


def run_google_benchmark(bench_bin, file, repeat, bench_filter, extra_args):
    env = dict(os.environ, HLOSCOPE_BENCH_FILE=os.path.abspath(file))
    with tempfile.TemporaryDirectory(prefix="hloscope_bench_") as d:
        out_path = os.path.join(d, "bench.json")
        cmd = [bench_bin, f"--benchmark_filter={bench_filter}",
               f"--benchmark_repetitions={repeat}", "--benchmark_format=json",
               f"--benchmark_out={out_path}", "--benchmark_out_format=json"] + list(extra_args)
        log("running " + " ".join(cmd) + f"  (HLOSCOPE_BENCH_FILE={env['HLOSCOPE_BENCH_FILE']})")
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{bench_bin} exited {p.returncode}:\n{p.stderr[-4000:]}")
        if os.path.exists(out_path) and os.path.getsize(out_path) > 0:
            with open(out_path) as f:
                return json.load(f)
        # Fall back to stdout (JSON reporter output).
        start = p.stdout.find("{")
        return json.loads(p.stdout[start:])


# --------------------------------------------------------------------------
# (b) XLA, (c) wc -l, (d) RSS
# --------------------------------------------------------------------------


def run_xla(file, repeat, python):
    cmd = [python, os.path.join(HERE, "xla_parse_baseline.py"), file, "--repeat", str(repeat)]
    log("running " + " ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"xla_parse_baseline.py exited {p.returncode}:\n{p.stderr[-4000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_wc(file, repeat):
    wc = shutil.which("wc") or "wc"
    subprocess.run([wc, "-l", file], stdout=subprocess.DEVNULL, check=True)  # warm page cache
    times = []
    lines = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run([wc, "-l", file], stdout=subprocess.PIPE, check=True, text=True)
        times.append(time.perf_counter() - t0)
        lines = int(p.stdout.split()[0])
    med = statistics.median(times)
    return dict(median_s=med, runs=len(times), times_s=times,
                mb_per_s=os.path.getsize(file) / 1e6 / med, lines=lines)


def ensure_gnu_time():
    path = "/usr/bin/time"
    if os.path.exists(path):
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("/usr/bin/time missing; installing Debian package 'time'")
        subprocess.run(["apt-get", "install", "-y", "time"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return path if os.path.exists(path) else None


def run_rss(hloscope_bin, file):
    cmd = [hloscope_bin, "stats", file]
    size = os.path.getsize(file)
    gnu_time = ensure_gnu_time()
    if gnu_time:
        log("running /usr/bin/time -v " + " ".join(cmd))
        t0 = time.perf_counter()
        p = subprocess.run([gnu_time, "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        kb = None
        for line in p.stderr.splitlines():
            if "Maximum resident set size" in line:
                kb = int(line.rsplit(":", 1)[1])
        method = "/usr/bin/time -v"
        rc = p.returncode
        err = p.stderr
    else:
        # Fallback: the kernel's ru_maxrss for the child (same number GNU time reports).
        log("running (wait4 rusage) " + " ".join(cmd))
        t0 = time.perf_counter()
        with open(os.devnull, "w") as devnull:
            proc = subprocess.Popen(cmd, stdout=devnull, stderr=subprocess.PIPE, text=True)
            err = proc.stderr.read()
            _, status, ru = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        kb = ru.ru_maxrss
        method = "wait4 rusage"
        rc = proc.returncode
    if rc != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` exited {rc}:\n{err[-4000:]}")
    if kb is None:
        raise RuntimeError("could not read 'Maximum resident set size' from /usr/bin/time -v")
    rss = kb * 1024
    return dict(peak_rss_bytes=rss, peak_rss_mb=rss / 1e6, file_bytes=size,
                rss_over_file=rss / size, wall_s=wall, method=method)


# --------------------------------------------------------------------------


def fmt(x, spec=".1f", none="-"):
    return none if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description="hloscope vs XLA vs wc -l parse benchmark on one file.")
    ap.add_argument("--hloscope", help="hloscope CLI binary (for peak RSS of `BIN stats FILE`)")
    ap.add_argument("--bench", help="hloscope Google Benchmark binary (BM_ParseFile / BM_CheckFile)")
    ap.add_argument("--file", default=DEFAULT_FILE, help=f"HLO text file (default {DEFAULT_FILE})")
    ap.add_argument("--repeat", type=int, default=5,
                    help="repetitions for every measurement (default 5)")
    ap.add_argument("--xla-repeat", type=int, default=None, help="override --repeat for XLA")
    ap.add_argument("--bench-filter", default="^BM_(ParseFile|CheckFile|CheckCommand)",
                    help="--benchmark_filter regex (default '^BM_(ParseFile|CheckFile)')")
    ap.add_argument("--bench-json", help="use this Google Benchmark JSON instead of running --bench")
    ap.add_argument("--bench-arg", action="append", default=[],
                    help="extra argument for the benchmark binary (repeatable)")
    ap.add_argument("--no-xla", action="store_true", help="skip XLA's parser")
    ap.add_argument("--python", default=sys.executable, help="python with jax/jaxlib for the XLA baseline")
    ap.add_argument("--json-out", help="also write results as JSON here")
    args = ap.parse_args()

    if not os.path.exists(args.file):
        sys.exit(f"{args.file} does not exist; generate it with tools/gen_large_module.py")
    file = os.path.abspath(args.file)
    size = os.path.getsize(file)
    res = dict(file=file, file_bytes=size, file_mb=size / 1e6, repeat=args.repeat)
    sidecar = file + ".json"
    if os.path.exists(sidecar):
        try:
            with open(sidecar) as f:
                meta = json.load(f)
            res["module"] = {k: meta.get(k) for k in ("layers", "jax_version", "sha256", "lines")}
        except (OSError, ValueError):
            pass

    # (a) hloscope (Google Benchmark)
    gb = None
    if args.bench_json:
        with open(args.bench_json) as f:
            gb = json.load(f)
    elif args.bench:
        gb = run_google_benchmark(args.bench, file, args.repeat, args.bench_filter, args.bench_arg)
    if gb is not None:
        benchmarks = gb.get("benchmarks", [])
        res["hloscope_parse"] = summarize_family(benchmarks, "BM_ParseFile", size)
        res["hloscope_check"] = summarize_family(benchmarks, "BM_CheckFile", size)
        res["hloscope_check_command"] = summarize_family(benchmarks, "BM_CheckCommand", size)
        ctx = gb.get("context", {})
        res["bench_context"] = {k: ctx.get(k) for k in
                                ("date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
                                 "cpu_scaling_enabled", "library_build_type", "library_version")
                                if k in ctx}
        if res["hloscope_parse"] is None:
            log("warning: no BM_ParseFile results in the benchmark output")

    # (b) XLA
    if not args.no_xla:
        try:
            res["xla_parse"] = run_xla(file, args.xla_repeat or args.repeat, args.python)
        except Exception as e:  # keep the rest of the report
            log(f"XLA baseline failed: {e}")
            res["xla_parse"] = dict(error=str(e)[-2000:])

    # (c) wc -l
    res["wc_l"] = run_wc(file, args.repeat)

    # (d) peak RSS
    if args.hloscope:
        try:
            res["hloscope_stats_rss"] = run_rss(args.hloscope, file)
        except Exception as e:
            log(f"RSS measurement failed: {e}")
            res["hloscope_stats_rss"] = dict(error=str(e)[-2000:])

    # Ratios
    def mbps(key):
        v = res.get(key)
        return v.get("mb_per_s") if isinstance(v, dict) else None

    hp, xp, wp = mbps("hloscope_parse"), mbps("xla_parse"), mbps("wc_l")
    ratios = {}
    if hp and xp:
        ratios["hloscope_over_xla"] = hp / xp
    if hp and wp:
        ratios["hloscope_over_wc"] = hp / wp
    hc, hpp = res.get("hloscope_check"), res.get("hloscope_parse")
    if hc and hpp and "real_time_s" in hc and "real_time_s" in hpp:
        # bench/parse_bench.cc's BM_CheckFile times parse + CheckModule, so the
        # check-only share is (CheckFile - ParseFile) / ParseFile.
        ratios["check_over_parse_time"] = hc["real_time_s"] / hpp["real_time_s"]
        ratios["check_only_over_parse_time"] = (hc["real_time_s"] - hpp["real_time_s"]) / hpp["real_time_s"]
    hcc = res.get("hloscope_check_command")
    if hcc and hpp and "real_time_s" in hcc and "real_time_s" in hpp:
        # The whole `check` command (Session + text report) against parsing alone.
        ratios["check_command_over_parse_time"] = hcc["real_time_s"] / hpp["real_time_s"]
    rss = res.get("hloscope_stats_rss")
    if rss and "rss_over_file" in rss:
        ratios["peak_rss_over_file_size"] = rss["rss_over_file"]
    res["ratios"] = ratios

    # Table
    print(f"file: {file}  ({size / 1e6:.1f} MB"
          + (f", {res['module']['layers']} layers" if res.get("module", {}).get("layers") else "") + ")")
    rows = []

    def add(label, d, t_key):
        if isinstance(d, dict) and "error" not in d:
            rows.append((label, fmt(d.get("mb_per_s")), fmt(d.get(t_key), ".4f")))
        elif isinstance(d, dict):
            rows.append((label, "error", "-"))

    add("hloscope parse (BM_ParseFile)", res.get("hloscope_parse"), "real_time_s")
    add("hloscope parse+check (BM_CheckFile)", res.get("hloscope_check"), "real_time_s")
    add("hloscope check command (BM_CheckCommand)", res.get("hloscope_check_command"), "real_time_s")
    add("XLA parser (jaxlib)", res.get("xla_parse"), "median_s")
    add("wc -l", res.get("wc_l"), "median_s")
    w0 = max(len(r[0]) for r in rows)
    print(f"{'measurement':<{w0}}  {'MB/s':>10}  {'median s':>10}")
    for r in rows:
        print(f"{r[0]:<{w0}}  {r[1]:>10}  {r[2]:>10}")
    if rss:
        if "error" in rss:
            print("peak RSS (stats): error")
        else:
            print(f"peak RSS of `hloscope stats`: {rss['peak_rss_mb']:.1f} MB")
    labels = dict(hloscope_over_xla="hloscope / XLA (throughput)",
                  hloscope_over_wc="hloscope / wc -l (throughput)",
                  check_over_parse_time="CheckFile time / ParseFile time",
                  check_only_over_parse_time="(CheckFile-ParseFile) / ParseFile",
                  check_command_over_parse_time="CheckCommand time / ParseFile time",
                  peak_rss_over_file_size="peak RSS / file size")
    for k, v in ratios.items():
        print(f"{labels[k]:<34} {v:.3f}")

    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(res, f, indent=2)
            f.write("\n")
        log(f"wrote {args.json_out}")


if __name__ == "__main__":
    main()
