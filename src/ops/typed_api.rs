//! The `Tensor<T>` op methods and `std::ops` operators, checked at compile time.
//!
//! For every op `x`: `try_x` returns `Result`, `x` panics with the error's message, `x_` /
//! `try_x_` work in place, `x_out` / `try_x_out` write into a given tensor (any view, of any
//! element type the result casts into safely). A method exists only for the element types its
//! functor supports, so these do not compile:
//!
//! ```compile_fail
//! use weft::Tensor;
//! let a = Tensor::<bool>::ones(&[2]);
//! let _ = &a - &a; // bool subtraction is not defined
//! ```
//! ```compile_fail
//! use weft::Tensor;
//! let a = Tensor::<f32>::ones(&[2]);
//! let _ = a.bitwise_and(&a); // bitwise ops are for integers and bool
//! ```
//! ```compile_fail
//! use weft::{Tensor, functors::GeluApproximate};
//! let a = Tensor::<i32>::ones(&[2]);
//! let _ = a.gelu(GeluApproximate::None); // gelu is for floats
//! ```
//! (and the same program with `Tensor::<f32>` in the last compiles:)
//! ```
//! use weft::{Tensor, functors::GeluApproximate};
//! let a = Tensor::<f32>::ones(&[2]);
//! let _ = a.gelu(GeluApproximate::None);
//! ```
//!
//! Result types:
//! * binary methods take a tensor of the same `T`, a `T` value, or an explicit [`Scalar`]
//!   (then the result must still be `T`, else `Error::UnsafeCast`): the result is `T`
//!   (`Tensor<bool>` for comparisons and logical ops);
//! * float math (`div`, `atan2`, `copysign`, `hypot`, `exp`, `sin`, `sigmoid`, ...) on bool and
//!   integer tensors computes in f32 and returns `Tensor<f32>`, as PyTorch does (the mapping is
//!   [`FloatOf`]); its in-place forms exist for float `T` only. `silu`, `softplus`, `frac`,
//!   `gelu`, `leaky_relu` and `lerp` have no integer form at all (convert with `.to::<f32>()`);
//! * operators mix element types: `&Tensor<i64> + &Tensor<f32>` is `Tensor<f32>` through
//!   [`Promote`] (the promotion of two dimensioned tensors, also when one is 0-d); a Rust number
//!   follows PyTorch's scalar rule: `Tensor<i64> * 2.5` is `Tensor<f32>`, `Tensor<f16> * 2.5` is
//!   `Tensor<f16>`, `Tensor<bool> + 1` is `Tensor<i64>` ([`FloatOf`], [`IntOf`]).
//!
//! Implementation: every method and operator runs the `DynTensor` runner of its op
//! ([`super::binary`], [`super::unary`], [`super::special`]) on handle-free views of its tensors
//! (`dyn_tensor::with_dyn_view`); the `Functor` bounds only decide, at compile time, which
//! methods exist and their result types. The methods of the elementwise ops are generated from
//! the op table (`functors::table`).

use super::binary::{self, Side, run_binary};
use super::promote::{
    CastsInto, FloatOf, Promote, PromoteFloatScalar, Promoted, ScalarOf, ScalarOperand, ScalarRule,
};
use super::special;
use super::unary;
use super::{Operand, fresh};
use crate::dyn_tensor::{DynElement, DynTensor, ElementParts, with_dyn_view};
use crate::element::Element;
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::functors::{self as f, BinaryOp, Functor, GeluApproximate, UnaryOp};
use crate::scalar::Scalar;
use crate::tensor::Tensor;

#[track_caller]
fn ok<T>(r: Result<T>) -> T {
    r.or_panic()
}

/// One operand of a typed op: a tensor, a value of its element type, or a Python-like scalar.
#[derive(Clone, Copy, Debug)]
pub enum TOperand<'a, T: Element> {
    Tensor(&'a Tensor<T>),
    Value(T),
    Scalar(Scalar),
}

impl<'a, T: Element> From<&'a Tensor<T>> for TOperand<'a, T> {
    fn from(t: &'a Tensor<T>) -> Self {
        TOperand::Tensor(t)
    }
}
impl<T: Element> From<T> for TOperand<'_, T> {
    fn from(v: T) -> Self {
        TOperand::Value(v)
    }
}
impl<T: Element> From<Scalar> for TOperand<'_, T> {
    fn from(s: Scalar) -> Self {
        TOperand::Scalar(s)
    }
}

/// A value as the scalar of its category (what a Python number of that value would be).
fn scalar_of<T: Element>(v: T) -> Scalar {
    Scalar::from(v.to_value())
}

/// A typed tensor out of a runner's result; another dtype means the op's result does not fit
/// the static type (only possible with an explicit `Scalar` operand).
#[inline(always)]
fn unwrap_as<O: DynElement>(op: &'static str, d: DynTensor) -> Result<Tensor<O>> {
    let from = d.dtype();
    O::unwrap(d).map_err(|_| Error::UnsafeCast {
        op,
        from,
        to: O::DTYPE,
    })
}

fn wrap<T: DynElement>(t: &Tensor<T>) -> DynTensor {
    T::wrap(t.share())
}

/// An operand converted for the `DynTensor` runners.
enum DynArg {
    T(DynTensor),
    S(Scalar),
}

impl DynArg {
    fn of<X: DynElement>(o: &TOperand<X>) -> DynArg {
        match o {
            TOperand::Tensor(t) => DynArg::T(wrap(t)),
            TOperand::Value(v) => DynArg::S(scalar_of(*v)),
            TOperand::Scalar(s) => DynArg::S(*s),
        }
    }
    fn operand(&self) -> Operand<'_> {
        match self {
            DynArg::T(t) => Operand::Tensor(t),
            DynArg::S(s) => Operand::Scalar(*s),
        }
    }
}

/// Both operands for a binary runner. The static result type is the promotion of dimensioned
/// tensors, so a 0-d tensor of another dtype next to a dimensioned one is viewed as shape [1]
/// (same broadcast result, but it now takes full part in promotion).
fn dyn_pair<A: DynElement, B: DynElement>(a: &TOperand<A>, b: &TOperand<B>) -> (DynArg, DynArg) {
    let (mut da, mut db) = (DynArg::of(a), DynArg::of(b));
    if let (DynArg::T(x), DynArg::T(y)) = (&mut da, &mut db)
        && x.dtype() != y.dtype()
    {
        if x.ndim() == 0 && y.ndim() > 0 {
            *x = x.unsqueeze(0);
        } else if y.ndim() == 0 && x.ndim() > 0 {
            *y = y.unsqueeze(0);
        }
    }
    (da, db)
}

