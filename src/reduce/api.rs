//! The reductions as `DynTensor` and `Tensor<T>` methods: `try_x` returns a `Result`, `x`
//! panics with the same message at the caller; `x_as` takes a result dtype, `x_out` writes into
//! a given tensor. Typed results are compile-time types (`Tensor<i32>::sum` is a
//! `Tensor<i64>`; `mean`, `var`, `std`, `softmax` exist only on float tensors).

use super::types::{ReduceElement, ReduceFloat};
use super::{Dims, ReduceArgs, ReduceOp, reduce, reduce_out};
use crate::dtype::DType;
use crate::error::{Error, OrPanic, Result};
use crate::{DynElement, DynTensor, Tensor};

fn one(op: ReduceOp, a: &DynTensor, args: ReduceArgs) -> Result<DynTensor> {
    Ok(reduce(op, a, &args)?.swap_remove(0))
}

fn two(op: ReduceOp, a: &DynTensor, args: ReduceArgs) -> Result<(DynTensor, DynTensor)> {
    let mut r = reduce(op, a, &args)?;
    let i = r.pop();
    match (r.pop(), i) {
        (Some(v), Some(i)) => Ok((v, i)),
        _ => Err(Error::InvalidArgument {
            op: op.name(),
            reason: "internal: expected values and indices".into(),
        }),
    }
}

fn typed<U: DynElement>(d: DynTensor) -> Result<Tensor<U>> {
    let got = d.dtype();
    U::unwrap(d).map_err(|_| Error::DTypeMismatch {
        op: "reduction",
        expected: U::DTYPE,
        got,
    })
}

