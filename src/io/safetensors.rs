//! `.safetensors` files through the `safetensors` crate: a JSON header naming each tensor's
//! dtype, shape and byte range (plus optional string metadata), then the little-endian data.
//!
//! [`load`] maps the file (a private, copy-on-write mapping) and each tensor's storage is the
//! mapped bytes themselves: loading is O(1) in the data size, pages are read when first
//! touched, and the mapping lives as long as any tensor of the file. Writing to such a tensor
//! copies the touched pages privately (the kernel's copy-on-write): it never reaches the file.
//! A tensor whose bytes are not aligned for its dtype (the format does not promise it), a bool
//! tensor (its bytes are checked to be 0/1) and every tensor on a big-endian machine are copied
//! instead. [`from_bytes`] copies from a buffer. weft's ten dtypes are read; any other (`U16`,
//! `F8_E4M3`, ...) is an [`Error::Format`] naming it. Saving gathers any layout in row-major
//! order. Names come back sorted (a `BTreeMap`).
//!
//! Like every loader that maps files (NumPy's `mmap_mode`, the safetensors crate's own
//! examples), this assumes no other process truncates or rewrites the file while it is mapped:
//! the type system cannot see other processes. Use [`from_bytes`] on
//! `std::fs::read(path)` where that cannot be promised.

use crate::dtype::DType;
use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use crate::storage::Storage;
use crate::tensor::Tensor;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::ptr::NonNull;
use std::string::String;
use std::sync::Arc;
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
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
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

/// Named tensors and the file's string metadata (`__metadata__`, empty when absent).
pub type Loaded = (BTreeMap<String, DynTensor>, BTreeMap<String, String>);

/// Where one tensor of a file lies: its name, dtype, shape and byte range in the file.
struct Entry {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
    range: std::ops::Range<usize>,
}

/// A file's tensors, in data order, and its metadata, from one parse of the header (the
/// crate's `read_metadata`, which validates offsets, sizes and the total length). The byte
/// ranges are checked disjoint again (empty tensors excluded: they touch no byte): a mapped
/// tensor's storage must be the only way to its bytes.
fn parse(bytes: &[u8]) -> Result<(Vec<Entry>, BTreeMap<String, String>)> {
    let (n, header) = SafeTensors::read_metadata(bytes).map_err(|e| bad(e.to_string()))?;
    // read_metadata checked 8 + n + the data length == bytes.len(): no sum below overflows.
    let data_start = 8 + n;
    let mut entries = Vec::with_capacity(header.tensors().len());
    for name in header.offset_keys() {
        let info = header
            .info(&name)
            .ok_or_else(|| bad(format!("tensor {name:?} listed without its info")))?;
        let dtype = from_safetensors_dtype(info.dtype)
            .map_err(|_| bad(format!("tensor {name:?}: unsupported dtype {}", info.dtype)))?;
        let (start, end) = info.data_offsets;
        entries.push(Entry {
            dtype,
            shape: info.shape.clone(),
            range: data_start + start..data_start + end,
            name,
        });
    }
    let mut ranges: Vec<_> = entries
        .iter()
        .map(|e| e.range.clone())
        .filter(|r| !r.is_empty())
        .collect();
    ranges.sort_by_key(|r| r.start);
    if ranges.windows(2).any(|w| w[0].end > w[1].start) {
        return Err(bad("tensors overlap in the data"));
    }
    Ok((entries, metadata_map(header.metadata())))
}

/// Every tensor of a `.safetensors` file's contents, by name (each copied once).
pub fn from_bytes(bytes: &[u8]) -> Result<BTreeMap<String, DynTensor>> {
    Ok(from_bytes_with_metadata(bytes)?.0)
}

/// [`from_bytes`] plus the file's metadata.
pub fn from_bytes_with_metadata(bytes: &[u8]) -> Result<Loaded> {
    let (entries, metadata) = parse(bytes)?;
    let mut out = BTreeMap::new();
    for e in entries {
        let t = DynTensor::from_bytes(e.dtype, &e.shape, &bytes[e.range])
            .map_err(|err| bad(format!("tensor {:?}: {err}", e.name)))?;
        out.insert(e.name, t);
    }
    Ok((out, metadata))
}

