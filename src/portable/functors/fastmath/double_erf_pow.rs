//! Branch-free f64 `erf`, `erfc`, `pow` and `hypot` that LLVM vectorizes, in the style of
//! `double.rs`: every branch is a value select on already computed values, the per-interval
//! coefficients are selects of constants (no gather), and the bit tricks use only 64-bit
//! and/or/add/sub and logical shifts (the lane-variable shifts of `pow`'s integer test are
//! AVX2's `vpsrlvq`/`vpsllvq`).
//!
//! `erf` is two polynomials without a tail (erf is >= 0.84 from 1 on), faster than libm on
//! any data (see [`erf_f64`]). `erfc`: [`erfc_f64_central`], fdlibm `s_erf.c`'s two rationals
//! for |x| < 1.25 (`P/Q` in x² below 0.84375, in |x| - 1 above) as one numerator and one
//! denominator with per-lane coefficients, for blocks within that range; the ops take libm's
//! erfc elsewhere (its tails need two exps; a branch-free form computing every interval in
//! every lane was 1.6-1.8x faster than libm on mixed data but ~2.8x slower where libm's branch
//! stays in one interval, and 4 ulp off libm in its tail: removed).
//!
//! `pow` is SLEEF's `xpow` (u10) with fused multiply-adds: `ln|x|` as a double-double
//! (`m·2^e`, m in [0.75, 1.5), `ln m = 2·atanh((m - 1)/(m + 1))`, one division, the series' first
//! two terms in double-double and the rest in one polynomial), times `y` in double-double, then
//! `e^` of that double-double (`q·ln2 + s`, a degree-9 polynomial, the scale `2^q` as two
//! factors). About 2^-57 relative before the last rounding; no intervals, no tables, one
//! division. The C99 special cases and the exact `y = ±1, 2, 0.5` forms are selects at the end,
//! in fdlibm's order. (It replaced fdlibm's `e_pow.c`, whose 21-bit splits and two divisions
//! made f64 `pow` 12x its copy limit.)
//!
//! `hypot` scales both arguments by 2^∓600 when the larger is above 2^500 or below 2^-500
//! (fdlibm `e_hypot.c`'s scaling), forms `x² + y²` exactly as a double-double (Veltkamp
//! splitting, Dekker products), and corrects `r = √hi` by one Newton step in double-double,
//! `r + (s - r²)/(2r)`: within 0.5 ulp + 2^-100 before the scale back. C99: ±inf beats NaN.

// fdlibm's coefficients as published; the clamps are written as selects like those of
// `double.rs`.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

use super::double::{MAGIC, MANT, SIGN, TWO52, TWO52_BITS, abs, pow2_split};
use super::{fma_f64, two_sum};

// ---------------------------------------------------------------- erf, erfc (s_erf.c)

/// `erx`: erf(1) to 28 bits.
const ERX: f64 = 8.450_629_115_104_675_292_97e-1;

/// The numerators, ascending powers; columns: fdlibm's `pp` (a < 0.84375), `pa` (< 1.25),
/// zero-padded to degree 7 (the degree of fdlibm's tail intervals, which libm computes here).
const ERF_NUM: [[f64; 2]; 8] = [
    [
        1.283_791_670_955_125_585_61e-1,
        -2.362_118_560_752_659_440_77e-3,
    ],
    [
        -3.250_421_072_470_014_993_70e-1,
        4.148_561_186_837_483_316_66e-1,
    ],
    [
        -2.848_174_957_559_851_047_66e-2,
        -3.722_078_760_357_013_238_47e-1,
    ],
    [
        -5.770_270_296_489_441_591_57e-3,
        3.183_466_199_011_617_536_74e-1,
    ],
    [
        -2.376_301_665_665_016_260_84e-5,
        -1.108_946_942_823_966_774_76e-1,
    ],
    [0.0, 3.547_830_432_561_823_593_71e-2],
    [0.0, -2.166_375_594_868_790_843_00e-3],
    [0.0, 0.0],
];

