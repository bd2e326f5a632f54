//! In-run benchmark report: every workload of the performance issue, timed through weft's
//! public `DynTensor` API, next to its **in-run limit** (the same arithmetic done by a plain
//! Rust loop over contiguous slices in this process) and a STREAM-style copy.
//!
//! ```text
//! cargo run --release --example bench_report -- [--threads N] [--json] [--reps R] [--only NAME]
//! ```
//!
//! * Every workload runs inside a rayon `ThreadPool` of N threads (default 1); the limit loops
//!   run in the same pool (a plain loop at 1 thread, `par_chunks` of 64K elements otherwise).
//! * Each is run once as a warm-up, then R times (default 7); min and median are printed.
//!   Limit and workload are timed interleaved (one rep each, alternating) so that a neighbour's
//!   load hits both alike.
//! * GB/s counts bytes read + written once (no write-allocate).
//! * `limit_ratio` = median / median of the workload's own plain loop; `copy_ratio` = median /
//!   (copy time per byte x the workload's bytes).
//! * `peak_rss_bytes`: before a workload, the peak RSS is reset (`5 > /proc/self/clear_refs`);
//!   the workload then runs once with an output the op allocates (the `fresh` form), and
//!   `VmHWM - VmRSS(before)` is the extra peak memory it needed (its output included). Outputs
//!   are dropped before the next workload. Linux only; `null` elsewhere.

use half::{bf16, f16};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::{Duration, Instant};
use weft::functors::GeluApproximate;
use weft::ops::special;
use weft::{DType, DynTensor};

const N: usize = 1 << 24;
const SIDE: usize = 4096;

struct Opts {
    threads: usize,
    json: bool,
    reps: usize,
    only: Option<String>,
}

fn parse() -> Opts {
    let mut o = Opts {
        threads: 1,
        json: false,
        reps: 7,
        only: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => o.threads = args.next().and_then(|v| v.parse().ok()).unwrap_or(1),
            "--reps" => o.reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(7),
            "--only" => o.only = args.next(),
            "--json" => o.json = true,
            other => eprintln!("ignoring argument {other}"),
        }
    }
    o
}

fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = lcg(seed);
    (0..n)
        .map(|_| (r() >> 40) as f32 / (1u64 << 24) as f32 * 8.0 - 4.0)
        .collect()
}

fn to_dyn<T: weft::DynElement>(v: Vec<T>, shape: &[usize]) -> DynTensor {
    DynTensor::from_vec(v, shape).expect("shape")
}

fn slice<T: weft::DynElement>(t: &DynTensor) -> &[T] {
    let tt = t.as_typed::<T>().expect("dtype");
    assert!(tt.is_contiguous());
    // SAFETY: the tensor is contiguous with `numel` elements starting at its data pointer, and
    // nothing writes to it while the slice lives (the bench only reads inputs).
    unsafe { std::slice::from_raw_parts(t.data_ptr_bytes() as *const T, t.numel()) }
}

#[allow(clippy::mut_from_ref, dead_code)]
fn slice_mut<T: weft::DynElement>(t: &DynTensor) -> &mut [T] {
    assert!(t.is_contiguous() && t.dtype() == T::DTYPE);
    // SAFETY: as above; the bench holds no other reference to this output while it writes.
    unsafe { std::slice::from_raw_parts_mut(t.data_ptr_bytes() as *mut T, t.numel()) }
}

const CHUNK: usize = 1 << 16;

/// `out[i] = f(i)`-style loop over chunks: plain at 1 thread, rayon `par_chunks` otherwise.
fn par_for<O: Send + Sync>(threads: usize, out: &mut [O], body: impl Fn(usize, &mut [O]) + Sync) {
    if threads == 1 {
        body(0, out);
    } else {
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, o)| body(c * CHUNK, o));
    }
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    (v[0].as_nanos() as f64, v[v.len() / 2].as_nanos() as f64)
}

