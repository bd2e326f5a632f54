//! Memory-overlap checks, PyTorch's `MemoryOverlap.cpp` rules: cheap and conservative.
//!
//! * internal overlap of an output: "yes" only when a dim of size > 1 has stride 0 (an error);
//!   anything else is allowed (PyTorch's "no" or "too hard");
//! * output vs input on the same storage: identical layouts (in-place) are allowed, disjoint
//!   element ranges are allowed, two non-overlapping-dense layouts whose ranges intersect are a
//!   partial overlap (an error); other layouts are "too hard" and allowed, as in PyTorch.

use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use crate::layout::Layout;

pub(crate) fn assert_no_internal_overlap(t: &DynTensor) -> Result<()> {
    let l = t.layout();
    if l.shape()
        .iter()
        .zip(l.strides())
        .any(|(&n, &s)| n > 1 && s == 0)
    {
        return Err(Error::MemoryOverlap {
            reason: "an output has internal overlap (a dim of size > 1 with stride 0); \
                     write into a contiguous copy instead",
        });
    }
    Ok(())
}

pub(crate) fn assert_no_partial_overlap(out: &DynTensor, inp: &DynTensor) -> Result<()> {
    // Storages are typed: tensors of different dtypes never share one.
    if out.dtype() != inp.dtype() || out.storage_ptr() != inp.storage_ptr() {
        return Ok(());
    }
    let (a, b) = (out.layout(), inp.layout());
    if a == b {
        return Ok(()); // the same view: in-place
    }
    let (Some((alo, ahi)), Some((blo, bhi))) = (a.extent(), b.extent()) else {
        return Ok(()); // an empty tensor overlaps nothing
    };
    if ahi < blo || bhi < alo {
        return Ok(());
    }
    if is_non_overlapping_and_dense(a) && is_non_overlapping_and_dense(b) {
        return Err(Error::MemoryOverlap {
            reason: "an output partially overlaps an input (they share memory without being \
                     the same view); make a copy of the input first",
        });
    }
    Ok(()) // "too hard" in PyTorch's terms: allowed
}

/// Every element at a distinct index and the indices form one gap-free block: some
/// permutation of the dims is row-major contiguous (size-1 dims ignored, strides >= 0).
pub(crate) fn is_non_overlapping_and_dense(l: &Layout) -> bool {
    is_dense(l.shape(), l.strides())
}

pub(crate) fn is_dense(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    // (stride, size) of the dims of size >= 2, sorted by stride (insertion sort: few dims).
    let mut dims = super::small::DimVec::<(isize, usize)>::empty((0, 0));
    for (&n, &s) in shape.iter().zip(strides) {
        if n >= 2 {
            dims.push((s, n));
        }
    }
    for i in 1..dims.len() {
        let mut j = i;
        while j > 0 && dims[j - 1].0 > dims[j].0 {
            dims.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut expected = 1isize;
    for &(s, n) in dims.iter() {
        if s != expected {
            return false;
        }
        expected *= n as isize;
    }
    true
}
