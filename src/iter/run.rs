//! Running a kernel over the geometry: a two-level loop (an odometer over the outer dims, the
//! kernel over runs of the inner dim), split by linear element index across rayon threads.

use super::TensorIterator;
use crate::error::Result;
use crate::small::{DimVec, SmallBuf};
use core::convert::Infallible;
use core::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How much work one element costs; it picks the grain (elements per parallel chunk) below
/// which a loop runs serially. A chunk should carry well over rayon's dispatch cost (a few µs),
/// so the grains aim at roughly 30-60 µs of work per chunk on one core:
///
/// * `Cheap` (~1 ns/element: add, mul, copy, compare, casts; memory-bound): 256 KiB of the
///   widest operand or 384 KiB of the bytes the loop moves (every iterated operand's element
///   size, summed), whichever is fewer elements, at most 65536. A 64K-element f64 `sub` splits
///   (kept on one thread it ran at 2x PyTorch's 2-thread time), an f64 -> f16 cast too (10
///   bytes an element, but the conversion is not free), and a 64K f32 add (12 bytes) splits in
///   two as PyTorch's does (1.2x its time on one thread); a compare into bool (9) or a unary f32
///   op (8) stays on one: split, 31 such rows ran slower at 2 threads than at 1 (BENCHMARKS.md
///   round 32);
/// * `Moderate` (~5 ns/element: division, casts through f16/bf16, `where`): 16384;
/// * `Expensive` (~20+ ns/element: exp, tanh, erf, pow): 2048;
/// * `Grain(n)`: an explicit grain (tests use `Grain(1)` to force the parallel split).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoopCost {
    Cheap,
    Moderate,
    Expensive,
    Grain(usize),
}

impl From<crate::functors::table::Cost> for LoopCost {
    fn from(c: crate::functors::table::Cost) -> LoopCost {
        use crate::functors::table::Cost;
        match c {
            Cost::Cheap => LoopCost::Cheap,
            Cost::Moderate => LoopCost::Moderate,
            Cost::Expensive => LoopCost::Expensive,
        }
    }
}

/// What one element of a loop moves: its iterated operands' element sizes, the widest and
/// their sum ([`LoopCost::grain`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ElementBytes {
    pub widest: usize,
    pub total: usize,
}

impl ElementBytes {
    /// Of operands of `sizes` bytes.
    pub fn of(sizes: impl IntoIterator<Item = usize>) -> ElementBytes {
        sizes.into_iter().fold(
            ElementBytes {
                widest: 0,
                total: 0,
            },
            |b, s| ElementBytes {
                widest: b.widest.max(s),
                total: b.total + s,
            },
        )
    }
}

impl LoopCost {
    /// The grain of loops moving `bytes` per element.
    pub fn grain(self, bytes: ElementBytes) -> usize {
        match self {
            LoopCost::Cheap => (CHEAP_GRAIN_WIDEST_BYTES / bytes.widest.max(1))
                .min(CHEAP_GRAIN_MOVED_BYTES / bytes.total.max(1))
                .min(65536),
            LoopCost::Moderate => 16384,
            LoopCost::Expensive => 2048,
            LoopCost::Grain(n) => n.max(1),
        }
    }

    /// The least elements of one piece [`TensorIterator::par_run`] hands out: the grain, and
    /// [`PIECE_MIN`] for the cost classes (an explicit grain, as tests give to force the split,
    /// is taken as it is).
    pub fn least_piece(self, bytes: ElementBytes) -> usize {
        match self {
            LoopCost::Grain(n) => n.max(1),
            class => class.grain(bytes).max(PIECE_MIN),
        }
    }

    /// Whether a loop of `n` elements moving `bytes` per element runs on one thread whatever
    /// the pool: it holds fewer than two pieces.
    #[inline]
    pub fn is_serial(self, n: usize, bytes: ElementBytes) -> bool {
        n / self.least_piece(bytes) < 2
    }

    /// [`LoopCost::is_serial`] for any loop of at most [`FLAT_MAX_BYTES`], without
    /// summing its operands' sizes (tiny ops test this first).
    #[inline]
    pub(crate) fn is_serial_for_any_flat_op(self, n: usize) -> bool {
        self.is_serial(n, FLAT_MAX_BYTES)
    }
}