fn time_once(f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn vm_kb(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Extra peak memory of one run of `f` (see the module docs).
fn peak_delta(f: &mut dyn FnMut()) -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    let before = vm_kb("VmRSS:")?;
    f();
    let hwm = vm_kb("VmHWM:")?;
    Some(hwm.saturating_sub(before) * 1024)
}

struct Row {
    name: String,
    min_ns: f64,
    median_ns: f64,
    bytes: f64,
    limit_ns: f64,
    copy_ratio: f64,
    peak: Option<u64>,
    note: String,
}

struct Bench {
    o: Opts,
    copy_ns_per_byte: f64,
    rows: Vec<Row>,
}

impl Bench {
    fn wanted(&self, name: &str) -> bool {
        self.o
            .only
            .as_ref()
            .is_none_or(|w| name.contains(w.as_str()))
    }

    /// Times `op` and its plain-loop `limit`, interleaved; `fresh` (if given) runs once for the
    /// peak-memory measurement.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        name: &str,
        bytes: f64,
        op: &mut dyn FnMut(),
        limit: &mut dyn FnMut(),
        fresh: Option<&mut dyn FnMut()>,
        note: &str,
    ) {
        if !self.wanted(name) {
            return;
        }
        op();
        limit();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..self.o.reps {
            a.push(time_once(op));
            b.push(time_once(limit));
        }
        let (min_ns, median_ns) = stats(a);
        let (_, limit_ns) = stats(b);
        let peak = fresh.and_then(peak_delta);
        let copy_ratio = median_ns / (self.copy_ns_per_byte * bytes);
        self.rows.push(Row {
            name: name.into(),
            min_ns,
            median_ns,
            bytes,
            limit_ns,
            copy_ratio,
            peak,
            note: note.into(),
        });
    }

    /// Tiny workloads: ns per call over batches of calls; `limit` is a reference per call.
    fn run_tiny(&mut self, name: &str, op: &mut dyn FnMut(), limit: &mut dyn FnMut(), note: &str) {
        if !self.wanted(name) {
            return;
        }
        const CALLS: u32 = 20_000;
        let batch = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            for _ in 0..CALLS {
                f();
            }
            t.elapsed() / CALLS
        };
        batch(op);
        batch(limit);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..self.o.reps.max(9) {
            a.push(batch(op));
            b.push(batch(limit));
        }
        let (min_ns, median_ns) = stats(a);
        let (_, limit_ns) = stats(b);
        self.rows.push(Row {
            name: name.into(),
            min_ns,
            median_ns,
            bytes: 0.0,
            limit_ns,
            copy_ratio: f64::NAN,
            peak: None,
            note: note.into(),
        });
    }

    fn print(&self) {
        let t = self.o.threads;
        if self.o.json {
            for r in &self.rows {
                let peak = r.peak.map_or("null".to_string(), |p| p.to_string());
                let num = |x: f64| {
                    if x.is_finite() {
                        format!("{x:.4}")
                    } else {
                        "null".into()
                    }
                };
                println!(
                    "{{\"name\":\"{}\",\"threads\":{t},\"median_ns\":{:.0},\"min_ns\":{:.0},\"limit_ns\":{:.0},\"limit_ratio\":{},\"copy_ratio\":{},\"gb_s\":{},\"peak_rss_bytes\":{peak}}}",
                    r.name,
                    r.median_ns,
                    r.min_ns,
                    r.limit_ns,
                    num(r.median_ns / r.limit_ns),
                    num(r.copy_ratio),
                    num(r.bytes / r.min_ns),
                );
            }
            return;
        }
        println!(
            "threads = {t}, reps = {}, copy = {:.1} GB/s",
            self.o.reps,
            1.0 / self.copy_ns_per_byte
        );
        println!(
            "| workload | min | median | GB/s (min) | limit median | × limit | × copy | peak extra MB | note |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        for r in &self.rows {
            let fmt = |ns: f64| {
                if ns >= 1e6 {
                    format!("{:.2} ms", ns / 1e6)
                } else {
                    format!("{ns:.0} ns")
                }
            };
            let gbs = if r.bytes > 0.0 {
                format!("{:.1}", r.bytes / r.min_ns)
            } else {
                "–".into()
            };
            let copy = if r.copy_ratio.is_finite() {
                format!("{:.2}", r.copy_ratio)
            } else {
                "–".into()
            };
            let peak = r
                .peak
                .map_or("–".into(), |p| format!("{:.1}", p as f64 / 1e6));
            println!(
                "| {} | {} | {} | {} | {} | {:.2} | {} | {} | {} |",
                r.name,
                fmt(r.min_ns),
                fmt(r.median_ns),
                gbs,
                fmt(r.limit_ns),
                r.median_ns / r.limit_ns,
                copy,
                peak,
                r.note
            );
        }
    }
}

