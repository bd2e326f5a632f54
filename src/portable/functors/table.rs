//! THE op table: one line per elementwise op, read by everything that lists ops. Adding an op
//! is its functor plus one line here; generated from these lines:
//! * the op enums [`BinaryOp`] / [`UnaryOp`] and their [`OpInfo`] (dtype rules, checks, cost),
//! * the CPU dispatch from a computation dtype to a monomorphised inner loop (`ops::binary`,
//!   `ops::unary`),
//! * the `Tensor<T>` methods (bounded by the functor's impls, so result types are static), the
//!   `DynTensor` methods and the device tensor methods (`paste`d names: `x`, `try_x`, `x_`,
//!   `try_x_`, `x_out`, `try_x_out`),
//! * the GPU kernel list (`device::kernel_list`, compiled to PTX by gpu/kernels) and the names
//!   the host launches,
//! * the tests' op lists (`BinaryOp::ALL`, `UnaryOp::ALL`).
//!
//! # Line format
//!
//! ```text
//! Variant name: dtypes -> result, cost [flags];
//! ```
//! * `Variant`: the enum variant and the functor `crate::functors::Variant` (its `Default`
//!   value is the functor the op runs);
//! * `name`: PyTorch's name (`floor_divide`), the method names and the kernel names;
//! * `dtypes`: the computation dtypes the functor exists for: `all`, `numeric` (no bool),
//!   `float`, `integral` (integers and bool), `int` (see [`DTypeSet`]);
//! * `result`: `same` (the computation dtype), `bool` (a predicate), `to_float` (integer and
//!   bool operands compute in the default float, `exp(int) -> f32`) (see [`ResultRule`]);
//! * `cost`: per-element cost class for the parallel grain and GPU outlining ([`Cost`]);
//! * `flags`: [`OpFlag`] names; `ScalarKernel` and `OwnMethods`, when present, come first.
//!
//! Binary ops run in a *computation dtype*: the promoted dtype of the operands
//! ([`crate::promotion`]), moved to f32 for `to_float` ops, then checked against `dtypes`.

use crate::dtype::{Category, DType};
use crate::promotion::promote_types;

/// The binary op table (format: see the module docs). `binary_op_table!(m)` expands to
/// `m! { () LINE* }`; `binary_op_table!(@with (args) m)` to `m! { (args) LINE* }`.
#[macro_export]
#[doc(hidden)]
macro_rules! binary_op_table {
    (@with ($($args:tt)*) $($m:tt)+) => { $($m)+! { ($($args)*)
        Add add: all -> same, Cheap [ScalarKernel];
        Sub sub: numeric -> same, Cheap [ScalarKernel NoBoolOperand];
        Mul mul: all -> same, Cheap [ScalarKernel ScalarOpmath];
        Div div: float -> to_float, Moderate [ScalarKernel ScalarOpmath];
        FloorDivide floor_divide: numeric -> same, Moderate [IntDivision ScalarOpmath HalfOwnRounding];
        Remainder remainder: numeric -> same, Moderate [IntDivision];
        Fmod fmod: numeric -> same, Moderate [IntDivision];
        Pow pow: numeric -> same, Expensive [ScalarExponent];
        Atan2 atan2: float -> to_float, Expensive [];
        Maximum maximum: all -> same, Cheap [];
        Minimum minimum: all -> same, Cheap [];
        Eq eq: all -> bool, Cheap [];
        Ne ne: all -> bool, Cheap [];
        Lt lt: all -> bool, Cheap [];
        Le le: all -> bool, Cheap [];
        Gt gt: all -> bool, Cheap [];
        Ge ge: all -> bool, Cheap [];
        LogicalAnd logical_and: all -> bool, Cheap [];
        LogicalOr logical_or: all -> bool, Cheap [];
        LogicalXor logical_xor: all -> bool, Cheap [];
        BitwiseAnd bitwise_and: integral -> same, Cheap [];
        BitwiseOr bitwise_or: integral -> same, Cheap [];
        BitwiseXor bitwise_xor: integral -> same, Cheap [];
        BitwiseLeftShift bitwise_left_shift: int -> same, Cheap [];
        BitwiseRightShift bitwise_right_shift: int -> same, Cheap [];
        Copysign copysign: float -> to_float, Cheap [SignBits];
        Hypot hypot: float -> same, Expensive [];
        Xlogy xlogy: float -> to_float, Expensive [];
        Logaddexp logaddexp: float -> same, Expensive [];
        Fmax fmax: all -> same, Cheap [];
        Fmin fmin: all -> same, Cheap [];
        Heaviside heaviside: all -> same, Cheap [SameDtypes];
        Nextafter nextafter: float -> same, Cheap [HalfOwnRounding];
        Gcd gcd: int -> same, Expensive [];
        Lcm lcm: int -> same, Expensive [];
    }};
    ($($m:tt)+) => { $crate::binary_op_table! { @with () $($m)+ } };
}

