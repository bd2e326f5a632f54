//! The kernels. Every arithmetic and indexing step is a `weft` function (functors from
//! `weft::functors`, per-thread bodies from `weft::device::layout`); this file only adds the
//! thread indices and the entry points.
#![allow(improper_ctypes_definitions)] // functors travel by value; the host passes their bytes

use weft::device::layout::{
    Outlined, StridedLayout, WithScalar, binary_contig, binary_strided, ternary_contig,
    ternary_strided, unary_contig, unary_strided,
};
use weft::functors::table::{Cost, cost_of, str_eq};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Never `loop {}`: a trapped kernel fails its launch instead of hanging the GPU.
    // SAFETY: `trap` aborts the kernel; it has no other preconditions.
    unsafe { core::arch::nvptx::trap() }
}

/// (global thread id, total threads) of a 1-D grid, in 64 bits.
#[inline(always)]
fn thread() -> (u64, u64) {
    // SAFETY: reading the special registers has no preconditions.
    unsafe {
        use core::arch::nvptx::*;
        let (b, bd, t, g) = (
            _block_idx_x() as u64,
            _block_dim_x() as u64,
            _thread_idx_x() as u64,
            _grid_dim_x() as u64,
        );
        (b * bd + t, g * bd)
    }
}

/// Whether op `op` computing in type `t` calls its functor through one shared non-inlined
/// function ([`Outlined`]) instead of inlining it at every call site (16 per contiguous kernel
/// for 1-byte types, 2 per strided kernel). Outlined: ops the op table does not call `Cheap`
/// (libm-based and other long functors), the long kernels outside the table, and every
/// f16/bf16 op (each inlined copy carries software f16/bf16 <-> f32 conversions). Cheap
/// arithmetic, comparisons and bit ops on the other types stay inlined (the bandwidth-bound
/// hot paths).
const fn outline(op: &str, t: &str) -> bool {
    const LONG_SPECIALS: &[&str] = &["pow_scalar", "lerp", "lerp_scalar", "softmax_apply"];
    if str_eq(t, "f16") || str_eq(t, "bf16") {
        return true;
    }
    match cost_of(op) {
        Some(Cost::Cheap) => false,
        Some(_) => true,
        None => {
            let mut i = 0;
            while i < LONG_SPECIALS.len() {
                if str_eq(op, LONG_SPECIALS[i]) {
                    return true;
                }
                i += 1;
            }
            false
        }
    }
}

// Each (op, type) gives two kernels: `_c` (contiguous, 16-byte vectors, takes `numel`) and `_s`
// (strided, 32- or 64-bit index math chosen by the layout, operands cast from/to their runtime
// dtypes). `$O`: outline the functor (see `outline`).
macro_rules! unary_kernels {
    ($name:expr, $F:ty, $A:ty, $O:expr) => {
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(n: u64, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { unary_contig::<_, $A>(tid, nt, n, &f, out, a) }
        }
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(l: StridedLayout, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe { unary_strided::<_, $A>(tid, nt, &l, &f, out, a) }
        }
    };
}

macro_rules! binary_kernels {
    ($name:expr, $F:ty, $A:ty, $B:ty, $O:expr) => {
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(
            n: u64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { binary_contig::<_, $A, $B>(tid, nt, n, &f, out, a, b) }
        }
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(
            l: StridedLayout,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe { binary_strided::<_, $A, $B>(tid, nt, &l, &f, out, a, b) }
        }
    };
}

macro_rules! ternary_kernels {
    ($name:expr, $F:ty, $A:ty, $B:ty, $C:ty, $O:expr) => {
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(
            n: u64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { ternary_contig::<_, $A, $B, $C>(tid, nt, n, &f, out, a, b, c) }
        }
        #[unsafe(export_name = concat!($name, "_s"))]
        pub unsafe extern "ptx-kernel" fn s(
            l: StridedLayout,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = thread();
            let f = Outlined::<$F, { $O }>(f);
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            unsafe { ternary_strided::<_, $A, $B, $C>(tid, nt, &l, &f, out, a, b, c) }
        }
    };
}

