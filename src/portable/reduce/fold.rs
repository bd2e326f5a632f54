//! The reduction loops both backends run (`no_std`): the [`Reducer`] interface, how one chunk
//! of an output's reduced elements is folded ([`fold_chunk`]), how chunk partials combine
//! ([`tree`]), how one output of the outer loop shape accumulates its rows ([`fold_column`]),
//! and the fused softmax row ([`softmax_row`]).
//!
//! The CPU engine (`engine.rs`) calls these from its threads; the GPU kernels
//! (`device::reduce`) call the very same functions from theirs. Because the association order
//! lives here and nowhere else, a device result is bit-identical to the CPU's.
//!
//! Device code must have no panic path (the PTX build rejects `trap`): no slice indexing that
//! could fail, no integer division by a runtime value that could be zero.

use crate::element::Element;

/// Independent accumulators for a contiguous run.
pub const LANES: usize = 16;
/// Reduced elements per chunk: the unit of parallel work for long reductions and of the
/// pairwise combination. (Small under Miri, so that its tests reach the chunked paths.)
pub const CHUNK: usize = if cfg!(miri) { 32 } else { 16384 };
/// Rows summed into a fresh accumulator before it is combined (outer loop shape).
pub const SUB_ROWS: usize = 128;

/// One reduction: how an output's state starts, takes an element, merges with another state and
/// becomes the output value(s). `combine` must be associative for the states this produces; the
/// loops fix the order anyway.
pub trait Reducer: Sync {
    /// Whether `run`/`row` are worth AVX-512/AVX2 builds of their own (CPU engine,
    /// `kernels::isa`).
    const WIDE_ISA: bool = true;
    type In: Element;
    type Acc: Copy + Send + Sync;
    type Out: OutValue;
    /// The empty state of output `out` (its index in the contiguous output).
    fn init(&self, out: usize) -> Self::Acc;
    /// An empty state for the same output as `like` (extra lanes start from it).
    fn fresh(&self, like: Self::Acc) -> Self::Acc;
    /// Takes element `x`, whose index along the reduced elements is `index`.
    fn step(&self, acc: Self::Acc, x: Self::In, index: usize) -> Self::Acc;
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    fn finish(&self, acc: Self::Acc) -> Self::Out;

    /// A contiguous run whose first element has index `index0`: [`LANES`] accumulators,
    /// combined by a fixed tree (vectorizes for the simple reducers).
    #[inline(always)]
    fn run(&self, acc: Self::Acc, xs: &[Self::In], index0: usize) -> Self::Acc {
        let mut lanes = [self.fresh(acc); LANES];
        let mut blocks = xs.chunks_exact(LANES);
        let mut i = index0;
        for b in &mut blocks {
            for (k, (l, &x)) in lanes.iter_mut().zip(b).enumerate() {
                *l = self.step(*l, x, i + k);
            }
            i += LANES;
        }
        let mut tail = self.fresh(acc);
        for (k, &x) in blocks.remainder().iter().enumerate() {
            tail = self.step(tail, x, i + k);
        }
        let mut w = LANES;
        while w > 1 {
            w /= 2;
            let (lo, hi) = lanes.split_at_mut(w);
            for (a, &b) in lo.iter_mut().zip(hi.iter()) {
                *a = self.combine(*a, b);
            }
        }
        self.combine(acc, self.combine(lanes[0], tail))
    }

    /// One row of the outer loop shape: element `j` of `row` goes to `accs[j]`. Must give, per
    /// `j`, exactly `step(accs[j], row[j], index)` ([`fold_column`] relies on it).
    #[inline(always)]
    fn row(&self, accs: &mut [Self::Acc], row: &[Self::In], index: usize) {
        for (a, &x) in accs.iter_mut().zip(row) {
            *a = self.step(*a, x, index);
        }
    }
}

/// What one output position receives: one element, or a value and its index (`max(dim)`).
pub trait OutValue: Copy + Send + Sync {
    /// Writes into the outputs at element index `at`.
    ///
    /// # Safety
    /// `outs[k]` must be the base of output `k`, of this value's `k`-th element type, with at
    /// least `at + 1` elements, written by nobody else during the call.
    unsafe fn write(self, outs: &[*mut u8; 2], at: usize);
}

impl<T: Element> OutValue for T {
    #[inline(always)]
    unsafe fn write(self, outs: &[*mut u8; 2], at: usize) {
        // SAFETY: the caller's contract.
        unsafe { outs[0].cast::<T>().add(at).write(self) }
    }
}

