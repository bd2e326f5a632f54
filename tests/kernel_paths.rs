//! The kernel fast paths (2-D tiles for transposed operands, replicated periods for tiny inner
//! dims, the casting and half-precision paths, the vectorized f32 transcendentals) against the
//! plain path (every operand materialised contiguous, one flat run) and a naive per-element
//! reference. Fixed-seed proptest: failures reproduce.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use weft::functors::fastmath;
use weft::{DType, DynTensor, Tensor, Value};

fn runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    )
}

const DTYPES: [DType; 7] = [
    DType::F32,
    DType::F64,
    DType::I64,
    DType::I32,
    DType::U8,
    DType::F16,
    DType::BF16,
];

/// A random tensor of `dtype` with logical shape `[r, c]`, in layout `kind`:
/// 0 contiguous, 1 transposed (a `[c, r]` tensor's `.t()`), 2 a broadcast row `[c]`,
/// 3 a broadcast column `[r, 1]`, 4 a `[1, 1]` (broadcast both ways; a 0-d tensor would promote differently), 5 every other column of a wider tensor, 6 columns 1..=c of a
/// `[r, c + 3]` tensor (unit-stride rows that do not coalesce: the kernels' own row loops).
fn make(dtype: DType, r: usize, c: usize, kind: u8, seed: u64) -> DynTensor {
    let ints = |shape: &[usize]| {
        Tensor::<i64>::randint(shape, 0, 100, seed)
            .map(DynTensor::from)
            .unwrap()
            .to(dtype)
    };
    match kind {
        0 => ints(&[r, c]),
        1 => ints(&[c, r]).t(),
        2 => ints(&[c]),
        3 => ints(&[r, 1]),
        4 => ints(&[1, 1]),
        5 => ints(&[r, 2 * c]).slice(1, None, None, 2),
        _ => ints(&[r, c + 3]).slice(1, Some(1), Some(1 + c as isize), 1),
    }
}

fn values(t: &DynTensor) -> Vec<Value> {
    t.to_values()
}

#[test]
fn binary_layouts_match_plain_path() {
    let strat = (
        1usize..140,
        1usize..140,
        0u8..7,
        0u8..7,
        0usize..DTYPES.len(),
        0usize..DTYPES.len(),
        any::<u64>(),
    );
    runner(160)
        .run(&strat, |(r, c, ka, kb, da, db, seed)| {
            let (da, db) = (DTYPES[da], DTYPES[db]);
            let a = make(da, r, c, ka, seed);
            let b = make(db, r, c, kb, seed ^ 1);
            let got = a.try_add(&b).unwrap();
            // Plain path: both materialised at the full shape, contiguous.
            let shape = got.shape().to_vec();
            let pa = a.broadcast_to(&shape).contiguous();
            let pb = b.broadcast_to(&shape).contiguous();
            let plain = pa.try_add(&pb).unwrap();
            prop_assert_eq!(got.dtype(), plain.dtype());
            prop_assert_eq!(values(&got), values(&plain));
            // Naive: element by element in f64 (exact: small integers).
            let (va, vb) = (values(&pa), values(&pb));
            let f = |v: &Value| v.to_f64();
            for (i, g) in values(&got).iter().enumerate() {
                let want = f(&va[i]) + f(&vb[i]);
                // u8 + u8 wraps.
                let want = if got.dtype() == DType::U8 {
                    want % 256.0
                } else {
                    want
                };
                prop_assert_eq!(f(g), want, "element {}", i);
            }
            // Into a preallocated output of another layout (transposed).
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let out = DynTensor::zeros(got.dtype(), &rev).unwrap().t();
            a.try_add_out(&b, &out).unwrap();
            prop_assert_eq!(values(&out), values(&plain));
            Ok(())
        })
        .unwrap();
}

