//! Branch-free, vectorizable two-argument f32 math: `pow` and `hypot`, both computed in f64 and
//! rounded to f32 once.
//!
//! `pow(x, y) = 2^(y·log2|x|)`: `log2|x|` in f64 (the f32 input is a normal f64 even when it is
//! an f32 subnormal, so no rescaling is needed) with the FreeBSD/musl `log` kernel (`|x| =
//! m·2^k`, `m` in [√½, √2) split off with integer bit operations, `ln m = f - f²/2 + s(f²/2 +
//! R(s²))`, `s = f/(2 + f)`, relative error < 2^-58 before rounding), the product `y·log2|x|`
//! in f64 (|error| < 2^-44 where the result is finite: |y·log2|x|| <= ~151), then `2^t` with
//! Cephes' f64 `exp2` (`t = n + r`, |r| <= 1/2, Padé form `1 + 2rP(r²)/(Q(r²) - rP(r²))`) and
//! `2^n` built in the exponent bits. The f64 result is within ~2^-43 relative of `x^y`, so the
//! single rounding to f32 (subnormal results included) is within 1 ulp. The C99/IEEE special
//! cases (zeros, infinities, NaN, negative bases) are selects at the end; whether `y` is an
//! odd integer is read off its f32 bits.
//!
//! `hypot(x, y) = sqrt(x² + y²)` in f64: the f32 squares are exact in f64 and can neither
//! overflow nor underflow there, so the only roundings are the f64 sum, the f64 square root and
//! the final f32 rounding (≤ 1 ulp).

// The coefficients are FreeBSD's and Cephes' as published (more digits than f64 holds); the
// clamp is written as selects like those in `mod.rs`.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

/// `1.5 * 2^52`: adding it rounds an f64 of magnitude < 2^51 to an integer (ties to even) and
/// leaves that integer in the low mantissa bits.
const MAGIC_F64: f64 = 6_755_399_441_055_744.0;

/// `log2|x|` for an f32 `x`, in f64: exact 0 at |x| = 1, `-inf` at ±0, `+inf` at ±inf (NaN
/// gives garbage, to be selected away). FreeBSD/musl `log` kernel (`e_log.c`: `Lg1`..`Lg7`).
#[inline(always)]
fn log2_abs_f64(x: f32) -> f64 {
    const LG1: f64 = 6.666_666_666_666_735_130e-01;
    const LG2: f64 = 3.999_999_999_940_941_908e-01;
    const LG3: f64 = 2.857_142_874_366_239_149e-01;
    const LG4: f64 = 2.222_219_843_214_978_396e-01;
    const LG5: f64 = 1.818_357_216_161_805_012e-01;
    const LG6: f64 = 1.531_383_769_920_937_332e-01;
    const LG7: f64 = 1.479_819_860_511_658_591e-01;
    /// The bits of √½ in f64: adding `1 - √½` (in bits) moves the exponent boundary from 1 to
    /// √½ (musl's offset trick), so `m` lands in [√½, √2).
    const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let xd = ax as f64;
    let ix = xd
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - SQRT_HALF_BITS);
    // k = (ix >> 52) - 1023 as an f64 without an i64 -> f64 conversion (none in AVX2): put the
    // 11-bit exponent field into the mantissa of 2^52.
    let k = f64::from_bits((ix >> 52) | 0x4330_0000_0000_0000) - (4_503_599_627_370_496.0 + 1023.0);
    let m = f64::from_bits((ix & 0x000f_ffff_ffff_ffff) + SQRT_HALF_BITS);
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let ln_m = f - (hfsq - s * (hfsq + t1 + t2));
    let r = k + ln_m * core::f64::consts::LOG2_E;
    let r = if ax == 0.0 { f64::NEG_INFINITY } else { r };
    if ax == f32::INFINITY {
        f64::INFINITY
    } else {
        r
    }
}