/// A value and its index along the reduced dim.
#[derive(Copy, Clone)]
pub struct WithIndex<T>(pub T, pub i64);

impl<T: Element> OutValue for WithIndex<T> {
    #[inline(always)]
    unsafe fn write(self, outs: &[*mut u8; 2], at: usize) {
        // SAFETY: the caller's contract (output 0 holds T, output 1 holds i64).
        unsafe {
            outs[0].cast::<T>().add(at).write(self.0);
            outs[1].cast::<i64>().add(at).write(self.1);
        }
    }
}

/// Dims of one kind (reduced or kept), fastest first, in elements.
#[derive(Copy, Clone)]
pub struct DimsRef<'a> {
    pub shape: &'a [usize],
    /// Input strides.
    pub input: &'a [isize],
    /// Output strides (kept dims; the outputs are contiguous, so this is the index step).
    pub output: &'a [isize],
}

impl DimsRef<'_> {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// Input and output offsets of linear position `lin` (fastest dim first).
    #[inline]
    pub fn offsets(&self, mut lin: usize) -> (isize, isize) {
        let (mut i, mut o) = (0isize, 0isize);
        for ((&n, &si), &so) in self.shape.iter().zip(self.input).zip(self.output) {
            let k = lin.checked_rem(n).unwrap_or(0) as isize;
            lin = lin.checked_div(n).unwrap_or(0);
            i += k * si;
            o += k * so;
        }
        (i, o)
    }
}

/// Folds reduced elements `range` of the output whose input offset is `base` (inner shape):
/// runs along the fastest reduced dim, contiguous ones through `run` (the CPU passes vector-ISA
/// builds of [`Reducer::run`], the device `Reducer::run` itself: the same arithmetic), strided
/// ones element by element.
///
/// # Safety
/// `input.offset(base + red.offsets(p).0)` must be a readable element for every `p` in
/// `range`, and nobody may write those elements during the call.
#[inline(always)]
pub unsafe fn fold_chunk<R: Reducer>(
    red: DimsRef<'_>,
    r: &R,
    input: *const R::In,
    base: isize,
    acc: R::Acc,
    range: core::ops::Range<usize>,
    run: impl Fn(&R, R::Acc, &[R::In], usize) -> R::Acc,
) -> R::Acc {
    let n0 = red.shape.first().copied().unwrap_or(1).max(1);
    let s0 = red.input.first().copied().unwrap_or(0);
    let mut acc = acc;
    let mut pos = range.start;
    let (mut off, _) = red.offsets(pos);
    let mut i0 = pos % n0;
    while pos < range.end {
        let len = (n0 - i0).min(range.end - pos);
        // SAFETY: `base + off` and the `len` elements after it at stride `s0` are elements
        // `pos..pos + len` of this output (the caller's contract), read-only during the call.
        unsafe {
            let p = input.offset(base + off);
            if s0 == 1 {
                acc = run(r, acc, core::slice::from_raw_parts(p, len), pos);
            } else {
                for k in 0..len {
                    acc = r.step(acc, p.offset(k as isize * s0).read(), pos + k);
                }
            }
        }
        pos += len;
        if pos < range.end {
            // Next run: recompute the offset only when a higher dim carries.
            i0 += len;
            if i0 == n0 {
                i0 = 0;
                off = red.offsets(pos).0;
            } else {
                off += len as isize * s0;
            }
        }
    }
    acc
}

/// Most frames [`tree`]'s walk needs: two per level of a tree over at most `usize::MAX` leaves.
const TREE_FRAMES: usize = 2 * usize::BITS as usize + 2;

