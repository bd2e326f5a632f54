//! Compile-time type promotion for the typed API: `Promote<B>` gives the result element type of
//! an op between `Tensor<A>` and `Tensor<B>`, generated from a table of types that is checked,
//! entry by entry, against the const [`PROMOTION_TABLE`] when the crate compiles.
//! [`PromoteFloatScalar`] and [`PromoteIntScalar`] give the result of `Tensor<T>` with a float
//! or an integer Rust number (PyTorch's wrapped-number rule: `Tensor<i64> * 2.5` is f32,
//! `Tensor<bool> + 1` is i64). `PromoteFloatScalar` also maps the inputs of float-only math
//! (`exp`, `div`, ...) on integer tensors to f32, as PyTorch does.

use crate::dtype::DType;
use crate::dyn_tensor::DynElement;
use crate::element::Element;
use crate::promotion::{OperandKind, PROMOTION_TABLE, result_type};
use half::{bf16, f16};
use static_assertions::const_assert;

/// The result element type of a binary op between `Tensor<Self>` and `Tensor<Rhs>` (both
/// dimensioned; PyTorch's `promote_types`).
pub trait Promote<Rhs: Element>: Element {
    type Output: DynElement + PromoteFloatScalar + PromoteIntScalar;
}

/// The result element type of `Tensor<Self>` with a float Rust number (and the computation
/// type of float math on `Tensor<Self>`): bool and integers give f32, floats keep their type.
pub trait PromoteFloatScalar: Element {
    type Output: DynElement + PromoteFloatScalar + PromoteIntScalar;
}

/// The result element type of `Tensor<Self>` with an integer Rust number: bool gives i64,
/// integers and floats keep their type.
pub trait PromoteIntScalar: Element {
    type Output: DynElement + PromoteFloatScalar + PromoteIntScalar;
}

/// `A` promoted with `B`.
pub type Promoted<A, B> = <A as Promote<B>>::Output;
/// `T` with a float scalar; also what float math (`exp`, `div`) computes `T` in.
pub type FloatOf<T> = <T as PromoteFloatScalar>::Output;
/// `T` with an integer scalar.
pub type IntOf<T> = <T as PromoteIntScalar>::Output;

const fn same(a: DType, b: DType) -> bool {
    a as u8 == b as u8
}

const fn same_opt(a: Option<DType>, b: DType) -> bool {
    match a {
        Some(a) => same(a, b),
        None => false,
    }
}

/// One table entry: the impl and its compile-time check against `PROMOTION_TABLE`.
macro_rules! pair {
    ($a:ty, $b:ty => $o:ty) => {
        impl Promote<$b> for $a {
            type Output = $o;
        }
        const_assert!(same(
            <<$a as Promote<$b>>::Output as Element>::DTYPE,
            PROMOTION_TABLE[<$a as Element>::DTYPE.index()][<$b as Element>::DTYPE.index()]
        ));
    };
}

/// One row: `A` with each of the ten types, in `DType` order.
macro_rules! row {
    ($a:ty => $o0:ty, $o1:ty, $o2:ty, $o3:ty, $o4:ty, $o5:ty, $o6:ty, $o7:ty, $o8:ty, $o9:ty) => {
        pair!($a, bool => $o0);
        pair!($a, u8 => $o1);
        pair!($a, i8 => $o2);
        pair!($a, i16 => $o3);
        pair!($a, i32 => $o4);
        pair!($a, i64 => $o5);
        pair!($a, f16 => $o6);
        pair!($a, bf16 => $o7);
        pair!($a, f32 => $o8);
        pair!($a, f64 => $o9);
    };
}

#[rustfmt::skip]
mod table {
    use super::*;
    //           bool  u8   i8   i16  i32  i64  f16  bf16 f32  f64
    row!(bool => bool, u8,  i8,  i16, i32, i64, f16, bf16, f32, f64);
    row!(u8   => u8,   u8,  i16, i16, i32, i64, f16, bf16, f32, f64);
    row!(i8   => i8,   i16, i8,  i16, i32, i64, f16, bf16, f32, f64);
    row!(i16  => i16,  i16, i16, i16, i32, i64, f16, bf16, f32, f64);
    row!(i32  => i32,  i32, i32, i32, i32, i64, f16, bf16, f32, f64);
    row!(i64  => i64,  i64, i64, i64, i64, i64, f16, bf16, f32, f64);
    row!(f16  => f16,  f16, f16, f16, f16, f16, f16, f32,  f32, f64);
    row!(bf16 => bf16, bf16,bf16,bf16,bf16,bf16,f32, bf16, f32, f64);
    row!(f32  => f32,  f32, f32, f32, f32, f32, f32, f32,  f32, f64);
    row!(f64  => f64,  f64, f64, f64, f64, f64, f64, f64,  f64, f64);
}

