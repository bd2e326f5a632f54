//! Reading `DynTensor` elements as values, `PartialEq` (torch.equal) and `allclose`.

use weft::compare::{DEFAULT_ATOL, DEFAULT_RTOL};
use weft::half::{bf16, f16};
use weft::{DType, DynTensor, Error, Scalar, Tensor};

fn dt<T: weft::DynElement>(v: Vec<T>, shape: &[usize]) -> DynTensor {
    DynTensor::from_vec(v, shape).unwrap()
}

#[test]
fn get_and_item() {
    let t = dt(vec![1i16, -2, 3, 4, 5, 6], &[2, 3]);
    assert_eq!(t.get(&[0, 1]), Ok(Scalar::Int(-2)));
    assert_eq!(t.t().get(&[2, 1]), Ok(Scalar::Int(6)));
    assert!(matches!(t.get(&[2, 0]), Err(Error::IndexOutOfRange { .. })));
    assert!(matches!(t.get(&[0]), Err(Error::InvalidArgument { .. })));
    assert!(matches!(t.item(), Err(Error::InvalidArgument { .. })));
    assert_eq!(dt(vec![true], &[1, 1]).item(), Ok(Scalar::Bool(true)));
    assert_eq!(
        dt(vec![f16::from_f32(0.5)], &[]).item(),
        Ok(Scalar::Float(0.5))
    );
    assert_eq!(
        dt(vec![0.1f32], &[1]).item(),
        Ok(Scalar::Float(0.1f32 as f64))
    );
    assert_eq!(dt(vec![i64::MIN], &[]).item(), Ok(Scalar::Int(i64::MIN)));
    assert_eq!(
        DynTensor::scalar(DType::U8, Scalar::Int(255)).item(),
        Ok(Scalar::Int(255))
    );
    // A slice with an offset and a negative step.
    let s = t.slice(1, None, None, -1);
    assert_eq!(s.get(&[1, 0]), Ok(Scalar::Int(6)));
}

#[test]
fn to_vec_converts_like_pytorch() {
    let t = dt(vec![-1.5f32, 0.0, 2.7, f32::NAN, 300.0, -0.0], &[2, 3]);
    assert_eq!(t.to_vec::<f32>().unwrap()[..3], [-1.5, 0.0, 2.7]);
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![-1, 0, 2, 0, 300, 0]);
    assert_eq!(
        t.to_vec::<bool>().unwrap(),
        vec![true, false, true, true, true, false]
    );
    assert_eq!(t.to_vec::<u8>().unwrap(), vec![0, 0, 2, 0, 255, 0]); // saturating
    let i = dt(vec![300i32, -1], &[2]);
    assert_eq!(i.to_vec::<u8>().unwrap(), vec![44, 255]); // integers wrap
    assert_eq!(
        i.to_vec::<bf16>().unwrap(),
        vec![bf16::from_f32(300.0), bf16::from_f32(-1.0)]
    );
    // Any layout: transposed, expanded.
    let m = dt(vec![1u8, 2, 3, 4, 5, 6], &[2, 3]);
    assert_eq!(m.t().to_vec::<i64>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    let e = dt(vec![7i8], &[1]).expand([3]);
    assert_eq!(e.to_vec::<f64>().unwrap(), vec![7.0; 3]);
    assert_eq!(
        DynTensor::zeros(DType::F32, &[0, 3])
            .unwrap()
            .to_vec::<f32>(),
        Ok(vec![])
    );
}

