//! `SmallBuf`: a vector of `Copy` values kept inline up to `N` entries, spilling to the heap
//! beyond. A `Layout`'s shape and strides and the iterator's per-dimension and per-operand
//! metadata live here, so that tensors and iterators over small shapes allocate nothing for
//! them. Safe code only: the inline slots beyond `len` hold a fill value.

use core::hash::{Hash, Hasher};
use core::ops::{Deref, DerefMut};
use std::vec::Vec;

#[derive(Clone)]
pub(crate) enum SmallBuf<T: Copy, const N: usize> {
    /// `len <= N` values in `data[..len]`; the rest are fill values, never read.
    Inline { len: u32, data: [T; N] },
    /// More than `N` values (or a buffer that once held more).
    Heap(Vec<T>),
}

impl<T: Copy, const N: usize> SmallBuf<T, N> {
    /// `len` copies of `v`.
    #[inline]
    pub(crate) fn filled(len: usize, v: T) -> Self {
        if len <= N {
            SmallBuf::Inline {
                len: len as u32,
                data: [v; N],
            }
        } else {
            SmallBuf::Heap(vec![v; len])
        }
    }

    /// Makes this buffer `len` copies of `v`, in place: assigning a new buffer instead moves
    /// the whole inline array (a `memcpy` call per assignment on a tiny op's path).
    #[inline]
    pub(crate) fn set_filled(&mut self, len: usize, v: T) {
        match self {
            SmallBuf::Inline { len: l, data } if len <= N => {
                data[..len].fill(v);
                *l = len as u32;
            }
            _ => *self = Self::filled(len, v),
        }
    }

    /// Makes this buffer a copy of `s`, in place (see [`SmallBuf::set_filled`]).
    #[inline]
    pub(crate) fn set_slice(&mut self, s: &[T]) {
        match self {
            SmallBuf::Inline { len, data } if s.len() <= N => {
                data[..s.len()].copy_from_slice(s);
                *len = s.len() as u32;
            }
            _ => *self = Self::from_slice(s, s[0]),
        }
    }

    /// An empty buffer; `fill` only initialises the unused inline slots.
    #[inline]
    pub(crate) fn empty(fill: T) -> Self {
        Self::filled(0, fill)
    }

    #[inline]
    pub(crate) fn from_slice(s: &[T], fill: T) -> Self {
        if s.len() <= N {
            let mut data = [fill; N];
            data[..s.len()].copy_from_slice(s);
            SmallBuf::Inline {
                len: s.len() as u32,
                data,
            }
        } else {
            SmallBuf::Heap(s.to_vec())
        }
    }

    /// Takes over a `Vec` (inline when it is short enough).
    pub(crate) fn from_vec(v: Vec<T>, fill: T) -> Self {
        if v.len() <= N {
            Self::from_slice(&v, fill)
        } else {
            SmallBuf::Heap(v)
        }
    }

