//! Branch-free f64 `sin`, `cos`, `tan`, `atan`, `asin`, `acos` and `atan2` that LLVM
//! vectorizes, in the style of the parent module: every branch is a value select on values
//! already computed, quadrants and rounding are `1.5·2^52` magic-constant tricks, and only
//! 64-bit add/and/logical-shift/compare are used on the bits (AVX2 has no 64-bit arithmetic
//! shift and no i64 <-> f64 conversion).
//!
//! `sin`/`cos`/`tan`: FreeBSD/musl `__rem_pio2` medium path (Cody-Waite by π/2 in 33+33+33+53
//! bits, all three rounds always done: the result `y0 + y1` is good to ~2^-100 relative for
//! |x| < 2^20·π/2), and for larger |x| a branch-free Payne-Hanek reduction: x is scaled by
//! 2^-600 (exact) and split into two halves of 26 and 27 bits, 2/π is a fixed set of 45
//! pieces of 26 bits each (scaled by 2^600, fdlibm's `ipio2` bits), so every one of the 90
//! products is exact; each is reduced mod 4 exactly and they are summed in triple-double
//! (TwoSum). That covers every exponent without a table lookup, but costs ~90 products for
//! every lane: [`sin_f64`] selects it for |x| >= 2^20·π/2 (correct everywhere, slower);
//! [`sin_f64_narrow`] etc. skip it and return NaN from that bound up (for kernels that know
//! their |x| is below it). Kernels: below the bound sin and cos reduce by π instead (the same
//! rounds with an even or an odd multiple of π/2, [`rem_pi_medium`]), so that one odd
//! polynomial on [-π/2, π/2] serves every lane ([`k_sin_pi`], degree 8 in y², y³ carried
//! exactly), where musl's `__sin` and `__cos` would both be computed per lane and selected by
//! the quadrant (they stay for the Payne-Hanek part); tan is `t + t³·R(t²)` with t³ carried
//! exactly and one corrected division for `-1/tan` (see `k_tan`).
//!
//! `atan`/`asin`/`acos`/`atan2`: FreeBSD/musl `s_atan.c`, `e_asin.c`, `e_acos.c`, `e_atan2.c`
//! (fdlibm), their intervals turned into selects: `atan`'s five argument reductions are one
//! division of selected numerator and denominator, `asin`/`acos` evaluate their rational
//! `R(t)` once on the selected `t`. `atan2` has C99's special values exactly as fdlibm (and
//! glibc, std's `f64::atan2`).
//!
//! Which ones `Real` uses: `atan`, `asin`, `acos`, `atan2` (3-5x faster than libm per element),
//! and the `_narrow` `sin`/`cos`/`tan` below 2^20·π/2 (3-5x faster than libm), libm above: the
//! general forms make every lane pay the ~90 Payne-Hanek products of the huge-argument select
//! (~5x slower than libm). The kernels check a block's range first ([`trig_narrow_f64`], see
//! `Functor::in_narrow_domain`) and run the narrow form alone where it holds.
//!
//! Accuracy against glibc's (std's) f64 functions, over 20M random bit patterns, 20M random
//! values on each function's useful range and the boundary values: see each function's doc.

// The coefficients are fdlibm's as published (more digits than an f64 holds), including its
// π/2, 2/π, π/4, π (the same f64s as `core::f64::consts`), kept in fdlibm's notation.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use super::double::{MAGIC, abs, with_sign_of};
use super::{fma_f64, horner_f64, mul_mod4, tan_from_poly, two_sum};

/// Mask that keeps the high 32 bits (fdlibm's `SET_LOW_WORD(x, 0)`).
const HI_WORD: u64 = 0xffff_ffff_0000_0000;

const PIO2_HI: f64 = 1.570_796_326_794_896_558_00e+00;
const PIO2_LO: f64 = 6.123_233_995_736_766_035_87e-17;
/// π (fdlibm's `atan2` constant, the f64 nearest π).
const PI: f64 = 3.141_592_653_589_793_116_0e+00;

// ---------------------------------------------------------------------------------------
// Argument reduction by π/2.

/// fdlibm's `ipio2`: 2/π in 24-bit words (bits 1-24, 25-48, ... after the binary point).
const IPIO2: [u32; 50] = [
    0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163,
    0xABDEBB, 0xC561B7, 0x246E3A, 0x424DD2, 0xE00649, 0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129,
    0xA73EE8, 0x8235F5, 0x2EBB44, 0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C,
    0x845F8B, 0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D, 0x367ECF,
    0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5, 0xF17B3D, 0x0739F7, 0x8A5292,
    0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330, 0x46FC7B,
];

