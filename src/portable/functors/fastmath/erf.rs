//! Branch-free f32 `erf`, `erfc` and exact (erf) `gelu` in f32 arithmetic with fused
//! multiply-adds, 16 lanes wide in the kernels' AVX-512 loops (8 in AVX2), relative-accurate
//! in the far tails down to their underflow.
//!
//! `erfc` and `gelu` share one kernel: for `a >= 0`, `erfc a = erfcx(a) · e^(-a²)` with
//! - `erfcx(a) = (1 + p(q)) / (1 + 2a)`, `q = (a - 2)/(a + 2)` in [-1, 0.69] for a in [0, 11]:
//!   one polynomial of degree 9 on the whole range, no interval selects (the
//!   `(a-2)/(a+2)` form is Norbert Juffa's `erfcf`; the coefficients are our own least-squares
//!   fit with each coefficient rounded to f32 in turn, highest first, and the rest refitted).
//!   `q` and the division are refined with their residuals (one fma each).
//! - `e^(-a²)` from `a² = s + e` split exactly (`s = a·a`, `e = fma(a, a, -s)`), reduced by
//!   `ln 2` (Cody-Waite in two fmas, exact), so the tail keeps its relative accuracy where an
//!   f32 `a²` would cost 2^6 ulp; Cephes' `expf` polynomial; `1 + w` folded into the product
//!   with `erfcx` (one rounding), and `2^n` applied last in two factors, so a subnormal result
//!   is rounded once.
//!
//! `erf` needs no tail (its result is >= 0.84 from 1 on) and uses two polynomials instead:
//! `a + a·P(a²)` below 1 (P of degree 6) and `1 - Q(a - 2.5)` from 1 to 4 (Q of degree 14
//! fitted to `erfc` for absolute error; `a - 2.5` is exact on [1, 4], so the only roundings
//! are Horner's; a is clamped to 4, erf rounding to 1 from 3.92): no division, no `exp`, half
//! the time of the kernel. The coefficients are least-squares (Lawson) fits rounded to f32.
//! `gelu x = x/2 · erfc(-x/√2)` is the kernel on `t = |x|/√2` with `t² = x²/2` split exactly,
//! `x - x/2·erfc t` for x >= 0; for |x| <= 4 (its narrow form) `erfcx` is one polynomial of
//! degree 14 in `t - 1.25` instead of the two divisions' form, and so is erfc's for
//! |x| <= 2.8285 (its central form).
//!
//! Max error against the f64 libm function rounded to f32, all 2^32 inputs
//! (`tests/math_accuracy.rs`, ignored test): `erf` 1 ulp, `erfc` 3 ulp (at x = 1.6e-4), `gelu`
//! 4 ulp (at x = -3.653343): the polynomial `erfcx`'s rounding; 2 and 3 with the rational one
//! everywhere.

use super::fma_f32 as fma;

/// `c[top]·v^top + ... + c[0]` by Horner's rule with fused multiply-adds, the indices written
/// out from `top` down: a `for` loop here keeps LLVM from vectorizing the caller's loop.
macro_rules! horner {
    ($c:ident, $v:ident; $top:literal $($k:literal)*) => {{
        let mut p = $c[$top];
        $( p = fma(p, $v, $c[$k]); )*
        p
    }};
}

/// The polynomial of `erfcx`, `p(q) = (1 + 2a)·e^(a²)·erfc(a) - 1`, lowest degree first.
const ERFCX_P: [f32; 10] = [
    0.276_978_4,
    -0.092_764_04,
    -0.166_031_3,
    0.164_056_5,
    -0.054_204_833,
    -0.008_065_264,
    0.008_630_633,
    0.001_321_041_3,
    -0.001_225_754_7,
    -0.000_401_087_13,
];

/// `P(s) = erf(a)/a - 1`, `s = a²`, a in [0, 1], lowest degree first.
const ERF_P: [f32; 7] = [
    0.128_379_17,
    -0.376_126_26,
    0.112_836,
    -0.026_854_444,
    0.005_189_534_7,
    -0.000_802_083_7,
    7.889_104e-5,
];

