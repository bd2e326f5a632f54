//! The f16/bf16 block path is a checked fact, not a hand-kept list: an op runs its f32 functor
//! over f16/bf16 blocks (converted in, rounded once on the way out) unless it is flagged
//! `OpFlag::HalfOwnRounding`, and that flag must be set exactly on the ops whose f16 or bf16
//! functors do not give the same bits as that. Unary ops: every one of the 65536 values of each
//! type; binary ops: every pair of 40 special values and 200,000 random pairs. Both ways: an
//! unflagged op that differs would be a wrong answer, a flagged op that agrees a missed fast
//! path.

use weft::functors::{self as f, BinaryOp, Functor, OpFlag, UnaryOp};
use weft::half::{bf16, f16};
use weft::{DType, Element, Value};

/// Bit-equal values (NaN equal to any NaN; the sign of zero counts).
fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (a, b) => a == b,
    }
}

/// A half type and its 65536 values.
trait Half: Element {
    fn all() -> Vec<Self>;
}
impl Half for f16 {
    fn all() -> Vec<Self> {
        (0..=u16::MAX).map(f16::from_bits).collect()
    }
}
impl Half for bf16 {
    fn all() -> Vec<Self> {
        (0..=u16::MAX).map(bf16::from_bits).collect()
    }
}

/// The first input where `F` on `H` is not `F` on f32, rounded to `H`'s output type.
fn unary_differs<F, H>(op: F) -> Option<String>
where
    H: Half,
    F: Functor<(H,)> + Functor<(f32,)>,
    <F as Functor<(H,)>>::Output: Element,
    <F as Functor<(f32,)>>::Output: Element,
{
    for x in H::all() {
        let want = op.call((x,));
        let got: <F as Functor<(H,)>>::Output =
            weft::element::convert_value(op.call((weft::element::convert_value::<H, f32>(x),)));
        if !same(got.to_value(), want.to_value()) {
            return Some(format!("{x:?}: blocks {got:?}, functor {want:?}"));
        }
    }
    None
}

/// 40 special values and their pairs, then 200,000 seeded random pairs of bit patterns.
fn pairs<H: Half>() -> Vec<(H, H)> {
    let specials: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        0.1,
        -0.1,
        1e-3,
        -1e-3,
        7.5,
        -7.5,
        100.0,
        -100.0,
        65504.0,
        -65504.0,
        1e-7,
        -1e-7,
        6e-8,
        -6e-8,
        1e30,
        -1e30,
        3.0e38,
        -3.0e38,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.5,
        -1.5,
        2.5,
        -2.5,
        1e4,
        -1e4,
        0.3333,
        12.0,
        -12.0,
    ];
    let hs: Vec<H> = specials
        .iter()
        .map(|&v| weft::element::convert_value(v))
        .collect();
    let mut out: Vec<(H, H)> = hs
        .iter()
        .flat_map(|&a| hs.iter().map(move |&b| (a, b)))
        .collect();
    let all = H::all();
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push((all[(s >> 48) as usize], all[(s >> 32) as usize & 0xffff]));
    }
    out
}

fn binary_differs<F, H>(op: F) -> Option<String>
where
    H: Half,
    F: Functor<(H, H)> + Functor<(f32, f32)>,
    <F as Functor<(H, H)>>::Output: Element,
    <F as Functor<(f32, f32)>>::Output: Element,
{
    for (a, b) in pairs::<H>() {
        let want = op.call((a, b));
        let wide = |x: H| weft::element::convert_value::<H, f32>(x);
        let got: <F as Functor<(H, H)>>::Output =
            weft::element::convert_value(op.call((wide(a), wide(b))));
        if !same(got.to_value(), want.to_value()) {
            return Some(format!("({a:?}, {b:?}): blocks {got:?}, functor {want:?}"));
        }
    }
    None
}

