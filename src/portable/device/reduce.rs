//! Device reductions (`no_std`): the launch argument ([`ReduceLaunch`]), the per-thread body
//! every reduction kernel runs ([`reduce_body`]), and how a kernel builds its reducer from the
//! launch's parameters ([`DeviceReducer`]).
//!
//! The body calls the CPU engine's own loops ([`crate::reduce::fold`]): one thread folds one
//! output (or one [`CHUNK`] of it) exactly as one CPU thread does, chunk partials are combined
//! by the same [`tree`], and the outer loop shape walks each output's rows in the same
//! sub-blocks. So a device result is bit-identical to the CPU's, for any grid.
//!
//! A launch runs in one of the [`ReduceMode`]s; the host planner (`device::reduce_plan`)
//! picks them from the same geometry the CPU engine uses. The same functions run on the host
//! in the emulation tests (`tests/gpu_emulation.rs`), over every thread of small grids.
//!
//! Editing this file changes `gpu/kernels.ptx`: run `gpu/build-ptx.sh`.

use super::layout::MAX_DIMS;
use crate::element::Element;
use crate::reduce::fold::{CHUNK, DimsRef, OutValue, Reducer, fold_chunk, fold_column, tree};
use crate::reduce::reducers::{
    AnyAll, Arg, ArgOut, ExpSum, ExpSumKind, Extreme, Fold, SoftmaxApply, Variance,
};
use crate::reduce::{AccNum, Extremum, FloatAcc};

/// What one launch of a reduction kernel computes; each thread takes work items `tid`,
/// `tid + nthreads`, ... of the mode's item count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ReduceMode {
    /// One item per output: every reduced element (the inner loop shape with one chunk).
    Whole = 0,
    /// One item per (output, chunk): the chunk's partial state into the scratch buffer.
    Chunks = 1,
    /// One item per output: its chunk partials combined by the fixed tree, finished, written.
    Combine = 2,
    /// One item per output of the outer loop shape (the contiguous dim is kept).
    Outer = 3,
    /// One item per output of an empty reduction: `finish(init(o))`.
    Empty = 4,
}

/// Dims of one kind (fastest first, in elements): [`crate::reduce::fold::DimsRef`] as plain
/// data for a kernel argument.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReduceDims {
    pub ndim: usize,
    pub shape: [usize; MAX_DIMS],
    pub input: [isize; MAX_DIMS],
    pub output: [isize; MAX_DIMS],
}

impl ReduceDims {
    pub const EMPTY: ReduceDims = ReduceDims {
        ndim: 0,
        shape: [1; MAX_DIMS],
        input: [0; MAX_DIMS],
        output: [0; MAX_DIMS],
    };
    /// The dims as the loops take them.
    pub fn view(&self) -> DimsRef<'_> {
        let n = if self.ndim > MAX_DIMS {
            MAX_DIMS
        } else {
            self.ndim
        };
        DimsRef {
            shape: self.shape.get(..n).unwrap_or(&[]),
            input: self.input.get(..n).unwrap_or(&[]),
            output: self.output.get(..n).unwrap_or(&[]),
        }
    }
}

/// The scalar parameters of a reducer (each family reads its own; see [`DeviceReducer`]).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ReduceParams {
    /// `prod` (fold), `max` (extreme, arg), `all` (any/all), `sqrt` (var: std).
    pub flag: u32,
    /// [`ExpSumKind`] as `u32` (exp-sum families).
    pub kind: u32,
    /// 1 for `mean` (then `count` is the divisor).
    pub mean: u32,
    pub count: usize,
    /// `var`/`std`.
    pub correction: f64,
    /// Exp-sum families: device address of the row maxima (`nmaxima` elements of the input
    /// type, the `amax` result in keepdim order).
    pub maxima: u64,
    pub nmaxima: usize,
}

impl ReduceParams {
    pub const NONE: ReduceParams = ReduceParams {
        flag: 0,
        kind: 0,
        mean: 0,
        count: 0,
        correction: 0.0,
        maxima: 0,
        nmaxima: 0,
    };
}