/// The denominators `1 + d1·s + ... + d8·s^8`, d1..d8; columns: `qq`, `qa`.
const ERF_DEN: [[f64; 2]; 8] = [
    [
        3.979_172_239_591_553_528_19e-1,
        1.064_208_804_008_442_282_86e-1,
    ],
    [
        6.502_224_998_876_729_444_85e-2,
        5.403_979_177_021_710_489_37e-1,
    ],
    [
        5.081_306_281_875_765_627_76e-3,
        7.182_865_441_419_626_628_68e-2,
    ],
    [
        1.324_947_380_043_216_445_26e-4,
        1.261_712_198_087_616_421_12e-1,
    ],
    [
        -3.960_228_278_775_368_123_20e-6,
        1.363_708_391_202_905_073_62e-2,
    ],
    [0.0, 1.198_449_984_679_910_741_70e-2],
    [0.0, 0.0],
    [0.0, 0.0],
];

/// fdlibm's first two interval bounds on |x|: 0.84375, 1.25.
const ERF_B0: f64 = 0.84375;
const ERF_B1: f64 = 1.25;

/// `erfc(2 + t)` for t in [-1, 1] (a in [1, 3]), absolute error 2^-57, lowest degree first.
const ERFC_MID_NEAR: [f64; 24] = [
    0.004677734981047269,
    -0.020666985354092053,
    0.04133397070818337,
    -0.04822296582621496,
    0.034444975590188706,
    -0.013089090724250439,
    -0.0004592663418630459,
    0.003378888081554037,
    -0.0015910298184689605,
    5.011835214090492e-05,
    0.000262802369598141,
    -0.0001037657041094764,
    -5.229847014731291e-06,
    1.6242877732665705e-05,
    -3.9514693876535065e-06,
    -9.574491390360167e-07,
    7.008360439616501e-07,
    -5.9077280434910956e-08,
    -6.065054092812843e-08,
    1.8419800286519057e-08,
    2.3850183073510263e-09,
    -1.980474545748185e-09,
    3.083742666897777e-11,
    1.0768977644960846e-10,
];
/// `erfc(4.5 + t)` for t in [-1.5, 1.5] (a in [3, 6]), absolute error 2^-55.
const ERFC_MID_FAR: [f64; 24] = [
    1.966160619196362e-10,
    -1.8113059029544498e-09,
    8.150874258858208e-09,
    -2.384886006087698e-08,
    5.094302633878907e-08,
    -8.45427218056502e-08,
    1.1322886350756936e-07,
    -1.254511033046539e-07,
    1.1687094174602599e-07,
    -9.247663664592487e-08,
    6.244739404371065e-08,
    -3.596261434282918e-08,
    1.7517519196216314e-08,
    -7.053794794451648e-09,
    2.2168609732912004e-09,
    -4.582995250985145e-10,
    4.6125668311474595e-12,
    4.880751017669093e-11,
    -2.7429227677701365e-11,
    7.946653194586624e-12,
    -2.2557428972011408e-13,
    -5.96652698684797e-13,
    1.359627799873593e-13,
    -3.6216325638017755e-15,
];
/// `P(z) = erf(a)/a - 1`, `z = a²` in [0, 1], relative error 2^-55.5.
const ERF_SMALL_P: [f64; 13] = [
    0.1283791670955126,
    -0.3761263890318375,
    0.11283791670954879,
    -0.026866170645076792,
    0.0052239776248180145,
    -0.000854832698083379,
    0.0001205533111164271,
    -1.4925595266831182e-05,
    1.6461000484121368e-06,
    -1.6350312701054695e-07,
    1.4659775274047436e-08,
    -1.1372848856791674e-09,
    5.957176147748911e-11,
];

/// `erf a = a + a·P(a²)` for `a` in [0, 1) (`z = a²`).
#[inline(always)]
fn erf_small(a: f64, z: f64) -> f64 {
    fma_f64(a, super::horner_f64(z, ERF_SMALL_P), a)
}