fn main() {
    let o = parse();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .build()
        .expect("thread pool");
    pool.install(|| run_all(o));
}

fn run_all(o: Opts) {
    let th = o.threads;
    let f4 = 4.0;
    // STREAM copy: 16M f32, read + write.
    let src = rand_f32(N, 1);
    let mut dst = vec![0f32; N];
    let mut copy = || par_for(th, &mut dst, |s, o| o.copy_from_slice(&src[s..s + o.len()]));
    copy();
    let mut ts = Vec::new();
    for _ in 0..o.reps {
        ts.push(time_once(&mut copy));
    }
    let (_, copy_med) = stats(ts);
    let copy_ns_per_byte = copy_med / (2.0 * f4 * N as f64);
    let mut b = Bench {
        o,
        copy_ns_per_byte,
        rows: Vec::new(),
    };
    b.rows.push(Row {
        name: "copy (STREAM)".into(),
        min_ns: copy_med,
        median_ns: copy_med,
        bytes: 2.0 * f4 * N as f64,
        limit_ns: copy_med,
        copy_ratio: 1.0,
        peak: None,
        note: "plain copy_from_slice".into(),
    });

    let a = to_dyn(rand_f32(N, 2), &[SIDE, SIDE]);
    let bb = to_dyn(rand_f32(N, 3), &[SIDE, SIDE]);
    let out = DynTensor::zeros(DType::F32, &[SIDE, SIDE]).unwrap();
    let (sa, sb) = (slice::<f32>(&a), slice::<f32>(&bb));
    let mut lim = vec![0f32; N];
    let mut lim_add = vec![0f32; N];
    let mut add_limit = || {
        par_for(th, &mut lim_add, |s, o| {
            for (i, x) in o.iter_mut().enumerate() {
                *x = sa[s + i] + sb[s + i];
            }
        })
    };
    let bytes3 = 3.0 * f4 * N as f64;

    b.run(
        "add",
        bytes3,
        &mut || a.add_out(&bb, &out),
        &mut add_limit,
        Some(&mut || drop(black_box(a.add(&bb)))),
        "a.add_out(&b, &out)",
    );
    {
        // Fresh output inside the timed region, dropped outside it.
        let mut keep: Option<DynTensor> = None;
        let mut op = || keep = Some(a.add(&bb));
        b.run(
            "add_fresh",
            bytes3,
            &mut || {
                op();
            },
            &mut add_limit,
            None,
            "a.add(&b); limit = add into a preallocated slice",
        );
        drop(keep);
    }

    // bcast_add [4096,4096] + [4096]
    {
        let row = to_dyn(rand_f32(SIDE, 4), &[SIDE]);
        let sr = slice::<f32>(&row);
        let bytes = 2.0 * f4 * N as f64;
        b.run(
            "bcast_add",
            bytes,
            &mut || a.add_out(&row, &out),
            &mut || {
                par_for(th, &mut lim, |s, o| {
                    for (i, x) in o.iter_mut().enumerate() {
                        *x = sa[s + i] + sr[(s + i) % SIDE];
                    }
                })
            },
            Some(&mut || drop(black_box(a.add(&row)))),
            "[4096,4096] + [4096]",
        );
    }

    // bcast_small_inner [5592405,3] + [3]
    {
        let rows = N / 3;
        let n = rows * 3;
        let x = to_dyn(rand_f32(n, 5), &[rows, 3]);
        let y = to_dyn(rand_f32(3, 6), &[3]);
        let o3 = DynTensor::zeros(DType::F32, &[rows, 3]).unwrap();
        let (sx, sy) = (slice::<f32>(&x), slice::<f32>(&y));
        let (y0, y1, y2) = (sy[0], sy[1], sy[2]);
        let mut l3 = vec![0f32; n];
        b.run(
            "bcast_small_inner",
            2.0 * f4 * n as f64,
            &mut || x.add_out(&y, &o3),
            &mut || {
                // The plain loop walks rows of 3 (chunks are multiples of 3).
                let body = |s: usize, o: &mut [f32]| {
                    for (r, (oc, xc)) in o
                        .chunks_exact_mut(3)
                        .zip(sx[s..].chunks_exact(3))
                        .enumerate()
                    {
                        let _ = r;
                        oc[0] = xc[0] + y0;
                        oc[1] = xc[1] + y1;
                        oc[2] = xc[2] + y2;
                    }
                };
                if th == 1 {
                    body(0, &mut l3);
                } else {
                    l3.par_chunks_mut(3 * CHUNK)
                        .enumerate()
                        .for_each(|(c, o)| body(c * 3 * CHUNK, o));
                }
            },
            Some(&mut || drop(black_box(x.add(&y)))),
            "[5592405,3] + [3]",
        );
    }

    // column broadcast: [4096, 4096] + [4096, 1] (stride 0 along the rows: a broadcast, not a
    // transpose).
    {
        let col = to_dyn(rand_f32(SIDE, 5), &[SIDE, 1]);
        b.run(
            "add_col_broadcast",
            2.0 * f4 * N as f64,
            &mut || a.add_out(&col, &out),
            &mut add_limit,
            Some(&mut || drop(black_box(a.add(&col)))),
            "[4096,4096] + [4096,1]; limit = contiguous add",
        );
    }

    // transposed_add: a.t() + b into a contiguous output.
    {
        let at = a.t();
        b.run(
            "transposed_add",
            bytes3,
            &mut || at.add_out(&bb, &out),
            &mut add_limit,
            Some(&mut || drop(black_box(at.add(&bb)))),
            "a.t() + b, [4096,4096]; limit = contiguous add",
        );
    }

    // Transposed sources into contiguous outputs: copy_, contiguous(), a unary op and a cast
    // (the 2-D tile path of every elementwise kernel); limit = a contiguous copy of the bytes.
    {
        let at = a.t();
        let mut copy_limit = || {
            par_for(th, &mut lim, |s, o| {
                o.copy_from_slice(&sa[s..s + o.len()]);
            })
        };
        let mut o = out.share();
        b.run(
            "transposed_copy",
            2.0 * f4 * N as f64,
            &mut || o.copy_(&at),
            &mut copy_limit,
            None,
            "out.copy_(&a.t()), [4096,4096]; limit = contiguous copy",
        );
        let mut keep = None;
        b.run(
            "transposed_contiguous",
            2.0 * f4 * N as f64,
            &mut || keep = Some(at.contiguous()),
            &mut copy_limit,
            None,
            "a.t().contiguous(); limit = contiguous copy into a preallocated slice",
        );
        drop(keep);
        b.run(
            "transposed_neg",
            2.0 * f4 * N as f64,
            &mut || at.neg_out(&out),
            &mut copy_limit,
            None,
            "a.t().neg_out(&out); limit = contiguous copy",
        );
        let mut o64 = DynTensor::zeros(DType::F64, &[SIDE, SIDE]).unwrap();
        b.run(
            "transposed_cast_f64",
            12.0 * N as f64,
            &mut || o64.copy_(&at),
            &mut copy_limit,
            None,
            "f64 out.copy_(&a.t()); limit = contiguous f32 copy (2/3 of the bytes)",
        );
    }

    b.run(
        "add_scalar",
        2.0 * f4 * N as f64,
        &mut || a.add_out(2.0, &out),
        &mut || {
            par_for(th, &mut lim, |s, o| {
                for (i, x) in o.iter_mut().enumerate() {
                    *x = sa[s + i] + 2.0;
                }
            })
        },
        Some(&mut || drop(black_box(a.add(2.0)))),
        "a + 2.0",
    );

    // mixed i64 + f32 -> f32
    {
        let mut r = lcg(7);
        let vi: Vec<i64> = (0..N).map(|_| (r() % 2001) as i64 - 1000).collect();
        let ai = to_dyn(vi, &[SIDE, SIDE]);
        let si = slice::<i64>(&ai);
        b.run(
            "mixed_i64_f32",
            (8.0 + 4.0 + 4.0) * N as f64,
            &mut || ai.add_out(&bb, &out),
            &mut || {
                par_for(th, &mut lim, |s, o| {
                    for (i, x) in o.iter_mut().enumerate() {
                        *x = si[s + i] as f32 + sb[s + i];
                    }
                })
            },
            Some(&mut || drop(black_box(ai.add(&bb)))),
            "i64 + f32 -> f32, into out",
        );
    }

    // cast f32 -> f64, preallocated (copy_) and fresh (try_to).
    {
        let mut o64 = DynTensor::zeros(DType::F64, &[SIDE, SIDE]).unwrap();
        let mut l64 = vec![0f64; N];
        let mut cast_limit = || {
            par_for(th, &mut l64, |s, o| {
                for (i, x) in o.iter_mut().enumerate() {
                    *x = sa[s + i] as f64;
                }
            })
        };
        b.run(
            "cast_f32_f64",
            12.0 * N as f64,
            &mut || o64.copy_(&a),
            &mut cast_limit,
            Some(&mut || drop(black_box(a.try_to(DType::F64).unwrap()))),
            "out.copy_(&a) (preallocated)",
        );
        let mut keep = None;
        b.run(
            "cast_f32_f64_fresh",
            12.0 * N as f64,
            &mut || keep = Some(a.try_to(DType::F64).unwrap()),
            &mut cast_limit,
            None,
            "a.try_to(F64); limit = preallocated loop",
        );
        drop(keep);
        // f32 -> f16 into a preallocated output (the f32 block path with F16C); limit: the
        // same plain loop into f64 above (one f32 read, one wider write).
        let mut o16 = DynTensor::zeros(DType::F16, &[SIDE, SIDE]).unwrap();
        b.run(
            "cast_f32_f16",
            6.0 * N as f64,
            &mut || o16.copy_(&a),
            &mut cast_limit,
            None,
            "out.copy_(&a) into f16; limit = the f32 -> f64 loop",
        );
    }

    // f16 / bf16 add, limit = the f32 slice loop add (as the issue defines it).
    {
        let h1 = to_dyn(
            sa.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(),
            &[SIDE, SIDE],
        );
        let h2 = to_dyn(
            sb.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>(),
            &[SIDE, SIDE],
        );
        let ho = DynTensor::zeros(DType::F16, &[SIDE, SIDE]).unwrap();
        b.run(
            "f16_add",
            3.0 * 2.0 * N as f64,
            &mut || h1.add_out(&h2, &ho),
            &mut add_limit,
            Some(&mut || drop(black_box(h1.add(&h2)))),
            "limit = f32 slice add",
        );
        drop((h1, h2, ho));
        let g1 = to_dyn(
            sa.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>(),
            &[SIDE, SIDE],
        );
        let g2 = to_dyn(
            sb.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>(),
            &[SIDE, SIDE],
        );
        let go = DynTensor::zeros(DType::BF16, &[SIDE, SIDE]).unwrap();
        b.run(
            "bf16_add",
            3.0 * 2.0 * N as f64,
            &mut || g1.add_out(&g2, &go),
            &mut add_limit,
            Some(&mut || drop(black_box(g1.add(&g2)))),
            "limit = f32 slice add",
        );
    }

    // Transcendentals: limit = the scalar libm loop (`f32::exp` etc.); `× copy` is the
    // issue's second target.
    {
        let pa = a.abs();
        type Fx = fn(f32) -> f32;
        type Case<'a> = (
            &'a str,
            Fx,
            &'a dyn Fn(&DynTensor),
            &'a dyn Fn() -> DynTensor,
        );
        let cases: [Case; 6] = [
            ("exp", |x| x.exp(), &|o| a.exp_out(o), &|| a.exp()),
            // On |a| (made once, outside the timed region); the limit takes |x| in its loop.
            ("sqrt", |x| x.abs().sqrt(), &|o| pa.sqrt_out(o), &|| {
                pa.sqrt()
            }),
            ("floor", |x| x.floor(), &|o| a.floor_out(o), &|| a.floor()),
            (
                "sigmoid",
                |x| 1.0 / (1.0 + (-x).exp()),
                &|o| a.sigmoid_out(o),
                &|| a.sigmoid(),
            ),
            ("tanh", |x| x.tanh(), &|o| a.tanh_out(o), &|| a.tanh()),
            (
                "gelu",
                |x| 0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2)),
                &|o| {
                    special::gelu(&a, GeluApproximate::None, Some(o)).unwrap();
                },
                &|| a.gelu(GeluApproximate::None),
            ),
        ];
        for (name, fx, op, fresh) in cases {
            b.run(
                name,
                2.0 * f4 * N as f64,
                &mut || op(&out),
                &mut || {
                    par_for(th, &mut lim, |s, o| {
                        for (i, x) in o.iter_mut().enumerate() {
                            *x = fx(sa[s + i]);
                        }
                    })
                },
                Some(&mut || drop(black_box(fresh()))),
                "limit = scalar libm loop",
            );
        }
    }

    // where(cond, a, b), bool cond, random 50%.
    {
        let mut r = lcg(9);
        let vc: Vec<bool> = (0..N).map(|_| r() & 1 == 1).collect();
        let c = to_dyn(vc, &[SIDE, SIDE]);
        let sc = slice::<bool>(&c);
        b.run(
            "where",
            (1.0 + 4.0 + 4.0 + 4.0) * N as f64,
            &mut || {
                special::where_(&c, (&a).into(), (&bb).into(), Some(&out)).unwrap();
            },
            &mut || {
                par_for(th, &mut lim, |s, o| {
                    for (i, x) in o.iter_mut().enumerate() {
                        // Bit-mask select: vectorises (a branch would not).
                        let m = (sc[s + i] as u32).wrapping_neg();
                        *x = f32::from_bits((sa[s + i].to_bits() & m) | (sb[s + i].to_bits() & !m));
                    }
                })
            },
            Some(&mut || drop(black_box(weft::ops::dyn_api::where_(&c, &a, &bb).unwrap()))),
            "where(cond, a, b) into out",
        );
    }
    drop((a, bb, out, lim));

    reductions(&mut b, th);

    // Tiny: 4 elements; limit = ndarray's `&a + &b` (fresh).
    {
        let ta = to_dyn(vec![1f32, 2.0, 3.0, 4.0], &[4]);
        let tb = to_dyn(vec![0.5f32, 0.25, 0.125, 2.0], &[4]);
        let ti = to_dyn(vec![1i64, 2, 3, 4], &[4]);
        let na = ndarray::Array1::from(vec![1f32, 2.0, 3.0, 4.0]);
        let nb = ndarray::Array1::from(vec![0.5f32, 0.25, 0.125, 2.0]);
        let mut nd_add = || drop(black_box(&na + &nb));
        b.run_tiny(
            "tiny_add_dyn",
            &mut || drop(black_box(black_box(&ta).add(black_box(&tb)))),
            &mut nd_add,
            "DynTensor a.add(&b) (fresh); limit = ndarray &a + &b",
        );
        let (xa, xb) = (
            ta.as_typed::<f32>().unwrap().clone(),
            tb.as_typed::<f32>().unwrap().clone(),
        );
        b.run_tiny(
            "tiny_add_typed",
            &mut || drop(black_box(black_box(&xa) + black_box(&xb))),
            &mut nd_add,
            "Tensor<f32> &a + &b (fresh); limit = ndarray &a + &b",
        );
        b.run_tiny(
            "tiny_add_typed_scalar",
            &mut || drop(black_box(black_box(&xa) + 2.0f64)),
            &mut || drop(black_box(&na + 2.0)),
            "Tensor<f32> &a + 2.0; limit = ndarray &a + 2.0",
        );
        b.run_tiny(
            "tiny_add_scalar",
            &mut || drop(black_box(black_box(&ta).add(2.0))),
            &mut || drop(black_box(&na + 2.0)),
            "a.add(2.0); limit = ndarray &a + 2.0",
        );
        b.run_tiny(
            "tiny_add_i64_f32",
            &mut || drop(black_box(black_box(&ti).add(black_box(&tb)))),
            &mut nd_add,
            "i64 + f32 -> f32; limit = ndarray f32 &a + &b",
        );
        let to = DynTensor::zeros(DType::F32, &[4]).unwrap();
        b.run_tiny(
            "tiny_add_out",
            &mut || black_box(&ta).add_out(black_box(&tb), &to),
            &mut nd_add,
            "a.add_out(&b, &out); limit = ndarray &a + &b",
        );
    }
    b.print();
}

