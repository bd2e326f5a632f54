//! Views: new layouts over the same storage, never a copy (except `reshape` when the strides
//! cannot express the new shape, which then copies, as PyTorch does).
//!
//! # Conventions
//!
//! * Every view has a `try_*` method returning [`Result`] and a plain method of the same name
//!   that panics with the error's message (like PyTorch raising). Use `try_*` with untrusted
//!   input.
//! * Dimensions are `isize`; negative dims count from the end (`-1` is the last). A dim outside
//!   `-ndim..ndim` is [`Error::IndexOutOfRange`]. (`unsqueeze` accepts `-(ndim+1)..=ndim`.)
//! * Shapes passed to `reshape`/`view`/`expand` are any [`ShapeArg`]: `&[usize]` (another
//!   tensor's `shape()`), arrays or `Vec`s; signed entries allow `-1`, which means "infer" for
//!   `reshape`/`view` and "keep this size" for `expand`.
//! * `slice` follows Python's slice semantics: `None` bounds default by the step's sign,
//!   negative bounds count from the end, out-of-range bounds are clamped, negative steps give
//!   reversed views (negative strides), step 0 is an error.

use super::ShapeArg;
use super::Tensor;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel, contiguous_strides};
use std::vec::Vec;

/// Wraps a possibly negative `dim` into `0..ndim`.
pub(crate) fn wrap_dim(dim: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::IndexOutOfRange {
            what: "dimension",
            index: dim,
            bound: ndim,
            dim: None,
        });
    }
    Ok(d as usize)
}

/// PyTorch's `computeStride`: strides that let a tensor of `old_shape`/`old_strides` be seen as
/// `new_shape` without copying, or `None` when no such strides exist. Works chunk by chunk:
/// each run of old dims that is contiguous among itself must be split exactly by new dims.
pub fn compute_stride(
    old_shape: &[usize],
    old_strides: &[isize],
    new_shape: &[usize],
) -> Option<Vec<isize>> {
    // Checked throughout: the shapes come from callers, and a wrapped product could make two
    // different layouts look equal. Overflow means "no view" (None).
    if old_shape.contains(&0) {
        // Any strides address an empty tensor; keep them when the shape does not change.
        return Some(if old_shape == new_shape {
            old_strides.to_vec()
        } else {
            contiguous_strides(new_shape)
        });
    }
    if old_shape.is_empty() {
        // 0-d: all new dims are 1, any strides work.
        return Some(contiguous_strides(new_shape));
    }
    let mut new_strides = vec![0isize; new_shape.len()];
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel: isize = 1;
    let mut view_numel: isize = 1;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel = tensor_numel.checked_mul(isize::try_from(old_shape[tensor_d]).ok()?)?;
        // A chunk ends at dim 0 or where the next-outer dim is not contiguous with this chunk.
        if tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && tensor_numel.checked_mul(chunk_base_stride) != Some(old_strides[tensor_d - 1]))
        {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                let size = new_shape[view_d as usize];
                new_strides[view_d as usize] = match view_numel.checked_mul(chunk_base_stride) {
                    Some(st) => st,
                    // A size-1 dim never steps, so any stride serves.
                    None if size == 1 => chunk_base_stride,
                    None => return None,
                };
                view_numel = view_numel.checked_mul(isize::try_from(size).ok()?)?;
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

/// Resolves a shape with at most one `-1` against `numel`.
fn infer_shape(what: &'static str, shape: &[isize], numel: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut known: Vec<usize> = Vec::with_capacity(shape.len());
    for (i, &s) in shape.iter().enumerate() {
        if s == -1 {
            if infer.is_some() {
                return Err(Error::InvalidArgument {
                    op: what,
                    reason: "only one dimension can be inferred (-1)".into(),
                });
            }
            infer = Some(i);
            known.push(1);
        } else if s < 0 {
            return Err(Error::InvalidArgument {
                op: what,
                reason: format!("invalid shape dimension {s}"),
            });
        } else {
            known.push(s as usize);
        }
    }
    let product = checked_numel(&known, 1)?;
    if let Some(i) = infer {
        if product == 0 || !numel.is_multiple_of(product) {
            return Err(Error::InvalidArgument {
                op: what,
                reason: format!(
                    "shape {shape:?} is invalid for input of size {numel} (the -1 cannot be inferred)"
                ),
            });
        }
        known[i] = numel / product;
    } else if product != numel {
        return Err(Error::NumelMismatch {
            what,
            shape: known,
            expected: product,
            got: numel,
        });
    }
    Ok(known)
}

#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    r.or_panic()
}

