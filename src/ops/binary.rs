//! The runtime runner of binary ops: promotion (through the iterator), PyTorch's checks, and the
//! dispatch from the computation dtype to a monomorphised inner loop.

use super::Operand;
use super::exec::Exec;
use super::plan::{self, BinaryPath, OperandInfo};
use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::dyn_tensor::{DynTensor, ElementParts};
use crate::element::{Element, convert_value};
use crate::error::{Error, Result};
use crate::functors::{self as f, BinaryOp, BindLhs, BindRhs, Functor};
use crate::iter::single::{self, FlatOperands, SingleRun};
use crate::iter::{IterConfig, LoopCost, TensorIterator};
use crate::kernels;
use crate::promotion::{OperandKind, promote_types};
use crate::scalar::Scalar;

/// Where a scalar operand sits.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Side {
    Lhs,
    Rhs,
}

/// Runs a built iterator whose operands are `[out, inputs...]` with a functor of the
/// computation dtype `C`; a scalar operand is bound into the functor (held in a register).
pub(crate) struct BinaryRunner<'a> {
    pub exec: Exec<'a>,
    pub scalar: Option<(Side, Scalar)>,
    pub cost: LoopCost,
}

impl BinaryRunner<'_> {
    fn dtype(&self, i: usize) -> DType {
        self.exec.dtype(i)
    }

    /// Runs a 1-D kernel over `[out, first input]`.
    fn each(&self, k: impl kernels::InnerLoop) {
        self.execute(&move |p: &[*mut u8], s: &[isize], n| k.run(&p[..2], &s[..2], n))
    }

    /// Runs `k` over the whole run. Not generic: the kernel is called through its pointer,
    /// so its body is compiled once, not once more inlined here per op and dtype.
    fn execute(&self, k: kernels::Kernel) {
        self.exec.run(self.cost, k)
    }

    pub fn run<C, F>(&self, f: F) -> Result<()>
    where
        C: Element,
        F: Functor<(C, C)>,
        F::Output: Element,
    {
        match self.scalar {
            None => {
                let (d0, d1, d2) = (self.dtype(0), self.dtype(1), self.dtype(2));
                self.execute(&kernels::binary::<C, C, F>(f, d0, d1, d2));
            }
            Some((Side::Rhs, s)) => {
                let rhs = s.to::<C>();
                self.each(kernels::unary::<C, _>(
                    BindRhs { f, rhs },
                    self.dtype(0),
                    self.dtype(1),
                ));
            }
            Some((Side::Lhs, s)) => {
                let lhs = s.to::<C>();
                self.each(kernels::unary::<C, _>(
                    BindLhs { f, lhs },
                    self.dtype(0),
                    self.dtype(1),
                ));
            }
        }
        Ok(())
    }

    /// Runs a unary functor over `[out, first input]` only (the second operand, a scalar or a
    /// 0-d tensor, was folded into the functor).
    pub fn run_unary<C, F>(&self, f: F) -> Result<()>
    where
        C: Element,
        F: Functor<(C,)>,
        F::Output: Element,
    {
        self.each(kernels::unary::<C, F>(f, self.dtype(0), self.dtype(1)));
        Ok(())
    }
}

fn unsupported(op: BinaryOp, a: DType, b: DType) -> Error {
    Error::UnsupportedDType {
        op: op.name(),
        dtype: a,
        other: Some(b),
    }
}

/// Per-element cost class of each op (the table's), for the parallel grain.
fn cost(op: BinaryOp) -> LoopCost {
    op.info().cost.into()
}

/// The value of a one-element tensor as a `Scalar` of its category.
/// Read before the op's iterator exists: it reads under its own shared borrow.
pub(crate) fn one_element_value(t: &DynTensor) -> Result<Scalar> {
    crate::dispatch!(t, x => {
        // Exact: bool, the integer (u64 included) or the float widened to f64.
        Ok(Scalar::from(x.item()?.to_value()))
    })
}

