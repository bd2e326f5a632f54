//! Accuracy of the branch-free two-argument f32 math in `functors::fastmath`: `trig::atan2_f32`
//! (y, x), `power::pow_f32` and `power::hypot_f32` (x, y), against the f64 std (libm) result
//! rounded to f32, in ulps (distance in the ordered bit patterns, ±0 both 0, NaN vs NaN 0, NaN
//! vs a number a failure); the same measure as `tests/math_accuracy.rs`.
//!
//! Sampled pairs (`max_ulp_over_sampled_pairs`, over 10^7 per function):
//! * `atan2` (79.7M): every 61st y bit pattern with its `partner` x (x near y's exponent, or
//!   any bit pattern), generated as they are checked; 5M random bit-pattern pairs; every pair
//!   of `atan2_specials`; pairs whose ratio |y/x| sits at and around the range limits
//!   tan(π/8), 1, tan(3π/8);
//! * `pow` (22.1M): 10M random bit-pattern pairs, every pair of `special_list`, x in (0, 4]
//!   with y in [-200, 200], whole-range x with y·log2|x| in [-160, 135] (finite results,
//!   subnormal results, the overflow/underflow edges), and the hard region x = ±(1 ± k ulp),
//!   |y| up to 2^24 (4M each);
//! * `hypot` (19.8M): 10M random bit-pattern pairs, every pair of `special_list`, 8M pairs of
//!   comparable magnitudes (within 2^±30), every pair of the overflow/underflow edges of
//!   x² + y².
//!
//! These are the full sample counts of the tests the functions were developed with (about 3 s
//! on 2 cores in release).
//!
//! Special values bit for bit: the C99 tables of all three (and the f64 references agree with
//! them), every pair of `atan2_specials` against the reference, every pair of `special_list`
//! with a special input or result for pow and hypot, 2 and 1/2 to every integer power; and the
//! f32 tensor ops `atan2`, `pow`, `hypot` are these functions bit for bit.
//!
//! The `#[ignore]`d test runs 2^32 pairs per function, one per bit pattern of the first
//! argument, the second derived from it by a hash (`cargo test --release --test
//! math_accuracy_pairs -- --ignored`, minutes per function on 2 cores;
//! `MATH_ACCURACY_ONLY=pow,atan2` picks functions).

use rayon::prelude::*;
use weft::Tensor;
use weft::functors::fastmath::{power, trig};

/// The bound every function must meet.
const MAX_ULP: u64 = 4;

type F32Fn2 = fn(f32, f32) -> f32;
type F64Fn2 = fn(f64, f64) -> f64;

