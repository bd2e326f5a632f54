//! `Tensor<T>`: shared storage plus a layout, typed at compile time.
//!
//! Submodules: `views` (permute, slice, expand, reshape, ...), `construct` (arange, linspace,
//! random, ...), `display` (PyTorch-style printing).

mod construct;
mod display;
pub mod random;
mod views;

pub use views::compute_stride;

use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;
use std::sync::Arc;
use std::vec::Vec;

/// A strided view of shared, typed storage. Cloning is cheap (the storage is shared), and views
/// (`t()`, `slice`, `expand`, ...) never copy.
pub struct Tensor<T: Element> {
    pub(crate) storage: Arc<Storage<T>>,
    pub(crate) layout: Layout,
}

impl<T: Element> Clone for Tensor<T> {
    fn clone(&self) -> Self {
        Tensor {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
        }
    }
}

/// Whether every byte of `v` is zero (the zero-initialised storage already holds it).
pub(crate) fn is_zero_bits<T: Element>(v: &T) -> bool {
    // SAFETY: element types are plain data without padding; reading their bytes is valid.
    let bytes = unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
    bytes.iter().all(|&b| b == 0)
}

impl<T: Element> Tensor<T> {
    /// A tensor over `storage` with `layout`, checked to fit.
    pub fn from_parts(storage: Arc<Storage<T>>, layout: Layout) -> Result<Self> {
        layout.check_fits(storage.len(), size_of::<T>())?;
        Ok(Tensor { storage, layout })
    }

    /// A contiguous tensor owning `data`, with `shape`.
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Self> {
        Self::from_slice(&data, shape)
    }

    /// A contiguous tensor copied from `data`, with `shape`.
    pub fn from_slice(data: &[T], shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, size_of::<T>())?;
        if n != data.len() {
            return Err(Error::NumelMismatch {
                what: "from_vec",
                shape: shape.to_vec(),
                expected: n,
                got: data.len(),
            });
        }
        Ok(Tensor {
            storage: Arc::new(Storage::from_slice(data)),
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous tensor of zeros (`empty` is the same: storage is always initialised).
    pub fn try_zeros(shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, size_of::<T>())?;
        Ok(Tensor {
            storage: Arc::new(Storage::zeroed(n)),
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous tensor of zeros. Panics when the shape's size overflows i64.
    pub fn zeros(shape: &[usize]) -> Self {
        Self::try_zeros(shape).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Uninitialised in PyTorch; zero-filled here (never undefined contents).
    pub fn empty(shape: &[usize]) -> Self {
        Self::zeros(shape)
    }

    /// A tensor with the given shape and element strides (non-negative), in a fresh zeroed
    /// storage just large enough for it. Used for outputs that follow an input's layout.
    pub fn try_empty_strided(shape: &[usize], strides: &[isize]) -> Result<Self> {
        if strides.iter().any(|&s| s < 0) {
            return Err(Error::InvalidView {
                reason: "empty_strided needs non-negative strides".into(),
            });
        }
        let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0)?;
        // Non-negative strides from offset 0: the storage needs one past the highest index.
        let len = layout
            .checked_extent()?
            .map_or(0, |(_, hi)| hi as usize + 1);
        checked_numel(&[len], size_of::<T>())?;
        Tensor::from_parts(Arc::new(Storage::zeroed(len)), layout)
    }

    pub fn full(shape: &[usize], value: T) -> Self {
        let n = checked_numel(shape, size_of::<T>()).unwrap_or_else(|e| panic!("{e}"));
        let t = Self::zeros(shape);
        // Bitwise, not `!= ZERO`: -0.0 equals 0.0 but must still be written.
        if !is_zero_bits(&value) {
            // SAFETY: fresh storage of n elements, not shared yet.
            let p = t.storage.as_mut_ptr();
            for i in 0..n {
                unsafe { p.add(i).write(value) };
            }
        }
        t
    }

    pub fn ones(shape: &[usize]) -> Self {
        Self::full(shape, T::ONE)
    }

    /// A 0-d tensor holding one value.
    pub fn scalar(value: T) -> Self {
        Self::full(&[], value)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    /// Strides in elements (negative for reversed views, 0 for expanded dims).
    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }
    /// Offset of element 0 into the storage, in elements.
    pub fn offset(&self) -> usize {
        self.layout.offset
    }
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    pub fn dtype(&self) -> crate::DType {
        T::DTYPE
    }
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }
    pub fn storage(&self) -> &Arc<Storage<T>> {
        &self.storage
    }

    /// Whether this handle is the only one to its storage (then ops may reuse the buffer).
    pub fn is_uniquely_owned(&mut self) -> bool {
        Arc::get_mut(&mut self.storage).is_some()
    }

    /// Pointer to element 0 (the element at coordinate (0, ..., 0)).
    pub fn data_ptr(&self) -> *const T {
        self.storage.as_ptr().wrapping_add(self.layout.offset)
    }

    /// Pointer to element 0, for writing.
    pub fn data_ptr_mut(&mut self) -> *mut T {
        self.storage.as_mut_ptr().wrapping_add(self.layout.offset)
    }

    /// The element at a full coordinate.
    pub fn get(&self, index: &[usize]) -> Result<T> {
        if index.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "get",
                reason: format!(
                    "index has {} coordinates, tensor has {} dims",
                    index.len(),
                    self.ndim()
                ),
            });
        }
        for (&i, &n) in index.iter().zip(self.shape()) {
            if i >= n {
                return Err(Error::IndexOutOfRange {
                    what: "index",
                    index: i as isize,
                    bound: n,
                });
            }
        }
        let off = self.layout.index_of(index);
        // SAFETY: the layout fits the storage (checked at construction) and the index is in bounds.
        Ok(unsafe { *self.storage.as_ptr().offset(off) })
    }

