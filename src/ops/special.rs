//! Ops with arguments: clamp, leaky_relu, hardtanh, gelu, where, masked_fill, lerp, addcmul,
//! and the dtype conversions `to` / `copy_`.

use super::Operand;
use super::binary::finish;
use super::exec::Exec;
use super::plan::{self, OperandInfo};
use super::unary::{run_unary, unary_config};
use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::functors::{self as f, Functor};
use crate::iter::{IterConfig, LoopCost, TensorIterator};
use crate::kernels;
use crate::promotion::{OperandKind, ResultTypeState, can_cast};
use crate::scalar::Scalar;

fn kind_of(o: &Operand) -> OperandKind {
    match o {
        Operand::Tensor(t) if t.ndim() == 0 => OperandKind::ZeroDim,
        Operand::Tensor(_) => OperandKind::Dimensioned,
        Operand::Scalar(_) => OperandKind::Scalar,
    }
}

/// `torch.result_type` over operands.
pub fn result_type_of(ops: &[Operand]) -> Option<DType> {
    ops.iter()
        .fold(ResultTypeState::new(), |st, o| {
            st.update(o.dtype(), kind_of(o))
        })
        .finish()
}

/// What a plan of [`plan`] needs of an operand: dtype, priority class, a scalar's value.
fn plan_info(o: Operand) -> OperandInfo {
    OperandInfo {
        dtype: o.dtype(),
        kind: kind_of(&o),
        value: match o {
            Operand::Scalar(s) => Some(s),
            Operand::Tensor(_) => None,
        },
    }
}

/// A scalar as a 0-d tensor of `dtype` (a one-element operand the kernels broadcast).
fn scalar_tensor(s: Scalar, dtype: DType) -> DynTensor {
    crate::with_dtype!(dtype, T => crate::Tensor::<T>::scalar(s.to::<T>()).into())
}

/// Iterator over `[out, inputs...]` whose allocated output has `dtype`; inputs keep their own
/// dtypes (the kernels cast in the loop). A given output must accept `dtype` safely.
fn iter_with_dtype<'a>(
    name: &'static str,
    dtype: DType,
    inputs: &[&'a DynTensor],
    out: Option<&'a DynTensor>,
) -> Result<TensorIterator<'a>> {
    let mut c = IterConfig::new()
        .name(name)
        .check_mem_overlap(true)
        .check_all_same_dtype(false);
    c = match out {
        Some(o) => {
            if !can_cast(dtype, o.dtype()) {
                return Err(Error::UnsafeCast {
                    op: name,
                    from: dtype,
                    to: o.dtype(),
                });
            }
            c.add_output(o)
        }
        None => c.add_owned_output().declare_static_dtype(dtype),
    };
    for t in inputs {
        c = c.add_const_input(t);
    }
    // SAFETY: each caller (`to`, `where`, `clamp`, `masked_fill`, `lerp`, `addcmul`) runs one
    // kernel over the whole iterator before taking its output, or fails and drops it unread.
    unsafe { c.set_outputs_written_in_full() };
    c.build()
}

fn unsupported(op: &'static str, d: DType) -> Error {
    Error::UnsupportedDType {
        op,
        dtype: d,
        other: None,
    }
}