/// Errors with `ZeroDivision` when any element of iterator operand `idx`, converted to the
/// integer computation dtype, is zero (integer `floor_divide`/`remainder`/`fmod`): the whole op
/// fails before anything is written. The conversion matters: an i64 divisor of 2^31 is 0 in
/// an int16 computation. Each distinct divisor element is read once, in its memory order
/// (`Exec::try_each_distinct_run`), and a contiguous run is tested as a slice without an early
/// exit per element (so the test vectorizes).
fn check_no_zero_divisor(exec: Exec, idx: usize, compute: DType, op: BinaryOp) -> Result<()> {
    let zero = || Err(Error::ZeroDivision { op: op.name() });
    crate::with_dtype!(exec.dtype(idx), S => dispatch_dtypes!(compute, int, C => {
        exec.try_each_distinct_run(idx, |p, n, s| {
            let is_zero = |v: S| convert_value::<S, C>(v) == C::ZERO;
            if s == size_of::<S>() as isize {
                // SAFETY: the run is `n` consecutive valid `S` of the operand, under the op's
                // borrows (no writer while its iterator lives).
                let run = unsafe { core::slice::from_raw_parts(p.cast::<S>(), n) };
                if run.iter().fold(false, |z, &v| z | is_zero(v)) {
                    return zero();
                }
            } else {
                for k in 0..n {
                    // SAFETY: as above, element `k` of the run at byte stride `s`.
                    let v = unsafe { p.offset(k as isize * s).cast::<S>().read() };
                    if is_zero(v) {
                        return zero();
                    }
                }
            }
            Ok(())
        })
    }, _ => Ok(())))
}

/// The iterator config of a binary op: PyTorch's `binary_op` / `binary_float_op` /
/// `comparison_op` flags, with scalars taking part in promotion only.
#[inline(always)]
fn iter_config<'a>(
    op: BinaryOp,
    a: Operand<'a>,
    b: Operand<'a>,
    out: Option<&'a DynTensor>,
) -> IterConfig<'a> {
    // Fields set in place: each by-value builder call moved the whole config (a tenth of a
    // tiny op). Same settings as the builder chain `promote_inputs_to_common_dtype(true)` (which
    // turns `check_all_same_dtype` off), `allow_cpu_scalars(true)`, and per op below.
    let mut c = IterConfig::new();
    c.name = op.name();
    c.check_mem_overlap = true;
    c.allow_cpu_scalars = true;
    c.promote_inputs_to_common_dtype = true;
    c.check_all_same_dtype = false;
    c.outputs.push(out);
    if op.is_predicate() {
        match out {
            None => c.static_dtype = Some(DType::Bool),
            Some(o) if o.dtype() != DType::Bool => c.cast_common_dtype_to_outputs = true,
            Some(_) => {}
        }
    } else {
        c.cast_common_dtype_to_outputs = true;
        c.enforce_safe_casting_to_output = true;
        c.promote_integer_inputs_to_float = op.promotes_int_to_float();
    }
    for operand in [a, b] {
        match operand {
            Operand::Tensor(t) => c.inputs.push((Some(t), true)),
            Operand::Scalar(s) => c.scalars.push(s),
        }
    }
    // SAFETY: `run_binary`, this config's only user, runs `plan_and_run` (one kernel over all
    // of the single run or iterator) before taking the output, or fails and drops it unread.
    unsafe { c.set_outputs_written_in_full() };
    c
}

/// `op(a, b)` into `out` (or a new tensor), with PyTorch's promotion and checks: the new
/// tensor, or a second handle to `out`.
pub fn binary(op: BinaryOp, a: Operand, b: Operand, out: Option<&DynTensor>) -> Result<DynTensor> {
    let r = run_binary(op, a, b, out);
    match out {
        None => super::fresh(op.name(), r),
        Some(o) => r.map(|_| o.share()),
    }
}

