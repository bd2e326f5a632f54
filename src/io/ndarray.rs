//! Conversions to and from `ndarray` (cargo feature `ndarray`).
//!
//! * `From<ndarray::Array<T, D>>` for [`Tensor<T>`] (and [`DynTensor`]) adopts the array's
//!   buffer: **no copy**, for any owned array (standard, Fortran order, negative strides from
//!   `invert_axis`, slices kept by `slice_collapse`): the tensor has the array's shape, its
//!   strides (in elements, negative ones included) and its offset into the buffer.
//!   [`Tensor::try_from_ndarray`] is the same with a `Result`.
//! * [`Tensor::from_ndarray_view`] copies any array or view (`ArrayView`, `&Array`,
//!   `ArcArray`, `CowArray`) into a contiguous tensor; `From<ArrayView>` does the same.
//! * [`Tensor::to_ndarray`] copies any tensor (any layout) into a standard-layout
//!   `ndarray::ArrayD`.
//! * [`Tensor::ndarray_view`] lends the tensor's elements as an `ndarray::ArrayViewD` with the
//!   tensor's exact strides (negative, zero, offset), no copy, under a shared borrow of the
//!   storage held by the returned [`NdarrayView`] (ARCHITECTURE.md, "Memory model"): while it
//!   lives, every write to the storage (through any handle, on any thread) is refused with
//!   [`Error::BorrowConflict`](crate::Error::BorrowConflict).

use crate::dyn_tensor::{DynElement, DynTensor};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{BorrowGuard, Storage};
use crate::tensor::Tensor;
use ndarray::{
    Array, ArrayBase, ArrayD, ArrayView, ArrayViewD, Axis, Data, Dimension, IxDyn, ShapeBuilder,
};
use std::vec::Vec;

impl<T: Element> Tensor<T> {
    /// The tensor over an owned array's own buffer, without copying the elements: the array's
    /// `Vec` becomes the storage and the tensor gets the array's shape, strides (negative ones
    /// included) and offset. The layout is checked as every tensor's is (`Layout::new`,
    /// `check_fits`); a valid array always passes, so `From` (which panics instead) is the
    /// usual form.
    pub fn try_from_ndarray<D: Dimension>(a: Array<T, D>) -> Result<Self> {
        let shape = a.shape().to_vec();
        let strides = a.strides().to_vec();
        // `None` for an empty array: no element is reached, any offset will do.
        let (data, offset) = a.into_raw_vec_and_offset();
        let layout = Layout::new(shape, strides, offset.unwrap_or(0))?;
        Tensor::from_parts(Storage::from_vec(data), layout)
    }

    /// A contiguous tensor holding a copy of any array or view's elements (in logical,
    /// row-major order): `ArrayView`, `&Array`, `ArcArray`, `CowArray`, any strides. For an
    /// owned `Array` taken by value, `Tensor::from` adopts the buffer instead.
    pub fn from_ndarray_view<S: Data<Elem = T>, D: Dimension>(a: &ArrayBase<S, D>) -> Result<Self> {
        let n = a.len();
        let mut data = Vec::new();
        data.try_reserve_exact(n)
            .map_err(|_| Error::AllocationFailed {
                bytes: n as u128 * size_of::<T>() as u128,
            })?;
        match a.as_slice() {
            Some(s) => data.extend_from_slice(s),
            None => data.extend(a.iter().copied()),
        }
        Tensor::from_vec(data, a.shape())
    }

    /// A copy of the elements as a standard-layout (row-major) `ndarray::ArrayD`, whatever the
    /// tensor's layout (transposed, stepped, reversed, expanded views are gathered). Reads under
    /// a shared borrow of the storage: `Err` on a conflicting writer or a failed allocation.
    pub fn to_ndarray(&self) -> Result<ArrayD<T>> {
        let data = self.try_to_vec()?;
        ArrayD::from_shape_vec(IxDyn(self.shape()), data).map_err(|e| Error::InvalidView {
            reason: format!("to_ndarray: {e}"),
        })
    }

