//! Your own functors on the GPU: [`gpu_user_kernels!`](crate::gpu_user_kernels) writes the PTX
//! kernel entry points of a functor crate, from a list in the format of weft's own kernel list
//! ([`gpu_kernel_list!`](crate::gpu_kernel_list)) and of
//! [`impl_dyn_functors!`](crate::impl_dyn_functors).
//!
//! # The steps
//!
//! 1. A library crate with your functors (`Copy` structs + `Functor` impls, `core` only inside
//!    `call`), depending on weft with `default-features = false`, whose `lib.rs` starts with
//!    ```text
//!    #![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx, stdarch_nvptx))]
//!    ```
//!    and lists the functors once:
//!    ```text
//!    weft::gpu_user_kernels! {
//!        "smooth_l1"      (T, T)    => SmoothL1: [f32, f64, f16, bf16];
//!        "scaled_mul_add" (T, T, T) => ScaledMulAdd: [f32, f64];
//!    }
//!    ```
//!    Template: `gpu/examples/user-functors/`.
//! 2. `gpu/build-user-ptx.sh <crate-dir> <out.ptx>` compiles it to PTX with the pipeline of
//!    `gpu/build-ptx.sh` (nightly + rust-src + llvm-tools, `-Zbuild-std=core`,
//!    `panic=immediate-abort`; refuses unresolved symbols and trap paths).
//! 3. Host (feature `cuda`): `unsafe { ctx.load_module("my_functors", &ptx_text) }` (or
//!    `load_module_file`; `unsafe`: the caller vouches that the PTX is this step's output for
//!    the functors it launches, see its `# Safety`), then the same calls as on the CPU, on
//!    device tensors:
//!    `x.zip_with(&t, SmoothL1 { beta: 1.0 })` (`CudaTensor::{map, zip_with, zip3_with}`, their
//!    `try_` forms, or [`apply_cuda`](crate::device::user::apply_cuda) with a
//!    [`Promotion`](crate::ops::custom::Promotion)).
//!
//! # What the macro writes
//!
//! * compiled for `nvptx64`: for every entry and type `t`, the kernels `{op}_{t}_c`
//!   (contiguous, 16-byte vectors) and `{op}_{t}_s` (strided, 32/64-bit index math, operands
//!   converted from/to their runtime dtypes), with the per-thread bodies of
//!   [`crate::device::layout`] (the ones weft's own kernels run) and the functor value as a
//!   kernel argument; plus the crate's `#[panic_handler]` (a trap), so **invoke it once per
//!   crate**. f16/bf16 instantiations call the functor through one shared function
//!   ([`Outlined`](crate::device::layout::Outlined)), as weft's kernels do;
//! * on the host with weft's `std` feature (what a program using weft has): the
//!   [`DynFunctor`](crate::ops::custom::DynFunctor) impls, exactly as
//!   [`impl_dyn_functors!`](crate::impl_dyn_functors) with the same list, so
//!   `DynTensor::zip_with` and `CudaTensor::zip_with` work with the functor. Do not also list it
//!   in `impl_dyn_functors!`;
//! * nothing else (a host build of the crate never sees the nightly-only parts).
//!
//! `, scalar` after the functor (an option of weft's own list) is accepted and ignored: pass a
//! scalar operand as a one-element (broadcast) device tensor.

/// The PTX entry points (`.entry` / `.visible .entry`) a PTX text defines, in order.
#[cfg(feature = "std")]
pub fn ptx_entry_names(ptx: &str) -> std::vec::Vec<std::string::String> {
    ptx.lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix(".visible .entry ")
                .or_else(|| l.trim_start().strip_prefix(".entry "))
        })
        .map(|rest| rest.split('(').next().unwrap_or("").trim().into())
        .collect()
}

/// Whether the functor of a `t` instantiation is called through one shared function
/// (f16/bf16: each inlined copy would carry the software f32 conversions).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_outline {
    (f16) => {
        true
    };
    (bf16) => {
        true
    };
    ($t:ident) => {
        false
    };
}

/// The Rust type of a kernel-list type token (`f32`, `bf16`, ...); `no_std`, shared by
/// `gpu_user_kernels!`, the host's `impl_dyn_functors!` and gpu/kernels: `dtype::tokens`,
/// generated from the dtype list (`dtype_table!`, src/portable/dtype.rs).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_type {
    ($t:ident) => {
        $crate::dtype::tokens::$t
    };
}

/// (global thread id, total threads) of a 1-D grid (nvptx64 only; needs `stdarch_nvptx`).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_thread {
    () => {{
        // SAFETY: reading the special registers has no preconditions.
        unsafe {
            use ::core::arch::nvptx::*;
            let (b, bd, t, g) = (
                _block_idx_x() as u64,
                _block_dim_x() as u64,
                _thread_idx_x() as u64,
                _grid_dim_x() as u64,
            );
            (b * bd + t, g * bd)
        }
    }};
}