    /// Moves inline contents to the heap, with room for `extra` more.
    fn spill(&mut self, extra: usize) -> &mut Vec<T> {
        if let SmallBuf::Inline { len, data } = self {
            let mut v = Vec::with_capacity(*len as usize + extra);
            v.extend_from_slice(&data[..*len as usize]);
            *self = SmallBuf::Heap(v);
        }
        match self {
            SmallBuf::Heap(v) => v,
            SmallBuf::Inline { .. } => unreachable!("spilled above"),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        if let SmallBuf::Inline { len, data } = self
            && (*len as usize) < N
        {
            data[*len as usize] = v;
            *len += 1;
            return;
        }
        self.spill(1).push(v);
    }

    /// Inserts `v` at `i` (`i <= len`), shifting the rest up.
    pub(crate) fn insert(&mut self, i: usize, v: T) {
        let n = self.len();
        assert!(i <= n, "insert index {i} out of range for length {n}");
        if let SmallBuf::Inline { len, data } = self
            && n < N
        {
            data.copy_within(i..n, i + 1);
            data[i] = v;
            *len += 1;
            return;
        }
        self.spill(1).insert(i, v);
    }

    /// Removes and returns the value at `i`, shifting the rest down.
    pub(crate) fn remove(&mut self, i: usize) -> T {
        let n = self.len();
        assert!(i < n, "remove index {i} out of range for length {n}");
        match self {
            SmallBuf::Inline { len, data } => {
                let v = data[i];
                data.copy_within(i + 1..n, i);
                *len -= 1;
                v
            }
            SmallBuf::Heap(h) => h.remove(i),
        }
    }

    pub(crate) fn truncate(&mut self, n: usize) {
        match self {
            SmallBuf::Inline { len, .. } => *len = (*len).min(n as u32),
            SmallBuf::Heap(h) => h.truncate(n),
        }
    }

    /// The contents as a `Vec`.
    pub(crate) fn into_vec(self) -> Vec<T> {
        match self {
            SmallBuf::Inline { len, data } => data[..len as usize].to_vec(),
            SmallBuf::Heap(h) => h,
        }
    }

    /// A buffer of the values `it` yields.
    pub(crate) fn from_iter_fill(it: impl IntoIterator<Item = T>, fill: T) -> Self {
        let mut b = Self::empty(fill);
        for v in it {
            b.push(v);
        }
        b
    }
}

impl<T: Copy, const N: usize> Deref for SmallBuf<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            SmallBuf::Inline { len, data } => &data[..*len as usize],
            SmallBuf::Heap(h) => h,
        }
    }
}

impl<T: Copy, const N: usize> DerefMut for SmallBuf<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            SmallBuf::Inline { len, data } => &mut data[..*len as usize],
            SmallBuf::Heap(h) => h,
        }
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for SmallBuf<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq, const N: usize> Eq for SmallBuf<T, N> {}

impl<T: Copy + Hash, const N: usize> Hash for SmallBuf<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: Copy + core::fmt::Debug, const N: usize> core::fmt::Debug for SmallBuf<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for SmallBuf<T, N> {
    fn from(s: &[T]) -> Self {
        Self::from_slice(s, T::default())
    }
}

impl<T: Copy + Default, const N: usize> From<Vec<T>> for SmallBuf<T, N> {
    fn from(v: Vec<T>) -> Self {
        Self::from_vec(v, T::default())
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for SmallBuf<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        Self::from_iter_fill(it, T::default())
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a SmallBuf<T, N> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Per-dimension sizes or strides (inline up to [`DIMS_INLINE`] dims): a `Layout`'s shape and
/// strides, the iterator's geometry.
pub(crate) type DimVec<T> = SmallBuf<T, DIMS_INLINE>;
/// Dims a [`DimVec`] holds without a heap allocation: 5, as PyTorch's `SizesAndStrides`
/// (`C10_SIZES_AND_STRIDES_MAX_INLINE_SIZE`). It keeps a `Layout` at 104 bytes and a
/// `DynTensor` at 128, the largest value the compiler moves with inline stores on the baseline
/// x86-64 target; at 8 dims (176 bytes) every move of a tensor was a `memcpy` call, ~10% of a
/// 4-element op (BENCHMARKS.md, round 11).
pub(crate) const DIMS_INLINE: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_agree() {
        let mut a = DimVec::<usize>::empty(0);
        let mut v = Vec::new();
        for i in 0..20 {
            a.push(i);
            v.push(i);
            assert_eq!(&*a, &v[..]);
        }
        a.insert(3, 99);
        v.insert(3, 99);
        assert_eq!(&*a, &v[..]);
        assert_eq!(a.remove(0), v.remove(0));
        a.truncate(5);
        v.truncate(5);
        assert_eq!(&*a, &v[..]);
        let mut b = DimVec::<usize>::from_slice(&[1, 2, 3], 0);
        b.insert(3, 4);
        b.insert(0, 0);
        assert_eq!(&*b, &[0, 1, 2, 3, 4]);
        assert_eq!(b.remove(2), 2);
        assert_eq!(&*b, &[0, 1, 3, 4]);
        for i in 5..10 {
            b.push(i);
        }
        assert_eq!(&*b, &[0, 1, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(b, DimVec::from(b.to_vec()));
    }
}
