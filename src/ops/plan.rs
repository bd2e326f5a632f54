//! The dtype/path decision of the binary and unary ops, shared by the CPU runners
//! ([`super::binary`], [`super::unary`]) and the device ops (`device::ops`): which computation
//! dtype, which result dtype, which functor form (plain, scalar at f32 precision, pow with a
//! scalar exponent), and PyTorch's checks that depend on dtypes and scalar values only.
//! Checks that need the data (an integer divisor tensor holding 0) stay with the runners.

use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::functors::{BinaryOp, OpFlag, UnaryOp};
use crate::promotion::{OperandKind, ResultTypeState};
use crate::scalar::Scalar;

/// What a plan needs to know about one operand.
#[derive(Copy, Clone, Debug)]
pub struct OperandInfo {
    pub dtype: DType,
    pub kind: OperandKind,
    /// The operand as a CPU scalar: a Python-like scalar, or the value of a one-element tensor
    /// (PyTorch treats any one-element CPU tensor as a scalar in the rhs special cases).
    pub value: Option<Scalar>,
}

/// How the functor is formed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BinaryPath {
    /// `f(a, b)` in the computation dtype (a scalar operand converted to it).
    Functor,
    /// f16/bf16 `mul`/`div`/`floor_divide` by a CPU scalar kept at f32 precision
    /// (`MulScalarOpmath` etc.).
    ScalarOpmath(f32),
    /// `pow` with a Python scalar exponent: `PowScalar` in the computation dtype.
    PowScalar(Scalar),
}

/// The decision for one binary op.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BinaryPlan {
    pub compute: DType,
    pub out: DType,
    pub path: BinaryPath,
    /// Integer `floor_divide`/`remainder`/`fmod` with a tensor divisor: the runner must refuse a
    /// zero divisor (converted to `compute`) before writing anything.
    pub check_zero_divisor: bool,
}

fn unsupported(op: BinaryOp, a: DType, b: DType) -> Error {
    Error::UnsupportedDType {
        op: op.name(),
        dtype: a,
        other: Some(b),
    }
}

/// Whether an op computing in f16/bf16 can run over f32 blocks converted from and to half
/// precision (F16C / vectorized bf16 shifts, see `kernels`): when the output is stored in the
/// op's result dtype and every input in `compute` (another input dtype must round to `compute`
/// first, another output dtype must get the rounded result).
pub(crate) fn half_blocks_apply(
    info: &crate::functors::OpInfo,
    compute: DType,
    out: DType,
    inputs: &[DType],
) -> bool {
    half_blocks_hold(
        compute,
        info.out_dtype(compute),
        out,
        inputs.iter().copied(),
    )
}

/// [`half_blocks_apply`]'s rule for any op whose result dtype is `result` (the ops with
/// arguments, outside the table, give their compute dtype).
pub(crate) fn half_blocks_hold(
    compute: DType,
    result: DType,
    out: DType,
    mut inputs: impl Iterator<Item = DType>,
) -> bool {
    compute.is_reduced_float() && out == result && inputs.all(|d| d == compute)
}

/// Whether the op runs its f32 functor over the half blocks ([`half_blocks_apply`]): the same
/// bits as its half functor for every op but `HalfOwnRounding` (tests/half_blocks.rs); the
/// `SignBits` ops run their half functors over the half elements instead (cheaper).
pub(crate) fn runs_on_f32_blocks(
    info: &crate::functors::OpInfo,
    compute: DType,
    out: DType,
    inputs: &[DType],
) -> bool {
    half_blocks_apply(info, compute, out, inputs)
        && !info.flags.has(OpFlag::HalfOwnRounding)
        && !info.flags.has(OpFlag::SignBits)
}

/// Whether a `HalfOwnRounding` op runs its half computation over the half blocks
/// (`functors::InHalf`): the same bits as its half functor, which is that computation.
pub(crate) fn runs_own_half_form(
    info: &crate::functors::OpInfo,
    compute: DType,
    out: DType,
    inputs: &[DType],
) -> bool {
    half_blocks_apply(info, compute, out, inputs) && info.flags.has(OpFlag::HalfOwnRounding)
}