/// The two kernels (`_c`, `_s`) of one (entry, type); `T` is bound by the caller.
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_entry {
    ($name:expr, $F:ty, $O:expr, ($A:ty)) => {
        #[allow(improper_ctypes_definitions)] // the functor travels by value (its bytes)
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(n: u64, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { $crate::device::layout::unary_contig::<_, $A>(tid, nt, n, &f, out, a) }
        }
        #[allow(improper_ctypes_definitions)]
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(
            l: $crate::device::layout::StridedLayout,
            f: $F,
            out: *mut u8,
            a: *const u8,
        ) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe { $crate::device::layout::unary_strided::<_, $A>(tid, nt, &l, &f, out, a) }
        }
    };
    ($name:expr, $F:ty, $O:expr, ($A:ty, $B:ty)) => {
        #[allow(improper_ctypes_definitions)]
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(
            n: u64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { $crate::device::layout::binary_contig::<_, $A, $B>(tid, nt, n, &f, out, a, b) }
        }
        #[allow(improper_ctypes_definitions)]
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(
            l: $crate::device::layout::StridedLayout,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe {
                $crate::device::layout::binary_strided::<_, $A, $B>(tid, nt, &l, &f, out, a, b)
            }
        }
    };
    ($name:expr, $F:ty, $O:expr, ($A:ty, $B:ty, $C:ty)) => {
        #[allow(improper_ctypes_definitions)]
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(
            n: u64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe {
                $crate::device::layout::ternary_contig::<_, $A, $B, $C>(
                    tid, nt, n, &f, out, a, b, c,
                )
            }
        }
        #[allow(improper_ctypes_definitions)]
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(
            l: $crate::device::layout::StridedLayout,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = $crate::__gpu_user_thread!();
            let f = $crate::device::layout::Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe {
                $crate::device::layout::ternary_strided::<_, $A, $B, $C>(
                    tid, nt, &l, &f, out, a, b, c,
                )
            }
        }
    };
}

/// The nvptx64 half of [`gpu_user_kernels!`]: a tt-muncher, one `const _` block (its own
/// namespace for `c`/`s`) per (entry, type).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_device {
    () => {};
    ($name:literal $args:tt => $f:ty $(, scalar)? : [$($t:ident),+ $(,)?]; $($rest:tt)*) => {
        $(
            #[cfg(target_arch = "nvptx64")]
            const _: () = {
                #[allow(dead_code)]
                type T = $crate::__gpu_user_type!($t);
                $crate::__gpu_user_entry!(
                    concat!($name, "_", stringify!($t)),
                    $f,
                    $crate::__gpu_user_outline!($t),
                    $args
                );
            };
        )+
        $crate::__gpu_user_device!($($rest)*);
    };
}

/// The device half plus the panic handler (nvptx64 only).
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_user_device_crate {
    ($($entries:tt)*) => {
        #[cfg(target_arch = "nvptx64")]
        #[panic_handler]
        fn __weft_user_kernels_panic(_: &::core::panic::PanicInfo) -> ! {
            // Never `loop {}`: a trapped kernel fails its launch instead of hanging the GPU.
            // SAFETY: `trap` aborts the kernel; it has no other preconditions.
            unsafe { ::core::arch::nvptx::trap() }
        }
        $crate::__gpu_user_device!($($entries)*);
    };
}

/// Writes the GPU kernels of your functors (compiled for nvptx64) and, on the host, their
/// [`DynFunctor`](crate::ops::custom::DynFunctor) impls, from one list:
///
/// ```text
/// weft::gpu_user_kernels! {
///     "smooth_l1"      (T, T)       => SmoothL1: [f32, f64, f16, bf16];
///     "scale_shift"    (T)          => ScaleShift: [f32, f64];
///     "select_add"     (bool, T, T) => SelectAdd: [f32, i64];
/// }
/// ```
///
/// The format is [`impl_dyn_functors!`](crate::impl_dyn_functors)'s (and weft's own kernel
/// list's): the op name (kernel names `{op}_{t}_c` / `{op}_{t}_s`; the host finds them by
/// [`DynFunctor::NAME`](crate::ops::custom::DynFunctor::NAME)), the argument tuple with `T` for
/// the computation dtype, the functor type, the supported dtypes. The crate root must enable
/// `#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx, stdarch_nvptx))]`; invoke the
/// macro once per crate (it also defines the device `#[panic_handler]`). See
/// [`crate::device::user_kernels`] for the whole workflow.
#[cfg(feature = "std")]
#[macro_export]
macro_rules! gpu_user_kernels {
    ($($entries:tt)*) => {
        $crate::__gpu_user_device_crate!($($entries)*);
        $crate::impl_dyn_functors!($($entries)*);
    };
}

/// Writes the GPU kernels of your functors (this is weft without `std`, e.g. the nvptx64 build:
/// only the kernels). See the `std` documentation of this macro and
/// [`crate::device::user_kernels`].
#[cfg(not(feature = "std"))]
#[macro_export]
macro_rules! gpu_user_kernels {
    ($($entries:tt)*) => {
        $crate::__gpu_user_device_crate!($($entries)*);
    };
}