/// The argument of every reduction kernel: the mode, the geometry and the reducer's
/// parameters. Passed by value (`.param .align 8 .b8 [...]`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ReduceLaunch {
    /// [`ReduceMode`] as `u32`.
    pub mode: u32,
    pub reduced: ReduceDims,
    pub kept: ReduceDims,
    /// Outer mode: the size of the kept contiguous dim and its output index step. Empty mode:
    /// `width` is the number of outputs.
    pub width: usize,
    pub ostep: isize,
    /// Chunks per output (`Chunks`/`Combine`).
    pub nchunks: usize,
    pub params: ReduceParams,
}

impl ReduceLaunch {
    /// Work items of this launch (one thread each at most).
    pub fn items(&self) -> usize {
        let k = self.kept.view().numel();
        match self.mode {
            m if m == ReduceMode::Chunks as u32 => k.saturating_mul(self.nchunks),
            m if m == ReduceMode::Outer as u32 => k.saturating_mul(self.width),
            m if m == ReduceMode::Empty as u32 => self.width,
            _ => k,
        }
    }
}

/// A reducer the kernels build from [`ReduceParams`].
pub trait DeviceReducer: Reducer + Sized {
    /// # Safety
    /// For the exp-sum families, `p.maxima` must point at `p.nmaxima` elements of the input type,
    /// readable and unwritten while the reducer lives.
    unsafe fn from_params(p: &ReduceParams) -> Self;
}

impl<T: Element, A: AccNum, O: Element> DeviceReducer for Fold<T, A, O> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        Fold::new(p.flag != 0, (p.mean != 0).then_some(p.count))
    }
}
impl<T: Extremum> DeviceReducer for Extreme<T> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        Extreme::new(p.flag != 0)
    }
}
impl<T: Extremum, O: ArgOut<T>> DeviceReducer for Arg<T, O> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        Arg::new(p.flag != 0)
    }
}
impl<T: Element, O: Element> DeviceReducer for AnyAll<T, O> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        AnyAll::new(p.flag != 0)
    }
}
impl<T: Element> DeviceReducer for Variance<T> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        Variance::new(p.correction, p.flag != 0)
    }
}
impl<T: Element, F: FloatAcc, O: Element> DeviceReducer for ExpSum<'static, T, F, O> {
    unsafe fn from_params(p: &ReduceParams) -> Self {
        let kind = match p.kind {
            1 => ExpSumKind::Softmax,
            2 => ExpSumKind::LogSoftmax,
            _ => ExpSumKind::Logsumexp,
        };
        let maxima: &'static [T] = if p.maxima == 0 || p.nmaxima == 0 {
            &[]
        } else {
            // SAFETY: the caller's contract.
            unsafe { core::slice::from_raw_parts(p.maxima as usize as *const T, p.nmaxima) }
        };
        ExpSum::new(maxima, kind)
    }
}

/// The softmax functor is plain data: the kernels take it by value.
const _: () = assert!(core::mem::size_of::<SoftmaxApply>() == 1);

/// [`fold_chunk`] with the reducer's own `run`, one copy per kernel (not inlined into both
/// modes that fold: the PTX stays about a third smaller).
///
/// # Safety
/// As [`fold_chunk`].
#[inline(never)]
unsafe fn fold_range<R: Reducer>(
    red: DimsRef<'_>,
    r: &R,
    input: *const R::In,
    base: isize,
    acc: R::Acc,
    start: usize,
    end: usize,
) -> R::Acc {
    // SAFETY: the caller's contract.
    unsafe { fold_chunk(red, r, input, base, acc, start..end, R::run) }
}

