//! The runtime runner of unary ops.

use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::functors::{self as f, Functor, OpFlag, UnaryOp};
use crate::iter::{IterConfig, LoopCost, TensorIterator};
use crate::kernels;

/// Runs `f: (C,) -> O` over an iterator with operands `[out, input]`.
pub(crate) fn run_unary<C, F>(iter: &TensorIterator, cost: LoopCost, f: F) -> Result<()>
where
    C: Element,
    F: Functor<(C,)>,
    F::Output: Element,
{
    kernels::run_blocked(
        iter,
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

/// `op(a)` into `out` (or a new tensor).
pub fn unary(op: UnaryOp, a: &DynTensor, out: Option<&DynTensor>) -> Result<DynTensor> {
    let ad = a.dtype();
    let unsupported = || Error::UnsupportedDType {
        op: op.name(),
        dtype: ad,
        other: None,
    };
    let compute = op.compute_dtype(ad).ok_or_else(unsupported)?;
    if op.has(OpFlag::ViaPow) {
        // square is pow(x, 2) in PyTorch, with its promotion (bool -> int64).
        return super::binary::binary(
            f::BinaryOp::Pow,
            super::Operand::Tensor(a),
            super::Operand::Scalar(crate::Scalar::Int(2)),
            out,
        );
    }
    let mut iter = build_unary_iter(
        op.name(),
        op.promotes_int_to_float(),
        op.is_predicate(),
        a,
        out,
    )?;
    let blocks =
        super::plan::runs_on_f32_blocks(op.info(), compute, iter.dtype(0), &[iter.dtype(1)]);
    let compute = if blocks { DType::F32 } else { compute };
    // The vectorized f32 functors (`fastmath`) are cheaper per element: a smaller grain.
    let c = if compute == DType::F32 && op.has(OpFlag::VectorF32) {
        FAST_F32
    } else {
        op.info().cost.into()
    };
    // One match arm per line of the op table, each dispatching over the line's dtype set.
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                UnaryOp::$Op => dispatch_dtypes!(compute, $dtypes, C => run_unary::<C, _>(&iter, c, <f::$Op>::default()), _ => Err(unsupported())),
            )*}
        };
    }
    crate::unary_op_table!(dispatch)?;
    Ok(super::binary::finish(&mut iter, out))
}
