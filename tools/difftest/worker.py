"""Compile server: `python3 -m difftest.worker` (cwd tools/) reads one JSON request per line on stdin
and answers one JSON line on its original stdout.  It imports JAX once; when XLA aborts the process
(a CHECK failure in the compiler), the parent sees EOF, records the program as rejected and starts
a fresh worker.

    {"src": SOURCE, "out": DIR}  -> {"ok": true} | {"error": "Type: message"}   (runs SOURCE's dump(DIR))
    {"src": ..., "out": ..., "target": "tpu-v5e"}  the same, compiled for that target without the
                                 hardware (python/hloscope/_targets.py; needs the compile-only packages)
    {"src": ..., "out": ..., "sharded": true}  a program with a mesh (difftest --mesh): built on the
                                 target's devices (a TPU slice's chips; on CPU the 8 host devices
                                 this worker forces when HLOSCOPE_DIFFTEST_DEVICES is set)
    {"version": true}            -> {"jax": "...", "jaxlib": "..."}
"""
import json
import os
import sys


def main() -> int:
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything JAX prints goes to stderr, never into the protocol
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("XLA_FLAGS", None)
    if os.environ.get("HLOSCOPE_DIFFTEST_DEVICES"):
        os.environ["XLA_FLAGS"] = ("--xla_force_host_platform_device_count="
                                   + os.environ["HLOSCOPE_DIFFTEST_DEVICES"])
    import warnings
    warnings.filterwarnings("ignore")
    import jax
    import jaxlib
    targets = None
    n = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("version"):
            resp = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
            from importlib import metadata
            for key, dist in (("libtpu", "libtpu"), ("cuda_plugin", "jax-cuda12-plugin")):
                try:
                    resp[key] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    pass
        else:
            try:
                ns = {"__name__": "difftest_program", "__file__": "program.py"}
                exec(compile(req["src"], "program.py", "exec"), ns)
                target = req.get("target") or "cpu"
                if target == "cpu":
                    ns["dump"](req["out"])
                else:
                    if targets is None:
                        import hloscope_targets as targets  # tools/ is on PYTHONPATH
                    if req.get("sharded"):
                        ns["dump"](req["out"], devices=targets.devices_for(target))
                    else:
                        ns["dump"](req["out"], targets.device_for(target))
                resp = {"ok": True}
            except Exception as e:  # JAX rejected the program
                msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
                resp = {"error": f"{type(e).__name__}: {msg}"[:300]}
            n += 1
            if n % 100 == 0:
                jax.clear_caches()
        proto.write(json.dumps(resp) + "\n")
        proto.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
