//! Branch-free, vectorizable two-argument f32 math: `pow` and `hypot`, both computed in f64 and
//! rounded to f32 once.
//!
//! `pow(x, y) = 2^(y·log2|x|)`: `log2|x|` in f64 (the f32 input is a normal f64 even when it is
//! an f32 subnormal, so no rescaling is needed): `|x| = m·2^k`, `m` in [√½, √2) split off with
//! integer bit operations, `log2 m` a polynomial of degree 15 in `m - 1` (error < 2^-40), the
//! product `y·log2|x|` in f64 (|error| < 2^-33 where the result is finite: |y·log2|x|| <=
//! ~151), then `2^t` (`t = n + r`, |r| <= 1/2, a polynomial of degree 9, relative error
//! < 2^-44) and `2^n` built in the exponent bits. Fused multiply-adds and no division (an f64
//! division costs more than both polynomials in the AVX-512 loop). The f64 result is within
//! ~2^-32 relative of `x^y`, so the single rounding to f32 (subnormal results included) is
//! within 1 ulp. The C99/IEEE special
//! cases (zeros, infinities, NaN, negative bases) are selects at the end; whether `y` is an
//! odd integer is read off its f32 bits.
//!
//! `hypot(x, y) = sqrt(x² + y²)` in f64: the f32 squares are exact in f64 and can neither
//! overflow nor underflow there, so the only roundings are the f64 sum, the f64 square root and
//! the final f32 rounding (≤ 1 ulp).

// The clamp is written as selects like those in `mod.rs`.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

use super::fma_f64;

/// `1.5 * 2^52`: adding it rounds an f64 of magnitude < 2^51 to an integer (ties to even) and
/// leaves that integer in the low mantissa bits.
const MAGIC_F64: f64 = 6_755_399_441_055_744.0;

/// `log2|x|` for an f32 `x`, in f64: exact 0 at |x| = 1, `-inf` at ±0, `+inf` at ±inf (NaN
/// gives garbage, to be selected away). `|x| = m·2^k`, `m` in [√½, √2), `log2 m = f·Q(f)`,
/// `f = m - 1` exact, Q of degree 14 (Chebyshev fit, error < 2^-40), fused multiply-adds only:
/// no division, which costs more than the whole polynomial in the AVX-512 loop.
#[inline(always)]
fn log2_abs_f64(x: f32) -> f64 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let r = log2_finite_positive_f64(ax);
    let r = if ax == 0.0 { f64::NEG_INFINITY } else { r };
    if ax == f32::INFINITY {
        f64::INFINITY
    } else {
        r
    }
}

/// `log2 x` in f64 for a finite `x > 0` ([`log2_abs_f64`] without its special values).
#[inline(always)]
fn log2_finite_positive_f64(ax: f32) -> f64 {
    const Q: [f64; 15] = [
        0.061_643_484_245_055_77,
        -0.122_165_633_056_712_67,
        0.126_241_662_349_753_34,
        -0.119_995_225_316_854_16,
        0.129_181_262_514_164_29,
        -0.144_087_236_437_340_14,
        0.160_419_220_688_561_15,
        -0.180_352_394_846_402,
        0.206_095_597_898_914_55,
        -0.240_448_676_720_151_77,
        0.288_539_063_079_736_5,
        -0.360_673_766_470_959_17,
        0.480_898_346_646_805_6,
        -0.721_347_520_423_022_4,
        1.442_695_040_889_276_7,
    ];
    /// The bits of √½ in f64: adding `1 - √½` (in bits) moves the exponent boundary from 1 to
    /// √½ (musl's offset trick), so `m` lands in [√½, √2).
    const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
    let xd = ax as f64;
    let ix = xd
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - SQRT_HALF_BITS);
    // k = (ix >> 52) - 1023 as an f64 without an i64 -> f64 conversion (none in AVX2): put the
    // 11-bit exponent field into the mantissa of 2^52.
    let k = f64::from_bits((ix >> 52) | 0x4330_0000_0000_0000) - (4_503_599_627_370_496.0 + 1023.0);
    let m = f64::from_bits((ix & 0x000f_ffff_ffff_ffff) + SQRT_HALF_BITS);
    let f = m - 1.0;
    // Estrin's scheme (4 dependent fmas, not Horner's 14: the loop is latency-bound).
    let c = |i: usize| Q[14 - i];
    let (f2, f4) = (f * f, f * f * (f * f));
    let f8 = f4 * f4;
    let p03 = fma_f64(fma_f64(c(3), f, c(2)), f2, fma_f64(c(1), f, c(0)));
    let p47 = fma_f64(fma_f64(c(7), f, c(6)), f2, fma_f64(c(5), f, c(4)));
    let p811 = fma_f64(fma_f64(c(11), f, c(10)), f2, fma_f64(c(9), f, c(8)));
    let p1214 = fma_f64(c(14), f2, fma_f64(c(13), f, c(12)));
    let q = fma_f64(fma_f64(p1214, f4, p811), f8, fma_f64(p47, f4, p03));
    fma_f64(f, q, k)
}