/// Thread `tid` of `nthreads` of one reduction launch: its items of `l.mode`.
///
/// # Safety
/// * `input` is the input's base (element 0 of the view); `l.reduced`/`l.kept` describe the
///   input view (offsets from `input`, in elements of `R::In`) and contiguous outputs;
/// * `outs` are the output bases (of `R::Out`'s element types), with every output index the
///   geometry reaches, written by no one else; no two threads get the same item;
/// * `scratch` (`Chunks`/`Combine`) holds `kept numel * nchunks` states of `R::Acc`, aligned;
/// * the launch parameters satisfy [`DeviceReducer::from_params`].
pub unsafe fn reduce_body<R: DeviceReducer>(
    tid: u64,
    nthreads: u64,
    l: &ReduceLaunch,
    outs: &[*mut u8; 2],
    input: *const u8,
    scratch: *mut u8,
) {
    // SAFETY: the caller's contract.
    let r = unsafe { R::from_params(&l.params) };
    let (red, kept) = (l.reduced.view(), l.kept.view());
    let input = input.cast::<R::In>();
    let scratch = scratch.cast::<R::Acc>();
    let total_r = red.numel();
    let nchunks = l.nchunks.max(1);
    let items = l.items() as u64;
    let step = if nthreads == 0 { 1 } else { nthreads };
    let mut item = tid;
    while item < items {
        let t = item as usize;
        // SAFETY: the caller's contract, for every arm: the offsets come from the geometry of the
        // input view and the contiguous outputs, each output index is one item's.
        unsafe {
            match l.mode {
                m if m == ReduceMode::Whole as u32 => {
                    let (ibase, obase) = kept.offsets(t);
                    let acc = r.init(obase as usize);
                    let acc = fold_range(red, &r, input, ibase, acc, 0, total_r);
                    r.finish(acc).write(outs, obase as usize);
                }
                m if m == ReduceMode::Chunks as u32 => {
                    let (o, c) = (t / nchunks, t % nchunks);
                    let (ibase, obase) = kept.offsets(o);
                    let fresh = r.fresh(r.init(obase as usize));
                    let end = ((c + 1) * CHUNK).min(total_r);
                    let part = fold_range(red, &r, input, ibase, fresh, c * CHUNK, end);
                    scratch.add(t).write(part);
                }
                m if m == ReduceMode::Combine as u32 => {
                    let (_, obase) = kept.offsets(t);
                    let acc = r.init(obase as usize);
                    let parts = core::slice::from_raw_parts(scratch.add(t * nchunks), nchunks);
                    let acc = match tree(&r, parts) {
                        Some(p) => r.combine(acc, p),
                        None => acc,
                    };
                    r.finish(acc).write(outs, obase as usize);
                }
                m if m == ReduceMode::Outer as u32 => {
                    let width = l.width.max(1);
                    let (k, j) = (t / width, t % width);
                    let (ibase, obase) = kept.offsets(k);
                    let at = (obase + j as isize * l.ostep) as usize;
                    let acc = fold_column(red, &r, input, ibase + j as isize, r.init(at));
                    r.finish(acc).write(outs, at);
                }
                _ => r.finish(r.init(t)).write(outs, t),
            }
        }
        item += step;
    }
}

/// The argument of the fused softmax kernels (`reduce_softmax_rows_{t}`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SoftmaxRowsLaunch {
    /// Rows, each `n` contiguous elements.
    pub rows: u64,
    pub n: u64,
    /// 1: `log_softmax`.
    pub log: u32,
}

/// Thread `tid` of `nthreads` of a fused softmax launch: rows `tid`, `tid + nthreads`, ... of
/// `l.rows` contiguous rows of `l.n` elements ([`crate::reduce::fold::softmax_row`], as the
/// CPU's fused path).
///
/// # Safety
/// `x` and `out` hold `rows * n` contiguous elements of `F`; `out` is written by no one else and
/// does not overlap `x`.
pub unsafe fn softmax_rows_body<F: FloatAcc + Extremum>(
    tid: u64,
    nthreads: u64,
    l: &SoftmaxRowsLaunch,
    out: *mut u8,
    x: *const u8,
) {
    let (rows, n, log) = (l.rows, l.n, l.log != 0);
    let step = if nthreads == 0 { 1 } else { nthreads };
    let mut row = tid;
    while row < rows {
        let at = (row * n) as usize;
        // SAFETY: the caller's contract: row `row` is elements `at..at + n` of both.
        let (xs, os) = unsafe {
            (
                core::slice::from_raw_parts(x.cast::<F>().add(at), n as usize),
                core::slice::from_raw_parts_mut(out.cast::<F>().add(at), n as usize),
            )
        };
        crate::reduce::fold::softmax_row(xs, os, log);
        row += step;
    }
}
