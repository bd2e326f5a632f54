//! Branch-free f32 `erf`, `erfc` and exact (erf) `gelu`, accurate to about 1 ulp on the whole
//! f32 domain (including the far tails, where `erfc` and `gelu` are tiny), that LLVM
//! vectorizes.
//!
//! The approximations are SLEEF's `xerff_u1` and `xerfcf_u15` (`sleefsp.c`), evaluated in f64
//! where SLEEF uses double-float arithmetic: one polynomial family per function whose
//! coefficients are chosen per interval by selects (selects of constants, no gather), so
//! every lane runs the same instructions.
//!
//! `erfc a`, `a = |x|`: `exp(a·P(a))` for `a < 2.2` (P of degree 7, coefficients for
//! [0, 1) and [1, 2.2)), `exp(-a² + P(1/a)) / a` above (coefficients for [2.2, 4.3) and
//! [4.3, 10.1)); the f32 input makes `a²` exact in f64, so `exp`'s argument is exact to f64
//! rounding even at a = 10, where it is -100 and an f32 `a²` would cost ~2^6 ulp. The f64
//! `exp` is a `ln 2` reduction and a Taylor polynomial of degree 9 (relative error < 2^-36).
//! `a` is clamped to 12 (SLEEF's cut at 10.1 is dropped: from 10.13 on the last interval
//! gives values that round to +0 anyway, erfc 12 < 2^-200), and `erfc x = 2 - erfc a` for
//! x < 0.
//!
//! `erf a`: `a·P(a²)` for `a < 1.1` (P of degree 6), `1 - exp(a·P(a))` for [1.1, 2.4) and
//! [2.4, 4) (erf rounds to 1 from 3.92 on: a is clamped to 4), the sign of x put back.
//!
//! `gelu x = x/2 · erfc(-x/√2)` is `x/2 · (2 - erfc t)` for x >= 0 and `x/2 · erfc t` for
//! x < 0, `t = |x|/√2`, with `t² = x²/2` passed exactly: relative-accurate down to its
//! underflow (subnormal from x ≈ -13.15, -0 from -14.36).
//!
//! Max error against the libm f64 function rounded to f32 (all 2^32 inputs, measured by the
//! accuracy test): `erf` 1 ulp, `erfc` 1 ulp, `gelu` 1 ulp.

// SLEEF's coefficients as published (its double-float ones with 30 digits); its f32
// coefficients are used as the f32 values they are (`f32 as f64`).
#![allow(clippy::excessive_precision)]

use super::exp_in_f64;

/// `xerfcf_u15`'s polynomial, highest degree first; columns: a in [0, 1), [1, 2.2) (variable
/// a), [2.2, 4.3), [4.3, ∞) (variable 1/a).
const ERFC_P: [[f64; 4]; 8] = [
    [
        -0.8638041618e-4_f32 as f64,
        -0.6236977242e-5_f32 as f64,
        -0.3869504035e+0_f32 as f64,
        0.1115344167e+1_f32 as f64,
    ],
    [
        0.6000166177e-3_f32 as f64,
        0.5749821503e-4_f32 as f64,
        0.1288077235e+1_f32 as f64,
        -0.9454904199e+0_f32 as f64,
    ],
    [
        -0.1665703603e-2_f32 as f64,
        0.6002851478e-5_f32 as f64,
        -0.1816803217e+1_f32 as f64,
        -0.3667259514e+0_f32 as f64,
    ],
    [
        0.1795156277e-3_f32 as f64,
        -0.2851036377e-2_f32 as f64,
        0.1249150872e+1_f32 as f64,
        0.7155663371e+0_f32 as f64,
    ],
    [
        0.1914106123e-1_f32 as f64,
        0.2260518074e-1_f32 as f64,
        -0.1328857988e+0_f32 as f64,
        -0.1262947265e-1_f32 as f64,
    ],
    [
        -0.102775359343930288081655368891e+0,
        -0.105247583459338632253369014063e+0,
        -0.482365310333045318680618892669e+0,
        -0.498961546254537647970305302739e+0,
    ],
    [
        -0.636619483208481931303752546439e+0,
        -0.635609463574589034216723775292e+0,
        -0.134450203224533979217859332703e-2,
        -0.471199543422848492080722832666e-4,
    ],
    [
        -0.112837917790537404939545770596e+1,
        -0.112855987376668622084547028949e+1,
        -0.572319781150472949561786101080e+0,
        -0.572364030327966044425932623525e+0,
    ],
];

/// `xerff_u1`'s polynomial, highest degree first; columns: a in [0, 1.1) (variable a²),
/// [1.1, 2.4), [2.4, 4) (variable a).
const ERF_P: [[f64; 3]; 7] = [
    [
        0.7089292194e-4_f32 as f64,
        -0.1792667899e-4_f32 as f64,
        -0.9495757695e-5_f32 as f64,
    ],
    [
        -0.7768311189e-3_f32 as f64,
        0.3937633010e-3_f32 as f64,
        0.2481465926e-3_f32 as f64,
    ],
    [
        0.5159463733e-2_f32 as f64,
        -0.3949181177e-2_f32 as f64,
        -0.2918176819e-2_f32 as f64,
    ],
    [
        -0.2683781274e-1_f32 as f64,
        0.2445474640e-1_f32 as f64,
        0.2059706673e-1_f32 as f64,
    ],
    [
        0.1128318012e+0_f32 as f64,
        -0.1070996150e+0_f32 as f64,
        -0.9901899844e-1_f32 as f64,
    ],
    [
        -0.376125876000657465175213237214e+0,
        -0.634588905908410389971210809210e+0,
        -0.643598050547891613081201721633e+0,
    ],
    [
        0.112837916021059138255978217023e+1,
        -0.112879855826694507209862753992e+1,
        -0.112461487742845562801052956293e+1,
    ],
];

