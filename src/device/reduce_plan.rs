//! The host side of device reductions: which kernels of [`gpu_reduce_list!`] a reduction
//! launches, in which [`ReduceMode`]s, over which geometry. Every decision is the CPU's, taken
//! from the same code: the argument checks, dims and dtype rules (`reduce::plan`,
//! `reduce::exec`), the geometry (`reduce::engine::geometry_of`, i.e. the TensorIterator's
//! reorder and coalesce), the cast layout (`iter::build::alloc_order`), the loop shape and the
//! chunking. The device then runs the CPU's own loops ([`super::reduce`]), so its results are
//! bit-identical to the CPU's.
//!
//! The launches go through a [`DeviceBackend`]: the CUDA context implements it
//! (`device::cuda`), and so does the host emulation in `tests/gpu_emulation.rs`, which runs
//! this very planner with the kernel bodies on the host.
//!
//! [`gpu_reduce_list!`]: crate::gpu_reduce_list

use super::backend::DeviceBackend;
use super::kernel_list::{SOFTMAX_ROW_TYPES, kernel_suffix};
use super::layout::MAX_DIMS;
use super::reduce::{ReduceDims, ReduceLaunch, ReduceMode, ReduceParams};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::reduce::engine::{Dims as GeoDims, geometry_of};
use crate::reduce::exec::{check_args, flattens, fused_row_len, softmax_dim};
use crate::reduce::fold::CHUNK;
use crate::reduce::plan::{self, Plan};
use crate::reduce::reducers::ExpSumKind;
use crate::reduce::{ReduceArgs, ReduceOp};
use std::format;
use std::string::String;
use std::vec::Vec;

/// Size and alignment of a reduction kernel's accumulator state (its scratch elements).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AccLayout {
    pub size: usize,
    pub align: usize,
}

macro_rules! acc_layout_arms {
    ($name:ident $family:ident ($R:ty) [$($tok:ident $T:ty),*]) => {$({
        #[allow(dead_code)]
        type T = $T;
        if $name == concat!("reduce_", stringify!($family), "_", stringify!($tok)) {
            type Acc = <$R as $crate::reduce::fold::Reducer>::Acc;
            return Some(AccLayout { size: size_of::<Acc>(), align: align_of::<Acc>() });
        }
    })*};
}

/// The accumulator layout of reduction kernel `name`, `None` if the list has no such kernel.
pub fn acc_layout(name: &str) -> Option<AccLayout> {
    crate::gpu_reduce_list!(acc_layout_arms!(name));
    None
}

/// Every reduction kernel name of the list (and the fused softmax rows).
pub fn reduce_kernel_names() -> Vec<String> {
    let mut v = Vec::new();
    macro_rules! names {
        ($v:ident $family:ident ($R:ty) [$($tok:ident $T:ty),*]) => {
            $($v.push(String::from(concat!("reduce_", stringify!($family), "_", stringify!($tok))));)*
        };
    }
    crate::gpu_reduce_list!(names!(v));
    for d in SOFTMAX_ROW_TYPES {
        v.push(format!("reduce_softmax_rows_{}", kernel_suffix(d)));
    }
    v
}

fn device_dims(what: &str, d: &GeoDims) -> Result<ReduceDims> {
    let n = d.shape.len();
    if n > MAX_DIMS {
        return Err(Error::Device {
            reason: format!(
                "{n} {what} dims after coalescing; a device reduction takes at most {MAX_DIMS}"
            ),
        });
    }
    let mut r = ReduceDims::EMPTY;
    r.ndim = n;
    r.shape[..n].copy_from_slice(&d.shape);
    r.input[..n].copy_from_slice(&d.input);
    r.output[..n].copy_from_slice(&d.output);
    Ok(r)
}

/// [`DeviceBackend::launch_reduce`] of a launch [`run`] built.
fn launch_reduce<B: DeviceBackend>(
    b: &B,
    name: &str,
    l: &ReduceLaunch,
    threads: u64,
    outs: &[&B::Tensor],
    x: &B::Tensor,
    scratch: Option<&B::Tensor>,
) -> Result<()> {
    // SAFETY: `run`, the only caller, builds `l` from `x`'s geometry (`geometry_of`) and the
    // outputs and scratch buffer it allocated for kernel `name` (fresh, contiguous, of the
    // output dtypes and `acc_layout(name)`'s state size), with one thread per item of the mode.
    unsafe { b.launch_reduce(name, l, threads, outs, x, scratch) }
}

