//! Users' own functors (`weft::ops::custom`): the CPU path against a naive per-element reference
//! on random layouts (permuted, stepped, reversed, expanded, offset; broadcast; forced parallel
//! split), dtype support and promotion on `DynTensor`, shape and argument errors.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use weft::functors::{Add, Functor, real::Real};
use weft::half::{bf16, f16};
use weft::ops::custom::{self, Apply, DynApply, DynFunctor, Promotion, from_fn};
use weft::storage::Storage;
use weft::{
    DType, DynElement, DynTensor, Element, Error, Layout, LoopCost, OperandKind, Tensor, Value,
};

// ---------------------------------------------------------------------------------------------
// User functors, written as a user would (core only inside `call`).
// ---------------------------------------------------------------------------------------------

/// PyTorch's smooth_l1 (Huber / beta): `0.5 d² / beta` where `|d| < beta`, else `|d| - 0.5 beta`.
#[derive(Copy, Clone, Debug)]
struct SmoothL1 {
    beta: f64,
}

impl SmoothL1 {
    #[inline(always)]
    fn eval<R: Real>(&self, x: R, y: R) -> R {
        let d = (x - y).abs();
        let beta = R::c(self.beta);
        if d < beta {
            R::HALF * d * d / beta
        } else {
            d - R::HALF * beta
        }
    }
}

macro_rules! float_binary {
    ($f:ty) => {
        impl Functor<(f32, f32)> for $f {
            type Output = f32;
            fn call(&self, (x, y): (f32, f32)) -> f32 {
                self.eval(x, y)
            }
        }
        impl Functor<(f64, f64)> for $f {
            type Output = f64;
            fn call(&self, (x, y): (f64, f64)) -> f64 {
                self.eval(x, y)
            }
        }
        impl Functor<(f16, f16)> for $f {
            type Output = f16;
            fn call(&self, (x, y): (f16, f16)) -> f16 {
                f16::from_f32(self.eval(x.to_f32(), y.to_f32()))
            }
        }
        impl Functor<(bf16, bf16)> for $f {
            type Output = bf16;
            fn call(&self, (x, y): (bf16, bf16)) -> bf16 {
                bf16::from_f32(self.eval(x.to_f32(), y.to_f32()))
            }
        }
    };
}
float_binary!(SmoothL1);

/// `a * x + b`, integers wrapping.
#[derive(Copy, Clone, Debug)]
struct MulAdd;

macro_rules! mul_add {
    (float: $($t:ty),*) => {$(
        impl Functor<($t, $t, $t)> for MulAdd {
            type Output = $t;
            fn call(&self, (a, x, b): ($t, $t, $t)) -> $t { a * x + b }
        }
    )*};
    (int: $($t:ty),*) => {$(
        impl Functor<($t, $t, $t)> for MulAdd {
            type Output = $t;
            fn call(&self, (a, x, b): ($t, $t, $t)) -> $t { a.wrapping_mul(x).wrapping_add(b) }
        }
    )*};
}
mul_add!(float: f32, f64);
mul_add!(int: i32, i64);

/// Mixed argument types: `(f32, i32, f64) -> f64`.
impl Functor<(f32, i32, f64)> for MulAdd {
    type Output = f64;
    fn call(&self, (a, x, b): (f32, i32, f64)) -> f64 {
        a as f64 * x as f64 + b
    }
}

/// `a * x + b` with parameters (floats).
#[derive(Copy, Clone, Debug)]
struct ScaleShift {
    a: f64,
    b: f64,
}
impl<R: Real> Functor<(R,)> for ScaleShift {
    type Output = R;
    fn call(&self, (x,): (R,)) -> R {
        R::c(self.a) * x + R::c(self.b)
    }
}

/// Writes a bool: `x > t`.
#[derive(Copy, Clone, Debug)]
struct Above;
impl Functor<(f64, f64)> for Above {
    type Output = bool;
    fn call(&self, (x, t): (f64, f64)) -> bool {
        x > t
    }
}

weft::impl_dyn_functors! {
    "smooth_l1" (T, T) => SmoothL1: [f32, f64, f16, bf16];
    "mul_add" (T, T, T) => MulAdd: [i32, i64, f32, f64];
    "scale_shift" (T) => ScaleShift: [f32, f64];
}

// ---------------------------------------------------------------------------------------------
// Random layouts
// ---------------------------------------------------------------------------------------------

