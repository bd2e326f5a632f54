//! Branch-free f32 `tan`, `atan`, `atan2`, `asin` and `acos` that LLVM vectorizes. `atan2`
//! computes in f64 internally (like `sin_f32`'s medium and wide forms), `tan` in f32 below
//! 2^16 and in f64 above, `atan`, `asin` and `acos` in f32 with their constant terms in two
//! parts; each is within 1-2 ulp of the correctly rounded result on the whole f32 domain,
//! special values exact.
//!
//! `tan`: below |x| = 2^16 the f32 reduction of `sin`/`cos` with its tail and an f32
//! polynomial carried in two parts ([`tan_f32_narrow`]); above, the f64 reductions of
//! `sin`/`cos` (`x = qπ/2 + t`, |t| <= π/4), FreeBSD/musl's f64 `__tandf` polynomial for
//! `tan t` (|tan t/t - p(t)| < 2^-25.5), and `-1/tan t` (the cotangent) for odd q.
//!
//! `atan`/`atan2`: Cephes `atanf`'s range reduction written as selects: |x| above tan(3π/8)
//! maps to `π/2 + atan(-1/|x|)`, above tan(π/8) to `π/4 + atan((|x|-1)/(|x|+1))`, so the
//! argument of the kernel is at most tan(π/8) in magnitude; each form is one quotient
//! `num/den`, so a lane does one division whatever its range. The kernel is FreeBSD/musl
//! `atanf`'s odd polynomial (`aT`, fit on [-7/16, 7/16]). `atan` does this in f32 (max 2 ulp;
//! the f64 form, 1 ulp, took 3x the copy limit for its f64 divisions). `atan2(y, x)` builds the
//! same quotient from |y| and |x| directly (`|y|/|x|`, `(|y|-|x|)/(|y|+|x|)`, `-|x|/|y|`; in
//! f64 each numerator and denominator is exact and no quotient over- or underflows), then
//! `π - θ` for a negative x (sign bit, so -0 counts) and the sign of y; the C99 cases (both
//! zero, both infinite, NaN) are selected at the end.
//!
//! `asin`/`acos`: Cephes `asinf`/`acosf` in f32: for |x| <= 1/2 the odd polynomial in x, above
//! it `asin|x| = π/2 - 2 asin(√((1-|x|)/2))` (`1 - |x|` exact), the same kernel on the square
//! root; `acos x = π/2 - asin x`, `2 asin(√((1-x)/2))`, or `π - 2 asin(√((1+x)/2))`, so
//! `acos(1) = +0` exactly and nothing cancels. Max 2 ulp (asin, just above |x| = 1/2, where
//! the root's rounding is doubled) and 1 ulp (acos).

// The coefficients are FreeBSD's and Cephes' as published (more digits than an f64 holds);
// `x - x` is the NaN of a non-finite x (libm's idiom, as in `sin_f32`).
#![allow(clippy::excessive_precision, clippy::eq_op)]

use super::{
    by_trig_domain, fma_f32, nan_unless_finite, rem_pio2, rem_pio2_f32_tail, rem_pio2_narrow,
    sqrt_f32, tan_from_poly,
};
use core::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

const SIGN: u32 = 0x8000_0000;

/// |x| as f32, via the bits.
#[inline(always)]
fn abs32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !SIGN)
}

/// `r` (non-negative) with the sign bit of `s`.
#[inline(always)]
fn with_sign_of(r: f32, s: f32) -> f32 {
    f32::from_bits(r.to_bits() | (s.to_bits() & SIGN))
}

/// `tan t` on [-π/4, π/4] (FreeBSD/musl `__tandf`, |tan t/t - p(t)| < 2^-25.5).
#[inline(always)]
fn tan_poly(t: f64) -> f64 {
    const T0: f64 = 0.333_331_395_030_791_399_758;
    const T1: f64 = 0.133_392_002_712_976_742_718;
    const T2: f64 = 0.053_381_237_844_567_039_352_3;
    const T3: f64 = 0.024_528_318_116_654_727_887_3;
    const T4: f64 = 0.002_974_357_433_599_673_049_27;
    const T5: f64 = 0.009_465_647_849_436_731_667_28;
    let z = t * t;
    let r = T4 + z * T5;
    let u = T2 + z * T3;
    let w = z * z;
    let s = z * t;
    let v = T0 + z * T1;
    (t + s * v) + (s * w) * (u + w * r)
}

