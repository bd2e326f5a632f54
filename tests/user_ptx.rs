//! The GPU half of custom functors, on the example user crate `gpu/examples/user-functors`:
//!
//! * (a) `gpu/build-user-ptx.sh` builds its PTX (where the nightly toolchain with rust-src is
//!   present; skipped with a message elsewhere, or checks `$WEFT_USER_PTX` when set): the
//!   expected kernel entry points, parameter sizes, no `.extern` / `trap` / panic symbols;
//! * (b) host emulation: the per-thread bodies those kernels run (`weft::device::layout`, with
//!   the functor wrapped as `gpu_user_kernels!` wraps it) over every thread of small grids, on
//!   transposed / broadcast / reversed / sliced layouts and mixed dtypes, equal to the CPU's
//!   `DynTensor::zip_with` / `zip3_with`;
//! * (c) feature `cuda`: the plan and error paths without a device, and the device run (skips
//!   without a driver unless `WEFT_REQUIRE_GPU=1`; `gpu/run-device-checks.sh` runs it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use user_functors::{ScaledMulAdd, SmoothL1};
use weft::device::layout::{
    Outlined, StridedLayout, binary_contig, binary_strided, contiguous_chunks, ternary_contig,
    ternary_strided,
};
use weft::half::{bf16, f16};
use weft::ops::custom::{DynFunctor, Promotion, compute_dtype};
use weft::{DType, DynTensor, Element, Tensor, with_dtype};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The kernels the example crate's list declares (the same list as in its `lib.rs`).
fn expected_kernels() -> Vec<&'static str> {
    let mut v: Vec<&str> = weft::__gpu_kernel_names!(
        "scaled_mul_add" (T, T, T) => ScaledMulAdd: [f32, f64, f16, bf16];
        "smooth_l1"      (T, T)    => SmoothL1: [f32, f64, f16, bf16];
    )
    .to_vec();
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// (a) the PTX build

/// Why the PTX cannot be built here, or `None` when it can.
fn nightly_missing() -> Option<String> {
    let out = Command::new("rustc")
        .args(["+nightly", "--print", "sysroot"])
        .output();
    let sysroot = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => return Some("no nightly toolchain (rustup toolchain install nightly)".into()),
    };
    let core = Path::new(&sysroot).join("lib/rustlib/src/rust/library/core");
    if !core.is_dir() {
        return Some("nightly has no rust-src (rustup component add rust-src)".into());
    }
    // The same component check as gpu/ptx-common.sh (which exits 3 without it): a nightly
    // installed for Miri (rust-src) but not for PTX skips here instead of failing there.
    let host = Command::new("rustc")
        .args(["+nightly", "-vV"])
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        });
    let linker = host.map(|h| Path::new(&sysroot).join(format!("lib/rustlib/{h}/bin/llvm-link")));
    if !linker.is_some_and(|l| l.is_file()) {
        return Some("nightly has no llvm-tools (rustup component add llvm-tools)".into());
    }
    None
}

/// The example crate's PTX: `$WEFT_USER_PTX` when set (e.g. carried to a GPU machine), else
/// built once per test run with `gpu/build-user-ptx.sh`; `Err(reason)` when it cannot be.
fn user_ptx() -> &'static Result<PathBuf, String> {
    static PTX: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PTX.get_or_init(|| {
        if let Some(p) = std::env::var_os("WEFT_USER_PTX") {
            return Ok(PathBuf::from(p));
        }
        if let Some(why) = nightly_missing() {
            return Err(why);
        }
        let out = root().join("target/user-ptx/user_functors.ptx");
        let t = std::time::Instant::now();
        let status = Command::new(root().join("gpu/build-user-ptx.sh"))
            .arg(root().join("gpu/examples/user-functors"))
            .arg(&out)
            .env("PTX_TARGET_DIR", root().join("target/ptx-user"))
            .status()
            .expect("running gpu/build-user-ptx.sh");
        assert!(status.success(), "gpu/build-user-ptx.sh failed: {status}");
        eprintln!(
            "built {} in {:.1} s",
            out.display(),
            t.elapsed().as_secs_f64()
        );
        Ok(out)
    })
}

