//! The reduction engine: the geometry comes from the TensorIterator (outputs get stride 0 on
//! the reduced dims, dims are reordered by stride and coalesced); it is split into kept dims
//! (one output element per position) and reduced dims, and a [`Reducer`] is run over it.
//!
//! **Deterministic.** The reduced elements of one output are walked in the iterator's order and
//! cut into chunks of [`CHUNK`] elements; a chunk is folded by one thread (contiguous runs in
//! [`LANES`] independent accumulators combined by a fixed tree, strided elements in order) and
//! the chunk partials are combined by a fixed pairwise tree. Threads only decide *who* computes
//! a chunk, never how it is cut or combined, so the result is bit-identical for any thread count.
//!
//! **Two loop shapes.** When the input's contiguous dim is reduced (or nothing is kept), each
//! output reduces its own runs ("inner"). When the contiguous dim is kept ("outer": `sum(dim=0)`
//! of a row-major matrix), a block of up to [`COLS`] neighbouring outputs is accumulated row by
//! row, which vectorizes across the outputs; rows are summed in sub-blocks of [`SUB_ROWS`] (a
//! blocked sum, not one running sum over every row).
//!
//! The only `unsafe` of the reductions is here: reading the input and writing the outputs
//! through the iterator's pointers.

use super::fold::{self, CHUNK, DimsRef, OutValue, Reducer, SUB_ROWS};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::iter::TensorIterator;
use crate::iter::build::{Voter, coalesce, iteration_order};
use crate::kernels::isa::on_widest_isa;
use crate::small::{DimVec, SmallBuf};
use rayon::prelude::*;

/// Outputs per work item in the outer loop shape.
const COLS: usize = if cfg!(miri) { 8 } else { 1024 };
/// Spare accumulator slots that let the outer loop's strip start anywhere in a 4 KiB window.
const SUB_PAD: usize = if cfg!(miri) { 8 } else { 1024 };
/// Elements of work below which a reduction runs on the calling thread.
const GRAIN: usize = if cfg!(miri) { 64 } else { 32768 };

/// The output base pointers (at most two: values and indices), shared by the worker threads:
/// the iterator's borrows make the accesses disjoint (each output element is written by one
/// work item).
#[derive(Copy, Clone)]
pub(crate) struct OutPtrs(pub(crate) [*mut u8; 2]);
// SAFETY: see the type's comment; the pointees outlive the run (the iterator holds them).
unsafe impl Send for OutPtrs {}
// SAFETY: as for Send.
unsafe impl Sync for OutPtrs {}

impl OutPtrs {
    /// The pointers (a method, so that closures capture the whole `Send` wrapper).
    #[inline(always)]
    fn get(&self) -> &[*mut u8; 2] {
        &self.0
    }
}

/// Dims of one kind, fastest first, in elements.
#[derive(Clone)]
pub(crate) struct Dims {
    pub(crate) shape: DimVec<usize>,
    /// Input strides.
    pub(crate) input: DimVec<isize>,
    /// Output strides (kept dims only; the outputs are contiguous, so this is the index step).
    pub(crate) output: DimVec<isize>,
}

impl Dims {
    fn new() -> Dims {
        Dims {
            shape: DimVec::empty(0),
            input: DimVec::empty(0),
            output: DimVec::empty(0),
        }
    }
    fn push(&mut self, n: usize, input: isize, output: isize) {
        self.shape.push(n);
        self.input.push(input);
        self.output.push(output);
    }
    pub(crate) fn view(&self) -> DimsRef<'_> {
        DimsRef {
            shape: &self.shape,
            input: &self.input,
            output: &self.output,
        }
    }
}

/// The geometry of a reduction: its dims split into reduced and kept ones.
pub(crate) struct Geometry {
    pub(crate) reduced: Dims,
    pub(crate) kept: Dims,
    /// The kept dim walked across in the outer loop shape (removed from `kept`): its size and
    /// output index step.
    pub(crate) vector: Option<(usize, isize)>,
}

