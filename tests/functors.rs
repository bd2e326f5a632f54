//! Functor semantics not covered by the golden files (fmod, atan2, shifts, expm1, round, lerp,
//! ...), checked against f64 reference math with the golden README's ulp tolerances and
//! PyTorch's documented edge behaviour; and the op tables checked against promotion.json.

#[path = "golden_harness/mod.rs"]
mod golden;

use half::{bf16, f16};
use weft::DType;
use weft::functors::*;

/// `|got - want| <= ULPS·ulp(want) + smallest normal`, as the golden README (f32: 4 ulp).
fn close32(got: f32, want: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got as f64 == want;
    }
    let e = if want == 0.0 {
        -126
    } else {
        (want.abs().log2().floor() as i32).max(-126)
    };
    ((got as f64) - want).abs() <= 4.0 * 2f64.powi(e - 23) + 2f64.powi(-126)
}

fn close64(got: f64, want: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    let e = if want == 0.0 {
        -1022
    } else {
        (want.abs().log2().floor() as i32).max(-1022)
    };
    (got - want).abs() <= 4.0 * 2f64.powi(e - 52) + f64::MIN_POSITIVE
}

const SAMPLES: &[f64] = &[
    0.0,
    -0.0,
    1e-30,
    -1e-8,
    0.1,
    -0.5,
    0.5,
    1.0,
    -1.0,
    1.5,
    2.5,
    -2.5,
    3.7,
    -7.25,
    10.0,
    20.5,
    -30.0,
    88.0,
    1e10,
    -1e10,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

fn check_unary<F>(f: F, reference: fn(f64) -> f64)
where
    F: Functor<(f32,), Output = f32> + Functor<(f64,), Output = f64>,
{
    for &x in SAMPLES {
        let want = reference(x);
        let g64: f64 = f.call((x,));
        assert!(close64(g64, want), "f64 at {x}: got {g64}, want {want}");
        let x32 = x as f32;
        let want32 = reference(x32 as f64);
        let g32: f32 = f.call((x32,));
        assert!(
            close32(g32, want32),
            "f32 at {x32}: got {g32}, want {want32}"
        );
    }
}

#[test]
fn unary_math_against_f64() {
    check_unary(Expm1, f64::exp_m1);
    check_unary(Log1p, f64::ln_1p);
    check_unary(Log2, f64::log2);
    check_unary(Log10, f64::log10);
    check_unary(Tan, f64::tan);
    check_unary(Asin, f64::asin);
    check_unary(Acos, f64::acos);
    check_unary(Atan, f64::atan);
    check_unary(Sinh, f64::sinh);
    check_unary(Cosh, f64::cosh);
    check_unary(Reciprocal, |x| 1.0 / x);
    check_unary(Square, |x| x * x);
    // torch's x / (1 + e^-x): NaN at -inf (-inf / inf), like x * sigmoid(x).
    check_unary(Silu, |x| x / (1.0 + (-x).exp()));
    check_unary(Softplus, |x| if x > 20.0 { x } else { x.exp().ln_1p() });
    check_unary(Sigmoid, |x| 1.0 / (1.0 + (-x).exp()));
    // expm1/log1p keep their accuracy near 0, where exp(x)-1 would not.
    let tiny: f64 = Expm1.call((1e-300f64,));
    assert_eq!(tiny, 1e-300);
    assert_eq!(Log1p.call((-1.0f64,)), f64::NEG_INFINITY);
}

#[test]
fn sigmoid_never_overflows() {
    assert_eq!(Sigmoid.call((-1000.0f32,)), 0.0);
    assert_eq!(Sigmoid.call((1000.0f32,)), 1.0);
    assert_eq!(Sigmoid.call((f64::NEG_INFINITY,)), 0.0);
    assert!(Sigmoid.call((f32::NAN,)).is_nan());
    // x = -100: the true value 3.7e-44 is representable (subnormal) and is kept.
    let s: f64 = Sigmoid.call((-100.0f64,));
    assert!(close64(s, 3.720075976020836e-44));
}

#[test]
fn rounding_half_to_even_and_frac() {
    let cases: [(f64, f64); 6] = [
        (0.5, 0.0),
        (1.5, 2.0),
        (2.5, 2.0),
        (-0.5, -0.0),
        (-2.5, -2.0),
        (3.5000001, 4.0),
    ];
    for (x, want) in cases {
        let r: f64 = Round.call((x,));
        assert_eq!(r.to_bits(), want.to_bits(), "round({x})");
        let r32: f32 = Round.call((x as f32,));
        assert_eq!(r32, want as f32);
    }
    assert_eq!(Round.call((bf16::from_f32(2.5),)), bf16::from_f32(2.0));
    assert_eq!(Round.call((7i32,)), 7); // integers: identity
    assert_eq!(Floor.call((-1.5f32,)), -2.0);
    assert_eq!(Ceil.call((-1.5f32,)), -1.0);
    assert_eq!(Trunc.call((-1.5f64,)), -1.0);
    let fr: f64 = Frac.call((-2.75,));
    assert_eq!(fr, -0.75);
    assert!(Frac.call((f32::INFINITY,)).is_nan());
    assert_eq!(Frac.call((-3.0f32,)).to_bits(), 0.0f32.to_bits()); // x - trunc(x) = +0
}

#[test]
fn fmod_atan2_copysign_hypot() {
    let fm: f64 = Fmod.call((-5.5, 2.0));
    assert_eq!(fm, -1.5); // sign of the dividend
    assert_eq!(Fmod.call((5.5f32, -2.0)), 1.5);
    assert!(Fmod.call((1.0f64, 0.0)).is_nan());
    assert_eq!(Fmod.call((-7i32, 3)), -1);
    assert_eq!(Fmod.call((7i32, 0)), 0); // no panic; the ops layer reports ZeroDivision
    assert_eq!(Fmod.call((i8::MIN, -1)), 0);
    assert_eq!(
        Fmod.call((f16::from_f32(5.5), f16::from_f32(2.0))),
        f16::from_f32(1.5)
    );

    for (y, x) in [
        (1.0, 1.0),
        (1.0, -1.0),
        (-0.0, -1.0),
        (0.0, -0.0),
        (-3.0, 0.5),
    ] {
        let g: f64 = Atan2.call((y, x));
        assert!(close64(g, f64::atan2(y, x)), "atan2({y}, {x})");
        let g32: f32 = Atan2.call((y as f32, x as f32));
        assert!(close32(g32, f64::atan2(y, x)));
    }
    assert_eq!(Copysign.call((3.0f32, -0.0)), -3.0);
    assert_eq!(Copysign.call((-3.0f64, f64::NAN)), 3.0);
    assert_eq!(Hypot.call((3.0f64, 4.0)), 5.0);
    assert_eq!(Hypot.call((1e300f64, 1e300)), 1e300 * 2f64.sqrt());
    assert_eq!(Hypot.call((f32::INFINITY, f32::NAN)), f32::INFINITY);
}

#[test]
fn shifts_follow_pytorch() {
    assert_eq!(BitwiseLeftShift.call((1i8, 7)), -128);
    assert_eq!(BitwiseLeftShift.call((1i8, 8)), 0);
    assert_eq!(BitwiseLeftShift.call((1i32, -1)), 0);
    assert_eq!(BitwiseLeftShift.call((1u8, 200)), 0); // read as i8: negative
    assert_eq!(BitwiseLeftShift.call((3i64, 62)), -(1i64 << 62));
    assert_eq!(BitwiseRightShift.call((-8i16, 2)), -2);
    assert_eq!(BitwiseRightShift.call((-8i16, 15)), -1);
    assert_eq!(BitwiseRightShift.call((-8i16, 100)), -1);
    assert_eq!(BitwiseRightShift.call((8i16, -3)), 0);
    assert_eq!(BitwiseRightShift.call((255u8, 7)), 1);
    assert_eq!(BitwiseRightShift.call((255u8, 8)), 0);
    assert_eq!(BitwiseNot.call((0u8,)), 255);
    assert!(!BitwiseNot.call((true,)));
}

#[test]
fn integer_edges_wrap_and_never_panic() {
    assert_eq!(Add.call((i8::MAX, 1)), i8::MIN);
    assert_eq!(Neg.call((i32::MIN,)), i32::MIN);
    assert_eq!(Abs.call((i64::MIN,)), i64::MIN);
    assert_eq!(Neg.call((1u8,)), 255);
    assert_eq!(FloorDivide.call((i16::MIN, -1)), i16::MIN);
    assert_eq!(Remainder.call((i16::MIN, -1)), 0);
    assert_eq!(FloorDivide.call((-7i32, 2)), -4);
    assert_eq!(Remainder.call((-7i32, 2)), 1);
    assert_eq!(Remainder.call((7i32, -2)), -1);
    assert_eq!(FloorDivide.call((7i64, 0)), 0);
    assert_eq!(Remainder.call((7u8, 0)), 0);
    assert_eq!(Pow.call((2i8, 7)), -128);
    assert_eq!(Pow.call((2i32, -1)), 0);
    assert_eq!(Pow.call((0i32, -1)), 0);
    assert_eq!(Pow.call((1i32, -5)), 1);
    assert_eq!(Pow.call((-1i32, -5)), -1);
    assert_eq!(Pow.call((-1i64, i64::MIN)), 1);
    assert_eq!(PowScalar { exp: 3u8 }.call((7u8,)), 87); // 343 mod 256
    assert_eq!(Sign.call((-5i8,)), -1);
    assert_eq!(Relu.call((-5i64,)), 0);
    assert_eq!(Square.call((16i8,)), 0);
}

#[test]
fn float_specials() {
    assert_eq!(Sign.call((-0.0f32,)).to_bits(), 0.0f32.to_bits());
    assert_eq!(Sign.call((f64::NAN,)), 0.0);
    assert_eq!(Relu.call((-0.0f64,)).to_bits(), (-0.0f64).to_bits());
    assert!(Relu.call((f32::NAN,)).is_nan());
    assert_eq!(Rsqrt.call((-0.0f32,)), f32::NEG_INFINITY);
    assert!(!LogicalNot.call((f32::NAN,)));
    assert!(LogicalNot.call((-0.0f64,)));
    assert!(LogicalAnd.call((f16::NAN, f16::from_f32(2.0))));
    assert!(Maximum.call((f32::NAN, 1.0)).is_nan());
    assert!(Minimum.call((1.0f64, f64::NAN)).is_nan());
    assert!(IsNan.call((bf16::NAN,)) && !IsNan.call((3i32,)) && IsFinite.call((3u8,)));
    assert!(IsInf.call((f16::NEG_INFINITY,)));
    // Floor division and remainder: Python semantics, PyTorch's zero signs.
    assert_eq!(FloorDivide.call((-5.0f64, 5.0)), -1.0);
    assert_eq!(
        Remainder.call((-5.0f64, 5.0)).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(Remainder.call((-1.0f32, f32::INFINITY)), f32::INFINITY);
    assert_eq!(FloorDivide.call((1.0f32, 0.0)), f32::INFINITY);
    assert_eq!(
        FloorDivide.call((0.0f64, -3.0)).to_bits(),
        (-0.0f64).to_bits()
    );
    // Bool add/mul are or/and.
    assert!(Add.call((true, true)) && !Mul.call((true, false)));
}

#[test]
fn activations_with_arguments() {
    let lr = LeakyRelu { slope: 0.1 };
    assert_eq!(lr.call((-2.0f64,)), -0.2);
    assert_eq!(lr.call((3.0f32,)), 3.0);
    assert_eq!(lr.call((f16::from_f32(-2.0),)), f16::from_f32(-0.2));
    let ht = Hardtanh {
        min: -1.0f32,
        max: 1.0,
    };
    assert_eq!(ht.call((-3.0,)), -1.0);
    assert_eq!(ht.call((0.25,)), 0.25);
    assert!(ht.call((f32::NAN,)).is_nan());
    assert_eq!(Hardtanh { min: 0i32, max: 6 }.call((9,)), 6);
    let c = Clamp::new(Some(2.0f32), Some(1.0));
    assert_eq!(c.call((0.0,)), 1.0); // min > max gives max
    assert!(Clamp::new(Some(f64::NAN), None).call((1.0,)).is_nan());
    assert_eq!(Clamp::new(None, Some(5u8)).call((9,)), 5);
    let g = Gelu {
        approximate: GeluApproximate::None,
    };
    let gx: f64 = g.call((1.0,));
    assert!(close64(gx, 0.8413447460685429));
    assert_eq!(g.call((-100.0f32,)).to_bits(), (-0.0f32).to_bits());
    let gt = Gelu {
        approximate: GeluApproximate::Tanh,
    };
    assert!(close32(gt.call((1.0f32,)), 0.8411919906082768));
}

#[test]
fn lerp_addcmul_where_masked_fill_cast() {
    // PyTorch's two-sided formula: exact at both ends.
    assert_eq!(Lerp.call((1.0f64, 3.0, 0.25)), 1.5);
    assert_eq!(Lerp.call((1.0f32, 3.0, 1.0)), 3.0);
    assert_eq!(Lerp.call((1.0f32, 3.0, 0.0)), 1.0);
    assert_eq!(LerpScalar { weight: 0.75 }.call((1.0f64, 3.0)), 2.5);
    assert_eq!(LerpScalar { weight: -1.0 }.call((1.0f64, 3.0)), -1.0);
    assert_eq!(
        LerpScalar { weight: 0.5 }.call((bf16::from_f32(0.0), bf16::from_f32(1.0))),
        bf16::from_f32(0.5)
    );
    let a = 0.1f64;
    let b = 1e16f64;
    let w = 0.9f64;
    assert_eq!(Lerp.call((a, b, w)), b - (b - a) * (1.0 - w));
    assert_eq!(Addcmul { value: 2.0f32 }.call((1.0, 3.0, 4.0)), 25.0);
    assert_eq!(Addcmul { value: 2i8 }.call((1, 8, 8)), -127); // wraps
    assert_eq!(
        Addcmul { value: 0.5f32 }.call((f16::ONE, f16::from_f32(3.0), f16::from_f32(3.0))),
        f16::from_f32(5.5)
    );
    assert_eq!(Where.call((true, 1u8, 2u8)), 1);
    assert_eq!(Where.call((false, f16::ONE, f16::ZERO)), f16::ZERO);
    assert_eq!(MaskedFill { value: -1i16 }.call((5, true)), -1);
    assert_eq!(MaskedFill { value: -1i16 }.call((5, false)), 5);
    assert_eq!(Cast::<u8>::new().call((300i32,)), 44);
    assert!(Cast::<bool>::new().call((f32::NAN,)));
    assert_eq!(
        Cast::<f16>::new().call((1.0f64 + 2f64.powi(-11) + 2f64.powi(-40),)),
        f16::ONE
    );
}

#[test]
fn pow_scalar_fast_paths() {
    assert_eq!(PowScalar { exp: 2.0f32 }.call((3.0,)), 9.0);
    assert_eq!(PowScalar { exp: -2.0f32 }.call((1e20,)), 0.0); // 1/(x*x) flushes like torch
    assert_eq!(
        PowScalar { exp: 0.5f64 }.call((-0.0,)).to_bits(),
        (-0.0f64).to_bits()
    ); // sqrt
    assert!(
        PowScalar { exp: 0.5f64 }
            .call((f64::NEG_INFINITY,))
            .is_nan()
    );
    assert_eq!(PowScalar { exp: -0.5f32 }.call((-0.0,)), f32::NEG_INFINITY);
    assert_eq!(PowScalar { exp: -1.0f64 }.call((4.0,)), 0.25);
    // f16 has no fast paths: pow(-0, 0.5) = +0.
    assert_eq!(
        PowScalar {
            exp: f16::from_f32(0.5)
        }
        .call((f16::NEG_ZERO,))
        .to_bits(),
        0
    );
    let x = bf16::from_f32(1.0078125);
    let r = bf16::from_f32(x.to_f32() * x.to_f32()).to_f32() * x.to_f32();
    assert_eq!(
        PowScalar {
            exp: bf16::from_f32(3.0)
        }
        .call((x,)),
        bf16::from_f32(r)
    );
    assert_eq!(
        MulScalarOpmath { s: 0.3 }.call((bf16::from_f32(3.0),)),
        bf16::from_f32(0.9)
    );
    assert_eq!(
        DivScalarOpmath { s: 0.5 }.call((f16::ONE,)),
        f16::from_f32(2.0)
    );
    assert_eq!(
        FloorDivideScalarOpmath { s: -2.0 }.call((f16::from_f32(5.0),)),
        f16::from_f32(-3.0)
    );
}

#[test]
fn op_tables_match_promotion_json() {
    let j = golden::read_json("promotion.json");
    let mut checked = 0;
    for e in j["binary_op_support"]
        .as_array()
        .expect("binary_op_support")
    {
        let name = e["op"].as_str().unwrap();
        let op = BinaryOp::from_name(name).unwrap_or_else(|| panic!("unknown binary op {name}"));
        let a = DType::from_name(e["a"].as_str().unwrap()).unwrap();
        let b = DType::from_name(e["b"].as_str().unwrap()).unwrap();
        let want = e["dtype"].as_str().map(|d| DType::from_name(d).unwrap());
        assert_eq!(binary_out_dtype(op, a, b), want, "{name}({a}, {b})");
        checked += 1;
    }
    for e in j["unary_op_support"].as_array().expect("unary_op_support") {
        let name = e["op"].as_str().unwrap();
        let op = UnaryOp::from_name(name).unwrap_or_else(|| panic!("unknown unary op {name}"));
        let a = DType::from_name(e["a"].as_str().unwrap()).unwrap();
        let want = e["dtype"].as_str().map(|d| DType::from_name(d).unwrap());
        assert_eq!(unary_out_dtype(op, a), want, "{name}({a})");
        checked += 1;
    }
    assert_eq!(checked, 2240);
    for op in BinaryOp::ALL {
        assert_eq!(BinaryOp::from_name(op.name()), Some(*op));
    }
    for op in UnaryOp::ALL {
        assert_eq!(UnaryOp::from_name(op.name()), Some(*op));
    }
}

// ---------------------------------------------------------------- the ops_more.json functors

#[test]
fn more_unary_math_against_f64() {
    check_unary(Exp2, f64::exp2);
    check_unary(Asinh, f64::asinh);
    // std's acosh is NaN below 1; libm's is not (it branches on |x|): Acosh must be.
    check_unary(Acosh, f64::acosh);
    check_unary(Atanh, f64::atanh);
    check_unary(Deg2rad, |x| x * (std::f64::consts::PI / 180.0));
    check_unary(Rad2deg, |x| x * (180.0 / std::f64::consts::PI));
    check_unary(Mish, |x| x * x.exp().ln_1p().tanh());
    check_unary(Hardsigmoid, |x| (x + 3.0).clamp(0.0, 6.0) / 6.0);
    check_unary(Softsign, |x| x / (1.0 + x.abs()));
    assert_eq!(Exp2.call((10.0f32,)), 1024.0);
    assert_eq!(Exp2.call((f64::NEG_INFINITY,)), 0.0);
    assert_eq!(Exp2.call((f16::from_f32(15.0),)), f16::from_f32(32768.0));
    assert_eq!(Exp2.call((f16::from_f32(16.0),)), f16::INFINITY);
    assert_eq!(Asinh.call((-0.0f32,)).to_bits(), (-0.0f32).to_bits());
    assert_eq!(Acosh.call((1.0f64,)), 0.0);
    for x in [0.5f32, -1.0, -2.0, -128.0, -1e30, f32::NEG_INFINITY] {
        assert!(Acosh.call((x,)).is_nan(), "acosh({x})");
        assert!(Acosh.call((x as f64,)).is_nan(), "acosh({x})");
    }
    assert_eq!(Atanh.call((1.0f32,)), f32::INFINITY);
    assert_eq!(Atanh.call((-1.0f64,)), f64::NEG_INFINITY);
    assert!(Atanh.call((2.0f32,)).is_nan());
    // erfc keeps its relative accuracy in the tail, where 1 - erf(x) is 0.
    assert!(close64(Erfc.call((10.0f64,)), 2.088_487_583_762_545e-45));
    assert!(close32(Erfc.call((9.0f32,)), 4.137_031_746_513_81e-37));
    assert!(close64(Erfc.call((-1.0f64,)), 1.842_700_792_949_715));
    assert!(close32(Erfc.call((0.5f32,)), 0.479_500_122_186_953_5));
    assert_eq!(Erfc.call((f64::NEG_INFINITY,)), 2.0);
    assert_eq!(Erfc.call((f32::INFINITY,)), 0.0);
    // deg2rad/rad2deg: f16/bf16 multiply by the f32 constant (PyTorch's opmath scalar).
    for bits in 0..=u16::MAX {
        let x = bf16::from_bits(bits);
        let want = bf16::from_f32(x.to_f32() * (std::f64::consts::PI / 180.0) as f32);
        let got = Deg2rad.call((x,));
        assert!(
            got == want || (got.is_nan() && want.is_nan()),
            "deg2rad({x})"
        );
    }
    assert!(close64(Deg2rad.call((180.0f64,)), std::f64::consts::PI));
    assert!(close64(Rad2deg.call((std::f64::consts::PI,)), 180.0));
}

#[test]
fn elu_family_and_smooth_activations() {
    // expm1, not exp(x) - 1 (which is 0 here).
    assert_eq!(Elu.call((-1e-10f32,)), -1e-10);
    assert_eq!(Celu.call((-1e-12f64,)), Expm1.call((-1e-12f64,)));
    assert_eq!(Elu.call((f64::NEG_INFINITY,)), -1.0);
    assert_eq!(Elu.call((2.5f32,)), 2.5);
    assert!(Elu.call((f32::NAN,)).is_nan());
    assert_eq!(
        Celu.call((f16::from_f32(-1.0),)),
        f16::from_f32((-1.0f32).exp_m1())
    );
    // selu: scale * x, or expm1(x) * (alpha * scale).
    // PyTorch's constants (as written in its source).
    let (alpha, scale): (f64, f64) = (1.673_263_242_354_377_2, 1.050_700_987_355_480_5);
    assert_eq!(Selu.call((1.0f64,)), scale);
    assert_eq!(Selu.call((f64::NEG_INFINITY,)), -(alpha * scale));
    assert!(close64(Selu.call((-1e-20f64,)), -1e-20 * alpha * scale));
    assert!(close32(
        Selu.call((-1.0f32,)),
        (-1.0f64).exp_m1() * alpha * scale
    ));
    assert_eq!(Selu.call((2.0f32,)), 2.0 * scale as f32);
    // mish: x * tanh(log1p(e^x)), no threshold; NaN at -inf as torch (-inf * 0).
    assert!(close64(Mish.call((1.0f64,)), 0.865_098_388_267_310_3));
    assert_eq!(Mish.call((100.0f32,)), 100.0);
    assert_eq!(Mish.call((f32::INFINITY,)), f32::INFINITY);
    assert!(Mish.call((f64::NEG_INFINITY,)).is_nan());
    // logsigmoid: stable where log(sigmoid(x)) underflows to -inf.
    assert!(close64(Logsigmoid.call((0.0f64,)), -std::f64::consts::LN_2));
    assert_eq!(Logsigmoid.call((-1000.0f32,)), -1000.0);
    assert_eq!(Logsigmoid.call((-200.0f64,)), -200.0);
    assert_eq!(Logsigmoid.call((1000.0f64,)), 0.0);
    assert_eq!(Logsigmoid.call((f32::NEG_INFINITY,)), f32::NEG_INFINITY);
    assert!(close32(Logsigmoid.call((20.0f32,)), -2.061_153_6e-9));
    assert!(Logsigmoid.call((f64::NAN,)).is_nan());
    // hardswish / hardsigmoid: x * min(max(x+3, 0), 6) / 6.
    assert_eq!(Hardswish.call((-3.0f32,)), 0.0);
    assert_eq!(Hardswish.call((-4.0f64,)), 0.0);
    assert_eq!(Hardswish.call((3.0f32,)), 3.0);
    assert_eq!(Hardswish.call((10.0f64,)), 10.0);
    assert_eq!(Hardswish.call((1.0f64,)), 4.0 / 6.0);
    assert_eq!(Hardswish.call((-1.0f32,)), -2.0 / 6.0);
    assert!(Hardswish.call((f32::NAN,)).is_nan());
    assert_eq!(Hardsigmoid.call((0.0f32,)), 0.5);
    assert_eq!(Hardsigmoid.call((-3.5f64,)), 0.0);
    assert_eq!(Hardsigmoid.call((3.5f64,)), 1.0);
    assert_eq!(Hardsigmoid.call((1.0f32,)), 4.0 / 6.0);
    assert!(Hardsigmoid.call((f64::NAN,)).is_nan());
    assert_eq!(
        Hardswish.call((bf16::from_f32(1.0),)),
        bf16::from_f32(4.0 / 6.0)
    );
}

#[test]
fn softsign_and_logit_round_like_pytorch() {
    assert_eq!(Softsign.call((1.0f32,)), 0.5);
    assert_eq!(Softsign.call((-3.0f64,)), -0.75);
    assert!(Softsign.call((f32::INFINITY,)).is_nan()); // inf / inf, as torch
    // Integers: |x| + 1 wraps in the integer type, then f32 division.
    assert_eq!(Softsign.call((i8::MIN,)), -128.0 / -127.0);
    assert_eq!(Softsign.call((255u8,)), f32::INFINITY);
    assert_eq!(Softsign.call((-3i32,)), -0.75);
    assert_eq!(Softsign.call(((1i64 << 40) + 1,)), 1.0);
    // f16: x / f16(|x| + 1), two roundings (PyTorch's `x / (x.abs() + 1)`).
    let mut differs = 0;
    for bits in 0..0x7c00u16 {
        let x = f16::from_bits(bits);
        let xf = x.to_f32();
        let two = f16::from_f32(xf / f16::from_f32(xf + 1.0).to_f32());
        differs += (two != f16::from_f32(xf / (xf + 1.0))) as usize;
        assert_eq!(Softsign.call((x,)), two, "softsign({x})");
    }
    assert!(differs > 0);

    // logit = log(x / (1 - x)), inf at exactly 1, NaN outside [0, 1].
    assert_eq!(Logit.call((0.5f32,)), 0.0);
    assert_eq!(Logit.call((1.0f64,)), f64::INFINITY);
    assert_eq!(Logit.call((0.0f32,)), f32::NEG_INFINITY);
    assert!(Logit.call((2.0f64,)).is_nan() && Logit.call((-0.5f32,)).is_nan());
    // PyTorch's formula, not log(x) - log1p(-x) (they differ by ulps near 0.5).
    let x = 0.500_000_1f64;
    assert_eq!(Logit.call((x,)), (x / (1.0 - x)).ln());
    // f16/bf16: every step rounded to the format, as PyTorch's Half arithmetic.
    let mut differs = 0;
    for bits in 0x0001..0x3c00u16 {
        let x = f16::from_bits(bits);
        let r = |v: f32| f16::from_f32(v).to_f32();
        let xf = x.to_f32();
        let step = f16::from_f32(libm::logf(r(xf / r(1.0 - xf))));
        differs += (step != f16::from_f32(libm::logf(xf / (1.0 - xf)))) as usize;
        assert_eq!(Logit.call((x,)), step, "logit({x})");
    }
    assert!(differs > 0);
}

#[test]
fn more_binary_specials() {
    // xlogy: 0 where x == 0 (even at y = 0 or inf), NaN whenever y is NaN.
    assert_eq!(Xlogy.call((0.0f32, 0.0)).to_bits(), 0.0f32.to_bits());
    assert_eq!(Xlogy.call((-0.0f64, 0.0)).to_bits(), 0.0f64.to_bits());
    assert_eq!(Xlogy.call((0.0f64, f64::INFINITY)), 0.0);
    assert!(Xlogy.call((0.0f32, f32::NAN)).is_nan());
    assert!(Xlogy.call((f32::NAN, 0.0)).is_nan());
    assert_eq!(Xlogy.call((2.0f64, 1.0)), 0.0);
    assert_eq!(Xlogy.call((3.0f32, 0.0)), f32::NEG_INFINITY);
    assert!(close64(Xlogy.call((2.0f64, std::f64::consts::E)), 2.0));
    // logaddexp: equal infinities give themselves; large equal values do not overflow.
    assert_eq!(
        Logaddexp.call((f32::INFINITY, f32::INFINITY)),
        f32::INFINITY
    );
    assert_eq!(
        Logaddexp.call((f64::NEG_INFINITY, f64::NEG_INFINITY)),
        f64::NEG_INFINITY
    );
    assert_eq!(
        Logaddexp.call((f32::INFINITY, f32::NEG_INFINITY)),
        f32::INFINITY
    );
    assert_eq!(Logaddexp.call((f64::NEG_INFINITY, 2.0)), 2.0);
    assert!(close64(
        Logaddexp.call((1000.0f64, 1000.0)),
        1000.0 + std::f64::consts::LN_2
    ));
    assert!(close64(
        Logaddexp.call((-1000.0f64, -1000.0)),
        -1000.0 + std::f64::consts::LN_2
    ));
    assert!(close32(
        Logaddexp.call((0.0f32, 0.0)),
        std::f64::consts::LN_2
    ));
    assert!(
        Logaddexp.call((f32::NAN, 1.0)).is_nan() && Logaddexp.call((1.0f64, f64::NAN)).is_nan()
    );
    assert!(Logaddexp.call((f64::NAN, f64::INFINITY)).is_nan());
    // fmax/fmin ignore a NaN operand.
    assert_eq!(Fmax.call((f32::NAN, 1.0)), 1.0);
    assert_eq!(Fmax.call((1.0f64, f64::NAN)), 1.0);
    assert!(Fmax.call((f32::NAN, f32::NAN)).is_nan());
    assert_eq!(Fmin.call((f64::NAN, -1.0)), -1.0);
    assert_eq!(Fmin.call((-1.0f32, f32::NAN)), -1.0);
    assert_eq!(
        Fmax.call((f16::NAN, f16::from_f32(2.0))),
        f16::from_f32(2.0)
    );
    assert_eq!(
        Fmin.call((bf16::from_f32(2.0), bf16::NAN)),
        bf16::from_f32(2.0)
    );
    assert_eq!(Fmax.call((-3i8, 2)), 2);
    assert_eq!(Fmin.call((200u8, 7)), 7);
    assert!(Fmax.call((true, false)) && !Fmin.call((true, false)));
    // heaviside: values at ±0, 0 for NaN and negatives, 1 for positives.
    assert_eq!(Heaviside.call((0.0f32, 0.5)), 0.5);
    assert_eq!(Heaviside.call((-0.0f64, 0.25)), 0.25);
    assert_eq!(Heaviside.call((f64::NAN, 0.5)), 0.0);
    assert_eq!(Heaviside.call((-3.0f32, 7.0)), 0.0);
    assert_eq!(Heaviside.call((f16::from_f32(2.0), f16::NAN)), f16::ONE);
    assert!(Heaviside.call((bf16::ZERO, bf16::NAN)).is_nan());
    assert_eq!(Heaviside.call((0i8, -5)), -5);
    assert_eq!(Heaviside.call((-2i64, 9)), 0);
    assert_eq!(Heaviside.call((9i32, 5)), 1);
    assert_eq!(Heaviside.call((0u8, 77)), 77);
    assert!(Heaviside.call((false, true)) && Heaviside.call((true, false)));
    assert!(!Heaviside.call((false, false)));
}

#[test]
fn nextafter_steps_in_its_own_format() {
    assert_eq!(Nextafter.call((1.0f32, 2.0)), 1.0 + f32::EPSILON);
    assert_eq!(Nextafter.call((1.0f64, 0.0)), 1.0 - f64::EPSILON / 2.0);
    assert_eq!(Nextafter.call((0.0f32, -1.0)), -f32::from_bits(1));
    assert_eq!(
        Nextafter.call((0.0f64, -0.0)).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(Nextafter.call((f32::MAX, f32::INFINITY)), f32::INFINITY);
    assert!(Nextafter.call((f64::NAN, 1.0)).is_nan());
    // f16/bf16 step by one unit of *their* last place (through f32 they would not move).
    let h = |x: f32| f16::from_f32(x);
    let b = |x: f32| bf16::from_f32(x);
    assert_eq!(Nextafter.call((h(1.0), h(2.0))), h(1.0 + 2f32.powi(-10)));
    assert_eq!(Nextafter.call((h(1.0), h(0.0))), h(1.0 - 2f32.powi(-11)));
    assert_eq!(Nextafter.call((b(1.0), b(2.0))), b(1.0 + 2f32.powi(-7)));
    assert_eq!(Nextafter.call((b(-1.0), b(0.0))), b(-1.0 + 2f32.powi(-8)));
    assert_eq!(Nextafter.call((h(0.0), h(1.0))), f16::from_bits(1));
    assert_eq!(Nextafter.call((h(0.0), h(-1.0))), f16::from_bits(0x8001));
    assert_eq!(Nextafter.call((b(-0.0), b(0.0))).to_bits(), 0);
    assert_eq!(Nextafter.call((h(65504.0), f16::INFINITY)), f16::INFINITY);
    assert_eq!(Nextafter.call((f16::INFINITY, h(0.0))), f16::MAX);
    assert_eq!(Nextafter.call((b(3.0), b(3.0))), b(3.0));
    assert!(Nextafter.call((bf16::NAN, b(1.0))).is_nan());
    assert!(Nextafter.call((h(1.0), f16::NAN)).is_nan());
}

#[test]
fn gcd_lcm_follow_pytorch() {
    assert_eq!(Gcd.call((12i32, -18)), 6);
    assert_eq!(Gcd.call((0i64, 0)), 0);
    assert_eq!(Gcd.call((0i16, -5)), 5);
    assert_eq!(Gcd.call((-7i8, 0)), 7);
    assert_eq!(Gcd.call((200u8, 150)), 50);
    // |MIN| wraps to MIN, as PyTorch's std::abs stored back in the type.
    assert_eq!(Gcd.call((i8::MIN, 0)), i8::MIN);
    assert_eq!(Gcd.call((i64::MIN, 0)), i64::MIN);
    assert_eq!(Gcd.call((i32::MIN, 1)), 1);
    assert_eq!(Lcm.call((4i32, 6)), 12);
    assert_eq!(Lcm.call((-4i64, 6)), 12);
    assert_eq!(Lcm.call((4i16, -6)), 12);
    assert_eq!(Lcm.call((0i8, 5)), 0);
    assert_eq!(Lcm.call((0u8, 0)), 0);
    // i8/i16/u8: `a / g * b` and its abs in C's int, then truncated: lcm(8, 25) = 200 -> -56
    // (abs after wrapping would give 56).
    assert_eq!(Lcm.call((8i8, 25)), -56);
    assert_eq!(Lcm.call((-100i8, 3)), 44);
    assert_eq!(Lcm.call((255u8, 2)), 254);
    assert_eq!(Lcm.call((300i16, 7)), 2100);
    // i32/i64 wrap in their own width.
    assert_eq!(Lcm.call((65536i32, 65537)), 65536);
    assert_eq!(
        Lcm.call((i64::MAX, i64::MAX - 1)),
        i64::MAX.wrapping_mul(i64::MAX - 1).wrapping_abs()
    );
}

#[test]
fn signbit_sees_negative_zero_and_nan() {
    assert!(Signbit.call((-0.0f32,)) && !Signbit.call((0.0f32,)));
    assert!(Signbit.call((-0.0f64,)) && Signbit.call((f64::NEG_INFINITY,)));
    assert!(Signbit.call((f32::from_bits(0xffc0_0000),)));
    assert!(!Signbit.call((f32::NAN,)));
    assert!(Signbit.call((f16::from_bits(0x8000),)) && !Signbit.call((f16::ZERO,)));
    assert!(Signbit.call((bf16::from_bits(0xffc0),)) && !Signbit.call((bf16::NAN,)));
    assert!(Signbit.call((-1i8,)) && Signbit.call((i64::MIN,)) && !Signbit.call((0i32,)));
    assert!(!Signbit.call((255u8,)) && !Signbit.call((true,)) && !Signbit.call((i16::MAX,)));
}

/// The tensor op `x ** s` runs one kernel per exponent case (`PowScalarCase`, the case chosen
/// once); every case must give the per-element functor's bits, on special inputs too.
#[test]
fn pow_scalar_kernel_per_case_matches_the_functor() {
    use weft::ops::{Operand, binary::binary};
    use weft::{DynTensor, Scalar, Tensor};
    let xs32: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -2.5,
        1e-30,
        3e38,
        -3e38,
        1e20,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-45,
        0.75,
        7.0,
    ];
    for e in [2.0f64, 3.0, 0.5, -0.5, -1.0, -2.0, 1.5, -3.25, 0.0] {
        let x = DynTensor::from(Tensor::<f32>::from_vec(xs32.clone(), &[xs32.len()]).unwrap());
        let got = binary(
            BinaryOp::Pow,
            Operand::Tensor(&x),
            Operand::Scalar(Scalar::Float(e)),
            None,
        )
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
        for (g, &v) in got.iter().zip(&xs32) {
            let want = PowScalar { exp: e as f32 }.call((v,));
            assert_eq!(g.to_bits(), want.to_bits(), "f32 {v:e} ** {e}");
        }
        let xs64: Vec<f64> = xs32.iter().map(|&v| v as f64).collect();
        let x = DynTensor::from(Tensor::<f64>::from_vec(xs64.clone(), &[xs64.len()]).unwrap());
        let got = binary(
            BinaryOp::Pow,
            Operand::Tensor(&x),
            Operand::Scalar(Scalar::Float(e)),
            None,
        )
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
        for (g, &v) in got.iter().zip(&xs64) {
            let want = PowScalar { exp: e }.call((v,));
            assert_eq!(g.to_bits(), want.to_bits(), "f64 {v:e} ** {e}");
        }
    }
}

/// `nextafter` (branch-free selects on the bits) gives libm's results for every pair of edge
/// values: zeros of both signs, subnormals, the largest finite values, infinities, NaN, and
/// ordinary values around them.
#[test]
fn nextafter_matches_libm_on_edges() {
    let e32: Vec<f32> = [
        0.0f32,
        -0.0,
        1e-45,
        -1e-45,
        1.1754942e-38,
        1.1754944e-38,
        1.0,
        -1.0,
        1.5,
        -2.5,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.0e-41,
    ]
    .to_vec();
    for &x in &e32 {
        for &y in &e32 {
            let (got, want) = (Nextafter.call((x, y)), libm::nextafterf(x, y));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "f32 {x:e} {y:e}"
            );
            let (x, y) = (x as f64, y as f64);
            let (got, want) = (Nextafter.call((x, y)), libm::nextafter(x, y));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "f64 {x:e} {y:e}"
            );
        }
    }
    let tiny = f64::from_bits(1);
    assert_eq!(Nextafter.call((0.0f64, -1.0)).to_bits(), (-tiny).to_bits());
    assert_eq!(Nextafter.call((-tiny, 1.0)).to_bits(), (-0.0f64).to_bits());
}

