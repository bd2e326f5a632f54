//! Branch-free f64 `sinh`, `cosh`, `asinh`, `acosh`, `atanh`, `log2`, `log10` and `exp2` that
//! LLVM vectorizes, in the style of [`super::double`] (whose kernels they reuse): every branch
//! of the FreeBSD/musl (fdlibm) algorithm is computed and one result selected, and the special
//! values (±0, ±inf, NaN, domain edges, overflow thresholds, tiny inputs) are selects at the
//! end.
//!
//! - `sinh`/`cosh` (fdlibm `e_sinh.c`/`e_cosh.c` ranges): the Taylor series below 1 (sinh) and
//!   ln2/2 (cosh), where fdlibm uses `expm1`; `(E ∓ 1/E)/2` with one `exp` above; past the
//!   `exp` overflow threshold `e^(|x| - 1024 ln2)·2^1023` (fdlibm squares `e^(|x|/2)` there).
//! - `asinh`/`acosh` (fdlibm `s_asinh.c`/`e_acosh.c`): `log1p(v)` for |x| <= 2, `log(w)` up to
//!   2^28, `log|x| + ln2` above, all three through one call of the shared log kernel (the
//!   reduction of each argument is computed and `(f, k, c)` selected).
//! - `atanh` (fdlibm `e_atanh.c`): `½ log1p(2|x| + 2x²/(1 - |x|))` below ½, else
//!   `½ log1p(2|x|/(1 - |x|))`, one `log1p` on the selected argument.
//! - `log2`/`log10`: fdlibm's reduction and `ln(1 + f) = f + t`, then `f·c` for `c = 1/ln2`,
//!   `1/ln10` carried with its exact error (an fma) and the small terms in an fma chain, the
//!   sum with `k` (or `k log10 2`) a Fast2Sum (FreeBSD `e_log2.c`/`e_log10.c` get the same
//!   accuracy by masking to 32 bits instead of fused operations).
//! - `exp2`: `x = k + r`, |r| <= ½ (exact), `2^r = e^(r ln2)` by fdlibm `e_exp.c`'s kernel with
//!   `r ln2` rounded once (an fma with ln2's tail), then `·2^k` as two factors, so subnormal
//!   results are rounded once.
//!
//! Accuracy against glibc's (std's) f64 functions, over 20M random bit patterns, 20M random
//! values on each function's useful ranges and the boundary values (thresholds ±8 floats):
//! see each function's doc. Special values are exact.

// The coefficients are fdlibm's as published; the clamps are written as selects.
#![allow(clippy::excessive_precision, clippy::manual_clamp)]

use super::double::{
    LN2_HI, LN2_LO, MAGIC, O_THRESHOLD, abs, exp_f64, exp_kernel, exp_minus_1_kernel, log_kernel,
    log_poly, log_reduce, log_reduce_scaled, log1p_f64, pow2_split, scale_normal, with_sign_of,
};
use super::horner_f64;

/// 2^-28: below it the odd functions are x itself (fdlibm's cut).
const TINY: f64 = 3.725_290_298_461_914_062_5e-9;
/// 2^28: above it `asinh`/`acosh` are `log(|x|) + ln2` (fdlibm's cut).
const HUGE: f64 = 268_435_456.0;
/// fdlibm's `sinh`/`cosh` overflow threshold (0x408633ce_8fb9f87d): `e^x/2` is finite up to it.
const HYP_OVF: f64 = 7.104_758_600_739_438_634_26e2;

/// 2^1023.
const TWO1023: f64 = 8.988_465_674_311_579_538_65e307;

/// Past the `exp` overflow threshold (`big`), `e^a/2 = e^d·2^1023` with `d = a - 1024 ln2` in
/// [-0.0, 0.7]: `a - 1024·LN2_HI` is exact (Sterbenz), so d carries only its final rounding.
/// Otherwise a itself.
#[inline(always)]
fn big_arg(a: f64, big: bool) -> f64 {
    let d = (a - 1024.0 * LN2_HI) - 1024.0 * LN2_LO;
    if big { d } else { a }
}

