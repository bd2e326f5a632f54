//! `cat` and `stack` (PyTorch's): the output is allocated once in the promoted dtype and each
//! input is written into its slice of it with `copy_`, i.e. through the iterator (any layout,
//! casts in the loop, borrows and overlap rules as for every op).

use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use crate::promotion::promote_types;

fn invalid(op: &'static str, reason: String) -> Error {
    Error::InvalidArgument { op, reason }
}

/// `dim` wrapped into `0..ndim` (negative counts from the end).
fn wrap_dim(op: &'static str, dim: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::IndexOutOfRange {
            what: if op == "cat" { "cat dim" } else { "stack dim" },
            index: dim,
            bound: ndim,
            dim: None,
        });
    }
    Ok(d as usize)
}

/// `torch.cat(tensors, dim)`: the tensors joined along `dim`. All must have the same number of
/// dims (at least 1) and equal sizes except along `dim`; 1-d empty tensors (`shape [0]`) are
/// skipped, as PyTorch's legacy rule has it. The result dtype is the promotion of all inputs.
pub fn cat(tensors: &[&DynTensor], dim: isize) -> Result<DynTensor> {
    const OP: &str = "cat";
    let dtype = tensors
        .iter()
        .map(|t| t.dtype())
        .reduce(promote_types)
        .ok_or_else(|| invalid(OP, "expected a non-empty list of tensors".into()))?;
    let Some(first) = tensors.iter().find(|t| t.shape() != [0]) else {
        // Only legacy empties: PyTorch returns an empty tensor of their promoted dtype.
        return DynTensor::zeros(dtype, &[0]);
    };
    if first.ndim() == 0 {
        return Err(invalid(
            OP,
            "zero-dimensional tensors cannot be concatenated".into(),
        ));
    }
    let d = wrap_dim(OP, dim, first.ndim())?;
    let mut shape = first.shape().to_vec();
    shape[d] = 0;
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() == [0] {
            continue;
        }
        let same_rank = t.ndim() == first.ndim();
        let same_sizes =
            same_rank && (0..t.ndim()).all(|k| k == d || t.shape()[k] == first.shape()[k]);
        if !same_sizes {
            return Err(invalid(
                OP,
                format!(
                    "sizes of tensors must match except in dimension {d}: tensor 0 has shape \
                     {:?}, tensor {i} has shape {:?}",
                    first.shape(),
                    t.shape()
                ),
            ));
        }
        shape[d] = shape[d]
            .checked_add(t.shape()[d])
            .ok_or(Error::NumelOverflow {
                shape: shape.clone(),
            })?;
    }
    // SAFETY: the parts' copies below cover every index along `d` (their lengths sum to
    // `shape[d]`) before `out` is returned; on an error it is dropped unread (with the parts'
    // handles, which are local).
    let out = unsafe { DynTensor::alloc_output(dtype, &shape, None, false)? };
    let mut at = 0usize;
    for t in tensors.iter().filter(|t| t.shape() != [0]) {
        let len = t.shape()[d];
        let mut part = out.try_narrow(d as isize, at as isize, len)?;
        part.try_copy_(t)?;
        at += len;
    }
    Ok(out)
}

/// `torch.stack(tensors, dim)`: the tensors (all of one shape) joined along a new dim `dim`
/// (`-1` is after the last), promoted like `cat`.
pub fn stack(tensors: &[&DynTensor], dim: isize) -> Result<DynTensor> {
    const OP: &str = "stack";
    let first = tensors
        .first()
        .ok_or_else(|| invalid(OP, "expected a non-empty list of tensors".into()))?;
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            return Err(invalid(
                OP,
                format!(
                    "stack expects each tensor to be equal size, but got {:?} at entry 0 and \
                     {:?} at entry {i}",
                    first.shape(),
                    t.shape()
                ),
            ));
        }
    }
    let d = wrap_dim(OP, dim, first.ndim() + 1)?;
    let parts = tensors
        .iter()
        .map(|t| t.try_unsqueeze(d as isize))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&DynTensor> = parts.iter().collect();
    cat(&refs, d as isize)
}

impl DynTensor {
    /// See [`cat`].
    pub fn cat(tensors: &[&DynTensor], dim: isize) -> Result<DynTensor> {
        cat(tensors, dim)
    }
    /// See [`stack`].
    pub fn stack(tensors: &[&DynTensor], dim: isize) -> Result<DynTensor> {
        stack(tensors, dim)
    }
}

impl<T: crate::DynElement> crate::Tensor<T> {
    /// `torch.cat` of typed tensors (one element type, so the result is `T`); see [`cat`].
    pub fn cat(tensors: &[&crate::Tensor<T>], dim: isize) -> Result<crate::Tensor<T>> {
        let dyns: Vec<DynTensor> = tensors.iter().map(|t| T::wrap(t.share())).collect();
        let refs: Vec<&DynTensor> = dyns.iter().collect();
        typed(cat(&refs, dim)?)
    }
    /// `torch.stack` of typed tensors; see [`stack`].
    pub fn stack(tensors: &[&crate::Tensor<T>], dim: isize) -> Result<crate::Tensor<T>> {
        let dyns: Vec<DynTensor> = tensors.iter().map(|t| T::wrap(t.share())).collect();
        let refs: Vec<&DynTensor> = dyns.iter().collect();
        typed(stack(&refs, dim)?)
    }
}

/// The result of joining tensors of one dtype has that dtype.
fn typed<T: crate::DynElement>(d: DynTensor) -> Result<crate::Tensor<T>> {
    let got = d.dtype();
    T::unwrap(d).map_err(|_| Error::DTypeMismatch {
        op: "cat",
        expected: T::DTYPE,
        got,
    })
}
