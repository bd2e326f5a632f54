//! In-place and `_out` forms of the ops: they write exactly the destination view's elements,
//! follow PyTorch's cast rule (the result dtype must cast safely into the destination),
//! refuse partial overlap and outputs that overlap themselves, fail integer division by zero
//! as a whole with the destination untouched, and bool outputs hold only 0/1.

mod ops_common;

use ops_common::*;
use weft::functors::{BinaryOp, UnaryOp};
use weft::promotion::can_cast;
use weft::{DType, DynTensor, Error, Scalar, Tensor, Value};

/// Non-contiguous layouts of a [3, 4] view: transposed, stepped with negative steps and an
/// offset, and a row-stepped slice.
fn strided_views(rng: &mut Rng, d: DType) -> Vec<Arg> {
    let store = |rng: &mut Rng, n: usize| (0..n).map(|_| rand_value(rng, d)).collect::<Vec<_>>();
    vec![
        // transposed: a [4, 3] row-major block seen as [3, 4]
        Arg {
            dtype: d,
            shape: vec![3, 4],
            strides: vec![1, 3],
            offset: 2,
            storage: store(rng, 16),
        },
        // x[::-2, ::3] of a [5, 12] block (negative row step)
        Arg {
            dtype: d,
            shape: vec![3, 4],
            strides: vec![-24, 3],
            offset: 49,
            storage: store(rng, 60),
        },
        // x[::2, 1:5] of a [6, 7] block
        Arg {
            dtype: d,
            shape: vec![3, 4],
            strides: vec![14, 1],
            offset: 1,
            storage: store(rng, 42),
        },
    ]
}

/// Every op with `this` ([3, 4]) as its first operand, the others random (dtype `od`).
fn op_cases(rng: &mut Rng, this: &Arg, od: DType) -> Vec<Case> {
    let other = |rng: &mut Rng, d: DType, s: &[usize]| rand_arg(rng, d, s);
    let mut v = Vec::new();
    for &op in BinaryOp::ALL {
        v.push(Case::Binary(
            op,
            Opnd::T(this.clone()),
            Opnd::T(other(rng, od, &[1, 4])),
        ));
        v.push(Case::Binary(
            op,
            Opnd::T(this.clone()),
            Opnd::S(rand_scalar(rng)),
        ));
    }
    for &op in UnaryOp::ALL {
        v.push(Case::Unary(op, this.clone()));
    }
    v.push(Case::GeluTanh(this.clone()));
    v.push(Case::Clamp(
        this.clone(),
        Some(Opnd::S(Scalar::Int(-1))),
        Some(Opnd::T(other(rng, od, &[3, 1]))),
    ));
    v.push(Case::Clamp(
        this.clone(),
        None,
        Some(Opnd::S(Scalar::Float(0.5))),
    ));
    v.push(Case::MaskedFill(
        this.clone(),
        other(rng, DType::Bool, &[4]),
        Opnd::S(Scalar::Int(7)),
    ));
    v.push(Case::Lerp(
        this.clone(),
        other(rng, this.dtype, &[3, 4]),
        Opnd::S(Scalar::Float(0.25)),
    ));
    v.push(Case::Addcmul(
        this.clone(),
        other(rng, od, &[4]),
        other(rng, this.dtype, &[3, 1]),
        Scalar::Int(2),
    ));
    v.push(Case::LeakyRelu(this.clone(), 0.1));
    v.push(Case::Hardtanh(
        this.clone(),
        Scalar::Int(-2),
        Scalar::Int(3),
    ));
    v
}