/// Hyperbolic sine for f64, branch-free (the ranges of fdlibm `e_sinh.c`): below 1 the Taylor
/// series `x + x³/3! + .. + x^19/19!` (the next term is < 2^-65), up to the `exp` overflow
/// threshold `E/2 - 1/(2E)` with `E = e^|x|` ([`super::double::exp_f64`]), past it
/// `e^d·2^1023` with `d = |x| - 1024 ln2` up to the `sinh` threshold (where fdlibm squares
/// `e^(|x|/2)`), with the sign of x; x itself below 2^-28. Max 2 ulp from glibc's (measured).
#[inline(always)]
pub fn sinh_f64(x: f64) -> f64 {
    let a = abs(x);
    let big = a > O_THRESHOLD;
    let e = exp_f64(big_arg(a, big));
    let z = a * a;
    // The Taylor coefficients 1/(2n+1)!, n = 1..9.
    let p = horner_f64(
        z,
        [
            1.0 / 6.0,
            1.0 / 120.0,
            1.0 / 5_040.0,
            1.0 / 362_880.0,
            1.0 / 39_916_800.0,
            1.0 / 6_227_020_800.0,
            1.0 / 1_307_674_368_000.0,
            1.0 / 355_687_428_096_000.0,
            1.0 / 121_645_100_408_832_000.0,
        ],
    );
    let near = a + a * (z * p);
    let mid = 0.5 * e - 0.5 / e;
    let r = if a < 1.0 { near } else { mid };
    let r = if big { e * TWO1023 } else { r };
    let r = if a > HYP_OVF { f64::INFINITY } else { r };
    // NaN: e is NaN and the OR keeps it a NaN.
    let r = with_sign_of(r, x);
    if a < TINY { x } else { r }
}

/// Hyperbolic cosine for f64, branch-free (the ranges of fdlibm `e_cosh.c`): below ln2/2 the
/// Taylor series `1 + x²/2! + .. + x^16/16!` (the next term is < 2^-70), up to the `exp`
/// overflow threshold `E/2 + 1/(2E)` with `E = e^|x|` ([`super::double::exp_f64`]), past it
/// `e^d·2^1023` with `d = |x| - 1024 ln2` (as `sinh`). Max 2 ulp from glibc's (measured).
#[inline(always)]
pub fn cosh_f64(x: f64) -> f64 {
    let a = abs(x);
    let big = a > O_THRESHOLD;
    let e = exp_f64(big_arg(a, big));
    let z = a * a;
    // The Taylor coefficients 1/(2n)!, n = 1..8.
    let p = horner_f64(
        z,
        [
            0.5,
            1.0 / 24.0,
            1.0 / 720.0,
            1.0 / 40_320.0,
            1.0 / 3_628_800.0,
            1.0 / 479_001_600.0,
            1.0 / 87_178_291_200.0,
            1.0 / 20_922_789_888_000.0,
        ],
    );
    let near = 1.0 + z * p;
    let mid = 0.5 * e + 0.5 / e;
    let r = if a < 0.5 * core::f64::consts::LN_2 {
        near
    } else {
        mid
    };
    let r = if big { e * TWO1023 } else { r };
    // NaN stays NaN (e is NaN); ±inf gives +inf through `big`.
    if a > HYP_OVF { f64::INFINITY } else { r }
}

/// fdlibm's `log1p` preparation for `v >= 0` (finite): `(f, k, c)` with
/// `log1p(v) = log_kernel(f, k, c)`: `f = v`, `k = 0` below 0.41422, else the reduction of
/// `u = 1 + v` and the correction `c = (v - (u - 1))/u` for its rounding.
#[inline(always)]
fn log1p_parts(v: f64) -> (f64, f64, f64) {
    let u = 1.0 + v;
    let (fu, ku) = log_reduce(u.to_bits());
    let c = if u >= 2.0 {
        1.0 - (u - v)
    } else {
        v - (u - 1.0)
    };
    let small = v < f64::from_bits(0x3fda_827a_0000_0000);
    (
        if small { v } else { fu },
        if small { 0.0 } else { ku },
        if small { 0.0 } else { c / u },
    )
}

