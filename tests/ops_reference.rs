//! The ops that `ops.json` does not cover, through the `DynTensor` API on every dtype they
//! support, against f64 reference math with the golden README's tolerances (2 ulps f16/bf16,
//! 4 ulps f32/f64, plus the smallest normal), PyTorch's documented edge behaviour, and the
//! dtypes PyTorch refuses.

use weft::functors::{BinaryOp, UnaryOp};
use weft::ops::{Operand, binary::binary, unary::unary};
use weft::{DType, DynTensor, Error, Scalar, Value, convert_value, with_dtype};

const FLOATS: [DType; 4] = [DType::F16, DType::BF16, DType::F32, DType::F64];
const INTS: [DType; 5] = [DType::U8, DType::I8, DType::I16, DType::I32, DType::I64];

/// A 1-d tensor of `d` holding `xs` (converted as `to(d)` does).
fn tensor(d: DType, xs: &[f64]) -> DynTensor {
    with_dtype!(d, T => DynTensor::from_vec(
        xs.iter().map(|&x| convert_value::<f64, T>(x)).collect::<Vec<T>>(), &[xs.len()]).unwrap())
}

fn f64_of(v: Value) -> f64 {
    v.to_f64()
}

fn values(t: &DynTensor) -> Vec<f64> {
    t.to_values().into_iter().map(f64_of).collect()
}

/// (precision bits, min exponent, ulps) of a float dtype.
fn fmt(d: DType) -> (i32, i32, f64) {
    match d {
        DType::F16 => (11, -14, 2.0),
        DType::BF16 => (8, -126, 2.0),
        DType::F32 => (24, -126, 4.0),
        _ => (53, -1022, 4.0),
    }
}

/// |got - want| within the README's tolerance for dtype `d` (NaN iff NaN, infinities exact).
/// `scale` widens the ulp base for ops whose error is relative to an input (lerp, addcmul).
fn close(got: f64, want: f64, d: DType, scale: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    // The reference rounded to the dtype: an overflow there is an infinity here.
    let rounded =
        with_dtype!(d, T => f64_of(weft::Element::to_value(convert_value::<f64, T>(want))));
    if rounded.is_infinite() || want.is_infinite() {
        return got == rounded || got == want;
    }
    let (p, emin, ulps) = fmt(d);
    let base = want.abs().max(scale);
    let e = if base == 0.0 {
        emin
    } else {
        (base.log2().floor() as i32).max(emin)
    };
    let ulp = 2f64.powi(e - (p - 1));
    let floor = 2f64.powi(emin);
    (got - want).abs() <= ulps * ulp + floor
}

/// Inputs for a float dtype: a grid over [-lo, hi] plus the edge values, all rounded to `d`.
fn grid(d: DType, lo: f64, hi: f64) -> Vec<f64> {
    let mut xs: Vec<f64> = (0..=200)
        .map(|i| lo + (hi - lo) * i as f64 / 200.0)
        .collect();
    xs.extend([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-3, -1e-3, 1e-6]);
    with_dtype!(d, T => xs.iter().map(|&x| f64_of(weft::Element::to_value(convert_value::<f64, T>(x)))).collect())
}

