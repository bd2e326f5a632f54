//! Branch-free f32 `exp`, `sigmoid`, `tanh` and exact (erf) `gelu` that LLVM vectorizes: the
//! CPU ops use them for f32 instead of the scalar libm calls (`Exp`, `Sigmoid`, ... keep libm
//! and stay what the GPU path compiles). Every branch is a value select, and rounding and
//! `2^n` are done with float/integer bit tricks, so the loops become SIMD at the x86-64
//! baseline (SSE2) already.
//!
//! Accuracy (checked against f64 in `tests/kernel_paths.rs` and by the golden tests): `exp`,
//! `sigmoid`, `tanh` within 4 ulp (results below 2^-126 may flush toward 0, as the golden
//! tolerance's floor allows); `gelu` within `2·eps·max(1,|x|)` absolute (erf by Abramowitz &
//! Stegun 7.1.26, |error| < 1.5e-7, the same formula as PyTorch's vectorized erf).

// The coefficients are Cephes' and A&S's as published; the clamps are written as selects.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

/// `1.5 * 2^23`: adding it rounds an f32 of magnitude < 2^22 to an integer (ties to even) and
/// leaves that integer in the low mantissa bits.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// `e^x` for f32, branch-free (Cephes `expf` polynomial, range reduction by `ln 2`).
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // e^89 overflows and e^-104 underflows to 0: clamping changes no result, and keeps `n` and
    // the two scale factors below in range. NaN fails both compares and propagates.
    let x = if x > 89.0 {
        89.0
    } else if x < -104.0 {
        -104.0
    } else {
        x
    };
    let t = x * core::f32::consts::LOG2_E + ROUND_MAGIC;
    let n = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let nf = t - ROUND_MAGIC;
    // r = x - n ln2, in two parts (Cody-Waite) so r is exact enough.
    let r = x - nf * 0.693_359_375 + nf * 2.121_944_4e-4;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    // 2^n as two factors 2^h * 2^(n-h), each a normal f32 for n in [-150, 128].
    let h = n >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - h + 127) as u32) << 23);
    y * s1 * s2
}

/// `1 / (1 + e^-x)`, split on the sign so that `e^` never overflows.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let e = exp_f32(-f32::from_bits(x.to_bits() & 0x7fff_ffff));
    let num = if x < 0.0 { e } else { 1.0 };
    num / (1.0 + e)
}

/// `tanh`: an odd polynomial below |x| = 0.625 (Cephes `tanhf`), `1 - 2/(e^2|x| + 1)` above,
/// with the sign of x.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let z = x * x;
    let mut p = -5.704_988_7e-3f32;
    p = p * z + 2.063_908_9e-2;
    p = p * z - 5.373_971_6e-2;
    p = p * z + 1.333_144_2e-1;
    p = p * z - 3.333_328_2e-1;
    // Both on |x|, then the sign of x (so tanh(-0.0) = -0.0).
    let small = p * z * ax + ax;
    let big = 1.0 - 2.0 / (exp_f32(2.0 * ax) + 1.0);
    let r = if ax < 0.625 { small } else { big };
    f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// `erf` by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, absolute).
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let t = 1.0 / (1.0 + 0.327_591_1 * ax);
    let mut p = 1.061_405_4f32;
    p = p * t - 1.453_152_1;
    p = p * t + 1.421_413_8;
    p = p * t - 0.284_496_74;
    p = p * t + 0.254_829_6;
    let r = 1.0 - p * t * exp_f32(-ax * ax);
    f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000))
}

/// Exact gelu `x/2 (1 + erf(x/√2))` with [`erf_f32`].
#[inline(always)]
pub fn gelu_erf_f32(x: f32) -> f32 {
    let y = x * 0.5 * (1.0 + erf_f32(x * core::f32::consts::FRAC_1_SQRT_2));
    // A NaN input is returned as it is: the NaN bits of the product would otherwise depend
    // on the operand order the vectorizer picks (contiguous and strided loops must agree).
    if x.is_nan() { x } else { y }
}
