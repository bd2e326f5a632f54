//! Shared by `ops_props.rs` and `ops_inplace.rs`: random operands over random layouts (any
//! strides, negative included, offsets, stride 0), random op cases over the whole `DynTensor`
//! op set, the same case run through weft's ops layer, and a naive reference evaluator that
//! reads each element from its linear index and applies the functor per element with
//! PyTorch's promotion (the approach of `golden_functors.rs`, extended to every op).
#![allow(dead_code)]

use half::{bf16, f16};
use weft::functors::*;
use weft::ops::Operand as WOperand;
use weft::promotion::{OperandKind, ResultTypeState};
use weft::tensor::random::SplitMix64;
use weft::{DType, DynTensor, Element, Error, Layout, Scalar, Tensor, Value, with_dtype};

/// A small deterministic RNG (the case generator; proptest only supplies the seeds).
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }
    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.u64() % n as u64) as usize
    }
    /// True with probability 1/n.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    pub fn unit(&mut self) -> f64 {
        self.0.next_unit(53)
    }
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

/// A tensor operand as plain data: storage of exact values of `dtype`, and any layout.
#[derive(Clone, Debug)]
pub struct Arg {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    pub offset: usize,
    pub storage: Vec<Value>,
}

impl Arg {
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// A `DynTensor` view over a fresh storage holding `storage`, with this layout.
    pub fn to_dyn(&self) -> DynTensor {
        with_dtype!(self.dtype, T => {
            let data: Vec<T> = self.storage.iter().map(|&v| T::from_value(v)).collect();
            let n = data.len();
            let base = Tensor::<T>::from_vec(data, &[n]).expect("storage");
            let layout = Layout::new(self.shape.clone(), self.strides.clone(), self.offset)
                .expect("layout");
            DynTensor::from(Tensor::from_parts(base.storage().clone(), layout).expect("fits"))
        })
    }

    /// The values broadcast to `shape`, row-major, each read from its linear index.
    pub fn expand(&self, shape: &[usize]) -> Vec<Value> {
        let n: usize = shape.iter().product();
        let nd = shape.len();
        let lead = nd - self.shape.len();
        (0..n)
            .map(|mut lin| {
                let mut pos = self.offset as isize;
                for d in (0..nd).rev() {
                    let c = lin % shape[d];
                    lin /= shape[d];
                    if d >= lead && self.shape[d - lead] != 1 {
                        pos += c as isize * self.strides[d - lead];
                    }
                }
                self.storage[pos as usize]
            })
            .collect()
    }

    pub fn logical(&self) -> Vec<Value> {
        self.expand(&self.shape)
    }

    /// The same values in a fresh row-major storage at offset 0.
    pub fn contiguous(&self) -> Arg {
        Arg {
            dtype: self.dtype,
            shape: self.shape.clone(),
            strides: contiguous_strides(&self.shape),
            offset: 0,
            storage: self.logical(),
        }
    }
}

pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        s[d] = acc;
        acc *= shape[d].max(1) as isize;
    }
    s
}

/// A value of `d` (exact, canonical), biased towards edge values.
pub fn rand_value(rng: &mut Rng, d: DType) -> Value {
    match d {
        DType::Bool => Value::Bool(rng.one_in(2)),
        d if d.is_integer() => {
            let v: i64 = match rng.below(8) {
                0 => 0,
                1 => i64::MIN,
                2 => i64::MAX,
                3 | 4 => rng.below(9) as i64 - 4,
                5 => rng.below(300) as i64 - 150,
                _ => rng.u64() as i64,
            };
            with_dtype!(d, T => T::from_value(Value::Int(v)).to_value())
        }
        _ => {
            let x: f64 = match rng.below(24) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                3 => 0.0,
                4 => -0.0,
                5 => 1e30 * if rng.one_in(2) { 1.0 } else { -1.0 },
                6 => 1e-30,
                7 => 65504.0,
                8..=11 => rng.below(11) as f64 - 5.0,
                12..=13 => (rng.below(9) as f64 - 4.0) + 0.5,
                _ => (rng.unit() - 0.5) * 8.0,
            };
            with_dtype!(d, T => T::from_value(Value::F64(x)).to_value())
        }
    }
}

pub fn rand_scalar(rng: &mut Rng) -> Scalar {
    match rng.below(3) {
        0 => Scalar::Bool(rng.one_in(2)),
        1 => Scalar::Int(rng.pick(&[0, 1, 2, -1, 3, -7, 100, 300, -129, 1 << 40, i64::MIN])),
        _ => Scalar::Float(rng.pick(&[
            0.0,
            -0.0,
            2.5,
            -0.5,
            0.3,
            1.0,
            2.0,
            -3.0,
            1e10,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
        ])),
    }
}

