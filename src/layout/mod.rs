//! `Layout`: shape, element strides (may be negative or zero) and an offset into storage.
//! Evaluating a layout at a coordinate gives the storage index of that element.

use crate::error::{Error, Result};
pub(crate) use crate::small::DimVec;
use std::vec::Vec;

/// Shape and strides are kept inline (no heap allocation) up to 5 dims (`small::DIMS_INLINE`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(crate) shape: DimVec<usize>,
    pub(crate) strides: DimVec<isize>,
    pub(crate) offset: usize,
}

/// Row-major (C order) strides for a shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    contiguous_dim_strides(shape).into_vec()
}

/// Row-major (C order) strides for a shape, inline up to 5 dims.
#[inline]
pub(crate) fn contiguous_dim_strides(shape: &[usize]) -> DimVec<isize> {
    let mut strides = DimVec::filled(shape.len(), 0isize);
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc = acc.wrapping_mul(shape[d].max(1) as isize);
    }
    strides
}

/// Element count of a shape, or an error when it (or its byte size for `elem_size`) overflows
/// `isize` (i64 on the 64-bit targets weft supports), or a dim alone does.
pub fn checked_numel(shape: &[usize], elem_size: usize) -> Result<usize> {
    let overflow = || Error::NumelOverflow {
        shape: shape.to_vec(),
    };
    let mut n: isize = 1;
    for &d in shape {
        n = isize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or_else(overflow)?;
    }
    isize::try_from(elem_size)
        .ok()
        .and_then(|e| n.checked_mul(e))
        .ok_or_else(overflow)?;
    Ok(n as usize)
}

impl Layout {
    /// A row-major layout at offset 0. Not validated: for a shape whose element count overflows
    /// the strides wrap, and [`Layout::checked_extent`] (which every consumer runs) rejects it.
    #[inline]
    pub fn contiguous(shape: &[usize]) -> Layout {
        let mut layout = Layout::EMPTY;
        layout.set_contiguous(shape);
        layout
    }

    /// The layout of shape `[0]`: no elements, so it fits every storage. A placeholder that a
    /// fresh output's layout is written over where it lies ([`Layout::set_contiguous`]).
    pub(crate) const EMPTY: Layout = Layout {
        shape: DimVec::Inline {
            len: 1,
            data: [0; crate::small::DIMS_INLINE],
        },
        strides: DimVec::Inline {
            len: 1,
            data: [1; crate::small::DIMS_INLINE],
        },
        offset: 0,
    };

    /// Makes this the row-major layout of `shape` at offset 0, written in place. Why in place:
    /// the dims are written one word at a time, and a copy of the layout made right after
    /// reads them 16 bytes at a time, which the CPU cannot forward from the pending narrow
    /// stores (a store-forwarding stall, several ns per copy of a tiny op's output).
    #[inline]
    pub(crate) fn set_contiguous(&mut self, shape: &[usize]) {
        self.offset = 0;
        if shape.len() > crate::small::DIMS_INLINE {
            self.shape = DimVec::from_slice(shape, 0);
            self.strides = contiguous_dim_strides(shape);
            return;
        }
        let len = shape.len() as u32;
        self.shape = DimVec::Inline {
            len,
            data: [0; crate::small::DIMS_INLINE],
        };
        self.strides = DimVec::Inline {
            len,
            data: [0; crate::small::DIMS_INLINE],
        };
        if let (DimVec::Inline { data: dims, .. }, DimVec::Inline { data: strides, .. }) =
            (&mut self.shape, &mut self.strides)
        {
            // Both arrays in one pass.
            let mut acc = 1isize;
            for (d, &n) in shape.iter().enumerate().rev() {
                dims[d] = n;
                strides[d] = acc;
                acc = acc.wrapping_mul(n.max(1) as isize);
            }
        }
    }

    /// A layout from parts, validated by [`Layout::checked_extent`] (element count and every
    /// storage index it reaches fit `isize`); no storage check (see [`Layout::check_fits`]).
    pub fn new(shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Result<Layout> {
        Self::from_dims(shape.into(), strides.into(), offset)
    }

    /// [`Layout::new`] from inline dims.
    pub(crate) fn from_dims(
        shape: DimVec<usize>,
        strides: DimVec<isize>,
        offset: usize,
    ) -> Result<Layout> {
        if shape.len() != strides.len() {
            return Err(Error::InvalidView {
                reason: format!(
                    "shape has {} dims but strides have {}",
                    shape.len(),
                    strides.len()
                ),
            });
        }
        let l = Layout {
            shape,
            strides,
            offset,
        };
        l.checked_extent()?;
        Ok(l)
    }

    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }
    #[inline]
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// The element count (the product of the shape). Exact for a validated layout; one whose
    /// count overflows (rejected by [`Layout::checked_extent`]) saturates at `usize::MAX`.
    #[inline]
    pub fn numel(&self) -> usize {
        if self.shape.contains(&0) {
            return 0;
        }
        self.shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .unwrap_or(usize::MAX)
    }