/// `2^t` in f64 for |t| <= 200 (Cephes `exp2.c`: `t = n + r`, n = round(t), |r| <= 1/2,
/// `2^r = 1 + 2rP(r²)/(Q(r²) - rP(r²))`, relative error ~2^-52; `2^n` in the exponent bits).
#[inline(always)]
fn exp2_f64(t: f64) -> f64 {
    const P0: f64 = 2.309_334_770_573_452_250_87e-2;
    const P1: f64 = 2.020_206_566_931_653_077_00e1;
    const P2: f64 = 1.513_906_801_156_150_961_33e3;
    const Q0: f64 = 2.331_842_117_223_149_117_71e2;
    const Q1: f64 = 4.368_211_668_792_106_128_17e3;
    let tt = t + MAGIC_F64;
    let r = t - (tt - MAGIC_F64);
    let rr = r * r;
    let px = r * ((P0 * rr + P1) * rr + P2);
    let q = (rr + Q0) * rr + Q1;
    let e = 1.0 + 2.0 * (px / (q - px));
    // 2^n: n + 1023 into the exponent field (n is in the low bits of tt).
    let scale = f64::from_bits(
        tt.to_bits()
            .wrapping_sub(MAGIC_F64.to_bits())
            .wrapping_add(1023)
            << 52,
    );
    e * scale
}

/// `x^y` for f32, branch-free, with every C99/IEEE special case of `pow` (see the module docs):
/// `log2|x|` (FreeBSD `log` kernel) times y and `2^t` (Cephes `exp2`), all in f64, rounded to
/// f32 once. Measured max error 1 ulp against `f64::powf` rounded to f32 (22M sampled pairs
/// and 2^32 pairs, `tests/accuracy.rs`; the 1 ulp cases are near-ties such as 8.5^6).
#[inline(always)]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    let xb = x.to_bits();
    let yb = y.to_bits();
    // Is y an integer, an odd one? From the f32 bits: biased exponent `be`; y is an integer if
    // be >= 150 (|y| >= 2^23, inf too) or if be >= 127 and no mantissa bit below 2^0 is set;
    // odd if it is an integer with be <= 150 whose units bit (`sh` bits up) is set.
    let be = (yb >> 23) & 0xff;
    let sh = 150u32.wrapping_sub(be) & 31;
    let mant = (yb & 0x007f_ffff) | 0x0080_0000;
    let frac = mant & ((1u32 << sh) - 1);
    let y_int = be >= 150 || (be >= 127 && frac == 0);
    let y_odd = (127..=150).contains(&be) && frac == 0 && (mant >> sh) & 1 == 1;

    // 2^(y·log2|x|), the exponent clamped so that 2^n stays a normal f64 (2^200 rounds to
    // +inf and 2^-200 to 0 in f32: the clamp changes no result; NaN passes through).
    let t = y as f64 * log2_abs_f64(x);
    let t = if t > 200.0 {
        200.0
    } else if t < -200.0 {
        -200.0
    } else {
        t
    };
    let r = exp2_f64(t) as f32;
    // A negative base (-0 and -inf included) with an odd integer exponent: negative result.
    let neg = xb >> 31 == 1 && y_odd;
    let r = f32::from_bits(r.to_bits() | if neg { 0x8000_0000 } else { 0 });

    let ax = f32::from_bits(xb & 0x7fff_ffff);
    let ay = f32::from_bits(yb & 0x7fff_ffff);
    // Negative finite base with a non-integer (finite) exponent: NaN.
    let r = if x < 0.0 && ax < f32::INFINITY && !y_int {
        f32::NAN
    } else {
        r
    };
    // (-1)^±inf = 1 (inf · log2(1) would be NaN).
    let r = if ax == 1.0 && ay == f32::INFINITY {
        1.0
    } else {
        r
    };
    // NaN in, NaN out (one fixed NaN, whatever the operand order), except the two cases below.
    let r = if x.is_nan() || y.is_nan() {
        f32::NAN
    } else {
        r
    };
    // 1^y = 1 and x^±0 = 1, even for NaN.
    let r = if x == 1.0 { 1.0 } else { r };
    if y == 0.0 { 1.0 } else { r }
}

/// `sqrt(x² + y²)` for f32, branch-free: in f64, where the squares are exact and cannot
/// overflow or underflow, rounded to f32 once (≤ 1 ulp by construction; measured 0 ulp against
/// `f64::hypot` rounded to f32 over 20M sampled and 2^32 pairs, `tests/accuracy.rs`). C99: an
/// infinite argument gives `+inf` even if the other is NaN.
#[inline(always)]
pub fn hypot_f32(x: f32, y: f32) -> f32 {
    let xd = x as f64;
    let yd = y as f64;
    let r = super::sqrt_f64(xd * xd + yd * yd) as f32;
    let r = if x.is_nan() || y.is_nan() {
        f32::NAN
    } else {
        r
    };
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let ay = f32::from_bits(y.to_bits() & 0x7fff_ffff);
    if ax == f32::INFINITY || ay == f32::INFINITY {
        f32::INFINITY
    } else {
        r
    }
}
