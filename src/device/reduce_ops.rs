//! Reductions on device tensors (feature `cuda`): the `DynTensor` reduction methods' names and
//! results, bit-identical to the CPU's. The planner (`device::reduce_plan`) decides every
//! launch; this file is its [`DeviceBackend`] for a CUDA context, and the methods.

use super::backend::DeviceBackend;
use super::cuda::{CudaContext, CudaTensor};
use super::reduce::{ReduceLaunch, SoftmaxRowsLaunch};
use super::reduce_plan;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::{Error, OrPanic, Result};
use crate::reduce::reducers::SoftmaxApply;
use crate::reduce::{Dims, ReduceArgs, ReduceOp};
use crate::scalar::Scalar;

/// The module a reduction kernel `reduce_{family}_{t}` lives in (`reduce_{family}`).
fn module_of(name: &str) -> &str {
    name.rsplit_once('_').map_or(name, |(m, _)| m)
}

impl DeviceBackend for CudaContext {
    type Tensor = CudaTensor;
    fn share(&self, t: &CudaTensor) -> CudaTensor {
        t.clone()
    }
    fn dtype(&self, t: &CudaTensor) -> DType {
        t.dtype()
    }
    fn shape<'a>(&self, t: &'a CudaTensor) -> &'a [usize] {
        t.shape()
    }
    fn strides<'a>(&self, t: &'a CudaTensor) -> &'a [isize] {
        t.layout().strides()
    }
    fn is_contiguous(&self, t: &CudaTensor) -> bool {
        t.layout().is_contiguous()
    }
    fn zeros(&self, dtype: DType, shape: &[usize]) -> Result<CudaTensor> {
        CudaContext::zeros(self, dtype, shape)
    }
    fn to_contiguous(&self, t: &CudaTensor, dtype: DType) -> Result<CudaTensor> {
        t.try_to(dtype)
    }
    fn permute(&self, t: &CudaTensor, dims: &[usize]) -> Result<CudaTensor> {
        t.permute(dims)
    }
    fn reshape(&self, t: &CudaTensor, shape: &[usize]) -> Result<CudaTensor> {
        if !t.layout().is_contiguous() {
            return Err(Error::InvalidArgument {
                op: "reshape",
                reason: "internal: a device reduction reshapes contiguous tensors only".into(),
            });
        }
        let strides = crate::layout::contiguous_strides(shape);
        t.as_strided(shape, &strides, t.layout().offset())
    }
    fn address(&self, t: &CudaTensor) -> u64 {
        CudaContext::address(self, t)
    }
    unsafe fn launch<F: Copy>(
        &self,
        op: &str,
        kt: DType,
        f: F,
        types: &[DType],
        out_dtype: DType,
        inputs: &[&CudaTensor],
        also: Option<&[usize]>,
    ) -> Result<CudaTensor> {
        self.launch_to(op, kt, f, types, out_dtype, inputs, also)
    }
    fn scalar_tensor(&self, s: Scalar, dtype: DType) -> Result<CudaTensor> {
        crate::with_dtype!(dtype, T => self.from_slice(&[s.to::<T>()], &[]))
    }
    fn to_host(&self, t: &CudaTensor) -> Result<DynTensor> {
        t.to_cpu()
    }
    unsafe fn launch_reduce(
        &self,
        name: &str,
        l: &ReduceLaunch,
        threads: u64,
        outs: &[&CudaTensor],
        input: &CudaTensor,
        scratch: Option<&CudaTensor>,
    ) -> Result<()> {
        let tensors = [
            outs.first().copied(),
            outs.get(1).copied(),
            Some(input),
            scratch,
        ];
        // SAFETY: the caller's contract (`DeviceBackend::launch_reduce`): `l` describes
        // `input`'s layout and the fresh contiguous outputs and scratch buffer of kernel
        // `name`'s reducer (output dtypes, state size); at most one thread per item.
        unsafe { self.launch_plain(module_of(name), name, &[*l], &tensors, threads) }
    }
    unsafe fn launch_softmax_rows(
        &self,
        name: &str,
        rows: u64,
        n: u64,
        log: bool,
        out: &CudaTensor,
        x: &CudaTensor,
    ) -> Result<()> {
        let l = SoftmaxRowsLaunch {
            rows,
            n,
            log: log as u32,
        };
        // SAFETY: the caller's contract (`DeviceBackend::launch_softmax_rows`): a contiguous
        // `x` and a fresh contiguous `out` of `rows * n` elements of the kernel's type.
        unsafe { self.launch_plain(module_of(name), name, &[l], &[Some(out), Some(x)], rows) }
    }
    fn softmax_apply(
        &self,
        x: &CudaTensor,
        maxima: &CudaTensor,
        factors: &CudaTensor,
        log: bool,
    ) -> Result<CudaTensor> {
        let (t, f) = (x.dtype(), factors.dtype());
        self.launch(
            "softmax_apply",
            t,
            SoftmaxApply { log },
            &[t, t, t, f],
            &[x, maxima, factors],
            None,
        )
    }
}