/// `Q(t) = erfc(t + 2.5)` for t in [-1.5, 1.5] (a in [1, 4]), absolute error 1e-8, lowest
/// degree first.
const ERFC_MID_Q: [f32; 15] = [
    0.000_406_952_66,
    -0.002_178_188_9,
    0.005_445_676_4,
    -0.008_351_716,
    0.008_622_685,
    -0.006_109_302_4,
    0.002_797_348_9,
    -0.000_560_065_1,
    -0.000_258_480_72,
    0.000_270_398_83,
    -8.125_663e-5,
    -1.768_200_3e-5,
    1.576_800_1e-5,
    -5.092_919_7e-7,
    -8.961_361_6e-7,
];

/// `erfcx(a) = e^(a²)·erfc(a)` for a in [0, 2.8285] as a polynomial in `a - 1.25`, lowest
/// degree first (degree 14; least squares for relative error, each coefficient rounded to f32
/// in turn, highest first, and the rest refitted: 2^-26.5 before the f32 evaluation). No
/// division, where [`erfcx`] needs two: gelu's kernel for |x| <= 4 (`t = |x|/√2 <= 2.8285`).
const ERFCX_NEAR: [f32; 15] = [
    0.367_822_92,
    -0.208_821_86,
    0.106_795_52,
    -0.050_218_407,
    0.022_011_92,
    -0.009_081_112,
    0.003_550_948_3,
    -0.001_326_368_8,
    0.000_477_869_88,
    -0.000_163_320_1,
    5.059_510_3e-5,
    -1.618_156_6e-5,
    6.756_007_7e-6,
    -2.390_151e-6,
    3.776_656_9e-7,
];

/// gelu's |x| up to which `erfcx` is [`ERFCX_NEAR`] (its `t` <= 2.828_427_2, inside the fit).
const GELU_NEAR: f32 = 4.0;

/// [`erfcx`] for `a` in [0, 2.8285] by [`ERFCX_NEAR`] (gelu's kernel to |x| = 4, erfc's to 2.8285).
#[inline(always)]
fn erfcx_near(a: f32) -> f32 {
    let u = a - 1.25;
    horner!(ERFCX_NEAR, u; 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0)
}

/// Below this, `erf` is its own polynomial; above, `1 - Q`.
const ERF_SMALL: f32 = 1.0;

/// `p(q)` of [`ERFCX_P`] by Horner's rule.
#[inline(always)]
fn erfcx_poly(q: f32) -> f32 {
    horner!(ERFCX_P, q; 9 8 7 6 5 4 3 2 1 0)
}

/// `e^(a²)·erfc(a)` for `a` in [0, 11] (see the module docs), about 1.4 ulp.
#[inline(always)]
fn erfcx(a: f32) -> f32 {
    let r = 1.0 / (a + 2.0);
    let q = (a - 2.0) * r;
    // The residual `(a - 2) - q·(a + 2)`, written so it is exact (Juffa).
    let t = fma(q + 1.0, -2.0, a);
    let q = fma(r, fma(q, -a, t), q);
    let p = erfcx_poly(q);
    // (1 + p) / d, d = 1 + 2a, with the division's residual.
    let d = fma(2.0, a, 1.0);
    let r = 1.0 / d;
    let e0 = fma(p, r, r);
    let res = fma(fma(e0, -a, 0.5), 2.0, p - e0);
    fma(res, r, e0)
}

/// `e^-(s + e) = (1 + w)·2^n` for `s` in [0, 121] and `|e| <= ulp(s)/2`: returns `(w, n)`.
#[inline(always)]
fn exp_neg(s: f32, e: f32) -> (f32, i32) {
    const LN2_HI: f32 = core::f32::consts::LN_2;
    const LN2_LO: f32 = -1.904_654_2e-9;
    const ROUND_MAGIC: f32 = 12_582_912.0;
    let t = -s * core::f32::consts::LOG2_E + ROUND_MAGIC;
    let n = t.to_bits() as i32 - ROUND_MAGIC.to_bits() as i32;
    let nf = t - ROUND_MAGIC;
    // -s - n·ln2: the first fma is exact (the difference has at most 23 significant bits).
    let r = fma(nf, -LN2_HI, -s);
    let r = fma(nf, -LN2_LO, r) - e;
    let mut p = 1.987_569_1e-4f32;
    p = fma(p, r, 1.398_199_9e-3);
    p = fma(p, r, 8.333_452e-3);
    p = fma(p, r, 4.166_579_6e-2);
    p = fma(p, r, 1.666_666_6e-1);
    p = fma(p, r, 0.5);
    (fma(r * r, p, r), n)
}