/// The unary op table (format: see the module docs).
#[macro_export]
#[doc(hidden)]
macro_rules! unary_op_table {
    (@with ($($args:tt)*) $($m:tt)+) => { $($m)+! { ($($args)*)
        Neg neg: numeric -> same, Cheap [SignBits];
        Abs abs: numeric -> same, Cheap [SignBits];
        Sign sign: all -> same, Cheap [];
        Relu relu: numeric -> same, Cheap [];
        Exp exp: float -> to_float, Expensive [VectorF32];
        Expm1 expm1: float -> to_float, Expensive [VectorF32];
        Log log: float -> to_float, Expensive [VectorF32];
        Log1p log1p: float -> to_float, Expensive [VectorF32];
        Log2 log2: float -> to_float, Expensive [VectorF32];
        Log10 log10: float -> to_float, Expensive [VectorF32];
        Sqrt sqrt: float -> to_float, Moderate [];
        Rsqrt rsqrt: float -> to_float, Moderate [];
        Reciprocal reciprocal: float -> to_float, Moderate [];
        Square square: numeric -> same, Cheap [ViaPow];
        Sin sin: float -> to_float, Expensive [VectorF32];
        Cos cos: float -> to_float, Expensive [VectorF32];
        Tan tan: float -> to_float, Expensive [VectorF32];
        Asin asin: float -> to_float, Expensive [VectorF32];
        Acos acos: float -> to_float, Expensive [VectorF32];
        Atan atan: float -> to_float, Expensive [VectorF32];
        Sinh sinh: float -> to_float, Expensive [VectorF32];
        Cosh cosh: float -> to_float, Expensive [VectorF32];
        Tanh tanh: float -> to_float, Expensive [VectorF32];
        Sigmoid sigmoid: float -> to_float, Expensive [VectorF32];
        Silu silu: float -> same, Expensive [VectorF32];
        Softplus softplus: float -> same, Expensive [VectorF32];
        Gelu gelu: float -> same, Expensive [OwnMethods VectorF32];
        Erf erf: float -> to_float, Expensive [HalfOwnRounding VectorF32];
        Floor floor: numeric -> same, Cheap [];
        Ceil ceil: numeric -> same, Cheap [];
        Round round: numeric -> same, Cheap [];
        Trunc trunc: numeric -> same, Cheap [];
        Frac frac: float -> same, Cheap [];
        LogicalNot logical_not: all -> bool, Cheap [];
        BitwiseNot bitwise_not: integral -> same, Cheap [];
        IsNan isnan: all -> bool, Cheap [];
        IsInf isinf: all -> bool, Cheap [];
        IsFinite isfinite: all -> bool, Cheap [];
        Exp2 exp2: float -> to_float, Expensive [VectorF32];
        Asinh asinh: float -> to_float, Expensive [VectorF32];
        Acosh acosh: float -> to_float, Expensive [VectorF32];
        Atanh atanh: float -> to_float, Expensive [VectorF32];
        Erfc erfc: float -> to_float, Expensive [VectorF32];
        Deg2rad deg2rad: float -> to_float, Cheap [];
        Rad2deg rad2deg: float -> to_float, Cheap [];
        Logit logit: float -> to_float, Expensive [HalfOwnRounding];
        Mish mish: float -> same, Expensive [VectorF32];
        Elu elu: float -> same, Expensive [VectorF32];
        Selu selu: float -> same, Expensive [VectorF32];
        Celu celu: float -> same, Expensive [VectorF32];
        Logsigmoid logsigmoid: float -> same, Expensive [VectorF32];
        Hardswish hardswish: float -> same, Cheap [];
        Hardsigmoid hardsigmoid: float -> same, Cheap [];
        Softsign softsign: float -> to_float, Moderate [NoBoolOperand HalfOwnRounding];
        Signbit signbit: all -> bool, Cheap [];
    }};
    ($($m:tt)+) => { $crate::unary_op_table! { @with () $($m)+ } };
}

