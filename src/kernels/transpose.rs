//! The tile walk for an input transposed against the output (`a.t() + b`, `out.copy_(&a.t())`,
//! `a.t().contiguous()`, a unary op on `a.t()`), and the in-register block transposes that
//! gather such an input into the output's order.
//!
//! Why these tile shapes: the output (and every input laid out like it) is read and written in
//! runs of one tile row, the transposed input in runs of one tile column. Square 64 x 64 tiles of
//! f32 make both runs 256 bytes, and a 4096 x 4096 transposed add then ran at 5x the copy limit
//! (short runs scattered over 64 rows of 16 KiB each: one page and one DRAM row per run). Runs of
//! 2 KiB along the output and 64 elements along the transposed input halved that (measured
//! standalone at 16M elements: f32 53 -> 33 ms, u8 21 -> 12 ms, against 16-18 and 4 ms for the
//! contiguous add); a scalar gather into 2 KiB rows is slower than the old square tiles (strided
//! single-element stores), so the gather transposes 16 x 16 bytes, 8 x 8 halves and 8 x 8 / 4 x 4
//! words in vector registers (with AVX2, 16 lines x 32 bytes and 8 lines x 16 halves: a whole
//! 32-byte register of each source line). Narrow elements then still read one cache line per
//! source line and page (64 u8 rows of a 4 KiB-strided source), so the runs along a transposed
//! input are at least [`TILE_RUN_BYTES`], and the tile buffers' rows are padded off a power of
//! two (a 16-row block transpose otherwise stores into one or two L1 sets). Software
//! prefetching of the next tile only cost time with these shapes; prefetching the next source
//! lines within a tile's gather pays (`x86::PREFETCH_LINES_AHEAD`).
//!
//! A tile then spans as much of the output's rows as [`TILE_BYTES`] allows: whole rows up to
//! 32 KiB (8192 f32 columns) at 128 tile rows. Its rows are then consecutive in memory, so
//! the output and every operand laid out like it are one contiguous stream per tile, not 128
//! runs of 2 KiB at the row stride: a [4096, 4096] f32 transposed add spent as long on its
//! 2 KiB runs of `b` and the output as the whole contiguous add does (4.2 ms against 4.4), and
//! 3.2 ms on whole rows; the gather's buffer then lies in L3, not L2, which cost less.

use super::{Kernel, MAX_WALK_OPERANDS};

/// Rows of a tile (along the output's outer dim) at least: each transposed input is read in
/// runs of this many elements, or of [`TILE_RUN_BYTES`] when its elements are narrower. (128,
/// not 64: runs of 1 KiB of f64 in whole-row tiles took a [4096, 4096] f64 transposed add
/// from 17-19 to 15 ms.)
pub const TILE_ROWS: usize = 128;
/// Bytes of one run along a transposed input: runs of 64 one-byte elements read one cache line
/// per 4 KiB page of a `[4096, 4096]` u8 source, and a transposed u8 add ran at 4x the
/// contiguous one; runs of 512 bytes (512 rows of u8, 256 of halves, 128 of f32) measured
/// 1.5x faster for 1- and 2-byte elements and the same for wider ones.
pub const TILE_RUN_BYTES: usize = 512;
/// Padding after each row of a tile buffer: a pitch of a power of two (2 KiB) put the 16 rows
/// a block transpose writes into one or two L1 sets; 64 bytes more spreads them (measured: i16
/// transposed add 15 -> 11 ms).
const TILE_PITCH_PAD_BYTES: usize = 64;
/// Bytes of a tile of the widest operand at most (tile rows x columns): the columns are the
/// whole output row where that fits (4096 f64 at 128 rows, 8192 f32, 8192 u8 at 512), so that
/// the tile's rows are one contiguous stream; else as many as fit, runs of at least 8 KiB.
pub const TILE_BYTES: usize = 4 << 20;

