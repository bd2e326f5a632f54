//! Contiguous f16/bf16 ops in one function: groups of [`GROUP`] halves are widened into an
//! f32 array, run through the op's f32 functor (the plain vectorized loop) and narrowed back,
//! all in one ISA-compiled loop, instead of the block path's three calls per block (widen,
//! compute, narrow: each dispatched on the ISA and called through a pointer, f16 widened 8
//! lanes at a time). Cheap ops on halves (`neg`, `abs`, `add`, `round`, ...) ran at 2-3x
//! PyTorch's time, nearly all of it in that traffic. (Groups of one register, the functor
//! applied lane by lane, kept transcendentals from vectorizing: f16 `exp` 10x slower.)
//!
//! The same bits as the block path: the same conversions (`vcvtph2ps` / `vcvtps2ph` with
//! round-to-nearest-even for f16, the exact shift and `f32_to_bf16_bits` for bf16) around the
//! same f32 functor, and a narrow form only where every element of its group is in the
//! functor's narrow domain (the contract makes any grouping give the same bits).
//!
//! bf16's conversions are integer operations, plain Rust compiled for the widest ISA like
//! every contiguous loop. f16's need the conversion instructions, which portable code cannot
//! reach: hand-written AVX-512 and AVX2+F16C loops. The baseline and the tail of a run (less
//! than a group) take the block path.

use super::half_blocks::{bf16_bits_to_f32, f32_to_bf16_bits};
use super::isa::{VectorIsa, on_widest_isa, vector_isa};
use crate::dtype::DType;
use crate::element::{Element, convert_value};
use crate::functors::{BindLhs, BindRhs, Functor};
use core::marker::PhantomData;

/// `F: (C,) -> O` or `F: (A, B) -> O` as an f32 functor, for kernels whose computation and
/// result types are f32 (the callers check `DType::F32`; `convert_value` is then the
/// identity and compiles away).
#[derive(Copy, Clone)]
struct AsF32<F, Args>(F, PhantomData<Args>);

impl<F, C> Functor<(f32,)> for AsF32<F, (C,)>
where
    F: Functor<(C,)>,
    F::Output: Element,
    C: Element,
{
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x,): (f32,)) -> f32 {
        convert_value(self.0.call((convert_value(x),)))
    }
    const HAS_NARROW_DOMAIN: bool = F::HAS_NARROW_DOMAIN;
    #[inline(always)]
    fn in_narrow_domain(&self, (x,): (f32,)) -> bool {
        self.0.in_narrow_domain((convert_value(x),))
    }
    #[inline(always)]
    fn call_narrow(&self, (x,): (f32,)) -> f32 {
        convert_value(self.0.call_narrow((convert_value(x),)))
    }
}

impl<F, A, B> Functor<(f32, f32)> for AsF32<F, (A, B)>
where
    F: Functor<(A, B)>,
    F::Output: Element,
    A: Element,
    B: Element,
{
    type Output = f32;
    #[inline(always)]
    fn call(&self, (x, y): (f32, f32)) -> f32 {
        convert_value(self.0.call((convert_value(x), convert_value(y))))
    }
    const HAS_NARROW_DOMAIN: bool = F::HAS_NARROW_DOMAIN;
    #[inline(always)]
    fn in_narrow_domain(&self, (x, y): (f32, f32)) -> bool {
        self.0
            .in_narrow_domain((convert_value(x), convert_value(y)))
    }
    #[inline(always)]
    fn call_narrow(&self, (x, y): (f32, f32)) -> f32 {
        convert_value(self.0.call_narrow((convert_value(x), convert_value(y))))
    }
}

/// Elements of one group: 4 AVX-512 vectors, two 256-byte f32 arrays in L1.
const GROUP: usize = 64;