/// `torch.result_type` of the operands (the iterator's common dtype).
pub fn common_dtype(ops: &[OperandInfo]) -> Option<DType> {
    ops.iter()
        .fold(ResultTypeState::new(), |st, o| st.update(o.dtype, o.kind))
        .finish()
}

/// The checks that need no tensor: two scalars, and operand dtypes the op refuses outright.
pub fn binary_precheck(op: BinaryOp, a: &OperandInfo, b: &OperandInfo) -> Result<()> {
    if a.kind == OperandKind::Scalar && b.kind == OperandKind::Scalar {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: "needs at least one tensor operand".into(),
        });
    }
    if op.rejects_operand(a.dtype) || op.rejects_operand(b.dtype) {
        return Err(unsupported(op, a.dtype, b.dtype));
    }
    if op.has(OpFlag::SameDtypes) {
        if a.kind == OperandKind::Scalar || b.kind == OperandKind::Scalar {
            return Err(Error::InvalidArgument {
                op: op.name(),
                reason: "takes two tensors, not a scalar".into(),
            });
        }
        if a.dtype != b.dtype {
            return Err(Error::DTypeMismatch {
                op: op.name(),
                expected: a.dtype,
                got: b.dtype,
            });
        }
    }
    Ok(())
}

/// PyTorch's decision for `op(a, b)` with common dtype `common`.
pub fn binary_plan(
    op: BinaryOp,
    a: &OperandInfo,
    b: &OperandInfo,
    common: DType,
) -> Result<BinaryPlan> {
    binary_precheck(op, a, b)?;
    binary_plan_prechecked(op, a, b, common)
}

/// [`binary_plan`] for operands that passed [`binary_precheck`] (the runner checks them before
/// it sets up the iterator).
#[inline(always)]
pub(crate) fn binary_plan_prechecked(
    op: BinaryOp,
    a: &OperandInfo,
    b: &OperandInfo,
    common: DType,
) -> Result<BinaryPlan> {
    let (ad, bd) = (a.dtype, b.dtype);
    let compute = op
        .compute_dtype(common)
        .ok_or_else(|| unsupported(op, ad, bd))?;
    let mut plan = BinaryPlan {
        compute,
        out: op.out_dtype(compute),
        path: BinaryPath::Functor,
        check_zero_divisor: false,
    };
    if op.has(OpFlag::IntDivision) && compute.is_integer() {
        if b.kind == OperandKind::Scalar {
            let s = b.value.expect("a scalar operand has a value");
            let zero = dispatch_dtypes!(compute, int, C => s.to::<C>() == 0, _ => false);
            if zero {
                return Err(Error::ZeroDivision { op: op.name() });
            }
        } else {
            plan.check_zero_divisor = true;
        }
    }
    let Some(s) = b.value else {
        return Ok(plan);
    };
    if !(ad.has_torch_promotion() && bd.has_torch_promotion()) {
        // NumPy's rules (u16/u32/u64): a one-element tensor is converted to the common dtype
        // like any other operand; PyTorch's CPU-scalar special cases do not apply.
        if b.kind != OperandKind::Scalar {
            return Ok(plan);
        }
    }
    if a.kind == OperandKind::Scalar {
        // Only a rhs one-element tensor gets the special cases (PyTorch: `iter.is_cpu_scalar(2)`
        // on a two-input iterator; a lhs scalar makes the rhs the tensor operand).
        return Ok(plan);
    }
    if compute.is_reduced_float() && op.has(OpFlag::ScalarOpmath) {
        plan.path = BinaryPath::ScalarOpmath(s.to::<f32>());
        return Ok(plan);
    }
    if op.has(OpFlag::ScalarExponent) && b.kind == OperandKind::Scalar {
        if compute.is_integer()
            && let Scalar::Int(e) = s
            && e < 0
        {
            return Err(Error::NegativeIntegerPower);
        }
        // PyTorch converts the exponent with an overflow check except for f32/f64.
        if !matches!(compute, DType::F32 | DType::F64) && !s.fits(compute) {
            return Err(Error::ScalarOverflow {
                op: op.name(),
                value: format!("{s:?}"),
                dtype: compute,
            });
        }
        plan.path = BinaryPath::PowScalar(s);
    }
    Ok(plan)
}

