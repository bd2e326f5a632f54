//! Adapters that turn a binary functor and a value into a unary functor. This is how a scalar
//! operand reaches the inner loop: as a value in the functor (a register), never as a buffer.

use super::Functor;

/// `x -> f(x, rhs)`. `#[repr(C)]`: the GPU kernels take it by value as a kernel argument
/// (`device::layout::WithScalar`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BindRhs<F, B> {
    pub f: F,
    pub rhs: B,
}

impl<F, A, B> Functor<(A,)> for BindRhs<F, B>
where
    F: Functor<(A, B)>,
    B: Copy + Send + Sync,
{
    type Output = F::Output;
    #[inline(always)]
    fn call(&self, (a,): (A,)) -> Self::Output {
        self.f.call((a, self.rhs))
    }
    const HAS_NARROW_DOMAIN: bool = F::HAS_NARROW_DOMAIN;
    #[inline(always)]
    fn in_narrow_domain(&self, (a,): (A,)) -> bool {
        self.f.in_narrow_domain((a, self.rhs))
    }
    #[inline(always)]
    fn call_narrow(&self, (a,): (A,)) -> Self::Output {
        self.f.call_narrow((a, self.rhs))
    }
}

/// `x -> f(lhs, x)`.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BindLhs<F, A> {
    pub f: F,
    pub lhs: A,
}

impl<F, A, B> Functor<(B,)> for BindLhs<F, A>
where
    F: Functor<(A, B)>,
    A: Copy + Send + Sync,
{
    type Output = F::Output;
    #[inline(always)]
    fn call(&self, (b,): (B,)) -> Self::Output {
        self.f.call((self.lhs, b))
    }
    const HAS_NARROW_DOMAIN: bool = F::HAS_NARROW_DOMAIN;
    #[inline(always)]
    fn in_narrow_domain(&self, (b,): (B,)) -> bool {
        self.f.in_narrow_domain((self.lhs, b))
    }
    #[inline(always)]
    fn call_narrow(&self, (b,): (B,)) -> Self::Output {
        self.f.call_narrow((self.lhs, b))
    }
}