/// `(dims, keepdim)` reductions on device tensors: `try_x` and `x`.
macro_rules! device_dims_reductions {
    ($($Op:ident $try:ident $name:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` over `dims` on the device (see [`ReduceOp::", stringify!($Op), "`]).")]
        pub fn $try(&self, dims: impl Into<Dims>, keepdim: bool) -> Result<CudaTensor> {
            self.reduce_one(ReduceOp::$Op, ReduceArgs::new(dims).keepdim(keepdim))
        }
        #[doc = concat!("`", stringify!($name), "` over `dims` on the device; panics on error.")]
        #[track_caller]
        pub fn $name(&self, dims: impl Into<Dims>, keepdim: bool) -> CudaTensor {
            self.$try(dims, keepdim).or_panic()
        }
    )*};
}

impl CudaTensor {
    /// Any reduction by its [`ReduceOp`] and [`ReduceArgs`] (all results: two for
    /// `max_dim`/`min_dim`), bit-identical to [`crate::DynTensor::try_reduce`] on the same
    /// values.
    pub fn try_reduce(&self, op: ReduceOp, args: &ReduceArgs) -> Result<Vec<CudaTensor>> {
        reduce_plan::reduce(self.context(), op, self, args)
    }

    device_dims_reductions! {
        Sum try_sum sum;
        Prod try_prod prod;
        Mean try_mean mean;
        Amax try_amax amax;
        Amin try_amin amin;
        Any try_any any;
        All try_all all;
        Logsumexp try_logsumexp logsumexp;
    }

    /// The one result of a single-output reduction.
    fn reduce_one(&self, op: ReduceOp, args: ReduceArgs) -> Result<CudaTensor> {
        self.try_reduce(op, &args).map(|mut v| v.swap_remove(0))
    }

    /// `var` with `correction` on the device.
    pub fn try_var(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<CudaTensor> {
        let args = ReduceArgs::new(dims).keepdim(keepdim);
        self.reduce_one(ReduceOp::Var, args.correction(correction))
    }

    /// `std` with `correction` on the device.
    pub fn try_std(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<CudaTensor> {
        let args = ReduceArgs::new(dims).keepdim(keepdim);
        self.reduce_one(ReduceOp::Std, args.correction(correction))
    }

    /// `argmax` along `dim` (`None`: of the flattened tensor) on the device.
    pub fn try_argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<CudaTensor> {
        self.reduce_one(ReduceOp::Argmax, ReduceArgs::new(dim).keepdim(keepdim))
    }

    /// `argmin` along `dim` (`None`: of the flattened tensor) on the device.
    pub fn try_argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<CudaTensor> {
        self.reduce_one(ReduceOp::Argmin, ReduceArgs::new(dim).keepdim(keepdim))
    }

    /// `max(dim)`: values and indices, on the device.
    pub fn try_max_dim(&self, dim: isize, keepdim: bool) -> Result<(CudaTensor, CudaTensor)> {
        self.values_indices(ReduceOp::MaxDim, dim, keepdim)
    }

    /// `min(dim)`: values and indices, on the device.
    pub fn try_min_dim(&self, dim: isize, keepdim: bool) -> Result<(CudaTensor, CudaTensor)> {
        self.values_indices(ReduceOp::MinDim, dim, keepdim)
    }

    fn values_indices(
        &self,
        op: ReduceOp,
        dim: isize,
        keepdim: bool,
    ) -> Result<(CudaTensor, CudaTensor)> {
        let mut r = self.try_reduce(op, &ReduceArgs::new(dim).keepdim(keepdim))?;
        let i = r.pop();
        match (r.pop(), i) {
            (Some(v), Some(i)) => Ok((v, i)),
            _ => Err(Error::InvalidArgument {
                op: op.name(),
                reason: "internal: expected values and indices".into(),
            }),
        }
    }

    /// `softmax` along `dim` on the device.
    pub fn try_softmax(&self, dim: isize) -> Result<CudaTensor> {
        self.reduce_one(ReduceOp::Softmax, ReduceArgs::new(dim))
    }

    /// `log_softmax` along `dim` on the device.
    pub fn try_log_softmax(&self, dim: isize) -> Result<CudaTensor> {
        self.reduce_one(ReduceOp::LogSoftmax, ReduceArgs::new(dim))
    }
}
