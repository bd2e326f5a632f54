//! CUDA devices (feature `cuda`): a context that loads the committed PTX, device tensors, copies
//! both ways, and launches of the kernels of [`gpu_kernel_list!`](crate::gpu_kernel_list).
//!
//! The CUDA driver is loaded at run time (cudarc `dynamic-loading`): the crate builds and runs
//! without CUDA installed, and [`CudaContext::new`] then returns
//! `Error::Device { reason: "no CUDA driver found ..." }` instead of panicking.
//!
//! Launch choice, per call: `c` (contiguous: same dtypes as the kernel's, dense, aligned bases,
//! no broadcast), else `s` (strided: 32-bit index math when every byte offset fits, else 64-bit;
//! operands cast from/to their runtime dtypes while loading/storing).

use crate::device::Device;
use crate::device::KERNELS_PTX;
use crate::device::abi::{self, Param};
use crate::device::kernel_list::kernel_name;
use crate::device::layout::{
    ElementLayout, IndexInt, IntDivider, LayoutError, StridedLayout, WithScalar,
    contiguous_aligned, contiguous_chunks,
};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::functors::Functor;
use crate::layout::{Layout, checked_numel};
use crate::storage::Storage;
use crate::tensor::Tensor;
use cudarc::driver::{
    CudaContext as RawContext, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr,
    LaunchConfig, PushKernelArg,
};
use std::string::ToString;
use std::sync::Arc;
use std::vec::Vec;

// SAFETY: ElementLayout is #[repr(C)] plain data (integers only) with the same layout on the
// host and on nvptx64 (same sizes and alignments of u32/u64/i32/i64); the kernels take it by
// value (`.param .align N .b8 [size]`).
unsafe impl<I: IndexInt> DeviceRepr for ElementLayout<I> {}
// SAFETY: as above: #[repr(C)] integers.
unsafe impl<I: IndexInt> DeviceRepr for IntDivider<I> {}
// SAFETY: #[repr(C)] of the two layouts above and a u32.
unsafe impl DeviceRepr for StridedLayout {}
// SAFETY: #[repr(C)] plain data (u32, usize/isize arrays, f64, u64), laid out alike on the host
// and nvptx64 (64-bit usize on both); the reduction kernels take it by value.
unsafe impl DeviceRepr for crate::device::reduce::ReduceLaunch {}
// SAFETY: #[repr(C)] u64, u64, u32 (plus tail padding), alike on both targets.
unsafe impl DeviceRepr for crate::device::reduce::SoftmaxRowsLaunch {}

/// A functor value passed by value as a kernel argument: the driver copies its bytes.
#[repr(transparent)]
struct FunctorArg<F>(F);
// SAFETY: the driver copies as many bytes as the kernel's parameter declares from the value;
// `launch_from` pushes one only after `abi::check_params` found that parameter to have exactly
// `size_of::<F>()` bytes and `align_of::<F>()` (so no read past the value). Functors are `Copy`
// plain data (`#[repr(C)]` structs of element types, `Option`s of them, `WithScalar`), laid out
// alike on host and nvptx64 (tests/device_abi.rs); zero-sized ones are never pushed (the PTX has
// no parameter for them).
unsafe impl<F: Copy> DeviceRepr for FunctorArg<F> {}

/// The parameter lists of a module's kernels, by name.
type EntryParams = std::collections::HashMap<String, Vec<Param>>;

/// The entries of `ptx` with their parameter lists; an error names the module.
fn entry_params(what: &str, ptx: &str) -> Result<EntryParams> {
    abi::ptx_entry_params(ptx)
        .map(|v| v.into_iter().collect())
        .map_err(|e| Error::InvalidArgument {
            op: "load_module",
            reason: format!("{what}: {e}"),
        })
}

/// Threads per block: grid-stride kernels, and under the 64-register limit of 1024-thread blocks.
const BLOCK: u32 = 256;
/// At most 2^31 threads per launch, so the 32-bit kernels' indices never wrap.
const MAX_BLOCKS: u64 = (1u64 << 31) / BLOCK as u64;

/// A 1-D grid of `BLOCK`-thread blocks covering `threads` (grid-stride kernels: capped).
fn launch_config(threads: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            threads.div_ceil(BLOCK as u64).clamp(1, MAX_BLOCKS) as u32,
            1,
            1,
        ),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn device_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Device {
        reason: format!("{what}: {e}"),
    }
}

/// Whether a CUDA driver library can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; no other effect.
    std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false)
}

struct Inner {
    ordinal: usize,
    _ctx: Arc<RawContext>,
    stream: Arc<CudaStream>,
    /// One module per op, JIT-compiled by the driver on the op's first launch, with its
    /// kernels' parameter lists.
    modules: std::sync::Mutex<std::collections::HashMap<String, OpModule>>,
    /// Modules loaded by [`CudaContext::load_module`] (user functor kernels), in load order.
    user_modules: std::sync::Mutex<Vec<UserModule>>,
}

