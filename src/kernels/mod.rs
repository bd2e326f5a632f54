//! Typed inner loops. The iterator hands a kernel runs of elements as
//! `(pointers, byte strides, count)`, outputs first; a kernel built here applies a functor to
//! every element of the run.
//!
//! Paths, chosen per run:
//! * **contiguous**: every operand has unit stride and its stored dtype is the compute dtype;
//!   a plain indexed loop that LLVM vectorizes;
//! * **broadcast**: (binary) one input has stride 0; its value is loaded once and held in a
//!   register while the other operand streams;
//! * **strided**: same dtypes, arbitrary strides;
//! * **casting**: some operand is stored in another dtype than the functor computes in; the run
//!   is processed in blocks of [`BLOCK`] elements, each input converted into a small stack buffer
//!   (it stays in L1) and the results converted back on store. No full-size temporary exists.

use crate::dtype::DType;
use crate::element::{Element, convert_value};
use crate::functors::{Functor, VectorForm};
use crate::iter::{LoopCost, TensorIterator};
use isa::on_widest_isa;

mod bf16_native;
mod cast;
mod f16c;
mod half_fused;
pub(crate) mod isa;
mod sqrt_newton;
mod transpose;

pub(crate) use cast::run_float_to_int;

/// Elements per block on the casting path: 256 x 8 bytes x 4 operands = 8 KiB of stack.
pub const BLOCK: usize = 256;

/// Reads `n` elements of stored type `S` at byte stride `stride` from `src` and converts them to `C`.
///
/// # Safety
/// `src + i*stride` must be a valid, aligned `S` for every `i < n`, and `dst` valid for `n` writes.
unsafe fn load_cast<S: Element, C: Element>(src: *const u8, stride: isize, n: usize, dst: *mut C) {
    if stride == 0 && n > 0 {
        // A broadcast value: converted once.
        // SAFETY: per the function contract (one element, n > 0).
        let v = convert_value::<S, C>(unsafe { (src as *const S).read() });
        for i in 0..n {
            // SAFETY: per the function contract.
            unsafe { dst.add(i).write(v) };
        }
        return;
    }
    if stride == size_of::<S>() as isize {
        // A unit-stride run: the conversion loop compiled for the widest ISA (sign extensions,
        // int <-> float conversions: SSE2 has few of them).
        on_widest_isa!([S: Element, C: Element] (src: *const S = src as *const S, n: usize = n,
            dst: *mut C = dst) {
            // SAFETY: the caller's contract (unit stride).
            unsafe { convert_run(src, n, dst) }
        });
        return;
    }
    // Any other stride: gathered into a unit-stride buffer (the vectorized reversed and step-2
    // forms of `load_same`), then converted as a unit-stride run. The buffer is placed against
    // `dst`, the stream the conversion writes while it reads the buffer ahead (see
    // `PlacedBuf`): both lie on the stack, so a fixed buffer hit or missed 4K aliasing by build.
    let mut place = PlacedBuf::new();
    let buf = place.for_source::<S>(dst.cast());
    let mut done = 0;
    while done < n {
        let m = BLOCK.min(n - done);
        // SAFETY: the contract: elements `done..done + m` are valid at `stride`; `buf` is valid
        // for `m <= BLOCK` writes and disjoint from them; `dst + done` for `m` writes.
        unsafe {
            load_same::<S>(src.offset(done as isize * stride), stride, m, buf);
            load_cast::<S, C>(buf as *const u8, size_of::<S>() as isize, m, dst.add(done));
        }
        done += m;
    }
}

/// `dst[i] = convert_value(src[i])` for `i < n`.
///
/// # Safety
/// `src` valid for `n` reads, `dst` for `n` writes.
#[inline(always)]
unsafe fn convert_run<S: Element, D: Element>(src: *const S, n: usize, dst: *mut D) {
    for i in 0..n {
        // SAFETY: the caller's contract.
        unsafe { dst.add(i).write(convert_value::<S, D>(src.add(i).read())) };
    }
}

/// Converts `n` values of `O` from `src` into stored type `D` at byte stride `stride`.
///
/// # Safety
/// `dst + i*stride` must be a valid, aligned `D` for every `i < n`, `src` valid for `n` reads.
unsafe fn store_cast<O: Element, D: Element>(src: *const O, dst: *mut u8, stride: isize, n: usize) {
    if stride == size_of::<D>() as isize {
        // As in `load_cast`.
        on_widest_isa!([O: Element, D: Element] (src: *const O = src, n: usize = n,
            dst: *mut D = dst as *mut D) {
            // SAFETY: the caller's contract (unit stride).
            unsafe { convert_run(src, n, dst) }
        });
        return;
    }
    // Any other stride: converted as a unit-stride run into a buffer, then scattered (the
    // vectorized reversed form of `store_same`). The buffer is placed against `src`, the
    // stream the conversion reads ahead while it writes the buffer (both on the stack).
    let mut place = PlacedBuf::new();
    let buf = place.for_source::<D>(src.cast());
    let mut done = 0;
    while done < n {
        let m = BLOCK.min(n - done);
        // SAFETY: the contract: `src + done` valid for `m` reads, elements `done..done + m` of
        // `dst` valid at `stride`; `buf` valid for `m <= BLOCK` elements, disjoint from both.
        unsafe {
            store_cast::<O, D>(src.add(done), buf as *mut u8, size_of::<D>() as isize, m);
            store_same::<D>(buf, dst.offset(done as isize * stride), stride, m);
        }
        done += m;
    }
}

type LoadFn<C> = unsafe fn(*const u8, isize, usize, *mut C);
type StoreFn<O> = unsafe fn(*const O, *mut u8, isize, usize);

/// Reads `n` elements of `C` at byte stride `stride` into `dst` (no conversion: a strided
/// input gathered into a block buffer).
///
/// # Safety
/// As [`load_cast`] with `S = C`, and `dst` (a block buffer) disjoint from the elements read.
unsafe fn load_same<C: Element>(src: *const u8, stride: isize, n: usize, dst: *mut C) {
    let e = size_of::<C>() as isize;
    // The strides LLVM can vectorize when it knows them (shuffles instead of one load per
    // element): unit, broadcast (0), reversed (a negative step), step 2. Any other: the plain loop.
    if stride == e {
        // SAFETY: per the function contract (n elements from `src`, `dst` a block buffer).
        unsafe { core::ptr::copy_nonoverlapping(src as *const C, dst, n) };
        return;
    }
    if stride == 0 && n > 0 {
        // SAFETY: per the function contract (one element, read once: a broadcast operand).
        unsafe {
            let v = (src as *const C).read();
            for i in 0..n {
                dst.add(i).write(v);
            }
        }
        return;
    }
    // The reversed gather, and the step-2 one of 1- and 8-byte elements, compiled for the
    // widest ISA: the baseline's SSE2 has no byte shuffle, and its reversed u8 gather stayed
    // scalar (a reversed u8 op at 8x the copy limit, twice a reversed f32 one); step-2 `neg`
    // 16M: u8 2.6 -> 2.3 ms, f64 34 -> 29. The 2- and 4-byte step-2 truncations are faster as
    // SSE2's packs than as AVX-512's `vpmovdw`/`vpmovqd` (f16 8.0 -> 9.6 ms, i32 13.0 -> 14.5):
    // those keep the baseline loop.
    if stride == -e && n > 0 {
        on_widest_isa!([C: Element] (src: *const C = src as *const C, n: usize = n, dst: *mut C = dst) {
            // SAFETY: the elements are `src - (n-1)` .. `src`, all valid per the contract.
            unsafe { load_reversed(src, n, dst) }
        });
        return;
    }
    if stride == 2 * e && n > 0 {
        if matches!(e, 2 | 4) {
            // SAFETY: per the function contract (n elements at step 2 from `src`).
            unsafe { load_step2(src, n, dst) };
        } else {
            on_widest_isa!([C: Element] (src: *const u8 = src, n: usize = n, dst: *mut C = dst) {
                // SAFETY: per the function contract (n elements at step 2 from `src`).
                unsafe { load_step2(src, n, dst) }
            });
        }
        return;
    }
    for i in 0..n {
        // SAFETY: per the function contract.
        unsafe {
            dst.add(i)
                .write((src.offset(i as isize * stride) as *const C).read())
        };
    }
}

/// `dst[i] = src[-i]` for `n > 0` elements of `C`.
///
/// # Safety
/// `src - (n-1)` .. `src` valid elements, `dst` valid for `n` writes and disjoint from them.
#[inline(always)]
unsafe fn load_reversed<C: Element>(src: *const C, n: usize, dst: *mut C) {
    // SAFETY: the contract.
    unsafe {
        let low = src.sub(n - 1);
        for i in 0..n {
            dst.add(i).write(low.add(n - 1 - i).read());
        }
    }
}

/// `dst[-i] = src[i]` for `n > 0` elements of `O`.
///
/// # Safety
/// `dst - (n-1)` .. `dst` valid for writes, `src` valid for `n` reads and disjoint from them.
#[inline(always)]
unsafe fn store_reversed<O: Element>(src: *const O, n: usize, dst: *mut O) {
    // SAFETY: the contract.
    unsafe {
        let low = dst.sub(n - 1);
        for i in 0..n {
            low.add(n - 1 - i).write(src.add(i).read());
        }
    }
}

