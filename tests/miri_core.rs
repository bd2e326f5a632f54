//! Small, deterministic tests of the `unsafe` loop core (storage, views, the iterator's
//! odometer, every kernel path, in-place aliasing), sized to run under Miri:
//!
//! ```sh
//! cargo +nightly miri test --test miri_core
//! ```
//!
//! They avoid libm's transcendental functions (inline asm Miri cannot run) and stay below the
//! parallel grain (no thread pool). Under plain `cargo test` they are ordinary fast tests.

use weft::{DType, DynTensor, Tensor};

fn t(v: &[f32], shape: &[usize]) -> Tensor<f32> {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

#[test]
fn contiguous_broadcast_and_strided_paths() {
    let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = t(&[10.0, 20.0, 30.0], &[3]);
    // contiguous + broadcast row (stride-0 outer dim)
    assert_eq!((&a + &b).to_vec(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    // transposed operand: strided path
    let at = a.t();
    let c = t(&[1.0; 6], &[3, 2]);
    assert_eq!((&at + &c).to_vec(), vec![2.0, 5.0, 3.0, 6.0, 4.0, 7.0]);
    // reversed (negative stride) view
    let r = a.slice(1, None, None, -1);
    assert_eq!((&r * 2.0).to_vec(), vec![6.0, 4.0, 2.0, 12.0, 10.0, 8.0]);
    // expanded column (inner stride 0)
    let col = t(&[1.0, 2.0], &[2, 1]).expand([2, 3]);
    assert_eq!((&a - &col).to_vec(), vec![0.0, 1.0, 2.0, 2.0, 3.0, 4.0]);
    // Rows of 256 bytes beside a column, either side, the rows a slice of a wider tensor: the
    // binary kernel's own row loop (`kernels::binary_rows`), and in place.
    let wide = Tensor::<f32>::from_vec((0..3 * 80).map(|v| v as f32).collect(), &[3, 80]).unwrap();
    let rows = wide.slice(1, Some(8), Some(72), 1);
    let col = t(&[1.0, 2.0, 3.0], &[3, 1]);
    let want = |f: &dyn Fn(f32, f32) -> f32| -> Vec<f32> {
        (0..3)
            .flat_map(|r| (8..72).map(move |c| (r, c)))
            .map(|(r, c)| f((r * 80 + c) as f32, (r + 1) as f32))
            .collect()
    };
    assert_eq!((&rows - &col).to_vec(), want(&|x, k| x - k));
    assert_eq!((&col - &rows).to_vec(), want(&|x, k| k - x));
    let mut own = rows.contiguous();
    own -= &col;
    assert_eq!(own.to_vec(), want(&|x, k| x - k));
    // The same row loop over two streamed inputs: the sliced rows beside a broadcast row of
    // 256 bytes, beside themselves, and in place into a view.
    let row = Tensor::<f32>::from_vec((0..64).map(|v| v as f32 * 0.5).collect(), &[64]).unwrap();
    let want2 = |f: &dyn Fn(f32, f32) -> f32| -> Vec<f32> {
        (0..3)
            .flat_map(|r| (8..72).map(move |c| (r, c)))
            .map(|(r, c)| f((r * 80 + c) as f32, (c - 8) as f32 * 0.5))
            .collect()
    };
    assert_eq!((&rows - &row).to_vec(), want2(&|x, y| x - y));
    assert_eq!((&row - &rows).to_vec(), want2(&|x, y| y - x));
    assert_eq!((&rows * &rows).to_vec(), want(&|x, _| x * x));
    let wide2 = wide.try_clone().unwrap();
    let mut view = wide2.slice(1, Some(8), Some(72), 1);
    view -= &row;
    assert_eq!(view.to_vec(), want2(&|x, y| x - y));
    assert_eq!(wide2.get(&[1, 7]).unwrap(), 87.0);
    // The unary kernel's row loop over the same sliced rows, fresh and in place.
    assert_eq!((-&rows).to_vec(), want(&|x, _| -x));
    let wide3 = wide.try_clone().unwrap();
    let mut view3 = wide3.slice(1, Some(8), Some(72), 1);
    view3.neg_();
    assert_eq!(view3.to_vec(), want(&|x, _| -x));
    assert_eq!(wide3.get(&[2, 72]).unwrap(), 232.0);
}

#[test]
fn casting_block_path_and_where() {
    let i = DynTensor::from(Tensor::<i64>::from_vec(vec![1, -2, 3, 4], &[2, 2]).unwrap());
    let f = DynTensor::from(t(&[0.5, 0.5, 0.5, 0.5], &[2, 2]).t());
    let s = i.try_add(&f).unwrap();
    assert_eq!(s.dtype(), DType::F32);
    assert_eq!(
        s.as_typed::<f32>().unwrap().to_vec(),
        vec![1.5, -1.5, 3.5, 4.5]
    );
    let h = s.try_to(DType::F16).unwrap().try_to(DType::I16).unwrap();
    assert_eq!(h.as_typed::<i16>().unwrap().to_vec(), vec![1, -1, 3, 4]);
    let cond = DynTensor::from(Tensor::<bool>::from_vec(vec![true, false], &[2]).unwrap());
    let w = weft::ops::dyn_api::where_(&cond, &i, 0.25).unwrap();
    assert_eq!(
        w.as_typed::<f32>().unwrap().to_vec(),
        vec![1.0, 0.25, 3.0, 0.25]
    );
}

#[test]
fn in_place_on_views_and_exact_alias() {
    let mut a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let mut at = a.t();
    at.add_(1.0);
    assert_eq!(a.to_vec(), vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let a2 = a.clone();
    a.mul_(&a2);
    assert_eq!(a.to_vec(), vec![4.0, 9.0, 16.0, 25.0, 36.0, 49.0]);
    // a partial overlap is refused before anything is written
    let d = DynTensor::from(Tensor::<f32>::zeros(&[4]));
    let lo = d.try_narrow(0, 0, 3).unwrap();
    let hi = d.try_narrow(0, 1, 3).unwrap();
    assert!(lo.try_add_out(1.0, &hi).is_err());
}

#[test]
fn integer_zero_division_leaves_the_output_untouched() {
    let mut x = Tensor::<i32>::from_vec(vec![7, 8, 9], &[3]).unwrap();
    let y = Tensor::<i32>::from_vec(vec![2, 1, 0], &[3]).unwrap();
    assert!(x.try_floor_divide_(&y).is_err());
    assert_eq!(x.to_vec(), vec![7, 8, 9]);
}

#[test]
fn bool_outputs_and_odometer_over_many_dims() {
    let a = Tensor::<i64>::arange(0, 24, 1)
        .unwrap()
        .reshape([2, 3, 4])
        .permute(&[2, 0, 1]);
    let b = Tensor::<i64>::arange(0, 4, 1).unwrap().reshape([4, 1, 1]);
    let m = a.gt(&b);
    let raw = m.contiguous().to_vec();
    assert_eq!(raw.len(), 24);
    // a[k, i, j] = 12i + 4j + k > k except where i = j = 0 (4 of 24).
    assert_eq!(raw.iter().filter(|&&v| v).count(), 20);
}

/// Typed ops see their tensors through handle-free views (`with_dyn_view`): outputs, in place,
/// an erroring op and a panicking operator (unwinding past the views) leave every handle count
/// right, so the storages are freed exactly once (Miri checks leaks and double frees).
#[test]
fn typed_ops_run_on_handle_free_views() {
    let a = t(&[1.0, 2.0, 3.0], &[3]);
    let mut o = Tensor::<f32>::zeros(&[3]);
    a.add_out(&a, &mut o);
    assert_eq!(o.to_vec(), vec![2.0, 4.0, 6.0]);
    // Exact arithmetic only: Miri perturbs transcendental results (`exp`) per seed.
    let mut c = a.mul(&a);
    c += &a;
    c.neg_();
    let keep = c.share();
    assert!(a.try_add(&t(&[1.0, 2.0], &[2])).is_err());
    let r = std::panic::catch_unwind(|| {
        let _ = &t(&[1.0, 2.0], &[2]) + &t(&[1.0, 2.0, 3.0], &[3]);
    });
    assert!(r.is_err());
    drop(c);
    assert_eq!(keep.to_vec(), vec![-2.0, -6.0, -12.0]);
}

/// The reduction engine's loop shapes (inner contiguous, inner strided, outer, chunked, empty,
/// softmax's elementwise pass), serially (60 elements: below the engine's grain under Miri);
/// exact arithmetic only.
#[test]
fn reduction_loop_shapes() {
    let x = DynTensor::from(Tensor::<f32>::from_fn(&[6, 10], |i| (i % 7) as f32).unwrap());
    let inner = x.sum(1, false).to_values();
    let outer = x.sum(0, false).to_values();
    let strided = x.t().sum(0, false).to_values();
    assert_eq!(inner, strided);
    assert_eq!(inner.len(), 6);
    assert_eq!(outer.len(), 10);
    assert_eq!(x.sum((), false).to_values(), vec![weft::Value::F32(174.0)]);
    let (v, i) = x.max_dim(0, false);
    assert_eq!((v.numel(), i.numel()), (10, 10));
    assert_eq!(x.argmax(None, false).to_values(), vec![weft::Value::Int(6)]);
    let e = DynTensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert_eq!(e.sum(0, false).numel(), 3);
    assert_eq!(x.softmax(1).shape(), &[6, 10]);
}

#[test]
fn adopted_buffers_are_read_written_and_freed_once() {
    // A Vec<f32> adopted as the storage: no copy, in-place writes land in its buffer.
    let v = vec![1.0f32, 2.0, 3.0, 4.0];
    let p = v.as_ptr();
    let mut a = Tensor::from_vec(v, &[2, 2]).unwrap();
    assert_eq!(a.storage().as_ptr(), p);
    let b = a.share();
    a += &t(&[1.0; 4], &[2, 2]);
    assert_eq!(b.to_vec(), vec![2.0, 3.0, 4.0, 5.0]);
    assert_eq!(b.storage().as_ptr(), p);
    // Handles dropped on two threads: the buffer goes back to Vec once.
    let c = b.share();
    std::thread::spawn(move || drop(c)).join().unwrap();
    drop((a, b));
    // A Vec<u8> adopted as i32 when aligned, copied when not; bool bytes must be 0/1.
    let bytes: Vec<u8> = [7i32, -1].iter().flat_map(|x| x.to_le_bytes()).collect();
    let d = DynTensor::from_bytes_vec(DType::I32, &[2], bytes).unwrap();
    assert_eq!(d.to_vec::<i32>().unwrap(), vec![7, -1]);
    let e = DynTensor::from_bytes_vec(DType::Bool, &[3], vec![1, 0, 1]).unwrap();
    assert_eq!(e.to_vec::<bool>().unwrap(), vec![true, false, true]);
    assert!(DynTensor::from_bytes_vec(DType::Bool, &[2], vec![1, 2]).is_err());
    // An empty Vec (dangling pointer) is a storage of its own.
    let z1 = Tensor::<f64>::from_vec(vec![], &[0]).unwrap();
    let z2 = Tensor::<f64>::from_vec(vec![], &[0, 3]).unwrap();
    assert!(!weft::storage::Storage::ptr_eq(z1.storage(), z2.storage()));
}

#[test]
fn empty_views_with_far_offsets_read_nothing() {
    // An empty layout reaches no element, so any offset is accepted; reading it must not form
    // a pointer past the storage (the contiguous to_vec path did).
    let s = weft::storage::Storage::from_slice(&[1.0f32]);
    let l = weft::Layout::new(vec![2, 0], vec![-1000, 5], 1 << 40).unwrap();
    let e = Tensor::from_parts(s, l).unwrap();
    assert_eq!(e.try_to_vec().unwrap(), Vec::<f32>::new());
    assert_eq!(e.contiguous().shape(), &[2, 0]);
    assert_eq!((&e + 1.0).shape(), &[2, 0]);
}

/// The f16/bf16 block path (the f32 functor over converted blocks, strided halves gathered as
/// bits) and the strided block path of same-dtype operands, on every layout class, against the
/// per-element values.
#[test]
fn half_blocks_and_strided_blocks() {
    use weft::half::{bf16, f16};
    let base: Vec<f32> = (0..12).map(|i| i as f32 * 0.75 - 4.0).collect();
    let h =
        Tensor::<f16>::from_vec(base.iter().map(|&v| f16::from_f32(v)).collect(), &[3, 4]).unwrap();
    let views = [
        h.clone(),
        h.t(),
        h.slice(1, None, None, 2),
        h.slice(0, None, None, -1),
        h.narrow(0, 1, 1).expand([3, 4]),
    ];
    for v in &views {
        let x = v.to_vec();
        let neg = (-v).to_vec();
        assert!(neg.iter().zip(&x).all(|(n, x)| *n == -*x));
        let plus = (v + 0.3).to_vec();
        let want: Vec<f16> = x
            .iter()
            .map(|x| f16::from_f32(x.to_f32() + f16::from_f32(0.3).to_f32()))
            .collect();
        assert_eq!(plus, want, "add with a scalar rounded to f16 first");
        let times = (v * 0.3).to_vec();
        let want: Vec<f16> = x
            .iter()
            .map(|x| f16::from_f32(x.to_f32() * 0.3f32))
            .collect();
        assert_eq!(times, want, "mul keeps the scalar at f32");
        let other = v.slice(0, None, None, -1);
        let m = v.maximum(&other).to_vec();
        let ov = other.to_vec();
        assert!(
            m.iter()
                .zip(x.iter().zip(&ov))
                .all(|(m, (a, b))| *m == a.max(*b))
        );
        let lt = v.lt(&other).to_vec();
        assert!(
            lt.iter()
                .zip(x.iter().zip(&ov))
                .all(|(l, (a, b))| *l == (a < b))
        );
    }
    let b = h.to::<bf16>().slice(1, None, None, -2);
    let s = b.sqrt().to_vec();
    assert!(
        s.iter()
            .zip(b.to_vec())
            .all(|(s, x)| *s == bf16::from_f32(x.to_f32().sqrt())
                || (s.is_nan() && x.to_f32() < 0.0))
    );
    // Strided same-dtype operands: gathered into blocks, scattered back.
    let u = Tensor::<u64>::from_vec((0..12).map(|i| u64::MAX - i).collect(), &[3, 4]).unwrap();
    let ut = u.t();
    let sum = (&ut + &ut.slice(0, None, None, -1)).to_vec();
    let (a, r) = (ut.to_vec(), ut.slice(0, None, None, -1).to_vec());
    assert!(
        sum.iter()
            .zip(a.iter().zip(&r))
            .all(|(s, (a, r))| *s == a.wrapping_add(*r))
    );
}

/// The 2-D walk's tiles: an input transposed against the output over 64x64 tiles and edge
/// tiles, in the dense form (copy_, a cast, `contiguous()`, a bound scalar: the kernel runs
/// once per tile into a buffer, rows copied out) and the per-row form (two tensor inputs).
#[test]
fn transposed_tiles_dense_and_per_row() {
    let (r, c) = (65usize, 70usize);
    let a = t(&(0..r * c).map(|i| i as f32).collect::<Vec<_>>(), &[r, c]);
    let at = a.t(); // [c, r], element (i, j) = j * c + i
    let want: Vec<f32> = (0..c * r).map(|k| ((k % r) * c + k / r) as f32).collect();
    assert_eq!(at.contiguous().to_vec(), want);
    let mut out = Tensor::<f64>::zeros(&[c, r]);
    out.copy_(&at);
    assert_eq!(
        out.to_vec(),
        want.iter().map(|&x| x as f64).collect::<Vec<_>>()
    );
    let mut neg = Tensor::<f32>::zeros(&[c, r]);
    at.neg_out(&mut neg);
    assert_eq!(neg.to_vec(), want.iter().map(|&x| -x).collect::<Vec<_>>());
    let ones = Tensor::<f32>::ones(&[c, r]);
    let mut sum = Tensor::<f32>::zeros(&[c, r]);
    sum.copy_(&(&at * 1.0)); // the product keeps at's order; copy_ transposes it
    assert_eq!(sum.to_vec(), want);
    let mut both = Tensor::<f32>::zeros(&[c, r]);
    at.add_out(&ones, &mut both);
    assert_eq!(
        both.to_vec(),
        want.iter().map(|&x| x + 1.0).collect::<Vec<_>>()
    );
    // Narrow elements: the byte and half block transposes (and their remainders).
    for dtype in [DType::U8, DType::I16] {
        let narrow = DynTensor::from(a.clone()).to(dtype);
        let got = narrow.t().contiguous().to(DType::F32);
        let exact: Vec<f32> = want
            .iter()
            .map(|&x| {
                if dtype == DType::U8 {
                    x as u8 as f32
                } else {
                    x
                }
            })
            .collect();
        assert_eq!(got.as_typed::<f32>().unwrap().to_vec(), exact, "{dtype:?}");
    }
}

#[test]
fn narrow_domain_blocks_in_place_and_fresh() {
    // sin's kernel tests each block of 256 inputs and runs the narrow form where all pass:
    // 300 elements are two blocks, the second holding a value from 2^19 up (general form).
    // f32 sin is pure arithmetic (no libm), so Miri runs it.
    let mut v: Vec<f32> = (0..300).map(|i| i as f32 * 0.01).collect();
    v[290] = 1.0e6;
    let want: Vec<u32> = v
        .iter()
        .map(|&x| weft::functors::fastmath::sin_f32(x).to_bits())
        .collect();
    let a = t(&v, &[300]);
    let bits = |t: &Tensor<f32>| t.to_vec().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.sin()), want);
    let mut b = t(&v, &[300]);
    b.sin_();
    assert_eq!(bits(&b), want);
    // The binary loop's narrow form (f32 fmod through f64 where |a / b| < 2^24), fresh and in
    // place; element 290 (1e6 / 1e-20) sends its block to the exact form.
    use weft::functors::{Fmod, Functor};
    let d: Vec<f32> = (0..300)
        .map(|i| {
            if i == 290 {
                1e-20
            } else {
                0.3 + i as f32 * 0.001
            }
        })
        .collect();
    let want: Vec<u32> = v
        .iter()
        .zip(&d)
        .map(|(&x, &y)| Fmod.call((x, y)).to_bits())
        .collect();
    let dt = t(&d, &[300]);
    assert_eq!(bits(&a.fmod(&dt)), want);
    let mut c = t(&v, &[300]);
    c.fmod_(&dt);
    assert_eq!(bits(&c), want);
}

/// Strided operands stored in another dtype than the computation's: gathered by `load_same`
/// into a block buffer and converted as a unit-stride run (`load_cast`); strided outputs of
/// another dtype converted into a buffer and scattered (`store_cast`). 300 elements: two blocks.
#[test]
fn strided_casting_loads_and_stores() {
    let n = 300;
    let i = DynTensor::from(Tensor::<i32>::from_vec((0..n as i32).collect(), &[n]).unwrap());
    let f = DynTensor::from(t(&vec![0.5; n], &[n]));
    let s = i.slice(0, None, None, -1).try_add(&f).unwrap();
    let want: Vec<f32> = (0..n).map(|j| (n - 1 - j) as f32 + 0.5).collect();
    assert_eq!(s.as_typed::<f32>().unwrap().to_vec(), want);
    // out[n-1-k] = i[k] as i64, and out16[n-1-k] = s[k] as i16 (= n-1-k after truncation).
    let out = DynTensor::zeros(DType::I64, &[n]).unwrap();
    out.slice(0, None, None, -1).copy_(&i);
    let want: Vec<i64> = (0..n as i64).rev().collect();
    assert_eq!(out.as_typed::<i64>().unwrap().to_vec(), want);
    let out16 = DynTensor::zeros(DType::I16, &[n]).unwrap();
    out16.slice(0, None, None, -1).copy_(&s);
    let want: Vec<i16> = (0..n as i16).collect();
    assert_eq!(out16.as_typed::<i16>().unwrap().to_vec(), want);
}

#[test]
fn step_two_gathers_stop_at_the_last_element() {
    // `x[::2]` of a storage whose last element is the view's last: the step-2 gather reads
    // double-width words and must read the last element alone (Miri flags a read past the
    // allocation). Every element size, runs of one element and past one block.
    for n in [1usize, 2, 3, 17, 300] {
        let len = 2 * n - 1;
        let base = Tensor::<i64>::from_vec((0..len as i64).collect(), &[len]).unwrap();
        for dtype in [
            DType::Bool,
            DType::U8,
            DType::I16,
            DType::F16,
            DType::BF16,
            DType::I32,
            DType::F32,
            DType::I64,
            DType::F64,
        ] {
            let x = DynTensor::from(base.clone()).to(dtype);
            let all = x.to_values();
            let want: Vec<_> = all.iter().step_by(2).cloned().collect();
            let v = x.slice(0, None, None, 2);
            assert_eq!(v.contiguous().to_values(), want, "{dtype:?} n={n}");
            // A binary op with a contiguous operand (the block path's gather) and a cast.
            let sum = v.add(&v.contiguous());
            let twice: Vec<_> = v.contiguous().add(&v.contiguous()).to_values();
            assert_eq!(sum.to_values(), twice, "{dtype:?} n={n}");
            assert_eq!(
                v.to(DType::F64).to_values(),
                x.to(DType::F64)
                    .to_values()
                    .into_iter()
                    .step_by(2)
                    .collect::<Vec<_>>(),
                "{dtype:?} n={n}"
            );
        }
    }
}

#[test]
fn flat_tier_fresh_given_in_place_and_mixed() {
    // Small contiguous operands of one shape take `ops::binary`'s and `ops::unary`'s flat tier:
    // the op's contiguous loop through its per-(op, dtype) pointer, or the general runner over
    // the single run (mixed dtypes, f16, a scalar, an integer divisor's check).
    let a = t(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = t(&[0.5, 0.25, 2.0, 1.0, 4.0, 8.0], &[2, 3]);
    assert_eq!((&a * &b).to_vec(), vec![0.5, 0.5, 6.0, 4.0, 20.0, 48.0]);
    assert_eq!(
        a.lt(&b).to_vec(),
        vec![false, false, false, false, false, true]
    );
    // into a given output, and in place (the output is the first input: one exclusive borrow)
    let mut out = Tensor::<f32>::zeros(&[2, 3]);
    a.sub_out(&b, &mut out);
    assert_eq!(out.to_vec(), vec![0.5, 1.75, 1.0, 3.0, 1.0, -2.0]);
    let mut c = a.clone();
    c.add_(&b);
    assert_eq!(c.to_vec(), vec![1.5, 2.25, 5.0, 5.0, 9.0, 14.0]);
    let mut d = a.clone();
    let d2 = d.share();
    d.mul_(&d2);
    assert_eq!(d.to_vec(), vec![1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
    // mixed dtypes and a scalar on either side
    let i = Tensor::<i64>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!((&i + &a).to_vec(), vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    assert_eq!((&i * 2).to_vec(), vec![2, 4, 6, 8, 10, 12]);
    let di = DynTensor::from(i.clone());
    assert_eq!(
        di.try_floor_divide(&DynTensor::from(i.clone()))
            .unwrap()
            .dtype(),
        DType::I64
    );
    let zero = DynTensor::from(Tensor::<i64>::zeros(&[2, 3]));
    assert!(di.try_remainder(&zero).is_err());
    let h = DynTensor::from(a.clone()).to(DType::F16);
    assert_eq!(
        h.add(&h).to(DType::F32).to_values(),
        DynTensor::from(&a + &a).to_values()
    );
    // unary: own dtype, integer to float, in place
    assert_eq!(a.neg().to_vec(), vec![-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]);
    assert_eq!(DynTensor::from(i).sqrt().dtype(), DType::F32);
    let mut e = a.clone();
    e.abs_();
    assert_eq!(e.to_vec(), a.to_vec());
}

/// Contiguous halves run in whole groups of 64 fused (widen, compute, narrow in one loop) and
/// the rest through the block path: a run of 130 (two groups and a tail) fresh, in place, and
/// with a broadcast operand on either side. Constant-result functors (`isinf` of integers)
/// fill their output from one element of a reversed or strided input.
#[test]
fn fused_half_groups_and_constant_results() {
    use weft::half::{bf16, f16};
    let n = 130;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 16.0).collect();
    let h = Tensor::<f16>::from_vec(xs.iter().map(|&v| f16::from_f32(v)).collect(), &[n]).unwrap();
    let want: Vec<f16> = xs.iter().map(|&v| f16::from_f32(v + v)).collect();
    assert_eq!((&h + &h).to_vec(), want);
    let mut hh = h.clone();
    hh.add_(&h.clone());
    assert_eq!(hh.to_vec(), want);
    let want: Vec<f16> = xs.iter().map(|&v| f16::from_f32(2.0 - v)).collect();
    assert_eq!((2.0 - &h).to_vec(), want);
    let b = h.to::<bf16>();
    let want: Vec<bf16> = xs.iter().map(|&v| bf16::from_f32(v * 0.5)).collect();
    assert_eq!((&b * 0.5).to_vec(), want);
    let mut bb = b.clone();
    bb.neg_();
    assert!(bb.to_vec().iter().zip(&xs).all(|(g, &x)| g.to_f32() == -x));
    let ints = Tensor::<i32>::from_vec((0..n as i32).collect(), &[n]).unwrap();
    for v in [ints.slice(0, None, None, -1), ints.slice(0, None, None, 2)] {
        assert!(v.isinf().to_vec().iter().all(|&x| !x));
        assert!(v.isfinite().to_vec().iter().all(|&x| x));
    }
}

/// An op's fresh output is allocated without zeroing (`Storage::try_uninit`) and must be written
/// in full before anyone reads it: under Miri, reading an element no kernel wrote is undefined
/// behaviour, so every output below is read whole. Each allocation site of the iterator: the
/// flat tier, the fast set-up with a dense non-contiguous order (two transposed inputs), the
/// general set-up (mixed orders), the special ops' iterator (`clamp`, `lerp`, `addcmul`,
/// `masked_fill`, `where`, `to`), `contiguous`/`clone`'s copies and `cat`;
/// `full` and `from_fn`, which write their elements themselves.
#[test]
fn fresh_outputs_are_written_in_full() {
    let a = t(&[1.0, -2.0, 3.0, -4.0, 5.0, -6.0], &[2, 3]);
    let b = t(&[0.5, 0.25, 2.0, 1.0, 4.0, 8.0], &[3, 2]);
    let bt = b.t();
    // flat tier; fast set-up over two transposed (dense, same order) inputs; mixed orders
    assert_eq!(a.abs().to_vec(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let at = a.t();
    let tt = &at * &b;
    assert_eq!(
        tt.strides(),
        &[1, 3][..],
        "the output follows the inputs' order"
    );
    assert_eq!(tt.to_vec(), vec![0.5, -1.0, -4.0, 5.0, 12.0, -48.0]);
    assert_eq!((&a + &bt).to_vec(), vec![1.5, 0.0, 7.0, -3.75, 6.0, 2.0]);
    // the special ops' iterator
    assert_eq!(
        a.clamp(Some(-1.0), Some(2.0)).to_vec(),
        vec![1.0, -1.0, 2.0, -1.0, 2.0, -1.0]
    );
    assert_eq!(
        a.clamp_tensor(Some(&bt), None).to_vec(),
        vec![1.0, 2.0, 4.0, 0.25, 5.0, 8.0]
    );
    assert_eq!(
        a.lerp(&bt, 0.5).to_vec(),
        vec![0.75, 0.0, 3.5, -1.875, 3.0, 1.0]
    );
    assert_eq!(
        a.lerp(&bt, &t(&[0.0, 1.0, 0.0], &[3])).to_vec(),
        vec![1.0, 2.0, 3.0, -4.0, 1.0, -6.0]
    );
    assert_eq!(
        a.addcmul(&bt, &bt, 1.0).to_vec(),
        vec![1.25, 2.0, 19.0, -3.9375, 6.0, 58.0]
    );
    let mask = Tensor::<bool>::from_vec(vec![true, false, true], &[3]).unwrap();
    assert_eq!(
        a.masked_fill(&mask, 9.0).to_vec(),
        vec![9.0, -2.0, 9.0, 9.0, 5.0, 9.0]
    );
    let cond = Tensor::<bool>::from_vec(vec![false, true], &[2, 1]).unwrap();
    assert_eq!(
        cond.where_(&at.t(), 0.5f32).to_vec(),
        vec![0.5, 0.5, 0.5, -4.0, 5.0, -6.0]
    );
    assert_eq!(at.to::<i32>().to_vec(), vec![1, -4, -2, 5, 3, -6]);
    assert_eq!(
        at.leaky_relu(0.5).to_vec(),
        vec![1.0, -2.0, -1.0, 5.0, 3.0, -3.0]
    );
    // contiguous (iterator copy) and clone of a dense permuted view (one block, strides kept)
    assert_eq!(
        at.contiguous().to_vec(),
        vec![1.0, -4.0, -2.0, 5.0, 3.0, -6.0]
    );
    let c = at.clone();
    assert_eq!(c.strides(), at.strides());
    assert_eq!(c.to_vec(), at.to_vec());
    // cat: the parts' copies cover the output (an empty part between them)
    let (da, db) = (DynTensor::from(at.clone()), DynTensor::from(b.clone()));
    let none = DynTensor::from(t(&[], &[0, 2]));
    let cat = DynTensor::cat(&[&da, &none, &db], 0).unwrap();
    assert_eq!(
        cat.as_typed::<f32>().unwrap().to_vec(),
        [at.to_vec(), b.to_vec()].concat()
    );
    // constructors that write every element themselves
    assert_eq!(Tensor::<f32>::full(&[2, 2], -0.0).to_vec(), vec![-0.0; 4]);
    assert!(
        Tensor::<f32>::full(&[3], -0.0)
            .to_vec()
            .iter()
            .all(|x| x.is_sign_negative())
    );
    assert_eq!(Tensor::<i64>::ones(&[3]).to_vec(), vec![1, 1, 1]);
    assert_eq!(Tensor::<u8>::full(&[2], 0).to_vec(), vec![0, 0]);
    let f = Tensor::<i32>::from_fn(&[2, 2], |i| i as i32 * 3).unwrap();
    assert_eq!(f.to_vec(), vec![0, 3, 6, 9]);
    // nothing to write: empty and 0-d
    assert_eq!(t(&[], &[0, 3]).neg().numel(), 0);
    assert_eq!(Tensor::<f32>::scalar(2.0).neg().to_vec(), vec![-2.0]);
}