/// The f64 reference of `atan2_f32(y, x)`.
fn atan2_ref(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// (name, fast f32 function, f64 reference). `atan2` takes (y, x), `pow` and `hypot` (x, y).
const FUNCS2: [(&str, F32Fn2, F64Fn2); 3] = [
    ("atan2", trig::atan2_f32, atan2_ref),
    ("pow", power::pow_f32, f64::powf),
    ("hypot", power::hypot_f32, f64::hypot),
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

/// Bit patterns compared exactly (NaN as any NaN).
fn same(got: f32, want: f32) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// (max ulp, the pair's two arguments in call order).
type Worst = (u64, f32, f32);

fn max_w(a: Worst, b: Worst) -> Worst {
    if b.0 > a.0 { b } else { a }
}

/// Worst case over `pairs` (arguments in call order): (max ulp, a pair that reaches it).
fn worst2(f: F32Fn2, r: F64Fn2, pairs: impl ParallelIterator<Item = (f32, f32)>) -> Worst {
    pairs
        .fold(
            || (0, 0.0, 0.0),
            |w, (a, b)| max_w(w, (ulps(f(a, b), r(a as f64, b as f64)), a, b)),
        )
        .reduce(|| (0, 0.0, 0.0), max_w)
}

/// SplitMix64, for reproducible random bit patterns.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from 53 random bits.
fn unit(s: &mut u64) -> f64 {
    (splitmix(s) >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// The values around `v`: `v` and its `n` neighbours on each side (same sign).
fn around(v: f32, n: u32, out: &mut Vec<f32>) {
    let b = v.to_bits();
    for d in 0..=n {
        out.push(f32::from_bits(b.saturating_add(d)));
        out.push(f32::from_bits(b.saturating_sub(d)));
    }
}

/// Whether `MATH_ACCURACY_ONLY` (a comma-separated list of names; unset: all) selects `name`.
fn only(name: &str) -> bool {
    std::env::var("MATH_ACCURACY_ONLY")
        .ok()
        .is_none_or(|o| o.split(',').any(|n| n == name))
}

// ---- atan2 ----

/// The bit-pattern stride of the sampled atan2 pairs.
const ATAN2_STRIDE: u32 = 61;

/// The x of the pair built from `i`: `i`'s bits moved by up to ±2^27 (exponents within ±16 of
/// y's, so every reduction range is hit densely) with a hashed sign for even `i`, a hashed bit
/// pattern (any exponent) for odd `i`.
fn partner(i: u32) -> f32 {
    let h = splitmix(&mut (i as u64 ^ 0xa7a2));
    let b = if i & 1 == 0 {
        let d = (h as u32 & 0x0fff_ffff) as i32 - 0x0800_0000;
        let m = (i & 0x7fff_ffff) as i32 + d;
        (m.clamp(0, 0x7fff_ffff) as u32) | ((h >> 40) as u32 & 0x8000_0000)
    } else {
        (h >> 32) as u32
    };
    f32::from_bits(b)
}

/// Special and boundary values for the atan2 grid.
fn atan2_specials() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::EPSILON,
        0.5,
        1.0,
        2.0,
        3.0,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
    ];
    v.extend(v.clone().iter().map(|x| -x));
    v
}

/// The sampled (y, x) pairs of the stride: `partner` over every `ATAN2_STRIDE`-th bit pattern
/// (70M pairs, generated as they are checked).
fn atan2_stride_pairs() -> impl IndexedParallelIterator<Item = (f32, f32)> {
    (0..u32::MAX / ATAN2_STRIDE + 1).into_par_iter().map(|k| {
        let i = k * ATAN2_STRIDE;
        (f32::from_bits(i), partner(i))
    })
}

/// The other sampled (y, x) pairs: 5M random pairs, the grid of `atan2_specials`, and pairs
/// whose ratio |y/x| sits at and around the range limits tan(π/8), 1, tan(3π/8).
fn atan2_pairs() -> Vec<(f32, f32)> {
    let mut v = Vec::new();
    let mut s = 0x5eed_u64;
    v.extend((0..5_000_000).map(|_| {
        let b = splitmix(&mut s);
        (f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32))
    }));
    let sp = atan2_specials();
    for &y in &sp {
        for &x in &sp {
            v.push((y, x));
        }
    }
    let mut nb = Vec::new();
    for _ in 0..20_000 {
        let x = f32::from_bits(splitmix(&mut s) as u32 & 0x7fff_ffff);
        for t in [0.414_213_57f32, 1.0, 2.414_213_6] {
            nb.clear();
            around((x as f64 * t as f64) as f32, 8, &mut nb);
            for &y in &nb {
                v.extend([(y, x), (-y, x), (y, -x), (-y, -x)]);
            }
        }
    }
    // (A filter that keeps every pair: the f64 atan2 of numbers is finite.)
    v.retain(|&(y, x)| (y as f64).atan2(x as f64).is_finite() || y.is_nan() || x.is_nan());
    v
}

// ---- pow, hypot ----

/// The special/boundary list whose every pair is checked: ±0, ±subnormal limits, ±min normal,
/// ±1 (and its 8 neighbours), ±inf, NaN, ±0.5, ±2, ±3, ±f32::MAX, integers and half-integers,
/// the odd/even/integer edges of y (2^23, 2^24), and the overflow/underflow edges of 2^y.
fn special_list() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        1.0,
        f32::INFINITY,
        0.5,
        2.0,
        3.0,
        f32::MAX,
        f32::EPSILON,
        8_388_608.0,
        16_777_216.0,
        1e10,
        128.0,
        126.0,
        149.0,
        150.0,
    ];
    for k in 0..=20 {
        v.push(k as f32 * 0.5);
    }
    let mut out = vec![f32::NAN];
    for &x in &v {
        around(x, 0, &mut out);
        around(-x, 0, &mut out);
    }
    for x in [1.0f32, 8_388_608.0, 16_777_216.0, 128.0, 149.0, 150.0] {
        around(x, 8, &mut out);
        around(-x, 8, &mut out);
    }
    out.sort_by_key(|x| x.to_bits());
    out.dedup_by_key(|x| x.to_bits());
    out
}