/// `dst[i] = src[2i]` for `n > 0` elements of `C`: on little-endian targets each element is
/// the low half of the double-width word at its address, so the gather is a truncation, which
/// LLVM vectorizes as packs and shuffles (the element-by-element loop stayed scalar for 1- and
/// 2-byte elements: a step-2 `u8` op ran at 4x the copy limit). The last element is read
/// alone: its word would reach one element past the run.
///
/// The words also read the elements between the run's (initialised: storages are zeroed,
/// adopted from initialised buffers, or an op's dense output written in full before anyone
/// reads it, `Storage::try_uninit`). Nothing writes them meanwhile: other ops cannot (the
/// storage borrow), and this op's outputs cannot, because an output on the input's storage
/// whose address range meets the input's is either the identical view (whose gaps are the
/// same gaps, unwritten) or read from a copy (`iter/overlap.rs`).
///
/// # Safety
/// As [`load_same`] with `stride = 2 * size_of::<C>()`, and `n > 0`.
#[inline(always)]
unsafe fn load_step2<C: Element>(src: *const u8, n: usize, dst: *mut C) {
    /// `n` words of `W` from `src` (unaligned), each truncated to its low `N` into `dst`.
    macro_rules! low_halves {
        ($w:ty => $n:ty) => {
            for i in 0..n - 1 {
                // SAFETY: word i covers elements 2i and 2i + 1 of the run, both below element
                // 2(n - 1); `dst` holds `n` elements of the narrow width.
                unsafe {
                    let w = (src as *const $w).add(i).read_unaligned();
                    (dst as *mut $n).add(i).write(w as $n);
                }
            }
        };
    }
    match (cfg!(target_endian = "little"), size_of::<C>()) {
        (true, 1) => low_halves!(u16 => u8),
        (true, 2) => low_halves!(u32 => u16),
        (true, 4) => low_halves!(u64 => u32),
        _ => {
            for i in 0..n - 1 {
                // SAFETY: the contract: element i of the run, at element offset 2i.
                unsafe { dst.add(i).write((src as *const C).add(2 * i).read()) };
            }
        }
    }
    // SAFETY: the last element of the run.
    unsafe {
        dst.add(n - 1)
            .write((src as *const C).add(2 * (n - 1)).read())
    };
}

/// Writes `n` elements of `O` from `src` at byte stride `stride` (a block buffer scattered).
///
/// # Safety
/// As [`store_cast`] with `D = O`, and `src` (a block buffer) disjoint from the elements written.
unsafe fn store_same<O: Element>(src: *const O, dst: *mut u8, stride: isize, n: usize) {
    let e = size_of::<O>() as isize;
    // As in [`load_same`]: the strides LLVM vectorizes when it knows them.
    if stride == -e && n > 0 {
        on_widest_isa!([O: Element] (src: *const O = src, n: usize = n, dst: *mut O = dst as *mut O) {
            // SAFETY: the elements are `dst - (n-1)` .. `dst`, all valid per the contract.
            unsafe { store_reversed(src, n, dst) }
        });
        return;
    }
    if stride == e {
        // SAFETY: per the function contract (`src` a block buffer, disjoint from `dst`).
        unsafe { core::ptr::copy_nonoverlapping(src, dst as *mut O, n) };
        return;
    }
    for i in 0..n {
        // SAFETY: per the function contract.
        unsafe { (dst.offset(i as isize * stride) as *mut O).write(src.add(i).read()) };
    }
}

fn loader<C: Element>(stored: DType) -> LoadFn<C> {
    if stored == C::DTYPE {
        return load_same::<C>;
    }
    if C::DTYPE == DType::F32 {
        let f: Option<LoadFn<f32>> = match stored {
            DType::F16 => Some(half_blocks::load_f16),
            DType::BF16 => Some(half_blocks::load_bf16),
            _ => None,
        };
        if let Some(f) = f {
            // SAFETY: `C::DTYPE == F32` and every dtype has exactly one element type, so `C` is
            // `f32` and the two function pointer types are the same type.
            return unsafe { core::mem::transmute_copy::<LoadFn<f32>, LoadFn<C>>(&f) };
        }
    }
    crate::with_dtype!(stored, S => load_cast::<S, C> as LoadFn<C>)
}

fn storer<O: Element>(stored: DType) -> StoreFn<O> {
    if stored == O::DTYPE {
        return store_same::<O>;
    }
    if O::DTYPE == DType::F32 {
        let f: Option<StoreFn<f32>> = match stored {
            DType::F16 => Some(half_blocks::store_f16),
            DType::BF16 => Some(half_blocks::store_bf16),
            _ => None,
        };
        if let Some(f) = f {
            // SAFETY: as in `loader`: `O` is `f32`.
            return unsafe { core::mem::transmute_copy::<StoreFn<f32>, StoreFn<O>>(&f) };
        }
    }
    crate::with_dtype!(stored, D => store_cast::<O, D> as StoreFn<O>)
}

/// Block conversions between f16/bf16 storage and f32 compute buffers. Unit-stride blocks use
/// the conversion instructions for f16 ([`f16c`], when the CPU has them, detected at run
/// time) and shift/round loops for bf16 that LLVM vectorizes; both give exactly the
/// scalar conversions' results (round to nearest even, NaN stays NaN). Other strides fall
/// back to the per-element loops.
mod half_blocks {
    use half::f16;

    /// A strided (or stride-0) half block: its 16-bit patterns gathered into a unit-stride
    /// stack buffer, then converted by the vectorized unit-stride `load` (the gather is plain
    /// integer moves; a per-element conversion is several times slower).
    ///
    /// # Safety
    /// As [`load_cast`] for a 2-byte element type; `load` is `load_f16` or `load_bf16`.
    unsafe fn via_unit_load(
        src: *const u8,
        stride: isize,
        n: usize,
        dst: *mut f32,
        load: unsafe fn(*const u8, isize, usize, *mut f32),
    ) {
        if stride == 0 && n > 0 {
            // A broadcast value: converted once.
            let mut v = 0f32;
            // SAFETY: `src` is one valid 2-byte element (the contract, n > 0); `v` one f32.
            unsafe { load(src, 2, 1, &mut v) };
            for i in 0..n {
                // SAFETY: `dst` valid for `n` writes (the contract).
                unsafe { dst.add(i).write(v) };
            }
            return;
        }
        // Uninitialised (a zeroed one cost a memset per block); only what the gather wrote is
        // read. Placed against `dst`, as in `load_cast` (a bf16 `relu` of a reversed 64K input
        // took 7.3 or 13 µs by build and by where the stack lay).
        let mut place = super::PlacedBuf::new();
        let bits = place.for_source::<u16>(dst.cast());
        let mut done = 0;
        while done < n {
            let m = super::BLOCK.min(n - done);
            // SAFETY: the contract: elements `done..done + m` are valid at `stride`; `bits` is
            // valid for `m <= BLOCK` writes and disjoint from them. `load_same` has the
            // vectorized reversed and step-2 gathers.
            unsafe { super::load_same::<u16>(src.offset(done as isize * stride), stride, m, bits) };
            // SAFETY: `bits` holds `m` valid 2-byte elements at unit stride; `dst + done` is
            // valid for `m` writes (the contract).
            unsafe { load(bits as *const u8, 2, m, dst.add(done)) };
            done += m;
        }
    }

    /// The store counterpart of [`via_unit_load`]: converted into a unit-stride buffer by
    /// `store`, then scattered.
    ///
    /// # Safety
    /// As [`store_cast`] for a 2-byte element type; `store` is `store_f16` or `store_bf16`.
    unsafe fn via_unit_store(
        src: *const f32,
        dst: *mut u8,
        stride: isize,
        n: usize,
        store: unsafe fn(*const f32, *mut u8, isize, usize),
    ) {
        // Placed against `src`, as in `store_cast`.
        let mut place = super::PlacedBuf::new();
        let bits = place.for_source::<u16>(src.cast());
        let mut done = 0;
        while done < n {
            let m = super::BLOCK.min(n - done);
            // SAFETY: `src + done` valid for `m` reads; `bits` for `m <= BLOCK` writes at unit
            // stride.
            unsafe { store(src.add(done), bits as *mut u8, 2, m) };
            // SAFETY: the contract: elements `done..done + m` are valid at `stride`; `bits`
            // holds `m` elements (just written), disjoint from them.
            unsafe {
                super::store_same::<u16>(bits, dst.offset(done as isize * stride), stride, m)
            };
            done += m;
        }
    }

