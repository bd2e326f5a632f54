//! The kernels. Every arithmetic and indexing step is a `weft` function (functors from
//! `weft::functors`, per-thread bodies from `weft::device::layout`); this file only adds the
//! thread indices and the entry points.
#![allow(improper_ctypes_definitions)] // functors travel by value; the host passes their bytes

use weft::device::layout::{
    Layout32, Layout64, WithScalar, binary_at, binary_contig, grid_stride, ternary_at,
    ternary_contig, unary_at, unary_contig,
};
#[allow(unused_imports)]
use weft::half::{bf16, f16};

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

macro_rules! unary_kernels {
    ($name:expr, $F:ty, $A:ty) => {
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(n: u64, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = thread();
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { unary_contig::<$F, $A>(tid, nt, n, &f, out, a) }
        }
        #[unsafe(export_name = concat!($name, "_s32"))]
        pub unsafe extern "ptx-kernel" fn s32(l: Layout32, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = thread();
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                unary_at::<$F, $A, u32, false>(&f, &l, out, a, i)
            })
        }
        #[unsafe(export_name = concat!($name, "_x64"))]
        pub unsafe extern "ptx-kernel" fn x64(l: Layout64, f: $F, out: *mut u8, a: *const u8) {
            let (tid, nt) = thread();
            // SAFETY: as above; operands are read with their runtime dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                unary_at::<$F, $A, u64, true>(&f, &l, out, a, i)
            })
        }
    };
}

macro_rules! binary_kernels {
    ($name:expr, $F:ty, $A:ty, $B:ty) => {
        #[unsafe(export_name = concat!($name, "_c"))]
        pub unsafe extern "ptx-kernel" fn c(
            n: u64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = thread();
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { binary_contig::<$F, $A, $B>(tid, nt, n, &f, out, a, b) }
        }
        #[unsafe(export_name = concat!($name, "_s32"))]
        pub unsafe extern "ptx-kernel" fn s32(
            l: Layout32,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = thread();
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                binary_at::<$F, $A, $B, u32, false>(&f, &l, out, a, b, i)
            })
        }
        #[unsafe(export_name = concat!($name, "_x64"))]
        pub unsafe extern "ptx-kernel" fn x64(
            l: Layout64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
        ) {
            let (tid, nt) = thread();
            // SAFETY: as above; operands are read with their runtime dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                binary_at::<$F, $A, $B, u64, true>(&f, &l, out, a, b, i)
            })
        }
    };
}

macro_rules! ternary_kernels {
    ($name:expr, $F:ty, $A:ty, $B:ty, $C:ty) => {
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
            // SAFETY: the host launches this only on dense, aligned buffers of n elements.
            unsafe { ternary_contig::<$F, $A, $B, $C>(tid, nt, n, &f, out, a, b, c) }
        }
        #[unsafe(export_name = concat!($name, "_s32"))]
        pub unsafe extern "ptx-kernel" fn s32(
            l: Layout32,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = thread();
            // SAFETY: the host builds `l` from the buffers' real layouts and dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                ternary_at::<$F, $A, $B, $C, u32, false>(&f, &l, out, a, b, c, i)
            })
        }
        #[unsafe(export_name = concat!($name, "_x64"))]
        pub unsafe extern "ptx-kernel" fn x64(
            l: Layout64,
            f: $F,
            out: *mut u8,
            a: *const u8,
            b: *const u8,
            c: *const u8,
        ) {
            let (tid, nt) = thread();
            // SAFETY: as above; operands are read with their runtime dtypes.
            grid_stride(tid, nt, l.numel, |i| unsafe {
                ternary_at::<$F, $A, $B, $C, u64, true>(&f, &l, out, a, b, c, i)
            })
        }
    };
}

/// Instantiates one entry for one type (`T` is bound by the caller).
macro_rules! kernels_for {
    ($name:expr, ($A:ty), $F:path) => {
        unary_kernels!($name, $F, $A);
    };
    ($name:expr, ($A:ty, $B:ty), $F:path) => {
        binary_kernels!($name, $F, $A, $B);
    };
    ($name:expr, ($A:ty, $B:ty, $C:ty), $F:path) => {
        ternary_kernels!($name, $F, $A, $B, $C);
    };
}

/// The `gpu_kernel_list!` callback: a tt-muncher over the entries, one `const _` block (its own
/// namespace for `c`/`s32`/`x64`) per (op, type).
macro_rules! instantiate {
    () => {};
    ($name:literal ($A:ty, $B:ty) => $F:path, scalar: [$($t:ident),*]; $($rest:tt)*) => {
        $(const _: () = {
            #[allow(dead_code)]
            type T = $t;
            kernels_for!(concat!($name, "_", stringify!($t)), ($A, $B), $F);
        };
        const _: () = {
            #[allow(dead_code)]
            type T = $t;
            unary_kernels!(concat!($name, "_scalar_", stringify!($t)), WithScalar<$F, $B>, $A);
        };)*
        instantiate!($($rest)*);
    };
    ($name:literal $args:tt => $F:path: [$($t:ident),*]; $($rest:tt)*) => {
        $(const _: () = {
            #[allow(dead_code)]
            type T = $t;
            kernels_for!(concat!($name, "_", stringify!($t)), $args, $F);
        };)*
        instantiate!($($rest)*);
    };
}

weft::gpu_kernel_list!(instantiate);