#[test]
fn unary_ops_over_sliced_rows_match_plain_path() {
    // Unit-stride rows at an outer stride wider than the row (the unary and ternary kernels'
    // own row loops), also beside a broadcast row (expanded: periodic), against the contiguous
    // copy.
    for c in (1..=17usize).chain([31, 32, 33, 64, 100, 256]) {
        for dtype in DTYPES {
            let a = make(dtype, 40, c, 6, c as u64);
            let dense = a.contiguous();
            for (name, got, want) in [
                ("neg", a.try_neg(), dense.try_neg()),
                ("abs", a.try_abs(), dense.try_abs()),
                ("exp", a.try_exp(), dense.try_exp()),
                ("sqrt", a.try_sqrt(), dense.try_sqrt()),
                (
                    "row",
                    a.try_add(&make(dtype, 40, c, 2, 3)),
                    dense.try_add(&make(dtype, 40, c, 2, 3).broadcast_to(&[40, c]).contiguous()),
                ),
            ] {
                let (got, want) = (got.unwrap(), want.unwrap());
                assert_eq!(values(&got), values(&want), "{name} {dtype:?} c {c}");
            }
            let expanded = make(dtype, 40, c, 2, 4).broadcast_to(&[40, c]);
            assert_eq!(
                values(&expanded.try_exp().unwrap()),
                values(&expanded.contiguous().try_exp().unwrap()),
                "exp of a broadcast row {dtype:?} c {c}"
            );
            // The ternary kernel's row loop: `where` over sliced rows, and beside a broadcast row.
            let cond = make(DType::Bool, 40, c, 6, 6);
            let other = make(dtype, 40, c, 6, 7);
            let row = make(dtype, 40, c, 2, 8);
            let dense_row = row.broadcast_to(&[40, c]).contiguous();
            let (dc, dother) = (cond.contiguous(), other.contiguous());
            let w = weft::ops::dyn_api::where_;
            assert_eq!(
                values(&w(&cond, &a, &other).unwrap()),
                values(&w(&dc, &dense, &dother).unwrap()),
                "where {dtype:?} c {c}"
            );
            assert_eq!(
                values(&w(&cond, &a, &row).unwrap()),
                values(&w(&dc, &dense, &dense_row).unwrap()),
                "where, row {dtype:?} c {c}"
            );
            // In place into the sliced rows.
            let wide = make(dtype, 40, c + 3, 0, 5);
            let view = wide.slice(1, Some(1), Some(1 + c as isize), 1);
            let want = view.try_neg().unwrap();
            let mut inplace = view.share();
            inplace.try_neg_().unwrap();
            assert_eq!(values(&view), values(&want), "neg_ {dtype:?} c {c}");
        }
    }
}

#[test]
fn small_inner_and_transposed_shapes() {
    // The exact geometries of the fast paths: rows whose periodic operand fits a period
    // buffer several times (inner 1..=17, and up to 1 KiB of bytes: the u8 + u8 rows; past it
    // the row walk) against a long outer dim, and square blocks past the tile size with a
    // transposed operand.
    for inner in (1..=17usize).chain([100, 255, 256, 257, 1024, 1025]) {
        for dtype in [DType::F32, DType::F16, DType::I64, DType::U8] {
            let a = make(dtype, 1000, inner, 0, inner as u64);
            let b = make(
                if dtype == DType::U8 {
                    dtype
                } else {
                    DType::F32
                },
                1000,
                inner,
                2,
                3,
            );
            let got = a.add(&b);
            let plain = a.add(&b.broadcast_to(&[1000, inner]).contiguous());
            assert_eq!(values(&got), values(&plain), "inner {inner} {dtype:?}");
            // A broadcast column (one value per row, spread over rows of a buffer) beside the
            // broadcast row, and alone.
            let col = make(dtype, 1000, inner, 3, 7);
            let dense_col = col.broadcast_to(&[1000, inner]).contiguous();
            assert_eq!(
                values(&a.add(&col)),
                values(&a.add(&dense_col)),
                "column, inner {inner} {dtype:?}"
            );
            // The column on either side of an op that does not commute (the binary kernel's
            // own row loop at every row width), and in place.
            assert_eq!(
                values(&col.try_sub(&a).unwrap()),
                values(&dense_col.try_sub(&a).unwrap()),
                "column - rows, inner {inner} {dtype:?}"
            );
            assert_eq!(
                values(&a.try_sub(&col).unwrap()),
                values(&a.try_sub(&dense_col).unwrap()),
                "rows - column, inner {inner} {dtype:?}"
            );
            let mut in_place = a.try_clone().unwrap();
            in_place.try_sub_(&col).unwrap();
            assert_eq!(
                values(&in_place),
                values(&a.try_sub(&dense_col).unwrap()),
                "rows -= column, inner {inner} {dtype:?}"
            );
            let w = weft::ops::dyn_api::where_(&make(DType::Bool, 1000, inner, 0, 9), &col, &b)
                .unwrap();
            let wp = weft::ops::dyn_api::where_(
                &make(DType::Bool, 1000, inner, 0, 9),
                &dense_col,
                &b.broadcast_to(&[1000, inner]).contiguous(),
            )
            .unwrap();
            assert_eq!(
                values(&w),
                values(&wp),
                "where column, inner {inner} {dtype:?}"
            );
            let c = make(DType::Bool, 1000, inner, 2, 5);
            let w = weft::ops::dyn_api::where_(&c, &a, &b).unwrap();
            let wp = weft::ops::dyn_api::where_(
                &c.broadcast_to(&[1000, inner]).contiguous(),
                &a,
                &b.broadcast_to(&[1000, inner]).contiguous(),
            )
            .unwrap();
            assert_eq!(values(&w), values(&wp), "where inner {inner}");
        }
    }
    for (r, c) in [(64, 64), (65, 130), (200, 70), (128, 128)] {
        for dtype in [DType::F32, DType::F64, DType::BF16, DType::I32] {
            let a = make(dtype, r, c, 1, 11);
            let b = make(dtype, r, c, 0, 12);
            assert_eq!(
                values(&a.add(&b)),
                values(&a.contiguous().add(&b)),
                "{r}x{c} {dtype:?}"
            );
        }
    }
}