/// `(f, k, c)` for `log(a) + ln2·add` by fdlibm's plain `log` reduction (a normal, positive).
#[inline(always)]
fn log_parts(a: f64, add: f64) -> (f64, f64, f64) {
    let (f, k) = log_reduce(a.to_bits());
    (f, k + add, 0.0)
}

/// `if c { p } else { q }` on the three parts.
#[inline(always)]
fn pick(c: bool, p: (f64, f64, f64), q: (f64, f64, f64)) -> (f64, f64, f64) {
    (
        if c { p.0 } else { q.0 },
        if c { p.1 } else { q.1 },
        if c { p.2 } else { q.2 },
    )
}

/// Inverse hyperbolic sine for f64, branch-free (fdlibm `s_asinh.c`): with `a = |x|`,
/// `log1p(a + a²/(1 + √(1 + a²)))` up to 2, `log(2a + 1/(a + √(a² + 1)))` up to 2^28,
/// `log(a) + ln2` above, one log kernel on the selected reduction; the sign of x; x itself
/// below 2^-28, ±inf and NaN as they are. Max 1 ulp from glibc's (measured).
#[inline(always)]
pub fn asinh_f64(x: f64) -> f64 {
    let a = abs(x);
    let t = a * a;
    let q = super::sqrt_f64(t + 1.0);
    // One division for both forms: t/(1 + q) up to 2, 1/(q + a) above.
    let mid_range = a > 2.0;
    let g = if mid_range { 1.0 } else { t } / if mid_range { q + a } else { 1.0 + q };
    let near = log1p_parts(a + g);
    let mid = log_parts(2.0 * a + g, 0.0);
    let far = log_parts(a, 1.0);
    let (f, k, c) = pick(mid_range, mid, near);
    let (f, k, c) = pick(a > HUGE, far, (f, k, c));
    let r = with_sign_of(log_kernel(f, k, c), x);
    let r = if a < f64::INFINITY { r } else { x };
    if a < TINY { x } else { r }
}

/// Inverse hyperbolic cosine for f64, branch-free (fdlibm `e_acosh.c`): with `t = x - 1`
/// (exact), `log1p(t + √(2t + t²))` up to 2, `log(2x - 1/(x + √(x² - 1)))` up to 2^28,
/// `log(x) + ln2` above, one log kernel on the selected reduction. NaN below 1 (-inf
/// included), +0 at 1, +inf at +inf. Max 1 ulp from glibc's (measured).
#[inline(always)]
pub fn acosh_f64(x: f64) -> f64 {
    let t = x - 1.0;
    // One square root for both forms: of 2t + t² (exact t) up to 2, of x² - 1 above.
    let mid_range = x > 2.0;
    let q = super::sqrt_f64(if mid_range {
        x * x - 1.0
    } else {
        2.0 * t + t * t
    });
    let near = log1p_parts(t + q);
    let mid = log_parts(2.0 * x - 1.0 / (x + q), 0.0);
    let far = log_parts(x, 1.0);
    let (f, k, c) = pick(mid_range, mid, near);
    let (f, k, c) = pick(x > HUGE, far, (f, k, c));
    let r = log_kernel(f, k, c);
    let r = if x < 1.0 { f64::NAN } else { r };
    // +inf and NaN: x itself.
    if x < f64::INFINITY { r } else { x }
}

/// Inverse hyperbolic tangent for f64, branch-free (fdlibm `e_atanh.c`): with `a = |x|`,
/// `½ log1p(2a + 2a²/(1 - a))` below ½, `½ log1p(2a/(1 - a))` from ½, one `log1p` on the
/// selected argument; the sign of x; x itself below 2^-28, ±inf at ±1, NaN beyond. Max 1 ulp
/// from glibc's (measured).
#[inline(always)]
pub fn atanh_f64(x: f64) -> f64 {
    let a = abs(x);
    let a2 = a + a;
    let d = 1.0 - a;
    // One division for both forms.
    let lower = a < 0.5;
    let q = if lower { a2 * a } else { a2 } / d;
    let v = if lower { a2 + q } else { q };
    // a = 1: v = +inf and log1p gives +inf.
    let r = with_sign_of(0.5 * log1p_f64(v), x);
    let r = if a <= 1.0 { r } else { f64::NAN };
    if a < TINY { x } else { r }
}

