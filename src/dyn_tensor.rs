//! `DynTensor`: the runtime-dtype layer, a dispatch enum over the ten typed tensors.

use crate::dtype::DType;
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Runs `$body` with `$t` bound to the typed tensor inside a `DynTensor` (any variant).
/// `dispatch!(d, t => t.numel())`. Inside, `T` is not named; use `with_dtype!` for that.
/// Its arms are generated from the dtype list (`dtype_table!`, src/portable/dtype.rs).
#[macro_export]
macro_rules! dispatch {
    ($d:expr, $t:ident => $body:expr) => {
        $crate::dtype_table! { @with ($d, $t => $body) $crate::__dispatch }
    };
}

/// `dispatch!`'s match, one arm per row of the dtype list.
#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch {
    (($d:expr, $t:ident => $body:expr) $($c:ident [$($V:ident $tok:ident: $T:ty, $s:literal;)*])*) => {
        match $d {
            $($($crate::DynTensor::$V($t) => $body,)*)*
        }
    };
}

/// A second handle to `t` as a `DynTensor`, for code generic over [`Element`] (every element
/// type has its variant; `None` would mean the dtype list and the type disagree).
pub(crate) fn share_as_dyn<T: Element>(t: &Tensor<T>) -> Option<DynTensor> {
    crate::with_dtype!(T::DTYPE, U => {
        let any: &dyn core::any::Any = t;
        any.downcast_ref::<Tensor<U>>().map(|u| U::wrap(u.share()))
    })
}

/// Conversion between a typed tensor and the matching `DynTensor` variant.
pub trait DynElement: Element {
    fn wrap(t: Tensor<Self>) -> DynTensor;
    fn unwrap_ref(d: &DynTensor) -> Option<&Tensor<Self>>;
    /// The typed tensor, or the tensor itself back (not an error value: a tensor with its
    /// inline layout is ~170 bytes, moved once).
    #[allow(clippy::result_large_err)]
    fn unwrap(d: DynTensor) -> core::result::Result<Tensor<Self>, DynTensor>;
}