/// A random layout for `shape`: contiguous, permuted, stepped (negative steps too), expanded
/// (stride 0), or a mix, at a random offset inside a storage with slack on both ends.
pub fn rand_layout(rng: &mut Rng, shape: &[usize]) -> (Vec<isize>, usize, usize) {
    let nd = shape.len();
    let kind = rng.below(6);
    let mut order: Vec<usize> = (0..nd).rev().collect(); // innermost first
    let mut steps = vec![1isize; nd];
    let mut expanded = vec![false; nd];
    if kind == 1 || kind >= 4 {
        rng.shuffle(&mut order);
    }
    if kind == 2 || kind >= 4 {
        for s in steps.iter_mut() {
            *s = rng.pick(&[1, 1, 2, 3, -1, -2]);
        }
    }
    if kind == 3 || kind >= 4 {
        for e in expanded.iter_mut() {
            *e = rng.one_in(3);
        }
    }
    let mut strides = vec![0isize; nd];
    let mut acc = 1isize;
    for &d in &order {
        if expanded[d] {
            continue;
        }
        strides[d] = acc * steps[d];
        acc *= shape[d].max(1) as isize * steps[d].abs();
    }
    let numel: usize = shape.iter().product();
    let extra = rng.below(3);
    if numel == 0 {
        return (strides, extra, extra + rng.below(3));
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(&strides) {
        let span = (n as isize - 1) * s;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    let offset = (-lo) as usize + extra;
    let len = offset + hi as usize + 1 + rng.below(3);
    (strides, offset, len)
}

pub fn rand_arg(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Arg {
    let (strides, offset, len) = rand_layout(rng, shape);
    let storage = (0..len).map(|_| rand_value(rng, dtype)).collect();
    Arg {
        dtype,
        shape: shape.to_vec(),
        strides,
        offset,
        storage,
    }
}

/// A shape of 0-4 dims, sizes 0-5 (small sizes likelier).
pub fn rand_shape(rng: &mut Rng) -> Vec<usize> {
    let nd = rng.below(5);
    (0..nd)
        .map(|_| rng.pick(&[0, 1, 1, 2, 2, 3, 3, 4, 5]))
        .collect()
}

/// An operand shape that broadcasts to `full` (leading dims dropped, some set to 1), or, one
/// time in 25, one that does not.
pub fn operand_shape(rng: &mut Rng, full: &[usize]) -> Vec<usize> {
    let drop = if rng.one_in(3) {
        rng.below(full.len() + 1)
    } else {
        0
    };
    let mut s: Vec<usize> = full[drop..]
        .iter()
        .map(|&n| if rng.one_in(4) { 1 } else { n })
        .collect();
    if rng.one_in(25)
        && let Some(d) = (0..s.len()).find(|&d| s[d] >= 2)
    {
        s[d] += 1;
    }
    s
}

pub fn rand_dtype(rng: &mut Rng) -> DType {
    rng.pick(&DType::ALL)
}

/// One operand of a case: a tensor or a Python-like scalar.
#[derive(Clone, Debug)]
pub enum Opnd {
    T(Arg),
    S(Scalar),
}

/// One op call of the `DynTensor` API.
#[derive(Clone, Debug)]
pub enum Case {
    Binary(BinaryOp, Opnd, Opnd),
    Unary(UnaryOp, Arg),
    GeluTanh(Arg),
    Clamp(Arg, Option<Opnd>, Option<Opnd>),
    Where(Arg, Opnd, Opnd),
    MaskedFill(Arg, Arg, Opnd),
    Lerp(Arg, Arg, Opnd),
    Addcmul(Arg, Arg, Arg, Scalar),
    To(Arg, DType),
    LeakyRelu(Arg, f64),
    Hardtanh(Arg, Scalar, Scalar),
}

/// A random case over the logical shape `full` with random layouts and dtypes.
pub fn rand_case(rng: &mut Rng, full: &[usize]) -> Case {
    let t = |rng: &mut Rng, d: DType| {
        let s = operand_shape(rng, full);
        rand_arg(rng, d, &s)
    };
    let dt = rand_dtype(rng);
    match rng.below(20) {
        0..=7 => {
            let op = rng.pick(BinaryOp::ALL);
            let (a, b) = match rng.below(4) {
                0 => (Opnd::S(rand_scalar(rng)), Opnd::T(t(rng, dt))),
                1 => (Opnd::T(t(rng, dt)), Opnd::S(rand_scalar(rng))),
                _ => {
                    let db = if rng.one_in(2) { dt } else { rand_dtype(rng) };
                    (Opnd::T(t(rng, dt)), Opnd::T(t(rng, db)))
                }
            };
            Case::Binary(op, a, b)
        }
        8..=11 => Case::Unary(rng.pick(UnaryOp::ALL), t(rng, dt)),
        12 => Case::GeluTanh(t(rng, dt)),
        13 => {
            let bound = |rng: &mut Rng| match rng.below(3) {
                0 => None,
                1 => Some(Opnd::S(rand_scalar(rng))),
                _ => {
                    let d = if rng.one_in(2) { dt } else { rand_dtype(rng) };
                    Some(Opnd::T(t(rng, d)))
                }
            };
            let (lo, hi) = (bound(rng), bound(rng));
            Case::Clamp(t(rng, dt), lo, hi)
        }
        14 => {
            let cd = if rng.one_in(8) {
                DType::U8
            } else {
                DType::Bool
            };
            let cond = t(rng, cd);
            let side = |rng: &mut Rng| {
                if rng.one_in(3) {
                    Opnd::S(rand_scalar(rng))
                } else {
                    let d = if rng.one_in(2) { dt } else { rand_dtype(rng) };
                    Opnd::T(t(rng, d))
                }
            };
            let (a, b) = (side(rng), side(rng));
            Case::Where(cond, a, b)
        }
        15 => {
            let x = t(rng, dt);
            let mask = t(rng, DType::Bool);
            let v = if rng.one_in(3) {
                let d = rand_dtype(rng);
                Opnd::T(rand_arg(rng, d, &[]))
            } else {
                Opnd::S(rand_scalar(rng))
            };
            Case::MaskedFill(x, mask, v)
        }
        16 => {
            let fd = rng.pick(&[DType::F16, DType::BF16, DType::F32, DType::F64, dt]);
            let (a, b) = (t(rng, fd), t(rng, fd));
            let w = if rng.one_in(2) {
                Opnd::S(Scalar::Float(
                    rng.pick(&[0.0, 0.25, 0.5, 0.75, 1.0, -1.5, 2.0]),
                ))
            } else {
                Opnd::T(t(rng, fd))
            };
            Case::Lerp(a, b, w)
        }
        17 => {
            let d2 = if rng.one_in(2) { dt } else { rand_dtype(rng) };
            let v = rng.pick(&[
                Scalar::Int(1),
                Scalar::Int(-2),
                Scalar::Float(0.5),
                Scalar::Float(-1.25),
            ]);
            let (a, b, c) = (t(rng, dt), t(rng, d2), t(rng, dt));
            Case::Addcmul(a, b, c, v)
        }
        18 => Case::To(t(rng, dt), rand_dtype(rng)),
        _ => {
            if rng.one_in(2) {
                Case::LeakyRelu(t(rng, dt), rng.pick(&[0.01, 0.2, -1.5]))
            } else {
                let (lo, hi) = rng.pick(&[
                    (Scalar::Int(-1), Scalar::Int(1)),
                    (Scalar::Float(-0.5), Scalar::Float(2.5)),
                    (Scalar::Int(0), Scalar::Int(100)),
                ]);
                Case::Hardtanh(t(rng, dt), lo, hi)
            }
        }
    }
}

/// Applies `f` to every tensor operand of the case (e.g. to make them contiguous).
pub fn map_args(c: &Case, f: &dyn Fn(&Arg) -> Arg) -> Case {
    let o = |x: &Opnd| match x {
        Opnd::T(a) => Opnd::T(f(a)),
        Opnd::S(s) => Opnd::S(*s),
    };
    match c {
        Case::Binary(op, a, b) => Case::Binary(*op, o(a), o(b)),
        Case::Unary(op, a) => Case::Unary(*op, f(a)),
        Case::GeluTanh(a) => Case::GeluTanh(f(a)),
        Case::Clamp(x, lo, hi) => Case::Clamp(f(x), lo.as_ref().map(o), hi.as_ref().map(o)),
        Case::Where(c, a, b) => Case::Where(f(c), o(a), o(b)),
        Case::MaskedFill(x, m, v) => Case::MaskedFill(f(x), f(m), o(v)),
        Case::Lerp(a, b, w) => Case::Lerp(f(a), f(b), o(w)),
        Case::Addcmul(a, b, c, v) => Case::Addcmul(f(a), f(b), f(c), *v),
        Case::To(a, d) => Case::To(f(a), *d),
        Case::LeakyRelu(a, s) => Case::LeakyRelu(f(a), *s),
        Case::Hardtanh(a, lo, hi) => Case::Hardtanh(f(a), *lo, *hi),
    }
}

// ---------------------------------------------------------------------------------------------
// Running a case through weft.

enum Owned {
    T(DynTensor),
    S(Scalar),
}

impl Owned {
    fn of(o: &Opnd) -> Owned {
        match o {
            Opnd::T(a) => Owned::T(a.to_dyn()),
            Opnd::S(s) => Owned::S(*s),
        }
    }
    fn op(&self) -> WOperand<'_> {
        match self {
            Owned::T(t) => WOperand::Tensor(t),
            Owned::S(s) => WOperand::Scalar(*s),
        }
    }
}

/// The case through weft's ops layer, into `out` when given.
pub fn run_weft(c: &Case, out: Option<&DynTensor>) -> Result<DynTensor, Error> {
    run_weft_on(c, None, out)
}

/// The case in place: its first tensor operand is `this`, which is also the output.
pub fn run_inplace(c: &Case, this: &DynTensor) -> Result<DynTensor, Error> {
    run_weft_on(c, Some(this), Some(this))
}

/// As [`run_weft`], with the first tensor operand replaced by `first` when given.
pub fn run_weft_on(
    c: &Case,
    first: Option<&DynTensor>,
    out: Option<&DynTensor>,
) -> Result<DynTensor, Error> {
    use weft::ops::{binary, special, unary};
    if let Some(first) = first {
        // Every case's first tensor operand is its first field (Binary: `a` as a tensor).
        return match c {
            Case::Binary(op, Opnd::T(_), b) => {
                let b = Owned::of(b);
                binary::binary(*op, WOperand::Tensor(first), b.op(), out)
            }
            Case::Binary(..) => panic!("in place needs a tensor first operand"),
            Case::Unary(op, _) => unary::unary(*op, first, out),
            Case::GeluTanh(_) => special::gelu(first, GeluApproximate::Tanh, out),
            Case::Clamp(_, lo, hi) => {
                let lo = lo.as_ref().map(Owned::of);
                let hi = hi.as_ref().map(Owned::of);
                special::clamp(
                    first,
                    lo.as_ref().map(|o| o.op()),
                    hi.as_ref().map(|o| o.op()),
                    out,
                )
            }
            Case::Where(..) => panic!("where has no in-place form"),
            Case::MaskedFill(_, m, v) => {
                let v = Owned::of(v);
                special::masked_fill(first, &m.to_dyn(), v.op(), out)
            }
            Case::Lerp(_, b, w) => {
                let w = Owned::of(w);
                special::lerp(first, &b.to_dyn(), w.op(), out)
            }
            Case::Addcmul(_, b, c, v) => special::addcmul(first, &b.to_dyn(), &c.to_dyn(), *v, out),
            Case::To(..) => panic!("to has no in-place form (copy_ is tested apart)"),
            Case::LeakyRelu(_, s) => special::leaky_relu(first, *s, out),
            Case::Hardtanh(_, lo, hi) => special::hardtanh(first, *lo, *hi, out),
        };
    }
    match c {
        Case::Binary(op, a, b) => {
            let (a, b) = (Owned::of(a), Owned::of(b));
            binary::binary(*op, a.op(), b.op(), out)
        }
        Case::Unary(op, a) => unary::unary(*op, &a.to_dyn(), out),
        Case::GeluTanh(a) => special::gelu(&a.to_dyn(), GeluApproximate::Tanh, out),
        Case::Clamp(x, lo, hi) => {
            let lo = lo.as_ref().map(Owned::of);
            let hi = hi.as_ref().map(Owned::of);
            special::clamp(
                &x.to_dyn(),
                lo.as_ref().map(|o| o.op()),
                hi.as_ref().map(|o| o.op()),
                out,
            )
        }
        Case::Where(c, a, b) => {
            let (a, b) = (Owned::of(a), Owned::of(b));
            special::where_(&c.to_dyn(), a.op(), b.op(), out)
        }
        Case::MaskedFill(x, m, v) => {
            let v = Owned::of(v);
            special::masked_fill(&x.to_dyn(), &m.to_dyn(), v.op(), out)
        }
        Case::Lerp(a, b, w) => {
            let w = Owned::of(w);
            special::lerp(&a.to_dyn(), &b.to_dyn(), w.op(), out)
        }
        Case::Addcmul(a, b, c, v) => {
            special::addcmul(&a.to_dyn(), &b.to_dyn(), &c.to_dyn(), *v, out)
        }
        Case::To(a, d) => {
            let x = a.to_dyn();
            match out {
                None => special::to_dtype(&x, *d),
                Some(o) => {
                    let mut o = o.clone();
                    o.try_copy_(&x).map(|_| o)
                }
            }
        }
        Case::LeakyRelu(a, s) => special::leaky_relu(&a.to_dyn(), *s, out),
        Case::Hardtanh(a, lo, hi) => special::hardtanh(&a.to_dyn(), *lo, *hi, out),
    }
}

// ---------------------------------------------------------------------------------------------
// The reference evaluator.

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub values: Vec<Value>,
}

pub fn output_of(d: &DynTensor) -> Output {
    Output {
        dtype: d.dtype(),
        shape: d.shape().to_vec(),
        values: d.to_values(),
    }
}

/// Equal values: floats bit-equal, any NaN equals any NaN when `nan_any`.
pub fn same_value(a: Value, b: Value, nan_any: bool) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => {
            x.to_bits() == y.to_bits() || (nan_any && x.is_nan() && y.is_nan())
        }
        (Value::F64(x), Value::F64(y)) => {
            x.to_bits() == y.to_bits() || (nan_any && x.is_nan() && y.is_nan())
        }
        (a, b) => a == b,
    }
}