impl<T: Element> Tensor<T> {
    /// Same storage, new layout, validated like any tensor's ([`Tensor::from_parts`]): views
    /// derive from a valid layout, and this makes sure no arithmetic slip escapes as a tensor.
    fn view_parts(
        &self,
        shape: impl Into<crate::layout::DimVec<usize>>,
        strides: impl Into<crate::layout::DimVec<isize>>,
        offset: usize,
    ) -> Result<Tensor<T>> {
        let (shape, strides) = (shape.into(), strides.into());
        debug_assert_eq!(shape.len(), strides.len());
        Tensor::from_parts(
            self.storage.clone(),
            Layout {
                shape,
                strides,
                offset,
            },
        )
    }

    /// The offset of index `i` along dim `d` (the layout's offset plus `i * stride[d]`), checked.
    fn offset_at(&self, d: usize, i: isize) -> Result<usize> {
        i.checked_mul(self.strides()[d])
            .and_then(|x| (self.offset() as isize).checked_add(x))
            .and_then(|o| usize::try_from(o).ok())
            .ok_or_else(|| Error::InvalidView {
                reason: format!(
                    "index {i} along dim {d} (stride {}) from offset {} leaves the storage",
                    self.strides()[d],
                    self.offset()
                ),
            })
    }

    /// Reorders the dims: result dim `i` is input dim `dims[i]`.
    pub fn try_permute(&self, dims: &[isize]) -> Result<Tensor<T>> {
        let n = self.ndim();
        if dims.len() != n {
            return Err(Error::InvalidArgument {
                op: "permute",
                reason: format!("got {} dims for a tensor of {n} dims", dims.len()),
            });
        }
        let mut seen = vec![false; n];
        let (mut shape, mut strides) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for &d in dims {
            let d = wrap_dim(d, n)?;
            if seen[d] {
                return Err(Error::InvalidArgument {
                    op: "permute",
                    reason: format!("dim {d} repeats in {dims:?}"),
                });
            }
            seen[d] = true;
            shape.push(self.shape()[d]);
            strides.push(self.strides()[d]);
        }
        self.view_parts(shape, strides, self.offset())
    }
    #[track_caller]
    pub fn permute(&self, dims: &[isize]) -> Tensor<T> {
        or_panic(self.try_permute(dims))
    }