/// `None` when the op runs its f32 functor over f16 and bf16 blocks bit-exactly, else where not.
fn unary_blocks_exact(op: UnaryOp) -> Option<String> {
    macro_rules! check {
        (integral $Op:ident) => {
            Some("no float dtypes".to_string())
        };
        (int $Op:ident) => {
            Some("no float dtypes".to_string())
        };
        ($g:ident $Op:ident) => {
            unary_differs::<_, f16>(<f::$Op>::default())
                .or(unary_differs::<_, bf16>(<f::$Op>::default()))
        };
    }
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($fl:ident)*];)*) => {
            match op {$(UnaryOp::$Op => check!($dtypes $Op),)*}
        };
    }
    weft::unary_op_table!(dispatch)
}

fn binary_blocks_exact(op: BinaryOp) -> Option<String> {
    macro_rules! check {
        (integral $Op:ident) => {
            Some("no float dtypes".to_string())
        };
        (int $Op:ident) => {
            Some("no float dtypes".to_string())
        };
        ($g:ident $Op:ident) => {
            binary_differs::<_, f16>(<f::$Op>::default())
                .or(binary_differs::<_, bf16>(<f::$Op>::default()))
        };
    }
    macro_rules! dispatch {
        (() $($Op:ident $name:ident: $dtypes:ident -> $r:ident, $c:ident [$($fl:ident)*];)*) => {
            match op {$(BinaryOp::$Op => check!($dtypes $Op),)*}
        };
    }
    weft::binary_op_table!(dispatch)
}

/// The opmath scalar functors (`f16 * 0.3` keeps 0.3 at f32) are the f32 op with the scalar
/// bound, rounded once: the ops layer runs them over f32 blocks.
#[test]
fn opmath_scalar_functors_are_the_f32_ops_rounded() {
    fn check<H: Half, F: Functor<(H,)>, G: Functor<(f32, f32)>>(f: F, g: G, s: f32)
    where
        F::Output: Element,
        G::Output: Element,
    {
        for x in H::all() {
            let want = f.call((x,));
            let got: F::Output = weft::element::convert_value(
                g.call((weft::element::convert_value::<H, f32>(x), s)),
            );
            assert!(same(got.to_value(), want.to_value()), "{x:?} by {s}");
        }
    }
    for s in [
        0.3f32,
        -1.7,
        1e-3,
        3.0e5,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NAN,
        7.0,
    ] {
        check::<f16, _, _>(f::MulScalarOpmath { s }, f::Mul, s);
        check::<bf16, _, _>(f::MulScalarOpmath { s }, f::Mul, s);
        check::<f16, _, _>(f::DivScalarOpmath { s }, f::Div, s);
        check::<bf16, _, _>(f::DivScalarOpmath { s }, f::Div, s);
        check::<f16, _, _>(f::FloorDivideScalarOpmath { s }, f::FloorDivide, s);
        check::<bf16, _, _>(f::FloorDivideScalarOpmath { s }, f::FloorDivide, s);
    }
}

#[test]
fn f32_blocks_flag_is_exactly_the_ops_whose_half_functors_are_the_f32_ones_rounded() {
    let mut wrong = Vec::new();
    for &op in UnaryOp::ALL {
        // `square` runs as pow (its own line carries no functor of its own).
        if op.has(OpFlag::ViaPow) || op.compute_dtype(DType::F16).is_none() {
            continue;
        }
        match (op.has(OpFlag::HalfOwnRounding), unary_blocks_exact(op)) {
            (false, Some(e)) => wrong.push(format!("{}: not HalfOwnRounding but {e}", op.name())),
            (true, None) => wrong.push(format!("{}: HalfOwnRounding but exact", op.name())),
            _ => {}
        }
    }
    for &op in BinaryOp::ALL {
        if op.compute_dtype(DType::F16).is_none() {
            continue;
        }
        match (op.has(OpFlag::HalfOwnRounding), binary_blocks_exact(op)) {
            (false, Some(e)) => wrong.push(format!("{}: not HalfOwnRounding but {e}", op.name())),
            (true, None) => wrong.push(format!("{}: HalfOwnRounding but exact", op.name())),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
