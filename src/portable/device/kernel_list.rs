//! THE list of GPU kernels: which (op, functor, argument types) `gpu/kernels` instantiates and
//! the host may launch. One list, read by both sides through [`gpu_kernel_list!`](crate::gpu_kernel_list); its entries
//! for the elementwise ops are generated from the op table (`functors::table`).
//!
//! Editing it changes `gpu/kernels.ptx`: run `gpu/build-ptx.sh`.
//!
//! # Format
//!
//! `gpu_kernel_list!(callback)` expands to `callback! { ENTRY* }`, one entry per op:
//!
//! ```text
//! add (T, T) => path::to::Functor, scalar: [f32, f64, f16, bf16, i64, i32, i16, i8, u8];
//! neg (T)    => path::to::Functor: [f32, f64];
//! where (bool, T, T) => path::to::Functor: [f32, f64, i64];
//! ```
//!
//! * the identifier is the op name; kernels are named `{op}_{t}_{variant}` (and, with `scalar`,
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

/// `kernel_suffix`, one arm per row of the dtype list (`dtype_table!`, src/portable/dtype.rs).
macro_rules! kernel_suffix_fn {
    (() $($c:ident [$($V:ident $t:ident: $T:ty, $s:literal;)*])*) => {
        /// The kernel-name suffix of a dtype: its type token, the Rust type name (`f32`, `bf16`,
        /// `bool`, ...).
        pub const fn kernel_suffix(d: DType) -> &'static str {
            match d {
                $($(DType::$V => stringify!($t),)*)*
            }
        }
    };
}
crate::dtype_table!(kernel_suffix_fn);

/// Expands `$callback! { ... }` with the kernel list (format: see the module docs): one entry
/// per line of the op tables ([`binary_op_table!`](crate::binary_op_table),
/// [`unary_op_table!`](crate::unary_op_table): kernels for the line's dtype set, a `scalar`
/// variant for `ScalarKernel` ops; `OwnMethods`/`ViaPow` ops have their own entries or none),
/// then the kernels of the ops with arguments and of PyTorch's special forms.
///
/// Op names are PyTorch's (`BinaryOp::name`, `UnaryOp::name`), plus: `*_scalar_opmath` (f16/bf16
/// mul/div/floor_divide by a CPU scalar kept at f32), `pow_scalar` (scalar exponent with exact
/// fast paths), `lerp_scalar` (scalar weight), and `copy` (identity in the source dtype: the
/// `s` variant stores with the output's runtime dtype, so it is every cast `to(dtype)` too).
/// The `, scalar` kernels (a tensor op a scalar kernel argument) exist for the hot arithmetic
/// ops only; any other scalar operand runs as a broadcast one-element device tensor of the
/// computation dtype (the same value the CPU binds into its functor: `Scalar::to::<C>()`).
///
/// Expanding it nests one macro call per table line: crates that call it raise
/// `recursion_limit` (weft, gpu/kernels and tests/device_abi.rs set 512).
#[macro_export]
macro_rules! gpu_kernel_list {
    ($($callback:tt)+) => {
        $crate::dtype_table! { @with ([$($callback)+]) $crate::__kernel_list_binary }
    };
}

/// `gpu_kernel_list!`'s muncher over the binary table lines (state: the callback, the entries
/// so far, and the sections of the dtype list, fetched once so that each line's dtype group is
/// one `__dtype_list!` level: `recursion_limit`); hands over to [`__kernel_list_unary`] at the
/// end. A line's types are its group's type tokens (`dtype_table!`, src/portable/dtype.rs).
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_list_binary {
    (([$($cb:tt)+]) $($sections:tt)*) => {
        $crate::binary_op_table! { @with ([$($cb)+] [] {$($sections)*}) $crate::__kernel_list_binary }
    };
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt)) => {
        $crate::unary_op_table! { @with ([$($cb)+] [$($acc)*] $dt) $crate::__kernel_list_unary }
    };
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt) $Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [ScalarKernel $($f:ident)*]; $($rest:tt)*) => {
        $crate::__dtype_list! { $dtypes $dt; $crate::__kernel_list_binary; @typed ([$($cb)+] [$($acc)*] $dt) ($($rest)*) $name (T, T) => $crate::functors::$Op, scalar }
    };
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt) $Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*]; $($rest:tt)*) => {
        $crate::__dtype_list! { $dtypes $dt; $crate::__kernel_list_binary; @typed ([$($cb)+] [$($acc)*] $dt) ($($rest)*) $name (T, T) => $crate::functors::$Op }
    };
    (@typed ([$($cb:tt)+] [$($acc:tt)*] $dt:tt) ($($rest:tt)*) $name:ident $args:tt => $F:path $(, $s:ident)? [$($V:ident $t:ident: $T:ty, $z:literal;)*]) => {
        $crate::__kernel_list_binary! { ([$($cb)+] [$($acc)* $name $args => $F $(, $s)?: [$($t),*];] $dt) $($rest)* }
    };
}

