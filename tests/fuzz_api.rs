//! Seeded fuzz test of weft's public API (the soundness issue's "hostile input" check).
//!
//! Hostile shapes, strides, offsets, dims, indices, values and scalars are thrown at the
//! constructors, views, ops (out of place, in place, `_out`) and the layout algebra. Asserted:
//!
//! * no panic inside a function that returns `Result` (nor inside the layout algebra);
//! * no crash: cases run in subprocess chunks (this test binary re-executed), so an abort or a
//!   segfault is counted and located, not fatal;
//! * every tensor returned `Ok` lies inside its storage (exact i128 arithmetic);
//! * every in-place / `_out` result equals the out-of-place one (cast to the destination's
//!   dtype), or is an `Err` that leaves every storage untouched; elements of the destination's
//!   storage outside the destination view are never written.
//!
//! ```sh
//! cargo test --release --test fuzz_api                              # 20,000 cases
//! WEFT_FUZZ_CASES=1000000 cargo test --release --test fuzz_api      # more
//! WEFT_FUZZ_CASE=1234 cargo test --release --test fuzz_api -- --nocapture   # replay one case
//! WEFT_FUZZ_SEED=7 ...                                              # another base seed
//! ```
//!
//! Case `i` is seeded with `base_seed ^ i`, so it replays alone. Set `WEFT_FUZZ_VERBOSE=1` to
//! print every call of a replayed case.

use std::fmt::Write as _;
use std::io::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};
use weft::layout::GroupedLayout;
use weft::layout::algebra;
use weft::ops::Operand;
use weft::storage::Storage;
use weft::{DType, DynElement, DynTensor, Element, Layout, Scalar, Tensor, Value};

/// dtype, shape and values of a result, copied out.
type Snapshot = (DType, Vec<usize>, Vec<Value>);

const DEFAULT_CASES: u64 = 20_000;
const CHUNK: u64 = 2_000;
const DEFAULT_SEED: u64 = 0x5EED_F422_0BAD_CAFE;
/// The most elements the fuzzer itself creates, reads or asks an op to produce.
const CAP: u128 = 4096;
/// Byte sizes from here up cannot be allocated on any machine this runs on (47-bit address
/// spaces), so asking the API for them must fail cleanly without touching memory.
const UNALLOCATABLE: u128 = 1 << 48;

// ------------------------------------------------------------------------------------ PRNG

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const HOSTILE_USIZE: &[usize] = &[
    0,
    1,
    2,
    3,
    usize::MAX,
    usize::MAX - 1,
    isize::MAX as usize,
    isize::MAX as usize + 1,
    1 << 31,
    1 << 32,
    (1 << 32) + 1,
    1 << 40,
    1 << 62,
    1 << 63,
    i64::MAX as usize / 2 + 1,
];

const HOSTILE_ISIZE: &[isize] = &[
    0,
    1,
    -1,
    2,
    -2,
    isize::MAX,
    isize::MIN,
    isize::MIN + 1,
    isize::MAX - 1,
    1 << 31,
    1 << 32,
    1 << 40,
    1 << 62,
    -(1 << 31),
    -(1 << 32),
    -(1 << 40),
    -(1 << 62),
];

fn h_usize(r: &mut Rng) -> usize {
    if r.chance(1, 4) {
        r.pick(HOSTILE_USIZE)
    } else {
        r.below(6) as usize
    }
}

fn h_isize(r: &mut Rng) -> isize {
    if r.chance(1, 4) {
        r.pick(HOSTILE_ISIZE)
    } else {
        r.range(-5, 5) as isize
    }
}

/// A dim argument for a tensor of `ndim` dims: mostly valid or just out of range.
fn h_dim(r: &mut Rng, ndim: usize) -> isize {
    if r.chance(1, 8) {
        r.pick(HOSTILE_ISIZE)
    } else {
        let n = ndim as i64;
        r.range(-n - 1, n) as isize
    }
}

fn small_shape(r: &mut Rng, max_ndim: u64) -> Vec<usize> {
    let nd = r.below(max_ndim + 1) as usize;
    (0..nd)
        .map(|_| {
            if r.chance(1, 12) {
                0
            } else {
                r.range(1, 4) as usize
            }
        })
        .collect()
}

fn hostile_shape(r: &mut Rng) -> Vec<usize> {
    let nd = r.below(5) as usize;
    (0..nd).map(|_| h_usize(r)).collect()
}

fn h_scalar(r: &mut Rng) -> Scalar {
    match r.below(3) {
        0 => Scalar::Bool(r.chance(1, 2)),
        1 => Scalar::Int(r.pick(&[
            0,
            1,
            -1,
            2,
            3,
            7,
            -8,
            127,
            128,
            255,
            256,
            300,
            -129,
            32768,
            1 << 31,
            1 << 32,
            63,
            64,
            i64::MIN,
            i64::MAX,
            i64::MIN + 1,
        ])),
        _ => Scalar::Float(r.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            -3.75,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            1e-310,
            65504.0,
            65520.0,
            3.4e38,
            1e39,
            9.3e18,
            -9.3e18,
        ])),
    }
}

fn any_dtype(r: &mut Rng) -> DType {
    r.pick(&DType::ALL)
}

// ------------------------------------------------------------------------------ findings

struct Ctx {
    case: u64,
    findings: Vec<(String, String)>,
    verbose: bool,
}

impl Ctx {
    fn find(&mut self, kind: &str, detail: String) {
        self.findings.push((kind.to_string(), detail));
    }
    fn log(&self, what: &dyn Fn() -> String) {
        if self.verbose {
            println!("  call {}", what());
        }
    }
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

fn install_quiet_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "<non-string payload>".into()
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let text = format!("'{msg}' at {loc}");
        // Replaying verbosely, every panic goes to stderr.
        if std::env::var("WEFT_FUZZ_VERBOSE").is_ok() {
            eprintln!("panic {text}");
        }
        LAST_PANIC.with(|p| *p.borrow_mut() = text);
    }));
}

fn last_panic() -> String {
    LAST_PANIC.with(|p| p.borrow().clone())
}

/// Calls a `Result`-returning API; a panic is a finding (and `None`).
fn call<R>(
    cx: &mut Ctx,
    name: &str,
    what: &dyn Fn() -> String,
    f: impl FnOnce() -> weft::Result<R>,
) -> Option<weft::Result<R>> {
    caught(cx, "panic-in-result-fn", name, what, f)
}

/// Calls an infallible API that must not panic for any input (layout algebra).
fn call_plain<R>(
    cx: &mut Ctx,
    name: &str,
    what: &dyn Fn() -> String,
    f: impl FnOnce() -> R,
) -> Option<R> {
    caught(cx, "panic", name, what, f)
}

/// Runs `f`, logging the call; a panic is recorded as a finding of kind `"{kind} {name}"`.
fn caught<R>(
    cx: &mut Ctx,
    kind: &str,
    name: &str,
    what: &dyn Fn() -> String,
    f: impl FnOnce() -> R,
) -> Option<R> {
    cx.log(what);
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Some(r),
        Err(_) => {
            let p = last_panic();
            cx.find(
                &format!("{kind} {name}"),
                format!("{} panicked: {p}", what()),
            );
            None
        }
    }
}

// ------------------------------------------------------------------------- helpers, checks

fn desc<T: Element>(t: &Tensor<T>) -> String {
    format!(
        "{:?}[storage len {}, shape {:?}, strides {:?}, offset {}]",
        T::DTYPE,
        t.storage().len(),
        t.shape(),
        t.strides(),
        t.offset()
    )
}

fn ddesc(t: &DynTensor) -> String {
    weft::dispatch!(t, x => desc(x))
}

/// Exact element count (u128; saturating far beyond anything real).
fn numel_exact(shape: &[usize]) -> u128 {
    shape
        .iter()
        .fold(1u128, |a, &n| a.saturating_mul(n as u128))
}

fn small(t_shape: &[usize]) -> bool {
    numel_exact(t_shape) <= CAP
}

/// Whether asking the API to allocate `numel` elements of `size` bytes is safe for this machine:
/// either small, or certain to be refused.
fn alloc_safe(numel: u128, size: usize) -> bool {
    numel <= CAP || numel.saturating_mul(size as u128) >= UNALLOCATABLE
}

/// The storage range of a layout, exact: `None` when empty.
fn extent(shape: &[usize], strides: &[isize], offset: usize) -> Option<(i128, i128)> {
    if shape.contains(&0) {
        return None;
    }
    // (n - 1) * s can exceed i128 (2^64 * 2^63): saturate, which still lands outside any
    // storage.
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = (n as i128 - 1).saturating_mul(s as i128);
        if span < 0 {
            lo = lo.saturating_add(span);
        } else {
            hi = hi.saturating_add(span);
        }
    }
    Some((lo, hi))
}