/// `clamp(x, min, max)`: scalar bounds take part in promotion (`int32.clamp(min=1.5)` is f32);
/// tensor bounds broadcast. At least one bound is required.
pub fn clamp(
    x: &DynTensor,
    min: Option<Operand>,
    max: Option<Operand>,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    const OP: &str = "clamp";
    let (mi, ma) = (min.map(plan_info), max.map(plan_info));
    let p = plan::clamp_plan(&plan_info(Operand::Tensor(x)), mi.as_ref(), ma.as_ref())?;
    let compute = p.compute;
    let scalar = |b: plan::ClampBound| match b {
        plan::ClampBound::Scalar(s) => (Some(s), false),
        plan::ClampBound::Tensor => (None, true),
        plan::ClampBound::None => (None, false),
    };
    let (lo_s, lo_t) = scalar(p.min);
    let (hi_s, hi_t) = scalar(p.max);
    let mut inputs = vec![x];
    if let Some(Operand::Tensor(t)) = min {
        inputs.push(t);
    }
    if let Some(Operand::Tensor(t)) = max {
        inputs.push(t);
    }
    let mut iter = iter_with_dtype(OP, compute, &inputs, out)?;
    let cost = LoopCost::Cheap;
    // f16/bf16 over f32 blocks: the bounds rounded to the half type first (PyTorch's), then
    // the f32 functors, whose results (x or a bound) are exact halves.
    let c = f32_blocks_or(compute, &iter);
    let in_compute = |s: Scalar| {
        Scalar::Float(
            crate::with_dtype!(compute, H => crate::element::convert_value::<H, f64>(s.to::<H>())),
        )
    };
    let (lo_s, hi_s) = if c == compute {
        (lo_s, hi_s)
    } else {
        (lo_s.map(in_compute), hi_s.map(in_compute))
    };
    dispatch_dtypes!(c, numeric, C => {
        let (lo, hi) = (lo_s.map(|s| s.to::<C>()), hi_s.map(|s| s.to::<C>()));
        let d = |i: usize| iter.dtype(i);
        match (lo_t, hi_t) {
            (false, false) => run_unary::<C, _>(Exec::Iter(&iter), cost, f::Clamp::new(lo, hi))?,
            (true, false) => kernels::run_blocked(&iter, cost, kernels::binary::<C, C, _>(ClampTensor { tensor_is_min: true, other: hi }, d(0), d(1), d(2))),
            (false, true) => kernels::run_blocked(&iter, cost, kernels::binary::<C, C, _>(ClampTensor { tensor_is_min: false, other: lo }, d(0), d(1), d(2))),
            (true, true) => kernels::run_blocked(&iter, cost, kernels::ternary::<C, C, C, _>(ClampBoth, [d(0), d(1), d(2), d(3)])),
        }
    }, _ => return Err(unsupported(OP, x.dtype())));
    Ok(finish(&mut iter, out))
}

/// clamp with one tensor bound, `(x, bound) -> x`; `other` is the scalar bound on the other
/// side, if any.
#[derive(Copy, Clone)]
struct ClampTensor<C> {
    tensor_is_min: bool,
    other: Option<C>,
}

impl<C: Copy + Send + Sync> Functor<(C, C)> for ClampTensor<C>
where
    f::Clamp<C>: Functor<(C,), Output = C>,
{
    type Output = C;
    #[inline(always)]
    fn call(&self, (x, b): (C, C)) -> C {
        let c = if self.tensor_is_min {
            f::Clamp::new(Some(b), self.other)
        } else {
            f::Clamp::new(self.other, Some(b))
        };
        c.call((x,))
    }
}

/// clamp with two tensor bounds: `(x, lo, hi) -> x`.
#[derive(Copy, Clone)]
struct ClampBoth;

impl<C: Copy + Send + Sync> Functor<(C, C, C)> for ClampBoth
where
    f::Clamp<C>: Functor<(C,), Output = C>,
{
    type Output = C;
    #[inline(always)]
    fn call(&self, (x, lo, hi): (C, C, C)) -> C {
        f::Clamp::new(Some(lo), Some(hi)).call((x,))
    }
}

/// `leaky_relu(x, negative_slope)` (floats).
pub fn leaky_relu(x: &DynTensor, slope: f64, out: Option<&DynTensor>) -> Result<DynTensor> {
    let mut iter = unary_config("leaky_relu", false, false, x, out).build()?;
    dispatch_dtypes!(x.dtype(), float, C => run_unary::<C, _>(Exec::Iter(&iter), LoopCost::Cheap, f::LeakyRelu { slope })?,
        _ => return Err(unsupported("leaky_relu", x.dtype())));
    Ok(finish(&mut iter, out))
}

