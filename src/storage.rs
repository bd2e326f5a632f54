//! Shared, 64-byte aligned element buffers with a run-time borrow state: zero-initialised, or
//! (an op's fresh output, [`Storage::try_uninit`]) written in full before anyone can read them.
//!
//! A `Storage<T>` is shared by every view of it (a reference-counted handle, one allocation with its header). Writes go through raw pointers, never
//! through `&mut [T]` that could alias a live `&[T]`, so in-place ops on one view are seen by
//! the others, as in PyTorch.
//!
//! The memory model (ARCHITECTURE.md, "Memory model"): every access to the elements holds a
//! borrow of the storage for its whole duration, a thread-safe `RefCell`: any number of shared
//! borrows (reads) or one exclusive borrow (a write, which may also read). A conflicting borrow
//! is refused at once with [`Error::BorrowConflict`] (never waited for: no deadlock is possible)
//! so two threads can never race on one buffer, whatever handles and views they hold.

use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use std::alloc::{Layout as AllocLayout, alloc, alloc_zeroed, dealloc};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A storage's borrow state: the number of shared borrows in the low bits, plus the
/// [`BorrowFlag::EXCLUSIVE`] bit while a writer holds it. A reader that finds the bit set has
/// already counted itself and takes its increment back; the writer releases by clearing only
/// its bit, so such in-flight increments never corrupt the count.
#[derive(Debug, Default)]
pub(crate) struct BorrowFlag(AtomicUsize);

impl BorrowFlag {
    const EXCLUSIVE: usize = 1 << (usize::BITS - 1);

