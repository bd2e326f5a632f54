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

// PyTorch 2.15 `torch.floor_divide(x, y)` of f16 and bf16 tensors (seeded random pairs: the first
// 60 where rounding every intermediate to the half type differs from rounding the f32 result
// once, then 20 more), as bits. weft matched all 200,000 pairs of each dtype it was cut from.
// f16: (a, b, torch's a // b) as bits
const F16_CASES: &[(u16, u16, u16)] = &[
    (0xd06c, 0x24c1, 0xe770),
    (0xd261, 0xab2f, 0x6318),
    (0xe4db, 0x2e92, 0xf1e9),
    (0x541f, 0x29f2, 0x658c),
    (0xc9a7, 0x9c49, 0x6947),
    (0x52be, 0x17fd, 0x76c1),
    (0x48bc, 0x1a6b, 0x69e7),
    (0x542f, 0xa92f, 0xe674),
    (0x5d77, 0x3120, 0x6843),
    (0x419c, 0x17a4, 0x65de),
    (0x54b6, 0xadc0, 0xe290),
    (0xd926, 0x2c83, 0xe892),
    (0x5064, 0x2574, 0x666f),
    (0xd5b8, 0x2e48, 0xe34c),
    (0x4cd2, 0x24f4, 0x63c6),
    (0x58f9, 0xa070, 0xf47b),
    (0x46f9, 0x980d, 0xeae4),
    (0x62d2, 0x31b4, 0x6cc9),
    (0xd393, 0x1e67, 0xf0bb),
    (0x4700, 0x1b72, 0x6786),
    (0xd498, 0xa6bf, 0x6973),
    (0xe99b, 0xbd09, 0x6873),
    (0x49d9, 0x9baa, 0xea1c),
    (0xe02b, 0xb551, 0x6646),
    (0x4d0e, 0xa5b6, 0xe318),
    (0x58d6, 0xaaca, 0xe9b4),
    (0x53a1, 0x9c37, 0xf33d),
    (0x284b, 0x82e8, 0xe1ec),
    (0xe165, 0xb255, 0x6ad1),
    (0xdc34, 0xb43e, 0x63ea),
    (0x4d7c, 0x27a6, 0x61ba),
    (0x5451, 0x2815, 0x683b),
    (0x40df, 0x91c0, 0xeac8),
    (0xd4f8, 0x2b2f, 0xe588),
    (0x6607, 0xbaa6, 0xe740),
    (0xd852, 0x2cae, 0xe764),
    (0x642e, 0xad0b, 0xf2a1),
    (0x4c0d, 0xa179, 0xe5eb),
    (0xe458, 0x38c0, 0xe752),
    (0xe0d1, 0x31f6, 0xea78),
    (0x5e76, 0xb1c0, 0xe880),
    (0x54ba, 0x295a, 0x670f),
    (0xcc35, 0x9f1b, 0x68bd),
    (0xdc28, 0x32f5, 0xe4c9),
    (0x5416, 0xae1b, 0xe15e),
    (0xd870, 0xae04, 0x65e5),
    (0x4ada, 0x9e81, 0xe838),
    (0x3b43, 0x8cca, 0xea12),
    (0xdc9a, 0x30c7, 0xe7b6),
    (0xd085, 0x1d6f, 0xeea7),
    (0x5804, 0xac60, 0xe759),
    (0x5cbc, 0xb204, 0xe64b),
    (0xc43a, 0x9833, 0x6807),
    (0x6434, 0xb958, 0xe64a),
    (0xd60f, 0x2a6f, 0xe788),
    (0xdb5e, 0x2e0d, 0xe8e0),
    (0xe563, 0x3876, 0xe8d6),
    (0x6466, 0x38ef, 0x6720),
    (0xc49b, 0x17e8, 0xe8aa),
    (0x6512, 0x3550, 0x6ba3),
    (0x99de, 0x3bab, 0xbc00),
    (0x37b1, 0xc06a, 0xbc00),
    (0x470a, 0xafd0, 0xd340),
    (0xe02c, 0xc586, 0x5600),
    (0xc06c, 0xb286, 0x4900),
    (0x5226, 0xbec5, 0xcf80),
    (0xbd61, 0xadfb, 0x4b00),
    (0xa112, 0xb2f0, 0x0000),
    (0x3a41, 0xbc54, 0xbc00),
    (0xa8b0, 0x40ce, 0xbc00),
    (0xd06c, 0x24c1, 0xe770),
    (0xb0ef, 0xaaae, 0x4000),
    (0x4c4e, 0x334f, 0x54b0),
    (0x415a, 0x422d, 0x0000),
    (0x2399, 0x499b, 0x0000),
    (0x30b4, 0xae4c, 0xc000),
    (0xc221, 0xc0cb, 0x3c00),
    (0x9af3, 0xbb64, 0x0000),
    (0x2c6a, 0xc608, 0xbc00),
    (0xb9c9, 0x29c5, 0xcc40),
];
// bf16: (a, b, torch's a // b) as bits
const BF16_CASES: &[(u16, u16, u16)] = &[
    (0xc4aa, 0xc163, 0x42bc),
    (0x4096, 0xbc10, 0xc405),
    (0x4297, 0xbe7a, 0xc39c),
    (0xc418, 0x3f92, 0xc405),
    (0xc02d, 0xbcb2, 0x42f6),
    (0xbe94, 0x3a9e, 0xc371),
    (0xc0df, 0xbcc1, 0x4393),
    (0xc02d, 0xbb99, 0x4411),
    (0x4012, 0xbc2f, 0xc357),
    (0x43a8, 0xbf10, 0xc415),
    (0xc1ae, 0xbdbd, 0x436a),
    (0xbf35, 0xbbdc, 0x42d0),
    (0xc204, 0xbdf7, 0x4389),
    (0xc13b, 0x3d0c, 0xc3aa),
    (0x42a0, 0xbd09, 0xc515),
    (0xc261, 0x3da8, 0xc42b),
    (0x4288, 0xbf1b, 0xc2e4),
    (0xc115, 0x3d21, 0xc36c),
    (0xc214, 0xbeb2, 0x42d2),
    (0x4105, 0x3c4a, 0x4429),
    (0xc2b1, 0x3e25, 0xc409),
    (0xc1f9, 0xbdce, 0x439b),
    (0x4098, 0xbcbf, 0xc34b),
    (0x4191, 0x3d32, 0x43d1),
    (0x40a6, 0xbcab, 0xc37a),
    (0xc4c6, 0xbdda, 0x4669),
    (0x4124, 0xbcb6, 0xc3e8),
    (0x4269, 0x3e61, 0x4385),
    (0x418f, 0x3d4d, 0x43b3),
    (0x4107, 0xbcda, 0xc3a0),
    (0xc252, 0xbe4f, 0x4381),
    (0xc246, 0xbe5a, 0x4369),
    (0x4301, 0xbcca, 0xc5a3),
    (0xc2ff, 0xbe26, 0x4445),
    (0x4404, 0x4017, 0x4360),
    (0xc488, 0xc09f, 0x4359),
    (0x405e, 0xbb89, 0xc44f),
    (0x4227, 0xbe3f, 0xc35f),
    (0xc40c, 0xbf57, 0x4427),
    (0x4429, 0x3f0c, 0x449b),
    (0x41f6, 0x3de0, 0x438d),
    (0x42a0, 0xbebe, 0xc359),
    (0xc1d0, 0xbd51, 0x43ff),
    (0xbf65, 0xbb6a, 0x437b),
    (0x422d, 0x3dae, 0x43ff),
    (0xc189, 0xbd1f, 0x43dd),
    (0x4198, 0xbd1a, 0xc3fe),
    (0xc35c, 0x3f23, 0xc3ae),
    (0xbf30, 0xbb6a, 0x4341),
    (0x408a, 0x3c0d, 0x43fb),
    (0xc088, 0x3c0c, 0xc3fa),
    (0x43ea, 0xbd8b, 0xc5d7),
    (0x4306, 0xbfe7, 0xc298),
    (0x418e, 0x3d68, 0x439d),
    (0x441e, 0x3f31, 0x4465),
    (0x4419, 0x3fd2, 0x43bb),
    (0x43fa, 0xbf85, 0xc3f2),
    (0xc08c, 0x3c85, 0xc388),
    (0xc27d, 0xbde0, 0x4411),
    (0xbf1a, 0x3b36, 0xc35a),
    (0x40fa, 0xbdbf, 0xc2a8),
    (0x416d, 0x3eba, 0x4220),
    (0xbdc4, 0xc068, 0x0000),
    (0xb9db, 0xc06b, 0x0000),
    (0xba9b, 0xbf5e, 0x0000),
    (0xbc20, 0xbdc2, 0x0000),
    (0x3d2a, 0x4219, 0x0000),
    (0xc04c, 0xc004, 0x3f80),
    (0xbb14, 0x3d9b, 0xbf80),
    (0xbe70, 0xc0fc, 0x0000),
    (0x3ecf, 0xbf1c, 0xbf80),
    (0x3fa4, 0x3f95, 0x3f80),
    (0x3c9e, 0x3ecc, 0x0000),
    (0xbf4f, 0xbe83, 0x4040),
    (0xbf06, 0x404c, 0xbf80),
    (0x3d25, 0xbfa7, 0xbf80),
    (0x3df1, 0x3d8c, 0x3f80),
    (0xbb3e, 0xbe18, 0x0000),
    (0x3d14, 0x3fac, 0x0000),
    (0x3f91, 0x4008, 0x0000),
];