/// A value operand as a scalar (tensors are handled by the callers).
fn scalar<X: Element>(o: &TOperand<X>) -> Scalar {
    match *o {
        TOperand::Value(v) => scalar_of(v),
        TOperand::Scalar(s) => s,
        TOperand::Tensor(_) => unreachable!("a tensor operand"),
    }
}

/// Runs `f` on both operands as runner operands: tensors as handle-free views
/// ([`with_dyn_view`]), values as scalars, with `dyn_pair`'s 0-d rule.
fn with_pair<A: DynElement, B: DynElement, R>(
    a: &TOperand<A>,
    b: &TOperand<B>,
    f: impl FnOnce(Operand<'_>, Operand<'_>) -> R,
) -> R {
    match (a, b) {
        (TOperand::Tensor(x), TOperand::Tensor(y))
            if A::DTYPE != B::DTYPE && (x.ndim() == 0) != (y.ndim() == 0) =>
        {
            let (da, db) = dyn_pair(a, b);
            f(da.operand(), db.operand())
        }
        (TOperand::Tensor(x), TOperand::Tensor(y)) => with_dyn_view(x, |x| {
            with_dyn_view(y, |y| f(Operand::Tensor(x), Operand::Tensor(y)))
        }),
        (TOperand::Tensor(x), _) => {
            with_dyn_view(x, |x| f(Operand::Tensor(x), Operand::Scalar(scalar(b))))
        }
        (_, TOperand::Tensor(y)) => {
            with_dyn_view(y, |y| f(Operand::Scalar(scalar(a)), Operand::Tensor(y)))
        }
        _ => f(Operand::Scalar(scalar(a)), Operand::Scalar(scalar(b))),
    }
}

// ------------------------------------------------------------------------------ the runners

// Every typed op runs the `DynTensor` runner of its op (one engine). The functor value `_f`
// only witnesses, through the caller's `Functor` bound, that the op exists for these types
// with this static result type.

/// `op(a, b)` into a new tensor of the static result type `O`, computed in `C`.
fn binary_new<A, B, C, O, F>(
    op: BinaryOp,
    _f: F,
    a: TOperand<A>,
    b: TOperand<B>,
) -> Result<Tensor<O>>
where
    A: DynElement,
    B: DynElement,
    C: Element,
    O: DynElement,
    F: Functor<(C, C), Output = O>,
{
    let general = || with_pair(&a, &b, |da, db| run_binary(op, da, db, None));
    let r = flat_tier_or(op, &a, &b, None, general);
    unwrap_as(op.name(), fresh(op.name(), r)?)
}

/// The runner's flat tier straight from the typed operands' parts (no `DynTensor` views, which
/// cost a tiny op two 128-byte copies), or `otherwise()` where it does not apply.
#[inline(always)]
fn flat_tier_or<A: DynElement, B: DynElement>(
    op: BinaryOp,
    a: &TOperand<A>,
    b: &TOperand<B>,
    out: Option<ElementParts>,
    otherwise: impl FnOnce() -> Result<Option<DynTensor>>,
) -> Result<Option<DynTensor>> {
    match (a, b) {
        (TOperand::Tensor(x), TOperand::Tensor(y)) => {
            binary::flat_pair_or(op, x.element_parts(), y.element_parts(), out, otherwise)
        }
        (TOperand::Tensor(x), _) => {
            binary::flat_scalar_or(op, x.element_parts(), Side::Rhs, scalar(b), out, otherwise)
        }
        (_, TOperand::Tensor(y)) => {
            binary::flat_scalar_or(op, y.element_parts(), Side::Lhs, scalar(a), out, otherwise)
        }
        _ => otherwise(),
    }
}

/// `op(a, b)` written into `out` (any view, any dtype the result casts into safely).
fn binary_into<A, B, C, O, U, F>(
    op: BinaryOp,
    _f: F,
    a: TOperand<A>,
    b: TOperand<B>,
    out: &Tensor<U>,
) -> Result<()>
where
    A: DynElement,
    B: DynElement,
    C: Element,
    O: DynElement,
    U: DynElement,
    F: Functor<(C, C), Output = O>,
{
    let general = || {
        with_dyn_view(out, |o| {
            with_pair(&a, &b, |da, db| run_binary(op, da, db, Some(o)))
        })
    };
    flat_tier_or(op, &a, &b, Some(out.element_parts()), general).map(|_| ())
}

/// `op(a)` into a new tensor of the static result type `O`.
fn unary_new<T, C, O, F>(op: UnaryOp, _f: F, a: &Tensor<T>) -> Result<Tensor<O>>
where
    T: DynElement,
    C: Element,
    O: DynElement,
    F: Functor<(C,), Output = O>,
{
    let general = || with_dyn_view(a, |d| unary::run_general(op, d, None));
    let r = unary::flat_unary_or(op, a.element_parts(), None, general);
    unwrap_as(op.name(), fresh(op.name(), r)?)
}

/// `op(a)` into `out`.
fn unary_into<T, C, O, U, F>(op: UnaryOp, _f: F, a: &Tensor<T>, out: &Tensor<U>) -> Result<()>
where
    T: DynElement,
    C: Element,
    O: DynElement,
    U: DynElement,
    F: Functor<(C,), Output = O>,
{
    let general = || {
        with_dyn_view(a, |d| {
            with_dyn_view(out, |o| unary::run_general(op, d, Some(o)))
        })
    };
    unary::flat_unary_or(op, a.element_parts(), Some(out.element_parts()), general).map(|_| ())
}

// ------------------------------------------------------------------------------ binary methods

