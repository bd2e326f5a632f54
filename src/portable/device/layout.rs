//! The device-side view of an elementwise loop: [`ElementLayout`] (shape, per-operand byte
//! strides, dtypes) passed **by value** to every GPU kernel, fast division by the dims
//! ([`IntDivider`]), and the per-thread bodies (`unary_at`, `binary_at`, `ternary_at`, the
//! contiguous 16-byte-vector bodies and the grid-stride loops around them).
//!
//! These are the **same functions** the PTX kernels in `gpu/kernels` call and the host emulation
//! tests (`tests/gpu_emulation.rs`) run over every thread index of small grids, so the device
//! indexing logic is tested on machines without a GPU.
//!
//! `no_std`, no allocation and no panic paths (constant-bound loops, no slice indexing with a
//! runtime index that could fail, no integer `/` or `%` by a runtime value): the PTX build
//! rejects any `trap` or panicking symbol.
//!
//! Editing this file changes `gpu/kernels.ptx`: run `gpu/build-ptx.sh` (tests/ptx_stamp.rs fails
//! until you do).

use crate::dtype::DType;
use crate::element::{Element, Value, convert_value};
use crate::functors::Functor;

/// Most dims a kernel takes; more are coalesced away or refused with [`LayoutError`].
pub const MAX_DIMS: usize = 8;
/// Most operands (output included) a kernel takes.
pub const MAX_OPERANDS: usize = 4;
/// Bytes one thread loads per operand on the contiguous path (`ld.global.v4.u32`).
pub const VECTOR_BYTES: usize = 16;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// The index width of a kernel: `u32` (offsets computed in 32 bits, the fast path) or `u64`.
pub trait IndexInt: sealed::Sealed + Copy + Default + PartialOrd + Send + Sync + 'static {
    /// Signed byte stride / offset of this width.
    type Stride: Copy + Default + PartialEq + core::fmt::Debug + Send + Sync + 'static;
    /// Truncating conversion (the host guarantees the value fits).
    fn from_u64_trunc(v: u64) -> Self;
    fn to_u64(self) -> u64;
    /// `Some` when `v` fits this width.
    fn from_u64_checked(v: u64) -> Option<Self>;
    fn stride_from_i64(v: i64) -> Option<Self::Stride>;
    /// `acc + r * stride`, wrapping in this width (the final offset fits; partial sums may not).
    fn mul_add_stride(acc: Self::Stride, r: Self, stride: Self::Stride) -> Self::Stride;
    fn stride_to_isize(s: Self::Stride) -> isize;
    fn divmod(d: &IntDivider<Self>, n: Self) -> (Self, Self);
}

/// Division by a fixed divisor with a multiply-high, an add and a shift, like PyTorch's
/// `IntDivider<uint32_t>` (Granlund & Montgomery, "Division by invariant integers using
/// multiplication", fig. 4.1): with `shift = ceil(log2(divisor))` and
/// `magic = floor(2^N * (2^shift - divisor) / divisor) + 1`,
/// `n / divisor == (mulhi(n, magic) + n) >> shift` for every N-bit `n`. The sum is formed in
/// 2N bits, so unlike PyTorch's version this holds for the full range of `n` and `divisor`.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct IntDivider<I> {
    pub divisor: I,
    pub magic: I,
    pub shift: u32,
}

impl IntDivider<u32> {
    /// `None` for a zero divisor.
    pub const fn new(divisor: u32) -> Option<Self> {
        if divisor == 0 {
            return None;
        }
        let mut shift = 0u32;
        while shift < 32 && (1u64 << shift) < divisor as u64 {
            shift += 1;
        }
        let magic = ((1u64 << 32) * ((1u64 << shift) - divisor as u64)) / divisor as u64 + 1;
        Some(IntDivider {
            divisor,
            magic: magic as u32,
            shift,
        })
    }

    #[inline(always)]
    pub fn div(&self, n: u32) -> u32 {
        let t = ((n as u64 * self.magic as u64) >> 32) as u32; // mul.hi.u32
        ((t as u64 + n as u64) >> self.shift) as u32
    }

    #[inline(always)]
    pub fn divmod(&self, n: u32) -> (u32, u32) {
        let q = self.div(n);
        (q, n.wrapping_sub(q.wrapping_mul(self.divisor)))
    }
}