/// Number of 26-bit pieces of 2/π: 1170 bits, enough for x up to 2^1024 (the product's
/// bits that matter reach ~2^-130 below the unit for the largest exponent).
const NPIECES: usize = 45;
/// The pieces are scaled by 2^SCALE and x by 2^-SCALE, so that all stay normal.
const SCALE: i32 = 600;

/// `2^e` for a normal exponent, in const context.
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// Piece k: bits [26k+1, 26k+26] of 2/π, times 2^SCALE (26 significant bits, exact).
const fn two_over_pi_piece(k: usize) -> f64 {
    let mut c: u64 = 0;
    let mut j = 0;
    while j < 26 {
        let p = 26 * k + j; // 0-based bit position after the binary point
        let bit = (IPIO2[p / 24] >> (23 - (p % 24))) & 1;
        c = (c << 1) | bit as u64;
        j += 1;
    }
    c as f64 * pow2(SCALE - 26 * (k as i32 + 1))
}

const fn two_over_pi_pieces() -> [f64; NPIECES] {
    let mut out = [0.0; NPIECES];
    let mut k = 0;
    while k < NPIECES {
        out[k] = two_over_pi_piece(k);
        k += 1;
    }
    out
}

const TWO_OVER_PI_26: [f64; NPIECES] = two_over_pi_pieces();

/// Dekker's split of π/2's high part (27 + 26 bits), for the exact product below.
const PIO2_HI_H: f64 = {
    let c = 134_217_729.0 * PIO2_HI;
    c - (c - PIO2_HI)
};
const PIO2_HI_L: f64 = PIO2_HI - PIO2_HI_H;

/// Below this |x| (fdlibm's `0x413921fb` high word, ≈ 2^20·π/2) the Cody-Waite reduction is
/// accurate.
const MEDIUM_LIMIT: f64 = 1_647_099.0;

/// Whether the `_narrow` trig forms hold at `x` (|x| < 2^20·π/2; false for inf and NaN).
#[inline(always)]
pub fn trig_narrow_f64(x: f64) -> bool {
    abs(x) < MEDIUM_LIMIT
}

/// FreeBSD/musl `__rem_pio2` medium path, every round done: `x = n·π/2 + y0 + y1`.
/// Returns (the bits whose low two are n mod 4, y0, y1). Valid for |x| < [`MEDIUM_LIMIT`].
#[inline(always)]
fn rem_pio2_medium(x: f64) -> (u64, f64, f64) {
    const INV_PIO2: f64 = 6.366_197_723_675_813_824_33e-01;
    let t = x * INV_PIO2 + MAGIC;
    let n = t - MAGIC;
    let (y0, y1) = sub_pio2_multiple(x, n);
    (t.to_bits(), y0, y1)
}

/// `x = n·π/2 + y0 + y1` for the multiple n of π/2 nearest x among the even ones (`odd`
/// false: n = 2m, m = rint(x/π)) or the odd ones (n = 2m + 1, m = rint(x/π - 1/2)), so that
/// |y0| <= π/2 (plus a rounding's margin): the reduction of [`sin_medium`] and [`cos_medium`].
/// Returns (the bits whose low one is m mod 2, y0, y1). Valid for |x| < [`MEDIUM_LIMIT`].
#[inline(always)]
fn rem_pi_medium(x: f64, odd: bool) -> (u64, f64, f64) {
    const INV_PI: f64 = core::f64::consts::FRAC_1_PI;
    let q = if odd {
        fma_f64(x, INV_PI, -0.5)
    } else {
        x * INV_PI
    };
    let t = q + MAGIC;
    let m = t - MAGIC;
    let n = if odd { fma_f64(2.0, m, 1.0) } else { 2.0 * m };
    let (y0, y1) = sub_pio2_multiple(x, n);
    (t.to_bits(), y0, y1)
}

/// `x - n·π/2 = y0 + y1` by FreeBSD/musl `__rem_pio2`'s medium rounds, every round done, for
/// an integral `n` with |n| <= 2^21 + 1: the pieces of π/2 have 31, 32 and 28 significant bits,
/// so every product `n·PIO2_k` is exact.
#[inline(always)]
fn sub_pio2_multiple(x: f64, n: f64) -> (f64, f64) {
    const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
    const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
    const PIO2_3: f64 = 2.022_266_248_711_166_455_80e-21;
    const PIO2_3T: f64 = 8.478_427_660_368_899_569_97e-32;
    // x - n·π/2 = (x - n·P1) - n·P2 - n·P3 - n·P3T (P2T = P3 + P3T): the two subtractions
    // are done with their rounding errors e2, e3 kept (fdlibm's rounds 2 and 3, the second
    // round's error kept so that doing the third round always loses nothing). Each exact
    // product and the subtraction after it are one fma (fdlibm's bits), and `n·P3T` (not
    // exact) joins its sum in one (a rounding fewer): 12 operations for 16.
    let r = fma_f64(-n, PIO2_1, x);
    let r2 = fma_f64(-n, PIO2_2, r);
    let e2 = fma_f64(-n, PIO2_2, r - r2);
    let r3 = fma_f64(-n, PIO2_3, r2);
    let e3 = fma_f64(-n, PIO2_3, r2 - r3);
    let w = fma_f64(n, PIO2_3T, -(e2 + e3));
    let y0 = r3 - w;
    let y1 = (r3 - y0) - w;
    (y0, y1)
}

