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
//! Variants (all grid-stride): `c` contiguous (same dtypes, 16-byte vectors, takes `numel`),
//! `s32` strided with 32-bit index math (same dtypes, takes a [`Layout32`]), `x64` strided with
//! 64-bit index math that casts every operand from/to its runtime dtype (takes a
//! [`Layout64`]); each also takes the functor value by value (nothing for a zero-sized one).
//!
//! [`Layout32`]: crate::device::layout::Layout32
//! [`Layout64`]: crate::device::layout::Layout64

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
/// PLACEHOLDER functors until `src/functors` has the real ones: replace
/// `$crate::device::placeholder::PAdd` by `$crate::functors::Add` etc.
#[macro_export]
macro_rules! gpu_kernel_list {
    ($($callback:tt)+) => {
        $($callback)+! {
            "add" (T, T) => $crate::device::placeholder::PAdd, scalar: [f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool];
            "neg" (T) => $crate::device::placeholder::PNeg: [f32, f64, f16, bf16, i64, i32, i16, i8, u8];
            "exp" (T) => $crate::device::placeholder::PExp: [f32, f64, f16, bf16];
            "where" (bool, T, T) => $crate::device::placeholder::PWhere: [f32, f64, f16, bf16, i64, i32];
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
            concat!($name, "_", stringify!($t), "_s32"),
            concat!($name, "_", stringify!($t), "_x64"),
            concat!($name, "_scalar_", stringify!($t), "_c"),
            concat!($name, "_scalar_", stringify!($t), "_s32"),
            concat!($name, "_scalar_", stringify!($t), "_x64"),
        )*] $($rest)*)
    };
    (@acc [$($done:tt)*] $name:literal $args:tt => $f:path: [$($t:ident),*]; $($rest:tt)*) => {
        $crate::__gpu_kernel_names!(@acc [$($done)* $(
            concat!($name, "_", stringify!($t), "_c"),
            concat!($name, "_", stringify!($t), "_s32"),
            concat!($name, "_", stringify!($t), "_x64"),
        )*] $($rest)*)
    };
    ($($entries:tt)*) => { $crate::__gpu_kernel_names!(@acc [] $($entries)*) };
}

/// Every kernel name the list declares.
pub const KERNEL_NAMES: &[&str] = gpu_kernel_list!(crate::__gpu_kernel_names);

/// The name of kernel `variant` (`c`, `s32`, `x64`) of `op` computing in `dtype`.
#[cfg(feature = "std")]
pub fn kernel_name(op: &str, dtype: DType, variant: &str) -> std::string::String {
    std::format!("{op}_{}_{variant}", kernel_suffix(dtype))
}