impl IntDivider<u64> {
    /// `None` for a zero divisor.
    pub const fn new(divisor: u64) -> Option<Self> {
        if divisor == 0 {
            return None;
        }
        let mut shift = 0u32;
        while shift < 64 && (1u128 << shift) < divisor as u128 {
            shift += 1;
        }
        let magic = ((1u128 << 64) * ((1u128 << shift) - divisor as u128)) / divisor as u128 + 1;
        Some(IntDivider {
            divisor,
            magic: magic as u64,
            shift,
        })
    }

    #[inline(always)]
    pub fn div(&self, n: u64) -> u64 {
        let t = ((n as u128 * self.magic as u128) >> 64) as u64; // mul.hi.u64
        ((t as u128 + n as u128) >> self.shift) as u64
    }

    #[inline(always)]
    pub fn divmod(&self, n: u64) -> (u64, u64) {
        let q = self.div(n);
        (q, n.wrapping_sub(q.wrapping_mul(self.divisor)))
    }
}

impl IndexInt for u32 {
    type Stride = i32;
    #[inline(always)]
    fn from_u64_trunc(v: u64) -> Self {
        v as u32
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
    fn from_u64_checked(v: u64) -> Option<Self> {
        u32::try_from(v).ok()
    }
    fn stride_from_i64(v: i64) -> Option<i32> {
        i32::try_from(v).ok()
    }
    #[inline(always)]
    fn mul_add_stride(acc: i32, r: u32, stride: i32) -> i32 {
        acc.wrapping_add((r as i32).wrapping_mul(stride))
    }
    #[inline(always)]
    fn stride_to_isize(s: i32) -> isize {
        s as isize
    }
    #[inline(always)]
    fn divmod(d: &IntDivider<u32>, n: u32) -> (u32, u32) {
        d.divmod(n)
    }
}

impl IndexInt for u64 {
    type Stride = i64;
    #[inline(always)]
    fn from_u64_trunc(v: u64) -> Self {
        v
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    fn from_u64_checked(v: u64) -> Option<Self> {
        Some(v)
    }
    fn stride_from_i64(v: i64) -> Option<i64> {
        Some(v)
    }
    #[inline(always)]
    fn mul_add_stride(acc: i64, r: u64, stride: i64) -> i64 {
        acc.wrapping_add((r as i64).wrapping_mul(stride))
    }
    #[inline(always)]
    fn stride_to_isize(s: i64) -> isize {
        s as isize
    }
    #[inline(always)]
    fn divmod(d: &IntDivider<u64>, n: u64) -> (u64, u64) {
        d.divmod(n)
    }
}

/// Why a loop cannot be expressed as an [`ElementLayout`] of the requested width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// More than [`MAX_OPERANDS`] operands, or strides/dtypes not matching the operand count.
    Operands { noperands: usize },
    /// A stride list whose length differs from the shape's.
    StrideRank { operand: usize },
    /// More than [`MAX_DIMS`] dims even after coalescing.
    TooManyDims { ndim: usize },
    /// The element count or a byte offset does not fit the index width (use the 64-bit kernel),
    /// or the element count overflows 64 bits.
    IndexOverflow,
}

impl core::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LayoutError::Operands { noperands } => {
                write!(
                    f,
                    "{noperands} operands (a device kernel takes 1..={MAX_OPERANDS}, each with strides and a dtype)"
                )
            }
            LayoutError::StrideRank { operand } => {
                write!(f, "operand {operand}: strides and shape differ in length")
            }
            LayoutError::TooManyDims { ndim } => write!(
                f,
                "{ndim} dims after coalescing; a device kernel takes at most {MAX_DIMS}"
            ),
            LayoutError::IndexOverflow => {
                write!(
                    f,
                    "element count or byte offset does not fit the index width"
                )
            }
        }
    }
}

/// The coalesced loop a kernel runs, by value (a few hundred bytes of `.param` space).
///
/// * dim 0 is the **innermost** (fastest-varying) dim, as in PyTorch's `OffsetCalculator`;
///   [`ElementLayout::new`] takes the usual row-major order and reverses it;
/// * `strides[k][d]` is operand `k`'s stride in **bytes** (operand 0 is the output; any sign);
/// * `dtypes[k]` is operand `k`'s `DType as u8`, read by the casting kernels only.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ElementLayout<I: IndexInt> {
    pub ndim: u32,
    pub noperands: u32,
    pub numel: I,
    pub dims: [IntDivider<I>; MAX_DIMS],
    pub strides: [[I::Stride; MAX_DIMS]; MAX_OPERANDS],
    pub dtypes: [u8; MAX_OPERANDS],
}