/// The module of one op's kernels (weft's own PTX), with their parameter lists.
#[derive(Clone)]
struct OpModule {
    entries: Arc<EntryParams>,
    module: Arc<CudaModule>,
}

/// A PTX module loaded at run time, with the kernels it defines and their parameter lists.
struct UserModule {
    name: String,
    entries: EntryParams,
    module: Arc<CudaModule>,
}

/// Where [`CudaContext::launch_from`] finds its kernel.
#[derive(Copy, Clone)]
enum KernelSource {
    /// weft's own committed PTX (the op's module).
    Builtin,
    /// The modules loaded with [`CudaContext::load_module`].
    User,
}

/// One CUDA device with weft's kernels loaded. Cheap to clone (shared).
#[derive(Clone)]
pub struct CudaContext {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CudaContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaContext(cuda:{})", self.inner.ordinal)
    }
}

impl CudaContext {
    /// Opens device `ordinal` and loads `gpu/kernels.ptx` (the driver JIT-compiles it for the
    /// device; the driver caches the result).
    pub fn new(ordinal: usize) -> Result<Self> {
        if !driver_present() {
            return Err(Error::Device {
                reason: "no CUDA driver found (libcuda.so could not be loaded)".to_string(),
            });
        }
        // cudarc panics rather than erroring in a few driver-less corners; never let it escape.
        let ctx = std::panic::catch_unwind(|| RawContext::new(ordinal))
            .map_err(|_| Error::Device {
                reason: "no CUDA driver found (initialising the driver panicked)".to_string(),
            })?
            .map_err(|e| device_error(&format!("cuda:{ordinal}"), e))?;
        let stream = ctx.default_stream();
        Ok(CudaContext {
            inner: Arc::new(Inner {
                ordinal,
                _ctx: ctx,
                stream,
                modules: Default::default(),
                user_modules: Default::default(),
            }),
        })
    }

    pub fn device(&self) -> Device {
        Device::Cuda(self.inner.ordinal)
    }

    /// The stream every copy and launch of this context goes to (in order).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Waits for every queued copy and launch.
    pub fn synchronize(&self) -> Result<()> {
        self.inner
            .stream
            .synchronize()
            .map_err(|e| device_error("synchronize", e))
    }