    /// # Safety
    /// As [`load_cast`].
    pub(super) unsafe fn load_f16(src: *const u8, stride: isize, n: usize, dst: *mut f32) {
        if stride == 2 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the contract: `n` valid f16 at unit stride, `dst` valid for `n` writes.
            if unsafe { super::f16c::load(src as *const u16, dst, n) } {
                return;
            }
            // `dst` may be an uninitialised block buffer: written through the pointer, never
            // as a slice.
            let s = src as *const f16;
            for i in 0..n {
                // SAFETY: the contract: `n` valid, aligned f16 at unit stride, `dst` valid for
                // `n` writes.
                unsafe { dst.add(i).write(s.add(i).read().to_f32()) };
            }
        } else {
            // SAFETY: the same contract.
            unsafe { via_unit_load(src, stride, n, dst, load_f16) }
        }
    }

    /// # Safety
    /// As [`store_cast`].
    pub(super) unsafe fn store_f16(src: *const f32, dst: *mut u8, stride: isize, n: usize) {
        if stride == 2 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `load_f16`, with the roles swapped.
            if unsafe { super::f16c::store(src, dst as *mut u16, n) } {
                return;
            }
            let d = dst as *mut f16;
            for i in 0..n {
                // SAFETY: as in `load_f16`, with the roles swapped. Written through the pointer,
                // not a `&mut [f16]`: the output may be uninitialised (`Storage::try_uninit`).
                unsafe { d.add(i).write(f16::from_f32(src.add(i).read())) };
            }
        } else {
            // SAFETY: the same contract.
            unsafe { via_unit_store(src, dst, stride, n, store_f16) }
        }
    }

    /// `dst[i] = bf16 bits src[i] as f32`, compiled for AVX2 when present (16 lanes a cycle).
    #[inline(always)]
    unsafe fn bf16_to_f32_loop(src: *const u16, dst: *mut f32, n: usize) {
        for i in 0..n {
            // SAFETY: the caller's bound.
            unsafe { dst.add(i).write(bf16_bits_to_f32(src.add(i).read())) };
        }
    }

    /// A bf16 bit pattern's value: the high half of an f32, exactly (a NaN kept as it is).
    #[inline(always)]
    pub(crate) fn bf16_bits_to_f32(b: u16) -> f32 {
        f32::from_bits((b as u32) << 16)
    }

    #[inline(always)]
    unsafe fn f32_to_bf16_loop(src: *const f32, dst: *mut u16, n: usize) {
        for i in 0..n {
            // SAFETY: the caller's bound.
            unsafe { dst.add(i).write(f32_to_bf16_bits(src.add(i).read())) };
        }
    }

    /// # Safety
    /// As [`load_cast`].
    pub(super) unsafe fn load_bf16(src: *const u8, stride: isize, n: usize, dst: *mut f32) {
        if stride == 2 {
            let src = src as *const u16;
            super::on_widest_isa!([] (src: *const u16 = src, dst: *mut f32 = dst, n: usize = n) {
                // SAFETY: the contract, unit stride.
                unsafe { bf16_to_f32_loop(src, dst, n) }
            })
        } else {
            // SAFETY: the same contract.
            unsafe { via_unit_load(src, stride, n, dst, load_bf16) }
        }
    }

    /// `half`'s f32 -> bf16 rounding (nearest even; a NaN keeps its top mantissa bits and is
    /// made quiet), branch-free so that the loop vectorizes.
    #[inline(always)]
    pub(crate) fn f32_to_bf16_bits(x: f32) -> u16 {
        let b = x.to_bits();
        let nan = (b >> 16) | 0x0040;
        let rounded = b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16;
        // Selected in 32 bits and narrowed once (two narrowings were the loops' bottleneck).
        (if b & 0x7FFF_FFFF > 0x7F80_0000 {
            nan
        } else {
            rounded
        }) as u16
    }

    /// # Safety
    /// As [`store_cast`].
    pub(super) unsafe fn store_bf16(src: *const f32, dst: *mut u8, stride: isize, n: usize) {
        if stride == 2 {
            let dst = dst as *mut u16;
            // SAFETY: the contract, unit stride.
            let done = unsafe { super::bf16_native::narrow_prefix(src, dst, n) };
            // SAFETY: `done <= n`: the rest of both runs.
            let (src, dst, n) = unsafe { (src.add(done), dst.add(done), n - done) };
            super::on_widest_isa!([] (src: *const f32 = src, dst: *mut u16 = dst, n: usize = n) {
                // SAFETY: the contract, unit stride.
                unsafe { f32_to_bf16_loop(src, dst, n) }
            })
        } else {
            // SAFETY: the same contract.
            unsafe { via_unit_store(src, dst, stride, n, store_bf16) }
        }
    }
}

/// How an inner loop reads an input: directly (stored dtype == compute dtype) or through a
/// converting loader into a block buffer.
#[derive(Copy, Clone)]
struct Input<C: Element> {
    direct: bool,
    load: LoadFn<C>,
}

impl<C: Element> Input<C> {
    fn new(stored: DType) -> Self {
        Input {
            direct: stored == C::DTYPE,
            load: loader::<C>(stored),
        }
    }

    /// The `m` elements of this input from element `start` on (at byte stride `stride` from
    /// `p`) as a contiguous run of `C`: the tensor's own memory when it is stored contiguously
    /// as `C`, else gathered and converted into `buf`.
    ///
    /// # Safety
    /// The iterator's contract for those `m` elements; `m <= BLOCK`.
    #[inline(always)]
    unsafe fn block(
        &self,
        p: *const u8,
        stride: isize,
        start: usize,
        m: usize,
        buf: &mut PlacedBuf,
    ) -> *const C {
        // SAFETY: the caller's contract; `for_source` gives room for `BLOCK >= m` elements.
        unsafe {
            let p = p.offset(start as isize * stride);
            if self.direct && stride == size_of::<C>() as isize {
                return p.cast::<C>();
            }
            let dst = buf.for_source::<C>(p);
            (self.load)(p, stride, m, dst);
            dst
        }
    }

    /// The `m` elements from element `start` on (any count) converted into `dst`.
    ///
    /// # Safety
    /// The iterator's contract for those `m` elements; `dst` valid for `m` writes of `C`, not
    /// overlapping them except as the same elements (in place).
    #[inline(always)]
    unsafe fn load_into(&self, p: *const u8, stride: isize, start: usize, m: usize, dst: *mut C) {
        // SAFETY: the caller's contract.
        unsafe { (self.load)(p.offset(start as isize * stride), stride, m, dst) }
    }
}

#[derive(Copy, Clone)]
struct Output<O: Element> {
    direct: bool,
    store: StoreFn<O>,
}

impl<O: Element> Output<O> {
    fn new(stored: DType) -> Self {
        Output {
            direct: stored == O::DTYPE,
            store: storer::<O>(stored),
        }
    }

    /// Whether the output (at byte stride `stride`) is written in place, not through a buffer.
    #[inline(always)]
    fn in_place(&self, stride: isize) -> bool {
        self.direct && stride == size_of::<O>() as isize
    }

    /// Where a kernel writes the output's `m` elements from element `start` on: the tensor's
    /// own memory when [`Output::in_place`], else `buf` (then [`Output::finish`] stores it),
    /// placed against the kernel's first input block `a`, which it reads while it writes this
    /// one: an f32 -> f16 `copy_` from memory ran 2-2.2x slower where the two aliased.
    #[inline(always)]
    fn block<A>(
        &self,
        p: *mut u8,
        stride: isize,
        start: usize,
        buf: &mut PlacedBuf,
        a: *const A,
    ) -> *mut O {
        if self.in_place(stride) {
            p.wrapping_offset(start as isize * stride).cast::<O>()
        } else {
            buf.for_source::<O>(a.cast())
        }
    }

    /// Converts and scatters `buf`'s `m` elements to element `start` on, unless the block was
    /// written in place.
    ///
    /// # Safety
    /// The iterator's contract for those `m` elements; `buf` (from [`Output::block`]) holds
    /// them, written by the kernel.
    #[inline(always)]
    unsafe fn finish(&self, buf: *const O, p: *mut u8, stride: isize, start: usize, m: usize) {
        if !self.in_place(stride) {
            // SAFETY: the caller's contract.
            unsafe { (self.store)(buf, p.offset(start as isize * stride), stride, m) };
        }
    }
}

/// An inner loop: runs of `(pointers, byte strides, count)`, outputs first ([`InnerLoop::run`]);
/// a kernel may also take a whole 2-D block in one call ([`InnerLoop::rows`]). Closures are
/// inner loops of runs alone.
pub trait InnerLoop: Sync + Send {
    /// One run: operand `i`'s `n` elements from `ptrs[i]` at byte stride `strides[i]`.
    fn run(&self, ptrs: &[*mut u8], strides: &[isize], n: usize);

    /// `n1` rows of `n0` elements, row `r` of operand `i` from `ptrs[i] + r * outer[i]` at
    /// byte stride `inner[i]`, in one call where the kernel has a row loop of its own for this
    /// layout (returns true); false, having done nothing, where it has not (the walk then
    /// chooses, down to one [`InnerLoop::run`] per row). A loop of its own keeps a row's set-up
    /// (the layout tests, the ISA dispatch, the loop's entry) out of the per-row cost: a
    /// broadcast column's `[256,256] + [256,1]` paid it 256 times.
    fn rows(
        &self,
        _ptrs: &[*mut u8],
        _inner: &[isize],
        _outer: &[isize],
        _n0: usize,
        _n1: usize,
    ) -> bool {
        false
    }
}

impl<T: Fn(&[*mut u8], &[isize], usize) + Sync + Send> InnerLoop for T {
    #[inline]
    fn run(&self, ptrs: &[*mut u8], strides: &[isize], n: usize) {
        self(ptrs, strides, n)
    }
}