/// The 32-bit-index layout (every byte offset and the element count fit 32 bits).
pub type Layout32 = ElementLayout<u32>;
/// The 64-bit-index layout.
pub type Layout64 = ElementLayout<u64>;

impl<I: IndexInt> ElementLayout<I>
where
    IntDivider<I>: DividerNew<I>,
{
    /// Builds the layout of a loop over `shape` (row-major, outermost first) where operand `k`
    /// (0 = output) has byte strides `strides[k]` and dtype `dtypes[k]`.
    ///
    /// Size-1 dims are dropped and adjacent dims that are contiguous in every operand are merged
    /// (so a contiguous loop is one dim). Fails when more than [`MAX_DIMS`] dims remain, or, for
    /// `u32`, when the element count or any operand's byte offset range does not fit 32 bits.
    pub fn new(
        shape: &[usize],
        strides: &[&[isize]],
        dtypes: &[DType],
    ) -> Result<Self, LayoutError> {
        let nops = strides.len();
        if nops == 0 || nops > MAX_OPERANDS || dtypes.len() != nops {
            return Err(LayoutError::Operands { noperands: nops });
        }
        for (k, s) in strides.iter().enumerate() {
            if s.len() != shape.len() {
                return Err(LayoutError::StrideRank { operand: k });
            }
        }
        let mut numel: u64 = 1;
        for &n in shape {
            numel = numel
                .checked_mul(n as u64)
                .ok_or(LayoutError::IndexOverflow)?;
        }
        let numel_i = I::from_u64_checked(numel).ok_or(LayoutError::IndexOverflow)?;

        // Coalesce, innermost first, into fixed arrays (no allocation: this is no_std).
        let mut sizes = [1u64; MAX_DIMS];
        let mut st = [[0i64; MAX_DIMS]; MAX_OPERANDS];
        let mut nd = 0usize;
        if numel > 0 {
            for d in (0..shape.len()).rev() {
                let n = shape[d] as u64;
                if n == 1 {
                    continue;
                }
                if nd > 0 {
                    let last = nd - 1;
                    let mergeable = (0..nops).all(|k| {
                        (st[k][last] as i128) * (sizes[last] as i128) == strides[k][d] as i128
                    });
                    if mergeable {
                        sizes[last] = sizes[last]
                            .checked_mul(n)
                            .ok_or(LayoutError::IndexOverflow)?;
                        continue;
                    }
                }
                if nd == MAX_DIMS {
                    // Count what is left to report an honest dim count.
                    let rest = (0..=d).filter(|&e| shape[e] != 1).count();
                    return Err(LayoutError::TooManyDims { ndim: nd + rest });
                }
                sizes[nd] = n;
                for k in 0..nops {
                    st[k][nd] = strides[k][d] as i64;
                }
                nd += 1;
            }
        }

        // Every operand's byte offset range (and each stride) must fit the index width.
        for row in st.iter().take(nops) {
            let (mut lo, mut hi) = (0i128, 0i128);
            for d in 0..nd {
                let span = (sizes[d] as i128 - 1) * row[d] as i128;
                if span < 0 {
                    lo += span;
                } else {
                    hi += span;
                }
            }
            if I::stride_from_i64(i64::try_from(lo).map_err(|_| LayoutError::IndexOverflow)?)
                .is_none()
                || I::stride_from_i64(i64::try_from(hi).map_err(|_| LayoutError::IndexOverflow)?)
                    .is_none()
            {
                return Err(LayoutError::IndexOverflow);
            }
        }

        let one =
            <IntDivider<I> as DividerNew<I>>::from_u64(1).ok_or(LayoutError::IndexOverflow)?;
        let mut layout = ElementLayout {
            ndim: nd as u32,
            noperands: nops as u32,
            numel: numel_i,
            dims: [one; MAX_DIMS],
            strides: [[I::Stride::default(); MAX_DIMS]; MAX_OPERANDS],
            dtypes: [0; MAX_OPERANDS],
        };
        for d in 0..nd {
            layout.dims[d] = <IntDivider<I> as DividerNew<I>>::from_u64(sizes[d])
                .ok_or(LayoutError::IndexOverflow)?;
            for (k, row) in st.iter().enumerate().take(nops) {
                layout.strides[k][d] =
                    I::stride_from_i64(row[d]).ok_or(LayoutError::IndexOverflow)?;
            }
        }
        for (k, dt) in dtypes.iter().enumerate() {
            layout.dtypes[k] = *dt as u8;
        }
        Ok(layout)
    }
}

