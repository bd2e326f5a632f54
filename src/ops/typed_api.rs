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
//! Implementation: small contiguous operands of one shape (or one side a value) run the functor
//! directly over the buffers; everything else goes through the `DynTensor` runners
//! ([`super::binary`], [`super::unary`], [`super::special`]), whose results are the reference.

use super::Operand;
use super::binary::binary;
use super::promote::{FloatOf, IntOf, Promote, PromoteFloatScalar, PromoteIntScalar, Promoted};
use super::special;
use super::unary::unary;
use crate::dyn_tensor::{DynElement, DynTensor};
use crate::element::{Element, Value, convert_value};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::functors::{self as f, BinaryOp, Functor, GeluApproximate, UnaryOp};
use crate::scalar::Scalar;
use crate::storage::{BorrowFlag, OpBorrows};
use crate::tensor::Tensor;

/// The largest element count the direct path takes; bigger work goes to the iterator, which
/// splits it across threads.
const FAST_MAX: usize = 16384;

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
    match v.to_value() {
        Value::Bool(b) => Scalar::Bool(b),
        Value::Int(i) => Scalar::Int(i),
        Value::F32(x) => Scalar::Float(x as f64),
        Value::F64(x) => Scalar::Float(x),
    }
}

/// A typed tensor out of a runner's result; another dtype means the op's result does not fit
/// the static type (only possible with an explicit `Scalar` operand).
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

// ------------------------------------------------------------------------------ direct path

/// A fast-path source: contiguous elements or one value.
#[derive(Clone, Copy)]
enum Src<X> {
    Ptr(*const X),
    Value(X),
}

impl<X: Element> Src<X> {
    /// Element `i`, converted to the computation type.
    ///
    /// # Safety
    /// For `Ptr`, `i` is below the element count the pointer was planned for.
    #[inline(always)]
    unsafe fn get<C: Element>(self, i: usize) -> C {
        match self {
            // SAFETY: the caller's bound on `i`.
            Src::Ptr(p) => convert_value(unsafe { *p.add(i) }),
            Src::Value(v) => convert_value(v),
        }
    }
}

/// The shape, element count and sources of the direct path: every tensor operand contiguous,
/// all of one shape (a value on one side at most), and small.
fn plan2<'s, A: Element, B: Element>(
    a: &'s TOperand<A>,
    b: &'s TOperand<B>,
) -> Option<(&'s [usize], Src<A>, Src<B>)> {
    fn side<'s, X: Element>(o: &'s TOperand<X>) -> Option<(Src<X>, Option<&'s [usize]>)> {
        match o {
            TOperand::Tensor(t) if t.is_contiguous() && t.numel() <= FAST_MAX => {
                Some((Src::Ptr(t.data_ptr()), Some(t.shape())))
            }
            TOperand::Value(v) => Some((Src::Value(*v), None)),
            _ => None,
        }
    }
    let (sa, ha) = side(a)?;
    let (sb, hb) = side(b)?;
    let shape = match (ha, hb) {
        (Some(x), Some(y)) if x == y => x,
        (Some(x), None) | (None, Some(x)) => x,
        _ => return None,
    };
    Some((shape, sa, sb))
}

/// The shared borrow an operand needs: its storage's flag; a value borrows nothing.
fn flag_of<'s, X: Element>(o: &'s TOperand<'_, X>) -> Option<&'s BorrowFlag> {
    match o {
        TOperand::Tensor(t) => Some(t.storage.borrow_flag()),
        _ => None,
    }
}

/// Whether writing `out` while reading `input` elementwise is safe: other storage, or the same
/// elements (both are contiguous with one shape when this is asked).
fn no_partial_overlap<T: Element, U: Element>(input: &TOperand<T>, out: &Tensor<U>) -> bool {
    match input {
        TOperand::Tensor(t) => {
            t.storage().as_ptr() as *const u8 != out.storage().as_ptr() as *const u8
                || t.data_ptr() as *const u8 == out.data_ptr() as *const u8
        }
        _ => true,
    }
}

