//! Ops on device tensors (feature `cuda`): the same method names and results as the
//! `DynTensor` ops (`try_add`, `add`, `try_exp`, `try_where`, `try_to`, ...). The dtype decision
//! and every dtype/scalar check come from [`crate::ops::plan`], the code the CPU runners use;
//! only the launch differs (a kernel of `gpu_kernel_list!` instead of a CPU inner loop).

use super::cuda::{CudaContext, CudaTensor};
use super::{Device, kernel_list};
use crate::Element;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::convert_value;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::functors::{self as f, BinaryOp, GeluApproximate, UnaryOp};
use crate::ops::plan::{self, BinaryPath, OperandInfo};
use crate::promotion::{OperandKind, can_cast};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The shared context of `Device::Cuda(n)` (created on first use, then reused).
pub fn context(device: Device) -> Result<CudaContext> {
    let Device::Cuda(n) = device else {
        return Err(Error::InvalidArgument {
            op: "to_device",
            reason: "not a CUDA device".into(),
        });
    };
    static CONTEXTS: OnceLock<Mutex<HashMap<usize, CudaContext>>> = OnceLock::new();
    let map = CONTEXTS.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = map.get(&n) {
        return Ok(c.clone());
    }
    let c = CudaContext::new(n)?;
    map.insert(n, c.clone());
    Ok(c)
}

impl<T: Element> Tensor<T> {
    /// A copy on `device` (contiguous). `Device::Cpu` is refused: use the tensor itself.
    pub fn to_device(&self, device: Device) -> Result<CudaTensor> {
        context(device)?.to_device(self)
    }
}

impl DynTensor {
    /// A copy on `device` (contiguous), with the same dtype.
    pub fn to_device(&self, device: Device) -> Result<CudaTensor> {
        let ctx = context(device)?;
        crate::dispatch!(self, t => ctx.to_device(t))
    }
}

impl CudaTensor {
    /// The elements copied back to host memory, as a `DynTensor` of the same dtype and shape.
    pub fn to_cpu(&self) -> Result<DynTensor> {
        crate::with_dtype!(self.dtype(), T => self.to_host::<T>().map(DynTensor::from))
    }
}

/// One operand of a device op: a device tensor or a Python-like scalar.
#[derive(Clone, Copy)]
pub enum CudaOperand<'a> {
    Tensor(&'a CudaTensor),
    Scalar(Scalar),
}

impl<'a> From<&'a CudaTensor> for CudaOperand<'a> {
    fn from(t: &'a CudaTensor) -> Self {
        CudaOperand::Tensor(t)
    }
}
impl From<Scalar> for CudaOperand<'_> {
    fn from(s: Scalar) -> Self {
        CudaOperand::Scalar(s)
    }
}
macro_rules! operand_from_number {
    ([$($t:ty),*]) => {$(
        impl From<$t> for CudaOperand<'_> {
            fn from(v: $t) -> Self { CudaOperand::Scalar(Scalar::from(v)) }
        }
    )*};
}
crate::dtype_types!(all => operand_from_number!());
operand_from_number!([usize]);

#[track_caller]
fn ok<T>(r: Result<T>) -> T {
    r.or_panic()
}

/// The value of a one-element device tensor as a `Scalar` of its category (one small copy).
fn one_element_value(t: &CudaTensor) -> Result<Scalar> {
    let host = t.to_cpu()?;
    crate::ops::binary::one_element_value(&host)
}

fn info(o: CudaOperand, rhs_value: bool) -> Result<OperandInfo> {
    Ok(match o {
        CudaOperand::Scalar(s) => OperandInfo {
            dtype: s.dtype(),
            kind: OperandKind::Scalar,
            value: Some(s),
        },
        CudaOperand::Tensor(t) => OperandInfo {
            dtype: t.dtype(),
            kind: if t.shape().is_empty() {
                OperandKind::ZeroDim
            } else {
                OperandKind::Dimensioned
            },
            value: if rhs_value && t.numel() == 1 {
                Some(one_element_value(t)?)
            } else {
                None
            },
        },
    })
}

