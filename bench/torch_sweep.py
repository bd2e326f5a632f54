#!/usr/bin/env python3
"""PyTorch CPU twin of `examples/bench_sweep.rs`: the same elementwise sweep (ops read from weft's
op table, src/portable/functors/table.rs; the same dtypes, layouts, sizes, threads, timing and columns),
and a comparison of a weft run with torch.

    python3 bench/torch_sweep.py [--small] [--threads N] [--reps R] [--only SUBSTR,=EXACT,...]
        [--dtype f32|f64|f16|bf16|i8|...|u64|bool] [--layout NAME] [--json] [--fresh]
    cargo run --release --example bench_sweep -- --json [same options] > weft.json
    python3 bench/torch_sweep.py --compare weft.json               # times torch on weft's rows
    python3 bench/torch_sweep.py --compare weft.json --torch t.json # or reads a torch --json run

Not a test dependency: needs `pip install torch` (CPU wheels are enough).

Ops: every line of `binary_op_table!` / `unary_op_table!` in src/portable/functors/table.rs (PyTorch's
name is the table's name column); the function is `torch.<name>`, else
`torch.nn.functional.<name>`. The dtypes of an op are those the table accepts (the same rule as
weft's `OpInfo::compute_dtype`), so the rows are weft's rows; rows torch refuses are skipped and
counted. Differences from weft's sweep, by necessity:
  * `reversed`: torch has no negative strides; the row times `op(a.flip(0), b)`, the flip copy
    included (what a torch user writes).
  * the output is preallocated (`out=`) when the function takes `out=` (the warm-up result is
    reused); functional ops without `out=` (silu, softplus, mish, elu, ...) allocate each call
    (`"out": false` in the JSON).
  * `scalar`: ops that take tensors only (atan2, maximum, logical_and, ...) get the scalar as a
    0-dim tensor (`"scalar_0dim": true`); `heaviside` refuses both, as weft does.
  * `x ref` is weft's own scalar reference; torch rows have none.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "src", "portable", "functors", "table.rs")

# weft's dtype list in DType order (examples/bench_sweep.rs sweeps DType::ALL).
DTYPES = ["bool", "u8", "i8", "i16", "i32", "i64", "u16", "u32", "u64", "f16", "bf16", "f32",
          "f64"]
FLOATS = {"f32", "f64", "f16", "bf16"}
INTS = {"i32", "i64", "u8", "i8", "i16", "u16", "u32", "u64"}
SETS = {
    "all": FLOATS | INTS | {"bool"},
    "numeric": FLOATS | INTS,
    "float": FLOATS,
    "integral": INTS | {"bool"},
    "int": INTS,
}
# The second operand's dtype in the `mixed` layout (bench_sweep.rs `partner`).
PARTNER = {d: "i32" for d in DTYPES}
PARTNER.update({"f32": "i32", "f64": "f32", "f16": "f32", "bf16": "f32", "i32": "i64"})
TORCH_NAMES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
               "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
               "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool"}
BINARY_LAYOUTS = ["contig", "scalar", "row_bcast", "col_bcast", "transposed", "step2",
                  "reversed", "mixed"]
UNARY_LAYOUTS = ["contig", "transposed", "step2", "reversed"]

LINE = re.compile(r"^\s*(\w+) (\w+): (\w+) -> (\w+), (\w+) \[([\w ]*)\];\s*$")


def read_table():
    """[(kind, name, dtypes, result, flags)] in table order, binary first."""
    ops, kind = [], None
    for line in open(TABLE, encoding="utf-8"):
        if "macro_rules! binary_op_table" in line:
            kind = "binary"
        elif "macro_rules! unary_op_table" in line:
            kind = "unary"
        elif kind and line.strip().startswith("($($m:tt)+)"):
            kind = None
        m = LINE.match(line)
        if kind and m:
            _, name, dtypes, result, _, flags = m.groups()
            ops.append((kind, name, dtypes, result, set(flags.split())))
    if not ops:
        sys.exit(f"no op lines found in {TABLE}")
    return ops


def torch_dtype(s):
    import torch
    return getattr(torch, TORCH_NAMES[s])


def short(td):
    import torch
    return {getattr(torch, n): s for s, n in TORCH_NAMES.items()}[td]


def compute_dtype(op, common):
    """weft's OpInfo::compute_dtype for a promoted operand dtype (short name) or None."""
    _, _, dtypes, result, flags = op
    c = "f32" if result == "to_float" and common not in FLOATS else common
    if "NoBoolOperand" in flags and common == "bool":
        return None
    if "ViaPow" in flags and c == "bool":
        return "i64"
    return c if c in SETS[dtypes] else None