/// Branch-free Payne-Hanek: `x·2/π = n + f` with the 90 exact products of x's two halves and
/// the 2/π pieces, each reduced mod 4, summed in triple-double; returns (bits whose low two
/// are n mod 4, y0, y1) with `y0 + y1 = f·π/2`. Meant for 2^20 <= |x| < inf.
#[inline(always)]
fn rem_pio2_huge(x: f64) -> (u64, f64, f64) {
    let xs = x * pow2(-SCALE);
    let xh = f64::from_bits(xs.to_bits() & !((1u64 << 27) - 1));
    let xl = xs - xh;
    let (mut hi, mut mid, mut lo) = (0.0f64, 0.0f64, 0.0f64);
    macro_rules! add {
        ($t:expr) => {
            let (s, e1) = two_sum(hi, $t);
            let (m, e2) = two_sum(mid, e1);
            hi = s;
            mid = m;
            lo += e2;
        };
    }
    macro_rules! pieces {
        ($($k:literal)*) => {
            $(
                add!(mul_mod4(xh, TWO_OVER_PI_26[$k]));
                add!(mul_mod4(xl, TWO_OVER_PI_26[$k]));
            )*
        };
    }
    // Written out (no loop) so that the element loop around a call stays the innermost one.
    pieces!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
        30 31 32 33 34 35 36 37 38 39 40 41 42 43 44);
    // |hi| <= 180: n = rint(hi), f = hi - n exact, then f + mid + lo as a double-double.
    let t = hi + MAGIC;
    let f = hi - (t - MAGIC);
    let (a, b) = two_sum(f, mid);
    let (f0, f1) = two_sum(a, b + lo);
    // (f0 + f1)·π/2 with Dekker's exact product f0·PIO2_HI (no FMA).
    let c = 134_217_729.0 * f0;
    let ah = c - (c - f0);
    let al = f0 - ah;
    let p = f0 * PIO2_HI;
    let e = ((ah * PIO2_HI_H - p) + ah * PIO2_HI_L + al * PIO2_HI_H) + al * PIO2_HI_L;
    let e = e + (f0 * PIO2_LO + f1 * PIO2_HI);
    let y0 = p + e;
    let y1 = e - (y0 - p);
    (t.to_bits(), y0, y1)
}

/// `x = n·π/2 + y0 + y1` for every finite x (the huge path selected from
/// [`MEDIUM_LIMIT`] up), or, without `HUGE`, NaN from that bound up.
#[inline(always)]
fn rem_pio2<const HUGE: bool>(x: f64) -> (u64, f64, f64) {
    let (n, y0, y1) = rem_pio2_medium(x);
    let big = abs(x) >= MEDIUM_LIMIT;
    if HUGE {
        let (nh, h0, h1) = rem_pio2_huge(x);
        (
            if big { nh } else { n },
            if big { h0 } else { y0 },
            if big { h1 } else { y1 },
        )
    } else {
        (n, if big { f64::NAN } else { y0 }, y1)
    }
}

// ---------------------------------------------------------------------------------------
// Kernels on [-π/4, π/4] (FreeBSD/musl k_sin.c, k_cos.c, k_tan.c).

/// `sin(x + y)`, |x| <= ~π/4, y the tail of x (musl `__sin` with iy = 1).
#[inline(always)]
fn k_sin(x: f64, y: f64) -> f64 {
    const S1: f64 = -1.666_666_666_666_663_243_48e-01;
    const S2: f64 = 8.333_333_333_322_489_461_24e-03;
    const S3: f64 = -1.984_126_982_985_794_931_34e-04;
    const S4: f64 = 2.755_731_370_707_006_767_89e-06;
    const S5: f64 = -2.505_076_025_340_686_341_95e-08;
    const S6: f64 = 1.589_690_995_211_550_102_21e-10;
    let z = x * x;
    let w = z * z;
    // The polynomial's mul-add pairs fused (musl writes them apart; the f64 trig loops are
    // port-bound on AVX-512, and the fused steps round less).
    let r = fma_f64(z, fma_f64(z, S4, S3), S2) + z * w * fma_f64(z, S6, S5);
    let v = z * x;
    x - ((z * (0.5 * y - v * r) - y) - v * S1)
}