macro_rules! dyn_element {
    ($t:ty, $v:ident) => {
        impl DynElement for $t {
            #[inline(always)]
            fn wrap(t: Tensor<Self>) -> DynTensor {
                DynTensor::$v(t)
            }
            fn unwrap_ref(d: &DynTensor) -> Option<&Tensor<Self>> {
                match d {
                    DynTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            #[inline(always)]
            fn unwrap(d: DynTensor) -> core::result::Result<Tensor<Self>, DynTensor> {
                match d {
                    DynTensor::$v(t) => Ok(t),
                    other => Err(other),
                }
            }
        }
        impl From<Tensor<$t>> for DynTensor {
            fn from(t: Tensor<$t>) -> DynTensor {
                DynTensor::$v(t)
            }
        }
        impl TryFrom<DynTensor> for Tensor<$t> {
            type Error = Error;
            fn try_from(d: DynTensor) -> Result<Tensor<$t>> {
                let got = d.dtype();
                <$t as DynElement>::unwrap(d).map_err(|_| Error::DTypeMismatch {
                    op: "TryFrom<DynTensor>",
                    expected: <$t as Element>::DTYPE,
                    got,
                })
            }
        }
    };
}
/// `DynTensor`, a variant per row of the dtype list (`dtype_table!`, src/portable/dtype.rs), and the
/// variants' `DynElement`, `From` and `TryFrom` impls.
macro_rules! dyn_tensor_enum {
    (() $($c:ident [$($V:ident $t:ident: $T:ty, $s:literal;)*])*) => {
        /// A tensor whose dtype is known at run time. `clone()` copies the elements (see
        /// `Tensor::clone`); [`DynTensor::share`] is a second handle to the same storage.
        pub enum DynTensor {
            $($($V(Tensor<$T>),)*)*
        }
        $($(dyn_element!($T, $V);)*)*
    };
}
crate::dtype_table!(dyn_tensor_enum);

impl Clone for DynTensor {
    fn clone(&self) -> Self {
        dispatch!(self, t => DynTensor::from(t.clone()))
    }
}

impl DynTensor {
    /// A second handle to the same storage (no copy); see [`Tensor::share`].
    #[inline]
    pub fn share(&self) -> DynTensor {
        dispatch!(self, t => DynTensor::from(t.share()))
    }

    /// A deep copy; see [`Tensor::try_clone`].
    pub fn try_clone(&self) -> Result<DynTensor> {
        dispatch!(self, t => Ok(DynTensor::from(t.try_clone()?)))
    }

    #[inline]
    pub fn dtype(&self) -> DType {
        dispatch!(self, t => t.dtype())
    }
    #[inline]
    pub fn shape(&self) -> &[usize] {
        dispatch!(self, t => t.shape())
    }
    #[inline]
    pub fn strides(&self) -> &[isize] {
        dispatch!(self, t => t.strides())
    }
    #[inline]
    pub fn offset(&self) -> usize {
        dispatch!(self, t => t.offset())
    }
    #[inline]
    pub fn ndim(&self) -> usize {
        dispatch!(self, t => t.ndim())
    }
    #[inline]
    pub fn numel(&self) -> usize {
        dispatch!(self, t => t.numel())
    }
    #[inline]
    pub fn is_contiguous(&self) -> bool {
        dispatch!(self, t => t.is_contiguous())
    }
    #[inline]
    pub fn layout(&self) -> &crate::layout::Layout {
        dispatch!(self, t => t.layout())
    }

    /// A zero-filled contiguous tensor of a runtime dtype.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<DynTensor> {
        crate::with_dtype!(dtype, T => Ok(Tensor::<T>::try_zeros(shape)?.into()))
    }

    /// A zero-filled tensor of a runtime dtype with the given (non-negative) element strides.
    pub fn empty_strided(dtype: DType, shape: &[usize], strides: &[isize]) -> Result<DynTensor> {
        crate::with_dtype!(dtype, T => Ok(Tensor::<T>::try_empty_strided(shape, strides)?.into()))
    }

    /// An op's fresh output: [`DynTensor::zeros`] (`strides` `None`) or
    /// [`DynTensor::empty_strided`], zeroed only when `zeroed`.
    ///
    /// # Safety
    /// When `!zeroed`, `Tensor::try_uninit`'s contract: every element written before any is
    /// read or the tensor is shared or handed out.
    pub(crate) unsafe fn alloc_output(
        dtype: DType,
        shape: &[usize],
        strides: Option<&[isize]>,
        zeroed: bool,
    ) -> Result<DynTensor> {
        crate::with_dtype!(dtype, T => Ok(match strides {
            None if zeroed => Tensor::<T>::try_zeros(shape)?,
            // SAFETY: the caller's contract.
            None => unsafe { Tensor::<T>::try_uninit(shape)? },
            // SAFETY: the caller's contract.
            Some(s) => unsafe { Tensor::<T>::try_alloc_strided(shape, s, zeroed)? },
        }
        .into()))
    }

    /// A fresh contiguous tensor of `shape`, its elements uninitialised, built in `slot` (its
    /// layout written in place, [`Layout::set_contiguous`]: a tiny op's output is then never
    /// copied while its stores are pending).
    ///
    /// # Safety
    /// `Tensor::try_uninit`'s contract: every element written before any is read or the
    /// tensor is shared or handed out.
    #[inline]
    pub(crate) unsafe fn uninit_in<'s>(
        slot: &'s mut Option<DynTensor>,
        dtype: DType,
        shape: &[usize],
    ) -> Result<&'s DynTensor> {
        crate::with_dtype!(dtype, T => {
            let len = crate::layout::checked_numel(shape, size_of::<T>())?;
            // SAFETY: the caller's contract.
            let storage = unsafe { crate::storage::Storage::<T>::try_uninit(len)? };
            // `Layout::EMPTY` fits every storage, so the tensor is valid at every step.
            let t = slot.insert(T::wrap(Tensor { storage, layout: crate::layout::Layout::EMPTY }));
            dispatch!(&mut *t, t => t.layout.set_contiguous(shape));
            Ok(t)
        })
    }

    /// Borrow as a typed tensor, if the dtype matches.
    pub fn as_typed<T: DynElement>(&self) -> Option<&Tensor<T>> {
        T::unwrap_ref(self)
    }

    /// Raw pointer to element 0 and the element size, for the iterator.
    #[inline]
    pub fn data_ptr_bytes(&self) -> *mut u8 {
        dispatch!(self, t => t.data_ptr() as *mut u8)
    }

    /// Address range of the whole storage (for overlap checks).
    #[inline]
    pub fn storage_ptr(&self) -> *const u8 {
        dispatch!(self, t => t.storage().as_ptr().cast::<u8>())
    }

    /// Everything the iterator asks of a tensor, read in one dispatch (each accessor above is
    /// a match over the dtypes: a tiny op asked a dozen of them per operand).
    #[inline]
    pub(crate) fn parts(&self) -> TensorParts<'_> {
        TensorParts {
            tensor: self,
            elements: self.element_parts(),
        }
    }

    /// [`DynTensor::parts`] without the tensor.
    #[inline]
    pub(crate) fn element_parts(&self) -> ElementParts<'_> {
        dispatch!(self, t => t.element_parts())
    }
}

