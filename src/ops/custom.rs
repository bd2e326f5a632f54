//! Your own elementwise functions, run with the same machinery as the built-in ops: broadcasting,
//! any layout (transposed, sliced with steps, expanded), PyTorch type promotion, the parallel
//! [`TensorIterator`] and the typed inner loops of [`crate::kernels`].
//!
//! # Writing a functor
//!
//! A functor is a `Copy` value implementing [`Functor<Args>`](crate::functors::Functor) for the
//! argument tuples it accepts: `(A,)`, `(A, B)` or `(A, B, C)`. weft's own ops (`Add`, `Exp`,
//! `Where`, ...) are written exactly this way; nothing here treats them specially.
//!
//! The contract of `call` (the same as for weft's functors):
//! * a **pure function of its arguments and the functor's fields**: it is called from several
//!   threads at once, in any order, possibly more than once per element;
//! * **`core` only**: no allocation, no I/O, no `std` calls, no panics (no `unwrap`, no
//!   indexing that can go out of bounds, no integer `/` by a possible zero). Float math goes
//!   through [`crate::functors::real::Real`] (libm), which works in `no_std`. Such a functor also
//!   compiles for the GPU (see below);
//! * parameters (a slope, a `beta`, a scale) are **fields**, plain data (numbers, bools): the
//!   functor value is copied to every thread (and, on the GPU, passed as a kernel argument);
//! * f16/bf16: weft's convention is to compute in f32 and round once (`f16::from_f32(...)`).
//!
//! ```
//! use weft::functors::{Functor, real::Real};
//!
//! /// `a * x + b` with the parameters as fields.
//! #[derive(Copy, Clone)]
//! struct ScaleShift { a: f64, b: f64 }
//!
//! impl Functor<(f32,)> for ScaleShift {
//!     type Output = f32;
//!     fn call(&self, (x,): (f32,)) -> f32 { f32::c(self.a) * x + f32::c(self.b) }
//! }
//!
//! let x = weft::Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
//! let y = x.t().map(ScaleShift { a: 2.0, b: 1.0 }); // any layout
//! assert_eq!(y.to_vec(), vec![3.0, 7.0, 5.0, 9.0]);
//! ```
//!
//! # Typed tensors (`Tensor<T>`)
//!
//! [`Tensor::map`], [`Tensor::zip_with`], [`Tensor::zip3_with`] (and their `try_` forms, which
//! return [`Error::ShapeMismatch`] instead of panicking) apply a functor whose argument types are
//! the tensors' element types; the result is a `Tensor<F::Output>`. [`apply`] is the same for a
//! tuple of 1 to 3 tensors, and the [`Apply`] builder adds the knobs: a chosen output element
//! type ([`Apply::run_as`], converted like `.to()`), a given output ([`Apply::run_out`], also
//! in place), the parallel grain ([`Apply::cost`]) and the name in error messages.
//! [`from_fn`] turns a closure into a functor (CPU only: a closure cannot go to the GPU).
//!
//! # Runtime dtypes (`DynTensor`)
//!
//! A [`DynFunctor`] states which computation dtypes it supports; [`impl_dyn_functors!`]
//! writes the impl from a list in the format of weft's own GPU kernel list:
//!
//! ```
//! # use weft::functors::{Functor, real::Real};
//! # #[derive(Copy, Clone)] struct SmoothL1 { beta: f64 }
//! # impl<R: Real> Functor<(R, R)> for SmoothL1 {
//! #     type Output = R;
//! #     fn call(&self, (x, y): (R, R)) -> R { (x - y).abs() }
//! # }
//! weft::impl_dyn_functors! {
//!     "smooth_l1" (T, T) => SmoothL1: [f32, f64];
//! }
//! use weft::{DType, DynTensor, Error};
//! let x = DynTensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
//! let t = DynTensor::from_vec(vec![0.5f64], &[1]).unwrap();
//! // f32 and f64 promote to f64 (PyTorch's rules), the shapes broadcast.
//! let l = x.zip_with(&t, SmoothL1 { beta: 1.0 });
//! assert_eq!(l.dtype(), DType::F64);
//! // Integer inputs compute in i64, which SmoothL1 does not support.
//! let i = DynTensor::from_vec(vec![1i64, 2], &[2]).unwrap();
//! assert!(matches!(i.try_zip_with(&i, SmoothL1 { beta: 1.0 }),
//!     Err(Error::UnsupportedDType { op: "smooth_l1", dtype: DType::I64, .. })));
//! ```
//!
//! Inputs of different dtypes are promoted to their common dtype (PyTorch's rules, 0-d tensors
//! weaker than dimensioned ones) and the functor's instantiation for that dtype runs; the
//! inputs are converted inside the loop (no temporaries). [`DynApply::promotion`] changes that
//! ([`Promotion`]): integer inputs to the default float, no promotion (one dtype required), or a
//! fixed computation dtype. [`DynApply::out_dtype`] and [`DynApply::out`] choose the output.
//!
//! # GPU
//!
//! A functor written to the contract above is `no_std` code, and compiles to PTX with the
//! pipeline weft uses for its own kernels: put it in a crate (template:
//! `gpu/examples/user-functors/`), list it in [`gpu_user_kernels!`](crate::gpu_user_kernels)
//! (this list format; it also writes the `DynFunctor` impls), build the PTX with
//! `gpu/build-user-ptx.sh`, load it with `CudaContext::load_module` (feature `cuda`) and call
//! `map` / `zip_with` / `zip3_with` on device tensors. See [`crate::device::user_kernels`].

