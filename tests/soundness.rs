//! Soundness: the harmful programs of each class (issue 11) now return an error or the right
//! answer. Sized to run under Miri as well (threads included):
//!
//! ```sh
//! cargo +nightly miri test --test soundness
//! ```

use proptest::prelude::*;
use weft::storage::Storage;
use weft::{DType, DynTensor, Error, Layout, Tensor};

fn f(v: &[f32], shape: &[usize]) -> Tensor<f32> {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

// ------------------------------------------------------------- 1. races through shared storage

/// One thread writes a storage in place while another reads it through another handle: every
/// read is either refused (a borrow conflict) or sees a consistent state, never a torn one.
#[test]
fn concurrent_write_and_read_is_refused_or_consistent() {
    let x = Tensor::<f32>::zeros(&[16]);
    let reader = x.share();
    let mut writer = x.share();
    let rounds = if cfg!(miri) { 4 } else { 200 };
    std::thread::scope(|s| {
        s.spawn(move || {
            for _ in 0..rounds {
                match writer.try_add_(1.0) {
                    Ok(()) | Err(Error::BorrowConflict { .. }) => {}
                    Err(e) => panic!("unexpected error {e}"),
                }
            }
        });
        s.spawn(move || {
            for _ in 0..rounds {
                match reader.try_to_vec() {
                    Ok(v) => assert!(v.iter().all(|&e| e == v[0]), "torn read {v:?}"),
                    Err(e) => assert!(matches!(e, Error::BorrowConflict { write: false, .. })),
                }
                match reader.try_mul(2.0) {
                    Ok(t) => {
                        let v = t.to_vec();
                        assert!(v.iter().all(|&e| e == v[0]), "torn read {v:?}");
                    }
                    Err(e) => assert!(matches!(e, Error::BorrowConflict { .. })),
                }
            }
        });
    });
}

/// `_out` through a shared reference (`&DynTensor`) from two threads into one storage.
#[test]
fn two_threads_writing_one_output_never_race() {
    let out = DynTensor::zeros(DType::F32, &[8]).unwrap();
    let a = DynTensor::from(Tensor::<f32>::ones(&[8]));
    let rounds = if cfg!(miri) { 3 } else { 200 };
    std::thread::scope(|s| {
        for k in 0..2 {
            let (out, a) = (&out, &a);
            s.spawn(move || {
                for _ in 0..rounds {
                    match a.try_mul_out(k as f64 + 1.0, out) {
                        Ok(()) | Err(Error::BorrowConflict { write: true, .. }) => {}
                        Err(e) => panic!("unexpected error {e}"),
                    }
                }
            });
        }
    });
    let v = out.as_typed::<f32>().unwrap().to_vec();
    assert!(
        v.iter().all(|&e| e == v[0]) && (v[0] == 1.0 || v[0] == 2.0),
        "{v:?}"
    );
}

/// Views and shared handles read from many threads at once: shared borrows coexist.
#[test]
fn concurrent_readers_all_succeed() {
    let x = f(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            let v = x.t();
            s.spawn(move || {
                for _ in 0..3 {
                    assert_eq!((&v + 1.0).to_vec(), vec![2.0, 4.0, 3.0, 5.0]);
                    assert_eq!(v.get(&[0, 1]).unwrap(), 3.0);
                }
            });
        }
    });
}

#[test]
fn borrow_conflict_leaves_no_borrow_behind() {
    // A failed build (conflict on the second storage) must release the first one.
    let a = Tensor::<f32>::ones(&[4]);
    let b = Tensor::<f32>::ones(&[4]);
    let out = DynTensor::zeros(DType::F32, &[4]).unwrap();
    let ad = DynTensor::from(a.share());
    let bd = DynTensor::from(b.share());
    ad.try_add_out(&bd, &out).unwrap();
    ad.try_add_out(&bd, &out).unwrap();
    assert_eq!(a.to_vec(), vec![1.0; 4]);
    assert_eq!(out.as_typed::<f32>().unwrap().to_vec(), vec![2.0; 4]);
}

// ------------------------------------------------------------- 7. clone copies