/// `m·2^n` for `n` in [-252, 127], with one rounding when the result is subnormal.
#[inline(always)]
fn scale(m: f32, n: i32) -> f32 {
    let h = n >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - h + 127) as u32) << 23);
    m * s1 * s2
}

/// `erfc a = (m, n)` with `erfc a = m·2^n`, for `a` in [0, 11], `a² = s + e` exactly, from
/// `c = erfcx(a)`.
#[inline(always)]
fn erfc_parts_from(c: f32, s: f32, e: f32) -> (f32, i32) {
    let (w, n) = exp_neg(s, e);
    (fma(c, w, c), n)
}

/// `a·a` as `s + e` exactly.
#[inline(always)]
fn square(a: f32) -> (f32, f32) {
    let s = a * a;
    (s, fma(a, a, -s))
}

/// `|x|` clamped to `max` (NaN also becomes `max`, to be selected away).
#[inline(always)]
fn abs_clamped(x: f32, max: f32) -> f32 {
    let a = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    if a < max { a } else { max }
}

/// The error function for f32, branch-free (see the module docs), the sign of x put back (so
/// `erf(-0) = -0`, `erf(±inf) = ±1`). Max error 1 ulp.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let a = abs_clamped(x, 4.0);
    // Exact on [1, 4] (Sterbenz, and the grid of [1, 2) holds every difference there).
    let t = a - 2.5;
    let big = 1.0 - horner!(ERFC_MID_Q, t; 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0);
    let r = if a < ERF_SMALL { erf_f32_small(a) } else { big };
    let r = f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000));
    // A NaN input is returned as it is (the same bits in every loop).
    if x.is_nan() { x } else { r }
}

/// `erf a` for `a` in [0, 1): the polynomial, and below 2^-14 `a·2/√π` in f64 (the a³ term is
/// < 2^-29 relative): correctly rounded, also where the result is subnormal (the f32 constant
/// of the polynomial is off by 2^-30 relative, enough to miss the correctly rounded result now
/// and then).
#[inline(always)]
fn erf_f32_small(a: f32) -> f32 {
    let z = a * a;
    let small = fma(a, horner!(ERF_P, z; 6 5 4 3 2 1 0), a);
    let tiny = (a as f64 * core::f64::consts::FRAC_2_SQRT_PI) as f32;
    if a < 6.103_515_6e-5 { tiny } else { small }
}

/// Whether |x| < 1 (false for NaN): [`erf_f32_central`]'s domain.
#[inline(always)]
pub fn erf_f32_is_central(x: f32) -> bool {
    f32::from_bits(x.to_bits() & 0x7fff_ffff) < ERF_SMALL
}

/// [`erf_f32`] for |x| < 1: the polynomial alone (the general form also computes the degree-14
/// one of [1, 4] and selects): the same bits, meaningless above.
#[inline(always)]
pub fn erf_f32_central(x: f32) -> f32 {
    let a = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    f32::from_bits(erf_f32_small(a).to_bits() | (x.to_bits() & 0x8000_0000))
}

/// The complementary error function for f32, branch-free (see the module docs), `2 - erfc|x|`
/// for negative x; relative-accurate in the tail down to its underflow (subnormal from
/// x ≈ 9.19, +0 from 10.06). `erfc(-inf) = 2`, `erfc(inf) = +0`. Max error 3 ulp.
#[inline(always)]
pub fn erfc_f32(x: f32) -> f32 {
    let a = abs_clamped(x, 11.0);
    // erfcx by the polynomial up to |x| = 2.8285 (the central form's domain), the rational above.
    let c = if a <= ERFCX_NEAR_TOP {
        erfcx_near(a)
    } else {
        erfcx(a)
    };
    let r = erfc_from(x, a, c);
    if x.is_nan() { x } else { r }
}

/// The top of [`ERFCX_NEAR`]'s fit, erfc's central domain.
const ERFCX_NEAR_TOP: f32 = 2.8285;

/// Whether |x| <= 2.8285 (false for NaN): f32's side of `Real::is_erfc_central`, where
/// [`erfc_f32_central`] holds.
#[inline(always)]
pub fn erfc_f32_is_central(x: f32) -> bool {
    f32::from_bits(x.to_bits() & 0x7fff_ffff) <= ERFCX_NEAR_TOP
}