/// The first difference between two outputs, if any.
pub fn diff(got: &Output, want: &Output, nan_any: bool) -> Option<String> {
    if got.dtype != want.dtype || got.shape != want.shape || got.values.len() != want.values.len() {
        return Some(format!(
            "got {} {:?} ({} values), want {} {:?} ({} values)",
            got.dtype,
            got.shape,
            got.values.len(),
            want.dtype,
            want.shape,
            want.values.len()
        ));
    }
    for (i, (g, w)) in got.values.iter().zip(&want.values).enumerate() {
        if !same_value(*g, *w, nan_any) {
            return Some(format!("element {i}: got {g:?}, want {w:?}"));
        }
    }
    None
}

/// Runs `$body` with `$T` bound to the element type of `$d`, for the listed dtypes only (the
/// ones the functor implements); any other dtype is an error.
macro_rules! on {
    ($d:expr, [$($v:ident),*], $T:ident => $body:expr) => {
        weft::dispatch_dtypes!($d, [$($v),*], $T => $body, _ => {
            let other = $d;
            return Err(format!("not implemented for {other}"))
        })
    };
    ($d:expr, $group:ident, $T:ident => $body:expr) => {
        weft::dispatch_dtypes!($d, $group, $T => $body, _ => {
            let other = $d;
            return Err(format!("not implemented for {other}"))
        })
    };
}

