//! Layout algebra: CuTe's documented examples (02_layout_algebra.md, 01_layout.md) and the
//! algebra's defining properties, checked on random layouts from a fixed-seed generator.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::HashSet;
use weft::layout::algebra::*;
use weft::layout::coord::*;
use weft::layout::{GroupedLayout, print_grouped_layout, print_layout, print_tensor};
use weft::tensor::identity_tensor;
use weft::{Error, Layout, Tensor};

fn l(shape: &[usize], strides: &[isize]) -> Layout {
    Layout::from_shape_strides(shape, strides).unwrap()
}

/// Runs `f` on `cases` values of `strat` drawn from a fixed ChaCha seed (reproducible).
fn run_cases<S: Strategy>(seed: u8, cases: usize, strat: S, mut f: impl FnMut(S::Value))
where
    S::Value: std::fmt::Debug,
{
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    for _ in 0..cases {
        let v = strat.new_tree(&mut runner).unwrap().current();
        f(v);
    }
}

/// A random flat layout: rank 0..=4, sizes 1..=6, strides in -9..=9, offset making every
/// offset non-negative.
fn any_layout(max_rank: usize, neg: bool) -> impl Strategy<Value = Layout> {
    let lo = if neg { -9isize } else { 0 };
    prop::collection::vec((1usize..=6, lo..=9isize), 0..=max_rank).prop_map(|modes| {
        let shape: Vec<usize> = modes.iter().map(|m| m.0).collect();
        let strides: Vec<isize> = modes.iter().map(|m| m.1).collect();
        let neg: isize = shape
            .iter()
            .zip(&strides)
            .map(|(&n, &s)| if s < 0 { (n as isize - 1) * -s } else { 0 })
            .sum();
        Layout::new(shape, strides, neg as usize).unwrap()
    })
}

/// A random injective compact layout: a column-major layout of a random shape with its modes
/// permuted, and a random subset of them kept (so there are holes a complement fills).
fn injective_layout() -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec(1usize..=5, 1..=4),
        any::<u64>(),
        prop::collection::vec(any::<bool>(), 4),
    )
        .prop_map(|(shape, perm_seed, keep)| {
            let full = Layout::col_major(&shape);
            let mut idx: Vec<usize> = (0..shape.len()).collect();
            // A deterministic shuffle from the drawn seed.
            let mut s = perm_seed;
            for i in (1..idx.len()).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                idx.swap(i, (s >> 33) as usize % (i + 1));
            }
            let kept: Vec<usize> = idx
                .into_iter()
                .enumerate()
                .filter(|(j, _)| keep[*j] || *j == 0)
                .map(|(_, k)| k)
                .collect();
            l(
                &kept.iter().map(|&k| full.shape()[k]).collect::<Vec<_>>(),
                &kept.iter().map(|&k| full.strides()[k]).collect::<Vec<_>>(),
            )
        })
}

// ---- Display, construction, coordinates ----

#[test]
fn display_uses_cute_notation() {
    assert_eq!(Layout::row_major(&[4, 4]).to_string(), "(4,4):(4,1)");
    assert_eq!(Layout::col_major(&[4, 4]).to_string(), "(4,4):(1,4)");
    assert_eq!(
        Layout::col_major(&[2, 3, 5, 7]).to_string(),
        "(2,3,5,7):(1,2,6,30)"
    );
    assert_eq!(l(&[8], &[2]).to_string(), "8:2");
    assert_eq!(l(&[], &[]).to_string(), "():()");
    assert_eq!(
        Layout::new(vec![2, 3], vec![3, 1], 5).unwrap().to_string(),
        "(2,3):(3,1)+5"
    );
}

