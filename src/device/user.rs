//! Your own functors on device tensors (feature `cuda`): the calls of the CPU
//! ([`DynTensor::zip_with`](crate::DynTensor::zip_with) etc.) on [`CudaTensor`]s, running the
//! kernels that [`gpu_user_kernels!`](crate::gpu_user_kernels) wrote into your functor crate's
//! PTX (built by `gpu/build-user-ptx.sh`, loaded with the `unsafe` [`CudaContext::load_module`],
//! whose contract makes these calls sound; each launch checks the kernel's parameter list).
//!
//! ```no_run
//! # #[derive(Copy, Clone)] #[repr(C)] struct SmoothL1 { beta: f64 }
//! # impl weft::Functor<(f32, f32)> for SmoothL1 {
//! #     type Output = f32;
//! #     fn call(&self, (x, y): (f32, f32)) -> f32 { (x - y).abs() }
//! # }
//! # weft::gpu_user_kernels! { "smooth_l1" (T, T) => SmoothL1: [f32]; }
//! use weft::{Device, Tensor};
//! let ctx = weft::device::ops::context(Device::Cuda(0))?;
//! // SAFETY: built by gpu/build-user-ptx.sh from the crate that defines SmoothL1.
//! unsafe { ctx.load_module_file("target/user-ptx/user_functors.ptx")? };
//! let x = Tensor::<f32>::from_vec(vec![0.0, 0.5, 3.0, -2.0], &[2, 2])?.to_device(Device::Cuda(0))?;
//! let t = Tensor::<f32>::zeros(&[2]).to_device(Device::Cuda(0))?;
//! let loss = x.try_zip_with(&t, SmoothL1 { beta: 1.0 })?; // kernel smooth_l1_f32_{c|s}
//! assert_eq!(loss.to_vec::<f32>()?, vec![0.0, 0.125, 2.5, 1.5]);
//! # Ok::<(), weft::Error>(())
//! ```
//!
//! The computation dtype is chosen as on the CPU ([`Promotion`], default PyTorch's common
//! dtype); the kernel is `{NAME}_{dtype}_{c|s}` ([`DynFunctor::NAME`]); operands of another
//! dtype are converted while loading (the strided kernel), the output has the functor's output
//! dtype. Errors: a dtype the functor does not list is [`Error::UnsupportedDType`] (as on the
//! CPU); a kernel no loaded module defines, or no CUDA driver, is [`Error::Device`].

use super::cuda::{CudaContext, CudaTensor};
use crate::device::kernel_list::kernel_name;
use crate::dtype::DType;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::ops::custom::{DynFunctor, Promotion, Signature, compute_dtype};

/// What a custom-functor call on device tensors launches: the kernel `{op}_{compute}_{c|s}`
/// with this signature (output dtype first, then each argument's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserKernelPlan {
    /// The op name ([`DynFunctor::NAME`]), the kernels' prefix.
    pub op: &'static str,
    /// The computation dtype (the kernels' type suffix).
    pub compute: DType,
    /// Output dtype, then each argument's.
    pub signature: Signature,
}

impl UserKernelPlan {
    /// The kernel name of `variant` (`"c"` contiguous, `"s"` strided).
    pub fn kernel(&self, variant: &str) -> String {
        kernel_name(self.op, self.compute, variant)
    }
}

/// The plan of `F` over inputs `(dtype, is 0-d)` (no device needed): the arity check, the
/// computation dtype under `promotion`, and the functor's signature for it
/// ([`Error::UnsupportedDType`] when it does not list that dtype).
pub fn plan_user_kernel<F: DynFunctor>(
    inputs: &[(DType, bool)],
    promotion: Promotion,
) -> Result<UserKernelPlan> {
    if inputs.len() != F::ARITY {
        return Err(Error::InvalidArgument {
            op: F::NAME,
            reason: format!("takes {} tensor input(s), got {}", F::ARITY, inputs.len()),
        });
    }
    let compute = compute_dtype(F::NAME, inputs, promotion)?;
    let signature = F::signature(compute).ok_or(Error::UnsupportedDType {
        op: F::NAME,
        dtype: compute,
        other: None,
    })?;
    Ok(UserKernelPlan {
        op: F::NAME,
        compute,
        signature,
    })
}

/// `f` over 1 to 3 device tensors (as many as [`DynFunctor::ARITY`], same context), broadcast,
/// computing in the dtype `promotion` chooses (see the [module docs](self)).
pub fn apply_cuda<F: DynFunctor>(
    f: F,
    inputs: &[&CudaTensor],
    promotion: Promotion,
) -> Result<CudaTensor> {
    let kinds: Vec<(DType, bool)> = inputs
        .iter()
        .map(|t| (t.dtype(), t.shape().is_empty()))
        .collect();
    let plan = plan_user_kernel::<F>(&kinds, promotion)?;
    let ctx: &CudaContext = inputs[0].context();
    // SAFETY: the kernel `{F::NAME}_{compute}_{c|s}` comes from a module loaded with the unsafe
    // `CudaContext::load_module`, whose caller vouched that it was compiled for `F` with the
    // signature `F::signature(compute)`, which is `plan.signature`; its parameter list is
    // checked against `F` before the launch.
    unsafe { ctx.launch_user(plan.op, plan.compute, f, &plan.signature, inputs) }
}

#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    r.or_panic()
}

/// Custom functors on device tensors: the same calls as on [`DynTensor`](crate::DynTensor)
/// (inputs promoted to their common dtype, which the functor must list).
impl CudaTensor {
    /// `f(x)` for every element.
    pub fn try_map<F: DynFunctor>(&self, f: F) -> Result<CudaTensor> {
        apply_cuda(f, &[self], Promotion::Common)
    }
    /// Panicking form of [`CudaTensor::try_map`].
    #[track_caller]
    pub fn map<F: DynFunctor>(&self, f: F) -> CudaTensor {
        or_panic(self.try_map(f))
    }
    /// `f(x, y)` over `self` and `other`, promoted and broadcast.
    pub fn try_zip_with<F: DynFunctor>(&self, other: &CudaTensor, f: F) -> Result<CudaTensor> {
        apply_cuda(f, &[self, other], Promotion::Common)
    }
    /// Panicking form of [`CudaTensor::try_zip_with`].
    #[track_caller]
    pub fn zip_with<F: DynFunctor>(&self, other: &CudaTensor, f: F) -> CudaTensor {
        or_panic(self.try_zip_with(other, f))
    }
    /// `f(x, y, z)` over three tensors, promoted and broadcast.
    pub fn try_zip3_with<F: DynFunctor>(
        &self,
        b: &CudaTensor,
        c: &CudaTensor,
        f: F,
    ) -> Result<CudaTensor> {
        apply_cuda(f, &[self, b, c], Promotion::Common)
    }
    /// Panicking form of [`CudaTensor::try_zip3_with`].
    #[track_caller]
    pub fn zip3_with<F: DynFunctor>(&self, b: &CudaTensor, c: &CudaTensor, f: F) -> CudaTensor {
        or_panic(self.try_zip3_with(b, c, f))
    }
}
