//! `SmallBuf`: a vector of `Copy` values kept inline up to `N` entries, spilling to the heap
//! beyond. Per-dimension and per-operand metadata lives here so that building an iterator over
//! small tensors does not allocate for it.

use std::ops::{Deref, DerefMut};
use std::vec::Vec;

#[derive(Clone)]
pub(crate) struct SmallBuf<T: Copy, const N: usize> {
    len: usize,
    inline: [T; N],
    /// Non-empty exactly when the contents live on the heap (then `heap.len() == len`).
    heap: Vec<T>,
}

impl<T: Copy, const N: usize> SmallBuf<T, N> {
    /// `len` copies of `v`.
    pub(crate) fn filled(len: usize, v: T) -> Self {
        let heap = if len > N { vec![v; len] } else { Vec::new() };
        SmallBuf {
            len,
            inline: [v; N],
            heap,
        }
    }

    /// An empty buffer; `fill` only initialises the unused inline slots.
    pub(crate) fn empty(fill: T) -> Self {
        Self::filled(0, fill)
    }

    pub(crate) fn from_slice(s: &[T], fill: T) -> Self {
        let mut b = Self::empty(fill);
        if s.len() > N {
            b.heap.extend_from_slice(s);
        } else {
            b.inline[..s.len()].copy_from_slice(s);
        }
        b.len = s.len();
        b
    }

    pub(crate) fn push(&mut self, v: T) {
        if self.heap.is_empty() {
            if self.len < N {
                self.inline[self.len] = v;
                self.len += 1;
                return;
            }
            self.heap.extend_from_slice(&self.inline[..self.len]);
        }
        self.heap.push(v);
        self.len += 1;
    }

    pub(crate) fn truncate(&mut self, n: usize) {
        if self.heap.is_empty() {
            self.len = self.len.min(n);
        } else {
            self.heap.truncate(n);
            self.len = self.heap.len();
        }
    }
}

impl<T: Copy, const N: usize> Deref for SmallBuf<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.heap.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<T: Copy, const N: usize> DerefMut for SmallBuf<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.heap.is_empty() {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for SmallBuf<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Per-dimension sizes or strides (inline up to 8 dims).
pub(crate) type DimVec<T> = SmallBuf<T, 8>;