/// What a run reads of a tensor: its dtype, layout, element-0 address and borrow state
/// ([`DynTensor::element_parts`], `Tensor::element_parts`: the typed API's flat tiers read them
/// without a `DynTensor` view). Two tensors are on one storage exactly when their `flag`s are
/// one (it lives in the storage's header).
#[derive(Copy, Clone)]
pub(crate) struct ElementParts<'t> {
    pub(crate) dtype: DType,
    pub(crate) layout: &'t crate::layout::Layout,
    pub(crate) data: *mut u8,
    pub(crate) flag: &'t crate::storage::BorrowFlag,
}

impl ElementParts<'_> {
    /// Whether both tensors are views of one storage.
    #[inline]
    pub(crate) fn same_storage(&self, other: &ElementParts<'_>) -> bool {
        core::ptr::eq(self.flag, other.flag)
    }
}

/// A `DynTensor` with its [`ElementParts`] ([`DynTensor::parts`]), for the iterator, which
/// also hands the tensor itself back.
#[derive(Copy, Clone)]
pub(crate) struct TensorParts<'t> {
    pub(crate) tensor: &'t DynTensor,
    pub(crate) elements: ElementParts<'t>,
}

impl<'t> core::ops::Deref for TensorParts<'t> {
    type Target = ElementParts<'t>;
    #[inline]
    fn deref(&self) -> &ElementParts<'t> {
        &self.elements
    }
}