/// `po[i] = f(pa[i])` for `n` contiguous elements of the half type `half` (both stored as
/// `half`; `f` computes in f32 to f32): the count done, whole groups (none for f16 without the
/// conversion instructions). The caller runs the rest.
///
/// # Safety
/// `pa` valid for `n` reads and `po` for `n` writes of 2-byte elements; they may be equal (in
/// place) but not otherwise overlap.
#[inline(always)]
pub(super) unsafe fn unary<C: Element, F: Functor<(C,)>>(
    f: &F,
    half: DType,
    po: *mut u8,
    pa: *const u8,
    n: usize,
) -> usize
where
    F::Output: Element,
{
    debug_assert!(C::DTYPE == DType::F32 && F::Output::DTYPE == DType::F32);
    let g = AsF32::<_, (C,)>(*f, PhantomData);
    let (po, pa) = (po as *mut u16, pa as *const u16);
    // SAFETY: the caller's contract.
    unsafe { unary_f32(&g, half, po, pa, n) }
}

/// [`unary`] of an f32 functor over the half type's bit patterns: bf16's loop or f16's.
///
/// # Safety
/// As [`unary`].
#[inline(always)]
unsafe fn unary_f32<G: Functor<(f32,), Output = f32>>(
    g: &G,
    half: DType,
    po: *mut u16,
    pa: *const u16,
    n: usize,
) -> usize {
    // SAFETY: (both) the caller's contract.
    unsafe {
        if half == DType::BF16 {
            bf16_unary(g, po, pa, n)
        } else {
            f16_vectors::unary(g, po, pa, n)
        }
    }
}

/// `po[i] = f(pa[i], pb[i])` for contiguous halves, as [`unary`]; an input of stride 0 (a
/// broadcast value, read once) is bound into the functor.
///
/// # Safety
/// As [`unary`], for each input at its stride (`2` or `0`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn binary<A: Element, B: Element, F: Functor<(A, B)>>(
    f: &F,
    half: DType,
    po: *mut u8,
    pa: *const u8,
    sa: isize,
    pb: *const u8,
    sb: isize,
    n: usize,
) -> usize
where
    F::Output: Element,
{
    debug_assert!(A::DTYPE == DType::F32 && B::DTYPE == DType::F32);
    let g = AsF32::<_, (A, B)>(*f, PhantomData);
    let (po, pa, pb) = (po as *mut u16, pa as *const u16, pb as *const u16);
    let widen = |p: *const u16| -> f32 {
        // SAFETY: a broadcast input's one element (the caller's contract).
        let bits = unsafe { p.read() };
        if half == DType::BF16 {
            bf16_bits_to_f32(bits)
        } else {
            half::f16::from_bits(bits).to_f32()
        }
    };
    // SAFETY: (all) the caller's contract.
    unsafe {
        match (sa, sb) {
            (2, 2) if half == DType::BF16 => bf16_binary(&g, po, pa, pb, n),
            (2, 2) => f16_vectors::binary(&g, po, pa, pb, n),
            (2, 0) => unary_f32(
                &BindRhs {
                    f: g,
                    rhs: widen(pb),
                },
                half,
                po,
                pa,
                n,
            ),
            (0, 2) => unary_f32(
                &BindLhs {
                    f: g,
                    lhs: widen(pa),
                },
                half,
                po,
                pb,
                n,
            ),
            _ => 0,
        }
    }
}

/// `y = g(x)` over one group, the narrow form where the whole group allows it.
#[inline(always)]
fn group1<G: Functor<(f32,), Output = f32>>(g: &G, x: &[f32; GROUP], y: &mut [f32; GROUP]) {
    if G::HAS_NARROW_DOMAIN
        && x.iter()
            .fold(true, |all, &v| all & g.in_narrow_domain((v,)))
    {
        for j in 0..GROUP {
            y[j] = g.call_narrow((x[j],));
        }
    } else {
        for j in 0..GROUP {
            y[j] = g.call((x[j],));
        }
    }
}