/// The `DTypeSet` of a dtype group's rows (a `__dtype_list!` callback).
macro_rules! dtype_set {
    ([$($V:ident $t:ident: $T:ty, $s:literal;)*]) => {
        DTypeSet::of(&[$(DType::$V),*])
    };
}

/// A set of dtypes (a bit per dtype). The named sets are the `dtypes` column of the table; their
/// members come from the dtype list (`__dtype_list!`, src/portable/dtype.rs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DTypeSet(u16);

impl DTypeSet {
    const fn of(ds: &[DType]) -> DTypeSet {
        let mut bits = 0u16;
        let mut i = 0;
        while i < ds.len() {
            bits |= 1 << ds[i] as u16;
            i += 1;
        }
        DTypeSet(bits)
    }
    /// Every dtype.
    pub const ALL: DTypeSet = crate::__dtype_list!(all; dtype_set;);
    /// Every dtype but bool.
    pub const NUMERIC: DTypeSet = crate::__dtype_list!(numeric; dtype_set;);
    /// f16, bf16, f32, f64.
    pub const FLOAT: DTypeSet = crate::__dtype_list!(float; dtype_set;);
    /// The integers and bool.
    pub const INTEGRAL: DTypeSet = crate::__dtype_list!(integral; dtype_set;);
    /// The integers.
    pub const INT: DTypeSet = crate::__dtype_list!(int; dtype_set;);

    pub const fn contains(self, d: DType) -> bool {
        self.0 & (1 << d as u16) != 0
    }
}

/// The `DTypeSet` of a table's `dtypes` token.
#[macro_export]
#[doc(hidden)]
macro_rules! __dtype_set {
    (all) => {
        $crate::functors::table::DTypeSet::ALL
    };
    (numeric) => {
        $crate::functors::table::DTypeSet::NUMERIC
    };
    (float) => {
        $crate::functors::table::DTypeSet::FLOAT
    };
    (integral) => {
        $crate::functors::table::DTypeSet::INTEGRAL
    };
    (int) => {
        $crate::functors::table::DTypeSet::INT
    };
}

/// How an op's result dtype follows from its operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultRule {
    /// The computation dtype (the promoted operand dtype).
    Same,
    /// Always bool (comparisons, logical ops, `isnan`, ...).
    Bool,
    /// Integer and bool operands are computed in the default float (f32); floats keep theirs.
    ToFloat,
}

/// Per-element cost class: the parallel grain on the CPU, outlining on the GPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cost {
    /// An instruction or two (add, compare, bit ops).
    Cheap,
    /// A division or square root.
    Moderate,
    /// A libm call or longer.
    Expensive,
}

