//! The reducers: per op, the state, how it takes an element, merges, and becomes the output.
//! Element conversions are `convert_value` (PyTorch's casts), inlined to plain `as` casts.
//! `no_std` and panic-free: the GPU kernels run these same state machines (`device::reduce`).

use super::fold::{LANES, OutValue, Reducer, WithIndex};
use super::types::{AccNum, Extremum, FloatAcc};
use crate::element::{Element, convert_value};
use crate::functors::real::Real;
use core::marker::PhantomData;

/// `sum`, `prod` and `mean`: accumulate in `A`, finish as `O` (`mean`: divided by `count`).
pub struct Fold<T, A, O> {
    pub(crate) prod: bool,
    /// `Some(n)` for `mean`.
    pub(crate) mean_of: Option<usize>,
    pub(crate) _p: PhantomData<fn(T) -> (A, O)>,
}

impl<T: Element, A: AccNum, O: Element> Fold<T, A, O> {
    pub(crate) fn new(prod: bool, mean_of: Option<usize>) -> Self {
        Fold {
            prod,
            mean_of,
            _p: PhantomData,
        }
    }
}

impl<T: Element, A: AccNum, O: Element> Reducer for Fold<T, A, O> {
    type In = T;
    type Acc = A;
    type Out = O;
    #[inline(always)]
    fn init(&self, _: usize) -> A {
        if self.prod { A::ONE } else { A::ZERO }
    }
    #[inline(always)]
    fn fresh(&self, _: A) -> A {
        self.init(0)
    }
    #[inline(always)]
    fn step(&self, acc: A, x: T, _: usize) -> A {
        self.combine(acc, convert_value::<T, A>(x))
    }
    #[inline(always)]
    fn combine(&self, a: A, b: A) -> A {
        if self.prod { a.mul(b) } else { a.add(b) }
    }
    #[inline(always)]
    fn finish(&self, acc: A) -> O {
        // PyTorch's CPU mean of f16/bf16 sums and divides in f32 and rounds once.
        match self.mean_of {
            Some(n) => convert_value::<A, O>(acc.div_count(n)),
            None => convert_value::<A, O>(acc),
        }
    }
    // Specialised so that the `prod` flag is tested once per run, not per element.
    #[inline(always)]
    fn run(&self, acc: A, xs: &[T], _: usize) -> A {
        if self.prod {
            lanes(acc, xs, A::ONE, |a, b| a.mul(b))
        } else {
            lanes(acc, xs, A::ZERO, |a, b| a.add(b))
        }
    }
}

/// [`Reducer::run`] for a plain fold `f` with identity `id`.
#[inline(always)]
fn lanes<T: Element, A: AccNum>(acc: A, xs: &[T], id: A, f: impl Fn(A, A) -> A) -> A {
    const L: usize = LANES;
    let mut l = [id; L];
    let mut blocks = xs.chunks_exact(L);
    for b in &mut blocks {
        for (a, &x) in l.iter_mut().zip(b) {
            *a = f(*a, convert_value::<T, A>(x));
        }
    }
    let mut tail = id;
    for &x in blocks.remainder() {
        tail = f(tail, convert_value::<T, A>(x));
    }
    let mut w = L;
    while w > 1 {
        w /= 2;
        let (lo, hi) = l.split_at_mut(w);
        for (a, &b) in lo.iter_mut().zip(hi.iter()) {
            *a = f(*a, b);
        }
    }
    f(acc, f(l[0], tail))
}

/// `amax`/`amin`: NaN propagates.
pub struct Extreme<T> {
    pub(crate) max: bool,
    pub(crate) _p: PhantomData<fn(T)>,
}

impl<T: Extremum> Extreme<T> {
    pub(crate) fn new(max: bool) -> Self {
        Extreme {
            max,
            _p: PhantomData,
        }
    }
}

impl<T: Extremum> Reducer for Extreme<T> {
    type In = T;
    type Acc = T;
    type Out = T;
    #[inline(always)]
    fn init(&self, _: usize) -> T {
        if self.max { T::LOWEST } else { T::HIGHEST }
    }
    #[inline(always)]
    fn fresh(&self, _: T) -> T {
        self.init(0)
    }
    #[inline(always)]
    fn step(&self, acc: T, x: T, _: usize) -> T {
        self.combine(acc, x)
    }
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        let better = if self.max { b > a } else { b < a };
        if better || b.is_nan_elem() { b } else { a }
    }
    #[inline(always)]
    fn finish(&self, acc: T) -> T {
        acc
    }
    #[inline(always)]
    fn run(&self, acc: T, xs: &[T], _: usize) -> T {
        let (m, nan) = T::block_extreme(xs, self.max);
        match nan.then(|| xs.iter().find(|x| x.is_nan_elem())).flatten() {
            Some(&n) => self.combine(acc, n),
            None if xs.is_empty() => acc,
            None => self.combine(acc, m),
        }
    }
}

