//! Elementwise ops: what users call. Each op is a functor (see [`crate::functors`]) run by the
//! [`crate::iter::TensorIterator`] through a typed inner loop from [`crate::kernels`].
//!
//! * `binary`, `unary`, `special`: the runtime-dtype runners (promotion, checks, dispatch from
//!   the computation dtype to the monomorphised kernel);
//! * `exec`: where a runner's kernel runs (a built iterator, or a small flat op's single run);
//! * `dyn_api`: the `DynTensor` methods (`try_add`, `add`, `add_`, `add_out`, ...);
//! * `typed_api`: the `Tensor<T>` methods and `std::ops` operators, checked at compile time.
//! * `join`: `cat` and `stack` (one promoted output, each input `copy_`'d into its slice);
//! * `custom`: users' own functors on `Tensor<T>` (`map`, `zip_with`, ...) and `DynTensor`.

pub mod binary;
pub mod custom;
pub mod dispatch;
pub mod dyn_api;
pub(crate) mod exec;
pub mod join;
pub mod plan;
pub mod promote;
pub mod special;
pub mod typed_api;
pub mod unary;

use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// The output a runner allocated ([`binary::binary`], [`unary::unary`] called without a given
/// output always allocate one; an `Err`, not a panic, should that ever not hold).
#[inline(always)]
pub(crate) fn fresh(op: &'static str, r: Result<Option<DynTensor>>) -> Result<DynTensor> {
    r?.ok_or_else(|| Error::InvalidArgument {
        op,
        reason: "the op allocated no output".into(),
    })
}

/// One operand of a `DynTensor` op: a tensor or a Python-like scalar.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    Tensor(&'a DynTensor),
    Scalar(Scalar),
}

impl<'a> From<&'a DynTensor> for Operand<'a> {
    fn from(t: &'a DynTensor) -> Self {
        Operand::Tensor(t)
    }
}

impl From<Scalar> for Operand<'_> {
    fn from(s: Scalar) -> Self {
        Operand::Scalar(s)
    }
}

macro_rules! operand_from_number {
    ([$($t:ty),*]) => {$(
        impl From<$t> for Operand<'_> {
            fn from(v: $t) -> Self { Operand::Scalar(Scalar::from(v)) }
        }
    )*};
}
crate::dtype_types!(all => operand_from_number!());
operand_from_number!([usize]);

impl Operand<'_> {
    /// The dtype this operand brings to promotion (a scalar's own type: bool, i64, f64).
    pub fn dtype(&self) -> crate::DType {
        match self {
            Operand::Tensor(t) => t.dtype(),
            Operand::Scalar(s) => s.dtype(),
        }
    }
}