use crate::dtype::DType;
use crate::dyn_tensor::{DynElement, DynTensor};
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::functors::Functor;
use crate::iter::{IterConfig, LoopCost, TensorIterator};
use crate::kernels;
use crate::promotion::{OperandKind, ResultTypeState, can_cast};
use crate::tensor::Tensor;
use core::marker::PhantomData;
use std::vec::Vec;

/// Default name of a custom op in error messages.
const DEFAULT_NAME: &str = "custom";

/// An argument tuple `(A,)`, `(A, B)` or `(A, B, C)` of element types, with the inner loop that
/// applies a `Functor<Self>` over an iterator whose operands are `[out, inputs...]`.
pub trait KernelArgs: Sized {
    /// Number of inputs.
    const ARITY: usize;
    /// The element types, in order.
    fn dtypes() -> Vec<DType>;
    /// Runs `f` over every element of `iter` (parallel), converting from/to each operand's
    /// stored dtype where it differs from the argument/output type.
    fn for_each<F>(f: F, iter: &TensorIterator, cost: LoopCost)
    where
        F: Functor<Self>,
        F::Output: Element;
}

impl<A: Element> KernelArgs for (A,) {
    const ARITY: usize = 1;
    fn dtypes() -> Vec<DType> {
        vec![A::DTYPE]
    }
    fn for_each<F>(f: F, iter: &TensorIterator, cost: LoopCost)
    where
        F: Functor<(A,)>,
        F::Output: Element,
    {
        kernels::run_blocked(
            iter,
            cost,
            kernels::unary::<A, F>(f, iter.dtype(0), iter.dtype(1)),
        );
    }
}

impl<A: Element, B: Element> KernelArgs for (A, B) {
    const ARITY: usize = 2;
    fn dtypes() -> Vec<DType> {
        vec![A::DTYPE, B::DTYPE]
    }
    fn for_each<F>(f: F, iter: &TensorIterator, cost: LoopCost)
    where
        F: Functor<(A, B)>,
        F::Output: Element,
    {
        let d = |i| iter.dtype(i);
        kernels::run_blocked(iter, cost, kernels::binary::<A, B, F>(f, d(0), d(1), d(2)));
    }
}

impl<A: Element, B: Element, C: Element> KernelArgs for (A, B, C) {
    const ARITY: usize = 3;
    fn dtypes() -> Vec<DType> {
        vec![A::DTYPE, B::DTYPE, C::DTYPE]
    }
    fn for_each<F>(f: F, iter: &TensorIterator, cost: LoopCost)
    where
        F: Functor<(A, B, C)>,
        F::Output: Element,
    {
        let d = |i| iter.dtype(i);
        kernels::run_blocked(
            iter,
            cost,
            kernels::ternary::<A, B, C, F>(f, [d(0), d(1), d(2), d(3)]),
        );
    }
}