/// The scalar rules, each checked against `result_type` with a dimensioned tensor and a scalar.
macro_rules! scalar_rules {
    ($($t:ty => float $fo:ty, int $io:ty;)*) => {$(
        impl PromoteFloatScalar for $t {
            type Output = $fo;
        }
        impl PromoteIntScalar for $t {
            type Output = $io;
        }
        const_assert!(same_opt(
            result_type(&[(<$t as Element>::DTYPE, OperandKind::Dimensioned), (DType::F64, OperandKind::Scalar)]),
            <$fo as Element>::DTYPE
        ));
        const_assert!(same_opt(
            result_type(&[(<$t as Element>::DTYPE, OperandKind::Dimensioned), (DType::I64, OperandKind::Scalar)]),
            <$io as Element>::DTYPE
        ));
    )*};
}

scalar_rules! {
    bool => float f32, int i64;
    u8 => float f32, int u8;
    i8 => float f32, int i8;
    i16 => float f32, int i16;
    i32 => float f32, int i32;
    i64 => float f32, int i64;
    f16 => float f16, int f16;
    bf16 => float bf16, int bf16;
    f32 => float f32, int f32;
    f64 => float f64, int f64;
}

/// `Self` casts safely into `To` (PyTorch's `can_cast`: no category is lowered, so float ->
/// integer and integer -> bool are not safe). Bounds the in-place operators, so
/// `Tensor<i64> += &Tensor<f32>` does not compile (PyTorch raises at run time):
///
/// ```compile_fail
/// use weft::Tensor;
/// let mut a = Tensor::<i64>::ones(&[2]);
/// a += &Tensor::<f32>::ones(&[2]);
/// ```
/// ```compile_fail
/// use weft::Tensor;
/// let mut a = Tensor::<i32>::ones(&[2]);
/// a *= 2.5;
/// ```
/// ```
/// use weft::Tensor;
/// let mut a = Tensor::<f32>::ones(&[2]);
/// a += &Tensor::<i64>::ones(&[2]);
/// let mut h = Tensor::<half::f16>::ones(&[2]);
/// h += &Tensor::<f32>::ones(&[2]); // same category: allowed, as in PyTorch
/// ```
pub trait CastsInto<To: Element>: Element {}

/// The category of an element type as a type (`BoolCat < IntCat < FloatCat`).
pub trait Categorized: Element {
    type Cat;
}
pub struct BoolCat;
pub struct IntCat;
pub struct FloatCat;
/// `Self <= C` in the category order.
pub trait CategoryLe<C> {}
impl CategoryLe<BoolCat> for BoolCat {}
impl CategoryLe<IntCat> for BoolCat {}
impl CategoryLe<FloatCat> for BoolCat {}
impl CategoryLe<IntCat> for IntCat {}
impl CategoryLe<FloatCat> for IntCat {}
impl CategoryLe<FloatCat> for FloatCat {}

impl<F: Categorized, T: Categorized> CastsInto<T> for F where F::Cat: CategoryLe<T::Cat> {}

/// Each type's category, checked against `DType::category` (which `can_cast` reads).
macro_rules! categories {
    ($($t:ty => $c:ident, $cat:ident;)*) => {$(
        impl Categorized for $t {
            type Cat = $c;
        }
        const_assert!(matches!(<$t as Element>::DTYPE.category(), crate::dtype::Category::$cat));
    )*};
}
categories! {
    bool => BoolCat, Bool;
    u8 => IntCat, Integer;
    i8 => IntCat, Integer;
    i16 => IntCat, Integer;
    i32 => IntCat, Integer;
    i64 => IntCat, Integer;
    f16 => FloatCat, Float;
    bf16 => FloatCat, Float;
    f32 => FloatCat, Float;
    f64 => FloatCat, Float;
}