#[test]
fn ptx_of_the_example_crate() {
    let path = match user_ptx() {
        Ok(p) => p,
        Err(why) => {
            eprintln!("SKIPPED: the user PTX cannot be built here: {why}");
            return;
        }
    };
    let ptx = std::fs::read_to_string(path).unwrap();
    let mut entries = weft::device::user_kernels::ptx_entry_names(&ptx);
    entries.sort();
    assert_eq!(entries, expected_kernels());
    for (i, line) in ptx.lines().enumerate() {
        let l = line.trim_start();
        assert!(
            !l.starts_with(".extern"),
            "line {}: unresolved symbol: {line}",
            i + 1
        );
        assert!(!l.contains("panick"), "line {}: panic path: {line}", i + 1);
        let trap = l
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == "trap");
        assert!(!trap, "line {}: trap: {line}", i + 1);
    }
    assert!(ptx.contains(".target sm_70"), "target-cpu");
    // The kernel parameters the host pushes: `_s` takes the 720-byte StridedLayout, then the
    // functor (8 bytes: one f64), then the pointers; `_c` takes numel first.
    assert_eq!(size_of::<StridedLayout>(), 720);
    let params = |name: &str| -> String {
        let start = ptx.find(&format!(".entry {name}(")).unwrap();
        let end = start + ptx[start..].find(')').unwrap();
        ptx[start..end].to_string()
    };
    let s = params("smooth_l1_f32_s");
    assert!(s.contains("[720]"), "{s}");
    assert!(s.contains("[8]"), "{s}");
    assert_eq!(s.matches(".param").count(), 5, "{s}"); // layout, functor, out, a, b
    let c = params("scaled_mul_add_bf16_c");
    assert!(c.contains(".param .u64"), "{c}");
    assert_eq!(c.matches(".param").count(), 6, "{c}"); // numel, functor, out, a, b, c
    // Every entry, parsed as the host parses it before each launch: exactly what the launch
    // pushes (the functor's host size and alignment).
    use weft::device::abi::{Param, check_params, launch_params, ptx_entry_params};
    let entries = ptx_entry_params(&ptx).unwrap();
    assert_eq!(entries.len(), expected_kernels().len());
    for (name, declared) in &entries {
        let (f, pointers) = if name.starts_with("smooth_l1_") {
            (Param::of::<SmoothL1>(), 3)
        } else {
            (Param::of::<ScaledMulAdd>(), 4)
        };
        let variant = &name[name.len() - 1..];
        check_params(name, declared, &launch_params(variant, f, pointers)).unwrap();
    }
}

#[test]
fn build_script_refuses_bad_input() {
    let st = Command::new(root().join("gpu/build-user-ptx.sh"))
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(2), "usage error expected");
    let st = Command::new(root().join("gpu/build-user-ptx.sh"))
        .args([root().join("gpu").as_os_str(), "/tmp/x.ptx".as_ref()])
        .output()
        .unwrap();
    assert_eq!(
        st.status.code(),
        Some(2),
        "no Cargo.toml: usage error expected"
    );
}

// ---------------------------------------------------------------------------------------------
// (b) host emulation of the generated kernels

/// Byte strides of `t` broadcast to `shape` (0 on expanded dims).
fn byte_strides(t: &DynTensor, shape: &[usize]) -> Vec<isize> {
    let lead = shape.len() - t.ndim();
    let size = t.dtype().size() as isize;
    (0..shape.len())
        .map(|d| {
            if d < lead || t.shape()[d - lead] == 1 {
                0
            } else {
                t.strides()[d - lead] * size
            }
        })
        .collect()
}

fn broadcast(shapes: &[&[usize]]) -> Vec<usize> {
    let nd = shapes.iter().map(|s| s.len()).max().unwrap();
    let mut out = vec![1usize; nd];
    for s in shapes {
        for (i, &n) in s.iter().enumerate() {
            let d = nd - s.len() + i;
            if out[d] == 1 {
                out[d] = n;
            } else {
                assert!(n == 1 || n == out[d]);
            }
        }
    }
    out
}