/// f64 `exp2` has a narrow form (one scale factor, no threshold selects) the kernels run per
/// block where every input is at least -1020: it must give `call`'s bits there, and the domain
/// must exclude NaN and everything whose result is subnormal. Random inputs over the whole
/// domain, every quarter from -1021 to 1025, and the overflow edge bit by bit.
#[test]
fn exp2_f64_narrow_form_matches_the_exact_one() {
    let f = unary_float::Exp2;
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut xs: Vec<f64> = (0..200_000)
        .map(|_| {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            -1030.0 + 2060.0 * u
        })
        .collect();
    xs.extend((-4084..=4100).map(|q| q as f64 / 4.0));
    let edge = 1024f64;
    xs.extend((0..64).flat_map(|i| {
        let below = f64::from_bits(edge.to_bits() - i);
        [
            below,
            f64::from_bits(edge.to_bits() + i),
            -1020.0 + i as f64 * 1e-3,
        ]
    }));
    xs.extend([0.0, -0.0, 1e-300, -1e-300, f64::INFINITY, 2e300, f64::MAX]);
    let mut narrow = 0;
    for &x in &xs {
        if !f.in_narrow_domain((x,)) {
            assert!(x.is_nan() || x < -1020.0, "{x} is outside");
            continue;
        }
        narrow += 1;
        let (got, want) = (f.call_narrow((x,)), f.call((x,)));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "exp2({x:e}): {got:e} vs {want:e}"
        );
        assert!(got >= f64::MIN_POSITIVE, "exp2({x}) = {got} is not normal");
    }
    assert!(!f.in_narrow_domain((f64::NAN,)) && !f.in_narrow_domain((f64::NEG_INFINITY,)));
    assert!(narrow > 190_000, "{narrow}");
}

