//! What plain Rust loops reach on the sweep's layouts, in the sweep's `x copy` units: the floor
//! under `bench_sweep`'s rows where the layout itself moves more memory than the bytes the sweep
//! counts (a step-2 view reads every cache line of its parent, twice the elements it uses) or
//! moves it in a harder order. No weft, no dependencies; 16M elements, fastest of 9 reps:
//!
//! ```text
//! rustc -C opt-level=3 -C target-cpu=native bench/layout_limits.rs -o /tmp/layout_limits
//! /tmp/layout_limits
//! ```
//!
//! `x copy` = time / (copy time per byte x the bytes the sweep counts for that row), the copy a
//! `copy_from_slice` of 16M f32 timed in the same run, as in `examples/bench_sweep.rs`.
use std::hint::black_box;
use std::time::Instant;

fn fastest<F: FnMut()>(mut f: F) -> f64 {
    f();
    (0..9)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

#[inline(never)]
fn gather_reversed(src: &[f64], dst: &mut [f64]) {
    let n = dst.len();
    for j in 0..n {
        dst[j] = src[n - 1 - j];
    }
}

#[inline(never)]
fn add(a: &[f64], b: &[f64], o: &mut [f64]) {
    for j in 0..o.len() {
        o[j] = a[j] + b[j];
    }
}

fn main() {
    let n = 16usize << 20;
    let copy_src: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut copy_dst = vec![0f32; n];
    let copy = fastest(|| {
        copy_dst.copy_from_slice(&copy_src);
        black_box(&mut copy_dst);
    });
    let per_byte = copy / (8 * n) as f64;
    let report = |name: &str, secs: f64, bytes_per_element: usize| {
        println!(
            "{name:52} {:7.2} ms  x copy {:.2}",
            secs * 1e3,
            secs / (per_byte * (bytes_per_element * n) as f64)
        )
    };
    report("copy 16M f32", copy, 8);

    let a2: Vec<f32> = (0..2 * n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let (mut of, mut ob) = (vec![0f32; n], vec![0u8; n]);
    report(
        "f32 step-2 gather: o[i] = a[2i]",
        fastest(|| (0..n).for_each(|i| of[i] = a2[2 * i])),
        8,
    );
    report(
        "f32 step-2 neg: o[i] = -a[2i]",
        fastest(|| (0..n).for_each(|i| of[i] = -a2[2 * i])),
        8,
    );
    report(
        "f32 step-2 isfinite -> u8",
        fastest(|| (0..n).for_each(|i| ob[i] = a2[2 * i].is_finite() as u8)),
        5,
    );
    black_box((&of, &ob));

    let a: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    let b: Vec<f64> = (0..n).map(|i| (i % 5) as f64).collect();
    let mut od = vec![0f64; n];
    report("f64 add contig", fastest(|| add(&a, &b, &mut od)), 24);
    report(
        "f64 add, a reversed, one fused loop",
        fastest(|| (0..n).for_each(|i| od[i] = a[n - 1 - i] + b[i])),
        24,
    );
    for block in [128, 256, 1024] {
        let secs = fastest(|| {
            let mut t = vec![0f64; block];
            let blocks = od
                .chunks_exact_mut(block)
                .zip(a.rchunks_exact(block))
                .zip(b.chunks_exact(block));
            for ((o, x), y) in blocks {
                gather_reversed(x, &mut t);
                add(&t, y, o);
            }
        });
        report(
            &format!("f64 add, a reversed, gathered per {block} elements"),
            secs,
            24,
        );
    }
    report(
        "f64 == scalar -> u8",
        fastest(|| {
            ob.iter_mut()
                .zip(&a)
                .for_each(|(o, x)| *o = (*x == 1.5) as u8)
        }),
        9,
    );
    report(
        "f64 count == scalar (reads only)",
        fastest(|| _ = black_box(a.iter().filter(|&&x| x == 1.5).count())),
        8,
    );
    black_box((&od, &ob));
}