/// Values as f64 (exact for every float dtype), NaN mapped to a marker.
fn values(t: &DynTensor) -> Vec<f64> {
    with_dtype!(t.dtype(), T => t.as_typed::<T>().unwrap().to_vec().into_iter().map(|v| {
        let x = weft::convert_value::<T, f64>(v);
        if x.is_nan() { f64::MAX } else { x }
    }).collect())
}

/// What the generated `{op}_{t}_s` / `_c` kernels compute, run over every thread of an
/// `nthreads` grid: the output of the same dtype and broadcast shape.
fn emulate<F: DynFunctor>(
    f: F,
    inputs: &[&DynTensor],
    nthreads: u64,
    contiguous: bool,
) -> DynTensor {
    let kinds: Vec<(DType, bool)> = inputs.iter().map(|t| (t.dtype(), t.ndim() == 0)).collect();
    let compute = compute_dtype(F::NAME, &kinds, Promotion::Common).unwrap();
    let sig = F::signature(compute).expect("listed dtype");
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
    let shape = broadcast(&shapes);
    let out = DynTensor::zeros(sig[0], &shape).unwrap();
    let mut strides = vec![byte_strides(&out, &shape)];
    strides.extend(inputs.iter().map(|t| byte_strides(t, &shape)));
    let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
    let mut dtypes = vec![out.dtype()];
    dtypes.extend(inputs.iter().map(|t| t.dtype()));
    let l = StridedLayout::new(&shape, &refs, &dtypes).unwrap();
    let o = out.data_ptr_bytes();
    let p: Vec<*const u8> = inputs
        .iter()
        .map(|t| t.data_ptr_bytes() as *const u8)
        .collect();
    let n = out.numel() as u64;
    let sizes: Vec<usize> = sig.iter().map(|d| d.size()).collect();
    if contiguous {
        assert_eq!(
            dtypes, sig,
            "the contiguous kernel needs the kernel's dtypes"
        );
        assert!(
            inputs
                .iter()
                .all(|t| t.is_contiguous() && t.shape() == shape.as_slice())
        );
    }
    macro_rules! run {
        ($F:ty, $T:ty, $arity:tt) => {{
            // As gpu_user_kernels! does: f16/bf16 call the functor through one shared function.
            const O: bool = matches!(<$T as Element>::DTYPE, DType::F16 | DType::BF16);
            let f = Outlined::<$F, O>(unsafe_copy(&f));
            let threads = if contiguous {
                contiguous_chunks(n, &sizes).min(nthreads)
            } else {
                nthreads
            };
            for tid in 0..threads {
                // SAFETY: the layout and the pointers describe the live tensors above; the
                // contiguous path only runs on dense tensors of the kernel's dtypes.
                unsafe { run!(@ $arity, $T, f, tid, threads) }
            }
        }};
        (@ 2, $T:ty, $f:ident, $tid:ident, $nt:ident) => {
            if contiguous {
                binary_contig::<_, $T, $T>($tid, $nt, n, &$f, o, p[0], p[1])
            } else {
                binary_strided::<_, $T, $T>($tid, $nt, &l, &$f, o, p[0], p[1])
            }
        };
        (@ 3, $T:ty, $f:ident, $tid:ident, $nt:ident) => {
            if contiguous {
                ternary_contig::<_, $T, $T, $T>($tid, $nt, n, &$f, o, p[0], p[1], p[2])
            } else {
                ternary_strided::<_, $T, $T, $T>($tid, $nt, &l, &$f, o, p[0], p[1], p[2])
            }
        };
    }
    match (F::NAME, compute) {
        ("smooth_l1", DType::F32) => run!(SmoothL1, f32, 2),
        ("smooth_l1", DType::F64) => run!(SmoothL1, f64, 2),
        ("smooth_l1", DType::F16) => run!(SmoothL1, f16, 2),
        ("smooth_l1", DType::BF16) => run!(SmoothL1, bf16, 2),
        ("scaled_mul_add", DType::F32) => run!(ScaledMulAdd, f32, 3),
        ("scaled_mul_add", DType::F64) => run!(ScaledMulAdd, f64, 3),
        ("scaled_mul_add", DType::F16) => run!(ScaledMulAdd, f16, 3),
        ("scaled_mul_add", DType::BF16) => run!(ScaledMulAdd, bf16, 3),
        other => panic!("no emulation for {other:?}"),
    }
    out
}