/// Tangent for f32: [`tan_f32_narrow`] below 2^16, [`tan_f32_medium`] below 2^19,
/// [`tan_f32_wide`] above (the domains of [`sin_f32`](super::sin_f32)'s three forms).
#[inline(always)]
pub fn tan_f32(x: f32) -> f32 {
    by_trig_domain(x, tan_f32_narrow, tan_f32_medium, tan_f32_wide)
}

/// `tan t = t + t³·R(t²)` on |t| <= π/4 (minimax for R's relative error, 2^-25.6: the
/// t³ term is at most 0.22 of the result, so it adds < 2^-27.8 to it).
const TAN_R_F32: [f32; 7] = [
    0.333_333_34,
    0.133_332_31,
    0.053_994_507,
    0.021_620_817,
    0.009_963_171,
    0.001_183_770_3,
    0.003_844_018_2,
];

/// Tangent for |x| < 2^16, in f32 (16 lanes per AVX-512 vector where the f64 forms have 8):
/// the f32 reduction with its tail, `t = th + tl` ([`rem_pio2_f32_tail`]), then
/// [`tan_from_poly`] on `R(th²)` (`-1/tan` in odd quadrants). Max 1 ulp on every |x| < 2^16
/// (measured, all inputs; continuous error at most 1.07 ulp); meaningless above.
#[inline(always)]
pub fn tan_f32_narrow(x: f32) -> f32 {
    let (k, th, tl) = rem_pio2_f32_tail(x);
    let z = th * th;
    let mut r = TAN_R_F32[6];
    for c in [
        TAN_R_F32[5],
        TAN_R_F32[4],
        TAN_R_F32[3],
        TAN_R_F32[2],
        TAN_R_F32[1],
        TAN_R_F32[0],
    ] {
        r = fma_f32(r, z, c);
    }
    let r = tan_from_poly(th, tl, r, k & 1 != 0, fma_f32);
    // ±0 keeps its sign.
    if x == 0.0 { x } else { r }
}

/// Tangent for |x| < 2^19 (the short reduction `rem_pio2_narrow`, in f64); meaningless above.
#[inline(always)]
pub fn tan_f32_medium(x: f32) -> f32 {
    let (q, t) = rem_pio2_narrow(x);
    tan_from(x, q, t)
}

/// Tangent for f32, branch-free on the whole range: `rem_pio2` (exact, see the parent module),
/// musl's `__tandf` polynomial, `-1/tan` in odd quadrants. Max error 1 ulp (measured on all
/// 2^32 inputs).
#[inline(always)]
pub fn tan_f32_wide(x: f32) -> f32 {
    let (q, t) = rem_pio2(x);
    nan_unless_finite(x, tan_from(x, q, t))
}

/// `tan x` from `x = (4j + q)·π/2 + t`.
#[inline(always)]
fn tan_from(x: f32, q: u32, t: f64) -> f32 {
    let p = tan_poly(t);
    // Even quadrant: tan t; odd: tan(t + π/2) = -1/tan t (t is never 0 there: no f32 is a
    // nonzero multiple of π/2).
    let r = if q & 1 == 0 { p } else { -1.0 / p };
    // ±0 keeps its sign.
    if x == 0.0 { x } else { r as f32 }
}

/// tan(3π/8) and tan(π/8), Cephes `atanf`'s range limits.
const TAN_3PI_8: f64 = 2.414_213_562_373_095;
const TAN_PI_8: f64 = 0.414_213_562_373_095_03;

/// `atan z` for |z| <= tan(π/8) (FreeBSD/musl `atanf`'s `aT` polynomial, fit on [-7/16, 7/16]).
#[inline(always)]
fn atan_poly(z: f64) -> f64 {
    const A0: f64 = 3.333_332_836_6e-1;
    const A1: f64 = -1.999_915_838_2e-1;
    const A2: f64 = 1.425_363_570_5e-1;
    const A3: f64 = -1.064_801_737_7e-1;
    const A4: f64 = 6.168_760_731_8e-2;
    let s = z * z;
    let w = s * s;
    let s1 = s * (A0 + w * (A2 + w * A4));
    let s2 = w * (A1 + w * A3);
    z - z * (s1 + s2)
}

