//! Each reduction in terms of the plan, the reducers and the engine.

use super::engine;
use super::fold::{Reducer, WithIndex};
use super::plan::{self, Plan};
use super::reducers::{AnyAll, Arg, ExpSum, ExpSumKind, Extreme, Fold, SoftmaxApply, Variance};
use super::types::{FloatAcc, FloatFoldAcc, ReduceElement, ReduceFloat};
use super::{Dims, ReduceArgs, ReduceOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::iter::IterConfig;
use crate::ops::special::to_dtype;
use crate::{DynElement, DynTensor, with_dtype};

/// Runs the reduction `op` of `a` (PyTorch's semantics: see the module docs and
/// [`ReduceArgs`]). One result tensor, or two for `max_dim`/`min_dim` (values, indices).
pub fn reduce(op: ReduceOp, a: &DynTensor, args: &ReduceArgs) -> Result<Vec<DynTensor>> {
    if op.is_elementwise() {
        return softmax(op, a, args).map(|t| vec![t]);
    }
    check_args(op, args)?;
    let p = plan::plan(op, a.shape(), &args.dims, args.keepdim)?;
    let (read, result) = plan::dtypes(op, a.dtype(), args.dtype)?;
    let x = to_dtype(a, read)?;
    if flattens(op, args, x.ndim()) {
        // The index is into the flattened (row-major) tensor.
        let flat = x.contiguous().try_reshape([-1isize])?;
        let fp = plan::plan(op, flat.shape(), &Dims::One(0), false)?;
        let r = reduce_planned(op, &flat, &fp, args, result)?;
        return r
            .into_iter()
            .map(|t| t.try_reshape(&p.out_shape[..]))
            .collect();
    }
    reduce_planned(op, &x, &p, args, result)
}

/// The checks of [`reduce`]'s arguments that do not depend on the input (shared with the
/// device reductions).
pub(crate) fn check_args(op: ReduceOp, args: &ReduceArgs) -> Result<()> {
    use ReduceOp::*;
    let single_dim = matches!(op, Argmax | Argmin | MaxDim | MinDim);
    if single_dim && matches!(args.dims, Dims::List(_)) {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: "takes one dim (or none), not a list".into(),
        });
    }
    if matches!(op, MaxDim | MinDim) && args.dims == Dims::All {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: "needs a dim (use amax/amin to reduce every dim)".into(),
        });
    }
    Ok(())
}

/// `argmax`/`argmin` over every dim of an n-d input index the flattened (row-major) tensor:
/// they reduce its contiguous 1-d view.
pub(crate) fn flattens(op: ReduceOp, args: &ReduceArgs, ndim: usize) -> bool {
    matches!(op, ReduceOp::Argmax | ReduceOp::Argmin) && args.dims == Dims::All && ndim > 1
}

/// The dim of `softmax`/`log_softmax` (exactly one).
pub(crate) fn softmax_dim(op: ReduceOp, args: &ReduceArgs) -> Result<isize> {
    match args.dims {
        Dims::One(d) => Ok(d),
        _ => Err(Error::InvalidArgument {
            op: op.name(),
            reason: "takes exactly one dim".into(),
        }),
    }
}

/// As [`reduce`], into the given outputs (same dtype and shape as the results); nothing is
/// written unless every check passes.
pub fn reduce_out(
    op: ReduceOp,
    a: &DynTensor,
    args: &ReduceArgs,
    outs: &mut [&mut DynTensor],
) -> Result<()> {
    let results = reduce(op, a, args)?;
    if outs.len() != results.len() {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: format!("expects {} outputs, got {}", results.len(), outs.len()),
        });
    }
    for (o, r) in outs.iter().zip(&results) {
        if o.dtype() != r.dtype() {
            return Err(Error::DTypeMismatch {
                op: op.name(),
                expected: r.dtype(),
                got: o.dtype(),
            });
        }
        if o.shape() != r.shape() {
            return Err(Error::OutputShape {
                op: op.name(),
                expected: r.shape().to_vec(),
                got: o.shape().to_vec(),
            });
        }
    }
    for (o, r) in outs.iter_mut().zip(&results) {
        o.try_copy_(r)?;
    }
    Ok(())
}

/// Calls `$body` with `$T` bound to the float element type of `$d`.
macro_rules! with_float {
    ($d:expr, $T:ident => $body:expr) => {
        match $d {
            DType::F16 => {
                type $T = half::f16;
                $body
            }
            DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            d => Err(Error::UnsupportedDType {
                op: "reduction",
                dtype: d,
                other: None,
            }),
        }
    };
}