/// One operand: its logical shape, the physical order of its dims, steps, reversals,
/// expansions (stride 0) and a storage offset.
#[derive(Clone, Debug)]
struct OpLayout {
    shape: Vec<usize>,
    perm: Vec<usize>,
    step: Vec<usize>,
    reverse: Vec<bool>,
    expand: Vec<bool>,
    offset: usize,
}

/// Deterministic pseudo-random values (SplitMix64) for the storage behind a view.
fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            // integers in [-8, 8) and quarters: exact in every float dtype, interesting for ints
            ((z >> 11) % 64) as f64 / 4.0 - 8.0
        })
        .collect()
}

fn make_view<T: DynElement>(l: &OpLayout, seed: u64) -> Tensor<T> {
    let nd = l.shape.len();
    let mut strides = vec![0isize; nd];
    let mut acc = 1usize;
    for &d in l.perm.iter().rev() {
        if l.expand[d] {
            continue;
        }
        strides[d] = (acc * l.step[d]) as isize;
        acc *= (l.shape[d] * l.step[d]).max(1);
    }
    let len = acc + l.offset;
    let mut off = l.offset as isize;
    for (d, s) in strides.iter_mut().enumerate() {
        if l.reverse[d] && l.shape[d] > 0 {
            off += (l.shape[d] as isize - 1) * *s;
            *s = -*s;
        }
    }
    let data: Vec<T> = values(seed, len)
        .into_iter()
        .map(|v| T::from_value(Value::F64(v)))
        .collect();
    let st = Storage::from_slice(&data);
    let layout = Layout::new(l.shape.clone(), strides, off as usize).unwrap();
    Tensor::from_parts(st, layout).unwrap()
}

fn layout_strategy(shape: Vec<usize>) -> impl Strategy<Value = OpLayout> {
    let nd = shape.len();
    (
        Just((0..nd).collect::<Vec<_>>()).prop_shuffle(),
        proptest::collection::vec(1usize..=2, nd),
        proptest::collection::vec(any::<bool>(), nd),
        proptest::collection::vec(prop::bool::weighted(0.2), nd),
        0usize..3,
    )
        .prop_map(move |(perm, step, reverse, expand, offset)| OpLayout {
            shape: shape.clone(),
            perm,
            step,
            reverse,
            expand,
            offset,
        })
}

/// A broadcast shape and `n` operand layouts whose shapes broadcast to it (the first has the
/// full shape, the others drop leading dims or have size-1 dims).
fn operands_strategy(n: usize) -> impl Strategy<Value = (Vec<usize>, Vec<OpLayout>)> {
    proptest::collection::vec(0usize..=5, 0..=4).prop_flat_map(move |shape| {
        let nd = shape.len();
        let sub = (
            0..=nd,
            proptest::collection::vec(prop::bool::weighted(0.3), nd),
        )
            .prop_flat_map({
                let shape = shape.clone();
                move |(drop, ones)| {
                    let s: Vec<usize> = (drop..nd)
                        .map(|d| if ones[d] { 1 } else { shape[d] })
                        .collect();
                    layout_strategy(s)
                }
            });
        let first = layout_strategy(shape.clone());
        let rest = proptest::collection::vec(sub, n - 1);
        (Just(shape), first, rest).prop_map(|(shape, f, mut r)| {
            r.insert(0, f);
            (shape, r)
        })
    })
}

/// Row-major multi-indices of `shape`.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut i| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = i % shape[d];
                i /= shape[d];
            }
            idx
        })
        .collect()
}

/// The element of `t` that broadcasting maps result index `idx` to.
fn bget<T: Element>(t: &Tensor<T>, idx: &[usize]) -> T {
    let lead = idx.len() - t.ndim();
    let i: Vec<usize> = t
        .shape()
        .iter()
        .enumerate()
        .map(|(d, &n)| if n == 1 { 0 } else { idx[lead + d] })
        .collect();
    t.get(&i).unwrap()
}

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

/// Bitwise equality with NaN == NaN.
fn same<T: Element>(a: T, b: T) -> bool {
    match (a.to_value(), b.to_value()) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (x, y) => x == y,
    }
}

// ---------------------------------------------------------------------------------------------
// Typed tensors vs the naive reference
// ---------------------------------------------------------------------------------------------

