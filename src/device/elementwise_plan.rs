//! Which elementwise kernels a device op launches: the dtype decision and every dtype, scalar
//! and divisor check come from [`crate::ops::plan`], the code the CPU runners use; only the
//! launch differs (a kernel of `gpu_kernel_list!` instead of a CPU inner loop). Generic over a
//! [`DeviceBackend`]: CUDA (`device::ops` wraps these as `CudaTensor` methods) and the host
//! emulation in `tests/gpu_emulation.rs` run this same code.

use super::backend::DeviceBackend;
use crate::dtype::DType;
use crate::element::{Element, convert_value};
use crate::error::{Error, Result};
use crate::functors::{self as f, BinaryOp, GeluApproximate, UnaryOp};
use crate::ops::plan::{self, BinaryPath, OperandInfo};
use crate::promotion::OperandKind;
use crate::scalar::Scalar;
use std::format;

/// One operand of a device op: a device tensor or a Python-like scalar.
pub enum DeviceOperand<'a, T> {
    Tensor(&'a T),
    Scalar(Scalar),
}

impl<T> Clone for DeviceOperand<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DeviceOperand<'_, T> {}

impl<T> From<Scalar> for DeviceOperand<'_, T> {
    fn from(s: Scalar) -> Self {
        DeviceOperand::Scalar(s)
    }
}
macro_rules! operand_from_number {
    ([$($t:ty),*]) => {$(
        impl<T> From<$t> for DeviceOperand<'_, T> {
            fn from(v: $t) -> Self { DeviceOperand::Scalar(Scalar::from(v)) }
        }
    )*};
}
crate::dtype_types!(all => operand_from_number!());
operand_from_number!([usize]);

/// The value of a one-element device tensor as a `Scalar` of its category (one small copy).
pub fn one_element_value<B: DeviceBackend>(b: &B, t: &B::Tensor) -> Result<Scalar> {
    crate::ops::binary::one_element_value(&b.to_host(t)?)
}

/// What a plan needs of an operand: dtype, priority class, and its value where the plan reads
/// it (a scalar; a one-element right operand when `rhs_value`, PyTorch's CPU-scalar special
/// cases: only then is anything read from the device).
fn info<B: DeviceBackend>(
    b: &B,
    o: DeviceOperand<B::Tensor>,
    rhs_value: bool,
) -> Result<OperandInfo> {
    Ok(match o {
        DeviceOperand::Scalar(s) => OperandInfo {
            dtype: s.dtype(),
            kind: OperandKind::Scalar,
            value: Some(s),
        },
        DeviceOperand::Tensor(t) => OperandInfo {
            dtype: b.dtype(t),
            kind: if b.shape(t).is_empty() {
                OperandKind::ZeroDim
            } else {
                OperandKind::Dimensioned
            },
            value: if rhs_value && b.shape(t).iter().product::<usize>() == 1 {
                Some(one_element_value(b, t)?)
            } else {
                None
            },
        },
    })
}

/// The binary ops with `{op}_scalar_*` kernels (a scalar kernel argument).
fn has_scalar_kernel(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    )
}

/// Refuses a zero divisor (converted to the integer computation dtype), like the CPU runner.
fn check_no_zero_divisor<B: DeviceBackend>(
    b: &B,
    d: &B::Tensor,
    compute: DType,
    op: BinaryOp,
) -> Result<()> {
    let host = b.to_host(d)?;
    let zero = crate::dispatch!(&host, t => {
        let v = t.try_to_vec()?;
        crate::dispatch_dtypes!(compute, int, C => v.iter().any(|&x| convert_value::<_, C>(x) == C::ZERO), _ => false)
    });
    if zero {
        Err(Error::ZeroDivision { op: op.name() })
    } else {
        Ok(())
    }
}

/// A tensor operand, or a 0-d tensor of `dtype` holding the scalar (an operand without a
/// scalar kernel: it broadcasts, and holds the value the CPU binds into its functor,
/// `s.to::<C>()`).
fn materialize<B: DeviceBackend>(
    b: &B,
    o: DeviceOperand<B::Tensor>,
    dtype: DType,
) -> Result<B::Tensor> {
    match o {
        DeviceOperand::Tensor(t) => Ok(b.share(t)),
        DeviceOperand::Scalar(s) => b.scalar_tensor(s, dtype),
    }
}

