//! The CUDA device (feature `cuda`). Without a driver every test checks the clean error and
//! prints that it is skipped; with `WEFT_REQUIRE_GPU=1` (gpu/run-device-checks.sh) a missing
//! GPU is a failure instead. On a GPU the results must equal the host computation of the same
//! functor bit for bit (same per-element code, no FMA contraction in the PTX).
#![cfg(feature = "cuda")]

use weft::device::cuda::{CudaContext, CudaTensor, driver_present};
use weft::functors::{Add as PAdd, Exp as PExp, Neg as PNeg, Where as PWhere};
use weft::half::{bf16, f16};
use weft::{Device, Element, Error, Functor, Tensor};

fn ctx() -> Option<CudaContext> {
    match CudaContext::new(0) {
        Ok(c) => Some(c),
        Err(Error::Device { reason })
            if reason.contains("no CUDA driver found")
                && std::env::var("WEFT_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            eprintln!("skipped (no GPU on this machine): {reason}");
            None
        }
        Err(e) => panic!("CUDA device 0 unusable: {e}"),
    }
}

#[test]
fn no_driver_is_a_clean_error() {
    if driver_present() {
        eprintln!("skipped: a CUDA driver is present");
        return;
    }
    let e = CudaContext::new(0).unwrap_err();
    assert!(
        matches!(&e, Error::Device { reason } if reason.contains("no CUDA driver found")),
        "{e:?}"
    );
    assert!(e.to_string().contains("no CUDA driver found"));
}

fn vals<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (s >> 33) as i64;
            if T::DTYPE.is_float() {
                T::from_value(weft::Value::F64((r % 2001 - 1000) as f64 / 16.0))
            } else {
                T::from_value(weft::Value::Int(r))
            }
        })
        .collect()
}

fn host_binary<F: Functor<(A, A)>, A: Element>(f: F, a: &[A], b: &[A]) -> Vec<F::Output> {
    a.iter().zip(b).map(|(&x, &y)| f.call((x, y))).collect()
}

fn check_add<A: Element>(c: &CudaContext)
where
    PAdd: Functor<(A, A), Output = A>,
{
    for n in [0usize, 1, 5, 1000, 4099] {
        let (a, b) = (vals::<A>(n, 1), vals::<A>(n, 2));
        let (da, db) = (
            c.from_slice(&a, &[n]).unwrap(),
            c.from_slice(&b, &[n]).unwrap(),
        );
        let got: Vec<A> = c
            .binary::<_, A, A>("add", PAdd, &da, &db)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_eq!(got, host_binary(PAdd, &a, &b), "add {} n={n}", A::DTYPE);
    }
}

#[test]
fn roundtrip_and_add_every_dtype() {
    let Some(c) = ctx() else { return };
    let t = Tensor::from_vec(vals::<f32>(12, 3), &[3, 4]).unwrap();
    let d = c.to_device(&t).unwrap();
    assert_eq!(d.device(), Device::Cuda(0));
    assert_eq!(d.to_host::<f32>().unwrap().to_vec(), t.to_vec());
    assert!(d.to_host::<f64>().is_err());
    check_add::<f32>(&c);
    check_add::<f64>(&c);
    check_add::<f16>(&c);
    check_add::<bf16>(&c);
    check_add::<i64>(&c);
    check_add::<i32>(&c);
    check_add::<i16>(&c);
    check_add::<i8>(&c);
    check_add::<u8>(&c);
    check_add::<bool>(&c);
}