#[test]
fn typed_binary_ternary_unary_match_reference_on_random_layouts() {
    let strat = (operands_strategy(3), 1usize..=40, 0u64..1000);
    runner(256)
        .run(&strat, |((shape, ls), grain, seed)| {
            let cost = LoopCost::Grain(grain); // forces the parallel split on small tensors
            let x = make_view::<f64>(&ls[0], seed);
            let y = make_view::<f64>(&ls[1], seed + 1);
            let f = SmoothL1 { beta: 0.75 };
            let r = Apply::new(f).cost(cost).run((&x, &y)).unwrap();
            prop_assert_eq!(r.shape(), &shape[..]);
            for idx in indices(&shape) {
                let want = f.call((bget(&x, &idx), bget(&y, &idx)));
                prop_assert!(same(r.get(&idx).unwrap(), want), "at {:?}", idx);
            }

            // ternary, three different element types, output converted to f32 (run_as)
            let a = make_view::<f32>(&ls[0], seed + 2);
            let i = make_view::<i32>(&ls[1], seed + 3);
            let b = make_view::<f64>(&ls[2], seed + 4);
            let r = Apply::new(MulAdd)
                .cost(cost)
                .run_as::<f32, _>((&a, &i, &b))
                .unwrap();
            prop_assert_eq!(r.shape(), &shape[..]);
            for idx in indices(&shape) {
                let want = MulAdd.call((bget(&a, &idx), bget(&i, &idx), bget(&b, &idx))) as f32;
                prop_assert!(same(r.get(&idx).unwrap(), want), "at {:?}", idx);
            }

            // unary (a generic `impl<R: Real>` functor) on the second operand's layout
            let u = make_view::<f32>(&ls[1], seed + 5);
            let s = ScaleShift { a: -1.5, b: 0.25 };
            let r = u.map(s);
            prop_assert_eq!(r.shape(), u.shape());
            for idx in indices(u.shape()) {
                prop_assert!(same(r.get(&idx).unwrap(), s.call((u.get(&idx).unwrap(),))));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn typed_run_out_into_strided_output() {
    let strat = (operands_strategy(2), 0u64..1000);
    runner(128)
        .run(&strat, |((shape, ls), seed)| {
            let x = make_view::<f64>(&ls[0], seed);
            let y = make_view::<f64>(&ls[1], seed + 1);
            // an output with the full shape, transposed-ish layout, no expansion
            let mut ol = ls[0].clone();
            ol.expand = vec![false; ol.shape.len()];
            let out = make_view::<f32>(&ol, 99);
            Apply::new(SmoothL1 { beta: 2.0 })
                .run_out((&x, &y), &out)
                .unwrap();
            for idx in indices(&shape) {
                let want = SmoothL1 { beta: 2.0 }.call((bget(&x, &idx), bget(&y, &idx))) as f32;
                prop_assert!(same(out.get(&idx).unwrap(), want));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn builtin_functor_through_zip_with() {
    let a = Tensor::<i32>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = Tensor::<i32>::from_vec(vec![10, 20], &[2, 1]).unwrap();
    let r = a.zip_with(&b, Add);
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(r.to_vec(), vec![11, 12, 13, 24, 25, 26]);
    // transposed operand
    let r = a.t().zip_with(&Tensor::<i32>::scalar(100), Add);
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_vec(), vec![101, 104, 102, 105, 103, 106]);
    // integers wrap like the built-in add
    let m = Tensor::<i32>::scalar(i32::MAX);
    assert_eq!(m.zip_with(&m, Add).item().unwrap(), -2);
    // bool output
    let x = Tensor::<f64>::from_vec(vec![0.5, 1.5, f64::NAN], &[3]).unwrap();
    let t = Tensor::<f64>::scalar(1.0);
    assert_eq!(x.zip_with(&t, Above).to_vec(), vec![false, true, false]);
}

#[test]
fn closures_and_tuple_forms() {
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let r = a.t().map(from_fn(|v: f32| v * 10.0));
    assert_eq!(r.to_vec(), vec![10.0, 30.0, 20.0, 40.0]);
    let k = 0.5f32;
    let r = a.zip_with(&a.t(), from_fn(move |x: f32, y: f32| x * k - y));
    assert_eq!(r.to_vec(), vec![-0.5, -2.0, -0.5, -2.0]);
    let c = Tensor::<i64>::from_vec(vec![1, -1], &[2]).unwrap();
    let r = custom::apply(
        from_fn(|x: f32, y: f32, s: i64| if s > 0 { x } else { y }),
        (&a, &a.t(), &c),
    )
    .unwrap();
    assert_eq!(r.to_vec(), vec![1.0, 3.0, 3.0, 4.0]);
    // a bare reference is a one-tensor input; output type chosen
    let r = Apply::new(from_fn(|x: f32| x * 1.5))
        .run_as::<i32, _>(&a)
        .unwrap();
    assert_eq!(r.to_vec(), vec![1, 3, 4, 6]);
    // a functor returning a different element type than its input
    let r = a.map(from_fn(|x: f32| x > 2.0));
    assert_eq!(r.to_vec(), vec![false, false, true, true]);
}

#[test]
fn in_place_through_run_out() {
    let a = Tensor::<f64>::from_vec(vec![1.0, -2.0, 3.0, -4.0], &[2, 2]).unwrap();
    let b = Tensor::<f64>::from_vec(vec![1.0, 1.0], &[2]).unwrap();
    Apply::new(from_fn(|x: f64, y: f64| x * 2.0 + y))
        .run_out((&a, &b), &a)
        .unwrap();
    assert_eq!(a.to_vec(), vec![3.0, -3.0, 7.0, -7.0]);
}

/// Regression: a dense permuted input with a negative stride on a size-1 dim made the
/// iterator's fast set-up allocate its output with that negative stride (an InvalidView error).
#[test]
fn dense_input_with_negative_stride_on_size_one_dim() {
    let st = Storage::from_slice(&(0..10).map(|i| i as f32).collect::<Vec<_>>());
    let l = Layout::new(vec![5, 1, 2], vec![1, -10, 5], 0).unwrap();
    let t = Tensor::from_parts(st, l).unwrap();
    let r = t.map(ScaleShift { a: 1.0, b: 1.0 });
    assert_eq!(
        r.to_vec(),
        t.to_vec().iter().map(|v| v + 1.0).collect::<Vec<_>>()
    );
    let d = DynTensor::from(t);
    assert_eq!(d.neg().shape(), &[5, 1, 2]); // the built-in ops took the same path
}

#[test]
fn empty_and_zero_dim() {
    let e = Tensor::<f32>::zeros(&[0, 3]);
    let r = e.zip_with(&Tensor::<f32>::ones(&[3]), SmoothL1 { beta: 1.0 });
    assert_eq!(r.shape(), &[0, 3]);
    let s = Tensor::<f64>::scalar(3.0);
    let r = s.zip_with(&Tensor::<f64>::scalar(0.5), SmoothL1 { beta: 1.0 });
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r.item().unwrap(), 2.0);
}

// ---------------------------------------------------------------------------------------------
// Shape errors
// ---------------------------------------------------------------------------------------------

#[test]
fn broadcast_errors_are_typed() {
    let a = Tensor::<f32>::zeros(&[2, 3]);
    let b = Tensor::<f32>::zeros(&[4]);
    let e = a.try_zip_with(&b, SmoothL1 { beta: 1.0 }).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
    let e = Apply::new(MulAdd)
        .name("my_fma")
        .run((&a, &a, &Tensor::<f32>::zeros(&[3, 1])))
        .unwrap_err();
    assert!(
        matches!(e, Error::ShapeMismatch { op: "my_fma", .. }),
        "{e}"
    );
    let e = a
        .try_zip3_with(&a, &Tensor::<f32>::zeros(&[5, 2, 3]), MulAdd)
        .unwrap();
    assert_eq!(e.shape(), &[5, 2, 3]);
    // outputs never broadcast
    let out = Tensor::<f32>::zeros(&[3]);
    let e = Apply::new(SmoothL1 { beta: 1.0 })
        .run_out((&a, &a), &out)
        .unwrap_err();
    assert!(matches!(e, Error::OutputShape { .. }), "{e}");
    // dynamic tensors too
    let da = DynTensor::from(a.clone());
    let db = DynTensor::from(b);
    let e = da.try_zip_with(&db, SmoothL1 { beta: 1.0 }).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e}");
}

#[test]
#[should_panic(expected = "do not broadcast")]
fn panicking_form_panics_with_the_message() {
    let a = Tensor::<f32>::zeros(&[2, 3]);
    let _ = a.zip_with(&Tensor::<f32>::zeros(&[2]), SmoothL1 { beta: 1.0 });
}

// ---------------------------------------------------------------------------------------------
// DynTensor: supported dtypes, promotion, outputs
// ---------------------------------------------------------------------------------------------

const ALL: [DType; 10] = [
    DType::Bool,
    DType::U8,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

fn dyn_view(l: &OpLayout, seed: u64, dtype: DType) -> DynTensor {
    weft::with_dtype!(dtype, T => make_view::<T>(l, seed).into())
}

/// Checks a result against `g` applied per element to the inputs converted (by `.to()`, an
/// independent path) to the computation dtype `C`.
fn check_dyn<C: DynElement>(
    g: impl Fn(&[C]) -> C,
    shape: &[usize],
    inputs: &[&DynTensor],
    r: &DynTensor,
) -> Result<(), TestCaseError> {
    let conv: Vec<Tensor<C>> = inputs
        .iter()
        .map(|t| t.to(C::DTYPE).as_typed::<C>().unwrap().clone())
        .collect();
    let rt = r.as_typed::<C>().unwrap();
    prop_assert_eq!(rt.shape(), shape);
    for idx in indices(shape) {
        let args: Vec<C> = conv.iter().map(|t| bget(t, &idx)).collect();
        prop_assert!(same(rt.get(&idx).unwrap(), g(&args)), "at {:?}", idx);
    }
    Ok(())
}

#[test]
fn dyn_promotes_and_refuses_unlisted_dtypes_on_random_layouts() {
    let strat = (
        operands_strategy(3),
        proptest::sample::select(ALL.to_vec()),
        proptest::sample::select(ALL.to_vec()),
        proptest::sample::select(ALL.to_vec()),
        0u64..1000,
        1usize..=40,
    );
    runner(256)
        .run(&strat, |((shape, ls), d0, d1, d2, seed, grain)| {
            let x = dyn_view(&ls[0], seed, d0);
            let y = dyn_view(&ls[1], seed + 1, d1);
            let z = dyn_view(&ls[2], seed + 2, d2);
            let cost = LoopCost::Grain(grain);

            // binary: float dtypes only
            // torch.result_type: a 0-d operand (all dims dropped) is weaker than a dimensioned one
            let kind = |t: &DynTensor| if t.ndim() == 0 { OperandKind::ZeroDim } else { OperandKind::Dimensioned };
            let c2 = weft::result_type(&[(d0, kind(&x)), (d1, kind(&y))]).unwrap();
            let f = SmoothL1 { beta: 0.5 };
            let r = DynApply::new(f).cost(cost).run(&[&x, &y]);
            weft::dispatch_dtypes!(c2, [F16, BF16, F32, F64], C => {
                check_dyn::<C>(|v| f.call((v[0], v[1])), &shape, &[&x, &y], &r.unwrap())?
            }, _ => {
                let e = r.unwrap_err();
                prop_assert_eq!(
                    e,
                    Error::UnsupportedDType { op: "smooth_l1", dtype: c2, other: None }
                );
            });

            // ternary: i32, i64, f32, f64
            let c3 = weft::result_type(&[(d0, kind(&x)), (d1, kind(&y)), (d2, kind(&z))]).unwrap();
            let r = DynApply::new(MulAdd).cost(cost).run(&[&x, &y, &z]);
            weft::dispatch_dtypes!(c3, [I32, I64, F32, F64], C => {
                check_dyn::<C>(|v| MulAdd.call((v[0], v[1], v[2])), &shape, &[&x, &y, &z], &r.unwrap())?
            }, _ => {
                let e = r.unwrap_err();
                prop_assert_eq!(
                    e,
                    Error::UnsupportedDType { op: "mul_add", dtype: c3, other: None }
                );
            });
            Ok(())
        })
        .unwrap();
}

#[test]
fn dyn_unsupported_dtype_names_the_dtype() {
    let i = DynTensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
    let e = i.try_map(ScaleShift { a: 1.0, b: 0.0 }).unwrap_err();
    assert_eq!(
        e,
        Error::UnsupportedDType {
            op: "scale_shift",
            dtype: DType::I64,
            other: None
        }
    );
    assert!(e.to_string().contains("scale_shift"), "{e}");
    assert!(
        e.to_string().contains("int64") || e.to_string().contains("i64"),
        "{e}"
    );
    let b = DynTensor::from_vec(vec![true, false], &[2]).unwrap();
    let e = b.try_zip_with(&b, SmoothL1 { beta: 1.0 }).unwrap_err();
    assert!(matches!(
        e,
        Error::UnsupportedDType {
            dtype: DType::Bool,
            ..
        }
    ));
    assert_eq!(
        <SmoothL1 as DynFunctor>::DTYPES,
        &[DType::F32, DType::F64, DType::F16, DType::BF16]
    );
    assert_eq!(<MulAdd as DynFunctor>::ARITY, 3);
    assert_eq!(<ScaleShift as DynFunctor>::NAME, "scale_shift");
}

#[test]
fn dyn_promotion_options() {
    let i = DynTensor::from_vec(vec![1i64, -2, 3], &[3]).unwrap();
    let h = DynTensor::from_vec(vec![f16::from_f32(0.5)], &[1]).unwrap();
    let d0 = DynTensor::scalar(DType::F64, weft::Scalar::Float(1.0));

    // default: i64 + f16 -> f16; a 0-d f64 does not lift an f16 tensor (same category)
    let r = i.zip_with(&h, SmoothL1 { beta: 1.0 });
    assert_eq!(r.dtype(), DType::F16);
    let r = h.zip_with(&d0, SmoothL1 { beta: 1.0 });
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(r.to_values(), vec![Value::F32(0.125)]);

    // CommonFloat: integer inputs compute in f32
    assert!(i.try_map(ScaleShift { a: 2.0, b: 1.0 }).is_err());
    let r = DynApply::new(ScaleShift { a: 2.0, b: 1.0 })
        .promotion(Promotion::CommonFloat)
        .run(&[&i])
        .unwrap();
    assert_eq!(r.dtype(), DType::F32);
    assert_eq!(
        r.to_values(),
        vec![Value::F32(3.0), Value::F32(-3.0), Value::F32(7.0)]
    );

    // Same: no promotion, mismatched dtypes are refused
    let e = DynApply::new(SmoothL1 { beta: 1.0 })
        .promotion(Promotion::Same)
        .run(&[&i, &h])
        .unwrap_err();
    assert_eq!(
        e,
        Error::DTypeMismatch {
            op: "smooth_l1",
            expected: DType::I64,
            got: DType::F16
        }
    );

    // Fixed: compute in f64 whatever the inputs; output dtype chosen separately
    let r = DynApply::new(SmoothL1 { beta: 1.0 })
        .promotion(Promotion::Fixed(DType::F64))
        .out_dtype(DType::I32)
        .run(&[&i, &h])
        .unwrap();
    assert_eq!(r.dtype(), DType::I32);
    assert_eq!(
        r.to_values(),
        vec![Value::Int(0), Value::Int(2), Value::Int(2)]
    );
    let e = DynApply::new(SmoothL1 { beta: 1.0 })
        .promotion(Promotion::Fixed(DType::I16))
        .run(&[&i, &h])
        .unwrap_err();
    assert!(matches!(
        e,
        Error::UnsupportedDType {
            dtype: DType::I16,
            ..
        }
    ));
}

#[test]
fn dyn_outputs_and_arity() {
    let x = DynTensor::from_vec(vec![1.0f32, 4.0], &[2]).unwrap();
    let y = DynTensor::from_vec(vec![0.0f32], &[1]).unwrap();
    // a given f64 output accepts the f32 result
    let out = DynTensor::zeros(DType::F64, &[2]).unwrap();
    let r = DynApply::new(SmoothL1 { beta: 1.0 })
        .out(&out)
        .run(&[&x, &y])
        .unwrap();
    assert_eq!(out.to_values(), vec![Value::F64(0.5), Value::F64(3.5)]);
    assert_eq!(r.to_values(), out.to_values());
    // an i32 output does not (PyTorch's safe-casting rule for out=)
    let bad = DynTensor::zeros(DType::I32, &[2]).unwrap();
    let e = DynApply::new(SmoothL1 { beta: 1.0 })
        .out(&bad)
        .run(&[&x, &y])
        .unwrap_err();
    assert_eq!(
        e,
        Error::UnsafeCast {
            op: "smooth_l1",
            from: DType::F32,
            to: DType::I32
        }
    );
    // wrong shape
    let small = DynTensor::zeros(DType::F32, &[1]).unwrap();
    let e = DynApply::new(SmoothL1 { beta: 1.0 })
        .out(&small)
        .run(&[&x, &y])
        .unwrap_err();
    assert!(matches!(e, Error::OutputShape { .. }), "{e}");
    // arity
    let e = custom::apply_dyn(SmoothL1 { beta: 1.0 }, &[&x]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                op: "smooth_l1",
                ..
            }
        ),
        "{e}"
    );
    // ternary on DynTensor with broadcasting and a transposed operand
    let a = DynTensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = DynTensor::from_vec(vec![10i32, 20, 30, 40, 50, 60], &[3, 2]).unwrap();
    let c = DynTensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    let r = a.zip3_with(&b.t(), &c, MulAdd);
    assert_eq!(r.dtype(), DType::I32);
    let want: Vec<Value> = [11, 62, 153, 81, 202, 363]
        .iter()
        .map(|&v| Value::Int(v))
        .collect();
    assert_eq!(r.to_values(), want);
}
