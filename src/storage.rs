//! Shared, 64-byte aligned, zero-initialised element buffers.
//!
//! A `Storage<T>` is shared by every view of it (`Arc`). Writes go through raw pointers, never
//! through `&mut [T]` that could alias a live `&[T]`, so in-place ops on one view are seen by
//! the others, as in PyTorch.

use crate::element::Element;
use std::alloc::{Layout as AllocLayout, alloc_zeroed, dealloc, handle_alloc_error};
use std::ptr::NonNull;

/// Alignment of every buffer: a cache line, and enough for 512-bit vector loads.
pub const STORAGE_ALIGN: usize = 64;

pub struct Storage<T: Element> {
    ptr: NonNull<T>,
    len: usize,
}

// SAFETY: a Storage owns its buffer; element types are plain data (Send + Sync). Concurrent
// access is coordinated by the callers: the iterator writes disjoint output elements from
// different threads, and the public API only writes through `&mut Tensor` (see ARCHITECTURE.md,
// "Aliasing").
unsafe impl<T: Element> Send for Storage<T> {}
unsafe impl<T: Element> Sync for Storage<T> {}

impl<T: Element> Storage<T> {
    fn alloc_layout(len: usize) -> AllocLayout {
        let bytes = len
            .checked_mul(size_of::<T>())
            .expect("storage size overflows usize");
        AllocLayout::from_size_align(bytes.max(1), STORAGE_ALIGN).expect("storage layout")
    }

    /// A zero-filled buffer of `len` elements (zero is a valid value of every element type,
    /// `false` for bool). Large zeroed allocations come straight from the OS as untouched pages.
    pub fn zeroed(len: usize) -> Self {
        let layout = Self::alloc_layout(len);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) } as *mut T;
        let ptr = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout));
        Storage { ptr, len }
    }

    pub fn from_slice(data: &[T]) -> Self {
        let s = Self::zeroed(data.len());
        // SAFETY: fresh buffer of data.len() elements, no overlap.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), s.ptr.as_ptr(), data.len()) };
        s
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Raw pointer for writing. Callers guarantee no `&[T]` to the written elements is live.
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The whole buffer as a slice.
    ///
    /// # Safety
    /// No write to this storage may happen while the slice is alive.
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: ptr is valid for len initialised elements; caller excludes writers.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Element> Drop for Storage<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with the same layout.
        unsafe { dealloc(self.ptr.as_ptr() as *mut u8, Self::alloc_layout(self.len)) }
    }
}