fn ulp_f32(v: f64) -> f64 {
    let e = if v == 0.0 {
        -126
    } else {
        (v.abs().log2().floor() as i32).max(-126)
    };
    2f64.powi(e - 23)
}

#[test]
fn fastmath_within_golden_tolerance() {
    let mut x = -110.0f32;
    let mut worst = [0f64; 4];
    while x < 110.0 {
        let xd = x as f64;
        let checks = [
            (fastmath::exp_f32(x) as f64, xd.exp(), 2f64.powi(-126)),
            (
                fastmath::sigmoid_f32(x) as f64,
                1.0 / (1.0 + (-xd).exp()),
                2f64.powi(-126),
            ),
            (fastmath::tanh_f32(x) as f64, xd.tanh(), 2f64.powi(-126)),
            (
                fastmath::erf::gelu_f32(x) as f64,
                0.5 * xd * (1.0 + libm::erf(xd / std::f64::consts::SQRT_2)),
                2.0 * f32::EPSILON as f64 * xd.abs().max(1.0),
            ),
        ];
        for (k, (got, want, floor)) in checks.into_iter().enumerate() {
            let want_f32 = want as f32 as f64;
            if want_f32.is_infinite() {
                assert_eq!(got, want_f32, "op {k} at {x}");
                continue;
            }
            let err = (got - want).abs();
            let tol = 4.0 * ulp_f32(want) + floor;
            assert!(err <= tol, "op {k} at x = {x}: got {got}, want {want}");
            worst[k] = worst[k].max(err / ulp_f32(want));
        }
        x += 0.000_731 * x.abs().max(0.01);
    }
    for f in [
        fastmath::exp_f32,
        fastmath::sigmoid_f32,
        fastmath::tanh_f32,
        fastmath::erf::gelu_f32,
    ] {
        assert!(f(f32::NAN).is_nan());
    }
    assert_eq!(fastmath::exp_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(fastmath::exp_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(fastmath::tanh_f32(f32::INFINITY), 1.0);
    assert_eq!(fastmath::tanh_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(fastmath::tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(fastmath::sigmoid_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(fastmath::sigmoid_f32(f32::INFINITY), 1.0);
}

#[test]
fn unary_f32_fast_ops_match_functions() {
    // Through the ops layer, on contiguous (vectorized loop) and strided inputs alike.
    let a = Tensor::<f32>::randn(&[70, 90], 3)
        .map(DynTensor::from)
        .unwrap();
    for t in [a.clone(), a.t()] {
        let xs: Vec<f32> = t
            .to_values()
            .iter()
            .map(|v| match v {
                Value::F32(x) => *x,
                _ => unreachable!(),
            })
            .collect();
        type Case = (DynTensor, fn(f32) -> f32);
        let cases: [Case; 4] = [
            (t.exp(), fastmath::exp_f32),
            (t.sigmoid(), fastmath::sigmoid_f32),
            (t.tanh(), fastmath::tanh_f32),
            (
                t.gelu(weft::functors::GeluApproximate::None),
                fastmath::erf::gelu_f32,
            ),
        ];
        for (got, f) in cases {
            let want: Vec<Value> = xs.iter().map(|&x| Value::F32(f(x))).collect();
            assert_eq!(got.to_values(), want);
        }
    }
}

// ------------------------------------------------------------------ round 2 fast paths

use weft::Scalar;
use weft::functors::{BinaryOp, UnaryOp};
use weft::ops::binary::binary;
use weft::ops::unary::unary;

/// `Ok(values)` or the error's text: the fast and the general path must agree on both.
fn outcome(r: weft::Result<DynTensor>) -> Result<(DType, String), String> {
    r.map(|t| (t.dtype(), format!("{:?}", t.to_values())))
        .map_err(|e| e.to_string())
}

/// A copy of `t` (a contiguous tensor) as a non-contiguous view: every other element of a
/// wider tensor along the last dim. `None` for shapes without a last dim of 2 or more.
fn strided_copy(t: &DynTensor) -> Option<DynTensor> {
    let shape = t.shape().to_vec();
    let &last = shape.last()?;
    if last < 2 {
        return None;
    }
    let mut wide = shape.clone();
    *wide.last_mut().unwrap() = 2 * last;
    let nd = shape.len();
    let mut view =
        DynTensor::zeros(t.dtype(), &wide)
            .unwrap()
            .slice((nd - 1) as isize, None, None, 2);
    view.copy_(t);
    assert!(!view.is_contiguous());
    Some(view)
}

const FLAT_DTYPES: [DType; 8] = [
    DType::Bool,
    DType::U8,
    DType::I32,
    DType::I64,
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
];

/// Small random values of `dtype` (quarters for floats), shape `shape`.
fn small_values(dtype: DType, shape: &[usize], seed: u64) -> DynTensor {
    let t = DynTensor::from(Tensor::<i64>::randint(shape, -6, 7, seed).unwrap()).to(dtype);
    if dtype.is_float() { t.mul(0.75) } else { t }
}

/// The operands of `flat_tier_matches_iterator_path`'s `form`: 0 and 1 the two tensors, 2/3 a
/// float/int scalar on the right of `a`, 4 an int scalar on its left.
fn form_operands<'a>(
    form: u8,
    a: &'a DynTensor,
    b: &'a DynTensor,
) -> (weft::ops::Operand<'a>, weft::ops::Operand<'a>) {
    match form {
        0 | 1 => (a.into(), b.into()),
        2 => (a.into(), Scalar::Float(1.25).into()),
        3 => (a.into(), Scalar::Int(3).into()),
        _ => (Scalar::Int(3).into(), a.into()),
    }
}

#[test]
fn flat_tier_matches_iterator_path() {
    // Small contiguous operands of one shape (any two dtypes, or a tensor and a scalar on either
    // side) take the flat tier of `ops::binary`, into a fresh output or a given contiguous one;
    // the same op into a strided output, or on a strided copy of `a`, takes the iterator. All
    // must agree (values, dtype, errors), and add matches a naive loop. Every op of the table
    // is a candidate.
    let strat = (
        proptest::collection::vec(0usize..5, 0..4),
        (0usize..FLAT_DTYPES.len(), 0usize..FLAT_DTYPES.len()),
        0usize..BinaryOp::ALL.len(),
        any::<u64>(),
        0u8..5,
    );
    runner(600)
        .run(&strat, |(shape, (da, db), op, seed, form)| {
            let (da, db, op) = (FLAT_DTYPES[da], FLAT_DTYPES[db], BinaryOp::ALL[op]);
            let (a, b) = (
                small_values(da, &shape, seed),
                small_values(db, &shape, seed ^ 5),
            );
            // form 0: two tensors of one dtype, 1: of two dtypes, 2/3: a float/int scalar on
            // the right, 4: an int scalar on the left.
            let b = if form == 0 { b.to(da) } else { b };
            let (x, y) = form_operands(form, &a, &b);
            let fast = outcome(binary(op, x, y, None));
            if let Ok((rd, _)) = &fast {
                // A given contiguous output: the flat tier too.
                let out = DynTensor::zeros(*rd, &shape).unwrap();
                let into = outcome(binary(op, x, y, Some(&out)).map(|_| out));
                prop_assert_eq!(&fast, &into, "{:?} {:?} {:?} into out", op, da, db);
                // A given strided output: the iterator.
                if let Some(out) = strided_copy(&DynTensor::zeros(*rd, &shape).unwrap()) {
                    let via_iter = outcome(binary(op, x, y, Some(&out)).map(|_| out));
                    prop_assert_eq!(&fast, &via_iter, "{:?} {:?} {:?} strided out", op, da, db);
                }
            }
            // A strided copy of `a`: the iterator.
            if let Some(view) = strided_copy(&a) {
                let (x, y) = form_operands(form, &view, &b);
                let strided = outcome(binary(op, x, y, None));
                prop_assert_eq!(&fast, &strided, "{:?} {:?} {:?} strided", op, da, db);
            }
            // Naive reference for f32 add.
            if op == BinaryOp::Add && da == DType::F32 && form == 0 {
                let f = |v: &Value| match v {
                    Value::F32(x) => *x,
                    _ => unreachable!(),
                };
                let want: Vec<Value> = a
                    .to_values()
                    .iter()
                    .zip(b.to_values().iter())
                    .map(|(x, y)| Value::F32(f(x) + f(y)))
                    .collect();
                prop_assert_eq!(fast, Ok((DType::F32, format!("{want:?}"))));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn unary_flat_tier_matches_iterator_path() {
    // The same for `ops::unary`: a small contiguous input (into a fresh or a given contiguous
    // output) against a strided output and a strided input. Every op of the table.
    let strat = (
        proptest::collection::vec(0usize..5, 0..4),
        0usize..FLAT_DTYPES.len(),
        0usize..UnaryOp::ALL.len(),
        any::<u64>(),
    );
    runner(400)
        .run(&strat, |(shape, d, op, seed)| {
            let (dtype, op) = (FLAT_DTYPES[d], UnaryOp::ALL[op]);
            let a = small_values(dtype, &shape, seed);
            let fast = outcome(unary(op, &a, None));
            if let Ok((rd, _)) = &fast {
                let out = DynTensor::zeros(*rd, &shape).unwrap();
                let into = outcome(unary(op, &a, Some(&out)).map(|_| out));
                prop_assert_eq!(&fast, &into, "{:?} {:?} into out", op, dtype);
                if let Some(out) = strided_copy(&DynTensor::zeros(*rd, &shape).unwrap()) {
                    let via_iter = outcome(unary(op, &a, Some(&out)).map(|_| out));
                    prop_assert_eq!(&fast, &via_iter, "{:?} {:?} strided out", op, dtype);
                }
            }
            if let Some(view) = strided_copy(&a) {
                let strided = outcome(unary(op, &view, None));
                prop_assert_eq!(&fast, &strided, "{:?} {:?} strided", op, dtype);
            }
            Ok(())
        })
        .unwrap();
}

/// Every f16 (or bf16) bit pattern against a rotation of itself: add/sub/mul/div through the
/// block-converting f32 path (contiguous: F16C / vectorized bf16; strided: per element) equal
/// `half`'s per-element `from_f32(op(a.to_f32(), b.to_f32()))`, bit for bit (any NaN for NaN).
#[test]
fn half_precision_block_path_is_exact() {
    fn check<H: weft::DynElement>(to: fn(H) -> f32, from: fn(f32) -> H, of_bits: fn(u16) -> H) {
        let n = 1usize << 16;
        let a: Vec<H> = (0..n).map(|i| of_bits(i as u16)).collect();
        let b: Vec<H> = (0..n)
            .map(|i| of_bits((i as u16).wrapping_mul(40_503).rotate_left(5)))
            .collect();
        let ta = DynTensor::from_vec(a.clone(), &[n]).unwrap();
        let tb = DynTensor::from_vec(b.clone(), &[n]).unwrap();
        // Strided copies: every other element of a [2n] tensor.
        let strided = |t: &DynTensor| {
            let mut v = DynTensor::zeros(t.dtype(), &[2 * n])
                .unwrap()
                .slice(0, None, None, 2);
            v.copy_(t);
            v
        };
        let (sa, sb) = (strided(&ta), strided(&tb));
        type Op = fn(f32, f32) -> f32;
        let ops: [(BinaryOp, Op); 4] = [
            (BinaryOp::Add, |x, y| x + y),
            (BinaryOp::Sub, |x, y| x - y),
            (BinaryOp::Mul, |x, y| x * y),
            (BinaryOp::Div, |x, y| x / y),
        ];
        let as_f32 = |v: &Value| match v {
            Value::F32(x) => *x,
            other => panic!("{other:?}"),
        };
        for (op, fx) in ops {
            let want: Vec<f32> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| to(from(fx(to(x), to(y)))))
                .collect();
            for (x, y) in [(&ta, &tb), (&sa, &sb), (&ta, &sb)] {
                let got = binary(op, x.into(), y.into(), None).unwrap();
                for (i, (g, w)) in got.to_values().iter().map(as_f32).zip(&want).enumerate() {
                    assert!(
                        g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                        "{op:?} {:?} element {i}: {g} vs {w}",
                        x.dtype()
                    );
                }
            }
        }
    }
    check::<weft::half::f16>(
        weft::half::f16::to_f32,
        weft::half::f16::from_f32,
        weft::half::f16::from_bits,
    );
    check::<weft::half::bf16>(
        weft::half::bf16::to_f32,
        weft::half::bf16::from_f32,
        weft::half::bf16::from_bits,
    );
}

#[test]
fn transposed_gather_all_element_sizes() {
    // One or two transposed inputs (gathered into the tile buffer) for 1-, 2-, 4- and 8-byte
    // elements, past and around the tile sizes (128 rows, up to 512 / element size rows for
    // narrow elements, by 4 MiB / (rows x the widest element) columns: 4096 of f64 at 128 rows,
    // so (129, 4100) takes two tiles each way) and the block transposes' sizes (32 and 16 rows
    // of bytes, 16 and 8 of halves, 8, 4, 2), into a contiguous output.
    for (r, c) in [
        (64, 64),
        (65, 130),
        (130, 65),
        (129, 257),
        (70, 2085),
        (131, 529),
        (600, 130),
        (300, 83),
        (129, 4100),
    ] {
        for dtype in [
            DType::U8,
            DType::Bool,
            DType::I16,
            DType::F16,
            DType::F32,
            DType::I64,
            DType::F64,
        ] {
            let (a, b) = (make(dtype, r, c, 1, 21), make(dtype, r, c, 1, 22));
            let want = a.contiguous().add(&b.contiguous());
            let out = DynTensor::zeros(want.dtype(), &[r, c]).unwrap();
            a.try_add_out(&b, &out).unwrap();
            assert_eq!(
                values(&out),
                values(&want),
                "both transposed {r}x{c} {dtype:?}"
            );
            let bc = b.contiguous();
            assert_eq!(
                values(&a.add(&bc)),
                values(&want),
                "one transposed {r}x{c} {dtype:?}"
            );
        }
        let cond = make(DType::Bool, r, c, 1, 23);
        let (x, y) = (make(DType::F32, r, c, 0, 24), make(DType::F32, r, c, 1, 25));
        let out = DynTensor::zeros(DType::F32, &[r, c]).unwrap();
        weft::ops::special::where_(&cond, (&x).into(), (&y).into(), Some(&out)).unwrap();
        let want = weft::ops::dyn_api::where_(&cond.contiguous(), &x, &y.contiguous()).unwrap();
        assert_eq!(values(&out), values(&want), "where {r}x{c}");
    }
    // Column tiles of narrow elements: u8 at 512 rows (8192 columns a tile), and a u8 input
    // beside an f64 one (1024 columns: the widest element sets them).
    let (a, b) = (
        make(DType::U8, 520, 8200, 1, 26),
        make(DType::U8, 520, 8200, 0, 27),
    );
    let want = a.contiguous().add(&b);
    assert_eq!(values(&a.add(&b)), values(&want), "u8 column tiles");
    let (a, b) = (
        make(DType::U8, 520, 1030, 1, 28),
        make(DType::F64, 520, 1030, 0, 29),
    );
    let want = a.contiguous().add(&b);
    assert_eq!(values(&a.add(&b)), values(&want), "u8 + f64 column tiles");
}

/// sin/cos/tan run their narrow form over kernel blocks whose inputs all lie below the short
/// reduction's bound, and the general form over blocks that hold a larger value
/// (`Functor::in_narrow_domain`). Whatever block an element falls in, and whatever the path
/// (contiguous, strided, in place, f16 over f32 blocks), its result must be the scalar
/// function's bits.
#[test]
fn narrow_domain_blocks_match_the_scalar_functions() {
    use weft::functors::fastmath::{double_trig as dt, trig};
    let n = 256 * 9 + 77;
    // Mostly moderate values; every 700th is from 2^19 up, so some blocks are mixed.
    let x32: Vec<f32> = (0..n)
        .map(|i| {
            let x = (i as f32 * 0.37).sin() * 50.0;
            if i % 700 == 3 { x * 1e5 + 6e5 } else { x }
        })
        .collect();
    type F32Op = fn(&Tensor<f32>) -> Tensor<f32>;
    type F32InPlace = fn(&mut Tensor<f32>);
    type DynOp = fn(&DynTensor) -> DynTensor;
    type Scalar32 = fn(f32) -> f32;
    let ops: [(&str, F32Op, F32InPlace, DynOp, Scalar32); 3] = [
        (
            "sin",
            |t| t.sin(),
            |t| t.sin_(),
            |t| t.sin(),
            fastmath::sin_f32,
        ),
        (
            "cos",
            |t| t.cos(),
            |t| t.cos_(),
            |t| t.cos(),
            fastmath::cos_f32,
        ),
        ("tan", |t| t.tan(), |t| t.tan_(), |t| t.tan(), trig::tan_f32),
    ];
    let a = Tensor::<f32>::from_vec(x32.clone(), &[n]).unwrap();
    let strided = Tensor::<f32>::from_vec(x32.iter().flat_map(|&x| [x, 0.0]).collect(), &[n, 2])
        .unwrap()
        .select(1, 0);
    for (name, op, op_, dyn_op, f) in ops {
        let want: Vec<u32> = x32.iter().map(|&x| f(x).to_bits()).collect();
        let mut inplace = Tensor::<f32>::from_vec(x32.clone(), &[n]).unwrap();
        op_(&mut inplace);
        for (path, got) in [
            ("contiguous", op(&a)),
            ("strided", op(&strided)),
            ("in place", inplace),
        ] {
            let got: Vec<u32> = got.to_vec().iter().map(|g| g.to_bits()).collect();
            assert_eq!(got, want, "{name}, {path}");
        }
        // f16: the f32 functor over converted blocks, rounded once.
        let h = DynTensor::from(a.clone()).to(DType::F16);
        let got = dyn_op(&h).to(DType::F32).to_values();
        for (i, (g, x)) in got.iter().zip(&h.to(DType::F32).to_values()).enumerate() {
            let (Value::F32(g), Value::F32(x)) = (g, x) else {
                unreachable!()
            };
            let want = half::f16::from_f32(f(*x)).to_f32();
            assert!(
                g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                "{name} f16 {i}"
            );
        }
    }
    // f64: the narrow forms below 2^20·π/2, libm above.
    let x64: Vec<f64> = x32.iter().map(|&x| x as f64 * 1.000_000_1).collect();
    let a = Tensor::<f64>::from_vec(x64.clone(), &[n]).unwrap();
    type F64Op = fn(&Tensor<f64>) -> Tensor<f64>;
    type Scalar64 = fn(f64) -> f64;
    let ops: [(&str, F64Op, Scalar64, Scalar64); 3] = [
        ("sin", |t| t.sin(), dt::sin_f64_narrow, f64::sin),
        ("cos", |t| t.cos(), dt::cos_f64_narrow, f64::cos),
        ("tan", |t| t.tan(), dt::tan_f64_narrow, f64::tan),
    ];
    for (name, op, narrow, reference) in ops {
        for (i, (&g, &x)) in op(&a).to_vec().iter().zip(&x64).enumerate() {
            if dt::trig_narrow_f64(x) {
                assert_eq!(g.to_bits(), narrow(x).to_bits(), "{name} f64 element {i}");
            } else {
                let r = reference(x);
                assert!(
                    (g - r).abs() <= 4.0 * f64::EPSILON * r.abs(),
                    "{name} f64 element {i}"
                );
            }
        }
    }
}

/// f32 inputs over every exponent (random bit patterns, NaNs and infinities included) plus the
/// special values, `n` of them (a length with a tail past the vector loops' multiples).
fn isa_inputs(n: usize) -> Vec<f32> {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        f32::MIN,
        88.7,
        -103.9,
        1e-30,
        3.0,
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match i % 4 {
                0 => specials[(state % specials.len() as u64) as usize],
                // Moderate values (most blocks of real data), and every exponent.
                1 | 2 => ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 40.0,
                _ => f32::from_bits(state as u32),
            }
        })
        .collect()
}

/// Every op of the table, every float and two integer dtypes, contiguous, broadcast (a
/// stride-0 operand) and strided layouts, and the reductions: each result is the same, bit for
/// bit, whichever vector ISA the loops use (`weft::limit_vector_isa`: AVX-512, AVX2, baseline;
/// on a CPU without one, its cap gives the next narrower, and the check still holds). A NaN
/// result is only required to be a NaN: its sign and payload are the hardware's (x86's SSE and
/// AVX forms of one operation propagate different operands' NaNs, and `vroundps` quiets a
/// signalling NaN that the baseline's integer-only floor keeps), as in Rust and IEEE 754. Other
/// tests of this binary may run meanwhile under a cap: by this very property they see no
/// difference.
#[test]
fn results_do_not_depend_on_the_vector_isa() {
    use weft::functors::UnaryOp;
    use weft::ops::Operand;
    use weft::ops::unary::unary;
    use weft::reduce::{ReduceArgs, ReduceOp};
    use weft::{VectorIsa, limit_vector_isa};
    // The names the examples take (`bench_sweep --isa`, `WEFT_ISA`).
    assert_eq!("avx512".parse(), Ok(VectorIsa::Avx512));
    assert_eq!("avx2".parse(), Ok(VectorIsa::Avx2));
    assert_eq!("baseline".parse(), Ok(VectorIsa::Baseline));
    assert_eq!("sse".parse::<VectorIsa>(), Err(()));
    const N: usize = 1027;
    let xs = isa_inputs(2 * N);
    let base = DynTensor::from_vec(xs, &[2, N]).unwrap();
    let dtypes = [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I32,
        DType::U8,
    ];
    // A result as bits, NaNs made one (an error as its message).
    let bits = |r: weft::Result<DynTensor>| -> Result<Vec<u64>, String> {
        r.map(|t| {
            t.to_values()
                .into_iter()
                .map(|v| match v {
                    Value::F32(x) if x.is_nan() => u64::MAX,
                    Value::F64(x) if x.is_nan() => u64::MAX,
                    Value::F32(x) => x.to_bits() as u64,
                    Value::F64(x) => x.to_bits(),
                    Value::Int(i) => i as u64,
                    Value::UInt(u) => u,
                    Value::Bool(b) => b as u64,
                })
                .collect()
        })
        .map_err(|e| e.to_string())
    };
    // Every result under the current cap.
    let run_all = || {
        let mut out = Vec::new();
        for &d in &dtypes {
            let x = base.to(d);
            let (row0, row1) = (x.select(0, 0), x.select(0, 1));
            let strided = x.slice(1, None, None, 2);
            for &op in UnaryOp::ALL {
                out.push((format!("{op:?} {d:?}"), bits(unary(op, &row0, None))));
                out.push((
                    format!("{op:?} {d:?} strided"),
                    bits(unary(op, &strided, None)),
                ));
            }
            let one = row1.slice(0, Some(5), Some(6), 1);
            for &op in BinaryOp::ALL {
                let (a, b) = (Operand::Tensor(&row0), Operand::Tensor(&row1));
                out.push((format!("{op:?} {d:?}"), bits(binary(op, a, b, None))));
                let bc = Operand::Tensor(&one);
                out.push((format!("{op:?} {d:?} bcast"), bits(binary(op, b, bc, None))));
                let s = Operand::Scalar(Scalar::Float(2.5));
                out.push((format!("{op:?} {d:?} scalar"), bits(binary(op, a, s, None))));
            }
            for &op in ReduceOp::ALL {
                let r = x.try_reduce(op, &ReduceArgs::new(1isize));
                let r = r.map(|v| v.into_iter().next().unwrap());
                out.push((format!("{op:?} {d:?}"), bits(r)));
            }
        }
        out
    };
    limit_vector_isa(VectorIsa::Baseline);
    let baseline = run_all();
    for isa in [VectorIsa::Avx2, VectorIsa::Avx512] {
        limit_vector_isa(isa);
        let got = run_all();
        for ((name, want), (_, got)) in baseline.iter().zip(&got) {
            assert_eq!(got, want, "{name}: {isa:?} differs from the baseline build");
        }
    }
    assert!(baseline.iter().filter(|(_, r)| r.is_ok()).count() > 1000);
}

#[test]
fn flat_tier_reports_errors_in_the_general_order() {
    // An op that refuses the dtypes on an operand another operation is writing: the general
    // call takes the borrows before the plan, so the conflict is reported; the flat tier too.
    let a = DynTensor::zeros(DType::F32, &[4]).unwrap();
    let b = DynTensor::zeros(DType::F32, &[4]).unwrap();
    let strided = strided_copy(&a).unwrap();
    for target in [&a, &strided] {
        let w = target.share();
        let writer = weft::IterConfig::new()
            .add_output(&w)
            .add_input(&b)
            .build()
            .unwrap();
        let err = binary(BinaryOp::BitwiseAnd, target.into(), (&b).into(), None).unwrap_err();
        assert!(
            matches!(err, weft::Error::BorrowConflict { .. }),
            "{err} (contiguous: {})",
            target.is_contiguous()
        );
        drop(writer);
    }
}

/// Inputs for the square-root check: every exponent (random patterns of each width), perfect
/// squares and squares of midpoints with their neighbours, the ends of every binade, and the
/// special values. `bits(x)`/`from(bits)` convert; `mantissa` is the fraction's width.
fn sqrt_inputs<T: Copy>(
    n: usize,
    mantissa: u32,
    from: impl Fn(u64) -> T,
    to: impl Fn(T) -> u64,
    mul: impl Fn(T, T) -> T,
) -> Vec<T> {
    let width = if mantissa == 23 { 32 } else { 64 };
    let exponents = 1u64 << (width - 1 - mantissa);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut xs = Vec::with_capacity(n + 8 * exponents as usize);
    for e in 0..exponents {
        for d in 0..4 {
            xs.push(from((e << mantissa) + d));
            xs.push(from(((e + 1) << mantissa) - 1 - d));
        }
    }
    while xs.len() < n {
        let r = next() >> (64 - width);
        xs.push(from(r));
        let t = from(r & !(1 << (width - 1)));
        let square = to(mul(t, t));
        let midpoint = to(mul(t, from(to(t) + 1)));
        for b in [square, midpoint] {
            for d in [0, 1, 2] {
                xs.push(from(b.wrapping_add(d)));
                xs.push(from(b.wrapping_sub(d)));
            }
        }
    }
    xs
}

/// `sqrt` on f32 and f64 is the correctly rounded root, bit for bit (the instruction's: Rust's
/// `sqrt`), on [`sqrt_inputs`], contiguous and in place, at lengths that leave every tail:
/// `kernels/sqrt_newton.rs` computes it from `vrsqrt14` and Newton steps on AVX-512 (another
/// test may cap the ISA meanwhile: the check holds on every path).
#[test]
fn sqrt_is_the_correctly_rounded_root() {
    // Every length of `xs` leaves a tail of the vector loop (`lanes` per vector).
    macro_rules! check_roots {
        ($xs:expr, $lanes:expr) => {{
            let xs = $xs;
            for len in [xs.len(), xs.len() - 1, $lanes + 1, $lanes - 1, 1] {
                let x = || Tensor::from_vec(xs[..len].to_vec(), &[len]).unwrap();
                let mut in_place = x();
                in_place.sqrt_();
                for got in [x().sqrt().to_vec(), in_place.to_vec()] {
                    for (i, (&a, &r)) in xs.iter().zip(&got).enumerate() {
                        let want = a.sqrt();
                        let same = r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan());
                        assert!(same, "sqrt({a:e}) [{i}] = {r:e}, want {want:e}");
                    }
                }
            }
        }};
    }
    let f32s = sqrt_inputs(
        1 << 20,
        23,
        |b| f32::from_bits(b as u32),
        |x| x.to_bits() as u64,
        |a, b| a * b,
    );
    check_roots!(f32s, 16);
    check_roots!(
        sqrt_inputs(1 << 20, 52, f64::from_bits, f64::to_bits, |a, b| a * b),
        8
    );
}

/// [`sqrt_is_the_correctly_rounded_root`] on all 2^32 f32 bit patterns (a minute in release;
/// BENCHMARKS.md gives the command and result).
#[test]
#[ignore]
fn sqrt_f32_exhaustive() {
    const CHUNK: u64 = 1 << 24;
    let mut wrong = 0u64;
    for c in 0..(1u64 << 32) / CHUNK {
        let xs: Vec<f32> = (c * CHUNK..(c + 1) * CHUNK)
            .map(|b| f32::from_bits(b as u32))
            .collect();
        let got = Tensor::from_vec(xs.clone(), &[xs.len()])
            .unwrap()
            .sqrt()
            .to_vec();
        for (&a, &r) in xs.iter().zip(&got) {
            if !(r.to_bits() == a.sqrt().to_bits() || (r.is_nan() && a.sqrt().is_nan())) {
                if wrong < 5 {
                    eprintln!("sqrt({a:e}) = {r:e}, want {:e}", a.sqrt());
                }
                wrong += 1;
            }
        }
    }
    println!("sqrt f32 exhaustive: {wrong} of 2^32 differ from the instruction");
    assert_eq!(wrong, 0);
}