/// `hardtanh(x, min_val, max_val)` (numeric dtypes, bounds converted to x's dtype).
pub fn hardtanh(
    x: &DynTensor,
    min: Scalar,
    max: Scalar,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    let mut iter = unary_config("hardtanh", false, false, x, out).build()?;
    dispatch_dtypes!(x.dtype(), numeric, C => run_unary::<C, _>(Exec::Iter(&iter), LoopCost::Cheap, f::Hardtanh { min: min.to::<C>(), max: max.to::<C>() })?,
        _ => return Err(unsupported("hardtanh", x.dtype())));
    Ok(finish(&mut iter, out))
}

/// `gelu(x, approximate)` (floats).
pub fn gelu(
    x: &DynTensor,
    approximate: f::GeluApproximate,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    let mut iter = unary_config("gelu", false, false, x, out).build()?;
    // f32 exact gelu is the vectorized fastmath form: a cheaper grain.
    let cost = if x.dtype() == DType::F32 && approximate == f::GeluApproximate::None {
        super::unary::FAST_F32
    } else {
        LoopCost::Expensive
    };
    dispatch_dtypes!(x.dtype(), float, C => run_unary::<C, _>(Exec::Iter(&iter), cost, f::Gelu { approximate })?,
        _ => return Err(unsupported("gelu", x.dtype())));
    Ok(finish(&mut iter, out))
}

/// `where(cond, a, b)`: `a` and `b` tensors or scalars, promoted together (cond does not take
/// part); cond must be bool (uint8 is accepted, as PyTorch does with a deprecation warning).
pub fn where_(
    cond: &DynTensor,
    a: Operand,
    b: Operand,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    const OP: &str = "where";
    let dtype = plan::where_plan(cond.dtype(), &plan_info(a), &plan_info(b))?;
    let mut owned = Vec::new();
    for o in [a, b] {
        if let Operand::Scalar(s) = o {
            owned.push(scalar_tensor(s, dtype));
        }
    }
    let mut owned = owned.iter();
    let mut pick = |o: Operand<'_>| -> DynTensor {
        match o {
            Operand::Tensor(t) => t.share(),
            Operand::Scalar(_) => owned.next().expect("converted above").share(),
        }
    };
    let (ta, tb) = (pick(a), pick(b));
    let mut iter = iter_with_dtype(OP, dtype, &[cond, &ta, &tb], out)?;
    let d = [iter.dtype(0), iter.dtype(1), iter.dtype(2), iter.dtype(3)];
    dispatch_dtypes!(dtype, all, C => kernels::run_blocked(&iter, LoopCost::Cheap, kernels::ternary::<bool, C, C, _>(f::Where, d)), _ => unreachable!());
    Ok(finish(&mut iter, out))
}

/// `masked_fill(x, mask, value)` out of place: `x` broadcasts with `mask`, the result keeps
/// `x`'s dtype, `value` is a scalar or a 0-d tensor that must fit that dtype.
pub fn masked_fill(
    x: &DynTensor,
    mask: &DynTensor,
    value: Operand,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    const OP: &str = "masked_fill";
    plan::masked_fill_mask_check(mask.dtype())?;
    let v = match value {
        Operand::Scalar(s) => s,
        Operand::Tensor(t) if t.ndim() == 0 => super::binary::one_element_value(t)?,
        Operand::Tensor(t) => {
            return Err(Error::InvalidArgument {
                op: OP,
                reason: format!(
                    "value must be a 0-dimensional tensor, got {} dims",
                    t.ndim()
                ),
            });
        }
    };
    let dtype = x.dtype();
    plan::masked_fill_check(mask.dtype(), v, dtype)?;
    let mut iter = iter_with_dtype(OP, dtype, &[x, mask], out)?;
    dispatch_dtypes!(dtype, all, C => kernels::run_blocked(&iter, LoopCost::Cheap,
        kernels::binary::<C, bool, _>(f::MaskedFill { value: v.to::<C>() }, iter.dtype(0), iter.dtype(1), iter.dtype(2))),
        _ => unreachable!());
    Ok(finish(&mut iter, out))
}

