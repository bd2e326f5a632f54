//! The runtime runner of unary ops.

use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::functors::{self as f, Functor, UnaryOp};
use crate::iter::{IterConfig, LoopCost, TensorIterator};
use crate::kernels;

/// Runs `f: (C,) -> O` over an iterator with operands `[out, input]`.
pub(crate) fn run_unary<C, F>(iter: &TensorIterator, cost: LoopCost, f: F) -> Result<()>
where
    C: Element,
    F: Functor<(C,)>,
    F::Output: Element,
{
    iter.for_each(
        cost,
        kernels::unary::<C, F>(f, iter.dtype(0), iter.dtype(1)),
    );
    Ok(())
}

/// The iterator of a unary op: float ops promote integers to the default float; predicates
/// (`isnan`, `logical_not`, ...) produce bool; the rest keep the input's dtype.
pub(crate) fn build_unary_iter<'a>(
    name: &'static str,
    float_op: bool,
    predicate: bool,
    a: &'a DynTensor,
    out: Option<&'a DynTensor>,
) -> Result<TensorIterator<'a>> {
    let mut c = IterConfig::new().name(name).check_mem_overlap(true);
    c = match out {
        Some(o) => c.add_output(o),
        None => c.add_owned_output(),
    };
    if predicate {
        c = c.check_all_same_dtype(false);
        if out.is_none() {
            c = c.declare_static_dtype(DType::Bool);
        }
    } else if float_op {
        c = c
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true)
            .promote_integer_inputs_to_float(true);
    } else {
        // The output may have another dtype only when the result casts safely into it.
        c = c
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true);
    }
    c.add_const_input(a).build()
}

/// Grain of the vectorized f32 transcendentals (`functors::fastmath`): 0.5 (exp) to 1 (gelu)
/// ns/element on one core in `examples/bench_report`, so 16384 elements are 8-16 µs of work,
/// well above rayon's dispatch cost; libm's `Expensive` grain (2048) split them into chunks
/// of 1-2 µs.
pub(crate) const FAST_F32: LoopCost = LoopCost::Moderate;

fn cost(op: UnaryOp) -> LoopCost {
    match op {
        UnaryOp::Neg
        | UnaryOp::Abs
        | UnaryOp::Sign
        | UnaryOp::Relu
        | UnaryOp::Square
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::Frac
        | UnaryOp::LogicalNot
        | UnaryOp::BitwiseNot
        | UnaryOp::IsNan
        | UnaryOp::IsInf
        | UnaryOp::IsFinite => LoopCost::Cheap,
        UnaryOp::Sqrt | UnaryOp::Rsqrt | UnaryOp::Reciprocal => LoopCost::Moderate,
        _ => LoopCost::Expensive,
    }
}

/// `op(a)` into `out` (or a new tensor).
pub fn unary(op: UnaryOp, a: &DynTensor, out: Option<&DynTensor>) -> Result<DynTensor> {
    let ad = a.dtype();
    let unsupported = || Error::UnsupportedDType {
        op: op.name(),
        dtype: ad,
        other: None,
    };
    let compute = op.compute_dtype(ad).ok_or_else(unsupported)?;
    if op == UnaryOp::Square {
        // square is pow(x, 2) in PyTorch, with its promotion (bool -> int64).
        let out = super::binary::binary(
            f::BinaryOp::Pow,
            super::Operand::Tensor(a),
            super::Operand::Scalar(crate::Scalar::Int(2)),
            out,
        )?;
        return Ok(out);
    }
    let iter = build_unary_iter(
        op.name(),
        op.promotes_int_to_float(),
        op.is_predicate(),
        a,
        out,
    )?;
    // The f32 exp/sigmoid/tanh/gelu functors are the vectorized fastmath forms: cheaper grain.
    let fast_f32 = compute == DType::F32
        && matches!(
            op,
            UnaryOp::Exp | UnaryOp::Sigmoid | UnaryOp::Tanh | UnaryOp::Gelu
        );
    let c = if fast_f32 { FAST_F32 } else { cost(op) };
    macro_rules! run {
        ($set:tt, $f:expr) => {
            dispatch_dtypes!(compute, $set, C => run_unary::<C, _>(&iter, c, $f), _ => Err(unsupported()))
        };
    }
    match op {
        UnaryOp::Neg => run!(numeric, f::Neg),
        UnaryOp::Abs => run!(numeric, f::Abs),
        UnaryOp::Sign => run!(all, f::Sign),
        UnaryOp::Relu => run!(numeric, f::Relu),
        UnaryOp::Exp => run!(float, f::Exp),
        UnaryOp::Expm1 => run!(float, f::Expm1),
        UnaryOp::Log => run!(float, f::Log),
        UnaryOp::Log1p => run!(float, f::Log1p),
        UnaryOp::Log2 => run!(float, f::Log2),
        UnaryOp::Log10 => run!(float, f::Log10),
        UnaryOp::Sqrt => run!(float, f::Sqrt),
        UnaryOp::Rsqrt => run!(float, f::Rsqrt),
        UnaryOp::Reciprocal => run!(float, f::Reciprocal),
        UnaryOp::Square => unreachable!("handled above"),
        UnaryOp::Sin => run!(float, f::Sin),
        UnaryOp::Cos => run!(float, f::Cos),
        UnaryOp::Tan => run!(float, f::Tan),
        UnaryOp::Asin => run!(float, f::Asin),
        UnaryOp::Acos => run!(float, f::Acos),
        UnaryOp::Atan => run!(float, f::Atan),
        UnaryOp::Sinh => run!(float, f::Sinh),
        UnaryOp::Cosh => run!(float, f::Cosh),
        UnaryOp::Tanh => run!(float, f::Tanh),
        UnaryOp::Sigmoid => run!(float, f::Sigmoid),
        UnaryOp::Silu => run!(float, f::Silu),
        UnaryOp::Softplus => run!(float, f::Softplus),
        UnaryOp::Gelu => run!(float, f::Gelu::default()),
        UnaryOp::Erf => run!(float, f::Erf),
        UnaryOp::Floor => run!(numeric, f::Floor),
        UnaryOp::Ceil => run!(numeric, f::Ceil),
        UnaryOp::Round => run!(numeric, f::Round),
        UnaryOp::Trunc => run!(numeric, f::Trunc),
        UnaryOp::Frac => run!(float, f::Frac),
        UnaryOp::LogicalNot => run!(all, f::LogicalNot),
        UnaryOp::BitwiseNot => run!(integral, f::BitwiseNot),
        UnaryOp::IsNan => run!(all, f::IsNan),
        UnaryOp::IsInf => run!(all, f::IsInf),
        UnaryOp::IsFinite => run!(all, f::IsFinite),
    }?;
    Ok(super::binary::finish(iter, out))
}