/// f32 fmod, remainder and floor_divide have a narrow form (fmod by a corrected f32 quotient
/// and fused multiply-adds where |a / b| < 2^24) the kernels run per block where every element qualifies: it must give
/// `call`'s bits wherever `in_narrow_domain` holds. Pairs over all exponent gaps (quotients
/// near 2^24, near integers, subnormals, zeros and the special values).
#[test]
fn fmod_narrow_forms_match_the_exact_ones() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let specials = [
        0.0f32,
        -0.0,
        1e-45,
        -3e-39,
        1.0,
        -1.0,
        3.0,
        0.1,
        f32::INFINITY,
        f32::NAN,
        16777215.0,
        16777216.0,
        // 16777214 / 0.99999994 = 16777214.99999994 rounds to 16777215 in f32: the quotient's
        // truncation one too far at the top of the narrow domain.
        16777214.0,
        -16777214.0,
        0.99999994,
        1.0000001,
    ];
    let mut pairs: Vec<(f32, f32)> = Vec::new();
    for &a in &specials {
        for &b in &specials {
            pairs.push((a, b));
        }
    }
    for _ in 0..2_000_000 {
        let r = next();
        let b = f32::from_bits(((r as u32) & 0xbfff_ffff) | (0x0080_0000 * ((r >> 40) & 1) as u32));
        // a = b times a quotient up to ~2^26, perturbed by a few ulps: near-integer quotients.
        let q = ((r >> 32) % (1 << 26)) as f32
            * if r & (1 << 60) != 0 {
                1.0
            } else {
                1.0 / 1024.0
            };
        let a = f32::from_bits(
            (b * q)
                .to_bits()
                .wrapping_add(((r >> 56) as u32 % 5).wrapping_sub(2)),
        );
        pairs.push((if r & (1 << 61) != 0 { -a } else { a }, b));
    }
    let mut narrow = 0;
    for &(a, b) in &pairs {
        if !Fmod.in_narrow_domain((a, b)) {
            continue;
        }
        narrow += 1;
        let same = |x: f32, y: f32| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        assert!(
            same(Fmod.call_narrow((a, b)), Fmod.call((a, b))),
            "fmod {a:e} {b:e}"
        );
        assert!(
            same(Remainder.call_narrow((a, b)), Remainder.call((a, b))),
            "remainder {a:e} {b:e}"
        );
        assert!(
            same(FloorDivide.call_narrow((a, b)), FloorDivide.call((a, b))),
            "floor_divide {a:e} {b:e}"
        );
    }
    assert!(narrow > 1_000_000, "{narrow} pairs in the narrow domain");
}