/// The transposed walk of [`super::walk_2d`]: tiles of `max(TILE_ROWS, TILE_RUN_BYTES /
/// narrowest transposed element)` rows (`n1`) by `TILE_BYTES / (rows x widest element)`
/// columns (`n0`); each transposed input (inner stride not its
/// element size, outer stride its element size) is first gathered into a buffer in the output's
/// order, then `k` runs over the tile's rows with every other operand at its own strides.
/// Returns `false` (nothing done) when the tile buffers cannot be allocated: the caller walks
/// row by row instead.
pub(super) fn transposed_tiles(
    k: Kernel,
    ptrs: &[*mut u8],
    inner: &[isize],
    outer: &[isize],
    n0: usize,
    n1: usize,
    sizes: &[usize],
) -> bool {
    let nt = sizes.len();
    // (Not a column broadcast, stride 0 along the rows: one value per row, no transpose.)
    let gathered = |i: usize| {
        i > 0 && inner[i] != sizes[i] as isize && inner[i] != 0 && outer[i] == sizes[i] as isize
    };
    let widest = sizes.iter().copied().max().unwrap_or(1).max(1);
    let narrowest = (1..nt)
        .filter(|&i| gathered(i))
        .map(|i| sizes[i])
        .min()
        .unwrap_or(1)
        .max(1);
    // No larger than the block: a small transposed op needs a small buffer.
    let tile_rows = (TILE_RUN_BYTES / narrowest).max(TILE_ROWS).min(n1);
    let cols = (TILE_BYTES / (tile_rows * widest)).max(1).min(n0);
    // Buffer rows of `pitch` elements (of each slot's own size, at most `widest` bytes).
    let pitch = cols + (TILE_PITCH_PAD_BYTES / widest).max(1);
    let slot_bytes = (tile_rows * pitch * widest).next_multiple_of(8);
    let count = (1..nt).filter(|&i| gathered(i)).count();
    // 8-byte cells, so that every element type is aligned in the buffer.
    let cells = count * slot_bytes / 8;
    with_tile_cells(cells, |buf| {
        let base = buf.as_mut_ptr() as *mut u8;
        let mut slot = [usize::MAX; MAX_WALK_OPERANDS];
        let mut st = [0isize; MAX_WALK_OPERANDS];
        let mut next = 0;
        for i in 0..nt {
            st[i] = inner[i];
            if gathered(i) {
                slot[i] = next;
                next += 1;
                st[i] = sizes[i] as isize;
            }
        }
        // A tile's rows: each gathered input's at the buffer's pitch, every other operand's at
        // its own outer stride.
        let mut row_st = [0isize; MAX_WALK_OPERANDS];
        for i in 0..nt {
            row_st[i] = if slot[i] != usize::MAX {
                (pitch * sizes[i]) as isize
            } else {
                outer[i]
            };
        }
        let mut p = [core::ptr::null_mut::<u8>(); MAX_WALK_OPERANDS];
        for j0 in (0..n1).step_by(tile_rows) {
            let jn = tile_rows.min(n1 - j0);
            for i0 in (0..n0).step_by(cols) {
                let m = cols.min(n0 - i0);
                for i in 0..nt {
                    if slot[i] == usize::MAX {
                        continue;
                    }
                    let dst = base.wrapping_add(slot[i] * slot_bytes);
                    let src =
                        ptrs[i].wrapping_offset(j0 as isize * outer[i] + i0 as isize * inner[i]);
                    // SAFETY: the iterator's contract: the tile's `jn x m` elements of operand i are
                    // valid (source line c at `src + c * inner[i]` holds `jn` contiguous elements);
                    // the slot holds tile_rows * pitch >= jn * pitch elements of sizes[i] <= widest
                    // bytes, 8-byte aligned, and is this call's own.
                    unsafe { gather_tile(src, inner[i], jn, m, sizes[i], dst, pitch) };
                }
                for (i, q) in p[..nt].iter_mut().enumerate() {
                    *q = if slot[i] != usize::MAX {
                        base.wrapping_add(slot[i] * slot_bytes)
                    } else {
                        ptrs[i].wrapping_offset(j0 as isize * outer[i] + i0 as isize * inner[i])
                    };
                }
                // The tile's rows in one call where the kernel has a row loop (its layout tests
                // and ISA dispatch once per tile, not per row), else row by row.
                if !k.rows(&p[..nt], &st[..nt], &row_st[..nt], m, jn) {
                    for _ in 0..jn {
                        k.run(&p[..nt], &st[..nt], m);
                        for (q, &d) in p[..nt].iter_mut().zip(&row_st[..nt]) {
                            *q = q.wrapping_offset(d);
                        }
                    }
                }
            }
        }
    })
    .is_some()
}

