//! The unsigned dtypes u16, u32, u64 (issue 16) beyond the golden cases of unsigned.json:
//! compile-time result types, values above `i64::MAX` through scalars, casts and reductions,
//! saturating float casts, and NumPy's promotion where PyTorch has none.

use weft::functors::BinaryOp;
use weft::ops::Operand;
use weft::ops::promote::Promoted;
use weft::{DType, DynTensor, Element, OperandKind, Scalar, Tensor, promote_types, result_type};

/// The dtype of a type, for compile-time result checks.
fn dtype_of<T: Element>(_: &Tensor<T>) -> DType {
    T::DTYPE
}

#[test]
fn typed_results_follow_numpy_promotion() {
    let a = Tensor::<u16>::from_vec(vec![1, 65535, 7], &[3]).unwrap();
    let b = Tensor::<i8>::from_vec(vec![-1, 1, -128], &[3]).unwrap();
    // u16 + i8 -> i32: the smallest integer holding both ranges.
    let c: Tensor<i32> = &a + &b;
    assert_eq!(c.to_vec(), vec![0, 65536, -121]);
    let u = Tensor::<u64>::from_vec(vec![u64::MAX, 3], &[2]).unwrap();
    let i = Tensor::<i64>::from_vec(vec![-1, 4], &[2]).unwrap();
    // u64 with a signed integer: no integer holds both, f64.
    let f: Tensor<f64> = &u + &i;
    assert_eq!(f.to_vec(), vec![u64::MAX as f64 - 1.0, 7.0]);
    let h: Tensor<weft::half::f16> = &u * &Tensor::<weft::half::f16>::ones(&[2]);
    assert_eq!(dtype_of(&h), DType::F16);
    // u32 + i32 -> i64, u16 + u8 -> u16.
    assert_eq!(<Promoted<u32, i32> as Element>::DTYPE, DType::I64);
    assert_eq!(<Promoted<u16, u8> as Element>::DTYPE, DType::U16);
    // The typed table is the const table, for every pair.
    for a in DType::ALL {
        for b in DType::ALL {
            assert_eq!(promote_types(a, b), promote_types(b, a));
        }
    }
}

#[test]
fn wrapping_arithmetic_and_comparisons_above_i64_max() {
    let big = u64::MAX - 5;
    let t = Tensor::<u64>::from_vec(vec![big, 1, 0], &[3]).unwrap();
    // A u64 scalar above i64::MAX stays exact (Scalar::UInt), compares and adds as a u64.
    assert_eq!(Scalar::from(big), Scalar::UInt(big));
    assert_eq!(Scalar::from(5u64), Scalar::Int(5));
    let d = DynTensor::from(t.clone());
    let gt = d.try_gt(Operand::Scalar(Scalar::from(big - 1))).unwrap();
    assert_eq!(gt.to_values()[0], weft::Value::Bool(true));
    let sum = (&t + 10i64).to_vec();
    assert_eq!(sum, vec![4, 11, 10], "wraps past u64::MAX");
    let neg = (-&t).to_vec();
    assert_eq!(neg, vec![6, u64::MAX, 0], "neg wraps");
    let n16 = -&Tensor::<u16>::from_vec(vec![1, 0], &[2]).unwrap();
    assert_eq!(n16.to_vec(), vec![65535, 0]);
    assert_eq!(
        t.abs().to_vec(),
        t.to_vec(),
        "abs of unsigned is the identity"
    );
    assert_eq!(t.sign().to_vec(), vec![1, 1, 0]);
    let m = weft::ops::binary::binary(BinaryOp::Maximum, (&d).into(), Scalar::Int(2).into(), None)
        .unwrap();
    assert_eq!(
        m.to_values(),
        vec![
            weft::Value::UInt(big),
            weft::Value::UInt(2),
            weft::Value::UInt(2)
        ]
    );
    // floor_divide / remainder of unsigned values above i64::MAX.
    let q = t.floor_divide(&Tensor::<u64>::from_vec(vec![2, 1, 3], &[3]).unwrap());
    assert_eq!(q.to_vec(), vec![big / 2, 1, 0]);
    let r = t.remainder(&Tensor::<u64>::from_vec(vec![7, 1, 3], &[3]).unwrap());
    assert_eq!(r.to_vec(), vec![big % 7, 0, 0]);
}