/// `(dims, keepdim)` reductions: `try_x`, `x`, `try_x_out`, `x_out` on `DynTensor`.
macro_rules! dyn_dims_reductions {
    ($($Op:ident $try:ident $name:ident $try_out:ident $out:ident;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` over `dims` (see [`ReduceOp::", stringify!($Op), "`]).")]
        pub fn $try(&self, dims: impl Into<Dims>, keepdim: bool) -> Result<DynTensor> {
            one(ReduceOp::$Op, self, ReduceArgs::new(dims).keepdim(keepdim))
        }
        #[doc = concat!("`", stringify!($name), "` over `dims`; panics on error.")]
        #[track_caller]
        pub fn $name(&self, dims: impl Into<Dims>, keepdim: bool) -> DynTensor {
            self.$try(dims, keepdim).or_panic()
        }
        #[doc = concat!("`", stringify!($name), "` into `out` (the result's dtype and shape).")]
        pub fn $try_out(&self, dims: impl Into<Dims>, keepdim: bool, out: &mut DynTensor) -> Result<()> {
            reduce_out(ReduceOp::$Op, self, &ReduceArgs::new(dims).keepdim(keepdim), &mut [out])
        }
        #[doc = concat!("`", stringify!($name), "` into `out`; panics on error.")]
        #[track_caller]
        pub fn $out(&self, dims: impl Into<Dims>, keepdim: bool, out: &mut DynTensor) {
            self.$try_out(dims, keepdim, out).or_panic()
        }
    )*};
}

/// `(dims, keepdim, dtype)` forms of the reductions that take a dtype.
macro_rules! dyn_dtype_reductions {
    ($($Op:ident $try:ident $name:ident;)*) => {$(
        #[doc = concat!("`", stringify!($Op), "` with `dtype=`: the input is cast to `dtype` first, which is the result's dtype.")]
        pub fn $try(&self, dims: impl Into<Dims>, keepdim: bool, dtype: DType) -> Result<DynTensor> {
            one(ReduceOp::$Op, self, ReduceArgs::new(dims).keepdim(keepdim).dtype(dtype))
        }
        #[doc = concat!("`", stringify!($Op), "` with `dtype=`; panics on error.")]
        #[track_caller]
        pub fn $name(&self, dims: impl Into<Dims>, keepdim: bool, dtype: DType) -> DynTensor {
            self.$try(dims, keepdim, dtype).or_panic()
        }
    )*};
}

impl DynTensor {
    dyn_dims_reductions! {
        Sum try_sum sum try_sum_out sum_out;
        Prod try_prod prod try_prod_out prod_out;
        Mean try_mean mean try_mean_out mean_out;
        Amax try_amax amax try_amax_out amax_out;
        Amin try_amin amin try_amin_out amin_out;
        Any try_any any try_any_out any_out;
        All try_all all try_all_out all_out;
        Logsumexp try_logsumexp logsumexp try_logsumexp_out logsumexp_out;
    }
    dyn_dtype_reductions! {
        Sum try_sum_as sum_as;
        Prod try_prod_as prod_as;
        Mean try_mean_as mean_as;
    }

    /// Any reduction by its [`ReduceOp`] and [`ReduceArgs`] (all results).
    pub fn try_reduce(&self, op: ReduceOp, args: &ReduceArgs) -> Result<Vec<DynTensor>> {
        reduce(op, self, args)
    }

    /// `var` with `correction` (1: Bessel's, PyTorch's default).
    pub fn try_var(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<DynTensor> {
        one(
            ReduceOp::Var,
            self,
            ReduceArgs::new(dims)
                .keepdim(keepdim)
                .correction(correction),
        )
    }
    #[track_caller]
    pub fn var(&self, dims: impl Into<Dims>, correction: f64, keepdim: bool) -> DynTensor {
        self.try_var(dims, correction, keepdim).or_panic()
    }
    /// `std` with `correction` (1: Bessel's, PyTorch's default).
    pub fn try_std(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<DynTensor> {
        one(
            ReduceOp::Std,
            self,
            ReduceArgs::new(dims)
                .keepdim(keepdim)
                .correction(correction),
        )
    }
    #[track_caller]
    pub fn std(&self, dims: impl Into<Dims>, correction: f64, keepdim: bool) -> DynTensor {
        self.try_std(dims, correction, keepdim).or_panic()
    }

    /// Index of the first maximum along `dim` (`None`: of the flattened tensor); NaN counts
    /// as the maximum. An i64 tensor.
    pub fn try_argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<DynTensor> {
        one(
            ReduceOp::Argmax,
            self,
            ReduceArgs::new(dim).keepdim(keepdim),
        )
    }
    #[track_caller]
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> DynTensor {
        self.try_argmax(dim, keepdim).or_panic()
    }
    /// Index of the first minimum (NaN counts as the minimum).
    pub fn try_argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<DynTensor> {
        one(
            ReduceOp::Argmin,
            self,
            ReduceArgs::new(dim).keepdim(keepdim),
        )
    }
    #[track_caller]
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> DynTensor {
        self.try_argmin(dim, keepdim).or_panic()
    }
    /// `torch.max(x, dim)`: the maxima along `dim` and their (first) indices.
    pub fn try_max_dim(&self, dim: isize, keepdim: bool) -> Result<(DynTensor, DynTensor)> {
        two(
            ReduceOp::MaxDim,
            self,
            ReduceArgs::new(dim).keepdim(keepdim),
        )
    }
    #[track_caller]
    pub fn max_dim(&self, dim: isize, keepdim: bool) -> (DynTensor, DynTensor) {
        self.try_max_dim(dim, keepdim).or_panic()
    }
    /// `torch.min(x, dim)`: the minima along `dim` and their (first) indices.
    pub fn try_min_dim(&self, dim: isize, keepdim: bool) -> Result<(DynTensor, DynTensor)> {
        two(
            ReduceOp::MinDim,
            self,
            ReduceArgs::new(dim).keepdim(keepdim),
        )
    }
    #[track_caller]
    pub fn min_dim(&self, dim: isize, keepdim: bool) -> (DynTensor, DynTensor) {
        self.try_min_dim(dim, keepdim).or_panic()
    }

    /// `softmax` along `dim` (float tensors; see [`DynTensor::try_softmax_as`] for others).
    pub fn try_softmax(&self, dim: isize) -> Result<DynTensor> {
        one(ReduceOp::Softmax, self, ReduceArgs::new(dim))
    }
    #[track_caller]
    pub fn softmax(&self, dim: isize) -> DynTensor {
        self.try_softmax(dim).or_panic()
    }
    /// `softmax(dim, dtype=...)`: cast to `dtype` first.
    pub fn try_softmax_as(&self, dim: isize, dtype: DType) -> Result<DynTensor> {
        one(ReduceOp::Softmax, self, ReduceArgs::new(dim).dtype(dtype))
    }
    /// `log_softmax` along `dim`.
    pub fn try_log_softmax(&self, dim: isize) -> Result<DynTensor> {
        one(ReduceOp::LogSoftmax, self, ReduceArgs::new(dim))
    }
    #[track_caller]
    pub fn log_softmax(&self, dim: isize) -> DynTensor {
        self.try_log_softmax(dim).or_panic()
    }
    /// `log_softmax(dim, dtype=...)`.
    pub fn try_log_softmax_as(&self, dim: isize, dtype: DType) -> Result<DynTensor> {
        one(
            ReduceOp::LogSoftmax,
            self,
            ReduceArgs::new(dim).dtype(dtype),
        )
    }
}

/// Typed reductions returning `Tensor<$out>`: `try_x` and `x`.
macro_rules! typed_reductions {
    ($($Op:ident $try:ident $name:ident -> $out:ty;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` over `dims` (see [`ReduceOp::", stringify!($Op), "`]).")]
        pub fn $try(&self, dims: impl Into<Dims>, keepdim: bool) -> Result<Tensor<$out>> {
            let args = ReduceArgs::new(dims).keepdim(keepdim);
            crate::dyn_tensor::with_dyn_view(self, |d| typed(one(ReduceOp::$Op, d, args)?))
        }
        #[doc = concat!("`", stringify!($name), "` over `dims`; panics on error.")]
        #[track_caller]
        pub fn $name(&self, dims: impl Into<Dims>, keepdim: bool) -> Tensor<$out> {
            self.$try(dims, keepdim).or_panic()
        }
    )*};
}