/// Pairwise combination of `parts` in a fixed tree: `tree(p) = combine(tree(left), tree(right))`
/// with the left half `ceil(len / 2)` long; `None` when `parts` is empty. Iterative (an
/// explicit stack, no recursion) so that device threads need no call stack.
pub fn tree<R: Reducer>(r: &R, parts: &[R::Acc]) -> Option<R::Acc> {
    let first = *parts.first()?;
    // (lo, hi, children pushed) frames; finished subtree values on `vals`.
    let mut frames = [(0usize, 0usize, false); TREE_FRAMES];
    let mut vals = [first; TREE_FRAMES];
    let (mut nf, mut nv) = (1usize, 0usize);
    frames[0] = (0, parts.len(), false);
    while nf > 0 {
        let (lo, hi, expanded) = *frames.get(nf - 1)?;
        if hi - lo == 1 {
            nf -= 1;
            *vals.get_mut(nv)? = *parts.get(lo)?;
            nv += 1;
        } else if !expanded {
            let mid = lo + (hi - lo).div_ceil(2);
            frames.get_mut(nf - 1)?.2 = true;
            // Right pushed first: the left subtree is finished first.
            *frames.get_mut(nf)? = (mid, hi, false);
            *frames.get_mut(nf + 1)? = (lo, mid, false);
            nf += 2;
        } else {
            nf -= 1;
            let b = *vals.get(nv.checked_sub(1)?)?;
            let a = *vals.get(nv.checked_sub(2)?)?;
            nv -= 2;
            *vals.get_mut(nv)? = r.combine(a, b);
            nv += 1;
        }
    }
    vals.first().copied()
}

/// One output of the outer loop shape (the contiguous dim is kept): its reduced elements in
/// order, [`SUB_ROWS`] rows at a time into a fresh state that is then combined. The CPU runs
/// the same per-output arithmetic across a block of neighbouring outputs with
/// [`Reducer::row`].
///
/// # Safety
/// `input.offset(base + red.offsets(rho).0)` must be a readable element for every reduced
/// position `rho`, and nobody may write those elements during the call.
#[inline(always)]
pub unsafe fn fold_column<R: Reducer>(
    red: DimsRef<'_>,
    r: &R,
    input: *const R::In,
    base: isize,
    acc: R::Acc,
) -> R::Acc {
    let total = red.numel();
    let mut acc = acc;
    let mut pos = 0;
    while pos < total {
        let end = (pos + SUB_ROWS).min(total);
        let mut sub = r.fresh(acc);
        for rho in pos..end {
            let (off, _) = red.offsets(rho);
            // SAFETY: the caller's contract.
            sub = r.step(sub, unsafe { input.offset(base + off).read() }, rho);
        }
        acc = r.combine(acc, sub);
        pos = end;
    }
    acc
}

/// `softmax`/`log_softmax` of one contiguous row (the fused form, for f32/f64 rows along the
/// contiguous last dim): the row maximum, then `exp(x - max)` written and summed in [`LANES`]
/// lanes, then scaled by `1 / sum` (log: `(x - max) - log(sum)`, exact near the maximum where
/// `x - (max + log sum)` is not).
#[inline(always)]
pub fn softmax_row<F: super::types::FloatAcc + super::types::Extremum>(
    xs: &[F],
    os: &mut [F],
    log: bool,
) {
    let (m, nan) = F::block_extreme(xs, true);
    let m = if nan { m.sub(m).div(F::ZERO) } else { m }; // NaN
    let mut l = [F::ZERO; LANES];
    if log {
        let mut c = xs.chunks_exact(LANES);
        for b in &mut c {
            for (a, &v) in l.iter_mut().zip(b) {
                *a = a.add(v.sub(m).exp());
            }
        }
        let tail = c
            .remainder()
            .iter()
            .fold(F::ZERO, |a, &v| a.add(v.sub(m).exp()));
        let ls = lane_tree_sum(&mut l, tail).ln();
        for (o, &v) in os.iter_mut().zip(xs) {
            *o = v.sub(m).sub(ls);
        }
    } else {
        let mut c = xs.chunks_exact(LANES);
        let mut oc = os.chunks_exact_mut(LANES);
        for (b, o) in (&mut c).zip(&mut oc) {
            for ((a, o), &v) in l.iter_mut().zip(o.iter_mut()).zip(b) {
                let e = v.sub(m).exp();
                *o = e;
                *a = a.add(e);
            }
        }
        let mut tail = F::ZERO;
        for (o, &v) in oc.into_remainder().iter_mut().zip(c.remainder()) {
            *o = v.sub(m).exp();
            tail = tail.add(*o);
        }
        let inv = F::ONE.div(lane_tree_sum(&mut l, tail));
        for o in os.iter_mut() {
            *o = o.mul(inv);
        }
    }
}

/// The lanes summed in a fixed tree, plus `tail`.
#[inline(always)]
fn lane_tree_sum<F: super::types::FloatAcc>(l: &mut [F; LANES], tail: F) -> F {
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        let (lo, hi) = l.split_at_mut(w);
        for (a, &b) in lo.iter_mut().zip(hi.iter()) {
            *a = a.add(b);
        }
    }
    l[0].add(tail)
}
