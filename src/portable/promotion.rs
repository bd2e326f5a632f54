//! Type promotion: the 13x13 table between dimensioned tensors (a `const`, checked at compile
//! time) and `result_type` over operands of the three priority classes. PyTorch's table for its
//! ten classic dtypes; for the unsigned u16/u32/u64, where PyTorch defines no promotion,
//! NumPy's rule (the smallest integer dtype holding both ranges, f64 where none does).
//!
//! `no_std`.

use crate::dtype::{Category, DType};
use static_assertions::const_assert;

// Short aliases so the table below reads like PyTorch's `_promoteTypesLookup`: the letter is
// the kind, the digit the size in bytes (`U8` is u64, `U1` is u8).
const B1: DType = DType::Bool;
const U1: DType = DType::U8;
const I1: DType = DType::I8;
const I2: DType = DType::I16;
const I4: DType = DType::I32;
const I8: DType = DType::I64;
const U2: DType = DType::U16;
const U4: DType = DType::U32;
const U8: DType = DType::U64;
const F2: DType = DType::F16;
const BF: DType = DType::BF16;
const F4: DType = DType::F32;
const F8: DType = DType::F64;

/// `PROMOTION_TABLE[a][b]` = the result dtype of two dimensioned tensors of dtypes `a`, `b`
/// (`torch.result_type` for PyTorch's ten dtypes), indexed by [`DType::index`]. Written out by
/// hand; [`promote_by_rule`] and the `const_assert!`s below check every entry when the crate
/// compiles.
#[rustfmt::skip]
pub const PROMOTION_TABLE: [[DType; DType::COUNT]; DType::COUNT] = [
    //        b1  u1  i1  i2  i4  i8  u2  u4  u8  f2  bf  f4  f8
    /* b1 */ [B1, U1, I1, I2, I4, I8, U2, U4, U8, F2, BF, F4, F8],
    /* u1 */ [U1, U1, I2, I2, I4, I8, U2, U4, U8, F2, BF, F4, F8],
    /* i1 */ [I1, I2, I1, I2, I4, I8, I4, I8, F8, F2, BF, F4, F8],
    /* i2 */ [I2, I2, I2, I2, I4, I8, I4, I8, F8, F2, BF, F4, F8],
    /* i4 */ [I4, I4, I4, I4, I4, I8, I4, I8, F8, F2, BF, F4, F8],
    /* i8 */ [I8, I8, I8, I8, I8, I8, I8, I8, F8, F2, BF, F4, F8],
    /* u2 */ [U2, U2, I4, I4, I4, I8, U2, U4, U8, F2, BF, F4, F8],
    /* u4 */ [U4, U4, I8, I8, I8, I8, U4, U4, U8, F2, BF, F4, F8],
    /* u8 */ [U8, U8, F8, F8, F8, F8, U8, U8, U8, F2, BF, F4, F8],
    /* f2 */ [F2, F2, F2, F2, F2, F2, F2, F2, F2, F2, F4, F4, F8],
    /* bf */ [BF, BF, BF, BF, BF, BF, BF, BF, BF, F4, BF, F4, F8],
    /* f4 */ [F4, F4, F4, F4, F4, F4, F4, F4, F4, F4, F4, F4, F8],
    /* f8 */ [F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8],
];

/// The promotion of two dimensioned-tensor dtypes (a table lookup; usable in `const`).
pub const fn promote_types(a: DType, b: DType) -> DType {
    PROMOTION_TABLE[a.index()][b.index()]
}

/// The same lattice derived from first principles, used only to check the table at compile time:
/// bool is the identity; a float beats any non-float; two integers meet at the smallest integer
/// dtype holding both ranges (u8 with i8 is i16, u32 with i32 is i64), f64 where none does (u64
/// with a signed integer); f16 with bf16 meets at f32; otherwise the wider float wins.
pub const fn promote_by_rule(a: DType, b: DType) -> DType {
    if a as u8 == b as u8 {
        return a;
    }
    match (a.category(), b.category()) {
        (Category::Bool, _) => b,
        (_, Category::Bool) => a,
        (Category::Float, Category::Integer) => a,
        (Category::Integer, Category::Float) => b,
        (Category::Integer, Category::Integer) => smallest_integer_holding(a, b),
        (Category::Float, Category::Float) => {
            if a.size() == 2 && b.size() == 2 {
                DType::F32
            } else if a.size() >= b.size() {
                a
            } else {
                b
            }
        }
    }
}

