//! `cat` and `stack`: PyTorch's shapes, promotion and errors, any input layout.

use weft::{DType, DynTensor, Tensor};

fn f32s(v: &[f32], shape: &[usize]) -> DynTensor {
    DynTensor::from(Tensor::from_vec(v.to_vec(), shape).unwrap())
}

fn values(t: &DynTensor) -> Vec<f64> {
    t.to(DType::F64).as_typed::<f64>().unwrap().to_vec()
}

#[test]
fn cat_along_each_dim_with_any_layout() {
    let a = f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let b = f32s(&[5.0, 6.0], &[1, 2]);
    let c = DynTensor::cat(&[&a, &b], 0).unwrap();
    assert_eq!(c.shape(), &[3, 2]);
    assert_eq!(values(&c), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // transposed and reversed inputs, negative dim
    let at = a.t();
    let br = f32s(&[7.0, 8.0], &[2, 1]).slice(0, None, None, -1);
    let c = DynTensor::cat(&[&at, &br], -1).unwrap();
    assert_eq!(c.shape(), &[2, 3]);
    assert_eq!(values(&c), vec![1.0, 3.0, 8.0, 2.0, 4.0, 7.0]);
}

#[test]
fn cat_promotes_and_skips_legacy_empties() {
    let i = DynTensor::from(Tensor::<i64>::from_vec(vec![1, 2], &[2]).unwrap());
    let f = f32s(&[0.5], &[1]);
    let e = DynTensor::zeros(DType::U8, &[0]).unwrap();
    let c = DynTensor::cat(&[&i, &e, &f], 0).unwrap();
    assert_eq!(c.dtype(), DType::F32);
    assert_eq!(values(&c), vec![1.0, 2.0, 0.5]);
    let m = f32s(&[1.0, 2.0], &[1, 2]);
    assert_eq!(DynTensor::cat(&[&m, &e], 0).unwrap().shape(), &[1, 2]);
}

#[test]
fn cat_and_stack_errors() {
    let a = f32s(&[1.0, 2.0], &[1, 2]);
    let b = f32s(&[1.0, 2.0, 3.0], &[1, 3]);
    assert!(DynTensor::cat(&[&a, &b], 0).is_err());
    assert!(DynTensor::cat(&[&a, &b], 1).is_ok());
    assert!(DynTensor::cat(&[&a], 2).is_err());
    assert!(DynTensor::cat(&[], 0).is_err());
    let s = DynTensor::scalar(DType::F32, 1.0.into());
    assert!(DynTensor::cat(&[&s, &s], 0).is_err());
    assert!(DynTensor::stack(&[&a, &b], 0).is_err());
    assert!(DynTensor::stack(&[&a, &a], 3).is_err());
}

#[test]
fn stack_adds_a_dim() {
    let a = f32s(&[1.0, 2.0], &[2]);
    let b = f32s(&[3.0, 4.0], &[2]);
    let s = DynTensor::stack(&[&a, &b], 0).unwrap();
    assert_eq!(s.shape(), &[2, 2]);
    assert_eq!(values(&s), vec![1.0, 2.0, 3.0, 4.0]);
    let s = DynTensor::stack(&[&a, &b], -1).unwrap();
    assert_eq!(s.shape(), &[2, 2]);
    assert_eq!(values(&s), vec![1.0, 3.0, 2.0, 4.0]);
    let s0 = DynTensor::stack(&[&DynTensor::scalar(DType::I32, 7.into())], 0).unwrap();
    assert_eq!(s0.shape(), &[1]);
}

#[test]
fn typed_cat_and_stack() {
    let a = Tensor::<i32>::from_vec(vec![1, 2], &[2]).unwrap();
    let b = Tensor::<i32>::from_vec(vec![3], &[1]).unwrap();
    assert_eq!(Tensor::cat(&[&a, &b], 0).unwrap().to_vec(), vec![1, 2, 3]);
    let s = Tensor::stack(&[&a, &a], 1).unwrap();
    assert_eq!(s.shape(), &[2, 2]);
    assert_eq!(s.to_vec(), vec![1, 1, 2, 2]);
}