/// [`binary`] giving the allocated output, or `None` when it wrote into `out`: the methods
/// call this, as a handle to `out` would cost two atomic updates of its count.
pub(crate) fn run_binary(
    op: BinaryOp,
    a: Operand,
    b: Operand,
    out: Option<&DynTensor>,
) -> Result<Option<DynTensor>> {
    // The flat tier (`flat_pair`, `flat_with_scalar`): small contiguous operands of one shape.
    let out_parts = out.map(DynTensor::element_parts);
    let general = || run_general(op, a, b, out);
    match (a, b) {
        (Operand::Tensor(x), Operand::Tensor(y)) => {
            flat_pair_or(op, x.element_parts(), y.element_parts(), out_parts, general)
        }
        (Operand::Tensor(t), Operand::Scalar(s)) => {
            flat_scalar_or(op, t.element_parts(), Side::Rhs, s, out_parts, general)
        }
        (Operand::Scalar(s), Operand::Tensor(t)) => {
            flat_scalar_or(op, t.element_parts(), Side::Lhs, s, out_parts, general)
        }
        _ => general(),
    }
}

/// [`run_binary`] past its flat tier.
#[inline(never)]
fn run_general(
    op: BinaryOp,
    a: Operand,
    b: Operand,
    out: Option<&DynTensor>,
) -> Result<Option<DynTensor>> {
    // PyTorch treats a one-element CPU tensor on the right as a scalar: its value, read now
    // (before the iterator borrows the output, which may share its storage).
    let b_value = match b {
        Operand::Tensor(t) if t.numel() == 1 => Some(one_element_value(t)?),
        _ => None,
    };
    // A tensor's value is known to the plan only while it stays an iterated input
    // (`plan_and_run`).
    let (ai, bi) = (operand_info(a), operand_info(b));
    plan::binary_precheck(op, &ai, &bi)?;
    let config = iter_config(op, a, b, out);
    // Small flat ops run without an iterator's geometry (`iter::single`).
    let call = BinaryCall {
        op,
        ai,
        bi,
        b_value,
    };
    if let Some(mut run) = config.build_single_run(cost(op))? {
        call.plan_and_run(Exec::Single(&run))?;
        return Ok(run.take_output());
    }
    call.over_iterator(&config)
}

/// What the plan knows of an operand: a scalar's value; a tensor's dtype and kind (a tensor's
/// value is known to the plan only while it stays an iterated input, `plan_and_run`).
#[inline(always)]
fn operand_info(o: Operand) -> OperandInfo {
    OperandInfo {
        dtype: o.dtype(),
        kind: match o {
            Operand::Scalar(_) => OperandKind::Scalar,
            Operand::Tensor(t) if t.ndim() == 0 => OperandKind::ZeroDim,
            Operand::Tensor(_) => OperandKind::Dimensioned,
        },
        value: match o {
            Operand::Scalar(s) => Some(s),
            Operand::Tensor(_) => None,
        },
    }
}

/// What the plan knows of a dimensioned tensor of `dtype` (the flat tiers' tensors: at least two
/// elements, so at least one dim).
#[inline(always)]
fn dimensioned(dtype: DType) -> OperandInfo {
    OperandInfo {
        dtype,
        kind: OperandKind::Dimensioned,
        value: None,
    }
}

/// PyTorch's promotion of a dimensioned tensor and a scalar (`torch.result_type`, either
/// side): the scalar wins only with a higher category (then the promotion state decides).
#[inline(always)]
fn scalar_promotion(ai: &OperandInfo, bi: &OperandInfo) -> DType {
    let (t, s) = if ai.kind == OperandKind::Scalar {
        (bi.dtype, ai.dtype)
    } else {
        (ai.dtype, bi.dtype)
    };
    if s.category() <= t.category() {
        return t;
    }
    plan::common_dtype(&[*ai, *bi]).unwrap_or(t)
}

/// The common (computation) dtype and the output dtype of `op` when its operands promote to
/// `promoted`, by the op's table line (`OpInfo::compute_dtype`: the default float for a
/// `to_float` op's integers; `out_dtype`: bool for a predicate), which is what the iterator's
/// `compute_types` gives these operands. `None` (the general call then reports it) when the
/// op refuses the dtype, or when a given output is not of the result's dtype (a cast).
#[inline(always)]
fn flat_dtypes<const N: usize>(
    op: BinaryOp,
    promoted: DType,
    flat: &FlatOperands<N>,
) -> Option<(DType, DType)> {
    let common = op.compute_dtype(promoted)?;
    let out = op.out_dtype(common);
    flat.out
        .is_none_or(|o| o.dtype == out)
        .then_some((common, out))
}

