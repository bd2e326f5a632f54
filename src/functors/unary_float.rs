//! Unary float math (f16, bf16, f32, f64; the ops layer promotes integer and bool inputs to
//! f32 first) and rounding (floor/ceil/round/trunc also take integers, as the identity).
//! deg2rad/rad2deg too: PyTorch gives integer and bool inputs the default float dtype.

use super::real::{Real, int_unary_impls, real_unary_impls};

/// PyTorch's `M_PI_180` and `M_180_PI` (as f64).
const DEG2RAD: f64 = core::f64::consts::PI / 180.0;
const RAD2DEG: f64 = 180.0 / core::f64::consts::PI;

macro_rules! float_unary {
    ($($(#[$m:meta])* $name:ident: |$x:ident| $body:expr $(, f32 => $fast:path)?);* $(;)?) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        impl $name {
            #[inline(always)]
            fn eval<R: Real>(&self, $x: R) -> R {
                $body
            }
        }
        real_unary_impls!($name $(, f32 => |_: &$name, x: f32| $fast(x))?);
    )*};
}

float_unary!(
    /// `e^x`.
    Exp: |x| x.exp(), f32 => super::fastmath::exp_f32;
    /// `e^x - 1`, accurate near 0.
    Expm1: |x| x.exp_m1();
    /// Natural log (`log(-0.0) = -inf`, negative gives NaN).
    Log: |x| x.ln();
    /// `log(1 + x)`, accurate near 0.
    Log1p: |x| x.ln_1p();
    /// Base-2 log.
    Log2: |x| x.log2();
    /// Base-10 log.
    Log10: |x| x.log10();
    /// Square root (`sqrt(-0.0) = -0.0`).
    Sqrt: |x| x.sqrt();
    /// `1 / sqrt(x)`, two roundings like PyTorch (`rsqrt(-0.0) = -inf`).
    Rsqrt: |x| R::ONE / x.sqrt();
    /// Sine.
    Sin: |x| x.sin();
    /// Cosine.
    Cos: |x| x.cos();
    /// Tangent.
    Tan: |x| x.tan();
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
    Tanh: |x| x.tanh(), f32 => super::fastmath::tanh_f32;
    /// Error function.
    Erf: |x| x.erf();
    /// Complementary error function `1 - erf(x)`, accurate in the tails.
    Erfc: |x| x.erfc();
    /// `2^x`.
    Exp2: |x| x.exp2();
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
        int_unary_impls!($name, [u8, i8, i16, i32, i64], |x| x);
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
