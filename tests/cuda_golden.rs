#![cfg(feature = "cuda")]
//! The golden cases of ops.json and ops_more.json on the GPU (feature `cuda`): every case runs through the device
//! ops (`CudaTensor::try_*`), its operands uploaded with their torch layouts (storage, strides,
//! offset), and must match PyTorch like the CPU ops layer does. Without a driver: prints that it
//! is skipped (with `WEFT_REQUIRE_GPU=1`, as gpu/run-device-checks.sh sets, it fails instead).

#[path = "golden_harness/mod.rs"]
mod golden;

use golden::{Case, Evaluator, Operand, Output, TensorArg};
use weft::device::cuda::{CudaContext, CudaTensor};
use weft::device::ops::{self, CudaOperand};
use weft::functors::{BinaryOp, GeluApproximate, UnaryOp};
use weft::{Element, Error, with_dtype};

struct Gpu(CudaContext);

impl Gpu {
    fn tensor(&self, t: &TensorArg) -> Result<CudaTensor, Error> {
        let flat = with_dtype!(t.dtype, T => {
            let data: Vec<T> = t.storage.iter().map(|&v| T::from_value(v)).collect();
            self.0.from_slice(&data, &[data.len()])?
        });
        let strides: Vec<isize> = t.strides.iter().map(|&s| s as isize).collect();
        flat.as_strided(&t.shape, &strides, t.offset)
    }
}

fn output(d: &CudaTensor) -> Result<Output, Error> {
    let host = d.to_cpu()?;
    let values =
        weft::dispatch!(&host, t => t.to_vec().into_iter().map(|v| v.to_value()).collect());
    Ok(Output {
        dtype: host.dtype(),
        shape: host.shape().to_vec(),
        values,
    })
}

/// Ops the device layer does not run yet: their cases are counted and reported, not failed.
const NOT_ON_DEVICE: &[&str] = &[];

impl Evaluator for Gpu {
    fn eval(&self, case: &Case) -> Result<Output, String> {
        let ts: Vec<Option<CudaTensor>> = case
            .args
            .iter()
            .map(|a| match a {
                Operand::Tensor(t) => self.tensor(t).map(Some),
                Operand::Scalar(_) => Ok(None),
            })
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let op = |i: usize| match (&case.args[i], &ts[i]) {
            (Operand::Scalar(s), _) => CudaOperand::Scalar(*s),
            (_, Some(t)) => CudaOperand::Tensor(t),
            _ => unreachable!(),
        };
        let t = |i: usize| {
            ts[i]
                .as_ref()
                .ok_or("expected a tensor operand".to_string())
        };
        let r = match case.op.as_str() {
            "gelu" => t(0)?.try_gelu(if case.kwargs.gelu_tanh {
                GeluApproximate::Tanh
            } else {
                GeluApproximate::None
            }),
            "where" => ops::where_(t(0)?, op(1), op(2)),
            "clamp" => t(0)?.try_clamp(
                case.kwargs.clamp_min.map(CudaOperand::Scalar),
                case.kwargs.clamp_max.map(CudaOperand::Scalar),
            ),
            "masked_fill" => t(0)?.try_masked_fill(t(1)?, op(2)),
            "to" => t(0)?.try_to(case.kwargs.to.ok_or("to without dtype")?),
            name => {
                if let Some(u) = UnaryOp::from_name(name) {
                    ops::unary(u, t(0)?)
                } else if let Some(b) = BinaryOp::from_name(name) {
                    ops::binary(b, op(0), op(1))
                } else {
                    return Err(format!("unknown op {name}"));
                }
            }
        };
        r.and_then(|d| output(&d)).map_err(|e| e.to_string())
    }
}

/// The device context, or `None` (skip) without a driver unless `WEFT_REQUIRE_GPU=1`.
fn gpu_or_skip() -> Option<CudaContext> {
    match CudaContext::new(0) {
        Ok(c) => Some(c),
        Err(Error::Device { reason })
            if std::env::var("WEFT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipped (no GPU on this machine): {reason}");
            None
        }
        Err(e) => panic!("CUDA device 0 unusable: {e}"),
    }
}

/// ops_more.json (55 more ops, unary and binary by name) on the device, as on the CPU.
#[test]
fn golden_ops_more_on_the_gpu() {
    let Some(ctx) = gpu_or_skip() else { return };
    let g = golden::load(&golden::golden_dir(), "ops_more.json");
    golden::run(&g, &Gpu(ctx)).assert_ok();
}

#[test]
fn golden_ops_on_the_gpu() {
    let Some(ctx) = gpu_or_skip() else { return };
    let mut g = golden::load_ops();
    let before = g.cases.len();
    g.cases.retain(|c| !NOT_ON_DEVICE.contains(&c.op.as_str()));
    eprintln!(
        "{} cases of {NOT_ON_DEVICE:?} not run on the device",
        before - g.cases.len()
    );
    // Every case must pass, as on the CPU (rule 6 for torch_path_dependent cases).
    golden::run(&g, &Gpu(ctx)).assert_ok();
}
