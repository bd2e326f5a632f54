//! Reductions (issue 14) against a naive reference, on random layouts and dtypes, and their
//! determinism: bit-identical results for 1, 2, 3 and 5 threads, also where the parallel
//! paths (chunked full reductions, many outputs, the outer loop shape) are taken.

mod ops_common;

use ops_common::*;
use proptest::prelude::{TestCaseError, any};
use weft::{DType, Dims, DynTensor, Element, ReduceArgs, ReduceOp, Tensor, Value};

fn f(v: Value) -> f64 {
    v.to_f64()
}

fn int(v: Value) -> i64 {
    v.as_i128().expect("an integer value") as i64
}

/// Random valid args for `op` over an input of `nd` dims.
fn rand_args(rng: &mut Rng, op: ReduceOp, nd: usize) -> ReduceArgs {
    let one = |rng: &mut Rng| {
        let n = nd.max(1) as isize;
        rng.below(2 * n as usize) as isize - n
    };
    let dims = match op {
        ReduceOp::MaxDim | ReduceOp::MinDim | ReduceOp::Softmax | ReduceOp::LogSoftmax => {
            Dims::One(one(rng))
        }
        ReduceOp::Argmax | ReduceOp::Argmin => {
            if rng.one_in(3) {
                Dims::All
            } else {
                Dims::One(one(rng))
            }
        }
        _ => match rng.below(3) {
            0 => Dims::All,
            1 => Dims::One(one(rng)),
            _ => {
                let mut l: Vec<isize> = (0..nd as isize).filter(|_| rng.one_in(2)).collect();
                if l.is_empty() && nd > 0 {
                    l.push(0);
                }
                Dims::List(l)
            }
        },
    };
    let mut a = ReduceArgs::new(dims)
        .keepdim(rng.one_in(2))
        .correction(rng.pick(&[0.0, 1.0]));
    if op.takes_dtype() && rng.one_in(4) {
        a = a.dtype(rng.pick(&[DType::F32, DType::F64, DType::I64, DType::F16]));
    }
    a
}

/// The reduced dims (logical order) of `args` for a tensor of `nd` dims.
fn reduced(args: &ReduceArgs, nd: usize) -> Vec<bool> {
    let wrap = |d: isize| d.rem_euclid(nd.max(1) as isize) as usize;
    match &args.dims {
        Dims::All => vec![true; nd],
        Dims::One(d) => (0..nd).map(|k| k == wrap(*d)).collect(),
        Dims::List(l) if l.is_empty() => vec![true; nd],
        Dims::List(l) => (0..nd).map(|k| l.iter().any(|&d| wrap(d) == k)).collect(),
    }
}

/// The input's logical values grouped by output (row-major over the kept dims), each group in
/// row-major order over the reduced dims.
fn groups(shape: &[usize], vals: &[Value], red: &[bool]) -> Vec<Vec<Value>> {
    let kept: usize = shape
        .iter()
        .zip(red)
        .filter(|(_, r)| !**r)
        .map(|(n, _)| n)
        .product();
    let mut g = vec![Vec::new(); kept];
    for (lin, &v) in vals.iter().enumerate() {
        let (mut rest, mut o, mut scale) = (lin, 0, 1);
        for d in (0..shape.len()).rev() {
            let c = rest % shape[d];
            rest /= shape[d];
            if !red[d] {
                o += c * scale;
                scale *= shape[d];
            }
        }
        g[o].push(v);
    }
    g
}

fn is_nan(v: Value) -> bool {
    f(v).is_nan()
}

/// Index of the first extreme value (NaN counts as extreme).
fn arg_extreme(g: &[Value], max: bool) -> usize {
    if let Some(i) = g.iter().position(|&v| is_nan(v)) {
        return i;
    }
    let mut best = 0;
    for (i, &v) in g.iter().enumerate() {
        let (a, b) = (f(v), f(g[best]));
        // Integers beyond 2^53 (i64, u64) compare exactly through the integer path.
        let better = match (v.as_i128(), g[best].as_i128()) {
            (Some(x), Some(y)) => {
                if max {
                    x > y
                } else {
                    x < y
                }
            }
            _ => {
                if max {
                    a > b
                } else {
                    a < b
                }
            }
        };
        if better {
            best = i;
        }
    }
    best
}