    /// The module of `op`'s kernels: the committed PTX cut down to them ([`op_module_ptx`]),
    /// loaded once. A module of every kernel (17 MB of PTX) would cost the driver a long JIT
    /// on the first use; one op's kernels JIT in a fraction of a second.
    ///
    /// This is the private, safe path for weft's own PTX (its kernels are the ones
    /// `gpu_kernel_list!` writes, whose parameters every launch still checks).
    fn module(&self, op: &str) -> Result<OpModule> {
        let mut m = self.inner.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(module) = m.get(op) {
            return Ok(module.clone());
        }
        let ptx = op_module_ptx(&KERNELS_PTX, op);
        let entries = Arc::new(entry_params(&format!("the kernels of {op}"), &ptx)?);
        let module = self
            ._ctx_ref()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| device_error(&format!("loading the kernels of {op}"), e))?;
        let module = OpModule { entries, module };
        m.insert(op.to_string(), module.clone());
        Ok(module)
    }

    /// Loads a PTX module built by `gpu/build-user-ptx.sh` (the kernels of
    /// [`gpu_user_kernels!`](crate::gpu_user_kernels)) under `name`; the driver JIT-compiles it
    /// for this device. Its kernels are then found by name by the custom-functor calls on device
    /// tensors (`CudaTensor::zip_with`, ...) and [`CudaContext::launch_user`]. Loading a name
    /// again replaces that module; a kernel defined by several modules is taken from the one
    /// loaded last.
    ///
    /// Checked here: the text parses, it defines at least one kernel, and every kernel's
    /// parameter list can be sized ([`abi::ptx_entry_params`]). Checked at each launch: the
    /// kernel's parameters have exactly the sizes and alignments of what the launch passes
    /// (`numel` or the strided layout, the functor value unless zero-sized, one pointer per
    /// operand), else [`Error::Device`] instead of a launch. Not checkable: what the kernels do.
    ///
    /// # Safety
    ///
    /// The kernels of `ptx` run with weft's device buffers as arguments, so they must be what
    /// weft's launchers take them for. For every kernel `{op}_{t}_{c|s}` it defines, whenever a
    /// program launches it (through `CudaTensor::{map, zip_with, zip3_with}`, [`apply_cuda`],
    /// or [`CudaContext::launch_user`]):
    ///
    /// * it was written by [`gpu_user_kernels!`](crate::gpu_user_kernels) for the functor type
    ///   the host passes under that op name (the type whose
    ///   [`DynFunctor::NAME`](crate::ops::custom::DynFunctor::NAME) is `op`, with the same
    ///   fields, `#[repr(C)]` or otherwise laid out alike on host and nvptx64), and that
    ///   type's [`DynFunctor::signature`](crate::ops::custom::DynFunctor::signature) for `t` is
    ///   the one the kernel was compiled with (`gpu_user_kernels!` writes both from one list);
    /// * it accesses no memory but the elements its layout argument describes, and writes every
    ///   element of its output (a launch's output is not zeroed first).
    ///
    /// PTX built by `gpu/build-user-ptx.sh` from a crate whose functors are all listed in its
    /// `gpu_user_kernels!`, from the weft version the program links, meets this. A PTX from
    /// anywhere else is arbitrary device code with access to the process's device memory.
    ///
    /// [`apply_cuda`]: crate::device::user::apply_cuda
    pub unsafe fn load_module(&self, name: &str, ptx: &str) -> Result<()> {
        let entries = entry_params(&format!("module {name}"), ptx)?;
        if entries.is_empty() {
            return Err(Error::InvalidArgument {
                op: "load_module",
                reason: format!("module {name}: the PTX defines no kernel (.entry)"),
            });
        }
        let module = self
            ._ctx_ref()
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|e| device_error(&format!("loading PTX module {name}"), e))?;
        let mut m = self
            .inner
            .user_modules
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        m.retain(|u| u.name != name);
        m.push(UserModule {
            name: name.to_string(),
            entries,
            module,
        });
        Ok(())
    }

    /// [`CudaContext::load_module`] with the PTX read from a file; the module is named after
    /// the file stem.
    ///
    /// # Safety
    ///
    /// As [`CudaContext::load_module`]: the file's kernels must be the ones
    /// [`gpu_user_kernels!`](crate::gpu_user_kernels) wrote for the functor types the program
    /// launches under their names (e.g. the output of `gpu/build-user-ptx.sh` for the crate
    /// those functors come from).
    pub unsafe fn load_module_file(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        let ptx = std::fs::read_to_string(path).map_err(|e| Error::InvalidArgument {
            op: "load_module_file",
            reason: format!("{}: {e}", path.display()),
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: the caller's contract is load_module's (this function's `# Safety`).
        unsafe { self.load_module(&name, &ptx) }
    }

    /// The names of the modules loaded with [`CudaContext::load_module`], in load order.
    pub fn user_modules(&self) -> Vec<String> {
        let m = self
            .inner
            .user_modules
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        m.iter().map(|u| u.name.clone()).collect()
    }

    /// Kernel `name` from the loaded user modules (the last loaded first), with its parameters.
    fn user_function(&self, name: &str) -> Result<(cudarc::driver::CudaFunction, Vec<Param>)> {
        let m = self
            .inner
            .user_modules
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let Some(u) = m.iter().rev().find(|u| u.entries.contains_key(name)) else {
            let loaded: Vec<&str> = m.iter().map(|u| u.name.as_str()).collect();
            return Err(Error::Device {
                reason: user_kernel_missing(name, &loaded),
            });
        };
        let func = u
            .module
            .load_function(name)
            .map_err(|e| device_error(&format!("kernel {name} of module {}", u.name), e))?;
        Ok((func, u.entries[name].clone()))
    }

    fn _ctx_ref(&self) -> &Arc<RawContext> {
        &self.inner._ctx
    }

    /// Copies a host tensor to the device (the result is contiguous).
    pub fn to_device<T: Element>(&self, t: &Tensor<T>) -> Result<CudaTensor> {
        let data = t.try_to_vec()?;
        self.from_slice(&data, t.shape())
    }

    /// A contiguous device tensor with `shape` holding `data`.
    pub fn from_slice<T: Element>(&self, data: &[T], shape: &[usize]) -> Result<CudaTensor> {
        let n = checked_numel(shape, size_of::<T>())?;
        if n != data.len() {
            return Err(Error::NumelMismatch {
                what: "CudaContext::from_slice",
                shape: shape.to_vec(),
                expected: n,
                got: data.len(),
            });
        }
        // SAFETY: every element type is plain data without padding (bool is one byte 0/1), so
        // its bytes are initialised; the slice covers exactly the `data` allocation.
        let bytes =
            unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, size_of_val(data)) };
        let buf = if bytes.is_empty() {
            self.alloc_bytes(0)?
        } else {
            self.inner
                .stream
                .clone_htod(bytes)
                .map_err(|e| device_error("copy to device", e))?
        };
        Ok(CudaTensor {
            ctx: self.clone(),
            buf: Arc::new(buf),
            dtype: T::DTYPE,
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous device tensor of zeros.
    pub fn zeros(&self, dtype: DType, shape: &[usize]) -> Result<CudaTensor> {
        let n = checked_numel(shape, dtype.size())?;
        Ok(CudaTensor {
            ctx: self.clone(),
            buf: Arc::new(self.alloc_bytes(n * dtype.size())?),
            dtype,
            layout: Layout::contiguous(shape),
        })
    }

    /// A contiguous tensor for an elementwise launch to fill: not zeroed (a memset of the
    /// whole output cost a fifth of a 2^28-element `add` on an H200), so it is only ever
    /// returned after a launch that writes every element (`launch_from`: its kernels cover
    /// `0..numel` of a contiguous output; a failed launch drops it unread).
    fn launch_output(&self, dtype: DType, shape: &[usize]) -> Result<CudaTensor> {
        let n = checked_numel(shape, dtype.size())?;
        // SAFETY: the bytes are device memory, never read by the host before the launch that
        // writes all of them (see above); the stream orders that launch before any later copy
        // out. Until then no `&[T]` of them exists on the host.
        let buf = unsafe { self.inner.stream.alloc::<u8>((n * dtype.size()).max(1)) }
            .map_err(|e| device_error("device allocation", e))?;
        Ok(CudaTensor {
            ctx: self.clone(),
            buf: Arc::new(buf),
            dtype,
            layout: Layout::contiguous(shape),
        })
    }

    fn alloc_bytes(&self, n: usize) -> Result<CudaSlice<u8>> {
        self.inner
            .stream
            .alloc_zeros::<u8>(n.max(1))
            .map_err(|e| device_error("device allocation", e))
    }

    /// Runs unary kernel `op` computing in `A` (`{op}_{A}_{variant}`) with functor `f`.
    pub fn unary<F, A>(&self, op: &str, f: F, a: &CudaTensor) -> Result<CudaTensor>
    where
        F: Functor<(A,)>,
        F::Output: Element,
        A: Element,
    {
        self.launch(op, A::DTYPE, f, &[<F::Output>::DTYPE, A::DTYPE], &[a], None)
    }

    /// Runs binary kernel `op` computing in `(A, B)`; operands broadcast.
    pub fn binary<F, A, B>(
        &self,
        op: &str,
        f: F,
        a: &CudaTensor,
        b: &CudaTensor,
    ) -> Result<CudaTensor>
    where
        F: Functor<(A, B)>,
        F::Output: Element,
        A: Element,
        B: Element,
    {
        self.launch(
            op,
            A::DTYPE,
            f,
            &[<F::Output>::DTYPE, A::DTYPE, B::DTYPE],
            &[a, b],
            None,
        )
    }

    /// Runs `{op}_scalar_*`: `f(a, s)` with the scalar passed as a kernel argument.
    pub fn binary_scalar<F, A, S>(&self, op: &str, f: F, a: &CudaTensor, s: S) -> Result<CudaTensor>
    where
        F: Functor<(A, S)>,
        F::Output: Element,
        A: Element,
        S: Copy + Send + Sync,
    {
        self.unary::<WithScalar<F, S>, A>(&format!("{op}_scalar"), WithScalar { f, rhs: s }, a)
    }

    /// Runs ternary kernel `op` computing in `(A, B, C)`; operands broadcast.
    pub fn ternary<F, A, B, C>(
        &self,
        op: &str,
        f: F,
        a: &CudaTensor,
        b: &CudaTensor,
        c: &CudaTensor,
    ) -> Result<CudaTensor>
    where
        F: Functor<(A, B, C)>,
        F::Output: Element,
        A: Element,
        B: Element,
        C: Element,
    {
        // The list's `T` of a ternary entry is its last argument (`where (bool, T, T)`).
        self.launch(
            op,
            C::DTYPE,
            f,
            &[<F::Output>::DTYPE, A::DTYPE, B::DTYPE, C::DTYPE],
            &[a, b, c],
            None,
        )
    }

    /// Launches `{op}_{kernel_t}_{variant}`. `types[0]` is the output dtype, `types[1..]` the
    /// kernel's input types; `f` is the functor value (its bytes are the kernel argument; `()`
    /// for a zero-sized functor); `also_broadcast`: a shape the output also broadcasts with
    /// (an operand folded into the functor).
    pub(crate) fn launch<F: Copy>(
        &self,
        op: &str,
        kernel_t: DType,
        f: F,
        types: &[DType],
        inputs: &[&CudaTensor],
        also_broadcast: Option<&[usize]>,
    ) -> Result<CudaTensor> {
        self.launch_to(op, kernel_t, f, types, types[0], inputs, also_broadcast)
    }

    /// [`launch`](Self::launch) writing an output of dtype `out_dtype`, which may differ from
    /// the kernel's output type `types[0]` (the `copy` kernels as casts): then only the strided
    /// kernel, which stores with the output's runtime dtype, may run.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_to<F: Copy>(
        &self,
        op: &str,
        kernel_t: DType,
        f: F,
        types: &[DType],
        out_dtype: DType,
        inputs: &[&CudaTensor],
        also_broadcast: Option<&[usize]>,
    ) -> Result<CudaTensor> {
        self.launch_from(
            KernelSource::Builtin,
            op,
            kernel_t,
            f,
            types,
            out_dtype,
            inputs,
            also_broadcast,
        )
    }

    /// Launches kernel `{op}_{kernel_t}_{c|s}` of a module loaded with
    /// [`CudaContext::load_module`] over `inputs` (broadcast) into a new tensor of dtype
    /// `types[0]`. `types` is the kernel's signature: output dtype, then each argument's
    /// ([`DynFunctor::signature`](crate::ops::custom::DynFunctor::signature)); operands of other
    /// dtypes go through the strided kernel, which converts them. `f` is the functor value,
    /// copied byte for byte into the kernel argument: it must be the type the kernel was
    /// compiled with (`#[repr(C)]` plain data). The custom-functor calls on [`CudaTensor`]
    /// (`map`, `zip_with`, ...) choose all of this from the functor's `DynFunctor` impl.
    ///
    /// The kernel's parameter list is checked against what is passed (sizes and alignments,
    /// see [`CudaContext::load_module`]); the dtypes its body reads and writes cannot be.
    ///
    /// # Safety
    ///
    /// Kernel `{op}_{kernel_t}_{c|s}` of the loaded modules must have been compiled for a functor
    /// of type `F` (same fields and layout) with the signature `types`: output dtype `types[0]`,
    /// argument `k` of dtype `types[k + 1]` (a kernel reading 8-byte elements from a buffer of
    /// 4-byte ones reads past its end), and it must write every element of its output (which
    /// is not zeroed first).
    pub unsafe fn launch_user<F: Copy>(
        &self,
        op: &str,
        kernel_t: DType,
        f: F,
        types: &[DType],
        inputs: &[&CudaTensor],
    ) -> Result<CudaTensor> {
        if types.len() != inputs.len() + 1 {
            return Err(Error::InvalidArgument {
                op: "launch_user",
                reason: format!(
                    "{} types for {} inputs (the output's, then one per input)",
                    types.len(),
                    inputs.len()
                ),
            });
        }
        self.launch_from(
            KernelSource::User,
            op,
            kernel_t,
            f,
            types,
            types[0],
            inputs,
            None,
        )
    }

    /// The device address of `t`'s element 0.
    pub(crate) fn address(&self, t: &CudaTensor) -> u64 {
        self.element_ptr(t).0
    }

    /// The device address of `t`'s element 0, and the guard that keeps the stream's use of
    /// the buffer ordered until it is dropped.
    fn element_ptr<'a>(&'a self, t: &'a CudaTensor) -> (u64, impl Drop + 'a) {
        let (base, guard) = t.buf.device_ptr(&self.inner.stream);
        (base + (t.layout.offset() * t.dtype.size()) as u64, guard)
    }

    /// Refuses operands of another context.
    fn check_same_context<'a>(
        &self,
        tensors: impl IntoIterator<Item = &'a CudaTensor>,
    ) -> Result<()> {
        for t in tensors {
            if !Arc::ptr_eq(&t.ctx.inner, &self.inner) {
                return Err(Error::InvalidArgument {
                    op: "cuda launch",
                    reason: format!("an operand lives on another context ({})", t.ctx.device()),
                });
            }
        }
        Ok(())
    }

    /// Launches weft's kernel `name` (of the module of `module`'s kernels) over `threads`
    /// threads with the plain-data first argument `first` and then the device addresses of
    /// `tensors` (a null pointer for `None`), after checking the kernel declares exactly those
    /// parameters. The reduction kernels' launch.
    ///
    /// # Safety
    /// `first` and the tensors must be what kernel `name`'s body takes them for (their dtypes
    /// and extents: `device::reduce_plan` builds both for the reduction kernels).
    pub(crate) unsafe fn launch_plain<A: DeviceRepr>(
        &self,
        module: &str,
        name: &str,
        first: &[A],
        tensors: &[Option<&CudaTensor>],
        threads: u64,
    ) -> Result<()> {
        self.check_same_context(tensors.iter().flatten().copied())?;
        if threads == 0 {
            return Ok(());
        }
        let m = self.module(module)?;
        let func = m
            .module
            .load_function(name)
            .map_err(|e| device_error(&format!("kernel {name} (not in gpu/kernels.ptx?)"), e))?;
        let declared = m.entries.get(name).cloned().unwrap_or_default();
        let mut pushed: Vec<Param> = first.iter().map(|_| Param::of::<A>()).collect();
        pushed.extend(core::iter::repeat_n(Param::of::<u64>(), tensors.len()));
        abi::check_params(name, &declared, &pushed).map_err(|reason| Error::Device { reason })?;
        let stream = &self.inner.stream;
        let mut guards = Vec::with_capacity(tensors.len());
        let mut ptrs: Vec<u64> = Vec::with_capacity(tensors.len());
        for t in tensors {
            match t {
                Some(t) => {
                    let (p, guard) = self.element_ptr(t);
                    guards.push(guard);
                    ptrs.push(p);
                }
                None => ptrs.push(0),
            }
        }
        let mut b = stream.launch_builder(&func);
        for a in first {
            b.arg(a);
        }
        for p in &ptrs {
            b.arg(p);
        }
        // SAFETY: the kernel declares exactly the parameters pushed (checked above); the
        // buffers are live (guards held until the launch is queued; cudarc frees a dropped
        // buffer in stream order); what they hold is the caller's contract.
        unsafe { b.launch(launch_config(threads)) }
            .map(|_| ())
            .map_err(|e| device_error(&format!("launching {name}"), e))?;
        drop(guards);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_from<F: Copy>(
        &self,
        source: KernelSource,
        op: &str,
        kernel_t: DType,
        f: F,
        types: &[DType],
        out_dtype: DType,
        inputs: &[&CudaTensor],
        also_broadcast: Option<&[usize]>,
    ) -> Result<CudaTensor> {
        self.check_same_context(inputs.iter().copied())?;
        let mut shape = broadcast_shapes(inputs)?;
        if let Some(extra) = also_broadcast {
            shape = crate::iter::broadcast_shapes("cuda launch", &shape, extra)?.to_vec();
        }
        let out = self.launch_output(out_dtype, &shape)?;
        let numel = out.numel();
        if numel == 0 {
            return Ok(out);
        }
        let stream = &self.inner.stream;

        // Byte strides (0 on broadcast dims) and base addresses of every operand, output first.
        let operands: Vec<&CudaTensor> = std::iter::once(&out)
            .chain(inputs.iter().copied())
            .collect();
        let mut strides: Vec<Vec<isize>> = Vec::with_capacity(operands.len());
        let mut ptrs: Vec<u64> = Vec::with_capacity(operands.len());
        let mut guards = Vec::with_capacity(operands.len());
        for t in &operands {
            strides.push(broadcast_byte_strides(t, &shape));
            let (p, guard) = self.element_ptr(t);
            guards.push(guard);
            ptrs.push(p);
        }
        let dtypes: Vec<DType> = operands.iter().map(|t| t.dtype).collect();
        let same_types = dtypes == types;
        let contiguous = operands
            .iter()
            .all(|t| t.layout.shape() == shape.as_slice() && t.layout.is_contiguous());
        let sizes: Vec<usize> = types.iter().map(|d| d.size()).collect();
        let aligned = contiguous_aligned(
            &ptrs
                .iter()
                .zip(&sizes)
                .map(|(&p, &s)| (p as usize, s))
                .collect::<Vec<_>>(),
        );
        let stride_refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();

        let farg = FunctorArg(f);
        let zst = size_of::<F>() == 0;
        let kernel_dtype = kernel_t;
        let run = |variant: &str, first: FirstArg, threads: u64| -> Result<()> {
            let name = kernel_name(op, kernel_dtype, variant);
            let (func, declared) = match source {
                KernelSource::Builtin => {
                    let m = self.module(op)?;
                    let func = m.module.load_function(&name).map_err(|e| {
                        device_error(&format!("kernel {name} (not in gpu/kernels.ptx?)"), e)
                    })?;
                    let declared = m.entries.get(&name).cloned().unwrap_or_default();
                    (func, declared)
                }
                KernelSource::User => self.user_function(&name)?,
            };
            // What the driver will copy: each declared parameter's size from the matching
            // pushed value. Refuse any difference before launching.
            let pushed = abi::launch_params(variant, Param::of::<F>(), ptrs.len());
            abi::check_params(&name, &declared, &pushed)
                .map_err(|reason| Error::Device { reason })?;
            let mut b = stream.launch_builder(&func);
            match &first {
                FirstArg::Numel(n) => b.arg(n),
                FirstArg::Strided(l) => b.arg(l),
            };
            if !zst {
                b.arg(&farg);
            }
            for p in &ptrs {
                b.arg(p);
            }
            // SAFETY: the kernel declares exactly the parameters pushed, in order and each of
            // the pushed value's size (checked just above): layout or numel, functor unless
            // zero-sized, out, inputs. The layout/numel and pointers describe live device
            // buffers (the `device_ptr` guards are held until the launch is queued; cudarc frees
            // a dropped buffer in stream order, after it) of the dtypes the kernel reads and
            // writes: weft's own kernels by `gpu_kernel_list!` and the plans of device/elementwise_plan.rs
            // (`DeviceBackend::launch`'s contract), a
            // user kernel by the contract of `load_module` / `launch_user`.
            unsafe { b.launch(launch_config(threads)) }
                .map(|_| ())
                .map_err(|e| device_error(&format!("launching {name}"), e))
        };

        if same_types && contiguous && aligned {
            let n = numel as u64;
            run("c", FirstArg::Numel(n), contiguous_chunks(n, &sizes))?;
        } else {
            // 32-bit index math when every offset fits, else 64-bit; operands whose dtype is not
            // the kernel's are converted while loading/storing.
            let l = StridedLayout::new(&shape, &stride_refs, &dtypes).map_err(layout_error)?;
            run("s", FirstArg::Strided(l), numel as u64)?;
        }
        drop(guards);
        Ok(out)
    }
}

/// The PTX of one op's kernels: `ptx` with only the `.entry` definitions of `op` and the `.func`
/// helpers they call, directly or through other helpers (declarations and definitions); the
/// header, comments and global tables are kept whole. Kernel names are `{op}_{type}_{variant}`
/// (a reduction kernel: `{op}_{type}`), so `op` selects the entries named
/// `{op}_<type>[_<variant>]`.
pub fn op_module_ptx(ptx: &str, op: &str) -> String {
    let keeps = |name: &str| {
        name.strip_prefix(op)
            .and_then(|r| r.strip_prefix('_'))
            .is_some_and(|r| {
                crate::dtype::DType::ALL.iter().any(|&d| {
                    r.strip_prefix(crate::device::kernel_list::kernel_suffix(d))
                        .is_some_and(|v| {
                            // `{op}_{type}_{variant}`, or `{op}_{type}` (the reductions).
                            v.is_empty() || (v.starts_with('_') && !v[1..].contains('_'))
                        })
                })
            })
    };
    // Top-level pieces: a function (entry or .func; a declaration ends with a `;` line, a
    // definition with a `}` line) or any other line (kept).
    enum Piece<'a> {
        Other(&'a str),
        Func {
            entry: bool,
            name: &'a str,
            text: Vec<&'a str>,
        },
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let head = line
            .strip_prefix(".visible ")
            .or_else(|| line.strip_prefix(".weak "))
            .unwrap_or(line);
        let entry = head.starts_with(".entry ");
        if !(entry || head.starts_with(".func ")) {
            pieces.push(Piece::Other(line));
            continue;
        }
        // `.func (.param .b32 func_retval0) NAME` or `.entry NAME(`: the name follows the
        // return-value group, up to `(` or the end of the line.
        let rest = head.split_once(' ').map_or("", |(_, r)| r).trim_start();
        let rest = if rest.starts_with('(') {
            rest.split_once(')').map_or("", |(_, r)| r).trim_start()
        } else {
            rest
        };
        let name = rest.split(['(', ' ']).next().unwrap_or("");
        let mut text = vec![line];
        for l in lines.by_ref() {
            text.push(l);
            if l == ";" || l == "}" {
                break;
            }
        }
        pieces.push(Piece::Func { entry, name, text });
    }
    // Which helpers each definition references (any token that names a .func).
    let funcs: std::collections::HashSet<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Func {
                entry: false, name, ..
            } => Some(*name),
            _ => None,
        })
        .collect();
    let calls = |text: &[&'_ str]| -> Vec<String> {
        text.iter()
            .skip(1)
            .filter(|l| l.contains("call"))
            .flat_map(|l| {
                l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                    .filter(|t| funcs.contains(t))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let mut bodies: std::collections::HashMap<&str, Vec<String>> = Default::default();
    let mut wanted: std::collections::HashSet<String> = Default::default();
    let mut stack: Vec<String> = Vec::new();
    for p in &pieces {
        if let Piece::Func { entry, name, text } = p {
            if *entry {
                if keeps(name) {
                    stack.extend(calls(text));
                }
            } else if text.last() == Some(&"}") {
                bodies.insert(name, calls(text));
            }
        }
    }
    while let Some(f) = stack.pop() {
        if wanted.insert(f.clone())
            && let Some(c) = bodies.get(f.as_str())
        {
            stack.extend(c.iter().cloned());
        }
    }
    let mut out = String::with_capacity(1 << 20);
    for p in &pieces {
        match p {
            Piece::Other(l) => {
                out.push_str(l);
                out.push('\n');
            }
            Piece::Func { entry, name, text } => {
                let keep = if *entry {
                    keeps(name)
                } else {
                    wanted.contains(*name)
                };
                if keep {
                    for l in text {
                        out.push_str(l);
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}

/// The error text for a user kernel that no loaded module defines.
pub fn user_kernel_missing(name: &str, loaded: &[&str]) -> String {
    if loaded.is_empty() {
        format!(
            "kernel {name} not found: no user PTX module is loaded (build your functor crate with \
             gpu/build-user-ptx.sh, then CudaContext::load_module / load_module_file)"
        )
    } else {
        format!(
            "kernel {name} not found in the loaded user modules ({}): is its op and dtype listed \
             in the crate's weft::gpu_user_kernels!, and the PTX rebuilt since?",
            loaded.join(", ")
        )
    }
}

/// The first kernel parameter of each variant (a short-lived stack value, hence the size).
#[allow(clippy::large_enum_variant)]
enum FirstArg {
    Numel(u64),
    Strided(StridedLayout),
}

fn layout_error(e: LayoutError) -> Error {
    Error::InvalidArgument {
        op: "cuda launch",
        reason: e.to_string(),
    }
}

/// The broadcast shape of the inputs (the iterator's broadcasting, pairwise).
fn broadcast_shapes(inputs: &[&CudaTensor]) -> Result<Vec<usize>> {
    inputs.iter().try_fold(Vec::new(), |shape, t| {
        Ok(crate::iter::broadcast_shapes("cuda launch", &shape, t.layout.shape())?.to_vec())
    })
}

/// Byte strides of `t` viewed with `shape` (right-aligned; expanded dims get stride 0).
fn broadcast_byte_strides(t: &CudaTensor, shape: &[usize]) -> Vec<isize> {
    let (s, st) = (t.layout.shape(), t.layout.strides());
    let lead = shape.len() - s.len();
    let size = t.dtype.size() as isize;
    (0..shape.len())
        .map(|d| {
            if d < lead || s[d - lead] == 1 {
                0
            } else {
                st[d - lead] * size
            }
        })
        .collect()
}

/// A strided view of a device buffer with a runtime dtype.
#[derive(Clone)]
pub struct CudaTensor {
    ctx: CudaContext,
    buf: Arc<CudaSlice<u8>>,
    dtype: DType,
    layout: Layout,
}

impl std::fmt::Debug for CudaTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaTensor({}, {}, shape {:?}, strides {:?}, offset {})",
            self.ctx.device(),
            self.dtype,
            self.layout.shape(),
            self.layout.strides(),
            self.layout.offset()
        )
    }
}

impl CudaTensor {
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    pub fn device(&self) -> Device {
        self.ctx.device()
    }
    pub fn context(&self) -> &CudaContext {
        &self.ctx
    }

    /// Elements the underlying buffer holds.
    fn buffer_len(&self) -> usize {
        self.buf.len() / self.dtype.size()
    }

    /// A view of the same buffer with another shape, element strides (any sign) and offset;
    /// errors unless every element lies inside the buffer.
    pub fn as_strided(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Self> {
        let layout = Layout::new(shape.to_vec(), strides.to_vec(), offset)?;
        if checked_numel(shape, self.dtype.size())? > 0 {
            layout.check_fits(self.buffer_len(), self.dtype.size())?;
        }
        Ok(CudaTensor {
            layout,
            ..self.clone()
        })
    }

    /// The dims in a new order (a view).
    pub fn permute(&self, dims: &[usize]) -> Result<Self> {
        let nd = self.layout.ndim();
        let mut seen = vec![false; nd];
        if dims.len() != nd {
            return Err(Error::InvalidArgument {
                op: "permute",
                reason: format!("{} dims given for a {nd}-dim tensor", dims.len()),
            });
        }
        for &d in dims {
            if d >= nd || seen[d] {
                return Err(Error::InvalidArgument {
                    op: "permute",
                    reason: format!("{dims:?} is not a permutation of 0..{nd}"),
                });
            }
            seen[d] = true;
        }
        let shape: Vec<usize> = dims.iter().map(|&d| self.layout.shape()[d]).collect();
        let strides: Vec<isize> = dims.iter().map(|&d| self.layout.strides()[d]).collect();
        self.as_strided(&shape, &strides, self.layout.offset())
    }

    /// Copies the elements back into a host tensor (same shape, contiguous).
    pub fn to_host<T: Element>(&self) -> Result<Tensor<T>> {
        if T::DTYPE != self.dtype {
            return Err(Error::DTypeMismatch {
                op: "to_host",
                expected: self.dtype,
                got: T::DTYPE,
            });
        }
        let mut bytes: Vec<u8> = self
            .ctx
            .inner
            .stream
            .clone_dtoh(self.buf.as_ref())
            .map_err(|e| device_error("copy to host", e))?;
        if self.dtype == DType::Bool {
            // Only 0/1 are valid bools; never trust device bytes with that.
            bytes.iter_mut().for_each(|b| *b = (*b != 0) as u8);
        }
        let n = self.buffer_len();
        let storage = Storage::<T>::try_zeroed(n)?;
        // SAFETY: the fresh storage holds n elements = n * size_of::<T>() bytes <= bytes.len();
        // the bytes are valid values of T (bool sanitised above), and nothing else aliases it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                storage.as_mut_ptr() as *mut u8,
                n * size_of::<T>(),
            )
        };
        let full = Tensor::from_parts(storage, self.layout.clone())?;
        Ok(if full.is_contiguous() {
            full
        } else {
            full.contiguous()
        })
    }

    /// The elements in row-major order.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.to_host::<T>()?.try_to_vec()
    }
}
