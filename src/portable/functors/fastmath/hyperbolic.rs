//! Branch-free f32 `sinh`, `cosh`, `asinh`, `acosh` and `atanh` that LLVM vectorizes, in f32
//! with fused multiply-adds (8 lanes in AVX2, 16 in AVX-512; the f64 forms they replace ran at
//! half the width, with f64 divisions), each within 2 ulp of the f64 reference rounded
//! (`tests/math_accuracy.rs`), with the special values exact.
//!
//! `sinh`/`cosh`: `h = e^|x|/2` by [`super::exp_half_f32`] (the scale `2^(n-1)` applied to
//! Cephes' `expf`, so `h` is finite up to the functions' own overflow at |x| = 89.416), then
//! `cosh x = h + 1/(4h)` and, from |x| = 1 on, `sinh |x| = h - 1/(4h)` (the subtraction
//! loses at most a factor 1.31 there). Below 1, sinh is its odd Taylor series to x^11
//! (truncation < 2^-32 relative), which keeps ±0 and the subnormals as they are.
//!
//! The inverse functions are one log each, [`super::log1p_kernel`] (Cephes' `logf` polynomial
//! on `1 + t` with FreeBSD's correction for the rounding of `1 + t`), on an argument with no
//! cancellation (fdlibm's forms, branches turned into selects of the inputs):
//! - `asinh |x| = log1p(|x| + x²/(1 + √(x² + 1)))` below 2, and from 2 on
//!   `ln 2 + ln(|x| + ½/(|x| + √(x² + 1)))` (ln 2 as `kadd`, so nothing overflows; where x²
//!   does, the fraction is 0 and the form is `ln 2|x|`, as it should be).
//! - `acosh x = log1p(t + √(t(t + 2)))`, `t = x - 1` (exact), below 2, and
//!   `ln 2 + ln(x - ½/(x + √(x² - 1)))` from 2 on.
//! - `atanh |x| = ½ log1p(2|x| + 2x²/(1 - |x|))` (`1 - |x|` exact for |x| >= ½); ±1 gives
//!   ±inf through the division by 0, |x| > 1 a log of something below 0 (NaN).
//!
//! |x| < 2^-12 gives x for the odd inverse functions (the x³ term is below half an ulp).

use super::{exp_half_f32, fma_f32, log1p_kernel, sqrt_f32};

/// `|x|` of an f32 (the sign bit cleared; NaN stays NaN).
#[inline(always)]
fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff)
}

/// `r` (>= 0 or NaN) with the sign of `x`.
#[inline(always)]
fn with_sign_of(r: f32, x: f32) -> f32 {
    f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// Hyperbolic sine for f32, branch-free: the Taylor series below |x| = 1, `h - 1/(4h)` with
/// `h = e^|x|/2` from there, with the sign of x (see the module docs).
#[inline(always)]
pub fn sinh_f32(x: f32) -> f32 {
    let ax = abs(x);
    let z = x * x;
    let mut p = 1.0 / 39_916_800.0f32;
    p = fma_f32(p, z, 1.0 / 362_880.0);
    p = fma_f32(p, z, 1.0 / 5_040.0);
    p = fma_f32(p, z, 1.0 / 120.0);
    p = fma_f32(p, z, 1.0 / 6.0);
    let small = fma_f32(p * z, ax, ax);
    let h = exp_half_f32(ax);
    let big = h - 0.25 / h;
    // ±inf: h is inf, so is big; NaN fails the compare and stays NaN.
    let r = if ax < 1.0 { small } else { big };
    with_sign_of(r, x)
}

/// Hyperbolic cosine for f32, branch-free: `h + 1/(4h)`, `h = e^|x|/2` (see the module docs).
#[inline(always)]
pub fn cosh_f32(x: f32) -> f32 {
    let h = exp_half_f32(abs(x));
    h + 0.25 / h
}

/// `|x|` below which the odd inverse functions are x itself (2^-12).
const TINY: f32 = 1.0 / 4096.0;

/// Inverse hyperbolic sine for f32, branch-free, with the sign of x (see the module docs).
#[inline(always)]
pub fn asinh_f32(x: f32) -> f32 {
    let a = abs(x);
    let q = sqrt_f32(fma_f32(a, a, 1.0));
    let big = a >= 2.0;
    // One division for both forms: x²/(1 + q) below 2, ½/(|x| + q) from 2 on.
    let num = if big { 0.5 } else { a * a };
    let den = if big { a + q } else { 1.0 + q };
    let r = log1p_kernel(a + num / den, big, if big { 1.0 } else { 0.0 });
    let r = with_sign_of(r, x);
    // ±inf and NaN: x itself; tiny |x| (±0 and subnormals included): x.
    let r = if a < f32::INFINITY { r } else { x };
    if a < TINY { x } else { r }
}

/// Inverse hyperbolic cosine for f32, branch-free (see the module docs). NaN below 1 (-inf
/// included), +inf at +inf.
#[inline(always)]
pub fn acosh_f32(x: f32) -> f32 {
    let big = x >= 2.0;
    let t = x - 1.0;
    let q = sqrt_f32(if big {
        fma_f32(x, x, -1.0)
    } else {
        t * (t + 2.0)
    });
    let arg = if big { x - 0.5 / (x + q) } else { t + q };
    let r = log1p_kernel(arg, big, if big { 1.0 } else { 0.0 });
    let r = if x < 1.0 { f32::NAN } else { r };
    // +inf and NaN: x itself.
    if x < f32::INFINITY { r } else { x }
}

/// Inverse hyperbolic tangent for f32, branch-free, with the sign of x (see the module docs).
/// ±inf at ±1, NaN beyond.
#[inline(always)]
pub fn atanh_f32(x: f32) -> f32 {
    let a = abs(x);
    let t = 2.0 * a + 2.0 * a * a / (1.0 - a);
    let r = 0.5 * log1p_kernel(t, false, 0.0);
    let r = if a == 1.0 { f32::INFINITY } else { r };
    let r = if a <= 1.0 { r } else { f32::NAN };
    let r = with_sign_of(r, x);
    if a < TINY { x } else { r }
}