fn kind(o: &Opnd) -> (DType, OperandKind) {
    match o {
        Opnd::S(s) => (s.dtype(), OperandKind::Scalar),
        Opnd::T(t) if t.shape.is_empty() => (t.dtype, OperandKind::ZeroDim),
        Opnd::T(t) => (t.dtype, OperandKind::Dimensioned),
    }
}

fn dtype_of(o: &Opnd) -> DType {
    kind(o).0
}

fn shape_of(o: &Opnd) -> &[usize] {
    match o {
        Opnd::S(_) => &[],
        Opnd::T(t) => &t.shape,
    }
}

fn result_type(ops: &[&Opnd]) -> DType {
    let mut st = ResultTypeState::new();
    for o in ops {
        let (d, k) = kind(o);
        st = st.update(d, k);
    }
    st.finish().expect("at least one operand")
}

fn broadcast(shapes: &[&[usize]]) -> Result<Vec<usize>, String> {
    let nd = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; nd];
    for s in shapes {
        for (i, &n) in s.iter().enumerate() {
            let o = &mut out[nd - s.len() + i];
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                return Err(format!("shapes {shapes:?} do not broadcast"));
            }
        }
    }
    Ok(out)
}

fn expand(o: &Opnd, shape: &[usize]) -> Vec<Value> {
    match o {
        Opnd::S(s) => vec![s.to_value(); shape.iter().product()],
        Opnd::T(t) => t.expand(shape),
    }
}

