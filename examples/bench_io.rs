//! Loading a `.safetensors` file: weft's mapped `load` against the `safetensors` crate alone
//! (read the file, parse it) and weft's copying `from_bytes`, at two file sizes, so that
//! O(1) loading shows as a time that does not grow with the file.
//!
//! ```text
//! cargo run --release --example bench_io -- [--mb 256] [--reps 7]
//! ```
//!
//! The file is written once to the temp dir (and left in the page cache: the numbers are for a
//! warm cache, the case where a copy costs the most relative to a mapping). Each loader runs
//! once as a warm-up, then R times; the median is printed. "first pass" is the time of one
//! `sum` over the largest loaded tensor right after loading (it touches every page, so mapped
//! pages are faulted in there instead of in the load).

use std::hint::black_box;
use std::time::{Duration, Instant};
use weft::io::safetensors as st;
use weft::{DType, DynTensor};

fn median(f: &mut dyn FnMut(), reps: usize) -> Duration {
    f();
    let mut t: Vec<Duration> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[reps / 2]
}

fn file_of(mb: usize) -> Result<std::path::PathBuf, weft::Error> {
    let n = mb * (1 << 20) / 4;
    let path = std::env::temp_dir().join(format!("weft-bench-io-{mb}mb.safetensors"));
    // Four tensors: a big f32 weight and three small ones, as a model file has.
    let w = DynTensor::from_vec(
        (0..n - 3072).map(|i| (i % 977) as f32).collect(),
        &[n - 3072],
    )?;
    let b = DynTensor::full(DType::F32, &[1024], weft::Scalar::Float(0.5))?;
    let ids = DynTensor::full(DType::I64, &[512], weft::Scalar::Int(3))?;
    let m = DynTensor::full(DType::Bool, &[1024], weft::Scalar::Bool(true))?;
    st::save(
        &path,
        [("weight", &w), ("bias", &b), ("ids", &ids), ("mask", &m)],
        &Default::default(),
    )?;
    Ok(path)
}

fn main() -> Result<(), weft::Error> {
    let mut args = std::env::args().skip(1);
    let (mut mb, mut reps) = (256usize, 7usize);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mb" => mb = args.next().and_then(|v| v.parse().ok()).unwrap_or(mb),
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(reps),
            other => eprintln!("ignoring argument {other}"),
        }
    }
    println!(
        "{:>8} {:>14} {:>16} {:>16} {:>14} {:>18}",
        "file",
        "weft load",
        "crate read+parse",
        "weft from_bytes",
        "load/crate",
        "first pass (sum)"
    );
    for size in [1, mb] {
        let path = file_of(size)?;
        let weft_load = median(&mut || drop(black_box(st::load(&path).unwrap())), reps);
        let crate_alone = median(
            &mut || {
                let bytes = std::fs::read(&path).unwrap();
                let t = safetensors::SafeTensors::deserialize(&bytes).unwrap();
                black_box(t.tensor("weight").unwrap().data().len());
            },
            reps,
        );
        let copied = median(
            &mut || {
                let bytes = std::fs::read(&path).unwrap();
                drop(black_box(st::from_bytes(&bytes).unwrap()));
            },
            reps,
        );
        let loaded = st::load(&path)?;
        let s = Instant::now();
        black_box(loaded["weight"].sum(weft::reduce::Dims::All, false));
        let first_pass = s.elapsed();
        println!(
            "{:>6}MB {:>12.3}ms {:>14.3}ms {:>14.3}ms {:>14.4} {:>16.3}ms",
            size,
            weft_load.as_secs_f64() * 1e3,
            crate_alone.as_secs_f64() * 1e3,
            copied.as_secs_f64() * 1e3,
            weft_load.as_secs_f64() / crate_alone.as_secs_f64(),
            first_pass.as_secs_f64() * 1e3,
        );
        std::fs::remove_file(&path).ok();
    }
    Ok(())
}