macro_rules! binary_methods {
    (@block [$($bounds:tt)*] $C:ty, $O:ty; $($name:ident, $try_name:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl<T: DynElement> Tensor<T> where $($bounds)* {$(
            #[doc = concat!("`", stringify!($name), "(self, rhs)`; `rhs` is a tensor of the same type, a value or a [`Scalar`].")]
            pub fn $try_name<'a>(&self, rhs: impl Into<TOperand<'a, T>>) -> Result<Tensor<$O>> {
                binary_new::<T, T, $C, $O, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), rhs.into())
            }
            #[doc = concat!("`", stringify!($name), "(self, rhs)`; panics on error (see `", stringify!($try_name), "`).")]
            #[track_caller]
            pub fn $name<'a>(&self, rhs: impl Into<TOperand<'a, T>>) -> Tensor<$O> {
                ok(self.$try_name(rhs))
            }
            #[doc = concat!("`", stringify!($name), "` into `out` (any view of the result's shape; the result must cast safely to `U`).")]
            pub fn $try_out<'a, U: DynElement>(&self, rhs: impl Into<TOperand<'a, T>>, out: &mut Tensor<U>) -> Result<()> {
                binary_into::<T, T, $C, $O, U, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), rhs.into(), out)
            }
            #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
            #[track_caller]
            pub fn $out<'a, U: DynElement>(&self, rhs: impl Into<TOperand<'a, T>>, out: &mut Tensor<U>) {
                ok(self.$try_out(rhs, out))
            }
        )*}
    };
    (@inplace [$($bounds:tt)*] $C:ty, $O:ty; $($inplace:ident, $try_inplace:ident => $op:ident;)*) => {
        impl<T: DynElement> Tensor<T> where $($bounds)* {$(
            #[doc = concat!("In-place `", stringify!($op), "` (the result casts into `T`).")]
            pub fn $try_inplace<'a>(&mut self, rhs: impl Into<TOperand<'a, T>>) -> Result<()> {
                binary_into::<T, T, $C, $O, T, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), rhs.into(), self)
            }
            #[doc = concat!("In-place `", stringify!($op), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace<'a>(&mut self, rhs: impl Into<TOperand<'a, T>>) {
                ok(self.$try_inplace(rhs))
            }
        )*}
    };
}

macro_rules! binary_same {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        binary_methods!(@block [f::$op: Functor<(T, T), Output = T>] T, T; $name, $try_name, $out, $try_out => $op;);
        binary_methods!(@inplace [f::$op: Functor<(T, T), Output = T>] T, T; $inplace, $try_inplace => $op;);
    )*};
}

macro_rules! binary_pred {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        binary_methods!(@block [f::$op: Functor<(T, T), Output = bool>] T, bool; $name, $try_name, $out, $try_out => $op;);
        binary_methods!(@inplace [f::$op: Functor<(T, T), Output = bool>] T, bool; $inplace, $try_inplace => $op;);
    )*};
}

macro_rules! binary_float {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        binary_methods!(@block [T: PromoteFloatScalar, f::$op: Functor<(FloatOf<T>, FloatOf<T>), Output = FloatOf<T>>] FloatOf<T>, FloatOf<T>; $name, $try_name, $out, $try_out => $op;);
        binary_methods!(@inplace [T: PromoteFloatScalar<Output = T>, f::$op: Functor<(T, T), Output = T>] T, T; $inplace, $try_inplace => $op;);
    )*};
}

/// The methods of every binary op of the table, by its result rule.
macro_rules! typed_binary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! {$(
            typed_binary_methods!(@$result $name, [<try_ $name>], [<$name _>], [<try_ $name _>], [<$name _out>], [<try_ $name _out>] => $Op);
        )*}
    };
    (@same $($t:tt)*) => { binary_same! { $($t)*; } };
    (@bool $($t:tt)*) => { binary_pred! { $($t)*; } };
    (@to_float $($t:tt)*) => { binary_float! { $($t)*; } };
}
crate::binary_op_table!(typed_binary_methods);

// ------------------------------------------------------------------------------ unary methods

macro_rules! unary_methods {
    (@block [$($bounds:tt)*] $C:ty, $O:ty; $($name:ident, $try_name:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl<T: DynElement> Tensor<T> where $($bounds)* {$(
            #[doc = concat!("`", stringify!($name), "(self)`.")]
            pub fn $try_name(&self) -> Result<Tensor<$O>> {
                unary_new::<T, $C, $O, _>(UnaryOp::$op, <f::$op>::default(), self)
            }
            #[doc = concat!("`", stringify!($name), "(self)`; panics on error.")]
            #[track_caller]
            pub fn $name(&self) -> Tensor<$O> {
                ok(self.$try_name())
            }
            #[doc = concat!("`", stringify!($name), "` into `out` (the result must cast safely to `U`).")]
            pub fn $try_out<U: DynElement>(&self, out: &mut Tensor<U>) -> Result<()> {
                unary_into::<T, $C, $O, U, _>(UnaryOp::$op, <f::$op>::default(), self, out)
            }
            #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
            #[track_caller]
            pub fn $out<U: DynElement>(&self, out: &mut Tensor<U>) {
                ok(self.$try_out(out))
            }
        )*}
    };
    (@inplace [$($bounds:tt)*] $C:ty, $O:ty; $($inplace:ident, $try_inplace:ident => $op:ident;)*) => {
        impl<T: DynElement> Tensor<T> where $($bounds)* {$(
            #[doc = concat!("In-place `", stringify!($op), "`.")]
            pub fn $try_inplace(&mut self) -> Result<()> {
                unary_into::<T, $C, $O, T, _>(UnaryOp::$op, <f::$op>::default(), self, self)
            }
            #[doc = concat!("In-place `", stringify!($op), "`; panics on error.")]
            #[track_caller]
            pub fn $inplace(&mut self) {
                ok(self.$try_inplace())
            }
        )*}
    };
}

macro_rules! unary_same {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        unary_methods!(@block [f::$op: Functor<(T,), Output = T>] T, T; $name, $try_name, $out, $try_out => $op;);
        unary_methods!(@inplace [f::$op: Functor<(T,), Output = T>] T, T; $inplace, $try_inplace => $op;);
    )*};
}

macro_rules! unary_pred {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        unary_methods!(@block [f::$op: Functor<(T,), Output = bool>] T, bool; $name, $try_name, $out, $try_out => $op;);
        unary_methods!(@inplace [f::$op: Functor<(T,), Output = bool>] T, bool; $inplace, $try_inplace => $op;);
    )*};
}

macro_rules! unary_float {
    ($($name:ident, $try_name:ident, $inplace:ident, $try_inplace:ident, $out:ident, $try_out:ident => $op:ident;)*) => {$(
        unary_methods!(@block [T: PromoteFloatScalar, f::$op: Functor<(FloatOf<T>,), Output = FloatOf<T>>] FloatOf<T>, FloatOf<T>; $name, $try_name, $out, $try_out => $op;);
        unary_methods!(@inplace [T: PromoteFloatScalar<Output = T>, f::$op: Functor<(T,), Output = T>] T, T; $inplace, $try_inplace => $op;);
    )*};
}