/// A 0-d device tensor of `dtype` holding `s` (a scalar operand without a scalar kernel: it
/// broadcasts, and holds the value the CPU binds into its functor, `s.to::<C>()`).
fn scalar_tensor(ctx: &CudaContext, s: Scalar, dtype: DType) -> Result<CudaTensor> {
    crate::with_dtype!(dtype, T => ctx.from_slice(&[s.to::<T>()], &[]))
}

/// The binary ops with `{op}_scalar_*` kernels (a scalar kernel argument).
fn has_scalar_kernel(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    )
}

/// Refuses a zero divisor (converted to the integer computation dtype), like the CPU runner.
fn check_no_zero_divisor(b: &CudaTensor, compute: DType, op: BinaryOp) -> Result<()> {
    let host = b.to_cpu()?;
    let zero = crate::dispatch!(&host, t => {
        let v = t.to_vec();
        crate::dispatch_dtypes!(compute, int, C => v.iter().any(|&x| convert_value::<_, C>(x) == C::ZERO), _ => false)
    });
    if zero {
        Err(Error::ZeroDivision { op: op.name() })
    } else {
        Ok(())
    }
}

/// `op(a, b)` on the device, with the CPU runner's promotion, checks and functor choice.
pub fn binary(op: BinaryOp, a: CudaOperand, b: CudaOperand) -> Result<CudaTensor> {
    let (ai, bi0) = (info(a, false)?, info(b, false)?);
    plan::binary_precheck(op, &ai, &bi0)?;
    let bi = if matches!(a, CudaOperand::Tensor(_)) {
        info(b, true)?
    } else {
        bi0
    };
    let common = plan::common_dtype(&[ai, bi]).unwrap_or(ai.dtype);
    let p = plan::binary_plan(op, &ai, &bi, common)?;
    let c = p.compute;
    let ctx = match (a, b) {
        (CudaOperand::Tensor(t), _) | (_, CudaOperand::Tensor(t)) => t.context().clone(),
        _ => unreachable!("checked by the plan"),
    };
    if p.check_zero_divisor
        && let CudaOperand::Tensor(t) = b
    {
        check_no_zero_divisor(t, c, op)?;
    }
    let name = op.name();
    match (p.path, a, b) {
        (BinaryPath::ScalarOpmath(s), CudaOperand::Tensor(x), _) => {
            let k = format!("{name}_scalar_opmath");
            let shape_b = match b {
                CudaOperand::Tensor(t) => Some(t.shape()),
                CudaOperand::Scalar(_) => None,
            };
            // MulScalarOpmath etc. are `{ s: f32 }`: the kernel argument is the f32.
            ctx.launch(&k, c, f::MulScalarOpmath { s }, &[p.out, c], &[x], shape_b)
        }
        (BinaryPath::PowScalar(s), CudaOperand::Tensor(x), _) => {
            crate::with_dtype!(c, T => ctx.launch("pow_scalar", c, f::PowScalar::<T> { exp: s.to::<T>() }, &[p.out, c], &[x], None))
        }
        (BinaryPath::Functor, CudaOperand::Tensor(x), CudaOperand::Scalar(s))
            if has_scalar_kernel(op) =>
        {
            let k = format!("{name}_scalar");
            // WithScalar<F, C> with a zero-sized F is laid out as the scalar alone.
            crate::with_dtype!(c, T => ctx.launch(&k, c, s.to::<T>(), &[p.out, c], &[x], None))
        }
        _ => {
            let ta;
            let x = match a {
                CudaOperand::Tensor(t) => t,
                CudaOperand::Scalar(s) => {
                    ta = scalar_tensor(&ctx, s, c)?;
                    &ta
                }
            };
            let tb;
            let y = match b {
                CudaOperand::Tensor(t) => t,
                CudaOperand::Scalar(s) => {
                    tb = scalar_tensor(&ctx, s, c)?;
                    &tb
                }
            };
            ctx.launch(name, c, (), &[p.out, c, c], &[x, y], None)
        }
    }
}

/// `op(a)` on the device.
pub fn unary(op: UnaryOp, a: &CudaTensor) -> Result<CudaTensor> {
    let (c, out) = plan::unary_plan(op, a.dtype())?;
    if op == UnaryOp::Square {
        return binary(
            BinaryOp::Pow,
            CudaOperand::Tensor(a),
            CudaOperand::Scalar(Scalar::Int(2)),
        );
    }
    let ctx = a.context();
    if op == UnaryOp::Gelu {
        return ctx.launch("gelu", c, f::Gelu::default(), &[out, c], &[a], None);
    }
    ctx.launch(op.name(), c, (), &[out, c], &[a], None)
}