fn divides(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::FloorDivide | BinaryOp::Remainder | BinaryOp::Fmod
    )
}

/// Whether the direct path computes what the runner does: pow with a scalar exponent has its
/// own functor (and refuses negative integer exponents); f16/bf16 mul/div/floor_divide keep a
/// scalar second operand at f32 precision, which a value rounded to the tensor's type is not.
fn direct_ok<B: Element, C: Element>(op: BinaryOp, b: &TOperand<B>) -> bool {
    match b {
        TOperand::Value(v) => {
            if op == BinaryOp::Pow {
                return false;
            }
            let opmath = matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDivide);
            !(opmath && C::DTYPE.is_reduced_float() && !B::DTYPE.is_reduced_float())
                || scalar_of(*v).to::<C>() == convert_value::<B, C>(*v)
        }
        _ => true,
    }
}

/// Runs `f` over `n` elements into `out`, after PyTorch's integer zero-division check.
///
/// # Safety
/// Pointer sources hold `n` elements; `out` is valid for `n` writes and overlaps no source
/// except element for element.
unsafe fn run2<A, B, C, O, F>(
    op: BinaryOp,
    f: F,
    a: Src<A>,
    b: Src<B>,
    out: *mut O,
    n: usize,
) -> Result<()>
where
    A: Element,
    B: Element,
    C: Element,
    O: Element,
    F: Functor<(C, C), Output = O>,
{
    if divides(op) && C::DTYPE.is_integer() {
        let zero = match b {
            Src::Value(v) => convert_value::<B, C>(v) == C::ZERO,
            // SAFETY: i < n.
            Src::Ptr(_) => (0..n).any(|i| unsafe { b.get::<C>(i) } == C::ZERO),
        };
        if zero {
            return Err(Error::ZeroDivision { op: op.name() });
        }
    }
    match (a, b) {
        (Src::Ptr(pa), Src::Ptr(pb)) => {
            for i in 0..n {
                // SAFETY: the caller's contract: i < n for every pointer.
                unsafe {
                    let x: C = convert_value(*pa.add(i));
                    let y: C = convert_value(*pb.add(i));
                    out.add(i).write(f.call((x, y)));
                }
            }
        }
        (Src::Ptr(pa), Src::Value(v)) => {
            let y: C = convert_value(v);
            for i in 0..n {
                // SAFETY: as above.
                unsafe { out.add(i).write(f.call((convert_value(*pa.add(i)), y))) };
            }
        }
        (Src::Value(v), Src::Ptr(pb)) => {
            let x: C = convert_value(v);
            for i in 0..n {
                // SAFETY: as above.
                unsafe { out.add(i).write(f.call((x, convert_value(*pb.add(i))))) };
            }
        }
        (Src::Value(x), Src::Value(y)) => {
            let r = f.call((convert_value(x), convert_value(y)));
            for i in 0..n {
                // SAFETY: as above.
                unsafe { out.add(i).write(r) };
            }
        }
    }
    Ok(())
}

/// `op(a, b)` into a new tensor of the static result type `O`, computed in `C`.
fn binary_new<A, B, C, O, F>(
    op: BinaryOp,
    f: F,
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
    if direct_ok::<B, C>(op, &b)
        && let Some((shape, sa, sb)) = plan2(&a, &b)
    {
        let out = Tensor::<O>::try_zeros(shape)?;
        let n = out.numel();
        {
            // `out` is fresh: nobody else can reach it, it needs no borrow.
            let _borrows = OpBorrows::acquire(op.name(), None, [flag_of(&a), flag_of(&b)])?;
            // SAFETY: the plan: contiguous sources of `n` elements (or values), read under
            // shared borrows; `out` is fresh.
            unsafe { run2::<A, B, C, O, F>(op, f, sa, sb, out.storage().as_mut_ptr(), n)? };
        }
        return Ok(out);
    }
    let (da, db) = dyn_pair(&a, &b);
    let r = binary(op, da.operand(), db.operand(), None)?;
    unwrap_as(op.name(), r)
}

