//! The devices' `no_std` half, compiled for the host and into the PTX kernels:
//!
//! * [`layout`]: the layout and per-thread bodies shared by the GPU kernels and the host
//!   emulation tests;
//! * [`kernel_list`]: the one list of (op, functor, types) compiled to PTX;
//! * [`reduce`]: the reduction kernels' argument and per-thread body (the CPU engine's own
//!   loops);
//! * [`user_kernels`]: `gpu_user_kernels!`, the kernels of your own functor crate.
//!
//! The host side (plans, the CUDA context, launches) is `crate::device`.

pub mod kernel_list;
pub mod layout;
pub mod reduce;
pub mod user_kernels;

/// Where a tensor's elements live.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// Host memory (the default).
    #[default]
    Cpu,
    /// CUDA device by ordinal (feature `cuda`).
    Cuda(usize),
}

impl core::fmt::Display for Device {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}
