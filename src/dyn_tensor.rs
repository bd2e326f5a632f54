//! `DynTensor`: the runtime-dtype layer, a dispatch enum over the ten typed tensors.

use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use half::{bf16, f16};

/// A tensor whose dtype is known at run time.
#[derive(Clone)]
pub enum DynTensor {
    Bool(Tensor<bool>),
    U8(Tensor<u8>),
    I8(Tensor<i8>),
    I16(Tensor<i16>),
    I32(Tensor<i32>),
    I64(Tensor<i64>),
    F16(Tensor<f16>),
    BF16(Tensor<bf16>),
    F32(Tensor<f32>),
    F64(Tensor<f64>),
}

/// Runs `$body` with `$t` bound to the typed tensor inside a `DynTensor` (any variant).
/// `dispatch!(d, t => t.numel())`. Inside, `T` is not named; use `with_dtype!` for that.
#[macro_export]
macro_rules! dispatch {
    ($d:expr, $t:ident => $body:expr) => {
        match $d {
            $crate::DynTensor::Bool($t) => $body,
            $crate::DynTensor::U8($t) => $body,
            $crate::DynTensor::I8($t) => $body,
            $crate::DynTensor::I16($t) => $body,
            $crate::DynTensor::I32($t) => $body,
            $crate::DynTensor::I64($t) => $body,
            $crate::DynTensor::F16($t) => $body,
            $crate::DynTensor::BF16($t) => $body,
            $crate::DynTensor::F32($t) => $body,
            $crate::DynTensor::F64($t) => $body,
        }
    };
}

/// Conversion between a typed tensor and the matching `DynTensor` variant.
pub trait DynElement: Element {
    fn wrap(t: Tensor<Self>) -> DynTensor;
    fn unwrap_ref(d: &DynTensor) -> Option<&Tensor<Self>>;
    fn unwrap(d: DynTensor) -> core::result::Result<Tensor<Self>, DynTensor>;
}

macro_rules! dyn_element {
    ($t:ty, $v:ident) => {
        impl DynElement for $t {
            fn wrap(t: Tensor<Self>) -> DynTensor {
                DynTensor::$v(t)
            }
            fn unwrap_ref(d: &DynTensor) -> Option<&Tensor<Self>> {
                match d {
                    DynTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
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
dyn_element!(bool, Bool);
dyn_element!(u8, U8);
dyn_element!(i8, I8);
dyn_element!(i16, I16);
dyn_element!(i32, I32);
dyn_element!(i64, I64);
dyn_element!(f16, F16);
dyn_element!(bf16, BF16);
dyn_element!(f32, F32);
dyn_element!(f64, F64);

impl DynTensor {
    pub fn dtype(&self) -> DType {
        dispatch!(self, t => t.dtype())
    }
    pub fn shape(&self) -> &[usize] {
        dispatch!(self, t => t.shape())
    }
    pub fn strides(&self) -> &[isize] {
        dispatch!(self, t => t.strides())
    }
    pub fn offset(&self) -> usize {
        dispatch!(self, t => t.offset())
    }
    pub fn ndim(&self) -> usize {
        dispatch!(self, t => t.ndim())
    }
    pub fn numel(&self) -> usize {
        dispatch!(self, t => t.numel())
    }
    pub fn is_contiguous(&self) -> bool {
        dispatch!(self, t => t.is_contiguous())
    }
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

    /// Borrow as a typed tensor, if the dtype matches.
    pub fn as_typed<T: DynElement>(&self) -> Option<&Tensor<T>> {
        T::unwrap_ref(self)
    }

    /// Raw pointer to element 0 and the element size, for the iterator.
    pub fn data_ptr_bytes(&self) -> *mut u8 {
        dispatch!(self, t => t.data_ptr() as *mut u8)
    }

    /// Address range of the whole storage (for overlap checks).
    pub fn storage_ptr(&self) -> *const u8 {
        dispatch!(self, t => t.storage().as_ptr() as *const u8)
    }
}
