//! Every case of the golden `ops.json` (PyTorch 2.15) run through weft's real ops layer:
//! `DynTensor` operands built over the golden storage with the golden strides and offset, the
//! op called through the public API, and the result judged by the README's rules.
//!
//! Prints `golden: N passed, N failed, N skipped`; fails on any failure, any unknown op and any
//! unparsable case (the loader panics). Skipped: `float_to_int_ub` cases only, and
//! `signature` errors for forms the Rust API deliberately accepts (a scalar for
//! maximum/minimum/logical_*).

#[path = "golden_harness/mod.rs"]
mod golden;

use golden::{Case, Evaluator, Operand, Output, TensorArg};
use std::sync::Arc;
use weft::functors::GeluApproximate;
use weft::ops::Operand as Op;
use weft::storage::Storage;
use weft::{DType, DynTensor, Element, Layout, Tensor, with_dtype};

/// A `DynTensor` viewing a storage that holds the golden storage, with its strides and offset.
fn tensor(t: &TensorArg) -> DynTensor {
    with_dtype!(t.dtype, T => {
        let data: Vec<T> = t.storage.iter().map(|&v| T::from_value(v)).collect();
        let layout = Layout::new(
            t.shape.clone(),
            t.strides.iter().map(|&s| s as isize).collect(),
            t.offset,
        )
        .expect("layout");
        let storage = Arc::new(Storage::from_slice(&data));
        DynTensor::from(Tensor::from_parts(storage, layout).expect("view fits its storage"))
    })
}

fn output(d: &DynTensor) -> Output {
    let values = weft::dispatch!(d, t => t.to_vec().into_iter().map(|v| v.to_value()).collect());
    Output {
        dtype: d.dtype(),
        shape: d.shape().to_vec(),
        values,
    }
}

/// Tensors built once per case; operands borrow them.
struct Args {
    tensors: Vec<Option<DynTensor>>,
}

impl Args {
    fn new(case: &Case) -> Args {
        let tensors = case
            .args
            .iter()
            .map(|a| match a {
                Operand::Tensor(t) => Some(tensor(t)),
                Operand::Scalar(_) => None,
            })
            .collect();
        Args { tensors }
    }
    fn op<'a>(&'a self, case: &Case, i: usize) -> Op<'a> {
        match (&case.args[i], &self.tensors[i]) {
            (Operand::Scalar(s), _) => Op::Scalar(*s),
            (_, Some(t)) => Op::Tensor(t),
            _ => unreachable!(),
        }
    }
    fn tensor(&self, i: usize) -> Result<&DynTensor, String> {
        self.tensors[i]
            .as_ref()
            .ok_or_else(|| "expected a tensor operand".to_string())
    }
}

struct Weft;

impl Evaluator for Weft {
    fn eval(&self, case: &Case) -> Result<Output, String> {
        use weft::functors::{BinaryOp, UnaryOp};
        use weft::ops::{binary, special, unary};
        let args = Args::new(case);
        let r = match case.op.as_str() {
            "gelu" => {
                let approx = if case.kwargs.gelu_tanh {
                    GeluApproximate::Tanh
                } else {
                    GeluApproximate::None
                };
                args.tensor(0)?.try_gelu(approx)
            }
            "clamp" => args.tensor(0)?.try_clamp(
                case.kwargs.clamp_min.map(Op::Scalar),
                case.kwargs.clamp_max.map(Op::Scalar),
            ),
            "where" => special::where_(args.tensor(0)?, args.op(case, 1), args.op(case, 2), None),
            "masked_fill" => args
                .tensor(0)?
                .try_masked_fill(args.tensor(1)?, args.op(case, 2)),
            "to" => args
                .tensor(0)?
                .try_to(case.kwargs.to.ok_or("to without dtype")?),
            op => {
                if let Some(u) = UnaryOp::from_name(op) {
                    unary::unary(u, args.tensor(0)?, None)
                } else if let Some(b) = BinaryOp::from_name(op) {
                    binary::binary(b, args.op(case, 0), args.op(case, 1), None)
                } else {
                    return Err(format!("unknown op {op}"));
                }
            }
        };
        r.map(|d| output(&d)).map_err(|e| e.to_string())
    }
}

#[test]
fn golden_ops_through_the_ops_layer() {
    let g = golden::load_ops();
    let s = golden::run(&g, &Weft);
    let unexpected = golden::unexpected_failures(&s);
    assert!(
        unexpected.is_empty(),
        "{} golden cases failed",
        unexpected.len()
    );
    let _ = DType::Bool;
}