/// [`DeviceBackend::launch`] of a kernel this module names.
#[allow(clippy::too_many_arguments)]
fn launch<B: DeviceBackend, F: Copy>(
    b: &B,
    op: &str,
    kt: DType,
    f: F,
    types: &[DType],
    out_dtype: DType,
    inputs: &[&B::Tensor],
    also: Option<&[usize]>,
) -> Result<B::Tensor> {
    // SAFETY: every call in this module names a kernel of `gpu_kernel_list!` with the functor
    // type and the kernel types the list gives it for `kt` (the host emulation launches each
    // through the listed kernel bodies, checking the functor's size; tests/device_abi.rs checks
    // the PTX's parameter lists).
    unsafe { b.launch(op, kt, f, types, out_dtype, inputs, also) }
}

/// `op(x, y)` on the device, with the CPU runner's promotion, checks and functor choice.
pub fn binary<B: DeviceBackend>(
    b: &B,
    op: BinaryOp,
    x: DeviceOperand<B::Tensor>,
    y: DeviceOperand<B::Tensor>,
) -> Result<B::Tensor> {
    let (xi, yi0) = (info(b, x, false)?, info(b, y, false)?);
    plan::binary_precheck(op, &xi, &yi0)?;
    let yi = if matches!(x, DeviceOperand::Tensor(_)) {
        info(b, y, true)?
    } else {
        yi0
    };
    let common = plan::common_dtype(&[xi, yi]).unwrap_or(xi.dtype);
    let p = plan::binary_plan(op, &xi, &yi, common)?;
    let c = p.compute;
    if p.check_zero_divisor
        && let DeviceOperand::Tensor(t) = y
    {
        check_no_zero_divisor(b, t, c, op)?;
    }
    let name = op.name();
    match (p.path, x, y) {
        (BinaryPath::ScalarOpmath(s), DeviceOperand::Tensor(t), _) => {
            let k = format!("{name}_scalar_opmath");
            let shape_y = match y {
                DeviceOperand::Tensor(u) => Some(b.shape(u)),
                DeviceOperand::Scalar(_) => None,
            };
            // MulScalarOpmath etc. are `{ s: f32 }`: the kernel argument is the f32.
            launch(
                b,
                &k,
                c,
                f::MulScalarOpmath { s },
                &[p.out, c],
                p.out,
                &[t],
                shape_y,
            )
        }
        (BinaryPath::PowScalar(s), DeviceOperand::Tensor(t), _) => {
            crate::with_dtype!(c, T => launch(b, "pow_scalar", c, f::PowScalar::<T> { exp: s.to::<T>() }, &[p.out, c], p.out, &[t], None))
        }
        (BinaryPath::Functor, DeviceOperand::Tensor(t), DeviceOperand::Scalar(s))
            if has_scalar_kernel(op) =>
        {
            let k = format!("{name}_scalar");
            // WithScalar<F, C> with a zero-sized F is laid out as the scalar alone.
            crate::with_dtype!(c, T => launch(b, &k, c, s.to::<T>(), &[p.out, c], p.out, &[t], None))
        }
        _ => {
            let (tx, ty) = (materialize(b, x, c)?, materialize(b, y, c)?);
            launch(b, name, c, (), &[p.out, c, c], p.out, &[&tx, &ty], None)
        }
    }
}

/// `op(x)` on the device.
pub fn unary<B: DeviceBackend>(b: &B, op: UnaryOp, x: &B::Tensor) -> Result<B::Tensor> {
    let (c, out) = plan::unary_plan(op, b.dtype(x))?;
    match op {
        UnaryOp::Square => binary(
            b,
            BinaryOp::Pow,
            DeviceOperand::Tensor(x),
            DeviceOperand::Scalar(Scalar::Int(2)),
        ),
        UnaryOp::Gelu => launch(b, "gelu", c, f::Gelu::default(), &[out, c], out, &[x], None),
        _ => launch(b, op.name(), c, (), &[out, c], out, &[x], None),
    }
}

