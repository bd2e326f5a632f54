//! The runtime runner of unary ops.

use super::exec::Exec;
use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::dyn_tensor::{DynTensor, ElementParts};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::functors::{self as f, Functor, OpFlag, UnaryOp};
use crate::iter::single::{self, FlatOperands, SingleRun};
use crate::iter::{ElementBytes, IterConfig, LoopCost};
use crate::kernels;

/// Runs `f: (C,) -> O` over operands `[out, input]`.
pub(crate) fn run_unary<C, F>(exec: Exec, cost: LoopCost, f: F) -> Result<()>
where
    C: Element,
    F: Functor<(C,)>,
    F::Output: Element,
{
    // A constant result is a fill of the output (`Functor::CONSTANT_RESULT`): the grain of
    // its bytes alone (`isinf` of an i64 tensor moves one byte per element, not nine).
    let cost = if F::CONSTANT_RESULT {
        LoopCost::Grain(LoopCost::Cheap.grain(ElementBytes::of([size_of::<F::Output>()])))
    } else {
        cost
    };
    exec.run(
        cost,
        &kernels::unary::<C, F>(f, exec.dtype(0), exec.dtype(1)),
    );
    Ok(())
}

/// Runs the f16/bf16 computation of a `HalfOwnRounding` op (`half`: its dtype) over f32 blocks
/// converted from and to `half` (`functors::InHalf`).
fn run_unary_in_half<F>(exec: Exec, cost: LoopCost, f: F, half: DType) -> Result<()>
where
    F: f::HalfOwnForm<(f32,)>,
    F: Functor<(half::f16,), Output = half::f16>,
    F: Functor<(half::bf16,), Output = half::bf16>,
{
    if !F::OVER_F32_BLOCKS {
        return if half == DType::F16 {
            run_unary::<half::f16, _>(exec, cost, f)
        } else {
            run_unary::<half::bf16, _>(exec, cost, f)
        };
    }
    if half == DType::F16 {
        run_unary::<f32, _>(exec, cost, f::InHalf::<F, half::f16>::new(f))
    } else {
        run_unary::<f32, _>(exec, cost, f::InHalf::<F, half::bf16>::new(f))
    }
}

/// The iterator config of a unary op: float ops promote integers to the default float;
/// predicates (`isnan`, `logical_not`, ...) produce bool; the rest keep the input's dtype.
/// Fields are set in place (a by-value builder chain moves the config at every call).
pub(crate) fn unary_config<'a>(
    name: &'static str,
    float_op: bool,
    predicate: bool,
    a: &'a DynTensor,
    out: Option<&'a DynTensor>,
) -> IterConfig<'a> {
    let mut c = IterConfig::new();
    c.name = name;
    c.check_mem_overlap = true;
    c.outputs.push(out);
    c.inputs.push((Some(a), true));
    // Same settings as the builder calls `check_all_same_dtype(false)` (predicates; a static
    // bool output), or `promote_inputs_to_common_dtype(true)`, `cast_common_dtype_to_outputs
    // (true)`, `enforce_safe_casting_to_output(true)` (the output may have another dtype only
    // when the result casts safely into it), plus `promote_integer_inputs_to_float` for
    // float ops.
    c.check_all_same_dtype = false;
    if predicate {
        if out.is_none() {
            c.static_dtype = Some(DType::Bool);
        }
    } else {
        c.promote_inputs_to_common_dtype = true;
        c.cast_common_dtype_to_outputs = true;
        c.enforce_safe_casting_to_output = true;
        c.promote_integer_inputs_to_float = float_op;
    }
    // SAFETY: every user of this config (`run_unary_op`; `leaky_relu`, `hardtanh`, `gelu`) runs
    // one kernel over the whole single run or iterator before taking its output, or fails and
    // drops it unread.
    unsafe { c.set_outputs_written_in_full() };
    c
}

/// Grain of the vectorized f32 transcendentals (`functors::fastmath`): 0.5 (exp) to 1 (gelu)
/// ns/element on one core in `examples/bench_report`, so 16384 elements are 8-16 µs of work,
/// well above rayon's dispatch cost; libm's `Expensive` grain (2048) split them into chunks
/// of 1-2 µs.
pub(crate) const FAST_F32: LoopCost = LoopCost::Moderate;

/// `op(a)` into `out` (or a new tensor): the new tensor, or a second handle to `out`.
pub fn unary(op: UnaryOp, a: &DynTensor, out: Option<&DynTensor>) -> Result<DynTensor> {
    let r = run_unary_op(op, a, out);
    match out {
        None => super::fresh(op.name(), r),
        Some(o) => r.map(|_| o.share()),
    }
}

/// [`unary`] giving the allocated output, or `None` when it wrote into `out` (see
/// [`run_binary`](super::binary::run_binary)).
pub(crate) fn run_unary_op(
    op: UnaryOp,
    a: &DynTensor,
    out: Option<&DynTensor>,
) -> Result<Option<DynTensor>> {
    let general = || run_general(op, a, out);
    flat_unary_or(
        op,
        a.element_parts(),
        out.map(DynTensor::element_parts),
        general,
    )
}