fn map1<T: Element, F: Functor<(T,)>>(f: F, x: &[Value]) -> Vec<Value>
where
    F::Output: Element,
{
    x.iter()
        .map(|&v| f.call((T::from_value(v),)).to_value())
        .collect()
}

fn map2<T: Element, F: Functor<(T, T)>>(f: F, a: &[Value], b: &[Value]) -> Vec<Value>
where
    F::Output: Element,
{
    a.iter()
        .zip(b)
        .map(|(&x, &y)| f.call((T::from_value(x), T::from_value(y))).to_value())
        .collect()
}

fn map3<T: Element, F: Functor<(T, T, T)>>(
    f: F,
    a: &[Value],
    b: &[Value],
    c: &[Value],
) -> Vec<Value>
where
    F::Output: Element,
{
    a.iter()
        .zip(b)
        .zip(c)
        .map(|((&x, &y), &z)| {
            f.call((T::from_value(x), T::from_value(y), T::from_value(z)))
                .to_value()
        })
        .collect()
}

fn to_scalar(v: Value) -> Scalar {
    Scalar::from(v)
}

/// c10's overflow check when a scalar meets a dtype (see golden_functors.rs).
fn torch_fits(s: Scalar, d: DType) -> bool {
    let (lo, hi): (f64, f64) = match d {
        DType::Bool => return true,
        DType::F16 => (-65504.0, 65504.0),
        DType::BF16 => (-bf16::MAX.to_f64(), bf16::MAX.to_f64()),
        DType::F32 => (f32::MIN as f64, f32::MAX as f64),
        DType::F64 => return true,
        _ => {
            let (lo, hi) = d.int_range();
            (lo as f64, hi as f64)
        }
    };
    match s {
        Scalar::Bool(_) => true,
        Scalar::Int(_) | Scalar::UInt(_) if d.is_integer() => {
            let (lo, hi) = d.int_range();
            let i = s.as_i128().unwrap();
            let lo = if d == DType::U8 { -hi } else { lo };
            i >= lo && i <= hi
        }
        Scalar::Int(_) | Scalar::UInt(_) => s.to_f64() >= lo && s.to_f64() <= hi,
        Scalar::Float(x) if d.is_integer() => x.is_finite() && x >= lo && x <= hi,
        Scalar::Float(x) => !x.is_finite() || (x >= lo && x <= hi),
    }
}

fn check_fits(s: Scalar, d: DType) -> Result<(), String> {
    if torch_fits(s, d) {
        Ok(())
    } else {
        Err(format!("scalar {s:?} overflows {d}"))
    }
}