#[test]
fn clone_is_a_deep_copy_and_share_is_a_handle() {
    let a = f(&[1.0, 2.0, 3.0], &[3]);
    let mut b = a.clone();
    b.add_(1.0);
    assert_eq!(a.to_vec(), vec![1.0, 2.0, 3.0]);
    assert_eq!(b.to_vec(), vec![2.0, 3.0, 4.0]);
    let mut c = a.share();
    c.add_(1.0);
    assert_eq!(a.to_vec(), vec![2.0, 3.0, 4.0]);
    // a transposed (dense) tensor keeps its strides; a reversed one becomes contiguous
    let m = f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).t();
    let mc = m.clone();
    assert_eq!(mc.strides(), m.strides());
    assert_eq!(mc.to_vec(), m.to_vec());
    let r = m.slice(0, None, None, -1);
    assert_eq!(r.clone().to_vec(), r.to_vec());
    let d = DynTensor::from(a.share());
    let mut d2 = d.clone();
    d2.add_(1.0);
    assert_eq!(a.to_vec(), vec![2.0, 3.0, 4.0]);
}

// ------------------------------------------------------------- 2. overlapping outputs

#[test]
fn reversed_view_of_the_input_as_output_is_correct() {
    // The issue's example: a reversed copy of [1, 2, 3, 4] gave [4, 3, 3, 4].
    let x = f(&[1.0, 2.0, 3.0, 4.0], &[4]);
    let mut r = x.slice(0, None, None, -1);
    r.copy_(&x);
    assert_eq!(x.to_vec(), vec![4.0, 3.0, 2.0, 1.0]);

    let x = f(&[1.0, 2.0, 3.0, 4.0], &[4]);
    let mut r = x.slice(0, None, None, -1);
    r.add_(&x);
    assert_eq!(x.to_vec(), vec![5.0, 5.0, 5.0, 5.0]);

    let x = DynTensor::from(f(&[1.0, 2.0, 3.0, 4.0], &[4]));
    let r = x.slice(0, None, None, -1);
    x.add_out(1.0, &r);
    assert_eq!(
        x.as_typed::<f32>().unwrap().to_vec(),
        vec![5.0, 4.0, 3.0, 2.0]
    );
}