/// `erfc a` in f64 for `a` in [0, 12] (SLEEF `xerfcf_u15`, see the module docs); `z = a²`,
/// exact.
#[inline(always)]
fn erfc_kernel(a: f64, z: f64) -> f64 {
    let o0 = a < 1.0;
    let o1 = a < 2.2_f32 as f64;
    let o2 = a < 4.3_f32 as f64;
    let pick = |c: [f64; 4]| {
        let l = if o0 { c[0] } else { c[1] };
        let h = if o2 { c[2] } else { c[3] };
        if o1 { l } else { h }
    };
    // 1/a is inf at a = 0, where it is not selected.
    let inv = 1.0 / a;
    let u = if o1 { a } else { inv };
    let mut d = pick(ERFC_P[0]);
    // Written out: a `for` loop here keeps LLVM from vectorizing the caller's loop.
    macro_rules! horner {
        ($($k:literal)*) => {$( d = d * u + pick(ERFC_P[$k]); )*};
    }
    horner!(1 2 3 4 5 6 7);
    let e = exp_in_f64(if o1 { d * a } else { d - z });
    if o1 { e } else { e * inv }
}

/// `erf a` in f64 for `a` in [0, 4] (SLEEF `xerff_u1`, see the module docs).
#[inline(always)]
fn erf_kernel(a: f64) -> f64 {
    let o0 = a < 1.1_f32 as f64;
    let o1 = a < 2.4_f32 as f64;
    let pick = |c: [f64; 3]| {
        if o0 {
            c[0]
        } else if o1 {
            c[1]
        } else {
            c[2]
        }
    };
    let u = if o0 { a * a } else { a };
    let mut d = pick(ERF_P[0]);
    macro_rules! horner {
        ($($k:literal)*) => {$( d = d * u + pick(ERF_P[$k]); )*};
    }
    horner!(1 2 3 4 5 6);
    let d = d * a;
    let r = if o0 { d } else { 1.0 - exp_in_f64(d) };
    // Below 1e-4, `2/√π (a - a³/3)` (error < 2^-60), as SLEEF's earlier `xerff_u1`: its
    // minimax linear coefficient is 7e-9 off `2/√π`, which would cost 1 ulp down there.
    const C: f64 = core::f64::consts::FRAC_2_SQRT_PI;
    if a < 1e-4 {
        a * C - (a * a * a) * (C / 3.0)
    } else {
        r
    }
}

/// `|x|` in f64, clamped to `max` (NaN also becomes `max`, to be selected away).
#[inline(always)]
fn abs_clamped(x: f32, max: f64) -> f64 {
    let a = f32::from_bits(x.to_bits() & 0x7fff_ffff) as f64;
    if a < max { a } else { max }
}

/// The error function for f32, branch-free: SLEEF's `xerff_u1` in f64 on `|x|` (see the
/// module docs), the sign of x put back (so `erf(-0) = -0`, `erf(±inf) = ±1`). Max error
/// 1 ulp.
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    let r = erf_kernel(abs_clamped(x, 4.0)) as f32;
    let r = f32::from_bits(r.to_bits() | (x.to_bits() & 0x8000_0000));
    // A NaN input is returned as it is (the same bits in every loop).
    if x.is_nan() { x } else { r }
}

/// The complementary error function for f32, branch-free: SLEEF's `xerfcf_u15` in f64 on
/// `|x|` (see the module docs), `2 - erfc|x|` for negative x; relative-accurate in the tail
/// down to its underflow (subnormal from x ≈ 9.19, 0 from 10.13). `erfc(-inf) = 2`,
/// `erfc(inf) = +0`. Max error 1 ulp.
#[inline(always)]
pub fn erfc_f32(x: f32) -> f32 {
    let a = abs_clamped(x, 12.0);
    let c = erfc_kernel(a, a * a);
    let r = if x < 0.0 { 2.0 - c } else { c } as f32;
    if x.is_nan() { x } else { r }
}

/// Exact gelu `x/2 · erfc(-x/√2)` for f32, branch-free: the f64 `erfc` kernel on `|x|/√2`
/// with its square `x²/2` exact (see the module docs), relative-accurate also in the negative
/// tail down to its underflow (subnormal from x ≈ -13.15, -0 from -14.36); `gelu(x) = x`
/// for large x, and `gelu(-inf)` is NaN, as `-inf · erfc(inf)` is. Max error 1 ulp.
#[inline(always)]
pub fn gelu_f32(x: f32) -> f32 {
    // |x| >= 17 gives |x|/√2 > 12, where the kernel clamps: gelu is x or -0 there.
    let ax = abs_clamped(x, 17.0);
    let c = erfc_kernel(ax * core::f64::consts::FRAC_1_SQRT_2, 0.5 * (ax * ax));
    let xd = x as f64;
    let r = (0.5 * xd * if x < 0.0 { c } else { 2.0 - c }) as f32;
    // Below -17 the product underflows: -0, and NaN for -inf (`x·0`, as the formula gives).
    let r = if x < -17.0 { x * 0.0 } else { r };
    // A NaN input is returned as it is (the same bits in every loop).
    if x.is_nan() { x } else { r }
}