/// The geometry of reducing an input of `shape` and element `strides` into contiguous outputs
/// of `keep_shape` (1 on the reduced dims): the TensorIterator's own reorder and coalesce
/// (`iter::build`), on the output and the input, in element units (both are scale-free per
/// operand, so they decide as the iterator's byte strides do). The CPU engine and the device
/// planner both take their geometry from here, so they walk the elements in the same order.
pub(crate) fn geometry_of(shape: &[usize], strides: &[isize], keep_shape: &[usize]) -> Geometry {
    let nd = shape.len();
    let out_strides = crate::layout::contiguous_strides(keep_shape);
    // Operand-major strides: the output (stride 0 on its broadcast, i.e. reduced, dims), then
    // the input.
    let mut st = SmallBuf::<isize, 32>::filled(2 * nd, 0);
    for d in 0..nd {
        st[d] = if keep_shape[d] == 1 && shape[d] != 1 {
            0
        } else {
            out_strides[d]
        };
        st[nd + d] = strides[d];
    }
    let voters = [
        Voter {
            allocated: false,
            is_output: true,
        },
        Voter::default(),
    ];
    let perm = iteration_order(&voters, shape, &st, true);
    let mut ishape = DimVec::<usize>::filled(nd, 0);
    let mut istr = SmallBuf::<isize, 32>::filled(2 * nd, 0);
    for i in 0..nd {
        ishape[i] = shape[perm[i]];
        for op in 0..2 {
            istr[op * nd + i] = st[op * nd + perm[i]];
        }
    }
    let packed = coalesce(&mut ishape, &istr, 2);
    let cd = ishape.len();
    let mut reduced = Dims::new();
    let mut kept = Dims::new();
    for d in 0..cd {
        let (n, o, i) = (ishape[d], packed[d], packed[cd + d]);
        if o == 0 {
            reduced.push(n, i, 0);
        } else {
            kept.push(n, i, o);
        }
    }
    // Inner when the fastest reduced dim is contiguous; outer when a kept dim is.
    let inner = reduced.input.first() == Some(&1);
    let vector = if inner || reduced.shape.iter().product::<usize>() <= 1 {
        None
    } else {
        kept.input.iter().position(|&s| s == 1)
    };
    let vector = vector.map(|v| {
        let n = kept.shape.remove(v);
        kept.input.remove(v);
        let o = kept.output.remove(v);
        (n, o)
    });
    for d in [&mut reduced, &mut kept] {
        if d.shape.is_empty() {
            d.push(1, 0, 0);
        }
    }
    Geometry {
        reduced,
        kept,
        vector,
    }
}

/// [`Reducer::run`], compiled for the widest vector ISA the CPU has (AVX-512 or AVX2;
/// `kernels::isa`), so that the reducers' lanes run wide without a `target-cpu` build flag (the
/// elementwise kernels do the same). Same results on every CPU: the lanes are the reducer's own
/// and Rust contracts no FMA.
#[inline(always)]
fn run_slice<R: Reducer>(r: &R, acc: R::Acc, xs: &[R::In], index0: usize) -> R::Acc {
    if R::WIDE_ISA && xs.len() >= 64 {
        return on_widest_isa!([R: Reducer]
            (r: &R = r, acc: R::Acc = acc, xs: &[R::In] = xs, index0: usize = index0) -> R::Acc
            { r.run(acc, xs, index0) });
    }
    r.run(acc, xs, index0)
}

/// [`Reducer::row`], compiled for the widest vector ISA (see [`run_slice`]).
#[inline(always)]
fn row_slice<R: Reducer>(r: &R, accs: &mut [R::Acc], row: &[R::In], index: usize) {
    if R::WIDE_ISA && row.len() >= 64 {
        return on_widest_isa!([R: Reducer]
            (r: &R = r, accs: &mut [R::Acc] = accs, row: &[R::In] = row, index: usize = index)
            { r.row(accs, row, index) });
    }
    r.row(accs, row, index)
}

