//! The `Element` trait: what each Rust element type is (dtype, category) and how values convert
//! between element types the way PyTorch converts them.
//!
//! `no_std`.

use crate::dtype::DType;
use half::{bf16, f16};

mod sealed {
    pub trait Sealed {}
}

/// A value in its widest exact form; the hub every conversion goes through.
/// Every integer dtype but u64 fits `Int`, u64 is `UInt`, f16/bf16/f32 fit `F32` exactly.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    UInt(u64),
    F32(f32),
    F64(f64),
}

impl Value {
    /// The value as f64 (rounded for integers beyond 2^53, bool as 0/1).
    pub fn to_f64(self) -> f64 {
        f64::from_value(self)
    }

    /// The exact integer value of `Bool`, `Int` and `UInt`; `None` for floats.
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Value::Bool(b) => Some(b as i128),
            Value::Int(i) => Some(i as i128),
            Value::UInt(u) => Some(u as i128),
            Value::F32(_) | Value::F64(_) => None,
        }
    }
}

/// An element type weft can store: the rows of the dtype list (`dtype_table!`): bool, u8, i8,
/// i16, i32, i64, u16, u32, u64, f16, bf16, f32, f64.
///
/// Sealed: the promotion table, the kernels and the GPU side are written for exactly these.
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + 'static + PartialEq + PartialOrd + Default + core::fmt::Debug
{
    const DTYPE: DType;
    const ZERO: Self;
    const ONE: Self;
    /// The exact widest form of this value.
    fn to_value(self) -> Value;
    /// PyTorch's conversion from the widest form (see [`convert_value`] for the rules).
    fn from_value(v: Value) -> Self;
}

/// Converts one element to another element type, as `tensor.to(dtype)` does:
///
/// * into bool: nonzero (NaN included) is `true`, `-0.0` is `false`; bool stores only 0/1;
/// * integer into integer: two's-complement wrap (keeps the low bits);
/// * float into integer: truncate toward zero, **saturating** at the target's range, NaN -> 0.
///   PyTorch's result is undefined behaviour in C++ there; weft's is defined and documented;
/// * into f16/bf16 from f64 or i64 (and i32): through f32 first, as PyTorch does (double rounding);
/// * into f32/f64: correctly rounded.
#[inline(always)]
pub fn convert_value<S: Element, D: Element>(s: S) -> D {
    D::from_value(s.to_value())
}

#[inline(always)]
fn value_to_bool(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        Value::Int(i) => i != 0,
        Value::UInt(u) => u != 0,
        Value::F32(x) => x != 0.0 || x.is_nan(),
        Value::F64(x) => x != 0.0 || x.is_nan(),
    }
}

#[inline(always)]
fn value_to_f32(v: Value) -> f32 {
    match v {
        Value::Bool(b) => b as u8 as f32,
        Value::Int(i) => i as f32,
        Value::UInt(u) => u as f32,
        Value::F32(x) => x,
        Value::F64(x) => x as f32,
    }
}

/// The `Element` impls of the integer rows of the dtype list.
macro_rules! int_elements {
    ([$($D:ident $tok:ident: $t:ty, $size:literal;)*]) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$D;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn to_value(self) -> Value {
                // Constant per type: only u64 does not fit i64.
                if <$t>::MAX as u128 > i64::MAX as u128 {
                    Value::UInt(self as u64)
                } else {
                    Value::Int(self as i64)
                }
            }
            #[inline(always)]
            fn from_value(v: Value) -> Self {
                match v {
                    Value::Bool(b) => b as $t,
                    // Integers wrap (keep the low bits).
                    Value::Int(i) => i as $t,
                    Value::UInt(u) => u as $t,
                    // `as` truncates toward zero and saturates; NaN -> 0.
                    Value::F32(x) => x as $t,
                    Value::F64(x) => x as $t,
                }
            }
        }
    )*};
}
crate::__dtype_list! { int; int_elements; }

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline(always)]
    fn to_value(self) -> Value {
        Value::Bool(self)
    }
    #[inline(always)]
    fn from_value(v: Value) -> Self {
        value_to_bool(v)
    }
}

impl sealed::Sealed for f32 {}
impl Element for f32 {
    const DTYPE: DType = DType::F32;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline(always)]
    fn to_value(self) -> Value {
        Value::F32(self)
    }
    #[inline(always)]
    fn from_value(v: Value) -> Self {
        value_to_f32(v)
    }
}

impl sealed::Sealed for f64 {}
impl Element for f64 {
    const DTYPE: DType = DType::F64;
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    #[inline(always)]
    fn to_value(self) -> Value {
        Value::F64(self)
    }
    #[inline(always)]
    fn from_value(v: Value) -> Self {
        match v {
            Value::Bool(b) => b as u8 as f64,
            Value::Int(i) => i as f64,
            Value::UInt(u) => u as f64,
            Value::F32(x) => x as f64,
            Value::F64(x) => x,
        }
    }
}

macro_rules! half_element {
    ($t:ty, $d:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn to_value(self) -> Value {
                Value::F32(self.to_f32())
            }
            #[inline(always)]
            fn from_value(v: Value) -> Self {
                // Everything goes through f32 first, as PyTorch's c10::Half/BFloat16 do.
                <$t>::from_f32(value_to_f32(v))
            }
        }
    };
}
half_element!(f16, F16);
half_element!(bf16, BF16);

/// Calls `$body` with the type alias `$T` bound to the Rust element type of a runtime `DType`.
/// Its arms are generated from the dtype list (`dtype_table!`, src/portable/dtype.rs).
#[macro_export]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::dtype_table! { @with ($dtype, $T => $body) $crate::__with_dtype }
    };
}

/// `with_dtype!`'s match, one arm per row of the dtype list.
#[doc(hidden)]
#[macro_export]
macro_rules! __with_dtype {
    (($dtype:expr, $T:ident => $body:expr) $($c:ident [$($V:ident $t:ident: $Ty:ty, $s:literal;)*])*) => {
        match $dtype {
            $($($crate::DType::$V => {
                type $T = $Ty;
                $body
            })*)*
        }
    };
}
