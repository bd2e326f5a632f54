//! Accuracy of the branch-free f64 math in `fastmath::double` (exp, expm1, log, log1p, tanh,
//! sigmoid; and the softplus and logsigmoid functors, which take its `log1p_unit_f64`),
//! `fastmath::double_hyp` (sinh, cosh, asinh, acosh, atanh, log2, log10, exp2),
//! `fastmath::double_erf_pow` (erf, pow, hypot; erfc as the op computes it: its central form
//! below |x| = 1.25, libm's above) and `fastmath::double_trig` (sin, cos,
//! tan, their `_narrow` forms, atan, asin, acos, atan2) against reference f64 functions, in f64
//! ulps (distance in the ordered bit patterns, so subnormals count their own ulps). The
//! references are std's (glibc's), except: `asinh`, `acosh` and `atanh` are glibc's called
//! directly (`extern "C"`: Rust's `f64::asinh`/`acosh`/`atanh` are its own formulas, not libm
//! calls, and are several ulps off near 0 and 1); `erf`, `erfc` are the `libm` crate's
//! (fdlibm's, as std has none); `sigmoid` is weft's formula with std's `exp`; `cos` and `tan`
//! are glibc's with the correctly rounded value substituted at the one tested input where glibc
//! is more than 1 ulp off (`glibc_fixed`).
//!
//! One-argument functions (the `FUNCS` table): per function 4M random bit patterns
//! (SplitMix64, fixed seed; most have huge exponents, so for sin/cos/tan they test the
//! Payne-Hanek reduction), 4M random values over the function's useful ranges, and the
//! boundary values (signed zeros, subnormal/normal limits, every power of 2, powers of 10,
//! multiples of π/2 and π/4, the hardest cases of the reduction by π/2, the functions'
//! thresholds, each ±8 floats). The full `sin`, `cos`, `tan` (~100x the cost of the others per
//! element) get 1/`SLOW_SHARE` of the random counts here, and every boundary value; the
//! `_narrow` forms are checked only below their bound (`valid`), and must be NaN from it up.
//! Two-argument functions (the `FUNCS2` table: pow, hypot, atan2): per function every pair of
//! its special list (pow/hypot: `special_list()`, with the ±8-float neighbours of its finite
//! values; atan2: `atan2_special_list()`, powers of 2 every 7 binades and the cuts, ±2
//! floats), 2M random bit-pattern pairs and 2M random pairs over the ranges. Where the
//! reference is ±0, ±inf or NaN (or ours is) the result must be the same bits (NaN: any NaN);
//! the special values (and special pairs, and atan2's C99 table) are also checked one by one,
//! and the f64 tensor ops must be these functions bit for bit, contiguous and strided (not
//! sin/cos/tan and erf/erfc, which the ops leave on libm).
//!
//! `#[ignore]`d (`cargo test --release -- --ignored`): 200M values per range for `exp` and
//! `log`, and the scratch crates' full counts (20M random bits + 20M over the ranges per
//! function, sin/cos/tan included, 20M random pairs + 20M over the ranges per two-argument
//! function). `MATH_ACCURACY_ONLY=exp,sin,atan2` picks functions in all the sampling tests.

// The thresholds are written as fdlibm publishes them.
#![allow(clippy::excessive_precision)]

use rayon::prelude::*;
use weft::Tensor;
use weft::functors::Functor;
use weft::functors::activation::{Logsigmoid, Softplus};
use weft::functors::fastmath::{
    double, double_erf_pow as dep, double_hyp as dh, double_trig as dt,
};

/// The bound every function must meet (against the reference, itself within 1 ulp of the
/// truth).
const MAX_ULP: u64 = 3;

type F64Fn = fn(f64) -> f64;
type F64Fn2 = fn(f64, f64) -> f64;

/// Where random values are drawn: uniform on [a, b], log-uniform on [a, b] (0 < a < b),
/// the same with a random sign, `-1 + ` log-uniform (log1p near -1), `1 + ` log-uniform
/// (acosh near 1), `1 ± ` log-uniform (log2/log10 near 1), `±(1 - ` log-uniform`)` (atanh
/// near ±1).
#[derive(Clone, Copy, Debug)]
enum Range {
    Uniform(f64, f64),
    LogUniform(f64, f64),
    SignedLogUniform(f64, f64),
    MinusOnePlusLogUniform(f64, f64),
    OnePlusLogUniform(f64, f64),
    OnePlusSignedLogUniform(f64, f64),
    SignedOneMinusLogUniform(f64, f64),
}

/// The f64 erfc op: the `Erfc` functor's central form on the blocks within |x| < 1.25 (here
/// per value), libm's erfc elsewhere (as `Erfc.call`).
fn erfc_op(x: f64) -> f64 {
    use weft::functors::unary_float::Erfc;
    if Erfc.in_narrow_domain((x,)) {
        Erfc.call_narrow((x,))
    } else {
        Erfc.call((x,))
    }
}

/// PyTorch's softplus (beta 1, threshold 20) and logsigmoid, with std's `exp` and `ln_1p`.
fn softplus_ref(x: f64) -> f64 {
    if x > 20.0 { x } else { x.exp().ln_1p() }
}
fn logsigmoid_ref(x: f64) -> f64 {
    x.min(0.0) - (-x.abs()).exp().ln_1p()
}

/// weft's f64 softplus and logsigmoid functors (`double::log1p_unit_f64` inside).
fn softplus_f64(x: f64) -> f64 {
    Functor::call(&Softplus, (x,))
}
fn logsigmoid_f64(x: f64) -> f64 {
    Functor::call(&Logsigmoid, (x,))
}

/// weft's f64 sigmoid: `1/(1+e^-x)` split on the sign of x, with std's `exp`.
fn sigmoid_ref(x: f64) -> f64 {
    let e = (-x.abs()).exp();
    let num = if x < 0.0 { e } else { 1.0 };
    num / (1.0 + e)
}

unsafe extern "C" {
    #[link_name = "asinh"]
    fn c_asinh(x: f64) -> f64;
    #[link_name = "acosh"]
    fn c_acosh(x: f64) -> f64;
    #[link_name = "atanh"]
    fn c_atanh(x: f64) -> f64;
}

/// glibc's `asinh` (std's `f64::asinh` is not a libm call).
fn asinh_ref(x: f64) -> f64 {
    // SAFETY: a pure libm function.
    unsafe { c_asinh(x) }
}

/// glibc's `acosh` (std's `f64::acosh` is not a libm call).
fn acosh_ref(x: f64) -> f64 {
    // SAFETY: a pure libm function.
    unsafe { c_acosh(x) }
}

/// glibc's `atanh` (std's `f64::atanh` is not a libm call).
fn atanh_ref(x: f64) -> f64 {
    // SAFETY: a pure libm function.
    unsafe { c_atanh(x) }
}

/// Below it the `_narrow` trig forms equal the full ones (the Cody-Waite bound, ≈ 2^20·π/2);
/// from it up they are NaN.
const MEDIUM_LIMIT: f64 = 1_647_099.0;

/// Where glibc (2.36) itself is off by more than 1 ulp among the tested inputs: the hardest
/// f64 case of the reduction by π/2, 6381956970095103·2^797 (cos 8 ulp, tan 14 ulp off). The
/// correctly rounded values (mpmath, 600 bits) are used there instead.
fn glibc_fixed(x: f64, glibc: f64) -> f64 {
    const X: f64 = 5.319_372_648_326_541e255;
    match (x.abs() == X, glibc.to_bits()) {
        (true, b) if b == (-4.687_165_924_254_62e-19_f64).to_bits() => -4.687_165_924_254_628e-19,
        (true, b) if b == (-2.133_485_385_753_707_5e18_f64).to_bits() => -2.133_485_385_753_704e18,
        (true, b) if b == 2.133_485_385_753_707_5e18_f64.to_bits() => 2.133_485_385_753_704e18,
        _ => glibc,
    }
}

/// glibc's `cos`, correctly rounded at its one bad tested input.
fn cos_ref(x: f64) -> f64 {
    glibc_fixed(x, x.cos())
}

/// glibc's `tan`, correctly rounded at its one bad tested input.
fn tan_ref(x: f64) -> f64 {
    glibc_fixed(x, x.tan())
}

/// Whether `name`'s input x is in its domain of validity (`_narrow`: |x| < `MEDIUM_LIMIT`;
/// NaN is not): the others are checked everywhere.
fn valid(name: &str, x: f64) -> bool {
    !name.ends_with("_narrow") || x.abs() < MEDIUM_LIMIT
}