/// The methods of every unary op of the table (but those with `OwnMethods`), by result rule.
macro_rules! typed_unary_methods {
    (() $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        paste::paste! {$(
            typed_unary_methods!(@line [$($flag)*] $result $name, [<try_ $name>], [<$name _>], [<try_ $name _>], [<$name _out>], [<try_ $name _out>] => $Op);
        )*}
    };
    (@line [OwnMethods $($flag:ident)*] $($t:tt)*) => {};
    (@line [$($flag:ident)*] same $($t:tt)*) => { unary_same! { $($t)*; } };
    (@line [$($flag:ident)*] bool $($t:tt)*) => { unary_pred! { $($t)*; } };
    (@line [$($flag:ident)*] to_float $($t:tt)*) => { unary_float! { $($t)*; } };
}
crate::unary_op_table!(typed_unary_methods);

// ------------------------------------------------------------------------------ ops with arguments

/// A result of a special-op runner as `Tensor<O>`.
fn special_new<O: DynElement>(name: &'static str, r: Result<DynTensor>) -> Result<Tensor<O>> {
    unwrap_as(name, r?)
}

impl<T: DynElement> Tensor<T>
where
    f::Clamp<T>: Functor<(T,), Output = T>,
{
    /// `clamp(self, min, max)` with value bounds (at least one given; NaN propagates).
    pub fn try_clamp(&self, min: Option<T>, max: Option<T>) -> Result<Tensor<T>> {
        let (lo, hi) = (min.map(scalar_of), max.map(scalar_of));
        let r = special::clamp(
            &wrap(self),
            lo.map(Operand::Scalar),
            hi.map(Operand::Scalar),
            None,
        );
        special_new("clamp", r)
    }
    #[track_caller]
    pub fn clamp(&self, min: Option<T>, max: Option<T>) -> Tensor<T> {
        ok(self.try_clamp(min, max))
    }
    pub fn try_clamp_(&mut self, min: Option<T>, max: Option<T>) -> Result<()> {
        let d = wrap(self);
        let (lo, hi) = (min.map(scalar_of), max.map(scalar_of));
        special::clamp(
            &d,
            lo.map(Operand::Scalar),
            hi.map(Operand::Scalar),
            Some(&d),
        )
        .map(|_| ())
    }
    #[track_caller]
    pub fn clamp_(&mut self, min: Option<T>, max: Option<T>) {
        ok(self.try_clamp_(min, max))
    }
    pub fn try_clamp_out<U: DynElement>(
        &self,
        min: Option<T>,
        max: Option<T>,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        let (lo, hi) = (min.map(scalar_of), max.map(scalar_of));
        special::clamp(
            &wrap(self),
            lo.map(Operand::Scalar),
            hi.map(Operand::Scalar),
            Some(&wrap(out)),
        )
        .map(|_| ())
    }
    #[track_caller]
    pub fn clamp_out<U: DynElement>(&self, min: Option<T>, max: Option<T>, out: &mut Tensor<U>) {
        ok(self.try_clamp_out(min, max, out))
    }
    /// `clamp(self, min, max)` with tensor bounds that broadcast (at least one given).
    pub fn try_clamp_tensor(
        &self,
        min: Option<&Tensor<T>>,
        max: Option<&Tensor<T>>,
    ) -> Result<Tensor<T>> {
        let (lo, hi) = (min.map(wrap), max.map(wrap));
        let r = special::clamp(
            &wrap(self),
            lo.as_ref().map(Operand::Tensor),
            hi.as_ref().map(Operand::Tensor),
            None,
        );
        special_new("clamp", r)
    }
    #[track_caller]
    pub fn clamp_tensor(&self, min: Option<&Tensor<T>>, max: Option<&Tensor<T>>) -> Tensor<T> {
        ok(self.try_clamp_tensor(min, max))
    }
    pub fn try_clamp_tensor_(
        &mut self,
        min: Option<&Tensor<T>>,
        max: Option<&Tensor<T>>,
    ) -> Result<()> {
        let d = wrap(self);
        let (lo, hi) = (min.map(wrap), max.map(wrap));
        special::clamp(
            &d,
            lo.as_ref().map(Operand::Tensor),
            hi.as_ref().map(Operand::Tensor),
            Some(&d),
        )
        .map(|_| ())
    }
    pub fn try_clamp_tensor_out<U: DynElement>(
        &self,
        min: Option<&Tensor<T>>,
        max: Option<&Tensor<T>>,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        let (lo, hi) = (min.map(wrap), max.map(wrap));
        special::clamp(
            &wrap(self),
            lo.as_ref().map(Operand::Tensor),
            hi.as_ref().map(Operand::Tensor),
            Some(&wrap(out)),
        )
        .map(|_| ())
    }
}

