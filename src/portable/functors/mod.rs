//! Functors: one value-level function per operation, written once in `no_std` Rust and used by
//! the CPU kernels and (compiled to PTX) by the GPU kernels. A functor knows values only: no
//! strides, no threads, no allocation, no panics.
//!
//! Each op is a `Copy` struct implementing [`Functor`] for exactly the dtypes PyTorch supports
//! (so `Sub` has no bool impl, the bitwise ops no float impl, `Gelu` no integer impl). Binary
//! ops take `(T, T)` in the computation dtype; f16/bf16 are computed in f32 and rounded once.
//! [`table`] is the op table: one line per op, from which enums, dispatch, methods and kernels
//! are generated.
//!
//! `no_std` (core + libm + half + num-traits).

pub mod real;

pub mod activation;
pub mod arith;
pub mod compare;
pub mod fastmath;
pub mod half_form;
pub mod logical_bitwise;
pub mod select;
pub mod table;
pub mod unary_float;

// Every functor by name (`functors::Add`): the op table (`table.rs`) names each op's functor
// by its variant, so a new functor needs no line here.
pub use activation::*;
pub use arith::*;
pub use compare::*;
pub use half_form::{HalfFormat, HalfOwnForm, InHalf};
pub use logical_bitwise::*;
pub use select::*;
pub use table::{
    BinaryOp, Cost, DTypeSet, OpFlag, OpInfo, ResultRule, UnaryOp, binary_out_dtype,
    unary_out_dtype,
};
pub use unary_float::*;

/// An elementwise function of the inputs `Args`: `(A,)`, `(A, B)` or `(A, B, C)`.
///
/// Implemented by weft's own ops and by users' functors alike. Parameters (a clamp bound, a
/// leaky_relu slope, a scalar operand) are fields of the functor value, so a functor is `Copy`
/// and cheap to pass to every thread (and as a kernel argument on the GPU).
///
/// A functor with fields that a GPU kernel takes is `#[repr(C)]`: the host copies its bytes into
/// the kernel argument, so host and nvptx64 must lay it out alike (`tests/device_abi.rs` checks
/// every one against the committed PTX).
pub trait Functor<Args>: Copy + Send + Sync {
    type Output: Copy;
    fn call(&self, args: Args) -> Self::Output;

    /// Whether the functor has a cheaper form on part of its domain ([`Self::call_narrow`]).
    /// Kernels test every input of a block with [`Self::in_narrow_domain`] (a vectorized
    /// all-of) and run the narrow form alone over the block when all pass: sin, cos and tan
    /// skip their large-argument reduction that way.
    const HAS_NARROW_DOMAIN: bool = false;
    /// Whether `args` is in the narrow domain.
    #[inline(always)]
    fn in_narrow_domain(&self, _args: Args) -> bool {
        false
    }
    /// `call` for arguments in the narrow domain. Contract: the same bits as `call(args)`
    /// wherever `in_narrow_domain(args)` (which is how a functor with one defines `call`: a
    /// branch between the two forms), so that no result depends on how inputs were blocked.
    #[inline(always)]
    fn call_narrow(&self, args: Args) -> Self::Output {
        self.call(args)
    }

    /// Whether `call`'s result is the same for every argument (`isinf` of an integer, `signbit`
    /// of an unsigned one): the kernels then compute it once and fill the output without
    /// reading the inputs (a strided or reversed input would otherwise be gathered for nothing).
    const CONSTANT_RESULT: bool = false;

    /// Whether `call` returns its argument as it is (a cast to the argument's own type): a
    /// kernel whose input is converted into the compute type then converts it straight into the
    /// output (an f16 -> f32 cast widens into the output, not into a block and a copy).
    const IS_IDENTITY: bool = false;

    /// A form the CPU kernels hold in explicit vector instructions, run instead of `call` over
    /// contiguous runs where the CPU has them. Contract: the same bits as `call`.
    const VECTOR_FORM: VectorForm = VectorForm::None;
}

/// The hand-vectorized forms of [`Functor::VECTOR_FORM`] (host kernels, `kernels/`): for a
/// function whose portable form is bound by a slow instruction that the vector extensions
/// can replace with an exact sequence of others.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum VectorForm {
    /// `call` alone.
    None,
    /// The correctly rounded square root of f32 or f64 (`kernels/sqrt_newton.rs`: Newton steps
    /// from `vrsqrt14` instead of the square-root unit).
    Sqrt,
}

pub mod bind;
pub use bind::{BindLhs, BindRhs};