/// Runs reduction kernel `reduce_{family}_{t}` (`t` the input's type) of `x` into fresh
/// outputs of `out_dtypes` in `p`'s keepdim shape, the launches the CPU engine's loop shapes
/// call for; returns the outputs in `p`'s result shape.
fn run<B: DeviceBackend>(
    b: &B,
    family: &str,
    x: &B::Tensor,
    p: &Plan,
    out_dtypes: &[DType],
    params: ReduceParams,
) -> Result<Vec<B::Tensor>> {
    let name = format!("reduce_{family}_{}", kernel_suffix(b.dtype(x)));
    let acc = acc_layout(&name).ok_or_else(|| Error::Device {
        reason: format!("no device reduction kernel {name}"),
    })?;
    let outs = out_dtypes
        .iter()
        .map(|&d| b.zeros(d, &p.keep_shape))
        .collect::<Result<Vec<_>>>()?;
    let n_out: usize = p.keep_shape.iter().product();
    if n_out > 0 {
        let refs: Vec<&B::Tensor> = outs.iter().collect();
        let mut l = ReduceLaunch {
            mode: ReduceMode::Empty as u32,
            reduced: ReduceDims::EMPTY,
            kept: ReduceDims::EMPTY,
            width: n_out,
            ostep: 0,
            nchunks: 1,
            params,
        };
        if p.count == 0 {
            launch_reduce(b, &name, &l, n_out as u64, &refs, x, None)?;
        } else {
            let g = geometry_of(b.shape(x), b.strides(x), &p.keep_shape);
            l.reduced = device_dims("reduced", &g.reduced)?;
            l.kept = device_dims("kept", &g.kept)?;
            let total_r = l.reduced.view().numel();
            let total_k = l.kept.view().numel();
            match g.vector {
                Some((width, ostep)) => {
                    l.mode = ReduceMode::Outer as u32;
                    (l.width, l.ostep) = (width, ostep);
                    launch_reduce(b, &name, &l, l.items() as u64, &refs, x, None)?;
                }
                None => {
                    let nchunks = total_r.div_ceil(CHUNK);
                    if nchunks <= 1 {
                        l.mode = ReduceMode::Whole as u32;
                        launch_reduce(b, &name, &l, total_k as u64, &refs, x, None)?;
                    } else {
                        l.nchunks = nchunks;
                        // Chunk partials into the scratch buffer (u64 words: every state is
                        // at most 8-aligned), then one combining launch.
                        if acc.align > 8 {
                            return Err(Error::Device {
                                reason: format!("{name}: state alignment {} > 8", acc.align),
                            });
                        }
                        let words = total_k
                            .checked_mul(nchunks)
                            .and_then(|n| n.checked_mul(acc.size))
                            .map(|bytes| bytes.div_ceil(8))
                            .ok_or(Error::AllocationFailed { bytes: u128::MAX })?;
                        let scratch = b.zeros(DType::U64, &[words])?;
                        l.mode = ReduceMode::Chunks as u32;
                        launch_reduce(b, &name, &l, l.items() as u64, &refs, x, Some(&scratch))?;
                        l.mode = ReduceMode::Combine as u32;
                        launch_reduce(b, &name, &l, total_k as u64, &refs, x, Some(&scratch))?;
                    }
                }
            }
        }
    }
    outs.iter().map(|o| b.reshape(o, &p.out_shape)).collect()
}

/// `x` converted to `dtype` in the layout the CPU's `to(dtype)` allocates (dense in the
/// iteration order of the input), so that the reduction walks it in the CPU's order.
fn cast<B: DeviceBackend>(b: &B, x: &B::Tensor, dtype: DType) -> Result<B::Tensor> {
    if b.dtype(x) == dtype {
        return Ok(b.share(x));
    }
    let order = crate::iter::build::alloc_order(b.shape(x), b.strides(x));
    // Slowest first: a row-major copy of `x` permuted so is dense in `order`.
    let slow_first: Vec<usize> = order.iter().rev().copied().collect();
    let mut back = vec![0usize; slow_first.len()];
    for (k, &d) in slow_first.iter().enumerate() {
        back[d] = k;
    }
    let c = b.to_contiguous(&b.permute(x, &slow_first)?, dtype)?;
    b.permute(&c, &back)
}

fn params(flag: bool) -> ReduceParams {
    ReduceParams {
        flag: flag as u32,
        ..ReduceParams::NONE
    }
}

/// The row maxima (`amax`, keepdim shape, the input's dtype), zeros for empty rows.
fn row_max<B: DeviceBackend>(b: &B, x: &B::Tensor, p: &Plan) -> Result<B::Tensor> {
    let keep = Plan {
        keep_shape: p.keep_shape.clone(),
        out_shape: p.keep_shape.clone(),
        count: p.count,
    };
    if p.count == 0 {
        return b.zeros(b.dtype(x), &p.keep_shape);
    }
    let mut m = run(b, "extreme", x, &keep, &[b.dtype(x)], params(true))?;
    Ok(m.swap_remove(0))
}

/// The params of an exp-sum family reading the row maxima `m` (kept alive by the caller).
fn exp_sum_params<B: DeviceBackend>(b: &B, m: &B::Tensor, kind: ExpSumKind) -> ReduceParams {
    ReduceParams {
        kind: kind as u32,
        maxima: b.address(m),
        nmaxima: b.shape(m).iter().product(),
        ..ReduceParams::NONE
    }
}