/// `y = g(x, z)`, as [`group1`].
#[inline(always)]
fn group2<G: Functor<(f32, f32), Output = f32>>(
    g: &G,
    x: &[f32; GROUP],
    z: &[f32; GROUP],
    y: &mut [f32; GROUP],
) {
    let narrow = G::HAS_NARROW_DOMAIN
        && (0..GROUP).fold(true, |all, j| all & g.in_narrow_domain((x[j], z[j])));
    if narrow {
        for j in 0..GROUP {
            y[j] = g.call_narrow((x[j], z[j]));
        }
    } else {
        for j in 0..GROUP {
            y[j] = g.call((x[j], z[j]));
        }
    }
}

/// A half format's conversions of one group, between its bit patterns and f32.
trait GroupConversions {
    /// `x[j]` = the value of `p[j]`.
    ///
    /// # Safety
    /// `p` valid for `GROUP` reads; the CPU has the features the implementation is compiled for.
    unsafe fn widen(p: *const u16, x: &mut [f32; GROUP]);
    /// `p[j]` = `y[j]` rounded to the format.
    ///
    /// # Safety
    /// `p` valid for `GROUP` writes; the features, as in `widen`.
    unsafe fn narrow(y: &[f32; GROUP], p: *mut u16);
}

/// `po[i] = g(pa[i])` over whole groups: the count done. The one loop of every format and ISA
/// (inlined into each ISA's function, where `V`'s conversions inline too).
///
/// # Safety
/// As [`unary`] over `u16` bit patterns, and `V`'s features present.
#[inline(always)]
unsafe fn unary_groups<V: GroupConversions, G: Functor<(f32,), Output = f32>>(
    g: &G,
    po: *mut u16,
    pa: *const u16,
    n: usize,
) -> usize {
    let (mut x, mut y) = ([0f32; GROUP], [0f32; GROUP]);
    let mut i = 0;
    while i + GROUP <= n {
        // SAFETY: elements i .. i + GROUP of both runs; the group is read whole before it is
        // written (in place is fine); the features: the caller's contract.
        unsafe {
            V::widen(pa.add(i), &mut x);
            group1(g, &x, &mut y);
            V::narrow(&y, po.add(i));
        }
        i += GROUP;
    }
    i
}

/// `po[i] = g(pa[i], pb[i])` over whole groups, as [`unary_groups`].
///
/// # Safety
/// As [`binary`] with both inputs contiguous, and `V`'s features present.
#[inline(always)]
unsafe fn binary_groups<V: GroupConversions, G: Functor<(f32, f32), Output = f32>>(
    g: &G,
    po: *mut u16,
    pa: *const u16,
    pb: *const u16,
    n: usize,
) -> usize {
    let (mut x, mut z, mut y) = ([0f32; GROUP], [0f32; GROUP], [0f32; GROUP]);
    let mut i = 0;
    while i + GROUP <= n {
        // SAFETY: as in `unary_groups`.
        unsafe {
            V::widen(pa.add(i), &mut x);
            V::widen(pb.add(i), &mut z);
            group2(g, &x, &z, &mut y);
            V::narrow(&y, po.add(i));
        }
        i += GROUP;
    }
    i
}

/// bf16's conversions: integer operations in portable code, the block path's exact shift and
/// rounding.
struct Bf16;

impl GroupConversions for Bf16 {
    #[inline(always)]
    unsafe fn widen(p: *const u16, x: &mut [f32; GROUP]) {
        for (j, v) in x.iter_mut().enumerate() {
            // SAFETY: j < GROUP (the contract).
            *v = bf16_bits_to_f32(unsafe { p.add(j).read() });
        }
    }
    #[inline(always)]
    unsafe fn narrow(y: &[f32; GROUP], p: *mut u16) {
        for (j, &v) in y.iter().enumerate() {
            // SAFETY: j < GROUP (the contract).
            unsafe { p.add(j).write(f32_to_bf16_bits(v)) };
        }
    }
}