#[test]
fn transposed_view_of_the_input_as_output_is_correct() {
    let x = f(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let mut xt = x.t();
    xt.copy_(&x);
    assert_eq!(x.to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
}

#[test]
fn internal_and_partial_overlap_are_errors_and_write_nothing() {
    let x = f(&[1.0, 2.0, 3.0, 4.0], &[4]);
    // stride-0 output
    let mut e = x.narrow(0, 0, 1).expand([4]);
    let err = e.try_copy_(&f(&[9.0; 4], &[4])).unwrap_err();
    assert!(matches!(err, Error::MemoryOverlap { .. }), "{err}");
    // overlapping steps (as_strided-like): [3, 2] with strides [1, 1]
    let layout = Layout::new(vec![3, 2], vec![1, 1], 0).unwrap();
    let mut o = x.with_layout(layout).unwrap();
    let err = o.try_copy_(&f(&[9.0; 6], &[3, 2])).unwrap_err();
    assert!(matches!(err, Error::MemoryOverlap { .. }), "{err}");
    // dense partial overlap: x[1..4] written from x[0..3]
    let mut dst = x.narrow(0, 1, 3);
    let err = dst.try_copy_(&x.narrow(0, 0, 3)).unwrap_err();
    assert!(matches!(err, Error::MemoryOverlap { .. }), "{err}");
    assert_eq!(x.to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
}

/// The element set of a layout, or None when two coordinates share an address.
fn addresses(l: &Layout) -> Option<Vec<isize>> {
    let mut v: Vec<isize> = (0..l.numel()).map(|i| l.index_of_linear(i)).collect();
    let n = v.len();
    v.sort_unstable();
    v.dedup();
    (v.len() == n).then_some(v)
}

fn is_dense(l: &Layout) -> bool {
    match addresses(l) {
        Some(v) => {
            v.is_empty()
                || (l
                    .strides()
                    .iter()
                    .zip(l.shape())
                    .all(|(&s, &n)| s >= 0 || n < 2)
                    && (v[v.len() - 1] - v[0]) as usize + 1 == v.len())
        }
        None => false,
    }
}

/// A random view of a 48-element storage with the given shape: any strides in -6..=6
/// (0 allowed), offset chosen so the view fits, or None when it cannot fit.
fn view_on(storage_len: usize, shape: &[usize], strides: &[isize]) -> Option<Layout> {
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = (n as isize - 1) * s;
        if span < 0 { lo += span } else { hi += span }
    }
    if hi - lo >= storage_len as isize {
        return None;
    }
    Layout::new(shape.to_vec(), strides.to_vec(), (-lo) as usize).ok()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 8 } else { 2000 },
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    /// Every `_out` / in-place / `copy_` on views of one shared storage equals the reference
    /// that copies the inputs first, or is a justified overlap error that wrote nothing.
    #[test]
    fn ops_on_views_of_one_storage_match_the_copying_reference(
        shape in prop::collection::vec(1usize..4, 1..3),
        seed in any::<u64>(),
        op in 0usize..4,
    ) {
        let nd = shape.len();
        let mut rng = seed;
        let mut next = |m: i64| { rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((rng >> 33) as i64).rem_euclid(m) };
        let mut pick = |allow_zero: bool| -> Vec<isize> {
            (0..nd).map(|_| { let mut s = next(13) as isize - 6; if !allow_zero && s == 0 { s = 1 } s }).collect()
        };
        let n = 48usize;
        let data: Vec<f32> = (0..n).map(|i| i as f32 + 1.0).collect();
        let st = Storage::from_slice(&data);
        let Some(lo) = view_on(n, &shape, &pick(false)) else { return Ok(()) };
        let Some(la) = view_on(n, &shape, &pick(true)) else { return Ok(()) };
        let la = if next(4) == 0 { lo.clone() } else { la };
        let o = DynTensor::from(Tensor::from_parts(st.clone(), lo.clone()).unwrap());
        let a = DynTensor::from(Tensor::from_parts(st.clone(), la.clone()).unwrap());
        // reference: inputs copied first
        let av = a.as_typed::<f32>().unwrap().to_vec();
        let expect_vals: Vec<f32> = match op {
            0 => av.clone(),                          // copy_
            1 => av.iter().map(|x| x + 100.0).collect(), // add_out(a, 100)
            2 => av.iter().map(|x| -x).collect(),        // neg_out
            _ => av.iter().map(|x| x * 2.0).collect(),   // mul_out(a, 2)
        };
        let before = Tensor::from_parts(st.clone(), Layout::new(vec![n], vec![1], 0).unwrap()).unwrap().to_vec();
        let mut o_mut = o.share();
        let r = match op {
            0 => o_mut.try_copy_(&a),
            1 => a.try_add_out(100.0, &o),
            2 => a.try_neg_out(&o),
            _ => a.try_mul_out(2.0, &o),
        };
        let after = Tensor::from_parts(st.clone(), Layout::new(vec![n], vec![1], 0).unwrap()).unwrap().to_vec();
        match r {
            Ok(()) => {
                let mut expect = before.clone();
                for (i, v) in expect_vals.iter().enumerate() {
                    expect[lo.index_of_linear(i) as usize] = *v;
                }
                prop_assert!(addresses(&lo).is_some(), "wrote through an overlapping output {:?}", lo);
                prop_assert_eq!(after, expect, "out {:?} in {:?}", lo, la);
            }
            Err(Error::MemoryOverlap { .. }) => {
                prop_assert_eq!(&after, &before, "a failed op wrote");
                let internal = addresses(&lo).is_none();
                let partial = {
                    let (oa, ia) = (addresses(&lo), addresses(&la));
                    is_dense(&lo) && is_dense(&la) && lo != la
                        && matches!((oa, ia), (Some(x), Some(y)) if x != y && x.iter().any(|e| y.contains(e)))
                };
                prop_assert!(internal || partial, "refused without overlap: out {:?} in {:?}", lo, la);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }
}

// ------------------------------------------------------------- 6. allocation failure is an Err

#[test]
#[cfg_attr(miri, ignore = "Miri cannot attempt huge allocations")]
fn huge_allocations_are_errors() {
    let e = Tensor::<f64>::try_zeros(&[1 << 40]).unwrap_err();
    assert!(matches!(e, Error::AllocationFailed { .. }), "{e}");
    assert!(DynTensor::zeros(DType::F64, &[1 << 40]).is_err());
    assert!(DynTensor::ones(DType::F32, &[1 << 41]).is_err());
    assert!(Tensor::<u8>::try_zeros(&[1 << 60]).is_err());
    assert!(Tensor::<f32>::try_full(&[1 << 42], 1.0).is_err());
    // a huge expanded view cannot be reshaped into a copy
    let big = Tensor::<f32>::zeros(&[1]).expand([1 << 20, 1 << 20]);
    assert!(big.try_clone().is_err());
    assert!(big.try_to_vec().is_err());
}

// ------------------------------------------------------------- the iterator on rayon threads

/// The iterator splits one op across two rayon workers (grain 4) while another thread holds a
/// handle to the output's storage: the workers write disjoint elements under the op's
/// exclusive borrow; the other thread's reads are refused or see the finished result.
#[test]
fn iterator_on_two_rayon_threads_with_a_concurrent_reader() {
    use weft::{LoopCost, TensorIterator};
    let n = 64;
    let a = DynTensor::from(Tensor::<f32>::from_fn(&[n], |i| i as f32).unwrap());
    let out = DynTensor::zeros(DType::F32, &[n]).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let reader = out.share();
    std::thread::scope(|s| {
        s.spawn(|| {
            pool.install(|| {
                // The reader may hold its shared borrow right now: a conflict, retried.
                let it = loop {
                    match TensorIterator::binary_op(Some(&out), &a, &a) {
                        Ok(it) => break it,
                        Err(weft::Error::BorrowConflict { .. }) => std::thread::yield_now(),
                        Err(e) => panic!("{e}"),
                    }
                };
                it.for_each(LoopCost::Grain(4), |p, st, len| {
                    for k in 0..len as isize {
                        // SAFETY: the iterator's pointers and byte strides for this run;
                        // both operands are f32.
                        unsafe {
                            let x = *(p[1].offset(k * st[1]) as *const f32);
                            *(p[0].offset(k * st[0]) as *mut f32) = x + 1.0;
                        }
                    }
                });
            })
        });
        s.spawn(move || {
            for _ in 0..3 {
                if let Ok(v) = reader.as_typed::<f32>().unwrap().try_to_vec() {
                    let done = v.iter().enumerate().all(|(i, &x)| x == i as f32 + 1.0);
                    assert!(done || v.iter().all(|&x| x == 0.0), "{v:?}");
                }
            }
        });
    });
    let v = out.as_typed::<f32>().unwrap().to_vec();
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as f32 + 1.0));
}

/// The reductions' parallel paths (chunked full reduction, many outputs, the outer loop shape)
/// on two rayon threads, with a concurrent reader of the input; the results do not depend on
/// the thread count. (Under Miri the engine's chunk and grain are small, so these sizes reach
/// the parallel paths.)
#[test]
fn reductions_on_two_rayon_threads() {
    let x = DynTensor::from(Tensor::<f32>::from_fn(&[12, 24], |i| (i % 5) as f32).unwrap());
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let run = |pool: &rayon::ThreadPool| {
        pool.install(|| {
            [
                x.sum((), false),
                x.sum(1, false),
                x.sum(0, false),
                x.amax(0, false),
                x.argmax(None, false),
            ]
            .map(|t| t.to_values())
        })
    };
    let reader = x.share();
    let (serial, parallel) = std::thread::scope(|s| {
        let r = s.spawn(|| reader.sum((), false).to_values());
        let p = run(&two);
        r.join().unwrap();
        (run(&one), p)
    });
    assert_eq!(serial, parallel);
}

/// The lingering helpers of the parallel split (`iter/team.rs`) on two rayon threads: loops
/// back to back (the helper takes the next job while it lingers), a loop that panics on the
/// helper's piece (the panic reaches the caller after both threads are done, and the next
/// loop still runs), a loop whose kernel runs another parallel loop on its own thread (the
/// caller's team is busy: the inner loop runs alone), and loops from a thread outside the pool
/// (helpers in the global pool). Every result is checked element by element.
#[test]
fn lingering_helpers_on_two_rayon_threads() {
    use weft::{LoopCost, TensorIterator};
    let n = 64;
    let a = DynTensor::from(Tensor::<f32>::from_fn(&[n], |i| i as f32).unwrap());
    let add = |out: &DynTensor, k: f32, panic_at: Option<usize>| {
        let it = TensorIterator::binary_op(Some(out), &a, &a).unwrap();
        it.for_each(LoopCost::Grain(8), |p, st, len| {
            for i in 0..len as isize {
                // SAFETY: the iterator's pointers and byte strides for this run; both operands
                // are f32.
                unsafe {
                    let x = *(p[1].offset(i * st[1]) as *const f32);
                    if panic_at == Some(x as usize) {
                        panic!("element {x}");
                    }
                    *(p[0].offset(i * st[0]) as *mut f32) = x + k;
                }
            }
        });
    };
    let check = |out: &DynTensor, k: f32| {
        let v = out.as_typed::<f32>().unwrap().to_vec();
        assert!(
            v.iter().enumerate().all(|(i, &x)| x == i as f32 + k),
            "{v:?}"
        );
    };
    let rounds = if cfg!(miri) { 3 } else { 200 };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let out = DynTensor::zeros(DType::F32, &[n]).unwrap();
        for r in 0..rounds {
            add(&out, r as f32, None);
            check(&out, r as f32);
        }
        // The last piece is the helper's whenever it is awake; either thread may run it.
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| add(&out, 0.5, Some(n - 1))));
        let msg = caught.expect_err("the panic reaches the caller");
        let msg = msg.downcast_ref::<String>().map(String::as_str);
        assert_eq!(msg, Some(&*format!("element {}", n - 1)));
        add(&out, 2.0, None);
        check(&out, 2.0);
        // Re-entered: the kernel of the outer loop runs a whole parallel loop on its thread.
        let it = TensorIterator::binary_op(Some(&out), &a, &a).unwrap();
        it.for_each(LoopCost::Grain(8), |p, st, len| {
            let inner_out = DynTensor::zeros(DType::F32, &[n]).unwrap();
            add(&inner_out, 1.0, None);
            check(&inner_out, 1.0);
            for i in 0..len as isize {
                // SAFETY: as above.
                unsafe {
                    let x = *(p[1].offset(i * st[1]) as *const f32);
                    *(p[0].offset(i * st[0]) as *mut f32) = x + 3.0;
                }
            }
        });
        drop(it);
        check(&out, 3.0);
    });
    // From threads outside any pool: their helpers are spawned into the global pool.
    std::thread::scope(|s| {
        for t in 0..2 {
            let (add, check) = (&add, &check);
            s.spawn(move || {
                let out = DynTensor::zeros(DType::F32, &[n]).unwrap();
                for r in 0..rounds.min(20) {
                    add(&out, (r + t) as f32, None);
                    check(&out, (r + t) as f32);
                }
            });
        }
    });
}