/// The flat tier of [`binary`]: two tensors of one shape, contiguous, into a fresh output or a
/// given one of the result's dtype, one thread's work (`iter::single::flat_operands_of`; a
/// one-element `y` is left to the general call, which treats it as a scalar, as PyTorch does).
/// Their dtypes promote by the table alone ([`flat_dtypes`]), so the set-up is the borrows and the
/// allocation; the checks and the plan are the general call's own
/// (`BinaryCall::plan_and_run`), and a plan computing in the operands' own dtype runs the op's
/// contiguous loop directly ([`flat_kernel`]).
#[inline(never)]
fn flat_pair(
    op: BinaryOp,
    flat: &FlatOperands<2>,
    (common, out_dtype): (DType, DType),
) -> Result<Option<DynTensor>> {
    let (ai, bi) = (
        dimensioned(flat.ins[0].dtype),
        dimensioned(flat.ins[1].dtype),
    );
    plan::binary_precheck(op, &ai, &bi)?;
    let d = ai.dtype;
    let mut run = SingleRun::for_flat(flat, common);
    // SAFETY: both branches below run a loop over all of the run's elements (or fail, dropping
    // the run); the output is taken only after.
    unsafe { run.take_flat(op.name(), flat, out_dtype)? };
    // The plan after the borrows, as in the general call (a refused dtype and a borrow conflict
    // at once report the conflict on both).
    let p = plan::binary_plan_prechecked(op, &ai, &bi, common)?;
    // f16/bf16 take the general call's runner, which goes over f32 blocks.
    if p.path == BinaryPath::Functor
        && p.compute == d
        && bi.dtype == d
        && !p.check_zero_divisor
        && !d.is_reduced_float()
        && let Some(kernel) = flat_kernel(op, d)
    {
        kernel(&[run.ptrs[0], run.ptrs[1], run.ptrs[2]], flat.numel);
    } else {
        let call = BinaryCall {
            op,
            ai,
            bi,
            b_value: None,
        };
        call.plan_and_run(Exec::Single(&run))?;
    }
    Ok(run.take_output())
}

/// The flat tier of [`binary`] for two tensors' parts (`out`: a given output's), or
/// `otherwise()` where it does not apply: the typed API's operators call it with their
/// tensors' parts, the `DynTensor` runner with its operands'. (A continuation rather than an
/// `Option`: the output then goes straight to the caller's place, not through a copy.)
#[inline(always)]
pub(crate) fn flat_pair_or(
    op: BinaryOp,
    x: ElementParts,
    y: ElementParts,
    out: Option<ElementParts>,
    otherwise: impl FnOnce() -> Result<Option<DynTensor>>,
) -> Result<Option<DynTensor>> {
    if let Some(flat) = single::flat_operands_of([x, y], out)
        && flat.numel > 1
        && let Some(dtypes) = flat_dtypes(op, promote_types(x.dtype, y.dtype), &flat)
        && flat.is_serial(cost(op), dtypes.1)
    {
        return flat_pair(op, &flat, dtypes);
    }
    otherwise()
}

/// The flat tier of [`binary`] for a tensor's parts and a scalar on side `scalar_side`, or
/// `otherwise()` where it does not apply (as [`flat_pair_or`]).
#[inline(always)]
pub(crate) fn flat_scalar_or(
    op: BinaryOp,
    t: ElementParts,
    scalar_side: Side,
    s: Scalar,
    out: Option<ElementParts>,
    otherwise: impl FnOnce() -> Result<Option<DynTensor>>,
) -> Result<Option<DynTensor>> {
    let ti = dimensioned(t.dtype);
    let si = OperandInfo {
        dtype: s.dtype(),
        kind: OperandKind::Scalar,
        value: Some(s),
    };
    let infos = match scalar_side {
        Side::Lhs => [si, ti],
        Side::Rhs => [ti, si],
    };
    // At least two elements: a one-element tensor is a CPU scalar to PyTorch.
    if let Some(flat) = single::flat_operands_of([t], out)
        && flat.numel > 1
        && let Some(dtypes) = flat_dtypes(op, scalar_promotion(&infos[0], &infos[1]), &flat)
        && flat.is_serial(cost(op), dtypes.1)
    {
        return flat_with_scalar(op, infos, &flat, dtypes);
    }
    otherwise()
}