/// `x.to(dtype)`: PyTorch's conversion (`convert_value`), through the `copy` kernels.
pub fn to<B: DeviceBackend>(b: &B, x: &B::Tensor, dtype: DType) -> Result<B::Tensor> {
    let s = b.dtype(x);
    // The kernel computes `copy` in the source type; the strided kernel converts while
    // storing (a contiguous `_c` launch would write source-typed elements).
    launch(b, "copy", s, (), &[s, s], dtype, &[x], None)
}

/// `gelu(x, approximate)` (floats).
pub fn gelu<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    approximate: GeluApproximate,
) -> Result<B::Tensor> {
    let (c, out) = plan::unary_plan(UnaryOp::Gelu, b.dtype(x))?;
    launch(
        b,
        "gelu",
        c,
        f::Gelu { approximate },
        &[out, c],
        out,
        &[x],
        None,
    )
}

/// `leaky_relu(x, slope)` (floats).
pub fn leaky_relu<B: DeviceBackend>(b: &B, x: &B::Tensor, slope: f64) -> Result<B::Tensor> {
    let d = b.dtype(x);
    if !f::table::float_only_supports(d) {
        return Err(Error::UnsupportedDType {
            op: "leaky_relu",
            dtype: d,
            other: None,
        });
    }
    let k = f::LeakyRelu { slope };
    launch(b, "leaky_relu", d, k, &[d, d], d, &[x], None)
}

/// `torch.where(cond, x, y)`, with the CPU's checks ([`plan::where_plan`]); a u8 `cond` is
/// read as bool by the strided kernel (nonzero is true).
pub fn where_<B: DeviceBackend>(
    b: &B,
    cond: &B::Tensor,
    x: DeviceOperand<B::Tensor>,
    y: DeviceOperand<B::Tensor>,
) -> Result<B::Tensor> {
    let c = plan::where_plan(b.dtype(cond), &info(b, x, false)?, &info(b, y, false)?)?;
    let (tx, ty) = (materialize(b, x, c)?, materialize(b, y, c)?);
    let types = [c, DType::Bool, c, c];
    launch(b, "where", c, (), &types, c, &[cond, &tx, &ty], None)
}

/// `clamp(x, min, max)` with the CPU's promotion and checks ([`plan::clamp_plan`]). Scalar
/// bounds run the `clamp` kernel; a tensor bound runs `maximum(min, x)` / `minimum(max, y)`
/// (the same comparisons and NaN propagation; with NaN on both sides the result is a NaN whose
/// payload may come from the other operand).
pub fn clamp<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    min: Option<DeviceOperand<B::Tensor>>,
    max: Option<DeviceOperand<B::Tensor>>,
) -> Result<B::Tensor> {
    let mi = min.map(|o| info(b, o, false)).transpose()?;
    let ma = max.map(|o| info(b, o, false)).transpose()?;
    let p = plan::clamp_plan(
        &info(b, DeviceOperand::Tensor(x), false)?,
        mi.as_ref(),
        ma.as_ref(),
    )?;
    let c = p.compute;
    let scalar = |bound: plan::ClampBound| match bound {
        plan::ClampBound::Scalar(s) => Some(s),
        _ => None,
    };
    let tensor = |o: Option<DeviceOperand<'_, B::Tensor>>| match o {
        Some(DeviceOperand::Tensor(t)) => Some(b.share(t)),
        _ => None,
    };
    let (lo_t, hi_t) = (tensor(min), tensor(max));
    let (lo_s, hi_s) = (scalar(p.min), scalar(p.max));
    // At most one bound per side, so this is always "lower bound, then upper bound", as the
    // CPU's functors apply them.
    let mut y = b.share(x);
    if let Some(lo) = &lo_t {
        y = launch(b, "maximum", c, (), &[c, c, c], c, &[lo, &y], None)?;
    }
    if lo_s.is_some() || hi_s.is_some() || (lo_t.is_none() && hi_t.is_none()) {
        y = crate::with_dtype!(c, T => launch(b, "clamp", c,
            f::Clamp::<T> { min: lo_s.map(|s| s.to::<T>()), max: hi_s.map(|s| s.to::<T>()) },
            &[c, c], c, &[&y], None))?;
    }
    if let Some(hi) = &hi_t {
        y = launch(b, "minimum", c, (), &[c, c, c], c, &[hi, &y], None)?;
    }
    Ok(y)
}

