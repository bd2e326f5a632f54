//! Constructors beyond zeros/ones/full: `from_fn`, `arange`, `linspace`, seeded `rand`, `randn`,
//! `randint`, and dtype conversion `to`.

use super::Tensor;
use super::random::SplitMix64;
use crate::dtype::DType;
use crate::element::{Element, Value};
use crate::error::OrPanic;
use crate::error::{Error, Result};
use crate::layout::checked_numel;

fn unsupported(op: &'static str, dtype: DType) -> Error {
    Error::UnsupportedDType {
        op,
        dtype,
        other: None,
    }
}

/// Random mantissa bits for a uniform sample that is exact in (and below 1 for) each float dtype.
fn unit_bits(dtype: DType) -> u32 {
    match dtype {
        DType::F16 => 11,
        DType::BF16 => 8,
        DType::F32 => 24,
        _ => 53,
    }
}

impl<T: Element> Tensor<T> {
    /// A contiguous tensor whose element at row-major linear index `i` is `f(i)`.
    pub fn from_fn(shape: &[usize], f: impl FnMut(usize) -> T) -> Result<Self> {
        let mut f = f;
        // SAFETY: every element is written below before the tensor is returned; a panic in `f`
        // drops it unread.
        let t = unsafe { Tensor::<T>::try_uninit(shape)? };
        let p = t.storage.as_mut_ptr();
        for i in 0..t.numel() {
            // SAFETY: a fresh contiguous storage of numel elements, not shared yet (`f` cannot
            // reach it).
            unsafe { p.add(i).write(f(i)) };
        }
        Ok(t)
    }

    /// `start, start + step, ...` up to but excluding `end`; `ceil((end - start) / step)` elements
    /// (PyTorch's rule). Numeric dtypes only; the step must be nonzero and point from `start`
    /// towards `end`. Float values are `start + i * step` computed in f64 (f32 for f16/bf16, as
    /// PyTorch's CPU kernel does), integer values in i64.
    pub fn arange(start: T, end: T, step: T) -> Result<Self> {
        let bad = |reason: String| Error::InvalidArgument {
            op: "arange",
            reason,
        };
        let (s, e, st) = (start.to_value(), end.to_value(), step.to_value());
        let f = |v: Value| match v {
            Value::Bool(b) => b as u8 as f64,
            Value::Int(i) => i as f64,
            Value::UInt(u) => u as f64,
            Value::F32(x) => x as f64,
            Value::F64(x) => x,
        };
        if T::DTYPE.is_bool() {
            return Err(unsupported("arange", T::DTYPE));
        }
        let (sf, ef, stf) = (f(s), f(e), f(st));
        if !(sf.is_finite() && ef.is_finite()) {
            return Err(bad(format!("unsupported range: {sf} -> {ef}")));
        }
        if stf == 0.0 || stf.is_nan() {
            return Err(bad("step must be nonzero".into()));
        }
        if (stf > 0.0 && ef < sf) || (stf < 0.0 && ef > sf) {
            return Err(bad(
                "upper bound and larger bound inconsistent with step sign".into(),
            ));
        }
        // PyTorch computes the length in double; for integers from the exact i64 difference.
        let len_f = match (s, e, st) {
            (Value::Int(a), Value::Int(b), Value::Int(c)) => {
                ((b as i128 - a as i128) as f64 / c as f64).ceil()
            }
            _ => ((ef - sf) / stf).ceil(),
        };
        if !(len_f >= 0.0 && len_f < i64::MAX as f64) {
            return Err(bad(format!("invalid length {len_f}")));
        }
        let n = len_f as usize;
        checked_numel(&[n], size_of::<T>())?;
        match (s, st) {
            (Value::Int(a), Value::Int(c)) => Tensor::from_fn(&[n], |i| {
                T::from_value(Value::Int(a.wrapping_add(c.wrapping_mul(i as i64))))
            }),
            _ if T::DTYPE.is_reduced_float() => {
                let (a, c) = (sf as f32, stf as f32);
                Tensor::from_fn(&[n], |i| T::from_value(Value::F32(a + c * i as f32)))
            }
            _ => Tensor::from_fn(&[n], |i| T::from_value(Value::F64(sf + stf * i as f64))),
        }
    }

    /// `steps` values evenly spaced from `start` to `end` inclusive (float dtypes). Like PyTorch,
    /// the first half counts up from `start` and the second half down from `end`, so both ends
    /// are exact.
    pub fn linspace(start: f64, end: f64, steps: usize) -> Result<Self> {
        if !T::DTYPE.is_float() {
            return Err(unsupported("linspace", T::DTYPE));
        }
        let step = if steps > 1 {
            (end - start) / (steps - 1) as f64
        } else {
            0.0
        };
        let half = steps / 2;
        Tensor::from_fn(&[steps], |i| {
            let v = if i < half || steps == 1 {
                start + step * i as f64
            } else {
                end - step * (steps - i - 1) as f64
            };
            T::from_value(Value::F64(v))
        })
    }

    /// Uniform samples in `[0, 1)` (float dtypes), deterministic for a given `seed`.
    pub fn rand(shape: &[usize], seed: u64) -> Result<Self> {
        if !T::DTYPE.is_float() {
            return Err(unsupported("rand", T::DTYPE));
        }
        let bits = unit_bits(T::DTYPE);
        let mut rng = SplitMix64::new(seed);
        Tensor::from_fn(shape, |_| T::from_value(Value::F64(rng.next_unit(bits))))
    }

    /// Standard normal samples (Box–Muller, float dtypes), deterministic for a given `seed`.
    pub fn randn(shape: &[usize], seed: u64) -> Result<Self> {
        if !T::DTYPE.is_float() {
            return Err(unsupported("randn", T::DTYPE));
        }
        let mut rng = SplitMix64::new(seed);
        let mut spare = None;
        Tensor::from_fn(shape, |_| {
            let z = match spare.take() {
                Some(z) => z,
                None => {
                    let (a, b) = rng.next_normal_pair();
                    spare = Some(b);
                    a
                }
            };
            T::from_value(Value::F64(z))
        })
    }

    /// Uniform integers in `[low, high)` (integer dtypes; both bounds must fit the dtype, with
    /// `high` allowed to be one past its maximum), deterministic for a given `seed`.
    pub fn randint(shape: &[usize], low: i64, high: i64, seed: u64) -> Result<Self> {
        if !T::DTYPE.is_integer() {
            return Err(unsupported("randint", T::DTYPE));
        }
        let (min, max) = match T::DTYPE {
            DType::U8 => (0, u8::MAX as i128),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            _ => (i64::MIN as i128, i64::MAX as i128 + 1),
        };
        if low >= high || (low as i128) < min || (high as i128) > max + 1 {
            return Err(Error::InvalidArgument {
                op: "randint",
                reason: format!(
                    "the range [{low}, {high}) is empty or does not fit {}",
                    T::DTYPE
                ),
            });
        }
        let mut rng = SplitMix64::new(seed);
        Tensor::from_fn(shape, |_| {
            T::from_value(Value::Int(rng.next_in_range(low, high)))
        })
    }
}

impl<T: crate::DynElement> Tensor<T> {
    /// Every element converted to `U` (see [`crate::convert_value`]) by the iterator's cast kernel, into
    /// a fresh tensor in this tensor's dimension order (this tensor itself, shared, when `U` is
    /// `T`). `try_to` returns the error instead of panicking (it cannot fail for a valid tensor).
    #[track_caller]
    pub fn to<U: crate::DynElement>(&self) -> Tensor<U> {
        self.try_to::<U>().or_panic()
    }
}