/// `atan(a/b)` in [0, π/2] for a, b >= 0 (not both 0 or both infinite): the Cephes reduction
/// as one quotient per range.
#[inline(always)]
fn atan_quotient(a: f64, b: f64) -> f64 {
    let big = a > TAN_3PI_8 * b;
    let mid = a > TAN_PI_8 * b;
    let num = if mid { a - b } else { a };
    let den = if mid { a + b } else { b };
    let num = if big { -b } else { num };
    let den = if big { a } else { den };
    let base = if mid { FRAC_PI_4 } else { 0.0 };
    let base = if big { FRAC_PI_2 } else { base };
    base + atan_poly(num / den)
}

/// π/2, π/4 and π as the f32 nearest each plus the f32 nearest the rest: a result `hi + (lo +
/// small)` is rounded once from nearly the exact sum.
const PIO2_HI: f32 = 1.570_796_370_506_286_6;
const PIO2_LO: f32 = -4.371_138_828_673_793e-8;
const PIO4_HI: f32 = 0.785_398_185_253_143_3;
const PIO4_LO: f32 = -2.185_569_414_336_896_4e-8;
const PI_HI: f32 = 3.141_592_741_012_573_2;
const PI_LO: f32 = -8.742_277_657_347_586e-8;

/// [`atan_poly`] in f32 (|z| <= tan(π/8), inside its fit range), with fused multiply-adds.
#[inline(always)]
fn atan_poly_f32(z: f32) -> f32 {
    const A0: f32 = 3.333_332_836_6e-1;
    const A1: f32 = -1.999_915_838_2e-1;
    const A2: f32 = 1.425_363_570_5e-1;
    const A3: f32 = -1.064_801_737_7e-1;
    const A4: f32 = 6.168_760_731_8e-2;
    let s = z * z;
    let w = s * s;
    let s1 = s * fma_f32(w, fma_f32(w, A4, A2), A0);
    let s2 = w * fma_f32(w, A3, A1);
    fma_f32(-z, s1 + s2, z)
}

/// Arctangent for f32, branch-free: Cephes `atanf`'s three ranges as selects (one f32
/// quotient per lane: `|x|`, `(|x|-1)/(|x|+1)` or `-1/|x|`), musl's `atanf` polynomial, the
/// range's base π/4 or π/2 added as two parts. In f32 (16 lanes with AVX-512; the f64 form
/// took 2x the time for its divisions). Max error 2 ulp (measured on all 2^32 inputs).
#[inline(always)]
pub fn atan_f32(x: f32) -> f32 {
    let a = abs32(x);
    let big = a > TAN_3PI_8 as f32;
    let mid = a > TAN_PI_8 as f32;
    let num = if mid { a - 1.0 } else { a };
    let den = if mid { a + 1.0 } else { 1.0 };
    // ±inf: -1/inf = -0, so π/2.
    let num = if big { -1.0 } else { num };
    let den = if big { a } else { den };
    let hi = if mid { PIO4_HI } else { 0.0 };
    let lo = if mid { PIO4_LO } else { 0.0 };
    let hi = if big { PIO2_HI } else { hi };
    let lo = if big { PIO2_LO } else { lo };
    // ±0 keeps its sign: 0 + (0 + 0) is +0, given x's sign below.
    let r = hi + (lo + atan_poly_f32(num / den));
    let r = with_sign_of(r, x);
    if x.is_nan() { x } else { r }
}

/// `atan2(y, x)` for f32, branch-free, with the C99 special cases (signed zeros, every
/// infinite pair, NaN): the `atan` kernel on the quotient of |y| and |x|, `π - θ` for a
/// negative (or -0) x, the sign of y. Max error 1 ulp (measured on 2^32 pairs of every
/// exponent combination and the ratio limits).
#[inline(always)]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    let (ay, ax) = (abs32(y) as f64, abs32(x) as f64);
    let t = atan_quotient(ay, ax);
    // 0/0 and inf/inf: atan2(±0, ±0) starts from 0, atan2(±inf, ±inf) from π/4.
    let t = if ay == 0.0 && ax == 0.0 { 0.0 } else { t };
    let t = if ay == f64::INFINITY && ax == f64::INFINITY {
        FRAC_PI_4
    } else {
        t
    };
    let r = atan2_quadrant(t, y, x);
    // A NaN operand is returned as it is (y first), the same bits in every loop.
    let r = if x.is_nan() { x } else { r };
    if y.is_nan() { y } else { r }
}