fn metadata_map(m: &Option<HashMap<String, String>>) -> BTreeMap<String, String> {
    m.iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The `.safetensors` bytes of named tensors (any layouts) and string metadata (written as
/// `__metadata__` unless empty). Duplicate names are an error.
pub fn to_bytes<'a, S: AsRef<str>>(
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
    metadata: &BTreeMap<String, String>,
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
    let info = (!metadata.is_empty()).then(|| {
        metadata
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<HashMap<_, _>>()
    });
    safetensors::serialize(views, info).map_err(|e| bad(e.to_string()))
}

/// Loads every tensor of a `.safetensors` file without copying: see the module notes.
pub fn load(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    Ok(load_with_metadata(path)?.0)
}

/// [`load`] plus the file's metadata.
pub fn load_with_metadata(path: impl AsRef<Path>) -> Result<Loaded> {
    let path = path.as_ref();
    let io = |e: std::io::Error| Error::Io {
        op: "load_safetensors",
        reason: format!("{}: {e}", path.display()),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len < 8 {
        // Also keeps empty files away from mmap (a zero-length mapping is an error).
        return Err(bad(format!(
            "truncated: {len} bytes, shorter than the 8-byte header length"
        )));
    }
    // SAFETY: a private mapping (MAP_PRIVATE): writes through it stay in this process. That no
    // other process truncates or rewrites the file meanwhile is the documented assumption of
    // this function (module notes); memmap2 marks mapping unsafe for exactly that reason.
    let mut map = unsafe { memmap2::MmapOptions::new().map_copy(&file) }.map_err(io)?;
    let base: *mut u8 = map.as_mut_ptr();
    // Where each tensor's bytes lie in the mapping; the parse borrows it only for this call.
    let (entries, metadata) = parse(&map)?;
    let map = Arc::new(map);
    let mut out = BTreeMap::new();
    for e in entries {
        let t = crate::with_dtype!(e.dtype, T => {
            mapped_tensor::<T>(&map, base, &e.shape, e.range.clone())
        })
        .map_err(|err| bad(format!("tensor {:?}: {err}", e.name)))?;
        out.insert(e.name, t);
    }
    Ok((out, metadata))
}

/// One tensor over the mapped bytes `range` (no copy), or a copy of them when they are not
/// aligned for `T`, are bool bytes (checked to be 0/1 by the copy) or the machine is
/// big-endian.
fn mapped_tensor<T: super::LeBytes + crate::dyn_tensor::DynElement>(
    map: &Arc<memmap2::MmapMut>,
    base: *mut u8,
    shape: &[usize],
    range: std::ops::Range<usize>,
) -> Result<DynTensor> {
    let size = size_of::<T>();
    super::byte_len(shape, T::DTYPE)?;
    // SAFETY: range lies inside the mapping (the crate's validation), so base + start does.
    let ptr = unsafe { base.add(range.start) }.cast::<T>();
    let direct = cfg!(target_endian = "little") && ptr.is_aligned() && T::DTYPE != DType::Bool;
    if !direct {
        // SAFETY: as above; the mapping is alive (held by `map`) and nothing writes to it yet.
        let bytes = unsafe { std::slice::from_raw_parts(base.add(range.start), range.len()) };
        return Ok(T::wrap(Tensor::<T>::from_bytes(shape, bytes)?));
    }
    let len = range.len() / size;
    // SAFETY: ptr is aligned for T and valid for reads and writes (a private writable mapping)
    // of `len` initialised elements (every bit pattern is a valid numeric T; bool is copied
    // above) while `map` lives, which the owner keeps; the ranges of one file are disjoint
    // (checked above), so this storage is the only way to these bytes.
    let storage = unsafe {
        Storage::from_foreign(NonNull::new_unchecked(ptr), len, Box::new(Arc::clone(map)))
    };
    Ok(T::wrap(Tensor::from_parts(
        storage,
        crate::layout::Layout::contiguous(shape),
    )?))
}

/// Saves named tensors and string metadata to a `.safetensors` file.
pub fn save<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
    metadata: &BTreeMap<String, String>,
) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes(tensors, metadata)?;
    super::write_file("save_safetensors", path, &bytes)
}