/// `po[i] = f(pa[i])` for `i < n`; on x86-64 the same loop compiled for AVX-512 or AVX2
/// ([`isa::on_widest_isa!`]), so branch-free functors (`functors::fastmath`) run 16 or 8 f32 lanes wide
/// without a `target-cpu` build flag. Same results on every CPU (see [`isa`]).
///
/// # Safety
/// `pa` valid for `n` reads, `po` for `n` writes (they may be equal: in place).
#[inline(always)]
unsafe fn contiguous_unary<C: Element, F: Functor<(C,)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const C,
    n: usize,
) where
    F::Output: Element,
{
    if F::VECTOR_FORM == VectorForm::Sqrt && C::DTYPE == F::Output::DTYPE {
        // SAFETY: the input and the output are both of `C::DTYPE`'s type; the caller's
        // contract.
        if unsafe { sqrt_newton::sqrt(C::DTYPE, pa.cast(), po.cast(), n) } {
            return;
        }
    }
    // Every run, short ones too: the functors' fused multiply-adds (`fastmath::fma_f32`) are
    // the instruction only in the wide copies (a libm call per fma in the baseline one), and
    // a 2-D walk over short rows calls this once per row.
    on_widest_isa!([C: Element, F: Functor<(C,)>]
        (f: &F = f, po: *mut F::Output = po, pa: *const C = pa, n: usize = n)
        where [F::Output: Element] {
        // SAFETY: the caller's contract.
        unsafe { unary_loop(f, po, pa, n) }
    });
}

/// The loop of [`contiguous_unary`] ([`narrow_or_plain_loop`] over one input).
///
/// # Safety
/// As [`contiguous_unary`].
#[inline(always)]
unsafe fn unary_loop<C: Element, F: Functor<(C,)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const C,
    n: usize,
) where
    F::Output: Element,
{
    if let Some(pa) = in_place(po, pa) {
        // SAFETY: as below; `pa` is `po` (the same elements).
        return unsafe { narrow_or_plain_loop(f, po, n, |i| (pa.add(i).read(),)) };
    }
    // SAFETY: element i's argument is `pa[i]`, valid for `i < n` (the caller's contract).
    unsafe { narrow_or_plain_loop(f, po, n, |i| (pa.add(i).read(),)) }
}

/// `Some(input)` re-derived from the output pointer where an input is the output (in place:
/// the same address and element size), so that the loop reads element i through the pointer
/// it writes. LLVM then sees each element read before it is written at distance 0 and
/// vectorizes; through the input's own pointer its run-time overlap check fails on the exact
/// aliasing and it runs the scalar fallback loop (in-place `sin_` ran at 3.2x `sin_out`'s
/// time, `atan2_` 3.8x, `masked_fill_` on halves 5x).
#[inline(always)]
fn in_place<O, I>(po: *mut O, pi: *const I) -> Option<*const I> {
    (size_of::<O>() == size_of::<I>() && po.cast_const().cast::<u8>() == pi.cast::<u8>())
        .then(|| po.cast_const().cast::<I>())
}

/// `po[i] = f(arg(i))` for `i < n`. A functor with a narrow domain
/// (`Functor::in_narrow_domain`) is run per [`BLOCK`] elements: the block's arguments are tested
/// first (a vectorized all-of, on data the loop then reads from L1), and the narrow form runs
/// alone where they all pass (the same bits as `call`, by the trait's contract).
///
/// # Safety
/// `arg(i)` reads only valid elements for `i < n`, `po` is valid for `n` writes; an input may
/// be the output (each block's arguments are all read before its outputs are written).
#[inline(always)]
unsafe fn narrow_or_plain_loop<Args: Copy, F: Functor<Args>>(
    f: &F,
    po: *mut F::Output,
    n: usize,
    arg: impl Fn(usize) -> Args,
) where
    F::Output: Element,
{
    if !F::HAS_NARROW_DOMAIN {
        for i in 0..n {
            // SAFETY: the caller's contract.
            unsafe { po.add(i).write(f.call(arg(i))) };
        }
        return;
    }
    let mut start = 0;
    while start < n {
        let m = BLOCK.min(n - start);
        let narrow = (start..start + m).fold(true, |all, i| all & f.in_narrow_domain(arg(i)));
        // Two loops, not a branch per element: each vectorizes on its own.
        if narrow {
            for i in start..start + m {
                // SAFETY: `i < n`: the caller's contract.
                unsafe { po.add(i).write(f.call_narrow(arg(i))) };
            }
        } else {
            for i in start..start + m {
                // SAFETY: as above.
                unsafe { po.add(i).write(f.call(arg(i))) };
            }
        }
        start += m;
    }
}

/// `po[i] = f(pa[i], pb[i])` for `i < n`, compiled for AVX2 when present, as
/// [`contiguous_unary`].
///
/// # Safety
/// `pa`, `pb` valid for `n` reads, `po` for `n` writes (`po` may equal either: in place).
#[inline(always)]
unsafe fn contiguous_binary<A: Element, B: Element, F: Functor<(A, B)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const A,
    pb: *const B,
    n: usize,
) where
    F::Output: Element,
{
    // Every run, short ones too, as in [`contiguous_unary`].
    on_widest_isa!([A: Element, B: Element, F: Functor<(A, B)>]
        (f: &F = f, po: *mut F::Output = po, pa: *const A = pa, pb: *const B = pb, n: usize = n)
        where [F::Output: Element] {
        // SAFETY: the caller's contract.
        unsafe { binary_loop(f, po, pa, pb, n) }
    });
}

/// The kernel of a unary op over flat operands stored in its computation dtype (`ops::unary`'s
/// flat tier): `ptrs` are the output's and the input's element 0, each contiguous for `n`
/// elements of its type, under the caller's borrows (the iterator's contract).
pub(crate) type FlatUnary = fn(ptrs: &[*mut u8; 2], n: usize);

/// [`FlatUnary`] of the functor `F` (its `Default` value) in `C`: the contiguous loop the
/// iterator's kernels run, without the layout and dtype tests of [`unary`].
pub(crate) fn flat_unary<C, F>(ptrs: &[*mut u8; 2], n: usize)
where
    C: Element,
    F: Functor<(C,)> + Default,
    F::Output: Element,
{
    let [po, pa] = *ptrs;
    // SAFETY: the contract of `FlatUnary`.
    unsafe { contiguous_unary(&F::default(), po.cast(), pa.cast_const().cast(), n) }
}

/// [`FlatUnary`] for a binary op (`ops::binary`'s flat tier): the output's and the two inputs'
/// element 0.
pub(crate) type FlatBinary = fn(ptrs: &[*mut u8; 3], n: usize);

/// [`FlatBinary`] of the functor `F` (its `Default` value) in `C`: the contiguous loop the
/// iterator's kernels run, without the layout and dtype tests of [`binary`].
pub(crate) fn flat_binary<C, F>(ptrs: &[*mut u8; 3], n: usize)
where
    C: Element,
    F: Functor<(C, C)> + Default,
    F::Output: Element,
{
    let [po, pa, pb] = *ptrs;
    // SAFETY: the contract of `FlatBinary`.
    unsafe {
        contiguous_binary(
            &F::default(),
            po.cast(),
            pa.cast_const().cast(),
            pb.cast_const().cast(),
            n,
        )
    }
}

/// The loop of [`contiguous_binary`].
///
/// # Safety
/// As [`contiguous_binary`].
#[inline(always)]
unsafe fn binary_loop<A: Element, B: Element, F: Functor<(A, B)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const A,
    pb: *const B,
    n: usize,
) where
    F::Output: Element,
{
    // (In place into the second input, `b.op_out(.., &b)`, is rare: the general loop.)
    if let Some(pa) = in_place(po, pa) {
        // SAFETY: as below; `pa` is `po` (the same elements).
        return unsafe { narrow_or_plain_loop(f, po, n, |i| (pa.add(i).read(), pb.add(i).read())) };
    }
    // SAFETY: element i's arguments are `pa[i]`, `pb[i]`, valid for `i < n` (the caller's
    // contract).
    unsafe { narrow_or_plain_loop(f, po, n, |i| (pa.add(i).read(), pb.add(i).read())) }
}

/// `po[i] = f(pa[i], pb[i], pc[i])` for `i < n`, compiled for the widest vector ISA, as
/// [`contiguous_unary`].
///
/// # Safety
/// `pa`, `pb`, `pc` valid for `n` reads, `po` for `n` writes (`po` may equal an input).
#[inline(always)]
unsafe fn contiguous_ternary<A: Element, B: Element, C: Element, F: Functor<(A, B, C)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const A,
    pb: *const B,
    pc: *const C,
    n: usize,
) where
    F::Output: Element,
{
    // Every run, short ones too, as in [`contiguous_unary`].
    on_widest_isa!([A: Element, B: Element, C: Element, F: Functor<(A, B, C)>]
        (f: &F = f, po: *mut F::Output = po, pa: *const A = pa, pb: *const B = pb,
         pc: *const C = pc, n: usize = n)
        where [F::Output: Element] {
        // SAFETY: the caller's contract.
        unsafe { ternary_loop(f, po, pa, pb, pc, n) }
    });
}

