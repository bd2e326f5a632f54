//! Each reduction in terms of the plan, the reducers and the engine.

use super::engine::{self, Reducer, WithIndex};
use super::plan::{self, Plan};
use super::reducers::{AnyAll, Arg, ExpSum, Extreme, Fold, Variance};
use super::types::{AccNum, FloatAcc, ReduceElement, ReduceFloat};
use super::{Dims, ReduceArgs, ReduceOp};
use crate::dtype::DType;
use crate::element::convert_value;
use crate::error::{Error, Result};
use crate::iter::IterConfig;
use crate::ops::special::to_dtype;
use crate::{DynElement, DynTensor, Element, with_dtype};

/// Runs the reduction `op` of `a` (PyTorch's semantics: see the module docs and
/// [`ReduceArgs`]). One result tensor, or two for `max_dim`/`min_dim` (values, indices).
pub fn reduce(op: ReduceOp, a: &DynTensor, args: &ReduceArgs) -> Result<Vec<DynTensor>> {
    use ReduceOp::*;
    if op.is_elementwise() {
        return softmax(op, a, args).map(|t| vec![t]);
    }
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
    let p = plan::plan(op, a.shape(), &args.dims, args.keepdim)?;
    let (read, result) = plan::dtypes(op, a.dtype(), args.dtype)?;
    let x = to_dtype(a, read)?;
    if matches!(op, Argmax | Argmin) && args.dims == Dims::All && x.ndim() > 1 {
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
            if T::DTYPE == DType::F64 || O::DTYPE == DType::F64 {
                run(op, x, p, &[result], &Fold::<T, f64, O>::new(prod, mean))
            } else {
                run(op, x, p, &[result], &Fold::<T, f32, O>::new(prod, mean))
            }
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
    let r = Variance::<T> {
        correction,
        sqrt: op == ReduceOp::Std,
        _p: core::marker::PhantomData,
    };
    run(op, x, p, &[T::DTYPE], &r)
}

/// Each output's maximum, in `F` (keepdim order); zeros when there are no elements.
fn row_max<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<Vec<T::Exp>> {
    let keep = Plan {
        keep_shape: p.keep_shape.clone(),
        out_shape: p.keep_shape.clone(),
        count: p.count,
    };
    if p.count == 0 {
        return Ok(vec![
            <T::Exp as crate::Element>::ZERO;
            p.keep_shape.iter().product()
        ]);
    }
    let m = run(op, x, &keep, &[T::DTYPE], &Extreme::<T>::new(true))?;
    Ok(values::<T>(&m[0])?
        .into_iter()
        .map(convert_value::<T, T::Exp>)
        .collect())
}

/// `log(sum(exp(x - m))) + m`, `m` the maximum, taken as 0 when infinite (so `[inf, 1]` gives
/// inf and `[-inf, -inf]` gives -inf rather than NaN).
fn logsumexp<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<Vec<DynTensor>> {
    let shifts: Vec<T::Exp> = row_max::<T>(op, x, p)?
        .into_iter()
        .map(|m| {
            if m.is_finite_acc() {
                m
            } else {
                <T::Exp as crate::Element>::ZERO
            }
        })
        .collect();
    let r = ExpSum::<T, T::Exp, T> {
        shifts: &shifts,
        log: true,
        _p: core::marker::PhantomData,
    };
    run(op, x, p, &[T::DTYPE], &r)
}

/// `softmax`/`log_softmax` along one dim: the row maximum (as it is: a row holding +inf is NaN,
/// as in PyTorch), the sum of `exp(x - max)`, then one elementwise pass.
fn softmax(op: ReduceOp, a: &DynTensor, args: &ReduceArgs) -> Result<DynTensor> {
    let dim = match args.dims {
        Dims::One(d) => d,
        _ => {
            return Err(Error::InvalidArgument {
                op: op.name(),
                reason: "takes exactly one dim".into(),
            });
        }
    };
    let p = plan::plan(op, a.shape(), &Dims::One(dim), true)?;
    if a.numel() == 0 {
        // PyTorch returns the empty result without looking at the dtype.
        return DynTensor::zeros(args.dtype.unwrap_or(a.dtype()), a.shape());
    }
    let (read, _) = plan::dtypes(op, a.dtype(), args.dtype)?;
    let x = to_dtype(a, read)?;
    with_float!(read, T => softmax_typed::<T>(op, &x, &p))
}

fn softmax_typed<T: ReduceFloat>(op: ReduceOp, x: &DynTensor, p: &Plan) -> Result<DynTensor> {
    // The common case, rows along the contiguous last dim of f32/f64: one fused row kernel.
    let last = x.shape().last().copied().unwrap_or(1);
    let along_last = p.keep_shape.last() == Some(&1) && p.count == last;
    if x.is_contiguous() && along_last && last > 0 {
        let log = op == ReduceOp::LogSoftmax;
        match T::DTYPE {
            DType::F32 => return softmax_rows::<f32>(op, x, last, log),
            DType::F64 => return softmax_rows::<f64>(op, x, last, log),
            _ => {}
        }
    }
    let shifts = row_max::<T>(op, x, p)?;
    let sums = run(
        op,
        x,
        p,
        &[<T::Exp as crate::Element>::DTYPE],
        &ExpSum::<T, T::Exp, T::Exp> {
            shifts: &shifts,
            log: false,
            _p: core::marker::PhantomData,
        },
    )?;
    // Per row: softmax multiplies by 1/sum; log_softmax subtracts max, then log(sum).
    let sums = values::<T::Exp>(&sums[0])?;
    let (a, b): (Vec<T::Exp>, Vec<T::Exp>) = if op == ReduceOp::LogSoftmax {
        shifts.iter().zip(&sums).map(|(&m, &s)| (m, s.ln())).unzip()
    } else {
        shifts
            .iter()
            .zip(&sums)
            .map(|(&m, &s)| (m, <T::Exp as Element>::ONE.div(s)))
            .unzip()
    };
    let shifts = DynTensor::from_vec(a, &p.keep_shape)?;
    let sums = [DynTensor::from_vec(b, &p.keep_shape)?];
    let out = DynTensor::zeros(T::DTYPE, x.shape())?;
    let it = IterConfig::new()
        .name(op.name())
        .check_mem_overlap(false)
        .check_all_same_dtype(false)
        .resize_outputs(false)
        .add_output(&out)
        .add_const_input(x)
        .add_const_input(&shifts)
        .add_const_input(&sums[0])
        .build()?;
    if op == ReduceOp::LogSoftmax {
        engine::map_rows::<T, T::Exp, T>(&it, |v, m, ls| {
            convert_value::<T::Exp, T>(convert_value::<T, T::Exp>(v).sub(m).sub(ls))
        });
    } else {
        engine::map_rows::<T, T::Exp, T>(&it, |v, m, inv| {
            let e = convert_value::<T, T::Exp>(v).sub(m).exp();
            convert_value::<T::Exp, T>(e.mul(inv))
        });
    }
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

/// One row of [`softmax_rows`].
struct SoftmaxRow {
    log: bool,
}

impl<F: FloatAcc + super::types::Extremum> engine::RowKernel<F> for SoftmaxRow {
    #[inline(always)]
    fn row(&self, xs: &[F], os: &mut [F]) {
        let log = self.log;
        let (m, nan) = F::block_extreme(xs, true);
        let m = if nan { m.sub(m).div(F::ZERO) } else { m }; // NaN
        const L: usize = 16;
        let mut l = [F::ZERO; L];
        if log {
            let mut c = xs.chunks_exact(L);
            for b in &mut c {
                for k in 0..L {
                    l[k] = l[k].add(b[k].sub(m).exp());
                }
            }
            let s = tree_sum(
                &mut l,
                c.remainder()
                    .iter()
                    .fold(F::ZERO, |a, &v| a.add(v.sub(m).exp())),
            );
            // (x - max) - log(sum): exact near the maximum (x - (max + log sum) is not).
            let ls = s.ln();
            for (o, &v) in os.iter_mut().zip(xs) {
                *o = v.sub(m).sub(ls);
            }
        } else {
            let mut c = xs.chunks_exact(L);
            let mut oc = os.chunks_exact_mut(L);
            for (b, o) in (&mut c).zip(&mut oc) {
                for k in 0..L {
                    let e = b[k].sub(m).exp();
                    o[k] = e;
                    l[k] = l[k].add(e);
                }
            }
            let mut tail = F::ZERO;
            for (o, &v) in oc.into_remainder().iter_mut().zip(c.remainder()) {
                *o = v.sub(m).exp();
                tail = tail.add(*o);
            }
            let inv = F::ONE.div(tree_sum(&mut l, tail));
            for o in os.iter_mut() {
                *o = o.mul(inv);
            }
        }
    }
}

/// The lanes summed in a fixed tree, plus `tail`.
#[inline(always)]
fn tree_sum<F: FloatAcc>(l: &mut [F; 16], tail: F) -> F {
    let mut w = 16;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            l[k] = l[k].add(l[k + w]);
        }
    }
    l[0].add(tail)
}
