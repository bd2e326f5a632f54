//! The typed API against the `DynTensor` path (the reference): every method on random shapes
//! and layouts (contiguous, transposed, strided, reversed, broadcast), operators, mixed-type
//! promotion, in-place and `_out` forms, errors, and the compile-time promotion table.

use weft::functors::GeluApproximate;
use weft::half::{bf16, f16};
use weft::ops::promote::Promote;
use weft::{DType, DynElement, DynTensor, Element, Error, Scalar, Tensor, promote_types};

/// Bitwise-equal values (NaN equal to NaN).
fn same_vals<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            #[allow(clippy::eq_op)]
            let nan = x != x && y != y;
            x == y || nan
        })
}

fn assert_same<O: DynElement>(what: &str, t: &Tensor<O>, d: &DynTensor) {
    assert_eq!(d.dtype(), O::DTYPE, "{what}: dtype");
    assert_eq!(t.shape(), d.shape(), "{what}: shape");
    let dv = d.as_typed::<O>().unwrap().to_vec();
    assert!(
        same_vals(&t.to_vec(), &dv),
        "{what}: {:?} vs {:?}",
        t.to_vec(),
        dv
    );
}

/// A tensor of `shape` in layout `kind`: 0 contiguous, 1 transposed, 2 strided (every other
/// column), 3 reversed rows, 4 broadcast from one row.
fn make<T: DynElement>(
    shape: [usize; 2],
    kind: u32,
    seed: u64,
    gn: &dyn Fn(&[usize], u64) -> Tensor<T>,
) -> Tensor<T> {
    let [m, n] = shape;
    match kind {
        0 => gn(&[m, n], seed),
        1 => gn(&[n, m], seed).t(),
        2 => gn(&[m, 2 * n], seed).slice(1, None, None, 2),
        3 => gn(&[m, n], seed).slice(0, None, None, -1),
        _ => gn(&[1, n], seed).expand([m as isize, n as isize]),
    }
}

const SHAPES: [[usize; 2]; 4] = [[2, 3], [1, 4], [5, 7], [3, 300]];

fn gen_f<T: weft::DynElement>(shape: &[usize], seed: u64) -> Tensor<T> {
    Tensor::<f64>::randn(shape, seed).unwrap().to::<T>()
}
fn gen_i<T: Element>(shape: &[usize], seed: u64) -> Tensor<T> {
    Tensor::<T>::randint(shape, -6, 7, seed).unwrap()
}
fn gen_u<T: Element>(shape: &[usize], seed: u64) -> Tensor<T> {
    Tensor::<T>::randint(shape, 0, 9, seed).unwrap()
}
fn gen_b(shape: &[usize], seed: u64) -> Tensor<bool> {
    Tensor::<u8>::randint(shape, 0, 2, seed)
        .unwrap()
        .to::<bool>()
}

type TBin<T, O> = dyn Fn(&Tensor<T>, &Tensor<T>) -> weft::Result<Tensor<O>>;
type DBin = dyn Fn(&DynTensor, &DynTensor) -> weft::Result<DynTensor>;

/// Every layout pair, plus a broadcast [n] right operand and a value right operand.
fn check_binary<T: DynElement, O: DynElement>(
    what: &str,
    gn: &dyn Fn(&[usize], u64) -> Tensor<T>,
    typed: &TBin<T, O>,
    dynf: &DBin,
) {
    let mut seed = 1;
    for shape in SHAPES {
        for ka in 0..5 {
            for kb in 0..6 {
                seed += 1;
                let a = make(shape, ka, seed, gn);
                let b = if kb == 5 {
                    gn(&[shape[1]], seed + 100)
                } else {
                    make(shape, kb, seed + 100, gn)
                };
                let (da, db) = (T::wrap(a.clone()), T::wrap(b.clone()));
                let ctx = format!("{what} {shape:?} layouts {ka},{kb}");
                match (typed(&a, &b), dynf(&da, &db)) {
                    (Ok(t), Ok(d)) => assert_same(&ctx, &t, &d),
                    (Err(e1), Err(e2)) => assert_eq!(e1, e2, "{ctx}"),
                    (t, d) => panic!("{ctx}: typed {:?} vs dyn {:?}", t.err(), d.err()),
                }
            }
        }
    }
}

