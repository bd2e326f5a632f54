//! `Layout`: shape, element strides (may be negative or zero) and an offset into storage.
//! Evaluating a layout at a coordinate gives the storage index of that element.

use crate::error::{Error, Result};
use std::vec::Vec;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
    pub(crate) offset: usize,
}

/// Row-major (C order) strides for a shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc = acc.wrapping_mul(shape[d].max(1) as isize);
    }
    strides
}

/// Element count of a shape, or an error when it (or its byte size for `elem_size`) overflows i64.
pub fn checked_numel(shape: &[usize], elem_size: usize) -> Result<usize> {
    let mut n: i64 = 1;
    for &d in shape {
        n = i64::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or_else(|| Error::NumelOverflow {
                shape: shape.to_vec(),
            })?;
    }
    n.checked_mul(elem_size as i64)
        .ok_or_else(|| Error::NumelOverflow {
            shape: shape.to_vec(),
        })?;
    Ok(n as usize)
}

impl Layout {
    /// A row-major layout at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// A layout from parts; no storage check (see [`Layout::check_fits`]).
    pub fn new(shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Result<Layout> {
        if shape.len() != strides.len() {
            return Err(Error::InvalidView {
                reason: format!(
                    "shape has {} dims but strides have {}",
                    shape.len(),
                    strides.len()
                ),
            });
        }
        Ok(Layout {
            shape,
            strides,
            offset,
        })
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    pub fn offset(&self) -> usize {
        self.offset
    }
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Row-major contiguous (size-1 dims may have any stride), regardless of offset.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for d in (0..self.ndim()).rev() {
            if self.shape[d] == 1 {
                continue;
            }
            if self.shape[d] == 0 {
                return true;
            }
            if self.strides[d] != expected {
                return false;
            }
            expected *= self.shape[d] as isize;
        }
        true
    }

    /// The smallest and largest storage index the layout reaches (None when empty).
    pub fn extent(&self) -> Option<(isize, isize)> {
        if self.numel() == 0 {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let span = (n as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        Some((lo, hi))
    }

    /// Errors unless every element lies inside a storage of `len` elements.
    pub fn check_fits(&self, len: usize) -> Result<()> {
        if let Some((lo, hi)) = self.extent()
            && (lo < 0 || hi >= len as isize)
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