fn unary_ref(op: UnaryOp) -> (fn(f64) -> f64, f64, f64) {
    use UnaryOp as U;
    match op {
        U::Expm1 => (f64::exp_m1, -10.0, 10.0),
        U::Log1p => (f64::ln_1p, -0.999, 100.0),
        U::Log2 => (f64::log2, 1e-3, 1e4),
        U::Log10 => (f64::log10, 1e-3, 1e4),
        U::Reciprocal => (|x| 1.0 / x, -100.0, 100.0),
        U::Square => (|x| x * x, -200.0, 200.0),
        U::Tan => (f64::tan, -1.5, 1.5),
        U::Asin => (f64::asin, -1.0, 1.0),
        U::Acos => (f64::acos, -1.0, 1.0),
        U::Atan => (f64::atan, -50.0, 50.0),
        U::Sinh => (f64::sinh, -10.0, 10.0),
        U::Cosh => (f64::cosh, -10.0, 10.0),
        U::Silu => (|x| x / (1.0 + (-x).exp()), -30.0, 30.0),
        U::Softplus => (|x| if x > 20.0 { x } else { x.exp().ln_1p() }, -30.0, 30.0),
        U::Erf => (erf, -5.0, 5.0),
        U::Floor => (f64::floor, -10.0, 10.0),
        U::Ceil => (f64::ceil, -10.0, 10.0),
        U::Round => (f64::round_ties_even, -10.0, 10.0),
        U::Trunc => (f64::trunc, -10.0, 10.0),
        U::Frac => (|x| x - x.trunc(), -10.0, 10.0),
        _ => unreachable!(),
    }
}

/// erf in f64 from its all-positive series, erf(x) = 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1) /
/// (1*3*...*(2n+1)): no cancellation, so accurate to a few ulps for |x| <= 6.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a > 6.0 {
        return x.signum();
    }
    if a >= 2.5 {
        // erfc continued fraction (modified Lentz), fast for a >= 2.5; erf = 1 - erfc.
        let tiny = 1e-300;
        let (mut f, mut c, mut dd) = (a, a, 0.0);
        for k in 1..300 {
            let ak = k as f64 / 2.0;
            dd = a + ak * dd;
            dd = if dd == 0.0 { tiny } else { 1.0 / dd };
            c = a + ak / c;
            if c == 0.0 {
                c = tiny;
            }
            let delta = c * dd;
            f *= delta;
            if (delta - 1.0).abs() < 1e-17 {
                break;
            }
        }
        let r = 1.0 - (-a * a).exp() / f / std::f64::consts::PI.sqrt();
        return if x < 0.0 { -r } else { r };
    }
    let (mut term, mut sum, mut n) = (a, a, 0.0);
    while term > 1e-18 * sum {
        n += 1.0;
        term *= 2.0 * a * a / (2.0 * n + 1.0);
        sum += term;
    }
    let r = 2.0 / std::f64::consts::PI.sqrt() * (-a * a).exp() * sum;
    if x < 0.0 { -r } else { r }
}

const EXACT: [UnaryOp; 7] = [
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::Round,
    UnaryOp::Trunc,
    UnaryOp::Frac,
    UnaryOp::Reciprocal,
    UnaryOp::Square,
];