macro_rules! bin {
    ($T:ty, $gn:expr, $($op:ident),*) => {$(
        check_binary::<$T, _>(concat!(stringify!($T), " ", stringify!($op)), &$gn, &|a, b| a.$op(b), &|a, b| a.$op(b));
        // A value on the right: the typed T value vs the same number as a Scalar.
        {
            let a = make::<$T>([3, 5], 1, 9, &$gn);
            let v: $T = $gn(&[1], 77).to_vec()[0];
            let s = Scalar::from(v);
            let (t, d) = (a.$op(v), <$T as DynElement>::wrap(a.clone()).$op(s));
            match (t, d) {
                (Ok(t), Ok(d)) => assert_same(concat!(stringify!($T), " ", stringify!($op), " value"), &t, &d),
                (Err(e1), Err(e2)) => assert_eq!(e1, e2),
                (t, d) => panic!("{} value: {:?} vs {:?}", stringify!($op), t.err(), d.err()),
            }
        }
    )*};
}

#[test]
fn binary_methods_match_dyn() {
    bin!(
        f32,
        gen_f::<f32>,
        try_add,
        try_sub,
        try_mul,
        try_div,
        try_floor_divide,
        try_remainder,
        try_fmod,
        try_pow,
        try_atan2,
        try_maximum,
        try_minimum,
        try_copysign,
        try_hypot
    );
    bin!(
        f32,
        gen_f::<f32>,
        try_eq,
        try_ne,
        try_lt,
        try_le,
        try_gt,
        try_ge,
        try_logical_and,
        try_logical_or,
        try_logical_xor
    );
    bin!(
        f64,
        gen_f::<f64>,
        try_add,
        try_sub,
        try_mul,
        try_div,
        try_floor_divide,
        try_remainder,
        try_pow,
        try_hypot,
        try_lt
    );
    bin!(
        f16,
        gen_f::<f16>,
        try_add,
        try_mul,
        try_div,
        try_floor_divide,
        try_remainder,
        try_pow,
        try_maximum,
        try_ge
    );
    bin!(
        bf16,
        gen_f::<bf16>,
        try_add,
        try_sub,
        try_mul,
        try_div,
        try_floor_divide,
        try_atan2,
        try_ne
    );
    bin!(
        i32,
        gen_i::<i32>,
        try_add,
        try_sub,
        try_mul,
        try_div,
        try_floor_divide,
        try_remainder,
        try_fmod,
        try_pow,
        try_maximum,
        try_minimum,
        try_atan2
    );
    bin!(
        i32,
        gen_i::<i32>,
        try_bitwise_and,
        try_bitwise_or,
        try_bitwise_xor,
        try_bitwise_left_shift,
        try_bitwise_right_shift,
        try_eq,
        try_logical_xor,
        try_copysign
    );
    bin!(
        i64,
        gen_i::<i64>,
        try_add,
        try_sub,
        try_mul,
        try_div,
        try_floor_divide,
        try_remainder,
        try_bitwise_and,
        try_bitwise_left_shift,
        try_lt
    );
    bin!(
        u8,
        gen_u::<u8>,
        try_add,
        try_sub,
        try_mul,
        try_floor_divide,
        try_remainder,
        try_bitwise_or,
        try_bitwise_right_shift,
        try_gt
    );
    bin!(i8, gen_i::<i8>, try_add, try_mul, try_pow, try_fmod);
    bin!(i16, gen_i::<i16>, try_sub, try_remainder, try_bitwise_xor);
    bin!(
        bool,
        gen_b,
        try_add,
        try_mul,
        try_maximum,
        try_minimum,
        try_bitwise_and,
        try_bitwise_or,
        try_bitwise_xor,
        try_eq,
        try_logical_and,
        try_div
    );
}