/// Whether `x` is in [`erf_f64_central`]'s domain (|x| < 1; false for NaN).
#[inline(always)]
pub fn erf_f64_is_central(x: f64) -> bool {
    abs(x) < 1.0
}

/// [`erf_f64`] for |x| < 1: its first polynomial alone (the second, of degree 23, is computed
/// and selected away there in the general form): the same bits, meaningless above.
#[inline(always)]
pub fn erf_f64_central(x: f64) -> f64 {
    let a = abs(x);
    let r = erf_small(a, a * a);
    f64::from_bits(r.to_bits() | (x.to_bits() & SIGN))
}

/// The error function for f64, branch-free, by two polynomials per lane (no division, no exp):
/// `a + a·P(a²)` below 1 (P of degree 12, relative 2^-55) and `1 - Q(a - c)` from 1 to 6, Q of
/// degree 23 fitted to erfc for absolute error on [1, 3] (c = 2) and [3, 6] (c = 4.5), its
/// coefficients selected per lane (erf is >= 0.84 there, so erfc needs no relative accuracy;
/// `a - c` is exact on both intervals). Chebyshev interpolants (mpmath, 50 digits) rounded to
/// f64; erf rounds to 1 from 5.93 (a is clamped to 6). The sign of x put back, NaN returned as
/// it is. Max 1 ulp from the `libm` crate's `erf` (`tests/math_accuracy_f64.rs`).
#[inline(always)]
pub fn erf_f64(x: f64) -> f64 {
    let ax = abs(x);
    let a = if ax < 6.0 { ax } else { 6.0 };
    let z = a * a;
    let small = erf_small(a, z);
    let far = a >= 3.0;
    let t = a - if far { 4.5 } else { 2.0 };
    let pick = |k: usize| {
        if far {
            ERFC_MID_FAR[k]
        } else {
            ERFC_MID_NEAR[k]
        }
    };
    let mut q = pick(23);
    macro_rules! horner_picked {
        ($($k:literal)*) => {$( q = fma_f64(q, t, pick($k)); )*};
    }
    horner_picked!(22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0);
    let r = if a < 1.0 { small } else { 1.0 - q };
    let r = f64::from_bits(r.to_bits() | (x.to_bits() & SIGN));
    if ax <= f64::INFINITY { r } else { x }
}

/// |x| below which [`erfc_f64_central`] holds: fdlibm's second interval bound.
pub const ERFC_CENTRAL_LIMIT: f64 = ERF_B1;

/// Whether `x` is in [`erfc_f64_central`]'s domain (|x| < 1.25; false for NaN).
#[inline(always)]
pub fn erfc_f64_is_central(x: f64) -> bool {
    abs(x) < ERFC_CENTRAL_LIMIT
}

/// The `libm` crate's `erfc` (fdlibm `s_erf.c`) for |x| < 1.25, its two rationals without an
/// exp (`P/Q` in x² below 0.84375, in |x| - 1 above) as one numerator and one denominator with
/// per-lane coefficients (zero-padded: the Horner steps give fdlibm's bits), one division, and
/// fdlibm's forms of the result written out as selects, operation for operation: the same bits
/// as `libm::erfc` on that domain (tested), meaningless above. The general f64 erfc stays
/// libm's (its tails take two exps: branch-free, every lane would pay for them).
#[inline(always)]
pub fn erfc_f64_central(x: f64) -> f64 {
    let a = abs(x);
    let i0 = a < ERF_B0;
    let pick = |c: [f64; 2]| if i0 { c[0] } else { c[1] };
    let v = if i0 { x * x } else { a - 1.0 };
    let mut p = pick(ERF_NUM[7]);
    let mut q = pick(ERF_DEN[7]) * v + pick(ERF_DEN[6]);
    macro_rules! horner {
        ($($k:literal)*) => {$(
            p = p * v + pick(ERF_NUM[$k]);
            q = q * v + pick(ERF_DEN[$k - 1]);
        )*};
    }
    horner!(6 5 4 3 2 1);
    let p = p * v + pick(ERF_NUM[0]);
    let q = q * v + 1.0;
    let y = p / q;
    // |x| < 0.84375: `1 - (x + x·y)` for x < 1/4 (negative x included), else
    // `0.5 - ((x - 0.5) + x·y)`; `1 - x` below 2^-56.
    let negative = x.to_bits() & SIGN != 0;
    let c0 = if negative || a < 0.25 {
        1.0 - (x + x * y)
    } else {
        0.5 - ((x - 0.5) + x * y)
    };
    let c0 = if a < 1.387_778_780_781_445_7e-17 {
        1.0 - x
    } else {
        c0
    };
    // 0.84375 <= |x| < 1.25: `(1 - erx) - y`, and 2 minus that for negative x (the crate's
    // forms; fdlibm's C writes `1 + (erx + y)` there, which differs in the last bit).
    let c1 = (1.0 - ERX) - y;
    let c1 = if negative { 2.0 - c1 } else { c1 };
    if i0 { c0 } else { c1 }
}

