"""PyTorch's times for examples/gpu_bandwidth.rs's cases, on the same GPU in the same call
(run by gpu/run-device-checks.sh when python3 has torch with CUDA; never a test dependency).

Same shapes, dtypes and byte counts as the Rust example; each case allocates its output as weft's
does (a fresh tensor per call); best of 5 after a warm-up, timed with synchronize on both ends.
Prints a Markdown table: ms, GB/s, fraction of copy.
"""
import sys
import time

import torch


def best(f, reps=5):
    f()
    torch.cuda.synchronize()
    t_best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        torch.cuda.synchronize()
        t_best = min(t_best, time.perf_counter() - t)
        del out
    return t_best


def main():
    log2 = int(sys.argv[1]) if len(sys.argv) > 1 else 28
    n = 1 << log2
    side = 1 << (log2 // 2)
    rows, cols = n // side, side
    dev = "cuda"
    a = torch.zeros(rows, cols, device=dev)
    b = torch.zeros(rows, cols, device=dev)
    bt = torch.zeros(cols, rows, device=dev).t()
    row = torch.zeros(cols, device=dev)
    ai = torch.zeros(rows, cols, device=dev, dtype=torch.int64)
    cond = torch.zeros(rows, cols, device=dev, dtype=torch.bool)
    src = torch.zeros(n * 4, device=dev, dtype=torch.uint8)
    dst = torch.empty_like(src)
    copy = best(lambda: dst.copy_(src))
    copy_bw = 2.0 * n * 4 / copy
    nf = float(n)
    cases = [
        ("add", 3 * nf * 4, lambda: a + b),
        ("bcast_add", 2 * nf * 4 + cols * 4, lambda: a + row),
        ("transposed_add", 3 * nf * 4, lambda: a + bt),
        ("add_scalar", 2 * nf * 4, lambda: a + 1.5),
        ("mixed_i64_f32", nf * 16, lambda: ai + b),
        ("exp", 2 * nf * 4, lambda: torch.exp(a)),
        ("where", nf * 13, lambda: torch.where(cond, a, b)),
    ]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print(f"2^{log2} elements; copy: {copy_bw / 1e9:.1f} GB/s ({copy * 1e3:.3f} ms)\n")
    print("| op | torch ms | GB/s | fraction of copy |")
    print("|---|---|---|---|")
    for name, nbytes, f in cases:
        s = best(f)
        print(f"| {name} | {s * 1e3:.3f} | {nbytes / s / 1e9:.1f} | {nbytes / s / copy_bw:.2f} |")


if __name__ == "__main__":
    main()