/// `argmax`/`argmin` and `max(dim)`/`min(dim)`: the first index of the extreme value, NaN
/// counting as the extreme. The state is (value, index); `usize::MAX` is "no element yet".
pub struct Arg<T, O> {
    pub(crate) max: bool,
    pub(crate) _p: PhantomData<fn(T) -> O>,
}

impl<T: Extremum, O> Arg<T, O> {
    pub(crate) fn new(max: bool) -> Self {
        Arg {
            max,
            _p: PhantomData,
        }
    }
    #[inline(always)]
    fn beats(&self, x: T, y: T) -> bool {
        (x.is_nan_elem() && !y.is_nan_elem()) || if self.max { x > y } else { x < y }
    }
}

/// The index of the first element of `xs` satisfying `p` (0 if none): 16 at a time, each
/// group tested with a branch-free `or` (vectorizes), then searched.
#[inline(always)]
fn first_index<T: Copy>(xs: &[T], p: impl Fn(T) -> bool) -> usize {
    let mut groups = xs.chunks_exact(16);
    let mut base = 0;
    for g in &mut groups {
        if g.iter().fold(false, |a, &x| a | p(x)) {
            return base + g.iter().position(|&x| p(x)).unwrap_or(0);
        }
        base += 16;
    }
    base + groups.remainder().iter().position(|&x| p(x)).unwrap_or(0)
}

/// How an [`Arg`] reduction writes its result: the index, or the value and the index.
pub trait ArgOut<T>: OutValue {
    fn from_pair(v: T, i: i64) -> Self;
}
impl<T> ArgOut<T> for i64 {
    #[inline(always)]
    fn from_pair(_: T, i: i64) -> i64 {
        i
    }
}
impl<T: Element> ArgOut<T> for WithIndex<T> {
    #[inline(always)]
    fn from_pair(v: T, i: i64) -> Self {
        WithIndex(v, i)
    }
}

impl<T: Extremum, O: ArgOut<T>> Reducer for Arg<T, O> {
    type In = T;
    type Acc = (T, usize);
    type Out = O;
    #[inline(always)]
    fn init(&self, _: usize) -> (T, usize) {
        (T::ZERO, usize::MAX)
    }
    #[inline(always)]
    fn fresh(&self, _: (T, usize)) -> (T, usize) {
        self.init(0)
    }
    #[inline(always)]
    fn step(&self, acc: (T, usize), x: T, i: usize) -> (T, usize) {
        if acc.1 == usize::MAX || self.beats(x, acc.0) {
            (x, i)
        } else {
            acc
        }
    }
    #[inline(always)]
    fn combine(&self, a: (T, usize), b: (T, usize)) -> (T, usize) {
        if a.1 == usize::MAX {
            return b;
        }
        if b.1 == usize::MAX || self.beats(a.0, b.0) {
            return a;
        }
        if self.beats(b.0, a.0) || b.1 < a.1 {
            b
        } else {
            a
        }
    }
    #[inline(always)]
    fn finish(&self, acc: (T, usize)) -> O {
        O::from_pair(acc.0, acc.1 as i64)
    }
    /// Blocks of 1024: the block's extreme (vectorized), and only when it beats the state so
    /// far, the index of its first occurrence (or of the first NaN).
    #[inline(always)]
    fn run(&self, mut acc: (T, usize), xs: &[T], index0: usize) -> (T, usize) {
        for (b, block) in xs.chunks(1024).enumerate() {
            let (m, nan) = T::block_extreme(block, self.max);
            let base = index0 + b * 1024;
            let i = if nan {
                first_index(block, |x| x.is_nan_elem())
            } else {
                if acc.1 != usize::MAX && !self.beats(m, acc.0) {
                    continue;
                }
                first_index(block, |x| x == m)
            };
            // (`get`: no panic path for the device build; `i` is always in the block.)
            let Some(&v) = block.get(i) else { continue };
            let cand = (v, base + i);
            acc = self.combine(acc, cand);
        }
        acc
    }
}

/// `any`/`all`: nonzero (NaN included) is true.
pub struct AnyAll<T, O> {
    pub(crate) all: bool,
    pub(crate) _p: PhantomData<fn(T) -> O>,
}

impl<T: Element, O: Element> AnyAll<T, O> {
    pub(crate) fn new(all: bool) -> Self {
        AnyAll {
            all,
            _p: PhantomData,
        }
    }
}