/// Integer division as the reference computes it: truncating `wrapping_div`/`wrapping_rem`
/// (`MIN / -1` wraps to MIN, remainder 0), floored by PyTorch's adjustment; `b == 0` gives 0
/// (the ops layer reports it first).
macro_rules! int_division_reference_check {
    ($t:ty, $pairs:expr) => {{
        for (a, b) in $pairs {
            let (a, b): ($t, $t) = (a, b);
            let (q, r) = if b == 0 {
                (0, 0)
            } else {
                (a.wrapping_div(b), a.wrapping_rem(b))
            };
            let adjust = r != 0 && ((r < 0) != (b < 0));
            let floor_q = if adjust { q.wrapping_sub(1) } else { q };
            let floor_r = if adjust { r.wrapping_add(b) } else { r };
            assert_eq!(
                FloorDivide.call((a, b)),
                floor_q,
                "{a} // {b} ({})",
                stringify!($t)
            );
            assert_eq!(
                Remainder.call((a, b)),
                floor_r,
                "{a} % {b} ({})",
                stringify!($t)
            );
            assert_eq!(Fmod.call((a, b)), r, "fmod({a}, {b}) ({})", stringify!($t));
        }
    }};
}

/// Values to pair for the wider types: every edge (0, ±1, ±2, MIN, MAX and their neighbours,
/// powers of two and their neighbours) and seeded random values of every magnitude.
fn int_edges_and_random(bits: u32, signed: bool, n: usize) -> Vec<i128> {
    let (min, max): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mut v: Vec<i128> = vec![0, 1, 2, 3, min, min + 1, min + 2, max, max - 1, max - 2];
    for k in 0..bits {
        for d in [-1i128, 0, 1] {
            v.extend([(1i128 << k) + d, -(1i128 << k) + d]);
        }
    }
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ bits as u64;
    for _ in 0..n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // A random magnitude: shift a random word right by a random amount.
        let x = (s >> (s % 64)) as i128 * if s & (1 << 20) != 0 { -1 } else { 1 };
        v.push(x);
    }
    v.retain(|&x| (min..=max).contains(&x));
    v.sort();
    v.dedup();
    v
}