#[test]
fn unary_float_ops_match_f64_math() {
    use UnaryOp as U;
    let ops = [
        U::Expm1,
        U::Log1p,
        U::Log2,
        U::Log10,
        U::Reciprocal,
        U::Square,
        U::Tan,
        U::Asin,
        U::Acos,
        U::Atan,
        U::Sinh,
        U::Cosh,
        U::Silu,
        U::Softplus,
        U::Erf,
        U::Floor,
        U::Ceil,
        U::Round,
        U::Trunc,
        U::Frac,
    ];
    let mut n = 0;
    for op in ops {
        let (f, lo, hi) = unary_ref(op);
        for d in FLOATS {
            let xs = grid(d, lo, hi);
            let r = unary(op, &tensor(d, &xs), None).unwrap();
            assert_eq!(r.dtype(), d, "{} keeps {d}", op.name());
            for (&x, g) in xs.iter().zip(values(&r)) {
                let want = f(x);
                let ok = if EXACT.contains(&op) {
                    let w = with_dtype!(d, T => f64_of(weft::Element::to_value(convert_value::<f64, T>(want))));
                    g == w || (g.is_nan() && w.is_nan())
                } else if op == U::Erf && d == DType::F64 {
                    // The series reference above is itself only good to ~1e-15.
                    (g - want).abs() <= 2e-15
                } else if op == U::Erf && d.is_reduced_float() {
                    // PyTorch's vectorized f16/bf16 erf (Abramowitz & Stegun 7.1.26, |error|
                    // < 1.5e-7 absolute, then rounded): 0 for tiny |x| instead of 2x/sqrt(pi).
                    (g - want).abs() <= 2.5e-7 || close(g, want, d, 0.0)
                } else {
                    close(g, want, d, 0.0)
                };
                assert!(ok, "{}({x}) {d}: got {g}, want {want}", op.name());
                n += 1;
            }
        }
        // Integer and bool inputs: float math ops compute in f32; rounding ops keep the dtype;
        // silu/softplus/frac refuse.
        for d in INTS.iter().copied().chain([DType::Bool]) {
            let xs: Vec<f64> = if d == DType::Bool {
                vec![0.0, 1.0]
            } else {
                vec![0.0, 1.0, 2.0, 7.0, 100.0]
            };
            let r = unary(op, &tensor(d, &xs), None);
            match op {
                U::Silu | U::Softplus | U::Frac => {
                    assert!(
                        matches!(r, Err(Error::UnsupportedDType { .. })),
                        "{} {d}",
                        op.name()
                    );
                }
                U::Floor | U::Ceil | U::Round | U::Trunc if d == DType::Bool => {
                    assert!(r.is_err(), "{} bool", op.name());
                }
                U::Floor | U::Ceil | U::Round | U::Trunc => {
                    let r = r.unwrap();
                    assert_eq!(r.dtype(), d);
                    assert_eq!(values(&r), xs);
                }
                U::Square => {
                    let r = r.unwrap();
                    let want_d = if d == DType::Bool { DType::I64 } else { d };
                    assert_eq!(r.dtype(), want_d, "square {d}");
                    let want: Vec<f64> = xs.iter().map(|&x| {
                        with_dtype!(want_d, T => f64_of(weft::Element::to_value(convert_value::<i64, T>((x * x) as i64))))
                    }).collect();
                    assert_eq!(values(&r), want, "square {d}");
                }
                _ => {
                    let r = r.unwrap();
                    assert_eq!(r.dtype(), DType::F32, "{} {d}", op.name());
                    for (&x, g) in xs.iter().zip(values(&r)) {
                        assert!(
                            close(g, f(x), DType::F32, 0.0),
                            "{}({x}) {d}: got {g}",
                            op.name()
                        );
                    }
                }
            }
        }
    }
    println!("unary reference: {n} float elements");
}

fn un(op: UnaryOp, d: DType, x: f64) -> f64 {
    values(&unary(op, &tensor(d, &[x]), None).unwrap())[0]
}

fn is_neg_zero(x: f64) -> bool {
    x == 0.0 && x.is_sign_negative()
}