/// The loop of [`contiguous_ternary`]: `po[i] = f(pa[i], pb[i], pc[i])` for `i < n`.
///
/// # Safety
/// As [`contiguous_ternary`].
#[inline(always)]
unsafe fn ternary_loop<A: Element, B: Element, C: Element, F: Functor<(A, B, C)>>(
    f: &F,
    po: *mut F::Output,
    pa: *const A,
    pb: *const B,
    pc: *const C,
    n: usize,
) where
    F::Output: Element,
{
    let each = |pa: *const A| {
        for i in 0..n {
            // SAFETY: the caller's contract.
            unsafe {
                po.add(i)
                    .write(f.call((pa.add(i).read(), pb.add(i).read(), pc.add(i).read())))
            };
        }
    };
    // In place into the first input (`lerp_`, `addcmul_`): read through `po` (`in_place`).
    match in_place(po, pa) {
        Some(pa) => each(pa),
        None => each(pa),
    }
}

/// A kernel's block buffer, placed away from the stream it is filled from in the 4 KiB address
/// space: an input's from its source, an output's from the kernel's first input block, a
/// strided cast's gather buffer from the stack block it is converted into or from. The
/// filling loop reads ahead of its stores into the buffer; where the buffer lies just past that
/// stream modulo 4096, the CPU takes those loads for reads of the pending stores (4K aliasing)
/// and holds them back. Which case a fixed buffer hit depended on where the stack lay and where
/// the block fell: up to 1.6x on one conversion (BENCHMARKS round 38); 2.2x on an f32 -> f16
/// `copy_` from memory, where each held load waited for a store whose data waited for the
/// previous miss, so the misses no longer overlapped (round 39). Of two positions 2 KiB apart,
/// the one 1-3 KiB past the stream modulo 4096 is used. A fixed gather buffer beside a stack
/// block hit or missed by build (a reversed 64K bf16 `relu` took 7.3 or 13 µs, round 40).
/// Left uninitialised (zeroing a block per call cost more than a tiny op's arithmetic): only
/// the elements a load or the functor wrote are read.
#[repr(C, align(64))]
struct PlacedBuf([core::mem::MaybeUninit<u8>; ALIAS_PERIOD]);

/// The address period of 4K aliasing: loads and stores are matched by their low 12 bits.
const ALIAS_PERIOD: usize = 4096;

impl PlacedBuf {
    /// Bytes between the two positions, and the room at each.
    const HALF: usize = ALIAS_PERIOD / 2;

    #[inline(always)]
    fn new() -> Self {
        PlacedBuf([core::mem::MaybeUninit::uninit(); ALIAS_PERIOD])
    }

    /// Room for `BLOCK` elements of `T` read from `src`.
    #[inline(always)]
    fn for_source<T: Element>(&mut self, src: *const u8) -> *mut T {
        // Each position holds a block of the widest element (8 bytes).
        const { assert!(BLOCK * size_of::<T>() <= Self::HALF) };
        let base = self.0.as_mut_ptr().cast::<u8>();
        let past = base.addr().wrapping_sub(src.addr()) % ALIAS_PERIOD;
        let centred = (Self::HALF / 2..Self::HALF + Self::HALF / 2).contains(&past);
        let shift = if centred { 0 } else { Self::HALF };
        // In bounds: `shift + HALF <= ALIAS_PERIOD`; aligned for `T`: the base is 64-aligned.
        base.wrapping_add(shift).cast::<T>()
    }
}

/// Whether a kernel takes `half_fused`'s one-pass loops: every operand stored as the same
/// half type, computed in f32 to f32 (`computed`: the functor's argument and result dtypes).
fn half_fused_dtypes(inputs: &[DType], out: DType, computed: &[DType]) -> bool {
    out.is_reduced_float()
        && inputs.iter().all(|&d| d == out)
        && computed.iter().all(|&d| d == DType::F32)
}

/// The inner loop of a unary functor `F: (C,) -> O`, for an input stored as `in_dtype` and an
/// output stored as `out_dtype`.
///
/// The returned closure is `unsafe` to call in spirit: the iterator guarantees that every
/// pointer/stride/count triple describes valid, aligned elements of the stated dtypes, and that
/// the output elements of concurrent runs are disjoint. It is only handed to the iterator.
pub fn unary<C, F>(f: F, out_dtype: DType, in_dtype: DType) -> impl InnerLoop
where
    C: Element,
    F: Functor<(C,)>,
    F::Output: Element,
{
    let (inp, out) = (
        Input::<C>::new(in_dtype),
        Output::<F::Output>::new(out_dtype),
    );
    let fused_half = half_fused_dtypes(&[in_dtype], out_dtype, &[C::DTYPE, F::Output::DTYPE]);
    let direct = inp.direct && out.direct;
    let runs = move |ptrs: &[*mut u8], strides: &[isize], n: usize| {
        type O<F, C> = <F as Functor<(C,)>>::Output;
        let (po, pa) = (ptrs[0], ptrs[1] as *const u8);
        let (so, sa) = (strides[0], strides[1]);
        let (eo, ea) = (size_of::<O<F, C>>() as isize, size_of::<C>() as isize);
        // SAFETY: (all branches) the iterator's contract above; contiguous runs are read and
        // written through raw pointers, never through overlapping slices, so an in-place op
        // (po == pa) is fine.
        unsafe {
            if n == 0 {
                return;
            }
            // A constant result reads one input element (the run's first), as a broadcast.
            let sa = if F::CONSTANT_RESULT { 0 } else { sa };
            if inp.direct && out.direct {
                let (po, pa) = (po as *mut O<F, C>, pa as *const C);
                if so == eo && sa == ea {
                    contiguous_unary(&f, po, pa, n);
                    return;
                } else if sa == 0 {
                    let v = f.call((pa.read(),));
                    if so == eo {
                        // A fill LLVM turns into vector stores.
                        for i in 0..n {
                            po.add(i).write(v);
                        }
                    } else {
                        for i in 0..n {
                            (po as *mut u8)
                                .offset(i as isize * so)
                                .cast::<O<F, C>>()
                                .write(v);
                        }
                    }
                    return;
                }
                // Strided: through the block buffers below, so that the functor runs over
                // contiguous blocks (vectorized) whatever the layout.
            }
            // Contiguous halves computed in f32: one fused pass over as much of the run as it
            // takes (`half_fused`), the block path for the rest.
            let mut start = 0;
            if fused_half && sa == 2 && so == 2 {
                start = half_fused::unary(&f, in_dtype, po, pa, n);
            }
            // Operands already stored contiguously in their compute type are used in place.
            if F::IS_IDENTITY && out.in_place(so) {
                // The output is the converted input: the rest of the run converted into the
                // output itself, in one call (the loaders take any count). (Inside the run's
                // `unsafe`: the iterator's contract for these elements of both operands;
                // `F::Output` is `C` (the identity), the output unit-stride (`in_place`).)
                inp.load_into(pa, sa, start, n - start, po.add(start * so as usize).cast());
                return;
            }
            let (mut a_buf, mut o_buf) = (PlacedBuf::new(), PlacedBuf::new());
            while start < n {
                let m = BLOCK.min(n - start);
                let a = inp.block(pa, sa, start, m, &mut a_buf);
                let o = out.block(po, so, start, &mut o_buf, a);
                // Contiguous blocks: the vectorized loop.
                contiguous_unary(&f, o, a, m);
                out.finish(o, po, so, start, m);
                start += m;
            }
        }
    };
    // Rows whose output and input are unit-stride along the row: one ISA dispatch for the
    // block instead of one per row. A broadcast row shorter than [`PERIODIC_ROWS_MIN_BYTES`] is
    // left to the replicated walk; constant results and the hand-vectorized `sqrt` keep their
    // runs.
    let rows = move |ptrs: &[*mut u8], inner: &[isize], outer: &[isize], n0: usize, n1: usize| {
        let (eo, ec) = (size_of::<F::Output>(), size_of::<C>());
        if !direct
            || F::CONSTANT_RESULT
            || F::VECTOR_FORM == VectorForm::Sqrt
            || inner[0] != eo as isize
            || inner[1] != ec as isize
            || (outer[1] == 0 && n0 * ec < PERIODIC_ROWS_MIN_BYTES)
        {
            return false;
        }
        let (f, p) = (&f, RowPointers::<2>::new(ptrs, outer));
        on_widest_isa!([C: Element, F: Functor<(C,)>]
            (f: &F = f, p: RowPointers<2> = p, n0: usize = n0, n1: usize = n1)
            where [F::Output: Element] {
            for r in 0..n1 {
                let (po, pa) = (p.at::<F::Output>(0, r), p.at::<C>(1, r));
                // SAFETY: the iterator's contract for a 2-D block: row r of each operand is
                // `n0` unit-stride elements of its compute type from `ptrs[i] + r * outer[i]`
                // (the output's may be the input's: in place).
                unsafe { unary_loop(f, po, pa, n0) }
            }
        });
        true
    };
    WithRows { runs, rows }
}