def supported(op, d):
    return compute_dtype(op, d) is not None


def torch_fn(name):
    import torch
    import torch.nn.functional as F
    f = getattr(torch, name, None)
    return f if callable(f) else getattr(F, name, None)


def values(d, n, is_b, gen):
    """Same distributions as bench_sweep.rs (not the same bits)."""
    import torch
    x = torch.rand(n, dtype=torch.float64, generator=gen)
    if d == "bool":
        v = x < 0.5
    elif d in FLOATS:
        v = (0.5 + 2.0 * x) if is_b else (0.05 + 0.9 * x)
    elif is_b:
        v = 1.0 + torch.floor(x * 7.0)
    elif d == "u8":
        v = torch.floor(x * 200.0)
    else:
        v = torch.floor(x * 201.0) - 100.0
    return v.to(torch_dtype(d))


class Inputs:
    def __init__(self, d, side, seed):
        import torch
        g = torch.Generator().manual_seed(seed)
        n = side * side
        self.a = values(d, n, False, g).reshape(side, side)
        self.a2 = values(d, 2 * n, False, g).reshape(side, 2 * side)
        self.b = values(d, n, True, g).reshape(side, side)
        self.brow = values(d, side, True, g)
        self.bcol = values(d, side, True, g).reshape(side, 1)


def batch_of(once):
    return 1 if once >= 2e-3 else max(1, min(10_000, int(2e-3 / max(once, 1e-9))))


def measure(reps, fn, once):
    """(median, min) ns per call."""
    nb = batch_of(once)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(nb):
            fn()
        ts.append((time.perf_counter() - t) / nb)
    return statistics.median(ts) * 1e9, min(ts) * 1e9


