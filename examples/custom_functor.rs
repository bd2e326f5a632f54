//! Your own elementwise functions in weft: a fused `a * x + b` and PyTorch's smooth-L1 (Huber
//! with `beta`), written once as `no_std`-style functors and run on the CPU over broadcast and
//! transposed inputs, on typed tensors and on runtime-dtype tensors.
//!
//! `cargo run --release --example custom_functor`
//!
//! The functors below use only `core` inside `call` (float math through
//! `weft::functors::real::Real`, which is libm), so the same source can also be compiled for the
//! GPU; the GPU steps are printed at the end (that half of weft is coming: it does not run yet).

use weft::functors::{Add, Functor, real::Real};
use weft::half::{bf16, f16};
use weft::ops::custom::{Apply, DynApply, Promotion};
use weft::{DType, DynTensor, Error, Tensor};

// ---------------------------------------------------------------------------------------------
// The functors: plain `Copy` data + `Functor` impls. This part is `no_std`-compatible and is
// what a GPU functor crate would contain unchanged.
// ---------------------------------------------------------------------------------------------

/// Fused `a * x + b` over three tensors, scaled by a parameter: `scale * (a * x) + b`.
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

// Which dtypes each functor supports on `DynTensor`s (same format as weft's GPU kernel list).
weft::impl_dyn_functors! {
    "scaled_mul_add" (T, T, T) => ScaledMulAdd: [f32, f64, f16, bf16];
    "smooth_l1"      (T, T)    => SmoothL1: [f32, f64, f16, bf16];
}

fn main() -> Result<(), Error> {
    // ---- typed tensors ------------------------------------------------------------------
    // a: [2, 3]; x: the transpose of a [3, 2] tensor (a strided view, nothing copied);
    // b: a row [3] broadcast over both rows.
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let x = Tensor::<f32>::from_vec(vec![0.5, -1.0, 2.0, 0.0, -0.5, 1.5], &[3, 2])?.t();
    let b = Tensor::<f32>::from_vec(vec![10.0, 20.0, 30.0], &[3])?;
    println!(
        "a =\n{a}\nx (transposed view, strides {:?}) =\n{x}\nb =\n{b}",
        x.strides()
    );

    let y = a.try_zip3_with(&x, &b, ScaledMulAdd { scale: 2.0 })?;
    println!("2 * (a * x) + b =\n{y}");

    let target = Tensor::<f32>::zeros(&[1]); // broadcast against everything
    let loss = x.try_zip_with(&target, SmoothL1 { beta: 1.0 })?;
    println!("smooth_l1(x, 0; beta = 1) =\n{loss}");

    // A built-in functor goes through the same door.
    let s = a.try_zip_with(&b, Add)?;
    println!("a + b via zip_with(Add) =\n{s}");

    // The builder: results converted to another element type, a chosen grain, a name for errors.
    let rounded: Tensor<i32> = Apply::new(ScaledMulAdd { scale: 0.5 })
        .name("scaled_mul_add")
        .run_as::<i32, _>((&a, &x, &b))?;
    println!("0.5 * (a * x) + b as i32 =\n{rounded}");

    // Shapes that do not broadcast are an error (the panicking forms panic with its message).
    match a.try_zip_with(&Tensor::<f32>::zeros(&[2]), SmoothL1 { beta: 1.0 }) {
        Err(e) => println!("expected error: {e}"),
        Ok(_) => unreachable!(),
    }

    // ---- runtime dtypes -----------------------------------------------------------------
    let xi = DynTensor::from(x.clone());
    let th = DynTensor::from_vec(
        vec![f16::from_f32(1.0), f16::from_f32(-1.0), f16::from_f32(0.0)],
        &[3],
    )?;
    // f32 and f16 tensors promote to f32 (PyTorch's rules).
    let l = xi.try_zip_with(&th, SmoothL1 { beta: 0.5 })?;
    println!("smooth_l1(x: f32, t: f16 [3]) -> {}:\n{l}", l.dtype());
    let t64 = DynTensor::from_vec(vec![0.25f64], &[1])?;
    let l = xi.try_zip_with(&t64, SmoothL1 { beta: 0.5 })?;
    println!("smooth_l1(x: f32, t: f64 [1]) -> {}", l.dtype());

    // Integer tensors compute in i64, which the functor does not list:
    let ints = DynTensor::from_vec(vec![1i64, 5, -3], &[3])?;
    match ints.try_zip_with(&ints, SmoothL1 { beta: 1.0 }) {
        Err(e) => println!("expected error: {e}"),
        Ok(_) => unreachable!(),
    }
    // ... unless the caller asks for integer inputs to compute in the default float (f32).
    let l = DynApply::new(SmoothL1 { beta: 1.0 })
        .promotion(Promotion::CommonFloat)
        .run(&[&ints, &DynTensor::scalar(DType::I64, 0.into())])?;
    println!(
        "smooth_l1(ints, 0) with Promotion::CommonFloat -> {}: {l}",
        l.dtype()
    );

    println!("{GPU_STEPS}");
    Ok(())
}

const GPU_STEPS: &str = "\
GPU (coming; not available in this version of weft):
  1. Put the functors above (structs + Functor impls, no std) in a `no_std` crate that depends
     on weft with `default-features = false`.
  2. List them once in the kernel-list format used above by `weft::impl_dyn_functors!`
     (\"smooth_l1\" (T, T) => SmoothL1: [f32, f64, f16, bf16];); the GPU half will generate
     the kernel entry points from the same list and build PTX with the pipeline of
     gpu/build-ptx.sh (nightly, nvptx64).
  3. At run time, load that PTX into a weft CUDA context and apply the functor to device
     tensors through the same calls (map / zip_with / zip3_with).
  Until then custom functors run on the CPU only; see README.md and gpu/README.md.";
