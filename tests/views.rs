//! Views against a naive model (a Vec of values with explicit index math), view error cases,
//! constructors, `to`, and PyTorch `repr` golden strings.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestRunner};
use weft::{DType, DynTensor, Error, Scalar, Tensor};

/// The reference: values in row-major order plus a shape.
#[derive(Clone, Debug)]
struct Model {
    vals: Vec<i64>,
    shape: Vec<usize>,
}

fn coord_of(mut lin: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = lin % shape[d];
        lin /= shape[d];
    }
    c
}

fn linear_of(c: &[usize], shape: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

impl Model {
    /// A new model of `shape` whose element at coordinate `c` is the old one at `src(c)`.
    fn gather(&self, shape: Vec<usize>, src: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let n: usize = shape.iter().product();
        let vals = (0..n)
            .map(|i| self.vals[linear_of(&src(&coord_of(i, &shape)), &self.shape)])
            .collect();
        Model { vals, shape }
    }
}

/// Python's slice, by walking the indices one by one.
fn py_slice(n: usize, start: Option<isize>, end: Option<isize>, step: isize) -> Vec<usize> {
    let n = n as isize;
    let mut out = vec![];
    if step > 0 {
        let norm = |v: isize| (if v < 0 { v + n } else { v }).clamp(0, n);
        let (mut i, e) = (start.map_or(0, norm), end.map_or(n, norm));
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let norm = |v: isize| (if v < 0 { v + n } else { v }).clamp(-1, n - 1);
        let (mut i, e) = (start.map_or(n - 1, norm), end.map_or(-1, norm));
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

/// A small signed dim for `ndim` dims, sometimes negative.
fn pick_dim(r: u64, ndim: usize) -> isize {
    let d = (r % ndim as u64) as isize;
    if r & 64 != 0 { d - ndim as isize } else { d }
}

/// Applies one random view to both tensor and model; `None` when the op does not apply.
fn step(t: &Tensor<i64>, m: &Model, op: u8, r: [u64; 3]) -> Option<(Tensor<i64>, Model, String)> {
    let nd = m.shape.len();
    let sh = m.shape.clone();
    match op % 11 {
        0 if nd > 0 => {
            // permute: a random permutation from r[0]
            let mut perm: Vec<usize> = (0..nd).collect();
            let mut x = r[0];
            for i in (1..nd).rev() {
                perm.swap(i, (x % (i as u64 + 1)) as usize);
                x /= i as u64 + 1;
            }
            let dims: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
            let shape = perm.iter().map(|&p| sh[p]).collect();
            let mm = m.gather(shape, |c| {
                let mut o = vec![0; nd];
                for (i, &p) in perm.iter().enumerate() {
                    o[p] = c[i];
                }
                o
            });
            Some((t.permute(&dims), mm, format!("permute({dims:?})")))
        }
        1 if nd > 0 => {
            let (a, b) = (pick_dim(r[0], nd), pick_dim(r[1], nd));
            let (ua, ub) = (
                a.rem_euclid(nd as isize) as usize,
                b.rem_euclid(nd as isize) as usize,
            );
            let mut shape = sh.clone();
            shape.swap(ua, ub);
            let mm = m.gather(shape, |c| {
                let mut o = c.to_vec();
                o.swap(ua, ub);
                o
            });
            Some((t.transpose(a, b), mm, format!("transpose({a}, {b})")))
        }
        2 if nd > 0 => {
            let d = pick_dim(r[0], nd);
            let ud = d.rem_euclid(nd as isize) as usize;
            let n = sh[ud] as isize;
            let bound = |x: u64| -> Option<isize> {
                if x.is_multiple_of(4) {
                    None
                } else {
                    Some((x / 4 % (2 * n as u64 + 5)) as isize - n - 2)
                }
            };
            let (s, e) = (bound(r[1]), bound(r[1] >> 16));
            let mut st = (r[2] % 4) as isize + 1;
            if r[2] & 8 != 0 {
                st = -st;
            }
            let idx = py_slice(sh[ud], s, e, st);
            let mut shape = sh.clone();
            shape[ud] = idx.len();
            let mm = m.gather(shape, |c| {
                let mut o = c.to_vec();
                o[ud] = idx[c[ud]];
                o
            });
            Some((
                t.slice(d, s, e, st),
                mm,
                format!("slice({d}, {s:?}, {e:?}, {st})"),
            ))
        }
        3 if nd > 0 => {
            let d = pick_dim(r[0], nd);
            let ud = d.rem_euclid(nd as isize) as usize;
            let n = sh[ud];
            let start = (r[1] % (n as u64 + 1)) as usize;
            let len = (r[2] % ((n - start) as u64 + 1)) as usize;
            let mut shape = sh.clone();
            shape[ud] = len;
            let mm = m.gather(shape, |c| {
                let mut o = c.to_vec();
                o[ud] += start;
                o
            });
            Some((
                t.narrow(d, start as isize, len),
                mm,
                format!("narrow({d}, {start}, {len})"),
            ))
        }
        4 if nd > 0 => {
            let d = pick_dim(r[0], nd);
            let ud = d.rem_euclid(nd as isize) as usize;
            let n = sh[ud];
            if n == 0 {
                return None;
            }
            let i = (r[1] % n as u64) as isize - if r[1] & 128 != 0 { n as isize } else { 0 };
            let ui = i.rem_euclid(n as isize) as usize;
            let mut shape = sh.clone();
            shape.remove(ud);
            let mm = m.gather(shape, |c| {
                let mut o = c.to_vec();
                o.insert(ud, ui);
                o
            });
            Some((t.select(d, i), mm, format!("select({d}, {i})")))
        }
        5 => {
            // expand: size-1 dims to 0..=3, keep others (sometimes as -1), maybe a leading dim
            let lead = (r[0].is_multiple_of(3)) as usize;
            let mut arg: Vec<isize> = vec![];
            let mut shape = vec![];
            if lead == 1 {
                let s = (r[1] % 3) as usize;
                arg.push(s as isize);
                shape.push(s);
            }
            for (i, &n) in sh.iter().enumerate() {
                let x = r[2] >> (4 * i);
                if n == 1 && x.is_multiple_of(2) {
                    let s = (x / 2 % 4) as usize;
                    arg.push(s as isize);
                    shape.push(s);
                } else {
                    arg.push(if x.is_multiple_of(3) { -1 } else { n as isize });
                    shape.push(n);
                }
            }
            if shape.iter().product::<usize>() > 50_000 {
                return None;
            }
            let mm = m.gather(shape, |c| {
                c[lead..]
                    .iter()
                    .zip(&sh)
                    .map(|(&i, &n)| if n == 1 { 0 } else { i })
                    .collect()
            });
            Some((t.expand(&arg), mm, format!("expand({arg:?})")))
        }
        6 => {
            let d = if r[0] & 64 != 0 {
                (r[0] % (nd as u64 + 1)) as isize - nd as isize - 1
            } else {
                (r[0] % (nd as u64 + 1)) as isize
            };
            let ud = d.rem_euclid(nd as isize + 1) as usize;
            let mut shape = sh.clone();
            shape.insert(ud, 1);
            let mm = m.gather(shape, |c| {
                let mut o = c.to_vec();
                o.remove(ud);
                o
            });
            Some((t.unsqueeze(d), mm, format!("unsqueeze({d})")))
        }
        7 if nd > 0 => {
            let d = pick_dim(r[0], nd);
            let ud = d.rem_euclid(nd as isize) as usize;
            if sh[ud] != 1 {
                let mm = m.clone();
                return Some((t.squeeze_dim(d), mm, format!("squeeze_dim({d}) (no-op)")));
            }
            let mut shape = sh.clone();
            shape.remove(ud);
            let mm = Model {
                vals: m.vals.clone(),
                shape,
            };
            Some((t.squeeze_dim(d), mm, format!("squeeze_dim({d})")))
        }
        8 => {
            let shape: Vec<usize> = sh.iter().copied().filter(|&n| n != 1).collect();
            let mm = Model {
                vals: m.vals.clone(),
                shape,
            };
            Some((t.squeeze(), mm, "squeeze()".into()))
        }
        9 => {
            // reshape to: a rotation of the dims, a merge of two neighbours, or a split into (1, n)
            let mut shape = sh.clone();
            match r[0] % 3 {
                0 if nd > 1 => shape.rotate_left((r[1] % nd as u64) as usize),
                1 if nd > 1 => {
                    let i = (r[1] % (nd as u64 - 1)) as usize;
                    let n = shape.remove(i + 1);
                    shape[i] *= n;
                }
                _ if nd > 0 => {
                    let i = (r[1] % nd as u64) as usize;
                    shape.insert(i, 1);
                }
                _ => shape = vec![1, 1],
            }
            let mut arg: Vec<isize> = shape.iter().map(|&n| n as isize).collect();
            let numel: usize = shape.iter().product();
            if numel > 0 && !arg.is_empty() && r[2].is_multiple_of(2) {
                let k = (r[2] / 2 % arg.len() as u64) as usize;
                arg[k] = -1;
            }
            let mm = Model {
                vals: m.vals.clone(),
                shape,
            };
            // `view` must agree whenever it succeeds, and succeed on contiguous input.
            match t.try_view(&arg) {
                Ok(v) => assert_eq!(v.to_vec(), mm.vals, "view({arg:?})"),
                Err(e) => {
                    assert!(
                        !t.is_contiguous(),
                        "view of a contiguous tensor failed: {e}"
                    );
                    assert!(matches!(e, Error::InvalidView { .. }), "{e:?}");
                }
            }
            Some((t.reshape(&arg), mm, format!("reshape({arg:?})")))
        }
        10 if nd > 0 => {
            let (a, b) = ((r[0] % nd as u64) as usize, (r[1] % nd as u64) as usize);
            let (s, e) = (a.min(b), a.max(b));
            let mut shape = sh[..s].to_vec();
            shape.push(sh[s..=e].iter().product());
            shape.extend_from_slice(&sh[e + 1..]);
            let mm = Model {
                vals: m.vals.clone(),
                shape,
            };
            Some((
                t.flatten(s as isize, e as isize - nd as isize),
                mm,
                format!("flatten({s}, {e})"),
            ))
        }
        _ => None,
    }
}

#[test]
fn random_view_chains_match_model() {
    let config = Config {
        cases: 512,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5eed_f00d),
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (
        proptest::collection::vec(0usize..=6, 0..=5),
        proptest::collection::vec((any::<u8>(), any::<[u64; 3]>()), 1..12),
    );
    let mut runner = TestRunner::new(config);
    let steps_run = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(shape, ops)| {
            let n: usize = shape.iter().product();
            let mut t = Tensor::<i64>::from_fn(&shape, |i| i as i64).unwrap();
            let mut m = Model {
                vals: (0..n as i64).collect(),
                shape: shape.clone(),
            };
            let mut trace = vec![format!("start {shape:?}")];
            for (op, r) in ops {
                let Some((t2, m2, what)) = step(&t, &m, op, r) else {
                    continue;
                };
                trace.push(what);
                prop_assert!(
                    t2.layout()
                        .check_fits(t2.storage().len(), size_of::<i64>())
                        .is_ok(),
                    "layout outside storage after {trace:?}"
                );
                prop_assert_eq!(t2.shape(), &m2.shape[..], "shape after {:?}", trace);
                prop_assert_eq!(t2.numel(), m2.vals.len());
                prop_assert_eq!(t2.to_vec(), m2.vals.clone(), "values after {:?}", trace);
                if t2.numel() > 0 {
                    let c = coord_of(m2.vals.len() - 1, &m2.shape);
                    prop_assert_eq!(t2.get(&c).unwrap(), *m2.vals.last().unwrap());
                }
                steps_run.set(steps_run.get() + 1);
                t = t2;
                m = m2;
            }
            Ok(())
        })
        .unwrap();
    let steps_run = steps_run.get();
    println!("views: 512 random chains, {steps_run} view steps checked");
    assert!(steps_run > 2000);
}

#[test]
fn slice_semantics() {
    let t = Tensor::<i32>::from_fn(&[5], |i| i as i32).unwrap();
    let s = |a, b, st| t.slice(0, a, b, st).to_vec();
    assert_eq!(s(None, None, -1), [4, 3, 2, 1, 0]);
    assert_eq!(s(None, None, -2), [4, 2, 0]);
    assert_eq!(s(Some(-2), None, 1), [3, 4]);
    assert_eq!(s(Some(3), Some(0), -1), [3, 2, 1]);
    assert_eq!(s(Some(-100), Some(100), 2), [0, 2, 4]);
    assert_eq!(s(Some(100), Some(-100), -3), [4, 1]);
    assert_eq!(s(Some(2), Some(2), 1), Vec::<i32>::new());
    assert_eq!(t.slice(0, None, None, -1).strides(), &[-1]);
    assert_eq!(t.slice(0, None, None, -1).offset(), 4);
    assert!(matches!(
        t.try_slice(0, None, None, 0),
        Err(Error::InvalidArgument { .. })
    ));
    // A reversed view is a real view: reshape keeps it (negative strides), no copy.
    let r = t
        .slice(0, Some(4), None, -1)
        .narrow(0, 0, 4)
        .reshape([2, 2]);
    assert_eq!(r.strides(), &[-2, -1]);
    assert!(weft::storage::Storage::ptr_eq(r.storage(), t.storage()));
    assert_eq!(r.to_vec(), [4, 3, 2, 1]);
}

#[test]
fn views_share_storage_and_match_torch_strides() {
    let t = Tensor::<f32>::from_fn(&[2, 3, 4], |i| i as f32).unwrap();
    assert_eq!(t.transpose(0, 2).strides(), &[1, 4, 12]);
    assert_eq!(t.permute(&[1, -1, 0]).shape(), &[3, 4, 2]);
    assert_eq!(t.select(1, -1).shape(), &[2, 4]);
    assert_eq!(t.select(1, -1).offset(), 8);
    assert_eq!(t.unsqueeze(1).strides(), &[12, 12, 4, 1]);
    assert_eq!(t.unsqueeze(-1).strides(), &[12, 4, 1, 1]);
    let e = t.select(0, 0).select(0, 0).unsqueeze(0).expand([5, 3, -1]);
    assert_eq!((e.shape(), e.strides()), (&[5, 3, 4][..], &[0, 0, 1][..]));
    assert_eq!(t.broadcast_to(&[7, 2, 3, 4]).strides(), &[0, 12, 4, 1]);
    // transpose then flatten is not a view: reshape copies, view refuses.
    let tt = t.transpose(1, 2);
    let flat = tt.reshape([-1]);
    assert!(flat.is_contiguous() && !weft::storage::Storage::ptr_eq(flat.storage(), t.storage()));
    assert!(matches!(tt.try_view([24]), Err(Error::InvalidView { .. })));
    // Splitting a transposed dim is fine as a view.
    let v = tt.view([2, 2, 2, 3]);
    assert!(weft::storage::Storage::ptr_eq(v.storage(), t.storage()));
    assert_eq!(v.strides(), &[12, 2, 1, 4]);
    assert_eq!(t.flatten(0, 1).shape(), &[6, 4]);
    assert_eq!(Tensor::<i64>::scalar(7).flatten(0, -1).shape(), &[1]);
    // t(): 0-d and 1-d unchanged, 2-d transposed, 3-d refused.
    assert_eq!(Tensor::<i8>::zeros(&[3]).t().shape(), &[3]);
    assert_eq!(t.select(0, 0).t().shape(), &[4, 3]);
    assert!(t.try_t().is_err());
    assert_eq!(t.squeeze_dim(0).shape(), &[2, 3, 4]); // size 2: unchanged, like torch
    assert_eq!(Tensor::<u8>::zeros(&[1, 3, 1]).squeeze().shape(), &[3]);
}

#[test]
fn view_errors() {
    let t = Tensor::<f64>::zeros(&[2, 3]);
    let oor = |r: Result<Tensor<f64>, Error>| matches!(r, Err(Error::IndexOutOfRange { .. }));
    assert!(oor(t.try_transpose(0, 2)));
    assert!(oor(t.try_transpose(-3, 0)));
    assert!(oor(t.try_permute(&[0, 2])));
    assert!(t.try_permute(&[0, 0]).is_err());
    assert!(t.try_permute(&[0]).is_err());
    assert!(oor(t.try_select(1, 3)));
    assert!(oor(t.try_select(1, -4)));
    assert!(oor(t.try_select(2, 0)));
    assert!(oor(t.try_slice(-3, None, None, 1)));
    assert!(oor(t.try_unsqueeze(3)));
    assert!(oor(t.try_unsqueeze(-4)));
    assert!(oor(t.try_squeeze_dim(2)));
    assert!(oor(t.try_narrow(1, 4, 0)));
    assert!(t.try_narrow(1, 2, 2).is_err());
    assert!(oor(t.try_flatten(0, 2)));
    assert!(t.try_flatten(1, 0).is_err());
    assert!(matches!(
        t.try_expand([3, 3]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        t.try_expand([3]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(t.try_expand([-1, 2, 3]).is_err());
    assert!(matches!(
        t.try_reshape([4, 2]),
        Err(Error::NumelMismatch { .. })
    ));
    assert!(matches!(t.try_view([7]), Err(Error::NumelMismatch { .. })));
    assert!(t.try_reshape([-1, -1]).is_err());
    assert!(t.try_reshape([-1, 4]).is_err());
    assert!(t.try_reshape([-2, 3]).is_err());
    assert!(Tensor::<f64>::zeros(&[0, 3]).try_reshape([0, -1]).is_err());
    // Element counts that overflow i64 are an error, never a wrap.
    let big = 1usize << 32;
    assert!(matches!(
        Tensor::<u8>::try_zeros(&[big, big]),
        Err(Error::NumelOverflow { .. })
    ));
    assert!(matches!(
        Tensor::<u8>::from_vec(vec![], &[big, big, big, 0]),
        Err(Error::NumelOverflow { .. })
    ));
    assert!(matches!(
        Tensor::<f64>::try_zeros(&[1 << 61]),
        Err(Error::NumelOverflow { .. })
    ));
    let one = Tensor::<u8>::zeros(&[1, 1]);
    assert!(matches!(
        one.try_broadcast_to(&[big, big]),
        Err(Error::NumelOverflow { .. })
    ));
    assert!(matches!(
        one.try_reshape([big as isize, big as isize]),
        Err(Error::NumelOverflow { .. })
    ));
    let msg = std::panic::catch_unwind(|| t.transpose(0, 5)).unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("dimension 5 is out of range"), "{msg}");
}

#[test]
fn dyn_views_and_conversion() {
    let d = DynTensor::from_vec(vec![1.5f32, -2.5, 3.0, 300.7], &[2, 2]).unwrap();
    let t = d.t();
    assert_eq!(t.dtype(), DType::F32);
    assert_eq!(t.strides(), &[1, 2]);
    let i = t.to(DType::I16);
    assert_eq!(i.dtype(), DType::I16);
    // Like PyTorch's preserve_format: a dense input's layout (here transposed) is kept.
    assert_eq!(i.strides(), &[1, 2]);
    assert_eq!(i.as_typed::<i16>().unwrap().to_vec(), [1, 3, -2, 300]);
    assert_eq!(
        d.to(DType::U8).as_typed::<u8>().unwrap().to_vec(),
        [1, 0, 3, 255]
    );
    assert_eq!(
        d.to(DType::Bool).as_typed::<bool>().unwrap().to_vec(),
        [true; 4]
    );
    assert_eq!(d.slice(1, None, None, -1).reshape([-1]).shape(), &[4]);
    assert_eq!(d.expand([3, 2, 2]).strides(), &[0, 2, 1]);
    assert!(matches!(
        d.try_select(0, 2),
        Err(Error::IndexOutOfRange { .. })
    ));
    // PyTorch: "value cannot be converted to type uint8_t without overflow"; -1 wraps.
    assert!(matches!(
        DynTensor::full(DType::U8, &[2], Scalar::Int(300)),
        Err(Error::ScalarOverflow { .. })
    ));
    let f = DynTensor::full(DType::U8, &[2], Scalar::Int(-1)).unwrap();
    assert_eq!(f.as_typed::<u8>().unwrap().to_vec(), [255, 255]);
    let o = DynTensor::ones(DType::BF16, &[3]).unwrap();
    assert_eq!(format!("{o}"), "tensor([1., 1., 1.], dtype=torch.bfloat16)");
    assert_eq!(
        DynTensor::scalar(DType::I64, Scalar::Float(2.9)).to_string(),
        "tensor(2)"
    );
    assert!(DynTensor::zeros(DType::F64, &[usize::MAX, 2]).is_err());
    let typed: Tensor<f32> = d.clone().try_into().unwrap();
    assert_eq!(
        typed.to::<f64>().to_vec(),
        [1.5, -2.5, 3.0, 300.7f32 as f64]
    );
}

#[test]
fn constructors() {
    assert_eq!(
        Tensor::<i64>::arange(0, 5, 1).unwrap().to_vec(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(
        Tensor::<i32>::arange(10, 0, -3).unwrap().to_vec(),
        [10, 7, 4, 1]
    );
    assert_eq!(Tensor::<u8>::arange(0, 0, 1).unwrap().shape(), &[0]);
    assert_eq!(
        Tensor::<f32>::arange(0.0, 1.0, 0.25).unwrap().to_vec(),
        [0.0, 0.25, 0.5, 0.75]
    );
    assert_eq!(Tensor::<f64>::arange(1.0, 2.0, 0.3).unwrap().numel(), 4); // ceil(1/0.3)
    assert!(Tensor::<i64>::arange(0, 5, 0).is_err());
    assert!(Tensor::<i64>::arange(0, 5, -1).is_err());
    assert!(Tensor::<bool>::arange(false, true, true).is_err());
    assert!(Tensor::<f32>::arange(0.0, f32::INFINITY, 1.0).is_err());
    let l = Tensor::<f64>::linspace(-1.0, 1.0, 5).unwrap().to_vec();
    assert_eq!(l, [-1.0, -0.5, 0.0, 0.5, 1.0]);
    assert_eq!(
        Tensor::<f32>::linspace(3.0, 4.0, 1).unwrap().to_vec(),
        [3.0]
    );
    assert_eq!(Tensor::<f32>::linspace(3.0, 4.0, 0).unwrap().numel(), 0);
    assert!(Tensor::<i32>::linspace(0.0, 1.0, 3).is_err());

    // Seeded random: deterministic, in range, plausible moments.
    for seed in [0u64, 1, 42] {
        let a = Tensor::<f32>::rand(&[10_000], seed).unwrap().to_vec();
        assert_eq!(a, Tensor::<f32>::rand(&[10_000], seed).unwrap().to_vec());
        assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = a.iter().map(|&x| x as f64).sum::<f64>() / a.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        let n = Tensor::<f64>::randn(&[100, 100], seed).unwrap().to_vec();
        let mean = n.iter().sum::<f64>() / n.len() as f64;
        let var = n.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n.len() as f64;
        assert!(
            mean.abs() < 0.05 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
        let h = Tensor::<weft::half::f16>::rand(&[1000], seed)
            .unwrap()
            .to_vec();
        assert!(h.iter().all(|x| (0.0..1.0).contains(&x.to_f32())));
        let b = Tensor::<weft::half::bf16>::randn(&[10], seed).unwrap();
        assert_eq!(b.numel(), 10);
        let r = Tensor::<i8>::randint(&[1000], -128, 128, seed)
            .unwrap()
            .to_vec();
        assert!(r.contains(&-128) && r.contains(&127));
        let r = Tensor::<u8>::randint(&[1000], 5, 8, seed).unwrap().to_vec();
        assert!(r.iter().all(|x| (5..8).contains(x)) && r.contains(&5) && r.contains(&7));
    }
    assert_ne!(
        Tensor::<f32>::rand(&[8], 1).unwrap().to_vec(),
        Tensor::<f32>::rand(&[8], 2).unwrap().to_vec()
    );
    assert!(Tensor::<i64>::rand(&[2], 0).is_err());
    assert!(Tensor::<f32>::randint(&[2], 0, 5, 0).is_err());
    assert!(Tensor::<u8>::randint(&[2], 0, 257, 0).is_err());
    assert!(Tensor::<i32>::randint(&[2], 5, 5, 0).is_err());
    let f = Tensor::<i16>::from_fn(&[2, 2], |i| (i * 10) as i16).unwrap();
    assert_eq!(f.get(&[1, 0]).unwrap(), 20);
}

#[test]
fn display_like_torch() {
    let f = |v: Vec<f32>, s: &[usize]| Tensor::from_vec(v, s).unwrap().to_string();
    assert_eq!(
        f(vec![1., 2., 3., 4.], &[2, 2]),
        "tensor([[1., 2.],\n        [3., 4.]])"
    );
    assert_eq!(f(vec![1.5, 2.25], &[2]), "tensor([1.5000, 2.2500])");
    assert_eq!(f(vec![-1., 0.5], &[2]), "tensor([-1.0000,  0.5000])");
    assert_eq!(f(vec![1e10, 1.], &[2]), "tensor([1.0000e+10, 1.0000e+00])");
    assert_eq!(f(vec![1e-5, 1.], &[2]), "tensor([1.0000e-05, 1.0000e+00])");
    assert_eq!(
        f(vec![f32::NAN, 1., f32::NEG_INFINITY], &[3]),
        "tensor([nan, 1., -inf])"
    );
    assert_eq!(f(vec![0., -0.], &[2]), "tensor([0., -0.])");
    assert_eq!(f(vec![3.], &[]), "tensor(3.)");
    assert_eq!(f(vec![], &[0]), "tensor([])");
    assert_eq!(f(vec![], &[2, 0]), "tensor([], size=(2, 0))");
    assert_eq!(
        Tensor::<i64>::zeros(&[0]).to_string(),
        "tensor([], dtype=torch.int64)"
    );
    assert_eq!(
        Tensor::from_vec(vec![1i32, -20, 3], &[3])
            .unwrap()
            .to_string(),
        "tensor([  1, -20,   3], dtype=torch.int32)"
    );
    assert_eq!(
        Tensor::from_vec(vec![true, false], &[2])
            .unwrap()
            .to_string(),
        "tensor([ True, False])"
    );
    assert_eq!(
        Tensor::<u8>::scalar(7).to_string(),
        "tensor(7, dtype=torch.uint8)"
    );
    assert_eq!(
        Tensor::from_vec(vec![weft::half::f16::from_f32(1.5)], &[1])
            .unwrap()
            .to_string(),
        "tensor([1.5000], dtype=torch.float16)"
    );
    assert_eq!(
        Tensor::<f64>::ones(&[2]).to_string(),
        "tensor([1., 1.], dtype=torch.float64)"
    );
    let cube = Tensor::<f32>::arange(0.0, 24.0, 1.0)
        .unwrap()
        .reshape([2, 3, 4]);
    assert_eq!(
        cube.to_string(),
        "tensor([[[ 0.,  1.,  2.,  3.],\n         [ 4.,  5.,  6.,  7.],\n         [ 8.,  9., 10., 11.]],\n\n        [[12., 13., 14., 15.],\n         [16., 17., 18., 19.],\n         [20., 21., 22., 23.]]])"
    );
    // A strided view prints its logical elements.
    assert_eq!(
        cube.select(2, 0).t().to_string(),
        "tensor([[ 0., 12.],\n        [ 4., 16.],\n        [ 8., 20.]])"
    );
    // Summaries past 1000 elements, 3 edge items per dim.
    let long = Tensor::<i64>::arange(0, 2000, 1).unwrap();
    assert_eq!(
        long.to_string(),
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    );
    assert_eq!(
        long.reshape([1000, 2]).to_string(),
        "tensor([[   0,    1],\n        [   2,    3],\n        [   4,    5],\n        ...,\n        [1994, 1995],\n        [1996, 1997],\n        [1998, 1999]])"
    );
    // Line wrapping at 80 columns (18 two-digit numbers per line, as torch.arange(100)).
    let s = Tensor::<i64>::arange(0, 100, 1).unwrap().to_string();
    let first = s.lines().next().unwrap();
    assert_eq!(
        first,
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,"
    );
    assert!(s.lines().nth(1).unwrap().starts_with("        18, 19,"));
}

/// A shape is `&[usize]` wherever one is passed (`reshape(b.shape())`); signed entries carry
/// PyTorch's `-1`.
#[test]
fn shape_arguments_take_usize_slices_and_signed_minus_one() {
    let a = Tensor::<f32>::arange(0.0, 6.0, 1.0).unwrap();
    let b = Tensor::<f32>::zeros(&[2, 3]);
    assert_eq!(a.reshape(b.shape()).shape(), &[2, 3]);
    assert_eq!(a.reshape([-1, 2]).shape(), &[3, 2]);
    assert_eq!(a.view(vec![3usize, 2]).shape(), &[3, 2]);
    let c = Tensor::<f32>::zeros(&[1, 3]);
    assert_eq!(c.expand(b.shape()).shape(), &[2, 3]);
    assert_eq!(c.expand([4, -1]).shape(), &[4, 3]);
    assert!(a.try_reshape([usize::MAX]).is_err());
}

/// Errors name the op, the dim and the size.
#[test]
fn index_errors_name_op_dim_and_size() {
    let t = Tensor::<f32>::zeros(&[3, 2]);
    let msg = t.try_select(0, 3).unwrap_err().to_string();
    assert_eq!(msg, "select: index 3 is out of range for dim 0 of size 3");
    let msg = t.get(&[0, 5]).unwrap_err().to_string();
    assert_eq!(msg, "get: index 5 is out of range for dim 1 of size 2");
    let msg = t.try_narrow(1, 3, 1).unwrap_err().to_string();
    assert_eq!(msg, "narrow: start 3 is out of range for dim 1 of size 2");
}

/// Copies of non-contiguous views move bits: a half's signalling NaN stays signalling through
/// `contiguous()`, `clone()`, `to_vec()` and a same-dtype `copy_` (the iterator's copy moves
/// the elements as unsigned integers; through f32 they would be quieted).
#[test]
fn copies_of_views_keep_every_bit() {
    use weft::half::{bf16, f16};
    // 0x7c01 / 0x7f81: signalling NaNs; 0x8000: -0.0; the rest arbitrary patterns.
    let bits: Vec<u16> = vec![0x7c01, 0x8000, 0x3c00, 0xfc01, 0x7f81, 0x1234];
    let h = Tensor::from_vec(bits.iter().map(|&b| f16::from_bits(b)).collect(), &[2, 3]).unwrap();
    let ht = h.t();
    let want: Vec<u16> = (0..6).map(|i| bits[(i % 2) * 3 + i / 2]).collect();
    let got = |v: Vec<f16>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(got(ht.contiguous().to_vec()), want);
    assert_eq!(got(ht.clone().to_vec()), want);
    assert_eq!(got(ht.to_vec()), want);
    let mut out = Tensor::<f16>::zeros(&[3, 2]);
    out.copy_(&ht);
    assert_eq!(got(out.to_vec()), want);
    let b = Tensor::from_vec(bits.iter().map(|&b| bf16::from_bits(b)).collect(), &[2, 3]).unwrap();
    let bt: Vec<u16> = b.t().to_vec().iter().map(|x| x.to_bits()).collect();
    assert_eq!(bt, want);
}