    /// Takes a shared borrow; false when the storage is borrowed exclusively.
    #[inline]
    pub(crate) fn try_shared(&self) -> bool {
        // One read-modify-write in the common case. Acquire: see everything the last exclusive
        // borrower wrote before releasing.
        // (Counts never reach the EXCLUSIVE bit: each needs a live guard.)
        let prev = self.0.fetch_add(1, Ordering::Acquire);
        if prev & Self::EXCLUSIVE != 0 {
            self.0.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Takes the exclusive borrow; false when any borrow is held.
    #[inline]
    pub(crate) fn try_exclusive(&self) -> bool {
        self.0
            .compare_exchange(0, Self::EXCLUSIVE, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    #[inline]
    pub(crate) fn release(&self, exclusive: bool) {
        if exclusive {
            // Release: publish this borrower's writes to the next one. Only the bit is
            // cleared: readers refused meanwhile take their own increments back.
            let prev = self.0.fetch_sub(Self::EXCLUSIVE, Ordering::Release);
            debug_assert!(prev & Self::EXCLUSIVE != 0);
        } else {
            let prev = self.0.fetch_sub(1, Ordering::Release);
            debug_assert!(prev & !Self::EXCLUSIVE > 0);
        }
    }

    /// Takes a borrow of the given kind or returns the conflict error for `op`.
    #[inline]
    pub(crate) fn acquire(&self, op: &'static str, exclusive: bool) -> Result<()> {
        let ok = if exclusive {
            self.try_exclusive()
        } else {
            self.try_shared()
        };
        if ok {
            Ok(())
        } else {
            Err(Error::BorrowConflict {
                op,
                write: exclusive,
            })
        }
    }
}

/// A borrow of one storage held for a scope (element accessors, printing, copies).
pub(crate) struct BorrowGuard<'a> {
    flag: &'a BorrowFlag,
    exclusive: bool,
}

impl<'a> BorrowGuard<'a> {
    pub(crate) fn new(flag: &'a BorrowFlag, op: &'static str, exclusive: bool) -> Result<Self> {
        flag.acquire(op, exclusive)?;
        Ok(BorrowGuard { flag, exclusive })
    }
}

impl Drop for BorrowGuard<'_> {
    fn drop(&mut self) {
        self.flag.release(self.exclusive);
    }
}

/// Alignment of every buffer: a cache line, and enough for 512-bit vector loads.
pub const STORAGE_ALIGN: usize = 64;

/// The shared state of a storage: the handle count, the borrow state, the element count and
/// where the allocation starts. A storage weft allocates keeps it in the same allocation just
/// before the elements; an adopted buffer (a `Vec`, a file mapping) keeps it in a small
/// [`ForeignBlock`] beside its owner.
#[repr(C)]
struct Header {
    /// Number of live [`Storage`] handles.
    refs: AtomicUsize,
    borrow: BorrowFlag,
    len: usize,
    /// Bytes from the allocation's start to the elements, or [`FOREIGN`].
    shift: usize,
}

const HEADER: usize = size_of::<Header>();
// The elements start 64-aligned, so the header before them is aligned for itself and the
// calloc alignment (16) keeps the slack computation in `try_zeroed` exact.
const _: () =
    assert!(HEADER.is_multiple_of(align_of::<Header>()) && HEADER.is_multiple_of(CALLOC_ALIGN));

/// A handle to a shared, zero-initialised buffer of `len` elements, with its run-time borrow
/// state. Cloning a handle shares the buffer (a reference count, as `Arc`); the buffer is freed
/// when the last handle is dropped. A buffer weft allocates is 64-byte aligned, in one
/// allocation with its header (count, borrow flag, length): a new tensor costs one allocation.
/// An adopted buffer (a `Vec`, a mapped file) is aligned for `T` and has its header beside it.
pub struct Storage<T: Element> {
    /// The first element. For a buffer weft allocated, derived from the allocation's own
    /// pointer (so it may reach the header `HEADER` bytes before it and the elements).
    ptr: NonNull<T>,
    /// The header: `ptr - HEADER` for weft's own buffers, a [`ForeignBlock`] for adopted ones.
    header: NonNull<Header>,
    _owns: PhantomData<T>,
}

/// `Header::shift` of an adopted buffer: its header lives in a [`ForeignBlock`].
const FOREIGN: usize = usize::MAX;

/// The header of an adopted buffer and what keeps the buffer alive (dropped with the last
/// handle). `repr(C)` with the header first, so a pointer to the block is one to its header.
#[repr(C)]
struct ForeignBlock {
    header: Header,
    _owner: Box<dyn Send + Sync>,
}

/// A `Vec`'s buffer, given back to `Vec` (and so to its allocator, with its own layout) when
/// dropped. Held as raw parts, so that no `Vec` exists (and could be moved or retagged) while
/// storages point into the buffer.
struct AdoptedVec<U> {
    ptr: NonNull<U>,
    len: usize,
    cap: usize,
}

// SAFETY: the buffer belongs to this value alone (it came from an owned Vec<U>); U is an
// element type (plain data, Send + Sync).
unsafe impl<U: Send> Send for AdoptedVec<U> {}
// SAFETY: as for Send; the value itself is never read through `&`.
unsafe impl<U: Sync> Sync for AdoptedVec<U> {}

impl<U> Drop for AdoptedVec<U> {
    fn drop(&mut self) {
        // SAFETY: ptr/len/cap are the raw parts of a Vec<U> taken apart in `from_vec_parts`,
        // given back once.
        drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, self.cap) });
    }
}

/// Alignment asked of the allocator: `calloc`'s own (std's `alloc_zeroed` calls `calloc` only
/// for alignments up to this; above it, it allocates and then `memset`s every byte itself).
const CALLOC_ALIGN: usize = 16;

/// Allocations up to this size come from `malloc` and are zeroed by hand ([`Storage::try_zeroed`]);
/// larger ones from `calloc`, whose fresh pages are zero without being touched.
const SMALL_ALLOC: usize = 64 << 10;

/// Buffers from this size up get `madvise(MADV_HUGEPAGE)`: first-touch faults then come in
/// 2 MiB pages (transparent huge pages are often `madvise`-only; NumPy does the same).
#[cfg(target_os = "linux")]
const HUGEPAGE_MIN: usize = 4 << 20;

// SAFETY: a Storage shares its buffer like an `Arc` (the count is atomic); element types are
// plain data (Send + Sync). Every access to the elements holds a borrow of the header's
// `borrow` (shared for reads, exclusive for writes), so two threads never access the buffer in
// conflicting ways; inside one exclusive borrow the iterator hands disjoint output elements to
// its worker threads (ARCHITECTURE.md, "Memory model").
unsafe impl<T: Element> Send for Storage<T> {}
// SAFETY: as for Send; `&Storage` only reads the header's immutable fields and its atomics.
unsafe impl<T: Element> Sync for Storage<T> {}