/// `pow`'s interesting pairs: y chosen so that `y·log2|x|` is uniform in [-160, 135] (finite
/// results across the whole range, subnormal results, the overflow/underflow edges), x any
/// finite bit pattern.
fn pow_interesting(xb: u32, s: &mut u64) -> (f32, f32) {
    let x = f32::from_bits(xb);
    let l = (f64::from(x)).abs().log2();
    let t = -160.0 + 295.0 * unit(s);
    let y = if l.is_finite() && l != 0.0 {
        (t / l) as f32
    } else {
        t as f32
    };
    (x, y)
}

/// The sampled (x, y) pairs of `pow` or `hypot` (22M and 19.8M).
fn power_pairs(name: &str) -> Vec<(f32, f32)> {
    let mut s = 0x5eed_u64;
    let mut v = Vec::new();
    // Random bit patterns.
    for _ in 0..10_000_000 {
        let b = splitmix(&mut s);
        v.push((f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32)));
    }
    // Every pair of the special list.
    let sp = special_list();
    for &x in &sp {
        for &y in &sp {
            v.push((x, y));
        }
    }
    if name == "pow" {
        // x in (0, 4], y in [-200, 200].
        for _ in 0..4_000_000 {
            let x = (4.0 - 4.0 * unit(&mut s)) as f32;
            let y = (400.0 * unit(&mut s) - 200.0) as f32;
            v.push((x, y));
        }
        // Whole-range x with finite results.
        for _ in 0..4_000_000 {
            let xb = splitmix(&mut s) as u32 & 0x7fff_ffff;
            v.push(pow_interesting(xb, &mut s));
        }
        // The hard region: x = ±(1 ± k ulp), |y| up to 2^24 (integers too, odd and even, for
        // the negative bases), y·log2|x| kept mostly in the finite range.
        for _ in 0..4_000_000 {
            let r = splitmix(&mut s);
            let k = 1 + (r & 0xfff) as u32;
            let xb = if r >> 12 & 1 == 0 {
                0x3f80_0000 + k
            } else {
                0x3f80_0000 - k
            };
            let x = f32::from_bits(xb | ((r >> 13 & 1) as u32) << 31);
            let e = 24.0 * unit(&mut s);
            let mut y = (2f64.powf(e) * if r >> 14 & 1 == 0 { 1.0 } else { -1.0 }) as f32;
            if r >> 15 & 1 == 0 {
                y = y.round();
            }
            v.push((x, y));
        }
    } else {
        // Comparable magnitudes (the cancellation-free but rounding-sensitive region), and the
        // overflow/underflow edges of x² + y².
        for _ in 0..8_000_000 {
            let b = splitmix(&mut s);
            let x = f32::from_bits(b as u32);
            let ratio = 2f64.powf(60.0 * unit(&mut s) - 30.0);
            let y = (f64::from(x) * ratio) as f32;
            v.push((x, if b >> 40 & 1 == 0 { y } else { -y }));
        }
        let mut edges = Vec::new();
        for x in [
            f32::MAX,
            1.8e19,
            1e-19,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
        ] {
            around(x, 64, &mut edges);
            around(-x, 64, &mut edges);
        }
        for &x in &edges {
            for &y in &edges {
                v.push((x, y));
            }
        }
    }
    v
}

