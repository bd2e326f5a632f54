//! Coordinates and evaluation of a [`Layout`]: full coordinates, linear indices, partial
//! coordinates (slicing), `size` and `cosize`.
//!
//! # Two linear orders
//!
//! A layout is a function from coordinates to storage offsets; the coordinate order does not
//! matter for that. A *linear index* does, and weft uses two:
//!
//! * **row-major** (C order, the last mode fastest): the order of `Tensor::to_vec`, of PyTorch,
//!   and of [`Layout::index_of_linear`]. The tensor API always means this order.
//! * **colexicographic** (the first mode fastest): CuTe's order, used by the layout algebra
//!   ([`crate::layout::algebra`]) and by [`Layout::eval_colex`]. `composition(a, b)` maps b's
//!   colex index into a's colex domain, exactly as in CuTe's documentation.
//!
//! For a 1-D layout both orders agree. For `(M,N)`, row-major index `i*N + j` and colex index
//! `i + j*M` name the same element `(i, j)`; [`row_major_to_coord`], [`colex_to_coord`] and their
//! inverses convert. A row-major contiguous layout `Layout::row_major(&[M, N]) == (M,N):(N,1)`
//! maps row-major index k to offset k; `Layout::col_major(&[M, N]) == (M,N):(1,M)` maps colex
//! index k to offset k.

use super::Layout;
use crate::error::{Error, Result};
use std::vec::Vec;

/// The coordinate of colexicographic index `i` in `shape` (the first mode fastest). The index
/// is reduced modulo the size (the last coordinate is taken modulo its extent too).
pub fn colex_to_coord(shape: &[usize], mut i: usize) -> Vec<usize> {
    shape
        .iter()
        .map(|&n| {
            let n = n.max(1);
            let c = i % n;
            i /= n;
            c
        })
        .collect()
}

/// The colexicographic index of a coordinate in `shape`.
pub fn coord_to_colex(shape: &[usize], coord: &[usize]) -> usize {
    let mut idx = 0usize;
    for (&c, &n) in coord.iter().zip(shape).rev() {
        idx = idx * n + c;
    }
    idx
}

/// The coordinate of row-major index `i` in `shape` (the last mode fastest).
pub fn row_major_to_coord(shape: &[usize], mut i: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        c[d] = i % n;
        i /= n;
    }
    c
}

/// The row-major index of a coordinate in `shape`.
pub fn coord_to_row_major(shape: &[usize], coord: &[usize]) -> usize {
    let mut idx = 0usize;
    for (&c, &n) in coord.iter().zip(shape) {
        idx = idx * n + c;
    }
    idx
}

/// Column-major (Fortran order, CuTe's default `LayoutLeft`) strides for a shape. They wrap
/// when the element count overflows; [`Layout::checked_extent`] rejects such a layout.
pub fn col_major_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = Vec::with_capacity(shape.len());
    let mut acc = 1isize;
    for &n in shape {
        strides.push(acc);
        acc = acc.wrapping_mul(n.max(1) as isize);
    }
    strides
}

impl Layout {
    /// Row-major (C order) layout at offset 0: `row_major(&[4, 4])` is `(4,4):(4,1)`. Weft's
    /// default, the same as [`Layout::contiguous`].
    pub fn row_major(shape: &[usize]) -> Layout {
        Layout::contiguous(shape)
    }