macro_rules! binary_methods {
    ($($name:ident, $try_name:ident => $op:ident;)*) => {
        impl CudaTensor {$(
            #[doc = concat!("`", stringify!($name), "(self, other)` on the device; other is a device tensor or a scalar.")]
            pub fn $try_name<'a>(&self, other: impl Into<CudaOperand<'a>>) -> Result<CudaTensor> {
                binary(BinaryOp::$op, CudaOperand::Tensor(self), other.into())
            }
            #[doc = concat!("`", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $name<'a>(&self, other: impl Into<CudaOperand<'a>>) -> CudaTensor {
                ok(self.$try_name(other))
            }
        )*}
    };
}

/// The methods of every binary op of the table.
macro_rules! device_binary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! { binary_methods! { $($name, [<try_ $name>] => $Op;)* } }
    };
}
crate::binary_op_table!(device_binary_methods);

macro_rules! unary_methods {
    ($($name:ident, $try_name:ident => $op:ident;)*) => {
        impl CudaTensor {$(
            #[doc = concat!("`", stringify!($name), "(self)` on the device.")]
            pub fn $try_name(&self) -> Result<CudaTensor> {
                unary(UnaryOp::$op, self)
            }
            #[doc = concat!("`", stringify!($name), "`; panics on error.")]
            #[track_caller]
            pub fn $name(&self) -> CudaTensor {
                ok(self.$try_name())
            }
        )*}
    };
}

/// The methods of every unary op of the table (but those with `OwnMethods`).
macro_rules! device_unary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! {$(
            device_unary_methods!(@line [$($flag)*] $name, [<try_ $name>] => $Op);
        )*}
    };
    (@line [OwnMethods $($flag:ident)*] $($t:tt)*) => {};
    (@line [$($flag:ident)*] $($t:tt)*) => { unary_methods! { $($t)*; } };
}
crate::unary_op_table!(device_unary_methods);

impl CudaTensor {
    /// `self.to(dtype)`: PyTorch's conversion (`convert_value`), through the `copy` kernels.
    pub fn try_to(&self, dtype: DType) -> Result<CudaTensor> {
        let s = self.dtype();
        // The kernel computes `copy` in the source type; the strided kernel converts while
        // storing (a contiguous `_c` launch would write source-typed elements).
        self.context()
            .launch_to("copy", s, (), &[s, s], dtype, &[self], None)
    }
    /// `to`; panics on error.
    #[track_caller]
    pub fn to(&self, dtype: DType) -> CudaTensor {
        ok(self.try_to(dtype))
    }

    /// `gelu(self, approximate)` (floats).
    pub fn try_gelu(&self, approximate: GeluApproximate) -> Result<CudaTensor> {
        let (c, out) = plan::unary_plan(UnaryOp::Gelu, self.dtype())?;
        self.context()
            .launch("gelu", c, f::Gelu { approximate }, &[out, c], &[self], None)
    }

    /// `leaky_relu(self, slope)` (floats).
    pub fn try_leaky_relu(&self, negative_slope: f64) -> Result<CudaTensor> {
        let d = self.dtype();
        if !f::table::float_only_supports(d) {
            return Err(Error::UnsupportedDType {
                op: "leaky_relu",
                dtype: d,
                other: None,
            });
        }
        self.context().launch(
            "leaky_relu",
            d,
            f::LeakyRelu {
                slope: negative_slope,
            },
            &[d, d],
            &[self],
            None,
        )
    }

    /// `where(cond, self, other)`: the result dtype is the promotion of self and other.
    pub fn try_where<'a>(
        &self,
        cond: &CudaTensor,
        other: impl Into<CudaOperand<'a>>,
    ) -> Result<CudaTensor> {
        where_(cond, CudaOperand::Tensor(self), other.into())
    }
}

