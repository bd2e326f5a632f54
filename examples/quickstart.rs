//! A tour of weft: typed and dynamic tensors, PyTorch type promotion, views, printing, and
//! elementwise ops (broadcasting, promotion, views, scalars, in-place, errors).
//!
//! `cargo run --release --example quickstart`

use weft::{DType, DynTensor, OperandKind, Scalar, Tensor, result_type};

fn main() -> Result<(), weft::Error> {
    // Typed tensors: the element type is part of the Rust type.
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    println!("a =\n{a}");
    println!("a.shape = {:?}, strides = {:?}", a.shape(), a.strides());

    // Views share storage, never copy: transpose, slices with negative steps, broadcasting.
    let at = a.t();
    println!("\na.t() (strides {:?}) =\n{at}", at.strides());
    let rev = a.slice(1, None, None, -1);
    println!("\na[:, ::-1] (strides {:?}) =\n{rev}", rev.strides());
    let row = a.select(0, 1).unsqueeze(0).expand([3, -1]);
    println!(
        "\na[1] expanded to [3, 3] (strides {:?}) =\n{row}",
        row.strides()
    );

    // Dynamic tensors: the dtype is a runtime value.
    let d: DynTensor = Tensor::<i64>::arange(0, 6, 1)?.reshape([2, 3]).into();
    println!("\nd ({}) =\n{d}", d.dtype());
    println!("d.to(uint8) =\n{}", d.to(DType::U8));
    println!(
        "full(uint8, -1) = {}",
        DynTensor::full(DType::U8, &[3], Scalar::Int(-1))?
    );
    println!(
        "full(uint8, 300) = {}",
        DynTensor::full(DType::U8, &[3], Scalar::Int(300)).unwrap_err()
    );

    // PyTorch type promotion: dimensioned tensors > 0-d tensors > Python-like scalars.
    use OperandKind::{Dimensioned, ZeroDim};
    let show =
        |ops: &[(DType, OperandKind)]| println!("result_type{ops:?} = {:?}", result_type(ops));
    println!();
    show(&[(DType::U8, Dimensioned), (DType::I8, Dimensioned)]);
    show(&[(DType::I32, Dimensioned), (DType::F64, ZeroDim)]);
    show(&[(DType::F16, Dimensioned), (DType::F64, ZeroDim)]);
    show(&[(DType::I32, Dimensioned), (DType::F64, OperandKind::Scalar)]);

    // Seeded random tensors and PyTorch-style printing.
    println!(
        "\nrandn(2, 3, seed 0) =\n{}",
        Tensor::<f32>::randn(&[2, 3], 0)?
    );
    println!("\narange(2000) = {}", Tensor::<i64>::arange(0, 2000, 1)?);

    // Elementwise ops. Broadcasting: [2, 3] + [3].
    let bias = Tensor::<f32>::from_vec(vec![10.0, 20.0, 30.0], &[3])?;
    println!("\na + bias =\n{}", &a + &bias);
    // Type promotion picked at compile time: i64 + f32 is f32, i64 * 2.5 is f32 (PyTorch's
    // scalar rule), integer division is true division.
    let n = Tensor::<i64>::arange(1, 4, 1)?;
    let mixed: Tensor<f32> = &n + &bias;
    let scaled: Tensor<f32> = &n * 2.5;
    let ratio: Tensor<f32> = &n / &n.add(1);
    println!("i64 + f32 = {mixed}\ni64 * 2.5 = {scaled}\nn / (n + 1) = {ratio}");
    // A transposed view takes part like any tensor (no copy): [3, 2] * [3, 1].
    let col = Tensor::<f32>::from_vec(vec![1.0, 0.0, -1.0], &[3, 1])?;
    println!("a.t() * col =\n{}", &a.t() * &col);
    // Scalars on either side, unary math and comparisons (bool results).
    println!("1 - sigmoid(a) =\n{}", 1.0 - &a.sigmoid());
    println!("a > 3 = {}", a.gt(3.0));
    // In place: on a transposed view, the writes land in the shared storage.
    let mut b = a.contiguous().mul(1.0);
    let mut bt = b.t();
    bt *= 2.0;
    bt.add_(&col);
    println!("b after in-place ops on b.t() =\n{b}");
    b.clamp_(Some(0.0), Some(8.0));
    println!("b.clamp_(0, 8) =\n{b}");
    // Errors: `try_*` returns them, operators panic with the same message.
    match a.try_add(&Tensor::<f32>::ones(&[4])) {
        Err(e) => println!("a + ones([4]): error: {e}"),
        Ok(t) => println!("unexpected: {t}"),
    }
    let mut i = Tensor::<i64>::ones(&[2]);
    if let Err(e) = i.try_add_(Scalar::Float(2.5)) {
        println!("int64 add_ 2.5: error: {e}");
    }
    if let Err(e) = n.try_floor_divide(0) {
        println!("int64 // 0: error: {e}");
    }
    Ok(())
}