/// `floor_divide` of two f16/bf16 tensors is PyTorch's `div_floor_floating` on `c10::Half` /
/// `c10::BFloat16`: every intermediate rounded to the half type (`HalfOwnRounding`), on the
/// contiguous, strided and broadcast paths alike.
#[test]
fn floor_divide_of_halves_rounds_every_intermediate_like_pytorch() {
    fn check<H: weft::DynElement + Copy>(
        cases: &[(u16, u16, u16)],
        from: fn(u16) -> H,
        bits: fn(H) -> u16,
    ) {
        let n = cases.len();
        let a = weft::DynTensor::from_vec(cases.iter().map(|c| from(c.0)).collect(), &[n]).unwrap();
        let b = weft::DynTensor::from_vec(cases.iter().map(|c| from(c.1)).collect(), &[n]).unwrap();
        // Contiguous, and reversed views of both (the strided block path).
        let flip = |t: &weft::DynTensor| t.slice(0, None, None, -1);
        for (x, y, reversed) in [(a.share(), b.share(), false), (flip(&a), flip(&b), true)] {
            let r = x.floor_divide(&y).to_vec::<H>().unwrap();
            for (i, &got) in r.iter().enumerate() {
                let c = cases[if reversed { n - 1 - i } else { i }];
                assert_eq!(
                    bits(got),
                    c.2,
                    "{:#06x} // {:#06x} ({})",
                    c.0,
                    c.1,
                    H::DTYPE
                );
            }
        }
    }
    check::<f16>(F16_CASES, f16::from_bits, f16::to_bits);
    check::<bf16>(BF16_CASES, bf16::from_bits, bf16::to_bits);
}