/// Builds `[out, inputs...]` (outputs never broadcast; a given output may alias an input only
/// exactly, as for the built-in in-place ops).
fn build_iter<'a>(
    name: &'static str,
    inputs: &[&'a DynTensor],
    out: Option<&'a DynTensor>,
    alloc_dtype: DType,
    promote: bool,
    int_to_float: bool,
) -> Result<TensorIterator<'a>> {
    let mut c = IterConfig::new()
        .name(name)
        .check_mem_overlap(true)
        .check_all_same_dtype(false);
    if promote {
        // Only for the iterator's record of the common dtype; the kernels cast in the loop.
        c = c
            .promote_inputs_to_common_dtype(true)
            .promote_integer_inputs_to_float(int_to_float);
    }
    c = match out {
        Some(o) => c.add_output(o),
        None => c.add_owned_output().declare_static_dtype(alloc_dtype),
    };
    for t in inputs {
        c = c.add_const_input(t);
    }
    c.build()
}

fn into_typed<O: DynElement>(d: DynTensor) -> Tensor<O> {
    O::unwrap(d).unwrap_or_else(|_| unreachable!("the iterator allocates the declared dtype"))
}

// ---------------------------------------------------------------------------------------------
// Typed tensors
// ---------------------------------------------------------------------------------------------

/// A tuple of 1 to 3 typed tensors (`(&a,)`, `(&a, &b)`, `(&a, &b, &c)`), or one `&Tensor`.
pub trait TensorInputs {
    /// The element types, as the functor's argument tuple.
    type Args: KernelArgs;
    /// The tensors as runtime-dtype handles (cheap: shared storage).
    fn to_dyn(&self) -> Vec<DynTensor>;
}

impl<A: DynElement> TensorInputs for &Tensor<A> {
    type Args = (A,);
    fn to_dyn(&self) -> Vec<DynTensor> {
        vec![A::wrap((*self).share())]
    }
}

impl<A: DynElement> TensorInputs for (&Tensor<A>,) {
    type Args = (A,);
    fn to_dyn(&self) -> Vec<DynTensor> {
        vec![A::wrap(self.0.share())]
    }
}

impl<A: DynElement, B: DynElement> TensorInputs for (&Tensor<A>, &Tensor<B>) {
    type Args = (A, B);
    fn to_dyn(&self) -> Vec<DynTensor> {
        vec![A::wrap(self.0.share()), B::wrap(self.1.share())]
    }
}

impl<A: DynElement, B: DynElement, C: DynElement> TensorInputs
    for (&Tensor<A>, &Tensor<B>, &Tensor<C>)
{
    type Args = (A, B, C);
    fn to_dyn(&self) -> Vec<DynTensor> {
        vec![
            A::wrap(self.0.share()),
            B::wrap(self.1.share()),
            C::wrap(self.2.share()),
        ]
    }
}

/// Options of a typed custom op; see the [module docs](self). `Apply::new(f).run(inputs)` is
/// [`apply`].
#[derive(Copy, Clone, Debug)]
pub struct Apply<F> {
    f: F,
    name: &'static str,
    cost: LoopCost,
}