impl<T: DynElement> Tensor<T>
where
    f::LeakyRelu: Functor<(T,), Output = T>,
{
    /// `leaky_relu(self, negative_slope)` (floats).
    pub fn try_leaky_relu(&self, negative_slope: f64) -> Result<Tensor<T>> {
        special_new(
            "leaky_relu",
            special::leaky_relu(&wrap(self), negative_slope, None),
        )
    }
    #[track_caller]
    pub fn leaky_relu(&self, negative_slope: f64) -> Tensor<T> {
        ok(self.try_leaky_relu(negative_slope))
    }
    pub fn try_leaky_relu_(&mut self, negative_slope: f64) -> Result<()> {
        let d = wrap(self);
        special::leaky_relu(&d, negative_slope, Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn leaky_relu_(&mut self, negative_slope: f64) {
        ok(self.try_leaky_relu_(negative_slope))
    }
    pub fn try_leaky_relu_out<U: DynElement>(
        &self,
        negative_slope: f64,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        special::leaky_relu(&wrap(self), negative_slope, Some(&wrap(out))).map(|_| ())
    }
    #[track_caller]
    pub fn leaky_relu_out<U: DynElement>(&self, negative_slope: f64, out: &mut Tensor<U>) {
        ok(self.try_leaky_relu_out(negative_slope, out))
    }
}

impl<T: DynElement> Tensor<T>
where
    f::Hardtanh<T>: Functor<(T,), Output = T>,
{
    /// `hardtanh(self, min_val, max_val)` (integers and floats).
    pub fn try_hardtanh(&self, min: T, max: T) -> Result<Tensor<T>> {
        let r = special::hardtanh(&wrap(self), scalar_of(min), scalar_of(max), None);
        special_new("hardtanh", r)
    }
    #[track_caller]
    pub fn hardtanh(&self, min: T, max: T) -> Tensor<T> {
        ok(self.try_hardtanh(min, max))
    }
    pub fn try_hardtanh_(&mut self, min: T, max: T) -> Result<()> {
        let d = wrap(self);
        special::hardtanh(&d, scalar_of(min), scalar_of(max), Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn hardtanh_(&mut self, min: T, max: T) {
        ok(self.try_hardtanh_(min, max))
    }
    pub fn try_hardtanh_out<U: DynElement>(
        &self,
        min: T,
        max: T,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        special::hardtanh(
            &wrap(self),
            scalar_of(min),
            scalar_of(max),
            Some(&wrap(out)),
        )
        .map(|_| ())
    }
    #[track_caller]
    pub fn hardtanh_out<U: DynElement>(&self, min: T, max: T, out: &mut Tensor<U>) {
        ok(self.try_hardtanh_out(min, max, out))
    }
}

impl<T: DynElement> Tensor<T>
where
    f::Gelu: Functor<(T,), Output = T>,
{
    /// `gelu(self)`, exact (erf) or `GeluApproximate::Tanh` (floats).
    pub fn try_gelu(&self, approximate: GeluApproximate) -> Result<Tensor<T>> {
        special_new("gelu", special::gelu(&wrap(self), approximate, None))
    }
    #[track_caller]
    pub fn gelu(&self, approximate: GeluApproximate) -> Tensor<T> {
        ok(self.try_gelu(approximate))
    }
    pub fn try_gelu_(&mut self, approximate: GeluApproximate) -> Result<()> {
        let d = wrap(self);
        special::gelu(&d, approximate, Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn gelu_(&mut self, approximate: GeluApproximate) {
        ok(self.try_gelu_(approximate))
    }
    pub fn try_gelu_out<U: DynElement>(
        &self,
        approximate: GeluApproximate,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        special::gelu(&wrap(self), approximate, Some(&wrap(out))).map(|_| ())
    }
    #[track_caller]
    pub fn gelu_out<U: DynElement>(&self, approximate: GeluApproximate, out: &mut Tensor<U>) {
        ok(self.try_gelu_out(approximate, out))
    }
}

/// A `where` operand: values become 0-d tensors of `U`, so two values give `U` too.
fn where_arg<U: DynElement>(o: &TOperand<U>) -> DynArg {
    match o {
        TOperand::Value(v) => DynArg::T(U::wrap(Tensor::scalar(*v))),
        other => DynArg::of(other),
    }
}

impl Tensor<bool> {
    /// `where(self, a, b)`: `a` where self is true, else `b` (tensors of `U` or values; all
    /// three broadcast).
    pub fn try_where<'a, 'b, U: DynElement>(
        &self,
        a: impl Into<TOperand<'a, U>>,
        b: impl Into<TOperand<'b, U>>,
    ) -> Result<Tensor<U>> {
        let (a, b) = (where_arg(&a.into()), where_arg(&b.into()));
        special_new(
            "where",
            special::where_(&wrap(self), a.operand(), b.operand(), None),
        )
    }
    /// `where(self, a, b)`; panics on error. (`where` is a keyword; no in-place form exists.)
    #[track_caller]
    pub fn where_<'a, 'b, U: DynElement>(
        &self,
        a: impl Into<TOperand<'a, U>>,
        b: impl Into<TOperand<'b, U>>,
    ) -> Tensor<U> {
        ok(self.try_where(a, b))
    }
    /// `where(self, a, b)` into `out`.
    pub fn try_where_out<'a, 'b, U: DynElement, V: DynElement>(
        &self,
        a: impl Into<TOperand<'a, U>>,
        b: impl Into<TOperand<'b, U>>,
        out: &mut Tensor<V>,
    ) -> Result<()> {
        let (a, b) = (where_arg(&a.into()), where_arg(&b.into()));
        special::where_(&wrap(self), a.operand(), b.operand(), Some(&wrap(out))).map(|_| ())
    }
    #[track_caller]
    pub fn where_out<'a, 'b, U: DynElement, V: DynElement>(
        &self,
        a: impl Into<TOperand<'a, U>>,
        b: impl Into<TOperand<'b, U>>,
        out: &mut Tensor<V>,
    ) {
        ok(self.try_where_out(a, b, out))
    }
}

impl<T: DynElement> Tensor<T> {
    /// `masked_fill(self, mask, value)`: `value` where `mask` (broadcast) is true.
    pub fn try_masked_fill(&self, mask: &Tensor<bool>, value: T) -> Result<Tensor<T>> {
        let r = special::masked_fill(
            &wrap(self),
            &wrap(mask),
            Operand::Scalar(scalar_of(value)),
            None,
        );
        special_new("masked_fill", r)
    }
    #[track_caller]
    pub fn masked_fill(&self, mask: &Tensor<bool>, value: T) -> Tensor<T> {
        ok(self.try_masked_fill(mask, value))
    }
    /// In-place `masked_fill`: `mask` must broadcast to self's shape.
    pub fn try_masked_fill_(&mut self, mask: &Tensor<bool>, value: T) -> Result<()> {
        let d = wrap(self);
        special::masked_fill(&d, &wrap(mask), Operand::Scalar(scalar_of(value)), Some(&d))
            .map(|_| ())
    }
    #[track_caller]
    pub fn masked_fill_(&mut self, mask: &Tensor<bool>, value: T) {
        ok(self.try_masked_fill_(mask, value))
    }
    pub fn try_masked_fill_out<U: DynElement>(
        &self,
        mask: &Tensor<bool>,
        value: T,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        special::masked_fill(
            &wrap(self),
            &wrap(mask),
            Operand::Scalar(scalar_of(value)),
            Some(&wrap(out)),
        )
        .map(|_| ())
    }
    #[track_caller]
    pub fn masked_fill_out<U: DynElement>(
        &self,
        mask: &Tensor<bool>,
        value: T,
        out: &mut Tensor<U>,
    ) {
        ok(self.try_masked_fill_out(mask, value, out))
    }

    /// Every element converted to `U` through the iterator (keeps self's dimension order; the
    /// same storage, shared, when `U` is `T`). [`Tensor::to`] is the simple serial form.
    pub fn try_to<U: DynElement>(&self) -> Result<Tensor<U>> {
        special_new("to", special::to_dtype(&wrap(self), U::DTYPE))
    }
    /// Copies `src` (broadcast to self's shape, converted to `T`) into self, any view.
    pub fn try_copy_<U: DynElement>(&mut self, src: &Tensor<U>) -> Result<()> {
        special::copy_into(&wrap(self), &wrap(src))
    }
    #[track_caller]
    pub fn copy_<U: DynElement>(&mut self, src: &Tensor<U>) {
        ok(self.try_copy_(src))
    }
}

impl<T: DynElement> Tensor<T>
where
    f::Lerp: Functor<(T, T, T), Output = T>,
{
    /// `lerp(self, end, weight)` = `self + weight * (end - self)` (floats); `weight` a tensor
    /// or a value.
    pub fn try_lerp<'a>(
        &self,
        end: &Tensor<T>,
        weight: impl Into<TOperand<'a, T>>,
    ) -> Result<Tensor<T>> {
        let w = DynArg::of(&weight.into());
        special_new(
            "lerp",
            special::lerp(&wrap(self), &wrap(end), w.operand(), None),
        )
    }
    #[track_caller]
    pub fn lerp<'a>(&self, end: &Tensor<T>, weight: impl Into<TOperand<'a, T>>) -> Tensor<T> {
        ok(self.try_lerp(end, weight))
    }
    pub fn try_lerp_<'a>(
        &mut self,
        end: &Tensor<T>,
        weight: impl Into<TOperand<'a, T>>,
    ) -> Result<()> {
        let w = DynArg::of(&weight.into());
        let d = wrap(self);
        special::lerp(&d, &wrap(end), w.operand(), Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn lerp_<'a>(&mut self, end: &Tensor<T>, weight: impl Into<TOperand<'a, T>>) {
        ok(self.try_lerp_(end, weight))
    }
    pub fn try_lerp_out<'a, U: DynElement>(
        &self,
        end: &Tensor<T>,
        weight: impl Into<TOperand<'a, T>>,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        let w = DynArg::of(&weight.into());
        special::lerp(&wrap(self), &wrap(end), w.operand(), Some(&wrap(out))).map(|_| ())
    }
    #[track_caller]
    pub fn lerp_out<'a, U: DynElement>(
        &self,
        end: &Tensor<T>,
        weight: impl Into<TOperand<'a, T>>,
        out: &mut Tensor<U>,
    ) {
        ok(self.try_lerp_out(end, weight, out))
    }
}

/// addcmul exists for the numeric types (those with subtraction: not bool).
impl<T: DynElement> Tensor<T>
where
    f::Sub: Functor<(T, T), Output = T>,
{
    /// `addcmul(self, t1, t2, value)` = `self + value * t1 * t2`.
    pub fn try_addcmul(&self, t1: &Tensor<T>, t2: &Tensor<T>, value: T) -> Result<Tensor<T>> {
        let r = special::addcmul(&wrap(self), &wrap(t1), &wrap(t2), scalar_of(value), None);
        special_new("addcmul", r)
    }
    #[track_caller]
    pub fn addcmul(&self, t1: &Tensor<T>, t2: &Tensor<T>, value: T) -> Tensor<T> {
        ok(self.try_addcmul(t1, t2, value))
    }
    pub fn try_addcmul_(&mut self, t1: &Tensor<T>, t2: &Tensor<T>, value: T) -> Result<()> {
        let d = wrap(self);
        special::addcmul(&d, &wrap(t1), &wrap(t2), scalar_of(value), Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn addcmul_(&mut self, t1: &Tensor<T>, t2: &Tensor<T>, value: T) {
        ok(self.try_addcmul_(t1, t2, value))
    }
    pub fn try_addcmul_out<U: DynElement>(
        &self,
        t1: &Tensor<T>,
        t2: &Tensor<T>,
        value: T,
        out: &mut Tensor<U>,
    ) -> Result<()> {
        special::addcmul(
            &wrap(self),
            &wrap(t1),
            &wrap(t2),
            scalar_of(value),
            Some(&wrap(out)),
        )
        .map(|_| ())
    }
    #[track_caller]
    pub fn addcmul_out<U: DynElement>(
        &self,
        t1: &Tensor<T>,
        t2: &Tensor<T>,
        value: T,
        out: &mut Tensor<U>,
    ) {
        ok(self.try_addcmul_out(t1, t2, value, out))
    }
}

// ------------------------------------------------------------------------------ operators

/// The broadcast shape of two shapes, if they broadcast.
fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let y = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Whether `a` can take the result of `a op b` in its own buffer: uniquely owned, contiguous,
/// of the result's type and shape.
fn reusable<A: Element, O: Element>(a: &mut Tensor<A>, b_shape: Option<&[usize]>) -> bool {
    A::DTYPE == O::DTYPE
        && a.is_contiguous()
        && b_shape.is_none_or(|s| broadcast_shape(a.shape(), s).as_deref() == Some(a.shape()))
        && a.is_uniquely_owned()
}

/// `Tensor<A>` as `Tensor<O>` when they are one type (checked by the callers through DTYPE).
fn retype<A: DynElement, O: DynElement>(a: Tensor<A>) -> Tensor<O> {
    O::unwrap(A::wrap(a)).unwrap_or_else(|_| unreachable!("same dtype"))
}

macro_rules! tensor_operators {
    ($($Trait:ident, $method:ident, $Assign:ident, $assign:ident => $op:ident;)*) => {$(
        // &Tensor<A> op &Tensor<B>
        impl<A, B> std::ops::$Trait<&Tensor<B>> for &Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            type Output = Tensor<Promoted<A, B>>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<B>) -> Self::Output {
                type P<A, B> = Promoted<A, B>;
                ok(binary_new::<A, B, P<A, B>, P<A, B>, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), TOperand::Tensor(rhs)))
            }
        }
        // Tensor<A> op &Tensor<B>: reuses self's buffer when it can.
        impl<A, B> std::ops::$Trait<&Tensor<B>> for Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            type Output = Tensor<Promoted<A, B>>;
            #[track_caller]
            fn $method(mut self, rhs: &Tensor<B>) -> Self::Output {
                type P<A, B> = Promoted<A, B>;
                if reusable::<A, P<A, B>>(&mut self, Some(rhs.shape())) {
                    ok(binary_into::<A, B, P<A, B>, P<A, B>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(&self), TOperand::Tensor(rhs), &self));
                    return retype(self);
                }
                std::ops::$Trait::$method(&self, rhs)
            }
        }
        impl<A, B> std::ops::$Trait<Tensor<B>> for Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            type Output = Tensor<Promoted<A, B>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<B>) -> Self::Output {
                std::ops::$Trait::$method(self, &rhs)
            }
        }
        impl<A, B> std::ops::$Trait<Tensor<B>> for &Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            type Output = Tensor<Promoted<A, B>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<B>) -> Self::Output {
                std::ops::$Trait::$method(self, &rhs)
            }
        }
        // a op= &b: the promoted result must cast safely into A (checked when compiling).
        impl<A, B> std::ops::$Assign<&Tensor<B>> for Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            Promoted<A, B>: CastsInto<A>,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: &Tensor<B>) {
                type P<A, B> = Promoted<A, B>;
                ok(binary_into::<A, B, P<A, B>, P<A, B>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), TOperand::Tensor(rhs), self))
            }
        }
        impl<A, B> std::ops::$Assign<Tensor<B>> for Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
            Promoted<A, B>: CastsInto<A>,
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: Tensor<B>) {
                std::ops::$Assign::$assign(self, &rhs)
            }
        }
        tensor_operators!(@scalar $Trait, $method, $Assign, $assign, $op);
        tensor_operators!(@number $Trait, $method, $op, f64, i64);
    )*};
    // `tensor op number` and `tensor op= number`: one impl, the result type from `ScalarRule`.
    (@scalar $Trait:ident, $method:ident, $Assign:ident, $assign:ident, $op:ident) => {
        impl<A, S> std::ops::$Trait<S> for &Tensor<A>
        where
            S: ScalarOperand,
            A: DynElement + ScalarRule<S>,
            f::$op: Functor<(ScalarOf<A, S>, ScalarOf<A, S>), Output = ScalarOf<A, S>>,
        {
            type Output = Tensor<ScalarOf<A, S>>;
            #[track_caller]
            fn $method(self, rhs: S) -> Self::Output {
                let b = TOperand::Scalar(rhs.into());
                ok(binary_new::<A, ScalarOf<A, S>, ScalarOf<A, S>, ScalarOf<A, S>, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), b))
            }
        }
        impl<A, S> std::ops::$Trait<S> for Tensor<A>
        where
            S: ScalarOperand,
            A: DynElement + ScalarRule<S>,
            f::$op: Functor<(ScalarOf<A, S>, ScalarOf<A, S>), Output = ScalarOf<A, S>>,
        {
            type Output = Tensor<ScalarOf<A, S>>;
            #[track_caller]
            fn $method(mut self, rhs: S) -> Self::Output {
                if reusable::<A, ScalarOf<A, S>>(&mut self, None) {
                    let b = TOperand::Scalar(rhs.into());
                    ok(binary_into::<A, ScalarOf<A, S>, ScalarOf<A, S>, ScalarOf<A, S>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(&self), b, &self));
                    return retype(self);
                }
                std::ops::$Trait::$method(&self, rhs)
            }
        }
        impl<A, S> std::ops::$Assign<S> for Tensor<A>
        where
            S: ScalarOperand,
            A: DynElement + ScalarRule<S>,
            ScalarOf<A, S>: CastsInto<A>,
            f::$op: Functor<(ScalarOf<A, S>, ScalarOf<A, S>), Output = ScalarOf<A, S>>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: S) {
                let b = TOperand::Scalar(rhs.into());
                ok(binary_into::<A, ScalarOf<A, S>, ScalarOf<A, S>, ScalarOf<A, S>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), b, self))
            }
        }
    };
    // The reverse forms (`2.0 * &t`): one impl per number type (a foreign type cannot take a
    // generic impl), the result type from the tensor's `ScalarRule` for that number. f64 and
    // i64 only: with a second float (or integer) type, `(2.0 * &t).to_vec()` would have two
    // candidate impls and no type until the literal's fallback, too late for the method call.
    (@number $Trait:ident, $method:ident, $op:ident, $($n:ty),*) => {$(
        impl<A> std::ops::$Trait<&Tensor<A>> for $n
        where
            A: DynElement + ScalarRule<$n>,
            f::$op: Functor<(ScalarOf<A, $n>, ScalarOf<A, $n>), Output = ScalarOf<A, $n>>,
        {
            type Output = Tensor<ScalarOf<A, $n>>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<A>) -> Self::Output {
                let a = TOperand::Scalar(Scalar::from(self));
                ok(binary_new::<ScalarOf<A, $n>, A, ScalarOf<A, $n>, ScalarOf<A, $n>, _>(BinaryOp::$op, f::$op, a, TOperand::Tensor(rhs)))
            }
        }
        impl<A> std::ops::$Trait<Tensor<A>> for $n
        where
            A: DynElement + ScalarRule<$n>,
            f::$op: Functor<(ScalarOf<A, $n>, ScalarOf<A, $n>), Output = ScalarOf<A, $n>>,
        {
            type Output = Tensor<ScalarOf<A, $n>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<A>) -> Self::Output {
                std::ops::$Trait::$method(self, &rhs)
            }
        }
    )*};
}