/// `hardtanh(x, min, max)` (numeric dtypes, bounds converted to x's dtype).
pub fn hardtanh<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    min: Scalar,
    max: Scalar,
) -> Result<B::Tensor> {
    let d = b.dtype(x);
    plan::hardtanh_check(d)?;
    crate::with_dtype!(d, T => launch(b, "hardtanh", d,
        f::Hardtanh::<T> { min: min.to::<T>(), max: max.to::<T>() }, &[d, d], d, &[x], None))
}

/// `masked_fill(x, mask, value)`: mask bool (broadcasts with x), value a scalar or a 0-d
/// tensor that fits x's dtype; the result keeps x's dtype.
pub fn masked_fill<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    mask: &B::Tensor,
    value: DeviceOperand<B::Tensor>,
) -> Result<B::Tensor> {
    plan::masked_fill_mask_check(b.dtype(mask))?;
    let v = match value {
        DeviceOperand::Scalar(s) => s,
        DeviceOperand::Tensor(t) if b.shape(t).is_empty() => one_element_value(b, t)?,
        DeviceOperand::Tensor(t) => {
            return Err(Error::InvalidArgument {
                op: "masked_fill",
                reason: format!(
                    "value must be a 0-dimensional tensor, got {} dims",
                    b.shape(t).len()
                ),
            });
        }
    };
    let d = b.dtype(x);
    plan::masked_fill_check(b.dtype(mask), v, d)?;
    crate::with_dtype!(d, T => launch(b, "masked_fill", d,
        f::MaskedFill::<T> { value: v.to::<T>() }, &[d, d, DType::Bool], d, &[x, mask], None))
}

/// `lerp(x, end, weight)` (floats; weight a scalar or a tensor of x's dtype).
pub fn lerp<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    end: &B::Tensor,
    weight: DeviceOperand<B::Tensor>,
) -> Result<B::Tensor> {
    let d = b.dtype(x);
    let wd = match weight {
        DeviceOperand::Tensor(t) => Some(b.dtype(t)),
        DeviceOperand::Scalar(_) => None,
    };
    plan::lerp_check(d, b.dtype(end), wd)?;
    match weight {
        DeviceOperand::Scalar(s) => {
            let k = f::LerpScalar { weight: s.to_f64() };
            launch(b, "lerp_scalar", d, k, &[d, d, d], d, &[x, end], None)
        }
        DeviceOperand::Tensor(t) => launch(b, "lerp", d, (), &[d, d, d, d], d, &[x, end, t], None),
    }
}

/// `addcmul(x, t1, t2, value)` = `x + value * t1 * t2` (numeric, promoted together).
pub fn addcmul<B: DeviceBackend>(
    b: &B,
    x: &B::Tensor,
    t1: &B::Tensor,
    t2: &B::Tensor,
    value: Scalar,
) -> Result<B::Tensor> {
    let of = |t: &B::Tensor| info(b, DeviceOperand::Tensor(t), false);
    let c = plan::addcmul_plan(&of(x)?, &of(t1)?, &of(t2)?, value)?;
    let (ty, ins) = ([c, c, c, c], [x, t1, t2]);
    match c {
        DType::F16 | DType::BF16 | DType::F32 => {
            let k = f::Addcmul {
                value: value.to::<f32>(),
            };
            launch(b, "addcmul", c, k, &ty, c, &ins, None)
        }
        DType::F64 => {
            let k = f::Addcmul {
                value: value.to::<f64>(),
            };
            launch(b, "addcmul", c, k, &ty, c, &ins, None)
        }
        _ => {
            crate::dispatch_dtypes!(c, int, T => launch(b, "addcmul", c, f::Addcmul { value: value.to::<T>() }, &ty, c, &ins, None),
            _ => unreachable!("checked by the plan"))
        }
    }
}