impl<F: Copy + Send + Sync> Apply<F> {
    /// Defaults: name `"custom"`, [`LoopCost::Moderate`].
    pub fn new(f: F) -> Self {
        Apply {
            f,
            name: DEFAULT_NAME,
            cost: LoopCost::Moderate,
        }
    }
    /// The op name in error messages.
    pub fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }
    /// The per-element cost class, which sets the parallel grain (see [`LoopCost`]).
    pub fn cost(mut self, cost: LoopCost) -> Self {
        self.cost = cost;
        self
    }

    /// `f` over the broadcast inputs into a new `Tensor<F::Output>`.
    pub fn run<I>(self, inputs: I) -> Result<Tensor<F::Output>>
    where
        I: TensorInputs,
        F: Functor<I::Args>,
        F::Output: DynElement,
    {
        self.run_as::<F::Output, I>(inputs)
    }

    /// As [`Apply::run`], into a new `Tensor<O>`: each result is converted to `O` as
    /// [`convert_value`](crate::convert_value) does (the `.to()` rules).
    pub fn run_as<O: DynElement, I>(self, inputs: I) -> Result<Tensor<O>>
    where
        I: TensorInputs,
        F: Functor<I::Args>,
        F::Output: Element,
    {
        let ins = inputs.to_dyn();
        let refs: Vec<&DynTensor> = ins.iter().collect();
        let iter = build_iter(self.name, &refs, None, O::DTYPE, false, false)?;
        I::Args::for_each(self.f, &iter, self.cost);
        Ok(into_typed(iter.into_output()))
    }

    /// As [`Apply::run_as`], into the given output (any element type; it must have exactly the
    /// broadcast shape; it may be one of the inputs with the same layout: in place).
    pub fn run_out<O: DynElement, I>(self, inputs: I, out: &Tensor<O>) -> Result<()>
    where
        I: TensorInputs,
        F: Functor<I::Args>,
        F::Output: Element,
    {
        let ins = inputs.to_dyn();
        let refs: Vec<&DynTensor> = ins.iter().collect();
        let out = O::wrap(out.share());
        let iter = build_iter(self.name, &refs, Some(&out), O::DTYPE, false, false)?;
        I::Args::for_each(self.f, &iter, self.cost);
        Ok(())
    }
}

/// `f` over 1 to 3 typed tensors (`apply(f, (&a, &b, &c))`), broadcast, into a new
/// `Tensor<F::Output>`. See [`Apply`] for a chosen output type, a given output and the grain.
pub fn apply<F, I>(f: F, inputs: I) -> Result<Tensor<F::Output>>
where
    I: TensorInputs,
    F: Functor<I::Args>,
    F::Output: DynElement,
{
    Apply::new(f).run(inputs)
}

#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    r.or_panic()
}

/// Custom functors on typed tensors. The argument types are the tensors' element types.
impl<T: DynElement> Tensor<T> {
    /// `f(x)` for every element, into a new tensor of the same shape.
    pub fn try_map<F>(&self, f: F) -> Result<Tensor<F::Output>>
    where
        F: Functor<(T,)>,
        F::Output: DynElement,
    {
        apply(f, (self,))
    }
    /// Panicking form of [`Tensor::try_map`].
    #[track_caller]
    pub fn map<F>(&self, f: F) -> Tensor<F::Output>
    where
        F: Functor<(T,)>,
        F::Output: DynElement,
    {
        or_panic(self.try_map(f))
    }

    /// `f(x, y)` over `self` and `other` broadcast together ([`Error::ShapeMismatch`] when they
    /// do not broadcast).
    pub fn try_zip_with<U: DynElement, F>(
        &self,
        other: &Tensor<U>,
        f: F,
    ) -> Result<Tensor<F::Output>>
    where
        F: Functor<(T, U)>,
        F::Output: DynElement,
    {
        apply(f, (self, other))
    }
    /// Panicking form of [`Tensor::try_zip_with`].
    #[track_caller]
    pub fn zip_with<U: DynElement, F>(&self, other: &Tensor<U>, f: F) -> Tensor<F::Output>
    where
        F: Functor<(T, U)>,
        F::Output: DynElement,
    {
        or_panic(self.try_zip_with(other, f))
    }

    /// `f(x, y, z)` over three tensors broadcast together.
    pub fn try_zip3_with<U: DynElement, V: DynElement, F>(
        &self,
        b: &Tensor<U>,
        c: &Tensor<V>,
        f: F,
    ) -> Result<Tensor<F::Output>>
    where
        F: Functor<(T, U, V)>,
        F::Output: DynElement,
    {
        apply(f, (self, b, c))
    }
    /// Panicking form of [`Tensor::try_zip3_with`].
    #[track_caller]
    pub fn zip3_with<U: DynElement, V: DynElement, F>(
        &self,
        b: &Tensor<U>,
        c: &Tensor<V>,
        f: F,
    ) -> Tensor<F::Output>
    where
        F: Functor<(T, U, V)>,
        F::Output: DynElement,
    {
        or_panic(self.try_zip3_with(b, c, f))
    }
}