/// `out[i] = f(x[i], a[i], b[i])` over slices (`a`/`b` of length 1 are broadcast), compiled
/// for the widest vector ISA (see [`run_slice`]).
#[inline(always)]
fn zip_rows<T: Copy, A: Copy, B: Copy, O>(
    out: &mut [O],
    x: &[T],
    a: &[A],
    b: &[B],
    f: &(impl Fn(T, A, B) -> O + Sync),
) {
    #[inline(always)]
    fn body<T: Copy, A: Copy, B: Copy, O>(
        out: &mut [O],
        x: &[T],
        a: &[A],
        b: &[B],
        f: &impl Fn(T, A, B) -> O,
    ) {
        if a.len() == 1 && b.len() == 1 {
            let (a, b) = (a[0], b[0]);
            for (o, &x) in out.iter_mut().zip(x) {
                *o = f(x, a, b);
            }
        } else {
            for (((o, &x), &a), &b) in out.iter_mut().zip(x).zip(a).zip(b) {
                *o = f(x, a, b);
            }
        }
    }
    if out.len() >= 64 {
        return on_widest_isa!([T: Copy, A: Copy, B: Copy, O, F: Fn(T, A, B) -> O]
            (out: &mut [O] = out, x: &[T] = x, a: &[A] = a, b: &[B] = b, f: &F = f)
            { body(out, x, a, b, f) });
    }
    body(out, x, a, b, f)
}

fn buffer<A>(n: usize) -> Result<Vec<A>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::AllocationFailed {
            bytes: (n as u128) * core::mem::size_of::<A>() as u128,
        })?;
    Ok(v)
}

/// Runs `r` over the iterator `it`: outputs `0..noutputs` (fresh, contiguous, keepdim shape),
/// input last, of element type `R::In`. Every output element is written exactly once.
pub(crate) fn run<R: Reducer>(it: &TensorIterator<'_>, r: &R) -> Result<()> {
    let nout = it.noutputs();
    debug_assert_eq!(it.dtype(nout), R::In::DTYPE);
    if it.numel() == 0 {
        return Ok(());
    }
    let x = it.tensor(nout);
    let g = geometry_of(x.shape(), x.strides(), it.tensor(0).shape());
    let mut outs = OutPtrs([core::ptr::null_mut(); 2]);
    for k in 0..nout.min(2) {
        outs.0[k] = it.base[k];
    }
    let input = SendPtrConst(it.base[nout] as *const R::In);
    match g.vector {
        None => run_inner(&g, r, input, outs),
        Some(v) => run_outer(&g, v, r, input, outs),
    }
}

#[derive(Copy, Clone)]
struct SendPtrConst<T>(*const T);

impl<T> SendPtrConst<T> {
    /// The pointer (a method, so that closures capture the whole `Send` wrapper).
    #[inline(always)]
    fn get(self) -> *const T {
        self.0
    }
}
// SAFETY: read-only pointer into the input, under the iterator's shared borrow.
unsafe impl<T> Send for SendPtrConst<T> {}
// SAFETY: as for Send.
unsafe impl<T> Sync for SendPtrConst<T> {}

/// Folds reduced elements `range` of the output whose input offset is `base` (inner shape),
/// contiguous runs through the vector-ISA builds of [`Reducer::run`].
fn fold_chunk<R: Reducer>(
    red: &Dims,
    r: &R,
    input: SendPtrConst<R::In>,
    base: isize,
    acc: R::Acc,
    range: core::ops::Range<usize>,
) -> R::Acc {
    // SAFETY: `base` is the input offset of one kept position and `range` lies within its
    // reduced elements: the geometry covers exactly the input view, whose elements the
    // iterator holds under a shared borrow (nobody writes them while this runs).
    unsafe { fold::fold_chunk(red.view(), r, input.get(), base, acc, range, run_slice) }
}