    /// The elements as an `ndarray` view, no copy: the tensor's shape and exact strides
    /// (reversed views have negative strides, expanded ones stride 0; a read-only `ArrayView`
    /// may reach one element from several indices, as `ArrayBase::broadcast`'s do). The view
    /// is lent by the returned [`NdarrayView`], which holds a shared borrow of the storage for
    /// its whole life: meanwhile writes to the storage, through any handle, are refused with
    /// `Error::BorrowConflict`. `Err(BorrowConflict)` when a writer holds the storage now.
    ///
    /// An empty tensor's view has the tensor's shape and standard strides over no elements;
    /// `Err` when ndarray cannot represent its shape (a zero-sized shape whose other dims
    /// multiply past `isize::MAX`, which weft allows).
    pub fn ndarray_view(&self) -> Result<NdarrayView<'_, T>> {
        let read = self.storage.borrow("ndarray_view", false)?;
        let shape = self.shape();
        let Some((lo, _)) = self.layout.extent() else {
            // No elements: nothing to point to.
            let view =
                ArrayViewD::from_shape(IxDyn(shape), &[]).map_err(|e| Error::InvalidView {
                    reason: format!("ndarray_view: shape {shape:?}: {e}"),
                })?;
            return Ok(NdarrayView { view, _read: read });
        };
        // ndarray's `from_shape_ptr` takes non-negative strides from the lowest element: build
        // the view from there with |stride| and invert the axes whose stride is negative.
        let mut strides = Vec::with_capacity(shape.len());
        let mut invert = Vec::new();
        for (d, (&n, &s)) in shape.iter().zip(self.strides()).enumerate() {
            if s >= 0 {
                strides.push(s as usize);
            } else if s == isize::MIN {
                // Only on a length-1 dim ((n - 1) * s fits isize): the stride is never
                // applied, and ndarray cannot negate it.
                strides.push(0);
            } else {
                strides.push(s.unsigned_abs());
                invert.push(d);
            }
            debug_assert!(s != isize::MIN || n == 1);
        }
        // SAFETY: the tensor's layout was checked to fit its storage when the tensor was made
        // (`check_fits`): every index it reaches lies in lo..=hi inside the storage's `len`
        // initialised elements, and numel * size_of::<T>() fits isize. `ptr` is the element at
        // `lo` (the lowest one), inside the live storage that `&self` keeps alive, non-null and
        // aligned for T; moving from it along every axis with the non-negative strides above
        // reaches exactly the tensor's elements (the inverted axes start at their far end), so
        // every pointer stays inside the one allocation and every offset fits isize. Nothing
        // writes the elements for `'_`: the shared borrow `read` is held next to the view in
        // the returned `NdarrayView` and released only after the view is dropped, every write in
        // weft takes the exclusive borrow first (refused while `read` lives), and the view is
        // only lent out through `NdarrayView::view`, bounded by the guard's own lifetime.
        // Aliased indices (stride 0) are allowed in read-only views.
        let mut view = unsafe {
            let ptr = self.storage.as_ptr().offset(lo);
            ArrayViewD::from_shape_ptr(IxDyn(shape).strides(IxDyn(&strides)), ptr)
        };
        for d in invert {
            view.invert_axis(Axis(d));
        }
        Ok(NdarrayView { view, _read: read })
    }
}

/// A borrowed `ndarray` view of a tensor's elements (see [`Tensor::ndarray_view`]), holding a
/// shared borrow of the storage: while it lives, writes to the storage are refused with
/// `Error::BorrowConflict`.
///
/// The view is lent by [`NdarrayView::view`] for no longer than this guard lives. (It does not
/// `Deref` to an `ArrayViewD<'a, T>`: a clone of that would outlive the guard, and a write
/// could then race with its reads.)
///
/// ```
/// use weft::Tensor;
/// let t = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2])?.t();
/// let guard = t.ndarray_view()?;
/// let v = guard.view();
/// assert_eq!((v[[0, 1]], v.strides()), (3.0, &[1isize, 2][..]));
/// // Writes wait for the guard to go: refused meanwhile.
/// assert!(t.share().try_add_(1.0).is_err());
/// drop(guard);
/// t.share().try_add_(1.0)?;
/// # Ok::<(), weft::Error>(())
/// ```
///
/// The view cannot outlive its guard:
///
/// ```compile_fail
/// let t = weft::Tensor::<f32>::zeros(&[2]);
/// let v = t.ndarray_view().unwrap().view(); // the guard is dropped here, still borrowed
/// assert_eq!(v.sum(), 0.0);
/// ```
pub struct NdarrayView<'a, T: Element> {
    // Dropped before the guard: the fields drop in declaration order.
    view: ArrayViewD<'a, T>,
    _read: BorrowGuard<'a>,
}

impl<T: Element> NdarrayView<'_, T> {
    /// The tensor's elements as an `ndarray::ArrayViewD`, with the tensor's shape and strides
    /// (in elements, negative and zero ones included).
    #[inline]
    pub fn view(&self) -> ArrayViewD<'_, T> {
        self.view.view()
    }
}

impl<T: Element> core::fmt::Debug for NdarrayView<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.view, f)
    }
}

/// Adopts the array's buffer, no copy (see [`Tensor::try_from_ndarray`]).
impl<T: Element, D: Dimension> From<Array<T, D>> for Tensor<T> {
    #[track_caller]
    fn from(a: Array<T, D>) -> Self {
        Tensor::try_from_ndarray(a).expect(
            "an owned ndarray array's shape, strides and offset describe elements inside its own \
             buffer",
        )
    }
}

/// Adopts the array's buffer, no copy (see [`Tensor::try_from_ndarray`]).
impl<T: DynElement, D: Dimension> From<Array<T, D>> for DynTensor {
    #[track_caller]
    fn from(a: Array<T, D>) -> Self {
        T::wrap(Tensor::from(a))
    }
}

/// Copies the view's elements into a contiguous tensor (see [`Tensor::from_ndarray_view`]).
/// Panics only when the copy cannot be allocated.
impl<T: Element, D: Dimension> From<ArrayView<'_, T, D>> for Tensor<T> {
    #[track_caller]
    fn from(a: ArrayView<'_, T, D>) -> Self {
        use crate::error::OrPanic;
        Tensor::from_ndarray_view(&a).or_panic()
    }
}