#[test]
fn casts_saturate_from_floats_and_wrap_between_integers() {
    let f = Tensor::<f64>::from_vec(vec![-1.5, 1e30, 3.9, f64::NAN], &[4]).unwrap();
    assert_eq!(f.to::<u16>().to_vec(), vec![0, 65535, 3, 0]);
    assert_eq!(f.to::<u64>().to_vec(), vec![0, u64::MAX, 3, 0]);
    let i = Tensor::<i64>::from_vec(vec![-1, 70000], &[2]).unwrap();
    assert_eq!(i.to::<u16>().to_vec(), vec![65535, 4464]);
    assert_eq!(i.to::<u64>().to_vec(), vec![u64::MAX, 70000]);
    let u = Tensor::<u64>::from_vec(vec![u64::MAX], &[1]).unwrap();
    assert_eq!(u.to::<f64>().to_vec(), vec![u64::MAX as f64]);
    assert_eq!(u.to::<f32>().to_vec(), vec![u64::MAX as f32]);
    assert_eq!(u.to::<i64>().to_vec(), vec![-1]);
    // Into f16 through f32, as for the other integers.
    let h = Tensor::<u32>::from_vec(vec![65519, 70000], &[2])
        .unwrap()
        .to::<weft::half::f16>();
    assert_eq!(h.to_vec()[0], weft::half::f16::from_f32(65519.0));
    assert!(h.to_vec()[1].is_infinite());
}

#[test]
fn reductions_accumulate_unsigned_in_u64() {
    let t = Tensor::<u32>::from_vec(vec![u32::MAX, u32::MAX, 2], &[3]).unwrap();
    let s: Tensor<u64> = t.sum((), false);
    assert_eq!(s.to_vec(), vec![2 * u32::MAX as u64 + 2]);
    let big = Tensor::<u64>::from_vec(vec![u64::MAX, 2], &[2]).unwrap();
    assert_eq!(big.sum((), false).to_vec(), vec![1], "wraps");
    assert_eq!(big.amax((), false).to_vec(), vec![u64::MAX]);
    assert_eq!(big.argmax(None, false).to_vec(), vec![0]);
    let d = DynTensor::from(Tensor::<u16>::from_vec(vec![1, 2, 3], &[3]).unwrap());
    assert_eq!(d.try_sum((), false).unwrap().dtype(), DType::U64);
    assert_eq!(d.try_any((), false).unwrap().dtype(), DType::Bool);
    assert!(
        d.try_mean((), false).is_err(),
        "integer mean needs a float dtype"
    );
    let m = d.try_mean_as((), false, DType::F64).unwrap();
    assert_eq!(m.to_values(), vec![weft::Value::F64(2.0)]);
}

/// PyTorch's three tiers for its ten dtypes; with a u16/u32/u64 tensor, NumPy 2's rule: 0-d
/// tensors count like dimensioned ones, Python scalars stay weak.
#[test]
fn zero_dim_tensors_follow_numpy_with_unsigned_dtypes() {
    use OperandKind::{Dimensioned as D, Scalar as S, ZeroDim as Z};
    assert_eq!(
        result_type(&[(DType::U8, D), (DType::I64, Z)]),
        Some(DType::U8)
    );
    assert_eq!(
        result_type(&[(DType::U16, D), (DType::I64, Z)]),
        Some(DType::I64)
    );
    assert_eq!(
        result_type(&[(DType::I16, D), (DType::U16, Z)]),
        Some(DType::I32)
    );
    assert_eq!(
        result_type(&[(DType::U16, D), (DType::I64, S)]),
        Some(DType::U16)
    );
    assert_eq!(
        result_type(&[(DType::U16, D), (DType::F64, S)]),
        Some(DType::F32)
    );
    let a = DynTensor::from(Tensor::<u16>::from_vec(vec![1, 2], &[2]).unwrap());
    let z = DynTensor::from(Tensor::<i64>::from_vec(vec![-3], &[]).unwrap());
    let r = a.try_add(&z).unwrap();
    assert_eq!(r.dtype(), DType::I64);
    assert_eq!(
        r.to_values(),
        vec![weft::Value::Int(-2), weft::Value::Int(-1)]
    );
}

#[test]
fn bitwise_shifts_and_errors() {
    let a = Tensor::<u32>::from_vec(vec![0xF0F0_F0F0, 1], &[2]).unwrap();
    assert_eq!((!&a).to_vec(), vec![0x0F0F_0F0F, u32::MAX - 1]);
    let sh = a.bitwise_left_shift(&Tensor::<u32>::from_vec(vec![4, 31], &[2]).unwrap());
    assert_eq!(sh.to_vec(), vec![0x0F0F_0F00, 1 << 31]);
    // u64 & i64 promotes to f64: a dtype error, as unsigned.json says.
    let u = DynTensor::from(Tensor::<u64>::ones(&[2]));
    let i = DynTensor::from(Tensor::<i64>::ones(&[2]));
    assert!(matches!(
        u.try_bitwise_and(&i),
        Err(weft::Error::UnsupportedDType { .. })
    ));
    // A negative fill does not fit u16 (only u8 wraps, PyTorch's rule for uint8).
    let mask = DynTensor::from(Tensor::<bool>::ones(&[2]));
    let x = DynTensor::from(Tensor::<u16>::ones(&[2]));
    assert!(
        x.try_masked_fill(&mask, Operand::Scalar(Scalar::Int(-1)))
            .is_err()
    );
    assert!(
        x.try_masked_fill(&mask, Operand::Scalar(Scalar::Int(65535)))
            .is_ok()
    );
}
