//! Reductions: `sum prod mean amax amin argmax argmin max(dim) min(dim) any all var std
//! logsumexp softmax log_softmax`, with PyTorch's semantics, through the TensorIterator.
//!
//! * [`ReduceOp`]: **the reduction table**, one line per op (name, whether it takes a `dtype`,
//!   whether it needs at least one element, its outputs); the dispatch ([`reduce`]), the
//!   `DynTensor`/`Tensor<T>` methods (`api.rs`) and the tests iterate it. It lives with the
//!   loops (`fold`, `reducers`, `types`) in the `no_std` tree, `src/portable/reduce/`, which
//!   the GPU kernels compile too; this module is the host side and re-exports them.
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

// The `no_std` half (the table and the loops), shared with the GPU kernels.
pub(crate) use crate::portable::reduce::types;
pub use crate::portable::reduce::{
    AccNum, Extremum, FloatAcc, FloatFoldAcc, ReduceElement, ReduceFloat, ReduceOp, fold, reducers,
};

mod api;
mod args;
pub(crate) mod engine;
pub(crate) mod exec;
pub(crate) mod plan;

pub use args::{Dims, ReduceArgs};
pub use exec::{reduce, reduce_out};
