//! Branch-free f32 `sinh`, `cosh`, `asinh`, `acosh` and `atanh` that LLVM vectorizes, all
//! computed in f64 internally and rounded once to f32 (so overflow thresholds, subnormal
//! results and signed zeros come out as the f64 reference rounded to f32).
//!
//! `sinh`/`cosh`: `e = e^|x| - 1` by the f64 kernel of [`super::expm1_f32`] (`|x| = n ln2 + r`,
//! Taylor series of degree 11 for `e^r - 1`, error < 2^-45), then the cancellation-free forms
//! `sinh |x| = (e + e/(e + 1)) / 2` (FreeBSD/musl `sinhf`) and `cosh x = (E + 1/E) / 2` with
//! `E = e + 1`. |x| is clamped to 90 (e^90 is finite in f64, its f32 rounding is inf).
//!
//! The inverse functions are `log a` of a positive f64 `a` given as a ratio `n/d` whose parts
//! are exact or nearly so: `a = 2^k m`, m in [√½, √2), and `log m = 2 atanh s`,
//! `s = (m - 1)/(m + 1) = (n - 2^k d)/(n + 2^k d)`, the numerator exact by Sterbenz, so
//! there is no cancellation near `a = 1` and a single division; then
//! `log a = k ln2 + 2s + s R(s²)` with FreeBSD/fdlibm `__ieee754_log`'s `Lg1..Lg7`
//! polynomial (|error| < 2^-58 for |s| <= 0.1716).
//! - `asinh |x| = log(|x| + q)`, `q = √(x² + 1)`: `n = (|x| - 2^k) + q`,
//!   `d = |x| + q + 2^k`, and for k = 0 `s = |x|/(1 + q)` (the same value, without the
//!   rounding error of `q - 1`); x² cannot overflow in f64. |x| < 2^-12 gives x (the x³/6
//!   term is below half an ulp).
//! - `acosh x = log(x + √((x - 1)(x + 1)))`, the same with `x - 1` and `x + 1` exact.
//! - `atanh |x| = ½ log((1 + |x|)/(1 - |x|))`: `1 ± |x|` are exact in f64, k comes from an
//!   f32 estimate of the quotient (an off-by-one k only moves m slightly past [√½, √2)).
//!   |x| < 2^-12 gives x.

// The coefficients are as published (fdlibm's in full precision); the clamps are selects.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

use super::expm1_in_f64 as expm1_f64;

/// `|x|` of an f32, clamped to 90 (NaN stays NaN), as f64.
#[inline(always)]
fn abs_clamped(x: f32) -> f64 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    (if ax > 90.0 { 90.0 } else { ax }) as f64
}

/// Hyperbolic sine for f32, branch-free: `(e + e/(e + 1))/2`, `e = e^|x| - 1` in f64, with the
/// sign of x (see the module docs). Max error 1 ulp against f64 `sinh` rounded (all 2^32
/// inputs; at x = 0.30872276, a near-tie).
#[inline(always)]
pub fn sinh_f32(x: f32) -> f32 {
    let e = expm1_f64(abs_clamped(x));
    let r = (0.5 * e + 0.5 * (e / (e + 1.0))) as f32;
    // Odd: ±0 and the subnormals keep their sign, ±inf gives ±inf (e^90 rounds to inf).
    f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// Hyperbolic cosine for f32, branch-free: `(E + 1/E)/2`, `E = e^|x|` in f64 (see the module
/// docs). Max error 1 ulp against f64 `cosh` rounded (all 2^32 inputs, at x = 1.0438077).
#[inline(always)]
pub fn cosh_f32(x: f32) -> f32 {
    let e = expm1_f64(abs_clamped(x)) + 1.0;
    (0.5 * e + 0.5 / e) as f32
}

/// `log a` for a positive finite f64 `a = n/d` (see the module docs): `k` and `2^k` with
/// `a/2^k` in [√½, √2) (or slightly past), `s = (n - 2^k d)/(n + 2^k d)`; returns
/// `k ln2 + 2s + s R(s²)` as `(k ln2, s + s R(s²)/2)`, so that callers can halve it cheaply.
#[inline(always)]
fn log_tail(kf: f64, s: f64) -> (f64, f64) {
    // FreeBSD/fdlibm e_log.c: log(1+f) = 2s + s·R(s²), |error| < 2^-58.45 for |s| <= 0.1716.
    (
        kf * core::f64::consts::LN_2,
        s + 0.5 * s * super::double::log_poly(s * s),
    )
}

/// `(k as f64, 2^k)` for a positive f64 `a`, with `a/2^k` in [√½, √2) (musl's offset trick:
/// adding `1 - √½` in bits moves the exponent boundary from 1 to √½). `k` goes to f64 through
/// the `2^52 + k` bit pattern (AVX2 has no vector i64 -> f64 conversion).
#[inline(always)]
fn split_exp(a: f64) -> (f64, f64) {
    const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
    let ia = a
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - SQRT_HALF_BITS);
    let e = ia >> 52;
    let kf = f64::from_bits(0x4330_0000_0000_0000 | e) - (4_503_599_627_370_496.0 + 1023.0);
    (kf, f64::from_bits(e << 52))
}

