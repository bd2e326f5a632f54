//! Functors: one value-level function per operation, written once in `no_std` Rust and used by
//! the CPU kernels and (compiled to PTX) by the GPU kernels. A functor knows values only: no
//! strides, no threads, no allocation, no panics.
//!
//! Each op is a `Copy` struct implementing [`Functor`] for exactly the dtypes PyTorch supports
//! (so `Sub` has no bool impl, the bitwise ops no float impl, `Gelu` no integer impl). Binary
//! ops take `(T, T)` in the computation dtype; f16/bf16 are computed in f32 and rounded once.
//! [`table`] lists the same support at run time.
//!
//! `no_std` (core + libm + half + num-traits).

pub mod real;

pub mod activation;
pub mod arith;
pub mod compare;
pub mod fastmath;
pub mod logical_bitwise;
pub mod select;
pub mod table;
pub mod unary_float;

pub use activation::{
    Celu, Clamp, Elu, Gelu, GeluApproximate, Hardsigmoid, Hardswish, Hardtanh, LeakyRelu, Logit,
    Logsigmoid, Mish, Relu, Selu, Sigmoid, Silu, Softplus, Softsign,
};
pub use arith::{
    Abs, Add, Atan2, Copysign, Div, DivScalarOpmath, FloorDivide, FloorDivideScalarOpmath, Fmax,
    Fmin, Fmod, Gcd, Heaviside, Hypot, Lcm, Logaddexp, Maximum, Minimum, Mul, MulScalarOpmath, Neg,
    Nextafter, Pow, PowScalar, Reciprocal, Remainder, Sign, Square, Sub, Xlogy,
};
pub use compare::{Eq, Ge, Gt, IsFinite, IsInf, IsNan, Le, Lt, Ne, Signbit};
pub use logical_bitwise::{
    BitwiseAnd, BitwiseLeftShift, BitwiseNot, BitwiseOr, BitwiseRightShift, BitwiseXor, LogicalAnd,
    LogicalNot, LogicalOr, LogicalXor, Truthy,
};
pub use select::{Addcmul, Cast, Lerp, LerpScalar, MaskedFill, Where};
pub use table::{
    BinaryOp, Cost, DTypeSet, OpFlag, OpInfo, ResultRule, UnaryOp, binary_out_dtype,
    unary_out_dtype,
};
pub use unary_float::{
    Acos, Acosh, Asin, Asinh, Atan, Atanh, Ceil, Cos, Cosh, Deg2rad, Erf, Erfc, Exp, Exp2, Expm1,
    Floor, Frac, Log, Log1p, Log2, Log10, Rad2deg, Round, Rsqrt, Sin, Sinh, Sqrt, Tan, Tanh, Trunc,
};

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
}

pub mod bind;
pub use bind::{BindLhs, BindRhs};