#[test]
fn unary_edge_values() {
    use UnaryOp as U;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for d in FLOATS {
        // NaN in, NaN out for every float math op.
        for op in [
            U::Expm1,
            U::Log1p,
            U::Log2,
            U::Log10,
            U::Reciprocal,
            U::Square,
            U::Tan,
            U::Asin,
            U::Acos,
            U::Atan,
            U::Sinh,
            U::Cosh,
            U::Silu,
            U::Softplus,
            U::Erf,
            U::Floor,
            U::Ceil,
            U::Round,
            U::Trunc,
            U::Frac,
        ] {
            assert!(un(op, d, nan).is_nan(), "{}(nan) {d}", op.name());
        }
        // Signed zeros kept by odd functions and the rounding ops.
        for op in [
            U::Expm1,
            U::Log1p,
            U::Tan,
            U::Asin,
            U::Atan,
            U::Sinh,
            U::Erf,
            U::Floor,
            U::Ceil,
            U::Round,
            U::Trunc,
        ] {
            assert!(is_neg_zero(un(op, d, -0.0)), "{}(-0.0) {d}", op.name());
        }
        assert_eq!(un(U::Reciprocal, d, 0.0), inf);
        assert_eq!(un(U::Reciprocal, d, -0.0), -inf);
        assert!(is_neg_zero(un(U::Reciprocal, d, -inf)));
        assert_eq!(un(U::Square, d, -inf), inf);
        assert_eq!(un(U::Log1p, d, -1.0), -inf);
        assert!(un(U::Log1p, d, -2.0).is_nan());
        assert_eq!(un(U::Log2, d, 0.0), -inf);
        assert_eq!(un(U::Log10, d, -0.0), -inf);
        assert!(un(U::Log10, d, -1.0).is_nan());
        assert_eq!(un(U::Log2, d, inf), inf);
        assert_eq!(un(U::Expm1, d, -inf), -1.0);
        assert_eq!(un(U::Expm1, d, inf), inf);
        assert!(un(U::Asin, d, 2.0).is_nan());
        assert!(un(U::Acos, d, -1.5).is_nan());
        assert_eq!(un(U::Acos, d, 1.0), 0.0);
        assert!(close(
            un(U::Atan, d, -inf),
            -std::f64::consts::FRAC_PI_2,
            d,
            0.0
        ));
        assert_eq!(un(U::Sinh, d, -inf), -inf);
        assert_eq!(un(U::Cosh, d, -inf), inf);
        assert!(un(U::Tan, d, inf).is_nan());
        assert_eq!(un(U::Erf, d, inf), 1.0);
        assert_eq!(un(U::Erf, d, -inf), -1.0);
        assert_eq!(un(U::Softplus, d, -inf), 0.0);
        assert_eq!(un(U::Softplus, d, inf), inf);
        assert_eq!(un(U::Silu, d, inf), inf);
        // Round: half to even.
        for (x, r) in [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-2.5, -2.0),
            (-3.5, -4.0),
        ] {
            assert_eq!(un(U::Round, d, x), r, "round({x}) {d}");
        }
        assert!(is_neg_zero(un(U::Round, d, -0.5)), "round(-0.5) {d}");
        for op in [U::Floor, U::Ceil, U::Round, U::Trunc] {
            assert_eq!(un(op, d, -inf), -inf);
        }
        // frac keeps the sign: frac(-1.5) = -0.5; frac(inf) = NaN.
        assert_eq!(un(U::Frac, d, -1.5), -0.5);
        assert!(un(U::Frac, d, inf).is_nan());
    }
    // softplus: beta 1, threshold 20 gives x itself above 20 (f64 shows it).
    assert_eq!(un(U::Softplus, DType::F64, 20.5), 20.5);
}