/// [`erfc_f32`] for |x| <= 2.8285: `erfcx` as the polynomial alone (no divisions, no NaN
/// select): the same bits, meaningless above.
#[inline(always)]
pub fn erfc_f32_central(x: f32) -> f32 {
    let a = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    erfc_from(x, a, erfcx_near(a))
}

/// erfc from `a = |x|` (clamped) and `c = erfcx(a)`: `c·e^(-a²)`, `2 - that` for x < 0.
#[inline(always)]
fn erfc_from(x: f32, a: f32, c: f32) -> f32 {
    let (s, e) = square(a);
    let (m, n) = erfc_parts_from(c, s, e);
    let c = scale(m, n);
    if x < 0.0 { 2.0 - c } else { c }
}

/// Exact gelu `x/2 · erfc(-x/√2)` for f32, branch-free (see the module docs),
/// relative-accurate also in the negative tail down to its underflow (subnormal from
/// x ≈ -13.15, -0 from -14.36); `gelu(x) = x` for large x, and `gelu(-inf)` is NaN, as
/// `-inf · erfc(inf)` is. Max error 4 ulp.
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    // |x| >= 15.5 gives t > 10.96: gelu is x or -0 there; the kernel's range ends at 11.
    let ax = abs_clamped(x, 15.5);
    let t = gelu_t(ax);
    // erfcx by the polynomial up to |x| = 4 (the narrow form's domain), the rational above.
    let c = if ax <= GELU_NEAR {
        erfcx_near(t)
    } else {
        erfcx(t)
    };
    let r = gelu_from(x, ax, c);
    // Below -15.5 the product underflows: -0, and NaN for -inf (`x·0`, as the formula gives).
    let r = if x < -15.5 { x * 0.0 } else { r };
    // Above 15.5, x itself (also for +inf, where the fma above would give inf - inf).
    let r = if x > 15.5 { x } else { r };
    // A NaN input is returned as it is (the same bits in every loop).
    if x.is_nan() { x } else { r }
}

/// Whether |x| <= 4 (false for NaN): [`gelu_f32_near`]'s domain, where gelu's `erfcx` is a
/// polynomial (`N(0, 1)` data: 98% of 256-element blocks).
#[inline(always)]
pub fn gelu_f32_is_near(x: f32) -> bool {
    f32::from_bits(x.to_bits() & 0x7fff_ffff) <= GELU_NEAR
}

/// [`gelu_f32`] for |x| <= 4: the polynomial `erfcx` alone, no divisions and no special-value
/// selects (the general form computes the rational one too and selects): the same bits,
/// meaningless above.
#[inline(always)]
pub fn gelu_f32_near(x: f32) -> f32 {
    let ax = f32::from_bits(x.to_bits() & 0x7fff_ffff);
    let t = gelu_t(ax);
    // gelu_from's steps with one scale factor: erfc(t) >= 2^-12 here, so `2^(n-1)` is a normal
    // f32 and every product by it is exact (as scale's two factors are): the same bits.
    let (s, e) = square(ax);
    let (m, n) = erfc_parts_from(erfcx_near(t), 0.5 * s, 0.5 * e);
    let half_scale = f32::from_bits(((n + 126) as u32) << 23);
    let neg = (x * m) * half_scale;
    let pos = fma(-x, m * half_scale, x);
    if x.is_sign_negative() { neg } else { pos }
}

/// `t = |x|/√2` to one rounding (1/√2 in two parts).
#[inline(always)]
fn gelu_t(ax: f32) -> f32 {
    const C_HI: f32 = core::f32::consts::FRAC_1_SQRT_2;
    const C_LO: f32 = 1.210_161_75e-8;
    fma(ax, C_HI, ax * C_LO)
}

/// gelu from `ax = |x|` and `c = erfcx(|x|/√2)`: `erfc` with `t² = x²/2` from the exact
/// square; x < 0: `x·erfc(t)/2`, the 1/2 in the scale (one rounding even when subnormal);
/// x >= 0: `x - x·erfc(t)/2` in one fma.
#[inline(always)]
fn gelu_from(x: f32, ax: f32, c: f32) -> f32 {
    let (s, e) = square(ax);
    let (m, n) = erfc_parts_from(c, 0.5 * s, 0.5 * e);
    let neg = scale(x * m, n - 1);
    let pos = fma(-x, scale(m, n - 1), x);
    // The sign bit, not `x < 0`: gelu(-0) is -0.
    if x.is_sign_negative() { neg } else { pos }
}
