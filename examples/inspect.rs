//! Prints the geometry the TensorIterator chooses for the worked cases of the design issue.
//! `cargo run --release --example inspect`

use weft::storage::Storage;
use weft::{DType, DynTensor, IterConfig, Layout, Tensor, TensorIterator};

fn zeros(shape: &[usize]) -> DynTensor {
    DynTensor::zeros(DType::F32, shape).unwrap()
}

fn view(len: usize, shape: &[usize], strides: &[isize], offset: usize) -> DynTensor {
    let st = Storage::<f32>::zeroed(len);
    let l = Layout::new(shape.to_vec(), strides.to_vec(), offset).unwrap();
    Tensor::from_parts(st, l).unwrap().into()
}

fn show(title: &str, it: weft::Result<TensorIterator>) {
    println!("== {title}");
    match it {
        Ok(it) => print!("{it}"),
        Err(e) => println!("error: {e}"),
    }
    println!();
}

/// The iterator borrows its tensors, so a helper names the lifetime (a closure cannot).
fn b<'a>(a: &'a DynTensor, c: &'a DynTensor) -> weft::Result<TensorIterator<'a>> {
    TensorIterator::binary_op(None, a, c)
}

fn main() {
    show(
        "[2,3,4] + [2,3,4]",
        b(&zeros(&[2, 3, 4]), &zeros(&[2, 3, 4])),
    );
    show("[2,3,4] + [4]", b(&zeros(&[2, 3, 4]), &zeros(&[4])));
    show(
        "[2,3,4] + [2,1,4]",
        b(&zeros(&[2, 3, 4]), &zeros(&[2, 1, 4])),
    );
    show(
        "[2,3] + transposed [3,2]",
        b(&zeros(&[2, 3]), &view(6, &[2, 3], &[1, 2], 0)),
    );
    show(
        "size-1 dims with odd strides: [2,1,3] strides (3,77,1) + [3]",
        b(&view(6, &[2, 1, 3], &[3, 77, 1], 0), &zeros(&[3])),
    );
    show(
        "stride-0 dims merge: [2,3] + expanded scalar",
        b(&zeros(&[2, 3]), &view(1, &[2, 3], &[0, 0], 0)),
    );
    let p = view(24, &[4, 2, 3], &[1, 12, 4], 0);
    show(
        "arange(24).reshape(2,3,4).permute(2,0,1), unary",
        TensorIterator::unary_op(None, &p),
    );
    show(
        "permuted [4,2,3] + [3] (slow path, still memory order)",
        b(&p, &zeros(&[3])),
    );
    let t = view(6, &[3, 2], &[1, 3], 0);
    show("a.t() + b.t(): transposed output", b(&t, &t));
    show(
        "reversed [2,3] strides (-3,-1) + [3]",
        b(&view(6, &[2, 3], &[-3, -1], 5), &zeros(&[3])),
    );
    show(
        "enforce_linear_iteration on the permuted input",
        IterConfig::new()
            .add_owned_output()
            .add_input(&p)
            .enforce_linear_iteration(true)
            .build(),
    );
    show(
        "reduce_op: [2,3] -> [2,1]",
        TensorIterator::reduce_op(&zeros(&[2, 1]), &zeros(&[2, 3])),
    );
    let i32t = DynTensor::zeros(DType::I32, &[3]).unwrap();
    let f64s = DynTensor::zeros(DType::F64, &[]).unwrap();
    show("i32 [3] + f64 0-d", b(&i32t, &f64s));
    show("[2,3] + [4] (error)", b(&zeros(&[2, 3]), &zeros(&[4])));
}