/// The flags of a table line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpFlag {
    /// The GPU also gets a kernel taking the second operand as a scalar kernel argument.
    ScalarKernel,
    /// The f16/bf16 functors are *not* the f32 functor rounded once (PyTorch computes them
    /// another way: `erf`'s vectorized form, `logit`'s and `softsign`'s roundings, `nextafter`
    /// in its own format). Every other op with float dtypes runs its f32 functor over f16/bf16
    /// blocks converted in and rounded on the way out (`kernels`), bit for bit what its half
    /// functors give; tests/half_blocks.rs checks both ways over every half value.
    HalfOwnRounding,
    /// The f16/bf16 results are the operand's bits with the sign bit changed (`neg`, `abs`,
    /// `copysign`): their half functors work on the 16-bit patterns and run over the half
    /// elements themselves, as integer loops, not over f32 blocks (the same values: the half
    /// blocks test checks every one; a NaN keeps its payload bits as in PyTorch).
    SignBits,
    /// Refuses a bool operand whatever the other is (PyTorch's `sub`, `softsign`).
    NoBoolOperand,
    /// Both operands must be tensors of one dtype (PyTorch's `heaviside`: no promotion).
    SameDtypes,
    /// Integer division: a zero divisor is an error (checked before anything is written).
    IntDivision,
    /// An f16/bf16 tensor by a CPU scalar keeps the scalar at f32 (`*ScalarOpmath` functors).
    ScalarOpmath,
    /// A scalar exponent has its own functor (`PowScalar`).
    ScalarExponent,
    /// The f32 functor is a vectorized polynomial (`fastmath`, through `Real`): a cheaper grain
    /// in f32.
    VectorF32,
    /// Computed as `pow(x, 2)` with pow's promotion (`square`; bool -> int64).
    ViaPow,
    /// Takes an argument: its methods are written by hand (`gelu(approximate)`).
    OwnMethods,
}

/// A set of [`OpFlag`]s.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpFlags(u16);

impl OpFlags {
    pub const fn of(flags: &[OpFlag]) -> OpFlags {
        let mut bits = 0u16;
        let mut i = 0;
        while i < flags.len() {
            bits |= 1 << flags[i] as u16;
            i += 1;
        }
        OpFlags(bits)
    }
    pub const fn has(self, f: OpFlag) -> bool {
        self.0 & (1 << f as u16) != 0
    }
}

/// What the table says about one op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub name: &'static str,
    pub dtypes: DTypeSet,
    pub result: ResultRule,
    pub cost: Cost,
    pub flags: OpFlags,
}

impl OpInfo {
    /// The dtype the functor runs in for a promoted operand dtype; `None` when the op is not
    /// implemented for it.
    pub const fn compute_dtype(&self, common: DType) -> Option<DType> {
        let c = match self.result {
            ResultRule::ToFloat if !common.is_float() => DType::DEFAULT_FLOAT,
            _ => common,
        };
        if self.flags.has(OpFlag::NoBoolOperand) && common.is_bool() {
            return None;
        }
        if self.flags.has(OpFlag::ViaPow) && c.is_bool() {
            // pow(x, 2): bool promotes with the int scalar 2 to int64.
            return Some(DType::I64);
        }
        if self.dtypes.contains(c) {
            Some(c)
        } else {
            None
        }
    }

    /// The result dtype for a computation dtype.
    pub const fn out_dtype(&self, compute: DType) -> DType {
        match self.result {
            ResultRule::Bool => DType::Bool,
            _ => compute,
        }
    }
}

/// Builds an op enum and its `OpInfo` table from table lines.
macro_rules! op_enum {
    ($(#[$m:meta])* $enum:ident; ()
     $($Op:ident $name:ident: $dtypes:ident -> $result:ident, $cost:ident [$($flag:ident)*];)*) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $enum { $($Op),* }
        impl $enum {
            /// Every op, in table order.
            pub const ALL: &'static [$enum] = &[$($enum::$Op),*];
            pub(crate) const INFO: &'static [OpInfo] = &[$(OpInfo {
                name: stringify!($name),
                dtypes: $crate::__dtype_set!($dtypes),
                result: op_enum!(@result $result),
                cost: Cost::$cost,
                flags: OpFlags::of(&[$(OpFlag::$flag),*]),
            }),*];
            /// The op's table line.
            pub const fn info(self) -> &'static OpInfo {
                &Self::INFO[self as usize]
            }
            /// PyTorch's name (`floor_divide`, `bitwise_left_shift`, ...).
            pub const fn name(self) -> &'static str {
                self.info().name
            }
            /// The op named `name` (PyTorch's spelling).
            pub fn from_name(name: &str) -> Option<$enum> {
                Self::ALL.iter().copied().find(|op| op.name() == name)
            }
            /// Whether the result is bool whatever the inputs.
            pub const fn is_predicate(self) -> bool {
                matches!(self.info().result, ResultRule::Bool)
            }
            /// Whether integer and bool inputs compute in the default float.
            pub const fn promotes_int_to_float(self) -> bool {
                matches!(self.info().result, ResultRule::ToFloat)
            }
            /// Whether the table gives the op flag `f`.
            pub const fn has(self, f: OpFlag) -> bool {
                self.info().flags.has(f)
            }
            /// See [`OpInfo::compute_dtype`]. Inlined: a tiny op asks it on its flat tier,
            /// where a call was 20 of its ~1,350 instructions.
            #[inline]
            pub const fn compute_dtype(self, common: DType) -> Option<DType> {
                self.info().compute_dtype(common)
            }
            /// See [`OpInfo::out_dtype`].
            pub const fn out_dtype(self, compute: DType) -> DType {
                self.info().out_dtype(compute)
            }
        }
    };
    (@result same) => { ResultRule::Same };
    (@result bool) => { ResultRule::Bool };
    (@result to_float) => { ResultRule::ToFloat };
}