/// The bf16 unary loop, compiled for the widest ISA: the count done.
///
/// # Safety
/// As [`unary`] over `u16` bit patterns.
unsafe fn bf16_unary<G: Functor<(f32,), Output = f32>>(
    g: &G,
    po: *mut u16,
    pa: *const u16,
    n: usize,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::bf16_native::available() {
        // SAFETY: the features (checked); the caller's contract.
        return unsafe { bf16_avx512::unary(g, po, pa, n) };
    }
    on_widest_isa!([G: Functor<(f32,), Output = f32>]
        (g: &G = g, po: *mut u16 = po, pa: *const u16 = pa, n: usize = n) -> usize {
        // SAFETY: the caller's contract; bf16's conversions need no feature.
        unsafe { unary_groups::<Bf16, G>(g, po, pa, n) }
    })
}

/// The bf16 binary loop, as [`bf16_unary`].
///
/// # Safety
/// As [`binary`] with both inputs contiguous.
unsafe fn bf16_binary<G: Functor<(f32, f32), Output = f32>>(
    g: &G,
    po: *mut u16,
    pa: *const u16,
    pb: *const u16,
    n: usize,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::bf16_native::available() {
        // SAFETY: the features (checked); the caller's contract.
        return unsafe { bf16_avx512::binary(g, po, pa, pb, n) };
    }
    on_widest_isa!([G: Functor<(f32, f32), Output = f32>]
        (g: &G = g, po: *mut u16 = po, pa: *const u16 = pa, pb: *const u16 = pb, n: usize = n)
        -> usize {
        // SAFETY: as in `bf16_unary`.
        unsafe { binary_groups::<Bf16, G>(g, po, pa, pb, n) }
    })
}

/// The unary and binary loops ([`unary_groups`] / [`binary_groups`]) over the `Conversions`
/// in scope, compiled with `$features` (the features `Conversions` needs).
#[cfg(target_arch = "x86_64")]
macro_rules! group_loops {
    ($features:literal) => {
        /// # Safety
        /// The features are present; as [`unary_groups`].
        #[target_feature(enable = $features)]
        pub(in crate::kernels) unsafe fn unary<G: Functor<(f32,), Output = f32>>(
            g: &G,
            po: *mut u16,
            pa: *const u16,
            n: usize,
        ) -> usize {
            // SAFETY: the caller's contract.
            unsafe { unary_groups::<Conversions, G>(g, po, pa, n) }
        }

        /// # Safety
        /// The features are present; as [`binary_groups`].
        #[target_feature(enable = $features)]
        pub(in crate::kernels) unsafe fn binary<G: Functor<(f32, f32), Output = f32>>(
            g: &G,
            po: *mut u16,
            pa: *const u16,
            pb: *const u16,
            n: usize,
        ) -> usize {
            // SAFETY: the caller's contract.
            unsafe { binary_groups::<Conversions, G>(g, po, pa, pb, n) }
        }
    };
}

/// bf16 with AVX512_BF16's rounding instruction (`super::bf16_native`): the portable
/// widening, the instruction's narrowing.
#[cfg(target_arch = "x86_64")]
mod bf16_avx512 {
    use super::{Bf16, Functor, GROUP, GroupConversions, binary_groups, unary_groups};
    use crate::kernels::bf16_native;

    /// Inlined into the loops below (compiled with the features), where the instruction's
    /// intrinsic inlines too (a `#[target_feature]` method stayed a call per group).
    pub(super) struct Conversions;

    impl GroupConversions for Conversions {
        #[inline(always)]
        unsafe fn widen(p: *const u16, x: &mut [f32; GROUP]) {
            // SAFETY: the caller's contract.
            unsafe { Bf16::widen(p, x) }
        }
        #[inline(always)]
        unsafe fn narrow(y: &[f32; GROUP], p: *mut u16) {
            // SAFETY: GROUP elements of both (the caller's contract; the features too). GROUP
            // is a multiple of 16, so `narrow` does them all.
            unsafe { bf16_native::narrow(y.as_ptr(), p, GROUP) };
        }
    }

    group_loops!("avx512f,avx512bw,avx512dq,avx512vl,avx512bf16,fma");
}

/// The f16 loops over whole vectors, with the conversion instructions.
mod f16_vectors {
    use super::{Functor, VectorIsa, vector_isa};

