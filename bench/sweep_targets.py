#!/usr/bin/env python3
"""Issue 13's targets checked on 16M `bench_sweep` rows, next to PyTorch's twin.

Reads `--json` runs of `examples/bench_sweep.rs` and `bench/torch_sweep.py` (each a comma-separated
list of files; a row measured in several files keeps its fastest rep and, apart, its lowest `x copy`),
classes every row by the op table's cost column (`src/portable/functors/table.rs`: the `Expensive`
float ops are the transcendentals; everything else, and gcd/lcm, is held to the memory-bound
target), and prints:

* per dtype x layout: rows, rows over their `x copy` target, geometric mean and worst `x copy`;
  the rows over target by cause (`cause`: the first of the measured causes that applies);
* against torch: the ratio of fastest reps (over all runs given), rows where weft is slower;
* 2 threads against 1 (`--weft2`): rows where 2 threads are slower than 1, and the speed-up of
  the compute-bound rows;
* `--csv PATH`: one line per row with every column, the committed table
  (`bench/results/sweep-16m.csv`).

Targets (issue 13, 1 thread, 16M): memory-bound <= 1.3x copy; f32/f16/bf16 (and integer inputs
computed in f32) exp, log, sin, cos, tanh, sigmoid, gelu, erf <= 2x; every other transcendental
<= 3x.

    python3 bench/sweep_targets.py --weft w1.json --torch t1.json [--weft2 w2.json --torch2 t2.json]
        [--list] [--csv bench/results/sweep-16m.csv]
"""
import argparse
import collections
import csv
import math

# The op table's line pattern and the JSON reader are torch_sweep.py's (it imports torch only
# where it times).
from torch_sweep import LINE, TABLE, load_jsonl

TIGHT = {"exp", "log", "sin", "cos", "tanh", "sigmoid", "gelu", "erf"}
INTEGER_ONLY = {"gcd", "lcm"}


def op_costs():
    """Each table op's cost column (`Cheap`, `Moderate`, `Expensive`)."""
    costs = {}
    for line in open(TABLE, encoding="utf-8"):
        m = LINE.match(line)
        if m:
            costs[m.group(2)] = m.group(5)
    return costs


def load(files):
    """Rows by (op, dtype, layout): over several runs, the fastest rep (`min_ns`) and, apart,
    the lowest `x copy` (each run's own copy: a row's best against the machine's state)."""
    rows = {}
    for name in filter(None, (files or "").split(",")):
        for r in load_jsonl(name):
            key = (r["op"], r["dtype"], r["layout"])
            if key not in rows:
                rows[key] = dict(r)
            else:
                rows[key]["min_ns"] = min(rows[key]["min_ns"], r["min_ns"])
                rows[key]["copy_ratio"] = min(rows[key]["copy_ratio"], r["copy_ratio"])
    return rows


def target(costs, op, dtype):
    """(x copy target, class) of a row; `dtype` is the first operand's (or a cast's source)."""
    if costs.get(op) == "Expensive" and op not in INTEGER_ONLY:
        if dtype.startswith("f64"):
            return 3.0, "transcendental"
        return (2.0 if op in TIGHT else 3.0), "transcendental"
    return 1.3, "memory-bound"


def first_dtype(row):
    """The row's first operand's dtype (a cast's source, a mixed pair's first)."""
    return row["dtype"].split("->")[0].split("+")[0]


def kind(row, cls):
    """The row's class in the tables: casts apart from the other memory-bound rows."""
    return "cast" if row["op"] == "to" else cls


HALVES, WIDE_INTS = ("f16", "bf16"), ("i32", "i64", "u8", "bool")
DIVISIONS = {"floor_divide", "remainder", "fmod"}