/// Pairwise combination of `parts` (non-empty) in the fixed tree of [`fold::tree`].
fn tree<R: Reducer>(r: &R, parts: &[R::Acc]) -> R::Acc {
    fold::tree(r, parts).expect("at least one chunk")
}

fn run_inner<R: Reducer>(
    g: &Geometry,
    r: &R,
    input: SendPtrConst<R::In>,
    outs: OutPtrs,
) -> Result<()> {
    let total_r = g.reduced.view().numel();
    let total_k = g.kept.view().numel();
    let nchunks = total_r.div_ceil(CHUNK);
    let one = |o: usize| -> R::Out {
        let (ibase, obase) = g.kept.view().offsets(o);
        let acc = r.init(obase as usize);
        let acc = if nchunks == 1 {
            fold_chunk(&g.reduced, r, input, ibase, acc, 0..total_r)
        } else {
            let parts: Vec<R::Acc> = (0..nchunks)
                .map(|c| {
                    let end = ((c + 1) * CHUNK).min(total_r);
                    fold_chunk(&g.reduced, r, input, ibase, r.fresh(acc), c * CHUNK..end)
                })
                .collect();
            r.combine(acc, tree(r, &parts))
        };
        r.finish(acc)
    };
    let write = |o: usize, v: R::Out| {
        let (_, obase) = g.kept.view().offsets(o);
        // SAFETY: `obase` is the index of kept position `o` in the contiguous outputs (each
        // kept position once), exclusively borrowed by the iterator.
        unsafe { v.write(outs.get(), obase as usize) }
    };
    let work = total_r.saturating_mul(total_k);
    if work < GRAIN || rayon::current_num_threads() == 1 {
        for o in 0..total_k {
            write(o, one(o));
        }
    } else if total_k == 1 {
        // One output: its chunks in parallel, combined in the same tree.
        let (ibase, obase) = g.kept.view().offsets(0);
        let acc = r.init(obase as usize);
        let mut parts = buffer::<R::Acc>(nchunks)?;
        (0..nchunks)
            .into_par_iter()
            .map(|c| {
                let end = ((c + 1) * CHUNK).min(total_r);
                fold_chunk(&g.reduced, r, input, ibase, r.fresh(acc), c * CHUNK..end)
            })
            .collect_into_vec(&mut parts);
        write(0, r.finish(r.combine(acc, tree(r, &parts))));
    } else {
        let per = (GRAIN / total_r.max(1)).max(1);
        (0..total_k)
            .into_par_iter()
            .with_min_len(per)
            .for_each(|o| write(o, one(o)));
    }
    Ok(())
}

