//! Unary float math (f16, bf16, f32, f64; the ops layer promotes integer and bool inputs to
//! f32 first) and rounding (floor/ceil/round/trunc also take integers, as the identity).
//! deg2rad/rad2deg too: PyTorch gives integer and bool inputs the default float dtype.

use super::real::{Real, int_unary_impls, real_unary_impls};

/// PyTorch's `M_PI_180` and `M_180_PI` (as f64).
const DEG2RAD: f64 = core::f64::consts::PI / 180.0;
const RAD2DEG: f64 = 180.0 / core::f64::consts::PI;

/// Error function. f32: `fastmath::erf` (1 ulp), f64: `fastmath::double_erf_pow::erf_f64` (two polynomials, 1 ulp); f16/bf16: PyTorch's
/// vectorized form ([`erf_vectorized_f32`]), whose cancellation gives 0 for tiny |x|
/// (`erf(1e-8) = 0` in bf16, as PyTorch).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Erf;

// Narrow: |x| < 1, where both forms are their first polynomial alone.
macro_rules! erf_impls {
    ($($t:ty: $central:path, $in_central:path;)*) => {$(
        impl super::Functor<($t,)> for Erf {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                Real::erf(x)
            }
            const HAS_NARROW_DOMAIN: bool = true;
            #[inline(always)]
            fn in_narrow_domain(&self, (x,): ($t,)) -> bool {
                $in_central(x)
            }
            #[inline(always)]
            fn call_narrow(&self, (x,): ($t,)) -> $t {
                $central(x)
            }
        }
    )*};
}
erf_impls! {
    f32: super::fastmath::erf::erf_f32_central, super::fastmath::erf::erf_f32_is_central;
    f64: super::fastmath::double_erf_pow::erf_f64_central,
        super::fastmath::double_erf_pow::erf_f64_is_central;
}
// f16/bf16: PyTorch's vectorized form in f32, rounded once (`half_form`).
impl super::HalfOwnForm<(f32,)> for Erf {
    #[inline(always)]
    fn call_half<H: super::HalfFormat>(&self, (x,): (f32,)) -> f32 {
        erf_vectorized_f32(x)
    }
}
super::half_form::half_functors_from_own_form!(Erf, unary);

/// PyTorch's `Vectorized<float>::erf` (ATen cpu/vec), step for step with its fused
/// multiply-adds: Abramowitz & Stegun 7.1.26, `sign(x) (1 - r(t) t e^(-x^2))`,
/// `t = 1 / (1 + p|x|)`. The fmas decide the tiny-|x| results (exactly 0), so they are real
/// fmas here ([`fma_f32`](super::fastmath::fma_f32)), not `a * b + c`; its `exp` is SLEEF's,
/// [`exp_f32_sleef`](super::fastmath::exp_f32_sleef).
#[allow(clippy::excessive_precision)] // PyTorch's constants, digit for digit
#[inline(always)]
fn erf_vectorized_f32(x: f32) -> f32 {
    use super::fastmath::fma_f32;
    let sign = x.to_bits() & 0x8000_0000;
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let t = 1.0 / fma_f32(0.327_591_1, ax, 1.0);
    let r = fma_f32(
        fma_f32(
            fma_f32(fma_f32(1.061_405_429, t, -1.453_152_027), t, 1.421_413_741),
            t,
            -0.284_496_736,
        ),
        t,
        0.254_829_592,
    );
    let e = super::fastmath::exp_f32_sleef(-(x * x));
    let y = fma_f32(-e * t, r, 1.0);
    f32::from_bits(y.to_bits() ^ sign)
}

macro_rules! float_unary {
    ($($(#[$m:meta])* $name:ident: |$x:ident| $body:expr);* $(;)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl $name {
            #[inline(always)]
            fn eval<R: Real>(&self, $x: R) -> R {
                $body
            }
        }
        real_unary_impls!($name);
    )*};
}

/// Functors with a narrow form: `Real`'s `$f`, and `$narrow` on the inputs where `$domain`
/// holds (`Functor::in_narrow_domain`, for the f32 and f64 kernels).
macro_rules! narrow_unary {
    ($($(#[$m:meta])* $name:ident: $f:ident, $narrow:ident where $domain:ident;)*) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl $name {
            #[inline(always)]
            fn eval<R: Real>(&self, x: R) -> R {
                x.$f()
            }
            #[inline(always)]
            fn eval_narrow<R: Real>(&self, x: R) -> R {
                x.$narrow()
            }
            #[inline(always)]
            fn in_narrow<R: Real>(&self, x: R) -> bool {
                x.$domain()
            }
        }
        real_unary_impls!($name, narrow: eval_narrow, domain: in_narrow);
    )*};
}

narrow_unary! {
    /// Sine (narrow: the short argument reduction's domain).
    Sin: sin, sin_narrow where trig_narrow;
    /// Cosine.
    Cos: cos, cos_narrow where trig_narrow;
    /// Tangent.
    Tan: tan, tan_narrow where trig_narrow;
    /// Natural log (`log(-0.0) = -inf`, negative gives NaN; narrow: positive normal inputs,
    /// no subnormal scaling and no special-case selects).
    Log: ln, ln_normal where is_positive_normal;
    /// Base-2 log.
    Log2: log2, log2_normal where is_positive_normal;
    /// Base-10 log.
    Log10: log10, log10_normal where is_positive_normal;
    /// Complementary error function `1 - erf(x)`, accurate in the tails (narrow: |x| < 1.25,
    /// f64 without the tails' exps).
    Erfc: erfc, erfc_central where is_erfc_central;
}