impl<T: Element, O: Element> Reducer for AnyAll<T, O> {
    // Its bool lanes compile to slower code for AVX2 than for the baseline target.
    const WIDE_ISA: bool = false;
    type In = T;
    type Acc = bool;
    type Out = O;
    #[inline(always)]
    fn init(&self, _: usize) -> bool {
        self.all
    }
    #[inline(always)]
    fn fresh(&self, _: bool) -> bool {
        self.all
    }
    #[inline(always)]
    fn step(&self, acc: bool, x: T, _: usize) -> bool {
        // `x != 0`, NaN included (NaN != 0).
        let t = x != T::ZERO;
        if self.all { acc & t } else { acc | t }
    }
    #[inline(always)]
    fn combine(&self, a: bool, b: bool) -> bool {
        if self.all { a & b } else { a | b }
    }
    #[inline(always)]
    fn finish(&self, acc: bool) -> O {
        convert_value::<bool, O>(acc)
    }
}

/// `var`/`std` in one read of the data: each contiguous block of up to [`VAR_BLOCK`] elements
/// gets its exact two-pass mean and sum of squared deviations (the block is in cache for the
/// second pass), strided elements a Welford update, and states merge by Chan's formula. All in
/// f64 (PyTorch's CPU accumulation type for f32: a row holding 1e30 has a finite std).
/// Finished as `m2 / (n - correction)`, NaN when that divisor is not positive.
pub struct Variance<T> {
    pub(crate) correction: f64,
    pub(crate) sqrt: bool,
    pub(crate) _p: PhantomData<fn(T)>,
}

impl<T: Element> Variance<T> {
    pub(crate) fn new(correction: f64, sqrt: bool) -> Self {
        Variance {
            correction,
            sqrt,
            _p: PhantomData,
        }
    }
}

const VAR_BLOCK: usize = 4096;

/// (count, mean, sum of squared deviations from the mean).
#[derive(Copy, Clone)]
pub struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

const NO_MOMENTS: Moments = Moments {
    n: 0.0,
    mean: 0.0,
    m2: 0.0,
};

impl<T: Element> Reducer for Variance<T> {
    type In = T;
    type Acc = Moments;
    type Out = T;
    #[inline(always)]
    fn init(&self, _: usize) -> Moments {
        NO_MOMENTS
    }
    #[inline(always)]
    fn fresh(&self, _: Moments) -> Moments {
        NO_MOMENTS
    }
    #[inline(always)]
    fn step(&self, acc: Moments, x: T, _: usize) -> Moments {
        let x = convert_value::<T, f64>(x);
        let n = acc.n + 1.0;
        let d = x - acc.mean;
        let mean = acc.mean + d / n;
        Moments {
            n,
            mean,
            m2: acc.m2 + d * (x - mean),
        }
    }
    #[inline(always)]
    fn combine(&self, a: Moments, b: Moments) -> Moments {
        if b.n == 0.0 {
            return a;
        }
        if a.n == 0.0 {
            return b;
        }
        let n = a.n + b.n;
        let d = b.mean - a.mean;
        Moments {
            n,
            mean: a.mean + d * (b.n / n),
            m2: a.m2 + b.m2 + d * d * (a.n * b.n / n),
        }
    }
    #[inline(always)]
    fn finish(&self, acc: Moments) -> T {
        let div = acc.n - self.correction;
        let v = if div > 0.0 { acc.m2 / div } else { f64::NAN };
        convert_value::<f64, T>(if self.sqrt { Real::sqrt(v) } else { v })
    }
    #[inline(always)]
    fn run(&self, mut acc: Moments, xs: &[T], _: usize) -> Moments {
        for block in xs.chunks(VAR_BLOCK) {
            let mean = lanes(0f64, block, 0f64, |a, b| a + b) / block.len() as f64;
            let m2 = lanes_map(block, |x| {
                let d = convert_value::<T, f64>(x) - mean;
                d * d
            });
            acc = self.combine(
                acc,
                Moments {
                    n: block.len() as f64,
                    mean,
                    m2,
                },
            );
        }
        acc
    }
}

/// `sum(g(x))` over `xs` in [`LANES`] f64 lanes, fixed combination tree.
#[inline(always)]
fn lanes_map<T: Element>(xs: &[T], g: impl Fn(T) -> f64) -> f64 {
    const L: usize = LANES;
    let mut l = [0f64; L];
    let mut blocks = xs.chunks_exact(L);
    for b in &mut blocks {
        for (a, &x) in l.iter_mut().zip(b) {
            *a += g(x);
        }
    }
    let mut tail = 0f64;
    for &x in blocks.remainder() {
        tail += g(x);
    }
    let mut w = L;
    while w > 1 {
        w /= 2;
        let (lo, hi) = l.split_at_mut(w);
        for (a, &b) in lo.iter_mut().zip(hi.iter()) {
            *a += b;
        }
    }
    l[0] + tail
}