/// A closure as a functor (CPU only; see [`from_fn`]). `O` is the closure's result type.
pub struct FromFn<G, O> {
    g: G,
    _out: PhantomData<fn() -> O>,
}

impl<G: Copy, O> Clone for FromFn<G, O> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G: Copy, O> Copy for FromFn<G, O> {}

/// Wraps a `Copy` closure of 1 to 3 arguments as a functor: `x.map(from_fn(|v: f32| v * 2.0))`.
/// Convenient on the CPU; a GPU kernel needs a named struct functor instead.
pub fn from_fn<G: Copy + Send + Sync, O>(g: G) -> FromFn<G, O> {
    FromFn {
        g,
        _out: PhantomData,
    }
}

impl<G, A, O> Functor<(A,)> for FromFn<G, O>
where
    G: Fn(A) -> O + Copy + Send + Sync,
    O: Copy,
{
    type Output = O;
    #[inline(always)]
    fn call(&self, (a,): (A,)) -> O {
        (self.g)(a)
    }
}

impl<G, A, B, O> Functor<(A, B)> for FromFn<G, O>
where
    G: Fn(A, B) -> O + Copy + Send + Sync,
    O: Copy,
{
    type Output = O;
    #[inline(always)]
    fn call(&self, (a, b): (A, B)) -> O {
        (self.g)(a, b)
    }
}

impl<G, A, B, C, O> Functor<(A, B, C)> for FromFn<G, O>
where
    G: Fn(A, B, C) -> O + Copy + Send + Sync,
    O: Copy,
{
    type Output = O;
    #[inline(always)]
    fn call(&self, (a, b, c): (A, B, C)) -> O {
        (self.g)(a, b, c)
    }
}

// ---------------------------------------------------------------------------------------------
// Runtime dtypes
// ---------------------------------------------------------------------------------------------

/// How the computation dtype of a [`DynFunctor`] is chosen from its inputs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Promotion {
    /// PyTorch's common dtype of the inputs (`torch.result_type`: 0-d tensors weaker than
    /// dimensioned ones, categories before sizes). The default, as for `add`.
    #[default]
    Common,
    /// As `Common`, then a bool/integer result computes in the default float (f32), as for
    /// `div`, `exp`: for float-only functors that should accept integer tensors.
    CommonFloat,
    /// No promotion: every input must have the same dtype ([`Error::DTypeMismatch`]).
    Same,
    /// Compute in this dtype whatever the inputs' dtypes (each is converted in the loop).
    Fixed(DType),
}

/// A functor that can be applied to [`DynTensor`]s: it names the computation dtypes it supports
/// and maps a runtime dtype to its typed instantiation. Write it with [`impl_dyn_functors!`].
pub trait DynFunctor: Copy + Send + Sync {
    /// The op name in error messages (and the prefix of its GPU kernel names).
    const NAME: &'static str;
    /// The number of tensor inputs.
    const ARITY: usize;
    /// The supported computation dtypes, in the order listed.
    const DTYPES: &'static [DType];
    /// Runs the instantiation for computation dtype `compute` through `call`
    /// ([`DynCall::run`]), or returns [`DynCall::unsupported`] for a dtype not listed.
    fn launch(&self, compute: DType, call: DynCall<'_>) -> Result<DynTensor>;
    /// The dtypes of the instantiation for computation dtype `compute`, output first, then each
    /// argument: what its GPU kernels `{NAME}_{compute}_{c|s}` write and read. `None` for a dtype
    /// not listed (or, by default, for a functor with no GPU kernels).
    /// [`impl_dyn_functors!`] and [`gpu_user_kernels!`](crate::gpu_user_kernels) write it.
    fn signature(compute: DType) -> Option<Signature> {
        let _ = compute;
        None
    }
}

/// The prepared operands of a [`DynFunctor`] run, handed to [`DynFunctor::launch`].
pub struct DynCall<'a> {
    name: &'static str,
    inputs: &'a [&'a DynTensor],
    out: Option<&'a DynTensor>,
    out_dtype: Option<DType>,
    promote: bool,
    int_to_float: bool,
    compute: DType,
    cost: LoopCost,
}