/// `lerp(a, b, weight)`: floats; `weight` a scalar or a tensor.
pub fn lerp(
    a: &DynTensor,
    b: &DynTensor,
    weight: Operand,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    const OP: &str = "lerp";
    let dtype = a.dtype();
    let wd = match weight {
        Operand::Tensor(w) => Some(w.dtype()),
        Operand::Scalar(_) => None,
    };
    plan::lerp_check(dtype, b.dtype(), wd)?;
    match weight {
        Operand::Scalar(w) => {
            let mut iter = iter_with_dtype(OP, dtype, &[a, b], out)?;
            let wf = w.to_f64();
            let c = f32_blocks_or(dtype, &iter);
            dispatch_dtypes!(c, float, C => kernels::run_blocked(&iter, LoopCost::Cheap,
                kernels::binary::<C, C, _>(f::LerpScalar { weight: wf }, iter.dtype(0), iter.dtype(1), iter.dtype(2))),
                _ => unreachable!());
            Ok(finish(&mut iter, out))
        }
        Operand::Tensor(w) => {
            let mut iter = iter_with_dtype(OP, dtype, &[a, b, w], out)?;
            let d = [iter.dtype(0), iter.dtype(1), iter.dtype(2), iter.dtype(3)];
            let c = f32_blocks_or(dtype, &iter);
            dispatch_dtypes!(c, float, C => kernels::run_blocked(&iter, LoopCost::Cheap, kernels::ternary::<C, C, C, _>(f::Lerp, d)), _ => unreachable!());
            Ok(finish(&mut iter, out))
        }
    }
}

/// `addcmul(a, t1, t2, value)` = `a + value * t1 * t2` (numeric dtypes, promoted together).
pub fn addcmul(
    a: &DynTensor,
    t1: &DynTensor,
    t2: &DynTensor,
    value: Scalar,
    out: Option<&DynTensor>,
) -> Result<DynTensor> {
    const OP: &str = "addcmul";
    let info = |t: &DynTensor| OperandInfo {
        dtype: t.dtype(),
        kind: kind_of(&Operand::Tensor(t)),
        value: None,
    };
    let dtype = plan::addcmul_plan(&info(a), &info(t1), &info(t2), value)?;
    let mut iter = iter_with_dtype(OP, dtype, &[a, t1, t2], out)?;
    let d = [iter.dtype(0), iter.dtype(1), iter.dtype(2), iter.dtype(3)];
    let v32 = value.to::<f32>();
    match f32_blocks_or(dtype, &iter) {
        DType::F16 => kernels::run_blocked(
            &iter,
            LoopCost::Cheap,
            kernels::ternary::<half::f16, half::f16, half::f16, _>(f::Addcmul { value: v32 }, d),
        ),
        DType::BF16 => kernels::run_blocked(
            &iter,
            LoopCost::Cheap,
            kernels::ternary::<half::bf16, half::bf16, half::bf16, _>(f::Addcmul { value: v32 }, d),
        ),
        DType::F32 => kernels::run_blocked(
            &iter,
            LoopCost::Cheap,
            kernels::ternary::<f32, f32, f32, _>(f::Addcmul { value: v32 }, d),
        ),
        DType::F64 => kernels::run_blocked(
            &iter,
            LoopCost::Cheap,
            kernels::ternary::<f64, f64, f64, _>(
                f::Addcmul {
                    value: value.to::<f64>(),
                },
                d,
            ),
        ),
        _ => {
            dispatch_dtypes!(dtype, int, C => kernels::run_blocked(&iter, LoopCost::Cheap, kernels::ternary::<C, C, C, _>(f::Addcmul { value: value.to::<C>() }, d)), _ => unreachable!())
        }
    }
    Ok(finish(&mut iter, out))
}

