//! Memory-overlap rules for writable outputs: never a silent wrong answer.
//!
//! PyTorch's `MemoryOverlap.cpp` is cheap and conservative because PyTorch has no negative
//! strides; weft has them (`slice` with a negative step is a view), so an output can hold the
//! same elements as an input in another order. The rules, checked before any write:
//!
//! * **internal overlap** of an output (two coordinates at one address: a stride-0 dim of
//!   size above 1, or overlapping steps made with `as_strided`) is an error: the result would depend on
//!   the order of writes. Proven absent by a stride-sort bound, else by marking every address
//!   of a small enough layout; a layout too large to prove is refused (a clear error);
//! * **output vs input on one storage**: the identical view (in-place) and disjoint address
//!   ranges run as they are; two non-overlapping-dense layouts whose ranges intersect without
//!   being identical are a partial overlap (an error, as in PyTorch); every other overlap
//!   (reversed, transposed, stepped or broadcast views of the output's own elements) is
//!   computed correctly by reading a copy of that input, taken before the first write.
//! * two outputs of one op must not share any address.

use crate::dyn_tensor::TensorParts;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// Layouts up to this many addresses are checked exactly by marking each one.
const EXACT_CHECK_MAX: usize = 1 << 22;

pub(crate) fn assert_no_internal_overlap(t: &Layout) -> Result<()> {
    match has_internal_overlap(t) {
        Some(false) => Ok(()),
        Some(true) => Err(Error::MemoryOverlap {
            reason: "an output has internal overlap (two of its elements share one memory \
                     location, e.g. a dim of size > 1 with stride 0); write into a contiguous \
                     copy instead",
        }),
        None => Err(Error::MemoryOverlap {
            reason: "an output's strides may map two elements to one memory location and the \
                     layout is too large to check exactly; write into a contiguous copy instead",
        }),
    }
}

/// Whether two coordinates of `l` reach one address: `Some(answer)`, or `None` when the layout
/// is too large to decide exactly.
pub(crate) fn has_internal_overlap(l: &Layout) -> Option<bool> {
    if l.shape().contains(&0) {
        return Some(false);
    }
    // (|stride|, size) of the dims of size >= 2, sorted by |stride|.
    let mut dims = crate::small::DimVec::<(usize, usize)>::empty((0, 0));
    for (&n, &s) in l.shape().iter().zip(l.strides()) {
        if n >= 2 {
            if s == 0 {
                return Some(true);
            }
            dims.push((s.unsigned_abs(), n));
        }
    }
    dims.sort_unstable();
    // Sufficient: each stride exceeds the span of all smaller-stride dims together.
    let mut span = 0usize; // largest offset reachable by the dims so far
    let mut bounded = true;
    for &(s, n) in dims.iter() {
        if s <= span {
            bounded = false;
            break;
        }
        // Validated layouts have extents in isize, so this cannot overflow.
        span += (n - 1) * s;
    }
    if bounded {
        return Some(false);
    }
    // Exact: mark every address (small layouts only).
    let total: usize = dims.iter().map(|&(s, n)| (n - 1) * s).sum::<usize>() + 1;
    let numel: usize = dims.iter().map(|&(_, n)| n).product();
    if total > EXACT_CHECK_MAX || numel > EXACT_CHECK_MAX {
        return None;
    }
    let mut seen = vec![false; total];
    let mut coord = crate::small::DimVec::<usize>::filled(dims.len(), 0);
    let mut addr = 0usize;
    loop {
        if std::mem::replace(&mut seen[addr], true) {
            return Some(true);
        }
        let mut d = 0;
        loop {
            if d == dims.len() {
                return Some(false);
            }
            coord[d] += 1;
            addr += dims[d].0;
            if coord[d] < dims[d].1 {
                break;
            }
            addr -= dims[d].0 * dims[d].1;
            coord[d] = 0;
            d += 1;
        }
    }
}

/// What an output and an input on possibly the same storage need.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// Different storages, disjoint ranges, or the identical view: read in place.
    None,
    /// The input reaches the output's elements in another order: read a copy of it.
    CopyInput,
}

/// `check`: PyTorch's `check_mem_overlap`; when off, a partial overlap is read from a copy
/// instead of refused (never computed wrongly).
pub(crate) fn output_input_sharing(
    out: &TensorParts,
    inp: &TensorParts,
    check: bool,
) -> Result<Sharing> {
    // Storages are typed: tensors of different dtypes never share one.
    if !out.same_storage(inp) {
        return Ok(Sharing::None);
    }
    let (a, b) = (out.layout, inp.layout);
    if a == b {
        return Ok(Sharing::None); // the same view: in-place, element for element
    }
    let (Some((alo, ahi)), Some((blo, bhi))) = (a.extent(), b.extent()) else {
        return Ok(Sharing::None); // an empty tensor overlaps nothing
    };
    if ahi < blo || bhi < alo {
        return Ok(Sharing::None);
    }
    if check && is_non_overlapping_and_dense(a) && is_non_overlapping_and_dense(b) {
        // Two dense blocks: the same block in another order (a transpose) or a shifted one.
        if (alo, ahi) != (blo, bhi) {
            return Err(Error::MemoryOverlap {
                reason: "an output partially overlaps an input (they share memory without \
                         being the same view); make a copy of the input first",
            });
        }
    }
    Ok(Sharing::CopyInput)
}

/// Two outputs of one op must not write one address.
pub(crate) fn assert_outputs_disjoint(a: &TensorParts, b: &TensorParts) -> Result<()> {
    if !a.same_storage(b) {
        return Ok(());
    }
    if let (Some((alo, ahi)), Some((blo, bhi))) = (a.layout.extent(), b.layout.extent())
        && !(ahi < blo || bhi < alo)
    {
        return Err(Error::MemoryOverlap {
            reason: "two outputs of one op share memory",
        });
    }
    Ok(())
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
    let mut dims = crate::small::DimVec::<(isize, usize)>::empty((0, 0));
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