/// The functions that get 1/`SLOW_SHARE` of the random samples in the CI test (every boundary
/// value still): the full sin/cos/tan, whose Payne-Hanek part costs ~100x the others.
const SLOW: [&str; 3] = ["sin", "cos", "tan"];
const SLOW_SHARE: u64 = 4;

/// (name, fast f64 function, f64 reference, ranges for the random values).
#[allow(clippy::type_complexity)]
const FUNCS: [(&str, F64Fn, F64Fn, &[Range]); 27] = [
    (
        "exp",
        double::exp_f64,
        f64::exp,
        &[
            Range::Uniform(-746.0, 710.0),
            Range::SignedLogUniform(1e-20, 2.0),
        ],
    ),
    (
        "expm1",
        double::expm1_f64,
        f64::exp_m1,
        &[
            Range::Uniform(-40.0, 710.0),
            Range::SignedLogUniform(1e-20, 40.0),
        ],
    ),
    (
        "log",
        double::log_f64,
        f64::ln,
        &[Range::LogUniform(4.9e-324, 1e300), Range::Uniform(0.5, 2.0)],
    ),
    (
        "log1p",
        double::log1p_f64,
        f64::ln_1p,
        &[
            Range::MinusOnePlusLogUniform(1e-300, 1e300),
            Range::SignedLogUniform(1e-20, 0.5),
        ],
    ),
    (
        "tanh",
        double::tanh_f64,
        f64::tanh,
        &[
            Range::Uniform(-25.0, 25.0),
            Range::SignedLogUniform(1e-20, 25.0),
        ],
    ),
    (
        "sigmoid",
        double::sigmoid_f64,
        sigmoid_ref,
        &[Range::Uniform(-750.0, 750.0), Range::Uniform(-40.0, 40.0)],
    ),
    (
        "softplus",
        softplus_f64,
        softplus_ref,
        &[
            Range::Uniform(-750.0, 30.0),
            Range::SignedLogUniform(1e-20, 40.0),
        ],
    ),
    (
        "logsigmoid",
        logsigmoid_f64,
        logsigmoid_ref,
        &[
            Range::Uniform(-750.0, 750.0),
            Range::SignedLogUniform(1e-20, 40.0),
        ],
    ),
    (
        "sinh",
        dh::sinh_f64,
        f64::sinh,
        &[
            Range::Uniform(-711.0, 711.0),
            Range::SignedLogUniform(1e-20, 40.0),
        ],
    ),
    (
        "cosh",
        dh::cosh_f64,
        f64::cosh,
        &[
            Range::Uniform(-711.0, 711.0),
            Range::SignedLogUniform(1e-20, 40.0),
        ],
    ),
    (
        "asinh",
        dh::asinh_f64,
        asinh_ref,
        &[
            Range::SignedLogUniform(1e-300, 1e300),
            Range::SignedLogUniform(1e-10, 4.0),
        ],
    ),
    (
        "acosh",
        dh::acosh_f64,
        acosh_ref,
        &[
            Range::OnePlusLogUniform(1e-17, 1e300),
            Range::Uniform(1.0, 4.0),
        ],
    ),
    (
        "atanh",
        dh::atanh_f64,
        atanh_ref,
        &[
            Range::SignedLogUniform(1e-10, 1.0),
            Range::SignedOneMinusLogUniform(1e-17, 0.6),
        ],
    ),
    (
        "log2",
        dh::log2_f64,
        f64::log2,
        &[
            Range::LogUniform(4.9e-324, 1e300),
            Range::Uniform(0.5, 2.0),
            Range::OnePlusSignedLogUniform(1e-16, 0.3),
        ],
    ),
    (
        "log10",
        dh::log10_f64,
        f64::log10,
        &[
            Range::LogUniform(4.9e-324, 1e300),
            Range::Uniform(0.5, 2.0),
            Range::OnePlusSignedLogUniform(1e-16, 0.3),
        ],
    ),
    (
        "exp2",
        dh::exp2_f64,
        f64::exp2,
        &[
            Range::Uniform(-1080.0, 1025.0),
            Range::SignedLogUniform(1e-20, 2.0),
        ],
    ),
    (
        "erf",
        dep::erf_f64,
        libm::erf,
        &[
            Range::Uniform(-6.5, 6.5),
            Range::SignedLogUniform(1e-300, 6.0),
        ],
    ),
    (
        "erfc",
        erfc_op,
        libm::erfc,
        &[
            Range::Uniform(-7.0, 28.0),
            Range::SignedLogUniform(1e-20, 28.0),
        ],
    ),
    (
        "sin",
        dt::sin_f64,
        f64::sin,
        &[
            Range::Uniform(-10.0, 10.0),
            Range::SignedLogUniform(1e-10, MEDIUM_LIMIT),
            Range::SignedLogUniform(MEDIUM_LIMIT, 1e308),
        ],
    ),
    (
        "cos",
        dt::cos_f64,
        cos_ref,
        &[
            Range::Uniform(-10.0, 10.0),
            Range::SignedLogUniform(1e-10, MEDIUM_LIMIT),
            Range::SignedLogUniform(MEDIUM_LIMIT, 1e308),
        ],
    ),
    (
        "tan",
        dt::tan_f64,
        tan_ref,
        &[
            Range::Uniform(-10.0, 10.0),
            Range::SignedLogUniform(1e-10, MEDIUM_LIMIT),
            Range::SignedLogUniform(MEDIUM_LIMIT, 1e308),
        ],
    ),
    (
        "sin_narrow",
        dt::sin_f64_narrow,
        f64::sin,
        &[Range::SignedLogUniform(1e-10, MEDIUM_LIMIT)],
    ),
    (
        "cos_narrow",
        dt::cos_f64_narrow,
        cos_ref,
        &[Range::SignedLogUniform(1e-10, MEDIUM_LIMIT)],
    ),
    (
        "tan_narrow",
        dt::tan_f64_narrow,
        tan_ref,
        &[Range::SignedLogUniform(1e-10, MEDIUM_LIMIT)],
    ),
    (
        "atan",
        dt::atan_f64,
        f64::atan,
        &[
            Range::Uniform(-4.0, 4.0),
            Range::SignedLogUniform(1e-30, 1e30),
        ],
    ),
    (
        "asin",
        dt::asin_f64,
        f64::asin,
        &[
            Range::Uniform(-1.0, 1.0),
            Range::SignedLogUniform(1e-30, 1.0),
        ],
    ),
    (
        "acos",
        dt::acos_f64,
        f64::acos,
        &[
            Range::Uniform(-1.0, 1.0),
            Range::SignedLogUniform(1e-30, 1.0),
        ],
    ),
];

/// Where random pairs are drawn, for two-argument functions.
#[derive(Clone, Copy, Debug)]
enum Range2 {
    /// x uniform on (0, a], y uniform on [b, c].
    UniformXY(f64, f64, f64),
    /// x = 1 ± k ulp (k < 2^20, log-uniform), y = ±2^u, u uniform on [a, b].
    NearOneHugeY(f64, f64),
    /// x log-uniform over all positive finite f64, y = t / log2 x with t uniform on [a, b]
    /// (results from 2^a to 2^b: the overflow/underflow/subnormal edges).
    TargetExponent(f64, f64),
    /// x, y both signed log-uniform on [a, b] (independent exponents).
    SignedLogXY(f64, f64),
    /// x signed log-uniform on [a, b], y = x·(1 + u), u uniform on [-2^-10, 2^-10] (about
    /// equal magnitudes).
    NearEqual(f64, f64),
    /// x, y both uniform on [a, b].
    UniformBoth(f64, f64),
    /// y signed log-uniform on [a, b], x = ±y·2^±k·(1 + u), k uniform in 60..=75, u uniform
    /// on [0, 1): exponents 60 to 76 apart, both orders, both signs (for `atan2(x, y)` here,
    /// the ratio of its arguments around its 2^±64 cuts).
    ExponentGap(f64, f64),
}