#[test]
fn predicates_and_bitwise_not() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for d in FLOATS {
        let t = tensor(d, &[0.0, -0.0, 1.5, inf, -inf, nan]);
        let v = |op| unary(op, &t, None).unwrap().to_values();
        let b = |xs: [bool; 6]| xs.map(Value::Bool).to_vec();
        assert_eq!(
            v(UnaryOp::IsNan),
            b([false, false, false, false, false, true])
        );
        assert_eq!(
            v(UnaryOp::IsInf),
            b([false, false, false, true, true, false])
        );
        assert_eq!(
            v(UnaryOp::IsFinite),
            b([true, true, true, false, false, false])
        );
        assert!(matches!(
            t.try_bitwise_not(),
            Err(Error::UnsupportedDType { .. })
        ));
    }
    for d in INTS.iter().copied().chain([DType::Bool]) {
        let t = tensor(d, &[0.0, 1.0]);
        assert_eq!(t.isnan().to_values(), [Value::Bool(false); 2]);
        assert_eq!(t.isinf().to_values(), [Value::Bool(false); 2]);
        assert_eq!(t.isfinite().to_values(), [Value::Bool(true); 2]);
    }
    let b = tensor(DType::Bool, &[0.0, 1.0]);
    assert_eq!(
        b.bitwise_not().to_values(),
        [Value::Bool(true), Value::Bool(false)]
    );
    for d in INTS {
        let xs = [0.0, 1.0, -1.0, 5.0, -128.0, 127.0];
        let t = tensor(d, &xs);
        let want: Vec<Value> = t
            .to_values()
            .into_iter()
            .map(|v| match v {
                Value::Int(i) => {
                    with_dtype!(d, T => weft::Element::to_value(convert_value::<i64, T>(!i)))
                }
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(t.bitwise_not().to_values(), want, "bitwise_not {d}");
    }
}

fn bin(op: BinaryOp, a: &DynTensor, b: &DynTensor) -> Result<DynTensor, Error> {
    binary(op, Operand::Tensor(a), Operand::Tensor(b), None)
}

#[test]
fn binary_float_ops_match_f64_math() {
    let xs = [-7.5, -3.0, -1.0, -0.25, -0.0, 0.0, 0.3, 1.0, 2.5, 6.0, 1e3];
    let pairs: Vec<(f64, f64)> = xs
        .iter()
        .flat_map(|&a| xs.iter().map(move |&b| (a, b)))
        .collect();
    type Ref = (BinaryOp, fn(f64, f64) -> f64, bool);
    let refs: [Ref; 4] = [
        (BinaryOp::Fmod, |a, b| a % b, true),
        (BinaryOp::Atan2, f64::atan2, false),
        (BinaryOp::Copysign, f64::copysign, true),
        (BinaryOp::Hypot, f64::hypot, false),
    ];
    for (op, f, exact) in refs {
        for d in FLOATS {
            let a: Vec<f64> = pairs.iter().map(|p| p.0).collect();
            let b: Vec<f64> = pairs.iter().map(|p| p.1).collect();
            let (ta, tb) = (tensor(d, &a), tensor(d, &b));
            let r = bin(op, &ta, &tb).unwrap();
            assert_eq!(r.dtype(), d);
            for ((x, y), g) in values(&ta).into_iter().zip(values(&tb)).zip(values(&r)) {
                let want = f(x, y);
                let ok = if exact {
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan())
                        || with_dtype!(d, T => f64_of(weft::Element::to_value(convert_value::<f64, T>(want)))).to_bits() == g.to_bits()
                } else {
                    close(g, want, d, 0.0)
                };
                assert!(ok, "{}({x}, {y}) {d}: got {g}, want {want}", op.name());
            }
        }
        // Integer operands: fmod stays integer; hypot refuses them (PyTorch: `hypot_cpu` not
        // implemented for integers); atan2 and copysign compute in f32.
        for d in INTS {
            let (ta, tb) = (tensor(d, &[7.0, 100.0, 3.0]), tensor(d, &[3.0, 7.0, 2.0]));
            if op == BinaryOp::Hypot {
                assert!(bin(op, &ta, &tb).is_err(), "hypot refuses {d}");
                continue;
            }
            let r = bin(op, &ta, &tb).unwrap();
            if op == BinaryOp::Fmod {
                assert_eq!(r.dtype(), d);
                assert_eq!(values(&r), [1.0, 2.0, 1.0]);
            } else {
                assert_eq!(r.dtype(), DType::F32, "{} {d}", op.name());
                for ((x, y), g) in [(7.0, 3.0), (100.0, 7.0), (3.0, 2.0)]
                    .into_iter()
                    .zip(values(&r))
                {
                    assert!(close(g, f(x, y), DType::F32, 0.0));
                }
            }
        }
    }
    // Edges: fmod by zero is NaN on floats, follows the dividend's sign; integer fmod by zero
    // refuses; negative integer fmod truncates; atan2 of signed zeros; copysign with -0.0;
    // hypot(inf, nan) = inf.
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for d in FLOATS {
        let v =
            |op, a: f64, b: f64| values(&bin(op, &tensor(d, &[a]), &tensor(d, &[b])).unwrap())[0];
        assert!(v(BinaryOp::Fmod, 1.0, 0.0).is_nan());
        assert!(v(BinaryOp::Fmod, inf, 2.0).is_nan());
        assert_eq!(v(BinaryOp::Fmod, 5.0, inf), 5.0);
        assert!(is_neg_zero(v(BinaryOp::Fmod, -4.0, 2.0)));
        assert_eq!(v(BinaryOp::Fmod, -5.0, 3.0), -2.0);
        assert!(close(
            v(BinaryOp::Atan2, 0.0, -0.0),
            std::f64::consts::PI,
            d,
            0.0
        ));
        assert!(close(
            v(BinaryOp::Atan2, -0.0, -0.0),
            -std::f64::consts::PI,
            d,
            0.0
        ));
        assert!(is_neg_zero(v(BinaryOp::Atan2, -0.0, 1.0)));
        assert_eq!(v(BinaryOp::Copysign, 1.0, -0.0), -1.0);
        assert_eq!(v(BinaryOp::Copysign, -inf, 0.0), inf);
        assert_eq!(v(BinaryOp::Hypot, inf, nan), inf);
        assert_eq!(v(BinaryOp::Hypot, -3.0, 4.0), 5.0);
    }
    for d in INTS {
        let z = bin(BinaryOp::Fmod, &tensor(d, &[5.0]), &tensor(d, &[0.0]));
        assert!(matches!(z, Err(Error::ZeroDivision { .. })));
    }
    for d in [DType::I8, DType::I16, DType::I32, DType::I64] {
        let r = bin(
            BinaryOp::Fmod,
            &tensor(d, &[-7.0, 7.0]),
            &tensor(d, &[3.0, -3.0]),
        )
        .unwrap();
        assert_eq!(values(&r), [-1.0, 1.0], "fmod truncates {d}");
    }
    // Copysign/atan2/hypot of bools compute in f32.
    let b = tensor(DType::Bool, &[1.0, 0.0]);
    assert_eq!(bin(BinaryOp::Copysign, &b, &b).unwrap().dtype(), DType::F32);
}