// ---------------------------------------------------------------- pow (SLEEF's xpow)

/// A double-double: the unevaluated sum `hi + lo`, `|lo| <= ulp(hi)/2`.
type Dd = (f64, f64);

/// `x + y` for `|x.0| >= |y.0|` (or x = 0): SLEEF's `ddadd_d2_d2_d2`.
#[inline(always)]
fn dd_add(x: Dd, y: Dd) -> Dd {
    let s = x.0 + y.0;
    (s, x.0 - s + y.0 + x.1 + y.1)
}

/// `x + y`, any magnitudes: SLEEF's `ddadd2_d2_d2_d`.
#[inline(always)]
fn dd_add_d(x: Dd, y: f64) -> Dd {
    let (s, t) = two_sum(x.0, y);
    (s, t + x.1)
}

/// `x·y` (the product of the high parts exact by a fused multiply-add).
#[inline(always)]
fn dd_mul(x: Dd, y: Dd) -> Dd {
    let s = x.0 * y.0;
    (
        s,
        fma_f64(x.0, y.1, fma_f64(x.1, y.0, fma_f64(x.0, y.0, -s))),
    )
}

/// `x·y` for a double `y`.
#[inline(always)]
fn dd_mul_d(x: Dd, y: f64) -> Dd {
    let s = x.0 * y;
    (s, fma_f64(x.1, y, fma_f64(x.0, y, -s)))
}

/// `x²`.
#[inline(always)]
fn dd_sq(x: Dd) -> Dd {
    let s = x.0 * x.0;
    (s, fma_f64(x.0 + x.0, x.1, fma_f64(x.0, x.0, -s)))
}

/// `n/d` for a double `n` (one division, corrected by fused multiply-adds).
#[inline(always)]
fn dd_div_d(n: f64, d: Dd) -> Dd {
    let t = 1.0 / d.0;
    let s = n * t;
    let u = fma_f64(t, n, -s);
    let v = fma_f64(-d.1, t, fma_f64(-d.0, t, 1.0));
    (s, fma_f64(s, v, u))
}

/// `ln a` as a double-double for a finite a > 0 (SLEEF's `logk`): `a = m·2^e`, m in
/// [0.75, 1.5), `ln m = 2·atanh(x)`, `x = (m - 1)/(m + 1)`, the series' first two terms in
/// double-double, the rest (x² up to x^16) by one polynomial. Relative error about 2^-100
/// (SLEEF's u10 `pow` rests on it). Other inputs give garbage.
#[inline(always)]
fn ln_dd(a: f64) -> Dd {
    let sub = a < f64::MIN_POSITIVE;
    let d = if sub {
        a * 18_446_744_073_709_551_616.0
    } else {
        a
    };
    ln_dd_of_normal(d, sub)
}

