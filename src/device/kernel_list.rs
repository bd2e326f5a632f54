//! THE list of GPU kernels: which (op, functor, argument types) `gpu/kernels` instantiates and
//! the host may launch. One list, read by both sides through [`gpu_kernel_list!`].
//!
//! Editing it changes `gpu/kernels.ptx`: run `gpu/build-ptx.sh`.
//!
//! # Format
//!
//! `gpu_kernel_list!(callback)` expands to `callback! { ENTRY* }`, one entry per op:
//!
//! ```text
//! "add" (T, T) => path::to::Functor, scalar: [f32, f64, f16, bf16, i64, i32, i16, i8, u8];
//! "neg" (T)    => path::to::Functor: [f32, f64];
//! "where" (bool, T, T) => path::to::Functor: [f32, f64, i64];
//! ```
//!
//! * the string is the op name; kernels are named `{op}_{t}_{variant}` (and, with `scalar`,
//!   also `{op}_scalar_{t}_{variant}`), `t` being each type token in the brackets;
//! * the parenthesised list gives the functor's argument types, written with `T`, which is
//!   bound to each bracketed type in turn (1, 2 or 3 arguments: unary, binary, ternary); the
//!   output type is the functor's `Output`;
//! * `scalar` (binary only) also instantiates `WithScalar<F, B>`: the second operand is a
//!   scalar passed as a kernel argument;
//! * type tokens are exactly `bool u8 i8 i16 i32 i64 f16 bf16 f32 f64` ([`kernel_suffix`]).
//!
//! Variants (all grid-stride): `c` contiguous (same dtypes, 16-byte vectors, takes `numel`) and
//! `s` strided (takes a [`StridedLayout`]: 32-bit index math when every offset fits, else 64-bit;
//! each operand read/written with its runtime dtype, converted when it is not the kernel's); each
//! also takes the functor value by value (nothing for a zero-sized one). Expensive functors are
//! one shared non-inlined function per (functor, type) (see `outline` in gpu/kernels).
//!
//! [`StridedLayout`]: crate::device::layout::StridedLayout

use crate::dtype::DType;

/// The kernel-name suffix of a dtype: the Rust type name (`f32`, `bf16`, `bool`, ...).
pub const fn kernel_suffix(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "u8",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::F32 => "f32",
        DType::F64 => "f64",
    }
}