/// The smallest integer dtype whose range holds both `a`'s and `b`'s (NumPy's rule); f64 when
/// none does. Unique: a range holding negatives fits only signed dtypes, and an unsigned
/// dtype's whole range does not fit the signed dtype of its size.
const fn smallest_integer_holding(a: DType, b: DType) -> DType {
    let ((alo, ahi), (blo, bhi)) = (a.int_range(), b.int_range());
    let lo = if alo < blo { alo } else { blo };
    let hi = if ahi > bhi { ahi } else { bhi };
    let mut best = DType::F64;
    let mut i = 0;
    while i < DType::COUNT {
        let d = DType::ALL[i];
        let (dlo, dhi) = d.int_range();
        if d.is_integer()
            && dlo <= lo
            && hi <= dhi
            && (!best.is_integer() || d.size() < best.size())
        {
            best = d;
        }
        i += 1;
    }
    best
}

const fn table_matches_rules() -> bool {
    let mut i = 0;
    while i < DType::COUNT {
        let mut j = 0;
        while j < DType::COUNT {
            let (a, b) = (DType::ALL[i], DType::ALL[j]);
            let t = promote_types(a, b);
            // Every entry agrees with the rule, the table is symmetric, idempotent on the
            // diagonal, and the result's category is the higher of the two (or f64, for two
            // integers no integer dtype holds).
            if t as u8 != promote_by_rule(a, b) as u8
                || t as u8 != promote_types(b, a) as u8
                || (i == j && t as u8 != a as u8)
                || !cat_is_max(t, a, b)
            {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

const fn cat_is_max(t: DType, a: DType, b: DType) -> bool {
    let (ca, cb) = (a.category() as u8, b.category() as u8);
    let m = if ca > cb { ca } else { cb };
    t.category() as u8 == m || (m == Category::Integer as u8 && t as u8 == DType::F64 as u8)
}

const fn same(a: DType, b: DType) -> bool {
    a as u8 == b as u8
}

const_assert!(table_matches_rules());
const_assert!(same(promote_types(DType::U8, DType::I8), DType::I16));
const_assert!(same(promote_types(DType::F16, DType::BF16), DType::F32));
const_assert!(same(promote_types(DType::I64, DType::F16), DType::F16));
const_assert!(same(promote_types(DType::Bool, DType::Bool), DType::Bool));
const_assert!(same(promote_types(DType::U8, DType::I16), DType::I16));
const_assert!(same(promote_types(DType::I32, DType::BF16), DType::BF16));
const_assert!(same(promote_types(DType::F32, DType::F64), DType::F64));
const_assert!(same(DType::ALL[DType::BF16.index()], DType::BF16));
const_assert!(same(promote_types(DType::U16, DType::I8), DType::I32));
const_assert!(same(promote_types(DType::U32, DType::I32), DType::I64));
const_assert!(same(promote_types(DType::U64, DType::I8), DType::F64));
const_assert!(same(promote_types(DType::U64, DType::F16), DType::F16));
const_assert!(same(promote_types(DType::U16, DType::U8), DType::U16));

/// The priority class of an operand in `result_type`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A tensor with at least one dimension.
    Dimensioned,
    /// A 0-d tensor: only counts when its category is higher, then brings its own dtype.
    ZeroDim,
    /// A Python-like scalar ("wrapped number"): only counts when its category is higher, then
    /// brings the default dtype of its category (f32 for floats, i64 for integers).
    Scalar,
}

/// Incremental `result_type`, PyTorch's `ResultTypeState`: feed operands, then `finish`.
///
/// With a u16/u32/u64 tensor among the operands (dtypes PyTorch does not promote), 0-d
/// tensors count as dimensioned: NumPy 2's rule (NEP 50: only Python scalars are weak), which
/// the unsigned golden cases follow (`int64 0-d + uint16 [5, 5]` is int64, not uint16).
#[derive(Copy, Clone, Debug, Default)]
pub struct ResultTypeState {
    dim: Option<DType>,
    zero_dim: Option<DType>,
    scalar: Option<DType>,
    numpy_zero_dim: bool,
}

const fn promote_opt(acc: Option<DType>, d: DType) -> Option<DType> {
    match acc {
        None => Some(d),
        Some(a) => Some(promote_types(a, d)),
    }
}

impl ResultTypeState {
    pub const fn new() -> Self {
        ResultTypeState {
            dim: None,
            zero_dim: None,
            scalar: None,
            numpy_zero_dim: false,
        }
    }

    /// Adds one operand. For a scalar, `dtype` is the scalar's own type (bool, i64 or f64);
    /// it is mapped to the default dtype of its category here.
    pub const fn update(mut self, dtype: DType, kind: OperandKind) -> Self {
        if !matches!(kind, OperandKind::Scalar) && !dtype.has_torch_promotion() {
            self.numpy_zero_dim = true;
        }
        match kind {
            OperandKind::Dimensioned => self.dim = promote_opt(self.dim, dtype),
            OperandKind::ZeroDim => self.zero_dim = promote_opt(self.zero_dim, dtype),
            OperandKind::Scalar => {
                let d = match dtype.category() {
                    Category::Bool => DType::Bool,
                    Category::Integer => DType::I64,
                    Category::Float => DType::DEFAULT_FLOAT,
                };
                self.scalar = promote_opt(self.scalar, d)
            }
        }
        self
    }

    /// The combined dtype; `None` when no operand was added.
    pub const fn finish(self) -> Option<DType> {
        if self.numpy_zero_dim {
            let tensors = match self.zero_dim {
                Some(z) => promote_opt(self.dim, z),
                None => self.dim,
            };
            return combine(tensors, self.scalar);
        }
        // PyTorch's order: 0-d and scalars are combined first, then with the dimensioned result.
        combine(self.dim, combine(self.zero_dim, self.scalar))
    }
}

/// A lower priority class only matters when its category is strictly higher.
const fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if (l.category() as u8) > (h.category() as u8) {
                Some(promote_types(h, l))
            } else {
                Some(h)
            }
        }
    }
}