/// floor_divide, remainder and fmod on integers (which divide through f32/f64 where exact, see
/// `functors::arith::TruncDivRem`) against the integer instruction's results: every pair of
/// 8-bit values, and for 16/32/64-bit types all pairs of ~250 edge and random values, plus
/// 10^6 random 16-bit pairs.
#[test]
// One body for signed and unsigned types: `x < 0` is always false for the unsigned ones.
#[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
fn integer_division_matches_the_integer_instruction() {
    let all8 = |lo: i32, hi: i32| (lo..=hi).flat_map(move |a| (lo..=hi).map(move |b| (a, b)));
    int_division_reference_check!(i8, all8(-128, 127).map(|(a, b)| (a as i8, b as i8)));
    int_division_reference_check!(u8, all8(0, 255).map(|(a, b)| (a as u8, b as u8)));
    macro_rules! pairs_of {
        ($t:ty, $bits:expr, $signed:expr) => {{
            let v = int_edges_and_random($bits, $signed, 200);
            let pairs: Vec<($t, $t)> = v
                .iter()
                .flat_map(|&a| v.iter().map(move |&b| (a as $t, b as $t)))
                .collect();
            int_division_reference_check!($t, pairs);
        }};
    }
    pairs_of!(i16, 16, true);
    pairs_of!(u16, 16, false);
    pairs_of!(i32, 32, true);
    pairs_of!(u32, 32, false);
    pairs_of!(i64, 64, true);
    pairs_of!(u64, 64, false);
    let mut s = 12345u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 32) as u32
    };
    let pairs16: Vec<(u32, u32)> = (0..1_000_000).map(|_| (next(), next())).collect();
    int_division_reference_check!(i16, pairs16.iter().map(|&(a, b)| (a as i16, b as i16)));
    int_division_reference_check!(u16, pairs16.iter().map(|&(a, b)| (a as u16, b as u16)));
    int_division_reference_check!(
        i32,
        pairs16
            .iter()
            .map(|&(a, b)| (a as i32, (b >> (a % 31)) as i32))
    );
}

/// Integer `pow` (a branch-free square-and-multiply over every exponent bit for 8/16-bit
/// types) against repeated wrapping multiplication, with PyTorch's negative-exponent rule:
/// every 8-bit pair, 16-bit bases with every exponent up to 40 and edge exponents, and the
/// scalar-exponent kernels (`x ** 2`, `x ** 3`, the general case) through the tensor op.
#[test]
// One body for signed and unsigned types: `x < 0` is always false for the unsigned ones.
#[allow(unused_comparisons, clippy::absurd_extreme_comparisons)]
fn integer_pow_matches_repeated_multiplication() {
    macro_rules! check {
        ($t:ty, $a:expr, $b:expr) => {{
            let (a, b): ($t, $t) = ($a, $b);
            let want: $t = if b < 0 {
                if a == 1 {
                    1
                } else if a.wrapping_add(1) == 0 {
                    if b & 1 != 0 { a } else { 1 }
                } else {
                    0
                }
            } else {
                // Square-and-multiply on the wrapped values equals b-fold multiplication.
                let mut r: $t = 1;
                let (mut p, mut e) = (a, b);
                while e > 0 {
                    if e & 1 != 0 {
                        r = r.wrapping_mul(p);
                    }
                    p = p.wrapping_mul(p);
                    e >>= 1;
                }
                r
            };
            assert_eq!(Pow.call((a, b)), want, "{a} ** {b} ({})", stringify!($t));
            assert_eq!(PowScalar { exp: b }.call((a,)), want, "{a} ** {b} scalar");
        }};
    }
    // b-fold multiplication for small b, to pin the reference itself.
    for a in -128i32..=127 {
        for b in 0..12i32 {
            let mut w = 1i8;
            for _ in 0..b {
                w = w.wrapping_mul(a as i8);
            }
            assert_eq!(Pow.call((a as i8, b as i8)), w, "{a} ** {b}");
        }
    }
    for a in 0..=255u32 {
        for b in 0..=255u32 {
            check!(u8, a as u8, b as u8);
            check!(i8, a as u8 as i8, b as u8 as i8);
        }
    }
    for a in int_edges_and_random(16, true, 300) {
        for b in (-3..=40).chain([i16::MAX as i128, i16::MIN as i128, 1000, 4097]) {
            check!(i16, a as i16, b as i16);
            check!(u16, a as u16, b as u16);
            check!(i32, a as i32, b as i32);
            check!(i64, a as i64, b as i64);
        }
    }
    use weft::ops::{Operand, binary::binary};
    use weft::{DynTensor, Scalar, Tensor};
    let xs: Vec<i16> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        181,
        182,
        -182,
        255,
        256,
        i16::MAX,
        i16::MIN,
        7,
    ];
    for e in [2i64, 3, 0, 1, 4, 5, 17, 40] {
        let x = DynTensor::from(Tensor::<i16>::from_vec(xs.clone(), &[xs.len()]).unwrap());
        let got = binary(
            BinaryOp::Pow,
            Operand::Tensor(&x),
            Operand::Scalar(Scalar::Int(e)),
            None,
        )
        .unwrap()
        .to_vec::<i16>()
        .unwrap();
        for (&g, &v) in got.iter().zip(&xs) {
            assert_eq!(g, PowScalar { exp: e as i16 }.call((v,)), "{v} ** {e}");
        }
    }
}