/// The inner loop of a binary functor `F: (A, B) -> O` (A and B are the compute dtypes of
/// the two inputs, usually equal), for operands stored as `out_dtype`, `a_dtype`, `b_dtype`.
/// Same contract as [`unary`].
pub fn binary<A, B, F>(f: F, out_dtype: DType, a_dtype: DType, b_dtype: DType) -> impl InnerLoop
where
    A: Element,
    B: Element,
    F: Functor<(A, B)>,
    F::Output: Element,
{
    BinaryKernel {
        f,
        out_dtype,
        ia: Input::<A>::new(a_dtype),
        ib: Input::<B>::new(b_dtype),
        out: Output::<F::Output>::new(out_dtype),
        fused_half: half_fused_dtypes(
            &[a_dtype, b_dtype],
            out_dtype,
            &[A::DTYPE, B::DTYPE, F::Output::DTYPE],
        ),
    }
}

/// [`binary`]'s kernel: runs, and blocks of rows beside a broadcast column.
struct BinaryKernel<A: Element, B: Element, F: Functor<(A, B)>>
where
    F::Output: Element,
{
    f: F,
    out_dtype: DType,
    ia: Input<A>,
    ib: Input<B>,
    out: Output<F::Output>,
    fused_half: bool,
}

impl<A, B, F> InnerLoop for BinaryKernel<A, B, F>
where
    A: Element,
    B: Element,
    F: Functor<(A, B)>,
    F::Output: Element,
{
    fn run(&self, ptrs: &[*mut u8], strides: &[isize], n: usize) {
        type O<F, A, B> = <F as Functor<(A, B)>>::Output;
        let (f, ia, ib, out) = (&self.f, &self.ia, &self.ib, &self.out);
        let (po, pa, pb) = (ptrs[0], ptrs[1] as *const u8, ptrs[2] as *const u8);
        let (so, sa, sb) = (strides[0], strides[1], strides[2]);
        let eo = size_of::<O<F, A, B>>() as isize;
        let (ea, eb) = (size_of::<A>() as isize, size_of::<B>() as isize);
        // SAFETY: (all branches) the iterator's contract, see `unary`.
        unsafe {
            if ia.direct && ib.direct && out.direct && so == eo {
                if sa == ea && sb == eb {
                    contiguous_binary(f, po as *mut O<F, A, B>, pa as *const A, pb as *const B, n);
                    return;
                }
                // One input broadcast (stride 0): its value bound into the functor, the other
                // streamed through the (vectorized) unary loop; one row of `binary_rows`.
                if sa == ea && sb == 0 {
                    binary_rows(
                        f,
                        RowPointers::new(ptrs, &[0; 3]),
                        n,
                        1,
                        RowLayout::RhsColumn,
                    );
                    return;
                }
                if sa == 0 && sb == eb {
                    binary_rows(
                        f,
                        RowPointers::new(ptrs, &[0; 3]),
                        n,
                        1,
                        RowLayout::LhsColumn,
                    );
                    return;
                }
                // Strided: through the block buffers below (gathered, computed contiguously,
                // scattered), so that the functor vectorizes whatever the layout.
            }
            // Contiguous or broadcast halves computed in f32: fused, as in `unary`.
            let mut start = 0;
            if self.fused_half && so == 2 {
                start = half_fused::binary(f, self.out_dtype, po, pa, sa, pb, sb, n);
            }
            let (mut a_buf, mut b_buf) = (PlacedBuf::new(), PlacedBuf::new());
            let mut o_buf = PlacedBuf::new();
            // Operands stored contiguously in their compute type are used in place (a step-2
            // or reversed input next to a contiguous one and the output: one gather, not three
            // copies).
            while start < n {
                let m = BLOCK.min(n - start);
                let a = ia.block(pa, sa, start, m, &mut a_buf);
                let b = ib.block(pb, sb, start, m, &mut b_buf);
                let o = out.block(po, so, start, &mut o_buf, a);
                contiguous_binary(f, o, a, b, m);
                out.finish(o, po, so, start, m);
                start += m;
            }
        }
    }

    /// Rows whose output and inputs are each unit-stride along the row or (an input) a
    /// broadcast column (`[N,M] op [N,1]`, either side), stored in their compute dtypes, at any
    /// outer strides: a broadcast row (`[N,M] op [M]`), sliced rows, a column. The column was
    /// faster here than in `walk_2d`'s replicated walk (spread over a buffer per run) at every
    /// row width: 64K-element u8 adds in rows of 2 / 16 / 256 took 62 / 6.7 / 1.7 µs, against
    /// 87 / 12 / 2.5. A broadcast row shorter than [`PERIODIC_ROWS_MIN_BYTES`] is left to the
    /// replicated walk, which runs several rows per call.
    fn rows(
        &self,
        ptrs: &[*mut u8],
        inner: &[isize],
        outer: &[isize],
        n0: usize,
        n1: usize,
    ) -> bool {
        let eo = size_of::<F::Output>();
        let (ea, eb) = (size_of::<A>(), size_of::<B>());
        let (so, sa, sb) = (inner[0], inner[1], inner[2]);
        let layout = match (sa == ea as isize, sb == eb as isize) {
            (true, true) => {
                let periodic = outer[1] == 0 || outer[2] == 0;
                if periodic && n0 * ea.max(eb) < PERIODIC_ROWS_MIN_BYTES {
                    return false;
                }
                RowLayout::Streamed
            }
            (true, false) if sb == 0 => RowLayout::RhsColumn,
            (false, true) if sa == 0 => RowLayout::LhsColumn,
            _ => return false,
        };
        if !(self.ia.direct && self.ib.direct && self.out.direct) || so != eo as isize {
            return false;
        }
        let p = RowPointers::new(ptrs, outer);
        // SAFETY: the iterator's contract for a 2-D block: row r of operand i is `n0` elements
        // from `ptrs[i] + r * outer[i]` at `inner[i]` (unit for the output and the streamed
        // inputs, 0 for a column).
        unsafe { binary_rows(&self.f, p, n0, n1, layout) };
        true
    }
}

/// Broadcast rows shorter than this many bytes (of the wider input) are left by
/// [`BinaryKernel`]'s row loop to `walk_2d`'s replicated walk: 64K-element adds over a
/// broadcast row of 64 bytes took 6.2 (u8) / 12.9 (f32) / 17.5 (f64) µs row by row against 2.8
/// / 7.4 / 14.0 replicated; from 128 bytes the row loop was as fast or faster (256 bytes: 1.8 /
/// 5.3 / 14.2 against 2.9 / 7.5 / 13.7).
const PERIODIC_ROWS_MIN_BYTES: usize = 128;

/// How the inputs of [`binary_rows`] run along a row.
#[derive(Clone, Copy)]
enum RowLayout {
    /// Both unit-stride.
    Streamed,
    /// The first unit-stride, the second one value per row.
    RhsColumn,
    /// The first one value per row, the second unit-stride.
    LhsColumn,
}

/// A 2-D block's operands for the kernels' row loops: row `r` of operand `i` starts
/// `r * outer[i]` bytes after `ptrs[i]`.
#[derive(Clone, Copy)]
struct RowPointers<const N: usize> {
    ptrs: [*mut u8; N],
    outer: [isize; N],
}

impl<const N: usize> RowPointers<N> {
    /// The first `N` operands of a block (`ptrs`, `outer` as `InnerLoop::rows` gets them).
    #[inline(always)]
    fn new(ptrs: &[*mut u8], outer: &[isize]) -> Self {
        RowPointers {
            ptrs: core::array::from_fn(|i| ptrs[i]),
            outer: core::array::from_fn(|i| outer[i]),
        }
    }

    /// Operand `i`'s first element of row `r`.
    #[inline(always)]
    fn at<T>(&self, i: usize, r: usize) -> *mut T {
        self.ptrs[i]
            .wrapping_offset((r as isize).wrapping_mul(self.outer[i]))
            .cast()
    }
}

/// `n1` rows of `po[j] = f(pa[j], pb[j])`, `j < n0` (`p`: output, a, b), a column's value read
/// once per row and bound into the functor (`layout`). One ISA dispatch for all the rows; each layout its own compiled loop, the
/// layout decided once per block, not per row.
///
/// # Safety
/// Each row's `n0` output elements (unit stride, `F::Output`) valid for writes, a streamed
/// input's `n0` (unit stride) and a column's one element valid for reads, as the iterator
/// guarantees; the output may be a streamed input (in place).
#[allow(clippy::too_many_arguments)]
unsafe fn binary_rows<A: Element, B: Element, F: Functor<(A, B)>>(
    f: &F,
    p: RowPointers<3>,
    n0: usize,
    n1: usize,
    layout: RowLayout,
) where
    F::Output: Element,
{
    match layout {
        RowLayout::Streamed => on_widest_isa!([A: Element, B: Element, F: Functor<(A, B)>]
            (f: &F = f, p: RowPointers<3> = p, n0: usize = n0, n1: usize = n1)
            where [F::Output: Element] {
            for r in 0..n1 {
                let (po, pa, pb) = (p.at::<F::Output>(0, r), p.at::<A>(1, r), p.at::<B>(2, r));
                // SAFETY: row r's elements, per the caller's contract.
                unsafe { binary_loop(f, po, pa, pb, n0) }
            }
        }),
        RowLayout::RhsColumn => on_widest_isa!([A: Element, B: Element, F: Functor<(A, B)>]
            (f: &F = f, p: RowPointers<3> = p, n0: usize = n0, n1: usize = n1)
            where [F::Output: Element] {
            for r in 0..n1 {
                let (po, pa, pb) = (p.at::<F::Output>(0, r), p.at::<A>(1, r), p.at::<B>(2, r));
                // SAFETY: row r's elements, per the caller's contract.
                unsafe {
                    unary_loop(&crate::functors::BindRhs { f: *f, rhs: pb.read() }, po, pa, n0)
                }
            }
        }),
        RowLayout::LhsColumn => on_widest_isa!([A: Element, B: Element, F: Functor<(A, B)>]
            (f: &F = f, p: RowPointers<3> = p, n0: usize = n0, n1: usize = n1)
            where [F::Output: Element] {
            for r in 0..n1 {
                let (po, pa, pb) = (p.at::<F::Output>(0, r), p.at::<A>(1, r), p.at::<B>(2, r));
                // SAFETY: row r's elements, per the caller's contract.
                unsafe {
                    unary_loop(&crate::functors::BindLhs { f: *f, lhs: pa.read() }, po, pb, n0)
                }
            }
        }),
    }
}