/// Generates a `try_*` view and its panicking twin on `DynTensor`, forwarding to `Tensor<T>`.
macro_rules! dyn_view {
    ($(#[$doc:meta])* $try_name:ident, $name:ident ( $($arg:ident : $ty:ty),* )) => {
        $(#[$doc])*
        pub fn $try_name(&self, $($arg: $ty),*) -> Result<DynTensor> {
            dispatch!(self, t => t.$try_name($($arg),*).map(DynTensor::from))
        }
        $(#[$doc])*
        #[track_caller]
        pub fn $name(&self, $($arg: $ty),*) -> DynTensor {
            self.$try_name($($arg),*).or_panic()
        }
    };
}

/// Views (see `tensor::views` for the conventions), conversion and constructors.
impl DynTensor {
    dyn_view!(
        /// See [`Tensor::try_permute`].
        try_permute, permute(dims: &[isize]));
    dyn_view!(
        /// See [`Tensor::try_transpose`].
        try_transpose, transpose(d0: isize, d1: isize));
    dyn_view!(
        /// See [`Tensor::try_t`].
        try_t, t());
    dyn_view!(
        /// See [`Tensor::try_slice`].
        try_slice, slice(dim: isize, start: Option<isize>, end: Option<isize>, step: isize));
    dyn_view!(
        /// See [`Tensor::try_narrow`].
        try_narrow, narrow(dim: isize, start: isize, len: usize));
    dyn_view!(
        /// See [`Tensor::try_select`].
        try_select, select(dim: isize, index: isize));
    dyn_view!(
        /// See [`Tensor::try_expand`].
        try_expand, expand(shape: impl crate::tensor::ShapeArg));
    dyn_view!(
        /// See [`Tensor::try_broadcast_to`].
        try_broadcast_to, broadcast_to(shape: &[usize]));
    dyn_view!(
        /// See [`Tensor::try_squeeze_dim`].
        try_squeeze_dim, squeeze_dim(dim: isize));
    dyn_view!(
        /// See [`Tensor::try_unsqueeze`].
        try_unsqueeze, unsqueeze(dim: isize));
    dyn_view!(
        /// See [`Tensor::try_view`].
        try_view, view(shape: impl crate::tensor::ShapeArg));
    dyn_view!(
        /// See [`Tensor::try_reshape`].
        try_reshape, reshape(shape: impl crate::tensor::ShapeArg));
    dyn_view!(
        /// See [`Tensor::try_flatten`].
        try_flatten, flatten(start: isize, end: isize));

    /// Removes every size-1 dim.
    pub fn squeeze(&self) -> DynTensor {
        dispatch!(self, t => t.squeeze().into())
    }

    /// A contiguous copy (or the same tensor when already contiguous).
    pub fn contiguous(&self) -> DynTensor {
        dispatch!(self, t => t.contiguous().into())
    }

    /// Every element converted to `dtype` (see [`crate::convert_value`]), in a fresh contiguous
    /// tensor (the same tensor, shared, when the dtype already matches).
    #[track_caller]
    pub fn to(&self, dtype: DType) -> DynTensor {
        crate::ops::special::to_dtype(self, dtype).or_panic()
    }

    /// A contiguous tensor owning `data`, with `shape`.
    pub fn from_vec<T: DynElement>(data: Vec<T>, shape: &[usize]) -> Result<DynTensor> {
        Ok(T::wrap(Tensor::from_vec(data, shape)?))
    }

    /// A tensor of `dtype` filled with `value` (converted like [`Scalar::to`](crate::Scalar::to)).
    /// A value that does not fit `dtype` is an `Error::ScalarOverflow`, as PyTorch's
    /// `torch.full((2,), 300, dtype=torch.uint8)` ("value cannot be converted to type uint8_t
    /// without overflow"); the check is [`Scalar::fits`](crate::Scalar::fits) (u8 accepts
    /// -255..=-1, which wrap; a float into an integer dtype must be finite and in range and
    /// truncates; infinities and NaN fit every float dtype).
    pub fn full(dtype: DType, shape: &[usize], value: crate::Scalar) -> Result<DynTensor> {
        crate::ops::plan::check_fits("full", value, dtype)?;
        crate::with_dtype!(dtype, T => Ok(Tensor::<T>::try_full(shape, value.to::<T>())?.into()))
    }

    /// `fill_`: writes `value` into every element of this tensor (any view; an expanded view
    /// is refused as an output that overlaps itself). A value that does not fit the dtype is an
    /// `Error::ScalarOverflow` (see [`DynTensor::full`]) and nothing is written.
    pub fn try_fill_(&mut self, value: crate::Scalar) -> Result<()> {
        let dtype = self.dtype();
        crate::ops::plan::check_fits("fill_", value, dtype)?;
        let src =
            crate::with_dtype!(dtype, T => DynTensor::from(Tensor::<T>::scalar(value.to::<T>())));
        self.try_copy_(&src)
    }

    /// [`DynTensor::try_fill_`], panicking on error.
    #[track_caller]
    pub fn fill_(&mut self, value: crate::Scalar) {
        self.try_fill_(value).or_panic()
    }

    /// A tensor of `dtype` filled with ones.
    pub fn ones(dtype: DType, shape: &[usize]) -> Result<DynTensor> {
        Self::full(dtype, shape, crate::Scalar::Int(1))
    }

    /// A 0-d tensor of `dtype` holding `value`.
    pub fn scalar(dtype: DType, value: crate::Scalar) -> DynTensor {
        crate::with_dtype!(dtype, T => Tensor::<T>::scalar(value.to::<T>()).into())
    }

    /// All elements in logical order, as the widest exact values.
    pub fn to_values(&self) -> Vec<crate::Value> {
        dispatch!(self, t => t.to_vec().into_iter().map(Element::to_value).collect())
    }
}

impl core::fmt::Display for DynTensor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        dispatch!(self, t => core::fmt::Display::fmt(t, f))
    }
}

impl core::fmt::Debug for DynTensor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        dispatch!(self, t => core::fmt::Display::fmt(t, f))
    }
}

/// Runs `f` on `t` seen as a `DynTensor` without taking a handle: no reference-count traffic
/// (two atomic read-modify-writes per operand on every typed op otherwise).
pub(crate) fn with_dyn_view<T: DynElement, R>(t: &Tensor<T>, f: impl FnOnce(&DynTensor) -> R) -> R {
    // SAFETY: `ptr::read` duplicates `t`'s storage handle without counting it. The duplicate is
    // never released (`ManuallyDrop`, also on unwind) and lives only inside this call, while
    // `t`, which holds a counted handle, is borrowed: the storage outlives every use. `f` gets
    // it by shared reference, so it can read it or take a counted handle (`share`), never move
    // or drop it.
    let view = core::mem::ManuallyDrop::new(T::wrap(unsafe { core::ptr::read(t) }));
    f(&view)
}
