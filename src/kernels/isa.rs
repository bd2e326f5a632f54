//! Run-time choice of the vector extension a hot loop is compiled for.
//!
//! weft is built for the baseline x86-64 target (SSE2), so that one binary runs everywhere. The
//! hot loops (the contiguous kernels, the block conversions, the reducers) are compiled again for
//! AVX-512 and for AVX2, and [`on_widest_isa!`] calls the widest copy the CPU has. The copies are
//! the same Rust code: every element sees the same IEEE operations in every copy (Rust never
//! contracts a multiply and an add into an FMA, and lane width does not change an element's
//! arithmetic), so results never depend on the CPU. (FMA is enabled with AVX2 only for the
//! explicit `mul_add`s, which are exact fused operations on every ISA.)

use core::sync::atomic::{AtomicU8, Ordering};

/// The vector extensions the hot loops are compiled for, narrowest first.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum VectorIsa {
    /// The build target's own (SSE2 on x86-64; every other architecture).
    Baseline = 0,
    /// AVX2 with FMA: 8 f32 or 4 f64 lanes.
    Avx2 = 1,
    /// AVX-512 F/BW/DQ/VL: 16 f32 or 8 f64 lanes, mask registers for the selects, f64 <-> i64
    /// conversions in one instruction.
    Avx512 = 2,
}

/// The names `avx512`, `avx2`, `baseline` (for command lines and environment variables, as
/// PyTorch's `ATEN_CPU_CAPABILITY` values).
impl core::str::FromStr for VectorIsa {
    type Err = ();
    fn from_str(name: &str) -> Result<VectorIsa, ()> {
        match name {
            "avx512" => Ok(VectorIsa::Avx512),
            "avx2" => Ok(VectorIsa::Avx2),
            "baseline" => Ok(VectorIsa::Baseline),
            _ => Err(()),
        }
    }
}

/// The widest ISA the loops may use ([`limit_vector_isa`]); starts unlimited.
static LIMIT: AtomicU8 = AtomicU8::new(VectorIsa::Avx512 as u8);

/// Caps the vector extension weft's CPU loops use from now on (all threads), as PyTorch's
/// `ATEN_CPU_CAPABILITY`: to compare machines, or to check that results do not depend on the
/// ISA (they never should: tests/kernel_paths.rs runs every op under each cap).
pub fn limit_vector_isa(max: VectorIsa) {
    LIMIT.store(max as u8, Ordering::Relaxed);
}

/// The vector extension weft's CPU loops use: the widest this CPU has, within
/// [`limit_vector_isa`]'s cap. Two relaxed loads per call (each kernel call asks): the CPU is
/// probed once, by [`detect`].
#[inline]
pub fn vector_isa() -> VectorIsa {
    let mut cpu = DETECTED.load(Ordering::Relaxed);
    if cpu == UNDETECTED {
        cpu = detect() as u8;
        DETECTED.store(cpu, Ordering::Relaxed);
    }
    const AVX512: u8 = VectorIsa::Avx512 as u8;
    const AVX2: u8 = VectorIsa::Avx2 as u8;
    match cpu.min(LIMIT.load(Ordering::Relaxed)) {
        AVX512 => VectorIsa::Avx512,
        AVX2 => VectorIsa::Avx2,
        _ => VectorIsa::Baseline,
    }
}

/// [`detect`]'s answer as a `VectorIsa` discriminant, or [`UNDETECTED`] before the first call.
static DETECTED: AtomicU8 = AtomicU8::new(UNDETECTED);
const UNDETECTED: u8 = u8::MAX;

/// The widest [`VectorIsa`] this CPU has (every feature a copy is compiled with).
#[cold]
fn detect() -> VectorIsa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("fma")
        {
            return VectorIsa::Avx512;
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return VectorIsa::Avx2;
        }
    }
    VectorIsa::Baseline
}

/// Runs `body` compiled for the widest [`VectorIsa`] the CPU has:
///
/// ```ignore
/// on_widest_isa!([C: Element, F: Functor<(C,)>] (f: &F = f, po: *mut F::Output = po, ...)
///     where [F::Output: Element] { unsafe { unary_loop(f, po, pa, n) } })
/// ```
///
/// `body` becomes the body of three functions of the given generics and parameters (one per
/// ISA, `#[target_feature]` on the wide ones), and the matching one is called with the given
/// arguments. The functions are `unsafe fn` only because `#[target_feature]` ones must be:
/// the body keeps its own `unsafe` blocks and their contracts, which the enclosing function's
/// caller guarantees; the macro adds only the ISA's (detected before the call). Put the hot
/// loop in an `#[inline(always)]` function called from `body`, so that it is compiled into
/// each copy.
macro_rules! on_widest_isa {
    (
        [$($gen:tt)*] ($($arg:ident: $ty:ty = $val:expr),* $(,)?) $(-> $ret:ty)?
        $(where [$($wc:tt)*])? $body:block
    ) => {{
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
        #[allow(unused_unsafe)]
        unsafe fn avx512<$($gen)*>($($arg: $ty),*) $(-> $ret)? $(where $($wc)*)? $body
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        #[allow(unused_unsafe)]
        unsafe fn avx2<$($gen)*>($($arg: $ty),*) $(-> $ret)? $(where $($wc)*)? $body
        #[inline(always)]
        #[allow(unused_unsafe)]
        unsafe fn baseline<$($gen)*>($($arg: $ty),*) $(-> $ret)? $(where $($wc)*)? $body
        match $crate::kernels::isa::vector_isa() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX-512 F/BW/DQ/VL and FMA are present (detected); the body's contracts are the
            // enclosing function's.
            $crate::kernels::isa::VectorIsa::Avx512 => unsafe { avx512($($val),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 and FMA are present (detected); as above.
            $crate::kernels::isa::VectorIsa::Avx2 => unsafe { avx2($($val),*) },
            // SAFETY: no ISA beyond the build target's; as above.
            _ => unsafe { baseline($($val),*) },
        }
    }};
}
pub(crate) use on_widest_isa;