/// Gcd and lcm of 8-bit integers (a fixed-step Euclid in f32 that vectorizes) and 16-bit ones
/// (the loop with the division instruction) against PyTorch's loop (`|a|`, `|b|` wrapping in the type, C's truncating `%` on the promoted values,
/// `lcm = |a / g * b|` in `int`; NumPy's unsigned form for u16): every 8-bit pair, and for
/// 16-bit types all pairs of ~250 edge and random values, the consecutive Fibonacci pairs (the
/// most Euclid steps) in both orders and with `MIN`, and 10^6 random pairs.
#[test]
fn small_integer_gcd_lcm_match_pytorchs_loop() {
    fn gcd_ref(a: i32, b: i32) -> i32 {
        let (mut a, mut b) = (a, b);
        while a != 0 {
            let c = a;
            a = b % a;
            b = c;
        }
        b
    }
    macro_rules! check {
        ($t:ty, $w:ty, $abs:expr, $pairs:expr) => {{
            let mut n = 0usize;
            for (a, b) in $pairs {
                let (a, b): ($t, $t) = (a, b);
                let g = gcd_ref(($abs)(a) as i32, ($abs)(b) as i32) as $t;
                let l = if g == 0 {
                    0
                } else {
                    let p = (a as $w).wrapping_div(g as $w).wrapping_mul(b as $w);
                    #[allow(unused_comparisons)]
                    let p = if p < 0 { p.wrapping_neg() } else { p };
                    p as $t
                };
                assert_eq!(
                    Functor::call(&Gcd, (a, b)),
                    g,
                    "gcd({a}, {b}) as {}",
                    stringify!($t)
                );
                assert_eq!(
                    Functor::call(&Lcm, (a, b)),
                    l,
                    "lcm({a}, {b}) as {}",
                    stringify!($t)
                );
                n += 1;
            }
            assert!(n > 0);
        }};
    }
    let all8 = |lo: i32, hi: i32| (lo..=hi).flat_map(move |a| (lo..=hi).map(move |b| (a, b)));
    check!(
        i8,
        i32,
        |x: i8| x.wrapping_abs(),
        all8(-128, 127).map(|(a, b)| (a as i8, b as i8))
    );
    check!(
        u8,
        i32,
        |x: u8| x,
        all8(0, 255).map(|(a, b)| (a as u8, b as u8))
    );
    let mut fib = vec![1i128, 2];
    while *fib.last().unwrap() < 70_000 {
        fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
    }
    let mut v16: Vec<i128> = int_edges_and_random(16, true, 200);
    v16.extend(int_edges_and_random(16, false, 50));
    v16.extend(fib.iter().flat_map(|&f| [f, -f, f - 1, f + 1]));
    v16.extend([-32768, 32767, 65535, 65534, 32768]);
    let mut s = 99u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 32) as u32
    };
    let random: Vec<(u32, u32)> = (0..1_000_000).map(|_| (next(), next())).collect();
    macro_rules! sixteen {
        ($t:ty, $w:ty, $abs:expr) => {{
            let pairs = v16
                .iter()
                .flat_map(|&a| v16.iter().map(move |&b| (a as $t, b as $t)))
                .chain(random.iter().map(|&(a, b)| (a as $t, b as $t)));
            check!($t, $w, $abs, pairs);
        }};
    }
    sixteen!(i16, i32, |x: i16| x.wrapping_abs());
    sixteen!(u16, u32, |x: u16| x);
}

/// 32-bit integer `pow` has a narrow form (square-and-multiply over 8 exponent bits, for
/// blocks whose exponents are all in 0..256) that must give `call`'s bits (PyTorch's loop,
/// wrapping) there, and `in_narrow_domain` must hold exactly there (checked for the 64-bit
/// types too, which keep the loop: `HAS_NARROW_DOMAIN` is false for them).
#[test]
fn wide_integer_pow_narrow_form_matches_the_loop() {
    macro_rules! check {
        ($($t:ty),*) => {$({
            let mut s = 0x2545_f491_4f6c_dd1du64;
            let mut bases: Vec<$t> = vec![0, 1, 2, 3, 7, 10, <$t>::MAX, <$t>::MIN, <$t>::MAX / 3];
            #[allow(unused_comparisons)]
            if <$t>::MIN < 0 {
                bases.extend([(0 as $t).wrapping_sub(1), (0 as $t).wrapping_sub(2), (0 as $t).wrapping_sub(3)]);
            }
            for _ in 0..2000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                bases.push(s as $t);
            }
            for &a in &bases {
                for b in 0..256 {
                    let b = b as $t;
                    assert!(Pow.in_narrow_domain((a, b)), "{} {b}", stringify!($t));
                    assert_eq!(Pow.call_narrow((a, b)), Pow.call((a, b)), "{} {a} ** {b}", stringify!($t));
                }
                for b in [256 as $t, <$t>::MAX, <$t>::MAX / 2 + 1] {
                    assert!(!Pow.in_narrow_domain((a, b)), "{} {b}", stringify!($t));
                }
                #[allow(unused_comparisons)]
                if <$t>::MIN < 0 {
                    assert!(!Pow.in_narrow_domain((a, (0 as $t).wrapping_sub(1))));
                    assert!(!Pow.in_narrow_domain((a, <$t>::MIN)));
                }
            }
        })*};
    }
    check!(i32, u32, i64, u64);
    const { assert!(<Pow as Functor<(i32, i32)>>::HAS_NARROW_DOMAIN) };
    const { assert!(!<Pow as Functor<(i64, i64)>>::HAS_NARROW_DOMAIN) };
    // Spot values: 3^255 wraps, (-1)^odd, 2^40 in 64 bits.
    assert_eq!(Pow.call_narrow((3i32, 255)), 3i32.wrapping_pow(255));
    assert_eq!(Pow.call_narrow((-1i64, 201)), -1);
    assert_eq!(Pow.call_narrow((2u64, 40)), 1 << 40);
}

/// exp and sigmoid run narrow forms per block where every result (and sigmoid's e^-|x|) is
/// normal, and elsewhere general forms that make subnormal values without a subnormal
/// floating-point operation (no microcode assists). The general forms must give the bits of
/// the plain full-range functions (`fastmath::exp_f32`, `fastmath::sigmoid_f32`: correct
/// everywhere, only slow on subnormals) for every input, and the narrow forms the same bits on
/// their domain: every f32 with |x| in [64, 128) (the subnormal and underflow range, the narrow
/// domain's edge, and sigmoid's other side), one bit pattern in 61 elsewhere (NaNs of both
/// signs included), and the specials.
#[test]
fn exp_and_sigmoid_general_forms_give_the_plain_bits() {
    use weft::functors::fastmath::{exp_f32, sigmoid_f32};
    let check = |x: f32| {
        let plain = exp_f32(x).to_bits();
        assert_eq!(
            Exp.call((x,)).to_bits(),
            plain,
            "exp({x:e} = {:#x})",
            x.to_bits()
        );
        if Exp.in_narrow_domain((x,)) {
            let narrow = Exp.call_narrow((x,)).to_bits();
            assert_eq!(narrow, plain, "narrow exp({x:e} = {:#x})", x.to_bits());
        }
        let plain = sigmoid_f32(x).to_bits();
        assert_eq!(
            Sigmoid.call((x,)).to_bits(),
            plain,
            "sigmoid({x:e} = {:#x})",
            x.to_bits()
        );
        if Sigmoid.in_narrow_domain((x,)) {
            let narrow = Sigmoid.call_narrow((x,)).to_bits();
            assert_eq!(narrow, plain, "narrow sigmoid({x:e} = {:#x})", x.to_bits());
        }
    };
    for bits in 64f32.to_bits()..128f32.to_bits() {
        check(f32::from_bits(bits));
        check(-f32::from_bits(bits));
    }
    for bits in (0..=u32::MAX).step_by(61) {
        check(f32::from_bits(bits));
    }
    for x in [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
    ] {
        check(x);
    }
    // The narrow domain: e^-86.5 is normal, with n = round(x/ln2) >= -125 (the narrow form's
    // single scale factor needs it); NaN is outside.
    assert!(Exp.in_narrow_domain((-86.5f32,)) && !Exp.in_narrow_domain((-86.51f32,)));
    assert!(Sigmoid.in_narrow_domain((86.5f32,)) && !Sigmoid.in_narrow_domain((-86.51f32,)));
    assert!(!Exp.in_narrow_domain((f32::NAN,)) && !Sigmoid.in_narrow_domain((f32::NAN,)));
}

