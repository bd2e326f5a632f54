//! `identity_tensor(shape)`: a lazily evaluated tensor whose element at a coordinate is that
//! coordinate (CuTe's `make_identity_tensor`), for bounds predication.
//!
//! Slice and tile it exactly like the data tensor it describes; the coordinate it yields at any
//! position is the coordinate of the data element there, and [`IdentityTensor::in_bounds`] tells
//! whether that element exists. Unlike [`Tensor::tile`](crate::Tensor::tile), which requires
//! tiles that divide the shape, [`IdentityTensor::tile`] rounds the number of tiles up, so the
//! last tiles reach past the bounds and the predicate masks them.
//!
//! Coordinates are not [`Element`](crate::Element)s, hence a separate type.

use crate::error::{Error, Result};
use crate::layout::coord::row_major_to_coord;
use crate::tensor::Tensor;
use std::vec::Vec;

/// One mode of an identity tensor: moving along it adds `stride` to coordinate `dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Mode {
    size: usize,
    dim: usize,
    stride: usize,
}

/// See the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdentityTensor {
    bounds: Vec<usize>,
    base: Vec<usize>,
    modes: Vec<Mode>,
}

fn overflow(what: &str) -> Error {
    Error::InvalidArgument {
        op: "IdentityTensor",
        reason: format!("{what}: a coordinate overflows usize"),
    }
}

/// `base + c * stride`, checked (tiles may reach far past the bounds).
fn step(base: usize, c: usize, stride: usize) -> Result<usize> {
    c.checked_mul(stride)
        .and_then(|x| base.checked_add(x))
        .ok_or_else(|| overflow("coordinate"))
}

/// The identity tensor of `shape`: element `c` is `c`.
pub fn identity_tensor(shape: &[usize]) -> IdentityTensor {
    IdentityTensor {
        bounds: shape.to_vec(),
        base: vec![0; shape.len()],
        modes: shape
            .iter()
            .enumerate()
            .map(|(dim, &size)| Mode {
                size,
                dim,
                stride: 1,
            })
            .collect(),
    }
}

impl IdentityTensor {
    /// The shape of this (possibly sliced or tiled) view.
    pub fn shape(&self) -> Vec<usize> {
        self.modes.iter().map(|m| m.size).collect()
    }
    pub fn ndim(&self) -> usize {
        self.modes.len()
    }
    /// The element count; panics (with a message, in every build) when it overflows `usize`.
    pub fn numel(&self) -> usize {
        self.modes
            .iter()
            .try_fold(1usize, |n, m| n.checked_mul(m.size))
            .expect("identity tensor: the element count overflows usize")
    }
    /// The shape of the original tensor, which the coordinates index.
    pub fn bounds(&self) -> &[usize] {
        &self.bounds
    }

    fn check(&self, coord: &[usize]) -> Result<()> {
        if coord.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "IdentityTensor::get",
                reason: format!(
                    "coordinate has {} modes, identity tensor has {}",
                    coord.len(),
                    self.ndim()
                ),
            });
        }
        for (&c, m) in coord.iter().zip(&self.modes) {
            if c >= m.size {
                return Err(Error::IndexOutOfRange {
                    what: "coordinate",
                    index: c as isize,
                    bound: m.size,
                    dim: None,
                });
            }
        }
        Ok(())
    }

    /// The original coordinate at a full coordinate of this view (may lie past the bounds after
    /// [`IdentityTensor::tile`]).
    pub fn get(&self, coord: &[usize]) -> Result<Vec<usize>> {
        self.check(coord)?;
        let mut out = self.base.clone();
        for (&c, m) in coord.iter().zip(&self.modes) {
            out[m.dim] = step(out[m.dim], c, m.stride)?;
        }
        Ok(out)
    }

    /// Whether the element at `coord` of this view exists in the original tensor.
    pub fn in_bounds(&self, coord: &[usize]) -> Result<bool> {
        Ok(self
            .get(coord)?
            .iter()
            .zip(&self.bounds)
            .all(|(&c, &n)| c < n))
    }

    /// Slices with a partial coordinate, as [`Tensor::at`]: `Some(c)` fixes a mode, `None`
    /// keeps it.
    pub fn at(&self, coord: &[Option<usize>]) -> Result<IdentityTensor> {
        if coord.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "IdentityTensor::at",
                reason: format!(
                    "partial coordinate has {} modes, identity tensor has {}",
                    coord.len(),
                    self.ndim()
                ),
            });
        }
        let mut base = self.base.clone();
        let mut modes = Vec::new();
        for (c, m) in coord.iter().zip(&self.modes) {
            match *c {
                Some(c) if c >= m.size => {
                    return Err(Error::IndexOutOfRange {
                        what: "coordinate",
                        index: c as isize,
                        bound: m.size,
                        dim: None,
                    });
                }
                Some(c) => base[m.dim] = step(base[m.dim], c, m.stride)?,
                None => modes.push(*m),
            }
        }
        Ok(IdentityTensor {
            bounds: self.bounds.clone(),
            base,
            modes,
        })
    }

    /// Tiles like [`Tensor::tile`], shape `(t_0, ..., n_0.div_ceil(t_0), ...)`, but with the
    /// number of tiles rounded up: coordinates in the partial last tiles lie past the bounds.
    pub fn tile(&self, tile: &[usize]) -> Result<IdentityTensor> {
        if tile.len() != self.ndim() || tile.contains(&0) {
            return Err(Error::InvalidArgument {
                op: "IdentityTensor::tile",
                reason: format!(
                    "tile {tile:?} needs one positive extent per mode of {:?}",
                    self.shape()
                ),
            });
        }
        let mut modes: Vec<Mode> = self
            .modes
            .iter()
            .zip(tile)
            .map(|(m, &t)| Mode { size: t, ..*m })
            .collect();
        for (m, &t) in self.modes.iter().zip(tile) {
            modes.push(Mode {
                size: m.size.div_ceil(t),
                dim: m.dim,
                stride: m.stride.checked_mul(t).ok_or_else(|| overflow("tile"))?,
            });
        }
        Ok(IdentityTensor {
            bounds: self.bounds.clone(),
            base: self.base.clone(),
            modes,
        })
    }

    /// Every coordinate, in row-major order of this view.
    pub fn to_vec(&self) -> Vec<Vec<usize>> {
        let shape = self.shape();
        (0..self.numel())
            .map(|i| self.get(&row_major_to_coord(&shape, i)).expect("in range"))
            .collect()
    }

    /// The bounds predicate as a bool tensor of this view's shape.
    pub fn predicate(&self) -> Tensor<bool> {
        let shape = self.shape();
        let data: Vec<bool> = self
            .to_vec()
            .iter()
            .map(|c| c.iter().zip(&self.bounds).all(|(&c, &n)| c < n))
            .collect();
        Tensor::from_vec(data, &shape).expect("numel matches the shape")
    }
}
