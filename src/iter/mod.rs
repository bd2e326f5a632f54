//! The TensorIterator: the geometry every elementwise op runs through.
//!
//! Build an iterator with [`IterConfig`] (PyTorch's `TensorIteratorConfig` knobs and defaults)
//! or a named factory ([`TensorIterator::binary_op`], ...), inspect the geometry it chose, and
//! run a kernel over it with [`TensorIterator::for_each`] / [`TensorIterator::for_each_2d`].
//!
//! # Geometry conventions
//! As in PyTorch (and `torch._tensor_iterator`), the iteration dims are stored **fastest
//! first**: `shape()[0]` is the innermost dim and `strides(i)[0]` operand `i`'s byte stride along
//! it. `[2,3,4] + [4]` therefore reports `shape() == [4, 6]`: runs of 4, six of them (the
//! logical `[6, 4]` in memory order).
//!
//! # Build steps (PyTorch's `TensorIteratorBase::build`, in its order)
//! 1. flag checks;
//! 2. memory overlap (`check_mem_overlap`);
//! 3. common shape by broadcasting (or `declare_static_shape`);
//! 4. output shape checks;
//! 5. dtypes (`compute_types`);
//! 6. the fast set-up: all operands of the broadcast shape, all contiguous or all
//!    non-overlapping-dense with identical strides: one dim, no sorting. Otherwise:
//! 7. byte strides (0 on broadcast dims);
//! 8. `reorder_dimensions` (insertion sort by stride with PyTorch's tie rules);
//! 9. allocation of undefined outputs in the inputs' dimension order (inverse permutation);
//! 10. `coalesce_dimensions` (which also drops size-1 dims).
//!
//! Between steps 1 and 2 the most common case is decided in one pass (`single.rs`: one output,
//! one to three inputs, all contiguous with one shape): it takes the dtype rules and the flat
//! geometry of step 6 and skips the rest. The op runners take that case without an iterator at
//! all when the run is one thread's work (`IterConfig::build_single_run`).
//!
//! # Where weft deliberately differs from PyTorch
//! * **No cast temporaries.** PyTorch CPU copies inputs to the common dtype
//!   (`promote_inputs_to_common_dtype`) and writes mismatched outputs through a temporary
//!   (`cast_common_dtype_to_outputs`). weft records each operand's own dtype ([`dtype`]) and the
//!   computation dtype ([`common_dtype`]); the kernel layer casts inside the loop.
//! * **Given outputs are never resized.** `resize_outputs` is accepted but a given output of
//!   the wrong shape is always [`Error::OutputShape`] (weft cannot change the caller's handle;
//!   PyTorch deprecates resizing non-empty outputs). Outputs broadcast only in reductions.
//! * **Negative strides** (PyTorch has none): the sort compares `|stride|`, coalescing works on
//!   signed strides (a reversed contiguous tensor coalesces to one dim walked downwards), and
//!   dims are not flipped: a reversed operand is walked with a negative inner stride. A
//!   non-overlapping-dense layout needs non-negative strides, so reversed operands take the
//!   general path.
//! * Scalars added with [`IterConfig::add_scalar`] only take part in promotion (as
//!   `OperandKind::Scalar`); they are not operands and are ignored by `check_all_same_dtype`.
//! * `allow_cpu_scalars` and the device knobs are recorded but have no effect (one device).
//! * Memory overlap follows PyTorch's cheap, conservative rules (see `overlap.rs`): cases
//!   PyTorch calls "too hard" (non-dense layouts that share storage) are allowed.
//!
//! [`dtype`]: TensorIterator::dtype
//! [`common_dtype`]: TensorIterator::common_dtype

pub(crate) mod build;
mod config;
mod overlap;
mod run;
pub(crate) mod single;
mod team;

pub(crate) use build::broadcast as broadcast_shapes;
pub use config::IterConfig;
pub(crate) use overlap::is_non_overlapping_and_dense;
pub use run::{ElementBytes, LoopCost};

use crate::dtype::DType;
use crate::dyn_tensor::{DynTensor, TensorParts};
use crate::small::{DimVec, SmallBuf};
use core::fmt;
use std::vec::Vec;