/// `cos(x + y)`, |x| <= ~π/4 (musl `__cos`).
#[inline(always)]
fn k_cos(x: f64, y: f64) -> f64 {
    const C1: f64 = 4.166_666_666_666_660_190_37e-02;
    const C2: f64 = -1.388_888_888_887_410_957_49e-03;
    const C3: f64 = 2.480_158_728_947_672_941_78e-05;
    const C4: f64 = -2.755_731_435_139_066_330_35e-07;
    const C5: f64 = 2.087_572_321_298_174_827_90e-09;
    const C6: f64 = -1.135_964_755_778_819_482_65e-11;
    let z = x * x;
    let w = z * z;
    let r = z * fma_f64(z, fma_f64(z, C3, C2), C1) + w * w * fma_f64(z, fma_f64(z, C6, C5), C4);
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// `tan t = t + t³·R(t²)` on |t| <= π/4: R minimax for relative error (2^-56; the t³ term is
/// at most 0.22 of the result), ascending powers of t².
const TAN_R: [f64; 15] = [
    0.333_333_333_333_333_337_91,
    0.133_333_333_333_329_996_45,
    0.053_968_253_968_656_636_627,
    0.021_869_488_517_023_678_005,
    0.008_863_236_004_625_182_317_7,
    0.003_592_120_965_248_519_155,
    0.001_455_902_872_176_510_053_5,
    0.000_589_574_821_745_660_245_41,
    0.000_241_229_569_912_713_515_3,
    0.000_089_975_924_609_828_526_328,
    0.000_055_606_605_531_027_890_536,
    -0.000_011_039_628_403_725_631_76,
    0.000_036_539_752_406_279_017_515,
    -0.000_018_327_906_565_668_723_945,
    8.486_334_613_008_156_748_5e-6,
];

/// `tan(x + y)` (odd = false) or `-1/tan(x + y)` (odd = true), |x| <= ~π/4, y the tail of x:
/// the f32 narrow tan's form ([`tan_from_poly`]) on [`TAN_R`]. One polynomial and one division
/// per lane where musl's `__tan` computed both of its branches and split high words.
#[inline(always)]
fn k_tan(x: f64, y: f64, odd: bool) -> f64 {
    tan_from_poly(x, y, horner_f64(x * x, TAN_R), odd, fma_f64)
}

/// `sin y = y + y³·P(y²)` on |y| <= π/2 + 10^-6, P of degree 8 (lowest first): least squares
/// for relative error, each coefficient rounded to f64 in turn from the lowest and the rest
/// refitted (mpmath): 2^-61.5 relative with the rounded coefficients.
const SIN_P: [f64; 9] = [
    -0.166_666_666_666_666_66,
    0.008_333_333_333_333_241,
    -0.000_198_412_698_412_357_32,
    2.755_731_921_756_391_3e-6,
    -2.505_210_769_459_519_3e-8,
    1.605_899_951_583_195_4e-10,
    -7.645_483_352_813_053e-13,
    2.776_545_115_755_533_7e-15,
    -5.089_587_137_179_933_6e-18,
];

/// `sin(y0 + y1)` for |y0| <= π/2 + 10^-6, y1 the tail of y0: `y0 + (y0³·P + y1·cos y0)` with
/// y0³ carried exactly (`z = y0²` and `y0·z` with their roundings by fmas) and `cos y0` to its
/// `z²` term for the tail (2% off at |y0| = π/2, far below the result's rounding).
#[inline(always)]
fn k_sin_pi(y0: f64, y1: f64) -> f64 {
    let z = y0 * y0;
    let zl = fma_f64(y0, y0, -z);
    let s = y0 * z;
    let sl = fma_f64(y0, z, -s);
    let p = horner_f64(z, SIN_P);
    let c = fma_f64(z, fma_f64(z, 1.0 / 24.0, -0.5), 1.0);
    let t = fma_f64(fma_f64(y0, zl, sl), p, y1 * c);
    y0 + fma_f64(s, p, t)
}

/// `sin x` for |x| < [`MEDIUM_LIMIT`] (meaningless above): x reduced by π (`x = mπ + y`,
/// [`rem_pi_medium`]), `(-1)^m sin y` by one polynomial per lane ([`k_sin_pi`]), where musl's
/// form reduces by π/2 and computes both `__sin` and `__cos` per lane before selecting.
#[inline(always)]
fn sin_medium(x: f64) -> f64 {
    let (m, y0, y1) = rem_pi_medium(x, false);
    let r = f64::from_bits(k_sin_pi(y0, y1).to_bits() ^ (m << 63));
    // |x| < 2^-26 (±0 and subnormals included): x itself (fdlibm).
    if abs(x) < 1.490_116_119_384_765_625e-8 {
        x
    } else {
        r
    }
}

/// `cos x` for |x| < [`MEDIUM_LIMIT`] (meaningless above): `x = (2m + 1)·π/2 + y`,
/// `cos x = (-1)^(m+1) sin y` ([`k_sin_pi`]).
#[inline(always)]
fn cos_medium(x: f64) -> f64 {
    let (m, y0, y1) = rem_pi_medium(x, true);
    f64::from_bits(k_sin_pi(y0, y1).to_bits() ^ ((m ^ 1) << 63))
}

/// `sin x` (`cos`: false) or `cos x` (true) from |x| = [`MEDIUM_LIMIT`] up: the Payne-Hanek
/// reduction by π/2 and musl's `__sin`/`__cos`, selected by the quadrant.
#[inline(always)]
fn sin_or_cos_huge(x: f64, cos: bool) -> f64 {
    let (n, y0, y1) = rem_pio2_huge(x);
    let (s, c) = (k_sin(y0, y1), k_cos(y0, y1));
    let q = if cos { n.wrapping_add(1) } else { n };
    let r = if q & 1 == 0 { s } else { c };
    if q & 2 == 0 { r } else { -r }
}

/// `sin x` (`COS` false) or `cos x` (true): the reduction by π below [`MEDIUM_LIMIT`]; from
/// there up the Payne-Hanek form (`HUGE`) or NaN (the narrow forms).
#[inline(always)]
fn sin_cos_impl<const HUGE: bool, const COS: bool>(x: f64) -> f64 {
    let r = if COS { cos_medium(x) } else { sin_medium(x) };
    if !HUGE {
        // NaN from the bound up (and for inf and NaN), as the narrow forms promise.
        return if abs(x) < MEDIUM_LIMIT { r } else { f64::NAN };
    }
    let r = if abs(x) >= MEDIUM_LIMIT {
        sin_or_cos_huge(x, COS)
    } else {
        r
    };
    // inf and NaN: NaN.
    if abs(x) < f64::INFINITY { r } else { x - x }
}

#[inline(always)]
fn tan_impl<const HUGE: bool>(x: f64) -> f64 {
    let (n, y0, y1) = rem_pio2::<HUGE>(x);
    let r = k_tan(y0, y1, n & 1 != 0);
    // |x| < 2^-27: x itself (fdlibm), which also keeps ±0 and subnormals.
    let r = if abs(x) < 7.450_580_596_923_828_125e-9 {
        x
    } else {
        r
    };
    if abs(x) < f64::INFINITY { r } else { x - x }
}

/// Sine for f64, branch-free on the whole range: below 2^20·π/2 the reduction by π (FreeBSD/musl
/// `__rem_pio2`'s three rounds) and one polynomial, above the table-free Payne-Hanek reduction
/// and musl's `__sin`/`__cos`, both computed and selected (see the module docs). Max 1 ulp from
/// glibc's (measured; at the
/// hardest input, 6381956970095103·2^797, glibc's cos/tan are 8/14 ulp off and these are
/// correctly rounded). Cost: the Payne-Hanek part (90 exact products per lane) makes this
/// ~100x a copy, ~5x slower than glibc; [`sin_f64_narrow`] is ~4x a copy.
#[inline(always)]
pub fn sin_f64(x: f64) -> f64 {
    sin_cos_impl::<true, false>(x)
}

/// Cosine for f64, branch-free on the whole range (as [`sin_f64`]). Max 1 ulp from glibc's.
#[inline(always)]
pub fn cos_f64(x: f64) -> f64 {
    sin_cos_impl::<true, true>(x)
}

/// Tangent for f64, branch-free on the whole range (reduction as [`sin_f64`], musl's
/// polynomial with an exact t³, see `k_tan`). Max 1 ulp from glibc's (measured).
#[inline(always)]
pub fn tan_f64(x: f64) -> f64 {
    tan_impl::<true>(x)
}

/// [`sin_f64`] without the Payne-Hanek part: the same results for |x| < 1_647_099 (≈ 2^20·π/2),
/// NaN from there up (for kernels that have checked their inputs' range). Max 1 ulp.
#[inline(always)]
pub fn sin_f64_narrow(x: f64) -> f64 {
    sin_cos_impl::<false, false>(x)
}

/// [`cos_f64`] without the Payne-Hanek part (as [`sin_f64_narrow`]).
#[inline(always)]
pub fn cos_f64_narrow(x: f64) -> f64 {
    sin_cos_impl::<false, true>(x)
}

/// [`tan_f64`] without the Payne-Hanek part (as [`sin_f64_narrow`]).
#[inline(always)]
pub fn tan_f64_narrow(x: f64) -> f64 {
    tan_impl::<false>(x)
}

// ---------------------------------------------------------------------------------------
// Inverse functions (FreeBSD/musl s_atan.c, e_asin.c, e_acos.c, e_atan2.c).

/// `atan(a)` for a >= 0 or NaN (fdlibm `s_atan.c`, intervals as selects).
#[inline(always)]
fn atan_pos(a: f64) -> f64 {
    const AT: [f64; 11] = [
        3.333_333_333_333_293_180_27e-01,
        -1.999_999_999_987_648_324_76e-01,
        1.428_571_427_250_346_637_11e-01,
        -1.111_111_040_546_235_578_80e-01,
        9.090_887_133_436_506_561_96e-02,
        -7.691_876_205_044_829_994_95e-02,
        6.661_073_137_387_531_206_69e-02,
        -5.833_570_133_790_573_486_45e-02,
        4.976_877_994_615_932_360_17e-02,
        -3.653_157_274_421_691_552_70e-02,
        1.628_582_011_536_578_236_23e-02,
    ];
    // Interval cuts 7/16, 11/16, 19/16, 39/16: atan(a) = atan(c) + atan((a - c)/(1 + a·c))
    // for c = 0.5, 1, 1.5, inf (fdlibm's forms), one division of selected terms.
    let (num, den, hi, lo) = if a < 0.4375 {
        (a, 1.0, 0.0, 0.0)
    } else if a < 0.6875 {
        (
            2.0 * a - 1.0,
            2.0 + a,
            4.636_476_090_008_060_935_15e-01,
            2.269_877_745_296_168_709_24e-17,
        )
    } else if a < 1.1875 {
        (
            a - 1.0,
            a + 1.0,
            7.853_981_633_974_482_789_99e-01,
            3.061_616_997_868_383_017_93e-17,
        )
    } else if a < 2.4375 {
        (
            a - 1.5,
            1.0 + 1.5 * a,
            9.827_937_232_473_290_540_82e-01,
            1.390_331_103_123_099_845_16e-17,
        )
    } else {
        (-1.0, a, PIO2_HI, PIO2_LO)
    };
    let x = num / den;
    let z = x * x;
    let w = z * z;
    let s1 = z * horner_f64(w, [AT[0], AT[2], AT[4], AT[6], AT[8], AT[10]]);
    let s2 = w * horner_f64(w, [AT[1], AT[3], AT[5], AT[7], AT[9]]);
    // For a < 7/16 (hi = lo = 0) this is fdlibm's `x - x·(s1 + s2)`.
    hi - ((x * (s1 + s2) - lo) - x)
}

/// Arctangent for f64, branch-free (FreeBSD/musl `s_atan.c`: four reduction intervals and
/// the direct one, as selects; odd by the sign bit). Max 1 ulp from glibc's (measured).
#[inline(always)]
pub fn atan_f64(x: f64) -> f64 {
    // On |x| (the result is >= 0 or NaN), then x's sign: atan(-0) = -0.
    with_sign_of(atan_pos(abs(x)), x)
}

/// fdlibm's `R(t) = t·P(t)/Q(t)` of `e_asin.c`/`e_acos.c` (an `asin(√t)/√t - 1`-ish kernel) as
/// its numerator and denominator, `(t·P(t), Q(t))`: the callers fold their other quotient into
/// the same division.
#[inline(always)]
fn asin_pq(t: f64) -> (f64, f64) {
    const PS0: f64 = 1.666_666_666_666_666_574_15e-01;
    const PS1: f64 = -3.255_658_186_224_009_154_05e-01;
    const PS2: f64 = 2.012_125_321_348_629_258_81e-01;
    const PS3: f64 = -4.005_553_450_067_941_140_27e-02;
    const PS4: f64 = 7.915_349_942_898_145_321_76e-04;
    const PS5: f64 = 3.479_331_075_960_211_675_70e-05;
    const QS1: f64 = -2.403_394_911_734_414_218_78e+00;
    const QS2: f64 = 2.020_945_760_233_505_694_71e+00;
    const QS3: f64 = -6.882_839_716_054_532_930_30e-01;
    const QS4: f64 = 7.703_815_055_590_193_527_91e-02;
    let p = t * horner_f64(t, [PS0, PS1, PS2, PS3, PS4, PS5]);
    let q = horner_f64(t, [1.0, QS1, QS2, QS3, QS4]);
    (p, q)
}

/// The one quotient asin and acos need per lane, by the lane's form: `R(t)` (`small`), `s·R(t)`
/// (`plain`), or `s·R(t) + c` with fdlibm's root correction `c = (z - f²)/(s + f)` (else) as
/// `(p·s·(s + f) + (z - f²)·q) / (q·(s + f))`. One division instead of two (R's and c's):
/// f64 divisions and roots are what these functions wait on. `c` is below an ulp of `s`, so
/// folding it into R's quotient costs nothing that reaches the result.
#[inline(always)]
fn asin_quotient(t: f64, s: f64, f: f64, z: f64, small: bool, plain: bool) -> f64 {
    let (p, q) = asin_pq(t);
    let sf = s + f;
    let num = if plain {
        p * s
    } else {
        p * s * sf + (z - f * f) * q
    };
    let den = if plain { q } else { q * sf };
    let num = if small { p } else { num };
    let den = if small { q } else { den };
    // den = Q(t)·(s + f) or Q(t): positive and normal (Q > 0.22 on t <= ½, s + f >= 2^-27
    // below |x| = 1) except at x = 1 in acos (0, and acos selects its result there).
    div_positive(num, den)
}

/// `n/d` for a positive normal `d` below 2^1020 by Newton's iteration instead of the divider:
/// asin and acos also need a square root, and both share the one divide/sqrt unit, which
/// bounded them (f64 `asin` 1.8x PyTorch's time at 64K). `1/d` from its bits (the exponent
/// negated and the significand's reciprocal linearly: within 5.1%), three steps `e -> e²`
/// (2^-4.3 -> 2^-34), then `q = n·y` corrected once by its residual `n - d·q` (Markstein):
/// within about half an ulp plus 2^-60 of the quotient. NaN stays NaN; `d` = 0 gives NaN or
/// garbage, which the callers select away.
#[inline(always)]
fn div_positive(n: f64, d: f64) -> f64 {
    let mut y = f64::from_bits(0x7fde_6238_da3c_2118u64.wrapping_sub(d.to_bits()));
    for _ in 0..3 {
        y = fma_f64(y, fma_f64(-d, y, 1.0), y);
    }
    let q = n * y;
    fma_f64(fma_f64(-d, q, n), y, q)
}

/// Arcsine for f64, branch-free (FreeBSD/musl `e_asin.c`: |x| < 0.5 by `x + x·R(x²)`, above
/// by `π/2 - 2 asin(√((1-|x|)/2))` in fdlibm's two forms split at 0.975; one quotient per lane,
/// [`asin_quotient`]). Max 1 ulp from glibc's (measured). |x| > 1 and NaN give NaN.
#[inline(always)]
pub fn asin_f64(x: f64) -> f64 {
    let a = abs(x);
    let small = a < 0.5;
    // 0.975 <= |x| (fdlibm's 0x3fef3333 high word).
    let near1 = a >= f64::from_bits(0x3fef_3333_0000_0000);
    let z = (1.0 - a) * 0.5;
    let t = if small { a * a } else { z };
    let s = super::sqrt_f64(z);
    let f = f64::from_bits(s.to_bits() & HI_WORD);
    // small: R; near1: s·R; mid: s·R + c.
    let w = asin_quotient(t, s, f, z, small, near1);
    let near1_r = PIO2_HI - (2.0 * (s + w) - PIO2_LO);
    let mid = 0.5 * PIO2_HI - (2.0 * w - PIO2_LO - (0.5 * PIO2_HI - 2.0 * f));
    let big = if near1 { near1_r } else { mid };
    let y = if small { a + a * w } else { big };
    // |x| > 1 gives NaN (√ of a negative already does; kept explicit), NaN stays NaN.
    let y = if a > 1.0 { f64::NAN } else { y };
    with_sign_of(y, x)
}

/// Arccosine for f64, branch-free (FreeBSD/musl `e_acos.c`: |x| < 0.5, x <= -0.5, x >= 0.5
/// forms, one quotient per lane, [`asin_quotient`]). Max 1 ulp from glibc's (measured). |x| > 1
/// and NaN give NaN.
#[inline(always)]
pub fn acos_f64(x: f64) -> f64 {
    let a = abs(x);
    let small = a < 0.5;
    let neg = x < 0.0;
    let z = (1.0 - a) * 0.5;
    let t = if small { x * x } else { z };
    let s = super::sqrt_f64(z);
    let df = f64::from_bits(s.to_bits() & HI_WORD);
    // small: R; x <= -0.5: s·R; x >= 0.5: s·R + c.
    let w = asin_quotient(t, s, df, z, small, neg);
    let y_small = PIO2_HI - (x - (PIO2_LO - x * w));
    let y_neg = 2.0 * (PIO2_HI - (s + (w - PIO2_LO)));
    let y_pos = 2.0 * (df + w);
    let y = if neg { y_neg } else { y_pos };
    let y = if small { y_small } else { y };
    // x = 1: 0 (the quotient above is 0/0 there).
    let y = if x == 1.0 { 0.0 } else { y };
    if a > 1.0 || x.is_nan() { f64::NAN } else { y }
}

/// `atan2(y, x)` for f64, branch-free (FreeBSD/musl `e_atan2.c`): `atan(|y/x|)` placed in
/// its quadrant (`π - (z - π_lo)`, `(z - π_lo) - π` for x < 0), with fdlibm's |y/x| > 2^64
/// and (x < 0) |y/x| < 2^-64 cuts and every C99 special value (signed zeros, infinities,
/// NaN) as fdlibm/glibc (std's `f64::atan2`). Max 1 ulp from glibc's (measured).
#[inline(always)]
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    const PI_O_4: f64 = 7.853_981_633_974_482_789_99e-01;
    const THREE_PI_O_4: f64 = 2.356_194_490_192_344_837e+00;
    let (ax, ay) = (abs(x), abs(y));
    let xneg = x.to_bits() >> 63 != 0;
    // fdlibm's high-word exponent compares.
    let ix = ax.to_bits() >> 32;
    let iy = ay.to_bits() >> 32;
    let z = atan_pos(ay / ax);
    // x < 0 and |y/x| < 2^-64: z = 0 (no spurious underflow; the result is ±π).
    let z = if xneg && iy + (64 << 20) < ix { 0.0 } else { z };
    let r = atan2_f64_quadrant(z, y, xneg);
    // |y/x| > 2^64 or y = ±inf: ±π/2.
    let pio2 = with_sign_of(PIO2_HI, y);
    let r = if ix + (64 << 20) < iy || ay == f64::INFINITY {
        pio2
    } else {
        r
    };
    // x = ±inf: ±π/4, ±3π/4 (y inf), else ±0, ±π.
    let inf_inf = if xneg { THREE_PI_O_4 } else { PI_O_4 };
    let inf_fin = if xneg { PI } else { 0.0 };
    let rinf = if ay == f64::INFINITY {
        inf_inf
    } else {
        inf_fin
    };
    let r = if ax == f64::INFINITY {
        with_sign_of(rinf, y)
    } else {
        r
    };
    // x = ±0 (y != 0): ±π/2.
    let r = if ax == 0.0 { pio2 } else { r };
    // y = ±0: y itself for x >= +0, ±π for x <= -0.
    let yz = if xneg { with_sign_of(PI, y) } else { y };
    let r = if ay == 0.0 { yz } else { r };
    if x.is_nan() || y.is_nan() { x + y } else { r }
}