/// (name, fast, reference, special list whose every pair is checked, ranges): the
/// two-argument functions (`atan2`'s arguments in its order, (y, x)).
#[allow(clippy::type_complexity)]
const FUNCS2: [(&str, F64Fn2, F64Fn2, fn() -> Vec<f64>, &[Range2]); 3] = [
    (
        "pow",
        dep::pow_f64,
        f64::powf,
        special_list,
        &[
            Range2::UniformXY(4.0, -1000.0, 1000.0),
            Range2::NearOneHugeY(20.0, 62.0),
            Range2::TargetExponent(-1080.0, 1030.0),
            Range2::SignedLogXY(1e-300, 1e300),
        ],
    ),
    (
        "hypot",
        dep::hypot_f64,
        f64::hypot,
        special_list,
        &[
            Range2::SignedLogXY(4.9e-324, 1.7e308),
            Range2::NearEqual(4.9e-324, 1.7e308),
            Range2::UniformXY(4.0, -4.0, 4.0),
        ],
    ),
    (
        "atan2",
        dt::atan2_f64,
        f64::atan2,
        atan2_special_list,
        &[
            Range2::ExponentGap(1e-280, 1e280),
            Range2::UniformBoth(-4.0, 4.0),
            Range2::SignedLogXY(1e-300, 1e300),
        ],
    ),
];

/// Position of a float in the ordered line of f64 values (±0 are both 0).
fn ordinal(v: f64) -> i64 {
    let b = v.to_bits();
    let m = (b & 0x7fff_ffff_ffff_ffff) as i64;
    if b >> 63 == 1 { -m } else { m }
}

/// Ulps between `got` and `want`: 0 when both are NaN; `u64::MAX` when only one is NaN, or when
/// either is ±0 or ±inf and the bits differ (those must be exact).
fn ulps(got: f64, want: f64) -> u64 {
    let exact = |v: f64| v == 0.0 || v.is_infinite();
    match (got.is_nan(), want.is_nan()) {
        (true, true) => 0,
        (false, false) if (exact(got) || exact(want)) && got.to_bits() != want.to_bits() => {
            u64::MAX
        }
        (false, false) => ordinal(got).abs_diff(ordinal(want)),
        _ => u64::MAX,
    }
}

/// Worst case and histogram over an indexed input family (`X`: an input, `f64` or a pair):
/// (max ulp, an input reaching it, count > 0 ulp, count > 1 ulp, count).
#[derive(Clone, Copy, Debug, Default)]
struct Stats<X> {
    max: u64,
    at: X,
    over0: u64,
    over1: u64,
    n: u64,
}

impl<X: Copy> Stats<X> {
    fn add(mut self, u: u64, x: X) -> Self {
        if u > self.max {
            self.max = u;
            self.at = x;
        }
        self.over0 += (u > 0) as u64;
        self.over1 += (u > 1) as u64;
        self.n += 1;
        self
    }
    fn merge(self, o: Self) -> Self {
        let (max, at) = if o.max > self.max {
            (o.max, o.at)
        } else {
            (self.max, self.at)
        };
        Stats {
            max,
            at,
            over0: self.over0 + o.over0,
            over1: self.over1 + o.over1,
            n: self.n + o.n,
        }
    }
}

/// The inputs outside `name`'s domain of validity (`valid`) are skipped.
fn worst(name: &str, f: F64Fn, r: F64Fn, n: u64, input: impl Fn(u64) -> f64 + Sync) -> Stats<f64> {
    (0..n)
        .into_par_iter()
        .fold(Stats::default, |s, i| {
            let x = input(i);
            if valid(name, x) {
                s.add(ulps(f(x), r(x)), x)
            } else {
                s
            }
        })
        .reduce(Stats::default, Stats::merge)
}

fn worst2(
    f: F64Fn2,
    r: F64Fn2,
    n: u64,
    input: impl Fn(u64) -> (f64, f64) + Sync,
) -> Stats<(f64, f64)> {
    (0..n)
        .into_par_iter()
        .fold(Stats::default, |s, i| {
            let (x, y) = input(i);
            s.add(ulps(f(x, y), r(x, y)), (x, y))
        })
        .reduce(Stats::default, Stats::merge)
}

/// The i-th output of SplitMix64 from `seed` (random access, so the passes run in parallel).
fn splitmix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform f64 in [0, 1) from 53 random bits.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Log-uniform on [a, b] (0 < a < b) at `u` in [0, 1).
fn logu(a: f64, b: f64, u: f64) -> f64 {
    (a.ln() + u * (b.ln() - a.ln())).exp()
}

fn sample(range: Range, bits: u64) -> f64 {
    let u = unit(bits);
    match range {
        Range::Uniform(a, b) => a + u * (b - a),
        Range::LogUniform(a, b) => logu(a, b, u),
        Range::SignedLogUniform(a, b) => {
            let v = logu(a, b, u);
            if bits & 1 == 1 { -v } else { v }
        }
        Range::MinusOnePlusLogUniform(a, b) => logu(a, b, u) - 1.0,
        Range::OnePlusLogUniform(a, b) => 1.0 + logu(a, b, u),
        Range::OnePlusSignedLogUniform(a, b) => {
            let v = logu(a, b, u);
            if bits & 1 == 1 { 1.0 - v } else { 1.0 + v }
        }
        Range::SignedOneMinusLogUniform(a, b) => {
            let v = 1.0 - logu(a, b, u);
            if bits & 1 == 1 { -v } else { v }
        }
    }
}

fn sample2(range: Range2, b1: u64, b2: u64) -> (f64, f64) {
    let (u, v) = (unit(b1), unit(b2));
    let sign = |x: f64, b: u64| if b & 1 == 1 { -x } else { x };
    match range {
        Range2::UniformXY(a, lo, hi) => ((1.0 - u) * a, lo + v * (hi - lo)),
        Range2::NearOneHugeY(a, b) => {
            let k = logu(1.0, 1_048_576.0, u) as u64;
            let x = if b1 & 1 == 1 {
                f64::from_bits(1f64.to_bits() + k)
            } else {
                f64::from_bits(1f64.to_bits() - k)
            };
            (x, sign((a + v * (b - a)).exp2(), b2))
        }
        Range2::TargetExponent(a, b) => {
            let x = logu(4.9e-324, 1.7e308, u);
            let t = a + v * (b - a);
            (x, t / x.log2())
        }
        Range2::SignedLogXY(a, b) => (sign(logu(a, b, u), b1), sign(logu(a, b, v), b2)),
        Range2::NearEqual(a, b) => {
            let x = sign(logu(a, b, u), b1);
            (x, sign(x * (1.0 + (v - 0.5) / 512.0), b2))
        }
        Range2::UniformBoth(a, b) => (a + u * (b - a), a + v * (b - a)),
        Range2::ExponentGap(a, b) => {
            let y = sign(logu(a, b, u), b1);
            let k = 60 + (b2 >> 60) as i32;
            let x = y * 2f64.powi(if b2 & 2 == 0 { k } else { -k }) * (1.0 + unit(b2 << 4));
            (sign(x, b2 >> 2), y)
        }
    }
}

/// The values around `v`: `v` and its `n` neighbours on each side (same sign), every bit
/// pattern (past ±inf: NaNs, which the one-argument functions must map to NaN).
fn around(v: f64, n: u64, out: &mut Vec<f64>) {
    let b = v.to_bits();
    for d in 0..=n {
        out.push(f64::from_bits(b.saturating_add(d)));
        out.push(f64::from_bits(b.saturating_sub(d)));
    }
}

/// `around` without the bit patterns past ±inf (signalling NaNs, for which glibc's
/// `hypot(inf, sNaN)` is NaN): for the two-argument special list.
fn around_not_nan(v: f64, n: u64, out: &mut Vec<f64>) {
    let b = v.to_bits();
    for d in 0..=n {
        for w in [b.saturating_add(d), b.saturating_sub(d)] {
            if !f64::from_bits(w).is_nan() {
                out.push(f64::from_bits(w));
            }
        }
    }
}

