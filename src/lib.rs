//! weft: an elementwise tensor engine built around a TensorIterator.
//!
//! Layers (see ARCHITECTURE.md): dtype/promotion -> element conversions -> storage + layout ->
//! `Tensor<T>` -> `DynTensor` -> iterator -> kernels -> functors -> ops -> devices.
//!
//! Without the default `std` feature only the `no_std` core is built: [`dtype`], [`promotion`],
//! [`element`], [`scalar`] and [`functors`]; that is what `gpu/kernels` compiles to PTX.
#![cfg_attr(not(feature = "std"), no_std)]
// The PTX build (nightly): `core::f32::math::mul_add`, the device's fma instruction.
#![cfg_attr(target_arch = "nvptx64", feature(core_float_math))]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
// `gpu_kernel_list!` nests one macro call per op-table line.
#![recursion_limit = "512"]
#![cfg_attr(feature = "std", doc = include_str!("../README.md"))]

pub use half;

// The `no_std` tree (the PTX build compiles only it), its modules named at the root.
mod portable;
#[cfg(not(feature = "std"))]
pub use portable::{device, reduce};
pub use portable::{dtype, element, functors, promotion, scalar};

// The host side. `device` and `reduce` re-export their `no_std` halves from `portable`.
#[cfg(feature = "std")]
pub mod device;
#[cfg(feature = "std")]
pub mod reduce;

#[cfg(feature = "std")]
pub mod compare;
#[cfg(feature = "std")]
pub mod dyn_tensor;
#[cfg(feature = "std")]
pub mod error;
#[cfg(feature = "std")]
pub mod io;
#[cfg(feature = "std")]
pub mod iter;
#[cfg(feature = "std")]
pub(crate) mod kernels;
#[cfg(feature = "std")]
pub mod layout;
#[cfg(feature = "std")]
pub mod ops;
#[cfg(feature = "std")]
pub(crate) mod small;
#[cfg(feature = "std")]
pub mod storage;
#[cfg(feature = "std")]
pub mod tensor;

pub use device::Device;
pub use dtype::{Category, DType};
pub use element::{Element, Value, convert_value};
pub use functors::Functor;
pub use promotion::{OperandKind, promote_types, result_type};
pub use scalar::Scalar;

#[cfg(feature = "std")]
pub use dyn_tensor::{DynElement, DynTensor};
#[cfg(feature = "std")]
pub use error::{Error, Result};
#[cfg(feature = "std")]
pub use iter::{ElementBytes, IterConfig, LoopCost, TensorIterator};
#[cfg(feature = "std")]
pub use kernels::isa::{VectorIsa, limit_vector_isa, vector_isa};
#[cfg(feature = "std")]
pub use layout::Layout;
#[cfg(feature = "std")]
pub use reduce::{Dims, ReduceArgs, ReduceOp};
#[cfg(feature = "std")]
pub use tensor::{ShapeArg, Tensor};

/// Compile-time soundness checks (doctests only).
///
/// The inner loops, closures that write through whatever pointers they are given, are not
/// public:
///
/// ```compile_fail
/// let _ = weft::kernels::unary::<f32, weft::functors::Neg>;
/// ```
///
/// A storage cannot be written or viewed as a slice through safe public methods:
///
/// ```compile_fail
/// let t = weft::Tensor::<f32>::zeros(&[2]);
/// let _p = t.storage().as_mut_ptr();
/// ```
#[cfg(all(doctest, feature = "std"))]
pub struct SoundnessDoctests;