/// The inner loop of a ternary functor `F: (A, B, C) -> O` (where, lerp, addcmul). Same
/// contract as [`unary`]; contiguous operands directly, any other layout or a cast through the
/// block buffers.
pub fn ternary<A, B, C, F>(f: F, dtypes: [DType; 4]) -> impl InnerLoop
where
    A: Element,
    B: Element,
    C: Element,
    F: Functor<(A, B, C)>,
    F::Output: Element,
{
    let (ia, ib, ic) = (
        Input::<A>::new(dtypes[1]),
        Input::<B>::new(dtypes[2]),
        Input::<C>::new(dtypes[3]),
    );
    let out = Output::<F::Output>::new(dtypes[0]);
    let direct = ia.direct && ib.direct && ic.direct && out.direct;
    let runs = move |ptrs: &[*mut u8], strides: &[isize], n: usize| {
        type O<F, A, B, C> = <F as Functor<(A, B, C)>>::Output;
        let (po, pa, pb, pc) = (
            ptrs[0],
            ptrs[1] as *const u8,
            ptrs[2] as *const u8,
            ptrs[3] as *const u8,
        );
        let (so, sa, sb, sc) = (strides[0], strides[1], strides[2], strides[3]);
        // SAFETY: (all branches) the iterator's contract, see `unary`.
        unsafe {
            if ia.direct && ib.direct && ic.direct && out.direct {
                let contiguous = so == size_of::<O<F, A, B, C>>() as isize
                    && sa == size_of::<A>() as isize
                    && sb == size_of::<B>() as isize
                    && sc == size_of::<C>() as isize;
                if contiguous {
                    let po = po as *mut O<F, A, B, C>;
                    let (pa, pb, pc) = (pa as *const A, pb as *const B, pc as *const C);
                    contiguous_ternary(&f, po, pa, pb, pc, n);
                    return;
                }
                // Strided: through the block buffers below, as in `binary`.
            }
            let (mut a_buf, mut b_buf) = (PlacedBuf::new(), PlacedBuf::new());
            let (mut c_buf, mut o_buf) = (PlacedBuf::new(), PlacedBuf::new());
            // Operands stored contiguously in their compute type are used in place, as in
            // `binary`.
            let mut start = 0;
            while start < n {
                let m = BLOCK.min(n - start);
                let a = ia.block(pa, sa, start, m, &mut a_buf);
                let b = ib.block(pb, sb, start, m, &mut b_buf);
                let c = ic.block(pc, sc, start, m, &mut c_buf);
                let o = out.block(po, so, start, &mut o_buf, a);
                contiguous_ternary(&f, o, a, b, c, m);
                out.finish(o, po, so, start, m);
                start += m;
            }
        }
    };
    // As [`unary`]'s: unit-stride rows, one ISA dispatch for the block; broadcast rows shorter
    // than [`PERIODIC_ROWS_MIN_BYTES`] left to the replicated walk.
    let rows = move |ptrs: &[*mut u8], inner: &[isize], outer: &[isize], n0: usize, n1: usize| {
        let sizes = [
            size_of::<F::Output>(),
            size_of::<A>(),
            size_of::<B>(),
            size_of::<C>(),
        ];
        let widest = sizes[1].max(sizes[2]).max(sizes[3]);
        let periodic = (1..4).any(|i| outer[i] == 0);
        if !direct
            || (0..4).any(|i| inner[i] != sizes[i] as isize)
            || (periodic && n0 * widest < PERIODIC_ROWS_MIN_BYTES)
        {
            return false;
        }
        let (f, p) = (&f, RowPointers::<4>::new(ptrs, outer));
        on_widest_isa!([A: Element, B: Element, C: Element, F: Functor<(A, B, C)>]
            (f: &F = f, p: RowPointers<4> = p, n0: usize = n0, n1: usize = n1)
            where [F::Output: Element] {
            for r in 0..n1 {
                let at = |i: usize| p.at::<u8>(i, r);
                // SAFETY: the iterator's contract for a 2-D block: row r of each operand is
                // `n0` unit-stride elements of its compute type from `ptrs[i] + r * outer[i]`
                // (the output's may be an input's: in place).
                unsafe {
                    ternary_loop(f, at(0).cast(), at(1).cast(), at(2).cast(), at(3).cast(), n0)
                }
            }
        });
        true
    };
    WithRows { runs, rows }
}

/// A kernel of two closures: its runs ([`InnerLoop::run`]) and its own row loop
/// ([`InnerLoop::rows`]).
struct WithRows<R, W> {
    runs: R,
    rows: W,
}

impl<R, W> InnerLoop for WithRows<R, W>
where
    R: Fn(&[*mut u8], &[isize], usize) + Sync + Send,
    W: Fn(&[*mut u8], &[isize], &[isize], usize, usize) -> bool + Sync + Send,
{
    fn run(&self, ptrs: &[*mut u8], strides: &[isize], n: usize) {
        (self.runs)(ptrs, strides, n)
    }

    fn rows(
        &self,
        ptrs: &[*mut u8],
        inner: &[isize],
        outer: &[isize],
        n0: usize,
        n1: usize,
    ) -> bool {
        (self.rows)(ptrs, inner, outer, n0, n1)
    }
}

/// Runs the elementwise kernel `k` (see [`unary`]/[`binary`]/[`ternary`]) over every element
/// of `iter` through [`walk_2d`]: the one walk every elementwise op takes, so transposed
/// operands get the tile path and small inner extents the replicated one, whatever the op
/// (arithmetic, casts, `copy_`, `contiguous()`, users' functors). `k` may use a prefix of the
/// iterator's operands (a folded one-element operand stays in the iterator). Iterators of more
/// than [`MAX_WALK_OPERANDS`] operands take the plain row walk.
pub fn run_blocked<K: InnerLoop>(iter: &TensorIterator, cost: LoopCost, k: K) {
    run_kernel(iter, cost, &k)
}

/// [`run_blocked`] with the kernel behind a pointer. Compiled once: each kernel's body exists
/// once in the binary (its `dyn` call target), not inlined again into a copy of the walk per
/// kernel, which tripled the machine code of every op and dtype (and the build time with it).
/// The kernel is called once per row or tile, so the indirect call costs nothing measurable.
#[inline(never)]
pub(crate) fn run_kernel(iter: &TensorIterator, cost: LoopCost, k: Kernel) {
    let nt = iter.ntensors();
    // The walks gather or replicate operands 1.. into scratch buffers: they must be inputs.
    debug_assert_eq!(iter.noutputs(), 1);
    if let Some((p, s, n)) = iter.single_run(cost) {
        return k.run(p, s, n);
    }
    if !(2..=MAX_WALK_OPERANDS).contains(&nt) {
        return iter.for_each(cost, |p, s, n| k.run(p, s, n));
    }
    let mut sizes = [0usize; MAX_WALK_OPERANDS];
    for (i, s) in sizes.iter_mut().enumerate().take(nt) {
        *s = iter.dtype(i).size();
    }
    iter.for_each_2d(cost, |p: &[*mut u8], s: &[isize], n0, n1| {
        walk_2d(k, &sizes[..nt], p, s, n0, n1)
    });
}

/// Operands (outputs first) that [`walk_2d`] handles: an output and up to three inputs.
pub const MAX_WALK_OPERANDS: usize = 4;
/// Both extents of a block at least this take the transposed (tiled) path of [`walk_2d`].
pub const TILED_MIN_EXTENT: usize = 64;
/// Bytes of one replicated period buffer of [`walk_2d`] (a whole number of rows is used).
const PERIOD_BYTES: usize = 4096;
/// Rows a period buffer must hold for the replicated-period path: inner extents up to
/// `PERIOD_BYTES / MIN_PERIODS` bytes take it (`[N,3] + [3]`, and a u8 `[256,256] + [256]`
/// alike: each kernel call then covers several rows, where the row walk paid a call's
/// set-up per 256 bytes, 1.3x PyTorch's time).
const MIN_PERIODS: usize = 4;
/// Rows a period buffer must hold when an operand is a broadcast column (its buffer is
/// refilled for every run): u8 rows up to 256 bytes, f32 rows up to 64 elements.
const MIN_COLUMN_ROWS: usize = 16;