class Sweep:
    def __init__(self, args):
        import torch
        self.torch = torch
        self.args = args
        torch.set_num_threads(args.threads)
        self.side = 256 if args.small else 4096
        self.n = self.side * self.side
        self.inputs = {}
        self.rows = []
        self.skipped = []
        self.since_copy = 0
        self.src = torch.arange(self.n, dtype=torch.float32)
        self.dst = torch.empty_like(self.src)
        self.measure_copy()

    def measure_copy(self):
        f = lambda: self.dst.copy_(self.src)  # noqa: E731
        t = time.perf_counter()
        f()
        once = time.perf_counter() - t
        self.copy_ns_per_byte = measure(max(3, self.args.reps), f, once)[0] / (8.0 * self.n)
        self.since_copy = 0

    def get(self, d):
        if d not in self.inputs:
            self.inputs[d] = Inputs(d, self.side, DTYPES.index(d) * 16 + 1)
        return self.inputs[d]

    def row(self, op, d, layout):
        """Times one row; appends it or records why torch refused it."""
        torch = self.torch
        kind, name = op[0], op[1]
        fn = torch_fn(name)
        if fn is None:
            self.skipped.append(f"{name}: no torch function")
            return
        n = self.n
        bd = PARTNER[d] if layout == "mixed" else d
        ia, ib = self.get(d), self.get(bd)
        b = None
        if layout in ("contig", "mixed"):
            a, b = ia.a, ib.b
        elif layout == "scalar":
            a = ia.a
            b = True if d == "bool" else (1.5 if d in FLOATS else 3)
        elif layout == "row_bcast":
            a, b = ia.a, ib.brow
        elif layout == "col_bcast":
            a, b = ia.a, ib.bcol
        elif layout == "transposed":
            a, b = ia.a.t(), ib.b
        elif layout == "step2":
            a, b = ia.a2[:, ::2], ib.b
        elif layout == "reversed":
            a, b = ia.a.reshape(n), ib.b.reshape(n)
        if kind == "unary":
            b = None
        flip = layout == "reversed"
        args = (lambda: (a.flip(0),)) if flip else (lambda: (a,))
        if kind == "binary":
            args0 = args
            args = lambda: args0() + (b,)  # noqa: E731
        label = d if bd == d else f"{d}+{bd}"
        scalar_0dim = False
        try:
            try:
                t = time.perf_counter()
                out = fn(*args())
                once = time.perf_counter() - t
            except TypeError:
                if layout != "scalar":
                    raise
                # torch.atan2(a, 1.5) etc. take tensors only: the scalar as a 0-dim tensor
                # (same promotion as a Python scalar of the same category).
                b = torch.tensor(b)
                scalar_0dim = True
                t = time.perf_counter()
                out = fn(*args())
                once = time.perf_counter() - t
        except Exception as e:  # torch refuses the dtype/layout
            self.skipped.append(f"{name} {label} {layout}: {str(e).splitlines()[0][:100]}")
            return
        use_out = not self.args.fresh
        try:
            if self.args.fresh:
                raise TypeError("--fresh: allocate each call")
            fn(*args(), out=out)
            call = lambda: fn(*args(), out=out)  # noqa: E731
        except Exception:
            use_out = False
            call = lambda: fn(*args())  # noqa: E731
        ns, min_ns = measure(self.args.reps, call, once)
        b_elems = 0 if b is None or not torch.is_tensor(b) or scalar_0dim else b.numel()
        size = lambda s: torch.empty((), dtype=torch_dtype(s)).element_size()  # noqa: E731
        bytes_ = n * size(d) + b_elems * size(bd) + n * out.element_size()
        self.rows.append({
            "op": name, "dtype": label, "out_dtype": short(out.dtype), "layout": layout,
            "n": n, "threads": self.args.threads, "reps": self.args.reps,
            "median_ns": round(ns), "min_ns": round(min_ns), "bytes": bytes_,
            "gb_s": round(bytes_ / ns, 4),
            "copy_ratio": round(ns / (self.copy_ns_per_byte * bytes_), 4), "out": use_out,
            "scalar_0dim": scalar_0dim,
            "torch": torch.__version__,
        })
        if self.args.json and not self.args.quiet:
            print(json.dumps(self.rows[-1]), flush=True)
        elif not self.args.quiet:
            print_row(self.rows[-1])
        self.since_copy += 1
        if self.since_copy >= 8:
            self.measure_copy()

    def run(self, ops, row_filter=None):
        a = self.args
        for op in ops:
            if a.only and not any(op[1] == w[1:] if w.startswith("=") else w in op[1]
                                  for w in a.only.split(",")):
                continue
            layouts = BINARY_LAYOUTS if op[0] == "binary" else UNARY_LAYOUTS
            for d in DTYPES:
                if not supported(op, d) or (a.dtype and a.dtype != d):
                    continue
                for layout in layouts:
                    if a.layout and a.layout not in layout:
                        continue
                    if row_filter and (op[1], d, layout) not in row_filter:
                        continue
                    self.row(op, d, layout)


def print_row(r):
    print(f"| {r['op']} | {r['dtype']} | {r['layout']} | {r['median_ns'] / 1e6:.4f} | "
          f"{r['gb_s']:.1f} | {r['copy_ratio']:.2f} | {'out=' if r['out'] else 'alloc'} |")