fn reduce_planned(
    op: ReduceOp,
    x: &DynTensor,
    p: &Plan,
    args: &ReduceArgs,
    result: DType,
) -> Result<Vec<DynTensor>> {
    use ReduceOp::*;
    let n = p.count;
    if matches!(op, Sum | Prod | Mean) && x.dtype().is_float() && result != x.dtype() {
        // A float input into another float dtype (`sum(dtype=...)`).
        let (prod, mean) = (op == Prod, (op == Mean).then_some(n));
        return with_float!(x.dtype(), T => with_float!(result, O => {
            run(op, x, p, &[result], &Fold::<T, <T as FloatFoldAcc<O>>::Acc, O>::new(prod, mean))
        }));
    }
    with_dtype!(x.dtype(), T => match op {
        Sum | Prod | Mean => run(op, x, p, &[result],
            &Fold::<T, <T as ReduceElement>::SumAcc, <T as ReduceElement>::Sum>::new(
                op == Prod, (op == Mean).then_some(n))),
        Amax | Amin => run(op, x, p, &[result], &Extreme::<T>::new(op == Amax)),
        Argmax | Argmin => run(op, x, p, &[result], &Arg::<T, i64>::new(op == Argmax)),
        MaxDim | MinDim => run(op, x, p, &[result, DType::I64],
            &Arg::<T, WithIndex<T>>::new(op == MaxDim)),
        Any | All => run(op, x, p, &[result],
            &AnyAll::<T, <T as ReduceElement>::AnyAll>::new(op == All)),
        Var | Std => with_float!(x.dtype(), F => variance::<F>(op, x, p, args.correction)),
        Logsumexp => with_float!(x.dtype(), F => logsumexp::<F>(op, x, p)),
        Softmax | LogSoftmax => unreachable!("elementwise ops return early"),
    })
}

/// Allocates the outputs (keepdim shape, contiguous), runs `r` through the iterator and returns
/// the outputs in the result shape.
fn run<R: Reducer>(
    op: ReduceOp,
    x: &DynTensor,
    p: &Plan,
    out_dtypes: &[DType],
    r: &R,
) -> Result<Vec<DynTensor>> {
    let outs = out_dtypes
        .iter()
        .map(|&d| DynTensor::zeros(d, &p.keep_shape))
        .collect::<Result<Vec<_>>>()?;
    if outs[0].numel() > 0 {
        if p.count == 0 {
            engine::run_empty(&outs, r);
        } else {
            let mut cfg = IterConfig::new()
                .name(op.name())
                .check_mem_overlap(false)
                .check_all_same_dtype(false)
                .resize_outputs(false)
                .is_reduction(true);
            for o in &outs {
                cfg = cfg.add_output(o);
            }
            let it = cfg.add_const_input(x).build()?;
            engine::run(&it, r)?;
        }
    }
    outs.into_iter()
        .map(|o| o.try_view(&p.out_shape[..]))
        .collect()
}

/// The values of a fresh contiguous tensor.
fn values<T: DynElement>(t: &DynTensor) -> Result<Vec<T>> {
    T::unwrap_ref(t)
        .ok_or_else(|| Error::InvalidArgument {
            op: "reduction",
            reason: "internal: unexpected dtype".into(),
        })?
        .try_to_vec()
}

/// `var`/`std` (one pass over the data: see [`Variance`]).
fn variance<T: ReduceFloat>(
    op: ReduceOp,
    x: &DynTensor,
    p: &Plan,
    correction: f64,
) -> Result<Vec<DynTensor>> {
    let r = Variance::<T>::new(correction, op == ReduceOp::Std);
    run(op, x, p, &[T::DTYPE], &r)
}

/// Each output's maximum (the `amax` result, keepdim order); zeros when there are no elements.
fn row_max<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<Vec<T>> {
    let keep = Plan {
        keep_shape: p.keep_shape.clone(),
        out_shape: p.keep_shape.clone(),
        count: p.count,
    };
    if p.count == 0 {
        return Ok(vec![T::ZERO; p.keep_shape.iter().product()]);
    }
    let m = run(op, x, &keep, &[T::DTYPE], &Extreme::<T>::new(true))?;
    values::<T>(&m[0])
}

/// `log(sum(exp(x - m))) + m`, `m` the maximum, taken as 0 when infinite (so `[inf, 1]` gives
/// inf and `[-inf, -inf]` gives -inf rather than NaN).
fn logsumexp<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<Vec<DynTensor>> {
    let maxima = row_max::<T>(op, x, p)?;
    let r = ExpSum::<T, T::Exp, T>::new(&maxima, ExpSumKind::Logsumexp);
    run(op, x, p, &[T::DTYPE], &r)
}