/// [`ln_dd`] of a normal `d > 0` that is `a·2^64` where `scaled` (a subnormal `a`), else `a`.
#[inline(always)]
fn ln_dd_of_normal(d: f64, scaled: bool) -> Dd {
    const LN2: Dd = (
        core::f64::consts::LN_2,
        2.319_046_813_846_299_558_417_771e-17,
    );
    const C: Dd = (
        0.666_666_666_666_666_629_659_233,
        3.805_549_625_424_120_563_366_16e-17,
    );
    // e = the exponent of d/0.75, so that m = d·2^-e is in [0.75, 1.5).
    let eb = ((d * (1.0 / 0.75)).to_bits() >> 52) & 0x7ff;
    let m = f64::from_bits(d.to_bits().wrapping_sub(eb.wrapping_sub(1023) << 52));
    let e = f64::from_bits(TWO52_BITS | eb) - (TWO52 + 1023.0);
    let e = if scaled { e - 64.0 } else { e };
    // m - 1 is exact (Sterbenz), m + 1 a double-double.
    let x = dd_div_d(m - 1.0, two_sum(1.0, m));
    let x2 = dd_sq(x);
    let z = x2.0;
    let t = 0.116_255_524_079_935_043_668_677;
    let t = fma_f64(t, z, 0.103_239_680_901_072_952_701_192);
    let t = fma_f64(t, z, 0.117_754_809_412_463_995_466_069);
    let t = fma_f64(t, z, 0.133_329_810_868_462_739_215_09);
    let t = fma_f64(t, z, 0.153_846_227_114_512_262_845_736);
    let t = fma_f64(t, z, 0.181_818_180_850_050_775_676_507);
    let t = fma_f64(t, z, 0.222_222_222_230_083_560_345_903);
    let t = fma_f64(t, z, 0.285_714_285_714_249_172_087_875);
    let t = fma_f64(t, z, 0.400_000_000_000_000_077_715_612);
    let s = dd_mul_d(LN2, e);
    let s = dd_add(s, (x.0 * 2.0, x.1 * 2.0));
    let x3 = dd_mul(x2, x);
    let s = dd_add(s, dd_mul(x3, C));
    let x5 = dd_mul(x2, x3);
    dd_add(s, dd_mul_d(x5, t))
}

/// `e^d` for a double-double d in about [-1000, 710] (SLEEF's `expk`): `d = q·ln2 + s` in
/// double-double, `e^s = 1 + s + s²·P(s)`, scaled by `2^q` as two factors (one rounding into
/// the subnormal range). Outside that range garbage (the caller selects 0 or inf).
#[inline(always)]
fn exp_dd(d: Dd) -> f64 {
    const L2U: f64 = 0.693_147_180_559_662_956_511_601_805_686_950_683_593_75;
    const L2L: f64 = 0.282_352_905_630_315_771_225_884_481_750_134_360_255_254_120_68e-12;
    let u = (d.0 + d.1) * core::f64::consts::LOG2_E;
    let tt = super::clamp_nan_passing(u, -1500.0, 1100.0) + MAGIC;
    let q = tt - MAGIC;
    let s = dd_add_d(d, q * -L2U);
    let s = dd_add_d(s, q * -L2L);
    let h = s.0 + s.1;
    let s = (h, s.0 - h + s.1);
    let x = s.0;
    let p = 2.510_696_834_209_504_195_271_39e-8;
    let p = fma_f64(p, x, 2.762_861_667_702_706_491_168_55e-7);
    let p = fma_f64(p, x, 2.755_724_967_250_235_741_438_64e-6);
    let p = fma_f64(p, x, 2.480_149_739_898_197_941_141_53e-5);
    let p = fma_f64(p, x, 1.984_126_988_090_697_976_761_11e-4);
    let p = fma_f64(p, x, 1.388_888_893_997_712_896_052_9e-3);
    let p = fma_f64(p, x, 8.333_333_333_323_714_176_010_81e-3);
    let p = fma_f64(p, x, 4.166_666_666_654_095_241_284_49e-2);
    let p = fma_f64(p, x, 1.666_666_666_666_667_406_815_35e-1);
    let p = fma_f64(p, x, 5.000_000_000_000_009_992_007_22e-1);
    let t = dd_add((1.0, 0.0), s);
    let t = dd_add(t, dd_mul_d(dd_sq(s), p));
    let (s1, s2) = pow2_split(tt);
    (t.0 + t.1) * s1 * s2
}

