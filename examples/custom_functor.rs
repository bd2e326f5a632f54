//! Your own elementwise functions in weft: a fused `a * x + b` and PyTorch's smooth-L1 (Huber
//! with `beta`), written once as `no_std` functors and run on the CPU over broadcast and
//! transposed inputs, on typed tensors and on runtime-dtype tensors, then on the GPU where one
//! exists.
//!
//! `cargo run --release --example custom_functor` (CPU), and with a GPU:
//! `gpu/build-user-ptx.sh gpu/examples/user-functors target/user-ptx/user_functors.ptx` once,
//! then `cargo run --release --features cuda --example custom_functor`.
//!
//! The functors live in the example user crate `gpu/examples/user-functors/src/lib.rs` (a
//! dev-dependency of weft): plain `Copy` structs whose `Functor` impls use only `core` (float
//! math through `weft::functors::real::Real`, which is libm), listed once in
//! `weft::gpu_user_kernels!`, which gives both their `DynFunctor` impls (the dtypes `DynTensor`
//! calls accept) and, compiled for nvptx64, their GPU kernels.

use user_functors::{ScaledMulAdd, SmoothL1};
use weft::functors::Add;
use weft::half::f16;
use weft::ops::custom::{Apply, DynApply, Promotion};
use weft::{DType, DynTensor, Error, Tensor};

fn main() -> Result<(), Error> {
    // ---- typed tensors ------------------------------------------------------------------
    // a: [2, 3]; x: the transpose of a [3, 2] tensor (a strided view, nothing copied);
    // b: a row [3] broadcast over both rows.
    let a = Tensor::<f32>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let x = Tensor::<f32>::from_vec(vec![0.5, -1.0, 2.0, 0.0, -0.5, 1.5], &[3, 2])?.t();
    let b = Tensor::<f32>::from_vec(vec![10.0, 20.0, 30.0], &[3])?;
    println!(
        "a =\n{a}\nx (transposed view, strides {:?}) =\n{x}\nb =\n{b}",
        x.strides()
    );

    let y = a.try_zip3_with(&x, &b, ScaledMulAdd { scale: 2.0 })?;
    println!("2 * (a * x) + b =\n{y}");

    let target = Tensor::<f32>::zeros(&[1]); // broadcast against everything
    let loss = x.try_zip_with(&target, SmoothL1 { beta: 1.0 })?;
    println!("smooth_l1(x, 0; beta = 1) =\n{loss}");

    // A built-in functor goes through the same door.
    let s = a.try_zip_with(&b, Add)?;
    println!("a + b via zip_with(Add) =\n{s}");

    // The builder: results converted to another element type, a chosen grain, a name for errors.
    let rounded: Tensor<i32> = Apply::new(ScaledMulAdd { scale: 0.5 })
        .name("scaled_mul_add")
        .run_as::<i32, _>((&a, &x, &b))?;
    println!("0.5 * (a * x) + b as i32 =\n{rounded}");

    // Shapes that do not broadcast are an error (the panicking forms panic with its message).
    match a.try_zip_with(&Tensor::<f32>::zeros(&[2]), SmoothL1 { beta: 1.0 }) {
        Err(e) => println!("expected error: {e}"),
        Ok(_) => unreachable!(),
    }

    // ---- runtime dtypes -----------------------------------------------------------------
    let xi = DynTensor::from(x.clone());
    let th = DynTensor::from_vec(
        vec![f16::from_f32(1.0), f16::from_f32(-1.0), f16::from_f32(0.0)],
        &[3],
    )?;
    // f32 and f16 tensors promote to f32 (PyTorch's rules).
    let l = xi.try_zip_with(&th, SmoothL1 { beta: 0.5 })?;
    println!("smooth_l1(x: f32, t: f16 [3]) -> {}:\n{l}", l.dtype());
    let t64 = DynTensor::from_vec(vec![0.25f64], &[1])?;
    let l = xi.try_zip_with(&t64, SmoothL1 { beta: 0.5 })?;
    println!("smooth_l1(x: f32, t: f64 [1]) -> {}", l.dtype());

    // Integer tensors compute in i64, which the functor does not list:
    let ints = DynTensor::from_vec(vec![1i64, 5, -3], &[3])?;
    match ints.try_zip_with(&ints, SmoothL1 { beta: 1.0 }) {
        Err(e) => println!("expected error: {e}"),
        Ok(_) => unreachable!(),
    }
    // ... unless the caller asks for integer inputs to compute in the default float (f32).
    let l = DynApply::new(SmoothL1 { beta: 1.0 })
        .promotion(Promotion::CommonFloat)
        .run(&[&ints, &DynTensor::scalar(DType::I64, 0.into())])?;
    println!(
        "smooth_l1(ints, 0) with Promotion::CommonFloat -> {}: {l}",
        l.dtype()
    );

    gpu(&a, &x, &b)?;
    Ok(())
}

