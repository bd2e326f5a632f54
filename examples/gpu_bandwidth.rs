//! Bandwidth report for the elementwise kernels (feature `cuda`; run by
//! gpu/run-device-checks.sh): device copy bandwidth, then add, bcast_add, transposed_add,
//! add_scalar, mixed_i64_f32, exp and where on 2^28 elements (f32), each as a fraction of the
//! copy bandwidth. Bytes counted: every input and output element once (a broadcast operand as
//! its own size). Prints a Markdown table; exit 2 when no GPU is present.
use std::time::Instant;
use weft::device::cuda::{CudaContext, CudaTensor};
use weft::functors::{Add as PAdd, Exp as PExp, Where as PWhere};
use weft::{DType, Result};

const REPS: usize = 5;

fn time(c: &CudaContext, mut f: impl FnMut() -> Result<CudaTensor>) -> Result<f64> {
    drop(f()?); // warm-up: JIT, allocation
    c.synchronize()?;
    let mut best = f64::INFINITY;
    for _ in 0..REPS {
        let t = Instant::now();
        let out = f()?;
        c.synchronize()?;
        best = best.min(t.elapsed().as_secs_f64());
        drop(out);
    }
    Ok(best)
}

fn main() {
    let log2: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(28);
    let c = match CudaContext::new(0) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gpu_bandwidth: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&c, log2) {
        eprintln!("gpu_bandwidth: {e}");
        std::process::exit(1);
    }
}

fn run(c: &CudaContext, log2: u32) -> Result<()> {
    let n = 1usize << log2;
    let side = 1usize << (log2 / 2);
    let (rows, cols) = (n / side, side);
    let f = |d: DType| d.size() as f64;
    let a = c.zeros(DType::F32, &[rows, cols])?;
    let b = c.zeros(DType::F32, &[rows, cols])?;
    let bt = c.zeros(DType::F32, &[cols, rows])?.permute(&[1, 0])?;
    let row = c.zeros(DType::F32, &[cols])?;
    let ai = c.zeros(DType::I64, &[rows, cols])?;
    let cond = c.zeros(DType::Bool, &[rows, cols])?;

    // Copy bandwidth: device-to-device memcpy of n f32 (read + write).
    let stream = c.stream().clone();
    let src = stream.alloc_zeros::<u8>(n * 4).map_err(dev)?;
    let mut dst = stream.alloc_zeros::<u8>(n * 4).map_err(dev)?;
    stream.memcpy_dtod(&src, &mut dst).map_err(dev)?;
    c.synchronize()?;
    let mut copy = f64::INFINITY;
    for _ in 0..REPS {
        let t = Instant::now();
        stream.memcpy_dtod(&src, &mut dst).map_err(dev)?;
        c.synchronize()?;
        copy = copy.min(t.elapsed().as_secs_f64());
    }
    let copy_bw = 2.0 * n as f64 * 4.0 / copy;

    let nf = n as f64;
    let cases: Vec<(&str, f64, f64)> = vec![
        (
            "add",
            3.0 * nf * 4.0,
            time(c, || c.binary::<_, f32, f32>("add", PAdd, &a, &b))?,
        ),
        (
            "bcast_add",
            2.0 * nf * 4.0 + cols as f64 * 4.0,
            time(c, || c.binary::<_, f32, f32>("add", PAdd, &a, &row))?,
        ),
        (
            "transposed_add",
            3.0 * nf * 4.0,
            time(c, || c.binary::<_, f32, f32>("add", PAdd, &a, &bt))?,
        ),
        (
            "add_scalar",
            2.0 * nf * 4.0,
            time(c, || c.binary_scalar::<_, f32, f32>("add", PAdd, &a, 1.5))?,
        ),
        (
            "mixed_i64_f32",
            nf * (f(DType::I64) + 8.0),
            time(c, || c.binary::<_, f32, f32>("add", PAdd, &ai, &b))?,
        ),
        (
            "exp",
            2.0 * nf * 4.0,
            time(c, || c.unary::<_, f32>("exp", PExp, &a))?,
        ),
        (
            "where",
            nf * (1.0 + 12.0),
            time(c, || {
                c.ternary::<_, bool, f32, f32>("where", PWhere, &cond, &a, &b)
            })?,
        ),
    ];
    println!(
        "2^{log2} elements; copy (memcpy dtod): {:.1} GB/s ({:.3} ms)\n",
        copy_bw / 1e9,
        copy * 1e3
    );
    println!("| op | ms | GB/s | fraction of copy | time vs add (per byte) |");
    println!("|---|---|---|---|---|");
    let add_bw = cases[0].1 / cases[0].2;
    for (name, bytes, secs) in &cases {
        let bw = bytes / secs;
        println!(
            "| {name} | {:.3} | {:.1} | {:.2} | {:.2}x |",
            secs * 1e3,
            bw / 1e9,
            bw / copy_bw,
            add_bw / bw
        );
    }
    Ok(())
}

fn dev(e: impl std::fmt::Display) -> weft::Error {
    weft::Error::Device {
        reason: e.to_string(),
    }
}