/// `x^y` for f64, branch-free: SLEEF's `xpow` (u10), `ln|x|` in double-double (`ln_dd`),
/// `y·ln|x|` in double-double, `e^` of it (`exp_dd`), overflow and underflow by the exponent's
/// double-double value, every C99 special case of `pow` (as glibc's `f64::powf`) and the exact
/// forms of `y = ±1, 2, 0.5` selected at the end. Max 1 ulp from glibc's (measured, see
/// tests/math_accuracy_f64.rs): the result before its last rounding is within about 2^-57
/// relative, so exact powers come out exact.
#[inline(always)]
pub fn pow_f64(x: f64, y: f64) -> f64 {
    let xb = x.to_bits();
    let yb = y.to_bits();
    let ax = abs(x);
    let ay = abs(y);
    let x_neg = xb >> 63 == 1;

    // Is y an integer, an odd one? Biased exponent e: integer if e > 0x433 (|y| >= 2^53, and
    // inf/NaN, which are handled apart), or e in [0x3ff, 0x433] with no fraction bit set.
    let e = (yb >> 52) & 0x7ff;
    let sh = 0x433u64.wrapping_sub(e) & 63;
    let ym = (yb & MANT) | (1 << 52);
    let frac = ym & ((1u64 << sh) - 1);
    let in_range = (0x3ff..=0x433).contains(&e);
    let y_int = e > 0x433 || (in_range && frac == 0);
    let y_odd = in_range && frac == 0 && (ym >> sh) & 1 == 1;

    let r = exp_of_product(ln_dd(ax), y);
    // (x < 0)^(odd integer): negative.
    let r = f64::from_bits(r.to_bits() | if x_neg && y_odd { SIGN } else { 0 });

    // The special cases, lowest priority first (fdlibm's order reversed).
    // (x < 0)^(non-integer) is NaN (x = -inf is overridden below).
    let r = if x < 0.0 && !y_int { f64::NAN } else { r };
    // x = ±0, ±inf, ±1: |x| or 1/|x|, the sign of x for odd y, (-1)^non-integer NaN.
    let inv = 1.0 / ax;
    let xz = if y < 0.0 { inv } else { ax };
    let xz = f64::from_bits(xz.to_bits() | if x_neg && y_odd { SIGN } else { 0 });
    let xz = if x_neg && ax == 1.0 && !y_int {
        f64::NAN
    } else {
        xz
    };
    let r = if ax == 0.0 || ax == f64::INFINITY || ax == 1.0 {
        xz
    } else {
        r
    };
    // y = 0.5 (x >= +0), 2, -1, 1: sqrt(x), x·x, 1/x, x.
    let r = if y == 0.5 && !x_neg {
        super::sqrt_f64(x)
    } else {
        r
    };
    let r = if y == 2.0 { x * x } else { r };
    // 1/x is 1/|x| with the sign of x (one division less).
    let r = if y == -1.0 {
        f64::from_bits(inv.to_bits() | (xb & SIGN))
    } else {
        r
    };
    let r = if y == 1.0 { x } else { r };
    // y = ±inf: 1 for |x| = 1, else inf or 0 by |x| > 1 and the sign of y.
    let yi = if (ax > 1.0) == (y > 0.0) {
        f64::INFINITY
    } else {
        0.0
    };
    let yi = if ax == 1.0 { 1.0 } else { yi };
    let r = if ay == f64::INFINITY { yi } else { r };
    // NaN in, NaN out, except 1^y = 1 and x^±0 = 1.
    let r = if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        r
    };
    let r = if x == 1.0 { 1.0 } else { r };
    if y == 0.0 { 1.0 } else { r }
}