/// `torch.result_type` over a list of operands.
pub const fn result_type(operands: &[(DType, OperandKind)]) -> Option<DType> {
    let mut st = ResultTypeState::new();
    let mut i = 0;
    while i < operands.len() {
        st = st.update(operands[i].0, operands[i].1);
        i += 1;
    }
    st.finish()
}

const_assert!(matches!(
    result_type(&[
        (DType::I32, OperandKind::Dimensioned),
        (DType::F64, OperandKind::ZeroDim)
    ]),
    Some(DType::F64)
));
const_assert!(matches!(
    result_type(&[
        (DType::F16, OperandKind::Dimensioned),
        (DType::F64, OperandKind::ZeroDim)
    ]),
    Some(DType::F16)
));
const_assert!(matches!(
    result_type(&[
        (DType::I32, OperandKind::Dimensioned),
        (DType::F64, OperandKind::Scalar)
    ]),
    Some(DType::F32)
));
const_assert!(matches!(
    result_type(&[
        (DType::Bool, OperandKind::Dimensioned),
        (DType::I64, OperandKind::Scalar)
    ]),
    Some(DType::I64)
));

/// Whether a value of `from` may be written into an output of `to` by an in-place or `_out` op
/// (PyTorch's `canCast`: no float into integer or bool, no integer into bool).
pub const fn can_cast(from: DType, to: DType) -> bool {
    (from.category() as u8) <= (to.category() as u8)
}