fn run_outer<R: Reducer>(
    g: &Geometry,
    (width, ostep): (usize, isize),
    r: &R,
    input: SendPtrConst<R::In>,
    outs: OutPtrs,
) -> Result<()> {
    let red = g.reduced.view();
    let total_r = red.numel();
    let nblocks = width.div_ceil(COLS);
    let items = g.kept.view().numel() * nblocks;
    // One item: outputs [j0, j0 + w) of kept position `k`, every reduced element.
    let item = |it: usize| {
        let (k, b) = (it / nblocks, it % nblocks);
        let (ibase, obase) = g.kept.view().offsets(k);
        let j0 = b * COLS;
        let w = COLS.min(width - j0);
        let mut accs: [R::Acc; COLS] = [r.init(0); COLS];
        for (j, a) in accs[..w].iter_mut().enumerate() {
            *a = r.init((obase + (j0 + j) as isize * ostep) as usize);
        }
        // `sub` is stored to on every row while the rows are loaded: keep its address about
        // 2 KiB away from theirs modulo 4 KiB (a load whose low 12 address bits match a pending
        // store's waits for it; rows are often a multiple of 4 KiB apart). Worth ~1.3x on
        // `sum(dim=0)`, which otherwise depends on where the stack frame happens to fall.
        let mut sub_buf: [R::Acc; COLS + SUB_PAD] = [r.init(0); COLS + SUB_PAD];
        let sub = {
            let size = size_of::<R::Acc>().max(1);
            let row0 = input.get().wrapping_offset(ibase + j0 as isize) as usize;
            let gap = (sub_buf.as_ptr() as usize).wrapping_sub(row0) % 4096;
            let shift = (2048 + 4096 - gap) % 4096 / size;
            let k = shift.min(SUB_PAD);
            &mut sub_buf[k..k + COLS]
        };
        let mut pos = 0;
        while pos < total_r {
            let end = (pos + SUB_ROWS).min(total_r);
            for (s, a) in sub[..w].iter_mut().zip(&accs[..w]) {
                *s = r.fresh(*a);
            }
            for rho in pos..end {
                let (off, _) = red.offsets(rho);
                // SAFETY: row `rho` of the input at kept position `k`: `w` contiguous elements
                // (the vector dim has input stride 1) of the view, under the iterator's shared
                // borrow.
                let row = unsafe {
                    core::slice::from_raw_parts(input.get().offset(ibase + off + j0 as isize), w)
                };
                row_slice(r, &mut sub[..w], row, rho);
            }
            for (a, s) in accs[..w].iter_mut().zip(&sub[..w]) {
                *a = r.combine(*a, *s);
            }
            pos = end;
        }
        for (j, a) in accs[..w].iter().enumerate() {
            let at = (obase + (j0 + j) as isize * ostep) as usize;
            // SAFETY: each output index belongs to exactly one item; the outputs are
            // exclusively borrowed by the iterator.
            unsafe { r.finish(*a).write(outs.get(), at) }
        }
    };
    let work = total_r.saturating_mul(g.kept.view().numel() * width);
    if work < GRAIN || items == 1 || rayon::current_num_threads() == 1 {
        (0..items).for_each(item);
    } else {
        (0..items).into_par_iter().for_each(item);
    }
    Ok(())
}

/// Fills fresh contiguous `outs` with the result of reducing zero elements (`sum` of an empty
/// dim is 0, `all` is true, ...): `finish(init(o))` for every output index `o`.
pub(crate) fn run_empty<R: Reducer>(outs: &[crate::DynTensor], r: &R) {
    let mut ptrs = [core::ptr::null_mut(); 2];
    for (p, o) in ptrs.iter_mut().zip(outs) {
        *p = o.data_ptr_bytes();
    }
    let n = outs[0].numel();
    for o in 0..n {
        // SAFETY: `outs` are fresh contiguous tensors of `n` elements of the reducer's output
        // types, created by the caller and not shared with anyone yet.
        unsafe { r.finish(r.init(o)).write(&ptrs, o) }
    }
}