    /// Column-major layout at offset 0: `col_major(&[4, 4])` is `(4,4):(1,4)`. This is CuTe's
    /// default (`make_layout(shape)`, `LayoutLeft`).
    pub fn col_major(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.into(),
            strides: col_major_strides(shape).into(),
            offset: 0,
        }
    }

    /// A layout from shape and strides at offset 0; an error when the ranks differ.
    pub fn from_shape_strides(shape: &[usize], strides: &[isize]) -> Result<Layout> {
        Layout::new(shape.to_vec(), strides.to_vec(), 0)
    }

    /// The number of coordinates (the product of the shape), CuTe's `size`.
    pub fn size(&self) -> usize {
        self.numel()
    }

    /// The storage extent the layout needs: one past the largest offset it reaches, counting the
    /// layout's own offset (0 for an empty layout). For offset 0 and non-negative strides this is
    /// CuTe's `cosize`, `layout(size - 1) + 1` for the largest coordinate.
    pub fn cosize(&self) -> usize {
        match self.extent() {
            Some((_, hi)) if hi >= 0 => hi as usize + 1,
            _ => 0,
        }
    }

    fn check_coord(&self, coord: &[usize], what: &'static str) -> Result<()> {
        if coord.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: what,
                reason: format!(
                    "coordinate has {} modes, layout {} has {}",
                    coord.len(),
                    self,
                    self.ndim()
                ),
            });
        }
        for (&c, &n) in coord.iter().zip(&self.shape) {
            if c >= n {
                return Err(Error::IndexOutOfRange {
                    what: "coordinate",
                    index: c as isize,
                    bound: n,
                    dim: None,
                });
            }
        }
        Ok(())
    }

    /// The offset of a full coordinate (rank and bounds checked), including the layout's offset.
    pub fn eval(&self, coord: &[usize]) -> Result<isize> {
        self.check_coord(coord, "Layout::eval")?;
        Ok(self.index_of(coord))
    }

    /// The offset of colexicographic (CuTe-order, first mode fastest) index `i < size`.
    /// [`Layout::index_of_linear`] is the row-major counterpart.
    pub fn eval_colex(&self, i: usize) -> Result<isize> {
        if i >= self.size() {
            return Err(Error::IndexOutOfRange {
                what: "linear index",
                index: i as isize,
                bound: self.size(),
                dim: None,
            });
        }
        Ok(self.index_of(&colex_to_coord(&self.shape, i)))
    }

    /// The offset of row-major (tensor-order, last mode fastest) index `i < size`, checked.
    pub fn eval_row_major(&self, i: usize) -> Result<isize> {
        if i >= self.size() {
            return Err(Error::IndexOutOfRange {
                what: "linear index",
                index: i as isize,
                bound: self.size(),
                dim: None,
            });
        }
        Ok(self.index_of_linear(i))
    }

    /// CuTe's extension of the layout function to every `i >= 0`: the colex coordinate of `i`
    /// with the last mode of size > 1 left unbounded (as in `coalesce(self)`, whose last mode is
    /// the one CuTe extends). This is the function
    /// [`composition`](crate::layout::algebra::composition) composes with, so `composition(a,
    /// b)` also covers `b` reaching past `a.size()`. Agrees with `eval_colex` for `i < size`.
    /// A layout whose modes all have size 1 is the constant function `offset`.
    pub fn eval_colex_ext(&self, mut i: usize) -> i128 {
        let mut off = self.offset as i128;
        let Some(last) = self.shape.iter().rposition(|&n| n > 1) else {
            return off;
        };
        for d in 0..=last {
            let c = if d == last {
                i
            } else {
                let s = self.shape[d].max(1);
                let c = i % s;
                i /= s;
                c
            };
            // Saturating: exact for a valid layout; an invalid one must not panic here.
            off = off.saturating_add((c as i128).saturating_mul(self.strides[d] as i128));
        }
        off
    }

    /// Slices with a partial coordinate: `Some(c)` fixes mode d at `c`, `None` keeps the mode
    /// (CuTe's `_`). Returns the offset of the fixed part (including the layout's own offset) and
    /// the residual layout of the kept modes, at offset 0: for every residual coordinate `r`,
    /// `self.index_of(full) == offset + residual.index_of(r)`.
    pub fn slice_at(&self, coord: &[Option<usize>]) -> Result<(usize, Layout)> {
        if coord.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "Layout::slice_at",
                reason: format!(
                    "partial coordinate has {} modes, layout {} has {}",
                    coord.len(),
                    self,
                    self.ndim()
                ),
            });
        }
        let mut off = self.offset as i128;
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        for ((c, &n), &s) in coord.iter().zip(&self.shape).zip(&self.strides) {
            match *c {
                Some(c) => {
                    if c >= n {
                        return Err(Error::IndexOutOfRange {
                            what: "coordinate",
                            index: c as isize,
                            bound: n,
                            dim: None,
                        });
                    }
                    off += c as i128 * s as i128;
                }
                None => {
                    shape.push(n);
                    strides.push(s);
                }
            }
        }
        let off = usize::try_from(off).map_err(|_| Error::InvalidView {
            reason: format!("slicing {self} at {coord:?} gives a negative offset {off}"),
        })?;
        Ok((
            off,
            Layout {
                shape: shape.into(),
                strides: strides.into(),
                offset: 0,
            },
        ))
    }

    /// This layout with another offset.
    pub fn with_offset(&self, offset: usize) -> Layout {
        Layout {
            offset,
            ..self.clone()
        }
    }
}