/// The flat tier of [`binary`] for a tensor and a scalar operand (either side): the tensor
/// contiguous and of at least two elements (a one-element one is a CPU scalar to PyTorch), into
/// a fresh output or a given one of the result's dtype, one thread's work. The plan and its
/// runner are the general call's (the scalar bound into the functor).
#[inline(never)]
fn flat_with_scalar(
    op: BinaryOp,
    [ai, bi]: [OperandInfo; 2],
    flat: &FlatOperands<1>,
    (common, out_dtype): (DType, DType),
) -> Result<Option<DynTensor>> {
    plan::binary_precheck(op, &ai, &bi)?;
    let mut run = SingleRun::for_flat(flat, common);
    // SAFETY: `plan_and_run` writes every element of the run (or fails, dropping it); the
    // output is taken only after.
    unsafe { run.take_flat(op.name(), flat, out_dtype)? };
    let call = BinaryCall {
        op,
        ai,
        bi,
        b_value: None,
    };
    call.plan_and_run(Exec::Single(&run))?;
    Ok(run.take_output())
}

/// The flat tier's kernel of `op` computing in `d`, for every dtype of its table line.
fn flat_kernel(op: BinaryOp, d: DType) -> Option<kernels::FlatBinary> {
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                BinaryOp::$Op => dispatch_dtypes!(d, $dtypes, C => Some(kernels::flat_binary::<C, f::$Op> as kernels::FlatBinary), _ => None),
            )*}
        };
    }
    crate::binary_op_table!(dispatch)
}

/// One call of a binary op, checked and described for the plan (its operands as the plan
/// sees them: dtypes, kinds, scalar values).
struct BinaryCall {
    op: BinaryOp,
    ai: OperandInfo,
    bi: OperandInfo,
    /// The value of a one-element tensor `b`, read before the set-up.
    b_value: Option<Scalar>,
}

impl BinaryCall {
    /// The call over a built iterator. Out of line: the iterator is a large value, and building
    /// it inside `binary` gave the small ops' single-run path a frame of kilobytes.
    #[inline(never)]
    fn over_iterator(&self, config: &IterConfig) -> Result<Option<DynTensor>> {
        let out = config.outputs[0];
        config.build_with(|iter| {
            self.plan_and_run(Exec::Iter(iter))?;
            Ok(allocated(iter, out))
        })
    }

