//! Property tests of the ops layer (fixed seeds): random broadcastable shapes, random layouts
//! per operand (contiguous, permuted, stepped incl. negative steps, stride 0, offsets),
//! random dtypes mixed across operands, random ops over the whole `DynTensor` op set, random
//! thread counts. The result must equal a naive per-element reference evaluator (see
//! `ops_common`), the same op on contiguous copies of the operands must give bit-identical
//! results (every fast path equals the strided path), and results must not depend on the
//! thread count.

mod ops_common;

use ops_common::*;
use proptest::prelude::{TestCaseError, any};
use rayon::ThreadPool;
use weft::functors::{BinaryOp, UnaryOp};
use weft::{DType, Scalar};

/// Checks one case: weft == reference (NaN payloads aside), and weft on contiguous copies of
/// the operands == weft on the random layouts, bit for bit.
fn check_case(case: &Case, pool: &ThreadPool) -> Result<(), String> {
    let got = pool.install(|| run_weft(case, None));
    let want = reference(case);
    match (&got, &want) {
        (Err(_), Err(_)) => return Ok(()),
        (Ok(g), Err(e)) => {
            return Err(format!(
                "weft gave {} {:?} but the reference refused: {e}",
                g.dtype(),
                g.shape()
            ));
        }
        (Err(e), Ok(_)) => return Err(format!("weft refused: {e}")),
        (Ok(g), Ok(w)) => {
            if let Some(d) = diff(&output_of(g), w, true) {
                return Err(format!("vs reference: {d}"));
            }
        }
    }
    let contiguous = map_args(case, &|a: &Arg| a.contiguous());
    let c = pool
        .install(|| run_weft(&contiguous, None))
        .map_err(|e| format!("contiguous copy refused: {e}"))?;
    if let Some(d) = diff(&output_of(&c), &output_of(got.as_ref().unwrap()), false) {
        return Err(format!("contiguous copy vs strided: {d}"));
    }
    Ok(())
}

#[test]
fn ops_equal_reference_on_random_layouts() {
    let pools = pools();
    let mut r = runner(cases(10000), 7);
    let counts = std::cell::Cell::new((0usize, 0usize));
    r.run(&(any::<u64>(), 0..pools.len()), |(seed, p)| {
        let mut rng = Rng::new(seed);
        let full = rand_shape(&mut rng);
        let case = rand_case(&mut rng, &full);
        let ok = reference(&case).is_ok();
        let (a, b) = counts.get();
        counts.set((a + ok as usize, b + 1));
        check_case(&case, &pools[p])
            .map_err(|e| TestCaseError::fail(format!("seed {seed}: {e}\ncase: {case:?}")))
    })
    .unwrap();
    let (ok, all) = counts.get();
    println!("random ops: {all} cases, {ok} with values, the rest refused by both");
    // The generator must mostly produce computable cases, or the test checks little.
    assert!(ok * 2 > all, "only {ok} of {all} cases computed a value");
}

/// Every binary op over every dtype pair on fixed non-trivial layouts: a systematic sweep the
/// random test samples only sparsely.
#[test]
fn every_binary_op_every_dtype_pair() {
    let pool = &pools()[0];
    let mut rng = Rng::new(11);
    let mut n = 0;
    for &op in BinaryOp::ALL {
        for &da in &DType::ALL {
            for &db in &DType::ALL {
                let a = rand_arg(&mut rng, da, &[3, 4]);
                let b = rand_arg(&mut rng, db, &[1, 4]);
                for case in [
                    Case::Binary(op, Opnd::T(a.clone()), Opnd::T(b.clone())),
                    Case::Binary(op, Opnd::T(a.clone()), Opnd::S(rand_scalar(&mut rng))),
                    Case::Binary(op, Opnd::S(rand_scalar(&mut rng)), Opnd::T(b.clone())),
                ] {
                    check_case(&case, pool).unwrap_or_else(|e| panic!("{e}\ncase: {case:?}"));
                    n += 1;
                }
            }
        }
    }
    for &op in UnaryOp::ALL {
        for &d in &DType::ALL {
            let a = rand_arg(&mut rng, d, &[2, 3, 4]);
            let case = Case::Unary(op, a);
            check_case(&case, pool).unwrap_or_else(|e| panic!("{e}\ncase: {case:?}"));
            n += 1;
        }
    }
    println!("sweep: {n} cases");
}

/// Big operands (past the parallel grain) over random layouts: bit-identical results for 1,
/// 2, 3 and 5 threads, and equal to the reference.
#[test]
fn results_do_not_depend_on_thread_count() {
    let pools = pools();
    let mut r = runner(cases(24), 3);
    r.run(&any::<u64>(), |seed| {
        let mut rng = Rng::new(seed);
        // 2-d shapes of 70k-140k elements: past the grain of the cheapest ops (65536).
        let rows = 200 + rng.below(200);
        let full = vec![rows, 70_000 / rows + rng.below(300)];
        let dt = rng.pick(&[DType::F32, DType::I32, DType::F16, DType::U8, DType::F64]);
        let big = |rng: &mut Rng, d: DType| {
            let s = operand_shape(rng, &full);
            rand_arg(rng, d, &s)
        };
        let case = match rng.below(6) {
            0 => Case::Binary(
                rng.pick(&[
                    BinaryOp::Add,
                    BinaryOp::Mul,
                    BinaryOp::Lt,
                    BinaryOp::Maximum,
                ]),
                Opnd::T(big(&mut rng, dt)),
                {
                    let d = rand_dtype(&mut rng);
                    Opnd::T(big(&mut rng, d))
                },
            ),
            1 => Case::Binary(
                BinaryOp::Sub,
                Opnd::T(big(&mut rng, dt)),
                Opnd::S(Scalar::Float(0.3)),
            ),
            2 => Case::Unary(
                rng.pick(&[UnaryOp::Exp, UnaryOp::Neg, UnaryOp::IsNan, UnaryOp::Sigmoid]),
                big(&mut rng, dt),
            ),
            3 => Case::Where(
                big(&mut rng, DType::Bool),
                Opnd::T(big(&mut rng, dt)),
                Opnd::S(Scalar::Int(1)),
            ),
            4 => Case::To(big(&mut rng, dt), rand_dtype(&mut rng)),
            _ => Case::Addcmul(
                big(&mut rng, DType::F32),
                big(&mut rng, dt),
                big(&mut rng, DType::F32),
                Scalar::Float(0.5),
            ),
        };
        let outs: Vec<_> = pools
            .iter()
            .map(|p| p.install(|| run_weft(&case, None)))
            .collect();
        let want = reference(&case);
        for (i, o) in outs.iter().enumerate() {
            match (o, &want) {
                (Err(_), Err(_)) => {}
                (Ok(g), Ok(w)) => {
                    if let Some(d) = diff(&output_of(g), w, true) {
                        return Err(TestCaseError::fail(format!("seed {seed} pool {i}: {d}")));
                    }
                    let first = output_of(outs[0].as_ref().unwrap());
                    if let Some(d) = diff(&output_of(g), &first, false) {
                        return Err(TestCaseError::fail(format!(
                            "seed {seed}: pool {i} differs from 1 thread: {d}"
                        )));
                    }
                }
                _ => {
                    return Err(TestCaseError::fail(format!(
                        "seed {seed} pool {i}: weft {:?} vs reference {:?}",
                        o.as_ref().map(|t| t.dtype()),
                        want.as_ref().map(|w| w.dtype)
                    )));
                }
            }
        }
        Ok(())
    })
    .unwrap();
}
