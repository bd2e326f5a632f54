#!/usr/bin/env python3
"""PyTorch twin of `examples/fresh_vs_out.rs`: `torch.add(a, b)` (a fresh output) beside
`torch.add(a, b, out=o)` and `torch.sqrt(a)`, f32 and f64, 4K to 1M elements, the fastest of 3
rounds (ns per call).

    python3 bench/torch_fresh_vs_out.py [THREADS] [N...]
"""
import sys
import time

import torch


def best(reps, f):
    times = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps):
            f()
        times.append((time.perf_counter() - t) / reps * 1e9)
    return min(times)


def main():
    torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    sizes = [int(s) for s in sys.argv[2:]] or [4096, 16384, 65536, 262144, 1 << 20]
    print("| dtype | n | fresh add | add out= | fresh sqrt |\n|---|---|---|---|---|")
    for n in sizes:
        reps = max(2000, min(200000, 200_000_000 // n // 8))
        for dt in [torch.float32, torch.float64]:
            a = torch.arange(n, dtype=dt)
            b = a.clone()
            o = torch.empty_like(a)
            fresh = best(reps, lambda: torch.add(a, b))
            given = best(reps, lambda: torch.add(a, b, out=o))
            sqrt = best(reps, lambda: torch.sqrt(a))
            print(f"| {dt} | {n} | {fresh:.0f} | {given:.0f} | {sqrt:.0f} |")


if __name__ == "__main__":
    main()