/// Boundary values of the one-argument functions, each with its 8 neighbours on both sides,
/// both signs: signed zeros, subnormal and normal limits, ±1, ±2, ±½, f64::MAX, every power of
/// 2 and 10, and the thresholds of the functions:
/// * exp/expm1: the overflow (709.78...) and exp's underflow (-745.13...), the start of
///   subnormal exp results (-708.39...), the clamps (710, -746, -40), the k = ±1, ±2, 20, 56
///   boundaries of the reduction ((k + 1/2) ln 2), the `x` cuts (2^-54, 2^-55, 2^-28, 2^53);
/// * log/log1p: log1p's k = 0 range (0.41422, -0.2929) and u >= 2, the log reduction boundary
///   (≈√2, ≈√½), 0.625, ¼, 36.7; tanh's 22;
/// * sinh/cosh: the `exp` overflow where they switch to `e^(x/2)²`, their own overflow
///   (710.47...), cosh's ln2/2, sinh's 1; the asinh/acosh cuts (2, 2^28), the odd functions'
///   2^-28, atanh's ½ and ±1, the log1p k = 0 limit of the asinh/acosh/atanh arguments;
///   exp2's 1024, -1022, -1023, -1074, -1075, the clamps (1025, -1080), the rounding edges
///   n + ½ (and the expm1 forms' (n + ½) ln2), 355;
/// * erf/erfc (fdlibm `s_erf.c`): the interval bounds 0.84375, 1.25, 1/0.35 (0x4006db6d...),
///   6, 28, the cuts 2^-28, 2^-56, ¼, and where erf reaches 1 (5.921...), erfc turns
///   subnormal (26.54...) and 0 (27.2...);
/// * sin/cos/tan: k·π/4 for k < 64, k·π/2 near 2^20, 2^21, 2^30, 2^52, the f64 nearest π/2·2^e
///   for every e, the hardest cases of the reduction by π/2 (x closest to a multiple of π/2
///   relative to x, from Muller's "Elementary Functions"), 1e22, 1.7e308, the
///   Cody-Waite/Payne-Hanek switch (1647099, 0x413921fb...), the `x` cuts 2^-26, 2^-27, tan's
///   0.6744 (0x3fe59428...);
/// * atan/asin/acos: atan's interval cuts 7/16, 11/16, 19/16, 39/16 and 2^66, asin/acos's ½,
///   0.975 (0x3fef3333...), ±1.
fn boundary_inputs() -> Vec<f64> {
    use core::f64::consts::{FRAC_PI_2, FRAC_PI_4};
    let ln2 = core::f64::consts::LN_2;
    let mut v = vec![
        0.0,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        1.0,
        2.0,
        0.5,
        f64::MAX,
        f64::EPSILON,
        // exp, expm1, log, log1p, tanh.
        7.097_827_128_933_839_730_96e2,
        7.451_332_191_019_411_084_20e2,
        708.396_418_532_264_1,
        710.0,
        746.0,
        40.0,
        22.0,
        2f64.powi(-54),
        2f64.powi(-55),
        2f64.powi(-28),
        2f64.powi(53),
        f64::from_bits(0x3fda_827a_0000_0000),
        f64::from_bits(0x3fd2_bec4_0000_0000),
        f64::from_bits(0x3fd2_bec5_0000_0000),
        0.625,
        f64::from_bits(0x3fe6_a09e_0000_0000),
        f64::from_bits(0x3ff6_a09e_0000_0000),
        core::f64::consts::SQRT_2,
        core::f64::consts::FRAC_1_SQRT_2,
        core::f64::consts::SQRT_2 - 1.0,
        core::f64::consts::FRAC_1_SQRT_2 - 1.0,
        0.25,
        36.7,
        // sinh, cosh, asinh, acosh, atanh, log2, log10, exp2.
        7.104_758_600_739_438_634_26e2,
        0.5 * ln2,
        2f64.powi(28),
        // asinh(x) and acosh(x) with log1p argument 0.41422 (x = sinh, cosh of its log1p).
        0.353_558_2,
        1.060_660_2,
        1024.0,
        1022.0,
        1023.0,
        1074.0,
        1075.0,
        1025.0,
        1080.0,
        355.0,
        // erf, erfc.
        0.84375,
        1.25,
        f64::from_bits(0x4006_db6d_0000_0000),
        6.0,
        28.0,
        5.921_587_195_794_507,
        26.543_258_451_454_37,
        27.226_017_111_108_366,
        27.2,
        1.0 / 0.35,
        // sin, cos, tan, atan, asin, acos.
        MEDIUM_LIMIT,
        f64::from_bits(0x4139_21fb_0000_0000),
        2f64.powi(-26),
        2f64.powi(-27),
        f64::from_bits(0x3fe5_9428_0000_0000),
        0.4375,
        0.6875,
        1.1875,
        2.4375,
        2f64.powi(66),
        f64::from_bits(0x3fef_3333_0000_0000),
        // The hardest reductions by π/2.
        6_381_956_970_095_103.0 * 2f64.powi(797),
        5_464_600_644_227_521.0 * 2f64.powi(-83),
        8_248_251_512_623_681.0 * 2f64.powi(-2),
        4_503_599_627_370_496.0 * FRAC_PI_2,
        1e22,
        1.7e308,
    ];
    for k in 1..64 {
        v.push(k as f64 * FRAC_PI_4);
    }
    for k in [(1u64 << 20) - 1, 1 << 20, 1 << 21, 1 << 30, 1 << 52] {
        v.push(k as f64 * FRAC_PI_2);
    }
    for k in [0.5, 1.5, 2.5, 19.5, 20.5, 55.5, 56.5, 1023.5, 1074.5] {
        v.push(k * ln2);
        v.push(k);
    }
    for e in -1074..=1023 {
        v.push(2f64.powi(e));
        // The f64 nearest π/2·2^e (where finite).
        let p = FRAC_PI_2 * 2f64.powi(e);
        if p.is_finite() {
            v.push(p);
        }
    }
    for e in -323..=308 {
        v.push(format!("1e{e}").parse().unwrap());
    }
    let mut out = vec![f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    for &x in &v {
        around(x, 8, &mut out);
        around(-x, 8, &mut out);
    }
    out
}

/// The special list for two-argument functions: ±0, ±subnormals, ±min normal, ±1, ±inf, NaN,
/// ±0.5, ±2, ±3, ±MAX, integers and half-integers (as y), values near 1, pow's overflow
/// and underflow exponents (1024, -1074, -1075, 1075) and their ±8 neighbours (finite ones).
fn special_list() -> Vec<f64> {
    let mut v = vec![
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        1.0,
        0.5,
        2.0,
        3.0,
        f64::MAX,
        4.0,
        5.0,
        10.0,
        1.5,
        2.5,
        7.5,
        1023.0,
        1024.0,
        1074.0,
        1075.0,
        1076.0,
        2f64.powi(31),
        2f64.powi(52),
        2f64.powi(53),
        2f64.powi(64),
        1e300,
        core::f64::consts::E,
        core::f64::consts::SQRT_2,
        (1.5f64).sqrt(),
        3f64.sqrt(),
    ];
    for k in 1..60 {
        v.push(k as f64 + 0.5);
        v.push(k as f64);
    }
    let mut out = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    for &x in &v {
        around_not_nan(x, 8, &mut out);
        around_not_nan(-x, 8, &mut out);
    }
    out.sort_by(f64::total_cmp);
    out.dedup_by(|a, b| a.to_bits() == b.to_bits());
    out
}

/// atan2's special list (all its pairs are checked): ±0, ±subnormal limits, ±min normal, ±1,
/// ±MAX, ±inf, NaN, atan's cuts 7/16 and 39/16, ±3, and every 7th power of 2 from 2^-1074 (so
/// that the pairs span every exponent gap, atan2's 2^±64 cuts included), each with its ±2
/// neighbours (past ±inf: NaNs).
fn atan2_special_list() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        1.0,
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
        0.4375,
        2.4375,
        3.0,
    ];
    for e in (-1074..=1023).step_by(7) {
        v.push(2f64.powi(e));
    }
    let mut out = Vec::new();
    for &x in &v {
        around(x, 2, &mut out);
        around(-x, 2, &mut out);
    }
    out.sort_by(f64::total_cmp);
    out.dedup_by(|a, b| a.to_bits() == b.to_bits());
    out
}

/// Random bit patterns and random values over the ranges, per one-argument function.
const RANDOM_BITS: u64 = 4_000_000;
const RANDOM_RANGE: u64 = 4_000_000;
/// Random bit-pattern pairs and random pairs over the ranges, per two-argument function.
const RANDOM_PAIRS: u64 = 2_000_000;
const RANDOM_PAIRS_RANGE: u64 = 2_000_000;
/// The `#[ignore]`d run's counts (the scratch crates' defaults), for both kinds.
const FULL: u64 = 20_000_000;

fn selected(name: &str) -> bool {
    std::env::var("MATH_ACCURACY_ONLY")
        .map(|o| o.split(',').any(|n| n == name))
        .unwrap_or(true)
}