/// `neg`, `abs` and `copysign` of f16/bf16 tensors (`OpFlag::SignBits`) change the sign bit and
/// nothing else, on all 65536 patterns (NaN payloads, signaling ones included, kept as
/// PyTorch's bitwise half forms keep them), contiguous and reversed, and `copysign` by a
/// broadcast sign operand.
#[test]
fn sign_bit_ops_of_halves_change_only_the_sign_bit() {
    fn check<H: weft::DynElement + Copy>(from: fn(u16) -> H, bits: fn(H) -> u16) {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let n = all.len();
        let a = weft::DynTensor::from_vec(all.iter().map(|&b| from(b)).collect(), &[n]).unwrap();
        let flip = |t: &weft::DynTensor| t.slice(0, None, None, -1);
        let negative = weft::DynTensor::from_vec(vec![from(0xbf80)], &[1]).unwrap();
        for (x, reversed) in [(a.share(), false), (flip(&a), true)] {
            let at = |i: usize| all[if reversed { n - 1 - i } else { i }];
            let got = |t: weft::DynTensor| t.to_vec::<H>().unwrap().into_iter().map(bits);
            for (i, r) in got(x.neg()).enumerate() {
                assert_eq!(r, at(i) ^ 0x8000, "neg {:#06x} ({})", at(i), H::DTYPE);
            }
            for (i, r) in got(x.abs()).enumerate() {
                assert_eq!(r, at(i) & 0x7fff, "abs {:#06x} ({})", at(i), H::DTYPE);
            }
            for (i, r) in got(x.copysign(&negative)).enumerate() {
                assert_eq!(r, at(i) | 0x8000, "copysign {:#06x} ({})", at(i), H::DTYPE);
            }
            // Each pattern's sign onto a positive magnitude: the sign operand strided.
            let one = weft::DynTensor::from_vec(vec![from(0x3c00); n], &[n]).unwrap();
            for (i, r) in got(one.copysign(&x)).enumerate() {
                assert_eq!(r, 0x3c00 | (at(i) & 0x8000), "copysign by {:#06x}", at(i));
            }
        }
    }
    check::<f16>(f16::from_bits, f16::to_bits);
    check::<bf16>(bf16::from_bits, bf16::to_bits);
}

