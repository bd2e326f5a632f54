//! weft's `no_std` tree: everything the PTX build compiles, and nothing else. The GPU kernel
//! crate (`gpu/kernels`) depends on weft without its `std` feature, which leaves exactly this
//! tree (`lib.rs`); the host compiles it too, and re-exports its modules at the crate root
//! (`weft::dtype`, `weft::functors`, ...), so a path names a concept, not a side of the line.
//!
//! * `dtype`, `promotion`, `element`, `scalar`: the dtype list, PyTorch's promotion table,
//!   the element trait and conversions, scalar operands;
//! * `functors`: one functor per op and dtype, the op table, the vectorizable math;
//! * `reduce`: the reduction table and loops (the host side is `crate::reduce`);
//! * `device`: the device layout, the kernel list and kernel bodies (the host side is
//!   `crate::device`).
//!
//! Code here may add `std`-only impls behind `#[cfg(feature = "std")]`, but must build without
//! them: `gpu/build-ptx.sh` does, and its stamp (`gpu/stamp-files.txt`) hashes this folder.

pub mod device;
pub mod dtype;
pub mod element;
pub mod functors;
pub mod promotion;
pub mod reduce;
pub mod scalar;