impl<T: Element> Storage<T> {
    /// The allocator layout: header, buffer, and room to align the buffer's start to
    /// [`STORAGE_ALIGN`]. `None` when it would exceed `isize::MAX` bytes.
    fn alloc_layout(len: usize) -> Option<AllocLayout> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .and_then(|b| b.checked_add(HEADER + STORAGE_ALIGN - CALLOC_ALIGN))?;
        AllocLayout::from_size_align(bytes, CALLOC_ALIGN).ok()
    }

    #[inline]
    fn header(&self) -> &Header {
        // SAFETY: `header` points to an initialised, aligned `Header` that lives as long as any
        // handle (inside weft's allocation, see `try_zeroed`, or in a ForeignBlock, see
        // `from_foreign`); its fields are atomics or never written after creation, so a shared
        // reference is fine.
        unsafe { self.header.as_ref() }
    }

    /// A zero-filled buffer of `len` elements (zero is a valid value of every element type,
    /// `false` for bool).
    ///
    /// Allocated with 16-byte alignment (a few bytes more) and aligned up to 64 by hand. A
    /// large buffer comes from `calloc`, which maps fresh zero pages from the OS and touches
    /// none of them, so the page faults happen later, on the threads that write the elements
    /// first. (Asking `alloc_zeroed` for 64-byte alignment directly makes std `memset` the
    /// whole buffer on the calling thread: one extra full pass over memory.) A small one
    /// (up to [`SMALL_ALLOC`]) comes from `malloc` and is zeroed here. Every element byte is
    /// initialised (zero), so any element read before it is written is a valid `0`/`false`.
    ///
    /// Allocation failure (or a size over `isize::MAX` bytes) is an `Err`, never an abort.
    pub fn try_zeroed(len: usize) -> Result<Self> {
        // SAFETY: zeroed: every element byte is initialised.
        unsafe { Self::try_alloc(len, true) }
    }

    /// A buffer of `len` elements left uninitialised: no zeroing pass, so an op's fresh output
    /// is written once, by the threads that compute it (at 64K elements the zeroing alone
    /// cost as much as half the op; PyTorch's `empty` does not zero either).
    ///
    /// # Safety
    /// Every element must be written before any is read, and before the storage (or a tensor
    /// over it) is shared or handed out; dropping it unread is fine (elements have no drop).
    pub(crate) unsafe fn try_uninit(len: usize) -> Result<Self> {
        // SAFETY: the caller's contract.
        unsafe { Self::try_alloc(len, false) }
    }

    /// [`Storage::try_zeroed`] or, when `!zeroed`, [`Storage::try_uninit`].
    ///
    /// # Safety
    /// When `!zeroed`, [`Storage::try_uninit`]'s contract.
    unsafe fn try_alloc(len: usize, zeroed: bool) -> Result<Self> {
        let failed = || Error::AllocationFailed {
            bytes: len as u128 * size_of::<T>() as u128,
        };
        let layout = Self::alloc_layout(len).ok_or_else(failed)?;
        // Small buffers: `malloc` and zero by hand. glibc's `calloc` bypasses its per-thread
        // cache (a tiny op's output then cost ~150 more instructions to allocate and free), and
        // below the mmap threshold it `memset`s the chunk anyway.
        let small = layout.size() <= SMALL_ALLOC;
        // SAFETY: layout has non-zero size (at least the header).
        let raw = unsafe {
            if small || !zeroed {
                alloc(layout)
            } else {
                alloc_zeroed(layout)
            }
        };
        if raw.is_null() {
            return Err(failed());
        }
        // The elements start at the first 64-byte boundary that leaves room for the header.
        // raw is 16-aligned, so that boundary is at most STORAGE_ALIGN - CALLOC_ALIGN bytes past
        // raw + HEADER: inside the slack the layout includes. Checked, not assumed.
        let shift = HEADER + (raw.addr() + HEADER).wrapping_neg() % STORAGE_ALIGN;
        if shift > HEADER + STORAGE_ALIGN - CALLOC_ALIGN {
            // SAFETY: allocated just above with this layout, never handed out.
            unsafe { dealloc(raw, layout) };
            return Err(failed());
        }
        // SAFETY: shift + len * size_of::<T>() <= layout.size() (checked above), so the
        // element pointer and the header before it lie inside the allocation.
        let data = unsafe { raw.add(shift) };
        if small && zeroed {
            // SAFETY: the `len` elements from `data` lie inside the fresh allocation (above);
            // zero is a valid value of every element type.
            unsafe { data.write_bytes(0, len * size_of::<T>()) };
        }
        // SAFETY: data - HEADER >= raw (shift >= HEADER) is in bounds, aligned to 16 (data is
        // 64-aligned, HEADER a multiple of 16), and nothing else references the fresh block.
        unsafe {
            data.sub(HEADER).cast::<Header>().write(Header {
                refs: AtomicUsize::new(1),
                borrow: BorrowFlag::default(),
                len,
                shift,
            })
        };
        #[cfg(target_os = "linux")]
        if layout.size() >= HUGEPAGE_MIN {
            advise_hugepages(raw, layout.size());
        }
        // SAFETY: raw is non-null, so raw + shift (inside the allocation) is too, and so is
        // data - HEADER >= raw.
        let (ptr, header) = unsafe {
            (
                NonNull::new_unchecked(data.cast::<T>()),
                NonNull::new_unchecked(data.sub(HEADER).cast::<Header>()),
            )
        };
        Ok(Storage {
            ptr,
            header,
            _owns: PhantomData,
        })
    }

    /// [`Storage::try_zeroed`], panicking on allocation failure.
    #[track_caller]
    pub fn zeroed(len: usize) -> Self {
        Self::try_zeroed(len).or_panic()
    }

    /// A fresh buffer holding a copy of `data`.
    pub fn try_from_slice(data: &[T]) -> Result<Self> {
        // SAFETY: every element is written just below, before the storage is handed out.
        let s = unsafe { Self::try_uninit(data.len())? };
        // SAFETY: fresh buffer of data.len() elements, no overlap, not shared yet.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), s.ptr.as_ptr(), data.len()) };
        Ok(s)
    }

    /// A storage over a `Vec`'s own buffer: no copy, the elements stay where they are (the
    /// buffer is freed through `Vec` with the last handle). Its alignment is `T`'s, not
    /// [`STORAGE_ALIGN`]: nothing in weft relies on more (views with offsets never had it).
    pub fn from_vec(data: Vec<T>) -> Self {
        let mut data = std::mem::ManuallyDrop::new(data);
        let (ptr, len, cap) = (data.as_mut_ptr(), data.len(), data.capacity());
        // SAFETY: Vec's pointer is never null (dangling but aligned when empty).
        let ptr = unsafe { NonNull::new_unchecked(ptr) };
        let owner = AdoptedVec { ptr, len, cap };
        // SAFETY: a Vec<T>'s buffer: aligned, `len` initialised elements (at most isize::MAX
        // bytes, as every Vec), referenced by nothing else once the Vec is taken apart; the
        // owner frees it after the last handle.
        unsafe { Self::from_foreign(ptr, len, Box::new(owner)) }
    }

    /// A storage of `T` over a `Vec<u8>`'s buffer without copying when the buffer is aligned
    /// for `T` and its length a multiple of `size_of::<T>()`; `Err` giving the vector back
    /// otherwise. bool buffers must hold only 0 and 1 (`Err` otherwise): every byte becomes
    /// an element, so it must be a valid value of `T`.
    pub(crate) fn from_byte_vec(data: Vec<u8>) -> std::result::Result<Self, Vec<u8>> {
        let size = size_of::<T>();
        if !data.len().is_multiple_of(size)
            || !data.as_ptr().cast::<T>().is_aligned()
            || (T::DTYPE == crate::dtype::DType::Bool && data.iter().any(|&b| b > 1))
        {
            return Err(data);
        }
        let len = data.len() / size;
        let mut data = std::mem::ManuallyDrop::new(data);
        let (ptr, bytes, cap) = (data.as_mut_ptr(), data.len(), data.capacity());
        // SAFETY: Vec's pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(ptr) };
        // The parts of the Vec<u8> given up above (ManuallyDrop), given back to Vec<u8> by the
        // owner (so the allocator sees its own layout).
        let owner = AdoptedVec {
            ptr,
            len: bytes,
            cap,
        };
        // SAFETY: ptr is aligned for T (checked), holds len * size initialised bytes, each group
        // a valid T (every bit pattern of the numeric types; 0/1 for bool, checked), and
        // nothing else refers to the buffer: the Vec was taken apart.
        Ok(unsafe { Self::from_foreign(ptr.cast::<T>(), len, Box::new(owner)) })
    }

    /// A storage over memory that `owner` keeps alive.
    ///
    /// # Safety
    /// `ptr` is aligned for `T` and valid for reads and writes of `len` initialised, valid `T`
    /// values for as long as `owner` lives, and nothing but this storage (and its clones)
    /// accesses that memory meanwhile (so the borrow flag guards every access). `len *
    /// size_of::<T>()` does not exceed `isize::MAX`.
    pub(crate) unsafe fn from_foreign(
        ptr: NonNull<T>,
        len: usize,
        owner: Box<dyn Send + Sync>,
    ) -> Self {
        let block = Box::new(ForeignBlock {
            header: Header {
                refs: AtomicUsize::new(1),
                borrow: BorrowFlag::default(),
                len,
                shift: FOREIGN,
            },
            _owner: owner,
        });
        // The block is given back to Box in `drop` (shift == FOREIGN); repr(C) with the header
        // first, so the block's pointer is its header's.
        let header = NonNull::from(Box::leak(block)).cast::<Header>();
        Storage {
            ptr,
            header,
            _owns: PhantomData,
        }
    }

    /// [`Storage::try_from_slice`], panicking on allocation failure.
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Self {
        Self::try_from_slice(data).or_panic()
    }

    #[inline]
    pub(crate) fn borrow_flag(&self) -> &BorrowFlag {
        &self.header().borrow
    }

    /// Holds a borrow (shared, or exclusive for writes) for the guard's lifetime.
    pub(crate) fn borrow(&self, op: &'static str, exclusive: bool) -> Result<BorrowGuard<'_>> {
        BorrowGuard::new(self.borrow_flag(), op, exclusive)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.header().len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Raw pointer for writing. Callers hold the exclusive borrow (or own the storage alone).
    #[inline]
    pub(crate) fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Whether two handles share one buffer (`Arc::ptr_eq`).
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        // The headers, not the element pointers: two empty adopted buffers may share a
        // dangling element pointer.
        a.header == b.header
    }

    /// Whether this is the only handle to the buffer.
    pub fn is_unique(&self) -> bool {
        // Acquire: pairs with the Release decrement of handles dropped on other threads.
        self.header().refs.load(Ordering::Acquire) == 1
    }
}