/// `x = 2^k (1 + f)` (f and k from [`log_reduce_scaled`] or, for the `_normal` forms,
/// [`log_reduce`]) and `ln(1 + f) = f + t`: returns `(f, t, k)` with
/// `t = s·(f²/2 + R(s²)) - f²/2`, `s = f/(2 + f)` (FreeBSD `k_log.h`'s `k_log1p` terms, fdlibm's
/// `Lg1..Lg7` in [`log_poly`], error < 2^-58.45), the subtraction fused.
#[inline(always)]
fn log_f_t((f, k): (f64, f64)) -> (f64, f64, f64) {
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    (f, super::fma_f64(s, hfsq + log_poly(s * s), -hfsq), k)
}

/// `base + (f + t)·c` for `c = c_hi + c_lo` (`c_hi` the f64 nearest, `c_lo` the rest), with
/// `base` = 0 or |base| > |f·c_hi| (so the first sum is a Fast2Sum and its error exact) and
/// `small` added to the low part: `a = f·c_hi` and its exact error by an fma, the low terms
/// in an fma chain, one final sum. Within about 0.6 ulp; the high parts of FreeBSD's
/// `e_log2.c`/`e_log10.c` (`f` masked to 32 bits so that products are exact) take 11 more
/// operations for the same bound.
#[inline(always)]
fn scaled_log((f, t, base): (f64, f64, f64), c_hi: f64, c_lo: f64, small: f64) -> f64 {
    use super::fma_f64 as fma;
    let a = f * c_hi;
    let lo = fma(t, c_hi, fma(f, c_lo, fma(f, c_hi, -a) + small));
    let w = base + a;
    w + (lo + ((base - w) + a))
}

/// `log(±0) = -inf`, NaN below 0 (-inf included), +inf and NaN as they are.
#[inline(always)]
fn log_special(x: f64, r: f64) -> f64 {
    let r = if x == 0.0 { f64::NEG_INFINITY } else { r };
    let r = if x < 0.0 { f64::NAN } else { r };
    if x < f64::INFINITY { r } else { x }
}

/// Base-2 log for f64, branch-free: `k + ln(1 + f)/ln2` with `1/ln2` in two parts
/// ([`scaled_log`]; fdlibm's reduction and polynomial). Exact at powers of 2. Max 1 ulp from
/// glibc's (tests/math_accuracy_f64.rs).
#[inline(always)]
pub fn log2_f64(x: f64) -> f64 {
    log_special(x, log2_from(log_f_t(log_reduce_scaled(x))))
}

/// [`log2_f64`] for a positive normal finite `x` (`is_positive_normal_f64`): the same bits.
#[inline(always)]
pub fn log2_f64_normal(x: f64) -> f64 {
    log2_from(log_f_t(log_reduce(x.to_bits())))
}

#[inline(always)]
fn log2_from(f_t_k: (f64, f64, f64)) -> f64 {
    /// 1/ln2: the f64 nearest and the rest.
    const IVLN2: f64 = core::f64::consts::LOG2_E;
    const IVLN2_LO: f64 = 2.035_527_374_093_103_3e-17;
    // |f/ln2| < 0.6 < |k| unless k = 0.
    scaled_log(f_t_k, IVLN2, IVLN2_LO, 0.0)
}

/// Base-10 log for f64, branch-free: `k log10(2) + ln(1 + f)/ln10` with `log10(2)` and
/// `1/ln10` in two parts ([`scaled_log`]; fdlibm's reduction and polynomial). Max 2 ulp from
/// glibc's (tests/math_accuracy_f64.rs; glibc's `log10` is the older fdlibm form, itself up to
/// about 1 ulp off).
#[inline(always)]
pub fn log10_f64(x: f64) -> f64 {
    log_special(x, log10_from(log_f_t(log_reduce_scaled(x))))
}

