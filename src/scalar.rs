//! `Scalar`: a Python-like number that keeps full precision (bool, i64 or f64) until it meets
//! a computation dtype.
//!
//! `no_std`.

use crate::dtype::DType;
use crate::element::{Element, Value};
use half::{bf16, f16};

/// A number that is not a tensor. It takes part in promotion with the weakest priority
/// (see [`crate::promotion::OperandKind::Scalar`]) and converts into the computation dtype
/// with integer wrap-around (`uint8 + 300` adds 44), as PyTorch does.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// The dtype the scalar carries into promotion: bool, i64 or f64 (PyTorch's wrapped numbers;
    /// promotion maps a float scalar to the default float dtype).
    pub const fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F64,
        }
    }

    /// The scalar converted into element type `T` (integers wrap, floats into integers
    /// truncate and saturate, see [`crate::element::convert_value`]).
    #[inline(always)]
    pub fn to<T: Element>(self) -> T {
        T::from_value(self.to_value())
    }

    pub fn to_value(self) -> Value {
        match self {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Float(x) => Value::F64(x),
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// PyTorch's overflow check when a scalar is converted to `dtype` (`where`, `masked_fill`,
    /// clamp bounds, pow exponents): integers must lie in the dtype's range (u8 also accepts
    /// -255..=-1, which wrap), a float going into an integer must be finite and in range
    /// (checked before truncation), a finite float going into a float must not exceed its
    /// largest value (infinities and NaN pass); f64 takes everything, bools always fit.
    pub fn fits(self, dtype: DType) -> bool {
        let (lo, hi): (f64, f64) = match dtype {
            DType::Bool | DType::F64 => return true,
            DType::U8 => (0.0, 255.0),
            DType::I8 => (-128.0, 127.0),
            DType::I16 => (-32768.0, 32767.0),
            DType::I32 => (i32::MIN as f64, i32::MAX as f64),
            DType::I64 => (i64::MIN as f64, i64::MAX as f64),
            DType::F16 => (-f16::MAX.to_f64(), f16::MAX.to_f64()),
            DType::BF16 => (-bf16::MAX.to_f64(), bf16::MAX.to_f64()),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64),
        };
        match self {
            Scalar::Bool(_) => true,
            Scalar::Int(i) if dtype.is_integer() => {
                let (lo, hi) = int_range(dtype);
                let lo = if dtype == DType::U8 { -hi } else { lo };
                i >= lo && i <= hi
            }
            Scalar::Int(i) => (i as f64) >= lo && (i as f64) <= hi,
            Scalar::Float(x) if dtype.is_integer() => x.is_finite() && x >= lo && x <= hi,
            Scalar::Float(x) => !x.is_finite() || (x >= lo && x <= hi),
        }
    }
}

fn int_range(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::U8 => (0, u8::MAX as i64),
        DType::I8 => (i8::MIN as i64, i8::MAX as i64),
        DType::I16 => (i16::MIN as i64, i16::MAX as i64),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}
macro_rules! scalar_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Self { Scalar::Int(v as i64) }
        }
    )*};
}
scalar_from_int!(u8, i8, i16, i32, i64, u16, u32);
impl From<f32> for Scalar {
    fn from(v: f32) -> Self {
        Scalar::Float(v as f64)
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}
impl From<f16> for Scalar {
    fn from(v: f16) -> Self {
        Scalar::Float(v.to_f64())
    }
}
impl From<bf16> for Scalar {
    fn from(v: bf16) -> Self {
        Scalar::Float(v.to_f64())
    }
}