tensor_operators! {
    Add, add, AddAssign, add_assign => Add;
    Sub, sub, SubAssign, sub_assign => Sub;
    Mul, mul, MulAssign, mul_assign => Mul;
    Rem, rem, RemAssign, rem_assign => Remainder;
    BitAnd, bitand, BitAndAssign, bitand_assign => BitwiseAnd;
    BitOr, bitor, BitOrAssign, bitor_assign => BitwiseOr;
    BitXor, bitxor, BitXorAssign, bitxor_assign => BitwiseXor;
    Shl, shl, ShlAssign, shl_assign => BitwiseLeftShift;
    Shr, shr, ShrAssign, shr_assign => BitwiseRightShift;
}

// Division is true division: bool and integer results are f32 (`FloatOf`), as PyTorch.
impl<A, B> std::ops::Div<&Tensor<B>> for &Tensor<A>
where
    A: DynElement + Promote<B>,
    B: DynElement,
    f::Div: Functor<
            (FloatOf<Promoted<A, B>>, FloatOf<Promoted<A, B>>),
            Output = FloatOf<Promoted<A, B>>,
        >,
{
    type Output = Tensor<FloatOf<Promoted<A, B>>>;
    #[track_caller]
    fn div(self, rhs: &Tensor<B>) -> Self::Output {
        type Q<A, B> = FloatOf<Promoted<A, B>>;
        ok(binary_new::<A, B, Q<A, B>, Q<A, B>, _>(
            BinaryOp::Div,
            f::Div,
            TOperand::Tensor(self),
            TOperand::Tensor(rhs),
        ))
    }
}
impl<A, B> std::ops::Div<&Tensor<B>> for Tensor<A>
where
    A: DynElement + Promote<B>,
    B: DynElement,
    f::Div: Functor<
            (FloatOf<Promoted<A, B>>, FloatOf<Promoted<A, B>>),
            Output = FloatOf<Promoted<A, B>>,
        >,
{
    type Output = Tensor<FloatOf<Promoted<A, B>>>;
    #[track_caller]
    fn div(mut self, rhs: &Tensor<B>) -> Self::Output {
        type Q<A, B> = FloatOf<Promoted<A, B>>;
        if reusable::<A, Q<A, B>>(&mut self, Some(rhs.shape())) {
            ok(binary_into::<A, B, Q<A, B>, Q<A, B>, A, _>(
                BinaryOp::Div,
                f::Div,
                TOperand::Tensor(&self),
                TOperand::Tensor(rhs),
                &self,
            ));
            return retype(self);
        }
        &self / rhs
    }
}
impl<A, B> std::ops::DivAssign<&Tensor<B>> for Tensor<A>
where
    A: DynElement + Promote<B>,
    B: DynElement,
    FloatOf<Promoted<A, B>>: CastsInto<A>,
    f::Div: Functor<
            (FloatOf<Promoted<A, B>>, FloatOf<Promoted<A, B>>),
            Output = FloatOf<Promoted<A, B>>,
        >,
{
    #[track_caller]
    fn div_assign(&mut self, rhs: &Tensor<B>) {
        type Q<A, B> = FloatOf<Promoted<A, B>>;
        ok(binary_into::<A, B, Q<A, B>, Q<A, B>, A, _>(
            BinaryOp::Div,
            f::Div,
            TOperand::Tensor(self),
            TOperand::Tensor(rhs),
            self,
        ))
    }
}

