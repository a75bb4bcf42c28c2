#!/usr/bin/env python3
"""Time XLA's own HLO text parser (via jaxlib, in-process) on one file.

Only the parse call is timed: the file is read and decoded before timing.
The entry point is jaxlib's nanobind binding of xla::ParseAndReturnUnverifiedModule:

  jaxlib 0.10.x : jax._src.lib.hlo.hlo_module_from_text  (module jaxlib._hlo)
  older jaxlib  : xla_client._xla.hlo_module_from_text / xla_extension.hlo_module_from_text

It takes a Python str, so each call includes one str -> std::string copy
(memcpy-speed, negligible next to parsing). The returned module object is
destroyed outside the timed region.

Prints one JSON object:
  {"median_s", "min_s", "runs", "times_s", "bytes", "mb_per_s", "entry_point",
   "jax_version", "jaxlib_version", "module_name", "file"}
MB = 10^6 bytes; mb_per_s is computed from the median.
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time


def find_entry_point():
    """Returns (callable, dotted name) of XLA's HLO text parser in jaxlib."""
    candidates = [
        ("jax._src.lib", "hlo", "hlo_module_from_text"),
        ("jaxlib._hlo", None, "hlo_module_from_text"),
        ("jax._src.lib", "xla_client", "hlo_module_from_text"),
        ("jax._src.lib", "_xla", "hlo_module_from_text"),
        ("jax._src.lib", "_jax", "hlo_module_from_text"),
        ("jaxlib.xla_client", "_xla", "hlo_module_from_text"),
        ("jaxlib.xla_extension", None, "hlo_module_from_text"),
    ]
    import importlib
    errors = []
    for mod_name, attr, fn in candidates:
        try:
            obj = importlib.import_module(mod_name)
            name = mod_name
            if attr is not None:
                obj = getattr(obj, attr)
                name += "." + attr
            f = getattr(obj, fn)
            return f, f"{name}.{fn}"
        except (ImportError, AttributeError) as e:
            errors.append(f"{mod_name}.{attr}.{fn}: {e}")
    raise SystemExit("could not find XLA's hlo_module_from_text in jaxlib:\n  " + "\n  ".join(errors))


def main():
    ap = argparse.ArgumentParser(description="Time XLA's HLO text parser (jaxlib) on FILE.")
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=5, help="timed parses (default 5)")
    ap.add_argument("--warmup", type=int, default=0,
                    help="untimed parses before timing (default 0: page cache is warm anyway, "
                         "and a 100 MB parse is slow)")
    args = ap.parse_args()

    import jax
    import jaxlib
    parse, entry_point = find_entry_point()

    with open(args.file, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")
    nbytes = len(data)
    del data

    module_name = None
    for _ in range(args.warmup):
        m = parse(text)
        del m
    times = []
    for i in range(args.repeat):
        gc.collect()
        gc.disable()
        t0 = time.perf_counter()
        m = parse(text)
        t1 = time.perf_counter()
        gc.enable()
        times.append(t1 - t0)
        if module_name is None:
            try:
                module_name = m.name
            except Exception:
                pass
        del m  # module destruction is not timed
        print(f"[xla_parse_baseline] run {i + 1}/{args.repeat}: {t1 - t0:.3f}s",
              file=sys.stderr, flush=True)

    med = statistics.median(times)
    out = dict(
        median_s=med,
        min_s=min(times),
        runs=len(times),
        times_s=times,
        bytes=nbytes,
        mb_per_s=nbytes / 1e6 / med,
        entry_point=entry_point,
        jax_version=jax.__version__,
        jaxlib_version=jaxlib.__version__,
        module_name=module_name,
        file=os.path.abspath(args.file),
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