/// `HalfFormat::round` (the branch-free rounding the own half forms use inside f32 loops) is
/// `H::from_f32(v).to_f32()` bit for bit: every 61st f32 bit pattern (70 million, every
/// exponent) plus every pattern within 4096 of each f16 and bf16 rounding boundary region
/// (around the subnormal/normal edge, the largest finite values and the overflow threshold).
/// The exhaustive run over all 2^32 patterns is `exhaustive_half_format_round` (ignored).
#[test]
fn half_format_round_is_the_types_round_trip() {
    let mut patterns: Vec<u32> = (0..=u32::MAX).step_by(61).collect();
    for edge in [
        0x3880_0000u32, // 2^-14: f16's smallest normal
        0x3380_0000,    // 2^-24: f16's smallest subnormal
        0x477f_e000,    // 65504: f16's largest
        0x477f_f000,    // 65520: f16's overflow threshold
        0x7f7f_0000,    // bf16's largest
        0x7f7f_8000,    // bf16's overflow threshold
        0x0080_0000,    // f32's smallest normal
        0x7f80_0000,    // infinity, NaNs above
    ] {
        for d in 0..4096u32 {
            for sign in [0, 0x8000_0000] {
                patterns.push(edge.wrapping_add(d) | sign);
                patterns.push(edge.wrapping_sub(d) | sign);
            }
        }
    }
    assert_eq!(check_round(patterns.into_iter()), None);

    // `bits` / `from_bits`: the types' own conversions on every 16-bit pattern.
    use weft::functors::HalfFormat;
    for b in 0..=u16::MAX {
        let (v16, vb) = (f16::from_bits(b), bf16::from_bits(b));
        assert_eq!(
            <f16 as HalfFormat>::from_bits(b).to_bits(),
            v16.to_f32().to_bits(),
            "{b:#06x}"
        );
        assert_eq!(
            <bf16 as HalfFormat>::from_bits(b).to_bits(),
            vb.to_f32().to_bits(),
            "{b:#06x}"
        );
        assert_eq!(
            <f16 as HalfFormat>::bits(v16.to_f32()),
            f16::from_f32(v16.to_f32()).to_bits(),
            "{b:#06x}"
        );
        assert_eq!(
            <bf16 as HalfFormat>::bits(vb.to_f32()),
            bf16::from_f32(vb.to_f32()).to_bits(),
            "{b:#06x}"
        );
    }
}

#[test]
#[ignore = "all 2^32 f32 patterns: about 40 s in release"]
fn exhaustive_half_format_round() {
    assert_eq!(check_round(0..=u32::MAX), None);
}

/// The first pattern where `HalfFormat::round` differs from the type's own round trip.
fn check_round(patterns: impl Iterator<Item = u32>) -> Option<String> {
    use weft::functors::HalfFormat;
    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }
    for p in patterns {
        let v = f32::from_bits(p);
        let (g16, w16) = (<f16 as HalfFormat>::round(v), f16::from_f32(v).to_f32());
        if !same(g16, w16) {
            return Some(format!("f16 {p:#010x}: {g16:?} vs {w16:?}"));
        }
        let (g, w) = (<bf16 as HalfFormat>::round(v), bf16::from_f32(v).to_f32());
        if !same(g, w) {
            return Some(format!("bf16 {p:#010x}: {g:?} vs {w:?}"));
        }
    }
    None
}