    /// The plan of the call for the dtypes the set-up decided, and its kernel over `exec`.
    fn plan_and_run(&self, exec: Exec) -> Result<()> {
        let BinaryCall {
            op,
            ref ai,
            ref bi,
            b_value,
        } = *self;
        let (ad, bd) = (ai.dtype, bi.dtype);
        // A Python-like scalar operand, bound into the functor.
        let scalar = match (ai.kind, ai.value, bi.kind, bi.value) {
            (OperandKind::Scalar, Some(s), _, _) => Some((Side::Lhs, s)),
            (_, _, OperandKind::Scalar, Some(s)) => Some((Side::Rhs, s)),
            _ => None,
        };
        // A one-element second tensor that stays an iterated input: its value is known.
        let b_known;
        let bi = if exec.ninputs() == 2 && b_value.is_some() {
            b_known = OperandInfo {
                value: b_value,
                ..*bi
            };
            &b_known
        } else {
            bi
        };
        let common = exec.common_dtype().unwrap_or(ad);
        let plan = plan::binary_plan_prechecked(op, ai, bi, common)?;
        let compute = plan.compute;
        let runner = BinaryRunner {
            exec,
            scalar,
            cost: cost(op),
        };

        // Integer division by zero fails the whole op before anything is written.
        if plan.check_zero_divisor {
            check_no_zero_divisor(exec, exec.ninputs(), compute, op)?;
        }

        // The second operand a CPU scalar (Python number or one-element tensor): PyTorch's special
        // cases, decided by the plan.
        match plan.path {
            BinaryPath::Functor => run_op(op, compute, &runner, ad, bd),
            BinaryPath::ScalarOpmath(s32) => {
                if plan::half_blocks_apply(op.info(), compute, runner.dtype(0), &[runner.dtype(1)])
                {
                    // The `*ScalarOpmath` functors are the f32 op with the scalar at f32, rounded
                    // once: the f32 functor with the scalar bound (tests/half_blocks.rs), for
                    // floor_divide too (its own rounding is the tensor-tensor kernel's).
                    let r = BinaryRunner {
                        exec: runner.exec,
                        scalar: Some((Side::Rhs, Scalar::Float(s32 as f64))),
                        cost: runner.cost,
                    };
                    return run_functor(op, DType::F32, &r, ad, bd);
                }
                match op {
                    BinaryOp::Mul => {
                        dispatch_dtypes!(compute, [F16, BF16], C => runner.run_unary::<C, _>(f::MulScalarOpmath { s: s32 }), _ => unreachable!())
                    }
                    BinaryOp::Div => {
                        dispatch_dtypes!(compute, [F16, BF16], C => runner.run_unary::<C, _>(f::DivScalarOpmath { s: s32 }), _ => unreachable!())
                    }
                    _ => {
                        dispatch_dtypes!(compute, [F16, BF16], C => runner.run_unary::<C, _>(f::FloorDivideScalarOpmath { s: s32 }), _ => unreachable!())
                    }
                }
            }
            BinaryPath::PowScalar(s) => {
                let half_blocks = plan::half_blocks_apply(
                    op.info(),
                    compute,
                    runner.dtype(0),
                    &[runner.dtype(1)],
                );
                match compute {
                    DType::F32 => run_pow_scalar_case::<f32, _>(&runner, s.to::<f32>()),
                    DType::F64 => run_pow_scalar_case::<f64, _>(&runner, s.to::<f64>()),
                    DType::F16 if half_blocks => {
                        run_pow_scalar_case::<f32, _>(&runner, s.to::<half::f16>())
                    }
                    DType::BF16 if half_blocks => {
                        run_pow_scalar_case::<f32, _>(&runner, s.to::<half::bf16>())
                    }
                    _ => {
                        dispatch_dtypes!(compute, int, C => run_pow_scalar_case::<C, _>(&runner, s.to::<C>()), _ => {
                            dispatch_dtypes!(compute, numeric, C => runner.run_unary::<C, _>(f::PowScalar::<C> { exp: s.to::<C>() }), _ => Err(unsupported(op, ad, bd)))
                        })
                    }
                }
            }
        }
    }
}

/// `x ** exp` through the kernel of the exponent's case (`f::PowScalarCase<E, case>`, computing
/// in `C`): f32, f64 and the integers, and f16/bf16 over f32 blocks (`E` the half type, `C` f32).
fn run_pow_scalar_case<C, E>(runner: &BinaryRunner, exp: E) -> Result<()>
where
    C: Element,
    E: Element,
    f::PowScalarCase<E, 0>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 1>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 2>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 3>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 4>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 5>: Functor<(C,), Output = C>,
    f::PowScalarCase<E, 6>: Functor<(C,), Output = C>,
{
    // The case of the exponent's value (exact in f64 for every dtype here).
    let case = f::pow_scalar_case(exp.to_value().to_f64());
    // The grain follows the form that runs: `x*x` and `x*x*x` are memory-bound (at 2 threads,
    // `square` of 64K u8 took 2.3x its 1-thread time on pow's `Expensive` grain), a root or a
    // quotient is `Moderate`, the general pow keeps the table's cost.
    let cost = match case {
        0 | 1 => LoopCost::Cheap,
        2..=5 => LoopCost::Moderate,
        _ => runner.cost,
    };
    let runner = &BinaryRunner {
        exec: runner.exec,
        scalar: runner.scalar,
        cost,
    };
    match case {
        0 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 0> { exp }),
        1 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 1> { exp }),
        2 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 2> { exp }),
        3 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 3> { exp }),
        4 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 4> { exp }),
        5 => runner.run_unary::<C, _>(f::PowScalarCase::<E, 5> { exp }),
        _ => runner.run_unary::<C, _>(f::PowScalarCase::<E, 6> { exp }),
    }
}