/// Whether [`atan2_f32_narrow`] gives `atan2_f32`'s bits at `(y, x)`: both finite and not both
/// zero, where none of its special cases applies. False for NaN.
#[inline(always)]
pub fn atan2_f32_in_narrow(y: f32, x: f32) -> bool {
    let (ay, ax) = (abs32(y), abs32(x));
    ay < f32::INFINITY && ax < f32::INFINITY && (ay > 0.0 || ax > 0.0)
}

/// [`atan2_f32`] where [`atan2_f32_in_narrow`] holds: the quadrant steps alone.
#[inline(always)]
pub fn atan2_f32_narrow(y: f32, x: f32) -> f32 {
    atan2_quadrant(atan_quotient(abs32(y) as f64, abs32(x) as f64), y, x)
}

/// `atan2(y, x)` from `t = atan(|y|/|x|)` in [0, π/2]: `π - t` for a negative (or -0) x, the
/// sign of y.
#[inline(always)]
fn atan2_quadrant(t: f64, y: f32, x: f32) -> f32 {
    let t = if x.is_sign_negative() { PI - t } else { t };
    with_sign_of(t as f32, y)
}

/// `asin s` for s in [0, 1/2], with z = s² (Cephes `asinf` polynomial, in f32).
#[inline(always)]
fn asin_poly(s: f32, z: f32) -> f32 {
    let mut p: f32 = 4.216_319_904_8e-2;
    p = fma_f32(p, z, 2.418_131_104_9e-2);
    p = fma_f32(p, z, 4.547_002_599_8e-2);
    p = fma_f32(p, z, 7.495_300_268_6e-2);
    p = fma_f32(p, z, 1.666_675_242_2e-1);
    fma_f32(p * z, s, s)
}

/// Shared by asin and acos: for a = |x| returns `(asin s, big)` where `big = a > 1/2` and s
/// is a itself or √((1-a)/2) (`1 - a` and the halving exact).
#[inline(always)]
fn asin_reduce(a: f32) -> (f32, bool) {
    let big = a > 0.5;
    let h = 0.5 * (1.0 - a);
    let z = if big { h } else { a * a };
    // Every lane takes the root (of z >= 0 wherever it is used; a > 1 is selected away).
    let s = if big { sqrt_f32(h) } else { a };
    (asin_poly(s, z), big)
}

/// Arcsine for f32, branch-free: Cephes `asinf` in f32 (polynomial below 1/2,
/// `π/2 - 2 asin √((1-|x|)/2)` above, π/2 in two parts). NaN for |x| > 1. Max error 2 ulp
/// (measured on all 2^32 inputs).
#[inline(always)]
pub fn asin_f32(x: f32) -> f32 {
    let ax = abs32(x);
    let (p, big) = asin_reduce(ax);
    let r = if big {
        (PIO2_HI - 2.0 * p) + PIO2_LO
    } else {
        p
    };
    let r = with_sign_of(r, x);
    let r = if ax > 1.0 { f32::NAN } else { r };
    if x.is_nan() { x } else { r }
}

/// Arccosine for f32, branch-free: Cephes `acosf` in f32 (`π/2 - asin x` for |x| <= 1/2,
/// `2 asin √((1-x)/2)` and `π - 2 asin √((1+x)/2)` beyond, π/2 and π in two parts).
/// `acos(1) = +0`, NaN for |x| > 1. Max error 2 ulp (measured on all 2^32 inputs).
#[inline(always)]
pub fn acos_f32(x: f32) -> f32 {
    let ax = abs32(x);
    let (p, big) = asin_reduce(ax);
    let neg = x < 0.0;
    let sp = if neg { -p } else { p };
    let small = PIO2_HI - (sp - PIO2_LO);
    let big_r = if neg {
        PI_HI - (2.0 * p - PI_LO)
    } else {
        2.0 * p
    };
    let r = if big { big_r } else { small };
    let r = if ax > 1.0 { f32::NAN } else { r };
    if x.is_nan() { x } else { r }
}