/// Runs `walk` over `cells` 8-byte cells of scratch: this thread's kept buffer, grown (and
/// zeroed) only when short, or, when that one is in use (a functor that runs a transposed op
/// itself) or larger than [`KEPT_TILE_CELLS`], a fresh one. `None` (and `walk` not run) when the
/// cells cannot be allocated. The cells hold whatever an earlier walk left: a walk reads only
/// the elements its gather wrote. (A fresh zeroed buffer per call cost a 64K-element f32
/// transposed add ~8% of its time in `memset`, and its time depended on the heap's state.)
fn with_tile_cells(cells: usize, walk: impl FnOnce(&mut [u64])) -> Option<()> {
    thread_local! {
        static KEPT: core::cell::RefCell<Vec<u64>> = const { core::cell::RefCell::new(Vec::new()) };
    }
    fn grow(v: &mut Vec<u64>, cells: usize) -> Option<()> {
        if v.len() < cells {
            v.try_reserve_exact(cells - v.len()).ok()?;
            v.resize(cells, 0);
        }
        Some(())
    }
    let mut walk = Some(walk);
    if cells <= KEPT_TILE_CELLS {
        let kept = KEPT.try_with(|k| {
            let mut v = k.try_borrow_mut().ok()?;
            grow(&mut v, cells)?;
            (walk.take()?)(&mut v[..cells]);
            Some(())
        });
        if let Ok(Some(())) = kept {
            return Some(());
        }
    }
    let mut own = Vec::new();
    grow(&mut own, cells)?;
    (walk?)(&mut own);
    Some(())
}

/// The most cells a thread keeps between transposed walks: one gathered input's tile of
/// [`TILE_BYTES`] and its rows' padding (512 rows of 64 bytes at most); the tiles of two or
/// more (`a.t() + b.t()` at full size) are allocated per call.
const KEPT_TILE_CELLS: usize = (TILE_BYTES + (32 << 10)) / 8;

/// Copies a `rows x cols` tile of `e`-byte elements at `src` (byte strides: `col_stride` from
/// one source line to the next, `e` along a line: source line `c` holds the tile's column `c`)
/// into `dst` as rows of `pitch >= cols` elements: `dst[r * pitch + c] = line_c[r]`.
///
/// # Safety
/// Every source element of the tile is valid for reads; `dst` is valid for `rows * pitch`
/// elements of `e` bytes, aligned to `e` (at most 8), and overlaps no source element.
unsafe fn gather_tile(
    src: *const u8,
    col_stride: isize,
    rows: usize,
    cols: usize,
    e: usize,
    dst: *mut u8,
    pitch: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use super::isa::{VectorIsa, vector_isa};
        // SAFETY: (each arm) the caller's contract; the AVX copies only where the CPU has AVX
        // (every CPU with AVX2 does).
        unsafe {
            match e {
                1 if vector_isa() >= VectorIsa::Avx2 => {
                    return x86::gather_avx2_narrow::<x86::Bytes32, x86::Bytes16>(
                        src, col_stride, rows, cols, dst, pitch,
                    );
                }
                1 => return x86::gather::<x86::Bytes16>(src, col_stride, rows, cols, dst, pitch),
                2 if vector_isa() >= VectorIsa::Avx2 => {
                    return x86::gather_avx2_narrow::<x86::Halves16, x86::Halves8>(
                        src, col_stride, rows, cols, dst, pitch,
                    );
                }
                2 => return x86::gather::<x86::Halves8>(src, col_stride, rows, cols, dst, pitch),
                4 if vector_isa() >= VectorIsa::Avx2 => {
                    return x86::gather_avx_words(src, col_stride, rows, cols, dst, pitch);
                }
                4 => return x86::gather::<x86::Words4>(src, col_stride, rows, cols, dst, pitch),
                8 if vector_isa() >= VectorIsa::Avx2 => {
                    return x86::gather_avx_doubles(src, col_stride, rows, cols, dst, pitch);
                }
                8 => return x86::gather::<x86::Doubles2>(src, col_stride, rows, cols, dst, pitch),
                _ => {}
            }
        }
    }
    // SAFETY: the caller's contract.
    unsafe { gather_scalar(src, col_stride, 0, rows, 0, cols, e, dst, pitch) }
}