/// The reference result of a case (an `Err` where weft must refuse).
pub fn reference(c: &Case) -> Result<Output, String> {
    match c {
        Case::Binary(op, a, b) => ref_binary(*op, a, b),
        Case::Unary(op, a) => ref_unary(*op, a),
        Case::GeluTanh(a) => {
            let f = Gelu {
                approximate: GeluApproximate::Tanh,
            };
            let values = on!(a.dtype, float, T => map1::<T, _>(f, &a.logical()));
            Ok(Output {
                dtype: a.dtype,
                shape: a.shape.clone(),
                values,
            })
        }
        Case::Clamp(x, lo, hi) => ref_clamp(x, lo.as_ref(), hi.as_ref()),
        Case::Where(c, a, b) => ref_where(c, a, b),
        Case::MaskedFill(x, m, v) => ref_masked_fill(x, m, v),
        Case::Lerp(a, b, w) => ref_lerp(a, b, w),
        Case::Addcmul(a, b, c, v) => ref_addcmul(a, b, c, *v),
        Case::To(a, d) => {
            let values = with_dtype!(a.dtype, S => with_dtype!(*d, D =>
                map1::<S, _>(Cast::<D>::new(), &a.logical())));
            Ok(Output {
                dtype: *d,
                shape: a.shape.clone(),
                values,
            })
        }
        Case::LeakyRelu(a, s) => {
            let values = on!(a.dtype, float, T =>
                map1::<T, _>(LeakyRelu { slope: *s }, &a.logical()));
            Ok(Output {
                dtype: a.dtype,
                shape: a.shape.clone(),
                values,
            })
        }
        Case::Hardtanh(a, lo, hi) => {
            let values = on!(a.dtype, numeric, T =>
                map1::<T, _>(Hardtanh { min: lo.to::<T>(), max: hi.to::<T>() }, &a.logical()));
            Ok(Output {
                dtype: a.dtype,
                shape: a.shape.clone(),
                values,
            })
        }
    }
}

fn ref_binary(op: BinaryOp, a: &Opnd, b: &Opnd) -> Result<Output, String> {
    use BinaryOp as B;
    if matches!((a, b), (Opnd::S(_), Opnd::S(_))) {
        return Err("two scalars".into());
    }
    if op.rejects_operand(dtype_of(a)) || op.rejects_operand(dtype_of(b)) {
        return Err(format!("{} refuses bool operands", op.name()));
    }
    let shape = broadcast(&[shape_of(a), shape_of(b)])?;
    let common = result_type(&[a, b]);
    let compute = op
        .compute_dtype(common)
        .ok_or_else(|| format!("{} not implemented for {common}", op.name()))?;
    let av = expand(a, &shape);
    let bv = expand(b, &shape);

    // heaviside does not promote: two tensors of one dtype (PyTorch raises otherwise).
    if op == B::Heaviside
        && (!matches!((a, b), (Opnd::T(_), Opnd::T(_))) || dtype_of(a) != dtype_of(b))
    {
        return Err("heaviside takes two tensors of one dtype".into());
    }
    if matches!(op, B::FloorDivide | B::Remainder | B::Fmod) && compute.is_integer() {
        let zero = with_dtype!(compute, T => bv.iter().any(|&v| T::from_value(v) == T::ZERO));
        if zero || matches!(b, Opnd::S(s) if with_dtype!(compute, T => s.to::<T>() == T::ZERO)) {
            return Err("ZeroDivisionError".into());
        }
    }
    if let (B::Pow, Opnd::S(Scalar::Int(e))) = (op, b)
        && compute.is_integer()
        && *e < 0
    {
        return Err("integers to negative integer powers".into());
    }
    // f16/bf16 mul/div/floor_divide with a CPU scalar second operand (a Python number or a
    // one-element tensor) use its value at f32 precision.
    let b_scalar = match b {
        Opnd::S(s) => Some(s.to::<f32>()),
        Opnd::T(t) if t.numel() == 1 && matches!(a, Opnd::T(_)) => {
            Some(f32::from_value(t.logical()[0]))
        }
        _ => None,
    };
    if compute.is_reduced_float()
        && matches!(op, B::Mul | B::Div | B::FloorDivide)
        && let Some(s) = b_scalar
    {
        let values = on!(compute, [F16, BF16], T => match op {
            B::Mul => map1::<T, _>(MulScalarOpmath { s }, &av),
            B::Div => map1::<T, _>(DivScalarOpmath { s }, &av),
            _ => map1::<T, _>(FloorDivideScalarOpmath { s }, &av),
        });
        return Ok(Output {
            dtype: compute,
            shape,
            values,
        });
    }
    if let (B::Pow, Opnd::S(e)) = (op, b) {
        if !matches!(compute, DType::F32 | DType::F64) {
            check_fits(*e, compute)?;
        }
        let values = on!(compute, numeric, T =>
            map1::<T, _>(PowScalar { exp: e.to::<T>() }, &av));
        return Ok(Output {
            dtype: compute,
            shape,
            values,
        });
    }

    // The functor of each op of weft's table, over the line's dtype set.
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
            match op {$(
                B::$Op => weft::dispatch_dtypes!(compute, $dtypes, T => map2::<T, _>(<weft::functors::$Op>::default(), &av, &bv), _ => unreachable!("compute_dtype checked")),
            )*}
        };
    }
    let values = weft::binary_op_table!(dispatch);
    Ok(Output {
        dtype: op.out_dtype(compute),
        shape,
        values,
    })
}