/// `F` reinterpreted as the concrete functor type the match arm names (they are the same type:
/// the arm is chosen by `F::NAME`). Checked by size and name.
fn unsafe_copy<F: Copy, G: Copy>(f: &F) -> G {
    assert_eq!(size_of::<F>(), size_of::<G>());
    assert_eq!(std::any::type_name::<F>(), std::any::type_name::<G>());
    // SAFETY: F and G are the same type (same type name and size, checked above).
    unsafe { std::mem::transmute_copy(f) }
}

fn data<T: weft::DynElement>(n: usize, f: impl Fn(usize) -> f64) -> Vec<T> {
    (0..n)
        .map(|i| weft::convert_value::<f64, T>(f(i)))
        .collect()
}

/// Layouts over [4, 5]-shaped results: (a, b) pairs of views.
fn binary_cases(dt: DType) -> Vec<(String, DynTensor, DynTensor)> {
    let mk = |shape: &[usize], k: f64| -> Tensor<f64> {
        let n = shape.iter().product();
        Tensor::from_vec(
            data::<f64>(n, |i| ((i as f64) * 0.37 + k).sin() * 3.0),
            shape,
        )
        .unwrap()
    };
    let to = |t: Tensor<f64>| DynTensor::from(t).to(dt);
    let a = mk(&[4, 5], 0.0);
    let b = mk(&[4, 5], 1.0);
    vec![
        ("contiguous".into(), to(a.clone()), to(b.clone())),
        ("transposed".into(), to(mk(&[5, 4], 2.0).t()), to(b.clone())),
        ("row broadcast".into(), to(a.clone()), to(mk(&[5], 3.0))),
        (
            "column broadcast".into(),
            to(mk(&[4, 1], 4.0)),
            to(b.clone()),
        ),
        (
            "0-d".into(),
            to(a.clone()),
            to(Tensor::from_vec(vec![0.5], &[]).unwrap()),
        ),
        (
            "reversed + stepped".into(),
            to(mk(&[4, 10], 5.0)
                .slice(1, None, None, 2)
                .slice(0, None, None, -1)),
            to(b.clone()),
        ),
    ]
}

#[test]
fn emulated_smooth_l1_equals_cpu() {
    for dt in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for (what, a, b) in binary_cases(dt) {
            for beta in [1.0, 0.5, 0.0] {
                let f = SmoothL1 { beta };
                let cpu = a.zip_with(&b, f);
                for nt in [1u64, 3, 7, 64, 1000] {
                    let dev = emulate(f, &[&a, &b], nt, false);
                    assert_eq!(dev.dtype(), cpu.dtype());
                    assert_eq!(
                        values(&dev),
                        values(&cpu),
                        "{dt} {what} beta {beta} threads {nt}"
                    );
                }
                if what == "contiguous" {
                    for nt in [1u64, 2, 1000] {
                        let dev = emulate(f, &[&a, &b], nt, true);
                        assert_eq!(values(&dev), values(&cpu), "{dt} contiguous path, {nt}");
                    }
                }
            }
        }
    }
}

#[test]
fn emulated_mixed_dtypes_promote_like_cpu() {
    // f32 with f64 computes in f64 (the f64 kernel converting the f32 operand on load); bf16
    // with f16 computes in f32; a 0-d second operand does not raise the dtype.
    let pairs = [
        (DType::F32, DType::F64, DType::F64),
        (DType::F16, DType::F32, DType::F32),
        (DType::BF16, DType::F16, DType::F32),
    ];
    for (da, db, want) in pairs {
        for (what, a, b) in binary_cases(DType::F64) {
            let (a, b) = (a.to(da), b.to(db));
            let f = SmoothL1 { beta: 0.75 };
            let cpu = a.zip_with(&b, f);
            let dev = emulate(f, &[&a, &b], 5, false);
            // A 0-d operand of the same category is weaker: the dimensioned one's dtype wins.
            let want = if what == "0-d" { da } else { want };
            assert_eq!(cpu.dtype(), want, "{da} {db} {what}");
            assert_eq!(dev.dtype(), want);
            assert_eq!(values(&dev), values(&cpu), "{da} {db} {what}");
        }
    }
}