/// Instantiates one entry for one type (`T` is bound by the caller).
macro_rules! kernels_for {
    ($name:expr, ($A:ty), $F:path, $O:expr) => {
        unary_kernels!($name, $F, $A, $O);
    };
    ($name:expr, ($A:ty, $B:ty), $F:path, $O:expr) => {
        binary_kernels!($name, $F, $A, $B, $O);
    };
    ($name:expr, ($A:ty, $B:ty, $C:ty), $F:path, $O:expr) => {
        ternary_kernels!($name, $F, $A, $B, $C, $O);
    };
}

/// The `gpu_kernel_list!` callback: a tt-muncher over the entries, one `const _` block (its own
/// namespace for `c`/`s`) per (op, type).
macro_rules! instantiate {
    () => {};
    ($name:ident ($A:ty, $B:ty) => $F:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
        $(const _: () = {
            #[allow(dead_code)]
            type T = weft::__gpu_user_type!($t);
            kernels_for!(concat!(stringify!($name), "_", stringify!($t)), ($A, $B), $F, outline(stringify!($name), stringify!($t)));
        };
        const _: () = {
            #[allow(dead_code)]
            type T = weft::__gpu_user_type!($t);
            unary_kernels!(concat!(stringify!($name), "_scalar_", stringify!($t)), WithScalar<$F, $B>, $A, outline(stringify!($name), stringify!($t)));
        };)*
        instantiate!($($rest)*);
    };
    ($name:ident $args:tt => $F:path: [$($t:ident),*]; $($rest:tt)*) => {
        $(const _: () = {
            #[allow(dead_code)]
            type T = weft::__gpu_user_type!($t);
            kernels_for!(concat!(stringify!($name), "_", stringify!($t)), $args, $F, outline(stringify!($name), stringify!($t)));
        };)*
        instantiate!($($rest)*);
    };
}

weft::gpu_kernel_list!(instantiate);

// ---------------------------------------------------------------------------------------------
// Reductions: one kernel per (reducer family, type) of `weft::gpu_reduce_list!`, each the CPU
// engine's own loops (`weft::device::reduce::reduce_body`) in the mode the launch names.

use weft::device::reduce::{ReduceLaunch, SoftmaxRowsLaunch, reduce_body, softmax_rows_body};

macro_rules! reduce_kernels {
    ($family:ident ($R:ty) [$($tok:ident $T:ty),*]) => {$(
        const _: () = {
            #[allow(dead_code)]
            type T = $T;
            #[unsafe(export_name = concat!("reduce_", stringify!($family), "_", stringify!($tok)))]
            pub unsafe extern "ptx-kernel" fn k(
                l: ReduceLaunch,
                out0: *mut u8,
                out1: *mut u8,
                input: *const u8,
                scratch: *mut u8,
            ) {
                let (tid, nt) = thread();
                // SAFETY: the host planner (`weft::device::reduce_plan`) builds `l` from the
                // input view and the fresh contiguous outputs and scratch buffer it passes, of
                // the reducer's types; each item is one thread's.
                unsafe { reduce_body::<$R>(tid, nt, &l, &[out0, out1], input, scratch) }
            }
        };
    )*};
}
weft::gpu_reduce_list!(reduce_kernels!());

macro_rules! softmax_rows_kernels {
    ($($name:literal $F:ty;)*) => {$(
        const _: () = {
            #[unsafe(export_name = $name)]
            pub unsafe extern "ptx-kernel" fn k(l: SoftmaxRowsLaunch, out: *mut u8, x: *const u8) {
                let (tid, nt) = thread();
                // SAFETY: the host passes contiguous buffers of `rows * n` elements, the output
                // fresh.
                unsafe { softmax_rows_body::<$F>(tid, nt, &l, out, x) }
            }
        };
    )*};
}
// The types of `weft::device::kernel_list::SOFTMAX_ROW_TYPES`.
softmax_rows_kernels! {
    "reduce_softmax_rows_f32" f32;
    "reduce_softmax_rows_f64" f64;
}