/// Checks weft's result for one case against the reference; `Err` describes a mismatch.
fn check(
    op: ReduceOp,
    x: &Arg,
    args: &ReduceArgs,
    got: &Result<Vec<DynTensor>, weft::Error>,
) -> Result<(), String> {
    use ReduceOp::*;
    let nd = x.shape.len();
    let red = reduced(args, nd);
    let count: usize = x
        .shape
        .iter()
        .zip(&red)
        .filter(|(_, r)| **r)
        .map(|(n, _)| n)
        .product();
    let read = args.dtype.unwrap_or(x.dtype);
    let float_only = matches!(op, Mean | Var | Std | Softmax | LogSoftmax);
    let expect_err = (float_only && !read.is_float() && !(op.is_elementwise() && x.numel() == 0))
        || (op.needs_elements() && count == 0)
        || (matches!(op, Argmax | Argmin) && read == DType::Bool);
    let got = match (got, expect_err) {
        (Err(_), true) => return Ok(()),
        (Err(e), false) => return Err(format!("unexpected error {e}")),
        (Ok(_), true) => return Err("expected an error".into()),
        (Ok(g), false) => g,
    };
    // The input as read: cast to `dtype` when given (float -> float sums read the input as is,
    // within the tolerance below).
    let vals: Vec<Value> = x
        .logical()
        .into_iter()
        .map(|v| match args.dtype {
            Some(d) if !(x.dtype.is_float() && d.is_float()) => {
                weft::with_dtype!(d, T => T::from_value(v).to_value())
            }
            _ => v,
        })
        .collect();
    let got_vals = got[0].to_values();
    if op.is_elementwise() {
        if x.numel() == 0 {
            return Ok(());
        }
        // Softmax over one dim: per element.
        let d = red.iter().position(|&r| r).unwrap_or(0);
        let inner: usize = x.shape.get(d + 1..).map_or(1, |s| s.iter().product());
        let n = x.shape.get(d).copied().unwrap_or(1);
        let eps = eps_of(got[0].dtype());
        let od = got[0].dtype();
        let close = |g: f64, w: f64, tol: f64| close_raw(g, round_to(od, w), tol);
        for (lin, gv) in got_vals.iter().enumerate() {
            let base = lin - (lin / inner % n) * inner;
            let row: Vec<f64> = (0..n).map(|k| f(vals[base + k * inner])).collect();
            let m = row.iter().cloned().fold(f64::NEG_INFINITY, |a, b| {
                if b > a || b.is_nan() { b } else { a }
            });
            let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
            let xv = f(vals[lin]);
            let want = if op == Softmax {
                (xv - m).exp() / s
            } else {
                xv - m - s.ln()
            };
            close(
                f(*gv),
                want,
                8.0 * eps * (1.0 + want.abs()) + 4.0 * eps * m.abs().min(1e3),
            )
            .map_err(|e| format!("[{lin}] {e}"))?;
        }
        return Ok(());
    }
    let gs = groups(&x.shape, &vals, &red);
    if got_vals.len() != gs.len() {
        return Err(format!("{} outputs, expected {}", got_vals.len(), gs.len()));
    }
    let out_dtype = got[0].dtype();
    let eps = eps_of(out_dtype);
    let close = |g: f64, w: f64, tol: f64| close_raw(g, round_to(out_dtype, w), tol);
    for (o, g) in gs.iter().enumerate() {
        let gv = got_vals[o];
        let sum_abs: f64 = g.iter().map(|&v| f(v).abs()).sum();
        let r: Result<(), String> = match op {
            Sum | Prod if !read.is_float() => {
                let w = g.iter().fold(if op == Prod { 1i64 } else { 0 }, |a, &v| {
                    if op == Prod {
                        a.wrapping_mul(int(v))
                    } else {
                        a.wrapping_add(int(v))
                    }
                });
                if int(gv) == w {
                    Ok(())
                } else {
                    Err(format!("got {gv:?} expected {w}"))
                }
            }
            Sum => close(
                f(gv),
                g.iter().map(|&v| f(v)).sum(),
                4.0 * eps * (sum_abs + 1.0),
            ),
            // A partial product beyond the accumulation type's range makes the result depend
            // on the combination order (inf times a later 0 is NaN): nothing to compare.
            Prod if g
                .iter()
                .map(|&v| f(v).abs())
                .filter(|&a| a != 0.0)
                .product::<f64>()
                > max_finite(out_dtype) =>
            {
                Ok(())
            }
            Prod => {
                let w: f64 = g.iter().map(|&v| f(v)).product();
                close(
                    f(gv),
                    w,
                    8.0 * eps * (w.abs() + 1e-30) * (g.len() as f64 + 1.0),
                )
            }
            Mean => {
                let w = g.iter().map(|&v| f(v)).sum::<f64>() / g.len() as f64;
                close(
                    f(gv),
                    w,
                    4.0 * eps * (sum_abs / g.len().max(1) as f64 + 1.0),
                )
            }
            Amax | Amin | MaxDim | MinDim => {
                let w = g[arg_extreme(g, matches!(op, Amax | MaxDim))];
                if (is_nan(w) && is_nan(gv)) || f(w) == f(gv) && int_eq(w, gv) {
                    Ok(())
                } else {
                    Err(format!("got {gv:?} expected {w:?}"))
                }
            }
            Argmax | Argmin => {
                let w = arg_extreme(g, op == Argmax) as i64;
                if int(gv) == w {
                    Ok(())
                } else {
                    Err(format!("got {gv:?} expected {w}"))
                }
            }
            Any | All => {
                let t = |v: Value| f(v) != 0.0 || is_nan(v);
                let w = if op == Any {
                    g.iter().any(|&v| t(v))
                } else {
                    g.iter().all(|&v| t(v))
                };
                if (f(gv) != 0.0) == w {
                    Ok(())
                } else {
                    Err(format!("got {gv:?} expected {w}"))
                }
            }
            Var | Std => {
                let n = g.len() as f64;
                let m = g.iter().map(|&v| f(v)).sum::<f64>() / n;
                let ss: f64 = g.iter().map(|&v| (f(v) - m).powi(2)).sum();
                let d = n - args.correction;
                let v = if d > 0.0 { ss / d } else { f64::NAN };
                let w = if op == Std { v.sqrt() } else { v };
                close(f(gv), w, 16.0 * eps * (w.abs() + 1e-300))
            }
            Logsumexp => {
                let m = g.iter().map(|&v| f(v)).fold(f64::NEG_INFINITY, |a, b| {
                    if b > a || b.is_nan() { b } else { a }
                });
                let sh = if m.is_finite() { m } else { 0.0 };
                let w = g.iter().map(|&v| (f(v) - sh).exp()).sum::<f64>().ln() + sh;
                close(f(gv), w, 8.0 * eps * (w.abs() + 1.0))
            }
            Softmax | LogSoftmax => unreachable!(),
        };
        r.map_err(|e| format!("output {o}: {e}"))?;
        if matches!(op, MaxDim | MinDim) {
            let w = arg_extreme(g, op == MaxDim) as i64;
            let gi = int(got[1].to_values()[o]);
            if gi != w {
                return Err(format!("output {o}: index {gi} expected {w}"));
            }
        }
    }
    Ok(())
}