/// `op(a, b)` written into `out` (any view, any dtype the result casts into safely).
fn binary_into<A, B, C, O, U, F>(
    op: BinaryOp,
    f: F,
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
    if O::DTYPE == U::DTYPE
        && out.is_contiguous()
        && direct_ok::<B, C>(op, &b)
        && no_partial_overlap(&a, out)
        && no_partial_overlap(&b, out)
        && let Some((shape, sa, sb)) = plan2(&a, &b)
        && shape == out.shape()
    {
        let n = out.numel();
        let dst = Some(out.storage.borrow_flag());
        let _borrows = OpBorrows::acquire(op.name(), dst, [flag_of(&a), flag_of(&b)])?;
        // SAFETY: the plan: contiguous sources of `n` elements; `out` is contiguous with the
        // same shape and shares elements with a source only one for one; O is U (same dtype);
        // the borrows exclude every other reader and writer for the loop's duration.
        return unsafe { run2::<A, B, C, O, F>(op, f, sa, sb, out.data_ptr() as *mut O, n) };
    }
    let (da, db) = dyn_pair(&a, &b);
    binary(op, da.operand(), db.operand(), Some(&wrap(out))).map(|_| ())
}

/// `f(a)` into a new tensor; `fallback` is the runner for the general case.
fn unary_new<T, C, O, F>(
    name: &'static str,
    f: F,
    a: &Tensor<T>,
    fallback: impl FnOnce(&DynTensor) -> Result<DynTensor>,
) -> Result<Tensor<O>>
where
    T: DynElement,
    C: Element,
    O: DynElement,
    F: Functor<(C,), Output = O>,
{
    let n = a.numel();
    if a.is_contiguous() && n <= FAST_MAX {
        let out = Tensor::<O>::try_zeros(a.shape())?;
        let _borrow = a.storage.borrow(name, false)?;
        let (pa, po) = (a.data_ptr(), out.storage().as_mut_ptr());
        for i in 0..n {
            // SAFETY: `a` is contiguous with n elements from data_ptr (read under a shared
            // borrow); `out` is fresh, n long.
            unsafe { po.add(i).write(f.call((convert_value(*pa.add(i)),))) };
        }
        return Ok(out);
    }
    unwrap_as(name, fallback(&wrap(a))?)
}