const GPU_STEPS: &str = "\
GPU steps (the same functors, the same calls, on device tensors):
  1. The functor crate (gpu/examples/user-functors; copy it for your own) lists its functors once:
       weft::gpu_user_kernels! { \"smooth_l1\" (T, T) => SmoothL1: [f32, f64, f16, bf16]; ... }
  2. Build its PTX (nightly + rust-src + llvm-tools):
       gpu/build-user-ptx.sh gpu/examples/user-functors target/user-ptx/user_functors.ptx
  3. Load it and call the functor on device tensors (feature `cuda`):
       let ctx = weft::device::ops::context(Device::Cuda(0))?;
       // SAFETY: the PTX was built by gpu/build-user-ptx.sh from the crate of these functors
       unsafe { ctx.load_module_file(\"target/user-ptx/user_functors.ptx\")? };
       let loss = x_dev.try_zip_with(&t_dev, SmoothL1 { beta: 1.0 })?; // smooth_l1_f32_{c|s}
  Run: cargo run --release --features cuda --example custom_functor";

#[cfg(not(feature = "cuda"))]
fn gpu(_: &Tensor<f32>, _: &Tensor<f32>, _: &Tensor<f32>) -> Result<(), Error> {
    println!("{GPU_STEPS}");
    println!("(built without the `cuda` feature: the GPU steps did not run)");
    Ok(())
}

#[cfg(feature = "cuda")]
fn gpu(a: &Tensor<f32>, x: &Tensor<f32>, b: &Tensor<f32>) -> Result<(), Error> {
    use weft::Device;
    println!("{GPU_STEPS}");
    let ctx = match weft::device::ops::context(Device::Cuda(0)) {
        Ok(c) => c,
        Err(e) => {
            println!("GPU steps not run: {e}");
            return Ok(());
        }
    };
    // The PTX of the example user crate, or $WEFT_USER_PTX.
    let path = std::env::var_os("WEFT_USER_PTX").map_or_else(
        || {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/user-ptx/user_functors.ptx")
        },
        Into::into,
    );
    if !path.exists() {
        println!(
            "GPU steps not run: {} is missing (run step 2, or set WEFT_USER_PTX)",
            path.display()
        );
        return Ok(());
    }
    // SAFETY: the file is gpu/build-user-ptx.sh's output for gpu/examples/user-functors, the
    // crate of the functors launched below (or $WEFT_USER_PTX, which the user vouches for).
    unsafe { ctx.load_module_file(&path)? };
    let dev = Device::Cuda(0);
    // `x` is a transposed view; `to_device` copies it contiguous, so transpose on the device
    // too (the strided kernel).
    let ad = a.to_device(dev)?;
    let xd = x.t().to_device(dev)?.permute(&[1, 0])?;
    let bd = b.to_device(dev)?;
    let y = ad.try_zip3_with(&xd, &bd, ScaledMulAdd { scale: 2.0 })?;
    println!("GPU 2 * (a * x) + b = {:?}", y.to_vec::<f32>()?);
    let cpu = a.zip3_with(x, b, ScaledMulAdd { scale: 2.0 });
    assert_eq!(y.to_vec::<f32>()?, cpu.to_vec(), "GPU and CPU differ");
    let t = Tensor::<f32>::zeros(&[1]).to_device(dev)?;
    let loss = xd.try_zip_with(&t, SmoothL1 { beta: 1.0 })?;
    println!(
        "GPU smooth_l1(x, 0; beta = 1) = {:?}",
        loss.to_vec::<f32>()?
    );
    // Mixed dtypes promote as on the CPU (f32 with f64 -> f64), converted inside the kernel.
    let t64 = Tensor::<f64>::from_vec(vec![0.25], &[1])?.to_device(dev)?;
    let l = xd.try_zip_with(&t64, SmoothL1 { beta: 0.5 })?;
    println!("GPU smooth_l1(x: f32, t: f64 [1]) -> {}", l.dtype());
    println!("GPU steps: done (results equal the CPU's)");
    Ok(())
}
