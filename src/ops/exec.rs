//! Where an op's kernel runs: over a built [`TensorIterator`], or over the single run of a small
//! flat op (`iter::single`). The table ops' runners take either; the plan and the functor
//! dispatch are the same code for both.

use crate::dtype::DType;
use crate::error::Result;
use crate::iter::single::SingleRun;
use crate::iter::{LoopCost, TensorIterator};
use crate::kernels;
use crate::small::SmallBuf;

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
            Exec::Single(run) => k.run(&run.ptrs[..run.nt], &run.strides()[..run.nt], run.numel),
        }
    }

    /// Visits every distinct element of operand `i` once, in its memory order, as runs
    /// `run(first element, count, byte stride)`: the iteration's dims where the operand's
    /// stride is 0 (broadcast) are left out and the rest are walked smallest stride innermost.
    /// For a whole-op pass over one operand (the integer division's divisor check): through the
    /// op's own order, a transposed op would read a contiguous divisor across its rows, and a
    /// broadcast one once per output element. Serial; stops at the first error.
    pub(crate) fn try_each_distinct_run(
        &self,
        i: usize,
        mut run: impl FnMut(*const u8, usize, isize) -> Result<()>,
    ) -> Result<()> {
        let (base, shape, strides) = match self {
            Exec::Iter(it) => (it.data_ptr(i), it.shape(), it.strides(i)),
            Exec::Single(r) => {
                return run(r.ptrs[i], r.numel, r.dtypes[i].size() as isize);
            }
        };
        if shape.contains(&0) {
            return Ok(());
        }
        // (size, byte stride) of the dims the operand moves along, smallest |stride| first.
        let mut dims: SmallBuf<(usize, isize), 8> = SmallBuf::empty((0, 0));
        for (&n, &s) in shape.iter().zip(strides) {
            if n > 1 && s != 0 {
                dims.push((n, s));
            }
        }
        dims.sort_unstable_by_key(|&(_, s)| s.unsigned_abs());
        let Some((&(n0, s0), outer)) = dims.split_first() else {
            return run(base, 1, 0);
        };
        // An odometer over the outer dims (their index and the byte offset it gives).
        let mut index: SmallBuf<usize, 8> = SmallBuf::filled(outer.len(), 0);
        let mut offset = 0isize;
        loop {
            // The offsets stay inside the operand: every index tuple visited is one the
            // iteration visits (with the broadcast dims at 0).
            run(base.wrapping_offset(offset), n0, s0)?;
            let mut d = 0;
            loop {
                if d == outer.len() {
                    return Ok(());
                }
                let (n, s) = outer[d];
                index[d] += 1;
                offset += s;
                if index[d] < n {
                    break;
                }
                offset -= s * n as isize;
                index[d] = 0;
                d += 1;
            }
        }
    }
}