#[test]
fn equality_is_torch_equal() {
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let b = a.t().contiguous().t(); // same values, other layout
    assert!(!b.is_contiguous());
    assert!(a == b);
    assert!(a == a.clone());
    assert!(a != a.reshape([3, 2]));
    assert!(a != a.reshape([6]));
    let mut c = a.clone();
    c.set(&[1, 2], 6.5).unwrap();
    assert!(a != c);
    // NaN != NaN, -0.0 == 0.0.
    let n = Tensor::<f64>::from_vec(vec![f64::NAN], &[1]).unwrap();
    assert!(n != n.share());
    let z = Tensor::<f32>::from_vec(vec![0.0], &[]).unwrap();
    assert!(z == Tensor::<f32>::from_vec(vec![-0.0], &[]).unwrap());
    let h = Tensor::<f16>::from_vec(vec![f16::NAN], &[1]).unwrap();
    assert!(h != h.share());
    // Empty tensors of one shape are equal; of different shapes not.
    assert!(Tensor::<i32>::zeros(&[0, 2]) == Tensor::<i32>::zeros(&[0, 2]));
    assert!(Tensor::<i32>::zeros(&[0, 2]) != Tensor::<i32>::zeros(&[2, 0]));

    // DynTensor: the dtype is part of equality.
    let da = DynTensor::from(a.share());
    assert_eq!(da, DynTensor::from(b.share()));
    assert_ne!(da, da.to(DType::F64));
    assert_eq!(da.to(DType::F64), da.to(DType::F64));
    assert_eq!(da.try_equal(&da.to(DType::I64)), Ok(false));
    // Bool and expanded.
    let t = dt(vec![true, false], &[2]);
    assert_eq!(
        t.expand([2, 2]),
        dt(vec![true, false, true, false], &[2, 2])
    );
}

#[test]
fn equality_on_views_of_one_storage() {
    let a = Tensor::<i64>::arange(0, 12, 1).unwrap().reshape([3, 4]);
    let s = a.slice(1, Some(1), None, 2);
    assert_eq!(s.try_equal(&s.share()), Ok(true));
    assert_eq!(s.try_equal(&a.slice(1, Some(0), None, 2)), Ok(false));
}

#[test]
fn allclose_follows_torch() {
    let a = dt(vec![1.0f32, 2.0, 3.0], &[3]);
    let b = dt(vec![1.0f32 + 1e-6, 2.0, 3.0 - 2e-5], &[3]);
    assert_eq!(a.allclose(&b, DEFAULT_RTOL, DEFAULT_ATOL, false), Ok(true));
    let c = dt(vec![1.0f32, 2.0, 3.001], &[3]);
    assert_eq!(a.allclose(&c, DEFAULT_RTOL, DEFAULT_ATOL, false), Ok(false));
    assert_eq!(a.allclose(&c, 1e-3, 0.0, false), Ok(true));
    assert_eq!(a.allclose(&c, 0.0, 1e-3 + 1e-9, false), Ok(true));
    // The tolerance is relative to `other` (asymmetric, as torch).
    let x = dt(vec![1.0f64], &[]);
    let y = dt(vec![1.1f64], &[]);
    assert_eq!(x.allclose(&y, 0.095, 0.0, false), Ok(true)); // 0.1 <= 0.1045
    assert_eq!(y.allclose(&x, 0.095, 0.0, false), Ok(false)); // 0.1 > 0.095
    // NaN and infinities.
    let n = dt(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY], &[3]);
    assert_eq!(n.allclose(&n, DEFAULT_RTOL, DEFAULT_ATOL, false), Ok(false));
    assert_eq!(n.allclose(&n, DEFAULT_RTOL, DEFAULT_ATOL, true), Ok(true));
    let inf = dt(vec![f64::INFINITY], &[1]);
    let big = dt(vec![f64::MAX], &[1]);
    assert_eq!(inf.allclose(&big, 1.0, 1.0, false), Ok(false));
    assert_eq!(
        inf.allclose(&dt(vec![f64::NEG_INFINITY], &[1]), 1.0, 1.0, true),
        Ok(false)
    );
    // Broadcasting: [2, 3] against [3] and a 0-d tensor.
    let m = dt(vec![1.0f32, 2.0, 3.0, 1.0, 2.0, 3.0], &[2, 3]);
    assert_eq!(m.allclose(&a, DEFAULT_RTOL, DEFAULT_ATOL, false), Ok(true));
    assert_eq!(
        dt(vec![5i32, 5, 5], &[3]).allclose(&dt(vec![5.0f64], &[]), 0.0, 0.0, false),
        Ok(true)
    );
    assert!(matches!(
        m.allclose(
            &dt(vec![1.0f32, 2.0], &[2]),
            DEFAULT_RTOL,
            DEFAULT_ATOL,
            false
        ),
        Err(Error::ShapeMismatch { .. })
    ));
    // Mixed dtypes compare in f64; bool as 0/1.
    assert_eq!(
        dt(vec![true, false], &[2]).allclose(&dt(vec![1u8, 0], &[2]), 0.0, 0.0, false),
        Ok(true)
    );
    assert_eq!(
        dt(vec![f16::from_f32(0.1)], &[1]).allclose(&dt(vec![0.1f32], &[1]), 1e-3, 0.0, false),
        Ok(true)
    );
    // Tolerances must be >= 0.
    for (r, t) in [(-1.0, 0.0), (0.0, -1e-9), (f64::NAN, 0.0)] {
        assert!(matches!(
            a.allclose(&a, r, t, false),
            Err(Error::InvalidArgument { .. })
        ));
    }
    // Empty tensors are close.
    let e = DynTensor::zeros(DType::F32, &[0]).unwrap();
    assert_eq!(e.allclose(&e, 0.0, 0.0, false), Ok(true));
    // Typed form.
    let ta = Tensor::<f32>::from_vec(vec![1.0, 2.0], &[2]).unwrap();
    let tb = Tensor::<f64>::from_vec(vec![1.0, 2.0 + 1e-7], &[2]).unwrap();
    assert_eq!(
        ta.allclose(&tb, DEFAULT_RTOL, DEFAULT_ATOL, false),
        Ok(true)
    );
}