type TUn<T, O> = dyn Fn(&Tensor<T>) -> weft::Result<Tensor<O>>;
type DUn = dyn Fn(&DynTensor) -> weft::Result<DynTensor>;

fn check_unary<T: DynElement, O: DynElement>(
    what: &str,
    gn: &dyn Fn(&[usize], u64) -> Tensor<T>,
    typed: &TUn<T, O>,
    dynf: &DUn,
) {
    for (i, shape) in SHAPES.iter().enumerate() {
        for k in 0..5 {
            let a = make(*shape, k, 10 * i as u64 + k as u64, gn);
            let ctx = format!("{what} {shape:?} layout {k}");
            match (typed(&a), dynf(&T::wrap(a.clone()))) {
                (Ok(t), Ok(d)) => assert_same(&ctx, &t, &d),
                (Err(e1), Err(e2)) => assert_eq!(e1, e2, "{ctx}"),
                (t, d) => panic!("{ctx}: typed {:?} vs dyn {:?}", t.err(), d.err()),
            }
        }
    }
}

macro_rules! un {
    ($T:ty, $gn:expr, $($op:ident),*) => {$(
        check_unary::<$T, _>(concat!(stringify!($T), " ", stringify!($op)), &$gn, &|a| a.$op(), &|a| a.$op());
    )*};
}

#[test]
fn unary_methods_match_dyn() {
    un!(
        f32,
        gen_f::<f32>,
        try_neg,
        try_abs,
        try_sign,
        try_relu,
        try_exp,
        try_expm1,
        try_log,
        try_log1p,
        try_log2,
        try_log10,
        try_sqrt,
        try_rsqrt,
        try_reciprocal,
        try_square
    );
    un!(
        f32,
        gen_f::<f32>,
        try_sin,
        try_cos,
        try_tan,
        try_asin,
        try_acos,
        try_atan,
        try_sinh,
        try_cosh,
        try_tanh,
        try_sigmoid,
        try_silu,
        try_softplus,
        try_erf
    );
    un!(
        f32,
        gen_f::<f32>,
        try_floor,
        try_ceil,
        try_round,
        try_trunc,
        try_frac,
        try_logical_not,
        try_isnan,
        try_isinf,
        try_isfinite
    );
    un!(
        f64,
        gen_f::<f64>,
        try_neg,
        try_exp,
        try_log,
        try_sigmoid,
        try_round,
        try_square,
        try_isnan
    );
    un!(
        f16,
        gen_f::<f16>,
        try_neg,
        try_abs,
        try_exp,
        try_tanh,
        try_silu,
        try_square,
        try_frac,
        try_logical_not
    );
    un!(
        bf16,
        gen_f::<bf16>,
        try_sqrt,
        try_sigmoid,
        try_softplus,
        try_floor
    );
    un!(
        i32,
        gen_i::<i32>,
        try_neg,
        try_abs,
        try_sign,
        try_relu,
        try_exp,
        try_sqrt,
        try_sigmoid,
        try_reciprocal,
        try_square,
        try_round,
        try_bitwise_not,
        try_logical_not,
        try_isfinite
    );
    un!(
        i64,
        gen_i::<i64>,
        try_neg,
        try_abs,
        try_sin,
        try_square,
        try_bitwise_not
    );
    un!(
        u8,
        gen_u::<u8>,
        try_neg,
        try_abs,
        try_sign,
        try_relu,
        try_log,
        try_bitwise_not
    );
    un!(
        bool,
        gen_b,
        try_sign,
        try_exp,
        try_bitwise_not,
        try_logical_not,
        try_isnan
    );
}