// `tensor / number` and `tensor /= number`: true division, so the result is `FloatOf<A>`
// whatever the number; `ScalarRule<S>` only says which numbers the tensor takes.
impl<A, S> std::ops::Div<S> for &Tensor<A>
where
    S: ScalarOperand,
    A: DynElement + ScalarRule<S> + PromoteFloatScalar,
    f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
{
    type Output = Tensor<FloatOf<A>>;
    #[track_caller]
    fn div(self, rhs: S) -> Self::Output {
        let b = TOperand::Scalar(rhs.into());
        ok(binary_new::<A, FloatOf<A>, FloatOf<A>, FloatOf<A>, _>(
            BinaryOp::Div,
            f::Div,
            TOperand::Tensor(self),
            b,
        ))
    }
}
impl<A, S> std::ops::Div<S> for Tensor<A>
where
    S: ScalarOperand,
    A: DynElement + ScalarRule<S> + PromoteFloatScalar,
    f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
{
    type Output = Tensor<FloatOf<A>>;
    #[track_caller]
    fn div(self, rhs: S) -> Self::Output {
        &self / rhs
    }
}
impl<A, S> std::ops::DivAssign<S> for Tensor<A>
where
    S: ScalarOperand,
    A: DynElement + ScalarRule<S> + PromoteFloatScalar,
    FloatOf<A>: CastsInto<A>,
    f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
{
    #[track_caller]
    fn div_assign(&mut self, rhs: S) {
        let b = TOperand::Scalar(rhs.into());
        ok(binary_into::<A, FloatOf<A>, FloatOf<A>, FloatOf<A>, A, _>(
            BinaryOp::Div,
            f::Div,
            TOperand::Tensor(self),
            b,
            self,
        ))
    }
}