/// The element-by-element gather of source lines `c0..c1`, elements `r0..r1`, as
/// [`gather_tile`] (its remainder past whole blocks, and every element size off x86-64).
///
/// # Safety
/// [`gather_tile`]'s contract for the sub-tile.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn gather_scalar(
    src: *const u8,
    col_stride: isize,
    r0: usize,
    r1: usize,
    c0: usize,
    c1: usize,
    e: usize,
    dst: *mut u8,
    pitch: usize,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        src: *const u8,
        cs: isize,
        (r0, r1, c0, c1): (usize, usize, usize, usize),
        dst: *mut T,
        pitch: usize,
    ) {
        for c in c0..c1 {
            // SAFETY: the caller's contract; a source line is contiguous elements of T.
            unsafe {
                let line = src.offset(c as isize * cs) as *const T;
                for r in r0..r1 {
                    dst.add(r * pitch + c).write(line.add(r).read());
                }
            }
        }
    }
    let span = (r0, r1, c0, c1);
    // SAFETY: (each arm) the caller's contract, with T of the element's size and alignment.
    unsafe {
        match e {
            1 => go::<u8>(src, col_stride, span, dst, pitch),
            2 => go::<u16>(src, col_stride, span, dst as *mut u16, pitch),
            4 => go::<u32>(src, col_stride, span, dst as *mut u32, pitch),
            8 => go::<u64>(src, col_stride, span, dst as *mut u64, pitch),
            _ => {
                for c in c0..c1 {
                    for r in r0..r1 {
                        core::ptr::copy_nonoverlapping(
                            src.offset(c as isize * col_stride + (r * e) as isize),
                            dst.add((r * pitch + c) * e),
                            e,
                        );
                    }
                }
            }
        }
    }
}