macro_rules! binary_enum {
    ($($line:tt)*) => {
        op_enum!(
            /// The elementwise binary ops (the lines of [`binary_op_table!`]).
            BinaryOp; $($line)*
        );
    };
}
binary_op_table!(binary_enum);

macro_rules! unary_enum {
    ($($line:tt)*) => {
        op_enum!(
            /// The elementwise unary ops without arguments (the lines of [`unary_op_table!`]).
            UnaryOp; $($line)*
        );
    };
}
unary_op_table!(unary_enum);

/// The table's cost class of the op named `name` (binary or unary); `None` for an op outside
/// the tables. A `const fn` so the GPU kernels can decide outlining at compile time.
pub const fn cost_of(name: &str) -> Option<Cost> {
    match cost_in(BinaryOp::INFO, name) {
        Some(c) => Some(c),
        None => cost_in(UnaryOp::INFO, name),
    }
}

const fn cost_in(infos: &[OpInfo], name: &str) -> Option<Cost> {
    let mut i = 0;
    while i < infos.len() {
        if str_eq(infos[i].name, name) {
            return Some(infos[i].cost);
        }
        i += 1;
    }
    None
}

/// String equality in a `const fn` (`==` on `str` is not const); also the GPU kernels' outlining
/// test.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl BinaryOp {
    /// Whether an operand of dtype `d` is refused whatever the other is: PyTorch refuses
    /// `sub` with any bool operand (`bool - int8` too).
    pub const fn rejects_operand(self, d: DType) -> bool {
        self.has(OpFlag::NoBoolOperand) && d.is_bool()
    }
}

/// The result dtype of `op` on two dimensioned tensors of dtypes `a` and `b`, or `None` when
/// PyTorch refuses the combination (promotion.json's `binary_op_support`).
pub const fn binary_out_dtype(op: BinaryOp, a: DType, b: DType) -> Option<DType> {
    if op.rejects_operand(a) || op.rejects_operand(b) {
        return None;
    }
    match op.compute_dtype(promote_types(a, b)) {
        Some(c) => Some(op.out_dtype(c)),
        None => None,
    }
}

/// The result dtype of `op` on a tensor of dtype `d`, or `None` when PyTorch refuses it
/// (promotion.json's `unary_op_support`).
pub const fn unary_out_dtype(op: UnaryOp, d: DType) -> Option<DType> {
    match op.compute_dtype(d) {
        Some(c) => Some(op.out_dtype(c)),
        None => None,
    }
}

/// The dtypes `clamp`, `hardtanh`, `leaky_relu`, `lerp`, `addcmul` compute in: clamp and
/// hardtanh take integers and floats (not bool), leaky_relu and lerp floats only,
/// addcmul integers and floats.
pub const fn clamp_supports(compute: DType) -> bool {
    !compute.is_bool()
}

/// Whether the float-only parameterised functors (leaky_relu, lerp, gelu) accept `d`.
pub const fn float_only_supports(d: DType) -> bool {
    matches!(d.category(), Category::Float)
}