fn check_in_storage<T: Element>(cx: &mut Ctx, what: &dyn Fn() -> String, t: &Tensor<T>) -> bool {
    let (shape, strides) = (t.shape(), t.strides());
    if shape.len() != strides.len() {
        cx.find(
            "view-rank-mismatch",
            format!("{} returned Ok {}", what(), desc(t)),
        );
        return false;
    }
    if let Some((lo, hi)) = extent(shape, strides, t.offset())
        && (lo < 0 || hi >= t.storage().len() as i128)
    {
        cx.find(
            "view-outside-storage",
            format!(
                "{} returned Ok {} reaching storage indices {lo}..={hi}",
                what(),
                desc(t)
            ),
        );
        return false;
    }
    true
}

fn check_dyn(cx: &mut Ctx, what: &dyn Fn() -> String, t: &DynTensor) -> bool {
    weft::dispatch!(t, x => check_in_storage(cx, what, x))
}

/// The raw bytes of every element of a storage (the whole buffer), for "nothing was written".
fn storage_bytes<T: Element>(t: &Tensor<T>) -> Vec<u8> {
    let s = t.storage();
    let whole = Tensor::from_parts(s.clone(), Layout::contiguous(&[s.len()])).unwrap();
    let v = whole.to_vec();
    // SAFETY: element types are plain data without padding.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), v.len() * size_of::<T>()) }
        .to_vec()
}

fn dstorage_bytes(t: &DynTensor) -> Vec<u8> {
    weft::dispatch!(t, x => storage_bytes(x))
}

