//! Example user functor crate: a fused `scale * (a * x) + b` and PyTorch's smooth-L1, written
//! once, run on the CPU (weft's `examples/custom_functor.rs`) and compiled to PTX for the GPU:
//!
//! ```text
//! gpu/build-user-ptx.sh gpu/examples/user-functors target/user-ptx/user_functors.ptx
//! ```
//!
//! Copy this directory to start your own: keep the crate attributes below, write `Copy`
//! functors with `core`-only `call`s, list them once in `weft::gpu_user_kernels!`.

// On the GPU: no std, and the two nightly features the generated kernel entry points need.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx, stdarch_nvptx))]

use weft::functors::{Functor, real::Real};
use weft::half::{bf16, f16};

/// Fused `a * x + b` over three tensors, scaled by a parameter: `scale * (a * x) + b`.
// `#[repr(C)]`: the value is copied byte for byte into the kernel argument, so the host and the
// nvptx64 build must lay it out the same way.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct ScaledMulAdd {
    pub scale: f64,
}

impl ScaledMulAdd {
    #[inline(always)]
    fn eval<R: Real>(&self, a: R, x: R, b: R) -> R {
        R::c(self.scale) * (a * x) + b
    }
}

/// PyTorch's `smooth_l1_loss(reduction='none')`: `0.5 d² / beta` where `|d| < beta`, else
/// `|d| - 0.5 beta` (`d = input - target`; `beta = 0` is the L1 loss).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct SmoothL1 {
    pub beta: f64,
}

impl SmoothL1 {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R, y: R) -> R {
        let d = (x - y).abs();
        let beta = R::c(self.beta);
        if d < beta {
            R::HALF * d * d / beta
        } else {
            d - R::HALF * beta
        }
    }
}

// The `Functor` impls: f32/f64 compute directly, f16/bf16 compute in f32 and round once (weft's
// own convention). A small macro keeps it to one line per functor.
macro_rules! float_impls {
    ($f:ty, ($($x:ident),+)) => {
        float_impls!(@one $f, ($($x),+), f32, |v: f32| v, |r: f32| r);
        float_impls!(@one $f, ($($x),+), f64, |v: f64| v, |r: f64| r);
        float_impls!(@one $f, ($($x),+), f16, |v: f16| v.to_f32(), f16::from_f32);
        float_impls!(@one $f, ($($x),+), bf16, |v: bf16| v.to_f32(), bf16::from_f32);
    };
    (@one $f:ty, ($($x:ident),+), $t:ty, $up:expr, $down:expr) => {
        impl Functor<($(float_impls!(@ty $x $t),)+)> for $f {
            type Output = $t;
            #[inline(always)]
            fn call(&self, ($($x,)+): ($(float_impls!(@ty $x $t),)+)) -> $t {
                ($down)(self.eval($(($up)($x)),+))
            }
        }
    };
    (@ty $x:ident $t:ty) => { $t };
}
float_impls!(ScaledMulAdd, (a, x, b));
float_impls!(SmoothL1, (x, y));

// One list: the GPU kernels `{op}_{t}_c` / `{op}_{t}_s` (nvptx64 build) and, on the host, the
// `DynFunctor` impls (which dtypes `DynTensor`/`CudaTensor` calls accept).
weft::gpu_user_kernels! {
    "scaled_mul_add" (T, T, T) => ScaledMulAdd: [f32, f64, f16, bf16];
    "smooth_l1"      (T, T)    => SmoothL1: [f32, f64, f16, bf16];
}
