//! What a reduction does before it runs: which dims it reduces (PyTorch's dim wrapping and
//! checks), the output shapes, and the dtype rules per op (one match on [`ReduceOp`]).

use super::{Dims, ReduceOp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::small::DimVec;

/// The dims of one reduction of an input of a given shape.
pub(crate) struct Plan {
    /// `keepdim` shape: the input's, with 1 on the reduced dims.
    pub(crate) keep_shape: DimVec<usize>,
    /// The result's shape (`keep_shape` without the reduced dims unless `keepdim`).
    pub(crate) out_shape: DimVec<usize>,
    /// Elements reduced into each output.
    pub(crate) count: usize,
}

/// Wraps `dim` (may be negative) for a tensor of `ndim` dims; a 0-d tensor takes -1 and 0
/// (PyTorch's scalar wrapping).
fn wrap_dim(dim: isize, ndim: usize) -> Result<usize> {
    crate::tensor::wrap_dim(dim, ndim.max(1))
}

pub(crate) fn plan(op: ReduceOp, shape: &[usize], dims: &Dims, keepdim: bool) -> Result<Plan> {
    let nd = shape.len();
    let mut reduced = DimVec::filled(nd, false);
    match dims.as_slice() {
        None => reduced = DimVec::filled(nd, true),
        Some(list) => {
            for &d in list {
                let w = wrap_dim(d, nd)?;
                if nd == 0 {
                    continue;
                }
                if reduced[w] {
                    return Err(Error::InvalidArgument {
                        op: op.name(),
                        reason: format!("dim {w} appears multiple times in the list of dims"),
                    });
                }
                reduced[w] = true;
            }
        }
    }
    let mut keep_shape = DimVec::empty(0);
    let mut out_shape = DimVec::empty(0);
    let mut count = 1usize;
    for d in 0..nd {
        if reduced[d] {
            count *= shape[d];
            keep_shape.push(1);
            if keepdim {
                out_shape.push(1);
            }
        } else {
            keep_shape.push(shape[d]);
            out_shape.push(shape[d]);
        }
    }
    if count == 0 && op.needs_elements() {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: "cannot reduce over a zero-size dim: the result has no identity (specify a \
                     dim of non-zero size)"
                .into(),
        });
    }
    Ok(Plan {
        keep_shape,
        out_shape,
        count,
    })
}

/// The dtype the input is read as (after the `dtype` argument's cast) and the result dtype, or
/// the error PyTorch gives.
pub(crate) fn dtypes(op: ReduceOp, input: DType, dtype: Option<DType>) -> Result<(DType, DType)> {
    use ReduceOp::*;
    let unsupported = |d: DType| Error::UnsupportedDType {
        op: op.name(),
        dtype: d,
        other: None,
    };
    if dtype.is_some() && !op.takes_dtype() {
        return Err(Error::InvalidArgument {
            op: op.name(),
            reason: "this reduction takes no dtype argument".into(),
        });
    }
    // Float to float: PyTorch reads the input as it is, accumulates in the wider of the two
    // accumulation types and writes the result dtype (no rounding of the input first).
    if let Some(d) = dtype
        && matches!(op, Sum | Prod | Mean)
        && input.is_float()
        && d.is_float()
    {
        return Ok((input, d));
    }
    let read = dtype.unwrap_or(input);
    let result = match op {
        Sum | Prod => {
            if read.is_float() {
                read
            } else if read.is_unsigned_integer() && read != DType::U8 {
                // NumPy's rule for the unsigned dtypes PyTorch has no sum for.
                DType::U64
            } else {
                DType::I64
            }
        }
        Mean | Var | Std | Softmax | LogSoftmax => {
            if !read.is_float() {
                return Err(unsupported(read));
            }
            read
        }
        Amax | Amin | MaxDim | MinDim => read,
        Argmax | Argmin => {
            if read == DType::Bool {
                return Err(unsupported(read));
            }
            DType::I64
        }
        Any | All => {
            if read == DType::U8 {
                DType::U8
            } else {
                DType::Bool
            }
        }
        Logsumexp => {
            if read.is_float() {
                read
            } else {
                return Ok((DType::F32, DType::F32));
            }
        }
    };
    Ok((read, result))
}
