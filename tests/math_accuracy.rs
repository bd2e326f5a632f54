//! Accuracy of the branch-free one-argument f32 math in `functors::fastmath` over the whole f32
//! domain: 27 functions (`exp`, `log`, `log2`, `log10`, `log1p`, `sin`, `cos`, `exp2`, `expm1`,
//! `tanh`; from `fastmath::trig` `tan`, `atan`, `asin`, `acos`; from `fastmath::hyperbolic`
//! `sinh`, `cosh`, `asinh`, `acosh`, `atanh`; from `fastmath::erf` `erf`, `erfc`, exact `gelu`;
//! `mish`; the softplus, logsigmoid, sigmoid and silu functors), every one
//! against the f64 result rounded to f32 (std, i.e. the system libm; `libm::erf`/`libm::erfc`
//! for erf, erfc and gelu = `x/2 · erfc(-x/√2)`), in ulps (distance in the ordered bit patterns,
//! so subnormals count their own ulps). Over 10^7 inputs per function: a bit-pattern stride
//! that covers every exponent and sign, random bit patterns from a fixed seed, and the boundary
//! values of every function (the boundary values alone in a test of their own); plus the
//! special values, exactly (and the f64 references agree with that table), and the f32 tensor
//! ops are checked to be these functions bit for bit. The two-argument functions (`atan2`,
//! `pow`, `hypot`) are in `tests/math_accuracy_pairs.rs`. The `#[ignore]`d test runs all 2^32
//! inputs per function (`cargo test --release --test math_accuracy -- --ignored`, 1-3 minutes
//! per function on 2 cores; `MATH_ACCURACY_ONLY=sin,cos` picks functions).

use rayon::prelude::*;
use weft::Tensor;
use weft::functors::Functor;
use weft::functors::GeluApproximate;
use weft::functors::activation::{Logsigmoid, Sigmoid, Silu, Softplus};
use weft::functors::fastmath;
use weft::functors::fastmath::{erf, hyperbolic, trig};

/// The bound every function must meet.
const MAX_ULP: u64 = 4;

type F32Fn = fn(f32) -> f32;
type F64Fn = fn(f64) -> f64;

/// Exact gelu in f64: `x/2 · erfc(-x/√2)`.
fn gelu_ref(x: f64) -> f64 {
    0.5 * x * libm::erfc(-x / core::f64::consts::SQRT_2)
}

/// PyTorch's definition of mish, `x·tanh(log1p(e^x))`, in f64.
fn mish_ref(x: f64) -> f64 {
    x * x.exp().ln_1p().tanh()
}

/// PyTorch's softplus (beta 1, threshold 20) and logsigmoid in f64.
fn softplus_ref(x: f64) -> f64 {
    if x > 20.0 { x } else { x.exp().ln_1p() }
}
fn logsigmoid_ref(x: f64) -> f64 {
    x.min(0.0) - (-x.abs()).exp().ln_1p()
}

/// weft's f32 softplus and logsigmoid functors (`fastmath::log1p_unit_f32` inside).
fn softplus_f32(x: f32) -> f32 {
    Functor::call(&Softplus, (x,))
}
fn logsigmoid_f32(x: f32) -> f32 {
    Functor::call(&Logsigmoid, (x,))
}

/// The sigmoid and silu functors (`fastmath::exp_f32`'s reduction and polynomial inside).
fn sigmoid_f32(x: f32) -> f32 {
    Functor::call(&Sigmoid, (x,))
}
fn silu_f32(x: f32) -> f32 {
    Functor::call(&Silu, (x,))
}