    /// Row-major contiguous (size-1 dims may have any stride), regardless of offset.
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        // The slices once: each index into a `DimVec` would match its inline/heap variant.
        let (shape, strides) = (&*self.shape, &*self.strides);
        if let ([n], [s]) = (shape, strides) {
            return *s == 1 || *n <= 1; // the common case, without the loop
        }
        let mut expected = 1isize;
        for (d, (&n, &s)) in shape.iter().zip(strides).enumerate().rev() {
            if n == 1 {
                continue;
            }
            if n == 0 {
                return true;
            }
            if s != expected {
                return false;
            }
            // Overflow means no later dim can match: the next stride would exceed isize.
            match isize::try_from(n)
                .ok()
                .and_then(|n| expected.checked_mul(n))
            {
                Some(e) => expected = e,
                None => {
                    let outer = &shape[..d];
                    return outer.contains(&0) || outer.iter().all(|&n| n == 1);
                }
            }
        }
        true
    }

    /// The one validity check of a layout: the element count fits `isize`, the offset is at
    /// most `isize::MAX`, and the lowest and highest storage index it reaches (returned, `None`
    /// when it has no elements) fit `isize`, as do the summed negative and positive spans. On a
    /// layout that passes, [`Layout::index_of`] cannot overflow at any in-bounds coordinate (each
    /// partial sum lies between the two).
    pub fn checked_extent(&self) -> Result<Option<(isize, isize)>> {
        let numel = checked_numel(&self.shape, 1)?;
        let overflow = || Error::InvalidView {
            reason: format!(
                "shape {:?} strides {:?} offset {} reaches storage indices that overflow isize",
                self.shape, self.strides, self.offset
            ),
        };
        let offset = isize::try_from(self.offset).map_err(|_| overflow())?;
        if numel == 0 {
            return Ok(None);
        }
        let (mut neg, mut pos) = (0isize, 0isize);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            // n <= numel <= isize::MAX, so n - 1 converts.
            let span = (n as isize - 1).checked_mul(s).ok_or_else(overflow)?;
            if span < 0 {
                neg = neg.checked_add(span).ok_or_else(overflow)?;
            } else {
                pos = pos.checked_add(span).ok_or_else(overflow)?;
            }
        }
        let lo = offset.checked_add(neg).ok_or_else(overflow)?;
        let hi = offset.checked_add(pos).ok_or_else(overflow)?;
        Ok(Some((lo, hi)))
    }

    /// The smallest and largest storage index the layout reaches (None when empty). Never
    /// overflows: a layout that [`Layout::checked_extent`] rejects (never one of a tensor)
    /// reports the whole range `isize::MIN..=isize::MAX`, the conservative answer for overlap
    /// tests.
    pub fn extent(&self) -> Option<(isize, isize)> {
        self.checked_extent()
            .unwrap_or(Some((isize::MIN, isize::MAX)))
    }

    /// Errors unless the layout is valid ([`Layout::checked_extent`]), its byte size
    /// `numel * elem_size` fits `isize`, and every element lies inside a storage of `len`
    /// elements of `elem_size` bytes. Every tensor constructor runs this.
    pub fn check_fits(&self, len: usize, elem_size: usize) -> Result<()> {
        checked_numel(&self.shape, elem_size)?;
        if let Some((lo, hi)) = self.checked_extent()?
            && (lo < 0 || hi as usize >= len)
        {
            return Err(Error::InvalidView {
                reason: format!(
                    "shape {:?} strides {:?} offset {} reaches storage indices {lo}..={hi}, but the storage holds {len} elements",
                    self.shape, self.strides, self.offset
                ),
            });
        }
        Ok(())
    }

    /// Storage index of the element at a full coordinate (not bounds-checked).
    pub fn index_of(&self, coord: &[usize]) -> isize {
        let mut off = self.offset as isize;
        for (&c, &s) in coord.iter().zip(&self.strides) {
            off += c as isize * s;
        }
        off
    }

    /// Storage index of the element at a row-major linear index (the slow reference every
    /// fast path is tested against).
    pub fn index_of_linear(&self, mut linear: usize) -> isize {
        let mut off = self.offset as isize;
        for d in (0..self.ndim()).rev() {
            let n = self.shape[d];
            let c = linear % n;
            linear /= n;
            off += c as isize * self.strides[d];
        }
        off
    }
}

pub mod algebra;
pub mod coord;
pub mod print;

pub use algebra::GroupedLayout;
pub use print::{print_grouped_layout, print_layout, print_tensor};