/// Operands kept inline (outputs and inputs together: `where`, `lerp`, `addcmul` have four);
/// more spill to the heap. Small, because every op initialises these slots.
pub(crate) const INLINE_OPERANDS: usize = 4;
/// Per-operand metadata, inline for [`INLINE_OPERANDS`] operands.
pub(crate) type OperandBuf<T> = SmallBuf<T, INLINE_OPERANDS>;
/// Byte strides of every operand along every iteration dim (`nt * ndim`), inline for four
/// operands of four dims after coalescing.
pub(crate) type StrideBuf = SmallBuf<isize, 16>;

/// Where an operand's tensor lives: borrowed from the caller (given outputs, inputs; its parts
/// read once), or held by the iterator (allocated outputs, copies of inputs that overlap an
/// output) in `owned`.
#[derive(Copy, Clone)]
pub(crate) enum Src<'a> {
    Given(TensorParts<'a>),
    Owned(usize),
}

#[derive(Copy, Clone)]
pub(crate) struct Operand<'a> {
    pub(crate) src: Src<'a>,
    pub(crate) is_output: bool,
    pub(crate) is_const: bool,
    /// An output the iterator allocated ("undefined" output in PyTorch).
    pub(crate) allocated: bool,
    /// The tensor's dtype, read once (set when an allocated output is allocated): kernels ask
    /// for it per operand, and each tensor access is an enum dispatch.
    pub(crate) dtype: DType,
}

impl<'a> Operand<'a> {
    /// A given tensor's parts (`None` for tensors the iterator holds).
    #[inline]
    pub(crate) fn given(&self) -> Option<TensorParts<'a>> {
        match self.src {
            Src::Given(p) => Some(p),
            Src::Owned(_) => None,
        }
    }
}

/// The placeholder of unused inline operand slots.
pub(crate) const NO_OPERAND: Operand<'static> = Operand {
    src: Src::Owned(usize::MAX),
    is_output: false,
    is_const: false,
    allocated: false,
    dtype: DType::Bool,
};

/// Tensors the iterator holds itself: the first inline (an allocated output), more on the heap.
#[derive(Default)]
pub(crate) struct Owned {
    inline: [Option<DynTensor>; 1],
    more: Vec<DynTensor>,
}

impl Owned {
    /// Stores `t`; returns its index.
    pub(crate) fn push(&mut self, t: DynTensor) -> usize {
        for (k, slot) in self.inline.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = Some(t);
                return k;
            }
        }
        self.more.push(t);
        self.inline.len() + self.more.len() - 1
    }

    pub(crate) fn get(&self, k: usize) -> &DynTensor {
        match self.inline.get(k) {
            Some(t) => t.as_ref().expect("an owned operand"),
            None => &self.more[k - self.inline.len()],
        }
    }

    fn take(&mut self, k: usize) -> DynTensor {
        match self.inline.get_mut(k) {
            Some(t) => t.take().expect("an owned operand"),
            None => self.more[k - self.inline.len()].share(),
        }
    }
}

/// A built iterator: operands (outputs first, then inputs) plus the iteration geometry.
/// Read-only after [`IterConfig::build`]. It borrows the tensors it was given (`'a`): no
/// handle is cloned on the way.
pub struct TensorIterator<'a> {
    pub(crate) name: &'static str,
    pub(crate) operands: OperandBuf<Operand<'a>>,
    pub(crate) owned: Owned,
    pub(crate) noutputs: usize,
    /// Iteration shape, fastest dim first.
    pub(crate) shape: DimVec<usize>,
    /// Byte strides, operand-major: `strides[op * ndim + d]`.
    pub(crate) strides: StrideBuf,
    /// Address of element (0, ..., 0) of each operand.
    pub(crate) base: OperandBuf<*mut u8>,
    /// The broadcast shape in the tensors' own (logical) order.
    pub(crate) logical_shape: DimVec<usize>,
    /// `perm[i]` = the logical dim walked at iteration dim `i` before coalescing.
    pub(crate) perm: DimVec<usize>,
    pub(crate) common_dtype: Option<DType>,
    pub(crate) numel: usize,
    pub(crate) is_reduction: bool,
    pub(crate) fast_setup: bool,
    /// Storage borrows held while the iterator lives: (operand index, exclusive).
    pub(crate) borrows: OperandBuf<(u32, bool)>,
}