/// What [`ExpSum`] finishes as: `logsumexp` (`log(sum) + shift`, an infinite maximum shifting
/// by 0), or the per-row factor of the last pass of `softmax` (`1 / sum`) or `log_softmax`
/// (`log(sum)`), whose shift is the maximum as it is (a row holding +inf is NaN, as in PyTorch).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(u32)]
pub enum ExpSumKind {
    Logsumexp,
    Softmax,
    LogSoftmax,
}

/// `sum(exp(x - shift))` per output, the shift each row's maximum (from a first pass: the
/// `amax` result, of the input's type), converted to `F`.
pub struct ExpSum<'m, T, F, O> {
    pub(crate) maxima: &'m [T],
    pub(crate) kind: ExpSumKind,
    pub(crate) _p: PhantomData<fn(T) -> (F, O)>,
}

impl<'m, T: Element, F: FloatAcc, O: Element> ExpSum<'m, T, F, O> {
    pub(crate) fn new(maxima: &'m [T], kind: ExpSumKind) -> Self {
        ExpSum {
            maxima,
            kind,
            _p: PhantomData,
        }
    }
}

impl<T: Element, F: FloatAcc, O: Element> Reducer for ExpSum<'_, T, F, O> {
    type In = T;
    type Acc = (F, F);
    type Out = O;
    #[inline(always)]
    fn init(&self, out: usize) -> (F, F) {
        let m = convert_value::<T, F>(self.maxima.get(out).copied().unwrap_or(T::ZERO));
        let shift = if self.kind == ExpSumKind::Logsumexp && !m.is_finite_acc() {
            F::ZERO
        } else {
            m
        };
        (F::ZERO, shift)
    }
    #[inline(always)]
    fn fresh(&self, like: (F, F)) -> (F, F) {
        (F::ZERO, like.1)
    }
    #[inline(always)]
    fn step(&self, acc: (F, F), x: T, _: usize) -> (F, F) {
        (acc.0.add(convert_value::<T, F>(x).sub(acc.1).exp()), acc.1)
    }
    #[inline(always)]
    fn combine(&self, a: (F, F), b: (F, F)) -> (F, F) {
        (a.0.add(b.0), a.1)
    }
    /// The shift is the same for the whole run: plain lanes of `exp(x - shift)`.
    #[inline(always)]
    fn run(&self, acc: (F, F), xs: &[T], _: usize) -> (F, F) {
        let shift = acc.1;
        let mut l = [F::ZERO; LANES];
        let mut blocks = xs.chunks_exact(LANES);
        for b in &mut blocks {
            for (a, &x) in l.iter_mut().zip(b) {
                *a = a.add(convert_value::<T, F>(x).sub(shift).exp());
            }
        }
        let mut tail = F::ZERO;
        for &x in blocks.remainder() {
            tail = tail.add(convert_value::<T, F>(x).sub(shift).exp());
        }
        let mut w = LANES;
        while w > 1 {
            w /= 2;
            let (lo, hi) = l.split_at_mut(w);
            for (a, &b) in lo.iter_mut().zip(hi.iter()) {
                *a = a.add(b);
            }
        }
        (acc.0.add(l[0].add(tail)), shift)
    }
    #[inline(always)]
    fn finish(&self, acc: (F, F)) -> O {
        let v = match self.kind {
            ExpSumKind::Logsumexp => acc.0.ln().add(acc.1),
            ExpSumKind::Softmax => F::ONE.div(acc.0),
            ExpSumKind::LogSoftmax => acc.0.ln(),
        };
        convert_value::<F, O>(v)
    }
}

/// The last, elementwise pass of `softmax`/`log_softmax` over `(x, row maximum, row factor)`
/// (the factor from [`ExpSum`]: `1 / sum` or `log(sum)`), computed in `F` and rounded once:
/// `exp(x - max) * factor` or `(x - max) - factor`. A functor, so the device runs it as a
/// ternary kernel (`softmax_apply` in the kernel list).
#[derive(Copy, Clone, Debug)]
#[repr(C)]
pub struct SoftmaxApply {
    pub log: bool,
}

impl<T: Element, F: FloatAcc> crate::functors::Functor<(T, T, F)> for SoftmaxApply {
    type Output = T;
    #[inline(always)]
    fn call(&self, (x, max, factor): (T, T, F)) -> T {
        let d = convert_value::<T, F>(x).sub(convert_value::<T, F>(max));
        convert_value::<F, T>(if self.log {
            d.sub(factor)
        } else {
            d.exp().mul(factor)
        })
    }
}