#[test]
fn full_and_fill_refuse_values_that_do_not_fit() {
    use Scalar::*;
    let over: &[(DType, Scalar)] = &[
        (DType::U8, Int(300)),
        (DType::U8, Int(-256)),
        (DType::I8, Int(128)),
        (DType::I16, Int(40000)),
        (DType::I32, Int(1 << 40)),
        (DType::I64, Float(1e19)),
        (DType::I32, Float(f64::NAN)),
        (DType::I64, Float(f64::INFINITY)),
        (DType::F16, Float(70000.0)),
        (DType::BF16, Float(1e39)),
        (DType::F32, Float(1e39)),
        (DType::F16, Int(100000)),
    ];
    for &(d, s) in over {
        let e = DynTensor::full(d, &[2], s).unwrap_err();
        assert!(
            matches!(e, Error::ScalarOverflow { op: "full", dtype, .. } if dtype == d),
            "{d} {s:?}: {e:?}"
        );
        assert!(e.to_string().contains("without overflow"), "{e}");
        let mut t = DynTensor::zeros(d, &[2]).unwrap();
        assert!(matches!(
            t.try_fill_(s),
            Err(Error::ScalarOverflow { op: "fill_", .. })
        ));
        assert_eq!(t, DynTensor::zeros(d, &[2]).unwrap(), "nothing written");
    }
    let fit: &[(DType, Scalar, Scalar)] = &[
        (DType::U8, Int(255), Int(255)),
        (DType::U8, Int(-1), Int(255)), // PyTorch lets u8 wrap negatives
        (DType::I8, Int(-128), Int(-128)),
        (DType::I64, Float(2.9), Int(2)),
        (DType::F16, Float(f64::INFINITY), Float(f64::INFINITY)),
        (DType::F32, Float(1e-50), Float(0.0)),
        (DType::F64, Float(1e300), Float(1e300)),
        (DType::Bool, Int(7), Bool(true)),
        (DType::I32, Bool(true), Int(1)),
    ];
    for &(d, s, want) in fit {
        let t = DynTensor::full(d, &[2], s).unwrap();
        assert_eq!(t.get(&[1]), Ok(want), "{d} {s:?}");
        let mut z = DynTensor::zeros(d, &[3, 2]).unwrap();
        let mut view = z.t();
        view.try_fill_(s).unwrap();
        assert_eq!(z.get(&[2, 1]), Ok(want));
        z.fill_(Scalar::Int(0));
        assert_eq!(z, DynTensor::zeros(d, &[3, 2]).unwrap());
    }
    // A self-overlapping (expanded) view cannot be filled.
    let mut e = DynTensor::zeros(DType::F32, &[1]).unwrap().expand([3]);
    assert!(matches!(
        e.try_fill_(Scalar::Int(1)),
        Err(Error::MemoryOverlap { .. })
    ));
}