/// Reduction `op` of `a` on the device behind `b`: the CPU's [`crate::reduce::reduce`], with
/// bit-identical results.
pub fn reduce<B: DeviceBackend>(
    b: &B,
    op: ReduceOp,
    a: &B::Tensor,
    args: &ReduceArgs,
) -> Result<Vec<B::Tensor>> {
    use ReduceOp::*;
    if op.is_elementwise() {
        return softmax(b, op, a, args).map(|t| vec![t]);
    }
    check_args(op, args)?;
    let p = plan::plan(op, b.shape(a), &args.dims, args.keepdim)?;
    let (read, result) = plan::dtypes(op, b.dtype(a), args.dtype)?;
    let x = cast(b, a, read)?;
    if flattens(op, args, b.shape(&x).len()) {
        let n: usize = b.shape(&x).iter().product();
        let flat = b.reshape(&b.to_contiguous(&x, read)?, &[n])?;
        let fp = plan::plan(op, &[n], &crate::reduce::Dims::One(0), false)?;
        return run(b, "arg", &flat, &fp, &[result], params(op == Argmax))?
            .iter()
            .map(|t| b.reshape(t, &p.out_shape))
            .collect();
    }
    let x_dtype = b.dtype(&x);
    let n = p.count;
    match op {
        Sum | Prod | Mean => {
            let fold = ReduceParams {
                flag: (op == Prod) as u32,
                mean: (op == Mean) as u32,
                count: n,
                ..ReduceParams::NONE
            };
            if x_dtype.is_float() && result != x_dtype {
                let family = format!("fold_to_{}", kernel_suffix(result));
                run(b, &family, &x, &p, &[result], fold)
            } else {
                run(b, "fold", &x, &p, &[result], fold)
            }
        }
        Amax | Amin => run(b, "extreme", &x, &p, &[result], params(op == Amax)),
        Argmax | Argmin => run(b, "arg", &x, &p, &[result], params(op == Argmax)),
        MaxDim | MinDim => run(
            b,
            "arg_value",
            &x,
            &p,
            &[result, DType::I64],
            params(op == MaxDim),
        ),
        Any | All => run(b, "any_all", &x, &p, &[result], params(op == All)),
        Var | Std => {
            let v = ReduceParams {
                flag: (op == Std) as u32,
                correction: args.correction,
                ..ReduceParams::NONE
            };
            run(b, "var", &x, &p, &[result], v)
        }
        Logsumexp => {
            let m = row_max(b, &x, &p)?;
            let lse = exp_sum_params(b, &m, ExpSumKind::Logsumexp);
            let r = run(b, "lse", &x, &p, &[result], lse);
            drop(m);
            r
        }
        Softmax | LogSoftmax => unreachable!("elementwise ops return early"),
    }
}

/// `softmax`/`log_softmax` along one dim: the fused row kernel where the CPU takes it, else the
/// row maxima, the row factors (`exp_sum`) and one `softmax_apply` pass.
fn softmax<B: DeviceBackend>(
    b: &B,
    op: ReduceOp,
    a: &B::Tensor,
    args: &ReduceArgs,
) -> Result<B::Tensor> {
    let dim = softmax_dim(op, args)?;
    let p = plan::plan(op, b.shape(a), &crate::reduce::Dims::One(dim), true)?;
    if b.shape(a).iter().product::<usize>() == 0 {
        return b.zeros(args.dtype.unwrap_or(b.dtype(a)), b.shape(a));
    }
    let (read, _) = plan::dtypes(op, b.dtype(a), args.dtype)?;
    let x = cast(b, a, read)?;
    let log = op == ReduceOp::LogSoftmax;
    if let Some(n) = fused_row_len(b.shape(&x), b.is_contiguous(&x), &p, read) {
        let out = b.zeros(read, b.shape(&x))?;
        let rows = (b.shape(&x).iter().product::<usize>() / n) as u64;
        let name = format!("reduce_softmax_rows_{}", kernel_suffix(read));
        // SAFETY: `x` is contiguous (`fused_row_len`) and `out` fresh and contiguous, each
        // `rows * n` elements of `read`, the kernel's type.
        unsafe { b.launch_softmax_rows(&name, rows, n as u64, log, &out, &x)? };
        return Ok(out);
    }
    let exp_dtype = if read == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let m = row_max(b, &x, &p)?;
    let kind = if log {
        ExpSumKind::LogSoftmax
    } else {
        ExpSumKind::Softmax
    };
    let factors = run(
        b,
        "exp_sum",
        &x,
        &p,
        &[exp_dtype],
        exp_sum_params(b, &m, kind),
    )?;
    b.softmax_apply(&x, &m, &factors[0], log)
}