#[test]
fn special_methods_match_dyn() {
    let g = gen_f::<f32>;
    check_unary::<f32, f32>("clamp", &g, &|a| a.try_clamp(Some(-0.5), Some(0.7)), &|a| {
        a.try_clamp(
            Some(Scalar::Float(-0.5f32 as f64).into()),
            Some(Scalar::Float(0.7f32 as f64).into()),
        )
    });
    check_unary::<f32, f32>("clamp min", &g, &|a| a.try_clamp(Some(-0.5), None), &|a| {
        a.try_clamp(Some(Scalar::Float(-0.5).into()), None)
    });
    check_unary::<f32, f32>("leaky_relu", &g, &|a| a.try_leaky_relu(0.1), &|a| {
        a.try_leaky_relu(0.1)
    });
    check_unary::<f32, f32>("hardtanh", &g, &|a| a.try_hardtanh(-0.5, 0.5), &|a| {
        a.try_hardtanh(-0.5, 0.5)
    });
    check_unary::<f32, f32>("gelu", &g, &|a| a.try_gelu(GeluApproximate::None), &|a| {
        a.try_gelu(GeluApproximate::None)
    });
    check_unary::<f32, f32>(
        "gelu tanh",
        &g,
        &|a| a.try_gelu(GeluApproximate::Tanh),
        &|a| a.try_gelu(GeluApproximate::Tanh),
    );
    check_unary::<i32, i32>(
        "clamp i32",
        &gen_i::<i32>,
        &|a| a.try_clamp(Some(-2), Some(3)),
        &|a| a.try_clamp(Some(Scalar::Int(-2).into()), Some(Scalar::Int(3).into())),
    );
    check_unary::<i32, i32>(
        "hardtanh i32",
        &gen_i::<i32>,
        &|a| a.try_hardtanh(-2, 3),
        &|a| a.try_hardtanh(-2, 3),
    );
    check_unary::<i32, f64>("to f64", &gen_i::<i32>, &|a| a.try_to::<f64>(), &|a| {
        a.try_to(DType::F64)
    });
    check_binary::<f32, f32>(
        "clamp tensor",
        &g,
        &|a, b| a.try_clamp_tensor(Some(b), None),
        &|a, b| a.try_clamp(Some(b.into()), None),
    );
    check_binary::<f32, f32>("lerp", &g, &|a, b| a.try_lerp(b, 0.3), &|a, b| {
        a.try_lerp(b, Scalar::Float(0.3f32 as f64))
    });
    check_binary::<f32, f32>("lerp tensor", &g, &|a, b| a.try_lerp(b, b), &|a, b| {
        a.try_lerp(b, b)
    });
    check_binary::<f32, f32>("addcmul", &g, &|a, b| a.try_addcmul(b, a, 0.5), &|a, b| {
        a.try_addcmul(b, a, 0.5)
    });
    check_binary::<i64, i64>(
        "addcmul i64",
        &gen_i::<i64>,
        &|a, b| a.try_addcmul(b, b, 2),
        &|a, b| a.try_addcmul(b, b, 2),
    );

    check_binary::<f32, f32>(
        "masked_fill",
        &g,
        &|a, b| a.try_masked_fill(&b.gt(0.0), 9.0),
        &|a, b| a.try_masked_fill(&b.gt(0.0), 9.0),
    );
    check_binary::<f32, f32>("where", &g, &|a, b| a.gt(0.0).try_where(a, b), &|a, b| {
        weft::ops::dyn_api::where_(&a.gt(0.0), a, b)
    });
    check_binary::<f32, f32>(
        "where value",
        &g,
        &|a, b| a.gt(b).try_where(a, 5.0),
        &|a, b| {
            weft::ops::dyn_api::where_(
                &a.gt(b),
                a,
                &DynTensor::scalar(DType::F32, Scalar::Float(5.0)),
            )
        },
    );
}