/// `gpu_kernel_list!`'s muncher over the unary table lines; ends with the callback, given every
/// entry and the fixed ones.
#[doc(hidden)]
#[macro_export]
macro_rules! __kernel_list_unary {
    // The fixed entries take their type lists from the dtype list's sections (`$dt`):
    // `$b` bool, `$i` the integers, `$f` the floats.
    (([$($cb:tt)+] [$($acc:tt)*] {
        Bool [$($bV:ident $b:ident: $bT:ty, $bs:literal;)*]
        Integer [$($iV:ident $i:ident: $iT:ty, $is:literal;)*]
        Float [$($fV:ident $f:ident: $fT:ty, $fs:literal;)*]
    })) => {
        $($cb)+! {
            $($acc)*
            mul_scalar_opmath (T) => $crate::functors::MulScalarOpmath: [f16, bf16];
            div_scalar_opmath (T) => $crate::functors::DivScalarOpmath: [f16, bf16];
            floor_divide_scalar_opmath (T) => $crate::functors::FloorDivideScalarOpmath: [f16, bf16];
            pow_scalar (T) => $crate::functors::PowScalar<T>: [$($i,)* $($f),*];
            gelu (T) => $crate::functors::Gelu: [$($f),*];
            clamp (T) => $crate::functors::Clamp<T>: [$($i,)* $($f),*];
            leaky_relu (T) => $crate::functors::LeakyRelu: [$($f),*];
            hardtanh (T) => $crate::functors::Hardtanh<T>: [$($i,)* $($f),*];
            where (bool, T, T) => $crate::functors::Where: [$($b,)* $($i,)* $($f),*];
            masked_fill (T, bool) => $crate::functors::MaskedFill<T>: [$($b,)* $($i,)* $($f),*];
            lerp (T, T, T) => $crate::functors::Lerp: [$($f),*];
            lerp_scalar (T, T) => $crate::functors::LerpScalar: [$($f),*];
            addcmul (T, T, T) => $crate::functors::Addcmul<T>: [$($i,)* f32, f64];
            addcmul (T, T, T) => $crate::functors::Addcmul<f32>: [f16, bf16];
            copy (T) => $crate::functors::Cast<T>: [$($b,)* $($i,)* $($f),*];
            softmax_apply (T, T, f32) => $crate::reduce::reducers::SoftmaxApply: [f16, bf16, f32];
            softmax_apply (T, T, f64) => $crate::reduce::reducers::SoftmaxApply: [f64];
        }
    };
    // Ops with their own entry (gelu) or run as another op (square as pow_scalar): none here.
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt) $Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [OwnMethods $($f:ident)*]; $($rest:tt)*) => {
        $crate::__kernel_list_unary! { ([$($cb)+] [$($acc)*] $dt) $($rest)* }
    };
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt) $Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [ViaPow $($f:ident)*]; $($rest:tt)*) => {
        $crate::__kernel_list_unary! { ([$($cb)+] [$($acc)*] $dt) $($rest)* }
    };
    (([$($cb:tt)+] [$($acc:tt)*] $dt:tt) $Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*]; $($rest:tt)*) => {
        $crate::__dtype_list! { $dtypes $dt; $crate::__kernel_list_unary; @typed ([$($cb)+] [$($acc)*] $dt) ($($rest)*) $name (T) => $crate::functors::$Op }
    };
    (@typed ([$($cb:tt)+] [$($acc:tt)*] $dt:tt) ($($rest:tt)*) $name:ident $args:tt => $F:path [$($V:ident $t:ident: $T:ty, $z:literal;)*]) => {
        $crate::__kernel_list_unary! { ([$($cb)+] [$($acc)* $name $args => $F: [$($t),*];] $dt) $($rest)* }
    };
}

/// Callback for [`gpu_kernel_list!`] that yields the names of every listed kernel as a
/// `&[&str]` (used by the host to check the PTX declares them all).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_kernel_names {
    (@acc [$($done:tt)*]) => { &[$($done)*] as &[&str] };
    (@acc [$($done:tt)*] $name:ident $args:tt => $f:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
        $crate::__gpu_kernel_names!(@acc [$($done)* $(
            concat!(stringify!($name), "_", stringify!($t), "_c"),
            concat!(stringify!($name), "_", stringify!($t), "_s"),
            concat!(stringify!($name), "_scalar_", stringify!($t), "_c"),
            concat!(stringify!($name), "_scalar_", stringify!($t), "_s"),
        )*] $($rest)*)
    };
    (@acc [$($done:tt)*] $name:ident $args:tt => $f:path: [$($t:ident),*]; $($rest:tt)*) => {
        $crate::__gpu_kernel_names!(@acc [$($done)* $(
            concat!(stringify!($name), "_", stringify!($t), "_c"),
            concat!(stringify!($name), "_", stringify!($t), "_s"),
        )*] $($rest)*)
    };
    // A user kernel list (`gpu_user_kernels!`) names its ops with string literals.
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