/// The dtype whose functor an f16/bf16 op computing in `dtype` runs: f32 over f32 blocks
/// (F16C / vectorized bf16 conversions; the half functor is the f32 one rounded once) when every
/// operand is stored in `dtype` (`plan::half_blocks_hold`), else `dtype` itself.
fn f32_blocks_or(dtype: DType, iter: &TensorIterator) -> DType {
    let inputs = (1..iter.ntensors()).map(|i| iter.dtype(i));
    if plan::half_blocks_hold(dtype, dtype, iter.dtype(0), inputs) {
        DType::F32
    } else {
        dtype
    }
}

/// Runs the conversion kernel `src -> dst dtype` over an iterator `[out, src]`.
fn run_cast(iter: &TensorIterator) {
    let (dd, sd) = (iter.dtype(0), iter.dtype(1));
    if sd == dd {
        // No conversion: the bits move as they are, as unsigned integers of the element's size
        // (f16/bf16 through f32 would quiet signalling NaNs; four kernels serve all dtypes).
        let bits = match sd.size() {
            1 => DType::U8,
            2 => DType::U16,
            4 => DType::U32,
            _ => DType::U64,
        };
        crate::with_dtype!(bits, B => kernels::run_blocked(
            iter,
            LoopCost::Cheap,
            kernels::unary::<B, f::Cast<B>>(f::Cast::new(), bits, bits),
        ));
        return;
    }
    // Float into integer: a loop that vectorizes (`as` there stays scalar).
    if kernels::run_float_to_int(iter, dd) {
        return;
    }
    if sd != dd && (sd == DType::F16 || dd == DType::F16) {
        // Every conversion from or into f16 goes through f32 (`convert_value`: halves widen
        // to f32 exactly and are rounded from f32), so the kernels' f32 blocks give the same
        // values, with the F16C block conversions instead of a per-element software one. (bf16
        // converts by bit shifts that vectorize in place: no block needed.)
        kernels::run_blocked(
            iter,
            LoopCost::Cheap,
            kernels::unary::<f32, f::Cast<f32>>(f::Cast::new(), dd, sd),
        );
        return;
    }
    crate::with_dtype!(sd, S => crate::with_dtype!(dd, D => {
        kernels::run_blocked(iter, LoopCost::Cheap, kernels::unary::<S, f::Cast<D>>(f::Cast::new(), dd, sd))
    }))
}

/// `x.to(dtype)`: a new tensor in `x`'s dimension order (or `x` itself when the dtype matches).
pub fn to_dtype(x: &DynTensor, dtype: DType) -> Result<DynTensor> {
    if x.dtype() == dtype {
        return Ok(x.share());
    }
    let mut iter = iter_with_dtype("to", dtype, &[x], None)?;
    run_cast(&iter);
    Ok(finish(&mut iter, None))
}

/// `dst.copy_(src)`: writes `src` (broadcast to `dst`'s shape, converted to its dtype) into
/// `dst`, which may be any view. Partial overlap between the two is an error.
pub fn copy_into(dst: &DynTensor, src: &DynTensor) -> Result<()> {
    copy_named("copy_", dst, src)
}

/// [`copy_into`] under the name of the op that asked for it (`contiguous`, `clone`, ...).
pub(crate) fn copy_named(name: &'static str, dst: &DynTensor, src: &DynTensor) -> Result<()> {
    let iter = IterConfig::new()
        .name(name)
        // The destination takes part in the shape: `src` broadcasts to it (PyTorch's copy_).
        .resize_outputs(false)
        .check_mem_overlap(true)
        .check_all_same_dtype(false)
        .add_output(dst)
        .add_const_input(src)
        .build()?;
    run_cast(&iter);
    Ok(())
}

/// The value used where a function is generic over an element but needs its dtype.
pub fn dtype_of<T: Element>() -> DType {
    T::DTYPE
}