def load_jsonl(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def compare(args, ops):
    weft = load_jsonl(args.compare)
    if not weft:
        sys.exit(f"no JSON rows in {args.compare}")
    if args.torch:
        torch_rows = load_jsonl(args.torch)
    else:
        args.small = weft[0]["n"] <= 1 << 16
        args.threads = weft[0]["threads"]
        args.reps = args.reps or weft[0]["reps"]
        args.quiet = True
        s = Sweep(args)
        want = {(r["op"], r["dtype"].split("+")[0], r["layout"]) for r in weft}
        s.run(ops, want)
        torch_rows = s.rows
        for k in s.skipped:
            print(f"  torch skipped: {k}", file=sys.stderr)
    key = lambda r: (r["op"], r["dtype"], r["layout"], r["n"])  # noqa: E731
    t = {key(r): r for r in torch_rows}
    stat = "min_ns" if args.stat == "min" else "median_ns"
    if any(stat not in r for r in weft + torch_rows):
        sys.exit(f"--stat {args.stat}: some rows have no {stat}")
    joined = []
    for w in weft:
        tr = t.get(key(w))
        if tr:
            joined.append((w[stat] / tr[stat], w, tr))
    joined.sort(key=lambda x: -x[0])
    if args.json:
        for ratio, w, tr in joined:
            print(json.dumps({"op": w["op"], "dtype": w["dtype"], "layout": w["layout"],
                              "n": w["n"], "weft_ns": w[stat],
                              "torch_ns": tr[stat], "weft_over_torch": round(ratio, 4),
                              "weft_copy_ratio": w["copy_ratio"],
                              "torch_copy_ratio": tr["copy_ratio"], "torch_out": tr["out"]}))
        return
    n = weft[0]["n"]
    print(f"n = {n}, threads = {weft[0]['threads']}, {args.stat} of reps; weft/torch > 1: "
          "weft slower")
    print("| op | dtype | layout | weft ms | torch ms | weft/torch | weft x copy | "
          "torch x copy | torch out |")
    print("|---|---|---|---|---|---|---|---|---|")
    shown = joined if not args.top else joined[:args.top]
    for ratio, w, tr in shown:
        print(f"| {w['op']} | {w['dtype']} | {w['layout']} | {w[stat] / 1e6:.4f} | "
              f"{tr[stat] / 1e6:.4f} | {ratio:.2f} | {w['copy_ratio']:.2f} | "
              f"{tr['copy_ratio']:.2f} | {'out=' if tr['out'] else 'alloc'} |")
    rs = [x[0] for x in joined]
    if rs:
        gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print(f"\n{len(joined)} rows joined ({len(weft)} weft, {len(torch_rows)} torch); "
              f"weft slower than torch: {sum(r > 1 for r in rs)} rows, > 1.5x: "
              f"{sum(r > 1.5 for r in rs)}, > 2x: {sum(r > 2 for r in rs)}; "
              f"weft faster > 2x: {sum(r < 0.5 for r in rs)}; geometric mean weft/torch "
              f"{gm:.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", action="store_true")
    p.add_argument("--fresh", action="store_true",
                   help="table ops allocate their output each call (weft's --fresh)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=None)
    p.add_argument("--only")
    p.add_argument("--dtype")
    p.add_argument("--layout")
    p.add_argument("--json", action="store_true")
    p.add_argument("--compare", metavar="WEFT_JSON")
    p.add_argument("--torch", metavar="TORCH_JSON",
                   help="with --compare: read torch rows instead of timing them")
    p.add_argument("--stat", choices=["median", "min"], default="median",
                   help="with --compare: compare medians (default) or fastest reps")
    p.add_argument("--top", type=int, default=0, help="with --compare: print the K worst rows")
    args = p.parse_args()
    args.quiet = False
    ops = read_table()
    if args.compare:
        compare(args, ops)
        return
    args.reps = args.reps or 3
    start = time.perf_counter()
    s = Sweep(args)
    if not args.json:
        print(f"n = {s.n}, threads = {args.threads}, reps = {args.reps}, copy = "
              f"{1 / s.copy_ns_per_byte:.1f} GB/s (re-measured every 8 rows), "
              f"torch {s.torch.__version__}")
        print("| op | dtype | layout | median ms | GB/s | x copy | output |")
        print("|---|---|---|---|---|---|---|")
    s.run(ops)
    print(f"{len(s.rows)} rows, {len(s.skipped)} skipped (refused by torch), "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    for k in s.skipped:
        print(f"  skipped: {k}", file=sys.stderr)


if __name__ == "__main__":
    main()
