//! Layout-algebra views of a `Tensor<T>`: partial-coordinate indexing (CuTe's `tensor(_, 3)`),
//! tiling, and viewing the storage through another layout. All are views: no copy.

use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Layout, algebra};
use crate::tensor::Tensor;
use std::vec::Vec;

impl<T: Element> Tensor<T> {
    /// The sub-tensor at a partial coordinate: `Some(c)` fixes dim d at `c`, `None` keeps the
    /// dim. `t.at(&[Some(i), None])` is row i, `t.at(&[None, Some(j)])` column j; a full
    /// coordinate gives a 0-d view of one element.
    pub fn at(&self, coord: &[Option<usize>]) -> Result<Tensor<T>> {
        let (offset, residual) = self.layout.slice_at(coord)?;
        Ok(Tensor {
            storage: self.storage.clone(),
            layout: residual.with_offset(offset),
        })
    }

    /// Writes the element at a coordinate given in the same form as [`Tensor::at`]; every mode
    /// must be fixed (an error otherwise: a partial coordinate names several elements).
    pub fn set_at(&mut self, coord: &[Option<usize>], value: T) -> Result<()> {
        let full: Option<Vec<usize>> = coord.iter().copied().collect();
        match full {
            Some(full) => self.set(&full, value),
            None => Err(Error::InvalidArgument {
                op: "set_at",
                reason: format!(
                    "writing needs a full coordinate, got {coord:?} (use `at` for a view)"
                ),
            }),
        }
    }

    /// The element at a coordinate given in the same form as [`Tensor::at`]; every mode must be
    /// fixed.
    pub fn get_at(&self, coord: &[Option<usize>]) -> Result<T> {
        match coord.iter().copied().collect::<Option<Vec<usize>>>() {
            Some(full) => self.get(&full),
            None => Err(Error::InvalidArgument {
                op: "get_at",
                reason: format!(
                    "reading one element needs a full coordinate, got {coord:?} (use `at` for a view)"
                ),
            }),
        }
    }

    /// Splits into contiguous tiles (see [`algebra::tile`]): shape `(t_0, ..., t_{r-1}, n_0/t_0,
    /// ..., n_{r-1}/t_{r-1})`, the coordinate inside a tile first, then the tile's coordinate, so
    /// `t.tile(&[4, 4])?.at(&[None, None, Some(bi), Some(bj)])` is tile (bi, bj). Each extent must
    /// divide its dim; [`IdentityTensor::tile`](crate::tensor::IdentityTensor::tile) gives the
    /// predicate for shapes that do not divide.
    pub fn tile(&self, tile: &[usize]) -> Result<Tensor<T>> {
        Tensor::from_parts(self.storage.clone(), algebra::tile(&self.layout, tile)?)
    }

    /// The same storage seen through another layout, checked to fit.
    pub fn with_layout(&self, layout: Layout) -> Result<Tensor<T>> {
        Tensor::from_parts(self.storage.clone(), layout)
    }

    /// The view `self.layout() ∘ b` ([`algebra::composition`], flattened): element at colex index
    /// i of `b` is this tensor's element at colex index `b(i)`. Note colex: for a row-major
    /// reading of this tensor compose with row-major layouts of the reversed shape, or use
    /// [`Tensor::tile`] / [`Tensor::at`], which are order-free.
    pub fn compose(&self, b: &Layout) -> Result<Tensor<T>> {
        self.with_layout(self.layout.compose(b)?)
    }
}