/// A parallel loop run from a thread-local's destructor, on a thread outside any pool, as the
/// thread exits (its helper list may already be gone: the loop then runs alone) gives the
/// right answer and does not panic. Its helpers are in rayon's global pool (two threads on
/// CI's two cores), hence the name: Miri runs it with the other pool tests, under tree
/// borrows (crossbeam-epoch, inside rayon, fails stacked borrows).
#[test]
fn thread_local_destructor_loop_on_two_rayon_threads() {
    use std::sync::mpsc;
    use weft::{LoopCost, TensorIterator};
    struct LoopOnExit(mpsc::Sender<Vec<f32>>);
    impl Drop for LoopOnExit {
        fn drop(&mut self) {
            let a = DynTensor::from(Tensor::<f32>::from_fn(&[64], |i| i as f32).unwrap());
            let out = DynTensor::zeros(DType::F32, &[64]).unwrap();
            let it = TensorIterator::binary_op(Some(&out), &a, &a).unwrap();
            it.for_each(LoopCost::Grain(8), |p, st, len| {
                for i in 0..len as isize {
                    // SAFETY: the iterator's pointers and byte strides for this run; both
                    // operands are f32.
                    unsafe {
                        let x = *(p[1].offset(i * st[1]) as *const f32);
                        *(p[0].offset(i * st[0]) as *mut f32) = x * 2.0;
                    }
                }
            });
            drop(it);
            let _ = self.0.send(out.as_typed::<f32>().unwrap().to_vec());
        }
    }
    thread_local! {
        static ON_EXIT: std::cell::RefCell<Option<LoopOnExit>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // A loop first, so the thread has helpers whose list the destructors may meet.
        drop(LoopOnExit(tx.clone()));
        ON_EXIT.with(|e| *e.borrow_mut() = Some(LoopOnExit(tx)));
    })
    .join()
    .unwrap();
    let results: Vec<Vec<f32>> = rx.iter().collect();
    assert_eq!(results.len(), 2);
    for v in results {
        assert!(
            v.iter().enumerate().all(|(i, &x)| x == 2.0 * i as f32),
            "{v:?}"
        );
    }
}
