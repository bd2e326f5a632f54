//! NumPy's `.npz` archives: a zip of `.npy` files, one per named array.
//!
//! `np.savez` stores its members uncompressed, `np.savez_compressed` deflates them; a member
//! `<name>.npy` holds the array `<name>`. Loading reads both kinds (and zip64 archives, as the
//! `zip` crate reads them), decodes every member with [`npy::from_bytes`](super::npy::from_bytes)
//! and keys it by its name less a trailing `.npy`, as `numpy.load` does. Names come back sorted
//! (a `BTreeMap`).
//!
//! Bad input is an [`Error::Format`] naming what is wrong and which member, never a panic: an
//! archive the `zip` crate cannot read (truncated, a corrupted central directory or local
//! header, an unsupported compression method, encryption), a member whose data is shorter or
//! longer than its declared size or whose CRC-32 does not match, a member that is not a valid
//! `.npy` file, two members with the same name or the same key (`a` and `a.npy`), a name that
//! is not UTF-8. A declared size is never trusted for an allocation: the buffer is reserved
//! fallibly, no larger than the compressed bytes could inflate to, and only what the data
//! actually holds (at most the declared size plus one byte) is read.
//!
//! Saving writes `<name>.npy` members through [`npy::to_bytes`](super::npy::to_bytes) (any
//! layout; bfloat16 is refused, NumPy has no such dtype), in the order given, stored or
//! deflated, with a fixed timestamp (1980-01-01) so the same tensors give the same bytes.

use crate::dyn_tensor::DynTensor;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Cursor, Read, Write};
use std::path::Path;
use std::string::String;
use std::vec::Vec;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

/// Deflate's largest compression ratio (a 258-byte match in two bits). It bounds the buffer
/// reserved for a member: a header that declares more than its compressed bytes can inflate to
/// cannot make a small archive reserve a large allocation.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Members from this size on get zip64 headers when saved. A zip64 header is needed past
/// 4 GiB, and a deflated member can come out slightly larger than its input, so the margin is
/// wide; smaller members keep the plain headers every zip reader understands.
const ZIP64_FROM: u64 = 1 << 31;

/// The signature of a central directory entry.
const CENTRAL_SIG: &[u8; 4] = b"PK\x01\x02";

/// The fixed part of a central directory entry; the name, extra field and comment follow.
const CENTRAL_FIXED_LEN: usize = 46;

fn bad(reason: impl Into<String>) -> Error {
    Error::Format {
        format: "npz",
        reason: reason.into(),
    }
}

/// The raw names of the entries of the central directory starting at byte `start`, read
/// straight from the bytes. The `zip` crate keys its members by name and silently keeps one of
/// two entries with the same name; counting the entries here is how a duplicate (or a corrupted
/// entry count in the end record) is noticed. Stops at the first byte that does not start a
/// whole entry.
fn central_names(bytes: &[u8], start: u64) -> Vec<&[u8]> {
    let mut names = Vec::new();
    let Ok(mut pos) = usize::try_from(start) else {
        return names;
    };
    while let Some(fixed) = bytes.get(pos..).and_then(|b| b.get(..CENTRAL_FIXED_LEN)) {
        if &fixed[..4] != CENTRAL_SIG {
            break;
        }
        let len = |at: usize| u16::from_le_bytes([fixed[at], fixed[at + 1]]) as usize;
        let name_start = pos + CENTRAL_FIXED_LEN;
        let Some(name) = bytes.get(name_start..name_start + len(28)) else {
            break;
        };
        names.push(name);
        pos = name_start + len(28) + len(30) + len(32);
    }
    names
}

/// Reads a member's whole data, checked against its declared size; reading to the end is
/// what makes the `zip` crate check the CRC-32.
fn read_member<R: Read>(
    f: &mut zip::read::ZipFile<'_, R>,
    name: &str,
    input_len: usize,
) -> Result<Vec<u8>> {
    let declared = f.size();
    let ratio = if f.compression() == CompressionMethod::Stored {
        1
    } else {
        MAX_DEFLATE_RATIO
    };
    let backed = f
        .compressed_size()
        .min(input_len as u64)
        .saturating_mul(ratio);
    let reserve = usize::try_from(declared.min(backed)).unwrap_or(usize::MAX);
    let mut data = Vec::new();
    data.try_reserve_exact(reserve)
        .map_err(|_| Error::AllocationFailed {
            bytes: reserve as u128,
        })?;
    // One byte past the declared size tells a longer member from an exact one.
    f.take(declared.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| bad(format!("member {name:?}: cannot read its data: {e}")))?;
    let have = data.len() as u64;
    if have != declared {
        return Err(bad(format!(
            "member {name:?}: declares {declared} uncompressed bytes, its data holds {}",
            if have > declared {
                "more".to_string()
            } else {
                have.to_string()
            }
        )));
    }
    Ok(data)
}