/// Expands `$callback! { ... }` with the kernel list (format: see the module docs).
///
/// Op names are PyTorch's (`BinaryOp::name`, `UnaryOp::name`), plus: `*_scalar_opmath` (f16/bf16
/// mul/div/floor_divide by a CPU scalar kept at f32), `pow_scalar` (scalar exponent with exact
/// fast paths), `lerp_scalar` (scalar weight), and `copy` (identity in the source dtype: the
/// `s` variant stores with the output's runtime dtype, so it is every cast `to(dtype)` too).
/// The `, scalar` kernels (a tensor op a scalar kernel argument) exist for the hot arithmetic
/// ops only; any other scalar operand runs as a broadcast one-element device tensor of the
/// computation dtype (the same value the CPU binds into its functor: `Scalar::to::<C>()`).
#[macro_export]
macro_rules! gpu_kernel_list {
    ($($callback:tt)+) => {
        $($callback)+! {
            "add" (T, T) => $crate::functors::Add, scalar: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "sub" (T, T) => $crate::functors::Sub, scalar: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "mul" (T, T) => $crate::functors::Mul, scalar: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "div" (T, T) => $crate::functors::Div, scalar: [f16, bf16, f32, f64];
            "floor_divide" (T, T) => $crate::functors::FloorDivide: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "remainder" (T, T) => $crate::functors::Remainder: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "fmod" (T, T) => $crate::functors::Fmod: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "pow" (T, T) => $crate::functors::Pow: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "atan2" (T, T) => $crate::functors::Atan2: [f16, bf16, f32, f64];
            "maximum" (T, T) => $crate::functors::Maximum: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "minimum" (T, T) => $crate::functors::Minimum: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "eq" (T, T) => $crate::functors::Eq: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "ne" (T, T) => $crate::functors::Ne: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "lt" (T, T) => $crate::functors::Lt: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "le" (T, T) => $crate::functors::Le: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "gt" (T, T) => $crate::functors::Gt: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "ge" (T, T) => $crate::functors::Ge: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "logical_and" (T, T) => $crate::functors::LogicalAnd: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "logical_or" (T, T) => $crate::functors::LogicalOr: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "logical_xor" (T, T) => $crate::functors::LogicalXor: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "bitwise_and" (T, T) => $crate::functors::BitwiseAnd: [bool, u8, i8, i16, i32, i64];
            "bitwise_or" (T, T) => $crate::functors::BitwiseOr: [bool, u8, i8, i16, i32, i64];
            "bitwise_xor" (T, T) => $crate::functors::BitwiseXor: [bool, u8, i8, i16, i32, i64];
            "bitwise_left_shift" (T, T) => $crate::functors::BitwiseLeftShift: [u8, i8, i16, i32, i64];
            "bitwise_right_shift" (T, T) => $crate::functors::BitwiseRightShift: [u8, i8, i16, i32, i64];
            "copysign" (T, T) => $crate::functors::Copysign: [f16, bf16, f32, f64];
            "hypot" (T, T) => $crate::functors::Hypot: [f16, bf16, f32, f64];
            "mul_scalar_opmath" (T) => $crate::functors::MulScalarOpmath: [f16, bf16];
            "div_scalar_opmath" (T) => $crate::functors::DivScalarOpmath: [f16, bf16];
            "floor_divide_scalar_opmath" (T) => $crate::functors::FloorDivideScalarOpmath: [f16, bf16];
            "pow_scalar" (T) => $crate::functors::PowScalar<T>: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "neg" (T) => $crate::functors::Neg: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "abs" (T) => $crate::functors::Abs: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "sign" (T) => $crate::functors::Sign: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "relu" (T) => $crate::functors::Relu: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "exp" (T) => $crate::functors::Exp: [f16, bf16, f32, f64];
            "expm1" (T) => $crate::functors::Expm1: [f16, bf16, f32, f64];
            "log" (T) => $crate::functors::Log: [f16, bf16, f32, f64];
            "log1p" (T) => $crate::functors::Log1p: [f16, bf16, f32, f64];
            "log2" (T) => $crate::functors::Log2: [f16, bf16, f32, f64];
            "log10" (T) => $crate::functors::Log10: [f16, bf16, f32, f64];
            "sqrt" (T) => $crate::functors::Sqrt: [f16, bf16, f32, f64];
            "rsqrt" (T) => $crate::functors::Rsqrt: [f16, bf16, f32, f64];
            "reciprocal" (T) => $crate::functors::Reciprocal: [f16, bf16, f32, f64];
            "sin" (T) => $crate::functors::Sin: [f16, bf16, f32, f64];
            "cos" (T) => $crate::functors::Cos: [f16, bf16, f32, f64];
            "tan" (T) => $crate::functors::Tan: [f16, bf16, f32, f64];
            "asin" (T) => $crate::functors::Asin: [f16, bf16, f32, f64];
            "acos" (T) => $crate::functors::Acos: [f16, bf16, f32, f64];
            "atan" (T) => $crate::functors::Atan: [f16, bf16, f32, f64];
            "sinh" (T) => $crate::functors::Sinh: [f16, bf16, f32, f64];
            "cosh" (T) => $crate::functors::Cosh: [f16, bf16, f32, f64];
            "tanh" (T) => $crate::functors::Tanh: [f16, bf16, f32, f64];
            "sigmoid" (T) => $crate::functors::Sigmoid: [f16, bf16, f32, f64];
            "silu" (T) => $crate::functors::Silu: [f16, bf16, f32, f64];
            "softplus" (T) => $crate::functors::Softplus: [f16, bf16, f32, f64];
            "erf" (T) => $crate::functors::Erf: [f16, bf16, f32, f64];
            "frac" (T) => $crate::functors::Frac: [f16, bf16, f32, f64];
            "gelu" (T) => $crate::functors::Gelu: [f16, bf16, f32, f64];
            "floor" (T) => $crate::functors::Floor: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "ceil" (T) => $crate::functors::Ceil: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "round" (T) => $crate::functors::Round: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "trunc" (T) => $crate::functors::Trunc: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "logical_not" (T) => $crate::functors::LogicalNot: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "bitwise_not" (T) => $crate::functors::BitwiseNot: [bool, u8, i8, i16, i32, i64];
            "isnan" (T) => $crate::functors::IsNan: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "isinf" (T) => $crate::functors::IsInf: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "isfinite" (T) => $crate::functors::IsFinite: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "clamp" (T) => $crate::functors::Clamp<T>: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "leaky_relu" (T) => $crate::functors::LeakyRelu: [f16, bf16, f32, f64];
            "hardtanh" (T) => $crate::functors::Hardtanh<T>: [u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "where" (bool, T, T) => $crate::functors::Where: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "masked_fill" (T, bool) => $crate::functors::MaskedFill<T>: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
            "lerp" (T, T, T) => $crate::functors::Lerp: [f16, bf16, f32, f64];
            "lerp_scalar" (T, T) => $crate::functors::LerpScalar: [f16, bf16, f32, f64];
            "addcmul" (T, T, T) => $crate::functors::Addcmul<T>: [u8, i8, i16, i32, i64, f32, f64];
            "addcmul" (T, T, T) => $crate::functors::Addcmul<f32>: [f16, bf16];
            "copy" (T) => $crate::functors::Cast<T>: [bool, u8, i8, i16, i32, i64, f16, bf16, f32, f64];
        }
    };
}

/// Callback for [`gpu_kernel_list!`] that yields the names of every listed kernel as a
/// `&[&str]` (used by the host to check the PTX declares them all).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_kernel_names {
    (@acc [$($done:tt)*]) => { &[$($done)*] as &[&str] };
    (@acc [$($done:tt)*] $name:literal $args:tt => $f:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
        $crate::__gpu_kernel_names!(@acc [$($done)* $(
            concat!($name, "_", stringify!($t), "_c"),
            concat!($name, "_", stringify!($t), "_s"),
            concat!($name, "_scalar_", stringify!($t), "_c"),
            concat!($name, "_scalar_", stringify!($t), "_s"),
        )*] $($rest)*)
    };
    (@acc [$($done:tt)*] $name:literal $args:tt => $f:path: [$($t:ident),*]; $($rest:tt)*) => {
        $crate::__gpu_kernel_names!(@acc [$($done)* $(
            concat!($name, "_", stringify!($t), "_c"),
            concat!($name, "_", stringify!($t), "_s"),
        )*] $($rest)*)
    };
    ($($entries:tt)*) => { $crate::__gpu_kernel_names!(@acc [] $($entries)*) };
}

/// Every kernel name the list declares.
pub const KERNEL_NAMES: &[&str] = gpu_kernel_list!(crate::__gpu_kernel_names);

/// The name of kernel `variant` (`c`, `s`) of `op` computing in `dtype`.
#[cfg(feature = "std")]
pub fn kernel_name(op: &str, dtype: DType, variant: &str) -> std::string::String {
    std::format!("{op}_{}_{variant}", kernel_suffix(dtype))
}
