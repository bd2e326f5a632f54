//! A tour of weft: typed and dynamic tensors, PyTorch type promotion, views and printing.
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
    let row = a.select(0, 1).unsqueeze(0).expand(&[3, -1]);
    println!(
        "\na[1] expanded to [3, 3] (strides {:?}) =\n{row}",
        row.strides()
    );

    // Dynamic tensors: the dtype is a runtime value.
    let d: DynTensor = Tensor::<i64>::arange(0, 6, 1)?.reshape(&[2, 3]).into();
    println!("\nd ({}) =\n{d}", d.dtype());
    println!("d.to(uint8) =\n{}", d.to(DType::U8));
    println!(
        "full(uint8, 300) = {}",
        DynTensor::full(DType::U8, &[3], Scalar::Int(300))?
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
    Ok(())
}