/// The reduction kernels: one per (reducer family, input type), named
/// `reduce_{family}_{t}`, each the body [`reduce_body`](crate::device::reduce::reduce_body)
/// over the family's reducer (the CPU engine's own type; see `reduce::exec` for which op runs
/// which). Expands `$m! { args... family (Reducer written with T) [t Type, ...] }` once per
/// family; the types come from the dtype list's groups.
///
/// | family | reducer | ops |
/// |---|---|---|
/// | `fold` | `Fold<T, SumAcc, Sum>` | sum, prod, mean |
/// | `fold_to_{o}` | `Fold<T, wider of the two float accumulators, o>` | float sum/prod/mean with a float `dtype=` |
/// | `extreme` | `Extreme<T>` | amax, amin (and the row maxima of logsumexp/softmax) |
/// | `arg` | `Arg<T, i64>` | argmax, argmin |
/// | `arg_value` | `Arg<T, WithIndex<T>>` | max(dim), min(dim) |
/// | `any_all` | `AnyAll<T, AnyAll>` | any, all |
/// | `var` | `Variance<T>` | var, std |
/// | `lse` | `ExpSum<T, Exp, T>` | logsumexp |
/// | `exp_sum` | `ExpSum<T, Exp, Exp>` | the row factors of softmax, log_softmax |
#[macro_export]
macro_rules! gpu_reduce_list {
    ($($m:ident)::+ ! ($($args:tt)*)) => {
        $crate::__dtype_list! { all; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (fold)
            ($crate::reduce::reducers::Fold<T, <T as $crate::reduce::ReduceElement>::SumAcc, <T as $crate::reduce::ReduceElement>::Sum>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (fold_to_f16)
            ($crate::reduce::reducers::Fold<T, <T as $crate::reduce::FloatFoldAcc<$crate::half::f16>>::Acc, $crate::half::f16>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (fold_to_bf16)
            ($crate::reduce::reducers::Fold<T, <T as $crate::reduce::FloatFoldAcc<$crate::half::bf16>>::Acc, $crate::half::bf16>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (fold_to_f32)
            ($crate::reduce::reducers::Fold<T, <T as $crate::reduce::FloatFoldAcc<f32>>::Acc, f32>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (fold_to_f64)
            ($crate::reduce::reducers::Fold<T, <T as $crate::reduce::FloatFoldAcc<f64>>::Acc, f64>) }
        $crate::__dtype_list! { all; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (extreme)
            ($crate::reduce::reducers::Extreme<T>) }
        $crate::__dtype_list! { all; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (arg)
            ($crate::reduce::reducers::Arg<T, i64>) }
        $crate::__dtype_list! { all; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (arg_value)
            ($crate::reduce::reducers::Arg<T, $crate::reduce::fold::WithIndex<T>>) }
        $crate::__dtype_list! { all; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (any_all)
            ($crate::reduce::reducers::AnyAll<T, <T as $crate::reduce::ReduceElement>::AnyAll>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (var)
            ($crate::reduce::reducers::Variance<T>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (lse)
            ($crate::reduce::reducers::ExpSum<'static, T, <T as $crate::reduce::ReduceFloat>::Exp, T>) }
        $crate::__dtype_list! { float; $crate::__reduce_list_entry; ($($m)::+) ($($args)*) (exp_sum)
            ($crate::reduce::reducers::ExpSum<'static, T, <T as $crate::reduce::ReduceFloat>::Exp, <T as $crate::reduce::ReduceFloat>::Exp>) }
    };
}

/// One family of [`gpu_reduce_list!`]: hands the callback the family's type tokens and types.
#[doc(hidden)]
#[macro_export]
macro_rules! __reduce_list_entry {
    (($($m:ident)::+) ($($args:tt)*) ($family:ident) ($($R:tt)*) [$($V:ident $tok:ident: $T:ty, $s:literal;)*]) => {
        $($m)::+! { $($args)* $family ($($R)*) [$($tok $T),*] }
    };
}

/// The fused softmax row kernels (`reduce_softmax_rows_{t}`, contiguous rows along the last
/// dim): the CPU's fused path, for the types it takes.
pub const SOFTMAX_ROW_TYPES: [DType; 2] = [DType::F32, DType::F64];