/// [`run_unary_op`] past its flat tier (the typed methods call it once their own test of the
/// tier, on the same parts, has declined).
#[inline(never)]
pub(crate) fn run_general(
    op: UnaryOp,
    a: &DynTensor,
    out: Option<&DynTensor>,
) -> Result<Option<DynTensor>> {
    let ad = a.dtype();
    let unsupported = || Error::UnsupportedDType {
        op: op.name(),
        dtype: ad,
        other: None,
    };
    let compute = op.compute_dtype(ad).ok_or_else(unsupported)?;
    if op.has(OpFlag::ViaPow) {
        // square is pow(x, 2) in PyTorch, with its promotion (bool -> int64).
        return super::binary::run_binary(
            f::BinaryOp::Pow,
            super::Operand::Tensor(a),
            super::Operand::Scalar(crate::Scalar::Int(2)),
            out,
        );
    }
    let cost = LoopCost::from(op.info().cost);
    let config = unary_config(
        op.name(),
        op.promotes_int_to_float(),
        op.is_predicate(),
        a,
        out,
    );
    // Small flat ops run without an iterator's geometry (`iter::single`).
    if let Some(mut run) = config.build_single_run(cost)? {
        run_op(op, compute, Exec::Single(&run))?;
        return Ok(run.take_output());
    }
    unary_over_iterator(op, compute, &config)
}

/// The flat tier of [`unary`] for a tensor's parts (`out`: a given output's), or `otherwise()`
/// where it does not apply (as `binary::flat_pair_or`): the typed API's methods call it with
/// their tensor's parts, the `DynTensor` runner with its operand's. A given output must be of
/// the result's dtype (the table's `out_dtype`, what the iterator's rules give one input), else
/// the general call casts into it; an op refusing the dtype is left to the general call, which
/// reports it.
#[inline(always)]
pub(crate) fn flat_unary_or(
    op: UnaryOp,
    a: ElementParts,
    out: Option<ElementParts>,
    otherwise: impl FnOnce() -> Result<Option<DynTensor>>,
) -> Result<Option<DynTensor>> {
    if !op.has(OpFlag::ViaPow)
        && let Some(compute) = op.compute_dtype(a.dtype)
        && let out_dtype = op.out_dtype(compute)
        && let Some(flat) = single::flat_operands_of([a], out)
        && flat.out.is_none_or(|o| o.dtype == out_dtype)
        && flat.is_serial(LoopCost::from(op.info().cost), out_dtype)
    {
        return unary_flat(op, compute, &flat);
    }
    otherwise()
}

/// The flat tier of [`unary`]: a contiguous tensor into a fresh output or a given one of the
/// result's dtype, one thread's work (`iter::single::flat_operands_of`): the set-up is the
/// borrows and the allocation; computing in the input's own dtype, the op's contiguous loop
/// runs directly ([`flat_kernel`]), else the general runner over the single run.
#[inline(never)]
fn unary_flat(op: UnaryOp, compute: DType, flat: &FlatOperands<1>) -> Result<Option<DynTensor>> {
    let d = flat.ins[0].dtype;
    let mut run = SingleRun::for_flat(flat, compute);
    // SAFETY: both branches below run a loop over all of the run's elements (or fail, dropping
    // the run); the output is taken only after.
    unsafe { run.take_flat(op.name(), flat, op.out_dtype(compute))? };
    // f16/bf16 take the general runner, which goes over f32 blocks.
    if compute == d
        && !d.is_reduced_float()
        && let Some(kernel) = flat_kernel(op, d)
    {
        kernel(&[run.ptrs[0], run.ptrs[1]], flat.numel);
    } else {
        run_op(op, compute, Exec::Single(&run))?;
    }
    Ok(run.take_output())
}

/// The flat tier's kernel of `op` computing in `d`, for every dtype of its table line.
fn flat_kernel(op: UnaryOp, d: DType) -> Option<kernels::FlatUnary> {
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                UnaryOp::$Op => dispatch_dtypes!(d, $dtypes, C => Some(kernels::flat_unary::<C, f::$Op> as kernels::FlatUnary), _ => None),
            )*}
        };
    }
    crate::unary_op_table!(dispatch)
}

/// [`unary`] over a built iterator, out of line (see `binary::binary_over_iterator`).
#[inline(never)]
fn unary_over_iterator(
    op: UnaryOp,
    compute: DType,
    config: &IterConfig,
) -> Result<Option<DynTensor>> {
    let out = config.outputs[0];
    config.build_with(|iter| {
        run_op(op, compute, Exec::Iter(iter))?;
        Ok(super::binary::allocated(iter, out))
    })
}

/// Runs the functor of `op` (computing in `compute`) over `exec`: one match arm per line of the
/// op table, each dispatching over the line's dtype set.
fn run_op(op: UnaryOp, compute: DType, exec: Exec) -> Result<()> {
    let unsupported = || Error::UnsupportedDType {
        op: op.name(),
        dtype: exec.dtype(1),
        other: None,
    };
    let (out_d, in_d) = (exec.dtype(0), exec.dtype(1));
    let blocks = super::plan::runs_on_f32_blocks(op.info(), compute, out_d, &[in_d]);
    let own_half = super::plan::runs_own_half_form(op.info(), compute, out_d, &[in_d]);
    let compute = if blocks { DType::F32 } else { compute };
    // The vectorized f32 functors (`fastmath`) are cheaper per element: a smaller grain.
    let c = if compute == DType::F32 && op.has(OpFlag::VectorF32) {
        FAST_F32
    } else {
        op.info().cost.into()
    };
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                UnaryOp::$Op => crate::if_half_own_rounding!([$($flag)*] {
                    if own_half {
                        run_unary_in_half(exec, c, <f::$Op>::default(), compute)
                    } else {
                        dispatch_dtypes!(compute, $dtypes, C => run_unary::<C, _>(exec, c, <f::$Op>::default()), _ => Err(unsupported()))
                    }
                } else {
                    dispatch_dtypes!(compute, $dtypes, C => run_unary::<C, _>(exec, c, <f::$Op>::default()), _ => Err(unsupported()))
                }),
            )*}
        };
    }
    crate::unary_op_table!(dispatch)
}