impl<T: ReduceElement> Tensor<T> {
    typed_reductions! {
        Sum try_sum sum -> T::Sum;
        Prod try_prod prod -> T::Sum;
        Amax try_amax amax -> T;
        Amin try_amin amin -> T;
        Any try_any any -> T::AnyAll;
        All try_all all -> T::AnyAll;
        Logsumexp try_logsumexp logsumexp -> T::Lse;
    }

    fn with_args<U: DynElement>(&self, op: ReduceOp, args: ReduceArgs) -> Result<Tensor<U>> {
        crate::dyn_tensor::with_dyn_view(self, |d| typed(one(op, d, args)?))
    }

    /// `sum(dtype=U)`: cast to `U` first, sum in `U`.
    pub fn try_sum_as<U: ReduceElement>(
        &self,
        dims: impl Into<Dims>,
        keepdim: bool,
    ) -> Result<Tensor<U::Sum>> {
        self.with_args(
            ReduceOp::Sum,
            ReduceArgs::new(dims).keepdim(keepdim).dtype(U::DTYPE),
        )
    }
    /// `mean(dtype=U)` (any input, a float `U`).
    pub fn try_mean_as<U: ReduceFloat>(
        &self,
        dims: impl Into<Dims>,
        keepdim: bool,
    ) -> Result<Tensor<U>> {
        self.with_args(
            ReduceOp::Mean,
            ReduceArgs::new(dims).keepdim(keepdim).dtype(U::DTYPE),
        )
    }
    /// `softmax(dim, dtype=U)`.
    pub fn try_softmax_as<U: ReduceFloat>(&self, dim: isize) -> Result<Tensor<U>> {
        self.with_args(ReduceOp::Softmax, ReduceArgs::new(dim).dtype(U::DTYPE))
    }
    /// See [`DynTensor::try_argmax`].
    pub fn try_argmax(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor<i64>> {
        self.with_args(ReduceOp::Argmax, ReduceArgs::new(dim).keepdim(keepdim))
    }
    #[track_caller]
    pub fn argmax(&self, dim: Option<isize>, keepdim: bool) -> Tensor<i64> {
        self.try_argmax(dim, keepdim).or_panic()
    }
    /// See [`DynTensor::try_argmin`].
    pub fn try_argmin(&self, dim: Option<isize>, keepdim: bool) -> Result<Tensor<i64>> {
        self.with_args(ReduceOp::Argmin, ReduceArgs::new(dim).keepdim(keepdim))
    }
    #[track_caller]
    pub fn argmin(&self, dim: Option<isize>, keepdim: bool) -> Tensor<i64> {
        self.try_argmin(dim, keepdim).or_panic()
    }
    /// See [`DynTensor::try_max_dim`].
    pub fn try_max_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor<T>, Tensor<i64>)> {
        crate::dyn_tensor::with_dyn_view(self, |d| {
            let (v, i) = two(ReduceOp::MaxDim, d, ReduceArgs::new(dim).keepdim(keepdim))?;
            Ok((typed(v)?, typed(i)?))
        })
    }
    #[track_caller]
    pub fn max_dim(&self, dim: isize, keepdim: bool) -> (Tensor<T>, Tensor<i64>) {
        self.try_max_dim(dim, keepdim).or_panic()
    }
    /// See [`DynTensor::try_min_dim`].
    pub fn try_min_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor<T>, Tensor<i64>)> {
        crate::dyn_tensor::with_dyn_view(self, |d| {
            let (v, i) = two(ReduceOp::MinDim, d, ReduceArgs::new(dim).keepdim(keepdim))?;
            Ok((typed(v)?, typed(i)?))
        })
    }
    #[track_caller]
    pub fn min_dim(&self, dim: isize, keepdim: bool) -> (Tensor<T>, Tensor<i64>) {
        self.try_min_dim(dim, keepdim).or_panic()
    }
}