/// f64 exp's narrow form (one scale factor, no thresholds) against the full-range `exp_f64`
/// on its domain (x >= -707): every 2^40th bit pattern there, the last 2^16 patterns below
/// the overflow threshold and past it, and the domain's edge.
#[test]
fn f64_exp_narrow_form_gives_the_plain_bits() {
    use weft::functors::fastmath::double::exp_f64;
    let check = |x: f64| {
        if Exp.in_narrow_domain((x,)) {
            let (n, p) = (Exp.call_narrow((x,)).to_bits(), exp_f64(x).to_bits());
            assert_eq!(n, p, "exp({x:e} = {:#x})", x.to_bits());
        }
    };
    for bits in (0..=u64::MAX).step_by(1 << 40) {
        check(f64::from_bits(bits));
    }
    let top = 709.782712893384f64.to_bits();
    for bits in top - (1 << 16)..top + (1 << 16) {
        check(f64::from_bits(bits));
    }
    let edge = (-707.0f64).to_bits();
    for bits in edge - (1 << 12)..edge + (1 << 12) {
        check(f64::from_bits(bits));
    }
    assert!(Exp.in_narrow_domain((-707.0f64,)) && !Exp.in_narrow_domain((-707.01f64,)));
}

/// f64 erfc's central form (|x| < 1.25, no exps) must give the `libm` crate's bits there (the
/// general form is libm's): 4M evenly spaced values over the domain, every 2^36th bit pattern
/// below it (down to the subnormals), and 2^14 patterns around each of fdlibm's cuts (2^-56,
/// 1/4, 0.84375, the domain's end), both signs; the domain must end at 1.25.
#[test]
fn f64_erfc_central_form_gives_libms_bits() {
    let check = |x: f64| {
        for x in [x, -x] {
            if Erfc.in_narrow_domain((x,)) {
                let (n, l) = (Erfc.call_narrow((x,)).to_bits(), libm::erfc(x).to_bits());
                assert_eq!(n, l, "erfc({x:e} = {:#x})", x.to_bits());
            }
        }
    };
    let n = 1u64 << 22;
    for i in 0..n {
        check(1.25 * i as f64 / n as f64);
    }
    for bits in (0..1.25f64.to_bits()).step_by(1 << 36) {
        check(f64::from_bits(bits));
    }
    for cut in [1.387_778_780_781_445_7e-17, 0.25, 0.84375, 1.25f64] {
        let c = cut.to_bits();
        for bits in c - (1 << 13)..c + (1 << 13) {
            check(f64::from_bits(bits));
        }
    }
    let below = f64::from_bits(1.25f64.to_bits() - 1);
    assert!(Erfc.in_narrow_domain((below,)) && Erfc.in_narrow_domain((-below,)));
    assert!(!Erfc.in_narrow_domain((1.25f64,)) && !Erfc.in_narrow_domain((f64::NAN,)));
}

/// floor_divide, remainder and fmod on 64-bit integers run an f64 division per block where
/// every magnitude is below 2^51: it must give `call`'s bits (the division instruction) there,
/// on every sign combination of edge values (0, ±1, ±2^k ± 1 up to the domain's ends, b == 0,
/// which the ops layer reports but the functors map to 0) and 400,000 random pairs of mixed
/// magnitudes, and the domain must end at 2^51 (-2^51 inside, for i64).
#[test]
fn int64_division_narrow_forms_match_the_instruction() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut edges: Vec<i64> = vec![0, 1, 2, 3, 7, (1 << 51) - 1, -(1 << 51)];
    for k in 1..51 {
        edges.extend([(1i64 << k) - 1, 1i64 << k, (1i64 << k) + 1]);
    }
    let negated: Vec<i64> = edges.iter().map(|v| -v).collect();
    edges.extend(negated);
    let mut pairs: Vec<(i64, i64)> = Vec::new();
    for &a in &edges {
        for &b in &edges {
            pairs.push((a, b));
        }
    }
    for _ in 0..400_000 {
        // Magnitudes spread over all bit lengths up to 51.
        let (x, y) = (next(), next());
        let a = (x as i64) >> (13 + (y % 51) as u32);
        let b = (y as i64) >> (13 + (x % 51) as u32);
        pairs.push((a, b));
    }
    fn narrow<T, F: Functor<(T, T)>>(f: &F, a: T, b: T) -> bool {
        f.in_narrow_domain((a, b))
    }
    fn both<T: Copy, F: Functor<(T, T)>>(f: &F, a: T, b: T) -> (F::Output, F::Output) {
        (f.call_narrow((a, b)), f.call((a, b)))
    }
    macro_rules! check {
        ($t:ty, $($op:expr),*) => {$(
            for &(a, b) in &pairs {
                let (a, b) = (a as $t, b as $t);
                if narrow(&$op, a, b) {
                    let (n, c) = both(&$op, a, b);
                    assert_eq!(n, c, "{} {:?} {a} {b}", stringify!($t), $op);
                }
            }
        )*};
    }
    check!(i64, FloorDivide, Remainder, Fmod);
    check!(u64, FloorDivide, Remainder, Fmod);
    const { assert!(<FloorDivide as Functor<(i64, i64)>>::HAS_NARROW_DOMAIN) };
    const { assert!(!<FloorDivide as Functor<(i32, i32)>>::HAS_NARROW_DOMAIN) };
    let edge = 1i64 << 51;
    assert!(narrow(&FloorDivide, -edge, edge - 1));
    assert!(!narrow(&FloorDivide, edge, 1) && !narrow(&FloorDivide, 1, -edge - 1));
    assert!(!narrow(&Fmod, i64::MIN, -1));
    assert!(narrow(&Remainder, (edge - 1) as u64, 3u64));
    assert!(!narrow(&Remainder, edge as u64, 3u64));
    // Spot values: floored and truncated signs, a zero divisor.
    assert_eq!(both(&FloorDivide, -7i64, 2), (-4, -4));
    assert_eq!(both(&Remainder, -7i64, 2), (1, 1));
    assert_eq!(both(&Fmod, -7i64, 2), (-1, -1));
    assert_eq!(both(&FloorDivide, 5i64, 0), (0, 0));
}

/// gcd and lcm on 16- to 64-bit integers run the vectorized 13-step Euclid (the 8-bit types'
/// form) per block where every magnitude is at most 255: it must give `call`'s bits (PyTorch's
/// loop with the division instruction) there, for every pair of magnitudes up to 300 and signs,
/// and the domain must end at 255 (and exclude `MIN`, whose magnitude wraps).
#[test]
fn gcd_lcm_narrow_forms_match_the_loops() {
    macro_rules! check {
        ($($t:ty),*) => {$(
            let range: Vec<$t> = (-300i64..=300).filter_map(|v| <$t>::try_from(v).ok()).collect();
            let mut narrow = 0;
            for &a in &range {
                for &b in &range {
                    let small = a as i128 >= -255 && a as i128 <= 255 && b as i128 >= -255 && b as i128 <= 255;
                    assert_eq!(Gcd.in_narrow_domain((a, b)), small, "{a} {b}");
                    assert_eq!(Lcm.in_narrow_domain((a, b)), small, "{a} {b}");
                    if small {
                        narrow += 1;
                        assert_eq!(Gcd.call_narrow((a, b)), Gcd.call((a, b)), "gcd({a}, {b}) {}", stringify!($t));
                        assert_eq!(Lcm.call_narrow((a, b)), Lcm.call((a, b)), "lcm({a}, {b}) {}", stringify!($t));
                    }
                }
            }
            assert!(narrow > 60_000, "{narrow}");
            assert!(!Gcd.in_narrow_domain((<$t>::MIN, 1 as $t)) || <$t>::MIN == 0 as $t);
            assert!(!Gcd.in_narrow_domain((<$t>::MAX, 1 as $t)));
        )*};
    }
    check!(i16, i32, i64, u16, u32, u64);
}

