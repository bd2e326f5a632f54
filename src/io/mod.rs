//! Data in and out: raw little-endian bytes ([`Tensor::from_bytes`], [`Tensor::to_bytes`] and
//! the `DynTensor` forms), NumPy's `.npy` files ([`npy`]) and `.npz` archives ([`npz`]),
//! `.safetensors` files ([`safetensors`](mod@safetensors), mapped without a copy), and with
//! cargo features, `ndarray` arrays and `serde`.
//!
//! Elements are read through the public, borrow-taking accessors (`try_to_vec`). Buffers are
//! adopted without a copy where that is sound (a `Vec` by `from_vec`/`from_bytes_vec`, a
//! mapped file by `safetensors::load`) through `Storage`'s adoption constructors; the only
//! `unsafe` here is the mapping itself and handing its aligned, disjoint ranges to storages
//! (`safetensors.rs`), and the borrowed `ndarray` view.

#[cfg(feature = "ndarray")]
pub mod ndarray;
pub mod npy;
pub mod npz;
pub mod safetensors;
#[cfg(feature = "serde")]
mod serde;

use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::tensor::Tensor;
use std::vec::Vec;

/// Element types with a fixed little-endian byte form: every dtype weft stores (bool is one byte,
/// 0 or 1).
pub trait LeBytes: Element {
    /// Appends the element's little-endian bytes to `out`.
    fn put_le(self, out: &mut Vec<u8>);
    /// The element from its `size_of::<Self>()` little-endian bytes. For bool, any nonzero
    /// byte is `true` (callers check for 0/1 first).
    fn get_le(bytes: &[u8]) -> Self;
}

macro_rules! le_bytes {
    ([$($t:ty),*]) => {$(
        impl LeBytes for $t {
            #[inline(always)]
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline(always)]
            fn get_le(bytes: &[u8]) -> Self {
                let mut a = [0u8; size_of::<$t>()];
                a.copy_from_slice(bytes);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
crate::dtype_types!(numeric => le_bytes!());

impl LeBytes for bool {
    #[inline(always)]
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    #[inline(always)]
    fn get_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// The byte length of `shape` elements of `dtype`, checked (`Error::NumelOverflow`).
pub(crate) fn byte_len(shape: &[usize], dtype: DType) -> Result<usize> {
    // checked_numel also checks numel * size fits isize, so the product cannot overflow.
    Ok(checked_numel(shape, dtype.size())? * dtype.size())
}

fn check_bytes(shape: &[usize], dtype: DType, bytes: &[u8]) -> Result<()> {
    let want = byte_len(shape, dtype)?;
    if bytes.len() != want {
        return Err(Error::Format {
            format: "bytes",
            reason: format!(
                "shape {shape:?} of {dtype} needs {want} bytes, got {}",
                bytes.len()
            ),
        });
    }
    if dtype == DType::Bool
        && let Some(i) = bytes.iter().position(|&b| b > 1)
    {
        return Err(Error::Format {
            format: "bytes",
            reason: format!("bool byte {i} is {} (only 0 and 1 are bools)", bytes[i]),
        });
    }
    Ok(())
}

impl<T: LeBytes> Tensor<T> {
    /// A contiguous tensor of `shape` from its elements' little-endian bytes in row-major
    /// order. The length must be `numel * size_of::<T>()` exactly (checked arithmetic), and
    /// bool bytes must be 0 or 1 (`Error::Format` otherwise). The bytes are decoded once,
    /// straight into a fresh 64-byte-aligned storage.
    pub fn from_bytes(shape: &[usize], bytes: &[u8]) -> Result<Self> {
        check_bytes(shape, T::DTYPE, bytes)?;
        let size = size_of::<T>();
        Tensor::from_fn(shape, |i| T::get_le(&bytes[i * size..(i + 1) * size]))
    }

    /// The elements' little-endian bytes in row-major order, whatever the layout (transposed,
    /// sliced, expanded views are gathered). Reads under a shared borrow of the storage.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let values = self.try_to_vec()?;
        let n = values.len() * size_of::<T>();
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| Error::AllocationFailed { bytes: n as u128 })?;
        for v in values {
            v.put_le(&mut out);
        }
        Ok(out)
    }
}

impl DynTensor {
    /// A contiguous tensor of `dtype` and `shape` from little-endian row-major bytes; see
    /// [`Tensor::from_bytes`].
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<DynTensor> {
        crate::with_dtype!(dtype, T => Ok(Tensor::<T>::from_bytes(shape, bytes)?.into()))
    }

    /// [`DynTensor::from_bytes`] taking the buffer by value: on a little-endian machine the
    /// vector's buffer becomes the storage without a copy when it is aligned for the dtype (an
    /// allocator's blocks always are for every weft dtype in practice); otherwise the bytes are
    /// copied once and the vector freed. Same checks as `from_bytes` (length, bool bytes).
    pub fn from_bytes_vec(dtype: DType, shape: &[usize], bytes: Vec<u8>) -> Result<DynTensor> {
        check_bytes(shape, dtype, &bytes)?;
        crate::with_dtype!(dtype, T => {
            if cfg!(target_endian = "little") {
                match crate::storage::Storage::<T>::from_byte_vec(bytes) {
                    Ok(storage) => Ok(Tensor::from_parts(
                        storage,
                        crate::layout::Layout::contiguous(shape),
                    )?
                    .into()),
                    Err(bytes) => Self::from_bytes(dtype, shape, &bytes),
                }
            } else {
                Self::from_bytes(dtype, shape, &bytes)
            }
        })
    }

    /// The elements' little-endian bytes in row-major order, any layout; see
    /// [`Tensor::to_bytes`].
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        crate::dispatch!(self, t => t.to_bytes())
    }
}

/// Reads a whole file; the error names the op and the path.
pub(crate) fn read_file(op: &'static str, path: &std::path::Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| file_error(op, path, e))
}

/// Writes a whole file; the error names the op and the path.
pub(crate) fn write_file(op: &'static str, path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| file_error(op, path, e))
}

fn file_error(op: &'static str, path: &std::path::Path, e: std::io::Error) -> Error {
    Error::Io {
        op,
        reason: format!("{}: {e}", path.display()),
    }
}
