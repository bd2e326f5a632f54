//! weft's GPU kernels. On nvptx64 this crate is `no_std` and exports one `ptx-kernel` per
//! (op, dtype, variant) of `weft::gpu_kernel_list!`; on any other target it is empty, so a stable
//! toolchain never parses the nightly-only parts.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]
// `weft::gpu_kernel_list!` nests one macro call per op-table line.
#![recursion_limit = "512"]

#[cfg(target_arch = "nvptx64")]
mod device;