/// The elementwise last pass of `softmax`/`log_softmax`: output 0 = `f(x, shift, sum)` with
/// inputs `x: T` and the two per-row values (broadcast, stride 0 along the reduced dim).
pub(crate) fn map_rows<T: Element, A: Element, B: Element, O: Element>(
    it: &TensorIterator<'_>,
    f: impl Fn(T, A, B) -> O + Sync,
) {
    debug_assert!(
        it.dtype(0) == O::DTYPE
            && it.dtype(1) == T::DTYPE
            && it.dtype(2) == A::DTYPE
            && it.dtype(3) == B::DTYPE
    );
    let (ts, as_, bs, os) = (
        size_of::<T>() as isize,
        size_of::<A>() as isize,
        size_of::<B>() as isize,
        size_of::<O>() as isize,
    );
    it.for_each(crate::iter::LoopCost::Expensive, |p, s, n| {
        if s[0] == os && s[1] == ts && (s[2], s[3]) == (0, 0) {
            // A contiguous row with its row values: slices, one load of the row values.
            // SAFETY: as below, with unit strides for operands 0 and 1 and stride 0 for 2, 3.
            let (out, x, a, b) = unsafe {
                (
                    core::slice::from_raw_parts_mut(p[0].cast::<O>(), n),
                    core::slice::from_raw_parts(p[1].cast::<T>(), n),
                    core::slice::from_raw_parts(p[2].cast::<A>(), 1),
                    core::slice::from_raw_parts(p[3].cast::<B>(), 1),
                )
            };
            zip_rows(out, x, a, b, &f);
            return;
        }
        if s[0] == os && s[1] == ts && s[2] == as_ && s[3] == bs {
            // SAFETY: as below, with unit strides for every operand.
            let (out, x, a, b) = unsafe {
                (
                    core::slice::from_raw_parts_mut(p[0].cast::<O>(), n),
                    core::slice::from_raw_parts(p[1].cast::<T>(), n),
                    core::slice::from_raw_parts(p[2].cast::<A>(), n),
                    core::slice::from_raw_parts(p[3].cast::<B>(), n),
                )
            };
            zip_rows(out, x, a, b, &f);
            return;
        }
        for k in 0..n as isize {
            // SAFETY: `for_each`'s contract: operand `i` holds `n` elements of its dtype
            // (checked above) at byte stride `s[i]`; only output 0 is written, each element of
            // a run once.
            unsafe {
                let x = p[1].offset(k * s[1]).cast::<T>().read();
                let a = p[2].offset(k * s[2]).cast::<A>().read();
                let b = p[3].offset(k * s[3]).cast::<B>().read();
                p[0].offset(k * s[0]).cast::<O>().write(f(x, a, b));
            }
        }
    });
}

/// A kernel over one row: its `row` must be `#[inline(always)]`, so that it is compiled into
/// the vector-ISA builds of [`map_contiguous_rows`] (a closure would be compiled on its own).
pub(crate) trait RowKernel<T>: Sync {
    fn row(&self, xs: &[T], os: &mut [T]);
}

/// `f.row(x_row, out_row)` for every row of `n` elements of a contiguous input (operand 1) and a
/// fresh contiguous output of the same shape and dtype `T` (operand 0) of the iterator `it`,
/// rows in parallel (each row by one thread, so the result does not depend on the thread
/// count), each row compiled for the widest vector ISA the CPU has.
pub(crate) fn map_contiguous_rows<T: Element, K: RowKernel<T>>(
    it: &TensorIterator<'_>,
    n: usize,
    f: &K,
) {
    debug_assert!(it.dtype(0) == T::DTYPE && it.dtype(1) == T::DTYPE && n > 0);
    let total = it.numel();
    let (out, x) = (
        OutPtrs([it.base[0], core::ptr::null_mut()]),
        SendPtrConst(it.base[1] as *const T),
    );
    let row = |r: usize| {
        // SAFETY: both operands are contiguous with `total` elements of `T` starting at their
        // base (the caller builds `it` over such tensors), row `r` is elements `r*n..(r+1)*n`
        // of each; the output is exclusively borrowed by the iterator and each row is written by
        // one call only; the input is under its shared borrow.
        let (xs, os) = unsafe {
            (
                core::slice::from_raw_parts(x.get().add(r * n), n),
                core::slice::from_raw_parts_mut(out.get()[0].cast::<T>().add(r * n), n),
            )
        };
        if n >= 64 {
            return on_widest_isa!([T, K: RowKernel<T>] (xs: &[T] = xs, os: &mut [T] = os, f: &K = f)
                { f.row(xs, os) });
        }
        f.row(xs, os)
    };
    let rows = total / n;
    if total < GRAIN || rayon::current_num_threads() == 1 {
        (0..rows).for_each(row);
    } else {
        (0..rows)
            .into_par_iter()
            .with_min_len((GRAIN / n).max(1))
            .for_each(row);
    }
}
