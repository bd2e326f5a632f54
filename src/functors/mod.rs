//! Functors: one value-level function per operation, written once in `no_std` Rust and used by
//! the CPU kernels and (compiled to PTX) by the GPU kernels. A functor knows values only: no
//! strides, no threads, no allocation, no panics.
//!
//! `no_std` (core + libm + half + num-traits).

/// An elementwise function of the inputs `Args`: `(A,)`, `(A, B)` or `(A, B, C)`.
///
/// Implemented by weft's own ops and by users' functors alike. Parameters (a clamp bound, a
/// leaky_relu slope, a scalar operand) are fields of the functor value, so a functor is `Copy`
/// and cheap to pass to every thread (and as a kernel argument on the GPU).
pub trait Functor<Args>: Copy + Send + Sync {
    type Output: Copy;
    fn call(&self, args: Args) -> Self::Output;
}

pub mod bind;
pub use bind::{BindLhs, BindRhs};