/// Storage indices the view covers.
fn footprint(shape: &[usize], strides: &[isize], offset: usize) -> Vec<i128> {
    let mut out = Vec::new();
    if shape.contains(&0) {
        return out;
    }
    let n = numel_exact(shape) as usize;
    let mut coord = vec![0usize; shape.len()];
    for _ in 0..n {
        let mut off = offset as i128;
        for (&c, &s) in coord.iter().zip(strides) {
            off += c as i128 * s as i128;
        }
        out.push(off);
        for d in (0..coord.len()).rev() {
            coord[d] += 1;
            if coord[d] < shape[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    out
}

fn same_value(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        (Value::F32(x), Value::F32(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        _ => false,
    }
}

fn values(t: &DynTensor) -> Vec<Value> {
    weft::dispatch!(t, x => x.to_vec().into_iter().map(Element::to_value).collect())
}

fn fmt_vals(v: &[Value]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate().take(12) {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = match x {
            Value::Bool(b) => write!(s, "{b}"),
            Value::Int(i) => write!(s, "{i}"),
            Value::UInt(u) => write!(s, "{u}"),
            Value::F32(f) => write!(s, "{f:?}"),
            Value::F64(f) => write!(s, "{f:?}"),
        };
    }
    if v.len() > 12 {
        s.push_str(", ..");
    }
    s.push(']');
    s
}

/// A hostile element value of `T`.
fn h_elem<T: Element>(r: &mut Rng) -> T {
    if r.chance(1, 2) {
        T::from_value(Value::Int(r.range(-4, 9)))
    } else {
        h_scalar(r).to::<T>()
    }
}

fn h_data<T: Element>(r: &mut Rng, n: usize) -> Vec<T> {
    (0..n).map(|_| h_elem::<T>(r)).collect()
}

/// Random strides (some negative, some 0) and an offset that make `shape` fit a storage of
/// `len`; `None` when they cannot be found quickly.
fn fitting_layout(r: &mut Rng, shape: &[usize], len: usize) -> Option<Layout> {
    for attempt in 0..6 {
        let strides: Vec<isize> = shape
            .iter()
            .map(|_| {
                if attempt >= 3 {
                    r.range(-1, 1) as isize
                } else if r.chance(1, 8) {
                    0
                } else {
                    r.range(-6, 6) as isize
                }
            })
            .collect();
        let Some((lo, hi)) = extent(shape, &strides, 0) else {
            let off = r.below(len as u64 + 2) as usize;
            return Layout::new(shape.to_vec(), strides, off).ok();
        };
        let span = hi - lo;
        if span >= len as i128 {
            continue;
        }
        let room = len as i128 - 1 - span;
        let off = -lo + r.below(room as u64 + 1) as i128;
        return Layout::new(shape.to_vec(), strides, off as usize).ok();
    }
    // Contiguous fallback.
    let n = numel_exact(shape);
    if n <= len as u128 {
        let off = r.below((len as u128 - n) as u64 + 1) as usize;
        return Some(Layout::contiguous(shape).with_offset(off));
    }
    None
}

// ---------------------------------------------------------------------- scenario: views

fn new_base<T: Element + DynElement>(cx: &mut Ctx, r: &mut Rng) -> Option<Tensor<T>> {
    match r.below(4) {
        0 => {
            let shape = small_shape(r, 4);
            let n = numel_exact(&shape) as usize;
            let data = h_data::<T>(r, n);
            let res = call(
                cx,
                "from_vec",
                &|| {
                    format!(
                        "Tensor::<{:?}>::from_vec(<{n} values>, &{shape:?})",
                        T::DTYPE
                    )
                },
                || Tensor::from_vec(data.clone(), &shape),
            )?;
            match res {
                Ok(t) => Some(t),
                Err(e) => {
                    cx.find(
                        "unexpected-err from_vec",
                        format!("valid from_vec of {shape:?}: {e}"),
                    );
                    None
                }
            }
        }
        1 => {
            // A valid strided view over a flat storage.
            let len = r.range(1, 64) as usize;
            let data = h_data::<T>(r, len);
            let shape = small_shape(r, 4);
            let layout = fitting_layout(r, &shape, len)?;
            let storage = Storage::from_slice(&data);
            let l2 = layout.clone();
            let res = call(
                cx,
                "from_parts",
                &|| {
                    format!(
                        "Tensor::<{:?}>::from_parts(Storage::from_slice(<{len}>), {l2:?})",
                        T::DTYPE
                    )
                },
                || Tensor::from_parts(storage.clone(), layout.clone()),
            )?;
            match res {
                Ok(t) => Some(t),
                Err(e) => {
                    cx.find(
                        "unexpected-err from_parts",
                        format!("fitting layout {layout:?} in storage {len}: {e}"),
                    );
                    None
                }
            }
        }
        _ => {
            // Hostile layout over a small storage: must be Err unless it fits.
            let len = r.range(0, 16) as usize;
            let data = h_data::<T>(r, len);
            let nd = r.below(4) as usize;
            let shape: Vec<usize> = (0..nd).map(|_| h_usize(r)).collect();
            let mut strides: Vec<isize> = (0..nd).map(|_| h_isize(r)).collect();
            if r.chance(1, 10) {
                strides.push(1);
            }
            let offset = h_usize(r);
            let storage = Storage::from_slice(&data);
            let (s2, st2) = (shape.clone(), strides.clone());
            let layout = call(
                cx,
                "Layout::new",
                &|| format!("Layout::new({s2:?}, {st2:?}, {offset})"),
                || Layout::new(shape.clone(), strides.clone(), offset),
            )?
            .ok()?;
            let l2 = layout.clone();
            let what = move || {
                format!(
                    "Tensor::<{:?}>::from_parts(Storage::from_slice(<{len} values>), {l2:?})",
                    T::DTYPE
                )
            };
            let t = call(cx, "from_parts", &what, || {
                Tensor::from_parts(storage.clone(), layout.clone())
            })?
            .ok()?;
            if !check_in_storage(cx, &what, &t) {
                return None;
            }
            if r.chance(1, 2) {
                // with_layout on an existing tensor too.
                let l3 = Layout::new(t.shape().to_vec(), t.strides().to_vec(), h_usize(r)).ok()?;
                let w3 = l3.clone();
                let what = move || format!("t.with_layout({w3:?}) on storage len {len}");
                if let Some(Ok(v)) = call(cx, "with_layout", &what, || t.with_layout(l3.clone())) {
                    check_in_storage(cx, &what, &v);
                }
            }
            Some(t)
        }
    }
}

fn h_shape_isize(r: &mut Rng, like: &[usize]) -> Vec<isize> {
    match r.below(3) {
        0 => (0..r.below(5)).map(|_| h_isize(r)).collect(),
        1 => {
            let mut s: Vec<isize> = like.iter().map(|&n| n as isize).collect();
            if !s.is_empty() && r.chance(1, 2) {
                let i = r.below(s.len() as u64) as usize;
                s[i] = -1;
            }
            if r.chance(1, 2) {
                s.insert(0, h_isize(r));
            }
            s
        }
        _ => {
            // A reshape target of the same numel.
            let n = numel_exact(like) as isize;
            let mut s = vec![n];
            if n > 1 && n % 2 == 0 && r.chance(1, 2) {
                s = vec![2, n / 2];
            }
            if r.chance(1, 3) {
                s.push(1);
            }
            if r.chance(1, 3) {
                s[0] = -1;
            }
            s
        }
    }
}

fn fuzz_views<T: Element + DynElement>(cx: &mut Ctx, r: &mut Rng) {
    let Some(mut cur) = new_base::<T>(cx, r) else {
        return;
    };
    let steps = r.range(1, 7);
    for _ in 0..steps {
        let nd = cur.ndim();
        let d = cur.shape().to_vec();
        let cd = desc(&cur);
        let next: Option<Tensor<T>> = match r.below(22) {
            0 => {
                let mut dims: Vec<isize> = (0..nd as isize).collect();
                for i in (1..dims.len()).rev() {
                    let j = r.below(i as u64 + 1) as usize;
                    dims.swap(i, j);
                }
                if r.chance(1, 3) && !dims.is_empty() {
                    let i = r.below(dims.len() as u64) as usize;
                    dims[i] = h_dim(r, nd);
                }
                if r.chance(1, 8) {
                    dims.push(h_dim(r, nd));
                }
                let d2 = dims.clone();
                let w = move || format!("{cd}.try_permute(&{d2:?})");
                view_result(cx, "try_permute", &w, || cur.try_permute(&dims))
            }
            1 => {
                let (a, b) = (h_dim(r, nd), h_dim(r, nd));
                let w = move || format!("{cd}.try_transpose({a}, {b})");
                view_result(cx, "try_transpose", &w, || cur.try_transpose(a, b))
            }
            2 => {
                let w = move || format!("{cd}.try_t()");
                view_result(cx, "try_t", &w, || cur.try_t())
            }
            3..=5 => {
                let dim = h_dim(r, nd);
                let opt = |r: &mut Rng| {
                    if r.chance(1, 4) {
                        None
                    } else {
                        Some(h_isize(r))
                    }
                };
                let (s, e) = (opt(r), opt(r));
                let step = if r.chance(1, 3) {
                    r.pick(HOSTILE_ISIZE)
                } else {
                    r.range(-3, 3) as isize
                };
                let w = move || format!("{cd}.try_slice({dim}, {s:?}, {e:?}, {step})");
                view_result(cx, "try_slice", &w, || cur.try_slice(dim, s, e, step))
            }
            6 => {
                let (dim, s, l) = (h_dim(r, nd), h_isize(r), h_usize(r));
                let w = move || format!("{cd}.try_narrow({dim}, {s}, {l})");
                view_result(cx, "try_narrow", &w, || cur.try_narrow(dim, s, l))
            }
            7 => {
                let (dim, i) = (h_dim(r, nd), h_isize(r));
                let w = move || format!("{cd}.try_select({dim}, {i})");
                view_result(cx, "try_select", &w, || cur.try_select(dim, i))
            }
            8 => {
                let s = h_shape_isize(r, &d);
                let s2 = s.clone();
                let w = move || format!("{cd}.try_expand(&{s2:?})");
                view_result(cx, "try_expand", &w, || cur.try_expand(&s))
            }
            9 => {
                let mut s: Vec<usize> = d.clone();
                for x in s.iter_mut() {
                    if *x == 1 || r.chance(1, 4) {
                        *x = h_usize(r);
                    }
                }
                if r.chance(1, 2) {
                    s.insert(0, h_usize(r));
                }
                let s2 = s.clone();
                let w = move || format!("{cd}.try_broadcast_to(&{s2:?})");
                view_result(cx, "try_broadcast_to", &w, || cur.try_broadcast_to(&s))
            }
            10 => {
                let dim = h_dim(r, nd);
                let w = move || format!("{cd}.try_squeeze_dim({dim})");
                view_result(cx, "try_squeeze_dim", &w, || cur.try_squeeze_dim(dim))
            }
            11 => {
                let dim = h_dim(r, nd + 1);
                let w = move || format!("{cd}.try_unsqueeze({dim})");
                view_result(cx, "try_unsqueeze", &w, || cur.try_unsqueeze(dim))
            }
            12 | 13 => {
                let s = h_shape_isize(r, &d);
                let s2 = s.clone();
                let reshape = r.chance(1, 2) && alloc_safe(numel_exact(&d), size_of::<T>());
                let name = if reshape { "try_reshape" } else { "try_view" };
                let w = move || format!("{cd}.{name}(&{s2:?})");
                let res = view_result(cx, name, &w, || {
                    if reshape {
                        cur.try_reshape(&s)
                    } else {
                        cur.try_view(&s)
                    }
                });
                if let Some(v) = &res
                    && small(v.shape())
                    && small(cur.shape())
                    && !same_elems(&v.to_vec(), &cur.to_vec())
                {
                    cx.find(
                        &format!("wrong-values {name}"),
                        format!("{} changed the row-major elements", w()),
                    );
                }
                res
            }
            14 => {
                let (a, b) = (h_dim(r, nd), h_dim(r, nd));
                let w = move || format!("{cd}.try_flatten({a}, {b})");
                // flatten copies when it cannot view: only sizes that are small or unallocatable.
                let ok_size = alloc_safe(numel_exact(&d), size_of::<T>());
                let res = if ok_size {
                    view_result(cx, "try_flatten", &w, || cur.try_flatten(a, b))
                } else {
                    None
                };
                if let Some(v) = &res
                    && small(v.shape())
                    && small(cur.shape())
                    && !same_elems(&v.to_vec(), &cur.to_vec())
                {
                    cx.find(
                        "wrong-values try_flatten",
                        format!("{} changed the row-major elements", w()),
                    );
                }
                res
            }
            15 => {
                let w = move || format!("{cd}.squeeze()");
                call_plain(cx, "squeeze", &w, || cur.squeeze())
                    .and_then(|v| check_in_storage(cx, &w, &v).then_some(v))
            }
            16 => {
                let coord: Vec<Option<usize>> = (0..nd + (r.chance(1, 6) as usize))
                    .map(|i| {
                        if r.chance(1, 2) {
                            None
                        } else if r.chance(1, 4) {
                            Some(h_usize(r))
                        } else {
                            Some(r.below(d.get(i).copied().unwrap_or(1).max(1) as u64 + 1) as usize)
                        }
                    })
                    .collect();
                let c2 = coord.clone();
                let w = move || format!("{cd}.at(&{c2:?})");
                view_result(cx, "at", &w, || cur.at(&coord))
            }
            17 => {
                let tile: Vec<usize> = (0..nd + (r.chance(1, 6) as usize))
                    .map(|i| {
                        if r.chance(1, 3) {
                            h_usize(r)
                        } else {
                            d.get(i).copied().unwrap_or(1).min(2)
                        }
                    })
                    .collect();
                let t2 = tile.clone();
                let w = move || format!("{cd}.tile(&{t2:?})");
                view_result(cx, "tile", &w, || cur.tile(&tile))
            }
            18 => {
                let l = hostile_layout(r);
                let l2 = l.clone();
                let w = move || format!("{cd}.compose(&{l2:?})");
                view_result(cx, "compose", &w, || cur.compose(&l))
            }
            19 => {
                let l = hostile_layout(r);
                let l2 = l.clone();
                let w = move || format!("{cd}.with_layout({l2:?})");
                view_result(cx, "with_layout", &w, || cur.with_layout(l.clone()))
            }
            20 => {
                // Element access.
                let idx: Vec<usize> = (0..nd + (r.chance(1, 8) as usize))
                    .map(|i| {
                        if r.chance(1, 4) {
                            h_usize(r)
                        } else {
                            r.below(d.get(i).copied().unwrap_or(1) as u64 + 1) as usize
                        }
                    })
                    .collect();
                let (i2, cd2) = (idx.clone(), cd.clone());
                let w = move || format!("{cd2}.get(&{i2:?})");
                let got = call(cx, "get", &w, || cur.get(&idx));
                let v = h_elem::<T>(r);
                let mut m = cur.share();
                let i3 = idx.clone();
                let w = move || format!("{cd}.set(&{i3:?}, ..)");
                let set = call(cx, "set", &w, || m.set(&idx, v));
                if let (Some(Ok(_)), Some(Ok(()))) = (&got, &set)
                    && let Some(Ok(back)) = call(cx, "get", &w, || m.get(&idx))
                    && !same_value(back.to_value(), v.to_value())
                {
                    cx.find(
                        "wrong-values set/get",
                        format!("{} then get gave another value", w()),
                    );
                }
                let coord: Vec<Option<usize>> = idx.iter().map(|&i| Some(i)).collect();
                let _ = call(cx, "get_at", &w, || cur.get_at(&coord));
                let _ = call(cx, "set_at", &w, || m.set_at(&coord, v));
                let _ = call(cx, "item", &w, || cur.item());
                None
            }
            _ => {
                // Copies.
                if small(&d) {
                    let (cd2, cd3) = (cd.clone(), cd.clone());
                    let w = move || format!("{cd}.try_to_vec()");
                    let v = call(cx, "try_to_vec", &w, || cur.try_to_vec());
                    let w2 = move || format!("{cd2}.try_clone()");
                    if let Some(Ok(c)) = call(cx, "try_clone", &w2, || cur.try_clone())
                        && check_in_storage(cx, &w2, &c)
                        && let Some(Ok(v)) = &v
                        && !same_elems(&c.to_vec(), v)
                    {
                        cx.find("wrong-values try_clone", w2());
                    }
                    let w3 = move || format!("{cd3}.try_contiguous()");
                    if let Some(Ok(c)) = call(cx, "try_contiguous", &w3, || cur.try_contiguous())
                        && check_in_storage(cx, &w3, &c)
                        && let Some(Ok(v)) = &v
                        && !same_elems(&c.to_vec(), v)
                    {
                        cx.find("wrong-values try_contiguous", w3());
                    }
                }
                Some(cur.share())
            }
        };
        if let Some(n) = next {
            if small(n.shape()) {
                // Reading every element of an in-bounds view must work.
                let w = || "try_to_vec of the view".to_string();
                let _ = call(cx, "try_to_vec", &w, || n.try_to_vec());
            }
            if r.chance(3, 4) {
                cur = n;
            }
        }
    }
}

fn same_elems<T: Element>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| same_value(x.to_value(), y.to_value()))
}

fn view_result<T: Element>(
    cx: &mut Ctx,
    name: &str,
    what: &dyn Fn() -> String,
    f: impl FnOnce() -> weft::Result<Tensor<T>>,
) -> Option<Tensor<T>> {
    match call(cx, name, what, f)? {
        Ok(v) => check_in_storage(cx, what, &v).then_some(v),
        Err(_) => None,
    }
}

// -------------------------------------------------------------- scenario: constructors

fn fuzz_constructors<T: Element + DynElement>(cx: &mut Ctx, r: &mut Rng) {
    let size = size_of::<T>();
    let mut shape = if r.chance(1, 2) {
        hostile_shape(r)
    } else {
        small_shape(r, 4)
    };
    if !alloc_safe(numel_exact(&shape), size) {
        shape = small_shape(r, 3);
    }
    let dt = T::DTYPE;
    let s = shape.clone();
    let sd = move || format!("{s:?}");
    macro_rules! ctor {
        ($name:expr, $what:expr, $e:expr) => {{
            let w = $what;
            if let Some(Ok(t)) = call(cx, $name, &w, || $e) {
                check_in_storage(cx, &w, &t);
            }
        }};
    }
    match r.below(8) {
        0 => ctor!(
            "try_zeros",
            || format!("Tensor::<{dt:?}>::try_zeros(&{})", sd()),
            Tensor::<T>::try_zeros(&shape)
        ),
        1 => {
            let v = h_elem::<T>(r);
            ctor!(
                "try_full",
                || format!("Tensor::<{dt:?}>::try_full(&{}, ..)", sd()),
                Tensor::<T>::try_full(&shape, v)
            )
        }
        2 => {
            let n = if r.chance(1, 2) {
                r.below(17) as usize
            } else {
                numel_exact(&shape).min(CAP) as usize
            };
            let data = h_data::<T>(r, n);
            ctor!(
                "from_vec",
                || format!("Tensor::<{dt:?}>::from_vec(<{n} values>, &{})", sd()),
                Tensor::<T>::from_vec(data.clone(), &shape)
            );
            ctor!(
                "from_slice",
                || format!("Tensor::<{dt:?}>::from_slice(<{n} values>, &{})", sd()),
                Tensor::<T>::from_slice(&data, &shape)
            );
        }
        3 => {
            let mut k = 0u64;
            ctor!(
                "from_fn",
                || format!("Tensor::<{dt:?}>::from_fn(&{}, ..)", sd()),
                Tensor::<T>::from_fn(&shape, |_| {
                    k += 1;
                    T::from_value(Value::Int(k as i64))
                })
            )
        }
        4 => {
            let (a, b, c) = (h_elem::<T>(r), h_elem::<T>(r), h_elem::<T>(r));
            // Cap the length: a legal huge range would really be allocated and filled.
            let f = |v: T| v.to_value().to_f64();
            let len = ((f(b) - f(a)) / f(c)).ceil();
            if !(len.is_finite() && len > CAP as f64 && len * (size as f64) < UNALLOCATABLE as f64)
            {
                let (av, bv, cv) = (a.to_value(), b.to_value(), c.to_value());
                ctor!(
                    "arange",
                    || format!("Tensor::<{dt:?}>::arange({av:?}, {bv:?}, {cv:?})"),
                    Tensor::<T>::arange(a, b, c)
                );
            }
        }
        5 => {
            let steps = h_usize(r);
            if alloc_safe(steps as u128, size) {
                let (a, b) = (h_scalar(r).to_f64(), h_scalar(r).to_f64());
                ctor!(
                    "linspace",
                    || format!("Tensor::<{dt:?}>::linspace({a:?}, {b:?}, {steps})"),
                    Tensor::<T>::linspace(a, b, steps)
                );
            }
        }
        6 => {
            let seed = r.next();
            ctor!(
                "rand",
                || format!("Tensor::<{dt:?}>::rand(&{}, {seed})", sd()),
                Tensor::<T>::rand(&shape, seed)
            );
            ctor!(
                "randn",
                || format!("Tensor::<{dt:?}>::randn(&{}, {seed})", sd()),
                Tensor::<T>::randn(&shape, seed)
            );
            let lo = h_scalar(r);
            let hi = h_scalar(r);
            let (lo, hi) = (lo.to::<i64>(), hi.to::<i64>());
            ctor!(
                "randint",
                || format!("Tensor::<{dt:?}>::randint(&{}, {lo}, {hi}, {seed})", sd()),
                Tensor::<T>::randint(&shape, lo, hi, seed)
            );
        }
        _ => {
            let nd = shape.len() + (r.chance(1, 8) as usize);
            let strides: Vec<isize> = (0..nd).map(|_| h_isize(r)).collect();
            // Exact storage the layout needs; skip only the allocatable-but-huge ones.
            let need = extent(&shape, &strides, 0)
                .map(|(lo, hi)| if lo < 0 { 0 } else { hi + 1 })
                .unwrap_or(0);
            if alloc_safe(need.max(0) as u128, size) && alloc_safe(numel_exact(&shape), size) {
                let st = strides.clone();
                ctor!(
                    "try_empty_strided",
                    || format!("Tensor::<{dt:?}>::try_empty_strided(&{}, &{st:?})", sd()),
                    Tensor::<T>::try_empty_strided(&shape, &strides)
                );
                let st = strides.clone();
                let w = || format!("DynTensor::empty_strided({dt:?}, &{}, &{st:?})", sd());
                if let Some(Ok(t)) = call(cx, "DynTensor::empty_strided", &w, || {
                    DynTensor::empty_strided(dt, &shape, &strides)
                }) {
                    check_dyn(cx, &w, &t);
                }
            }
        }
    }
    // DynTensor constructors.
    let sc = h_scalar(r);
    let w = || format!("DynTensor::full({dt:?}, &{}, {sc:?})", sd());
    if let Some(Ok(t)) = call(cx, "DynTensor::full", &w, || {
        DynTensor::full(dt, &shape, sc)
    }) {
        check_dyn(cx, &w, &t);
    }
    let w = || format!("DynTensor::zeros/ones({dt:?}, &{})", sd());
    if let Some(Ok(t)) = call(cx, "DynTensor::zeros", &w, || DynTensor::zeros(dt, &shape)) {
        check_dyn(cx, &w, &t);
    }
    if let Some(Ok(t)) = call(cx, "DynTensor::ones", &w, || DynTensor::ones(dt, &shape)) {
        check_dyn(cx, &w, &t);
    }
    let w = || format!("DynTensor::scalar({dt:?}, {sc:?})");
    if let Some(t) = call_plain(cx, "DynTensor::scalar", &w, || DynTensor::scalar(dt, sc)) {
        check_dyn(cx, &w, &t);
    }
    let n = r.below(9) as usize;
    let data = h_data::<T>(r, n);
    let w = || format!("DynTensor::from_vec::<{dt:?}>(<{n} values>, &{})", sd());
    if let Some(Ok(t)) = call(cx, "DynTensor::from_vec", &w, || {
        DynTensor::from_vec(data.clone(), &shape)
    }) {
        check_dyn(cx, &w, &t);
    }
}

// --------------------------------------------------------------------- scenario: ops

macro_rules! binops {
    ($($n:ident $t:ident $i:ident $o:ident;)*) => {
        const BIN_NAMES: &[&str] = &[$(stringify!($n)),*];
        fn bin_run(name: &str, a: &DynTensor, b: Operand<'_>) -> weft::Result<DynTensor> {
            match name { $(stringify!($n) => a.$t(b),)* _ => unreachable!() }
        }
        fn bin_free(name: &str, a: Operand<'_>, b: Operand<'_>) -> weft::Result<DynTensor> {
            match name { $(stringify!($n) => weft::ops::dyn_api::$n(a, b),)* _ => unreachable!() }
        }
        fn bin_inplace(name: &str, a: &mut DynTensor, b: Operand<'_>) -> weft::Result<()> {
            match name { $(stringify!($n) => a.$i(b),)* _ => unreachable!() }
        }
        fn bin_out(name: &str, a: &DynTensor, b: Operand<'_>, o: &DynTensor) -> weft::Result<()> {
            match name { $(stringify!($n) => a.$o(b, o),)* _ => unreachable!() }
        }
    };
}

/// Every binary op of weft's table, by its generated method names.
macro_rules! table_binops {
    (() $($Op:ident $name:ident: $d:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
        paste::paste! { binops! { $($name [<try_ $name>] [<try_ $name _>] [<try_ $name _out>];)* } }
    };
}
weft::binary_op_table!(table_binops);

macro_rules! unops {
    ($($n:ident $t:ident $i:ident $o:ident;)*) => {
        const UN_NAMES: &[&str] = &[$(stringify!($n)),*];
        fn un_run(name: &str, a: &DynTensor) -> weft::Result<DynTensor> {
            match name { $(stringify!($n) => a.$t(),)* _ => unreachable!() }
        }
        fn un_inplace(name: &str, a: &mut DynTensor) -> weft::Result<()> {
            match name { $(stringify!($n) => a.$i(),)* _ => unreachable!() }
        }
        fn un_out(name: &str, a: &DynTensor, o: &DynTensor) -> weft::Result<()> {
            match name { $(stringify!($n) => a.$o(o),)* _ => unreachable!() }
        }
    };
}

/// Every unary op of weft's table (but those with their own methods, as `gelu`).
macro_rules! table_unops {
    (() $($Op:ident $name:ident: $d:ident -> $r:ident, $c:ident [$($f:ident)*];)*) => {
        table_unops!(@acc [] $($name [$($f)*];)*);
    };
    (@acc [$($done:tt)*]) => {
        paste::paste! { unops! { $($done)* } }
    };
    (@acc [$($done:tt)*] $name:ident [OwnMethods $($f:ident)*]; $($rest:tt)*) => {
        table_unops!(@acc [$($done)*] $($rest)*);
    };
    (@acc [$($done:tt)*] $name:ident [$($f:ident)*]; $($rest:tt)*) => {
        table_unops!(@acc [$($done)* $name [<try_ $name>] [<try_ $name _>] [<try_ $name _out>];] $($rest)*);
    };
}
weft::unary_op_table!(table_unops);

/// A flat storage tensor of `dtype` and `len` hostile values.
fn flat_base(r: &mut Rng, dtype: DType, len: usize) -> DynTensor {
    weft::with_dtype!(dtype, T => {
        let data = h_data::<T>(r, len);
        DynTensor::from(Tensor::<T>::from_vec(data, &[len]).unwrap())
    })
}

fn view_on(r: &mut Rng, base: &DynTensor, shape: &[usize]) -> Option<DynTensor> {
    let layout = fitting_layout(r, shape, base.numel())?;
    weft::dispatch!(base, t => t.with_layout(layout).ok().map(DynTensor::from))
}

/// A broadcastable variant of `shape` (some dims 1, some leading dims dropped).
fn bcast_variant(r: &mut Rng, shape: &[usize]) -> Vec<usize> {
    let mut s: Vec<usize> = shape
        .iter()
        .map(|&n| if r.chance(1, 4) { 1 } else { n })
        .collect();
    while !s.is_empty() && r.chance(1, 4) {
        s.remove(0);
    }
    s
}

/// The pool of storages a case's operands and destinations are views of.
struct Pool {
    bases: Vec<DynTensor>,
}

impl Pool {
    fn new(r: &mut Rng) -> Pool {
        let d0 = any_dtype(r);
        let n = r.range(1, 3) as usize;
        let bases = (0..n)
            .map(|_| {
                let d = if r.chance(2, 3) { d0 } else { any_dtype(r) };
                let len = r.range(1, 48) as usize;
                flat_base(r, d, len)
            })
            .collect();
        Pool { bases }
    }
    fn view(&self, r: &mut Rng, shape: &[usize]) -> Option<DynTensor> {
        let b = &self.bases[r.below(self.bases.len() as u64) as usize];
        view_on(r, b, shape)
    }
    fn snapshot(&self) -> Vec<Vec<u8>> {
        self.bases.iter().map(dstorage_bytes).collect()
    }
}

/// A destination for a result of `shape`: fresh, a view of a pool storage (possibly the same
/// as an input, overlapping it), an input itself, an expanded view, or a wrong shape.
fn pick_out(
    r: &mut Rng,
    pool: &Pool,
    shape: &[usize],
    inputs: &[&DynTensor],
    rdt: DType,
) -> Option<DynTensor> {
    let dtype = if r.chance(1, 2) { rdt } else { any_dtype(r) };
    match r.below(10) {
        0 | 1 => DynTensor::zeros(dtype, shape).ok(),
        2 | 3 => {
            let c: Vec<&&DynTensor> = inputs.iter().filter(|t| t.shape() == shape).collect();
            if c.is_empty() {
                pool.view(r, shape)
            } else {
                Some(c[r.below(c.len() as u64) as usize].share())
            }
        }
        4 => {
            // An expanded destination (stride 0 on a dim of size > 1), if there is one.
            let mut s: Vec<usize> = shape.to_vec();
            let big: Vec<usize> = (0..s.len()).filter(|&i| s[i] > 1).collect();
            if big.is_empty() {
                return pool.view(r, shape);
            }
            let i = big[r.below(big.len() as u64) as usize];
            s[i] = 1;
            let v = pool.view(r, &s)?;
            let target: Vec<isize> = shape.iter().map(|&n| n as isize).collect();
            v.try_expand(&target).ok()
        }
        5 => {
            let s = small_shape(r, 3);
            pool.view(r, &s)
        }
        _ => pool.view(r, shape),
    }
}

/// Runs a destination-writing call and checks it: `Ok` must write `expected` (cast to the
/// destination's dtype) into exactly the destination view; `Err` must write nothing.
#[allow(clippy::too_many_arguments)]
fn check_write(
    cx: &mut Ctx,
    name: &str,
    what: &dyn Fn() -> String,
    pool: &Pool,
    dst: &DynTensor,
    expected: &Option<weft::Result<DynTensor>>,
    f: impl FnOnce() -> weft::Result<()>,
) {
    // The expected values, converted and deep-copied before the write (a result may share
    // storage with the destination: `try_to` to the same dtype, a contiguous view).
    let dd = dst.dtype();
    let expected: Option<weft::Result<Snapshot>> = match expected {
        Some(Ok(exp)) => {
            let w = || format!("expected.try_to({dd:?})");
            match call(cx, "try_to", &w, || exp.try_to(dd)) {
                Some(Ok(conv)) => Some(Ok((exp.dtype(), conv.shape().to_vec(), values(&conv)))),
                _ => None,
            }
        }
        Some(Err(e)) => Some(Err(e.clone())),
        None => None,
    };
    let before = pool.snapshot();
    let dst_before = dstorage_bytes(dst);
    let Some(res) = call(cx, name, what, f) else {
        return;
    };
    let after = pool.snapshot();
    let dst_after = dstorage_bytes(dst);
    let dptr = dst.storage_ptr();
    match res {
        Err(e) => {
            if before != after || dst_before != dst_after {
                cx.find(
                    &format!("err-but-written {name}"),
                    format!("{} returned Err({e:?}) but changed storage", what()),
                );
            }
        }
        Ok(()) => {
            // Untouched: pool storages other than the destination's; the destination's storage
            // outside the destination view.
            let fp = footprint(dst.shape(), dst.strides(), dst.offset());
            let esize = dst.dtype().size();
            for (k, b) in pool.bases.iter().enumerate() {
                if b.storage_ptr() != dptr && before[k] != after[k] {
                    cx.find(
                        &format!("wrote-outside-destination {name}"),
                        format!(
                            "{} changed an input storage that is not the destination's",
                            what()
                        ),
                    );
                }
            }
            let mut inside = vec![false; dst_before.len() / esize.max(1)];
            for &i in &fp {
                if i >= 0 && (i as usize) < inside.len() {
                    inside[i as usize] = true;
                }
            }
            for (i, ins) in inside.iter().enumerate() {
                if !ins
                    && dst_before[i * esize..(i + 1) * esize]
                        != dst_after[i * esize..(i + 1) * esize]
                {
                    cx.find(
                        &format!("wrote-outside-destination {name}"),
                        format!(
                            "{} changed storage element {i} outside the destination view",
                            what()
                        ),
                    );
                    break;
                }
            }
            match expected {
                Some(Ok((exp_dtype, conv_shape, want))) => {
                    if conv_shape != dst.shape() {
                        cx.find(&format!("out-shape-mismatch {name}"), format!("{} returned Ok into shape {:?} but the out-of-place result has shape {:?}", what(), dst.shape(), conv_shape));
                        return;
                    }
                    let got = values(dst);
                    if let Some(i) = (0..got.len()).find(|&i| !same_value(got[i], want[i])) {
                        cx.find(
                            &format!("out-mismatch {name}"),
                            format!(
                                "{}: element {i} is {} but the out-of-place result (cast to {dd:?}) is {}; got {} want {} (out-of-place result dtype {:?})",
                                what(),
                                fmt_vals(&got[i..=i]),
                                fmt_vals(&want[i..=i]),
                                fmt_vals(&got),
                                fmt_vals(&want),
                                exp_dtype
                            ),
                        );
                    }
                }
                Some(Err(e)) => {
                    cx.find(
                        &format!("out-ok-but-plain-err {name}"),
                        format!(
                            "{} returned Ok but the out-of-place form returned Err({e:?})",
                            what()
                        ),
                    );
                }
                None => {}
            }
        }
    }
}

/// The out-of-place call, checked: panic-free, result in its storage, inputs untouched.
fn plain(
    cx: &mut Ctx,
    name: &str,
    what: &dyn Fn() -> String,
    pool: &Pool,
    f: impl FnOnce() -> weft::Result<DynTensor>,
) -> Option<weft::Result<DynTensor>> {
    let before = pool.snapshot();
    let res = call(cx, name, what, f)?;
    if pool.snapshot() != before {
        cx.find(
            &format!("out-of-place-wrote-input {name}"),
            format!("{} changed an input storage", what()),
        );
    }
    if let Ok(t) = &res {
        check_dyn(cx, what, t);
    }
    Some(res)
}

fn scalar_or_tensor<'a>(r: &mut Rng, t: &'a Option<DynTensor>) -> (Operand<'a>, String) {
    match t {
        Some(t) if r.chance(2, 3) => (Operand::Tensor(t), ddesc(t)),
        _ => {
            let s = h_scalar(r);
            (Operand::Scalar(s), format!("Scalar::{s:?}"))
        }
    }
}

fn fuzz_ops(cx: &mut Ctx, r: &mut Rng) {
    let pool = Pool::new(r);
    let shape = small_shape(r, 3);
    let ashape = bcast_variant(r, &shape);
    let Some(a) = pool.view(r, &ashape).or_else(|| pool.view(r, &[])) else {
        return;
    };
    let bshape = bcast_variant(r, &shape);
    let bt = pool.view(r, &bshape);
    let ad = ddesc(&a);
    match r.below(4) {
        0 | 1 => {
            let name = r.pick(BIN_NAMES);
            let (b, bd) = scalar_or_tensor(r, &bt);
            let (ad2, bd2) = (ad.clone(), bd.clone());
            let w0 = move || format!("a.try_{name}(b) with a = {ad2}, b = {bd2}");
            let expected = plain(cx, name, &w0, &pool, || bin_run(name, &a, b));
            if r.chance(1, 6) {
                // Scalar on the left, free function.
                let s = h_scalar(r);
                let w = || format!("dyn_api::{name}(Scalar::{s:?}, {bd})");
                let _ = plain(cx, name, &w, &pool, || {
                    bin_free(name, Operand::Scalar(s), b)
                });
            }
            let rshape = match &expected {
                Some(Ok(e)) => e.shape().to_vec(),
                _ => shape.clone(),
            };
            let rdt = match &expected {
                Some(Ok(e)) => e.dtype(),
                _ => a.dtype(),
            };
            let ins: Vec<&DynTensor> = match b {
                Operand::Tensor(t) => vec![&a, t],
                _ => vec![&a],
            };
            if let Some(out) = pick_out(r, &pool, &rshape, &ins, rdt) {
                let od = ddesc(&out);
                let w = || format!("a.try_{name}_out(b, &out) with a = {ad}, b = {bd}, out = {od}");
                check_write(
                    cx,
                    &format!("{name}_out"),
                    &w,
                    &pool,
                    &out,
                    &expected,
                    || bin_out(name, &a, b, &out),
                );
            }
            // The `_out` call may have written the inputs' storage: recompute.
            let expected = plain(cx, name, &w0, &pool, || bin_run(name, &a, b));
            let mut s = a.share();
            let w = || format!("a.try_{name}_(b) with a = {ad}, b = {bd}");
            check_write(cx, &format!("{name}_"), &w, &pool, &a, &expected, || {
                bin_inplace(name, &mut s, b)
            });
        }
        2 => {
            let name = r.pick(UN_NAMES);
            let ad2 = ad.clone();
            let w0 = move || format!("a.try_{name}() with a = {ad2}");
            let expected = plain(cx, name, &w0, &pool, || un_run(name, &a));
            let rdt = match &expected {
                Some(Ok(e)) => e.dtype(),
                _ => a.dtype(),
            };
            if let Some(out) = pick_out(r, &pool, a.shape(), &[&a], rdt) {
                let od = ddesc(&out);
                let w = || format!("a.try_{name}_out(&out) with a = {ad}, out = {od}");
                check_write(
                    cx,
                    &format!("{name}_out"),
                    &w,
                    &pool,
                    &out,
                    &expected,
                    || un_out(name, &a, &out),
                );
            }
            let expected = plain(cx, name, &w0, &pool, || un_run(name, &a));
            let mut s = a.share();
            let w = || format!("a.try_{name}_() with a = {ad}");
            check_write(cx, &format!("{name}_"), &w, &pool, &a, &expected, || {
                un_inplace(name, &mut s)
            });
        }
        _ => fuzz_special(cx, r, &pool, &a, &bt, &shape),
    }
}

fn fuzz_special(
    cx: &mut Ctx,
    r: &mut Rng,
    pool: &Pool,
    a: &DynTensor,
    bt: &Option<DynTensor>,
    shape: &[usize],
) {
    let ad = ddesc(a);
    match r.below(9) {
        0 => {
            let (lo, ld) = scalar_or_tensor(r, bt);
            let (hi, hd) = scalar_or_tensor(r, bt);
            let lo = if r.chance(1, 4) { None } else { Some(lo) };
            let hi = if r.chance(1, 4) { None } else { Some(hi) };
            let w = || {
                format!(
                    "a.try_clamp({}, {}) with a = {ad}",
                    if lo.is_some() { &ld } else { "None" },
                    if hi.is_some() { &hd } else { "None" }
                )
            };
            let expected = plain(cx, "clamp", &w, pool, || a.try_clamp(lo, hi));
            let rdt = match &expected {
                Some(Ok(e)) => e.dtype(),
                _ => a.dtype(),
            };
            if let Some(out) = pick_out(r, pool, a.shape(), &[a], rdt) {
                let od = ddesc(&out);
                let w2 = || format!("{} into try_clamp_out(.., &out = {od})", w());
                check_write(cx, "clamp_out", &w2, pool, &out, &expected, || {
                    a.try_clamp_out(lo, hi, &out)
                });
            }
            let expected = plain(cx, "clamp", &w, pool, || a.try_clamp(lo, hi));
            let mut s = a.share();
            let w2 = || format!("{} in place (try_clamp_)", w());
            check_write(cx, "clamp_", &w2, pool, a, &expected, || {
                s.try_clamp_(lo, hi)
            });
        }
        1 => {
            let slope = h_scalar(r).to_f64();
            let w = || format!("a.try_leaky_relu({slope:?}) with a = {ad}");
            let expected = plain(cx, "leaky_relu", &w, pool, || a.try_leaky_relu(slope));
            let mut s = a.share();
            check_write(cx, "leaky_relu_", &w, pool, a, &expected, || {
                s.try_leaky_relu_(slope)
            });
        }
        2 => {
            let (lo, hi) = (h_scalar(r), h_scalar(r));
            let w = || format!("a.try_hardtanh({lo:?}, {hi:?}) with a = {ad}");
            let expected = plain(cx, "hardtanh", &w, pool, || a.try_hardtanh(lo, hi));
            let mut s = a.share();
            check_write(cx, "hardtanh_", &w, pool, a, &expected, || {
                s.try_hardtanh_(lo, hi)
            });
        }
        3 => {
            let ap = if r.chance(1, 2) {
                weft::functors::GeluApproximate::None
            } else {
                weft::functors::GeluApproximate::Tanh
            };
            let w = || format!("a.try_gelu({ap:?}) with a = {ad}");
            let expected = plain(cx, "gelu", &w, pool, || a.try_gelu(ap));
            let mut s = a.share();
            check_write(cx, "gelu_", &w, pool, a, &expected, || s.try_gelu_(ap));
        }
        4 => {
            // where(cond, x, y): cond a bool/u8 view.
            let cd = if r.chance(3, 4) {
                DType::Bool
            } else {
                any_dtype(r)
            };
            let n = r.range(1, 24) as usize;
            let cb = flat_base(r, cd, n);
            let cs = bcast_variant(r, shape);
            let Some(cond) = view_on(r, &cb, &cs) else {
                return;
            };
            let (x, xd) = scalar_or_tensor(r, bt);
            let cdd = ddesc(&cond);
            let w = || format!("cond.try_where(a, {xd}) with cond = {cdd}, a = {ad}");
            let _ = plain(cx, "where", &w, pool, || cond.try_where(a, x));
            let w = || format!("dyn_api::where_(cond, {xd}, a) with cond = {cdd}, a = {ad}");
            let _ = plain(cx, "where_", &w, pool, || {
                weft::ops::dyn_api::where_(&cond, x, a)
            });
        }
        5 => {
            let md = if r.chance(3, 4) {
                DType::Bool
            } else {
                any_dtype(r)
            };
            let n = r.range(1, 24) as usize;
            let mb = flat_base(r, md, n);
            let ms = bcast_variant(r, a.shape());
            let Some(mask) = view_on(r, &mb, &ms) else {
                return;
            };
            let (v, vd) = scalar_or_tensor(r, bt);
            let mdd = ddesc(&mask);
            let w = || format!("a.try_masked_fill(mask, {vd}) with a = {ad}, mask = {mdd}");
            let expected = plain(cx, "masked_fill", &w, pool, || a.try_masked_fill(&mask, v));
            let mut s = a.share();
            let w2 = || format!("{} in place (try_masked_fill_)", w());
            check_write(cx, "masked_fill_", &w2, pool, a, &expected, || {
                s.try_masked_fill_(&mask, v)
            });
        }
        6 => {
            let Some(end) = bt else { return };
            let (wt, wd) = scalar_or_tensor(r, bt);
            let ed = ddesc(end);
            let w = || format!("a.try_lerp(end, {wd}) with a = {ad}, end = {ed}");
            let expected = plain(cx, "lerp", &w, pool, || a.try_lerp(end, wt));
            let mut s = a.share();
            let w2 = || format!("{} in place (try_lerp_)", w());
            check_write(cx, "lerp_", &w2, pool, a, &expected, || {
                s.try_lerp_(end, wt)
            });
            let v = h_scalar(r);
            let w = || format!("a.try_addcmul(end, end, {v:?}) with a = {ad}, end = {ed}");
            let expected = plain(cx, "addcmul", &w, pool, || a.try_addcmul(end, end, v));
            let mut s = a.share();
            let w2 = || format!("{} in place (try_addcmul_)", w());
            check_write(cx, "addcmul_", &w2, pool, a, &expected, || {
                s.try_addcmul_(end, end, v)
            });
        }
        7 => {
            let d = any_dtype(r);
            let w = || format!("a.try_to({d:?}) with a = {ad}");
            let _ = plain(cx, "try_to", &w, pool, || a.try_to(d));
        }
        _ => {
            // dst.copy_(src): src broadcasts to dst, converts to its dtype.
            let Some(src) = bt.as_ref().or(Some(a)) else {
                return;
            };
            let Some(dst) = pick_out(r, pool, a.shape(), &[a, src], src.dtype()) else {
                return;
            };
            let (sd, dd) = (ddesc(src), ddesc(&dst));
            let target = dst.shape().to_vec();
            let w = || format!("expected = src.try_broadcast_to(&{target:?}) with src = {sd}");
            let expected = call(cx, "try_broadcast_to", &w, || src.try_broadcast_to(&target))
                .map(|r| r.and_then(|b| b.try_clone()));
            let mut d2 = dst.share();
            let w = || format!("dst.try_copy_(src) with dst = {dd}, src = {sd}");
            check_write(cx, "copy_", &w, pool, &dst, &expected, || d2.try_copy_(src));
        }
    }
}

// --------------------------------------------------------------- scenario: layout algebra

fn hostile_layout(r: &mut Rng) -> Layout {
    let nd = r.below(5) as usize;
    let mut shape = Vec::with_capacity(nd);
    let mut strides = Vec::with_capacity(nd);
    for _ in 0..nd {
        shape.push(if r.chance(1, 2) {
            r.range(1, 4) as usize
        } else {
            h_usize(r)
        });
        strides.push(if r.chance(1, 2) {
            r.range(-2, 8) as isize
        } else {
            h_isize(r)
        });
    }
    let offset = if r.chance(1, 2) { 0 } else { h_usize(r) };
    // `Layout::new` validates (element count and reach fit isize): hostile parts it refuses
    // are retried smaller, so the algebra still sees layouts at the edge of what is valid.
    match Layout::new(shape.clone(), strides.clone(), offset) {
        Ok(l) => l,
        Err(_) => {
            let shape: Vec<usize> = shape.iter().map(|&n| n.min(1 << 20)).collect();
            let strides: Vec<isize> = strides
                .iter()
                .map(|&s| s.clamp(-(1 << 20), 1 << 20))
                .collect();
            Layout::new(shape.clone(), strides.clone(), offset.min(1 << 40))
                .or_else(|_| Layout::new(shape, strides, 0))
                .unwrap_or_else(|_| Layout::contiguous(&[]))
        }
    }
}

/// Every layout-algebra function on hostile layouts: none may panic. Kept in one function so
/// it is easy to adapt when these return `Result`.
fn fuzz_algebra(cx: &mut Ctx, r: &mut Rng) {
    let a = hostile_layout(r);
    let b = hostile_layout(r);
    let (a_, b_) = (a.clone(), b.clone());
    let ab = move || format!("a = {a_:?}, b = {b_:?}");
    let n = h_usize(r);
    let tile: Vec<usize> = (0..r.below(4)).map(|_| h_usize(r)).collect();
    let coord: Vec<usize> = (0..a.ndim() + r.chance(1, 8) as usize)
        .map(|_| h_usize(r))
        .collect();
    let pcoord: Vec<Option<usize>> = coord
        .iter()
        .map(|&c| if r.chance(1, 2) { None } else { Some(c) })
        .collect();
    let groups: Vec<usize> = (0..r.below(4)).map(|_| r.below(3) as usize).collect();
    let g = h_usize(r);

    macro_rules! plainf {
        ($name:literal, $e:expr) => {
            let _ = call_plain(cx, $name, &|| format!("{}({})", $name, ab()), || $e);
        };
    }
    macro_rules! resf {
        ($name:literal, $e:expr) => {
            let _ = call(cx, $name, &|| format!("{}({})", $name, ab()), || $e);
        };
    }
    plainf!("algebra::coalesce(&a)", algebra::coalesce(&a));
    plainf!(
        "algebra::coalesce_row_major(&a)",
        algebra::coalesce_row_major(&a)
    );
    plainf!("algebra::concat(&a, &b)", algebra::concat(&a, &b));
    plainf!("Layout::size(&a)", a.size());
    plainf!("Layout::cosize(&a)", a.cosize());
    plainf!("Layout::numel(&a)", a.numel());
    plainf!("Layout::is_contiguous(&a)", a.is_contiguous());
    plainf!("Layout::extent(&a)", a.extent());
    plainf!("Layout::check_fits(&a, n)", {
        let _ = a.check_fits(n, 4);
    });
    plainf!("Layout::eval_colex_ext(&a, n)", a.eval_colex_ext(n));
    plainf!("algebra::right_inverse(&a)", algebra::right_inverse(&a));
    plainf!("Layout::with_offset(&a, n)", a.with_offset(n));
    resf!("algebra::composition(&a, &b)", algebra::composition(&a, &b));
    resf!("algebra::complement(&a, n)", algebra::complement(&a, n));
    resf!(
        "algebra::logical_divide(&a, &b)",
        algebra::logical_divide(&a, &b)
    );
    resf!(
        "algebra::logical_product(&a, &b)",
        algebra::logical_product(&a, &b)
    );
    resf!("algebra::left_inverse(&a)", algebra::left_inverse(&a));
    resf!("algebra::tile(&a, &tile)", algebra::tile(&a, &tile));
    resf!(
        "algebra::zipped_divide(&flat(a), &[b])",
        algebra::zipped_divide(&GroupedLayout::flat(a.clone()), std::slice::from_ref(&b))
    );
    resf!(
        "algebra::composition_by_mode(&flat(a), &[b])",
        algebra::composition_by_mode(&GroupedLayout::flat(a.clone()), std::slice::from_ref(&b))
    );
    resf!("Layout::eval(&a, &coord)", a.eval(&coord));
    resf!("Layout::eval_colex(&a, n)", a.eval_colex(n));
    resf!("Layout::eval_row_major(&a, n)", a.eval_row_major(n));
    resf!("Layout::slice_at(&a, &pcoord)", a.slice_at(&pcoord));
    resf!(
        "Layout::from_shape_strides",
        Layout::from_shape_strides(a.shape(), b.strides())
    );
    resf!(
        "GroupedLayout::new(a, groups).mode(g)",
        GroupedLayout::new(a.clone(), groups.clone()).and_then(|gl| gl.mode(g))
    );
}

// ----------------------------------------------------------------------------- one case

fn run_case(cx: &mut Ctx, seed: u64) {
    let mut r = Rng(seed ^ cx.case);
    let which = r.below(10);
    let d = any_dtype(&mut r);
    match which {
        0..=2 => weft::with_dtype!(d, T => fuzz_views::<T>(cx, &mut r)),
        3 => weft::with_dtype!(d, T => fuzz_constructors::<T>(cx, &mut r)),
        4..=8 => fuzz_ops(cx, &mut r),
        _ => fuzz_algebra(cx, &mut r),
    }
}

/// The subprocess side: runs the cases of `WEFT_FUZZ_CHUNK=start:count`, printing `case N`
/// before each and one `FINDING` line per finding. Returns at once without that variable.
#[test]
fn fuzz_chunk_worker() {
    let Ok(chunk) = std::env::var("WEFT_FUZZ_CHUNK") else {
        return;
    };
    let (start, count) = chunk.split_once(':').expect("start:count");
    let (start, count): (u64, u64) = (start.parse().unwrap(), count.parse().unwrap());
    let seed = seed();
    let verbose = std::env::var("WEFT_FUZZ_VERBOSE").is_ok();
    install_quiet_panic_hook();
    let stdout = std::io::stdout();
    for case in start..start + count {
        {
            let mut o = stdout.lock();
            writeln!(o, "case {case}").unwrap();
            o.flush().unwrap();
        }
        // Self-test of the crash handling: `WEFT_FUZZ_SELFTEST_ABORT=N` aborts at case N.
        if std::env::var("WEFT_FUZZ_SELFTEST_ABORT")
            .ok()
            .and_then(|s| s.parse().ok())
            == Some(case)
        {
            std::process::abort();
        }
        let mut cx = Ctx {
            case,
            findings: Vec::new(),
            verbose,
        };
        if catch_unwind(AssertUnwindSafe(|| run_case(&mut cx, seed))).is_err() {
            // A panic in the fuzzer's own code (or in a call it does not wrap) ends the worker.
            eprintln!("uncaught panic in case {case}: {}", last_panic());
            std::process::exit(3);
        }
        let mut o = stdout.lock();
        for (kind, detail) in &cx.findings {
            writeln!(
                o,
                "FINDING\t{case}\t{kind}\t{}",
                detail.replace(['\n', '\t'], " ")
            )
            .unwrap();
        }
        o.flush().unwrap();
    }
    println!("CHUNK DONE");
    let _ = std::panic::take_hook();
}

fn seed() -> u64 {
    std::env::var("WEFT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

// --------------------------------------------------------------------------- the parent

struct ChildRun {
    success: bool,
    status: String,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run_child(start: u64, count: u64, timeout: Duration) -> ChildRun {
    let exe = std::env::current_exe().unwrap();
    let dir = std::env::temp_dir();
    let tag = format!("weft_fuzz_{}_{start}_{count}", std::process::id());
    let (po, pe) = (
        dir.join(format!("{tag}.out")),
        dir.join(format!("{tag}.err")),
    );
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "fuzz_chunk_worker",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("WEFT_FUZZ_CHUNK", format!("{start}:{count}"))
        .env("WEFT_FUZZ_SEED", seed().to_string())
        .stdout(std::fs::File::create(&po).unwrap())
        .stderr(std::fs::File::create(&pe).unwrap())
        .spawn()
        .expect("re-executing the test binary");
    let t0 = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            timed_out = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = std::fs::read_to_string(&po).unwrap_or_default();
    let stderr = std::fs::read_to_string(&pe).unwrap_or_default();
    let _ = std::fs::remove_file(&po);
    let _ = std::fs::remove_file(&pe);
    ChildRun {
        success: status.success() && stdout.contains("CHUNK DONE"),
        status: format!("{status:?}"),
        stdout,
        stderr,
        timed_out,
    }
}

#[derive(Default)]
struct Report {
    findings: Vec<(u64, String, String)>,
    crashes: Vec<String>,
}

fn run_range(start: u64, count: u64, report: &mut Report) {
    let end = start + count;
    let mut s = start;
    let mut restarts = 0;
    while s < end {
        let run = run_child(s, end - s, Duration::from_secs(600));
        let mut last = None;
        for line in run.stdout.lines() {
            if let Some(n) = line.strip_prefix("case ") {
                last = n.trim().parse::<u64>().ok();
            } else if let Some(f) = line.strip_prefix("FINDING\t") {
                let mut it = f.splitn(3, '\t');
                let case = it.next().unwrap_or("0").parse().unwrap_or(0);
                let kind = it.next().unwrap_or("").to_string();
                let detail = it.next().unwrap_or("").to_string();
                report.findings.push((case, kind, detail));
            }
        }
        if run.success {
            return;
        }
        let Some(bad) = last else {
            report.crashes.push(format!(
                "chunk {s}..{end}: the worker failed before its first case ({}): {}",
                run.status,
                tail(&run.stderr)
            ));
            return;
        };
        // Confirm: the case that was running when the child died, alone.
        let alone = if run.timed_out {
            None
        } else {
            Some(run_child(bad, 1, Duration::from_secs(120)))
        };
        let confirmed = alone.as_ref().map(|a| !a.success);
        report.crashes.push(format!(
            "chunk {s}..{end}: child {} during case {bad} (replay alone: {}; WEFT_FUZZ_CASE={bad}); stderr tail: {}",
            if run.timed_out { "timed out".to_string() } else { format!("died ({})", run.status) },
            match confirmed {
                Some(true) => format!("crashes again, {}", alone.as_ref().unwrap().status),
                Some(false) => "passes alone, depends on earlier cases".into(),
                None => "not retried".into(),
            },
            tail(&run.stderr)
        ));
        restarts += 1;
        if restarts > 50 {
            report.crashes.push(format!(
                "chunk {start}..{end}: too many crashes, gave up at {bad}"
            ));
            return;
        }
        s = bad + 1;
    }
}

fn tail(s: &str) -> String {
    let t: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    t[t.len().saturating_sub(4)..].join(" | ")
}

#[test]
fn fuzz_public_api() {
    let t0 = Instant::now();
    let cases: u64 = std::env::var("WEFT_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let chunks: Vec<(u64, u64)> = match std::env::var("WEFT_FUZZ_CASE")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(n) => vec![(n, 1)],
        None => (0..cases.div_ceil(CHUNK))
            .map(|c| (c * CHUNK, CHUNK.min(cases - c * CHUNK)))
            .collect(),
    };
    let ncases: u64 = chunks.iter().map(|c| c.1).sum();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    let queue = std::sync::Mutex::new(chunks.into_iter());
    let report = std::sync::Mutex::new(Report::default());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let next = queue.lock().unwrap().next();
                    let Some((start, count)) = next else { break };
                    let mut local = Report::default();
                    run_range(start, count, &mut local);
                    let mut r = report.lock().unwrap();
                    r.findings.extend(local.findings);
                    r.crashes.extend(local.crashes);
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap();
    report.findings.sort_by_key(|f| f.0);

    // Group the findings by kind, a few examples each.
    let mut kinds: Vec<(String, Vec<(u64, String)>)> = Vec::new();
    for (case, kind, detail) in &report.findings {
        match kinds.iter_mut().find(|k| &k.0 == kind) {
            Some(k) => k.1.push((*case, detail.clone())),
            None => kinds.push((kind.clone(), vec![(*case, detail.clone())])),
        }
    }
    let mut msg = format!(
        "weft fuzz: {ncases} cases (seed {:#x}) in {:.1}s: {} findings of {} kinds, {} crashes\n",
        seed(),
        t0.elapsed().as_secs_f64(),
        report.findings.len(),
        kinds.len(),
        report.crashes.len()
    );
    for c in &report.crashes {
        let _ = writeln!(msg, "CRASH {c}");
    }
    for (kind, list) in &kinds {
        let _ = writeln!(
            msg,
            "== {kind}: {} cases (first: WEFT_FUZZ_CASE={})",
            list.len(),
            list[0].0
        );
        for (case, d) in list.iter().take(3) {
            let _ = writeln!(msg, "   case {case}: {d}");
        }
    }
    if let Ok(path) = std::env::var("WEFT_FUZZ_REPORT") {
        let mut all = String::new();
        for (case, kind, d) in &report.findings {
            let _ = writeln!(all, "{case}\t{kind}\t{d}");
        }
        std::fs::write(path, all).expect("writing WEFT_FUZZ_REPORT");
    }
    println!("{msg}");
    assert!(
        report.findings.is_empty() && report.crashes.is_empty(),
        "{} findings, {} crashes (listed above)",
        report.findings.len(),
        report.crashes.len()
    );
}
