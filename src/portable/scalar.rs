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
    /// An integer above `i64::MAX` (a large u64). Integers that fit i64 are `Int`; the `From`
    /// impls keep to that.
    UInt(u64),
    Float(f64),
}

impl Scalar {
    /// The dtype the scalar carries into promotion: bool, i64 or f64 (PyTorch's wrapped numbers;
    /// promotion maps a float scalar to the default float dtype).
    pub const fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) | Scalar::UInt(_) => DType::I64,
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
            Scalar::UInt(u) => Value::UInt(u),
            Scalar::Float(x) => Value::F64(x),
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::UInt(u) => u as f64,
            Scalar::Float(x) => x,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// The integer value, for `Int` and `UInt`.
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Scalar::Int(i) => Some(i as i128),
            Scalar::UInt(u) => Some(u as i128),
            _ => None,
        }
    }

    /// PyTorch's overflow check when a scalar is converted to `dtype` (`where`, `masked_fill`,
    /// clamp bounds, pow exponents): integers must lie in the dtype's range (u8 also accepts
    /// -255..=-1, which wrap), a float going into an integer must be finite and in range
    /// (checked before truncation), a finite float going into a float must not exceed its
    /// largest value (infinities and NaN pass); f64 takes everything, bools always fit.
    pub fn fits(self, dtype: DType) -> bool {
        let (lo, hi): (f64, f64) = match dtype {
            DType::Bool | DType::F64 => return true,
            DType::F16 => (-f16::MAX.to_f64(), f16::MAX.to_f64()),
            DType::BF16 => (-bf16::MAX.to_f64(), bf16::MAX.to_f64()),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64),
            _ => {
                let (lo, hi) = dtype.int_range();
                (lo as f64, hi as f64)
            }
        };
        match self {
            Scalar::Bool(_) => true,
            Scalar::Int(_) | Scalar::UInt(_) if dtype.is_integer() => {
                let i = self.as_i128().unwrap_or(0);
                let (lo, hi) = dtype.int_range();
                let lo = if dtype == DType::U8 { -hi } else { lo };
                i >= lo && i <= hi
            }
            Scalar::Int(_) | Scalar::UInt(_) => (self.to_f64()) >= lo && (self.to_f64()) <= hi,
            Scalar::Float(x) if dtype.is_integer() => x.is_finite() && x >= lo && x <= hi,
            Scalar::Float(x) => !x.is_finite() || (x >= lo && x <= hi),
        }
    }
}

/// A value as the scalar of its category (what a Python number of that value would be).
impl From<Value> for Scalar {
    fn from(v: Value) -> Self {
        match v {
            Value::Bool(b) => Scalar::Bool(b),
            Value::Int(i) => Scalar::Int(i),
            Value::UInt(u) => Scalar::from(u),
            Value::F32(x) => Scalar::Float(x as f64),
            Value::F64(x) => Scalar::Float(x),
        }
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
scalar_from_int!(u8, i8, i16, i32, i64, u16, u32, isize);
macro_rules! scalar_from_wide_unsigned {
    ($($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Self {
                match i64::try_from(v) {
                    Ok(i) => Scalar::Int(i),
                    Err(_) => Scalar::UInt(v as u64),
                }
            }
        }
    )*};
}
scalar_from_wide_unsigned!(u64, usize);
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
