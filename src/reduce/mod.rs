//! Reductions: `sum prod mean amax amin argmax argmin max(dim) min(dim) any all var std
//! logsumexp softmax log_softmax`, with PyTorch's semantics, through the TensorIterator.
//!
//! * [`ReduceOp`]: **the reduction table**, one line per op (name, whether it takes a `dtype`,
//!   whether it needs at least one element, its outputs); the dispatch ([`reduce`]), the
//!   `DynTensor`/`Tensor<T>` methods (`api.rs`) and the tests iterate it.
//! * `plan.rs`: dims (PyTorch's wrapping and checks), shapes, dtype rules.
//! * `engine.rs`: the geometry from the iterator (reduced dims get output stride 0, dims
//!   reordered and coalesced) and the deterministic runner (fixed chunks, fixed combination
//!   tree: bit-identical results for any thread count); the only `unsafe` of the reductions.
//! * `reducers.rs`: the per-op state machines; `types.rs`: accumulation and result types.
//! * `exec.rs`: each op in terms of those (one-read moments for `var`/`std`, max-shifted
//!   `logsumexp`/`softmax`).
//!
//! Typed results are compile-time types: `Tensor<i32>::sum` is a `Tensor<i64>`, and `mean`
//! (like `var`, `std`, `softmax`) does not exist on integer tensors:
//!
//! ```compile_fail
//! let _ = weft::Tensor::<i32>::zeros(&[2]).mean((), false);
//! ```
//!
//! ```
//! let s: weft::Tensor<i64> = weft::Tensor::<i32>::ones(&[2]).sum((), false);
//! assert_eq!(s.item().unwrap(), 2);
//! ```

// `no_std`: what the GPU kernels compile too.
pub mod fold;
pub mod reducers;
mod types;

// The host side.
#[cfg(feature = "std")]
mod api;
#[cfg(feature = "std")]
mod args;
#[cfg(feature = "std")]
pub(crate) mod engine;
#[cfg(feature = "std")]
pub(crate) mod exec;
#[cfg(feature = "std")]
pub(crate) mod plan;

#[cfg(feature = "std")]
pub use args::{Dims, ReduceArgs};
#[cfg(feature = "std")]
pub use exec::{reduce, reduce_out};
pub use types::{AccNum, Extremum, FloatAcc, FloatFoldAcc, ReduceElement, ReduceFloat};

/// The reduction table: variant, PyTorch's name, takes a `dtype`, needs elements (an empty
/// reduction is an error: no identity), outputs (2: values and indices), keeps the input's
/// shape (softmax).
macro_rules! reduce_op_table {
    ($($Op:ident $name:literal: dtype $d:literal, needs_elements $e:literal, outputs $n:literal, elementwise $w:literal;)*) => {
        /// A reduction (see the module docs).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum ReduceOp {
            $($Op,)*
        }
        impl ReduceOp {
            pub const ALL: &'static [ReduceOp] = &[$(ReduceOp::$Op,)*];
            /// PyTorch's name (`max_dim`/`min_dim` for `torch.max(x, dim)`/`torch.min(x, dim)`).
            pub const fn name(self) -> &'static str {
                match self { $(ReduceOp::$Op => $name,)* }
            }
            pub fn from_name(name: &str) -> Option<ReduceOp> {
                match name { $($name => Some(ReduceOp::$Op),)* _ => None }
            }
            /// Takes a `dtype` argument (the input is cast to it before reducing).
            pub const fn takes_dtype(self) -> bool {
                match self { $(ReduceOp::$Op => $d,)* }
            }
            /// Reducing zero elements is an error (no identity).
            pub const fn needs_elements(self) -> bool {
                match self { $(ReduceOp::$Op => $e,)* }
            }
            /// Number of result tensors (values and indices for `max_dim`/`min_dim`).
            pub const fn outputs(self) -> usize {
                match self { $(ReduceOp::$Op => $n,)* }
            }
            /// The result has the input's shape (`softmax`, `log_softmax`): one dim, no keepdim.
            pub const fn is_elementwise(self) -> bool {
                match self { $(ReduceOp::$Op => $w,)* }
            }
        }
    };
}

reduce_op_table! {
    Sum "sum": dtype true, needs_elements false, outputs 1, elementwise false;
    Prod "prod": dtype true, needs_elements false, outputs 1, elementwise false;
    Mean "mean": dtype true, needs_elements false, outputs 1, elementwise false;
    Amax "amax": dtype false, needs_elements true, outputs 1, elementwise false;
    Amin "amin": dtype false, needs_elements true, outputs 1, elementwise false;
    Argmax "argmax": dtype false, needs_elements true, outputs 1, elementwise false;
    Argmin "argmin": dtype false, needs_elements true, outputs 1, elementwise false;
    MaxDim "max_dim": dtype false, needs_elements true, outputs 2, elementwise false;
    MinDim "min_dim": dtype false, needs_elements true, outputs 2, elementwise false;
    Any "any": dtype false, needs_elements false, outputs 1, elementwise false;
    All "all": dtype false, needs_elements false, outputs 1, elementwise false;
    Var "var": dtype false, needs_elements false, outputs 1, elementwise false;
    Std "std": dtype false, needs_elements false, outputs 1, elementwise false;
    Logsumexp "logsumexp": dtype false, needs_elements false, outputs 1, elementwise false;
    Softmax "softmax": dtype true, needs_elements false, outputs 1, elementwise true;
    LogSoftmax "log_softmax": dtype true, needs_elements false, outputs 1, elementwise true;
}