impl TensorIterator<'_> {
    fn release_borrows(&mut self) {
        for &(i, exclusive) in self.borrows.iter() {
            // Borrows are taken on given operands only (`build::finish`).
            if let Some(p) = self.operands[i as usize].given() {
                p.flag.release(exclusive);
            }
        }
        self.borrows.truncate(0);
    }
}

impl Drop for TensorIterator<'_> {
    fn drop(&mut self) {
        self.release_borrows();
    }
}

// SAFETY: the raw pointers in `base` point into storages kept alive by the `DynTensor`s the
// iterator borrows (`'a`) or holds (`owned`) (Send + Sync) and borrowed (`borrows`) for the iterator's lifetime, so
// no other op touches them in a conflicting way. The iterator itself never dereferences them;
// the kernel closures passed to `for_each` do, each thread on disjoint output elements.
unsafe impl Send for TensorIterator<'_> {}
// SAFETY: as for Send; shared access only reads the geometry.
unsafe impl Sync for TensorIterator<'_> {}

impl<'a> TensorIterator<'a> {
    /// Number of iteration dims after reordering and coalescing (0 for 0-d operands).
    #[inline]
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Iteration shape, fastest dim first.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The broadcast shape in the tensors' own order.
    pub fn logical_shape(&self) -> &[usize] {
        &self.logical_shape
    }
    /// The permutation chosen by the stride sort: iteration dim `i` (before coalescing) walks
    /// logical dim `perm()[i]`.
    pub fn perm(&self) -> &[usize] {
        &self.perm
    }
    #[inline]
    pub fn numel(&self) -> usize {
        self.numel
    }
    #[inline]
    pub fn ntensors(&self) -> usize {
        self.operands.len()
    }
    #[inline]
    pub fn ninputs(&self) -> usize {
        self.operands.len() - self.noutputs
    }
    #[inline]
    pub fn noutputs(&self) -> usize {
        self.noutputs
    }
    /// Operand `i`'s byte strides along the iteration dims (fastest first; 0 on broadcast dims).
    #[inline]
    pub fn strides(&self, i: usize) -> &[isize] {
        let nd = self.ndim();
        &self.strides[i * nd..(i + 1) * nd]
    }
    /// Operand `i`'s strides in elements.
    pub fn element_strides(&self, i: usize) -> Vec<isize> {
        let sz = self.dtype(i).size() as isize;
        self.strides(i).iter().map(|s| s / sz).collect()
    }
    /// Operand `i`'s own dtype (outputs first). The kernel casts from/to it.
    #[inline]
    pub fn dtype(&self, i: usize) -> DType {
        self.operands[i].dtype
    }
    /// The computation dtype; `None` where none was inferred (inputs of different dtypes and no
    /// promotion, or no inputs).
    #[inline]
    pub fn common_dtype(&self) -> Option<DType> {
        self.common_dtype
    }
    /// One element, or one dim along which every operand is dense (inner stride = element size).
    pub fn is_contiguous(&self) -> bool {
        if self.numel == 1 {
            return true;
        }
        self.ndim() == 1
            && (0..self.ntensors()).all(|i| self.strides(i)[0] == self.dtype(i).size() as isize)
    }
    /// Exactly one iteration dim.
    pub fn is_trivial_1d(&self) -> bool {
        self.ndim() == 1
    }
    /// Whether operand `i` is stride 0 along every dim of size > 1 (a broadcast scalar).
    pub fn is_scalar(&self, i: usize) -> bool {
        self.shape
            .iter()
            .zip(self.strides(i))
            .all(|(&n, &s)| n == 1 || s == 0)
    }
    /// Whether the set-up took the fast path (same shape, same dense layout).
    pub fn is_fast_setup(&self) -> bool {
        self.fast_setup
    }
    pub fn is_reduction(&self) -> bool {
        self.is_reduction
    }
    /// Whether output `i` was allocated by the iterator.
    pub fn is_allocated_output(&self, i: usize) -> bool {
        self.operands[i].allocated
    }
    /// Whether operand `i` was added with `add_const_input`.
    pub fn is_const_input(&self, i: usize) -> bool {
        self.operands[i].is_const
    }
    /// Operand `i` (outputs first, then inputs).
    #[inline]
    pub fn tensor(&self, i: usize) -> &DynTensor {
        match self.operands[i].src {
            Src::Given(p) => p.tensor,
            Src::Owned(k) => self.owned.get(k),
        }
    }
    /// Operand `i`'s layout (a given tensor's without a dispatch).
    #[inline]
    pub(crate) fn layout(&self, i: usize) -> &crate::layout::Layout {
        match self.operands[i].src {
            Src::Given(p) => p.layout,
            Src::Owned(k) => self.owned.get(k).layout(),
        }
    }
    pub fn output(&self, i: usize) -> &DynTensor {
        assert!(i < self.noutputs, "output {i} out of range");
        self.tensor(i)
    }
    pub fn input(&self, i: usize) -> &DynTensor {
        self.tensor(self.noutputs + i)
    }
    /// The outputs (given or allocated), in order.
    pub fn into_outputs(mut self) -> Vec<DynTensor> {
        (0..self.noutputs).map(|i| self.take_output(i)).collect()
    }
    /// Output `i` (allocated: moved out, given: shared), the iterator's borrows released.
    /// A later call for the same allocated output panics.
    pub(crate) fn take_output(&mut self, i: usize) -> DynTensor {
        assert!(i < self.noutputs, "output {i} out of range");
        self.release_borrows();
        match self.operands[i].src {
            Src::Given(p) => p.tensor.share(),
            Src::Owned(k) => self.owned.take(k),
        }
    }
    /// The first output (moved out when allocated), the iterator's borrows released.
    pub fn into_output(mut self) -> DynTensor {
        self.take_output(0)
    }
    /// Address of operand `i`'s element (0, ..., 0), where every run of the loop is measured from.
    #[inline]
    pub fn data_ptr(&self, i: usize) -> *mut u8 {
        self.base[i]
    }
    /// The op name used in error messages.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for TensorIterator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("TensorIterator");
        d.field("name", &self.name)
            .field("shape", &self.shape)
            .field("logical_shape", &self.logical_shape)
            .field("perm", &self.perm)
            .field("numel", &self.numel)
            .field("common_dtype", &self.common_dtype)
            .field("fast_setup", &self.fast_setup);
        let ops: Vec<_> = (0..self.ntensors())
            .map(|i| (self.dtype(i), self.strides(i).to_vec()))
            .collect();
        d.field("operands (dtype, byte strides)", &ops).finish()
    }
}

impl fmt::Display for TensorIterator<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let common = self
            .common_dtype
            .map_or_else(|| "none".to_string(), |d| d.to_string());
        writeln!(
            f,
            "{}: shape {:?} (fastest first), numel {}, logical shape {:?}, perm {:?}, common dtype {}{}",
            self.name,
            &*self.shape,
            self.numel,
            &*self.logical_shape,
            &*self.perm,
            common,
            if self.fast_setup { ", fast set-up" } else { "" }
        )?;
        for i in 0..self.ntensors() {
            let op = self.operands[i];
            let kind = if op.is_output {
                if op.allocated {
                    "out (allocated)"
                } else {
                    "out"
                }
            } else if op.is_const {
                "const in"
            } else {
                "in"
            };
            writeln!(
                f,
                "  [{i}] {kind:<15} {:<8} byte strides {:?}, element strides {:?}; tensor shape {:?} strides {:?}",
                self.dtype(i).name(),
                self.strides(i),
                self.element_strides(i),
                self.tensor(i).shape(),
                self.tensor(i).strides()
            )?;
        }
        Ok(())
    }
}
