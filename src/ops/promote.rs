//! Compile-time type promotion for the typed API: `Promote<B>` gives the result element type of
//! an op between `Tensor<A>` and `Tensor<B>`, generated for every pair of the dtype list and
//! read from the const [`PROMOTION_TABLE`] itself (no second table to keep in step).
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

/// A Rust number that a `Tensor` operator takes as its scalar operand.
pub trait ScalarOperand: Copy + Into<crate::scalar::Scalar> {}
/// The Rust integers among them: bool and integer tensors take any of them (one generic impl).
pub trait IntegerOperand: ScalarOperand {}
macro_rules! scalar_operands {
    (float [$($f:ty),*] int [$($i:ty),*]) => {
        $( impl ScalarOperand for $f {} )*
        $( impl ScalarOperand for $i {} impl IntegerOperand for $i {} )*
    };
}
scalar_operands!(float [f16, bf16, f32, f64] int [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize]);

/// The result element type of `Tensor<Self> op number` for the Rust number `S`. A float tensor
/// takes every Rust number (`&w * lr` with `lr: f32`, `&w / 2usize`) and keeps its type: its
/// impl is generic over `S` and its output does not mention `S`, so a literal (`&w * 2.0`) still
/// gives a known `Tensor<f32>` before the literal's own type is settled. Bool and integer
/// tensors follow PyTorch's kind rule: every Rust integer keeps the tensor's type (bool gives
/// i64; one impl generic over [`IntegerOperand`], so `&i * 2` is known at once too), and a float
/// number gives the default float (`Tensor<i64> * 2.5` is f32). The float number is f64 only:
/// a second float impl (f32) would leave `(&i * 2.5).to_vec()` without a type until the
/// literal's fallback, too late for the method call.
pub trait ScalarRule<S>: Element {
    type Output: DynElement + PromoteFloatScalar + PromoteIntScalar;
}
macro_rules! scalar_rule_float {
    ([$($V:ident $tok:ident: $T:ty, $s:literal;)*]) => {$(
        impl<S: ScalarOperand> ScalarRule<S> for $T {
            type Output = $T;
        }
    )*};
}
crate::__dtype_list! { float; scalar_rule_float; }
macro_rules! scalar_rule_integral {
    ([$($V:ident $tok:ident: $T:ty, $s:literal;)*]) => {$(
        impl<S: IntegerOperand> ScalarRule<S> for $T {
            type Output = IntOf<$T>;
        }
        impl ScalarRule<f64> for $T {
            type Output = FloatOf<$T>;
        }
    )*};
}
crate::__dtype_list! { integral; scalar_rule_integral; }
/// `Tensor<A> op S`.
pub type ScalarOf<A, S> = <A as ScalarRule<S>>::Output;

/// `A` promoted with `B`.
pub type Promoted<A, B> = <A as Promote<B>>::Output;
/// `T` with a float scalar; also what float math (`exp`, `div`) computes `T` in.
pub type FloatOf<T> = <T as PromoteFloatScalar>::Output;
/// `T` with an integer scalar.
pub type IntOf<T> = <T as PromoteIntScalar>::Output;

const fn same(a: DType, b: DType) -> bool {
    a as u8 == b as u8
}

/// The element type of a dtype, named by the dtype's index: `<ByIndex<{ d.index() }> as
/// TypeOf>::T`. Lets the impls below read their output types from the `const` tables.
pub struct ByIndex<const I: usize>;
pub trait TypeOf {
    type T: DynElement + PromoteFloatScalar + PromoteIntScalar;
}

/// `TypeOf` for every row of the dtype list.
macro_rules! type_of_rows {
    ([$($V:ident $tok:ident: $T:ty, $s:literal;)*]) => {$(
        impl TypeOf for ByIndex<{ DType::$V.index() }> {
            type T = $T;
        }
    )*};
}
crate::__dtype_list! { all; type_of_rows; }

/// The element type of a `const` dtype expression.
macro_rules! type_of {
    ($d:expr) => {
        <ByIndex<{ $d.index() }> as TypeOf>::T
    };
}

/// `Promote<B> for A` for every pair of the dtype list, read from `PROMOTION_TABLE`; the
/// float and integer scalar rules for every type, read from `result_type`. The B list rides
/// along as one token tree, so each A row expands it again.
macro_rules! promote_impls {
    ([$($a:ty),*]) => {
        promote_impls!(@rows [$($a),*] [$($a),*]);
    };
    (@rows [$($a:ty),*] $bs:tt) => {$(
        promote_impls!(@row $a, $bs);
        impl PromoteFloatScalar for $a {
            type Output = type_of!(scalar_result(<$a as Element>::DTYPE, DType::F64));
        }
        impl PromoteIntScalar for $a {
            type Output = type_of!(scalar_result(<$a as Element>::DTYPE, DType::I64));
        }
    )*};
    (@row $a:ty, [$($b:ty),*]) => {$(
        impl Promote<$b> for $a {
            type Output =
                type_of!(PROMOTION_TABLE[<$a as Element>::DTYPE.index()][<$b as Element>::DTYPE.index()]);
        }
    )*};
}

/// `result_type` of a dimensioned tensor of `d` with a scalar of `scalar`'s category.
const fn scalar_result(d: DType, scalar: DType) -> DType {
    match result_type(&[(d, OperandKind::Dimensioned), (scalar, OperandKind::Scalar)]) {
        Some(r) => r,
        None => d,
    }
}

crate::dtype_types!(all => promote_impls!());

// Spot checks of the generated impls (the tables themselves are checked in `promotion.rs`).
const_assert!(same(<Promoted<u8, i8> as Element>::DTYPE, DType::I16));
const_assert!(same(<Promoted<u16, i8> as Element>::DTYPE, DType::I32));
const_assert!(same(<Promoted<u64, i64> as Element>::DTYPE, DType::F64));
const_assert!(same(<Promoted<u64, f16> as Element>::DTYPE, DType::F16));
const_assert!(same(<FloatOf<i64> as Element>::DTYPE, DType::F32));
const_assert!(same(<FloatOf<bf16> as Element>::DTYPE, DType::BF16));
const_assert!(same(<IntOf<bool> as Element>::DTYPE, DType::I64));
const_assert!(same(<IntOf<u32> as Element>::DTYPE, DType::U32));

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

/// The category of an element type as a type (`BoolCat < IntegerCat < FloatCat`).
pub trait Categorized: Element {
    type Cat;
}
pub struct BoolCat;
pub struct IntegerCat;
pub struct FloatCat;
/// `Self <= C` in the category order.
pub trait CategoryLe<C> {}
impl CategoryLe<BoolCat> for BoolCat {}
impl CategoryLe<IntegerCat> for BoolCat {}
impl CategoryLe<FloatCat> for BoolCat {}
impl CategoryLe<IntegerCat> for IntegerCat {}
impl CategoryLe<FloatCat> for IntegerCat {}
impl CategoryLe<FloatCat> for FloatCat {}

impl<F: Categorized, T: Categorized> CastsInto<T> for F where F::Cat: CategoryLe<T::Cat> {}

/// Each type's category, from the dtype list's sections (which `DType::category` and
/// `can_cast` read too).
macro_rules! categories {
    (() $($Cat:ident [$($V:ident $tok:ident: $T:ty, $s:literal;)*])*) => {$($(
        impl Categorized for $T {
            type Cat = paste::paste!([<$Cat Cat>]);
        }
    )*)*};
}
crate::dtype_table!(categories);