#[test]
fn in_place_on_transposed_view_and_out_into_strided_view() {
    let base = gen_f::<f32>(&[4, 6], 3);
    let b = gen_f::<f32>(&[6, 4], 4);
    // In place on a transposed view writes through to the base storage.
    let (tb, db) = (
        base.contiguous().to::<f32>(),
        DynTensor::from(base.to::<f32>()),
    );
    let mut v = tb.t();
    v.add_(&b);
    v.mul_(2.0);
    v.exp_();
    let mut dv = db.t();
    dv.add_(&DynTensor::from(b.clone()));
    dv.mul_(2.0);
    dv.exp_();
    assert_same("in-place transposed", &tb, &db);
    // _out into a strided view (every other column of a wider buffer).
    let wide = Tensor::<f32>::zeros(&[6, 8]);
    let mut out = wide.slice(1, None, None, 2);
    let dwide = DynTensor::from(Tensor::<f32>::zeros(&[6, 8]));
    let dout = dwide.slice(1, None, None, 2);
    let a = base.t();
    a.sub_out(&b, &mut out);
    DynTensor::from(a.clone()).sub_out(&DynTensor::from(b.clone()), &dout);
    assert_same("out strided", &wide, &dwide);
    // _out into an input alias (the out is the lhs itself).
    let c = gen_f::<f32>(&[6, 4], 5);
    let mut alias = c.share();
    let before = c.to_vec();
    c.mul_out(&b, &mut alias);
    let want: Vec<f32> = before.iter().zip(b.to_vec()).map(|(x, y)| x * y).collect();
    assert_eq!(c.to_vec(), want);
    // _out with a partially overlapping alias goes through the checked path.
    let buf = Tensor::<f32>::ones(&[8]);
    let mut shifted = buf.narrow(0, 1, 7);
    let r = buf
        .narrow(0, 0, 7)
        .try_add_out(&buf.narrow(0, 0, 7), &mut shifted);
    let dbuf = DynTensor::from(Tensor::<f32>::ones(&[8]));
    let dr = dbuf
        .narrow(0, 0, 7)
        .try_add_out(&dbuf.narrow(0, 0, 7), &dbuf.narrow(0, 1, 7));
    assert_eq!(r.is_ok(), dr.is_ok());
    assert_same("partial overlap", &buf, &dbuf);
    // Unary in place on a transposed f16 view; _out of a comparison into an f32 view.
    let mut h = gen_f::<f16>(&[3, 5], 6).t();
    let mut dh = DynTensor::from(h.contiguous());
    h.tanh_();
    dh.tanh_();
    assert_same("f16 tanh_", &h.contiguous(), &dh);
    let mut fout = Tensor::<f32>::zeros(&[5, 3]).t();
    h.t().gt_out(0.0f32.into_f16(), &mut fout);
    assert_eq!(
        fout.to_vec(),
        h.t()
            .to_vec()
            .iter()
            .map(|x| (x.to_f32() > 0.0) as u8 as f32)
            .collect::<Vec<_>>()
    );
}

trait IntoF16 {
    fn into_f16(self) -> f16;
}
impl IntoF16 for f32 {
    fn into_f16(self) -> f16 {
        f16::from_f32(self)
    }
}