fn strided_host(t: &CudaTensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

#[test]
fn broadcast_transposed_scalar_mixed() {
    let Some(c) = ctx() else { return };
    let (m, n) = (37usize, 53usize);
    let a = vals::<f32>(m * n, 4);
    let b = vals::<f32>(n * m, 5);
    let row = vals::<f32>(n, 6);
    let da = c.from_slice(&a, &[m, n]).unwrap();
    let db = c.from_slice(&b, &[n, m]).unwrap().permute(&[1, 0]).unwrap(); // transposed
    let drow = c.from_slice(&row, &[n]).unwrap();
    // transposed
    let got = strided_host(&c.binary::<_, f32, f32>("add", PAdd, &da, &db).unwrap());
    for i in 0..m {
        for j in 0..n {
            assert_eq!(got[i * n + j], a[i * n + j] + b[j * m + i]);
        }
    }
    // broadcast
    let got = strided_host(&c.binary::<_, f32, f32>("add", PAdd, &da, &drow).unwrap());
    for i in 0..m * n {
        assert_eq!(got[i], a[i] + row[i % n]);
    }
    // scalar as a kernel argument
    let got = strided_host(
        &c.binary_scalar::<_, f32, f32>("add", PAdd, &da, 0.1)
            .unwrap(),
    );
    for i in 0..m * n {
        assert_eq!(got[i], a[i] + 0.1);
    }
    // negative strides (a flipped view) and an offset
    let flipped = da.as_strided(&[m, n], &[n as isize, -1], n - 1).unwrap();
    let got = strided_host(
        &c.binary::<_, f32, f32>("add", PAdd, &flipped, &drow)
            .unwrap(),
    );
    for i in 0..m {
        for j in 0..n {
            assert_eq!(got[i * n + j], a[i * n + (n - 1 - j)] + row[j]);
        }
    }
    // mixed dtypes: i64 + f32 computed in f32, inputs cast while loading
    let ai = vals::<i64>(m * n, 7);
    let dai = c.from_slice(&ai, &[m, n]).unwrap();
    let got = strided_host(&c.binary::<_, f32, f32>("add", PAdd, &dai, &da).unwrap());
    for i in 0..m * n {
        assert_eq!(got[i], ai[i] as f32 + a[i]);
    }
    // shape mismatch is an error
    let bad = c.from_slice(&vals::<f32>(7, 1), &[7]).unwrap();
    assert!(matches!(
        c.binary::<_, f32, f32>("add", PAdd, &da, &bad),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn unary_and_where() {
    let Some(c) = ctx() else { return };
    let n = 10_001;
    let a = vals::<f32>(n, 8);
    let da = c.from_slice(&a, &[n]).unwrap();
    let got = strided_host(&c.unary::<_, f32>("exp", PExp, &da).unwrap());
    let want: Vec<f32> = a.iter().map(|&x| PExp.call((x,))).collect();
    assert_eq!(
        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        "exp must match the host libm bit for bit"
    );
    let h = vals::<bf16>(n, 9);
    let dh = c.from_slice(&h, &[n]).unwrap();
    let got: Vec<bf16> = c
        .unary::<_, bf16>("neg", PNeg, &dh)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got, h.iter().map(|&x| -x).collect::<Vec<_>>());
    let cond: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
    let b = vals::<f32>(n, 10);
    let (dc, db) = (
        c.from_slice(&cond, &[n]).unwrap(),
        c.from_slice(&b, &[n]).unwrap(),
    );
    let got = strided_host(
        &c.ternary::<_, bool, f32, f32>("where", PWhere, &dc, &da, &db)
            .unwrap(),
    );
    for i in 0..n {
        assert_eq!(got[i], if cond[i] { a[i] } else { b[i] });
    }
}

#[test]
fn offsets_beyond_2_31_bytes_use_the_64_bit_kernel() {
    let Some(c) = ctx() else { return };
    let big = (1usize << 31) + 64;
    let z = c.zeros(weft::DType::U8, &[big]).unwrap();
    let view = z.as_strided(&[3, 4], &[-(1 << 30), 1], big - 10).unwrap();
    let got: Vec<u8> = c
        .binary_scalar::<_, u8, u8>("add", PAdd, &view, 7)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(got, vec![7u8; 12]);
}

#[test]
fn device_ops_without_driver_are_clean_errors() {
    if driver_present() {
        eprintln!("skipped: a CUDA driver is present");
        return;
    }
    let t = weft::DynTensor::from(Tensor::<f32>::from_vec(vec![1.0, 2.0], &[2]).unwrap());
    for r in [
        t.to_device(Device::Cuda(0)).map(|_| ()),
        Tensor::<i64>::from_vec(vec![1], &[1])
            .unwrap()
            .to_device(Device::Cuda(0))
            .map(|_| ()),
    ] {
        let e = r.unwrap_err();
        assert!(e.to_string().contains("no CUDA driver found"), "{e}");
    }
}

#[test]
fn op_modules_hold_exactly_their_ops_kernels() {
    use weft::device::KERNELS_PTX;
    use weft::device::cuda::op_module_ptx;
    let entries = |ptx: &str| -> Vec<String> {
        ptx.lines()
            .filter_map(|l| l.strip_prefix(".visible .entry "))
            .map(|r| r.split('(').next().unwrap().to_string())
            .collect()
    };
    let all = entries(&KERNELS_PTX);
    let all_funcs: std::collections::HashSet<String> = KERNELS_PTX
        .lines()
        .filter(|l| l.starts_with(".func"))
        .map(|l| {
            l.rsplit(' ')
                .next()
                .unwrap()
                .trim_end_matches('(')
                .to_string()
        })
        .collect();
    for op in [
        "add",
        "add_scalar",
        "floor_divide",
        "exp",
        "where",
        "copy",
        "pow_scalar",
    ] {
        let m = op_module_ptx(&KERNELS_PTX, op);
        let got = entries(&m);
        let want: Vec<String> = weft::device::kernel_list::KERNEL_NAMES
            .iter()
            .filter(|n| {
                n.strip_prefix(op)
                    .and_then(|r| r.strip_prefix('_'))
                    .is_some_and(|r| {
                        weft::DType::ALL.iter().any(|&d| {
                            let s = weft::device::kernel_list::kernel_suffix(d);
                            r.strip_prefix(s).is_some_and(|v| ["_c", "_s"].contains(&v))
                        })
                    })
            })
            .map(|s| s.to_string())
            .collect();
        assert!(!want.is_empty(), "{op}");
        let (mut g, mut w) = (got.clone(), want.clone());
        g.sort();
        w.sort();
        assert_eq!(g, w, "{op}");
        // Only the helpers the op's kernels call are kept (add: ~0.5 MB, of which ~0.29 MB its
        // 20 entries; with every helper it was ~2.3 MB).
        eprintln!("{op}: {} bytes", m.len());
        assert!(m.len() < KERNELS_PTX.len() / 20, "{op}: {} bytes", m.len());
        assert!(m.starts_with(&KERNELS_PTX[..KERNELS_PTX.find(".version").unwrap() + 40]));
        // Closed: every helper the module names anywhere is defined in it, and every kept
        // helper is used by something in it.
        let mut defined = std::collections::HashSet::new();
        for l in m.lines() {
            if l.starts_with(".func") {
                defined.insert(
                    l.rsplit(' ')
                        .next()
                        .unwrap()
                        .trim_end_matches('(')
                        .to_string(),
                );
            }
        }
        for l in m.lines().filter(|l| !l.starts_with(".func")) {
            for tok in l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')) {
                if all_funcs.contains(tok) {
                    assert!(defined.contains(tok), "{op}: {tok} is used but not kept");
                }
            }
        }
        for f in &defined {
            let uses = m.matches(f.as_str()).count();
            assert!(uses > 1, "{op}: {f} kept but unused");
        }
    }
    // A reduction family's module: its kernels `reduce_{family}_{t}`, not another family's
    // (`reduce_fold` is not `reduce_fold_to_f32`).
    let reductions = weft::device::reduce_plan::reduce_kernel_names();
    for family in ["reduce_fold", "reduce_fold_to_f32", "reduce_softmax_rows"] {
        let mut got = entries(&op_module_ptx(&KERNELS_PTX, family));
        let mut want: Vec<String> = reductions
            .iter()
            .filter(|n| {
                n.strip_prefix(family)
                    .and_then(|r| r.strip_prefix('_'))
                    .is_some_and(|r| {
                        weft::DType::ALL
                            .iter()
                            .any(|&d| r == weft::device::kernel_list::kernel_suffix(d))
                    })
            })
            .cloned()
            .collect();
        got.sort();
        want.sort();
        assert!(!want.is_empty(), "{family}");
        assert_eq!(got, want, "{family}");
    }
    assert_eq!(
        all.len(),
        weft::device::kernel_list::KERNEL_NAMES.len() + reductions.len()
    );
}

/// Every bit of every value, NaN as one NaN (a GPU returns its canonical NaN).
fn value_bits(t: &weft::DynTensor) -> Vec<(u8, u64)> {
    use weft::Value;
    t.contiguous()
        .to_values()
        .into_iter()
        .map(|v| match v {
            Value::F32(x) if x.is_nan() => (9, 0),
            Value::F64(x) if x.is_nan() => (9, 0),
            Value::F32(x) => (3, x.to_bits() as u64),
            Value::F64(x) => (4, x.to_bits()),
            Value::Bool(b) => (0, b as u64),
            Value::Int(i) => (1, i as u64),
            Value::UInt(u) => (2, u),
        })
        .collect()
}

/// The device reductions (`CudaTensor::try_reduce`) equal the CPU's bit for bit (NaN as NaN) on
/// random views (permuted, stepped, reversed, offset) of every dtype, every op, long and outer
/// reductions included: both run the same loops in the same order.
#[test]
fn reductions_equal_the_cpu_bit_for_bit() {
    use weft::{DType, Dims, DynTensor, ReduceArgs, ReduceOp, with_dtype};
    let Some(_ctx) = ctx() else { return };
    let mut s = 0x5eed_u64;
    let mut next = move |n: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % n.max(1)
    };
    let mut compared = 0;
    for case in 0..400 {
        let op = ReduceOp::ALL[next(ReduceOp::ALL.len() as u64) as usize];
        let dtype = DType::ALL[next(DType::COUNT as u64) as usize];
        let shape: Vec<usize> = match next(8) {
            0 => vec![1 + next(3) as usize, 16384 + next(40000) as usize],
            1 => vec![17000 + next(30000) as usize, 1 + next(4) as usize],
            2 => vec![1 + next(300) as usize, 1 + next(300) as usize],
            _ => (0..next(5)).map(|_| next(7) as usize).collect(),
        };
        let nd = shape.len();
        // A padded contiguous base, then a view: a random dim order, offsets, steps, reversal.
        let padded: Vec<usize> = shape.iter().map(|&n| n * 2 + 1).collect();
        let n: usize = padded.iter().product();
        let base = with_dtype!(dtype, T => {
            let mut v = vals::<T>(n, case);
            if dtype.is_float() && n > 3 {
                v[n / 3] = T::from_value(weft::Value::F64(f64::NAN));
                v[n / 2] = T::from_value(weft::Value::F64(f64::INFINITY));
            }
            DynTensor::from_vec(v, &padded).unwrap()
        });
        let mut view = base.share();
        for (d, &len) in shape.iter().enumerate() {
            let step = 1 + next(2) as isize;
            let start = next(2) as isize;
            view = view.slice(
                d as isize,
                Some(start),
                Some(start + (len as isize) * step),
                step,
            );
            if next(4) == 0 {
                view = view.slice(d as isize, None, None, -1);
            }
        }
        if nd > 1 && next(2) == 0 {
            let mut perm: Vec<isize> = (0..nd as isize).collect();
            perm.reverse();
            view = view.permute(&perm);
        }
        let dims = match next(3) {
            0 => Dims::All,
            _ if nd == 0 => Dims::All,
            _ => Dims::One(next(nd as u64) as isize),
        };
        let dims = if op.is_elementwise() && dims == Dims::All {
            Dims::One(-1)
        } else {
            dims
        };
        let mut args = ReduceArgs::new(dims).keepdim(next(2) == 0);
        if op.takes_dtype() && next(4) == 0 {
            args = args.dtype(DType::F32);
        }
        let dev_base = base.to_device(weft::Device::Cuda(0)).unwrap();
        let dev_view = dev_base
            .as_strided(view.shape(), view.strides(), view.offset())
            .unwrap();
        let cpu = weft::reduce::reduce(op, &view, &args);
        let dev = dev_view.try_reduce(op, &args);
        let what = format!(
            "case {case}: {} of {dtype} {:?} {:?}, {args:?}",
            op.name(),
            view.shape(),
            view.strides()
        );
        match (cpu, dev) {
            (Ok(a), Ok(b)) => {
                for (a, b) in a.iter().zip(&b) {
                    let b = b.to_cpu().unwrap();
                    assert_eq!((a.dtype(), a.shape()), (b.dtype(), b.shape()), "{what}");
                    assert!(value_bits(a) == value_bits(&b), "{what}: values differ");
                }
                compared += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
            (a, b) => panic!("{what}: cpu {:?} device {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
    eprintln!("{compared} device reductions equal the CPU's bit for bit");
    assert!(compared > 200);
}
