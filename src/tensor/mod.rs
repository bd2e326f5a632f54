//! `Tensor<T>`: shared storage plus a layout, typed at compile time.
//!
//! Submodules: `views` (permute, slice, expand, reshape, ...), `construct` (arange, linspace,
//! random, ...), `display` (PyTorch-style printing).

mod construct;
mod display;
pub mod random;
mod shape_arg;
mod views;

pub use shape_arg::{ShapeArg, ShapeInt};
pub use views::compute_stride;
pub(crate) use views::wrap_dim;

use crate::dyn_tensor::share_as_dyn;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;
use std::vec::Vec;

/// A strided view of shared, typed storage. Views (`t()`, `slice`, `expand`, ...) and
/// [`Tensor::share`] never copy; `clone()` copies the elements, as PyTorch's `clone` does.
pub struct Tensor<T: Element> {
    pub(crate) storage: Storage<T>,
    pub(crate) layout: Layout,
}

/// A deep copy: a new storage holding this tensor's elements in the same layout class
/// (dense layouts keep their strides, others become contiguous), as PyTorch's `clone`.
/// Panics when the copy cannot be allocated or the storage is being written by another thread;
/// see [`Tensor::try_clone`]. For a second handle to the same storage use [`Tensor::share`].
impl<T: Element> Clone for Tensor<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        self.try_clone().or_panic()
    }
}

/// Checks that `shape` holds exactly `len` elements of `size` bytes (checked arithmetic).
fn check_len(shape: &[usize], len: usize, size: usize) -> Result<()> {
    let n = checked_numel(shape, size)?;
    if n != len {
        return Err(Error::NumelMismatch {
            what: "from_vec",
            shape: shape.to_vec(),
            expected: n,
            got: len,
        });
    }
    Ok(())
}

/// Whether every byte of `v` is zero (the zero-initialised storage already holds it).
pub(crate) fn is_zero_bits<T: Element>(v: &T) -> bool {
    // SAFETY: element types are plain data without padding; reading their bytes is valid.
    let bytes = unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) };
    bytes.iter().all(|&b| b == 0)
}

impl<T: Element> Tensor<T> {
    /// A tensor over `storage` with `layout`, checked to fit.
    pub fn from_parts(storage: Storage<T>, layout: Layout) -> Result<Self> {
        layout.check_fits(storage.len(), size_of::<T>())?;
        Ok(Tensor { storage, layout })
    }