    /// # Safety
    /// As [`super::unary`] over `u16` bit patterns.
    #[inline(always)]
    pub(super) unsafe fn unary<G: Functor<(f32,), Output = f32>>(
        g: &G,
        po: *mut u16,
        pa: *const u16,
        n: usize,
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        match vector_isa() {
            // SAFETY: the ISA's features are present (detected); the caller's contract.
            VectorIsa::Avx512 => return unsafe { x86::avx512::unary(g, po, pa, n) },
            VectorIsa::Avx2 if std::is_x86_feature_detected!("f16c") => {
                // SAFETY: as above.
                return unsafe { x86::avx2::unary(g, po, pa, n) };
            }
            _ => {}
        }
        let _ = (g, po, pa, n);
        0
    }

    /// # Safety
    /// As [`super::binary`] with both inputs contiguous.
    #[inline(always)]
    pub(super) unsafe fn binary<G: Functor<(f32, f32), Output = f32>>(
        g: &G,
        po: *mut u16,
        pa: *const u16,
        pb: *const u16,
        n: usize,
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        match vector_isa() {
            // SAFETY: the ISA's features are present (detected); the caller's contract.
            VectorIsa::Avx512 => return unsafe { x86::avx512::binary(g, po, pa, pb, n) },
            VectorIsa::Avx2 if std::is_x86_feature_detected!("f16c") => {
                // SAFETY: as above.
                return unsafe { x86::avx2::binary(g, po, pa, pb, n) };
            }
            _ => {}
        }
        let _ = (g, po, pa, pb, n);
        0
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::super::super::f16c::{narrow8, narrow16};
        use super::super::{GROUP, GroupConversions, binary_groups, unary_groups};
        use super::Functor;
        use core::arch::x86_64::*;

        /// One ISA's f16 conversions (`$lanes` lanes per instruction, `$vh` the half vector;
        /// `$narrow` keeps its result in a register: see `kernels::f16c`)
        /// and its unary and binary loops ([`unary_groups`] / [`binary_groups`] over them),
        /// compiled with `$features`.
        macro_rules! f16_loops {
            ($isa:ident, $features:literal, $lanes:literal, $vh:ty, $load:ident, $store:ident,
             $loadf:ident, $storef:ident, $widen:expr, $narrow:expr) => {
                pub(in super::super) mod $isa {
                    use super::*;

                    pub(super) struct Conversions;

                    impl GroupConversions for Conversions {
                        #[target_feature(enable = $features)]
                        unsafe fn widen(p: *const u16, x: &mut [f32; GROUP]) {
                            for k in (0..GROUP).step_by($lanes) {
                                // SAFETY: k + lanes <= GROUP elements of both.
                                unsafe {
                                    $storef(
                                        x.as_mut_ptr().add(k),
                                        $widen($load(p.add(k) as *const $vh)),
                                    )
                                };
                            }
                        }
                        #[target_feature(enable = $features)]
                        unsafe fn narrow(y: &[f32; GROUP], p: *mut u16) {
                            for k in (0..GROUP).step_by($lanes) {
                                // SAFETY: as in `widen`.
                                unsafe {
                                    $store(p.add(k) as *mut $vh, $narrow($loadf(y.as_ptr().add(k))))
                                };
                            }
                        }
                    }

                    group_loops!($features);
                }
            };
        }

        f16_loops!(
            avx512,
            "avx512f,avx512bw,avx512dq,avx512vl,fma",
            16,
            __m256i,
            _mm256_loadu_si256,
            _mm256_storeu_si256,
            _mm512_loadu_ps,
            _mm512_storeu_ps,
            _mm512_cvtph_ps,
            narrow16
        );
        f16_loops!(
            avx2,
            "avx2,fma,f16c",
            8,
            __m128i,
            _mm_loadu_si128,
            _mm_storeu_si128,
            _mm256_loadu_ps,
            _mm256_storeu_ps,
            _mm256_cvtph_ps,
            narrow8
        );
    }
}