fn int_eq(a: Value, b: Value) -> bool {
    match (a.as_i128(), b.as_i128()) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// The largest finite value of a float dtype (of f32, the accumulation type, for f16/bf16).
fn max_finite(d: DType) -> f64 {
    match d {
        DType::F64 => f64::MAX,
        _ => f32::MAX as f64,
    }
}

fn eps_of(d: DType) -> f64 {
    match d {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 => 2f64.powi(-23),
        _ => 2f64.powi(-52),
    }
}

/// NaN matches NaN, infinities match exactly, otherwise within `tol` (values are rounded to the
/// result dtype, hence the relative part of every tolerance).
fn close_raw(got: f64, want: f64, tol: f64) -> Result<(), String> {
    let ok = if got.is_nan() || want.is_nan() {
        got.is_nan() && want.is_nan()
    } else if want.is_infinite() || got.is_infinite() {
        got == want || (got - want).abs() <= tol
    } else {
        (got - want).abs() <= tol
    };
    if ok {
        Ok(())
    } else {
        Err(format!("got {got} expected {want} (tol {tol:e})"))
    }
}

#[test]
fn reductions_equal_a_naive_reference_on_random_layouts() {
    let mut r = runner(cases(3000), 21);
    r.run(&any::<u64>(), |seed| {
        let mut rng = Rng::new(seed);
        let op = rng.pick(ReduceOp::ALL);
        let shape = rand_shape(&mut rng);
        let dtype = rand_dtype(&mut rng);
        let x = rand_arg(&mut rng, dtype, &shape);
        let args = rand_args(&mut rng, op, shape.len());
        let got = weft::reduce::reduce(op, &x.to_dyn(), &args);
        check(op, &x, &args, &got).map_err(|e| {
            TestCaseError::fail(format!(
                "{} of {} {:?} strides {:?} {:?}: {e}",
                op.name(),
                x.dtype,
                x.shape,
                x.strides,
                args
            ))
        })
    })
    .unwrap();
}

/// Shapes large enough for every parallel path: full reductions cut into many chunks, many
/// outputs, the outer loop shape with several column blocks.
#[test]
fn reductions_are_bit_identical_for_any_thread_count() {
    let pools = pools();
    let shapes: [&[usize]; 5] = [
        &[70001],
        &[3, 40000],
        &[40000, 3],
        &[300, 700],
        &[9, 97, 101],
    ];
    let mut r = runner(cases(60), 22);
    r.run(&any::<u64>(), |seed| {
        let mut rng = Rng::new(seed);
        let op = rng.pick(ReduceOp::ALL);
        let shape = rng.pick(&shapes);
        let dtype = rng.pick(&[DType::F32, DType::F32, DType::F16, DType::F64, DType::I32]);
        let x = rand_arg(&mut rng, dtype, shape).to_dyn();
        let args = rand_args(&mut rng, op, shape.len());
        let bits = |pool: &rayon::ThreadPool| -> Result<Vec<Vec<u64>>, String> {
            let r = pool
                .install(|| weft::reduce::reduce(op, &x, &args))
                .map_err(|e| e.to_string())?;
            Ok(r.iter()
                .map(|t| {
                    t.to_values()
                        .into_iter()
                        .map(|v| match v {
                            Value::F32(x) => x.to_bits() as u64,
                            Value::F64(x) => x.to_bits(),
                            Value::Int(i) => i as u64,
                            Value::UInt(u) => u,
                            Value::Bool(b) => b as u64,
                        })
                        .collect()
                })
                .collect())
        };
        let first = bits(&pools[0]);
        for p in &pools[1..] {
            if bits(p) != first {
                return Err(TestCaseError::fail(format!(
                    "{} of {dtype} {shape:?} {args:?}: results differ with {} threads",
                    op.name(),
                    p.current_num_threads()
                )));
            }
        }
        Ok(())
    })
    .unwrap();
}

#[test]
fn typed_reductions_have_compile_time_result_types() {
    let x = Tensor::<i32>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let s: Tensor<i64> = x.sum(1, false);
    assert_eq!(s.to_vec(), vec![6, 15]);
    let m: Tensor<i32> = x.amax((), false);
    assert_eq!(m.item().unwrap(), 6);
    let (v, i): (Tensor<i32>, Tensor<i64>) = x.max_dim(0, true);
    assert_eq!(
        (v.shape(), v.to_vec(), i.to_vec()),
        (&[1usize, 3][..], vec![4, 5, 6], vec![1, 1, 1])
    );
    let l: Tensor<f32> = x.logsumexp(1, false);
    assert!((l.to_vec()[0] - 3.407_606).abs() < 1e-5);
    let mean: Tensor<f64> = x.try_mean_as::<f64>((), false).unwrap();
    assert_eq!(mean.item().unwrap(), 3.5);
    let u = Tensor::<u8>::from_vec(vec![0, 3], &[2]).unwrap();
    let a: Tensor<u8> = u.any((), false);
    assert_eq!(a.item().unwrap(), 1);
    let f = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let sm = f.softmax(1);
    let row: f32 = sm.to_vec()[..2].iter().sum();
    assert!((row - 1.0).abs() < 1e-6);
    assert_eq!(f.var((), 1.0, false).item().unwrap(), 5.0 / 3.0);
}

#[test]
fn bad_arguments_are_errors_and_out_is_untouched() {
    let x = DynTensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    assert!(matches!(
        x.try_sum(2, false),
        Err(weft::Error::IndexOutOfRange { .. })
    ));
    assert!(x.try_sum([0, -2], false).is_err(), "a repeated dim");
    assert!(
        DynTensor::zeros(DType::F32, &[2, 0])
            .unwrap()
            .try_amax(1, false)
            .is_err()
    );
    assert!(
        DynTensor::zeros(DType::I32, &[2])
            .unwrap()
            .try_mean((), false)
            .is_err()
    );
    assert!(
        DynTensor::zeros(DType::Bool, &[2])
            .unwrap()
            .try_argmax(None, false)
            .is_err()
    );
    let mut out = DynTensor::full(DType::F64, &[2], weft::Scalar::Float(7.0)).unwrap();
    assert!(
        x.try_sum_out(1, false, &mut out).is_err(),
        "f64 out for an f32 sum"
    );
    assert_eq!(out.to_values(), vec![Value::F64(7.0); 2]);
    let mut out = DynTensor::zeros(DType::F32, &[2]).unwrap();
    x.sum_out(1, false, &mut out);
    assert_eq!(out.to_values(), vec![Value::F32(3.0), Value::F32(7.0)]);
}

#[test]
fn the_empty_reductions_give_their_identities() {
    let e = DynTensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert_eq!(e.sum(0, false).to_values(), vec![Value::F32(0.0); 3]);
    assert_eq!(e.prod(0, false).to_values(), vec![Value::F32(1.0); 3]);
    assert!(f(e.mean((), false).to_values()[0]).is_nan());
    assert_eq!(
        e.logsumexp(0, false).to_values(),
        vec![Value::F32(f32::NEG_INFINITY); 3]
    );
    assert_eq!(e.all((), false).to_values(), vec![Value::Bool(true)]);
    assert_eq!(e.amax(1, false).shape(), &[0]);
}

/// `v` rounded to the float dtype `d` (overflowing to inf as the result does).
fn round_to(d: DType, v: f64) -> f64 {
    weft::with_dtype!(d, T => f(T::from_value(Value::F64(v)).to_value()))
}