#[test]
fn max_ulp_over_sampled_pairs() {
    let mut failed = Vec::new();
    for (name, f, r) in FUNCS2 {
        let t = std::time::Instant::now();
        let (p, w, n) = if name == "atan2" {
            let strided = atan2_stride_pairs();
            let n = strided.len();
            (atan2_pairs(), worst2(f, r, strided), n)
        } else {
            (power_pairs(name), (0, 0.0, 0.0), 0)
        };
        let n = n + p.len();
        assert!(n >= 10_000_000, "{name}: {n} pairs");
        let (u, a, b) = max_w(w, worst2(f, r, p.par_iter().copied()));
        println!(
            "{name:>6}: max {u} ulp over {n} pairs (at ({a:e} ({:#010x}), {b:e} ({:#010x}))), {:.1?}",
            a.to_bits(),
            b.to_bits(),
            t.elapsed()
        );
        if u > MAX_ULP {
            failed.push(format!(
                "{name}: {u} ulp at ({a:e}, {b:e}): got {:e}, want {:e}",
                f(a, b),
                r(a as f64, b as f64) as f32
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The pair of the exhaustive test for the first argument's bit pattern `b`. atan2: y = `b`,
/// x = `partner(b)`. pow: x = `b`, y from a hash of `b`: 1/2 with y·log2|x| uniform in
/// [-160, 135], 1/4 integers in [-40, 40], 1/4 random bits. hypot: x = `b`, y 3/4 within
/// 2^±30 of x, 1/4 random bits.
fn exhaustive_pair(name: &str, b: u32) -> (f32, f32) {
    if name == "atan2" {
        return (f32::from_bits(b), partner(b));
    }
    let mut s = b as u64 ^ 0xabcd_0000_0000;
    let h = splitmix(&mut s);
    let x = f32::from_bits(b);
    let y = match (name == "pow", h & 3) {
        (_, 3) => f32::from_bits((h >> 32) as u32),
        (true, 2) => ((h >> 32) % 81) as f32 - 40.0,
        (true, _) => pow_interesting(b, &mut s).1,
        (false, _) => {
            let ratio = 2f64.powf(60.0 * unit(&mut s) - 30.0);
            (f64::from(x) * ratio) as f32
        }
    };
    (x, y)
}

#[test]
#[ignore = "2^32 pairs per function: minutes"]
fn max_ulp_exhaustive_pairs() {
    let mut failed = Vec::new();
    for (name, f, r) in FUNCS2 {
        if !only(name) {
            continue;
        }
        let t = std::time::Instant::now();
        let all = (0..=u32::MAX)
            .into_par_iter()
            .map(|i| exhaustive_pair(name, i));
        let (u, a, b) = worst2(f, r, all);
        println!(
            "{name:>6}: max {u} ulp over 2^32 pairs (at ({a:e} ({:#010x}), {b:e} ({:#010x}))), {:.1?}",
            a.to_bits(),
            b.to_bits(),
            t.elapsed()
        );
        if u > MAX_ULP {
            failed.push(format!("{name}: {u} ulp at ({a:e}, {b:e})"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn atan2_specials_grid_exact() {
    // Every pair of `atan2_specials` against the reference, bit for bit.
    let sp = atan2_specials();
    for &y in &sp {
        for &x in &sp {
            let (got, want) = (trig::atan2_f32(y, x), atan2_ref(y as f64, x as f64) as f32);
            assert!(
                same(got, want),
                "atan2({y:e}, {x:e}) = {got:e}, want {want:e}"
            );
        }
    }
}

/// Every pair of the special list whose result is special (0, ±inf, NaN, or an input that is
/// ±0, ±1, ±inf or NaN) is bit-exact, sign of zero included (every other pair is in the
/// sampled pairs, within `MAX_ULP`).
#[test]
fn special_pairs_exact() {
    let sp = special_list();
    let special_in = |v: f32| v == 0.0 || v.abs() == 1.0 || v.is_infinite() || v.is_nan();
    let mut n = 0;
    for (name, f, r) in FUNCS2 {
        if name == "atan2" {
            continue; // `atan2_specials_grid_exact`
        }
        for &x in &sp {
            for &y in &sp {
                let got = f(x, y);
                let want = r(x as f64, y as f64) as f32;
                if special_in(x) || special_in(y) || want == 0.0 || !want.is_finite() {
                    assert!(
                        same(got, want),
                        "{name}({x:e}, {y:e}) = {got:e}, want {want:e}"
                    );
                    n += 1;
                }
            }
        }
    }
    println!("{n} special pairs exact");
}

#[test]
fn c99_special_cases() {
    use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let sub = f32::from_bits(1);
    let atan2: F32Fn2 = trig::atan2_f32;
    let pow: F32Fn2 = power::pow_f32;
    let hypot: F32Fn2 = power::hypot_f32;
    // atan2 rows are (y, x), pow and hypot rows (x, y).
    #[rustfmt::skip]
    let cases: &[(&str, F32Fn2, f32, f32, f32)] = &[
        ("atan2", atan2, 0.0, 0.0, 0.0), ("atan2", atan2, -0.0, 0.0, -0.0),
        ("atan2", atan2, 0.0, -0.0, PI), ("atan2", atan2, -0.0, -0.0, -PI),
        ("atan2", atan2, 0.0, 3.0, 0.0), ("atan2", atan2, -0.0, 3.0, -0.0),
        ("atan2", atan2, 0.0, -3.0, PI), ("atan2", atan2, -0.0, -3.0, -PI),
        ("atan2", atan2, 0.0, sub, 0.0), ("atan2", atan2, 0.0, -sub, PI),
        ("atan2", atan2, sub, 0.0, FRAC_PI_2), ("atan2", atan2, -sub, -0.0, -FRAC_PI_2),
        ("atan2", atan2, 3.0, 0.0, FRAC_PI_2), ("atan2", atan2, 3.0, -0.0, FRAC_PI_2),
        ("atan2", atan2, -3.0, 0.0, -FRAC_PI_2), ("atan2", atan2, -3.0, -0.0, -FRAC_PI_2),
        ("atan2", atan2, 3.0, inf, 0.0), ("atan2", atan2, -3.0, inf, -0.0),
        ("atan2", atan2, 3.0, -inf, PI), ("atan2", atan2, -3.0, -inf, -PI),
        ("atan2", atan2, 0.0, inf, 0.0), ("atan2", atan2, -0.0, -inf, -PI),
        ("atan2", atan2, inf, 3.0, FRAC_PI_2), ("atan2", atan2, -inf, 3.0, -FRAC_PI_2),
        ("atan2", atan2, inf, -3.0, FRAC_PI_2), ("atan2", atan2, -inf, 0.0, -FRAC_PI_2),
        ("atan2", atan2, inf, inf, FRAC_PI_4), ("atan2", atan2, -inf, inf, -FRAC_PI_4),
        ("atan2", atan2, inf, -inf, 3.0 * FRAC_PI_4),
        ("atan2", atan2, -inf, -inf, -3.0 * FRAC_PI_4),
        ("atan2", atan2, nan, 1.0, nan), ("atan2", atan2, 1.0, nan, nan),
        ("atan2", atan2, nan, nan, nan), ("atan2", atan2, nan, inf, nan),
        ("atan2", atan2, inf, nan, nan), ("atan2", atan2, nan, 0.0, nan),
        ("atan2", atan2, 0.0, nan, nan),
        ("atan2", atan2, 1.0, 1.0, FRAC_PI_4), ("atan2", atan2, -1.0, -1.0, -3.0 * FRAC_PI_4),
        ("atan2", atan2, f32::MAX, sub, FRAC_PI_2), ("atan2", atan2, sub, f32::MAX, 0.0),
        ("atan2", atan2, -sub, -f32::MAX, -PI),
        ("pow", pow, nan, 0.0, 1.0),
        ("pow", pow, nan, -0.0, 1.0),
        ("pow", pow, 1.0, nan, 1.0),
        ("pow", pow, 1.0, inf, 1.0),
        ("pow", pow, -1.0, inf, 1.0),
        ("pow", pow, -1.0, -inf, 1.0),
        ("pow", pow, -1.0, nan, nan),
        ("pow", pow, nan, 1.0, nan),
        ("pow", pow, 2.0, nan, nan),
        ("pow", pow, -2.0, 0.5, nan),
        ("pow", pow, -sub, 1.5, nan),
        ("pow", pow, -2.0, 3.0, -8.0),
        ("pow", pow, -2.0, 2.0, 4.0),
        ("pow", pow, -2.0, -1.0, -0.5),
        ("pow", pow, -0.0, -3.0, -inf),
        ("pow", pow, -0.0, -2.0, inf),
        ("pow", pow, -0.0, -0.5, inf),
        ("pow", pow, 0.0, -3.0, inf),
        ("pow", pow, -0.0, 3.0, -0.0),
        ("pow", pow, -0.0, 2.0, 0.0),
        ("pow", pow, -0.0, 0.5, 0.0),
        ("pow", pow, 0.0, -inf, inf),
        ("pow", pow, -0.0, -inf, inf),
        ("pow", pow, 0.0, inf, 0.0),
        ("pow", pow, -inf, 3.0, -inf),
        ("pow", pow, -inf, 2.0, inf),
        ("pow", pow, -inf, 0.5, inf),
        ("pow", pow, -inf, -3.0, -0.0),
        ("pow", pow, -inf, -2.0, 0.0),
        ("pow", pow, inf, -0.5, 0.0),
        ("pow", pow, inf, 0.5, inf),
        ("pow", pow, 0.5, -inf, inf),
        ("pow", pow, -0.5, -inf, inf),
        ("pow", pow, 0.5, inf, 0.0),
        ("pow", pow, 2.0, inf, inf),
        ("pow", pow, -2.0, inf, inf),
        ("pow", pow, 2.0, -inf, 0.0),
        ("pow", pow, -2.0, -inf, 0.0),
        ("pow", pow, 2.0, 128.0, inf),
        ("pow", pow, 2.0, 127.0, 2f32.powi(127)),
        ("pow", pow, 2.0, -149.0, sub),
        ("pow", pow, 2.0, -150.0, 0.0),
        ("pow", pow, -2.0, -149.0, -sub),
        ("pow", pow, -2.0, 127.0, -(2f32.powi(127))),
        ("pow", pow, -2.0, 129.0, -inf),
        ("pow", pow, -2.0, -151.0, -0.0),
        ("pow", pow, -1.0, 16_777_215.0, -1.0),
        ("pow", pow, -1.0, 16_777_216.0, 1.0),
        ("pow", pow, -1.0, 8_388_609.0, -1.0),
        ("pow", pow, -1.0, 1e30, 1.0),
        ("pow", pow, sub, 0.5, f32::from_bits(0x1a35_04f3)),
        ("pow", pow, f32::MAX, 1.0, f32::MAX),
        ("pow", pow, f32::MAX, -1.0, (1.0 / f64::from(f32::MAX)) as f32),
        ("hypot", hypot, inf, nan, inf),
        ("hypot", hypot, nan, -inf, inf),
        ("hypot", hypot, -inf, 1.0, inf),
        ("hypot", hypot, nan, 1.0, nan),
        ("hypot", hypot, 0.0, nan, nan),
        ("hypot", hypot, -0.0, -0.0, 0.0),
        ("hypot", hypot, -3.0, 4.0, 5.0),
        ("hypot", hypot, f32::MAX, f32::MAX, inf),
        ("hypot", hypot, f32::MAX, 1.0, f32::MAX),
        ("hypot", hypot, sub, -sub, sub),
        ("hypot", hypot, 3.0 * sub, 4.0 * sub, 5.0 * sub),
        ("hypot", hypot, 1e-30, 1.0, 1.0),
    ];
    for &(name, f, a, b, want) in cases {
        let got = f(a, b);
        assert!(
            same(got, want),
            "{name}({a:e}, {b:e}) = {got:e}, want {want:e}"
        );
        // And the f64 reference agrees with the table.
        let r = FUNCS2.iter().find(|c| c.0 == name).unwrap().2;
        let ra = r(a as f64, b as f64) as f32;
        assert!(
            same(ra, want),
            "table entry {name}({a:e}, {b:e}): reference {ra:e}"
        );
    }
    // pow of 2 and 1/2 to every integer power whose result is a nonzero f32, exactly.
    for k in -149..=127 {
        let want = (2f64).powi(k) as f32;
        assert!(same(power::pow_f32(2.0, k as f32), want), "2^{k}");
        assert!(same(power::pow_f32(0.5, -k as f32), want), "0.5^-{k}");
    }
}

#[test]
fn tensor_ops_use_the_fast_forms() {
    // The f32 tensor-tensor ops go through the fastmath functions (bit for bit), contiguous
    // and strided.
    let mut s = 2u64;
    let n = 4099;
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (x, y) = match i % 5 {
            // Any bit patterns.
            0 => (
                f32::from_bits(splitmix(&mut s) as u32),
                f32::from_bits(splitmix(&mut s) as u32),
            ),
            // Moderate values of both signs.
            1 => (
                (splitmix(&mut s) >> 40) as f32 * 1e-4 - 500.0,
                (splitmix(&mut s) >> 40) as f32 * 1e-4 - 500.0,
            ),
            // pow's (0, 4] × [-50, 50].
            2 => (
                (4.0 - 4.0 * unit(&mut s)) as f32,
                (100.0 * unit(&mut s) - 50.0) as f32,
            ),
            // Negative bases, integer exponents.
            3 => (
                (-4.0 * unit(&mut s)) as f32,
                ((splitmix(&mut s) >> 32) % 81) as f32 - 40.0,
            ),
            // Small values, and the special values.
            _ => {
                let sp = [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    f32::INFINITY,
                    -f32::INFINITY,
                    f32::NAN,
                ];
                let r = splitmix(&mut s);
                let pick = |k: u64| sp[(k % sp.len() as u64) as usize];
                if r & 1 == 0 {
                    (pick(r >> 8), pick(r >> 16))
                } else {
                    (
                        (splitmix(&mut s) >> 40) as f32 * 1e-7,
                        (splitmix(&mut s) >> 40) as f32 * -1e-7,
                    )
                }
            }
        };
        xs.push(x);
        ys.push(y);
    }
    let contiguous = |d: &[f32]| Tensor::<f32>::from_vec(d.to_vec(), &[d.len()]).unwrap();
    let strided = |d: &[f32]| {
        let pairs: Vec<f32> = d.iter().flat_map(|&x| [0.0, x]).collect();
        Tensor::<f32>::from_vec(pairs, &[d.len(), 2])
            .unwrap()
            .t()
            .select(0, 1)
    };
    type Op = fn(&Tensor<f32>, &Tensor<f32>) -> Tensor<f32>;
    let ops: [(&str, Op, F32Fn2); 3] = [
        ("atan2", |a, b| a.atan2(b), trig::atan2_f32),
        ("pow", |a, b| a.pow(b), power::pow_f32),
        ("hypot", |a, b| a.hypot(b), power::hypot_f32),
    ];
    for (name, op, f) in ops {
        for (a, b) in [
            (contiguous(&xs), contiguous(&ys)),
            (strided(&xs), strided(&ys)),
            (contiguous(&xs), strided(&ys)),
        ] {
            let got = op(&a, &b).to_vec();
            assert_eq!(got.len(), n);
            for (i, ((&g, &x), &y)) in got.iter().zip(&xs).zip(&ys).enumerate() {
                let want = f(x, y);
                assert!(
                    same(g, want),
                    "{name} element {i} ({x:e}, {y:e}): {g:e} vs {want:e}"
                );
            }
        }
    }
}