fn report(name: &str, what: &str, s: Stats<f64>, f: F64Fn, r: F64Fn, failed: &mut Vec<String>) {
    println!(
        "{name:>10} {what:<34}: max {} ulp at x = {:e} ({:#018x}); >0: {}, >1: {} of {}",
        s.max,
        s.at,
        s.at.to_bits(),
        s.over0,
        s.over1,
        s.n
    );
    if s.max > MAX_ULP {
        failed.push(format!(
            "{name} {what}: {} ulp at x = {:e} ({:#018x}): got {:e}, want {:e}",
            s.max,
            s.at,
            s.at.to_bits(),
            f(s.at),
            r(s.at)
        ));
    }
}

fn report2(
    name: &str,
    what: &str,
    s: Stats<(f64, f64)>,
    f: F64Fn2,
    r: F64Fn2,
    failed: &mut Vec<String>,
) {
    let (x, y) = s.at;
    println!(
        "{name:>7} {what:<44}: max {} ulp at ({x:e}, {y:e}) [{:#018x}, {:#018x}]; >0: {}, >1: {} of {}",
        s.max,
        x.to_bits(),
        y.to_bits(),
        s.over0,
        s.over1,
        s.n
    );
    if s.max > MAX_ULP {
        failed.push(format!(
            "{name} {what}: {} ulp at ({x:e}, {y:e}): got {:e}, want {:e}",
            s.max,
            f(x, y),
            r(x, y)
        ));
    }
}

/// The one-argument functions over the boundaries, `bits` random bit patterns and `range`
/// random values over the ranges (split evenly); the `SLOW` ones over 1/`slow_share` of the
/// random ones.
fn one_arg(bits: u64, range: u64, slow_share: u64, failed: &mut Vec<String>) {
    let bounds = boundary_inputs();
    for (name, f, r, ranges) in FUNCS {
        if !selected(name) {
            continue;
        }
        let share = if SLOW.contains(&name) { slow_share } else { 1 };
        let s = worst(name, f, r, bounds.len() as u64, |i| bounds[i as usize]);
        report(name, "boundaries", s, f, r, failed);
        let s = worst(name, f, r, bits / share, |i| {
            f64::from_bits(splitmix(0x5eed, i))
        });
        report(name, "random bits", s, f, r, failed);
        let per = range / share / ranges.len() as u64;
        for (j, &rg) in ranges.iter().enumerate() {
            let s = worst(name, f, r, per, |i| {
                sample(rg, splitmix(0xf00d + j as u64, i))
            });
            report(name, &format!("{rg:?}"), s, f, r, failed);
        }
    }
}

/// The two-argument functions over every pair of their special list, `pairs` random bit-pattern
/// pairs and `range` random pairs over the ranges (split evenly).
fn two_args(pairs: u64, range: u64, failed: &mut Vec<String>) {
    for (name, f, r, list, ranges) in FUNCS2 {
        if !selected(name) {
            continue;
        }
        let sp = list();
        let n = sp.len() as u64;
        let s = worst2(f, r, n * n, |i| {
            (sp[(i / n) as usize], sp[(i % n) as usize])
        });
        report2(
            name,
            &format!("all pairs of {n} special values"),
            s,
            f,
            r,
            failed,
        );
        let s = worst2(f, r, pairs, |i| {
            (
                f64::from_bits(splitmix(0x5eed, i)),
                f64::from_bits(splitmix(0x5eee, i)),
            )
        });
        report2(name, "random bit pairs", s, f, r, failed);
        let per = range / ranges.len() as u64;
        for (j, &rg) in ranges.iter().enumerate() {
            let s = worst2(f, r, per, |i| {
                let j = j as u64;
                sample2(rg, splitmix(0xf00d + j, i), splitmix(0xbeef + j, i))
            });
            report2(name, &format!("{rg:?}"), s, f, r, failed);
        }
    }
}