/// Every table op's narrow form (`Functor::call_narrow`, run by the kernels on blocks where
/// `in_narrow_domain` holds for every element) gives `call`'s bits wherever its domain holds:
/// f32 and f64, unary ops over values spread across every exponent of both signs plus the
/// special values, binary ops over all pairs of a smaller such set.
#[test]
fn every_narrow_form_is_the_plain_form_on_its_domain() {
    fn lcg(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s >> 16
        }
    }
    fn values32(n: u64) -> Vec<f32> {
        let mut r = lcg(7);
        let mut v: Vec<f32> = (0..n)
            .map(|i| f32::from_bits(((i << 32) / n) as u32 ^ (r() as u32 & 0xfff)))
            .collect();
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]);
        v.extend([
            f32::MIN_POSITIVE,
            f32::MAX,
            -f32::MAX,
            1e-45,
            -1e-45,
            -87.0,
            88.7,
        ]);
        v
    }
    fn values64(n: u64) -> Vec<f64> {
        let mut r = lcg(11);
        let mut v: Vec<f64> = (0..n)
            .map(|i| f64::from_bits((((i as u128) << 64) / n as u128) as u64 ^ (r() & 0xffff_ffff)))
            .collect();
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ]);
        v.extend([
            f64::MIN_POSITIVE,
            f64::MAX,
            -f64::MAX,
            5e-324,
            -5e-324,
            -708.0,
            709.7,
        ]);
        v
    }
    fn same<T: weft::Element>(a: T, b: T) -> bool {
        let (a, b) = (a.to_value().to_f64(), b.to_value().to_f64());
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }
    fn unary<T: Copy + core::fmt::Debug, F: Functor<(T,)> + core::fmt::Debug>(
        f: F,
        xs: &[T],
        bad: &mut Vec<String>,
    ) where
        F::Output: weft::Element,
    {
        if !F::HAS_NARROW_DOMAIN {
            return;
        }
        let mut inside = 0;
        for &x in xs {
            if f.in_narrow_domain((x,)) {
                inside += 1;
                if !same(f.call_narrow((x,)), f.call((x,))) {
                    bad.push(format!("{f:?}({x:?})"));
                }
            }
        }
        if inside == 0 {
            bad.push(format!("{f:?}: no value in the narrow domain"));
        }
    }
    fn binary<T: Copy + core::fmt::Debug, F: Functor<(T, T)> + core::fmt::Debug>(
        f: F,
        xs: &[T],
        bad: &mut Vec<String>,
    ) where
        F::Output: weft::Element,
    {
        if !F::HAS_NARROW_DOMAIN {
            return;
        }
        for &a in xs {
            for &b in xs {
                if f.in_narrow_domain((a, b)) && !same(f.call_narrow((a, b)), f.call((a, b))) {
                    bad.push(format!("{f:?}({a:?}, {b:?})"));
                }
            }
        }
    }
    let (u32s, u64s) = (values32(1 << 21), values64(1 << 21));
    let (b32s, b64s) = (values32(600), values64(600));
    let mut bad = Vec::new();
    macro_rules! check {
        (integral $f:ident $Op:ident $xs32:ident $xs64:ident) => {};
        (int $f:ident $Op:ident $xs32:ident $xs64:ident) => {};
        ($g:ident $f:ident $Op:ident $xs32:ident $xs64:ident) => {
            $f(<$Op>::default(), &$xs32, &mut bad);
            $f(<$Op>::default(), &$xs64, &mut bad);
        };
    }
    macro_rules! unary_lines {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($fl:ident)*];)*) => {
            $(check!($dtypes unary $Op u32s u64s);)*
        };
    }
    macro_rules! binary_lines {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($fl:ident)*];)*) => {
            $(check!($dtypes binary $Op b32s b64s);)*
        };
    }
    weft::unary_op_table!(unary_lines);
    weft::binary_op_table!(binary_lines);
    bad.truncate(20);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A functor that declares `CONSTANT_RESULT` (the kernels then fill the output from one input
/// element) gives one result for every argument: every table op over every dtype of its line,
/// on values from every part of each type's range.
#[test]
fn constant_results_do_not_depend_on_the_argument() {
    fn check<T: weft::DynElement + Copy, F: Functor<(T,)> + core::fmt::Debug>(
        f: F,
        bad: &mut Vec<String>,
    ) -> usize
    where
        F::Output: weft::Element,
    {
        use weft::Element;
        if !F::CONSTANT_RESULT {
            return 0;
        }
        let vs = [
            0.0, -0.0, 1.0, -1.0, 0.5, 127.0, -128.0, 255.0, 65535.0, -2e9, 4e9, 1e300,
        ]
        .into_iter()
        .chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1e-310]);
        let first = f
            .call((weft::element::convert_value::<f64, T>(0.0),))
            .to_value()
            .to_f64();
        for v in vs {
            let got = f
                .call((weft::element::convert_value::<f64, T>(v),))
                .to_value()
                .to_f64();
            if got.to_bits() != first.to_bits() {
                bad.push(format!("{f:?}: {v} gives {got}, 0 gives {first}"));
            }
        }
        1
    }
    let mut bad = Vec::new();
    let mut constant = 0;
    for d in DType::ALL {
        macro_rules! lines {
            (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($fl:ident)*];)*) => {
                $(constant += weft::dispatch_dtypes!(d, $dtypes,
                    T => check::<T, _>(<$Op>::default(), &mut bad), _ => 0);)*
            };
        }
        weft::unary_op_table!(lines);
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // isnan, isinf, isfinite over 8 integer types and bool; signbit over 4 unsigned and bool.
    assert_eq!(constant, 3 * 9 + 5, "functors declaring a constant result");
}

/// `pow` with a scalar exponent (`PowScalarCase`): where a case runs the general `pow`, its
/// narrow form (a positive finite base, a finite exponent) gives `call`'s bits: f32 and f64
/// over bases spread across every exponent of both signs plus the special values, for
/// exponents of every size and sign; f16 and bf16 (computed in f32) over every f16/bf16 base.
#[test]
fn pow_scalar_narrow_forms_are_the_plain_form_on_their_domain() {
    use weft::functors::PowScalarCase;
    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }
    fn check<T, F>(f: F, xs: &[T], bad: &mut Vec<String>) -> usize
    where
        T: Copy + core::fmt::Debug,
        F: Functor<(T,)> + core::fmt::Debug,
        F::Output: weft::Element,
    {
        use weft::Element;
        assert!(F::HAS_NARROW_DOMAIN, "{f:?}");
        let mut inside = 0;
        for &x in xs {
            if f.in_narrow_domain((x,)) {
                inside += 1;
                let (n, p) = (f.call_narrow((x,)), f.call((x,)));
                if !same(n.to_value().to_f64(), p.to_value().to_f64()) {
                    bad.push(format!("{f:?}({x:?})"));
                }
            }
        }
        inside
    }
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
    ];
    let n = 1u64 << 16;
    let xs32: Vec<f32> = (0..n)
        .map(|i| f32::from_bits(((i << 32) / n) as u32 ^ 0x5a5))
        .chain(specials.iter().map(|&v| v as f32))
        .collect();
    let xs64: Vec<f64> = (0..n)
        .map(|i| f64::from_bits((((i as u128) << 64) / n as u128) as u64 ^ 0x5a5a_5a5a))
        .chain(specials)
        .collect();
    let halves: Vec<f32> = (0..=u16::MAX)
        .flat_map(|b| {
            [
                half::f16::from_bits(b).to_f32(),
                half::bf16::from_bits(b).to_f32(),
            ]
        })
        .collect();
    let exps = [
        -1e4, -151.5, -3.7, -1.5, -0.92, -1e-3, 1e-3, 0.3, 1.5, 2.5, 7.25, 40.5, 1e4,
    ];
    let mut bad = Vec::new();
    for e in exps {
        let mut inside = check(PowScalarCase::<f32, 6> { exp: e as f32 }, &xs32, &mut bad);
        inside += check(PowScalarCase::<f64, 6> { exp: e }, &xs64, &mut bad);
        let h = half::f16::from_f64(e);
        inside += check(PowScalarCase::<half::f16, 6> { exp: h }, &halves, &mut bad);
        let b = half::bf16::from_f64(e);
        inside += check(PowScalarCase::<half::bf16, 6> { exp: b }, &halves, &mut bad);
        assert!(inside > 0, "{e}: no base in the narrow domain");
    }
    // f16 runs the f32 `pow` in every case but `x * x`.
    let three = half::f16::from_f32(3.0);
    check(
        PowScalarCase::<half::f16, 1> { exp: three },
        &halves,
        &mut bad,
    );
    bad.truncate(20);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// f16/bf16 `floor_divide` is PyTorch's `div_floor_floating` instantiated for `Half` /
/// `BFloat16`: every operation computed in f32 and rounded to the type, the `fmod` and the
/// `floor` included. weft leaves those two roundings out (both are exact); this checks the
/// functors against the formula with all of them, bit for bit, over pairs spread across every
/// bit pattern (signs, subnormals, infinities, NaNs, zeros).
#[test]
fn half_floor_divide_is_div_floor_floating_rounded_at_every_step() {
    fn reference(a: f32, b: f32, round: impl Fn(f32) -> f32) -> f32 {
        if b == 0.0 {
            return round(a / b);
        }
        let m = round(a % b);
        let mut div = round(round(a - m) / b);
        if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
            div = round(div - 1.0);
        }
        if div != 0.0 {
            let mut fl = round(div.floor());
            if round(div - fl) > 0.5 {
                fl = round(fl + 1.0);
            }
            fl
        } else {
            0f32.copysign(round(a / b))
        }
    }
    fn same(x: f32, y: f32) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }
    // Every 97th bit pattern of each sign (676 values with the specials), all pairs.
    let mut patterns: Vec<u16> = (0..=0xffffu32).step_by(97).map(|b| b as u16).collect();
    patterns.extend([
        0, 0x8000, 0x0001, 0x8001, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7bff,
    ]);
    let mut checked = 0;
    for &pa in &patterns {
        for &pb in &patterns {
            let (a, b) = (f16::from_bits(pa), f16::from_bits(pb));
            let want = reference(a.to_f32(), b.to_f32(), |v| f16::from_f32(v).to_f32());
            let got = FloorDivide.call((a, b)).to_f32();
            assert!(
                same(got, want),
                "f16 {a:e} // {b:e}: {got:e}, want {want:e}"
            );
            let (a, b) = (bf16::from_bits(pa), bf16::from_bits(pb));
            let want = reference(a.to_f32(), b.to_f32(), |v| bf16::from_f32(v).to_f32());
            let got = FloorDivide.call((a, b)).to_f32();
            assert!(
                same(got, want),
                "bf16 {a:e} // {b:e}: {got:e}, want {want:e}"
            );
            checked += 1;
        }
    }
    assert!(checked > 450_000);
}

/// f32/f64 `logical_and` tests both operands at once (the lesser magnitude's bits): the same
/// answers as `a != 0 && b != 0` on zeros of either sign, subnormals, infinities, NaNs.
#[test]
fn float_logical_and_is_both_nonzero() {
    let f32s = [
        0.0f32,
        -0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        1.0,
        -2.5,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ];
    for &a in &f32s {
        for &b in &f32s {
            assert_eq!(LogicalAnd.call((a, b)), a != 0.0 && b != 0.0, "{a:?} {b:?}");
            let (a, b) = (a as f64, b as f64);
            assert_eq!(LogicalAnd.call((a, b)), a != 0.0 && b != 0.0, "{a:?} {b:?}");
        }
    }
    let tiny = f64::from_bits(1);
    assert!(LogicalAnd.call((tiny, -tiny)) && !LogicalAnd.call((tiny, -0.0)));
}

/// `Cast` is the identity exactly where it casts to its argument's own type: the kernels then
/// convert an input straight into the output (an f16 -> f32 cast), so a wrong `IS_IDENTITY`
/// would skip a conversion.
#[test]
fn cast_is_the_identity_only_to_its_own_type() {
    const { assert!(<Cast<f32> as Functor<(f32,)>>::IS_IDENTITY) };
    const { assert!(<Cast<f16> as Functor<(f16,)>>::IS_IDENTITY) };
    const { assert!(!<Cast<f32> as Functor<(f16,)>>::IS_IDENTITY) };
    const { assert!(!<Cast<f32> as Functor<(i32,)>>::IS_IDENTITY) };
    const { assert!(!<Cast<u32> as Functor<(i32,)>>::IS_IDENTITY) };
    const { assert!(!<Neg as Functor<(f32,)>>::IS_IDENTITY) };
}