#[test]
fn emulated_scaled_mul_add_equals_cpu() {
    for dt in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        let cases = binary_cases(dt);
        let c =
            DynTensor::from(Tensor::<f64>::from_vec(data(5, |i| i as f64 - 2.0), &[5]).unwrap())
                .to(dt);
        for (what, a, b) in cases {
            let f = ScaledMulAdd { scale: -1.5 };
            let cpu = a.zip3_with(&b, &c, f);
            for nt in [1u64, 4, 33, 1000] {
                let dev = emulate(f, &[&a, &b, &c], nt, false);
                assert_eq!(values(&dev), values(&cpu), "{dt} {what} threads {nt}");
            }
            if what == "contiguous" {
                let c2 = b.zip_with(&a, SmoothL1 { beta: 1.0 }); // any dense [4, 5] of dt
                let cpu = a.zip3_with(&b, &c2, f);
                let dev = emulate(f, &[&a, &b, &c2], 3, true);
                assert_eq!(values(&dev), values(&cpu), "{dt} contiguous path");
            }
        }
    }
}

#[test]
fn signatures_and_unlisted_dtypes() {
    assert_eq!(
        SmoothL1::signature(DType::F16),
        Some(vec![DType::F16, DType::F16, DType::F16])
    );
    assert_eq!(
        ScaledMulAdd::signature(DType::F64).map(|s| s.len()),
        Some(4)
    );
    assert_eq!(SmoothL1::signature(DType::I64), None);
    assert_eq!(
        compute_dtype(
            "x",
            &[(DType::I32, false), (DType::F32, true)],
            Promotion::Common
        )
        .unwrap(),
        DType::F32
    );
    assert_eq!(
        compute_dtype("x", &[(DType::I32, false)], Promotion::CommonFloat).unwrap(),
        DType::F32
    );
    assert!(matches!(
        compute_dtype(
            "x",
            &[(DType::F32, false), (DType::F64, false)],
            Promotion::Same
        ),
        Err(weft::Error::DTypeMismatch { .. })
    ));
}

#[test]
fn entry_names_parse() {
    let ptx = "//\n.visible .entry a_f32_c(\n\t.param .u64 x\n)\n{\n}\n.entry b_s(\n.func (.param .b32 r) h(\n";
    assert_eq!(
        weft::device::user_kernels::ptx_entry_names(ptx),
        vec!["a_f32_c", "b_s"]
    );
}

// ---------------------------------------------------------------------------------------------
// (c) the device

#[cfg(feature = "cuda")]
mod device {
    use super::*;
    use weft::Device;
    use weft::device::cuda::{CudaTensor, driver_present, user_kernel_missing};
    use weft::device::user::{apply_cuda, plan_user_kernel};

    /// A functor listed for the host but never compiled into the loaded PTX.
    #[derive(Copy, Clone)]
    #[repr(C)]
    struct NotLoaded;
    impl weft::Functor<(f32,)> for NotLoaded {
        type Output = f32;
        fn call(&self, (x,): (f32,)) -> f32 {
            x
        }
    }
    weft::impl_dyn_functors! { "not_loaded" (T) => NotLoaded: [f32]; }