fn ref_unary(op: UnaryOp, t: &Arg) -> Result<Output, String> {
    use UnaryOp as U;
    let compute = op
        .compute_dtype(t.dtype)
        .ok_or_else(|| format!("{} not implemented for {}", op.name(), t.dtype))?;
    let xv = t.logical();
    // square is pow(x, 2) (bool computes in int64).
    if op == U::Square {
        let values = on!(compute, numeric, T =>
            map1::<T, _>(PowScalar { exp: Scalar::Int(2).to::<T>() }, &xv));
        return Ok(Output {
            dtype: compute,
            shape: t.shape.clone(),
            values,
        });
    }
    // The functor of each op of weft's table, over the line's dtype set.
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
            match op {$(
                U::$Op => weft::dispatch_dtypes!(compute, $dtypes, T => map1::<T, _>(<weft::functors::$Op>::default(), &xv), _ => unreachable!("compute_dtype checked")),
            )*}
        };
    }
    let values = weft::unary_op_table!(dispatch);
    Ok(Output {
        dtype: op.out_dtype(compute),
        shape: t.shape.clone(),
        values,
    })
}

fn ref_clamp(x: &Arg, min: Option<&Opnd>, max: Option<&Opnd>) -> Result<Output, String> {
    if min.is_none() && max.is_none() {
        return Err("clamp needs a bound".into());
    }
    let xo = Opnd::T(x.clone());
    let mut ops: Vec<&Opnd> = vec![&xo];
    ops.extend(min);
    ops.extend(max);
    let compute = result_type(&ops);
    if compute.is_bool() {
        return Err("clamp on bool".into());
    }
    let shape = broadcast(&ops.iter().map(|o| shape_of(o)).collect::<Vec<_>>())?;
    let xv = x.expand(&shape);
    // Each bound as per-element values of the computation dtype (None: no bound).
    let bound = |o: Option<&Opnd>, is_min: bool| -> Result<Vec<Option<Value>>, String> {
        let n = xv.len();
        match o {
            None => Ok(vec![None; n]),
            Some(Opnd::T(t)) => Ok(t.expand(&shape).into_iter().map(Some).collect()),
            Some(Opnd::S(s)) if compute.is_integer() => {
                // PyTorch: a bound beyond the side it clamps towards is refused, one beyond
                // the other side clamps nothing.
                let (lo, hi) = compute.int_range();
                let v = match *s {
                    Scalar::Float(x) => x as i128,
                    s => s.to_value().as_i128().unwrap(),
                };
                if (is_min && v > hi) || (!is_min && v < lo) {
                    return Err("clamp bound outside the range".into());
                }
                let none = if is_min { v < lo } else { v > hi };
                Ok(vec![
                    if none {
                        None
                    } else {
                        Some(Value::UInt(v as u64))
                    };
                    n
                ])
            }
            Some(Opnd::S(s)) => {
                check_fits(*s, compute)?;
                Ok(vec![Some(s.to_value()); n])
            }
        }
    };
    let (lo, hi) = (bound(min, true)?, bound(max, false)?);
    let values = on!(compute, numeric, T => xv
        .iter()
        .zip(lo.iter().zip(&hi))
        .map(|(&x, (l, h))| {
            Clamp::<T>::new(l.map(T::from_value), h.map(T::from_value))
                .call((T::from_value(x),))
                .to_value()
        })
        .collect());
    Ok(Output {
        dtype: compute,
        shape,
        values,
    })
}

fn ref_where(c: &Arg, a: &Opnd, b: &Opnd) -> Result<Output, String> {
    if !matches!(c.dtype, DType::Bool | DType::U8) {
        return Err("where: condition must be bool".into());
    }
    let compute = result_type(&[a, b]);
    let check = if compute.is_reduced_float() {
        DType::F32
    } else {
        compute
    };
    for o in [a, b] {
        if let Opnd::S(s) = o {
            check_fits(*s, check)?;
        }
    }
    let shape = broadcast(&[&c.shape, shape_of(a), shape_of(b)])?;
    let (cv, av, bv) = (c.expand(&shape), expand(a, &shape), expand(b, &shape));
    let values = with_dtype!(compute, T => cv
        .iter()
        .zip(av.iter().zip(&bv))
        .map(|(&c, (&x, &y))| {
            Where.call((bool::from_value(c), T::from_value(x), T::from_value(y))).to_value()
        })
        .collect());
    Ok(Output {
        dtype: compute,
        shape,
        values,
    })
}