/// `f(a)` into `out`.
fn unary_into<T, C, O, U, F>(
    f: F,
    a: &Tensor<T>,
    out: &Tensor<U>,
    fallback: impl FnOnce(&DynTensor, &DynTensor) -> Result<DynTensor>,
) -> Result<()>
where
    T: DynElement,
    C: Element,
    O: DynElement,
    U: DynElement,
    F: Functor<(C,), Output = O>,
{
    let n = a.numel();
    if O::DTYPE == U::DTYPE
        && a.is_contiguous()
        && out.is_contiguous()
        && n <= FAST_MAX
        && a.shape() == out.shape()
        && no_partial_overlap(&TOperand::Tensor(a), out)
    {
        let _borrows = OpBorrows::acquire(
            "unary_out",
            Some(out.storage.borrow_flag()),
            [Some(a.storage.borrow_flag()), None],
        )?;
        let (pa, po) = (a.data_ptr(), out.data_ptr() as *mut O);
        for i in 0..n {
            // SAFETY: both contiguous with n elements, the same elements or disjoint; O is U;
            // the borrows exclude other readers and writers.
            unsafe { po.add(i).write(f.call((convert_value(*pa.add(i)),))) };
        }
        return Ok(());
    }
    fallback(&wrap(a), &wrap(out)).map(|_| ())
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

binary_same! {
    add, try_add, add_, try_add_, add_out, try_add_out => Add;
    sub, try_sub, sub_, try_sub_, sub_out, try_sub_out => Sub;
    mul, try_mul, mul_, try_mul_, mul_out, try_mul_out => Mul;
    floor_divide, try_floor_divide, floor_divide_, try_floor_divide_, floor_divide_out, try_floor_divide_out => FloorDivide;
    remainder, try_remainder, remainder_, try_remainder_, remainder_out, try_remainder_out => Remainder;
    fmod, try_fmod, fmod_, try_fmod_, fmod_out, try_fmod_out => Fmod;
    pow, try_pow, pow_, try_pow_, pow_out, try_pow_out => Pow;
    maximum, try_maximum, maximum_, try_maximum_, maximum_out, try_maximum_out => Maximum;
    minimum, try_minimum, minimum_, try_minimum_, minimum_out, try_minimum_out => Minimum;
    bitwise_and, try_bitwise_and, bitwise_and_, try_bitwise_and_, bitwise_and_out, try_bitwise_and_out => BitwiseAnd;
    bitwise_or, try_bitwise_or, bitwise_or_, try_bitwise_or_, bitwise_or_out, try_bitwise_or_out => BitwiseOr;
    bitwise_xor, try_bitwise_xor, bitwise_xor_, try_bitwise_xor_, bitwise_xor_out, try_bitwise_xor_out => BitwiseXor;
    bitwise_left_shift, try_bitwise_left_shift, bitwise_left_shift_, try_bitwise_left_shift_, bitwise_left_shift_out, try_bitwise_left_shift_out => BitwiseLeftShift;
    bitwise_right_shift, try_bitwise_right_shift, bitwise_right_shift_, try_bitwise_right_shift_, bitwise_right_shift_out, try_bitwise_right_shift_out => BitwiseRightShift;
}

binary_pred! {
    eq, try_eq, eq_, try_eq_, eq_out, try_eq_out => Eq;
    ne, try_ne, ne_, try_ne_, ne_out, try_ne_out => Ne;
    lt, try_lt, lt_, try_lt_, lt_out, try_lt_out => Lt;
    le, try_le, le_, try_le_, le_out, try_le_out => Le;
    gt, try_gt, gt_, try_gt_, gt_out, try_gt_out => Gt;
    ge, try_ge, ge_, try_ge_, ge_out, try_ge_out => Ge;
    logical_and, try_logical_and, logical_and_, try_logical_and_, logical_and_out, try_logical_and_out => LogicalAnd;
    logical_or, try_logical_or, logical_or_, try_logical_or_, logical_or_out, try_logical_or_out => LogicalOr;
    logical_xor, try_logical_xor, logical_xor_, try_logical_xor_, logical_xor_out, try_logical_xor_out => LogicalXor;
}

binary_float! {
    div, try_div, div_, try_div_, div_out, try_div_out => Div;
    atan2, try_atan2, atan2_, try_atan2_, atan2_out, try_atan2_out => Atan2;
    copysign, try_copysign, copysign_, try_copysign_, copysign_out, try_copysign_out => Copysign;
    hypot, try_hypot, hypot_, try_hypot_, hypot_out, try_hypot_out => Hypot;
}

// ------------------------------------------------------------------------------ unary methods

macro_rules! unary_methods {
    (@block [$($bounds:tt)*] $C:ty, $O:ty; $($name:ident, $try_name:ident, $out:ident, $try_out:ident => $op:ident;)*) => {
        impl<T: DynElement> Tensor<T> where $($bounds)* {$(
            #[doc = concat!("`", stringify!($name), "(self)`.")]
            pub fn $try_name(&self) -> Result<Tensor<$O>> {
                unary_new::<T, $C, $O, _>(UnaryOp::$op.name(), f::$op, self, |d| unary(UnaryOp::$op, d, None))
            }
            #[doc = concat!("`", stringify!($name), "(self)`; panics on error.")]
            #[track_caller]
            pub fn $name(&self) -> Tensor<$O> {
                ok(self.$try_name())
            }
            #[doc = concat!("`", stringify!($name), "` into `out` (the result must cast safely to `U`).")]
            pub fn $try_out<U: DynElement>(&self, out: &mut Tensor<U>) -> Result<()> {
                unary_into::<T, $C, $O, U, _>(f::$op, self, out, |d, o| unary(UnaryOp::$op, d, Some(o)))
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
                unary_into::<T, $C, $O, T, _>(f::$op, self, self, |d, o| unary(UnaryOp::$op, d, Some(o)))
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

unary_same! {
    neg, try_neg, neg_, try_neg_, neg_out, try_neg_out => Neg;
    abs, try_abs, abs_, try_abs_, abs_out, try_abs_out => Abs;
    sign, try_sign, sign_, try_sign_, sign_out, try_sign_out => Sign;
    relu, try_relu, relu_, try_relu_, relu_out, try_relu_out => Relu;
    silu, try_silu, silu_, try_silu_, silu_out, try_silu_out => Silu;
    softplus, try_softplus, softplus_, try_softplus_, softplus_out, try_softplus_out => Softplus;
    floor, try_floor, floor_, try_floor_, floor_out, try_floor_out => Floor;
    ceil, try_ceil, ceil_, try_ceil_, ceil_out, try_ceil_out => Ceil;
    round, try_round, round_, try_round_, round_out, try_round_out => Round;
    trunc, try_trunc, trunc_, try_trunc_, trunc_out, try_trunc_out => Trunc;
    frac, try_frac, frac_, try_frac_, frac_out, try_frac_out => Frac;
    bitwise_not, try_bitwise_not, bitwise_not_, try_bitwise_not_, bitwise_not_out, try_bitwise_not_out => BitwiseNot;
}

unary_pred! {
    logical_not, try_logical_not, logical_not_, try_logical_not_, logical_not_out, try_logical_not_out => LogicalNot;
    isnan, try_isnan, isnan_, try_isnan_, isnan_out, try_isnan_out => IsNan;
    isinf, try_isinf, isinf_, try_isinf_, isinf_out, try_isinf_out => IsInf;
    isfinite, try_isfinite, isfinite_, try_isfinite_, isfinite_out, try_isfinite_out => IsFinite;
}

unary_float! {
    exp, try_exp, exp_, try_exp_, exp_out, try_exp_out => Exp;
    expm1, try_expm1, expm1_, try_expm1_, expm1_out, try_expm1_out => Expm1;
    log, try_log, log_, try_log_, log_out, try_log_out => Log;
    log1p, try_log1p, log1p_, try_log1p_, log1p_out, try_log1p_out => Log1p;
    log2, try_log2, log2_, try_log2_, log2_out, try_log2_out => Log2;
    log10, try_log10, log10_, try_log10_, log10_out, try_log10_out => Log10;
    sqrt, try_sqrt, sqrt_, try_sqrt_, sqrt_out, try_sqrt_out => Sqrt;
    rsqrt, try_rsqrt, rsqrt_, try_rsqrt_, rsqrt_out, try_rsqrt_out => Rsqrt;
    reciprocal, try_reciprocal, reciprocal_, try_reciprocal_, reciprocal_out, try_reciprocal_out => Reciprocal;
    sin, try_sin, sin_, try_sin_, sin_out, try_sin_out => Sin;
    cos, try_cos, cos_, try_cos_, cos_out, try_cos_out => Cos;
    tan, try_tan, tan_, try_tan_, tan_out, try_tan_out => Tan;
    asin, try_asin, asin_, try_asin_, asin_out, try_asin_out => Asin;
    acos, try_acos, acos_, try_acos_, acos_out, try_acos_out => Acos;
    atan, try_atan, atan_, try_atan_, atan_out, try_atan_out => Atan;
    sinh, try_sinh, sinh_, try_sinh_, sinh_out, try_sinh_out => Sinh;
    cosh, try_cosh, cosh_, try_cosh_, cosh_out, try_cosh_out => Cosh;
    tanh, try_tanh, tanh_, try_tanh_, tanh_out, try_tanh_out => Tanh;
    sigmoid, try_sigmoid, sigmoid_, try_sigmoid_, sigmoid_out, try_sigmoid_out => Sigmoid;
    erf, try_erf, erf_, try_erf_, erf_out, try_erf_out => Erf;
}

/// `square` is PyTorch's `pow(x, 2)`: it always runs through the pow runner (bool has no
/// typed form: PyTorch gives int64 there).
impl<T: DynElement> Tensor<T>
where
    f::Square: Functor<(T,), Output = T>,
{
    /// `x * x` (as `pow(x, 2)`).
    pub fn try_square(&self) -> Result<Tensor<T>> {
        unwrap_as("square", unary(UnaryOp::Square, &wrap(self), None)?)
    }
    #[track_caller]
    pub fn square(&self) -> Tensor<T> {
        ok(self.try_square())
    }
    pub fn try_square_(&mut self) -> Result<()> {
        let d = wrap(self);
        unary(UnaryOp::Square, &d, Some(&d)).map(|_| ())
    }
    #[track_caller]
    pub fn square_(&mut self) {
        ok(self.try_square_())
    }
    pub fn try_square_out<U: DynElement>(&self, out: &mut Tensor<U>) -> Result<()> {
        unary(UnaryOp::Square, &wrap(self), Some(&wrap(out))).map(|_| ())
    }
    #[track_caller]
    pub fn square_out<U: DynElement>(&self, out: &mut Tensor<U>) {
        ok(self.try_square_out(out))
    }
}

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

/// A Rust number on one side of an operator, as an operand of the result type `P`: a value of
/// `P` when the direct path computes what the runner does, else the scalar itself.
fn number_operand<'a, P: Element>(op: BinaryOp, s: Scalar, rhs: bool) -> TOperand<'a, P> {
    let opmath = rhs
        && P::DTYPE.is_reduced_float()
        && matches!(op, BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDivide);
    if opmath || (rhs && op == BinaryOp::Pow) {
        TOperand::Scalar(s)
    } else {
        TOperand::Value(s.to::<P>())
    }
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
        // a op= &b: the promoted result must cast safely into A (else a panic, as PyTorch raises).
        impl<A, B> std::ops::$Assign<&Tensor<B>> for Tensor<A>
        where
            A: DynElement + Promote<B>,
            B: DynElement,
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
            f::$op: Functor<(Promoted<A, B>, Promoted<A, B>), Output = Promoted<A, B>>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: Tensor<B>) {
                std::ops::$Assign::$assign(self, &rhs)
            }
        }
        tensor_operators!(@number $Trait, $method, $Assign, $assign, $op, FloatOf, PromoteFloatScalar, f64);
        tensor_operators!(@number $Trait, $method, $Assign, $assign, $op, IntOf, PromoteIntScalar, i64);
    )*};
    (@number $Trait:ident, $method:ident, $Assign:ident, $assign:ident, $op:ident, $Of:ident, $Rule:ident, $($n:ty),*) => {$(
        impl<A> std::ops::$Trait<$n> for &Tensor<A>
        where
            A: DynElement + $Rule,
            f::$op: Functor<($Of<A>, $Of<A>), Output = $Of<A>>,
        {
            type Output = Tensor<$Of<A>>;
            #[track_caller]
            fn $method(self, rhs: $n) -> Self::Output {
                let b = number_operand::<$Of<A>>(BinaryOp::$op, Scalar::from(rhs), true);
                ok(binary_new::<A, $Of<A>, $Of<A>, $Of<A>, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), b))
            }
        }
        impl<A> std::ops::$Trait<$n> for Tensor<A>
        where
            A: DynElement + $Rule,
            f::$op: Functor<($Of<A>, $Of<A>), Output = $Of<A>>,
        {
            type Output = Tensor<$Of<A>>;
            #[track_caller]
            fn $method(mut self, rhs: $n) -> Self::Output {
                if reusable::<A, $Of<A>>(&mut self, None) {
                    let b = number_operand::<$Of<A>>(BinaryOp::$op, Scalar::from(rhs), true);
                    ok(binary_into::<A, $Of<A>, $Of<A>, $Of<A>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(&self), b, &self));
                    return retype(self);
                }
                std::ops::$Trait::$method(&self, rhs)
            }
        }
        impl<A> std::ops::$Trait<&Tensor<A>> for $n
        where
            A: DynElement + $Rule,
            f::$op: Functor<($Of<A>, $Of<A>), Output = $Of<A>>,
        {
            type Output = Tensor<$Of<A>>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<A>) -> Self::Output {
                let a = number_operand::<$Of<A>>(BinaryOp::$op, Scalar::from(self), false);
                ok(binary_new::<$Of<A>, A, $Of<A>, $Of<A>, _>(BinaryOp::$op, f::$op, a, TOperand::Tensor(rhs)))
            }
        }
        impl<A> std::ops::$Trait<Tensor<A>> for $n
        where
            A: DynElement + $Rule,
            f::$op: Functor<($Of<A>, $Of<A>), Output = $Of<A>>,
        {
            type Output = Tensor<$Of<A>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<A>) -> Self::Output {
                std::ops::$Trait::$method(self, &rhs)
            }
        }
        impl<A> std::ops::$Assign<$n> for Tensor<A>
        where
            A: DynElement + $Rule,
            f::$op: Functor<($Of<A>, $Of<A>), Output = $Of<A>>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: $n) {
                let b = number_operand::<$Of<A>>(BinaryOp::$op, Scalar::from(rhs), true);
                ok(binary_into::<A, $Of<A>, $Of<A>, $Of<A>, A, _>(BinaryOp::$op, f::$op, TOperand::Tensor(self), b, self))
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

macro_rules! div_numbers {
    ($($n:ty),*) => {$(
        impl<A> std::ops::Div<$n> for &Tensor<A>
        where
            A: DynElement + PromoteFloatScalar,
            f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
        {
            type Output = Tensor<FloatOf<A>>;
            #[track_caller]
            fn div(self, rhs: $n) -> Self::Output {
                let b = number_operand::<FloatOf<A>>(BinaryOp::Div, Scalar::from(rhs), true);
                ok(binary_new::<A, FloatOf<A>, FloatOf<A>, FloatOf<A>, _>(BinaryOp::Div, f::Div, TOperand::Tensor(self), b))
            }
        }
        impl<A> std::ops::Div<$n> for Tensor<A>
        where
            A: DynElement + PromoteFloatScalar,
            f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
        {
            type Output = Tensor<FloatOf<A>>;
            fn div(self, rhs: $n) -> Self::Output {
                &self / rhs
            }
        }
        impl<A> std::ops::Div<&Tensor<A>> for $n
        where
            A: DynElement + PromoteFloatScalar,
            f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
        {
            type Output = Tensor<FloatOf<A>>;
            #[track_caller]
            fn div(self, rhs: &Tensor<A>) -> Self::Output {
                let a = number_operand::<FloatOf<A>>(BinaryOp::Div, Scalar::from(self), false);
                ok(binary_new::<FloatOf<A>, A, FloatOf<A>, FloatOf<A>, _>(BinaryOp::Div, f::Div, a, TOperand::Tensor(rhs)))
            }
        }
        impl<A> std::ops::DivAssign<$n> for Tensor<A>
        where
            A: DynElement + PromoteFloatScalar,
            f::Div: Functor<(FloatOf<A>, FloatOf<A>), Output = FloatOf<A>>,
        {
            #[track_caller]
            fn div_assign(&mut self, rhs: $n) {
                let b = number_operand::<FloatOf<A>>(BinaryOp::Div, Scalar::from(rhs), true);
                ok(binary_into::<A, FloatOf<A>, FloatOf<A>, FloatOf<A>, A, _>(BinaryOp::Div, f::Div, TOperand::Tensor(self), b, self))
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