impl<T: Element> Clone for Storage<T> {
    /// A second handle to the same buffer (no copy).
    #[inline]
    fn clone(&self) -> Self {
        // Relaxed, as `Arc::clone`: a new handle is made from an existing one, which keeps the
        // buffer alive meanwhile.
        let old = self.header().refs.fetch_add(1, Ordering::Relaxed);
        if old > isize::MAX as usize {
            // As `Arc`: billions of leaked handles; the count must never wrap.
            std::process::abort();
        }
        Storage {
            ptr: self.ptr,
            header: self.header,
            _owns: PhantomData,
        }
    }
}

impl<T: Element> Drop for Storage<T> {
    #[inline]
    fn drop(&mut self) {
        let h = self.header();
        // The last handle needs no read-modify-write: with a count of 1 no other handle exists
        // and none can be made (that needs a handle), so the load (Acquire: after every other
        // handle's Release decrement) decides. Otherwise decrement as `Arc` does.
        if h.refs.load(Ordering::Acquire) != 1 {
            if h.refs.fetch_sub(1, Ordering::Release) != 1 {
                return;
            }
            std::sync::atomic::fence(Ordering::Acquire);
        }
        let (len, shift) = (h.len, h.shift);
        if shift == FOREIGN {
            // SAFETY: the last handle of an adopted buffer: its header is the first field of a
            // ForeignBlock leaked from a Box in `from_foreign`, given back once; dropping it
            // drops the owner, which frees the buffer.
            drop(unsafe { Box::from_raw(self.header.as_ptr().cast::<ForeignBlock>()) });
            return;
        }
        let layout = Self::alloc_layout(len).expect("the layout it was allocated with");
        // SAFETY: the last handle: allocated in `try_zeroed` with this layout, at `ptr - shift`
        // (a pointer derived from the allocation's own); nothing references it any more.
        unsafe {
            let raw = self.ptr.as_ptr().cast::<u8>().sub(shift);
            dealloc(raw, layout)
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
