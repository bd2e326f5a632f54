//! Every case of the golden `ops.json` evaluated by a naive reference evaluator built directly
//! on the functors: broadcasting by index math, promotion with `ResultTypeState`, conversion
//! with `Element::from_value` / `Scalar::to`, one functor call per element. This validates the
//! functors' semantics independently of the iterator and kernels.

#[path = "golden_harness/mod.rs"]
mod golden;

use golden::{Case, Evaluator, Operand, Output};
use half::{bf16, f16};
use weft::functors::*;
use weft::promotion::{OperandKind, ResultTypeState};
use weft::{DType, Element, Scalar, Value, with_dtype};

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

fn kind(o: &Operand) -> (DType, OperandKind) {
    match o {
        Operand::Scalar(s) => (s.dtype(), OperandKind::Scalar),
        Operand::Tensor(t) if t.shape.is_empty() => (t.dtype, OperandKind::ZeroDim),
        Operand::Tensor(t) => (t.dtype, OperandKind::Dimensioned),
    }
}

fn dtype_of(o: &Operand) -> DType {
    kind(o).0
}

fn shape_of(o: &Operand) -> &[usize] {
    match o {
        Operand::Scalar(_) => &[],
        Operand::Tensor(t) => &t.shape,
    }
}

fn result_type(ops: &[&Operand]) -> DType {
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

/// The operand's values broadcast to `shape`, row-major, as exact `Value`s of its own dtype.
fn expand(o: &Operand, shape: &[usize]) -> Vec<Value> {
    let n: usize = shape.iter().product();
    match o {
        Operand::Scalar(s) => vec![s.to_value(); n],
        Operand::Tensor(t) => {
            let nd = shape.len();
            let lead = nd - t.shape.len();
            let mut out = Vec::with_capacity(n);
            let mut idx = vec![0usize; nd];
            for _ in 0..n {
                let mut pos = t.offset;
                for d in 0..t.shape.len() {
                    if t.shape[d] != 1 {
                        pos += idx[lead + d] * t.strides[d];
                    }
                }
                out.push(t.storage[pos]);
                for d in (0..nd).rev() {
                    idx[d] += 1;
                    if idx[d] < shape[d] {
                        break;
                    }
                    idx[d] = 0;
                }
            }
            out
        }
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

fn to_scalar(v: Value) -> Scalar {
    Scalar::from(v)
}

/// The functor-level reference evaluator.
struct Reference;

impl Evaluator for Reference {
    fn eval(&self, case: &Case) -> Result<Output, String> {
        let a = &case.args;
        match case.op.as_str() {
            "gelu" => unary_gelu(&a[0], case.kwargs.gelu_tanh),
            "clamp" => clamp(&a[0], case.kwargs.clamp_min, case.kwargs.clamp_max),
            "where" => where_(&a[0], &a[1], &a[2]),
            "masked_fill" => masked_fill(&a[0], &a[1], &a[2]),
            "to" => to(&a[0], case.kwargs.to.ok_or("to without dtype")?),
            op => {
                if let Some(u) = UnaryOp::from_name(op) {
                    unary(u, &a[0])
                } else if let Some(b) = BinaryOp::from_name(op) {
                    binary(b, &a[0], &a[1])
                } else {
                    Err(format!("unknown op {op}"))
                }
            }
        }
    }
}

fn binary(op: BinaryOp, a: &Operand, b: &Operand) -> Result<Output, String> {
    use BinaryOp as B;
    let scalar_any = matches!(a, Operand::Scalar(_)) || matches!(b, Operand::Scalar(_));
    if scalar_any
        && matches!(
            op,
            B::Maximum | B::Minimum | B::LogicalAnd | B::LogicalOr | B::LogicalXor | B::Heaviside
        )
    {
        return Err("signature: no Python scalar operand".into());
    }
    // heaviside does not promote: two tensors of one dtype.
    if op == B::Heaviside && dtype_of(a) != dtype_of(b) {
        return Err("heaviside of two dtypes".into());
    }
    if op.rejects_operand(dtype_of(a)) || op.rejects_operand(dtype_of(b)) {
        return Err(format!("{} refuses bool operands", op.name()));
    }
    let common = result_type(&[a, b]);
    let compute = op
        .compute_dtype(common)
        .ok_or_else(|| format!("{} not implemented for {common}", op.name()))?;
    let shape = broadcast(&[shape_of(a), shape_of(b)])?;
    let av = expand(a, &shape);
    let bv = expand(b, &shape);

    if matches!(op, B::FloorDivide | B::Remainder | B::Fmod) && compute.is_integer() {
        let zero = with_dtype!(compute, T => bv.iter().any(|&v| T::from_value(v) == T::ZERO));
        if zero {
            return Err("ZeroDivisionError".into());
        }
    }
    if let (B::Pow, Operand::Tensor(t), Operand::Scalar(Scalar::Int(e))) = (op, a, b)
        && !t.dtype.is_float()
        && *e < 0
    {
        return Err("integers to negative integer powers".into());
    }

    // PyTorch: f16/bf16 mul/div/floor_divide with a CPU scalar second operand (a Python
    // number or a one-element tensor) use its value at f32 precision.
    let b_scalar = match b {
        Operand::Scalar(s) => Some(s.to::<f32>()),
        Operand::Tensor(t) if t.numel() == 1 => Some(f32::from_value(t.logical()[0])),
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
    if let (B::Pow, Operand::Scalar(e)) = (op, b) {
        // The exponent is converted with a check for f16/bf16 and integers only.
        if !matches!(compute, DType::F32 | DType::F64) {
            check_fits(*e, compute)?;
        }
        let values = match compute {
            DType::F16 => map1::<f16, _>(PowScalar { exp: e.to::<f16>() }, &av),
            DType::BF16 => map1::<bf16, _>(
                PowScalar {
                    exp: e.to::<bf16>(),
                },
                &av,
            ),
            DType::F32 => map1::<f32, _>(PowScalar { exp: e.to::<f32>() }, &av),
            DType::F64 => map1::<f64, _>(PowScalar { exp: e.to::<f64>() }, &av),
            _ => on!(compute, int, T =>
                map1::<T, _>(PowScalar { exp: e.to::<T>() }, &av)),
        };
        return Ok(Output {
            dtype: compute,
            shape,
            values,
        });
    }

    // The functor of each line of weft's op table, over the line's dtype set.
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
            match op {$(
                B::$Op => weft::dispatch_dtypes!(compute, $dtypes, T => map2::<T, _>(<$Op>::default(), &av, &bv), _ => return Err(format!("not implemented for {compute}"))),
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

fn unary(op: UnaryOp, x: &Operand) -> Result<Output, String> {
    use UnaryOp as U;
    let Operand::Tensor(t) = x else {
        return Err("unary op on a scalar".into());
    };
    let compute = op
        .compute_dtype(t.dtype)
        .ok_or_else(|| format!("{} not implemented for {}", op.name(), t.dtype))?;
    let xv = t.logical();
    // The functor of each line of weft's op table, over the line's dtype set.
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
            match op {$(
                U::$Op => weft::dispatch_dtypes!(compute, $dtypes, T => map1::<T, _>(<$Op>::default(), &xv), _ => return Err(format!("not implemented for {compute}"))),
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

fn unary_gelu(x: &Operand, tanh: bool) -> Result<Output, String> {
    let Operand::Tensor(t) = x else {
        return Err("gelu on a scalar".into());
    };
    let f = Gelu {
        approximate: if tanh {
            GeluApproximate::Tanh
        } else {
            GeluApproximate::None
        },
    };
    let xv = t.logical();
    let values = on!(t.dtype, float, T => map1::<T, _>(f, &xv));
    Ok(Output {
        dtype: t.dtype,
        shape: t.shape.clone(),
        values,
    })
}

/// c10's `overflows<T>(scalar)` check (what `Scalar::to<T>()` raises on): integers must lie in
/// the type's range, except that unsigned types also take negatives down to -max (they wrap);
/// floats into integers must lie in range (no truncation first), NaN/inf refused; into float
/// types only finite values beyond the largest finite value overflow.
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

fn clamp(x: &Operand, min: Option<Scalar>, max: Option<Scalar>) -> Result<Output, String> {
    if min.is_none() && max.is_none() {
        return Err("signature: clamp needs a bound".into());
    }
    let Operand::Tensor(t) = x else {
        return Err("clamp on a scalar".into());
    };
    let mut ops: Vec<Operand> = vec![x.clone()];
    ops.extend(min.map(Operand::Scalar));
    ops.extend(max.map(Operand::Scalar));
    let compute = result_type(&ops.iter().collect::<Vec<_>>());
    let xv = t.logical();
    let values = if compute.is_integer() {
        // PyTorch: a bound beyond the side it clamps towards is refused (`u8.clamp(min=300)`,
        // `u8.clamp(max=-2)`); one beyond the other side is a no-op (`u8.clamp(min=-1)`,
        // `i8.clamp(max=1000)`). Bounds are bool or int here (a float bound promotes).
        let (lo, hi) = compute.int_range();
        let as_int = |s: Scalar| match s {
            Scalar::Float(x) => x as i128,
            s => s.to_value().as_i128().unwrap(),
        };
        let min = min.map(as_int);
        let max = max.map(as_int);
        if min.is_some_and(|m| m > hi) || max.is_some_and(|m| m < lo) {
            return Err("clamp bound outside the representable range".into());
        }
        let min = min.filter(|&m| m >= lo);
        let max = max.filter(|&m| m <= hi);
        on!(compute, int, T => {
            let f = Clamp::<T>::new(
                // In the dtype's range: the low 64 bits carry it.
                min.map(|m| T::from_value(Value::UInt(m as u64))),
                max.map(|m| T::from_value(Value::UInt(m as u64))),
            );
            map1::<T, _>(f, &xv)
        })
    } else {
        for s in min.iter().chain(max.iter()) {
            check_fits(*s, compute)?;
        }
        on!(compute, float, T => {
            let f = Clamp::<T>::new(min.map(|s| s.to::<T>()), max.map(|s| s.to::<T>()));
            map1::<T, _>(f, &xv)
        })
    };
    Ok(Output {
        dtype: compute,
        shape: t.shape.clone(),
        values,
    })
}

fn where_(c: &Operand, a: &Operand, b: &Operand) -> Result<Output, String> {
    let cd = dtype_of(c);
    if !matches!(cd, DType::Bool | DType::U8) {
        return Err(format!("where: condition must be bool, got {cd}"));
    }
    let compute = result_type(&[a, b]);
    // PyTorch checks scalar operands against the computation type, f32 for f16/bf16
    // (`where(c, f16, 1e10)` is inf, `where(c, int8, 1000)` and `where(c, 1e300, int32)` raise).
    let check = if compute.is_reduced_float() {
        DType::F32
    } else {
        compute
    };
    for o in [a, b] {
        if let Operand::Scalar(s) = o {
            check_fits(*s, check)?;
        }
    }
    let shape = broadcast(&[shape_of(c), shape_of(a), shape_of(b)])?;
    let (cv, av, bv) = (expand(c, &shape), expand(a, &shape), expand(b, &shape));
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

fn masked_fill(x: &Operand, mask: &Operand, value: &Operand) -> Result<Output, String> {
    let Operand::Tensor(t) = x else {
        return Err("masked_fill on a scalar".into());
    };
    if dtype_of(mask) != DType::Bool {
        return Err("masked_fill: mask must be bool".into());
    }
    let v = match value {
        Operand::Scalar(s) => *s,
        Operand::Tensor(v) if v.shape.is_empty() => to_scalar(v.logical()[0]),
        Operand::Tensor(_) => return Err("masked_fill: value must be 0-d".into()),
    };
    check_fits(v, t.dtype)?;
    let shape = broadcast(&[&t.shape, shape_of(mask)])?;
    let (xv, mv) = (expand(x, &shape), expand(mask, &shape));
    let values = with_dtype!(t.dtype, T => {
        let f = MaskedFill { value: v.to::<T>() };
        xv.iter()
            .zip(&mv)
            .map(|(&x, &m)| f.call((T::from_value(x), bool::from_value(m))).to_value())
            .collect()
    });
    Ok(Output {
        dtype: t.dtype,
        shape,
        values,
    })
}

fn to(x: &Operand, d: DType) -> Result<Output, String> {
    let Operand::Tensor(t) = x else {
        return Err("to on a scalar".into());
    };
    let xv = t.logical();
    let values =
        with_dtype!(t.dtype, S => with_dtype!(d, D => map1::<S, _>(Cast::<D>::new(), &xv)));
    Ok(Output {
        dtype: d,
        shape: t.shape.clone(),
        values,
    })
}

#[test]
fn golden_ops_reference_evaluator() {
    let g = golden::load_ops();
    let s = golden::run(&g, &Reference);
    assert_eq!(
        s.passed + s.failed + s.skipped,
        g.cases.len() + g.unparsable.len()
    );
    s.assert_ok();
}

#[test]
fn golden_ops_more_reference_evaluator() {
    golden::run_file(&golden::golden_dir(), "ops_more.json", &Reference).assert_ok();
}