/// `torch.where(cond, a, b)` on the device (cond must be bool, as on the CPU).
pub fn where_(cond: &CudaTensor, a: CudaOperand, b: CudaOperand) -> Result<CudaTensor> {
    if cond.dtype() != DType::Bool {
        return Err(Error::DTypeMismatch {
            op: "where",
            expected: DType::Bool,
            got: cond.dtype(),
        });
    }
    let (ai, bi) = (info(a, false)?, info(b, false)?);
    let c = plan::common_dtype(&[ai, bi]).unwrap_or(ai.dtype);
    let ctx = cond.context();
    let mk = |o: CudaOperand| -> Result<CudaTensor> {
        match o {
            CudaOperand::Tensor(t) => Ok(t.clone()),
            CudaOperand::Scalar(s) => scalar_tensor(ctx, s, c),
        }
    };
    let (x, y) = (mk(a)?, mk(b)?);
    ctx.launch(
        "where",
        c,
        (),
        &[c, DType::Bool, c, c],
        &[cond, &x, &y],
        None,
    )
}

/// Whether `from` casts safely into `to` (PyTorch's in-place/out= rule), re-exported for the
/// device ops' callers.
pub fn casts_safely(from: DType, to: DType) -> bool {
    can_cast(from, to)
}

/// Every kernel name a plan of this module may launch exists in the committed list.
pub fn kernel_exists(name: &str) -> bool {
    kernel_list::KERNEL_NAMES.contains(&name)
}

/// The dtype/kind/value a clamp or masked_fill plan needs of an operand.
fn plain_info(o: CudaOperand) -> OperandInfo {
    match o {
        CudaOperand::Scalar(s) => OperandInfo {
            dtype: s.dtype(),
            kind: OperandKind::Scalar,
            value: Some(s),
        },
        CudaOperand::Tensor(t) => OperandInfo {
            dtype: t.dtype(),
            kind: if t.shape().is_empty() {
                OperandKind::ZeroDim
            } else {
                OperandKind::Dimensioned
            },
            value: None,
        },
    }
}