/// Block transposes in SSE2 (every x86-64 CPU) and AVX registers. Loads and stores are
/// unaligned; the shuffles move bits and never look at them (no float arithmetic: NaN
/// payloads and signalling NaNs pass through unchanged).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    /// A `B x B` transpose of `E`-byte elements in registers.
    pub(super) trait Block {
        /// Source lines per block (destination columns).
        const B: usize;
        const E: usize;
        /// Elements read per source line (destination rows): `B` unless a block reads a
        /// whole 32-byte AVX register of each line (two 16-byte blocks side by side).
        const ROWS: usize = Self::B;
        /// Source line `c < B` at `s + c * ss` (ROWS contiguous elements) -> destination row
        /// `r < ROWS` at `d + r * ds`: `d_r[c] = s_c[r]`.
        ///
        /// # Safety
        /// The B lines of ROWS elements are valid for reads, the ROWS rows of B elements valid
        /// for writes.
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize);
    }

    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m128i {
        // SAFETY: the caller's: 16 readable bytes at p (unaligned load).
        unsafe { _mm_loadu_si128(p as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m128i) {
        // SAFETY: the caller's: 16 writable bytes at p (unaligned store).
        unsafe { _mm_storeu_si128(p as *mut __m128i, v) }
    }

    /// The integer registers the byte and half transposes run in: SSE2's 128 bits, and AVX2's
    /// 256, whose unpacks work within each 128-bit lane, so one network transposes two
    /// blocks side by side (the lanes hold bytes 0..16 and 16..32 of each source line).
    trait Lanes: Copy {
        /// # Safety
        /// 16 (or 32) readable bytes at `p`; the CPU has the register's extension.
        unsafe fn load(p: *const u8) -> Self;
        /// `(unpacklo, unpackhi)` of 8-, 16-, 32- and 64-bit units.
        ///
        /// # Safety
        /// The CPU has the register's extension (each below too).
        unsafe fn unpack8(a: Self, b: Self) -> (Self, Self);
        unsafe fn unpack16(a: Self, b: Self) -> (Self, Self);
        unsafe fn unpack32(a: Self, b: Self) -> (Self, Self);
        unsafe fn unpack64(a: Self, b: Self) -> (Self, Self);
        /// Stores the low lane as destination row `r` and, in a 256-bit register, the high lane
        /// as row `r + half` (the second block's same row).
        ///
        /// # Safety
        /// Those rows at `d + row * ds` are valid for 16-byte writes.
        unsafe fn store_rows(d: *mut u8, ds: isize, r: usize, half: usize, v: Self);
    }

    impl Lanes for __m128i {
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the trait's contract.
            unsafe { load(p) }
        }
        #[inline(always)]
        unsafe fn unpack8(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: SSE2 (every x86-64 CPU).
            unsafe { (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack16(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack32(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack64(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)) }
        }
        #[inline(always)]
        unsafe fn store_rows(d: *mut u8, ds: isize, r: usize, _half: usize, v: Self) {
            // SAFETY: the trait's contract (row r).
            unsafe { store(d.offset(r as isize * ds), v) }
        }
    }

    impl Lanes for __m256i {
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the trait's contract (32 bytes, AVX).
            unsafe { _mm256_loadu_si256(p as *const __m256i) }
        }
        #[inline(always)]
        unsafe fn unpack8(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: the caller's AVX2 (each below too).
            unsafe { (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack16(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack32(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)) }
        }
        #[inline(always)]
        unsafe fn unpack64(a: Self, b: Self) -> (Self, Self) {
            // SAFETY: as above.
            unsafe { (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)) }
        }
        #[inline(always)]
        unsafe fn store_rows(d: *mut u8, ds: isize, r: usize, half: usize, v: Self) {
            // SAFETY: the trait's contract (rows r and r + half).
            unsafe {
                store(d.offset(r as isize * ds), _mm256_castsi256_si128(v));
                store(
                    d.offset((r + half) as isize * ds),
                    _mm256_extracti128_si256::<1>(v),
                );
            }
        }
    }

    /// The unpack of `bits`-wide units (8, 16, 32 or 64).
    ///
    /// # Safety
    /// The CPU has `V`'s extension.
    #[inline(always)]
    unsafe fn unpack<V: Lanes>(bits: u32, a: V, b: V) -> (V, V) {
        // SAFETY: the caller's contract.
        unsafe {
            match bits {
                8 => V::unpack8(a, b),
                16 => V::unpack16(a, b),
                32 => V::unpack32(a, b),
                _ => V::unpack64(a, b),
            }
        }
    }

    /// `N` lines of `N` elements of `128 / N` bits (per lane) -> `N` rows: rounds of
    /// interleaving with units doubling from the element's width to 64 bits. Round `g` (group
    /// size 2, 4, ... N) pairs lines `g·k + h` and `g·k + g/2 + h` of the previous round into
    /// `g·k + 2h`, `g·k + 2h + 1`; after the last round (g = N) entry `2h` / `2h + 1` is row
    /// `2h` / `2h + 1`. The high lane's rows go `half` rows further down. Constant bounds:
    /// fully unrolled, every value in a register.
    ///
    /// # Safety
    /// `N` lines of `size_of::<V>()` bytes readable, the rows writable (`Lanes::store_rows`);
    /// the CPU has `V`'s extension.
    #[inline(always)]
    unsafe fn network<V: Lanes, const N: usize>(
        s: *const u8,
        ss: isize,
        d: *mut u8,
        ds: isize,
        half: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            let mut r: [V; N] = core::array::from_fn(|k| V::load(s.offset(k as isize * ss)));
            let mut bits = 128 / N as u32;
            let mut g = 2;
            while g < N {
                let prev = r;
                for k in 0..N / g {
                    for h in 0..g / 2 {
                        (r[g * k + 2 * h], r[g * k + 2 * h + 1]) =
                            unpack(bits, prev[g * k + h], prev[g * k + g / 2 + h]);
                    }
                }
                (bits, g) = (2 * bits, 2 * g);
            }
            for h in 0..N / 2 {
                let (lo, hi) = unpack(bits, r[h], r[N / 2 + h]);
                V::store_rows(d, ds, 2 * h, half, lo);
                V::store_rows(d, ds, 2 * h + 1, half, hi);
            }
        }
    }

    /// 16 x 16 bytes (SSE2).
    pub(super) struct Bytes16;
    impl Block for Bytes16 {
        const B: usize = 16;
        const E: usize = 1;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 16 lines of 16 bytes, 16 rows of 16 bytes; SSE2.
            unsafe { network::<__m128i, 16>(s, ss, d, ds, 0) }
        }
    }

    /// Two [`Bytes16`] blocks at once in AVX2 registers: 16 lines of 32 bytes -> 32 rows of
    /// 16 bytes (lane 0 transposes bytes 0..16 of the lines, lane 1 bytes 16..32). Each source
    /// line is loaded 32 bytes at a time: the 16 lines of a block are one L1 set apart when
    /// the source stride is a multiple of 4 KiB, so a 16-byte block re-read every line from L2
    /// for each quarter of its cache line.
    pub(super) struct Bytes32;
    impl Block for Bytes32 {
        const B: usize = 16;
        const E: usize = 1;
        const ROWS: usize = 32;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 16 lines of 32 bytes, 32 rows of 16 bytes; the
            // caller runs this only where the CPU has AVX2 (`gather_avx2_narrow`).
            unsafe { network::<__m256i, 16>(s, ss, d, ds, 16) }
        }
    }

    /// 8 x 8 two-byte elements (SSE2).
    pub(super) struct Halves8;
    impl Block for Halves8 {
        const B: usize = 8;
        const E: usize = 2;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 8 lines of 16 bytes, 8 rows of 16 bytes; SSE2.
            unsafe { network::<__m128i, 8>(s, ss, d, ds, 0) }
        }
    }

    /// Two [`Halves8`] blocks at once in AVX2 registers: 8 lines of 16 halves -> 16 rows of
    /// 8 halves (as [`Bytes32`]).
    pub(super) struct Halves16;
    impl Block for Halves16 {
        const B: usize = 8;
        const E: usize = 2;
        const ROWS: usize = 16;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 8 lines of 32 bytes, 16 rows of 16 bytes; AVX2 as
            // in `Bytes32`.
            unsafe { network::<__m256i, 8>(s, ss, d, ds, 8) }
        }
    }

    /// 4 x 4 four-byte elements (SSE2).
    pub(super) struct Words4;
    impl Block for Words4 {
        const B: usize = 4;
        const E: usize = 4;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 4 lines of 16 bytes, 4 rows of 16 bytes.
            unsafe {
                let (r0, r1) = (load(s), load(s.offset(ss)));
                let (r2, r3) = (load(s.offset(2 * ss)), load(s.offset(3 * ss)));
                let (t0, t1) = (_mm_unpacklo_epi32(r0, r1), _mm_unpacklo_epi32(r2, r3));
                let (t2, t3) = (_mm_unpackhi_epi32(r0, r1), _mm_unpackhi_epi32(r2, r3));
                store(d, _mm_unpacklo_epi64(t0, t1));
                store(d.offset(ds), _mm_unpackhi_epi64(t0, t1));
                store(d.offset(2 * ds), _mm_unpacklo_epi64(t2, t3));
                store(d.offset(3 * ds), _mm_unpackhi_epi64(t2, t3));
            }
        }
    }

    /// 2 x 2 eight-byte elements (SSE2).
    pub(super) struct Doubles2;
    impl Block for Doubles2 {
        const B: usize = 2;
        const E: usize = 8;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract: 2 lines of 16 bytes, 2 rows of 16 bytes.
            unsafe {
                let (r0, r1) = (load(s), load(s.offset(ss)));
                store(d, _mm_unpacklo_epi64(r0, r1));
                store(d.offset(ds), _mm_unpackhi_epi64(r0, r1));
            }
        }
    }

    /// 8 x 8 four-byte elements (AVX). The lanes are paired by the loads: line k's half `h`
    /// (4 elements) in the low lane and line k + 4's in the high one (`vinsertf128` from memory
    /// runs on the load ports), so the shuffle port sees two rounds of 8 unpacks and shuffles
    /// instead of three with the lane swaps (`vperm2f128`) of a whole-line load.
    pub(super) struct Words8;
    impl Block for Words8 {
        const B: usize = 8;
        const E: usize = 4;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract (8 lines of 32 bytes, read as two 16-byte halves;
            // 8 rows of 32 bytes); AVX is present (only called from `gather_avx_words`).
            unsafe {
                let l = |k: isize, h: usize| (s.offset(k * ss) as *const f32).add(4 * h);
                // r[4h + k]: half h of lines k (low lane) and k + 4 (high lane).
                let r = [
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(0, 0))),
                        _mm_loadu_ps(l(4, 0)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(1, 0))),
                        _mm_loadu_ps(l(5, 0)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(2, 0))),
                        _mm_loadu_ps(l(6, 0)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(3, 0))),
                        _mm_loadu_ps(l(7, 0)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(0, 1))),
                        _mm_loadu_ps(l(4, 1)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(1, 1))),
                        _mm_loadu_ps(l(5, 1)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(2, 1))),
                        _mm_loadu_ps(l(6, 1)),
                    ),
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(l(3, 1))),
                        _mm_loadu_ps(l(7, 1)),
                    ),
                ];
                for h in 0..2 {
                    let (a, b, c, e) = (r[4 * h], r[4 * h + 1], r[4 * h + 2], r[4 * h + 3]);
                    let (t0, t1) = (_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
                    let (t2, t3) = (_mm256_unpacklo_ps(c, e), _mm256_unpackhi_ps(c, e));
                    // Destination row 4h + q: element 4h + q of lines 0..4 (low lane) and
                    // 4..8 (high lane).
                    let row = |q: usize| d.offset((4 * h + q) as isize * ds) as *mut f32;
                    _mm256_storeu_ps(row(0), _mm256_shuffle_ps::<0x44>(t0, t2));
                    _mm256_storeu_ps(row(1), _mm256_shuffle_ps::<0xEE>(t0, t2));
                    _mm256_storeu_ps(row(2), _mm256_shuffle_ps::<0x44>(t1, t3));
                    _mm256_storeu_ps(row(3), _mm256_shuffle_ps::<0xEE>(t1, t3));
                }
            }
        }
    }

    /// 4 x 4 eight-byte elements (AVX).
    pub(super) struct Doubles4;
    impl Block for Doubles4 {
        const B: usize = 4;
        const E: usize = 8;
        #[inline(always)]
        unsafe fn transpose(s: *const u8, ss: isize, d: *mut u8, ds: isize) {
            // SAFETY: the trait's contract (4 lines of 32 bytes, 4 rows of 32 bytes); AVX is
            // present (only called from `gather_avx_doubles`).
            unsafe {
                let l = |k: isize| s.offset(k * ss) as *const f64;
                let (r0, r1) = (_mm256_loadu_pd(l(0)), _mm256_loadu_pd(l(1)));
                let (r2, r3) = (_mm256_loadu_pd(l(2)), _mm256_loadu_pd(l(3)));
                let (t0, t1) = (_mm256_unpacklo_pd(r0, r1), _mm256_unpackhi_pd(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_pd(r2, r3), _mm256_unpackhi_pd(r2, r3));
                let row = |k: isize| d.offset(k * ds) as *mut f64;
                _mm256_storeu_pd(row(0), _mm256_permute2f128_pd::<0x20>(t0, t2));
                _mm256_storeu_pd(row(1), _mm256_permute2f128_pd::<0x20>(t1, t3));
                _mm256_storeu_pd(row(2), _mm256_permute2f128_pd::<0x31>(t0, t2));
                _mm256_storeu_pd(row(3), _mm256_permute2f128_pd::<0x31>(t1, t3));
            }
        }
    }

    /// Source lines ahead of the block being transposed whose cache lines at the block's rows
    /// are prefetched: a line's run is only 512 bytes (8 cache lines), too short for the
    /// hardware's stream prefetcher to reach ahead, so each run's misses came one block at a
    /// time. Measured on a standalone [4096, 4096] f32 transposed add (Zen 5, 2 MiB pages):
    /// gather alone 4.0 -> 3.0 ms, the whole add 8.6 -> 7.4 ms; 8 to 32 lines ahead within 4%.
    const PREFETCH_LINES_AHEAD: usize = 16;

    /// [`super::gather_tile`] by blocks of `T`, the remainder element by element; the cache
    /// lines of the source lines [`PREFETCH_LINES_AHEAD`] ahead prefetched at each block's rows.
    ///
    /// # Safety
    /// [`super::gather_tile`]'s contract with `e = T::E`; the CPU has the block's extension.
    #[inline(always)]
    pub(super) unsafe fn gather<T: Block>(
        src: *const u8,
        cs: isize,
        rows: usize,
        cols: usize,
        dst: *mut u8,
        pitch: usize,
    ) {
        let (b, rb_step, e) = (T::B, T::ROWS, T::E);
        let (rb_end, cb_end) = (rows - rows % rb_step, cols - cols % b);
        for cb in (0..cb_end).step_by(b) {
            let ahead = cb + PREFETCH_LINES_AHEAD;
            let prefetch = ahead + b <= cols;
            for rb in (0..rb_end).step_by(rb_step) {
                if prefetch && (rb * e) % 64 == 0 {
                    for k in ahead..ahead + b {
                        // SAFETY: a prefetch is a hint that never faults; lines `ahead..ahead +
                        // b` are the tile's (`ahead + b <= cols`), so the address is in bounds.
                        unsafe {
                            _mm_prefetch::<_MM_HINT_T0>(
                                src.offset(k as isize * cs + (rb * e) as isize) as *const i8,
                            )
                        };
                    }
                }
                // SAFETY: lines cb..cb+b, elements rb..rb+ROWS of the tile; rows rb..rb+ROWS,
                // columns cb..cb+b of dst (the caller's contract).
                unsafe {
                    T::transpose(
                        src.offset(cb as isize * cs + (rb * e) as isize),
                        cs,
                        dst.add((rb * pitch + cb) * e),
                        (pitch * e) as isize,
                    )
                };
            }
        }
        // SAFETY: the caller's contract, for the columns and rows past whole blocks.
        unsafe {
            super::gather_scalar(src, cs, 0, rows, cb_end, cols, e, dst, pitch);
            super::gather_scalar(src, cs, rb_end, rows, 0, cb_end, e, dst, pitch);
        }
    }

    /// [`gather`] by AVX2 blocks reading 32 bytes of each source line (`W`: [`Bytes32`] or
    /// [`Halves16`]), the rows past a multiple of `W::ROWS` by the SSE2 block `N` of half the
    /// height.
    ///
    /// # Safety
    /// [`super::gather_tile`]'s contract with `e = W::E = N::E`; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn gather_avx2_narrow<W: Block, N: Block>(
        src: *const u8,
        cs: isize,
        rows: usize,
        cols: usize,
        dst: *mut u8,
        pitch: usize,
    ) {
        let main = rows - rows % W::ROWS;
        // SAFETY: the caller's contract, split at row `main` (source elements `main..`, the
        // destination's rows `main..`).
        unsafe {
            gather::<W>(src, cs, main, cols, dst, pitch);
            gather::<N>(
                src.add(main * W::E),
                cs,
                rows - main,
                cols,
                dst.add(main * pitch * W::E),
                pitch,
            );
        }
    }

    /// [`gather`] by 8 x 8 AVX blocks of four-byte elements.
    ///
    /// # Safety
    /// [`super::gather_tile`]'s contract with `e = 4`; the CPU has AVX.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn gather_avx_words(
        src: *const u8,
        cs: isize,
        rows: usize,
        cols: usize,
        dst: *mut u8,
        pitch: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { gather::<Words8>(src, cs, rows, cols, dst, pitch) }
    }

    /// [`gather`] by 4 x 4 AVX blocks of eight-byte elements.
    ///
    /// # Safety
    /// [`super::gather_tile`]'s contract with `e = 8`; the CPU has AVX.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn gather_avx_doubles(
        src: *const u8,
        cs: isize,
        rows: usize,
        cols: usize,
        dst: *mut u8,
        pitch: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { gather::<Doubles4>(src, cs, rows, cols, dst, pitch) }
    }
}
