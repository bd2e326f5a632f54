//! A float tensor takes every Rust number as the scalar operand of its operators (`&w * lr`
//! with `lr: f32`) and keeps its type; a bool or integer tensor takes every Rust integer
//! (`&i * 3usize`, the tensor's type; bool gives i64) and f64 (f32, PyTorch's kind rule). The
//! reverse forms (`2.0 * &t`) take f64 and i64. Literals infer everywhere
//! (`(&t * 2.0).to_vec()` is a `Vec<f32>`, `(&i * 2).to_vec()` a `Vec<i32>`).
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

#[test]
fn integer_tensors_take_every_number_type() {
    let i = Tensor::<i32>::from_vec(vec![1, 2, 4], &[3]).unwrap();
    // Integer numbers of any type keep the tensor's type.
    let a: Tensor<i32> = &i + 1u8;
    assert_eq!(a.to_vec(), vec![2, 3, 5]);
    let b: Tensor<i32> = &i * 3usize;
    assert_eq!(b.to_vec(), vec![3, 6, 12]);
    let c: Tensor<i32> = &i - 1i16;
    assert_eq!(c.to_vec(), vec![0, 1, 3]);
    let d: Tensor<i32> = &i * 2u64;
    assert_eq!(d.to_vec(), vec![2, 4, 8]);
    let e: Tensor<i32> = &i % 3isize;
    assert_eq!(e.to_vec(), vec![1, 2, 1]);
    let sh: Tensor<i32> = &i << 1u32;
    assert_eq!(sh.to_vec(), vec![2, 4, 8]);
    // A float number gives f32.
    let f: Tensor<f32> = &i * 0.5f64;
    assert_eq!(f.to_vec(), vec![0.5, 1.0, 2.0]);
    assert_eq!((&i * 0.5).to_vec(), vec![0.5, 1.0, 2.0]);
    assert_eq!((&i * 2).to_vec(), vec![2, 4, 8]);
    let h: Tensor<f32> = &i / 2u8;
    assert_eq!(h.to_vec(), vec![0.5, 1.0, 2.0]);
    // Reverse forms: literals.
    assert_eq!((10 - &i).to_vec(), vec![9, 8, 6]);
    assert_eq!((2.0 * &i).to_vec(), vec![2.0, 4.0, 8.0]);
    assert_eq!((4 / &i).to_vec(), vec![4.0, 2.0, 1.0]);
    // u8 tensors with a number of another type; bool gives i64.
    let u = Tensor::<u8>::from_vec(vec![1, 200], &[2]).unwrap();
    let v: Tensor<u8> = &u + 1i64;
    assert_eq!(v.to_vec(), vec![2, 201]);
    let bt = Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap();
    let w: Tensor<i64> = &bt + 1u8;
    assert_eq!(w.to_vec(), vec![2, 1]);
    let x: Tensor<f32> = &bt * 1.5;
    assert_eq!(x.to_vec(), vec![1.5, 0.0]);
    // In place: an integer number of any type.
    let mut m = i.clone();
    m += 1u8;
    m *= 2usize;
    m -= 1i64;
    assert_eq!(m.to_vec(), vec![3, 5, 9]);
}

#[test]
fn an_integer_number_is_cast_to_the_tensor_type_as_pytorch_does() {
    // PyTorch casts the wrapped number to the tensor's dtype in the kernel: `uint8 + 300`
    // wraps (300 -> 44), like `uint8 + 44`.
    let u = Tensor::<u8>::from_vec(vec![1, 2], &[2]).unwrap();
    assert_eq!((&u + 300u16).to_vec(), vec![45, 46]);
    assert_eq!((&u + 300).to_vec(), vec![45, 46]);
    let i = Tensor::<i32>::from_vec(vec![1], &[1]).unwrap();
    assert_eq!((&i + 5u64).to_vec(), vec![6]);
    assert_eq!((&i * 2usize).to_vec(), vec![2]);
}
