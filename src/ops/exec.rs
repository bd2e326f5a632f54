//! Where an op's kernel runs: over a built [`TensorIterator`], or over the single run of a small
//! flat op (`iter::single`). The table ops' runners take either; the plan and the functor
//! dispatch are the same code for both.

use crate::dtype::DType;
use crate::error::Result;
use crate::iter::single::SingleRun;
use crate::iter::{LoopCost, TensorIterator};
use crate::kernels;

/// Where a runner's kernel runs: over a built iterator, or over the single run of a flat op
/// (`IterConfig::build_single_run`: contiguous operands, one thread's work).
#[derive(Copy, Clone)]
pub(crate) enum Exec<'a> {
    Iter(&'a TensorIterator<'a>),
    Single(&'a SingleRun<'a>),
}

impl Exec<'_> {
    pub(crate) fn dtype(&self, i: usize) -> DType {
        match self {
            Exec::Iter(it) => it.dtype(i),
            Exec::Single(run) => run.dtypes[i],
        }
    }

    /// Inputs iterated (a scalar operand is not one).
    pub(crate) fn ninputs(&self) -> usize {
        match self {
            Exec::Iter(it) => it.ninputs(),
            Exec::Single(run) => run.nt - 1,
        }
    }

    pub(crate) fn common_dtype(&self) -> Option<DType> {
        match self {
            Exec::Iter(it) => it.common_dtype(),
            Exec::Single(run) => run.common_dtype,
        }
    }

    /// Runs `k` over every element (see `TensorIterator::for_each`).
    pub(crate) fn run(&self, cost: LoopCost, k: kernels::Kernel) {
        match self {
            Exec::Iter(it) => kernels::run_kernel(it, cost, k),
            Exec::Single(run) => k(&run.ptrs[..run.nt], &run.strides()[..run.nt], run.numel),
        }
    }

    /// Runs a fallible `k` over every element, first error first (`TensorIterator::try_for_each`).
    pub(crate) fn try_run(
        &self,
        cost: LoopCost,
        k: impl Fn(&[*mut u8], &[isize], usize) -> Result<()> + Sync,
    ) -> Result<()> {
        match self {
            Exec::Iter(it) => it.try_for_each(cost, k),
            Exec::Single(run) => k(&run.ptrs[..run.nt], &run.strides()[..run.nt], run.numel),
        }
    }
}