impl<I: IndexInt> ElementLayout<I> {
    /// The byte offsets of operands `0..N` for the element at `linear` (row-major order of the
    /// coalesced loop). No bounds checks, no panics.
    #[inline(always)]
    pub fn offsets<const N: usize>(&self, linear: I) -> [isize; N] {
        const { assert!(N <= MAX_OPERANDS) };
        let mut off = [I::Stride::default(); N];
        let mut rem = linear;
        let ndim = self.ndim as usize;
        // `if d < ndim` inside a constant-count loop (not `break`): LLVM unrolls it fully, so
        // every `dims[d]`/`strides[k][d]` is a constant `ld.param` offset. A rolled loop (a
        // runtime index) makes LLVM copy the whole by-value layout to local memory first:
        // measured, ~200 more PTX lines per kernel and a local-memory read per dim.
        let mut d = 0;
        while d < MAX_DIMS {
            if d < ndim {
                let (q, r) = I::divmod(&self.dims[d], rem);
                rem = q;
                let mut k = 0;
                while k < N {
                    off[k] = I::mul_add_stride(off[k], r, self.strides[k][d]);
                    k += 1;
                }
            }
            d += 1;
        }
        let mut out = [0isize; N];
        let mut k = 0;
        while k < N {
            out[k] = I::stride_to_isize(off[k]);
            k += 1;
        }
        out
    }

    /// The element count as `u64`.
    #[inline(always)]
    pub fn numel_u64(&self) -> u64 {
        self.numel.to_u64()
    }
}

/// Construction of an [`IntDivider`] from a `u64` divisor that must fit the width.
pub trait DividerNew<I>: Sized {
    fn from_u64(d: u64) -> Option<Self>;
}
impl DividerNew<u32> for IntDivider<u32> {
    fn from_u64(d: u64) -> Option<Self> {
        IntDivider::<u32>::new(u32::try_from(d).ok()?)
    }
}
impl DividerNew<u64> for IntDivider<u64> {
    fn from_u64(d: u64) -> Option<Self> {
        IntDivider::<u64>::new(d)
    }
}

// ---------------------------------------------------------------------------------------------
// Loads and stores.

/// Reads one `T` at `p` (element-aligned). bool is read as a byte and tested against zero, so a
/// byte other than 0/1 can never produce an invalid `bool`.
///
/// # Safety
/// `p` is valid for reading `size_of::<T>()` bytes and aligned for `T`.
#[inline(always)]
pub unsafe fn load<T: Element>(p: *const u8) -> T {
    if T::DTYPE == DType::Bool {
        // SAFETY: caller: p is readable for 1 byte.
        T::from_value(Value::Bool(unsafe { p.read() } != 0))
    } else {
        // SAFETY: caller: p is readable and aligned for T; every bit pattern of the non-bool
        // element types is valid.
        unsafe { p.cast::<T>().read() }
    }
}

/// Writes one `T` at `p`.
///
/// # Safety
/// `p` is valid for writing `size_of::<T>()` bytes and aligned for `T`.
#[inline(always)]
pub unsafe fn store<T: Element>(p: *mut u8, v: T) {
    // SAFETY: caller.
    unsafe { p.cast::<T>().write(v) }
}

/// Reads an element whose runtime dtype is `code` (`DType as u8`) and converts it to `T` with
/// [`convert_value`] (PyTorch's casting rules). An unknown code reads as `T::ZERO`; the host
/// never builds one. When `code` is `T`'s own dtype (the usual case, a uniform branch) this is a
/// plain load; the conversions are one shared non-inlined function per `T`
/// ([`load_convert`]), not a copy in every kernel.
///
/// # Safety
/// `p` is valid for reading and aligned for the element type `code` names.
#[inline(always)]
pub unsafe fn load_cast<T: Element>(p: *const u8, code: u8) -> T {
    if code == T::DTYPE as u8 {
        // SAFETY: caller.
        unsafe { load::<T>(p) }
    } else {
        // SAFETY: caller.
        unsafe { load_convert::<T>(p, code) }
    }
}

/// The converting half of [`load_cast`] (any `code`).
///
/// # Safety
/// As [`load_cast`].
#[inline(never)]
pub unsafe fn load_convert<T: Element>(p: *const u8, code: u8) -> T {
    // SAFETY: (all arms) caller guarantees p points at an element of the dtype `code` names.
    unsafe {
        match DType::ALL.get(code as usize) {
            Some(&d) => crate::with_dtype!(d, S => convert_value::<S, T>(load::<S>(p))),
            None => T::ZERO,
        }
    }
}