/// `softmax`/`log_softmax` along one dim: the row maximum (as it is: a row holding +inf is NaN,
/// as in PyTorch), the sum of `exp(x - max)`, then one elementwise pass.
fn softmax(op: ReduceOp, a: &DynTensor, args: &ReduceArgs) -> Result<DynTensor> {
    let dim = softmax_dim(op, args)?;
    let p = plan::plan(op, a.shape(), &Dims::One(dim), true)?;
    if a.numel() == 0 {
        // PyTorch returns the empty result without looking at the dtype.
        return DynTensor::zeros(args.dtype.unwrap_or(a.dtype()), a.shape());
    }
    let (read, _) = plan::dtypes(op, a.dtype(), args.dtype)?;
    let x = to_dtype(a, read)?;
    with_float!(read, T => softmax_typed::<T>(op, &x, &p))
}

/// The common case of `softmax`/`log_softmax`, rows along the contiguous last dim of f32/f64:
/// one fused row kernel. The row length when it applies.
pub(crate) fn fused_row_len(
    shape: &[usize],
    contiguous: bool,
    p: &Plan,
    dtype: DType,
) -> Option<usize> {
    let last = shape.last().copied().unwrap_or(1);
    let along_last = p.keep_shape.last() == Some(&1) && p.count == last;
    let fused_type = matches!(dtype, DType::F32 | DType::F64);
    (contiguous && along_last && last > 0 && fused_type).then_some(last)
}

fn softmax_typed<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<DynTensor> {
    if let Some(n) = fused_row_len(x.shape(), x.is_contiguous(), p, T::DTYPE) {
        let log = op == ReduceOp::LogSoftmax;
        match T::DTYPE {
            DType::F32 => return softmax_rows::<f32>(op, x, n, log),
            DType::F64 => return softmax_rows::<f64>(op, x, n, log),
            _ => {}
        }
    }
    // The row maximum, each row's factor (`1 / sum(exp(x - max))` or `log(sum(...))`), then
    // one elementwise pass of `SoftmaxApply` over (x, max, factor).
    let maxima = row_max::<T>(op, x, p)?;
    let log = op == ReduceOp::LogSoftmax;
    let kind = if log {
        ExpSumKind::LogSoftmax
    } else {
        ExpSumKind::Softmax
    };
    let factors = run(
        op,
        x,
        p,
        &[<T::Exp as crate::Element>::DTYPE],
        &ExpSum::<T, T::Exp, T::Exp>::new(&maxima, kind),
    )?;
    let maxima = DynTensor::from_vec(maxima, &p.keep_shape)?;
    let out = DynTensor::zeros(T::DTYPE, x.shape())?;
    let it = IterConfig::new()
        .name(op.name())
        .check_mem_overlap(false)
        .check_all_same_dtype(false)
        .resize_outputs(false)
        .add_output(&out)
        .add_const_input(x)
        .add_const_input(&maxima)
        .add_const_input(&factors[0])
        .build()?;
    let f = SoftmaxApply { log };
    engine::map_rows::<T, T, T::Exp, T>(&it, move |v, m, b| {
        crate::functors::Functor::call(&f, (v, m, b))
    });
    drop(it);
    Ok(out)
}

/// `softmax`/`log_softmax` of each contiguous row of `n` elements: the row maximum, then (in
/// cache) `exp(x - max)` written and summed, then scaled by `1 / sum` (log: `x - max - log(sum)`).
fn softmax_rows<F: FloatAcc + super::types::Extremum + DynElement>(
    op: ReduceOp,
    x: &DynTensor,
    n: usize,
    log: bool,
) -> Result<DynTensor> {
    let out = DynTensor::zeros(F::DTYPE, x.shape())?;
    let it = IterConfig::new()
        .name(op.name())
        .check_mem_overlap(false)
        .resize_outputs(false)
        .add_output(&out)
        .add_const_input(x)
        .build()?;
    engine::map_contiguous_rows::<F, _>(&it, n, &SoftmaxRow { log });
    drop(it);
    Ok(out)
}

/// One row of [`softmax_rows`]: [`super::fold::softmax_row`].
struct SoftmaxRow {
    log: bool,
}

impl<F: FloatAcc + super::types::Extremum> engine::RowKernel<F> for SoftmaxRow {
    #[inline(always)]
    fn row(&self, xs: &[F], os: &mut [F]) {
        super::fold::softmax_row(xs, os, self.log)
    }
}