// `number / tensor`: true division, `FloatOf<A>` whatever the number; f64 and i64 only (see
// `tensor_operators!`'s `@number`).
macro_rules! div_numbers {
    ($($n:ty),*) => {$(
        impl<A> std::ops::Div<&Tensor<A>> for $n
        where
            A: DynElement + ScalarRule<$n> + PromoteFloatScalar,
            f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
        {
            type Output = Tensor<FloatOf<A>>;
            #[track_caller]
            fn div(self, rhs: &Tensor<A>) -> Self::Output {
                let a = TOperand::Scalar(Scalar::from(self));
                ok(binary_new::<FloatOf<A>, A, FloatOf<A>, FloatOf<A>, _>(BinaryOp::Div, f::Div, a, TOperand::Tensor(rhs)))
            }
        }
    )*};
}
div_numbers!(f64, i64);

impl<T: DynElement> std::ops::Neg for &Tensor<T>
where
    f::Neg: Functor<(T,), Output = T>,
{
    type Output = Tensor<T>;
    #[track_caller]
    fn neg(self) -> Tensor<T> {
        Tensor::neg(self)
    }
}
impl<T: DynElement> std::ops::Neg for Tensor<T>
where
    f::Neg: Functor<(T,), Output = T>,
{
    type Output = Tensor<T>;
    #[track_caller]
    fn neg(mut self) -> Tensor<T> {
        if reusable::<T, T>(&mut self, None) {
            self.neg_();
            return self;
        }
        Tensor::neg(&self)
    }
}

/// `!t`: logical not for bool, bitwise not for integers (PyTorch's `~`).
impl<T: DynElement> std::ops::Not for &Tensor<T>
where
    f::BitwiseNot: Functor<(T,), Output = T>,
{
    type Output = Tensor<T>;
    #[track_caller]
    fn not(self) -> Tensor<T> {
        self.bitwise_not()
    }
}
impl<T: DynElement> std::ops::Not for Tensor<T>
where
    f::BitwiseNot: Functor<(T,), Output = T>,
{
    type Output = Tensor<T>;
    #[track_caller]
    fn not(mut self) -> Tensor<T> {
        if reusable::<T, T>(&mut self, None) {
            self.bitwise_not_();
            return self;
        }
        self.bitwise_not()
    }
}