impl DynCall<'_> {
    /// The computation dtype chosen from the inputs.
    pub fn compute_dtype(&self) -> DType {
        self.compute
    }

    /// The error for a computation dtype the functor does not support.
    pub fn unsupported(&self, dtype: DType) -> Error {
        Error::UnsupportedDType {
            op: self.name,
            dtype,
            other: None,
        }
    }

    /// Runs `f` with argument types `Args` (each input is converted to its argument type in the
    /// loop); the allocated output has `F::Output`'s dtype unless an output dtype was chosen.
    pub fn run<Args, F>(self, f: F) -> Result<DynTensor>
    where
        Args: KernelArgs,
        F: Functor<Args>,
        F::Output: Element,
    {
        if Args::ARITY != self.inputs.len() {
            return Err(arity_error(self.name, Args::ARITY, self.inputs.len()));
        }
        let result = <F::Output as Element>::DTYPE;
        if let Some(o) = self.out
            && !can_cast(result, o.dtype())
        {
            return Err(Error::UnsafeCast {
                op: self.name,
                from: result,
                to: o.dtype(),
            });
        }
        let alloc = self.out_dtype.unwrap_or(result);
        let iter = build_iter(
            self.name,
            self.inputs,
            self.out,
            alloc,
            self.promote,
            self.int_to_float,
        )?;
        debug_assert!(!self.promote || iter.common_dtype() == Some(self.compute));
        Args::for_each(f, &iter, self.cost);
        Ok(match self.out {
            Some(o) => o.share(),
            None => iter.into_output(),
        })
    }
}

fn arity_error(name: &'static str, want: usize, got: usize) -> Error {
    Error::InvalidArgument {
        op: name,
        reason: format!("takes {want} tensor input(s), got {got}"),
    }
}

/// A kernel signature: the output dtype, then each argument's ([`DynFunctor::signature`]).
pub type Signature = Vec<DType>;

/// The [`Signature`] of `F`'s instantiation for argument types `Args`.
pub fn signature_of<Args, F>() -> Signature
where
    Args: KernelArgs,
    F: Functor<Args>,
    F::Output: Element,
{
    let mut v = vec![<F::Output as Element>::DTYPE];
    v.extend(Args::dtypes());
    v
}

/// Options of a runtime-dtype custom op; `DynApply::new(f).run(&[&a, &b])`.
#[derive(Copy, Clone, Debug)]
pub struct DynApply<'a, F> {
    f: F,
    promotion: Promotion,
    out: Option<&'a DynTensor>,
    out_dtype: Option<DType>,
    cost: LoopCost,
}

impl<'a, F: DynFunctor> DynApply<'a, F> {
    /// Defaults: [`Promotion::Common`], a new output of the functor's result dtype,
    /// [`LoopCost::Moderate`].
    pub fn new(f: F) -> Self {
        DynApply {
            f,
            promotion: Promotion::Common,
            out: None,
            out_dtype: None,
            cost: LoopCost::Moderate,
        }
    }
    /// How the computation dtype is chosen.
    pub fn promotion(mut self, p: Promotion) -> Self {
        self.promotion = p;
        self
    }
    /// The dtype of the new output (results are converted with the `.to()` rules).
    pub fn out_dtype(mut self, d: DType) -> Self {
        self.out_dtype = Some(d);
        self
    }
    /// Write into `out` (exactly the broadcast shape; its dtype must be a safe cast of the
    /// result dtype, as for PyTorch's `out=`). Returns `out` (shared).
    pub fn out(mut self, out: &'a DynTensor) -> Self {
        self.out = Some(out);
        self
    }
    /// The per-element cost class (parallel grain).
    pub fn cost(mut self, cost: LoopCost) -> Self {
        self.cost = cost;
        self
    }

