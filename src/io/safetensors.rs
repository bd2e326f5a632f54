//! `.safetensors` files through the `safetensors` crate: a JSON header naming each tensor's
//! dtype, shape and byte range, then the little-endian data.
//!
//! Loading copies each tensor's bytes once into a fresh weft storage (the file's data is not
//! 64-byte aligned, and weft does not map files yet); weft's ten dtypes are read, any other
//! (`U16`, `F8_E4M3`, ...) is an [`Error::Format`] naming it. Saving gathers any layout in
//! row-major order. Names come back sorted (a `BTreeMap`).

use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::BTreeMap;
use std::path::Path;
use std::string::String;
use std::vec::Vec;

fn bad(reason: impl Into<String>) -> Error {
    Error::Format {
        format: "safetensors",
        reason: reason.into(),
    }
}

/// The safetensors crate's dtype for a weft dtype. Its name (`Display`) is the one in weft's
/// dtype table ([`DType::safetensors_name`]); a test checks every row.
pub fn to_safetensors_dtype(d: DType) -> Dtype {
    match d {
        DType::Bool => Dtype::BOOL,
        DType::U8 => Dtype::U8,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
    }
}

/// The weft dtype of a safetensors dtype, found by name in weft's dtype table.
pub fn from_safetensors_dtype(d: Dtype) -> Result<DType> {
    let name = d.to_string();
    DType::ALL
        .into_iter()
        .find(|w| w.safetensors_name() == name)
        .ok_or_else(|| bad(format!("unsupported dtype {name}")))
}

/// Every tensor of a `.safetensors` file's contents, by name (each copied once).
pub fn from_bytes(bytes: &[u8]) -> Result<BTreeMap<String, DynTensor>> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| bad(e.to_string()))?;
    let mut out = BTreeMap::new();
    for (name, view) in st.iter() {
        let dtype = from_safetensors_dtype(view.dtype()).map_err(|_| {
            bad(format!(
                "tensor {name:?}: unsupported dtype {}",
                view.dtype()
            ))
        })?;
        let t = DynTensor::from_bytes(dtype, view.shape(), view.data())
            .map_err(|e| bad(format!("tensor {name:?}: {e}")))?;
        out.insert(name.into(), t);
    }
    Ok(out)
}

/// The `.safetensors` bytes of named tensors (any layouts). Duplicate names are an error.
pub fn to_bytes<'a, S: AsRef<str>>(
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
) -> Result<Vec<u8>> {
    let mut data: BTreeMap<String, (DType, Vec<usize>, Vec<u8>)> = BTreeMap::new();
    for (name, t) in tensors {
        let name = name.as_ref();
        let entry = (t.dtype(), t.shape().to_vec(), t.to_bytes()?);
        if data.insert(name.into(), entry).is_some() {
            return Err(Error::InvalidArgument {
                op: "save_safetensors",
                reason: format!("tensor name {name:?} appears twice"),
            });
        }
    }
    let mut views = Vec::with_capacity(data.len());
    for (name, (dtype, shape, bytes)) in &data {
        let v = TensorView::new(to_safetensors_dtype(*dtype), shape.clone(), bytes)
            .map_err(|e| bad(e.to_string()))?;
        views.push((name.as_str(), v));
    }
    safetensors::serialize(views, None).map_err(|e| bad(e.to_string()))
}

/// Loads every tensor of a `.safetensors` file (read whole, then copied into storages).
pub fn load(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    let path = path.as_ref();
    let bytes = super::read_file("load_safetensors", path)?;
    from_bytes(&bytes)
}

/// Saves named tensors to a `.safetensors` file.
pub fn save<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes(tensors)?;
    super::write_file("save_safetensors", path, &bytes)
}
