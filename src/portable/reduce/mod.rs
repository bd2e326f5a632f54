//! The reductions' `no_std` half, compiled for the host and into the GPU kernels:
//! [`ReduceOp`], **the reduction table** (one line per op: name, whether it takes a `dtype`,
//! whether it needs at least one element, its outputs); `fold.rs`, the loops (the `Reducer`
//! trait, chunks, the pairwise tree, columns, the fused softmax row); `reducers.rs`, the per-op
//! state machines; `types.rs`, accumulation and result types. The host side (dims, shapes,
//! dtype rules, threads, methods) is `crate::reduce`.

pub mod fold;
pub mod reducers;
pub(crate) mod types;

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
