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
    /// Bytes between the allocation's start and `ptr` (see [`Storage::zeroed`]).
    shift: usize,
}

/// Alignment asked of the allocator: `calloc`'s own (std's `alloc_zeroed` calls `calloc` only
/// for alignments up to this; above it, it allocates and then `memset`s every byte itself).
const CALLOC_ALIGN: usize = 16;

/// Buffers from this size up get `madvise(MADV_HUGEPAGE)`: first-touch faults then come in
/// 2 MiB pages (transparent huge pages are often `madvise`-only; NumPy does the same).
#[cfg(target_os = "linux")]
const HUGEPAGE_MIN: usize = 4 << 20;

// SAFETY: a Storage owns its buffer; element types are plain data (Send + Sync). Concurrent
// access is coordinated by the callers: the iterator writes disjoint output elements from
// different threads, and the public API only writes through `&mut Tensor` (see ARCHITECTURE.md,
// "Aliasing").
unsafe impl<T: Element> Send for Storage<T> {}
unsafe impl<T: Element> Sync for Storage<T> {}

impl<T: Element> Storage<T> {
    /// The allocator layout: the buffer plus room to align its start to [`STORAGE_ALIGN`].
    fn alloc_layout(len: usize) -> AllocLayout {
        let bytes = len
            .checked_mul(size_of::<T>())
            .and_then(|b| b.checked_add(STORAGE_ALIGN - CALLOC_ALIGN))
            .expect("storage size overflows usize");
        AllocLayout::from_size_align(bytes.max(STORAGE_ALIGN), CALLOC_ALIGN)
            .expect("storage layout")
    }

    /// A zero-filled buffer of `len` elements (zero is a valid value of every element type,
    /// `false` for bool).
    ///
    /// Allocated through `calloc` (16-byte alignment, a few bytes more) and aligned up to 64
    /// by hand: a large `calloc` maps fresh zero pages from the OS and touches none of them, so
    /// the page faults happen later, on the threads that write the elements first. (Asking
    /// `alloc_zeroed` for 64-byte alignment directly makes std `memset` the whole buffer on
    /// the calling thread: one extra full pass over memory.) Every byte is initialised (zero),
    /// so any element read before it is written is a valid `0`/`false`.
    pub fn zeroed(len: usize) -> Self {
        let layout = Self::alloc_layout(len);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        if raw.is_null() {
            handle_alloc_error(layout);
        }
        let shift = raw.align_offset(STORAGE_ALIGN);
        debug_assert!(shift <= STORAGE_ALIGN - CALLOC_ALIGN);
        // SAFETY: raw is at least CALLOC_ALIGN-aligned, so shift <= STORAGE_ALIGN - CALLOC_ALIGN,
        // the slack included in the layout: raw + shift + len * size_of::<T>() is in bounds.
        let ptr = unsafe { raw.add(shift) } as *mut T;
        #[cfg(target_os = "linux")]
        if layout.size() >= HUGEPAGE_MIN {
            advise_hugepages(raw, layout.size());
        }
        Storage {
            ptr: NonNull::new(ptr).expect("non-null"),
            len,
            shift,
        }
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
        // SAFETY: allocated in `zeroed` with the same layout, at `ptr - shift`.
        unsafe {
            let raw = (self.ptr.as_ptr() as *mut u8).sub(self.shift);
            dealloc(raw, Self::alloc_layout(self.len))
        }
    }
}

/// `madvise(MADV_HUGEPAGE)` on the whole pages inside `[raw, raw + size)`; a hint, failures are
/// ignored.
#[cfg(target_os = "linux")]
fn advise_hugepages(raw: *mut u8, size: usize) {
    const PAGE: usize = 4096;
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    let start = raw.align_offset(PAGE);
    let len = (size.saturating_sub(start)) & !(PAGE - 1);
    if len > 0 {
        // SAFETY: [raw + start, raw + start + len) lies inside our own live allocation and is
        // page-aligned; MADV_HUGEPAGE changes no contents, only how future faults are served.
        unsafe {
            madvise(raw.add(start) as *mut core::ffi::c_void, len, MADV_HUGEPAGE);
        }
    }
}