/// `dst` after a successful write of `want` (the out-of-place result): the view holds `want`
/// converted to its dtype and every other storage byte is as before.
fn check_written(dst: &DynTensor, before: &[u8], want: &Output, what: &str) {
    let after = storage_bytes(dst);
    let size = dst.dtype().size();
    let idx = view_indices(dst);
    let mut in_view = vec![false; before.len() / size];
    for &i in &idx {
        in_view[i] = true;
    }
    for (e, &inside) in in_view.iter().enumerate() {
        if !inside {
            assert_eq!(
                before[e * size..(e + 1) * size],
                after[e * size..(e + 1) * size],
                "{what}: storage element {e} outside the view was written"
            );
        }
    }
    let got = dst.to_values();
    let want: Vec<Value> = want
        .values
        .iter()
        .map(|&v| convert(v, dst.dtype()))
        .collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            same_value(*g, *w, true),
            "{what}: element {i}: got {g:?}, want {w:?}"
        );
    }
    if dst.dtype() == DType::Bool {
        assert!(after.iter().all(|&b| b <= 1), "{what}: bool byte not 0/1");
    }
}

/// Runs `write` against `dst`; checks it against the out-of-place result `oop` and the cast
/// rule. Returns whether the write succeeded.
fn check_write(
    dst: &DynTensor,
    oop: &Result<DynTensor, Error>,
    write: impl FnOnce() -> Result<DynTensor, Error>,
    what: &str,
) -> bool {
    let before = storage_bytes(dst);
    let r = write();
    match oop {
        Err(e) => {
            assert!(
                r.is_err(),
                "{what}: out of place refused ({e}), the write did not"
            );
        }
        Ok(want) if !can_cast(want.dtype(), dst.dtype()) => match &r {
            Err(Error::UnsafeCast { .. }) => {}
            other => panic!(
                "{what}: {} into {} must be UnsafeCast, got {:?}",
                want.dtype(),
                dst.dtype(),
                other.as_ref().map(|t| t.dtype())
            ),
        },
        Ok(want) => {
            if let Err(e) = &r {
                panic!("{what}: refused: {e}");
            }
            check_written(dst, &before, &output_of(want), what);
        }
    }
    if r.is_err() {
        assert_eq!(
            storage_bytes(dst),
            before,
            "{what}: a failed op changed the destination"
        );
    }
    r.is_ok()
}

