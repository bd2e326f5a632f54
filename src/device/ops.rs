//! Ops on device tensors (feature `cuda`): the same method names and results as the
//! `DynTensor` ops (`try_add`, `add`, `try_exp`, `try_where`, `try_to`, ...). Each is
//! [`elementwise_plan`]'s op over the tensor's [`CudaContext`] (its [`DeviceBackend`]): the dtype
//! decision and every dtype/scalar check come from [`crate::ops::plan`], the code the CPU
//! runners use; only the launch differs (a kernel of `gpu_kernel_list!`).
//!
//! [`DeviceBackend`]: super::backend::DeviceBackend

use super::cuda::{CudaContext, CudaTensor};
pub use super::elementwise_plan::DeviceOperand;
use super::{Device, elementwise_plan, kernel_list};
use crate::Element;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::functors::{BinaryOp, GeluApproximate, UnaryOp};
use crate::promotion::can_cast;
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
pub type CudaOperand<'a> = DeviceOperand<'a, CudaTensor>;

impl<'a> From<&'a CudaTensor> for CudaOperand<'a> {
    fn from(t: &'a CudaTensor) -> Self {
        DeviceOperand::Tensor(t)
    }
}

#[track_caller]
fn ok<T>(r: Result<T>) -> T {
    r.or_panic()
}

/// The context of an op's first tensor operand.
fn context_of(op: &'static str, ops: &[CudaOperand]) -> Result<CudaContext> {
    ops.iter()
        .find_map(|o| match o {
            DeviceOperand::Tensor(t) => Some(t.context().clone()),
            DeviceOperand::Scalar(_) => None,
        })
        .ok_or_else(|| Error::InvalidArgument {
            op,
            reason: "no device tensor among the operands".into(),
        })
}

/// `op(a, b)` on the device, with the CPU runner's promotion, checks and functor choice
/// ([`elementwise_plan::binary`]).
pub fn binary(op: BinaryOp, a: CudaOperand, b: CudaOperand) -> Result<CudaTensor> {
    elementwise_plan::binary(&context_of(op.name(), &[a, b])?, op, a, b)
}

/// `op(a)` on the device.
pub fn unary(op: UnaryOp, a: &CudaTensor) -> Result<CudaTensor> {
    elementwise_plan::unary(a.context(), op, a)
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
        elementwise_plan::to(self.context(), self, dtype)
    }
    /// `to`; panics on error.
    #[track_caller]
    pub fn to(&self, dtype: DType) -> CudaTensor {
        ok(self.try_to(dtype))
    }

    /// `gelu(self, approximate)` (floats).
    pub fn try_gelu(&self, approximate: GeluApproximate) -> Result<CudaTensor> {
        elementwise_plan::gelu(self.context(), self, approximate)
    }

    /// `leaky_relu(self, slope)` (floats).
    pub fn try_leaky_relu(&self, negative_slope: f64) -> Result<CudaTensor> {
        elementwise_plan::leaky_relu(self.context(), self, negative_slope)
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
    elementwise_plan::where_(cond.context(), cond, a, b)
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
        elementwise_plan::clamp(self.context(), self, min, max)
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
        elementwise_plan::hardtanh(self.context(), self, min.into(), max.into())
    }

    /// `masked_fill(self, mask, value)`: mask bool (broadcasts with self), value a scalar or a
    /// 0-d tensor that fits self's dtype; the result keeps self's dtype.
    pub fn try_masked_fill<'a>(
        &self,
        mask: &CudaTensor,
        value: impl Into<CudaOperand<'a>>,
    ) -> Result<CudaTensor> {
        elementwise_plan::masked_fill(self.context(), self, mask, value.into())
    }

    /// `lerp(self, end, weight)` (floats; weight a scalar or a tensor of self's dtype).
    pub fn try_lerp<'a>(
        &self,
        end: &CudaTensor,
        weight: impl Into<CudaOperand<'a>>,
    ) -> Result<CudaTensor> {
        elementwise_plan::lerp(self.context(), self, end, weight.into())
    }

    /// `addcmul(self, t1, t2, value)` = `self + value * t1 * t2` (numeric, promoted together).
    pub fn try_addcmul(
        &self,
        t1: &CudaTensor,
        t2: &CudaTensor,
        value: impl Into<Scalar>,
    ) -> Result<CudaTensor> {
        elementwise_plan::addcmul(self.context(), self, t1, t2, value.into())
    }
}