/// `2^t` in f64 for |t| <= 200: `t = n + r`, n = round(t), |r| <= 1/2, `2^r = 1 + r·R(r)`, R
/// of degree 8 (Chebyshev fit, relative error < 2^-44), fused multiply-adds, no division; `2^n`
/// in the exponent bits.
#[inline(always)]
fn exp2_f64(t: f64) -> f64 {
    const R: [f64; 9] = [
        1.020_312_106_339_172_9e-7,
        1.325_522_487_866_881_7e-6,
        1.525_268_684_626_772e-5,
        1.540_345_585_245_383_8e-4,
        1.333_355_817_904_311_2e-3,
        9.618_129_159_402_558e-3,
        5.550_410_866_476_042_4e-2,
        2.402_265_069_581_299e-1,
        core::f64::consts::LN_2,
    ];
    let tt = t + MAGIC_F64;
    let r = t - (tt - MAGIC_F64);
    // Estrin's scheme, as in `log2_abs_f64`.
    let c = |i: usize| R[8 - i];
    let (r2, r4) = (r * r, r * r * (r * r));
    let p03 = fma_f64(fma_f64(c(3), r, c(2)), r2, fma_f64(c(1), r, c(0)));
    let p47 = fma_f64(fma_f64(c(7), r, c(6)), r2, fma_f64(c(5), r, c(4)));
    let p = fma_f64(c(8), r4 * r4, fma_f64(p47, r4, p03));
    let e = fma_f64(r, p, 1.0);
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
/// `log2|x|` times y and `2^t`, all in f64, rounded to f32 once. Measured max error 1 ulp against `f64::powf` rounded to f32 (22M sampled pairs
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

    let r = exp2_of_product(y, log2_abs_f64(x));
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

/// `2^(y·l)` rounded to f32, the exponent clamped so that 2^n stays a normal f64 (2^200 rounds
/// to +inf and 2^-200 to 0 in f32: the clamp changes no result; NaN passes through).
#[inline(always)]
fn exp2_of_product(y: f32, l: f64) -> f32 {
    let t = super::clamp_nan_passing(y as f64 * l, -200.0, 200.0);
    exp2_f64(t) as f32
}

/// Whether [`pow_f32_narrow`] gives `pow_f32`'s bits at `(x, y)`: a finite `x > 0` (subnormal
/// included) and a finite `y`, where none of `pow_f32`'s special cases applies (`1^y` and
/// `x^0` come out 1 from `2^(y·0)` and `2^0` too). False for NaN.
#[inline(always)]
pub fn pow_f32_in_narrow(x: f32, y: f32) -> bool {
    x > 0.0 && x < f32::INFINITY && f32::from_bits(y.to_bits() & 0x7fff_ffff) < f32::INFINITY
}

/// [`pow_f32`] where [`pow_f32_in_narrow`] holds: `2^(y·log2 x)` alone, without the integer
/// and odd tests of `y` and the special-case selects (a third of the loop's instructions).
#[inline(always)]
pub fn pow_f32_narrow(x: f32, y: f32) -> f32 {
    exp2_of_product(y, log2_finite_positive_f64(x))
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