#[test]
fn max_ulp_over_sampled_domain() {
    let mut failed = Vec::new();
    one_arg(RANDOM_BITS, RANDOM_RANGE, SLOW_SHARE, &mut failed);
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn max_ulp_two_args() {
    let mut failed = Vec::new();
    two_args(RANDOM_PAIRS, RANDOM_PAIRS_RANGE, &mut failed);
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
#[ignore = "200M values per range for exp and log: a minute or two"]
fn max_ulp_exp_log_200m() {
    let mut failed = Vec::new();
    for (name, f, r, ranges) in FUNCS {
        if !["exp", "log"].contains(&name) || !selected(name) {
            continue;
        }
        for (j, &range) in ranges.iter().enumerate() {
            let s = worst(name, f, r, 200_000_000, |i| {
                sample(range, splitmix(0xbeef + j as u64, i))
            });
            report(name, &format!("200M {range:?}"), s, f, r, &mut failed);
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
#[ignore = "20M random + 20M over the ranges per function and per pair function: minutes"]
fn max_ulp_20m() {
    let mut failed = Vec::new();
    one_arg(FULL, FULL, 1, &mut failed);
    two_args(FULL, FULL, &mut failed);
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Bit patterns compared exactly (NaN as any NaN).
fn same(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

#[test]
fn special_values_exact() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let sub = f64::from_bits(1);
    let maxsub = f64::from_bits(0x000f_ffff_ffff_ffff);
    // exp's overflow threshold, and sinh's and cosh's.
    let o = 7.097_827_128_933_839_730_96e2_f64;
    let oh = 7.104_758_600_739_438_634_26e2_f64;
    let above = |v: f64| f64::from_bits(v.to_bits() + 1);
    let below = |v: f64| f64::from_bits(v.to_bits() - 1);
    use core::f64::consts::{FRAC_PI_2 as pio2, FRAC_PI_4 as pio4, PI as pi};
    #[rustfmt::skip]
    let cases: &[(&str, F64Fn, f64, f64)] = &[
        ("exp", double::exp_f64, 0.0, 1.0),
        ("exp", double::exp_f64, -0.0, 1.0),
        ("exp", double::exp_f64, sub, 1.0),
        ("exp", double::exp_f64, -sub, 1.0),
        ("exp", double::exp_f64, inf, inf),
        ("exp", double::exp_f64, -inf, 0.0),
        ("exp", double::exp_f64, nan, nan),
        ("exp", double::exp_f64, f64::MAX, inf),
        ("exp", double::exp_f64, -f64::MAX, 0.0),
        ("exp", double::exp_f64, o, o.exp()),
        ("exp", double::exp_f64, above(o), inf),
        ("exp", double::exp_f64, -745.133_219_101_941_1, sub),
        ("exp", double::exp_f64, -745.133_219_101_941_2, 0.0),
        ("exp", double::exp_f64, -1022.0 * core::f64::consts::LN_2, (-1022.0 * core::f64::consts::LN_2).exp()),
        ("expm1", double::expm1_f64, 0.0, 0.0),
        ("expm1", double::expm1_f64, -0.0, -0.0),
        ("expm1", double::expm1_f64, sub, sub),
        ("expm1", double::expm1_f64, -sub, -sub),
        ("expm1", double::expm1_f64, maxsub, maxsub),
        ("expm1", double::expm1_f64, 1e-300, 1e-300),
        ("expm1", double::expm1_f64, inf, inf),
        ("expm1", double::expm1_f64, -inf, -1.0),
        ("expm1", double::expm1_f64, nan, nan),
        ("expm1", double::expm1_f64, -f64::MAX, -1.0),
        ("expm1", double::expm1_f64, f64::MAX, inf),
        ("expm1", double::expm1_f64, o, o.exp_m1()),
        ("expm1", double::expm1_f64, above(o), inf),
        ("expm1", double::expm1_f64, -40.0, -1.0),
        ("log", double::log_f64, 0.0, -inf),
        ("log", double::log_f64, -0.0, -inf),
        ("log", double::log_f64, inf, inf),
        ("log", double::log_f64, -inf, nan),
        ("log", double::log_f64, nan, nan),
        ("log", double::log_f64, -1.0, nan),
        ("log", double::log_f64, -sub, nan),
        ("log", double::log_f64, 1.0, 0.0),
        ("log", double::log_f64, sub, sub.ln()),
        ("log", double::log_f64, maxsub, maxsub.ln()),
        ("log", double::log_f64, f64::MAX, f64::MAX.ln()),
        ("log1p", double::log1p_f64, 0.0, 0.0),
        ("log1p", double::log1p_f64, -0.0, -0.0),
        ("log1p", double::log1p_f64, -1.0, -inf),
        ("log1p", double::log1p_f64, -1.000_000_000_000_000_2, nan),
        ("log1p", double::log1p_f64, -inf, nan),
        ("log1p", double::log1p_f64, inf, inf),
        ("log1p", double::log1p_f64, nan, nan),
        ("log1p", double::log1p_f64, sub, sub),
        ("log1p", double::log1p_f64, -sub, -sub),
        ("log1p", double::log1p_f64, 1e-300, 1e-300),
        ("log1p", double::log1p_f64, f64::MAX, f64::MAX.ln_1p()),
        ("tanh", double::tanh_f64, 0.0, 0.0),
        ("tanh", double::tanh_f64, -0.0, -0.0),
        ("tanh", double::tanh_f64, sub, sub),
        ("tanh", double::tanh_f64, -sub, -sub),
        ("tanh", double::tanh_f64, 1e-300, 1e-300),
        ("tanh", double::tanh_f64, inf, 1.0),
        ("tanh", double::tanh_f64, -inf, -1.0),
        ("tanh", double::tanh_f64, nan, nan),
        ("tanh", double::tanh_f64, 22.0, 1.0),
        ("tanh", double::tanh_f64, -f64::MAX, -1.0),
        ("sigmoid", double::sigmoid_f64, 0.0, 0.5),
        ("sigmoid", double::sigmoid_f64, -0.0, 0.5),
        ("sigmoid", double::sigmoid_f64, inf, 1.0),
        ("sigmoid", double::sigmoid_f64, -inf, 0.0),
        ("sigmoid", double::sigmoid_f64, nan, nan),
        ("sigmoid", double::sigmoid_f64, f64::MAX, 1.0),
        ("sigmoid", double::sigmoid_f64, -f64::MAX, 0.0),
        ("sigmoid", double::sigmoid_f64, -745.133_219_101_941_1, sub),
        ("sigmoid", double::sigmoid_f64, -746.0, 0.0),
        ("sigmoid", double::sigmoid_f64, 40.0, 1.0),
        ("sinh", dh::sinh_f64, 0.0, 0.0),
        ("sinh", dh::sinh_f64, -0.0, -0.0),
        ("sinh", dh::sinh_f64, sub, sub),
        ("sinh", dh::sinh_f64, -sub, -sub),
        ("sinh", dh::sinh_f64, maxsub, maxsub),
        ("sinh", dh::sinh_f64, 1e-300, 1e-300),
        ("sinh", dh::sinh_f64, inf, inf),
        ("sinh", dh::sinh_f64, -inf, -inf),
        ("sinh", dh::sinh_f64, nan, nan),
        ("sinh", dh::sinh_f64, f64::MAX, inf),
        ("sinh", dh::sinh_f64, -f64::MAX, -inf),
        ("sinh", dh::sinh_f64, oh, oh.sinh()),
        ("sinh", dh::sinh_f64, -oh, (-oh).sinh()),
        ("sinh", dh::sinh_f64, above(oh), inf),
        ("sinh", dh::sinh_f64, -above(oh), -inf),
        ("cosh", dh::cosh_f64, 0.0, 1.0),
        ("cosh", dh::cosh_f64, -0.0, 1.0),
        ("cosh", dh::cosh_f64, sub, 1.0),
        ("cosh", dh::cosh_f64, -sub, 1.0),
        ("cosh", dh::cosh_f64, 1e-300, 1.0),
        ("cosh", dh::cosh_f64, inf, inf),
        ("cosh", dh::cosh_f64, -inf, inf),
        ("cosh", dh::cosh_f64, nan, nan),
        ("cosh", dh::cosh_f64, f64::MAX, inf),
        ("cosh", dh::cosh_f64, -f64::MAX, inf),
        ("cosh", dh::cosh_f64, oh, oh.cosh()),
        ("cosh", dh::cosh_f64, -oh, oh.cosh()),
        ("cosh", dh::cosh_f64, above(oh), inf),
        ("cosh", dh::cosh_f64, -above(oh), inf),
        ("asinh", dh::asinh_f64, 0.0, 0.0),
        ("asinh", dh::asinh_f64, -0.0, -0.0),
        ("asinh", dh::asinh_f64, sub, sub),
        ("asinh", dh::asinh_f64, -sub, -sub),
        ("asinh", dh::asinh_f64, maxsub, maxsub),
        ("asinh", dh::asinh_f64, 1e-300, 1e-300),
        ("asinh", dh::asinh_f64, inf, inf),
        ("asinh", dh::asinh_f64, -inf, -inf),
        ("asinh", dh::asinh_f64, nan, nan),
        ("acosh", dh::acosh_f64, 1.0, 0.0),
        ("acosh", dh::acosh_f64, below(1.0), nan),
        ("acosh", dh::acosh_f64, 0.0, nan),
        ("acosh", dh::acosh_f64, -0.0, nan),
        ("acosh", dh::acosh_f64, -1.0, nan),
        ("acosh", dh::acosh_f64, -inf, nan),
        ("acosh", dh::acosh_f64, inf, inf),
        ("acosh", dh::acosh_f64, nan, nan),
        ("atanh", dh::atanh_f64, 0.0, 0.0),
        ("atanh", dh::atanh_f64, -0.0, -0.0),
        ("atanh", dh::atanh_f64, sub, sub),
        ("atanh", dh::atanh_f64, -sub, -sub),
        ("atanh", dh::atanh_f64, maxsub, maxsub),
        ("atanh", dh::atanh_f64, 1e-300, 1e-300),
        ("atanh", dh::atanh_f64, 1.0, inf),
        ("atanh", dh::atanh_f64, -1.0, -inf),
        ("atanh", dh::atanh_f64, above(1.0), nan),
        ("atanh", dh::atanh_f64, -above(1.0), nan),
        ("atanh", dh::atanh_f64, inf, nan),
        ("atanh", dh::atanh_f64, -inf, nan),
        ("atanh", dh::atanh_f64, nan, nan),
        ("atanh", dh::atanh_f64, below(1.0), atanh_ref(below(1.0))),
        ("log2", dh::log2_f64, 0.0, -inf),
        ("log2", dh::log2_f64, -0.0, -inf),
        ("log2", dh::log2_f64, 1.0, 0.0),
        ("log2", dh::log2_f64, inf, inf),
        ("log2", dh::log2_f64, -inf, nan),
        ("log2", dh::log2_f64, nan, nan),
        ("log2", dh::log2_f64, -1.0, nan),
        ("log2", dh::log2_f64, -sub, nan),
        ("log2", dh::log2_f64, sub, -1074.0),
        ("log2", dh::log2_f64, maxsub, maxsub.log2()),
        ("log2", dh::log2_f64, f64::MIN_POSITIVE, -1022.0),
        ("log2", dh::log2_f64, 2.0, 1.0),
        ("log2", dh::log2_f64, 0.5, -1.0),
        ("log2", dh::log2_f64, 2f64.powi(1023), 1023.0),
        ("log2", dh::log2_f64, f64::MAX, f64::MAX.log2()),
        ("log10", dh::log10_f64, 0.0, -inf),
        ("log10", dh::log10_f64, -0.0, -inf),
        ("log10", dh::log10_f64, 1.0, 0.0),
        ("log10", dh::log10_f64, inf, inf),
        ("log10", dh::log10_f64, -inf, nan),
        ("log10", dh::log10_f64, nan, nan),
        ("log10", dh::log10_f64, -1.0, nan),
        ("log10", dh::log10_f64, -sub, nan),
        ("log10", dh::log10_f64, sub, sub.log10()),
        ("log10", dh::log10_f64, 10.0, 1.0),
        ("log10", dh::log10_f64, 1000.0, 3.0),
        ("log10", dh::log10_f64, f64::MAX, f64::MAX.log10()),
        ("exp2", dh::exp2_f64, 0.0, 1.0),
        ("exp2", dh::exp2_f64, -0.0, 1.0),
        ("exp2", dh::exp2_f64, sub, 1.0),
        ("exp2", dh::exp2_f64, -sub, 1.0),
        ("exp2", dh::exp2_f64, inf, inf),
        ("exp2", dh::exp2_f64, -inf, 0.0),
        ("exp2", dh::exp2_f64, nan, nan),
        ("exp2", dh::exp2_f64, f64::MAX, inf),
        ("exp2", dh::exp2_f64, -f64::MAX, 0.0),
        ("exp2", dh::exp2_f64, 1.0, 2.0),
        ("exp2", dh::exp2_f64, -1.0, 0.5),
        ("exp2", dh::exp2_f64, 1023.0, 2f64.powi(1023)),
        ("exp2", dh::exp2_f64, below(1024.0), below(1024.0).exp2()),
        ("exp2", dh::exp2_f64, 1024.0, inf),
        ("exp2", dh::exp2_f64, -1022.0, f64::MIN_POSITIVE),
        ("exp2", dh::exp2_f64, -1074.0, sub),
        ("exp2", dh::exp2_f64, -1074.5, sub),
        ("exp2", dh::exp2_f64, -below(1075.0), sub),
        ("exp2", dh::exp2_f64, -1075.0, 0.0),
        ("exp2", dh::exp2_f64, -1023.5, (-1023.5f64).exp2()),
        ("erf", dep::erf_f64, 0.0, 0.0),
        ("erf", dep::erf_f64, -0.0, -0.0),
        ("erf", dep::erf_f64, inf, 1.0),
        ("erf", dep::erf_f64, -inf, -1.0),
        ("erf", dep::erf_f64, nan, nan),
        ("erf", dep::erf_f64, 6.0, 1.0),
        ("erf", dep::erf_f64, -f64::MAX, -1.0),
        ("erf", dep::erf_f64, sub, libm::erf(sub)),
        ("erf", dep::erf_f64, -sub, -libm::erf(sub)),
        ("erf", dep::erf_f64, 1e-300, libm::erf(1e-300)),
        ("erfc", erfc_op, 0.0, 1.0),
        ("erfc", erfc_op, -0.0, 1.0),
        ("erfc", erfc_op, sub, 1.0),
        ("erfc", erfc_op, inf, 0.0),
        ("erfc", erfc_op, -inf, 2.0),
        ("erfc", erfc_op, nan, nan),
        ("erfc", erfc_op, 28.0, 0.0),
        ("erfc", erfc_op, 27.3, 0.0),
        ("erfc", erfc_op, -6.0, 2.0),
        ("erfc", erfc_op, f64::MAX, 0.0),
        ("erfc", erfc_op, -f64::MAX, 2.0),
        ("sin", dt::sin_f64, 0.0, 0.0),
        ("sin", dt::sin_f64, -0.0, -0.0),
        ("sin", dt::sin_f64, sub, sub),
        ("sin", dt::sin_f64, -sub, -sub),
        ("sin", dt::sin_f64, maxsub, maxsub),
        ("sin", dt::sin_f64, 1e-300, 1e-300),
        ("sin", dt::sin_f64, inf, nan),
        ("sin", dt::sin_f64, -inf, nan),
        ("sin", dt::sin_f64, nan, nan),
        ("sin", dt::sin_f64, f64::MAX, f64::MAX.sin()),
        ("sin", dt::sin_f64, 1e300, 1e300f64.sin()),
        ("cos", dt::cos_f64, 0.0, 1.0),
        ("cos", dt::cos_f64, -0.0, 1.0),
        ("cos", dt::cos_f64, sub, 1.0),
        ("cos", dt::cos_f64, inf, nan),
        ("cos", dt::cos_f64, -inf, nan),
        ("cos", dt::cos_f64, nan, nan),
        ("cos", dt::cos_f64, f64::MAX, f64::MAX.cos()),
        ("tan", dt::tan_f64, 0.0, 0.0),
        ("tan", dt::tan_f64, -0.0, -0.0),
        ("tan", dt::tan_f64, sub, sub),
        ("tan", dt::tan_f64, -sub, -sub),
        ("tan", dt::tan_f64, 1e-300, 1e-300),
        ("tan", dt::tan_f64, inf, nan),
        ("tan", dt::tan_f64, -inf, nan),
        ("tan", dt::tan_f64, nan, nan),
        ("tan", dt::tan_f64, f64::MAX, f64::MAX.tan()),
        ("sin_narrow", dt::sin_f64_narrow, -0.0, -0.0),
        ("sin_narrow", dt::sin_f64_narrow, nan, nan),
        ("cos_narrow", dt::cos_f64_narrow, -0.0, 1.0),
        ("tan_narrow", dt::tan_f64_narrow, -0.0, -0.0),
        ("atan", dt::atan_f64, 0.0, 0.0),
        ("atan", dt::atan_f64, -0.0, -0.0),
        ("atan", dt::atan_f64, sub, sub),
        ("atan", dt::atan_f64, -sub, -sub),
        ("atan", dt::atan_f64, 1e-300, 1e-300),
        ("atan", dt::atan_f64, inf, pio2),
        ("atan", dt::atan_f64, -inf, -pio2),
        ("atan", dt::atan_f64, f64::MAX, pio2),
        ("atan", dt::atan_f64, -f64::MAX, -pio2),
        ("atan", dt::atan_f64, nan, nan),
        ("atan", dt::atan_f64, 1.0, pio4),
        ("atan", dt::atan_f64, -1.0, -pio4),
        ("asin", dt::asin_f64, 0.0, 0.0),
        ("asin", dt::asin_f64, -0.0, -0.0),
        ("asin", dt::asin_f64, sub, sub),
        ("asin", dt::asin_f64, -sub, -sub),
        ("asin", dt::asin_f64, 1e-300, 1e-300),
        ("asin", dt::asin_f64, 1.0, pio2),
        ("asin", dt::asin_f64, -1.0, -pio2),
        ("asin", dt::asin_f64, above(1.0), nan),
        ("asin", dt::asin_f64, -above(1.0), nan),
        ("asin", dt::asin_f64, 2.0, nan),
        ("asin", dt::asin_f64, inf, nan),
        ("asin", dt::asin_f64, -inf, nan),
        ("asin", dt::asin_f64, nan, nan),
        ("acos", dt::acos_f64, 1.0, 0.0),
        ("acos", dt::acos_f64, -1.0, pi),
        ("acos", dt::acos_f64, 0.0, pio2),
        ("acos", dt::acos_f64, -0.0, pio2),
        ("acos", dt::acos_f64, sub, pio2),
        ("acos", dt::acos_f64, above(1.0), nan),
        ("acos", dt::acos_f64, -above(1.0), nan),
        ("acos", dt::acos_f64, inf, nan),
        ("acos", dt::acos_f64, -inf, nan),
        ("acos", dt::acos_f64, nan, nan),
    ];
    // The `_narrow` forms are NaN from their bound up (so that a missed range check shows).
    let medium: [(&str, F64Fn); 3] = [
        ("sin_narrow", dt::sin_f64_narrow),
        ("cos_narrow", dt::cos_f64_narrow),
        ("tan_narrow", dt::tan_f64_narrow),
    ];
    let above_bound = [MEDIUM_LIMIT, -MEDIUM_LIMIT, 1e10, -1e300, f64::MAX, inf];
    let medium_cases = medium
        .iter()
        .flat_map(|&(name, f)| above_bound.map(|x| (name, f, x, nan)));
    let mut bad = Vec::new();
    for (name, f, x, want) in cases.iter().copied().chain(medium_cases) {
        let got = f(x);
        if !same(got, want) {
            bad.push(format!("{name}({x:e}) = {got:e}, want {want:e}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn special_pairs_exact() {
    // Two-argument specials: every pair of the function's special list must give the
    // reference's bits wherever either side is ±0, ±inf or NaN (C99 Annex F cases).
    let special = |v: f64| v == 0.0 || v.is_infinite() || v.is_nan();
    let mut bad = Vec::new();
    for (name, f, r, list, _) in FUNCS2 {
        let sp = list();
        bad.extend(
            sp.par_iter()
                .flat_map_iter(|&x| {
                    sp.iter().filter_map(move |&y| {
                        let (got, want) = (f(x, y), r(x, y));
                        ((special(got) || special(want)) && !same(got, want))
                            .then(|| format!("{name}({x:e}, {y:e}) = {got:e}, want {want:e}"))
                    })
                })
                .collect::<Vec<_>>(),
        );
    }
    // atan2's C99 special values, each against both the listed value and std's.
    use core::f64::consts::{FRAC_PI_2 as pio2, FRAC_PI_4 as pio4, PI as pi};
    let (inf, nan, sub, m) = (f64::INFINITY, f64::NAN, f64::from_bits(1), f64::MAX);
    #[rustfmt::skip]
    let pairs: &[(f64, f64, f64)] = &[
        (0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (0.0, -0.0, pi), (-0.0, -0.0, -pi),
        (0.0, 1.0, 0.0), (-0.0, 1.0, -0.0), (0.0, -1.0, pi), (-0.0, -1.0, -pi),
        (0.0, inf, 0.0), (-0.0, inf, -0.0), (0.0, -inf, pi), (-0.0, -inf, -pi),
        (1.0, 0.0, pio2), (1.0, -0.0, pio2), (-1.0, 0.0, -pio2), (-1.0, -0.0, -pio2),
        (inf, 0.0, pio2), (-inf, -0.0, -pio2), (inf, 1.0, pio2), (-inf, -1.0, -pio2),
        (inf, inf, pio4), (-inf, inf, -pio4), (inf, -inf, 3.0 * pio4), (-inf, -inf, -3.0 * pio4),
        (1.0, inf, 0.0), (-1.0, inf, -0.0), (1.0, -inf, pi), (-1.0, -inf, -pi),
        (m, sub, pio2), (-m, -sub, -pio2), (sub, m, 0.0), (-sub, m, -0.0),
        (sub, -m, pi), (-sub, -m, -pi), (1.0, 1.0, pio4), (-1.0, -1.0, -3.0 * pio4),
        (nan, 1.0, nan), (1.0, nan, nan), (nan, nan, nan), (inf, nan, nan), (nan, -0.0, nan),
    ];
    for &(y, x, want) in pairs {
        let got = dt::atan2_f64(y, x);
        if !same(got, want) || !same(got, y.atan2(x)) {
            bad.push(format!(
                "atan2({y:e}, {x:e}) = {got:e}, want {want:e} (std {:e})",
                y.atan2(x)
            ));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Test inputs for the tensor ops: any bit patterns, moderate values of both signs, small
/// values, [1, 4] (acosh), (-1, 1) (atanh, asin, acos) and the special values.
fn tensor_inputs(seed: u64, n: u64) -> Vec<f64> {
    let sp = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    (0..n)
        .map(|i| {
            let r = splitmix(seed, i);
            match i % 6 {
                0 => f64::from_bits(r),
                1 => 1000.0 * unit(r) - 500.0,
                2 => unit(r) * 1e-7,
                3 => 1.0 + 3.0 * unit(r),
                4 => 2.0 * unit(r) - 1.0,
                _ => sp[((r >> 8) % sp.len() as u64) as usize],
            }
        })
        .collect()
}

/// The layouts the tensor ops are checked on, each with the inputs in its logical order:
/// contiguous; every other element (stride 2, a column of a transposed [n, 2]); a transposed
/// [rows, n / rows] matrix.
fn layouts(d: &[f64]) -> Vec<(&'static str, Tensor<f64>, Vec<f64>)> {
    let n = d.len();
    let contiguous = Tensor::<f64>::from_vec(d.to_vec(), &[n]).unwrap();
    let pairs: Vec<f64> = d.iter().flat_map(|&x| [0.0, x]).collect();
    let strided = Tensor::<f64>::from_vec(pairs, &[n, 2])
        .unwrap()
        .t()
        .select(0, 1);
    let rows = 67;
    let cols = n / rows;
    let m = &d[..rows * cols];
    let transposed = Tensor::<f64>::from_vec(m.to_vec(), &[rows, cols])
        .unwrap()
        .t();
    let transposed_order = (0..cols)
        .flat_map(|j| (0..rows).map(move |i| m[i * cols + j]))
        .collect();
    vec![
        ("contiguous", contiguous, d.to_vec()),
        ("strided", strided, d.to_vec()),
        ("transposed", transposed, transposed_order),
    ]
}

#[test]
fn tensor_ops_use_the_fast_forms() {
    // The f64 ops go through the fastmath functions (bit for bit), contiguous and strided.
    let data = tensor_inputs(0x7e57, 4099);
    type Op = fn(&Tensor<f64>) -> Tensor<f64>;
    // Not erf/erfc: `Real` keeps libm's for f64 (see `fastmath::double_erf_pow`); nor
    // sin/cos/tan (libm's too, see `fastmath::double_trig`).
    let ops: [(&str, Op, F64Fn); 17] = [
        ("exp", |t| t.exp(), double::exp_f64),
        ("expm1", |t| t.expm1(), double::expm1_f64),
        ("log", |t| t.log(), double::log_f64),
        ("log1p", |t| t.log1p(), double::log1p_f64),
        ("tanh", |t| t.tanh(), double::tanh_f64),
        ("sigmoid", |t| t.sigmoid(), double::sigmoid_f64),
        ("sinh", |t| t.sinh(), dh::sinh_f64),
        ("cosh", |t| t.cosh(), dh::cosh_f64),
        ("asinh", |t| t.asinh(), dh::asinh_f64),
        ("acosh", |t| t.acosh(), dh::acosh_f64),
        ("atanh", |t| t.atanh(), dh::atanh_f64),
        ("log2", |t| t.log2(), dh::log2_f64),
        ("log10", |t| t.log10(), dh::log10_f64),
        ("exp2", |t| t.exp2(), dh::exp2_f64),
        ("atan", |t| t.atan(), dt::atan_f64),
        ("asin", |t| t.asin(), dt::asin_f64),
        ("acos", |t| t.acos(), dt::acos_f64),
    ];
    let mut bad = Vec::new();
    for (name, op, f) in ops {
        for (layout, t, xs) in layouts(&data) {
            let got = op(&t).to_vec();
            assert_eq!(got.len(), xs.len(), "{name} {layout}");
            for (i, (&g, &x)) in got.iter().zip(&xs).enumerate() {
                if !same(g, f(x)) {
                    bad.push(format!(
                        "{name} {layout} element {i}: {name}({x:e}) = {g:e}, want {:e}",
                        f(x)
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(20)]
    );
}

#[test]
fn tensor_pair_ops_use_the_fast_forms() {
    // The f64 tensor-tensor ops go through the fastmath functions (bit for bit), contiguous
    // and strided, on any mix of layouts.
    let n = 4099u64;
    let sp = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let (xs, ys): (Vec<f64>, Vec<f64>) = (0..n)
        .map(|i| {
            let (r1, r2) = (splitmix(0xa11, i), splitmix(0xb22, i));
            let (u, v) = (unit(r1), unit(r2));
            match i % 5 {
                // Any bit patterns.
                0 => (f64::from_bits(r1), f64::from_bits(r2)),
                // Moderate values of both signs.
                1 => (1000.0 * u - 500.0, 1000.0 * v - 500.0),
                // pow's (0, 4] × [-1000, 1000].
                2 => ((1.0 - u) * 4.0, 2000.0 * v - 1000.0),
                // Negative bases, integer exponents.
                3 => (-4.0 * u, (r2 >> 32) as f64 % 81.0 - 40.0),
                // The special values, and small values.
                _ if r1 & 1 == 0 => (
                    sp[((r1 >> 8) % sp.len() as u64) as usize],
                    sp[((r2 >> 8) % sp.len() as u64) as usize],
                ),
                _ => (u * 1e-7, v * -1e-7),
            }
        })
        .unzip();
    type Op = fn(&Tensor<f64>, &Tensor<f64>) -> Tensor<f64>;
    let ops: [(&str, Op, F64Fn2); 3] = [
        ("pow", |a, b| a.pow(b), dep::pow_f64),
        ("hypot", |a, b| a.hypot(b), dep::hypot_f64),
        ("atan2", |a, b| a.atan2(b), dt::atan2_f64),
    ];
    let mut bad = Vec::new();
    for (name, op, f) in ops {
        let (la, lb) = (layouts(&xs), layouts(&ys));
        // Same layouts, and contiguous with strided both ways.
        let combos = [(0, 0), (1, 1), (2, 2), (0, 1), (1, 0)];
        for (ia, ib) in combos {
            let ((ka, a, ax), (kb, b, bx)) = (&la[ia], &lb[ib]);
            let got = op(a, b).to_vec();
            assert_eq!(got.len(), ax.len(), "{name} {ka} × {kb}");
            for (i, ((&g, &x), &y)) in got.iter().zip(ax).zip(bx).enumerate() {
                if !same(g, f(x, y)) {
                    bad.push(format!(
                        "{name} {ka} × {kb} element {i}: {name}({x:e}, {y:e}) = {g:e}, want {:e}",
                        f(x, y)
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(20)]
    );
}
