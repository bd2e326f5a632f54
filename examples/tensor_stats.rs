//! Per-tensor statistics of a `.safetensors` or `.npy` file, whatever the dtypes are:
//! dtype, shape, min, max, mean and std, computed with weft's reductions.
//!
//! ```sh
//! cargo run --release --example tensor_stats -- model.safetensors
//! cargo run --release --example tensor_stats -- array.npy
//! cargo run --release --example tensor_stats            # writes and reads a small demo file
//! ```

use std::collections::BTreeMap;
use weft::io::npy;
use weft::io::safetensors;
use weft::{DType, DynTensor, Tensor};

/// One line of statistics. Integer and bool tensors are read as f64 for mean and std (as
/// `torch.mean(x, dtype=torch.float64)`); min and max keep the dtype.
fn stats(name: &str, t: &DynTensor) -> Result<String, weft::Error> {
    let head = format!(
        "{name:<12} {:<9} {:<14}",
        t.dtype().to_string(),
        format!("{:?}", t.shape())
    );
    if t.numel() == 0 {
        return Ok(format!("{head} (empty)"));
    }
    let value = |r: DynTensor| match r.to_values()[0] {
        weft::Value::Bool(b) => b.to_string(),
        weft::Value::Int(i) => i.to_string(),
        weft::Value::UInt(u) => u.to_string(),
        weft::Value::F32(x) => format!("{x}"),
        weft::Value::F64(x) => format!("{x:.6}"),
    };
    let min = value(t.try_amin((), false)?);
    let max = value(t.try_amax((), false)?);
    let wide = if t.dtype().is_float() {
        t.share()
    } else {
        t.try_to(DType::F64)?
    };
    let mean = value(wide.try_mean((), false)?);
    let std = value(wide.try_std((), 1.0, false)?);
    Ok(format!(
        "{head} min {min:<11} max {max:<11} mean {mean:<12} std {std}"
    ))
}

/// A small file with tensors of several dtypes and layouts, written to the temp dir.
fn demo_file() -> Result<std::path::PathBuf, weft::Error> {
    let path = std::env::temp_dir().join(format!(
        "weft-tensor-stats-{}.safetensors",
        std::process::id()
    ));
    let w = DynTensor::from(Tensor::<f32>::randn(&[64, 32], 7)?);
    let b = DynTensor::from(Tensor::<f32>::linspace(-1.0, 1.0, 32)?).to(DType::BF16);
    let ids = DynTensor::from(Tensor::<i64>::arange(0, 100, 3)?);
    let mask = DynTensor::from(Tensor::<u8>::from_fn(&[4, 4], |i| (i % 3 == 0) as u8)?);
    let tensors = [
        ("weight", &w),
        ("bias", &b),
        ("token_ids", &ids),
        ("mask", &mask),
    ];
    safetensors::save(&path, tensors, &Default::default())?;
    Ok(path)
}

fn main() -> Result<(), weft::Error> {
    let arg = std::env::args().nth(1);
    let (path, demo) = match arg {
        Some(p) => (std::path::PathBuf::from(p), false),
        None => (demo_file()?, true),
    };
    let tensors: BTreeMap<String, DynTensor> = if path.extension().is_some_and(|e| e == "npy") {
        BTreeMap::from([("array".to_string(), npy::load(&path)?)])
    } else {
        safetensors::load(&path)?
    };
    println!("{}: {} tensors", path.display(), tensors.len());
    for (name, t) in &tensors {
        println!("{}", stats(name, t)?);
    }
    if demo {
        std::fs::remove_file(&path).ok();
    }
    Ok(())
}