/// `e^x`. Subnormal results (f32 x < -87) come without a subnormal floating-point operation
/// (`Real::exp_without_assists`); blocks whose results are all normal run the plain form.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Exp;
impl Exp {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x.exp_without_assists()
    }
    #[inline(always)]
    fn eval_narrow<R: Real>(&self, x: R) -> R {
        x.exp_normal()
    }
    #[inline(always)]
    fn in_narrow<R: Real>(&self, x: R) -> bool {
        x.exp_is_normal()
    }
}
real_unary_impls!(Exp, narrow: eval_narrow, domain: in_narrow);

/// `2^x`. f64 blocks whose results are all normal (x >= -1020) run a form with one scale
/// factor and no threshold selects (`double_hyp::exp2_f64_normal`, the same bits): 1.27x
/// PyTorch's time without it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Exp2;
impl Exp2 {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R) -> R {
        x.exp2()
    }
}
impl super::Functor<(f64,)> for Exp2 {
    type Output = f64;
    #[inline(always)]
    fn call(&self, (x,): (f64,)) -> f64 {
        super::fastmath::double_hyp::exp2_f64(x)
    }
    const HAS_NARROW_DOMAIN: bool = true;
    #[inline(always)]
    fn in_narrow_domain(&self, (x,): (f64,)) -> bool {
        super::fastmath::double_hyp::exp2_f64_is_normal(x)
    }
    #[inline(always)]
    fn call_narrow(&self, (x,): (f64,)) -> f64 {
        super::fastmath::double_hyp::exp2_f64_normal(x)
    }
}
impl super::Functor<(f32,)> for Exp2 {
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        self.eval(x)
    }
}
real_unary_impls!(@half Exp2);

/// Square root (`sqrt(-0.0) = -0.0`): the hardware's correctly rounded root, which the CPU
/// kernels compute without its slow unit where they can (`Functor::VECTOR_FORM`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sqrt;
macro_rules! sqrt_impls {
    ($($t:ty),*) => {$(
        impl super::Functor<($t,)> for Sqrt {
            type Output = $t;
            #[inline(always)]
            fn call(&self, (x,): ($t,)) -> $t {
                Real::sqrt(x)
            }
            const VECTOR_FORM: super::VectorForm = super::VectorForm::Sqrt;
        }
    )*};
}
sqrt_impls!(f32, f64);
real_unary_impls!(@half Sqrt);

float_unary!(
    /// `e^x - 1`, accurate near 0.
    Expm1: |x| x.exp_m1();
    /// `log(1 + x)`, accurate near 0.
    Log1p: |x| x.ln_1p();
    /// `1 / sqrt(x)`, two roundings like PyTorch (`rsqrt(-0.0) = -inf`).
    Rsqrt: |x| R::ONE / x.sqrt();
    /// Arc sine.
    Asin: |x| x.asin();
    /// Arc cosine.
    Acos: |x| x.acos();
    /// Arc tangent.
    Atan: |x| x.atan();
    /// Hyperbolic sine.
    Sinh: |x| x.sinh();
    /// Hyperbolic cosine.
    Cosh: |x| x.cosh();
    /// Hyperbolic tangent.
    Tanh: |x| x.tanh();
    /// Inverse hyperbolic sine.
    Asinh: |x| x.asinh();
    /// Inverse hyperbolic cosine (NaN below 1).
    Acosh: |x| x.acosh();
    /// Inverse hyperbolic tangent (±inf at ±1, NaN beyond).
    Atanh: |x| x.atanh();
    /// Degrees to radians: `x * (π/180)`, the constant rounded to the computation type once
    /// (f32 for f16/bf16: PyTorch multiplies by a wrapped f64 scalar, used at opmath precision).
    Deg2rad: |x| x * R::c(DEG2RAD);
    /// Radians to degrees: `x * (180/π)`, like [`Deg2rad`].
    Rad2deg: |x| x * R::c(RAD2DEG);
    /// `x - trunc(x)` (keeps the sign of x; NaN for ±inf).
    Frac: |x| x - x.trunc();
);

macro_rules! rounding {
    ($($(#[$m:meta])* $name:ident: |$x:ident| $body:expr),* $(,)?) => {$(
        float_unary!($(#[$m])* $name: |$x| $body);
        // Integers are already integral: the identity, as PyTorch.
        int_unary_impls!($name, int, |x| x);
    )*};
}

rounding!(
    /// Round toward -inf.
    Floor: |x| x.floor(),
    /// Round toward +inf.
    Ceil: |x| x.ceil(),
    /// Round half to even (`round(2.5) = 2`, `round(-0.5) = -0.0`).
    Round: |x| x.round_even(),
    /// Round toward zero.
    Trunc: |x| x.trunc(),
);