/// [`LoopCost::Cheap`]'s grain in bytes of the widest operand ...
const CHEAP_GRAIN_WIDEST_BYTES: usize = 256 << 10;
/// ... and in bytes moved.
const CHEAP_GRAIN_MOVED_BYTES: usize = 384 << 10;

/// The most bytes per element of a flat op (`iter::single`): an output and three inputs of 8
/// bytes.
pub(crate) const FLAT_MAX_BYTES: ElementBytes = ElementBytes {
    widest: 8,
    total: 32,
};

/// The smallest piece [`TensorIterator::par_run`] hands out (elements).
const PIECE_MIN: usize = 8192;

type Ptrs = SmallBuf<*mut u8, 8>;
type Body1d<'a, E> = dyn FnMut(&[*mut u8], &[isize], usize) -> core::result::Result<(), E> + 'a;
type Body2d<'a, E> =
    dyn FnMut(&[*mut u8], &[isize], usize, usize) -> core::result::Result<(), E> + 'a;

impl TensorIterator<'_> {
    /// Runs `inner` over every element: one pointer per operand (outputs first, then inputs) to
    /// the first element of a run, each operand's byte stride along the run, and the run length.
    /// Called from several threads at once on disjoint runs when the work is big enough (grain
    /// from `cost`), serially otherwise. Which element each run covers does not depend on the
    /// thread count except for where runs are cut.
    ///
    /// The pointers are raw: reading or writing through them needs `unsafe` in `inner`, whose
    /// contract is that operand `i` holds `n` elements of [`TensorIterator::dtype`]`(i)` at its
    /// byte stride, valid while the iterator lives (it holds the operands' storage borrows:
    /// exclusive on outputs, shared on inputs), and that only outputs are written.
    pub fn for_each<F: Fn(&[*mut u8], &[isize], usize) + Sync>(&self, cost: LoopCost, inner: F) {
        if let Some((p, s, n)) = self.single_run(cost) {
            return inner(p, s, n);
        }
        let r: core::result::Result<(), Infallible> = self.par_run(cost, &|range| {
            self.run_1d(range, &mut |p, s, n| {
                inner(p, s, n);
                Ok(())
            })
        });
        match r {
            Ok(()) => {}
            Err(e) => match e {},
        }
    }

    /// As [`TensorIterator::for_each`], for kernels that can fail. The error of the earliest
    /// failing run (by linear position) is returned, whatever the thread count; runs after it
    /// may or may not have been executed.
    pub fn try_for_each<F: Fn(&[*mut u8], &[isize], usize) -> Result<()> + Sync>(
        &self,
        cost: LoopCost,
        inner: F,
    ) -> Result<()> {
        self.par_run(cost, &|range| {
            self.run_1d(range, &mut |p, s, n| inner(p, s, n))
        })
    }

    /// Two-level form (PyTorch's loop2d): `inner(ptrs, strides, size0, size1)` covers `size1`
    /// rows of `size0` elements; `strides` has `2 * ntensors` entries: every operand's byte
    /// stride along a row, then every operand's byte stride from one row to the next.
    pub fn for_each_2d<F: Fn(&[*mut u8], &[isize], usize, usize) + Sync>(
        &self,
        cost: LoopCost,
        inner: F,
    ) {
        let r: core::result::Result<(), Infallible> = self.par_run(cost, &|range| {
            self.run_2d(range, &mut |p, s, n0, n1| {
                inner(p, s, n0, n1);
                Ok(())
            })
        });
        match r {
            Ok(()) => {}
            Err(e) => match e {},
        }
    }

    /// Fallible two-level form; errors as in [`TensorIterator::try_for_each`].
    pub fn try_for_each_2d<F: Fn(&[*mut u8], &[isize], usize, usize) -> Result<()> + Sync>(
        &self,
        cost: LoopCost,
        inner: F,
    ) -> Result<()> {
        self.par_run(cost, &|range| {
            self.run_2d(range, &mut |p, s, n0, n1| inner(p, s, n0, n1))
        })
    }

    /// Runs `inner` (1-D form) serially over the linear iteration indices `range` (in the
    /// iterator's own order, clamped to `numel`).
    pub fn serial_for_each<F: FnMut(&[*mut u8], &[isize], usize)>(
        &self,
        range: Range<usize>,
        mut inner: F,
    ) {
        let r: core::result::Result<(), Infallible> = self.run_1d(range, &mut |p, s, n| {
            inner(p, s, n);
            Ok(())
        });
        match r {
            Ok(()) => {}
            Err(e) => match e {},
        }
    }

    /// Two-level form of [`TensorIterator::serial_for_each`].
    pub fn serial_for_each_2d<F: FnMut(&[*mut u8], &[isize], usize, usize)>(
        &self,
        range: Range<usize>,
        mut inner: F,
    ) {
        let r: core::result::Result<(), Infallible> = self.run_2d(range, &mut |p, s, a, b| {
            inner(p, s, a, b);
            Ok(())
        });
        match r {
            Ok(()) => {}
            Err(e) => match e {},
        }
    }

    /// What one element of this loop moves: the element sizes of the operands it iterates (a
    /// broadcast one, stride 0 in every dim, is read from L1 and not counted).
    fn element_bytes(&self) -> ElementBytes {
        let nd = self.ndim();
        let iterated =
            |i: usize| nd == 0 || self.strides[i * nd..(i + 1) * nd].iter().any(|&s| s != 0);
        ElementBytes::of(
            (0..self.operands.len())
                .filter(|&i| iterated(i))
                .map(|i| self.operands[i].dtype.size()),
        )
    }

    /// Whether this loop runs on one thread whatever the pool ([`LoopCost::is_serial`]).
    fn is_serial(&self, cost: LoopCost) -> bool {
        cost.is_serial(self.numel, self.element_bytes())
    }

    /// The whole iteration as one serial run `(ptrs, strides, n)`, when it is one: at most one
    /// dim, and few enough elements for one thread. Tiny ops then call their kernel once,
    /// without the chunking and odometer layers (a quarter of a 4-element op's instructions).
    #[inline]
    pub(crate) fn single_run(&self, cost: LoopCost) -> Option<(&[*mut u8], &[isize], usize)> {
        let n = self.numel;
        (self.ndim() == 1 && n > 0 && self.is_serial(cost))
            .then(|| (&self.base[..], &self.strides[..], n))
    }

    /// Runs `body` over `0..numel`: serially when one grain covers it; otherwise cut into
    /// pieces (at least a grain; for the cost classes [`PIECE_MIN`] and whole rows) that the
    /// calling thread and one helper per other pool thread take in order from a shared counter
    /// (the helpers linger between loops: `team.rs`).
    /// The caller starts at once and a helper joins whenever it wakes, so a helper slow to wake
    /// or to be scheduled (a parked pool thread takes tens of µs to wake on a VM) delays the op
    /// by at most the piece it is finishing: with one chunk per thread handed out up front, a
    /// 12 µs op at 2 threads took 40-47 µs.
    fn par_run<E: Send>(
        &self,
        cost: LoopCost,
        body: &(dyn Fn(Range<usize>) -> core::result::Result<(), E> + Sync),
    ) -> core::result::Result<(), E> {
        let n = self.numel;
        if n == 0 {
            return Ok(());
        }
        // Pieces of at least a grain (and PIECE_MIN: a piece costs an atomic and an
        // odometer start; `LoopCost::least_piece`), about 16 per thread on large loops.
        let least = cost.least_piece(self.element_bytes());
        // Small loops never touch the thread pool (not even to ask its size).
        if n / least < 2 {
            return body(0..n);
        }
        let threads = rayon::current_num_threads();
        let explicit = matches!(cost, LoopCost::Grain(_));
        let mut piece = least.max(n.div_ceil(16 * threads));
        // Whole rows, at least TILED_MIN_EXTENT of them: a row cut costs a kernel call per
        // part, and a piece of fewer rows cannot take the transposed tiles (a 64K transposed
        // f16 `hypot` in 32-row pieces ran no faster at 2 threads than at 1).
        // (An explicit grain is taken as it is: tests use it to cut rows.)
        if self.ndim() >= 2 && !explicit {
            let row = self.shape[0].max(1);
            piece = piece
                .max(row * crate::kernels::TILED_MIN_EXTENT)
                .div_ceil(row)
                * row;
        }
        let mut pieces = n / piece;
        if threads <= 1 || pieces <= 1 {
            return body(0..n);
        }
        // An explicit grain's last piece takes the remainder (every piece stays at least
        // `piece` long).
        if !explicit {
            // Even pieces: the remainder spread over all of them, in whole rows (a 64K-element
            // i64 compare cut at 23130 elements left 42406 to one thread, 2x the time of even
            // halves). The pieces are no shorter than before but for the last, which is at
            // most as long as the others.
            let row = if self.ndim() >= 2 {
                self.shape[0].max(1)
            } else {
                1
            };
            piece = (n / row).div_ceil(pieces) * row;
            pieces = n.div_ceil(piece);
        }
        let at = |c: usize| if c == pieces { n } else { c * piece };
        let next = AtomicUsize::new(0);
        let first_bad = AtomicUsize::new(usize::MAX);
        let err: Mutex<Option<(usize, E)>> = Mutex::new(None);
        let work = || {
            loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                // Pieces are taken in order, so after a failure every later one is skippable.
                if c >= pieces || c > first_bad.load(Ordering::Relaxed) {
                    return;
                }
                if let Err(e) = body(at(c)..at(c + 1)) {
                    first_bad.fetch_min(c, Ordering::Relaxed);
                    let mut g = err.lock().unwrap_or_else(|p| p.into_inner());
                    if g.as_ref().is_none_or(|(k, _)| c < *k) {
                        *g = Some((c, e));
                    }
                }
            }
        };
        super::team::run_with_helpers(threads.min(pieces) - 1, &work);
        match err.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    fn run_1d<E>(
        &self,
        range: Range<usize>,
        inner: &mut Body1d<'_, E>,
    ) -> core::result::Result<(), E> {
        let nt = self.ntensors();
        self.run_2d(range, &mut |ptrs, strides, n0, n1| {
            if n1 == 1 {
                return inner(ptrs, &strides[..nt], n0);
            }
            let mut p = Ptrs::from_slice(ptrs, core::ptr::null_mut());
            for r in 0..n1 {
                if r > 0 {
                    for (k, q) in p.iter_mut().enumerate() {
                        *q = q.wrapping_offset(strides[nt + k]);
                    }
                }
                inner(&p, &strides[..nt], n0)?;
            }
            Ok(())
        })
    }

    /// The odometer: decodes `range.start` once, then steps by whole rows (or blocks of rows)
    /// where it can, by partial rows at the chunk's ends.
    fn run_2d<E>(&self, range: Range<usize>, f: &mut Body2d<'_, E>) -> core::result::Result<(), E> {
        let end = range.end.min(self.numel);
        let start = range.start;
        if start >= end {
            return Ok(());
        }
        let nt = self.ntensors();
        let nd = self.ndim();
        let mut ptrs = Ptrs::filled(nt, core::ptr::null_mut());
        let mut st = SmallBuf::<isize, 16>::filled(2 * nt, 0);
        if nd == 0 {
            ptrs.copy_from_slice(&self.base);
            return f(&ptrs, &st, 1, 1);
        }
        for op in 0..nt {
            st[op] = self.strides[op * nd];
            if nd >= 2 {
                st[nt + op] = self.strides[op * nd + 1];
            }
        }
        if nd == 1 {
            for op in 0..nt {
                ptrs[op] = self.base[op].wrapping_offset(start as isize * st[op]);
            }
            return f(&ptrs, &st, end - start, 1);
        }
        let shape = &self.shape;
        let mut coord = DimVec::<usize>::filled(nd, 0);
        let mut rem = start;
        for d in 0..nd {
            coord[d] = rem % shape[d];
            rem /= shape[d];
        }
        let mut pos = start;
        while pos < end {
            for op in 0..nt {
                let s = &self.strides[op * nd..(op + 1) * nd];
                let off: isize = coord.iter().zip(s).map(|(&c, &s)| c as isize * s).sum();
                ptrs[op] = self.base[op].wrapping_offset(off);
            }
            let left = end - pos;
            let (n0, n1) = if coord[0] != 0 || left < shape[0] {
                ((shape[0] - coord[0]).min(left), 1)
            } else {
                (shape[0], (left / shape[0]).min(shape[1] - coord[1]))
            };
            f(&ptrs, &st, n0, n1)?;
            let step = n0 * n1;
            pos += step;
            // Add `step` to the mixed-radix counter.
            let mut carry = step;
            for d in 0..nd {
                let v = coord[d] + carry;
                coord[d] = v % shape[d];
                carry = v / shape[d];
                if carry == 0 {
                    break;
                }
            }
        }
        Ok(())
    }
}