/// Runs the functor of `op` in the computation dtype `compute` through `runner`: one match arm
/// per line of the op table, each dispatching over the line's dtype set.
fn run_op(op: BinaryOp, compute: DType, runner: &BinaryRunner, ad: DType, bd: DType) -> Result<()> {
    // f16/bf16 over f32 blocks (`plan::runs_on_f32_blocks`); a bound scalar is rounded to
    // `compute` first, as the half functor would see it.
    let inputs: &[DType] = match runner.scalar {
        Some(_) => &[runner.dtype(1)],
        None => &[runner.dtype(1), runner.dtype(2)],
    };
    let blocks = plan::runs_on_f32_blocks(op.info(), compute, runner.dtype(0), inputs);
    let own_half = plan::runs_own_half_form(op.info(), compute, runner.dtype(0), inputs);
    if blocks || own_half {
        let rounded = runner.scalar.map(|(side, s)| {
            let v =
                crate::with_dtype!(compute, T => crate::element::Element::to_value(s.to::<T>()));
            (side, Scalar::from(v))
        });
        let runner = BinaryRunner {
            exec: runner.exec,
            scalar: rounded,
            cost: runner.cost,
        };
        return if own_half {
            run_in_half(op, compute, &runner, ad, bd)
        } else {
            run_functor(op, DType::F32, &runner, ad, bd)
        };
    }
    run_functor(op, compute, runner, ad, bd)
}

/// The f16/bf16 computation (`half`) of a `HalfOwnRounding` op over f32 blocks
/// (`functors::InHalf`).
fn run_in_half(
    op: BinaryOp,
    half: DType,
    runner: &BinaryRunner,
    ad: DType,
    bd: DType,
) -> Result<()> {
    fn run<F>(runner: &BinaryRunner, half: DType) -> Result<()>
    where
        F: f::HalfOwnForm<(f32, f32)> + Default,
        F: Functor<(half::f16, half::f16), Output = half::f16>,
        F: Functor<(half::bf16, half::bf16), Output = half::bf16>,
    {
        if !F::OVER_F32_BLOCKS {
            // The per-element half functor (the scalar, if any, was rounded to `half`).
            return if half == DType::F16 {
                runner.run::<half::f16, _>(F::default())
            } else {
                runner.run::<half::bf16, _>(F::default())
            };
        }
        if half == DType::F16 {
            runner.run::<f32, _>(f::InHalf::<F, half::f16>::new(F::default()))
        } else {
            runner.run::<f32, _>(f::InHalf::<F, half::bf16>::new(F::default()))
        }
    }
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                BinaryOp::$Op => crate::if_half_own_rounding!([$($flag)*] {
                    run::<f::$Op>(runner, half)
                } else {
                    Err(unsupported(op, ad, bd))
                }),
            )*}
        };
    }
    crate::binary_op_table!(dispatch)
}

/// [`run_op`]'s dispatch: the functor of `op` in `c`.
fn run_functor(op: BinaryOp, c: DType, runner: &BinaryRunner, ad: DType, bd: DType) -> Result<()> {
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
            match op {$(
                BinaryOp::$Op => dispatch_dtypes!(c, $dtypes, C => runner.run::<C, _>(<f::$Op>::default()), _ => Err(unsupported(op, ad, bd))),
            )*}
        };
    }
    crate::binary_op_table!(dispatch)
}

/// The output the iterator allocated, or `None` when it wrote into the given `out`.
pub(crate) fn allocated(iter: &mut TensorIterator, out: Option<&DynTensor>) -> Option<DynTensor> {
    out.is_none().then(|| iter.take_output(0))
}

/// The op's result: the given output (shared) or the one the iterator allocated.
/// Taken by reference: the iterator is a large value, and moving it here cost a copy per op.
pub(crate) fn finish(iter: &mut TensorIterator, out: Option<&DynTensor>) -> DynTensor {
    match out {
        Some(o) => o.share(),
        None => iter.take_output(0),
    }
}
