//! The dtype/path decision of the binary and unary ops, shared by the CPU runners
//! ([`super::binary`], [`super::unary`]) and the device ops (`device::ops`): which computation
//! dtype, which result dtype, which functor form (plain, scalar at f32 precision, pow with a
//! scalar exponent), and PyTorch's checks that depend on dtypes and scalar values only.
//! Checks that need the data (an integer divisor tensor holding 0) stay with the runners.

use crate::dispatch_dtypes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::functors::{BinaryOp, UnaryOp};
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
    if matches!(
        op,
        BinaryOp::FloorDivide | BinaryOp::Remainder | BinaryOp::Fmod
    ) && compute.is_integer()
    {
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
    if a.kind == OperandKind::Scalar {
        // Only a rhs one-element tensor gets the special cases (PyTorch: `iter.is_cpu_scalar(2)`
        // on a two-input iterator; a lhs scalar makes the rhs the tensor operand).
        return Ok(plan);
    }
    if compute.is_reduced_float()
        && matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDivide)
    {
        plan.path = BinaryPath::ScalarOpmath(s.to::<f32>());
        return Ok(plan);
    }
    if op == BinaryOp::Pow && b.kind == OperandKind::Scalar {
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