/// `|x| < 2^-12`: the odd inverse functions are x itself there (the cubic term is below half
/// an ulp), which also keeps ±0 and the subnormals.
const TINY: f32 = 1.0 / 4096.0;

/// Inverse hyperbolic sine for f32, branch-free: `log(|x| + √(x² + 1))` in f64, with the
/// sign of x (see the module docs). Equal to f64 `asinh` rounded on all 2^32 inputs (0 ulp).
#[inline(always)]
pub fn asinh_f32(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let a = ax as f64;
    let q = super::sqrt_f64(a * a + 1.0);
    let sum = a + q;
    let (kf, p) = split_exp(sum);
    // k = 0: s = tanh(asinh(|x|)/2) = |x|/(1 + q), free of the rounding of q - 1.
    let (n, d) = if kf == 0.0 {
        (a, 1.0 + q)
    } else {
        ((a - p) + q, sum + p)
    };
    let (hi, lo) = log_tail(kf, n / d);
    let r = (hi + 2.0 * lo) as f32;
    let r = f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000));
    // Tiny |x|, ±inf and NaN: x itself.
    let r = if ax < f32::INFINITY { r } else { x };
    if ax < TINY { x } else { r }
}

/// Inverse hyperbolic cosine for f32, branch-free: `log(x + √((x - 1)(x + 1)))` in f64 (see
/// the module docs). NaN below 1 (-inf included), +inf at +inf. Equal to f64 `acosh`
/// rounded on all 2^32 inputs (0 ulp).
#[inline(always)]
pub fn acosh_f32(x: f32) -> f32 {
    let a = x as f64;
    let q = super::sqrt_f64((a - 1.0) * (a + 1.0));
    let sum = a + q;
    let (kf, p) = split_exp(sum);
    let s = ((a - p) + q) / (sum + p);
    let (hi, lo) = log_tail(kf, s);
    let r = (hi + 2.0 * lo) as f32;
    let r = if x < 1.0 { f32::NAN } else { r };
    // +inf and NaN: x itself.
    if x < f32::INFINITY { r } else { x }
}

/// Inverse hyperbolic tangent for f32, branch-free: `½ log((1 + |x|)/(1 - |x|))` in f64, with
/// the sign of x (see the module docs). ±inf at ±1, NaN beyond. Equal to f64 `atanh`
/// rounded on all 2^32 inputs (0 ulp).
#[inline(always)]
pub fn atanh_f32(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    // k from an f32 estimate of (1 + |x|)/(1 - |x|) (up to 2^25 for |x| < 1).
    let u = (1.0 + ax) / (1.0 - ax);
    let iu = u.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let k = ((iu >> 23) as i32).wrapping_sub(127);
    let kf = k as f64;
    let p = f64::from_bits((k.wrapping_add(1023) as u32 as u64) << 52);
    let a = ax as f64;
    let (n, d) = (1.0 + a, 1.0 - a);
    let pd = p * d;
    let s = (n - pd) / (n + pd);
    let (hi, lo) = log_tail(kf, s);
    let r = (0.5 * hi + lo) as f32;
    let r = if ax == 1.0 { f32::INFINITY } else { r };
    let r = f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000));
    // |x| > 1 (and NaN): NaN; tiny |x|: x itself.
    let r = if ax <= 1.0 { r } else { f32::NAN };
    if ax < TINY { x } else { r }
}