/// Converts `v` to the runtime dtype `code` and writes it (unknown code: nothing is written).
/// Same-dtype stores are plain; conversions are shared per `T` ([`store_convert`]).
///
/// # Safety
/// `p` is valid for writing and aligned for the element type `code` names.
#[inline(always)]
pub unsafe fn store_cast<T: Element>(p: *mut u8, v: T, code: u8) {
    if code == T::DTYPE as u8 {
        // SAFETY: caller.
        unsafe { store::<T>(p, v) }
    } else {
        // SAFETY: caller.
        unsafe { store_convert::<T>(p, v, code) }
    }
}

/// The converting half of [`store_cast`] (any `code`).
///
/// # Safety
/// As [`store_cast`].
#[inline(never)]
pub unsafe fn store_convert<T: Element>(p: *mut u8, v: T, code: u8) {
    // SAFETY: (all arms) caller guarantees p points at an element of the dtype `code` names.
    unsafe {
        if let Some(&d) = DType::ALL.get(code as usize) {
            crate::with_dtype!(d, S => store::<S>(p, convert_value::<T, S>(v)))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars.

/// A binary functor with its second operand fixed (`WithScalar { f: Add, rhs: 2.0 }` is
/// `x + 2.0`): the CPU's [`BindRhs`](crate::functors::BindRhs) itself (`#[repr(C)]`), so the
/// scalar travels as part of the functor value, i.e. as a kernel argument.
pub use crate::functors::BindRhs as WithScalar;

/// A functor whose `call` is one shared, non-inlined function per (functor, argument types)
/// when `OUTLINE` (the expensive ones: libm transcendentals, pow, fmod, f16/bf16 soft
/// arithmetic), instead of a copy at every call site of every kernel variant. `OUTLINE = false`
/// is the functor itself (cheap ones stay inlined). Same results either way.
#[repr(transparent)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Outlined<F, const OUTLINE: bool>(pub F);

impl<F, Args, const OUTLINE: bool> Functor<Args> for Outlined<F, OUTLINE>
where
    F: Functor<Args>,
{
    type Output = F::Output;
    #[inline(always)]
    fn call(&self, args: Args) -> F::Output {
        if OUTLINE {
            call_outlined(self.0, args)
        } else {
            self.0.call(args)
        }
    }
}

/// `f.call(args)` as a function of its own (the functor by value: no local-memory copy).
#[inline(never)]
pub fn call_outlined<F: Functor<Args>, Args>(f: F, args: Args) -> F::Output {
    f.call(args)
}

// ---------------------------------------------------------------------------------------------
// Per-thread bodies on the strided path. Every operand is read and written with its runtime
// dtype from `layout.dtypes`: a plain access when it is the static type (the same branch for
// every thread), else a conversion with `convert_value` (`load_cast`/`store_cast`).

/// One element of a unary kernel.
///
/// # Safety
/// `out`/`a` with the layout's byte offsets address valid, aligned elements of operand 0/1
/// (dtypes `layout.dtypes[0]`/`[1]`) for every `i < numel`.
#[inline(always)]
pub unsafe fn unary_at<F, A, I>(f: &F, l: &ElementLayout<I>, out: *mut u8, a: *const u8, i: I)
where
    F: Functor<(A,)>,
    F::Output: Element,
    A: Element,
    I: IndexInt,
{
    let [o0, o1] = l.offsets::<2>(i);
    // SAFETY: caller.
    unsafe {
        let x = load_cast::<A>(a.wrapping_offset(o1), l.dtypes[1]);
        store_cast::<F::Output>(out.wrapping_offset(o0), f.call((x,)), l.dtypes[0]);
    }
}

/// One element of a binary kernel. Safety as [`unary_at`], with operand 2 `b`.
///
/// # Safety
/// See [`unary_at`].
#[inline(always)]
pub unsafe fn binary_at<F, A, B, I>(
    f: &F,
    l: &ElementLayout<I>,
    out: *mut u8,
    a: *const u8,
    b: *const u8,
    i: I,
) where
    F: Functor<(A, B)>,
    F::Output: Element,
    A: Element,
    B: Element,
    I: IndexInt,
{
    let [o0, o1, o2] = l.offsets::<3>(i);
    // SAFETY: caller.
    unsafe {
        let x = load_cast::<A>(a.wrapping_offset(o1), l.dtypes[1]);
        let y = load_cast::<B>(b.wrapping_offset(o2), l.dtypes[2]);
        store_cast::<F::Output>(out.wrapping_offset(o0), f.call((x, y)), l.dtypes[0]);
    }
}

/// One element of a ternary kernel. Safety as [`unary_at`], with operands 2 `b` and 3 `c`.
///
/// # Safety
/// See [`unary_at`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn ternary_at<F, A, B, C, I>(
    f: &F,
    l: &ElementLayout<I>,
    out: *mut u8,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    i: I,
) where
    F: Functor<(A, B, C)>,
    F::Output: Element,
    A: Element,
    B: Element,
    C: Element,
    I: IndexInt,
{
    let [o0, o1, o2, o3] = l.offsets::<4>(i);
    // SAFETY: caller.
    unsafe {
        let x = load_cast::<A>(a.wrapping_offset(o1), l.dtypes[1]);
        let y = load_cast::<B>(b.wrapping_offset(o2), l.dtypes[2]);
        let z = load_cast::<C>(c.wrapping_offset(o3), l.dtypes[3]);
        store_cast::<F::Output>(out.wrapping_offset(o0), f.call((x, y, z)), l.dtypes[0]);
    }
}

/// The grid-stride loop of every strided kernel: thread `tid` of `nthreads` handles elements
/// `tid, tid + nthreads, ...` below `numel`. The host keeps `nthreads <= 2^31`.
#[inline(always)]
pub fn grid_stride<I: IndexInt>(tid: u64, nthreads: u64, numel: I, mut body: impl FnMut(I)) {
    let n = numel.to_u64();
    let step = if nthreads == 0 { 1 } else { nthreads };
    let mut i = tid;
    while i < n {
        body(I::from_u64_trunc(i));
        i += step;
    }
}

/// The argument of the strided kernels (`{op}_{t}_s`): the loop in 32-bit index math when
/// `wide == 0` (every byte offset and the element count fit; `l64` is unused), else in 64-bit
/// (`l32` unused). One kernel per (op, type) instead of one per index width: the choice is a
/// branch on a kernel argument, the same for every thread.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StridedLayout {
    pub l32: Layout32,
    pub l64: Layout64,
    pub wide: u32,
}

impl StridedLayout {
    /// The layout of a loop over `shape` (row-major) with byte `strides` and `dtypes` per
    /// operand (0 = output): 32-bit when it fits, else 64-bit (see [`ElementLayout::new`]).
    pub fn new(
        shape: &[usize],
        strides: &[&[isize]],
        dtypes: &[DType],
    ) -> Result<Self, LayoutError> {
        match Layout32::new(shape, strides, dtypes) {
            Ok(l32) => Ok(StridedLayout {
                l32,
                l64: Layout64::empty(),
                wide: 0,
            }),
            Err(LayoutError::IndexOverflow) => Ok(StridedLayout {
                l32: Layout32::empty(),
                l64: Layout64::new(shape, strides, dtypes)?,
                wide: 1,
            }),
            Err(e) => Err(e),
        }
    }

    /// Whether the loop uses 64-bit index math.
    pub fn is_wide(&self) -> bool {
        self.wide != 0
    }

    /// The element count.
    pub fn numel(&self) -> u64 {
        if self.is_wide() {
            self.l64.numel
        } else {
            self.l32.numel as u64
        }
    }
}

impl<I: IndexInt> ElementLayout<I> {
    /// A loop of no elements (the unused half of a [`StridedLayout`]).
    pub fn empty() -> Self {
        ElementLayout {
            ndim: 0,
            noperands: 0,
            numel: I::default(),
            dims: [IntDivider {
                divisor: I::default(),
                magic: I::default(),
                shift: 0,
            }; MAX_DIMS],
            strides: [[I::Stride::default(); MAX_DIMS]; MAX_OPERANDS],
            dtypes: [0; MAX_OPERANDS],
        }
    }
}

macro_rules! strided_body {
    ($(#[$m:meta])* $name:ident, $at:ident, ($($A:ident $a:ident),+)) => {
        $(#[$m])*
        /// # Safety
        /// The layout describes the real buffers: for every element, each operand's base plus
        /// its byte offset addresses a valid, aligned element of that operand's dtype.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name<F, $($A),+>(
            tid: u64,
            nthreads: u64,
            l: &StridedLayout,
            f: &F,
            out: *mut u8,
            $($a: *const u8),+
        ) where
            F: Functor<($($A,)+)>,
            F::Output: Element,
            $($A: Element),+
        {
            if l.wide != 0 {
                let l = &l.l64;
                // SAFETY: caller.
                grid_stride(tid, nthreads, l.numel, |i| unsafe {
                    $at::<F, $($A,)+ u64>(f, l, out, $($a,)+ i)
                })
            } else {
                let l = &l.l32;
                // SAFETY: caller.
                grid_stride(tid, nthreads, l.numel, |i| unsafe {
                    $at::<F, $($A,)+ u32>(f, l, out, $($a,)+ i)
                })
            }
        }
    };
}

strided_body!(
    /// A unary kernel's strided path over every element (see [`StridedLayout`]).
    unary_strided, unary_at, (A a)
);
strided_body!(
    /// A binary kernel's strided path over every element (see [`StridedLayout`]).
    binary_strided, binary_at, (A a, B b)
);
strided_body!(
    /// A ternary kernel's strided path over every element (see [`StridedLayout`]).
    ternary_strided, ternary_at, (A a, B b, C c)
);

// ---------------------------------------------------------------------------------------------
// The contiguous path: every operand dense, same element order, each thread moves one
// 16-byte chunk of the widest operand (`VECTOR_BYTES / max size` elements per thread).

/// Elements per thread on the contiguous path for operands of these byte sizes.
#[inline(always)]
pub const fn vector_len(sizes: &[usize]) -> usize {
    let mut m = 1;
    let mut i = 0;
    while i < sizes.len() {
        if sizes[i] > m {
            m = sizes[i];
        }
        i += 1;
    }
    VECTOR_BYTES / m
}

#[repr(C, align(16))]
#[derive(Copy, Clone)]
struct Chunk([u8; VECTOR_BYTES]);

/// Loads `bytes` (a power of two <= 16, constant after inlining) with one aligned access.
#[inline(always)]
unsafe fn load_chunk(p: *const u8, bytes: usize) -> Chunk {
    let mut c = Chunk([0; VECTOR_BYTES]);
    // SAFETY: caller: p is aligned to `bytes` and readable for `bytes` bytes.
    unsafe {
        match bytes {
            16 => c = p.cast::<Chunk>().read(),
            8 => c.0[..8].copy_from_slice(&p.cast::<u64>().read().to_ne_bytes()),
            4 => c.0[..4].copy_from_slice(&p.cast::<u32>().read().to_ne_bytes()),
            2 => c.0[..2].copy_from_slice(&p.cast::<u16>().read().to_ne_bytes()),
            _ => c.0[0] = p.read(),
        }
    }
    c
}

/// Stores the first `bytes` of `c` with one aligned access.
#[inline(always)]
unsafe fn store_chunk(p: *mut u8, c: &Chunk, bytes: usize) {
    // SAFETY: caller: p is aligned to `bytes` and writable for `bytes` bytes.
    unsafe {
        match bytes {
            16 => p.cast::<Chunk>().write(*c),
            8 => p.cast::<u64>().write(u64::from_ne_bytes([
                c.0[0], c.0[1], c.0[2], c.0[3], c.0[4], c.0[5], c.0[6], c.0[7],
            ])),
            4 => p
                .cast::<u32>()
                .write(u32::from_ne_bytes([c.0[0], c.0[1], c.0[2], c.0[3]])),
            2 => p.cast::<u16>().write(u16::from_ne_bytes([c.0[0], c.0[1]])),
            _ => p.write(c.0[0]),
        }
    }
}

#[inline(always)]
fn chunk_get<T: Element>(c: &Chunk, j: usize) -> T {
    let s = size_of::<T>();
    if j * s + s > VECTOR_BYTES {
        return T::ZERO; // unreachable: j < vector_len; keeps the access provably in bounds
    }
    // SAFETY: j * s + s <= 16, so the read is inside the chunk (unaligned read of plain bytes).
    unsafe { load_unaligned::<T>(c.0.as_ptr().add(j * s)) }
}

#[inline(always)]
fn chunk_set<T: Element>(c: &mut Chunk, j: usize, v: T) {
    let s = size_of::<T>();
    if j * s + s > VECTOR_BYTES {
        return;
    }
    // SAFETY: inside the chunk, as above.
    unsafe { c.0.as_mut_ptr().add(j * s).cast::<T>().write_unaligned(v) }
}

#[inline(always)]
unsafe fn load_unaligned<T: Element>(p: *const u8) -> T {
    // SAFETY: caller: p readable for size_of::<T>() bytes.
    unsafe {
        if T::DTYPE == DType::Bool {
            T::from_value(Value::Bool(p.read() != 0))
        } else {
            p.cast::<T>().read_unaligned()
        }
    }
}

/// Whether the contiguous kernel may take these base pointers: each must be aligned to its
/// operand's chunk (`vector_len * size`), so every full chunk is one aligned vector access.
pub fn contiguous_aligned(ptrs_and_sizes: &[(usize, usize)]) -> bool {
    let mut sizes = [1usize; MAX_OPERANDS];
    for (k, &(_, s)) in ptrs_and_sizes.iter().enumerate().take(MAX_OPERANDS) {
        sizes[k] = s;
    }
    let v = vector_len(&sizes[..ptrs_and_sizes.len().min(MAX_OPERANDS)]);
    ptrs_and_sizes.iter().all(|&(p, s)| p % (v * s) == 0)
}

/// Expands `$body` 16 times with `$j` bound to 0..16 (constant indices after expansion).
macro_rules! unroll16 {
    ($j:ident => $body:expr) => {
        unroll16!(@ $j $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $j:ident $body:expr; $($n:literal)*) => {
        $({
            let $j: usize = $n;
            $body;
        })*
    };
}

macro_rules! contig_body {
    ($(#[$m:meta])* $name:ident, ($($A:ident $a:ident $x:ident),+)) => {
        $(#[$m])*
        /// # Safety
        /// `out` and every input are dense arrays of `numel` elements of the static types
        /// (`F::Output` and the argument types), each base aligned as [`contiguous_aligned`]
        /// requires.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name<F, $($A),+>(
            tid: u64,
            nthreads: u64,
            numel: u64,
            f: &F,
            out: *mut u8,
            $($a: *const u8),+
        ) where
            F: Functor<($($A,)+)>,
            F::Output: Element,
            $($A: Element),+
        {
            let v = vector_len(&[size_of::<F::Output>(), $(size_of::<$A>()),+]) as u64;
            let nchunks = numel.div_ceil(v);
            let step = if nthreads == 0 { 1 } else { nthreads };
            let mut chunk = tid;
            while chunk < nchunks {
                let start = chunk * v;
                // SAFETY: caller: the arrays hold numel elements; start + v <= numel on the
                // vector branch, start + j < numel on the tail branch; alignment as documented.
                unsafe {
                    if start + v <= numel {
                        $(let $x = load_chunk(
                            $a.add(start as usize * size_of::<$A>()),
                            v as usize * size_of::<$A>(),
                        );)+
                        let mut r = Chunk([0; VECTOR_BYTES]);
                        // Unrolled by hand: a rolled loop (LLVM keeps it rolled when the
                        // functor is big, e.g. f16 soft conversions) would index the chunks
                        // at run time and spill them to local memory.
                        unroll16!(j => if j < v as usize {
                            chunk_set(&mut r, j, f.call(($(chunk_get::<$A>(&$x, j),)+)));
                        });
                        store_chunk(
                            out.add(start as usize * size_of::<F::Output>()),
                            &r,
                            v as usize * size_of::<F::Output>(),
                        );
                    } else {
                        let mut e = start;
                        while e < numel {
                            let y = f.call(($(load::<$A>($a.add(e as usize * size_of::<$A>())),)+));
                            store(out.add(e as usize * size_of::<F::Output>()), y);
                            e += 1;
                        }
                    }
                }
                chunk += step;
            }
        }
    };
}

contig_body!(
    /// A unary kernel's contiguous path: thread `tid` of `nthreads` handles chunks
    /// `tid, tid + nthreads, ...` of `vector_len` elements (the last one may be partial).
    unary_contig, (A a xa)
);
contig_body!(
    /// A binary kernel's contiguous path (see [`unary_contig`]).
    binary_contig, (A a xa, B b xb)
);
contig_body!(
    /// A ternary kernel's contiguous path (see [`unary_contig`]).
    ternary_contig, (A a xa, B b xb, C c xc)
);

/// Threads of the contiguous path for `numel` elements of operands with these byte sizes.
pub fn contiguous_chunks(numel: u64, sizes: &[usize]) -> u64 {
    numel.div_ceil(vector_len(sizes) as u64)
}
