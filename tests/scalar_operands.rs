//! A float tensor takes every Rust number as the scalar operand of its operators (`&w * lr`
//! with `lr: f32`); bool and integer tensors take f64 and i64 (their result type depends on the
//! number's kind); literals still infer (`(&t * 2.0).to_vec()` is a `Vec<f32>`).
use half::{bf16, f16};
use weft::Tensor;

fn t(v: &[f32]) -> Tensor<f32> {
    Tensor::<f32>::from_vec(v.to_vec(), &[v.len()]).unwrap()
}

#[test]
fn every_number_type_scales_a_float_tensor() {
    let w = t(&[1.0, 2.0, 4.0]);
    let lr: f32 = 0.5;
    assert_eq!((&w * lr).to_vec(), vec![0.5, 1.0, 2.0]);
    assert_eq!((&w * 2.0f64).to_vec(), vec![2.0, 4.0, 8.0]);
    assert_eq!((&w * f16::from_f32(2.0)).to_vec(), vec![2.0, 4.0, 8.0]);
    assert_eq!((&w * bf16::from_f32(2.0)).to_vec(), vec![2.0, 4.0, 8.0]);
    assert_eq!((&w + 1i8).to_vec(), vec![2.0, 3.0, 5.0]);
    assert_eq!((&w + 1i16).to_vec(), vec![2.0, 3.0, 5.0]);
    assert_eq!((&w - 1i32).to_vec(), vec![0.0, 1.0, 3.0]);
    assert_eq!((&w - 1i64).to_vec(), vec![0.0, 1.0, 3.0]);
    assert_eq!((&w * 3u8).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w * 3u16).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w * 3u32).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w * 3u64).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w * 3usize).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w * 3isize).to_vec(), vec![3.0, 6.0, 12.0]);
    assert_eq!((&w / 2usize).to_vec(), vec![0.5, 1.0, 2.0]);
    assert_eq!((w.clone() / 2.0f32).to_vec(), vec![0.5, 1.0, 2.0]);
    assert_eq!((w.clone() % 3i32).to_vec(), vec![1.0, 2.0, 1.0]);
    assert_eq!((w.clone() * lr).to_vec(), vec![0.5, 1.0, 2.0]);
    // The other float dtypes keep their type too.
    let d = Tensor::<f64>::from_vec(vec![1.0, 2.0], &[2]).unwrap();
    let d2: Tensor<f64> = &d * 0.5f32;
    assert_eq!(d2.to_vec(), vec![0.5, 1.0]);
    let h = Tensor::<f16>::from_vec(vec![f16::from_f32(1.0)], &[1]).unwrap();
    let h2: Tensor<f16> = &h * 3u32;
    assert_eq!(h2.to_vec(), vec![f16::from_f32(3.0)]);
}

#[test]
fn literals_still_infer() {
    let w = t(&[1.0, 2.0]);
    assert_eq!((&w * 2.0).to_vec(), vec![2.0, 4.0]);
    assert_eq!((&w + 1).to_vec(), vec![2.0, 3.0]);
    assert_eq!((&w / 2).to_vec(), vec![0.5, 1.0]);
    assert_eq!((2.0 * &w).to_vec(), vec![2.0, 4.0]);
    let chained = &(&w * 2.0) + &w;
    assert_eq!(chained.to_vec(), vec![3.0, 6.0]);
    let i = Tensor::<i64>::from_vec(vec![1, 2], &[2]).unwrap();
    assert_eq!((&i * 2.5).to_vec(), vec![2.5, 5.0]);
    assert_eq!((&i * 2).to_vec(), vec![2, 4]);
    assert_eq!((&i / 2).to_vec(), vec![0.5, 1.0]);
}

#[test]
fn in_place_with_any_number() {
    let mut w = t(&[1.0, 2.0]);
    w *= 0.5f32;
    w += 1u8;
    w -= 1usize;
    w /= 2i16;
    assert_eq!(w.to_vec(), vec![0.25, 0.5]);
    let mut i = Tensor::<i32>::from_vec(vec![1, 2], &[2]).unwrap();
    i += 3;
    i *= 2;
    assert_eq!(i.to_vec(), vec![8, 10]);
}

#[test]
fn integer_tensors_keep_pytorchs_kind_rule() {
    let i = Tensor::<i64>::from_vec(vec![1, 2, 3], &[3]).unwrap();
    let f: Tensor<f32> = &i * 0.5f64;
    assert_eq!(f.to_vec(), vec![0.5, 1.0, 1.5]);
    let k: Tensor<i64> = &i + 2i64;
    assert_eq!(k.to_vec(), vec![3, 4, 5]);
    let b = Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap();
    let s: Tensor<i64> = &b + 1i64;
    assert_eq!(s.to_vec(), vec![2, 1]);
}