fn ref_masked_fill(x: &Arg, mask: &Arg, value: &Opnd) -> Result<Output, String> {
    if mask.dtype != DType::Bool {
        return Err("masked_fill: mask must be bool".into());
    }
    let v = match value {
        Opnd::S(s) => *s,
        Opnd::T(v) if v.shape.is_empty() => to_scalar(v.logical()[0]),
        Opnd::T(_) => return Err("masked_fill: value must be 0-d".into()),
    };
    check_fits(v, x.dtype)?;
    let shape = broadcast(&[&x.shape, &mask.shape])?;
    let (xv, mv) = (x.expand(&shape), mask.expand(&shape));
    let values = with_dtype!(x.dtype, T => {
        let f = MaskedFill { value: v.to::<T>() };
        xv.iter()
            .zip(&mv)
            .map(|(&x, &m)| f.call((T::from_value(x), bool::from_value(m))).to_value())
            .collect()
    });
    Ok(Output {
        dtype: x.dtype,
        shape,
        values,
    })
}

fn ref_lerp(a: &Arg, b: &Arg, w: &Opnd) -> Result<Output, String> {
    if a.dtype != b.dtype || !a.dtype.is_float() {
        return Err("lerp: same float dtype required".into());
    }
    let d = a.dtype;
    match w {
        Opnd::S(s) => {
            let shape = broadcast(&[&a.shape, &b.shape])?;
            let f = LerpScalar { weight: s.to_f64() };
            let values = on!(d, float, T =>
                map2::<T, _>(f, &a.expand(&shape), &b.expand(&shape)));
            Ok(Output {
                dtype: d,
                shape,
                values,
            })
        }
        Opnd::T(w) => {
            if w.dtype != d {
                return Err("lerp: weight dtype".into());
            }
            let shape = broadcast(&[&a.shape, &b.shape, &w.shape])?;
            let values = on!(d, float, T =>
                map3::<T, _>(Lerp, &a.expand(&shape), &b.expand(&shape), &w.expand(&shape)));
            Ok(Output {
                dtype: d,
                shape,
                values,
            })
        }
    }
}

fn ref_addcmul(a: &Arg, b: &Arg, c: &Arg, v: Scalar) -> Result<Output, String> {
    let (oa, ob, oc) = (Opnd::T(a.clone()), Opnd::T(b.clone()), Opnd::T(c.clone()));
    let d = result_type(&[&oa, &ob, &oc]);
    if d.is_bool() || (v.is_float() && !d.is_float()) {
        return Err("addcmul dtype".into());
    }
    let shape = broadcast(&[&a.shape, &b.shape, &c.shape])?;
    let (av, bv, cv) = (a.expand(&shape), b.expand(&shape), c.expand(&shape));
    let v32 = v.to::<f32>();
    let values = match d {
        DType::F16 => map3::<f16, _>(Addcmul { value: v32 }, &av, &bv, &cv),
        DType::BF16 => map3::<bf16, _>(Addcmul { value: v32 }, &av, &bv, &cv),
        DType::F32 => map3::<f32, _>(Addcmul { value: v32 }, &av, &bv, &cv),
        DType::F64 => map3::<f64, _>(
            Addcmul {
                value: v.to::<f64>(),
            },
            &av,
            &bv,
            &cv,
        ),
        _ => on!(d, int, T =>
            map3::<T, _>(Addcmul { value: v.to::<T>() }, &av, &bv, &cv)),
    };
    Ok(Output {
        dtype: d,
        shape,
        values,
    })
}

/// Every byte of the storage under `t` (including elements outside the view).
pub fn storage_bytes(t: &DynTensor) -> Vec<u8> {
    weft::dispatch!(t, x => {
        let s = x.storage();
        // SAFETY: no write to this storage happens while the bytes are copied.
        unsafe {
            std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), s.len() * x.dtype().size()).to_vec()
        }
    })
}

/// Storage element indices of the view's elements.
pub fn view_indices(t: &DynTensor) -> Vec<usize> {
    (0..t.numel())
        .map(|i| t.layout().index_of_linear(i) as usize)
        .collect()
}

/// Converts a value into dtype `d` as a store into a `d` output does.
pub fn convert(v: Value, d: DType) -> Value {
    with_dtype!(d, T => T::from_value(v).to_value())
}

/// A proptest runner with a fixed seed (failures reproduce) that persists nothing.
pub fn runner(cases: u32, seed: u8) -> proptest::test_runner::TestRunner {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// Rayon pools of 1, 2, 3 and 5 threads (results must not depend on the thread count).
pub fn pools() -> Vec<rayon::ThreadPool> {
    [1, 2, 3, 5]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect()
}

/// Cases per property: `WEFT_PROP_CASES` overrides (e.g. a quick run under miri).
pub fn cases(default: u32) -> u32 {
    std::env::var("WEFT_PROP_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