    /// A contiguous tensor over `data`'s own buffer, with `shape`: the vector is adopted, not
    /// copied (its elements stay where they are; the buffer is freed through `Vec` with the
    /// last handle).
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Self> {
        check_len(shape, data.len(), size_of::<T>())?;
        Ok(Tensor {
            storage: Storage::from_vec(data),
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous tensor copied from `data`, with `shape`.
    pub fn from_slice(data: &[T], shape: &[usize]) -> Result<Self> {
        check_len(shape, data.len(), size_of::<T>())?;
        Ok(Tensor {
            storage: Storage::try_from_slice(data)?,
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous tensor of zeros (`empty` is the same: storage is always initialised).
    #[inline]
    pub fn try_zeros(shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, size_of::<T>())?;
        // The layout before the allocation: its narrow stores drain during the call, before
        // the tensor is copied (see `Layout::set_contiguous`).
        let layout = Layout::contiguous(shape);
        Ok(Tensor {
            storage: Storage::try_zeroed(n)?,
            layout,
        })
    }

    /// A contiguous tensor of zeros. Panics when the shape's size overflows i64.
    #[track_caller]
    pub fn zeros(shape: &[usize]) -> Self {
        Self::try_zeros(shape).or_panic()
    }

    /// Uninitialised in PyTorch; zero-filled here (never undefined contents).
    pub fn empty(shape: &[usize]) -> Self {
        Self::zeros(shape)
    }

    /// A tensor with the given shape and element strides (non-negative), in a fresh zeroed
    /// storage just large enough for it. Used for outputs that follow an input's layout.
    pub fn try_empty_strided(shape: &[usize], strides: &[isize]) -> Result<Self> {
        // SAFETY: zeroed.
        unsafe { Self::try_alloc_strided(shape, strides, true) }
    }

    /// A contiguous tensor whose elements are left uninitialised ([`Storage::try_uninit`]).
    ///
    /// # Safety
    /// [`Storage::try_uninit`]'s: every element written before any is read or the tensor is
    /// shared or handed out.
    #[inline]
    pub(crate) unsafe fn try_uninit(shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, size_of::<T>())?;
        // The layout first, as in `try_zeros`.
        let layout = Layout::contiguous(shape);
        Ok(Tensor {
            // SAFETY: the caller's contract.
            storage: unsafe { Storage::try_uninit(n)? },
            layout,
        })
    }

    /// [`Tensor::try_empty_strided`], its storage zeroed or (`!zeroed`) uninitialised.
    ///
    /// # Safety
    /// When `!zeroed`, [`Tensor::try_uninit`]'s contract (a layout with gaps is zeroed anyway).
    pub(crate) unsafe fn try_alloc_strided(
        shape: &[usize],
        strides: &[isize],
        zeroed: bool,
    ) -> Result<Self> {
        if strides.iter().any(|&s| s < 0) {
            return Err(Error::InvalidView {
                reason: "empty_strided needs non-negative strides".into(),
            });
        }
        let layout = Layout::new(shape.to_vec(), strides.to_vec(), 0)?;
        checked_numel(shape, size_of::<T>())?;
        // Non-negative strides from offset 0: the storage needs one past the highest index
        // (`Layout::new` validated the extent), so the layout fits it by construction.
        let len = layout.extent().map_or(0, |(_, hi)| hi as usize + 1);
        checked_numel(&[len], size_of::<T>())?;
        // Uninitialised only when the layout covers its storage exactly (non-overlapping and
        // dense): gaps would stay unwritten, and step-2 loads read the gaps between elements
        // (`kernels::load_step2`).
        let storage = if zeroed || !crate::iter::is_non_overlapping_and_dense(&layout) {
            Storage::try_zeroed(len)?
        } else {
            // SAFETY: the caller's contract.
            unsafe { Storage::try_uninit(len)? }
        };
        Ok(Tensor { storage, layout })
    }

    #[track_caller]
    pub fn full(shape: &[usize], value: T) -> Self {
        Self::try_full(shape, value).or_panic()
    }

    /// A contiguous tensor with every element `value`.
    pub fn try_full(shape: &[usize], value: T) -> Result<Self> {
        // Bitwise, not `!= ZERO`: -0.0 equals 0.0 but must still be written. Zeros come from
        // the allocator (calloc's untouched pages when large); any other value is written once
        // into an uninitialised buffer.
        if is_zero_bits(&value) {
            return Self::try_zeros(shape);
        }
        // SAFETY: all n elements are written just below, before the tensor is returned.
        let t = unsafe { Self::try_uninit(shape)? };
        let (p, n) = (t.storage.as_mut_ptr(), t.numel());
        for i in 0..n {
            // SAFETY: fresh storage of n elements, not shared yet.
            unsafe { p.add(i).write(value) };
        }
        Ok(t)
    }

    pub fn ones(shape: &[usize]) -> Self {
        Self::full(shape, T::ONE)
    }

    /// A 0-d tensor holding one value.
    pub fn scalar(value: T) -> Self {
        Self::full(&[], value)
    }

    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    /// Strides in elements (negative for reversed views, 0 for expanded dims).
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }
    /// Offset of element 0 into the storage, in elements.
    #[inline]
    pub fn offset(&self) -> usize {
        self.layout.offset
    }
    #[inline]
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    #[inline]
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    #[inline]
    pub fn dtype(&self) -> crate::DType {
        T::DTYPE
    }
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }
    #[inline]
    pub fn storage(&self) -> &Storage<T> {
        &self.storage
    }

    /// A second handle to the same storage and layout (no copy): writes through either are
    /// seen by both, as between PyTorch's views. Sound across threads: every access borrows
    /// the storage (see ARCHITECTURE.md, "Memory model").
    #[inline]
    pub fn share(&self) -> Tensor<T> {
        Tensor {
            storage: self.storage.clone(),
            layout: self.layout.clone(),
        }
    }

    /// A deep copy (see the `Clone` impl): a dense layout (some permutation of its dims
    /// row-major, strides >= 0) keeps its strides, any other becomes contiguous.
    pub fn try_clone(&self) -> Result<Tensor<T>> {
        self.copy_elements("clone", true)
    }

    /// A fresh storage holding this tensor's elements. A dense layout is copied as one block
    /// from `offset` when `keep_dense_strides` (the copy keeps the strides) or when it is
    /// row-major already; anything else is copied into a contiguous tensor by the iterator
    /// (`copy_`: tiles for transposed views, parallel when large). One copy, no intermediate
    /// `Vec`.
    pub(crate) fn copy_elements(
        &self,
        op: &'static str,
        keep_dense_strides: bool,
    ) -> Result<Tensor<T>> {
        let n = self.numel();
        // SAFETY: both branches below write all n elements (`copy_named` into the contiguous
        // `out` of this shape, or one block copy) before the storage is returned; on an error
        // it is dropped unread (`dst`, the second handle, is internal and dropped with it).
        let storage = unsafe { Storage::try_uninit(n)? };
        let block = n > 0
            && (self.is_contiguous()
                || (keep_dense_strides && crate::iter::is_non_overlapping_and_dense(&self.layout)));
        if !block {
            let out = Tensor {
                storage,
                layout: Layout::contiguous(self.shape()),
            };
            let (Some(dst), Some(src)) = (share_as_dyn(&out), share_as_dyn(self)) else {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "internal: the element type is not in the dtype list".into(),
                });
            };
            crate::ops::special::copy_named(op, &dst, &src)?;
            return Ok(out);
        }
        let _read = self.storage.borrow(op, false)?;
        // SAFETY: a dense layout with non-negative strides covers exactly the n elements from
        // `offset` (inside the storage: checked at construction), read under a shared borrow;
        // the destination is fresh, n long, not shared yet.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.storage.as_ptr().add(self.layout.offset),
                storage.as_mut_ptr(),
                n,
            )
        };
        let mut layout = self.layout.clone();
        layout.offset = 0;
        Ok(Tensor { storage, layout })
    }

    /// Whether this handle is the only one to its storage (then ops may reuse the buffer).
    pub fn is_uniquely_owned(&mut self) -> bool {
        self.storage.is_unique()
    }

    /// What a run reads of this tensor ([`crate::dyn_tensor::ElementParts`]).
    #[inline]
    pub(crate) fn element_parts(&self) -> crate::dyn_tensor::ElementParts<'_> {
        crate::dyn_tensor::ElementParts {
            dtype: T::DTYPE,
            layout: &self.layout,
            data: self.data_ptr() as *mut u8,
            flag: self.storage.borrow_flag(),
        }
    }

    /// Pointer to element 0 (the element at coordinate (0, ..., 0)).
    #[inline]
    pub fn data_ptr(&self) -> *const T {
        self.storage.as_ptr().wrapping_add(self.layout.offset)
    }

    /// Pointer to element 0, for writing.
    pub fn data_ptr_mut(&mut self) -> *mut T {
        self.storage.as_mut_ptr().wrapping_add(self.layout.offset)
    }

    /// The element at a full coordinate.
    pub fn get(&self, index: &[usize]) -> Result<T> {
        self.check_index(index)?;
        let off = self.layout.index_of(index);
        let _read = self.storage.borrow("get", false)?;
        // SAFETY: the layout fits the storage (checked at construction) and the index is in
        // bounds; no other thread writes while the shared borrow is held.
        Ok(unsafe { *self.storage.as_ptr().offset(off) })
    }

    fn check_index(&self, index: &[usize]) -> Result<()> {
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
        for (d, (&i, &n)) in index.iter().zip(self.shape()).enumerate() {
            if i >= n {
                return Err(Error::IndexOutOfRange {
                    what: "get: index",
                    index: i as isize,
                    bound: n,
                    dim: Some(d),
                });
            }
        }
        Ok(())
    }

    /// Writes the element at a full coordinate.
    pub fn set(&mut self, index: &[usize], value: T) -> Result<()> {
        self.check_index(index)?;
        let off = self.layout.index_of(index);
        let _write = self.storage.borrow("set", true)?;
        // SAFETY: as in `get`; nobody else reads or writes while the exclusive borrow is held.
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

    /// All elements in logical (row-major) order. Panics where [`Tensor::try_to_vec`] fails.
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        self.try_to_vec().or_panic()
    }

    /// All elements in logical (row-major) order; `Err` when the vector cannot be allocated
    /// or another thread is writing the storage.
    pub fn try_to_vec(&self) -> Result<Vec<T>> {
        if !self.is_contiguous() {
            // Gathered by the iterator (tiles, threads), then one block copy.
            return self.copy_elements("to_vec", false)?.try_to_vec();
        }
        let n = self.numel();
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| Error::AllocationFailed {
                bytes: n as u128 * size_of::<T>() as u128,
            })?;
        let _read = self.storage.borrow("to_vec", false)?;
        // n > 0: an empty layout may carry any offset (it reaches no element), so `base +
        // offset` is only in bounds for a non-empty one.
        if n > 0 {
            // SAFETY: a non-empty contiguous view of n elements starting at offset, inside the
            // storage (checked at construction); no writer while the shared borrow is held.
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(self.storage.as_ptr().add(self.layout.offset), n)
            });
        }
        Ok(out)
    }

    /// A contiguous copy, or this tensor itself (shared, as PyTorch's `contiguous`) when it is
    /// already contiguous. Panics where [`Tensor::try_contiguous`] fails.
    #[track_caller]
    pub fn contiguous(&self) -> Tensor<T> {
        self.try_contiguous().or_panic()
    }

    /// [`Tensor::contiguous`], with allocation failure and borrow conflicts as `Err`.
    pub fn try_contiguous(&self) -> Result<Tensor<T>> {
        if self.is_contiguous() {
            return Ok(self.share());
        }
        self.copy_elements("contiguous", false)
    }
}

pub mod coord_index;
pub mod identity;

pub use identity::{IdentityTensor, identity_tensor};