#[test]
fn inplace_on_strided_views_writes_exactly_the_view() {
    let mut rng = Rng::new(21);
    let (mut ok, mut refused) = (0, 0);
    for &d in &DType::ALL {
        for this in strided_views(&mut rng, d) {
            let od = rand_dtype(&mut rng);
            for case in op_cases(&mut rng, &this, od) {
                let oop = run_weft(&case, None);
                let t = this.to_dyn();
                let what = format!("in place {case:?}");
                if check_write(&t, &oop, || run_inplace(&case, &t), &what) {
                    ok += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    println!("in place: {ok} written, {refused} refused");
    assert!(ok > refused);
}

#[test]
fn out_into_strided_views_writes_exactly_the_view() {
    let mut rng = Rng::new(22);
    let (mut ok, mut refused) = (0, 0);
    for &d in &DType::ALL {
        for this in strided_views(&mut rng, d) {
            let od = rand_dtype(&mut rng);
            for case in op_cases(&mut rng, &this, od) {
                let oop = run_weft(&case, None);
                let outd = rand_dtype(&mut rng);
                for out_arg in strided_views(&mut rng, outd) {
                    let out = out_arg.to_dyn();
                    let what = format!("out {} {case:?}", out.dtype());
                    if check_write(&out, &oop, || run_weft(&case, Some(&out)), &what) {
                        ok += 1;
                    } else {
                        refused += 1;
                    }
                }
            }
        }
    }
    println!("out: {ok} written, {refused} refused");
    // Refusals (float-only ops on integer inputs, unsafe casts into random out dtypes) are
    // many by design; the writes must still be a large share of the cases.
    assert!(
        ok * 5 > (ok + refused) * 2,
        "too few writes: {ok} of {}",
        ok + refused
    );
}

#[test]
fn copy_into_strided_views_converts_every_dtype_pair() {
    let mut rng = Rng::new(23);
    for &s in &DType::ALL {
        for &d in &DType::ALL {
            let src = rand_arg(&mut rng, s, &[4]); // broadcasts over the rows
            for dst in strided_views(&mut rng, d) {
                let mut t = dst.to_dyn();
                let before = storage_bytes(&t);
                t.try_copy_(&src.to_dyn()).unwrap();
                let want = reference(&Case::To(src.clone(), d)).unwrap();
                let want = Output {
                    dtype: d,
                    shape: vec![3, 4],
                    values: (0..12).map(|i| want.values[i % 4]).collect(),
                };
                check_written(&t, &before, &want, &format!("copy_ {s} -> {d}"));
            }
        }
    }
}

#[test]
fn destinations_do_not_broadcast() {
    let small = f32_base(4);
    let big = f32_base(12).view([3, 4]);
    let mut d = small.clone();
    assert!(matches!(d.try_add_(&big), Err(Error::OutputShape { .. })));
    assert!(matches!(d.try_copy_(&big), Err(Error::OutputShape { .. })));
    assert!(matches!(
        big.try_neg_out(&small),
        Err(Error::OutputShape { .. })
    ));
    let mask = DynTensor::zeros(DType::Bool, &[3, 4]).unwrap();
    assert!(matches!(
        d.try_masked_fill_(&mask, 1.0),
        Err(Error::OutputShape { .. })
    ));
    assert_eq!(small.to_values(), f32_base(4).to_values());
}

#[test]
fn public_inplace_and_out_methods() {
    let base = DynTensor::from(
        Tensor::<f32>::from_vec((0..12).map(|i| i as f32).collect(), &[3, 4]).unwrap(),
    );
    let mut view = base.t(); // [4, 3], shares base's storage
    view.add_(1.5);
    view.mul_(&DynTensor::from(
        Tensor::<i64>::from_vec(vec![1, 2, 3], &[3]).unwrap(),
    ));
    assert_eq!(
        base.to_values()[..4],
        [
            Value::F32(1.5),
            Value::F32(2.5),
            Value::F32(3.5),
            Value::F32(4.5)
        ]
    );
    assert_eq!(base.to_values()[4], Value::F32(2.0 * 5.5));
    let mut v2 = view.share();
    v2.try_clamp_(None, Some(Scalar::Float(10.0).into()))
        .unwrap();
    assert!(
        base.to_values()
            .iter()
            .all(|v| matches!(v, Value::F32(x) if *x <= 10.0))
    );
    let out = DynTensor::zeros(DType::F64, &[3, 4]).unwrap().t();
    view.neg_out(&out);
    assert_eq!(out.to_values()[0], Value::F64(-1.5));
    view.lt_out(0.0, &out);
    assert_eq!(out.to_values()[0], Value::F64(0.0));
}

// ---------------------------------------------------------------------------------------------
// Aliasing and overlap.

fn f32_base(n: usize) -> DynTensor {
    DynTensor::from(
        Tensor::<f32>::from_vec((0..n).map(|i| i as f32 + 0.5).collect(), &[n]).unwrap(),
    )
}

#[test]
fn out_may_alias_an_input_exactly() {
    let base = f32_base(24);
    let a = base.view([4, 6]).slice(1, None, None, 2); // [4, 3], strided
    let b = f32_base(3);
    let want = a.add(&b);
    a.add_out(&b, &a);
    assert_eq!(a.to_values(), want.to_values());
    // The second operand aliasing the output too.
    let want = a.mul(&a);
    a.mul_out(&a, &a);
    assert_eq!(a.to_values(), want.to_values());
    // Unary and special ops.
    let want = a.neg();
    a.neg_out(&a);
    assert_eq!(a.to_values(), want.to_values());
    let want = a
        .try_clamp(Some(Scalar::Float(-20.0).into()), None)
        .unwrap();
    a.try_clamp_out(Some(Scalar::Float(-20.0).into()), None, &a)
        .unwrap();
    assert_eq!(a.to_values(), want.to_values());
}

/// Small contiguous operands (the iterator's single-run set-up, `iter::single`) on one storage:
/// the identical view runs in place, disjoint views of one storage read what they held, and a
/// shifted view is the overlap error of the general set-up.
#[test]
fn flat_operands_on_one_storage() {
    let base = f32_base(16);
    let (lo, hi) = (base.narrow(0, 0, 8), base.narrow(0, 8, 8));
    let want_lo = lo.add(&hi).to_values();
    let want_hi = hi.to_values();
    lo.add_out(&hi, &lo);
    assert_eq!(
        lo.to_values(),
        want_lo,
        "out = first input, second input disjoint"
    );
    assert_eq!(hi.to_values(), want_hi, "the disjoint input is unchanged");
    let want = hi.mul(&hi).to_values();
    hi.mul_out(&hi, &hi);
    assert_eq!(hi.to_values(), want, "all three operands one view");
    let want = lo.exp().to_values();
    lo.exp_out(&lo);
    assert_eq!(lo.to_values(), want, "unary in place");
    let want = lo.add(&hi).to_values();
    hi.add_out(&lo, &lo);
    assert_eq!(lo.to_values(), want, "out = second input");
    let before = storage_bytes(&base);
    let shifted = base.narrow(0, 4, 8);
    assert_overlap_error(lo.try_add_out(&hi, &shifted), &base, &before, "out shifted");
    // Mixed dtypes and a given output of another dtype through the same set-up.
    let i = DynTensor::from(Tensor::<i64>::from_vec((0..8).collect(), &[8]).unwrap());
    let out = DynTensor::zeros(DType::F64, &[8]).unwrap();
    i.add_out(&lo, &out);
    let want: Vec<Value> = (0..8)
        .zip(lo.to_values())
        .map(|(k, v)| match v {
            Value::F32(v) => Value::F64((k as f32 + v) as f64),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(out.to_values(), want, "i64 + f32 into f64");
    let bad = DynTensor::zeros(DType::I32, &[8]).unwrap();
    assert!(
        matches!(i.try_add_out(&lo, &bad), Err(Error::UnsafeCast { .. })),
        "f32 result into i32 is refused"
    );
}

fn assert_overlap_error(r: Result<(), Error>, dst: &DynTensor, before: &[u8], what: &str) {
    match r {
        Err(Error::MemoryOverlap { .. }) => {}
        other => panic!("{what}: want MemoryOverlap, got {other:?}"),
    }
    assert_eq!(storage_bytes(dst), before, "{what}: destination changed");
}

#[test]
fn partial_overlap_between_out_and_input_is_an_error() {
    let base = f32_base(10);
    let a = base.narrow(0, 0, 8);
    let out = base.narrow(0, 1, 8);
    let before = storage_bytes(&base);
    assert_overlap_error(a.try_add_out(1.0, &out), &base, &before, "add shifted");
    assert_overlap_error(a.try_exp_out(&out), &base, &before, "exp shifted");
    assert_overlap_error(
        f32_base(8).try_add_out(&a, &out),
        &base,
        &before,
        "second input shifted",
    );
    let mut dst = base.narrow(0, 1, 8);
    assert_overlap_error(dst.try_copy_(&a), &base, &before, "copy_ shifted");
}

/// An output holding an input's own elements in another order (transposed, reversed) is
/// computed as if the input were copied first (PyTorch has no negative strides and calls the
/// transposed case a full overlap, computing it in place wrongly).
#[test]
fn full_overlap_in_another_order_reads_the_input_first() {
    let fresh = || f32_base(9).view([3, 3]);
    let sq = fresh();
    let want = sq.add(1.0).t().to_values();
    sq.try_add_out(1.0, &sq.t()).unwrap();
    assert_eq!(sq.to_values(), want, "out = input.t()");
    let sq = fresh();
    let want = sq
        .clamp(Some(Scalar::Float(3.0).into()), None)
        .slice(0, None, None, -1)
        .to_values();
    sq.try_clamp_out(
        Some(Scalar::Float(3.0).into()),
        None,
        &sq.slice(0, None, None, -1),
    )
    .unwrap();
    assert_eq!(sq.to_values(), want, "clamp out = reversed input");
    let v = f32_base(6);
    let mut r = v.slice(0, None, None, -1);
    r.copy_(&v);
    assert_eq!(
        v.to_values(),
        (0..6)
            .rev()
            .map(|i| Value::F32(i as f32 + 0.5))
            .collect::<Vec<_>>()
    );
}

#[test]
fn output_with_internal_overlap_is_an_error() {
    let base = f32_base(4);
    let out = base.view([1, 4]).expand([3, 4]);
    let a = f32_base(12).view([3, 4]);
    let before = storage_bytes(&base);
    assert_overlap_error(
        a.try_add_out(1.0, &out),
        &base,
        &before,
        "add into expanded",
    );
    assert_overlap_error(a.try_sin_out(&out), &base, &before, "sin into expanded");
    let mut e = out.share();
    assert_overlap_error(e.try_add_(1.0), &base, &before, "add_ on expanded");
    assert_overlap_error(e.try_copy_(&a), &base, &before, "copy_ into expanded");
}

// ---------------------------------------------------------------------------------------------
// The in-place cast rule.

#[test]
fn inplace_cast_rule() {
    let mut i = DynTensor::from(Tensor::<i64>::from_vec(vec![1, 2, 3], &[3]).unwrap());
    let before = storage_bytes(&i);
    assert!(matches!(
        i.try_add_(2.5),
        Err(Error::UnsafeCast {
            from: DType::F32,
            to: DType::I64,
            ..
        })
    ));
    assert!(matches!(i.try_div_(2), Err(Error::UnsafeCast { .. })));
    assert!(matches!(i.try_exp_(), Err(Error::UnsafeCast { .. })));
    let f = DynTensor::from(Tensor::<f64>::from_vec(vec![0.5; 3], &[3]).unwrap());
    assert!(matches!(i.try_mul_(&f), Err(Error::UnsafeCast { .. })));
    assert_eq!(storage_bytes(&i), before);
    // Same category: fine (i64 += i8 tensor, i64 += bool).
    i.add_(&DynTensor::from(
        Tensor::<i8>::from_vec(vec![-1, 1, 100], &[3]).unwrap(),
    ));
    i.add_(true);
    assert_eq!(
        i.to_values(),
        [Value::Int(1), Value::Int(4), Value::Int(104)]
    );

    let mut x = DynTensor::from(Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0], &[3]).unwrap());
    x.add_(&DynTensor::from(
        Tensor::<i64>::from_vec(vec![10, 20, 30], &[3]).unwrap(),
    ));
    assert_eq!(
        x.to_values(),
        [Value::F32(11.0), Value::F32(22.0), Value::F32(33.0)]
    );
    // An f64 tensor into f32 self: same category, cast down.
    x.add_(&DynTensor::from(
        Tensor::<f64>::from_vec(vec![0.1; 3], &[3]).unwrap(),
    ));
    assert_eq!(x.to_values()[0], Value::F32((11.0f32 as f64 + 0.1) as f32));

    let mut b = DynTensor::from(Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap());
    assert!(matches!(b.try_add_(1), Err(Error::UnsafeCast { .. })));

    // Comparisons into a float output give 0/1.
    let out = DynTensor::full(DType::F32, &[3], Scalar::Float(7.0)).unwrap();
    x.gt_out(20.0, &out);
    assert_eq!(
        out.to_values(),
        [Value::F32(0.0), Value::F32(1.0), Value::F32(1.0)]
    );
    let out = DynTensor::full(DType::I16, &[3], Scalar::Int(7)).unwrap();
    x.eq_out(&x, &out);
    assert_eq!(out.to_values(), [Value::Int(1); 3]);
    // In place: x.lt_(20) writes 1.0/0.0 into x.
    x.lt_(20.0);
    assert_eq!(
        x.to_values(),
        [Value::F32(1.0), Value::F32(0.0), Value::F32(0.0)]
    );
}

// ---------------------------------------------------------------------------------------------
// Integer division by zero.

fn int_tensor(d: DType, vals: &[i64], shape: &[usize]) -> DynTensor {
    weft::with_dtype!(d, T => DynTensor::from(Tensor::<T>::from_vec(
        vals.iter().map(|&v| weft::convert_value::<i64, T>(v)).collect(), shape).unwrap()))
}

#[test]
fn integer_division_by_zero_fails_whole_and_leaves_destination() {
    let ops = [BinaryOp::FloorDivide, BinaryOp::Remainder, BinaryOp::Fmod];
    let ints = [DType::U8, DType::I8, DType::I16, DType::I32, DType::I64];
    // Big enough to run in parallel chunks; the zero in the very last element.
    let n = 300_000usize;
    for &d in &ints {
        let vals: Vec<i64> = (0..n as i64).map(|i| i % 97 + 1).collect();
        let mut zero_last = vals.clone();
        zero_last[n - 1] = 0;
        let mut zero_mid = vals.clone();
        zero_mid[n / 3] = 0;
        for &op in &ops {
            let what = format!("{} {d}", op.name());
            for divisor in [&zero_last, &zero_mid] {
                let b = int_tensor(d, divisor, &[n]);
                // In place.
                let a = int_tensor(d, &vals, &[n]);
                let before = storage_bytes(&a);
                let r = weft::ops::binary::binary(op, (&a).into(), (&b).into(), Some(&a));
                assert!(
                    matches!(r, Err(Error::ZeroDivision { .. })),
                    "{what}: {:?}",
                    r.err()
                );
                assert_eq!(storage_bytes(&a), before, "{what}: in place changed self");
                // Out into a strided view of a bigger storage (every other element).
                let big = int_tensor(d, &vec![5; 2 * n], &[2 * n]);
                let out = big.slice(0, None, None, 2);
                let before = storage_bytes(&big);
                let r = weft::ops::binary::binary(op, (&a).into(), (&b).into(), Some(&out));
                assert!(matches!(r, Err(Error::ZeroDivision { .. })), "{what} out");
                assert_eq!(storage_bytes(&big), before, "{what}: out changed");
                // Out of place, and a transposed divisor.
                assert!(weft::ops::binary::binary(op, (&a).into(), (&b).into(), None).is_err());
                let bt = b.view([1000, 300]).t();
                let at = a.view([300, 1000]);
                assert!(weft::ops::binary::binary(op, (&at).into(), (&bt).into(), None).is_err());
            }
            // A scalar zero, a scalar on the left with a zero divisor tensor, a stride-0 zero.
            let a = int_tensor(d, &vals[..12], &[3, 4]);
            let before = storage_bytes(&a);
            assert!(
                weft::ops::binary::binary(op, (&a).into(), Scalar::Int(0).into(), Some(&a))
                    .is_err()
            );
            let zb = int_tensor(d, &[3, 0, 1, 2], &[4]);
            assert!(
                weft::ops::binary::binary(op, Scalar::Int(7).into(), (&zb).into(), None).is_err()
            );
            let z = int_tensor(d, &[0], &[1]).expand([3, 4]);
            assert!(weft::ops::binary::binary(op, (&a).into(), (&z).into(), Some(&a)).is_err());
            assert_eq!(
                storage_bytes(&a),
                before,
                "{what}: small cases changed self"
            );
            // A zero dividend is fine.
            let zeros = int_tensor(d, &[0, 0], &[2]);
            let ok = weft::ops::binary::binary(op, (&zeros).into(), Scalar::Int(3).into(), None)
                .unwrap();
            assert_eq!(ok.to_values(), [Value::Int(0), Value::Int(0)]);
        }
    }
    // A divisor that is zero only in the computation dtype: i32[n] // i64 0-d 2^32 computes
    // in i32, where 2^32 is 0 (PyTorch raises too).
    let a = int_tensor(DType::I32, &[5, 6], &[2]);
    let z = int_tensor(DType::I64, &[1 << 32], &[]);
    assert!(matches!(
        a.try_floor_divide(&z),
        Err(Error::ZeroDivision { .. })
    ));
    // Floats divide by zero without error.
    let f = DynTensor::from(Tensor::<f32>::from_vec(vec![1.0, -1.0], &[2]).unwrap());
    let r = f.floor_divide(0.0);
    assert_eq!(
        r.to_values(),
        [Value::F32(f32::INFINITY), Value::F32(f32::NEG_INFINITY)]
    );
}

// ---------------------------------------------------------------------------------------------
// Bool outputs hold only 0/1.

fn assert_bool_bytes(t: &DynTensor, what: &str) {
    assert_eq!(t.dtype(), DType::Bool, "{what}");
    let bytes = storage_bytes(t);
    assert!(
        bytes.iter().all(|&b| b <= 1),
        "{what}: bool storage holds {:?}",
        bytes.iter().find(|&&b| b > 1)
    );
}

#[test]
fn bool_outputs_hold_only_zero_and_one() {
    let mut rng = Rng::new(31);
    for &d in &DType::ALL {
        for _ in 0..4 {
            let a = rand_arg(&mut rng, d, &[5, 7]).to_dyn();
            let bd = rand_dtype(&mut rng);
            let b = rand_arg(&mut rng, bd, &[7]).to_dyn();
            for &op in BinaryOp::ALL {
                if let Ok(r) = weft::ops::binary::binary(op, (&a).into(), (&b).into(), None)
                    && r.dtype() == DType::Bool
                {
                    assert_bool_bytes(&r, op.name());
                }
            }
            for &op in UnaryOp::ALL {
                if let Ok(r) = weft::ops::unary::unary(op, &a, None)
                    && r.dtype() == DType::Bool
                {
                    assert_bool_bytes(&r, op.name());
                }
            }
            let r = a.try_to(DType::Bool).unwrap();
            assert_bool_bytes(&r, &format!("to bool from {d}"));
            // copy_ into a strided bool view.
            let mut dst = DynTensor::zeros(DType::Bool, &[7, 5]).unwrap().t();
            dst.copy_(&a);
            assert_bool_bytes(&dst, &format!("copy_ from {d}"));
            // Comparisons into a strided bool out.
            let out = DynTensor::zeros(DType::Bool, &[7, 5]).unwrap().t();
            if a.try_ge_out(&b, &out).is_ok() {
                assert_bool_bytes(&out, "ge_out");
            }
        }
    }
    // Edge inputs of conversions to bool: NaN, -0.0, 0.5, 256 (non-zero in i64, 0 in u8? no:
    // 256 as i64 is non-zero, hence true).
    let f = DynTensor::from(
        Tensor::<f32>::from_vec(vec![f32::NAN, -0.0, 0.5, 1e-40, -3.0], &[5]).unwrap(),
    );
    let r = f.try_to(DType::Bool).unwrap();
    assert_bool_bytes(&r, "to bool edges");
    let want: Vec<Value> = [true, false, true, true, true]
        .into_iter()
        .map(Value::Bool)
        .collect();
    assert_eq!(r.to_values(), want);
    let i = int_tensor(DType::I64, &[256, 0, -1], &[3]);
    let r = i.try_to(DType::Bool).unwrap();
    assert_bool_bytes(&r, "i64 to bool");
    assert_eq!(
        r.to_values(),
        [Value::Bool(true), Value::Bool(false), Value::Bool(true)]
    );
    // Bool arithmetic and selection.
    let t =
        DynTensor::from(Tensor::<bool>::from_vec(vec![true, true, false, false], &[4]).unwrap());
    let u =
        DynTensor::from(Tensor::<bool>::from_vec(vec![true, false, true, false], &[4]).unwrap());
    for r in [
        t.add(&u),
        t.mul(&u),
        t.maximum(&u),
        t.bitwise_xor(&u),
        t.add(true),
        t.try_where(&u, true).unwrap(),
        t.masked_fill(&u, 5),
        t.masked_fill(&u, 0.25),
        t.sign(),
        !&t,
    ] {
        assert_bool_bytes(&r, "bool op");
    }
    assert_eq!(
        t.add(&u).to_values(),
        [true, true, true, false].map(Value::Bool)
    );
}

/// The divisor check reads each distinct divisor element once, in its own memory order: it
/// must see every element the op uses (broadcast rows and columns, reversed and transposed
/// views, an expanded zero) and none it does not (the skipped elements of a step-2 view).
#[test]
fn divisor_check_sees_exactly_the_elements_the_op_uses() {
    let op = BinaryOp::FloorDivide;
    for &d in &[DType::U8, DType::I16, DType::I32, DType::I64] {
        let a = int_tensor(d, &(1..=24).collect::<Vec<_>>(), &[4, 6]);
        let div = |b: &DynTensor| weft::ops::binary::binary(op, (&a).into(), b.into(), None);
        // Zeros only where a step-2 view skips: no error, and the quotient is right.
        let b = int_tensor(d, &[2, 0, 3, 0, 1, 0, 5, 0, 7, 0, 1, 0], &[12]);
        let q = div(&b.slice(0, None, None, 2)).unwrap();
        let want: Vec<i64> = (1..=24)
            .zip([2, 3, 1, 5, 7, 1].iter().cycle())
            .map(|(x, &y)| x / y)
            .collect();
        assert_eq!(
            q.to_values(),
            int_tensor(d, &want, &[4, 6]).to_values(),
            "{d}"
        );
        // The same storage with the zeros visited: an error.
        assert!(
            div(&b.slice(0, Some(1), None, 2)).is_err(),
            "{d} odd elements"
        );
        // A zero in the last element of a broadcast row, in a broadcast column, reversed,
        // transposed (the divisor [6, 4] seen as [4, 6]).
        let row = int_tensor(d, &[1, 2, 3, 4, 5, 0], &[6]);
        assert!(div(&row).is_err(), "{d} row");
        let col = int_tensor(d, &[1, 2, 3, 0], &[4, 1]);
        assert!(div(&col).is_err(), "{d} column");
        let rev = int_tensor(d, &[0, 2, 3, 4, 5, 6], &[6]).slice(0, None, None, -1);
        assert!(div(&rev).is_err(), "{d} reversed");
        let mut t: Vec<i64> = vec![1; 24];
        t[23] = 0;
        let tr = int_tensor(d, &t, &[6, 4]).t();
        assert!(div(&tr).is_err(), "{d} transposed");
        t[23] = 3;
        let q = div(&int_tensor(d, &t, &[6, 4]).t()).unwrap();
        assert_eq!(
            q.to_values()[23],
            int_tensor(d, &[8], &[1]).to_values()[0],
            "{d}"
        );
        // An expanded one-element divisor, zero and not.
        let z = int_tensor(d, &[0], &[1, 1]).expand([4, 6]);
        assert!(div(&z).is_err(), "{d} expanded zero");
        let one = int_tensor(d, &[1], &[1, 1]).expand([4, 6]);
        assert_eq!(
            div(&one).unwrap().to_values(),
            a.to_values(),
            "{d} expanded one"
        );
    }
}