impl<T: ReduceFloat> Tensor<T> {
    typed_reductions! {
        Mean try_mean mean -> T;
    }
    /// `var` with `correction`.
    pub fn try_var(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<Tensor<T>> {
        self.with_args(
            ReduceOp::Var,
            ReduceArgs::new(dims)
                .keepdim(keepdim)
                .correction(correction),
        )
    }
    #[track_caller]
    pub fn var(&self, dims: impl Into<Dims>, correction: f64, keepdim: bool) -> Tensor<T> {
        self.try_var(dims, correction, keepdim).or_panic()
    }
    /// `std` with `correction`.
    pub fn try_std(
        &self,
        dims: impl Into<Dims>,
        correction: f64,
        keepdim: bool,
    ) -> Result<Tensor<T>> {
        self.with_args(
            ReduceOp::Std,
            ReduceArgs::new(dims)
                .keepdim(keepdim)
                .correction(correction),
        )
    }
    #[track_caller]
    pub fn std(&self, dims: impl Into<Dims>, correction: f64, keepdim: bool) -> Tensor<T> {
        self.try_std(dims, correction, keepdim).or_panic()
    }
    /// `softmax` along `dim`.
    pub fn try_softmax(&self, dim: isize) -> Result<Tensor<T>> {
        self.with_args(ReduceOp::Softmax, ReduceArgs::new(dim))
    }
    #[track_caller]
    pub fn softmax(&self, dim: isize) -> Tensor<T> {
        self.try_softmax(dim).or_panic()
    }
    /// `log_softmax` along `dim`.
    pub fn try_log_softmax(&self, dim: isize) -> Result<Tensor<T>> {
        self.with_args(ReduceOp::LogSoftmax, ReduceArgs::new(dim))
    }
    #[track_caller]
    pub fn log_softmax(&self, dim: isize) -> Tensor<T> {
        self.try_log_softmax(dim).or_panic()
    }
}