def cause(row, cls):
    """Why a row over its target misses, as measured in BENCHMARKS.md round 44 (first rule that
    applies)."""
    op, layout, dtype = row["op"], row["layout"], first_dtype(row)
    if cls == "transcendental":
        if dtype in HALVES:
            return "half transcendental: f32's compute per element over half the bytes"
        if dtype == "f64":
            return "f64 transcendental: compute-bound"
        if dtype in WIDE_INTS:
            return "integer input computed in f32: the sweep's integers are outside the narrow domains"
        return "f32 general form (tensor-exponent pow, logaddexp) or a strided layout's gather"
    if op in INTEGER_ONLY:
        return "Euclid's loop per element"
    if op in DIVISIONS:
        return "a division per element (halves: PyTorch's rounding at each step)"
    if op == "where_scalar":
        return "a fresh output per call: its page faults are timed"
    if layout == "step2":
        return "step-2 view: reads every line of its parent, twice the bytes counted"
    if layout == "transposed":
        return "transposed: the tile path's gather"
    if layout == "reversed":
        return "reversed: the block loop's gather"
    if row["out_dtype"] == "bool":
        return "bool result from 8-byte or half inputs"
    if dtype in WIDE_INTS and row["out_dtype"] in ("f32", "f64"):
        return "integer input converted to the float compute type per block"
    if row["copy_ratio"] <= 1.08 * 1.3:
        return "marginal: within 8% of the target"
    return "unexplained"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weft", required=True)
    ap.add_argument("--torch")
    ap.add_argument("--weft2")
    ap.add_argument("--torch2")
    ap.add_argument("--list", action="store_true", help="print every row over its target")
    ap.add_argument("--csv")
    args = ap.parse_args()
    costs = op_costs()
    w, t = load(args.weft), load(args.torch)
    w2, t2 = load(args.weft2), load(args.torch2)

    classes = collections.defaultdict(list)
    misses = []
    for key, r in w.items():
        goal, cls = target(costs, r["op"], r["dtype"])
        classes[(kind(r, cls), first_dtype(r), r["layout"])].append((r["copy_ratio"], goal, key))
        if r["copy_ratio"] > goal:
            misses.append((r["copy_ratio"] / goal, key, r["copy_ratio"], goal, cause(r, cls)))
    print(f"{len(w)} rows, {len(misses)} over their x copy target")
    print("| class | dtype | layout | rows | over target | geomean x copy | worst row (x copy) |")
    print("|---|---|---|---|---|---|---|")
    for (row_kind, dtype, layout), v in sorted(classes.items()):
        worst = max(v, key=lambda x: x[0] / x[1])
        over = sum(x[0] > x[1] for x in v)
        print(f"| {row_kind} | {dtype} | {layout} | {len(v)} | {over} | {geomean([x[0] for x in v]):.2f} "
              f"| {worst[2][0]} {worst[0]:.2f} |")
    if args.list:
        for q, key, ratio, goal, why in sorted(misses, key=lambda m: -m[0]):
            print(f"  {key[0]:20} {key[1]:10} {key[2]:10} x copy {ratio:6.2f} target {goal}: {why}")
    print("misses by cause:", dict(collections.Counter(m[4] for m in misses).most_common()))

    def versus(wr, tr, label):
        keys = [k for k in wr if k in tr and tr[k]["copy_ratio"] > 0]
        if not keys:
            return {}
        raw = {k: wr[k]["min_ns"] / tr[k]["min_ns"] for k in keys}
        slower = sorted((k for k in keys if raw[k] > 1), key=lambda k: -raw[k])
        bands = [sum(lo < raw[k] <= hi for k in slower) for lo, hi in ((1, 1.15), (1.15, 1.5), (1.5, 1e9))]
        print(f"\n{label}: {len(keys)} joined rows; weft/torch geomean {geomean(raw.values()):.3f} "
              f"(fastest reps); weft slower in {len(slower)}: by <= 1.15x {bands[0]}, 1.15-1.5x {bands[1]}, "
              f"> 1.5x {bands[2]}")
        print(f"  by dtype/layout: {dict(collections.Counter((k[1], k[2]) for k in slower).most_common())}")
        for k in slower[: None if args.list else 25]:
            print(f"  {k[0]:20} {k[1]:10} {k[2]:10} weft {wr[k]['min_ns'] / 1e6:.2f} ms "
                  f"torch {tr[k]['min_ns'] / 1e6:.2f} ms -> {raw[k]:.2f} "
                  f"(x copy {wr[k]['copy_ratio']:.2f} / {tr[k]['copy_ratio']:.2f})")
        return raw

    vs1 = versus(w, t, "against torch, 1 thread")
    vs2 = versus(w2, t2, "against torch, 2 threads")
    if w2:
        keys = [k for k in w if k in w2]
        speedup = {k: w[k]["min_ns"] / w2[k]["min_ns"] for k in keys}
        compute = [k for k in keys if target(costs, k[0], k[1])[1] == "transcendental"]
        slower = sorted((k for k in keys if speedup[k] < 1), key=lambda k: speedup[k])
        print(f"\n2 threads against 1: {len(keys)} rows; compute-bound rows' speed-up geomean "
              f"{geomean([speedup[k] for k in compute]):.2f} (>= 1.8: {sum(speedup[k] >= 1.8 for k in compute)} "
              f"of {len(compute)}); all rows' geomean {geomean(speedup.values()):.2f}; "
              f"2 threads slower than 1: {len(slower)}")
        for k in slower[: None if args.list else 15]:
            print(f"  {k[0]:20} {k[1]:10} {k[2]:10} 1T {w[k]['min_ns'] / 1e6:.2f} ms 2T {w2[k]['min_ns'] / 1e6:.2f} ms")
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            cols = ["op", "dtype", "layout", "class", "target_x_copy", "miss_cause",
                    "weft_1t_ms", "weft_1t_x_copy", "torch_1t_ms", "torch_1t_x_copy", "weft_over_torch_1t",
                    "weft_2t_ms", "weft_2t_x_copy", "torch_2t_ms", "torch_2t_x_copy", "weft_over_torch_2t"]
            wr = csv.writer(out)
            wr.writerow(cols)
            ms = lambda d, k: f"{d[k]['min_ns'] / 1e6:.3f}" if k in d else ""
            xc = lambda d, k: f"{d[k]['copy_ratio']:.2f}" if k in d else ""
            ratio = lambda d, k: f"{d[k]:.2f}" if k in d else ""
            for k in sorted(w):
                goal, cls = target(costs, k[0], k[1])
                over = w[k]["copy_ratio"] > goal
                wr.writerow([*k, kind(w[k], cls), goal, cause(w[k], cls) if over else "",
                             ms(w, k), xc(w, k), ms(t, k), xc(t, k), ratio(vs1, k),
                             ms(w2, k), xc(w2, k), ms(t2, k), xc(t2, k), ratio(vs2, k)])


if __name__ == "__main__":
    main()