/// A plain slice fold with 16 independent accumulators, split over `th` threads: the in-run
/// limit of the reduction rows (issue 14).
fn lim_fold<T: Copy + Sync, A: Copy + Send + Sync>(
    th: usize,
    s: &[T],
    zero: A,
    f: impl Fn(A, T) -> A + Sync,
    g: impl Fn(A, A) -> A + Sync,
) -> A {
    use rayon::prelude::*;
    let fold = |c: &[T]| {
        let mut l = [zero; 16];
        let mut it = c.chunks_exact(16);
        for b in &mut it {
            for k in 0..16 {
                l[k] = f(l[k], b[k]);
            }
        }
        let mut t = zero;
        for &x in it.remainder() {
            t = f(t, x);
        }
        l.iter().fold(t, |a, &b| g(a, b))
    };
    if th == 1 {
        fold(s)
    } else {
        s.par_chunks(s.len().div_ceil(th))
            .map(fold)
            .reduce(|| zero, &g)
    }
}

/// Reduction rows: 16M elements ([4096, 4096]), full and per-dim; limits are plain slice folds
/// over the same bytes (and weft's own `exp` for the softmax family).
fn reductions(b: &mut Bench, th: usize) {
    let a = to_dyn(rand_f32(N, 21), &[SIDE, SIDE]);
    let sa = slice::<f32>(&a);
    let bytes = 4.0 * N as f64;
    let mut sum_limit = || {
        black_box(lim_fold(th, sa, 0f32, |a, x| a + x, |a, b| a + b));
    };
    let rows: [(&str, &dyn Fn() -> DynTensor, &str); 12] = [
        (
            "reduce_sum",
            &|| a.sum((), false),
            "a.sum(()) full; limit = 16-accumulator slice sum",
        ),
        ("reduce_mean", &|| a.mean((), false), "a.mean(())"),
        ("reduce_any", &|| a.any((), false), "a.any(()) (f32 input)"),
        ("reduce_all", &|| a.all((), false), "a.all(()) (f32 input)"),
        (
            "reduce_sum_dim1",
            &|| a.sum(1, false),
            "sum over the inner dim of [4096, 4096]",
        ),
        (
            "reduce_sum_dim0",
            &|| a.sum(0, false),
            "sum over the outer dim of [4096, 4096]",
        ),
        (
            "reduce_var",
            &|| a.var((), 1.0, false),
            "a.var(()) (two passes, f64 accumulation)",
        ),
        (
            "reduce_std_dim1",
            &|| a.std(1, 1.0, false),
            "std over the inner dim",
        ),
        ("reduce_argmax", &|| a.argmax(None, false), "a.argmax(None)"),
        (
            "reduce_max_dim1",
            &|| a.max_dim(1, false).0,
            "max(dim=1): values and indices",
        ),
        (
            "reduce_amax",
            &|| a.amax((), false),
            "a.amax(()); limit = 16-accumulator max",
        ),
        (
            "reduce_amax_dim0",
            &|| a.amax(0, false),
            "amax over the outer dim",
        ),
    ];
    for (name, op, note) in rows {
        b.run(
            name,
            bytes,
            &mut || drop(black_box(op())),
            &mut sum_limit,
            None,
            note,
        );
    }
    {
        let ai = to_dyn(
            (0..N as i32)
                .map(|i| i.wrapping_mul(2654435761u32 as i32) >> 8)
                .collect::<Vec<i32>>(),
            &[SIDE, SIDE],
        );
        let si = slice::<i32>(&ai);
        b.run(
            "reduce_sum_i32",
            bytes,
            &mut || drop(black_box(ai.sum((), false))),
            &mut || {
                black_box(lim_fold(
                    th,
                    si,
                    0i64,
                    |a, x| a.wrapping_add(x as i64),
                    |a, b| a.wrapping_add(b),
                ));
            },
            None,
            "i32 sum into i64; limit = i64-accumulator slice sum",
        );
    }
    // The softmax family against weft's own exp over the same elements.
    // Both return a fresh tensor (the page faults of a new 64 MB output are part of each).
    let mut exp_limit = || drop(black_box(a.exp()));
    let soft: [(&str, &dyn Fn() -> DynTensor, &str); 5] = [
        (
            "reduce_logsumexp_dim1",
            &|| a.logsumexp(1, false),
            "logsumexp(dim=1); limit = weft a.exp() (fresh)",
        ),
        ("reduce_softmax_dim1", &|| a.softmax(1), "softmax(dim=1)"),
        (
            "reduce_log_softmax_dim1",
            &|| a.log_softmax(1),
            "log_softmax(dim=1)",
        ),
        (
            "reduce_logsumexp_dim0",
            &|| a.logsumexp(0, false),
            "logsumexp(dim=0)",
        ),
        ("reduce_softmax_dim0", &|| a.softmax(0), "softmax(dim=0)"),
    ];
    for (name, op, note) in soft {
        b.run(
            name,
            bytes,
            &mut || drop(black_box(op())),
            &mut exp_limit,
            None,
            note,
        );
    }
}