/// Whether [`atan2_f64_narrow`] gives `atan2_f64`'s bits at `(y, x)`: both finite and nonzero
/// with `|y/x|` between 2^-64 and 2^64 by fdlibm's high-word exponent compares, where none of
/// its special cases applies. False for NaN.
#[inline(always)]
pub fn atan2_f64_in_narrow(y: f64, x: f64) -> bool {
    let (ax, ay) = (abs(x), abs(y));
    let (ix, iy) = (ax.to_bits() >> 32, ay.to_bits() >> 32);
    ax < f64::INFINITY
        && ay < f64::INFINITY
        && ax > 0.0
        && ay > 0.0
        && iy + (64 << 20) >= ix
        && ix + (64 << 20) >= iy
}

/// [`atan2_f64`] where [`atan2_f64_in_narrow`] holds: the quadrant steps alone.
#[inline(always)]
pub fn atan2_f64_narrow(y: f64, x: f64) -> f64 {
    atan2_f64_quadrant(atan_pos(abs(y) / abs(x)), y, x.to_bits() >> 63 != 0)
}

/// `atan2(y, x)` from `z = atan(|y|/|x|)` in [0, π/2]: `π - z` (π in two parts) for a
/// negative (or -0) x (`xneg`), the sign of y.
#[inline(always)]
fn atan2_f64_quadrant(z: f64, y: f64, xneg: bool) -> f64 {
    const PI_LO: f64 = 1.224_646_799_147_353_177_2e-16;
    let r = if xneg { PI - (z - PI_LO) } else { z };
    with_sign_of(r, y)
}