    /// Runs the functor over `inputs` (as many as [`DynFunctor::ARITY`]), broadcast.
    pub fn run(self, inputs: &[&DynTensor]) -> Result<DynTensor> {
        if inputs.len() != F::ARITY {
            return Err(arity_error(F::NAME, F::ARITY, inputs.len()));
        }
        let dtypes: Vec<(DType, bool)> =
            inputs.iter().map(|t| (t.dtype(), t.ndim() == 0)).collect();
        let compute = compute_dtype(F::NAME, &dtypes, self.promotion)?;
        let (promote, int_to_float) = match self.promotion {
            Promotion::Common => (true, false),
            Promotion::CommonFloat => (true, true),
            Promotion::Same | Promotion::Fixed(_) => (false, false),
        };
        let call = DynCall {
            name: F::NAME,
            inputs,
            out: self.out,
            out_dtype: self.out_dtype,
            promote,
            int_to_float,
            compute,
            cost: self.cost,
        };
        self.f.launch(compute, call)
    }
}

/// The computation dtype of a custom op over inputs `(dtype, is 0-d)` under `promotion` (shared
/// by the CPU and the device runs). `Common`: `torch.result_type` of the inputs, as the iterator
/// computes it with `promote_inputs_to_common_dtype` (and `promote_integer_inputs_to_float`).
pub fn compute_dtype(
    name: &'static str,
    inputs: &[(DType, bool)],
    promotion: Promotion,
) -> Result<DType> {
    let Some(&(first, _)) = inputs.first() else {
        return Err(arity_error(name, 1, 0));
    };
    let common = |int_to_float: bool| {
        let st = inputs
            .iter()
            .fold(ResultTypeState::new(), |st, &(d, zero_dim)| {
                let kind = if zero_dim {
                    OperandKind::ZeroDim
                } else {
                    OperandKind::Dimensioned
                };
                st.update(d, kind)
            });
        let c = st.finish().unwrap_or(first);
        if int_to_float && !c.is_float() {
            DType::DEFAULT_FLOAT
        } else {
            c
        }
    };
    Ok(match promotion {
        Promotion::Common => common(false),
        Promotion::CommonFloat => common(true),
        Promotion::Same => {
            if let Some(&(d, _)) = inputs.iter().find(|&&(d, _)| d != first) {
                return Err(Error::DTypeMismatch {
                    op: name,
                    expected: first,
                    got: d,
                });
            }
            first
        }
        Promotion::Fixed(d) => d,
    })
}

/// `f` over 1 to 3 `DynTensor`s with the default options (see [`DynApply`]).
pub fn apply_dyn<F: DynFunctor>(f: F, inputs: &[&DynTensor]) -> Result<DynTensor> {
    DynApply::new(f).run(inputs)
}

/// Custom functors on runtime-dtype tensors: inputs promote to their common dtype, which the
/// functor must list ([`Error::UnsupportedDType`] otherwise).
impl DynTensor {
    /// `f(x)` for every element.
    pub fn try_map<F: DynFunctor>(&self, f: F) -> Result<DynTensor> {
        apply_dyn(f, &[self])
    }
    /// Panicking form of [`DynTensor::try_map`].
    #[track_caller]
    pub fn map<F: DynFunctor>(&self, f: F) -> DynTensor {
        or_panic(self.try_map(f))
    }
    /// `f(x, y)` over `self` and `other`, promoted and broadcast.
    pub fn try_zip_with<F: DynFunctor>(&self, other: &DynTensor, f: F) -> Result<DynTensor> {
        apply_dyn(f, &[self, other])
    }
    /// Panicking form of [`DynTensor::try_zip_with`].
    #[track_caller]
    pub fn zip_with<F: DynFunctor>(&self, other: &DynTensor, f: F) -> DynTensor {
        or_panic(self.try_zip_with(other, f))
    }
    /// `f(x, y, z)` over three tensors, promoted and broadcast.
    pub fn try_zip3_with<F: DynFunctor>(
        &self,
        b: &DynTensor,
        c: &DynTensor,
        f: F,
    ) -> Result<DynTensor> {
        apply_dyn(f, &[self, b, c])
    }
    /// Panicking form of [`DynTensor::try_zip3_with`].
    #[track_caller]
    pub fn zip3_with<F: DynFunctor>(&self, b: &DynTensor, c: &DynTensor, f: F) -> DynTensor {
        or_panic(self.try_zip3_with(b, c, f))
    }
}