    /// Swaps two dims.
    pub fn try_transpose(&self, d0: isize, d1: isize) -> Result<Tensor<T>> {
        let n = self.ndim();
        if n == 0 && matches!(d0, -1 | 0) && matches!(d1, -1 | 0) {
            return Ok(self.share()); // PyTorch treats a 0-d tensor as having one dim here
        }
        let (a, b) = (wrap_dim(d0, n)?, wrap_dim(d1, n)?);
        let mut l = self.layout.clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn transpose(&self, d0: isize, d1: isize) -> Tensor<T> {
        or_panic(self.try_transpose(d0, d1))
    }

    /// Transpose of a matrix; 0-d and 1-d tensors are returned as they are (like torch `.t()`).
    pub fn try_t(&self) -> Result<Tensor<T>> {
        match self.ndim() {
            0 | 1 => Ok(self.share()),
            2 => self.try_transpose(0, 1),
            n => Err(Error::InvalidArgument {
                op: "t",
                reason: format!("expects a tensor with <= 2 dims, got {n}"),
            }),
        }
    }
    #[track_caller]
    pub fn t(&self) -> Tensor<T> {
        or_panic(self.try_t())
    }

    /// Python's `x[start:end:step]` along `dim` (see the module doc).
    pub fn try_slice(
        &self,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Result<Tensor<T>> {
        let d = wrap_dim(dim, self.ndim())?;
        if step == 0 {
            return Err(Error::InvalidArgument {
                op: "slice",
                reason: "slice step cannot be zero".into(),
            });
        }
        let n = self.shape()[d] as isize;
        // CPython's PySlice_AdjustIndices.
        let adjust = |v: Option<isize>, default: isize| -> isize {
            match v {
                None => default,
                Some(v) => {
                    let v = if v < 0 { v.saturating_add(n) } else { v };
                    if step > 0 {
                        v.clamp(0, n)
                    } else {
                        v.clamp(-1, n - 1)
                    }
                }
            }
        };
        let (s, e) = if step > 0 {
            (adjust(start, 0), adjust(end, n))
        } else {
            (adjust(start, n - 1), adjust(end, -1))
        };
        // |step| as usize: `-step` would overflow for isize::MIN. Both bounds lie in -1..=n, so
        // the differences cannot overflow.
        let len = if step > 0 {
            if e > s {
                (e - s - 1) as usize / step.unsigned_abs() + 1
            } else {
                0
            }
        } else if s > e {
            (s - e - 1) as usize / step.unsigned_abs() + 1
        } else {
            0
        };
        let mut l = self.layout.clone();
        let stride = l.strides[d];
        if len > 0 {
            l.offset = self.offset_at(d, s)?;
        }
        l.shape[d] = len;
        // A size-1 result never steps, so keep its stride (avoids overflow for huge steps).
        if len > 1 {
            l.strides[d] = stride.checked_mul(step).ok_or_else(|| Error::InvalidView {
                reason: format!("slice step {step} times stride {stride} overflows isize"),
            })?;
        }
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn slice(
        &self,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Tensor<T> {
        or_panic(self.try_slice(dim, start, end, step))
    }

    /// `len` elements along `dim` from `start` (negative `start` counts from the end).
    pub fn try_narrow(&self, dim: isize, start: isize, len: usize) -> Result<Tensor<T>> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = self.shape()[d];
        let s = if start < 0 { start + n as isize } else { start };
        if s < 0 || s as usize > n {
            return Err(Error::IndexOutOfRange {
                what: "narrow: start",
                index: start,
                bound: n,
                dim: Some(d),
            });
        }
        if len > n - s as usize {
            return Err(Error::InvalidArgument {
                op: "narrow",
                reason: format!("start ({s}) + length ({len}) exceeds dimension size ({n})"),
            });
        }
        let mut l = self.layout.clone();
        if len > 0 {
            l.offset = self.offset_at(d, s)?;
        }
        l.shape[d] = len;
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn narrow(&self, dim: isize, start: isize, len: usize) -> Tensor<T> {
        or_panic(self.try_narrow(dim, start, len))
    }

    /// The sub-tensor at `index` along `dim`, which is removed (negative `index` from the end).
    pub fn try_select(&self, dim: isize, index: isize) -> Result<Tensor<T>> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = self.shape()[d];
        let i = if index < 0 { index + n as isize } else { index };
        if i < 0 || i as usize >= n {
            return Err(Error::IndexOutOfRange {
                what: "select: index",
                index,
                bound: n,
                dim: Some(d),
            });
        }
        let mut l = self.layout.clone();
        l.offset = self.offset_at(d, i)?;
        l.shape.remove(d);
        l.strides.remove(d);
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn select(&self, dim: isize, index: isize) -> Tensor<T> {
        or_panic(self.try_select(dim, index))
    }

    /// Broadcasts to `shape` without copying: size-1 dims become stride 0, new leading dims may
    /// be added, `-1` keeps a size.
    pub fn try_expand(&self, shape: impl ShapeArg) -> Result<Tensor<T>> {
        let shape = &shape.dims()?[..];
        let n = self.ndim();
        let mismatch = || Error::ShapeMismatch {
            op: "expand",
            lhs: self.shape().to_vec(),
            rhs: shape.iter().map(|&s| s.max(0) as usize).collect(),
        };
        if shape.len() < n {
            return Err(mismatch());
        }
        let lead = shape.len() - n;
        let (mut out_shape, mut out_strides) = (Vec::with_capacity(shape.len()), Vec::new());
        for (i, &s) in shape.iter().enumerate() {
            if i < lead {
                if s < 0 {
                    return Err(Error::InvalidArgument {
                        op: "expand",
                        reason: format!(
                            "size {s} is not allowed in a leading, non-existing dimension"
                        ),
                    });
                }
                out_shape.push(s as usize);
                out_strides.push(0);
                continue;
            }
            let (have, stride) = (self.shape()[i - lead], self.strides()[i - lead]);
            if s == -1 || s as usize == have && s >= 0 {
                out_shape.push(have);
                out_strides.push(stride);
            } else if s < 0 {
                return Err(Error::InvalidArgument {
                    op: "expand",
                    reason: format!("invalid size {s}"),
                });
            } else if have == 1 {
                out_shape.push(s as usize);
                out_strides.push(0);
            } else {
                return Err(mismatch());
            }
        }
        self.view_parts(out_shape, out_strides, self.offset())
    }
    #[track_caller]
    pub fn expand(&self, shape: impl ShapeArg) -> Tensor<T> {
        or_panic(self.try_expand(shape))
    }

    /// [`Tensor::try_expand`] to an explicit shape.
    pub fn try_broadcast_to(&self, shape: &[usize]) -> Result<Tensor<T>> {
        let s: Vec<isize> = shape
            .iter()
            .map(|&d| {
                isize::try_from(d).map_err(|_| Error::NumelOverflow {
                    shape: shape.to_vec(),
                })
            })
            .collect::<Result<_>>()?;
        self.try_expand(&s)
    }
    #[track_caller]
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor<T> {
        or_panic(self.try_broadcast_to(shape))
    }

    /// Removes every size-1 dim.
    pub fn squeeze(&self) -> Tensor<T> {
        let (shape, strides): (Vec<usize>, Vec<isize>) = self
            .shape()
            .iter()
            .zip(self.strides())
            .filter(|(n, _)| **n != 1)
            .map(|(&n, &s)| (n, s))
            .unzip();
        self.view_parts(shape, strides, self.offset())
            .expect("dropping size-1 dims keeps a valid layout")
    }

    /// Removes `dim` if its size is 1 (otherwise returns the tensor unchanged, like PyTorch).
    pub fn try_squeeze_dim(&self, dim: isize) -> Result<Tensor<T>> {
        if self.ndim() == 0 && matches!(dim, -1 | 0) {
            return Ok(self.share());
        }
        let d = wrap_dim(dim, self.ndim())?;
        if self.shape()[d] != 1 {
            return Ok(self.share());
        }
        let mut l = self.layout.clone();
        l.shape.remove(d);
        l.strides.remove(d);
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn squeeze_dim(&self, dim: isize) -> Tensor<T> {
        or_panic(self.try_squeeze_dim(dim))
    }

    /// Inserts a size-1 dim at `dim` (in `-(ndim+1)..=ndim`).
    pub fn try_unsqueeze(&self, dim: isize) -> Result<Tensor<T>> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        let mut l = self.layout.clone();
        // PyTorch's choice of stride, so the result is contiguous when the input is. The new dim
        // has size 1 and never steps, so where that product overflows any stride serves: 1.
        let stride = if d >= l.ndim() {
            1
        } else {
            isize::try_from(l.shape[d])
                .ok()
                .and_then(|n| n.checked_mul(l.strides[d]))
                .unwrap_or(1)
        };
        l.shape.insert(d, 1);
        l.strides.insert(d, stride);
        self.view_parts(l.shape, l.strides, l.offset)
    }
    #[track_caller]
    pub fn unsqueeze(&self, dim: isize) -> Tensor<T> {
        or_panic(self.try_unsqueeze(dim))
    }

    /// The same elements seen with `shape` (one `-1` is inferred); an error instead of a copy
    /// when the strides cannot express it.
    pub fn try_view(&self, shape: impl ShapeArg) -> Result<Tensor<T>> {
        let new_shape = infer_shape("view", &shape.dims()?, self.numel())?;
        match compute_stride(self.shape(), self.strides(), &new_shape) {
            Some(strides) => self.view_parts(new_shape, strides, self.offset()),
            None => Err(Error::InvalidView {
                reason: format!(
                    "view size {new_shape:?} is not compatible with input size {:?} and strides {:?} \
                     (at least one dimension spans across two contiguous subspaces); use reshape",
                    self.shape(),
                    self.strides()
                ),
            }),
        }
    }
    #[track_caller]
    pub fn view(&self, shape: impl ShapeArg) -> Tensor<T> {
        or_panic(self.try_view(shape))
    }

    /// Like [`Tensor::try_view`] but copies into a contiguous tensor when a view is impossible.
    pub fn try_reshape(&self, shape: impl ShapeArg) -> Result<Tensor<T>> {
        let new_shape = infer_shape("reshape", &shape.dims()?, self.numel())?;
        match compute_stride(self.shape(), self.strides(), &new_shape) {
            Some(strides) => self.view_parts(new_shape, strides, self.offset()),
            None => {
                let strides = crate::layout::contiguous_strides(&new_shape);
                self.copy_elements("reshape", false)?
                    .view_parts(new_shape, strides, 0)
            }
        }
    }
    #[track_caller]
    pub fn reshape(&self, shape: impl ShapeArg) -> Tensor<T> {
        or_panic(self.try_reshape(shape))
    }

    /// Merges dims `start..=end` into one (a view when possible, like `reshape`). A 0-d tensor
    /// becomes 1-d.
    pub fn try_flatten(&self, start: isize, end: isize) -> Result<Tensor<T>> {
        if self.ndim() == 0 {
            wrap_dim(start, 1)?;
            wrap_dim(end, 1)?;
            return self.try_reshape([1]);
        }
        let (s, e) = (wrap_dim(start, self.ndim())?, wrap_dim(end, self.ndim())?);
        if s > e {
            return Err(Error::InvalidArgument {
                op: "flatten",
                reason: format!("start dim ({start}) must not come after end dim ({end})"),
            });
        }
        let sh = self.shape();
        let mut shape: Vec<isize> = sh[..s].iter().map(|&n| n as isize).collect();
        // Checked: with a 0 elsewhere in the shape the merged dims alone may overflow.
        shape.push(checked_numel(&sh[s..=e], 1)? as isize);
        shape.extend(sh[e + 1..].iter().map(|&n| n as isize));
        self.try_reshape(&shape)
    }
    #[track_caller]
    pub fn flatten(&self, start: isize, end: isize) -> Tensor<T> {
        or_panic(self.try_flatten(start, end))
    }
}
