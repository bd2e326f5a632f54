//! The one interface between the device planners and a device: [`DeviceBackend`].

use super::reduce::ReduceLaunch;
use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::Result;
use crate::scalar::Scalar;

/// What the device ops need of a device: tensors, views, elementwise and reduction launches.
/// The CUDA context implements it (`device::cuda`, `device::reduce_ops`), and so does the host
/// emulation in `tests/gpu_emulation.rs`, which runs the very planners
/// ([`super::elementwise_plan`], [`super::reduce_plan`]) with the kernel bodies on the host.
pub trait DeviceBackend {
    type Tensor;
    /// Another handle on the same elements (no copy).
    fn share(&self, t: &Self::Tensor) -> Self::Tensor;
    fn dtype(&self, t: &Self::Tensor) -> DType;
    fn shape<'a>(&self, t: &'a Self::Tensor) -> &'a [usize];
    /// Strides in elements.
    fn strides<'a>(&self, t: &'a Self::Tensor) -> &'a [isize];
    fn is_contiguous(&self, t: &Self::Tensor) -> bool;
    /// A fresh contiguous tensor of zeros.
    fn zeros(&self, dtype: DType, shape: &[usize]) -> Result<Self::Tensor>;
    /// A fresh row-major contiguous copy converted to `dtype` (PyTorch's conversion).
    fn to_contiguous(&self, t: &Self::Tensor, dtype: DType) -> Result<Self::Tensor>;
    /// A view with the dims permuted.
    fn permute(&self, t: &Self::Tensor, dims: &[usize]) -> Result<Self::Tensor>;
    /// A view of a contiguous tensor with another shape of the same element count.
    fn reshape(&self, t: &Self::Tensor, shape: &[usize]) -> Result<Self::Tensor>;
    /// The device address of the tensor's element 0 (a reducer's `maxima` argument).
    fn address(&self, t: &Self::Tensor) -> u64;
    /// Launches reduction kernel `name` over `threads` threads with argument `l`: the outputs
    /// (fresh, contiguous; one or two), the input view, and the scratch buffer of the
    /// `Chunks`/`Combine` modes (a contiguous u64 tensor; a null pointer when `None`).
    ///
    /// # Safety
    /// `l` describes `input`'s layout and the outputs and scratch buffer that kernel `name`'s
    /// reducer writes (fresh, contiguous, of its output dtypes and state size), and `threads`
    /// is at most one per item of `l`'s mode (what [`super::reduce_plan`] builds).
    unsafe fn launch_reduce(
        &self,
        name: &str,
        l: &ReduceLaunch,
        threads: u64,
        outs: &[&Self::Tensor],
        input: &Self::Tensor,
        scratch: Option<&Self::Tensor>,
    ) -> Result<()>;
    /// Launches `reduce_softmax_rows_{t}`: `rows` rows of `n` elements of the contiguous `x`
    /// into the fresh contiguous `out`.
    ///
    /// # Safety
    /// `x` is contiguous and `out` fresh and contiguous, each `rows * n` elements of the
    /// kernel's type.
    unsafe fn launch_softmax_rows(
        &self,
        name: &str,
        rows: u64,
        n: u64,
        log: bool,
        out: &Self::Tensor,
        x: &Self::Tensor,
    ) -> Result<()>;
    /// Launches elementwise kernel `{op}_{t}` (`t` = [`kernel_suffix`]`(kt)`, a kernel of
    /// `gpu_kernel_list!`) with functor argument `f` (its bytes are the kernel argument) over
    /// `inputs`, whose kernel types are `types[1..]`, into a fresh contiguous output of
    /// `out_dtype` (`types[0]` unless the kernel casts while storing) whose shape is the
    /// inputs' broadcast shape, broadcast with `also` when given.
    ///
    /// [`kernel_suffix`]: super::kernel_list::kernel_suffix
    ///
    /// # Safety
    /// Kernel `{op}_{t}` exists in `gpu_kernel_list!` with functor argument type `F` and kernel
    /// types `types` (its contiguous form reads and writes exactly those types; a wrong type
    /// would read or write out of bounds on the device).
    #[allow(clippy::too_many_arguments)]
    unsafe fn launch<F: Copy>(
        &self,
        op: &str,
        kt: DType,
        f: F,
        types: &[DType],
        out_dtype: DType,
        inputs: &[&Self::Tensor],
        also: Option<&[usize]>,
    ) -> Result<Self::Tensor>;
    /// A 0-d tensor of `dtype` holding `s` converted ([`Scalar::to`]).
    fn scalar_tensor(&self, s: Scalar, dtype: DType) -> Result<Self::Tensor>;
    /// The elements copied to host memory.
    fn to_host(&self, t: &Self::Tensor) -> Result<DynTensor>;
    /// The `softmax_apply` kernel (elementwise, the row values broadcast along the dim): a new
    /// tensor of `x`'s shape and dtype.
    fn softmax_apply(
        &self,
        x: &Self::Tensor,
        maxima: &Self::Tensor,
        factors: &Self::Tensor,
        log: bool,
    ) -> Result<Self::Tensor>;
}