/// The ops with their own half rounding give, over the f32 block path (`functors::InHalf`, what
/// a contiguous or strided f16/bf16 tensor runs), the bits of the reference formulas written
/// with the half crate's conversions and libm (PyTorch's definitions, as before the block path
/// took them; erf: its per-element functor): every f16 and bf16 value for logit, softsign and
/// erf, `pairs()` for floor_divide and nextafter (per-element functors); contiguous and
/// reversed inputs.
#[test]
fn own_half_forms_over_blocks_are_the_reference_formulas() {
    fn reference_unary(op: UnaryOp, x: f32, r: &dyn Fn(f32) -> f32) -> f32 {
        match op {
            UnaryOp::Logit if x == 1.0 => f32::INFINITY,
            UnaryOp::Logit => libm::logf(r(x / r(1.0 - x))),
            UnaryOp::Softsign => x / r(x.abs() + 1.0),
            _ => unreachable!(),
        }
    }
    fn run_unary<H: Half + weft::DynElement + Copy>(op: UnaryOp, r: fn(f32) -> f32) -> Vec<String>
    where
        f::Erf: Functor<(H,), Output = H>,
    {
        let all = H::all();
        let t = weft::DynTensor::from_vec(all.clone(), &[all.len()]).unwrap();
        let mut bad = vec![];
        for (x, reversed) in [(t.share(), false), (t.slice(0, None, None, -1), true)] {
            let got = weft::ops::unary::unary(op, &x, None)
                .unwrap()
                .to_vec::<H>()
                .unwrap();
            for (i, g) in got.iter().enumerate() {
                let v = all[if reversed { all.len() - 1 - i } else { i }];
                // erf: its per-element half functor (PyTorch's vectorized form, unchanged).
                let want: H = match op {
                    UnaryOp::Erf => f::Erf.call((v,)),
                    _ => weft::element::convert_value(reference_unary(
                        op,
                        weft::element::convert_value::<H, f32>(v),
                        &r,
                    )),
                };
                if !same(g.to_value(), want.to_value()) && bad.len() < 5 {
                    bad.push(format!("{} {v:?}: {g:?}, want {want:?}", op.name()));
                }
            }
        }
        bad
    }
    let mut bad = vec![];
    for op in [UnaryOp::Logit, UnaryOp::Softsign, UnaryOp::Erf] {
        bad.extend(run_unary::<f16>(op, |v| f16::from_f32(v).to_f32()));
        bad.extend(run_unary::<bf16>(op, |v| bf16::from_f32(v).to_f32()));
    }

    fn run_binary<H: Half + weft::DynElement + Copy>(op: BinaryOp) -> Vec<String>
    where
        f::FloorDivide: Functor<(H, H), Output = H>,
        f::Nextafter: Functor<(H, H), Output = H>,
    {
        let ps = pairs::<H>();
        let n = ps.len();
        let a = weft::DynTensor::from_vec(ps.iter().map(|p| p.0).collect(), &[n]).unwrap();
        let b = weft::DynTensor::from_vec(ps.iter().map(|p| p.1).collect(), &[n]).unwrap();
        let flip = |t: &weft::DynTensor| t.slice(0, None, None, -1);
        let mut bad = vec![];
        for (x, y, reversed) in [(a.share(), b.share(), false), (flip(&a), flip(&b), true)] {
            let got = weft::ops::binary::binary(op, (&x).into(), (&y).into(), None)
                .unwrap()
                .to_vec::<H>()
                .unwrap();
            for (i, g) in got.iter().enumerate() {
                let (u, v) = ps[if reversed { n - 1 - i } else { i }];
                // The per-element half functors: the reference formulas (tests above and
                // `floor_divide_of_halves_rounds_every_intermediate_like_pytorch`).
                let want: H = match op {
                    BinaryOp::FloorDivide => f::FloorDivide.call((u, v)),
                    _ => f::Nextafter.call((u, v)),
                };
                if !same(g.to_value(), want.to_value()) && bad.len() < 5 {
                    bad.push(format!("{} {u:?} {v:?}: {g:?}, want {want:?}", op.name()));
                }
            }
        }
        bad
    }
    for op in [BinaryOp::FloorDivide, BinaryOp::Nextafter] {
        bad.extend(run_binary::<f16>(op));
        bad.extend(run_binary::<bf16>(op));
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// `x ** scalar` of f16/bf16 tensors runs the exponent's case over f32 blocks
/// (`PowScalarCase<f16 | bf16, case>`): the bits of the per-element `PowScalar` functor for
/// every value and the exact-case exponents (and two general ones), contiguous and reversed;
/// and f16's `x * x` is the f32 `pow(x, 2)` for every f16 (what lets case 0 skip `pow`).
#[test]
fn pow_scalar_of_halves_over_blocks_is_the_per_element_functor() {
    for x in f16::all() {
        let v = x.to_f32();
        let (p, q) = (
            f16::from_f32(v * v),
            f16::from_f32(weft::functors::fastmath::power::pow_f32(v, 2.0)),
        );
        assert!(
            p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
            "{x:?}"
        );
    }
    fn check<H: Half + weft::DynElement + Copy>(bad: &mut Vec<String>)
    where
        f::PowScalar<H>: Functor<(H,), Output = H>,
    {
        let all = H::all();
        let t = weft::DynTensor::from_vec(all.clone(), &[all.len()]).unwrap();
        for e in [2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.5, -0.75] {
            for (x, reversed) in [(t.share(), false), (t.slice(0, None, None, -1), true)] {
                let got = x.pow(e).to_vec::<H>().unwrap();
                let functor = f::PowScalar::<H> {
                    exp: weft::element::convert_value::<f64, H>(e),
                };
                for (i, g) in got.iter().enumerate() {
                    let v = all[if reversed { all.len() - 1 - i } else { i }];
                    let want = functor.call((v,));
                    if !same(g.to_value(), want.to_value()) && bad.len() < 5 {
                        bad.push(format!("{} {v:?} ** {e}: {g:?}, want {want:?}", H::DTYPE));
                    }
                }
            }
        }
    }
    let mut bad = vec![];
    check::<f16>(&mut bad);
    check::<bf16>(&mut bad);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// f32 -> f16/bf16 casts through the tensor API (contiguous, step-2 and reversed sources:
/// the unit-stride loops and the strided ones) give `half`'s conversion bit for bit (NaN
/// payloads included) on every class of f32: every 509th bit pattern, every subnormal near
/// both ends of the subnormal range, the overflow edge, and one subnormal alone among normal
/// values (where a vector conversion that flushes subnormals must fall back).
#[test]
fn f32_to_half_casts_are_the_half_crates_rounding_on_every_class() {
    let mut bits: Vec<u32> = (0..=u32::MAX).step_by(509).collect();
    for sign in [0, 0x8000_0000u32] {
        bits.extend((1..4096u32).map(|b| b | sign));
        bits.extend((0x007f_f000..0x0080_1000u32).map(|b| b | sign));
        bits.extend((0x7f7f_f000..0x7f80_0010u32).map(|b| b | sign));
    }
    bits.extend((0..64).map(|k| {
        if k == 37 {
            0x0000_8001
        } else {
            0x3f80_0000 + k
        }
    }));
    let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    let n = values.len();
    let src = weft::Tensor::<f32>::from_vec(values.clone(), &[n]).unwrap();
    let views = [
        ("contiguous", src.clone(), values.clone()),
        (
            "step 2",
            src.slice(0, None, None, 2),
            values.iter().step_by(2).copied().collect(),
        ),
        (
            "reversed",
            src.slice(0, None, None, -1),
            values.iter().rev().copied().collect(),
        ),
    ];
    for (layout, view, want) in views {
        let got = view.to::<bf16>().to_vec();
        for (g, w) in got.iter().zip(&want) {
            let w16 = bf16::from_f32(*w);
            assert_eq!(
                g.to_bits(),
                w16.to_bits(),
                "bf16 {layout} {:#010x}",
                w.to_bits()
            );
        }
        let got = view.to::<f16>().to_vec();
        for (g, w) in got.iter().zip(&want) {
            let w16 = f16::from_f32(*w);
            assert_eq!(
                g.to_bits(),
                w16.to_bits(),
                "f16 {layout} {:#010x}",
                w.to_bits()
            );
        }
    }
}
