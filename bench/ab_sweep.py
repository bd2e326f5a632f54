#!/usr/bin/env python3
"""A/B of two `bench_sweep` binaries over many processes.

16M strided rows (step-2, reversed) move by +-30% from one process to the next on the machine of
round 44: where the allocator and the stack put the buffers decides it, so one run per binary,
or a few alternated, can say "faster" and then "slower" of the same change. This runs each
binary `--runs` times, alternating the order (A B, B A, ...) so that drift of the machine falls on
both, every run a fresh process, and compares per row the median over runs of each run's fastest
rep. A row is called faster or slower only where every run of one side lies beyond the other
side's median.

    python3 bench/ab_sweep.py OLD_BIN NEW_BIN --runs 10 -- --dtype f64 --layout step2 --only =neg,=add
"""
import argparse
import json
import math
import statistics
import subprocess
import sys


def run(binary, args):
    out = subprocess.run([binary, "--json", *args], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            rows[(r["op"], r["dtype"], r["layout"])] = r["min_ns"]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="after --: bench_sweep's options")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=10)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    sweep_args = argv[cut + 1:]
    times = {"old": [], "new": []}
    for i in range(args.runs):
        order = ("old", "new") if i % 2 == 0 else ("new", "old")
        for side in order:
            times[side].append(run(getattr(args, side), sweep_args))
    keys = sorted(set.intersection(*(set(r) for r in times["old"] + times["new"])))
    ratios = []
    print(f"{args.runs} runs each; per row: median of each run's fastest rep, old -> new (ms), new/old, verdict")
    for k in keys:
        old = [r[k] for r in times["old"]]
        new = [r[k] for r in times["new"]]
        mo, mn = statistics.median(old), statistics.median(new)
        ratio = mn / mo
        ratios.append(ratio)
        faster = max(new) < mo or min(old) > mn
        slower = min(new) > mo or max(old) < mn
        verdict = "faster" if faster and not slower else "slower" if slower and not faster else ""
        print(f"  {k[0]:20} {k[1]:10} {k[2]:10} {mo / 1e6:8.2f} -> {mn / 1e6:8.2f}  {ratio:5.2f}  {verdict}")
    print(f"{len(keys)} rows; geomean new/old {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")


if __name__ == "__main__":
    main()