/// An inner loop behind a pointer: the walks below are compiled once, not per kernel (the
/// kernel is called once per block, tile row or period buffer).
pub(crate) type Kernel<'a> = &'a dyn InnerLoop;

/// Runs an inner loop `k` over a 2-D block of [`crate::TensorIterator::for_each_2d`]:
/// `(ptrs, strides, n0, n1)` with `strides` holding every operand's inner byte stride, then
/// every operand's outer byte stride. `sizes[i]` is operand `i`'s element size in bytes
/// (outputs first; at most [`MAX_WALK_OPERANDS`]). The kernel's own row loop for the layout
/// ([`InnerLoop::rows`]) is tried first; otherwise two layouts get a better walk than row by
/// row:
///
/// * **transposed** (an input whose inner stride cannot be made unit but whose outer stride
///   is: `a.t() + b`, `out.copy_(&a.t())`): the block is walked in tiles whose transposed inputs
///   are gathered into the output's order by in-register block transposes
///   ([`transpose::transposed_tiles`]);
/// * **short rows** (`[N,3] + [3]`, or `[N,256] + [256]` of bytes: at least [`MIN_PERIODS`]
///   rows of the periodic operands fit in [`PERIOD_BYTES`], after coalescing; at least
///   [`MIN_COLUMN_ROWS`] where a column takes part): every operand is either dense across the
///   whole block (outer stride = n0 x inner), periodic (outer stride 0, inner unit), a column
///   (inner stride 0: `[N,1]` broadcast) or a scalar; the periodic ones are replicated into an
///   L1 buffer once, the columns spread over one per run, and `k` runs over long flat runs
///   instead of one call per row.
pub fn walk_2d(
    k: Kernel,
    sizes: &[usize],
    ptrs: &[*mut u8],
    strides: &[isize],
    n0: usize,
    n1: usize,
) {
    let nt = sizes.len();
    let (inner, outer) = (&strides[..nt], &strides[nt..2 * nt]);
    if n1 <= 1 {
        k.run(ptrs, inner, n0);
        return;
    }
    // A kernel's own row loop for this layout (a binary op beside a broadcast column).
    if k.rows(ptrs, inner, outer, n0, n1) {
        return;
    }
    let es = |i: usize| sizes[i] as isize;
    let unit = |i: usize| inner[i] == es(i);
    // Short rows with a dense output over the block.
    if unit(0) && outer[0] == n0 as isize * es(0) {
        let flat = |i: usize| unit(i) && outer[i] == n0 as isize * es(i);
        let periodic = |i: usize| unit(i) && outer[i] == 0;
        let scalar = |i: usize| inner[i] == 0 && outer[i] == 0;
        let column = |i: usize| inner[i] == 0 && outer[i] != 0;
        if (1..nt).all(|i| flat(i) || periodic(i) || scalar(i) || column(i)) {
            let buffered = |i: usize| periodic(i) || column(i);
            let widest = (1..nt).filter(|&i| buffered(i)).map(|i| sizes[i]).max();
            // A column's buffer is refilled for every run (the row walk keeps its value in a
            // register instead): worth it only where a run covers many rows.
            let min_reps = if (1..nt).any(column) {
                MIN_COLUMN_ROWS
            } else {
                MIN_PERIODS
            };
            if let Some(reps) = widest.map(|e| PERIOD_BYTES / (n0 * e))
                && reps >= min_reps
            {
                // No more copies than the block has rows.
                let reps = reps.min(n1);
                let shape = Periods {
                    n0,
                    n1,
                    reps,
                    periodic: &periodic,
                    column: &column,
                };
                replicated_periods(k, ptrs, inner, outer, sizes, shape);
                return;
            }
        }
    }
    // Transposed: the output is walked unit-stride, some input is unit-stride across rows
    // (and not stride 0 along them: that is a column broadcast, one value per row, which
    // the row loop keeps in a register).
    let transposed = |i: usize| !unit(i) && inner[i] != 0 && outer[i] == es(i);
    if n0 >= TILED_MIN_EXTENT
        && n1 >= TILED_MIN_EXTENT
        && unit(0)
        && (1..nt).any(transposed)
        && transpose::transposed_tiles(k, ptrs, inner, outer, n0, n1, sizes)
    {
        return;
    }
    let mut p = [core::ptr::null_mut::<u8>(); MAX_WALK_OPERANDS];
    let p = &mut p[..nt];
    p.copy_from_slice(&ptrs[..nt]);
    for _ in 0..n1 {
        k.run(p, inner, n0);
        for (q, s) in p.iter_mut().zip(outer) {
            *q = q.wrapping_offset(*s);
        }
    }
}

/// The geometry of a [`replicated_periods`] walk: `n0 * n1` dense output elements, `reps`
/// rows per kernel call, which operands are periodic (one row, period `n0`) and which are
/// columns (one value per row).
struct Periods<'a> {
    n0: usize,
    n1: usize,
    reps: usize,
    periodic: &'a dyn Fn(usize) -> bool,
    column: &'a dyn Fn(usize) -> bool,
}

/// The replicated-period walk of [`walk_2d`]: periodic inputs are copied `reps` times into a
/// stack buffer once, column inputs spread over `reps` rows of theirs before each call
/// (`reps * n0 * size <= PERIOD_BYTES`), and the kernel runs over `reps` rows at a time as if
/// every operand were dense.
fn replicated_periods(
    k: Kernel,
    ptrs: &[*mut u8],
    inner: &[isize],
    outer: &[isize],
    sizes: &[usize],
    g: Periods,
) {
    let (nt, n0) = (sizes.len(), g.n0);
    let run = g.reps * n0;
    // 8-byte aligned storage of PERIOD_BYTES per operand, written before it is read (only the
    // buffered operands' buffers, and only their first run * size bytes, are used).
    let mut bufs =
        [const { core::mem::MaybeUninit::<[u64; PERIOD_BYTES / 8]>::uninit() }; MAX_WALK_OPERANDS];
    let mut p = [core::ptr::null_mut::<u8>(); MAX_WALK_OPERANDS];
    let mut st = [0isize; MAX_WALK_OPERANDS];
    for i in 0..nt {
        st[i] = inner[i];
        p[i] = ptrs[i];
        if i > 0 && (g.periodic)(i) {
            let e = sizes[i];
            let dst = bufs[i].as_mut_ptr() as *mut u8;
            for r in 0..g.reps {
                // SAFETY: the iterator's contract: operand i holds n0 valid elements of size e
                // at unit stride from ptrs[i]; the buffer holds run * e <= PERIOD_BYTES bytes
                // (the caller's `reps`). The kernel reads only these run * e written bytes.
                unsafe { core::ptr::copy_nonoverlapping(ptrs[i], dst.add(r * n0 * e), n0 * e) };
            }
            p[i] = dst;
        } else if i > 0 && (g.column)(i) {
            // Filled per run below; read at unit stride.
            p[i] = bufs[i].as_mut_ptr() as *mut u8;
            st[i] = sizes[i] as isize;
        }
    }
    let total = n0 * g.n1;
    let mut done = 0;
    while done < total {
        let m = run.min(total - done);
        let mut q = p;
        for i in 0..nt {
            if i > 0 && (g.column)(i) {
                let (row, e) = (done / n0, sizes[i]);
                for j in 0..m / n0 {
                    let src = ptrs[i].wrapping_offset((row + j) as isize * outer[i]);
                    // SAFETY: the iterator's contract: operand i holds one valid element at
                    // ptrs[i] + r * outer[i] for every row r < n1 (row + j < n1: m covers
                    // whole rows of the block); buffer row j is n0 * e bytes within
                    // run * e <= PERIOD_BYTES, aligned to e (an 8-byte aligned buffer, rows
                    // n0 * e bytes apart).
                    unsafe { fill_row(p[i].add(j * n0 * e), src, e, n0) };
                }
            } else if i == 0 || !((g.periodic)(i) || inner[i] == 0) {
                q[i] = ptrs[i].wrapping_offset(done as isize * sizes[i] as isize);
            }
        }
        k.run(&q[..nt], &st[..nt], m);
        done += m;
    }
}

/// Writes `n` copies of the `e`-byte element at `src` to `dst`.
///
/// # Safety
/// `src` valid for reading `e` bytes, `dst` for writing `n * e` bytes and aligned to `e` where
/// `e` is 2, 4 or 8 (other sizes are copied byte by byte).
unsafe fn fill_row(dst: *mut u8, src: *const u8, e: usize, n: usize) {
    // SAFETY: (every arm) the caller's contract; each typed slice covers the n * e bytes.
    unsafe {
        match e {
            1 => core::ptr::write_bytes(dst, src.read(), n),
            2 => core::slice::from_raw_parts_mut(dst.cast::<u16>(), n)
                .fill(src.cast::<u16>().read_unaligned()),
            4 => core::slice::from_raw_parts_mut(dst.cast::<u32>(), n)
                .fill(src.cast::<u32>().read_unaligned()),
            8 => core::slice::from_raw_parts_mut(dst.cast::<u64>(), n)
                .fill(src.cast::<u64>().read_unaligned()),
            _ => {
                for j in 0..n {
                    core::ptr::copy_nonoverlapping(src, dst.add(j * e), e);
                }
            }
        }
    }
}