#[test]
fn operators() {
    let a = Tensor::<f32>::from_vec(vec![1.0, -2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![0.5, 0.25], &[2]).unwrap();
    assert_eq!((&a + &b).to_vec(), vec![1.5, -1.75, 3.5, 4.25]);
    assert_eq!((&a - &b).to_vec(), vec![0.5, -2.25, 2.5, 3.75]);
    assert_eq!((&a * 2.0).to_vec(), vec![2.0, -4.0, 6.0, 8.0]);
    assert_eq!((2.0 * &a).to_vec(), vec![2.0, -4.0, 6.0, 8.0]);
    assert_eq!((1.0 - &a).to_vec(), vec![0.0, 3.0, -2.0, -3.0]);
    assert_eq!((12.0 / &a).to_vec(), vec![12.0, -6.0, 4.0, 3.0]);
    assert_eq!((-&a).to_vec(), vec![-1.0, 2.0, -3.0, -4.0]);
    assert_eq!((&a % 2.0).to_vec(), vec![1.0, 0.0, 1.0, 0.0]);
    assert_eq!((&a.t() + &a).to_vec(), vec![2.0, 1.0, 1.0, 8.0]);
    let m = Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap();
    assert_eq!((!&m).to_vec(), vec![false, true]);
    let i = Tensor::<i32>::from_vec(vec![0, 5, -3], &[3]).unwrap();
    assert_eq!((!&i).to_vec(), vec![-1, -6, 2]);
    assert_eq!((&i & &i).to_vec(), vec![0, 5, -3]);
    assert_eq!((&i << 1).to_vec(), vec![0, 10, -6]);
    assert_eq!((&i >> 1).to_vec(), vec![0, 2, -2]);
    assert_eq!((&i ^ 1).to_vec(), vec![1, 4, -4]);
    assert_eq!((&i | 2).to_vec(), vec![2, 7, -1]);
    // True division of integers is f32.
    let q: Tensor<f32> = &i / &i.abs().maximum(1);
    assert_eq!(q.to_vec(), vec![0.0, 1.0, -1.0]);
    // Assign forms.
    let mut c = a.clone().contiguous();
    c += &b;
    c *= 2.0;
    c -= 1.0;
    assert_eq!(c.to_vec(), vec![2.0, -4.5, 6.0, 7.5]);
    let mut k = i.to::<i64>();
    k += &i;
    k *= 3;
    assert_eq!(k.to_vec(), vec![0, 30, -18]);
    // f16 times an f64 scalar keeps the scalar at f32 precision (PyTorch's opmath rule).
    let h = Tensor::<f16>::from_vec(vec![f16::from_f32(3.0); 3], &[3]).unwrap();
    let hd = DynTensor::from(h.clone()).mul(0.1);
    assert_same("f16 * 0.1", &(&h * 0.1), &hd);
    assert_same(
        "f16 / 0.3",
        &(&h / 0.3),
        &DynTensor::from(h.clone()).div(0.3),
    );
}

#[test]
fn owned_lhs_reuses_its_buffer() {
    let a = Tensor::<f32>::ones(&[3, 4]);
    let b = Tensor::<f32>::ones(&[4]);
    let p = a.data_ptr();
    let c = a + &b;
    assert_eq!(c.data_ptr(), p);
    assert_eq!(c.to_vec(), vec![2.0; 12]);
    let p = c.data_ptr();
    let d = c * 3.0;
    assert_eq!(d.data_ptr(), p);
    assert_eq!(d.to_vec(), vec![6.0; 12]);
    // Shared, or not the result's type or shape: a new buffer.
    let keep = d.clone();
    let e = d + &b;
    assert_ne!(e.data_ptr(), keep.data_ptr());
    assert_eq!(keep.to_vec(), vec![6.0; 12]);
    let col = Tensor::<f32>::ones(&[3, 1]);
    let p = col.data_ptr();
    let f = col + &Tensor::<f32>::ones(&[3, 4]);
    assert_ne!(f.data_ptr(), p);
    assert_eq!(f.shape(), &[3, 4]);
    let ints = Tensor::<i64>::ones(&[2]);
    let g: Tensor<f32> = ints * 2.5;
    assert_eq!(g.to_vec(), vec![2.5, 2.5]);
}

#[test]
fn mixed_type_promotion() {
    let a = Tensor::<i64>::from_vec(vec![1, 2, 3], &[3]).unwrap();
    let b = Tensor::<f32>::from_vec(vec![0.5, 0.5, 0.5], &[3]).unwrap();
    let c: Tensor<f32> = &a + &b;
    assert_eq!(c.to_vec(), vec![1.5, 2.5, 3.5]);
    let u = Tensor::<u8>::from_vec(vec![200, 1, 2], &[3]).unwrap();
    let s = Tensor::<i8>::from_vec(vec![-1, -2, 100], &[3]).unwrap();
    let w: Tensor<i16> = &u * &s;
    assert_eq!(w.to_vec(), vec![-200, -2, 200]);
    let hb: Tensor<f32> = &Tensor::<f16>::ones(&[2]) + &Tensor::<bf16>::ones(&[2]);
    assert_eq!(hb.to_vec(), vec![2.0, 2.0]);
    let bi: Tensor<i64> = &Tensor::<bool>::ones(&[2]) + 1;
    assert_eq!(bi.to_vec(), vec![2, 2]);
    let f: Tensor<f32> = &a * 2.5;
    assert_eq!(f.to_vec(), vec![2.5, 5.0, 7.5]);
    let hf: Tensor<f16> = &Tensor::<f16>::ones(&[1]) * 2.5;
    assert_eq!(hf.to_vec(), vec![f16::from_f32(2.5)]);
    // A 0-d tensor of a higher type takes full part (the static type is the table's).
    let z = Tensor::<f64>::scalar(0.25);
    let r: Tensor<f64> = &b + &z;
    assert_eq!(r.to_vec(), vec![0.75; 3]);
    // Mixed types against the dyn reference, on non-contiguous and broadcast operands.
    let x = gen_i::<i32>(&[5, 4], 1).t();
    let y = gen_f::<f64>(&[5], 2);
    let t: Tensor<f64> = &x * &y;
    assert_same(
        "i32 * f64",
        &t,
        &DynTensor::from(x.clone()).mul(&DynTensor::from(y.clone())),
    );
    let t: Tensor<f32> = &x / &x.to::<u8>().maximum(1);
    let d = DynTensor::from(x.clone()).div(&DynTensor::from(x.to::<u8>().maximum(1)));
    assert_same("i32 / u8", &t, &d);
    let mut acc = Tensor::<f64>::zeros(&[4, 5]);
    acc += &x;
    assert_eq!(acc.to_vec(), x.to::<f64>().to_vec());
}

#[test]
fn errors() {
    let a = Tensor::<f32>::ones(&[2, 3]);
    let b = Tensor::<f32>::ones(&[4]);
    assert!(matches!(a.try_add(&b), Err(Error::ShapeMismatch { .. })));
    // Integer division by zero: an error, the output untouched (direct and iterator paths).
    for layout in [false, true] {
        let x = Tensor::<i32>::from_vec(vec![5, 6, 7, 8], &[2, 2]).unwrap();
        let y = Tensor::<i32>::from_vec(vec![1, 0, 2, 3], &[2, 2]).unwrap();
        let y = if layout { y.t() } else { y };
        let mut out = Tensor::<i32>::full(&[2, 2], 42);
        assert_eq!(
            x.try_floor_divide_out(&y, &mut out),
            Err(Error::ZeroDivision { op: "floor_divide" })
        );
        assert_eq!(out.to_vec(), vec![42; 4]);
        let mut z = x.clone();
        assert!(matches!(
            z.try_remainder_(&y),
            Err(Error::ZeroDivision { .. })
        ));
        assert_eq!(z.to_vec(), vec![5, 6, 7, 8]);
        assert!(matches!(x.try_fmod(0), Err(Error::ZeroDivision { .. })));
    }
    // In place: the result dtype must cast into self's (PyTorch: i64.add_(2.5) raises).
    let mut i = Tensor::<i64>::ones(&[3]);
    assert!(matches!(
        i.try_add_(Scalar::Float(2.5)),
        Err(Error::UnsafeCast { .. })
    ));
    assert_eq!(i.to_vec(), vec![1, 1, 1]);
    // A Scalar whose result type is not the method's static type.
    assert!(matches!(
        i.try_mul(Scalar::Float(2.5)),
        Err(Error::UnsafeCast { .. })
    ));
    // Integer pow with a negative exponent.
    assert!(matches!(i.try_pow(-1), Err(Error::NegativeIntegerPower)));
    // An out of the wrong shape.
    let mut o = Tensor::<f32>::zeros(&[3, 2]);
    assert!(matches!(
        a.try_add_out(&a, &mut o),
        Err(Error::OutputShape { .. })
    ));
}

#[test]
#[should_panic(expected = "do not broadcast")]
fn operator_panics_with_the_error_message() {
    let _ = &Tensor::<f32>::ones(&[2, 3]) + &Tensor::<f32>::ones(&[4]);
}

/// `i += 2.5` on `Tensor<i64>` does not compile (`CastsInto`, doctest in `ops::promote`); an
/// explicit `Scalar` is checked at run time, with PyTorch's error.
#[test]
fn int_add_float_scalar_in_place_is_refused() {
    let mut i = Tensor::<i64>::ones(&[3]);
    let e = i.try_add_(weft::Scalar::Float(2.5)).unwrap_err();
    assert!(e.to_string().contains("can't be cast"), "{e}");
    assert_eq!(i.to_vec(), [1, 1, 1]);
}

macro_rules! check_row {
    ($a:ty => $($b:ty),*) => {$(
        assert_eq!(
            <<$a as Promote<$b>>::Output as Element>::DTYPE,
            promote_types(<$a>::DTYPE, <$b>::DTYPE),
            "{} with {}", stringify!($a), stringify!($b)
        );
    )*};
}
macro_rules! check_table {
    ($($a:ty),*) => {$( check_row!($a => bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64); )*};
}

#[test]
fn promote_trait_matches_the_table() {
    check_table!(bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64);
}

/// The typed flat tier (the operands' parts read straight from the typed tensors, the output
/// built in place) against the `DynTensor` runner, at every rank up to 7 (inline and heap
/// layouts) and on an empty shape: values, shape and contiguous strides of fresh outputs, and
/// `_out` into the result's dtype (flat) and into a wider one (the general call's cast).
#[test]
fn typed_flat_tier_matches_dyn_at_every_rank() {
    let shapes: [&[usize]; 8] = [
        &[3],
        &[2, 3],
        &[2, 1, 3],
        &[2, 2, 1, 3],
        &[1, 2, 2, 1, 3],
        &[2, 1, 2, 1, 1, 3],
        &[1, 1, 2, 1, 2, 1, 3],
        &[2, 0, 3],
    ];
    for (i, &shape) in shapes.iter().enumerate() {
        let seed = i as u64;
        let (a, b) = (gen_f::<f32>(shape, seed), gen_f::<f32>(shape, seed + 100));
        let (da, db) = (DynTensor::from(a.clone()), DynTensor::from(b.clone()));
        let strides = weft::layout::contiguous_strides(shape);
        let fresh: [(&str, Tensor<f32>, DynTensor); 4] = [
            ("add", &a + &b, da.add(&db)),
            ("mul scalar", &a * 2.5, da.mul(2.5)),
            ("scalar minus", 1.5 - &a, da.neg().add(1.5)),
            ("exp", a.exp(), da.exp()),
        ];
        for (what, t, d) in &fresh {
            assert_same(&format!("{what} {shape:?}"), t, d);
            assert_eq!(t.strides(), &strides[..], "{what} {shape:?}: strides");
        }
        let mut out = Tensor::<f32>::zeros(shape);
        a.add_out(&b, &mut out);
        assert_same(&format!("add_out {shape:?}"), &out, &da.add(&db));
        let mut wide = Tensor::<f64>::zeros(shape);
        a.add_out(&b, &mut wide);
        let expect = da.add(&db).to(DType::F64);
        assert_same(&format!("add_out f64 {shape:?}"), &wide, &expect);
        let mut e = Tensor::<f32>::zeros(shape);
        a.exp_out(&mut e);
        assert_same(&format!("exp_out {shape:?}"), &e, &da.exp());
    }
}
