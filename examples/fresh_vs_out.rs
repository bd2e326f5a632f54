//! A fresh output against a given one: `a + b` and `a.sqrt()` (new tensors) beside `add_out`
//! into a preallocated tensor, and `zeros` of the same size, for f32 and f64 at sizes from 4K to
//! 1M elements, in the default rayon pool (`RAYON_NUM_THREADS=1` for one thread):
//!
//! ```sh
//! cargo run --release --example fresh_vs_out [-- N...]
//! python3 bench/torch_fresh_vs_out.py [THREADS]     # PyTorch's twin
//! ```
//!
//! Prints the fastest of 3 rounds per column (ns per call). A fresh output costs what the op
//! costs plus its allocation: outputs are not zeroed first (`Storage::try_uninit`).
use std::hint::black_box;
use std::time::Instant;
use weft::{DType, DynTensor, Tensor};

/// ns per call of `f`, the fastest of 3 rounds of `reps` calls.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..reps {
                f();
            }
            t0.elapsed().as_nanos() as f64 / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|s| s.parse().expect("a size"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![4096, 16384, 65536, 262144, 1 << 20]
    } else {
        sizes
    };
    println!("| dtype | n | fresh add | add_out | zeros | fresh sqrt |\n|---|---|---|---|---|---|");
    for n in sizes {
        let reps = (200_000_000 / n / 8).clamp(2000, 200_000);
        for dt in [DType::F32, DType::F64] {
            let values = (0..n).map(|i| i as f64).collect();
            let a = DynTensor::from(Tensor::<f64>::from_vec(values, &[n]).unwrap()).to(dt);
            let b = a.clone();
            let out = DynTensor::zeros(dt, &[n]).unwrap();
            let fresh = best(reps, || drop(black_box(black_box(&a).add(black_box(&b)))));
            let given = best(reps, || black_box(&a).add_out(black_box(&b), &out));
            let zeros = best(reps, || {
                drop(black_box(DynTensor::zeros(dt, &[n]).unwrap()))
            });
            let sqrt = best(reps, || drop(black_box(black_box(&a).sqrt())));
            println!("| {dt:?} | {n} | {fresh:.0} | {given:.0} | {zeros:.0} | {sqrt:.0} |");
        }
    }
}