/// The decision for a unary op: `(computation dtype, result dtype)`; `square` is planned as
/// `pow(x, 2)` by the runners.
pub fn unary_plan(op: UnaryOp, input: DType) -> Result<(DType, DType)> {
    let compute = op.compute_dtype(input).ok_or(Error::UnsupportedDType {
        op: op.name(),
        dtype: input,
        other: None,
    })?;
    Ok((compute, op.out_dtype(compute)))
}

// ---------------------------------------------------------------------------------------------
// Ops with arguments (`ops::special` on the CPU, `device::ops` on device tensors).

/// `s` must be representable in `dtype` (PyTorch's scalar overflow check).
pub fn check_fits(op: &'static str, s: Scalar, dtype: DType) -> Result<()> {
    if s.fits(dtype) {
        Ok(())
    } else {
        Err(Error::ScalarOverflow {
            op,
            value: format!("{s:?}"),
            dtype,
        })
    }
}

/// One clamp bound: a scalar folded into the functor, or a tensor operand.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ClampBound {
    None,
    Scalar(Scalar),
    Tensor,
}

/// The decision for `clamp(x, min, max)`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ClampPlan {
    /// The computation and result dtype (bounds take part in promotion).
    pub compute: DType,
    pub min: ClampBound,
    pub max: ClampBound,
}

/// `clamp(x, min, max)`: at least one bound; scalar bounds promote (`int32.clamp(min=1.5)` is
/// f32) and are checked against the computation dtype; an integer bound beyond the side it
/// clamps towards is refused, one beyond the other side clamps nothing and is dropped.
pub fn clamp_plan(
    x: &OperandInfo,
    min: Option<&OperandInfo>,
    max: Option<&OperandInfo>,
) -> Result<ClampPlan> {
    const OP: &str = "clamp";
    if min.is_none() && max.is_none() {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: "at least one of min and max must be given".into(),
        });
    }
    let mut ops = vec![*x];
    ops.extend(min.copied());
    ops.extend(max.copied());
    let compute = common_dtype(&ops).unwrap_or(x.dtype);
    if !crate::functors::table::clamp_supports(compute) {
        return Err(Error::UnsupportedDType {
            op: OP,
            dtype: x.dtype,
            other: None,
        });
    }
    let bound = |o: Option<&OperandInfo>, is_min: bool| -> Result<ClampBound> {
        Ok(match o {
            None => ClampBound::None,
            Some(b) if b.kind == OperandKind::Scalar => {
                let s = b.value.expect("a scalar operand has a value");
                if compute.is_integer() {
                    match integer_clamp_bound(s, is_min, compute)? {
                        Some(v) => ClampBound::Scalar(v),
                        None => ClampBound::None,
                    }
                } else {
                    check_fits(OP, s, compute)?;
                    ClampBound::Scalar(s)
                }
            }
            Some(_) => ClampBound::Tensor,
        })
    };
    Ok(ClampPlan {
        compute,
        min: bound(min, true)?,
        max: bound(max, false)?,
    })
}

/// PyTorch's integer clamp bounds: a bound beyond the side it clamps towards is refused
/// (`u8.clamp(min=300)`, `u8.clamp(max=-2)`), one beyond the other side clamps nothing
/// (`u8.clamp(min=-1)`, `i8.clamp(max=1000)`) and is dropped (`None`).
fn integer_clamp_bound(s: Scalar, is_min: bool, dtype: DType) -> Result<Option<Scalar>> {
    let (lo, hi) = dtype.int_range();
    let v = match s {
        Scalar::Bool(b) => b as i128,
        Scalar::Int(_) | Scalar::UInt(_) => s.as_i128().unwrap_or(0),
        // Truncates toward zero, saturating (NaN -> 0), as a float bound converts.
        Scalar::Float(x) => x as i128,
    };
    let refused = if is_min { v > hi } else { v < lo };
    if refused {
        return Err(Error::ScalarOverflow {
            op: "clamp",
            value: format!("{s:?}"),
            dtype,
        });
    }
    let no_op = if is_min { v < lo } else { v > hi };
    // In the dtype's range here, so it fits i64 or u64.
    Ok(if no_op {
        None
    } else if let Ok(i) = i64::try_from(v) {
        Some(Scalar::Int(i))
    } else {
        Some(Scalar::UInt(v as u64))
    })
}