impl CudaTensor {
    /// `clamp(self, min, max)` with the CPU's promotion and checks ([`plan::clamp_plan`]).
    /// Scalar bounds run the `clamp` kernel; a tensor bound runs `maximum(min, x)` /
    /// `minimum(max, y)` (the same comparisons and NaN propagation; with NaN on both sides the
    /// result is a NaN whose payload may come from the other operand).
    pub fn try_clamp<'a, 'b>(
        &self,
        min: Option<CudaOperand<'a>>,
        max: Option<CudaOperand<'b>>,
    ) -> Result<CudaTensor> {
        let (mi, ma) = (min.map(plain_info), max.map(plain_info));
        let p = plan::clamp_plan(
            &plain_info(CudaOperand::Tensor(self)),
            mi.as_ref(),
            ma.as_ref(),
        )?;
        let c = p.compute;
        let ctx = self.context();
        let scalar = |b: plan::ClampBound| match b {
            plan::ClampBound::Scalar(s) => Some(s),
            _ => None,
        };
        let tensor = |o: Option<CudaOperand<'_>>| match o {
            Some(CudaOperand::Tensor(t)) => Some(t.clone()),
            _ => None,
        };
        let (lo_t, hi_t) = (tensor(min), tensor(max));
        let (lo_s, hi_s) = (scalar(p.min), scalar(p.max));
        // At most one bound per side, so this is always "lower bound, then upper bound", as the
        // CPU's functors apply them.
        let mut y = self.clone();
        if let Some(lo) = &lo_t {
            y = ctx.launch("maximum", c, (), &[c, c, c], &[lo, &y], None)?;
        }
        if lo_s.is_some() || hi_s.is_some() || (lo_t.is_none() && hi_t.is_none()) {
            y = crate::with_dtype!(c, T => ctx.launch("clamp", c,
                f::Clamp::<T> { min: lo_s.map(|s| s.to::<T>()), max: hi_s.map(|s| s.to::<T>()) },
                &[c, c], &[&y], None))?;
        }
        if let Some(hi) = &hi_t {
            y = ctx.launch("minimum", c, (), &[c, c, c], &[hi, &y], None)?;
        }
        Ok(y)
    }
    /// `clamp`; panics on error.
    #[track_caller]
    pub fn clamp<'a, 'b>(
        &self,
        min: Option<CudaOperand<'a>>,
        max: Option<CudaOperand<'b>>,
    ) -> CudaTensor {
        ok(self.try_clamp(min, max))
    }

    /// `hardtanh(self, min, max)` (numeric dtypes, bounds converted to self's dtype).
    pub fn try_hardtanh(
        &self,
        min: impl Into<Scalar>,
        max: impl Into<Scalar>,
    ) -> Result<CudaTensor> {
        let d = self.dtype();
        plan::hardtanh_check(d)?;
        let (lo, hi) = (min.into(), max.into());
        crate::with_dtype!(d, T => self.context().launch("hardtanh", d,
            f::Hardtanh::<T> { min: lo.to::<T>(), max: hi.to::<T>() }, &[d, d], &[self], None))
    }

    /// `masked_fill(self, mask, value)`: mask bool (broadcasts with self), value a scalar or a
    /// 0-d tensor that fits self's dtype; the result keeps self's dtype.
    pub fn try_masked_fill<'a>(
        &self,
        mask: &CudaTensor,
        value: impl Into<CudaOperand<'a>>,
    ) -> Result<CudaTensor> {
        plan::masked_fill_mask_check(mask.dtype())?;
        let v = match value.into() {
            CudaOperand::Scalar(s) => s,
            CudaOperand::Tensor(t) if t.shape().is_empty() => one_element_value(t)?,
            CudaOperand::Tensor(t) => {
                return Err(Error::InvalidArgument {
                    op: "masked_fill",
                    reason: format!(
                        "value must be a 0-dimensional tensor, got {} dims",
                        t.shape().len()
                    ),
                });
            }
        };
        let d = self.dtype();
        plan::masked_fill_check(mask.dtype(), v, d)?;
        crate::with_dtype!(d, T => self.context().launch("masked_fill", d,
            f::MaskedFill::<T> { value: v.to::<T>() }, &[d, d, DType::Bool], &[self, mask], None))
    }

    /// `lerp(self, end, weight)` (floats; weight a scalar or a tensor of self's dtype).
    pub fn try_lerp<'a>(
        &self,
        end: &CudaTensor,
        weight: impl Into<CudaOperand<'a>>,
    ) -> Result<CudaTensor> {
        let d = self.dtype();
        let w = weight.into();
        let wd = match w {
            CudaOperand::Tensor(t) => Some(t.dtype()),
            CudaOperand::Scalar(_) => None,
        };
        plan::lerp_check(d, end.dtype(), wd)?;
        let ctx = self.context();
        match w {
            CudaOperand::Scalar(s) => ctx.launch(
                "lerp_scalar",
                d,
                f::LerpScalar { weight: s.to_f64() },
                &[d, d, d],
                &[self, end],
                None,
            ),
            CudaOperand::Tensor(t) => {
                ctx.launch("lerp", d, (), &[d, d, d, d], &[self, end, t], None)
            }
        }
    }

    /// `addcmul(self, t1, t2, value)` = `self + value * t1 * t2` (numeric, promoted together).
    pub fn try_addcmul(
        &self,
        t1: &CudaTensor,
        t2: &CudaTensor,
        value: impl Into<Scalar>,
    ) -> Result<CudaTensor> {
        let value = value.into();
        let info = |t: &CudaTensor| plain_info(CudaOperand::Tensor(t));
        let c = plan::addcmul_plan(&info(self), &info(t1), &info(t2), value)?;
        let ctx = self.context();
        let (ty, ins) = ([c, c, c, c], [self, t1, t2]);
        match c {
            DType::F16 | DType::BF16 | DType::F32 => ctx.launch(
                "addcmul",
                c,
                f::Addcmul {
                    value: value.to::<f32>(),
                },
                &ty,
                &ins,
                None,
            ),
            DType::F64 => ctx.launch(
                "addcmul",
                c,
                f::Addcmul {
                    value: value.to::<f64>(),
                },
                &ty,
                &ins,
                None,
            ),
            _ => {
                crate::dispatch_dtypes!(c, int, T => ctx.launch("addcmul", c, f::Addcmul { value: value.to::<T>() }, &ty, &ins, None),
                _ => unreachable!("checked by the plan"))
            }
        }
    }
}
