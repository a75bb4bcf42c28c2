#!/usr/bin/env python3
"""Worst-case inputs for two bounds of docs/robustness.md (issue 50.2, 50.3).

  replica-groups N OUT [--form iota|mesh]
      one module of N all-reduces whose replica groups name 2^20 devices in a
      few bytes: `replica_groups=[1,1048576]<=[1048576]` (iota) or
      `replica_groups=mesh['x'=1024,'y'=1024] {'x','y'}` (mesh). Written out, each is
      8 MiB of device ids; hloscope keeps sizes only and writes ids out
      against one per-module budget.

  tuple-fanout N DIR
      an XLA dump (module + buffer assignment) in DIR where N temporaries are
      packed into one tuple and read back by N get-tuple-elements: the memory
      analysis follows each temporary into the tuple's N readers unless they
      are indexed by tuple index.

Measure with
  /usr/bin/time -f "%e s %M KB" build/dev/src/hloscope check OUT >/dev/null
  /usr/bin/time -f "%e s %M KB" build/dev/src/hloscope memory DIR/module_0001.*_after_optimizations.txt
"""
import argparse
import os

GROUPS = {
    "iota": "[1,1048576]<=[1048576]",
    "mesh": "mesh['x'=1024,'y'=1024] {'x','y'}",
}


def replica_groups(n, out, form):
    groups = GROUPS[form]
    lines = [
        "HloModule jit_hostile_groups, is_scheduled=true, num_partitions=1048576, "
        "entry_computation_layout={(f32[8]{0})->f32[8]{0}}",
        "",
        "%add (a: f32[], b: f32[]) -> f32[] {",
        "  %a = f32[] parameter(0)",
        "  %b = f32[] parameter(1)",
        "  ROOT %s = f32[] add(%a, %b)",
        "}",
        "",
        "ENTRY %main (p: f32[8]) -> f32[8] {",
        "  %p = f32[8]{0} parameter(0)",
    ]
    prev = "%p"
    for i in range(n):
        root = "ROOT " if i == n - 1 else ""
        lines.append(
            f"  {root}%ar.{i} = f32[8]{{0}} all-reduce({prev}), channel_id={i + 1}, "
            f"replica_groups={groups}, use_global_device_ids=true, to_apply=%add"
        )
        prev = f"%ar.{i}"
    lines.append("}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def tuple_fanout(n, folder):
    os.makedirs(folder, exist_ok=True)
    stem = os.path.join(folder, "module_0001.jit_fanout.cpu_after_optimizations")
    tuple_shape = "(" + ", ".join(["f32[]"] * n) + ")"
    hlo = [
        "HloModule jit_fanout, is_scheduled=true, entry_computation_layout={(f32[])->f32[]}",
        "",
        "ENTRY %main (p: f32[]) -> f32[] {",
        "  %p = f32[] parameter(0)",
    ]
    for i in range(n):
        hlo.append(f"  %t.{i} = f32[] negate(%p)")
    hlo.append(f"  %tup = {tuple_shape} tuple(" + ", ".join(f"%t.{i}" for i in range(n)) + ")")
    for i in range(n):
        hlo.append(f"  %g.{i} = f32[] get-tuple-element(%tup), index={i}")
    hlo.append("  ROOT %r = f32[] add(%g.0, %g.1)")
    hlo.append("}")
    with open(stem + ".txt", "w") as f:
        f.write("\n".join(hlo) + "\n")
    # Value ids as XLA numbers them: any unique numbers do.
    ba = [
        "BufferAssignment:",
        "allocation 0: size 4, parameter 0, shape |f32[]| at ShapeIndex {}:",
        " value: <0 p @0> (size=4,offset=0): f32[]",
        "allocation 1: size 4, output shape is |f32[]|, maybe-live-out:",
        " value: <1 r @0> (size=4,offset=0): f32[]",
        f"allocation 2: size {4 * n + 8 * n}, preallocated-temp:",
    ]
    for i in range(n):
        ba.append(f" value: <{i + 2} t.{i} @0> (size=4,offset={4 * i}): f32[]")
    ba.append(f" value: <{n + 2} tup{{}} @0> (size={8 * n},offset={4 * n}): {tuple_shape}")
    with open(stem + "-buffer-assignment.txt", "w") as f:
        f.write("\n".join(ba) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    g = sub.add_parser("replica-groups")
    g.add_argument("n", type=int)
    g.add_argument("out")
    g.add_argument("--form", choices=sorted(GROUPS), default="iota")
    t = sub.add_parser("tuple-fanout")
    t.add_argument("n", type=int)
    t.add_argument("dir")
    a = p.parse_args()
    if a.what == "replica-groups":
        replica_groups(a.n, a.out, a.form)
    else:
        tuple_fanout(a.n, a.dir)


if __name__ == "__main__":
    main()