    /// Writes the element at a full coordinate.
    pub fn set(&mut self, index: &[usize], value: T) -> Result<()> {
        self.get(index)?;
        let off = self.layout.index_of(index);
        // SAFETY: as in `get`; writes go through the raw pointer.
        unsafe { *self.storage.as_mut_ptr().offset(off) = value };
        Ok(())
    }

    /// The only element of a one-element tensor.
    pub fn item(&self) -> Result<T> {
        if self.numel() != 1 {
            return Err(Error::InvalidArgument {
                op: "item",
                reason: format!(
                    "a tensor with {} elements cannot be converted to a scalar",
                    self.numel()
                ),
            });
        }
        let idx = vec![0; self.ndim()];
        self.get(&idx)
    }

    /// All elements in logical (row-major) order.
    pub fn to_vec(&self) -> Vec<T> {
        let n = self.numel();
        let base = self.storage.as_ptr();
        if self.is_contiguous() {
            // SAFETY: contiguous view of n elements starting at offset, inside the storage.
            return unsafe { std::slice::from_raw_parts(base.add(self.layout.offset), n) }.to_vec();
        }
        let mut out = Vec::with_capacity(n);
        let mut coord = vec![0usize; self.ndim()];
        for _ in 0..n {
            // SAFETY: coord is in bounds, layout fits the storage.
            out.push(unsafe { *base.offset(self.layout.index_of(&coord)) });
            for d in (0..coord.len()).rev() {
                coord[d] += 1;
                if coord[d] < self.layout.shape[d] {
                    break;
                }
                coord[d] = 0;
            }
        }
        out
    }

    /// A contiguous copy (or this tensor itself, shared, when it is already contiguous).
    pub fn contiguous(&self) -> Tensor<T> {
        if self.is_contiguous() {
            return self.clone();
        }
        Tensor::from_vec(self.to_vec(), self.shape()).expect("same numel")
    }
}

pub mod coord_index;
pub mod identity;

pub use identity::{IdentityTensor, identity_tensor};
