//! Accuracy of the branch-free f32 math in `functors::fastmath` over the whole f32 domain: every
//! function against the f64 std (libm) result rounded to f32, in ulps (distance in the ordered
//! bit patterns, so subnormals count their own ulps). 10^7 inputs per function: a bit-pattern
//! stride that covers every exponent and sign, random bit patterns from a fixed seed, and the
//! boundary values of each function; plus the special values, exactly. The `#[ignore]`d test
//! runs all 2^32 inputs per function (`cargo test --release --test math_accuracy -- --ignored`,
//! 1-3 minutes per function on 2 cores; `MATH_ACCURACY_ONLY=sin,cos` picks functions).

use rayon::prelude::*;
use weft::Tensor;
use weft::functors::fastmath;

/// The bound every function must meet.
const MAX_ULP: u64 = 4;

type F32Fn = fn(f32) -> f32;
type F64Fn = fn(f64) -> f64;

/// (name, fast f32 function, f64 reference).
const FUNCS: [(&str, F32Fn, F64Fn); 8] = [
    ("log", fastmath::log_f32, f64::ln),
    ("log2", fastmath::log2_f32, f64::log2),
    ("log10", fastmath::log10_f32, f64::log10),
    ("log1p", fastmath::log1p_f32, f64::ln_1p),
    ("sin", fastmath::sin_f32, f64::sin),
    ("cos", fastmath::cos_f32, f64::cos),
    ("exp2", fastmath::exp2_f32, f64::exp2),
    ("expm1", fastmath::expm1_f32, f64::exp_m1),
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

/// Boundary values of the functions: signed zeros, subnormal and normal limits, powers of 2
/// and 10, the neighbourhoods of 1 (logs), -1 and the `|x| < 2^-24` cut (log1p), √2 and √½
/// (the log reduction), and the floats nearest to multiples of π/2 (sin/cos reduction).
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
    // Nearest floats to k·π/2, and their neighbours.
    for k in 1..200_000u32 {
        let x = (k as f64 * core::f64::consts::FRAC_PI_2) as f32;
        around(x, 2, &mut out);
        around(-x, 2, &mut out);
    }
    out.retain(|x| !x.is_nan());
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
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let sub = f32::from_bits(1);
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
    ];
    for &(name, f, x, want) in cases {
        let got = f(x);
        assert!(same(got, want), "{name}({x:e}) = {got:e}, want {want:e}");
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
    let ops: [(&str, Op, F32Fn); 8] = [
        ("log", |t| t.log(), fastmath::log_f32),
        ("log2", |t| t.log2(), fastmath::log2_f32),
        ("log10", |t| t.log10(), fastmath::log10_f32),
        ("log1p", |t| t.log1p(), fastmath::log1p_f32),
        ("sin", |t| t.sin(), fastmath::sin_f32),
        ("cos", |t| t.cos(), fastmath::cos_f32),
        ("exp2", |t| t.exp2(), fastmath::exp2_f32),
        ("expm1", |t| t.expm1(), fastmath::expm1_f32),
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
