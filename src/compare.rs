//! Reading elements of a `DynTensor` as values (`get`, `item`, `to_vec`) and comparing tensors:
//! `PartialEq` (PyTorch's `torch.equal`) and `allclose` (`torch.allclose`).
//!
//! Every comparison reads elements through the public accessors (`try_to_vec`), which hold a
//! shared borrow of each storage while they copy: no `unsafe` here.

use crate::dyn_tensor::{DynElement, DynTensor};
use crate::element::{Element, Value, convert_value};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use crate::tensor::Tensor;
use std::vec::Vec;

/// `torch.allclose`'s default relative tolerance.
pub const DEFAULT_RTOL: f64 = 1e-5;
/// `torch.allclose`'s default absolute tolerance.
pub const DEFAULT_ATOL: f64 = 1e-8;

fn scalar_of(v: Value) -> Scalar {
    Scalar::from(v)
}

impl DynTensor {
    /// The element at a full coordinate, as a [`Scalar`] (bool, `Int` for every integer dtype,
    /// `Float` for every float dtype: exact).
    pub fn get(&self, index: &[usize]) -> Result<Scalar> {
        crate::dispatch!(self, t => Ok(scalar_of(t.get(index)?.to_value())))
    }

    /// The only element of a one-element tensor (any number of dims), as a [`Scalar`].
    pub fn item(&self) -> Result<Scalar> {
        crate::dispatch!(self, t => Ok(scalar_of(t.item()?.to_value())))
    }

    /// All elements in row-major order, converted to `T` with [`convert_value`] (PyTorch's
    /// conversion: `tensor.to(dtype).tolist()`).
    pub fn to_vec<T: DynElement>(&self) -> Result<Vec<T>> {
        if let Some(t) = self.as_typed::<T>() {
            return t.try_to_vec();
        }
        crate::dispatch!(self, t => Ok(t.try_to_vec()?.into_iter().map(convert_value).collect()))
    }

    /// `torch.equal`: same dtype, same shape and equal elements (NaN is unequal to everything,
    /// `-0.0 == 0.0`); layouts and storages do not matter. `Err` on a borrow conflict or a
    /// failed allocation (both tensors are read into vectors).
    pub fn try_equal(&self, other: &DynTensor) -> Result<bool> {
        fn typed<T: DynElement>(a: &Tensor<T>, b: &DynTensor) -> Result<bool> {
            match T::unwrap_ref(b) {
                Some(b) => a.try_equal(b),
                None => Ok(false),
            }
        }
        crate::dispatch!(self, t => typed(t, other))
    }

    /// `torch.allclose(self, other, rtol, atol, equal_nan)`: whether every pair of elements
    /// (broadcast against each other) satisfies `|a - b| <= atol + rtol * |b|`, or is equal
    /// (equal infinities), or, with `equal_nan`, are both NaN. PyTorch's defaults are
    /// [`DEFAULT_RTOL`] (1e-5) and [`DEFAULT_ATOL`] (1e-8), `equal_nan = false`.
    ///
    /// Unlike PyTorch, the dtypes may differ: both sides are converted to f64 and compared
    /// there (PyTorch requires one dtype and computes in it; i64 beyond 2^53 rounds).
    /// Errors: shapes that do not broadcast, negative or NaN tolerances.
    pub fn allclose(
        &self,
        other: &DynTensor,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<bool> {
        for (name, v) in [("rtol", rtol), ("atol", atol)] {
            if v.is_nan() || v < 0.0 {
                return Err(Error::InvalidArgument {
                    op: "allclose",
                    reason: format!("{name} must be greater than or equal to zero, but got {v}"),
                });
            }
        }
        let shape = crate::iter::broadcast_shapes("allclose", self.shape(), other.shape())?;
        let a = self.try_broadcast_to(&shape)?.to_vec::<f64>()?;
        let b = other.try_broadcast_to(&shape)?.to_vec::<f64>()?;
        Ok(a.iter()
            .zip(&b)
            .all(|(&a, &b)| is_close(a, b, rtol, atol, equal_nan)))
    }
}

/// `torch.isclose` on one pair, in f64.
fn is_close(a: f64, b: f64, rtol: f64, atol: f64, equal_nan: bool) -> bool {
    if a == b || (equal_nan && a.is_nan() && b.is_nan()) {
        return true;
    }
    let diff = (a - b).abs();
    diff.is_finite() && diff <= atol + (rtol * b).abs()
}

impl<T: Element> Tensor<T> {
    /// `torch.equal` for typed tensors: same shape and equal elements (NaN unequal, `-0.0 ==
    /// 0.0`), any layouts. `Err` on a borrow conflict or a failed allocation.
    pub fn try_equal(&self, other: &Tensor<T>) -> Result<bool> {
        if self.shape() != other.shape() {
            return Ok(false);
        }
        Ok(self.try_to_vec()? == other.try_to_vec()?)
    }
}

impl<T: DynElement> Tensor<T> {
    /// [`DynTensor::allclose`] on typed tensors (the dtypes may differ).
    pub fn allclose<U: DynElement>(
        &self,
        other: &Tensor<U>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<bool> {
        T::wrap(self.share()).allclose(&U::wrap(other.share()), rtol, atol, equal_nan)
    }
}

/// `torch.equal` ([`Tensor::try_equal`]); panics where that returns `Err` (a borrow conflict:
/// another thread writing one of the storages, or a failed allocation).
impl<T: Element> PartialEq for Tensor<T> {
    #[track_caller]
    fn eq(&self, other: &Self) -> bool {
        self.try_equal(other).or_panic()
    }
}

/// `torch.equal` ([`DynTensor::try_equal`]): different dtypes are unequal. Panics where
/// `try_equal` returns `Err`.
impl PartialEq for DynTensor {
    #[track_caller]
    fn eq(&self, other: &Self) -> bool {
        self.try_equal(other).or_panic()
    }
}