/// The sigmoid and silu in f64 (`1/(1 + e^-x)`, `x·sigmoid(x)`).
fn sigmoid_ref(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
fn silu_ref(x: f64) -> f64 {
    x * sigmoid_ref(x)
}

/// (name, fast f32 function, f64 reference). glibc's `acosh` is already NaN for every x < 1.
const FUNCS: [(&str, F32Fn, F64Fn); 27] = [
    ("exp", fastmath::exp_f32, f64::exp),
    ("log", fastmath::log_f32, f64::ln),
    ("log2", fastmath::log2_f32, f64::log2),
    ("log10", fastmath::log10_f32, f64::log10),
    ("log1p", fastmath::log1p_f32, f64::ln_1p),
    ("sin", fastmath::sin_f32, f64::sin),
    ("cos", fastmath::cos_f32, f64::cos),
    ("exp2", fastmath::exp2_f32, f64::exp2),
    ("expm1", fastmath::expm1_f32, f64::exp_m1),
    ("tan", trig::tan_f32, f64::tan),
    ("atan", trig::atan_f32, f64::atan),
    ("asin", trig::asin_f32, f64::asin),
    ("acos", trig::acos_f32, f64::acos),
    ("sinh", hyperbolic::sinh_f32, f64::sinh),
    ("cosh", hyperbolic::cosh_f32, f64::cosh),
    ("asinh", hyperbolic::asinh_f32, f64::asinh),
    ("acosh", hyperbolic::acosh_f32, f64::acosh),
    ("atanh", hyperbolic::atanh_f32, f64::atanh),
    ("erf", erf::erf_f32, libm::erf),
    ("erfc", erf::erfc_f32, libm::erfc),
    ("gelu", erf::gelu_f32, gelu_ref),
    ("tanh", fastmath::tanh_f32, f64::tanh),
    ("mish", fastmath::mish_f32, mish_ref),
    ("softplus", softplus_f32, softplus_ref),
    ("logsigmoid", logsigmoid_f32, logsigmoid_ref),
    ("sigmoid", sigmoid_f32, sigmoid_ref),
    ("silu", silu_f32, silu_ref),
];

/// Position of a float in the ordered line of f32 values (±0 are both 0).
fn ordinal(v: f32) -> i64 {
    let b = v.to_bits();
    let m = (b & 0x7fff_ffff) as i64;
    if b >> 31 == 1 { -m } else { m }
}

/// Ulps between `got` and the reference rounded to f32: 0 when both are NaN, `u64::MAX` when
/// only one is.
fn ulps(got: f32, want: f64) -> u64 {
    let want = want as f32;
    match (got.is_nan(), want.is_nan()) {
        (true, true) => 0,
        (false, false) => ordinal(got).abs_diff(ordinal(want)),
        _ => u64::MAX,
    }
}

/// Worst case over `inputs`: (max ulp, an input that reaches it).
fn worst(f: F32Fn, r: F64Fn, inputs: &[f32]) -> (u64, f32) {
    inputs
        .par_chunks(1 << 16)
        .map(|c| {
            c.iter()
                .map(|&x| (ulps(f(x), r(x as f64)), x))
                .fold((0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
        })
        .reduce(|| (0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

/// SplitMix64, for reproducible random bit patterns.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The values around `v`: `v` and its `n` neighbours on each side (same sign).
fn around(v: f32, n: u32, out: &mut Vec<f32>) {
    let b = v.to_bits();
    for d in 0..=n {
        out.push(f32::from_bits(b.saturating_add(d)));
        out.push(f32::from_bits(b.saturating_sub(d)));
    }
}

/// The thresholds of `trig`: the atan range limits tan(π/8), tan(3π/8), 1; the asin/acos limit
/// 1/2 and the domain edge 1; where atan/tan/asin become x (|x| ~ 2^-12) and atan becomes π/2
/// (|x| ~ 2^24).
const TRIG_THRESHOLDS: [f32; 10] = [
    0.414_213_57,
    2.414_213_6,
    0.5,
    1.0,
    2.441_406_3e-4,
    4.315_837_3e-4,
    3.452_669_8e-4,
    16_777_216.0,
    33_554_432.0,
    1.0e-6,
];

/// The thresholds of `hyperbolic`: the overflow edge of sinh/cosh (89.41598...) and their
/// |x| = 90 clamp, the |x| < 2^-12 cut of asinh/atanh, ±1 (acosh, atanh), and the inputs where
/// the log reduction `a = 2^k m` changes k (a = 2^k √2, i.e. asinh x = sinh((k + ½) ln2),
/// acosh x = cosh(...), atanh x = tanh(...)).
fn hyperbolic_thresholds() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        f32::from_bits(0x42b2_d4fc),
        f32::from_bits(0x42b2_d4fd),
        90.0,
        1.0 / 4096.0,
        1.0,
        0.5,
    ];
    for k in -1..=130 {
        let h = (k as f64 + 0.5) * core::f64::consts::LN_2;
        v.push(h.sinh() as f32);
        v.push(h.cosh() as f32);
        v.push((h / 2.0).tanh() as f32);
        v.push(h as f32);
    }
    v
}

/// The smallest positive f32 `x` (by bit pattern, in `[lo, hi]`) where `pred(x)` holds, for a
/// predicate that is monotone there: where a reference crosses a threshold.
fn first(lo: f32, hi: f32, pred: impl Fn(f32) -> bool) -> f32 {
    let (mut lo, mut hi) = (lo.to_bits(), hi.to_bits());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(f32::from_bits(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    f32::from_bits(lo)
}

/// The thresholds of `erf`: the kernels' interval edges (erf: 1.1, 2.4, clamp 4; erfc: 1, 2.2,
/// 4.3, clamp 12, and SLEEF's 10.1 cut; times √2 for gelu; the erf `1e-4` cut, the gelu cut at
/// -17), and where the references cross their thresholds: `erfc` becomes subnormal (≈9.19) and
/// 0 (≈10.13), `erf` rounds to 1, `erfc(-x)` rounds to 2, `gelu` becomes subnormal (≈-13.15),
/// -0 (≈-14.36), and equals x.
fn erf_thresholds() -> Vec<f32> {
    let sqrt2 = core::f32::consts::SQRT_2;
    let erfc = |x: f32| libm::erfc(x as f64) as f32;
    let erf = |x: f32| libm::erf(x as f64) as f32;
    let gelu = |x: f32| gelu_ref(x as f64) as f32;
    vec![
        1.0,
        1e-4,
        1.1,
        2.4,
        4.0,
        2.2,
        4.3,
        10.1,
        12.0,
        17.0,
        sqrt2,
        2.2 * sqrt2,
        4.3 * sqrt2,
        10.1 * sqrt2,
        12.0 * sqrt2,
        first(1.0, 20.0, |x| erfc(x) == 0.0),
        first(1.0, 20.0, |x| erfc(x) < f32::MIN_POSITIVE),
        first(0.5, 20.0, |x| erf(x) == 1.0),
        first(0.5, 20.0, |x| erfc(-x) == 2.0),
        first(1.0, 30.0, |x| gelu(-x) > -f32::MIN_POSITIVE),
        first(1.0, 30.0, |x| gelu(-x) == 0.0),
        first(0.5, 30.0, |x| gelu(x) == x),
    ]
}

/// Boundary values of the functions: signed zeros, subnormal and normal limits, powers of 2
/// and 10, the neighbourhoods of 1 (logs, acosh, atanh), -1 and the `|x| < 2^-24` cut (log1p),
/// √2 and √½ (the log reduction), the floats nearest to multiples of π/2 (sin/cos/tan
/// reduction), the neighbourhood of ±1/2 (asin/acos), and the thresholds of `trig`,
/// `hyperbolic` and `erf` above, each with 64 neighbours on both sides; ±inf and NaN.
fn boundary_inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::EPSILON,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        core::f32::consts::SQRT_2,
        core::f32::consts::FRAC_1_SQRT_2,
        core::f32::consts::SQRT_2 - 1.0,
        core::f32::consts::FRAC_1_SQRT_2 - 1.0,
        5.960_464_5e-8,
        -1.0,
        1.0,
    ];
    v.extend(TRIG_THRESHOLDS);
    v.extend(hyperbolic_thresholds());
    v.extend(erf_thresholds());
    for e in -149..=127 {
        v.push(2f32.powi(e));
    }
    for e in -45..=38 {
        v.push(format!("1e{e}").parse().unwrap());
    }
    let mut out = Vec::new();
    for &x in &v {
        around(x, 64, &mut out);
        around(-x, 64, &mut out);
    }
    // Dense around 1 and -1.
    around(1.0, 1 << 17, &mut out);
    around(-1.0, 1 << 17, &mut out);
    // Dense around 1/2 and -1/2.
    around(0.5, 1 << 12, &mut out);
    around(-0.5, 1 << 12, &mut out);
    // Nearest floats to k·π/2, and their neighbours.
    for k in 1..200_000u32 {
        let x = (k as f64 * core::f64::consts::FRAC_PI_2) as f32;
        around(x, 2, &mut out);
        around(-x, 2, &mut out);
    }
    // (`around` runs past ±f32::MAX and -0 into NaN patterns: one NaN is enough.)
    out.retain(|x| !x.is_nan());
    out.extend([f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    out
}

/// At least 10^7 inputs: every `STRIDE`-th bit pattern (all exponents, both signs), random
/// bit patterns, the boundary values.
fn inputs() -> Vec<f32> {
    const STRIDE: usize = 859;
    const RANDOM: usize = 5_000_000;
    let mut v: Vec<f32> = (0..=u32::MAX).step_by(STRIDE).map(f32::from_bits).collect();
    let mut s = 0x5eed_u64;
    v.extend((0..RANDOM).map(|_| f32::from_bits(splitmix(&mut s) as u32)));
    v.extend(boundary_inputs());
    v
}

#[test]
fn max_ulp_over_sampled_domain() {
    let inputs = inputs();
    assert!(inputs.len() >= 10_000_000, "{} inputs", inputs.len());
    let mut failed = Vec::new();
    for (name, f, r) in FUNCS {
        let (u, x) = worst(f, r, &inputs);
        println!(
            "{name:>6}: max {u} ulp over {} inputs (at x = {x:e}, {:#010x})",
            inputs.len(),
            x.to_bits()
        );
        if u > MAX_ULP {
            failed.push(format!(
                "{name}: {u} ulp at x = {x:e} ({:#010x}): got {:e}, want {:e}",
                x.to_bits(),
                f(x),
                r(x as f64) as f32
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn boundaries_within_bound() {
    // The boundary values alone, so that a failure there is named as such.
    let inputs = boundary_inputs();
    let mut failed = Vec::new();
    for (name, f, r) in FUNCS {
        let (u, x) = worst(f, r, &inputs);
        println!(
            "{name:>6}: max {u} ulp over the {} boundary values (at x = {x:e}, {:#010x})",
            inputs.len(),
            x.to_bits()
        );
        if u > MAX_ULP {
            failed.push(format!("{name}: {u} ulp at boundary x = {x:e}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
#[ignore = "all 2^32 inputs per function: minutes"]
fn max_ulp_exhaustive() {
    // `MATH_ACCURACY_ONLY=sin,cos` restricts the run to those functions.
    let only = std::env::var("MATH_ACCURACY_ONLY").ok();
    let mut failed = Vec::new();
    for (name, f, r) in FUNCS {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|n| n == name))
        {
            continue;
        }
        let t = std::time::Instant::now();
        let (u, x) = (0..=u32::MAX)
            .into_par_iter()
            .fold(
                || (0, 0.0),
                |a, b| {
                    let x = f32::from_bits(b);
                    let u = ulps(f(x), r(x as f64));
                    if u > a.0 { (u, x) } else { a }
                },
            )
            .reduce(|| (0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        println!(
            "{name:>6}: max {u} ulp over all 2^32 inputs (at x = {x:e}, {:#010x}), {:.1?}",
            x.to_bits(),
            t.elapsed()
        );
        if u > MAX_ULP {
            failed.push(format!(
                "{name}: {u} ulp at x = {x:e} ({:#010x})",
                x.to_bits()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Bit patterns compared exactly (NaN as any NaN).
fn same(got: f32, want: f32) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

#[test]
fn special_values_exact() {
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let sub = f32::from_bits(1);
    let max_sub = f32::from_bits(0x007f_ffff);
    let tiny = f32::MIN_POSITIVE;
    let big = f32::MAX;
    // The largest finite sinh/cosh input, and the next float (overflow).
    let (fin, ovf) = (f32::from_bits(0x42b2_d4fc), f32::from_bits(0x42b2_d4fd));
    let (one_m, one_p) = (f32::from_bits(0x3f7f_ffff), f32::from_bits(0x3f80_0001));
    #[rustfmt::skip]
    let cases: &[(&str, F32Fn, f32, f32)] = &[
        ("log", fastmath::log_f32, 0.0, -inf),
        ("log", fastmath::log_f32, -0.0, -inf),
        ("log", fastmath::log_f32, inf, inf),
        ("log", fastmath::log_f32, -inf, nan),
        ("log", fastmath::log_f32, nan, nan),
        ("log", fastmath::log_f32, -1.0, nan),
        ("log", fastmath::log_f32, -sub, nan),
        ("log", fastmath::log_f32, 1.0, 0.0),
        ("log", fastmath::log_f32, sub, (f64::from(sub)).ln() as f32),
        ("log2", fastmath::log2_f32, 0.0, -inf),
        ("log2", fastmath::log2_f32, -0.0, -inf),
        ("log2", fastmath::log2_f32, inf, inf),
        ("log2", fastmath::log2_f32, -inf, nan),
        ("log2", fastmath::log2_f32, nan, nan),
        ("log2", fastmath::log2_f32, -2.0, nan),
        ("log2", fastmath::log2_f32, 1.0, 0.0),
        ("log2", fastmath::log2_f32, sub, -149.0),
        ("log2", fastmath::log2_f32, f32::MIN_POSITIVE, -126.0),
        ("log2", fastmath::log2_f32, 2f32.powi(127), 127.0),
        ("log10", fastmath::log10_f32, 0.0, -inf),
        ("log10", fastmath::log10_f32, -0.0, -inf),
        ("log10", fastmath::log10_f32, inf, inf),
        ("log10", fastmath::log10_f32, -inf, nan),
        ("log10", fastmath::log10_f32, nan, nan),
        ("log10", fastmath::log10_f32, -10.0, nan),
        ("log10", fastmath::log10_f32, 1.0, 0.0),
        ("log1p", fastmath::log1p_f32, 0.0, 0.0),
        ("log1p", fastmath::log1p_f32, -0.0, -0.0),
        ("log1p", fastmath::log1p_f32, -1.0, -inf),
        ("log1p", fastmath::log1p_f32, -1.000_000_1, nan),
        ("log1p", fastmath::log1p_f32, -inf, nan),
        ("log1p", fastmath::log1p_f32, inf, inf),
        ("log1p", fastmath::log1p_f32, nan, nan),
        ("log1p", fastmath::log1p_f32, sub, sub),
        ("log1p", fastmath::log1p_f32, -sub, -sub),
        ("log1p", fastmath::log1p_f32, 1e-30, 1e-30),
        ("sin", fastmath::sin_f32, 0.0, 0.0),
        ("sin", fastmath::sin_f32, -0.0, -0.0),
        ("sin", fastmath::sin_f32, inf, nan),
        ("sin", fastmath::sin_f32, -inf, nan),
        ("sin", fastmath::sin_f32, nan, nan),
        ("sin", fastmath::sin_f32, sub, sub),
        ("sin", fastmath::sin_f32, -sub, -sub),
        ("sin", fastmath::sin_f32, 1e-30, 1e-30),
        ("cos", fastmath::cos_f32, 0.0, 1.0),
        ("cos", fastmath::cos_f32, -0.0, 1.0),
        ("cos", fastmath::cos_f32, inf, nan),
        ("cos", fastmath::cos_f32, -inf, nan),
        ("cos", fastmath::cos_f32, nan, nan),
        ("cos", fastmath::cos_f32, sub, 1.0),
        ("exp2", fastmath::exp2_f32, 0.0, 1.0),
        ("exp2", fastmath::exp2_f32, -0.0, 1.0),
        ("exp2", fastmath::exp2_f32, inf, inf),
        ("exp2", fastmath::exp2_f32, -inf, 0.0),
        ("exp2", fastmath::exp2_f32, nan, nan),
        ("exp2", fastmath::exp2_f32, 128.0, inf),
        ("exp2", fastmath::exp2_f32, 127.0, 2f32.powi(127)),
        ("exp2", fastmath::exp2_f32, -126.0, f32::MIN_POSITIVE),
        ("exp2", fastmath::exp2_f32, -149.0, sub),
        ("exp2", fastmath::exp2_f32, -151.0, 0.0),
        ("expm1", fastmath::expm1_f32, 0.0, 0.0),
        ("expm1", fastmath::expm1_f32, -0.0, -0.0),
        ("expm1", fastmath::expm1_f32, inf, inf),
        ("expm1", fastmath::expm1_f32, -inf, -1.0),
        ("expm1", fastmath::expm1_f32, nan, nan),
        ("expm1", fastmath::expm1_f32, 89.0, inf),
        ("expm1", fastmath::expm1_f32, -100.0, -1.0),
        ("expm1", fastmath::expm1_f32, sub, sub),
        ("expm1", fastmath::expm1_f32, -sub, -sub),
        ("expm1", fastmath::expm1_f32, 1e-30, 1e-30),
        ("tan", trig::tan_f32, 0.0, 0.0),
        ("tan", trig::tan_f32, -0.0, -0.0),
        ("tan", trig::tan_f32, inf, nan),
        ("tan", trig::tan_f32, -inf, nan),
        ("tan", trig::tan_f32, nan, nan),
        ("tan", trig::tan_f32, sub, sub),
        ("tan", trig::tan_f32, -sub, -sub),
        ("tan", trig::tan_f32, max_sub, max_sub),
        ("tan", trig::tan_f32, -tiny, -tiny),
        ("tan", trig::tan_f32, 1e-30, 1e-30),
        ("atan", trig::atan_f32, 0.0, 0.0),
        ("atan", trig::atan_f32, -0.0, -0.0),
        ("atan", trig::atan_f32, inf, FRAC_PI_2),
        ("atan", trig::atan_f32, -inf, -FRAC_PI_2),
        ("atan", trig::atan_f32, nan, nan),
        ("atan", trig::atan_f32, f32::MAX, FRAC_PI_2),
        ("atan", trig::atan_f32, -f32::MAX, -FRAC_PI_2),
        ("atan", trig::atan_f32, 1.0, FRAC_PI_4),
        ("atan", trig::atan_f32, -1.0, -FRAC_PI_4),
        ("atan", trig::atan_f32, sub, sub),
        ("atan", trig::atan_f32, -sub, -sub),
        ("atan", trig::atan_f32, max_sub, max_sub),
        ("atan", trig::atan_f32, 1e-30, 1e-30),
        ("asin", trig::asin_f32, 0.0, 0.0),
        ("asin", trig::asin_f32, -0.0, -0.0),
        ("asin", trig::asin_f32, 1.0, FRAC_PI_2),
        ("asin", trig::asin_f32, -1.0, -FRAC_PI_2),
        ("asin", trig::asin_f32, 1.000_000_1, nan),
        ("asin", trig::asin_f32, -1.000_000_1, nan),
        ("asin", trig::asin_f32, 2.0, nan),
        ("asin", trig::asin_f32, inf, nan),
        ("asin", trig::asin_f32, -inf, nan),
        ("asin", trig::asin_f32, nan, nan),
        ("asin", trig::asin_f32, f32::MAX, nan),
        ("asin", trig::asin_f32, sub, sub),
        ("asin", trig::asin_f32, -sub, -sub),
        ("asin", trig::asin_f32, 1e-30, 1e-30),
        ("acos", trig::acos_f32, 1.0, 0.0),
        ("acos", trig::acos_f32, -1.0, PI),
        ("acos", trig::acos_f32, 0.0, FRAC_PI_2),
        ("acos", trig::acos_f32, -0.0, FRAC_PI_2),
        ("acos", trig::acos_f32, sub, FRAC_PI_2),
        ("acos", trig::acos_f32, 1.000_000_1, nan),
        ("acos", trig::acos_f32, -1.000_000_1, nan),
        ("acos", trig::acos_f32, inf, nan),
        ("acos", trig::acos_f32, -inf, nan),
        ("acos", trig::acos_f32, nan, nan),
        ("acos", trig::acos_f32, -f32::MAX, nan),
        ("sinh", hyperbolic::sinh_f32, 0.0, 0.0),
        ("sinh", hyperbolic::sinh_f32, -0.0, -0.0),
        ("sinh", hyperbolic::sinh_f32, inf, inf),
        ("sinh", hyperbolic::sinh_f32, -inf, -inf),
        ("sinh", hyperbolic::sinh_f32, nan, nan),
        ("sinh", hyperbolic::sinh_f32, sub, sub),
        ("sinh", hyperbolic::sinh_f32, -sub, -sub),
        ("sinh", hyperbolic::sinh_f32, max_sub, max_sub),
        ("sinh", hyperbolic::sinh_f32, -tiny, -tiny),
        ("sinh", hyperbolic::sinh_f32, 1e-30, 1e-30),
        ("sinh", hyperbolic::sinh_f32, ovf, inf),
        ("sinh", hyperbolic::sinh_f32, -ovf, -inf),
        ("sinh", hyperbolic::sinh_f32, big, inf),
        ("sinh", hyperbolic::sinh_f32, -big, -inf),
        ("cosh", hyperbolic::cosh_f32, 0.0, 1.0),
        ("cosh", hyperbolic::cosh_f32, -0.0, 1.0),
        ("cosh", hyperbolic::cosh_f32, inf, inf),
        ("cosh", hyperbolic::cosh_f32, -inf, inf),
        ("cosh", hyperbolic::cosh_f32, nan, nan),
        ("cosh", hyperbolic::cosh_f32, sub, 1.0),
        ("cosh", hyperbolic::cosh_f32, -sub, 1.0),
        ("cosh", hyperbolic::cosh_f32, ovf, inf),
        ("cosh", hyperbolic::cosh_f32, -ovf, inf),
        ("cosh", hyperbolic::cosh_f32, -big, inf),
        ("asinh", hyperbolic::asinh_f32, 0.0, 0.0),
        ("asinh", hyperbolic::asinh_f32, -0.0, -0.0),
        ("asinh", hyperbolic::asinh_f32, inf, inf),
        ("asinh", hyperbolic::asinh_f32, -inf, -inf),
        ("asinh", hyperbolic::asinh_f32, nan, nan),
        ("asinh", hyperbolic::asinh_f32, sub, sub),
        ("asinh", hyperbolic::asinh_f32, -sub, -sub),
        ("asinh", hyperbolic::asinh_f32, max_sub, max_sub),
        ("asinh", hyperbolic::asinh_f32, 1e-30, 1e-30),
        ("acosh", hyperbolic::acosh_f32, 1.0, 0.0),
        ("acosh", hyperbolic::acosh_f32, one_m, nan),
        ("acosh", hyperbolic::acosh_f32, 0.0, nan),
        ("acosh", hyperbolic::acosh_f32, -0.0, nan),
        ("acosh", hyperbolic::acosh_f32, -1.0, nan),
        ("acosh", hyperbolic::acosh_f32, -inf, nan),
        ("acosh", hyperbolic::acosh_f32, inf, inf),
        ("acosh", hyperbolic::acosh_f32, nan, nan),
        ("acosh", hyperbolic::acosh_f32, sub, nan),
        ("atanh", hyperbolic::atanh_f32, 0.0, 0.0),
        ("atanh", hyperbolic::atanh_f32, -0.0, -0.0),
        ("atanh", hyperbolic::atanh_f32, 1.0, inf),
        ("atanh", hyperbolic::atanh_f32, -1.0, -inf),
        ("atanh", hyperbolic::atanh_f32, one_p, nan),
        ("atanh", hyperbolic::atanh_f32, -one_p, nan),
        ("atanh", hyperbolic::atanh_f32, inf, nan),
        ("atanh", hyperbolic::atanh_f32, -inf, nan),
        ("atanh", hyperbolic::atanh_f32, nan, nan),
        ("atanh", hyperbolic::atanh_f32, sub, sub),
        ("atanh", hyperbolic::atanh_f32, -sub, -sub),
        ("atanh", hyperbolic::atanh_f32, 1e-30, 1e-30),
        ("erf", erf::erf_f32, 0.0, 0.0),
        ("erf", erf::erf_f32, -0.0, -0.0),
        ("erf", erf::erf_f32, inf, 1.0),
        ("erf", erf::erf_f32, -inf, -1.0),
        ("erf", erf::erf_f32, nan, nan),
        ("erf", erf::erf_f32, big, 1.0),
        ("erf", erf::erf_f32, -big, -1.0),
        ("erf", erf::erf_f32, 4.0, 1.0),
        ("erf", erf::erf_f32, sub, libm::erf(sub as f64) as f32),
        ("erf", erf::erf_f32, -sub, -(libm::erf(sub as f64) as f32)),
        ("erf", erf::erf_f32, max_sub, libm::erf(max_sub as f64) as f32),
        ("erf", erf::erf_f32, tiny, libm::erf(tiny as f64) as f32),
        ("erfc", erf::erfc_f32, 0.0, 1.0),
        ("erfc", erf::erfc_f32, -0.0, 1.0),
        ("erfc", erf::erfc_f32, inf, 0.0),
        ("erfc", erf::erfc_f32, -inf, 2.0),
        ("erfc", erf::erfc_f32, nan, nan),
        ("erfc", erf::erfc_f32, big, 0.0),
        ("erfc", erf::erfc_f32, -big, 2.0),
        ("erfc", erf::erfc_f32, 10.1, 0.0),
        ("erfc", erf::erfc_f32, 10.0, libm::erfc(10.0) as f32),
        ("erfc", erf::erfc_f32, -10.0, 2.0),
        ("erfc", erf::erfc_f32, sub, 1.0),
        ("erfc", erf::erfc_f32, -sub, 1.0),
        ("gelu", erf::gelu_f32, 0.0, 0.0),
        ("gelu", erf::gelu_f32, -0.0, -0.0),
        ("gelu", erf::gelu_f32, inf, inf),
        ("gelu", erf::gelu_f32, -inf, nan),
        ("gelu", erf::gelu_f32, nan, nan),
        ("gelu", erf::gelu_f32, big, big),
        ("gelu", erf::gelu_f32, -big, -0.0),
        ("gelu", erf::gelu_f32, 17.0, 17.0),
        ("gelu", erf::gelu_f32, -17.0, -0.0),
        ("gelu", erf::gelu_f32, -20.0, -0.0),
        ("gelu", erf::gelu_f32, -13.0, gelu_ref(-13.0) as f32),
        ("gelu", erf::gelu_f32, sub, 0.0),
        ("gelu", erf::gelu_f32, -sub, -0.0),
        ("gelu", erf::gelu_f32, max_sub, gelu_ref(max_sub as f64) as f32),
        ("mish", fastmath::mish_f32, 0.0, 0.0),
        ("mish", fastmath::mish_f32, -0.0, -0.0),
        ("mish", fastmath::mish_f32, inf, inf),
        ("mish", fastmath::mish_f32, -inf, nan),
        ("mish", fastmath::mish_f32, nan, nan),
        ("mish", fastmath::mish_f32, big, big),
        ("mish", fastmath::mish_f32, -big, -0.0),
        ("mish", fastmath::mish_f32, 20.0, 20.0),
        ("mish", fastmath::mish_f32, sub, mish_ref(sub as f64) as f32),
    ];
    // Ordinary points, not special values: held to the sampled bound (the erf family's and the
    // hyperbolic functions' f32 forms are 1-3 ulp, not correctly rounded), and their table
    // entries to the references. The hyperbolic ones sit next to their special values: the
    // largest finite sinh/cosh input (the next one, `ovf`, overflows exactly), the ends of
    // asinh's range and the floats next to ±1 for acosh and atanh.
    #[rustfmt::skip]
    let ordinary: &[(&str, F32Fn, f32, f32)] = &[
        ("sinh", hyperbolic::sinh_f32, fin, 3.402_819_6e38),
        ("sinh", hyperbolic::sinh_f32, -fin, -3.402_819_6e38),
        ("cosh", hyperbolic::cosh_f32, fin, 3.402_819_6e38),
        ("cosh", hyperbolic::cosh_f32, -fin, 3.402_819_6e38),
        ("asinh", hyperbolic::asinh_f32, big, (big as f64).asinh() as f32),
        ("asinh", hyperbolic::asinh_f32, -big, -(big as f64).asinh() as f32),
        ("acosh", hyperbolic::acosh_f32, one_p, (one_p as f64).acosh() as f32),
        ("acosh", hyperbolic::acosh_f32, big, (big as f64).acosh() as f32),
        ("atanh", hyperbolic::atanh_f32, one_m, (one_m as f64).atanh() as f32),
        ("atanh", hyperbolic::atanh_f32, -one_m, (-one_m as f64).atanh() as f32),
        ("erf", erf::erf_f32, 1.0, libm::erf(1.0) as f32),
        ("erfc", erf::erfc_f32, 1.0, libm::erfc(1.0) as f32),
        ("erfc", erf::erfc_f32, -1.0, libm::erfc(-1.0) as f32),
        ("gelu", erf::gelu_f32, 1.0, gelu_ref(1.0) as f32),
        ("gelu", erf::gelu_f32, -1.0, gelu_ref(-1.0) as f32),
    ];
    let mut failed = Vec::new();
    for &(name, f, x, want) in cases {
        let got = f(x);
        if !same(got, want) {
            failed.push(format!("{name}({x:e}) = {got:e}, want {want:e}"));
        }
    }
    for &(name, f, x, want) in ordinary {
        let u = ulps(f(x), want as f64);
        if u > MAX_ULP {
            failed.push(format!("{name}({x:e}): {u} ulp off {want:e}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    // And the f64 references agree with the table (so the table is the references' values).
    for &(name, _, x, want) in cases.iter().chain(ordinary) {
        let r = FUNCS.iter().find(|c| c.0 == name).unwrap().2;
        let rx = r(x as f64) as f32;
        assert!(
            same(rx, want),
            "table entry {name}({x:e}): reference {rx:e}"
        );
    }
}

#[test]
fn tensor_ops_use_the_fast_forms() {
    // The f32 ops go through the fastmath functions (bit for bit), contiguous and strided.
    let mut s = 1u64;
    let data: Vec<f32> = (0..4099)
        .map(|i| match i % 3 {
            0 => f32::from_bits(splitmix(&mut s) as u32),
            1 => (splitmix(&mut s) >> 40) as f32 * 1e-4 - 500.0,
            _ => (splitmix(&mut s) >> 40) as f32 * 1e-7,
        })
        .collect();
    let a = Tensor::<f32>::from_vec(data.clone(), &[data.len()]).unwrap();
    let pairs: Vec<f32> = data.iter().flat_map(|&x| [0.0, x]).collect();
    let strided = Tensor::<f32>::from_vec(pairs, &[data.len(), 2])
        .unwrap()
        .t()
        .select(0, 1);
    type Op = fn(&Tensor<f32>) -> Tensor<f32>;
    let ops: [(&str, Op, F32Fn); 25] = [
        ("exp", |t| t.exp(), fastmath::exp_f32),
        ("tanh", |t| t.tanh(), fastmath::tanh_f32),
        ("sigmoid", |t| t.sigmoid(), sigmoid_f32),
        ("silu", |t| t.silu(), silu_f32),
        ("log", |t| t.log(), fastmath::log_f32),
        ("log2", |t| t.log2(), fastmath::log2_f32),
        ("log10", |t| t.log10(), fastmath::log10_f32),
        ("log1p", |t| t.log1p(), fastmath::log1p_f32),
        ("sin", |t| t.sin(), fastmath::sin_f32),
        ("cos", |t| t.cos(), fastmath::cos_f32),
        ("exp2", |t| t.exp2(), fastmath::exp2_f32),
        ("expm1", |t| t.expm1(), fastmath::expm1_f32),
        ("tan", |t| t.tan(), trig::tan_f32),
        ("atan", |t| t.atan(), trig::atan_f32),
        ("asin", |t| t.asin(), trig::asin_f32),
        ("acos", |t| t.acos(), trig::acos_f32),
        ("sinh", |t| t.sinh(), hyperbolic::sinh_f32),
        ("cosh", |t| t.cosh(), hyperbolic::cosh_f32),
        ("asinh", |t| t.asinh(), hyperbolic::asinh_f32),
        ("acosh", |t| t.acosh(), hyperbolic::acosh_f32),
        ("atanh", |t| t.atanh(), hyperbolic::atanh_f32),
        ("erf", |t| t.erf(), erf::erf_f32),
        ("erfc", |t| t.erfc(), erf::erfc_f32),
        ("gelu", |t| t.gelu(GeluApproximate::None), erf::gelu_f32),
        ("mish", |t| t.mish(), fastmath::mish_f32),
    ];
    for (name, op, f) in ops {
        for t in [&a, &strided] {
            let got = op(t).to_vec();
            for (i, (&g, &x)) in got.iter().zip(&data).enumerate() {
                assert!(same(g, f(x)), "{name} element {i}: {g:e} vs {:e}", f(x));
            }
        }
    }
}