/// The `DType` of a kernel-list type token (`bool u8 i8 i16 i32 i64 f16 bf16 f32 f64`): the
/// `Element::DTYPE` of the type `__gpu_user_type!` maps it to.
#[doc(hidden)]
#[macro_export]
macro_rules! __custom_dtype {
    ($t:tt) => {
        <$crate::__gpu_user_type!($t) as $crate::Element>::DTYPE
    };
}

/// The argument tuple type of a kernel-list entry (`(T)` -> `(T,)`) and its arity.
#[doc(hidden)]
#[macro_export]
macro_rules! __custom_args {
    (@tuple ($($a:ty),+ $(,)?)) => { ($($a,)+) };
    (@arity ($a:ty $(,)?)) => { 1 };
    (@arity ($a:ty, $b:ty $(,)?)) => { 2 };
    (@arity ($a:ty, $b:ty, $c:ty $(,)?)) => { 3 };
}

/// Implements [`DynFunctor`](crate::ops::custom::DynFunctor) for functors from a list in the
/// format of weft's GPU kernel list (`src/portable/device/kernel_list.rs`). For a functor that also runs
/// on the GPU, list it in [`gpu_user_kernels!`](crate::gpu_user_kernels) instead, which writes
/// these impls and the kernels from the same list:
///
/// ```text
/// weft::impl_dyn_functors! {
///     "smooth_l1"   (T, T)       => SmoothL1: [f32, f64, f16, bf16];
///     "scale_shift" (T)          => ScaleShift: [f32, f64];
///     "select_add"  (bool, T, T) => SelectAdd: [f32, i64];
/// }
/// ```
///
/// * the string is the op name ([`DynFunctor::NAME`](crate::ops::custom::DynFunctor::NAME));
/// * the parenthesised list is the functor's argument tuple, `T` standing for the computation
///   dtype (1 to 3 arguments); the functor must implement `Functor<that tuple>` with an
///   element `Output` for every listed type (a missing impl is a compile error naming it);
/// * the bracketed types are the supported computation dtypes: exactly the tokens
///   `bool u8 i8 i16 i32 i64 f16 bf16 f32 f64`. Any other computation dtype is
///   `Error::UnsupportedDType` naming it.
///
/// * `, scalar` after the functor (a GPU kernel-list option) is accepted and ignored here.
///
/// Each functor type may appear once. The type may be generic-instantiated (`Scaled<f64>`).
#[macro_export]
macro_rules! impl_dyn_functors {
    ($($name:literal $args:tt => $f:ty $(, scalar)? : [$($t:ident),+ $(,)?];)*) => {$(
        impl $crate::ops::custom::DynFunctor for $f {
            const NAME: &'static str = $name;
            const ARITY: usize = $crate::__custom_args!(@arity $args);
            const DTYPES: &'static [$crate::DType] = &[$($crate::__custom_dtype!($t)),+];
            fn launch(
                &self,
                compute: $crate::DType,
                call: $crate::ops::custom::DynCall<'_>,
            ) -> $crate::Result<$crate::DynTensor> {
                $(
                    if compute == $crate::__custom_dtype!($t) {
                        #[allow(dead_code)]
                        type T = $crate::__gpu_user_type!($t);
                        return call.run::<$crate::__custom_args!(@tuple $args), Self>(*self);
                    }
                )+
                Err(call.unsupported(compute))
            }
            fn signature(
                compute: $crate::DType,
            ) -> ::core::option::Option<$crate::ops::custom::Signature> {
                $(
                    if compute == $crate::__custom_dtype!($t) {
                        #[allow(dead_code)]
                        type T = $crate::__gpu_user_type!($t);
                        type Args = $crate::__custom_args!(@tuple $args);
                        return ::core::option::Option::Some(
                            $crate::ops::custom::signature_of::<Args, Self>(),
                        );
                    }
                )+
                ::core::option::Option::None
            }
        }
    )*};
}