#[test]
fn coordinate_orders() {
    // 01_layout.md: idx2crd(16, (3,6)) == (1,5) in the 2-D view of (3,(2,3)).
    assert_eq!(colex_to_coord(&[3, 6], 16), vec![1, 5]);
    assert_eq!(colex_to_coord(&[3, 2, 3], 16), vec![1, 1, 2]);
    assert_eq!(coord_to_colex(&[3, 2, 3], &[1, 1, 2]), 16);
    // crd2idx(16, (3,(2,3)), (3,(12,1))) == 17
    let a = l(&[3, 2, 3], &[3, 12, 1]);
    assert_eq!(a.eval_colex(16).unwrap(), 17);
    assert_eq!(a.eval(&[1, 1, 2]).unwrap(), 17);
    // Row-major and colex name the same element differently.
    let m = Layout::row_major(&[2, 3]);
    assert_eq!(row_major_to_coord(&[2, 3], 4), vec![1, 1]);
    assert_eq!(coord_to_row_major(&[2, 3], &[1, 1]), 4);
    assert_eq!(m.eval_row_major(4).unwrap(), 4);
    assert_eq!(m.eval_colex(3).unwrap(), 4); // colex 3 == (1,1)
    assert_eq!(Layout::col_major(&[2, 3]).eval_colex(3).unwrap(), 3);
    // 01_layout.md print1D(s2xh4) with s2xh4 = (2,(2,2)):(4,(2,1))
    let s2xh4 = l(&[2, 2, 2], &[4, 2, 1]);
    let v: Vec<isize> = (0..8).map(|i| s2xh4.eval_colex(i).unwrap()).collect();
    assert_eq!(v, [0, 4, 2, 6, 1, 5, 3, 7]);
    // Errors, not panics.
    assert!(matches!(
        a.eval_colex(18),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        a.eval(&[3, 0, 0]),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        a.eval(&[0, 0]),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn size_and_cosize() {
    let a = l(&[3, 2, 3], &[3, 12, 1]);
    assert_eq!(a.size(), 18);
    assert_eq!(a.cosize(), 21); // largest offset 20
    assert_eq!(l(&[4, 6], &[1, 4]).cosize(), 24);
    assert_eq!(l(&[4], &[0]).cosize(), 1);
    assert_eq!(l(&[0, 4], &[4, 1]).cosize(), 0);
    // A reversed view: offsets 3..=0 from offset 3.
    assert_eq!(Layout::new(vec![4], vec![-1], 3).unwrap().cosize(), 4);
    assert_eq!(Layout::new(vec![2], vec![1], 10).unwrap().cosize(), 12);
}

#[test]
fn slice_at_gives_offset_and_residual() {
    let a = Layout::new(vec![3, 4, 5], vec![20, 5, 1], 7).unwrap();
    let (off, r) = a.slice_at(&[Some(1), None, Some(2)]).unwrap();
    assert_eq!(off, 7 + 20 + 2);
    assert_eq!(r, l(&[4], &[5]));
    for j in 0..4 {
        assert_eq!(off as isize + r.index_of(&[j]), a.index_of(&[1, j, 2]));
    }
    let (off, r) = a.slice_at(&[None, None, None]).unwrap();
    assert_eq!((off, r), (7, a.with_offset(0)));
    assert!(matches!(
        a.slice_at(&[Some(3), None, None]),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        a.slice_at(&[None, None]),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn slice_at_property() {
    run_cases(11, 512, (any_layout(4, true), any::<u64>()), |(a, seed)| {
        let mut s = seed;
        let part: Vec<Option<usize>> = a
            .shape()
            .iter()
            .map(|&n| {
                s = s.rotate_left(7) ^ 0x9E37_79B9_7F4A_7C15;
                if s & 1 == 0 {
                    None
                } else {
                    Some((s >> 8) as usize % n)
                }
            })
            .collect();
        let (off, r) = a.slice_at(&part).unwrap();
        for i in 0..r.size() {
            let rc = colex_to_coord(r.shape(), i);
            let mut it = rc.iter();
            let full: Vec<usize> = part
                .iter()
                .map(|p| p.unwrap_or_else(|| *it.next().unwrap()))
                .collect();
            assert_eq!(
                off as isize + r.index_of(&rc),
                a.index_of(&full),
                "{a} at {part:?}"
            );
        }
    });
}

// ---- coalesce ----

#[test]
fn coalesce_docs_examples() {
    // (2,(1,6)):(1,(6,2)) flattened
    assert_eq!(coalesce(&l(&[2, 1, 6], &[1, 6, 2])).to_string(), "12:1");
    assert_eq!(coalesce(&l(&[2, 4], &[1, 2])).to_string(), "8:1");
    assert_eq!(coalesce(&l(&[1, 1], &[5, 7])).to_string(), "1:0");
    assert_eq!(coalesce(&l(&[4, 3], &[2, 1])).to_string(), "(4,3):(2,1)");
    // Row-major: (3,4):(4,1) is 12:1 read row-major, not colex.
    assert_eq!(
        coalesce(&Layout::row_major(&[3, 4])).to_string(),
        "(3,4):(4,1)"
    );
    assert_eq!(
        coalesce_row_major(&Layout::row_major(&[3, 4])).to_string(),
        "12:1"
    );
    assert_eq!(
        coalesce_row_major(&l(&[2, 3, 4], &[12, 4, 1])).to_string(),
        "24:1"
    );
}

#[test]
fn coalesce_preserves_function_and_size() {
    run_cases(1, 1024, any_layout(4, true), |a| {
        let c = coalesce(&a);
        assert_eq!(c.size(), a.size(), "{a} -> {c}");
        assert!(c.ndim() <= a.ndim().max(1));
        for i in 0..a.size() {
            assert_eq!(
                c.eval_colex(i).unwrap(),
                a.eval_colex(i).unwrap(),
                "{a} -> {c} at {i}"
            );
        }
        let r = coalesce_row_major(&a);
        assert_eq!(r.size(), a.size());
        for i in 0..a.size() {
            assert_eq!(
                r.index_of_linear(i),
                a.index_of_linear(i),
                "{a} -> {r} at {i}"
            );
        }
    });
}

// ---- composition ----

#[test]
fn composition_docs_examples() {
    let r = composition(&l(&[6, 2], &[8, 2]), &l(&[4, 3], &[3, 1])).unwrap();
    assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
    // The worked R(i) table of the docs.
    let v: Vec<isize> = (0..12).map(|i| r.layout().eval_colex(i).unwrap()).collect();
    assert_eq!(v, [0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42]);
    assert_eq!(
        composition(&l(&[20], &[2]), &l(&[5, 4], &[4, 1]))
            .unwrap()
            .to_string(),
        "(5,4):(8,2)"
    );
    assert_eq!(
        composition(&l(&[10, 2], &[16, 4]), &l(&[5, 4], &[1, 5]))
            .unwrap()
            .to_string(),
        "(5,(2,2)):(16,(80,4))"
    );
    // (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z); weft drops the size-1 mode.
    let (w, x, y, z) = (1000, 100, 10, 1);
    assert_eq!(
        composition(&l(&[3, 6, 2, 8], &[w, x, y, z]), &l(&[16], &[9]))
            .unwrap()
            .to_string(),
        format!("(2,2,4):({},{y},{z})", 3 * x)
    );
    // By-mode: (12,(4,8)):(59,(13,1)) with <3:4, 8:2>, and with the shape tiler (3,8).
    let a = GroupedLayout::new(l(&[12, 4, 8], &[59, 13, 1]), vec![1, 2]).unwrap();
    assert_eq!(a.to_string(), "(12,(4,8)):(59,(13,1))");
    let t = composition_by_mode(&a, &[l(&[3], &[4]), l(&[8], &[2])]).unwrap();
    assert_eq!(t.to_string(), "(3,(2,4)):(236,(26,1))");
    let t = composition_by_mode(&a, &[l(&[3], &[1]), l(&[8], &[1])]).unwrap();
    assert_eq!(t.to_string(), "(3,(4,2)):(59,(13,1))");
}

#[test]
fn composition_errors_where_not_a_layout() {
    // Stride divisibility: every 2nd element of (4,3):(1,10), 3 of them: 0, 2, 10.
    let a = l(&[4, 3], &[1, 10]);
    assert!(matches!(
        composition(&a, &l(&[3], &[2])),
        Err(Error::InvalidArgument { .. })
    ));
    // ... but 2 of them, or 4 (filling mode 0 then mode 1), are layouts.
    assert_eq!(composition(&a, &l(&[2], &[2])).unwrap().to_string(), "2:2");
    assert_eq!(
        composition(&a, &l(&[4], &[2])).unwrap().to_string(),
        "(2,2):(2,10)"
    );
    // Overlapping modes of B carry in A: (2,2):(1,10) o (2,2):(1,1).
    let a = l(&[2, 2], &[1, 10]);
    assert!(composition(&a, &l(&[2, 2], &[1, 1])).is_err());
    // B reaching negative indices.
    assert!(composition(&a, &l(&[2], &[-1])).is_err());
    assert!(composition(&l(&[0], &[1]), &l(&[2], &[1])).is_err());
}

#[test]
fn composition_with_offsets_and_negative_strides() {
    // A reversed vector: 4:-1 at offset 3 over 8:1 at offset 10.
    let a = Layout::new(vec![8], vec![1], 10).unwrap();
    let b = Layout::new(vec![4], vec![-1], 3).unwrap();
    let r = a.compose(&b).unwrap();
    assert_eq!(r, Layout::new(vec![4], vec![-1], 13).unwrap());
    // A column of a row-major matrix, reversed.
    let a = Layout::new(vec![4, 3], vec![-3, 1], 9).unwrap();
    let r = a.compose(&l(&[4], &[1])).unwrap();
    assert_eq!(r, Layout::new(vec![4], vec![-3], 9).unwrap());
}

fn check_composition(a: &Layout, b: &Layout, r: &GroupedLayout) {
    let rl = r.layout();
    assert_eq!(rl.size(), b.size(), "{a} o {b} = {r}");
    assert_eq!(r.rank(), b.ndim());
    for g in 0..b.ndim() {
        let gs: usize = r.mode(g).unwrap().size();
        assert_eq!(gs, b.shape()[g], "{a} o {b} = {r}: group {g} size");
    }
    for i in 0..b.size() {
        let bi = b.eval_colex(i).unwrap();
        assert!(bi >= 0);
        assert_eq!(
            rl.eval_colex(i).unwrap() as i128,
            a.eval_colex_ext(bi as usize),
            "{a} o {b} = {r} at {i}"
        );
    }
}

#[test]
fn composition_property_random() {
    let mut ok = 0;
    run_cases(
        2,
        2048,
        (any_layout(3, true), any_layout(3, true)),
        |(a, b)| {
            if a.size() == 0 {
                return;
            }
            if let Ok(r) = composition(&a, &b) {
                ok += 1;
                check_composition(&a, &b, &r);
            }
        },
    );
    assert!(
        ok > 400,
        "only {ok} of 2048 random compositions were representable"
    );
}

#[test]
fn composition_property_tilers() {
    // B drawn as a complement-friendly tiler over a compact A: always representable.
    let mut ok = 0;
    run_cases(
        3,
        1024,
        (injective_layout(), any_layout(3, true)),
        |(b, a)| {
            let a = if a.size() == 0 { l(&[1], &[0]) } else { a };
            let r = composition(&a, &b);
            if let Ok(r) = &r {
                ok += 1;
                check_composition(&a, &b, r);
            }
            // Composing with a compact column-major A is always possible.
            let ca = Layout::col_major(&[b.cosize().max(1)]);
            let r = composition(&ca, &b).unwrap();
            check_composition(&ca, &b, &r);
        },
    );
    assert!(ok > 200, "{ok}");
}

// ---- complement ----

#[test]
fn complement_docs_examples() {
    let c = |a: Layout, m| complement(&a, m).unwrap().to_string();
    assert_eq!(c(l(&[4], &[1]), 24), "6:4");
    assert_eq!(c(l(&[6], &[4]), 24), "4:1");
    assert_eq!(c(l(&[4, 6], &[1, 4]), 24), "1:0");
    assert_eq!(c(l(&[4], &[2]), 24), "(2,3):(1,8)");
    assert_eq!(c(l(&[2, 4], &[1, 6]), 24), "3:2");
    assert_eq!(c(l(&[2, 2], &[1, 6]), 24), "(3,2):(2,12)");
}

#[test]
fn complement_errors() {
    assert!(complement(&l(&[4], &[0]), 8).is_err()); // not injective
    assert!(complement(&l(&[4], &[-1]), 8).is_err());
    assert!(complement(&l(&[2, 2], &[1, 1]), 8).is_err()); // overlapping
    assert!(complement(&l(&[2, 2], &[2, 3]), 8).is_err()); // hole of stride 3 after 2:2
}

fn check_complement(a: &Layout, m: usize, c: &Layout) {
    // Ordered: positive increasing strides.
    for w in c.strides().windows(2) {
        assert!(w[0] < w[1], "{a} complement {m} = {c}");
    }
    let image_a: HashSet<isize> = (0..a.size()).map(|i| a.eval_colex(i).unwrap()).collect();
    for i in 1..c.size() {
        assert!(
            !image_a.contains(&c.eval_colex(i).unwrap()),
            "{a} / {c} at {i}"
        );
    }
    let both = concat(&a.with_offset(0), c).unwrap();
    let image: HashSet<isize> = (0..both.size())
        .map(|i| both.eval_colex(i).unwrap())
        .collect();
    assert_eq!(
        image.len(),
        both.size(),
        "(a, complement) not injective: {both}"
    );
    for k in 0..m as isize {
        assert!(image.contains(&k), "{both} misses {k} < {m}");
    }
}

#[test]
fn complement_property() {
    run_cases(4, 1024, (injective_layout(), 1usize..200), |(a, m)| {
        let c = complement(&a, m).unwrap();
        check_complement(&a, m, &c);
    });
    // Random layouts: either an error or a valid complement.
    let mut ok = 0;
    run_cases(5, 2048, (any_layout(3, false), 1usize..100), |(a, m)| {
        if let Ok(c) = complement(&a, m) {
            ok += 1;
            check_complement(&a, m, &c);
        }
    });
    assert!(ok > 200, "{ok}");
}

// ---- divide, product ----

#[test]
fn logical_divide_docs_examples() {
    let a = l(&[4, 2, 3], &[2, 1, 8]);
    let d = logical_divide(&a, &l(&[4], &[2])).unwrap();
    assert_eq!(d.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    // 2-D: A = (9,(4,8)):(59,(13,1)), tiler <3:3, (2,4):(1,8)>.
    let a = GroupedLayout::new(l(&[9, 4, 8], &[59, 13, 1]), vec![1, 2]).unwrap();
    let tiler = [l(&[3], &[3]), l(&[2, 4], &[1, 8])];
    assert_eq!(
        composition_by_mode(&a, &tiler).unwrap().to_string(),
        "(3,(2,4)):(177,(13,2))"
    );
    let z = zipped_divide(&a, &tiler).unwrap();
    // ((TileM,TileN),(RestM,RestN)) with shape ((3,8),(3,4))
    assert_eq!(z.mode(0).unwrap().size(), 24);
    assert_eq!(
        z.mode(0).unwrap(),
        composition_by_mode(&a, &tiler).unwrap().into_layout()
    );
    let rest = z.mode(1).unwrap();
    assert_eq!(rest.size(), 12);
    assert_eq!(rest.shape().iter().product::<usize>(), 3 * 4);
}

#[test]
fn logical_divide_property() {
    let mut ok = 0;
    run_cases(
        6,
        1024,
        (any_layout(3, true), injective_layout()),
        |(a, b)| {
            if a.size() == 0 {
                return;
            }
            let Ok(d) = logical_divide(&a, &b) else {
                return;
            };
            ok += 1;
            let bstar = complement(&b, a.size()).unwrap();
            let bb = concat(&b, &bstar).unwrap();
            let r = composition(&a, &bb).unwrap();
            // Agrees with composition with (tiler, complement) ...
            assert_eq!(d.layout(), r.layout());
            assert_eq!(d.mode(0).unwrap().size(), b.size());
            // ... and tile i of the tiles is A at (B, B*)(i + size(B) * j).
            let dl = d.layout();
            for i in 0..dl.size() {
                let v = bb.eval_colex(i).unwrap() as usize;
                assert_eq!(
                    dl.eval_colex(i).unwrap() as i128,
                    a.eval_colex_ext(v),
                    "{a} / {b}"
                );
            }
            // When B tiles A exactly, the divide is a permutation of A's offsets.
            if a.size() % b.size() == 0 && b.cosize() <= a.size() && b.cosize() == b.size() {
                let mut x: Vec<isize> = (0..a.size()).map(|i| a.eval_colex(i).unwrap()).collect();
                let mut y: Vec<isize> = (0..dl.size()).map(|i| dl.eval_colex(i).unwrap()).collect();
                x.sort();
                y.sort();
                assert_eq!(x, y, "{a} / {b} = {d}");
            }
        },
    );
    assert!(ok > 200, "{ok}");
}

#[test]
fn logical_product_docs_example() {
    let p = logical_product(&l(&[2, 2], &[4, 1]), &l(&[6], &[1])).unwrap();
    assert_eq!(p.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
}

#[test]
fn tile_splits_each_mode() {
    let a = Layout::row_major(&[6, 8]);
    let t = tile(&a, &[3, 4]).unwrap();
    assert_eq!(t.to_string(), "(3,4,2,2):(8,1,24,4)");
    for (i, j, bi, bj) in [(0, 0, 0, 0), (2, 3, 1, 1), (1, 2, 1, 0)] {
        assert_eq!(
            t.index_of(&[i, j, bi, bj]),
            a.index_of(&[bi * 3 + i, bj * 4 + j])
        );
    }
    assert!(tile(&a, &[4, 4]).is_err());
    assert!(tile(&a, &[3]).is_err());
    // Contiguous tiles are zipped_divide with <t0:1, t1:1>.
    let z = zipped_divide(
        &GroupedLayout::flat(a.clone()),
        &[l(&[3], &[1]), l(&[4], &[1])],
    )
    .unwrap();
    assert_eq!(z.layout(), &t);
}

// ---- inverses ----

#[test]
fn right_inverse_examples() {
    assert_eq!(
        right_inverse(&l(&[4, 2], &[2, 1])).to_string(),
        "(2,4):(4,1)"
    );
    assert_eq!(
        right_inverse(&Layout::col_major(&[3, 5])).to_string(),
        "15:1"
    );
    assert_eq!(
        right_inverse(&Layout::row_major(&[3, 5])).to_string(),
        "(5,3):(3,1)"
    );
    // No stride-1 mode: only the trivial inverse.
    assert_eq!(right_inverse(&l(&[4], &[2])).to_string(), "1:0");
}

#[test]
fn right_inverse_property() {
    run_cases(7, 1024, any_layout(4, true), |a| {
        let r = right_inverse(&a);
        for i in 0..r.size() {
            let ri = r.eval_colex(i).unwrap();
            assert!(ri >= 0 && (ri as usize) < a.size().max(1), "{a} r {r}");
            if a.size() > 0 {
                assert_eq!(
                    a.eval_colex(ri as usize).unwrap(),
                    a.offset() as isize + i as isize,
                    "{a} right inverse {r} at {i}"
                );
            }
        }
    });
    // For a compact layout the inverse is complete.
    run_cases(8, 512, injective_layout(), |a| {
        let c = concat(&a, &complement(&a, a.cosize()).unwrap()).unwrap();
        let r = right_inverse(&c);
        assert_eq!(r.size(), c.size(), "{c} r {r}");
        let li = left_inverse(&a).unwrap();
        for i in 0..a.size() {
            let ai = a.eval_colex(i).unwrap() as usize;
            assert_eq!(
                li.eval_colex(ai).unwrap(),
                i as isize,
                "{a} left inverse {li}"
            );
        }
    });
}

// ---- printing ----

#[test]
fn print_layout_matches_cute() {
    // 01_layout.md, print_layout(s2xh4)
    let s2xh4 = GroupedLayout::new(l(&[2, 2, 2], &[4, 2, 1]), vec![1, 2]).unwrap();
    let expected = "\
(2,(2,2)):(4,(2,1))
      0   1   2   3 
    +---+---+---+---+
 0  | 0 | 2 | 1 | 3 |
    +---+---+---+---+
 1  | 4 | 6 | 5 | 7 |
    +---+---+---+---+
";
    assert_eq!(print_grouped_layout(&s2xh4), expected);
    // CuTe's format for a flat (4,2):(2,1) and a wider (3,4):(1,3)... cosize 12 -> width 2.
    let expected = "\
(4,2):(2,1)
      0   1 
    +---+---+
 0  | 0 | 1 |
    +---+---+
 1  | 2 | 3 |
    +---+---+
 2  | 4 | 5 |
    +---+---+
 3  | 6 | 7 |
    +---+---+
";
    assert_eq!(print_layout(&l(&[4, 2], &[2, 1])), expected);
    assert_eq!(format!("{:#}", l(&[4, 2], &[2, 1])), expected);
    // cosize 11: two-digit cells, as CuTe's num_digits(cosize).
    let two_digit = GroupedLayout::new(l(&[2, 3, 2], &[1, 2, 5]), vec![1, 2]).unwrap();
    assert!(print_grouped_layout(&two_digit).contains("|  0 |  2 |  4 |  5 |  7 |  9 |"));
}

#[test]
fn print_layout_rank_1_3_4() {
    let expected = "\
3:2
      0 
    +---+
 0  | 0 |
    +---+
 1  | 2 |
    +---+
 2  | 4 |
    +---+
";
    assert_eq!(print_layout(&l(&[3], &[2])), expected);
    let s = print_layout(&Layout::col_major(&[2, 2, 2]));
    let expected = "\
(2,2,2):(1,2,4)
(_,_,0)
      0   1 
    +---+---+
 0  | 0 | 2 |
    +---+---+
 1  | 1 | 3 |
    +---+---+
(_,_,1)
      0   1 
    +---+---+
 0  | 4 | 6 |
    +---+---+
 1  | 5 | 7 |
    +---+---+
";
    assert_eq!(s, expected);
    let s = print_layout(&Layout::col_major(&[1, 2, 2, 2]));
    assert!(s.contains("(_,_,0,0)") && s.contains("(_,_,1,0)") && s.contains("(_,_,1,1)"));
    assert_eq!(s.matches("(_,_,").count(), 4);
    assert!(print_layout(&l(&[], &[])).contains("|"));
}

#[test]
fn print_tensor_values() {
    let t = Tensor::<f32>::from_vec(vec![0.5, 1.0, 2.0, -3.0, 4.0, 5.0], &[2, 3]).unwrap();
    let expected = "\
float32 (2,3):(3,1)
        0     1     2 
    +-----+-----+-----+
 0  | 0.5 |   1 |   2 |
    +-----+-----+-----+
 1  |  -3 |   4 |   5 |
    +-----+-----+-----+
";
    assert_eq!(print_tensor(&t), expected);
}

// ---- tensor views and identity tensors ----

#[test]
fn tensor_partial_coordinates() {
    let data: Vec<i32> = (0..24).collect();
    let mut t = Tensor::<i32>::from_vec(data, &[2, 3, 4]).unwrap();
    let row = t.at(&[Some(1), Some(2), None]).unwrap();
    assert_eq!(row.shape(), &[4]);
    assert_eq!(row.to_vec(), vec![20, 21, 22, 23]);
    let col = t.at(&[None, Some(1), Some(3)]).unwrap();
    assert_eq!(col.to_vec(), vec![7, 19]);
    let one = t.at(&[Some(0), Some(0), Some(1)]).unwrap();
    assert_eq!(one.ndim(), 0);
    assert_eq!(one.item().unwrap(), 1);
    assert_eq!(t.get_at(&[Some(1), Some(0), Some(2)]).unwrap(), 14);
    assert!(t.get_at(&[Some(1), None, Some(2)]).is_err());
    // Writing needs a full coordinate; the write is seen by views.
    assert!(matches!(
        t.set_at(&[Some(1), None, Some(0)], 99),
        Err(Error::InvalidArgument { op: "set_at", .. })
    ));
    t.set_at(&[Some(1), Some(2), Some(0)], 99).unwrap();
    assert_eq!(row.to_vec(), vec![99, 21, 22, 23]);
    assert!(t.at(&[Some(2), None, None]).is_err());
    assert!(t.at(&[None, None]).is_err());
}

#[test]
fn tensor_tiles_and_identity_predicate() {
    let data: Vec<i64> = (0..48).collect();
    let t = Tensor::<i64>::from_vec(data, &[6, 8]).unwrap();
    let tiles = t.tile(&[3, 4]).unwrap();
    assert_eq!(tiles.shape(), &[3, 4, 2, 2]);
    let blk = tiles.at(&[None, None, Some(1), Some(0)]).unwrap();
    assert_eq!(
        blk.to_vec(),
        vec![24, 25, 26, 27, 32, 33, 34, 35, 40, 41, 42, 43]
    );
    assert!(t.tile(&[4, 4]).is_err());
    // The identity tensor, sliced the same way, gives each element's coordinate.
    let id = identity_tensor(&[6, 8]);
    let idb = id
        .tile(&[3, 4])
        .unwrap()
        .at(&[None, None, Some(1), Some(0)])
        .unwrap();
    for i in 0..3 {
        for j in 0..4 {
            let c = idb.get(&[i, j]).unwrap();
            assert_eq!(c, vec![3 + i, j]);
            assert_eq!(t.get(&c).unwrap(), blk.get(&[i, j]).unwrap());
        }
    }
    // A 5x7 tensor in 4x4 tiles: 2x2 tiles, the last ones predicated off.
    let id = identity_tensor(&[5, 7]).tile(&[4, 4]).unwrap();
    assert_eq!(id.shape(), vec![4, 4, 2, 2]);
    let last = id.at(&[None, None, Some(1), Some(1)]).unwrap();
    assert_eq!(last.get(&[0, 0]).unwrap(), vec![4, 4]);
    assert!(last.in_bounds(&[0, 2]).unwrap());
    assert!(!last.in_bounds(&[0, 3]).unwrap());
    assert!(!last.in_bounds(&[1, 0]).unwrap());
    let p = last.predicate();
    assert_eq!(p.shape(), &[4, 4]);
    assert_eq!(p.to_vec().iter().filter(|&&b| b).count(), 3);
    let total = id.predicate().to_vec().iter().filter(|&&b| b).count();
    assert_eq!(total, 35);
    assert!(identity_tensor(&[2, 2]).at(&[Some(2), None]).is_err());
    assert!(identity_tensor(&[2, 2]).get(&[0]).is_err());
    assert_eq!(
        identity_tensor(&[2, 2]).to_vec(),
        vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]
    );
}

#[test]
fn tensor_compose_view() {
    // Read a 4x6 row-major tensor through (6,4):(1,6) composed in colex terms: a transpose.
    let data: Vec<f64> = (0..24).map(|x| x as f64).collect();
    let t = Tensor::<f64>::from_vec(data, &[4, 6]).unwrap();
    // t's layout (4,6):(6,1) as a colex function; (4,6):(6,1) o (6,4):(4,1) == (6,4):(1,6).
    let v = t.compose(&l(&[6, 4], &[4, 1])).unwrap();
    assert_eq!(v.layout(), &l(&[6, 4], &[1, 6]));
    assert_eq!(v.get(&[2, 3]).unwrap(), t.get(&[3, 2]).unwrap());
    assert!(t.with_layout(l(&[5, 5], &[5, 1])).is_err());
}