/// Whether [`pow_f64_narrow`] gives `pow_f64`'s bits at `(x, y)`: a normal finite `x > 0`
/// other than 1 and a finite `y` other than the exact forms' 0, ±1, 2 and 0.5, where none of
/// `pow_f64`'s special cases or exact forms applies and `ln_dd` needs no subnormal scaling.
/// False for NaN.
#[inline(always)]
pub fn pow_f64_in_narrow(x: f64, y: f64) -> bool {
    (f64::MIN_POSITIVE..f64::INFINITY).contains(&x)
        && x != 1.0
        && abs(y) < f64::INFINITY
        && y != 0.0
        && y != 1.0
        && y != -1.0
        && y != 2.0
        && y != 0.5
}

/// [`pow_f64`] where [`pow_f64_in_narrow`] holds: `e^(y·ln x)` with its overflow and underflow
/// bounds alone, without the integer and odd tests of `y`, the division and square root of the
/// exact forms and the special-case selects.
#[inline(always)]
pub fn pow_f64_narrow(x: f64, y: f64) -> f64 {
    exp_of_product(ln_dd_of_normal(x, false), y)
}

/// `e^(y·l)` for `l = ln|x|` as a double-double: infinite above ln(f64::MAX) = 709.78..., zero
/// below ln(2^-1075) = -745.13... (exp_dd's own scaling rounds the lanes between them and these
/// bounds).
#[inline(always)]
fn exp_of_product(l: Dd, y: f64) -> f64 {
    let d = dd_mul_d(l, y);
    let r = exp_dd(d);
    let r = if d.0 > 709.79 { f64::INFINITY } else { r };
    if d.0 < -1000.0 { 0.0 } else { r }
}

// ---------------------------------------------------------------- hypot

/// `a²` exactly as `(hi, lo)` (Veltkamp split, Dekker product; no FMA), for |a| < 2^970.
#[inline(always)]
fn sq2(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let ah = c - (c - a);
    let al = a - ah;
    let h = a * a;
    let l = ((ah * ah - h) + 2.0 * ah * al) + al * al;
    (h, l)
}

/// `sqrt(x² + y²)` for f64, branch-free, without spurious overflow or underflow: both scaled
/// by 2^∓600 when the larger is above 2^500 or below 2^-500 (fdlibm `e_hypot.c`), `x² + y²`
/// as an exact double-double, `√` corrected by a double-double Newton step (see the module
/// docs). C99: ±inf beats NaN. Max 1 ulp from glibc's (measured, see tests/accuracy.rs).
#[inline(always)]
pub fn hypot_f64(x: f64, y: f64) -> f64 {
    const UP: f64 = 4.149_515_568_880_993e180; // 2^600
    const DOWN: f64 = 2.409_919_865_102_884e-181; // 2^-600
    let ax = abs(x);
    let ay = abs(y);
    let big = if ax > ay { ax } else { ay };
    let small = if ax > ay { ay } else { ax };
    let hi = big > 3.273_390_607_896_141_9e150; // 2^500
    let lo = big < 3.054_936_363_499_604_7e-151; // 2^-500
    let sc = if hi {
        DOWN
    } else if lo {
        UP
    } else {
        1.0
    };
    let unsc = if hi {
        UP
    } else if lo {
        DOWN
    } else {
        1.0
    };
    let (ah, al) = sq2(big * sc);
    let (bh, bl) = sq2(small * sc);
    // (ah + al) + (bh + bl), ah >= bh: Fast2Sum of the heads, then the tails.
    let sh = ah + bh;
    let sl = ((ah - sh) + bh) + (al + bl);
    let s = sh + sl;
    let s_lo = sl - (s - sh);
    let r = super::sqrt_f64(s);
    let (rh, rl) = sq2(r);
    let d = ((s - rh) - rl) + s_lo;
    let r = (r + d / (2.0 * r)) * unsc;
    let r = if big == 0.0 { 0.0 } else { r };
    let r = if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        r
    };
    if ax == f64::INFINITY || ay == f64::INFINITY {
        f64::INFINITY
    } else {
        r
    }
}