/// `masked_fill(x, mask, value)`: the mask must be bool; the value must be finite and in range
/// for an integer `x` (a float truncates), in range (or infinite) for a float one.
pub fn masked_fill_check(mask: DType, value: Scalar, x: DType) -> Result<()> {
    masked_fill_mask_check(mask)?;
    let ok = match value {
        Scalar::Float(v) if x.is_integer() => v.is_finite() && value.fits(x),
        _ => value.fits(x),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::ScalarOverflow {
            op: "masked_fill",
            value: format!("{value:?}"),
            dtype: x,
        })
    }
}

/// `where(cond, a, b)`: cond bool (uint8 is accepted, as PyTorch does with a deprecation
/// warning); the result dtype is the promotion of `a` and `b` (cond does not take part), and a
/// scalar must fit the computation dtype (f32 for f16/bf16, PyTorch's: `where(c, f16, 1e10)`
/// gives inf while `where(c, int8, 1000)` raises).
pub fn where_plan(cond: DType, a: &OperandInfo, b: &OperandInfo) -> Result<DType> {
    const OP: &str = "where";
    if !matches!(cond, DType::Bool | DType::U8) {
        return Err(Error::UnsupportedDType {
            op: OP,
            dtype: cond,
            other: None,
        });
    }
    let dtype = common_dtype(&[*a, *b]).ok_or_else(|| Error::InvalidArgument {
        op: OP,
        reason: "needs two operands".into(),
    })?;
    let check = if dtype.is_reduced_float() {
        DType::F32
    } else {
        dtype
    };
    for o in [a, b] {
        if let (OperandKind::Scalar, Some(s)) = (o.kind, o.value) {
            check_fits(OP, s, check)?;
        }
    }
    Ok(dtype)
}

/// `masked_fill`'s mask must be bool.
pub fn masked_fill_mask_check(mask: DType) -> Result<()> {
    if mask != DType::Bool {
        return Err(Error::UnsupportedDType {
            op: "masked_fill",
            dtype: mask,
            other: None,
        });
    }
    Ok(())
}

/// `lerp(a, b, weight)`: floats, `b` (and a tensor weight) of `a`'s dtype.
pub fn lerp_check(a: DType, b: DType, weight: Option<DType>) -> Result<()> {
    let mismatch = |got: DType| Error::DTypeMismatch {
        op: "lerp",
        expected: a,
        got,
    };
    if b != a {
        return Err(mismatch(b));
    }
    if !a.is_float() {
        return Err(Error::UnsupportedDType {
            op: "lerp",
            dtype: a,
            other: None,
        });
    }
    match weight {
        Some(w) if w != a => Err(mismatch(w)),
        _ => Ok(()),
    }
}

/// `addcmul(a, t1, t2, value)`: the computation dtype (the three tensors promoted together);
/// bool, and a float value with integer tensors, are refused.
pub fn addcmul_plan(
    a: &OperandInfo,
    t1: &OperandInfo,
    t2: &OperandInfo,
    value: Scalar,
) -> Result<DType> {
    let dtype = common_dtype(&[*a, *t1, *t2]).unwrap_or(a.dtype);
    if dtype.is_bool() || (value.is_float() && !dtype.is_float()) {
        return Err(Error::UnsupportedDType {
            op: "addcmul",
            dtype,
            other: None,
        });
    }
    Ok(dtype)
}

/// `hardtanh(x, min, max)`: numeric dtypes (bounds converted to x's dtype).
pub fn hardtanh_check(x: DType) -> Result<()> {
    if x.is_bool() {
        return Err(Error::UnsupportedDType {
            op: "hardtanh",
            dtype: x,
            other: None,
        });
    }
    Ok(())
}