/// PyTorch's shifts: a shift amount that is negative (as the signed type) or >= the bit width
/// gives 0 (left) or the sign fill (right).
fn shift_ref(left: bool, a: i64, b: i64, d: DType) -> i64 {
    let bits = (d.size() * 8) as i64;
    let signed = d.is_signed_integer();
    let wrap = |v: i64| with_dtype!(d, T => match weft::Element::to_value(convert_value::<i64, T>(v)) { Value::Int(i) => i, _ => unreachable!() });
    // b as the signed type of the same width.
    let bs = match d.size() {
        1 => b as i8 as i64,
        2 => b as i16 as i64,
        4 => b as i32 as i64,
        _ => b,
    };
    if left {
        if bs < 0 || bs >= bits {
            0
        } else {
            wrap(((a as u64) << bs) as i64)
        }
    } else {
        let max = bits - signed as i64;
        if bs < 0 || bs >= max {
            if signed && a < 0 { -1 } else { 0 }
        } else if signed {
            a >> bs
        } else {
            // unsigned: a holds the value in 0..2^bits as i64 (u8) or the wrapped i64.
            ((a as u64) >> bs) as i64
        }
    }
}

#[test]
fn shifts_match_pytorch() {
    for d in INTS {
        let avals = [0.0, 1.0, -1.0, 5.0, -128.0, 127.0, 100.0, -77.0];
        let bvals = [
            0.0, 1.0, 3.0, 7.0, 8.0, 15.0, 16.0, 31.0, 32.0, 63.0, 64.0, -1.0, 200.0,
        ];
        let a: Vec<f64> = avals
            .iter()
            .flat_map(|&x| bvals.iter().map(move |_| x))
            .collect();
        let b: Vec<f64> = avals.iter().flat_map(|_| bvals.iter().copied()).collect();
        let (ta, tb) = (tensor(d, &a), tensor(d, &b));
        let ai: Vec<i64> = values(&ta).into_iter().map(|x| x as i64).collect();
        let bi: Vec<i64> = values(&tb).into_iter().map(|x| x as i64).collect();
        for (op, left) in [
            (BinaryOp::BitwiseLeftShift, true),
            (BinaryOp::BitwiseRightShift, false),
        ] {
            let r = bin(op, &ta, &tb).unwrap();
            assert_eq!(r.dtype(), d);
            for ((&x, &y), g) in ai.iter().zip(&bi).zip(values(&r)) {
                assert_eq!(
                    g as i64,
                    shift_ref(left, x, y, d),
                    "{} {x} by {y} ({d})",
                    op.name()
                );
            }
        }
    }
    // Refusals: bool shifts, float shifts.
    let b = tensor(DType::Bool, &[1.0]);
    let f = tensor(DType::F32, &[1.0]);
    let i = tensor(DType::I32, &[1.0]);
    for op in [BinaryOp::BitwiseLeftShift, BinaryOp::BitwiseRightShift] {
        assert!(matches!(
            bin(op, &b, &b),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            bin(op, &f, &i),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(matches!(
            bin(op, &i, &f),
            Err(Error::UnsupportedDType { .. })
        ));
    }
    // Bool with an integer promotes to the integer and is fine.
    assert_eq!(
        bin(BinaryOp::BitwiseLeftShift, &i, &b).unwrap().to_values(),
        [Value::Int(2)]
    );
}

#[test]
fn parameterised_ops_match_f64_math() {
    let xs = [
        -30.0,
        -2.5,
        -1.0,
        -0.0,
        0.0,
        0.25,
        1.0,
        3.0,
        100.0,
        f64::INFINITY,
        -f64::INFINITY,
        f64::NAN,
    ];
    for d in FLOATS {
        let t = tensor(d, &xs);
        let x = values(&t);
        // leaky_relu: x > 0 ? x : x * slope (-0.0 stays -0.0).
        for slope in [0.01, 0.2] {
            let r = values(&t.leaky_relu(slope));
            for (&x, g) in x.iter().zip(r) {
                let want = if x > 0.0 { x } else { x * slope };
                assert!(close(g, want, d, 0.0), "leaky_relu({x}) {d}: {g}");
            }
        }
        assert!(is_neg_zero(values(&tensor(d, &[-0.0]).leaky_relu(0.01))[0]));
        // hardtanh: clamp to [min, max].
        let r = values(&t.hardtanh(-1.0, 2.0));
        for (&x, g) in x.iter().zip(r) {
            if x.is_nan() {
                continue;
            }
            assert_eq!(g, x.clamp(-1.0, 2.0), "hardtanh({x}) {d}");
        }
        // lerp: start + w (end - start); error relative to the operands' magnitude.
        let ends = [
            5.0, -1.0, 2.0, 0.5, -3.0, 1.0, 0.0, 7.0, -100.0, 1.0, 2.0, 3.0,
        ];
        let e = tensor(d, &ends);
        let ev = values(&e);
        for w in [0.0, 0.3, 0.5, 0.75, 1.0, 1.5] {
            let r = values(&t.lerp(&e, w));
            let wq = if d == DType::F64 { w } else { w as f32 as f64 };
            for ((&a, &b), g) in x.iter().zip(&ev).zip(r) {
                if !a.is_finite() {
                    continue;
                }
                let want = a + wq * (b - a);
                let scale = a.abs().max(b.abs());
                assert!(
                    close(g, want, d, scale),
                    "lerp({a}, {b}, {w}) {d}: {g} vs {want}"
                );
            }
            // Tensor weight gives the same as the scalar weight.
            let wt = tensor(d, &[w; 12]);
            let r2 = values(&t.lerp(&e, &wt));
            let r1 = values(&t.lerp(&e, w));
            for ((a, g2), g1) in x.iter().zip(r2).zip(r1) {
                if a.is_finite() {
                    assert!(
                        close(g2, g1, d, g1.abs().max(1.0)),
                        "lerp tensor weight {d}"
                    );
                }
            }
        }
        // addcmul: a + v * t1 * t2.
        for v in [1.0, -0.5, 3.0] {
            let r = values(&t.addcmul(&e, &e, v));
            for ((&a, &b), g) in x.iter().zip(&ev).zip(r) {
                let want = a + v * b * b;
                let scale = a.abs().max((v * b * b).abs());
                assert!(close(g, want, d, scale), "addcmul({a}, {b}, {v}) {d}: {g}");
            }
        }
    }
    // Integer addcmul wraps; hardtanh works on integers; lerp/leaky_relu refuse integers.
    for d in INTS {
        let a = tensor(d, &[1.0, 100.0, -3.0]);
        let t1 = tensor(d, &[2.0, 3.0, 4.0]);
        let r = a.addcmul(&t1, &t1, 2);
        let want: Vec<Value> = a
            .to_values()
            .into_iter()
            .zip([8, 18, 32])
            .map(|(v, p)| match v {
                Value::Int(i) => {
                    with_dtype!(d, T => weft::Element::to_value(convert_value::<i64, T>(i + p)))
                }
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(r.to_values(), want, "addcmul {d}");
        assert!(matches!(
            a.try_addcmul(&t1, &t1, 0.5),
            Err(Error::UnsupportedDType { .. })
        ));
        let r = a.hardtanh(0, 50);
        let want: Vec<Value> = a.to_values().into_iter().map(|v| match v {
            Value::Int(i) => with_dtype!(d, T => weft::Element::to_value(convert_value::<i64, T>(i.clamp(0, 50)))),
            _ => unreachable!(),
        }).collect();
        assert_eq!(r.to_values(), want, "hardtanh {d}");
        assert!(matches!(
            a.try_leaky_relu(0.1),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(a.try_lerp(&t1, 0.5).is_err());
    }
    let b = tensor(DType::Bool, &[1.0]);
    assert!(b.try_addcmul(&b, &b, 1).is_err());
    assert!(b.try_hardtanh(0, 1).is_err());
    assert!(b.try_leaky_relu(0.1).is_err());
    // lerp needs one dtype for start and end.
    assert!(matches!(
        tensor(DType::F32, &[1.0]).try_lerp(&tensor(DType::F64, &[1.0]), 0.5),
        Err(Error::DTypeMismatch { .. })
    ));
}

#[test]
fn dtype_refusals() {
    let f = tensor(DType::F32, &[1.0]);
    let i = tensor(DType::I64, &[1.0]);
    let b = tensor(DType::Bool, &[1.0]);
    for op in [
        BinaryOp::BitwiseAnd,
        BinaryOp::BitwiseOr,
        BinaryOp::BitwiseXor,
    ] {
        assert!(
            matches!(bin(op, &f, &i), Err(Error::UnsupportedDType { .. })),
            "{}",
            op.name()
        );
        assert!(matches!(
            bin(op, &i, &f),
            Err(Error::UnsupportedDType { .. })
        ));
        assert!(
            binary(
                op,
                Operand::Tensor(&i),
                Operand::Scalar(Scalar::Float(1.0)),
                None
            )
            .is_err()
        );
        assert!(bin(op, &b, &b).is_ok());
    }
    for op in [
        UnaryOp::Silu,
        UnaryOp::Softplus,
        UnaryOp::Frac,
        UnaryOp::Gelu,
    ] {
        for t in [&i, &b] {
            assert!(
                matches!(unary(op, t, None), Err(Error::UnsupportedDType { .. })),
                "{}",
                op.name()
            );
        }
    }
    assert!(matches!(
        f.try_bitwise_not(),
        Err(Error::UnsupportedDType { .. })
    ));
    assert!(matches!(
        bin(BinaryOp::Fmod, &b, &b),
        Err(Error::UnsupportedDType { .. })
    ));
    assert!(matches!(
        bin(BinaryOp::Sub, &b, &i),
        Err(Error::UnsupportedDType { .. })
    ));
}