/// [`log10_f64`] for a positive normal finite `x` (`is_positive_normal_f64`): the same bits.
#[inline(always)]
pub fn log10_f64_normal(x: f64) -> f64 {
    log10_from(log_f_t(log_reduce(x.to_bits())))
}

#[inline(always)]
fn log10_from((f, t, k): (f64, f64, f64)) -> f64 {
    /// 1/ln10: the f64 nearest and the rest.
    const IVLN10: f64 = core::f64::consts::LOG10_E;
    const IVLN10_LO: f64 = 1.098_319_650_216_765e-17;
    /// log10(2) in two parts (FreeBSD's): the high part has 40 significant bits, so `k` times it
    /// is exact.
    const LOG10_2HI: f64 = 3.010_299_956_636_117_713_06e-1;
    const LOG10_2LO: f64 = 3.694_239_077_158_930_786_16e-13;
    // |f/ln10| < 0.18 < |k log10(2)| unless k = 0.
    scaled_log((f, t, k * LOG10_2HI), IVLN10, IVLN10_LO, k * LOG10_2LO)
}

/// ln 2: the f64 nearest and the rest (`exp2`'s `r ln2` rounded once).
const LN2: f64 = core::f64::consts::LN_2;
const LN2_TAIL: f64 = 2.319_046_813_846_299_6e-17;

/// `2^x` for f64, branch-free: `x = k + r` (k = round(x), r exact, |r| <= ½), `2^r = e^(r ln2)`
/// by `exp`'s kernel with `r ln2` rounded once (`r·LN2 + r·LN2_TAIL` in one fma, where fdlibm
/// splits r into 21 + 32 bits for exact partial products), then `·2^k` as two factors (one
/// rounding for subnormal results). +inf from 1024, 0 at and below -1075. Exact at integers.
/// Max 1 ulp from glibc's (tests/math_accuracy_f64.rs).
#[inline(always)]
pub fn exp2_f64(x: f64) -> f64 {
    // The clamp keeps k in [-1080, 1025]; NaN stays.
    let xc = super::clamp_nan_passing(x, -1080.0, 1025.0);
    let (r_ln2, t) = exp2_reduce(xc);
    let (s1, s2) = pow2_split(t);
    let y = exp_kernel(r_ln2) * s1 * s2;
    let y = if x >= 1024.0 { f64::INFINITY } else { y };
    if x <= -1075.0 { 0.0 } else { y }
}

/// Whether x >= -1020 (false for NaN): [`exp2_f64_normal`]'s domain, where `2^x` is a normal
/// number or overflows.
#[inline(always)]
pub fn exp2_f64_is_normal(x: f64) -> bool {
    x >= -1020.0
}

/// [`exp2_f64`] for x >= -1020 only (not NaN): one scale factor and no threshold selects (as
/// `double::exp_f64_normal`, through the same `scale_normal`): k is in [-1020, 1024] (x
/// clamped at 1024; from 1024 up `2^1023 · 2` overflows). The same bits.
#[inline(always)]
pub fn exp2_f64_normal(x: f64) -> f64 {
    let xc = if x > 1024.0 { 1024.0 } else { x };
    let (r_ln2, t) = exp2_reduce(xc);
    scale_normal(exp_minus_1_kernel(r_ln2), t)
}

/// `x = k + r` (k = round(x), r exact, |r| <= ½): returns `(r ln2, t)`, `r ln2` rounded once
/// (`r·LN2 + r·LN2_TAIL` in one fma) and `t = x + MAGIC` holding `k` in its low bits.
#[inline(always)]
fn exp2_reduce(x: f64) -> (f64, f64) {
    let t = x + MAGIC;
    let r = x - (t - MAGIC);
    (super::fma_f64(r, LN2, r * LN2_TAIL), t)
}