    #[test]
    fn plan_without_a_device() {
        let p = plan_user_kernel::<SmoothL1>(
            &[(DType::F32, false), (DType::F64, true)],
            Promotion::Common,
        )
        .unwrap();
        assert_eq!(p.compute, DType::F32); // the 0-d f64 is weaker
        assert_eq!(p.kernel("s"), "smooth_l1_f32_s");
        assert_eq!(p.signature, vec![DType::F32; 3]);
        let e = plan_user_kernel::<SmoothL1>(
            &[(DType::I64, false), (DType::I64, false)],
            Promotion::Common,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                weft::Error::UnsupportedDType {
                    op: "smooth_l1",
                    dtype: DType::I64,
                    ..
                }
            ),
            "{e}"
        );
        let e =
            plan_user_kernel::<SmoothL1>(&[(DType::F32, false)], Promotion::Common).unwrap_err();
        assert!(
            e.to_string().contains("takes 2 tensor input(s), got 1"),
            "{e}"
        );
        assert!(user_kernel_missing("k_f32_s", &[]).contains("no user PTX module is loaded"));
        assert!(
            user_kernel_missing("k_f32_s", &["m"])
                .contains("not found in the loaded user modules (m)")
        );
    }

    #[test]
    fn no_driver_is_a_device_error() {
        if driver_present() {
            eprintln!("a CUDA driver is present: the no-driver error is not reachable here");
            return;
        }
        let e = weft::device::ops::context(Device::Cuda(0)).unwrap_err();
        assert!(
            matches!(&e, weft::Error::Device { reason } if reason.contains("no CUDA driver")),
            "{e}"
        );
    }

    fn gpu_or_skip() -> Option<weft::device::cuda::CudaContext> {
        let require = std::env::var_os("WEFT_REQUIRE_GPU").is_some_and(|v| v == "1");
        match weft::device::ops::context(Device::Cuda(0)) {
            Ok(c) => Some(c),
            Err(e) if !require => {
                eprintln!("SKIPPED (no GPU): {e}");
                None
            }
            Err(e) => panic!("WEFT_REQUIRE_GPU=1 but: {e}"),
        }
    }

    fn host(t: &CudaTensor) -> DynTensor {
        t.to_cpu().unwrap()
    }

    #[test]
    fn device_run_equals_cpu() {
        let Some(ctx) = gpu_or_skip() else { return };
        let ptx = user_ptx()
            .as_ref()
            .expect("the user PTX (set WEFT_USER_PTX on a GPU machine)");
        // Before loading: a clear error naming the missing kernel.
        let x = ctx.from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let e = x.try_zip_with(&x, SmoothL1 { beta: 1.0 }).unwrap_err();
        assert!(e.to_string().contains("smooth_l1_f32_c not found"), "{e}");
        // SAFETY: built by gpu/build-user-ptx.sh from gpu/examples/user-functors, the crate of
        // the functors this test launches, against this weft.
        unsafe { ctx.load_module_file(ptx) }.unwrap();
        assert_eq!(ctx.user_modules(), vec!["user_functors".to_string()]);
        let dev = Device::Cuda(0);
        let mut checked = 0;
        for dt in [DType::F32, DType::F64, DType::F16, DType::BF16] {
            for (what, a, b) in binary_cases(dt) {
                // On the device: contiguous copies, then the same views (transpose / reverse) are
                // not reproducible by copying, so compare against the CPU on the copied layout.
                let (ad, bd) = (a.to_device(dev).unwrap(), b.to_device(dev).unwrap());
                let f = SmoothL1 { beta: 0.5 };
                let cpu = a.zip_with(&b, f);
                let got = host(&ad.try_zip_with(&bd, f).unwrap());
                assert_eq!(got.dtype(), cpu.dtype());
                assert_eq!(values(&got), values(&cpu), "{dt} {what}");
                // A transposed device view: the strided kernel.
                // (Both operands [4, 5]: a broadcast row has no transpose of the same meaning.)
                if a.shape() == [4, 5] && b.shape() == [4, 5] {
                    let at = ad.permute(&[1, 0]).unwrap();
                    let bt = bd.permute(&[1, 0]).unwrap();
                    let cpu_t = DynTensor::from(a.to(DType::F64).as_typed::<f64>().unwrap().t())
                        .to(dt)
                        .zip_with(
                            &DynTensor::from(b.to(DType::F64).as_typed::<f64>().unwrap().t())
                                .to(dt),
                            f,
                        );
                    let got = host(&at.try_zip_with(&bt, f).unwrap());
                    assert_eq!(
                        values(&got),
                        values(&cpu_t),
                        "{dt} {what} transposed on device"
                    );
                }
                let c =
                    DynTensor::from(Tensor::<f64>::from_vec(data(5, |i| i as f64), &[5]).unwrap())
                        .to(dt);
                let cd = c.to_device(dev).unwrap();
                let g = ScaledMulAdd { scale: 2.0 };
                let got = host(&ad.try_zip3_with(&bd, &cd, g).unwrap());
                assert_eq!(
                    values(&got),
                    values(&a.zip3_with(&b, &c, g)),
                    "{dt} {what} scaled_mul_add"
                );
                checked += 2;
            }
        }
        // Mixed dtypes: f32 with f64 runs the f64 kernel, converting on load.
        let a = DynTensor::from(Tensor::<f32>::from_vec(vec![0.0, 0.3, 2.0, -4.0], &[4]).unwrap());
        let b = DynTensor::from(Tensor::<f64>::from_vec(vec![0.1], &[1]).unwrap());
        let got = host(
            &a.to_device(dev)
                .unwrap()
                .try_zip_with(&b.to_device(dev).unwrap(), SmoothL1 { beta: 1.0 })
                .unwrap(),
        );
        let cpu = a.zip_with(&b, SmoothL1 { beta: 1.0 });
        assert_eq!(got.dtype(), DType::F64);
        assert_eq!(values(&got), values(&cpu));
        // Promotion::CommonFloat on integer inputs, as on the CPU.
        let i = DynTensor::from(Tensor::<i64>::from_vec(vec![1, 5, -3], &[3]).unwrap());
        let idev = i.to_device(dev).unwrap();
        let e = idev
            .try_zip_with(&idev, SmoothL1 { beta: 1.0 })
            .unwrap_err();
        assert!(
            matches!(
                e,
                weft::Error::UnsupportedDType {
                    dtype: DType::I64,
                    ..
                }
            ),
            "{e}"
        );
        let got = host(
            &apply_cuda(
                SmoothL1 { beta: 1.0 },
                &[&idev, &idev],
                Promotion::CommonFloat,
            )
            .unwrap(),
        );
        assert_eq!(got.dtype(), DType::F32);
        // A functor whose kernels are not in the loaded module.
        let e = x.try_map(NotLoaded).unwrap_err();
        assert!(
            e.to_string()
                .contains("not_loaded_f32_c not found in the loaded user modules (user_functors)"),
            "{e}"
        );
        eprintln!("device: {checked} user-functor runs equal the CPU");
    }

    /// A module whose kernel declares a 4-byte functor where `SmoothL1` has 8: the launch is
    /// refused with the two parameter lists, never run (the driver would copy 4 of the 8 bytes).
    #[test]
    fn mismatched_parameters_are_refused() {
        if gpu_or_skip().is_none() {
            return;
        }
        // Its own context: the shared one's modules are left alone.
        let ctx = weft::device::cuda::CudaContext::new(0).unwrap();
        let ptx = ".version 7.7\n.target sm_70\n.address_size 64\n\n\
                   .visible .entry smooth_l1_f32_c(\n\t.param .u64 p0,\n\
                   \t.param .align 4 .b8 p1[4],\n\t.param .u64 .ptr .align 1 p2,\n\
                   \t.param .u64 .ptr .align 1 p3,\n\t.param .u64 .ptr .align 1 p4\n)\n{\n\tret;\n}\n";
        // SAFETY: the kernel returns at once (touches no memory); its parameter list is wrong on
        // purpose, which the launch checks.
        unsafe { ctx.load_module("wrong_abi", ptx) }.unwrap();
        let x = ctx.from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let e = x.try_zip_with(&x, SmoothL1 { beta: 1.0 }).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("kernel smooth_l1_f32_c declares parameters"),
            "{msg}"
        );
        assert!(msg.contains("4B/align 4"), "{msg}");
        assert!(msg.contains("8B/align 8"), "{msg}");
    }
}