/// Every array of a `.npz` archive's contents, keyed by member name less a trailing `.npy`.
pub fn from_bytes(bytes: &[u8]) -> Result<BTreeMap<String, DynTensor>> {
    let mut zip = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("not a readable zip archive: {e}")))?;
    let raw = central_names(bytes, zip.central_directory_start());
    if raw.len() != zip.len() {
        let mut seen = BTreeSet::new();
        return Err(match raw.iter().find(|n| !seen.insert(**n)) {
            Some(n) => bad(format!(
                "member name {:?} appears twice",
                String::from_utf8_lossy(n)
            )),
            None => bad(format!(
                "the central directory holds {} entries, {} distinct names were read \
                 (duplicate names or a corrupted entry count)",
                raw.len(),
                zip.len()
            )),
        });
    }
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let label = zip.name_for_index(i).unwrap_or_default().to_string();
        let mut f = zip
            .by_index(i)
            .map_err(|e| bad(format!("member {label:?}: {e}")))?;
        // The raw bytes, whatever the zip crate decoded them to (lossy UTF-8 or CP437): a name
        // that is not UTF-8 is refused rather than guessed.
        let name = std::str::from_utf8(f.name_raw())
            .map_err(|_| bad(format!("member name {label:?} is not UTF-8")))?
            .to_string();
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        if out.contains_key(&key) {
            return Err(bad(format!(
                "member {name:?} gives the key {key:?} a second time"
            )));
        }
        let data = read_member(&mut f, &name, bytes.len())?;
        let t = super::npy::from_bytes(&data).map_err(|e| bad(format!("member {name:?}: {e}")))?;
        out.insert(key, t);
    }
    Ok(out)
}

/// The `.npz` bytes of named tensors (any layouts), members `<name>.npy` in the order given:
/// stored as `np.savez` writes them, or deflated (`compressed`) as `np.savez_compressed`
/// does. Duplicate names are an [`Error::InvalidArgument`]; bfloat16 is refused.
pub fn to_bytes<'a, S: AsRef<str>>(
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
    compressed: bool,
) -> Result<Vec<u8>> {
    let (op, method) = if compressed {
        ("save_npz_compressed", CompressionMethod::Deflated)
    } else {
        ("save_npz", CompressionMethod::Stored)
    };
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let mut names = BTreeSet::new();
    for (name, t) in tensors {
        let name = name.as_ref();
        if !names.insert(name.to_string()) {
            return Err(Error::InvalidArgument {
                op,
                reason: format!("array name {name:?} appears twice"),
            });
        }
        let member = format!("{name}.npy");
        // A zip name's length is a u16 (the zip crate would panic on a longer one).
        if member.len() > u16::MAX as usize {
            return Err(Error::InvalidArgument {
                op,
                reason: format!(
                    "array name of {} bytes is too long for a zip member name",
                    name.len()
                ),
            });
        }
        if t.dtype().numpy_descr().is_none() {
            return Err(Error::UnsupportedDType {
                op: if compressed {
                    "save_npz_compressed (NumPy has no bfloat16; convert to float32 first)"
                } else {
                    "save_npz (NumPy has no bfloat16; convert to float32 first)"
                },
                dtype: t.dtype(),
                other: None,
            });
        }
        let npy = super::npy::to_bytes(t)?;
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(DateTime::default())
            .large_file(npy.len() as u64 >= ZIP64_FROM);
        let zip_err =
            |e: &dyn std::fmt::Display| bad(format!("cannot write member {member:?}: {e}"));
        w.start_file(member.as_str(), options)
            .map_err(|e| zip_err(&e))?;
        w.write_all(&npy).map_err(|e| zip_err(&e))?;
    }
    let out = w
        .finish()
        .map_err(|e| bad(format!("cannot finish the archive: {e}")))?;
    Ok(out.into_inner())
}

/// Loads every array of a `.npz` file (read whole, then each member decoded once).
pub fn load(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    let path = path.as_ref();
    let bytes = super::read_file("load_npz", path)?;
    from_bytes(&bytes)
}

/// Saves named tensors to a `.npz` file with stored members, like `np.savez`.
pub fn save<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes(tensors, false)?;
    super::write_file("save_npz", path, &bytes)
}

/// Saves named tensors to a `.npz` file with deflated members, like `np.savez_compressed`.
pub fn save_compressed<'a, S: AsRef<str>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, &'a DynTensor)>,
) -> Result<()> {
    let path = path.as_ref();
    let bytes = to_bytes(tensors, true)?;
    super::write_file("save_npz_compressed", path, &bytes)
}
