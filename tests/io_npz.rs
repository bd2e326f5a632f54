//! `.npz` load and save: round trips (stored and deflated, every dtype NumPy has, any layout),
//! files on disk, archives written by the zip crate directly (zip64 headers, names without
//! `.npy`), and corrupted archives made from a good one (each must be a clean `Error`, never a
//! panic or a large allocation).

use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use weft::io::npz;
use weft::{DType, DynTensor, Error};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

fn sample(d: DType, shape: &[usize]) -> DynTensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i as f64 - 3.0) * 1.25).collect();
    DynTensor::from_vec(v, shape).unwrap().to(d)
}

/// `npz::from_bytes`, with a panic turned into a test failure naming the variant.
fn load(what: &str, bytes: &[u8]) -> Result<BTreeMap<String, DynTensor>, Error> {
    std::panic::catch_unwind(|| npz::from_bytes(bytes))
        .unwrap_or_else(|_| panic!("{what}: from_bytes panicked"))
}

/// The named tensors of every dtype NumPy has, in several shapes and layouts.
fn named_samples() -> Vec<(String, DynTensor)> {
    let mut named = Vec::new();
    for d in DType::ALL.into_iter().filter(|&d| d != DType::BF16) {
        let base = sample(d, &[4, 6]);
        named.push((format!("{d}_0d"), sample(d, &[])));
        named.push((format!("{d}_empty"), sample(d, &[0])));
        named.push((format!("{d}_empty_2d"), sample(d, &[2, 0, 3])));
        named.push((format!("{d}_1d"), sample(d, &[5])));
        named.push((format!("{d}_c"), base.clone()));
        named.push((format!("{d}_t"), base.t()));
        named.push((format!("{d}_step"), base.slice(1, Some(1), None, 2)));
        named.push((format!("{d}_rev"), base.slice(0, None, None, -1)));
        named.push((format!("{d}_expand"), base.narrow(0, 1, 1).expand([3, 6])));
        named.push((
            format!("{d}_perm3"),
            base.reshape([2, 2, 6]).permute(&[2, 0, 1]),
        ));
    }
    named
}

fn check_same(back: &BTreeMap<String, DynTensor>, named: &[(String, DynTensor)], what: &str) {
    assert_eq!(back.len(), named.len(), "{what}");
    for (n, t) in named {
        let b = back.get(n).unwrap_or_else(|| panic!("{what}: no {n:?}"));
        assert_eq!(b.dtype(), t.dtype(), "{what} {n}");
        assert_eq!(b.shape(), t.shape(), "{what} {n}");
        assert_eq!(b, t, "{what} {n}");
    }
}

/// The members of an archive as the zip crate reads them: name, compression, size.
fn members(bytes: &[u8]) -> Vec<(String, CompressionMethod, u64)> {
    let mut z = ZipArchive::new(Cursor::new(bytes)).unwrap();
    (0..z.len())
        .map(|i| {
            let f = z.by_index(i).unwrap();
            (f.name().to_string(), f.compression(), f.size())
        })
        .collect()
}

#[test]
fn round_trip_every_dtype_and_layout_stored_and_deflated() {
    let named = named_samples();
    // Ten layouts of every dtype NumPy has (all but bf16).
    assert_eq!(named.len(), 10 * (DType::COUNT - 1));
    let items = || named.iter().map(|(n, t)| (n.as_str(), t));
    for compressed in [false, true] {
        let bytes = npz::to_bytes(items(), compressed).unwrap();
        let back = load("round trip", &bytes).unwrap();
        check_same(
            &back,
            &named,
            if compressed { "deflated" } else { "stored" },
        );
        // Members `<name>.npy` in the order given, each a `.npy` file.
        let m = members(&bytes);
        let method = if compressed {
            CompressionMethod::Deflated
        } else {
            CompressionMethod::Stored
        };
        for ((name, t), (member, how, size)) in named.iter().zip(&m) {
            assert_eq!(member, &format!("{name}.npy"));
            assert_eq!(*how, method, "{member}");
            assert_eq!(*size as usize, weft::io::npy::to_bytes(t).unwrap().len());
        }
        // The same tensors give the same bytes (a fixed timestamp).
        assert_eq!(npz::to_bytes(items(), compressed).unwrap(), bytes);
    }
    // Deflate pays off on these small, repetitive arrays.
    let stored = npz::to_bytes(items(), false).unwrap();
    let deflated = npz::to_bytes(items(), true).unwrap();
    assert!(
        deflated.len() < stored.len(),
        "{} {}",
        deflated.len(),
        stored.len()
    );
}

#[test]
fn bf16_is_a_clear_error() {
    let b = sample(DType::BF16, &[2, 3]);
    let f = sample(DType::F32, &[2]);
    for compressed in [false, true] {
        let e = npz::to_bytes([("f", &f), ("b", &b)], compressed).unwrap_err();
        assert!(matches!(e, Error::UnsupportedDType { .. }), "{e:?}");
        assert!(e.to_string().contains("bfloat16"), "{e}");
        assert!(e.to_string().contains("save_npz"), "{e}");
    }
    // Converted first, it goes.
    let bytes = npz::to_bytes([("b", &b.to(DType::F32))], false).unwrap();
    assert_eq!(load("bf16 as f32", &bytes).unwrap()["b"], b.to(DType::F32));
}

#[test]
fn names_and_keys() {
    let t = sample(DType::I32, &[3]);
    let u = sample(DType::F64, &[2, 2]);
    // No tensors: an empty archive, and back.
    let empty = npz::to_bytes(std::iter::empty::<(&str, &DynTensor)>(), false).unwrap();
    assert!(load("empty archive", &empty).unwrap().is_empty());
    // Only a trailing ".npy" is stripped, once; other names are kept as they are.
    let names = ["x.npy", "", "α β", "dir/w", "arr_0", "a.npy.b"];
    let bytes = npz::to_bytes(names.iter().map(|n| (*n, &t)), true).unwrap();
    let back = load("names", &bytes).unwrap();
    let mut want: Vec<&str> = names.to_vec();
    want.sort();
    assert_eq!(back.keys().map(String::as_str).collect::<Vec<_>>(), want);
    assert_eq!(members(&bytes)[0].0, "x.npy.npy");
    // Duplicate names are refused, naming the name and the op.
    for compressed in [false, true] {
        let e = npz::to_bytes([("a", &t), ("b", &u), ("a", &u)], compressed).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
        assert!(e.to_string().contains("\"a\" appears twice"), "{e}");
    }
    // A name too long for a zip header is an error, not a panic in the zip crate.
    let long = "n".repeat(70_000);
    let e = npz::to_bytes([(long.as_str(), &t)], false).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    // Members written without ".npy" (as other tools may) keep their names as keys.
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, t) in [("plain", &t), ("with.npy", &u)] {
        w.start_file(name, SimpleFileOptions::default()).unwrap();
        w.write_all(&weft::io::npy::to_bytes(t).unwrap()).unwrap();
    }
    let bytes = w.finish().unwrap().into_inner();
    let back = load("foreign names", &bytes).unwrap();
    assert_eq!(back["plain"], t);
    assert_eq!(back["with"], u);
}

/// An archive written by the zip crate with the given options for every member.
fn zip_with(members: &[(&str, &[u8])], options: SimpleFileOptions) -> Vec<u8> {
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in members {
        w.start_file(*name, options).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn zip64_headers_and_other_writers_settings_load() {
    let a = sample(DType::F32, &[3, 4]).t();
    let b = sample(DType::Bool, &[7]);
    let na = weft::io::npy::to_bytes(&a).unwrap();
    let nb = weft::io::npy::to_bytes(&b).unwrap();
    let base = SimpleFileOptions::default();
    let variants = [
        ("zip64 stored", base.large_file(true)),
        (
            "zip64 deflated",
            base.large_file(true)
                .compression_method(CompressionMethod::Deflated),
        ),
        (
            "deflate level 9",
            base.compression_method(CompressionMethod::Deflated)
                .compression_level(Some(9)),
        ),
        (
            "deflate level 1",
            base.compression_method(CompressionMethod::Deflated)
                .compression_level(Some(1)),
        ),
        ("aligned", base.with_alignment(64)),
    ];
    for (what, options) in variants {
        let bytes = zip_with(&[("a.npy", &na), ("b.npy", &nb)], options);
        let back = load(what, &bytes).unwrap();
        assert_eq!(back.len(), 2, "{what}");
        assert_eq!(back["a"], a, "{what}");
        assert_eq!(back["b"], b, "{what}");
    }
    // Data before the archive (as in a self-extracting file) is skipped by the zip crate.
    let good = npz::to_bytes([("a", &a)], false).unwrap();
    let prefixed = [&b"some prefix"[..], &good].concat();
    assert_eq!(load("prefixed", &prefixed).unwrap()["a"], a);
}

#[test]
fn files_on_disk() {
    let dir = std::env::temp_dir().join(format!(
        "weft-io-npz-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let a = sample(DType::F16, &[2, 3]).t();
    let b = sample(DType::I64, &[4]);
    let c = sample(DType::U8, &[]);
    let items = [("a", &a), ("b", &b), ("c", &c)];
    let p = dir.join("m.npz");
    npz::save(&p, items).unwrap();
    let m = npz::load(&p).unwrap();
    assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!((&m["a"], &m["b"], &m["c"]), (&a, &b, &c));
    assert_eq!(
        std::fs::read(&p).unwrap(),
        npz::to_bytes(items, false).unwrap()
    );
    let pc = dir.join("mc.npz");
    npz::save_compressed(&pc, items).unwrap();
    let mc = npz::load(&pc).unwrap();
    assert_eq!((&mc["a"], &mc["b"], &mc["c"]), (&a, &b, &c));
    assert_eq!(
        std::fs::read(&pc).unwrap(),
        npz::to_bytes(items, true).unwrap()
    );
    assert!(
        members(&std::fs::read(&pc).unwrap())
            .iter()
            .all(|m| m.1 == CompressionMethod::Deflated)
    );
    // A missing file and a missing directory are I/O errors naming the op and the path.
    match npz::load(dir.join("nope.npz")) {
        Err(Error::Io { op, reason }) => {
            assert_eq!(op, "load_npz");
            assert!(reason.contains("nope.npz"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    for (r, op) in [
        (npz::save(dir.join("no/such/x.npz"), items), "save_npz"),
        (
            npz::save_compressed(dir.join("no/such/x.npz"), items),
            "save_npz_compressed",
        ),
    ] {
        assert!(
            matches!(r, Err(Error::Io { op: o, .. }) if o == op),
            "{r:?}"
        );
    }
    // A bad archive on disk is a format error.
    std::fs::write(dir.join("bad.npz"), b"PK\x03\x04 not really").unwrap();
    assert!(matches!(
        npz::load(dir.join("bad.npz")),
        Err(Error::Format { format: "npz", .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where the `i`th central directory entry of an archive starts.
fn central_entry(bytes: &[u8], i: usize) -> usize {
    let z = ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut pos = z.central_directory_start() as usize;
    for _ in 0..i {
        let len = |at: usize| u16::from_le_bytes([bytes[pos + at], bytes[pos + at + 1]]) as usize;
        pos += 46 + len(28) + len(30) + len(32);
    }
    assert_eq!(&bytes[pos..pos + 4], b"PK\x01\x02");
    pos
}

/// Where the `i`th member's data starts, and its length.
fn member_data(bytes: &[u8], i: usize) -> (usize, usize) {
    let mut z = ZipArchive::new(Cursor::new(bytes)).unwrap();
    let f = z.by_index(i).unwrap();
    (f.data_start() as usize, f.compressed_size() as usize)
}

fn put_u16(bytes: &mut [u8], at: usize, v: u16) {
    bytes[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn replace_all(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut out = bytes.to_vec();
    let mut hits = 0;
    for i in 0..=out.len() - from.len() {
        if &out[i..i + from.len()] == from {
            out[i..i + from.len()].copy_from_slice(to);
            hits += 1;
        }
    }
    assert!(hits >= 2, "{hits}"); // the local header and the central directory
    out
}

/// Corrupted archives, each with a word its error must contain.
fn corrupted() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let a = sample(DType::I16, &[3, 5]);
    let b = sample(DType::F64, &[4]);
    let stored = npz::to_bytes([("a", &a), ("b", &b)], false).unwrap();
    let deflated = npz::to_bytes([("a", &a), ("b", &b)], true).unwrap();
    let npy_a = weft::io::npy::to_bytes(&a).unwrap();
    let base = SimpleFileOptions::default();
    let deflate = base.compression_method(CompressionMethod::Deflated);
    let mut v: Vec<(&'static str, Vec<u8>, &'static str)> = vec![
        ("empty input", vec![], "zip"),
        (
            "not a zip",
            b"hello, world, this is not a zip archive".to_vec(),
            "zip",
        ),
        ("a .npy file, not an archive", npy_a.clone(), "zip"),
        (
            "truncated by one byte",
            stored[..stored.len() - 1].to_vec(),
            "zip",
        ),
        ("first half", stored[..stored.len() / 2].to_vec(), "zip"),
        (
            "member not npy",
            zip_with(&[("x.npy", b"hello, not an npy file at all")], base),
            "member \"x.npy\": invalid npy data",
        ),
        (
            "member not npy, deflated",
            zip_with(&[("x.npy", b"hello, not an npy file at all")], deflate),
            "member \"x.npy\": invalid npy data",
        ),
        (
            "member npy truncated",
            zip_with(&[("t.npy", &npy_a[..npy_a.len() - 3])], deflate),
            "member \"t.npy\": invalid npy data: truncated",
        ),
        (
            "member npy with a trailing byte",
            zip_with(&[("t.npy", &[&npy_a[..], &[0]].concat())], base),
            "trailing",
        ),
        (
            "empty member",
            zip_with(&[("e.npy", b"")], base),
            "member \"e.npy\"",
        ),
        (
            "a key twice (a and a.npy)",
            zip_with(&[("a", &npy_a), ("a.npy", &npy_a)], base),
            "second time",
        ),
        (
            "duplicate member names",
            replace_all(&stored, b"b.npy", b"a.npy"),
            "\"a.npy\" appears twice",
        ),
        (
            "non-UTF-8 name",
            replace_all(&stored, b"b.npy", b"\xff.npy"),
            "not UTF-8",
        ),
        (
            "non-UTF-8 name, deflated",
            replace_all(&deflated, b"b.npy", b"b\xc3.py"),
            "not UTF-8",
        ),
    ];
    {
        let mut z = ZipWriter::new(Cursor::new(Vec::new()));
        z.add_directory("d/", base).unwrap();
        v.push((
            "a directory member",
            z.finish().unwrap().into_inner(),
            "member \"d/\"",
        ));
    }
    // CRC mismatches: a flipped byte in a member's data (the npy still parses: only the CRC
    // can tell), and a flipped stored CRC.
    for (what, good, i) in [
        ("data byte flipped, stored a", &stored, 0),
        ("data byte flipped, stored b", &stored, 1),
    ] {
        let (start, len) = member_data(good, i);
        let mut f = good.clone();
        f[start + len - 1] ^= 0x10;
        v.push((what, f, "checksum"));
    }
    for (what, good) in [
        ("CRC flipped, stored", &stored),
        ("CRC flipped, deflated", &deflated),
    ] {
        let mut f = good.clone();
        f[central_entry(good, 1) + 16] ^= 1;
        v.push((what, f, "checksum"));
    }
    // A deflated member's compressed bytes flipped: a bad stream or a bad CRC.
    {
        let (start, len) = member_data(&deflated, 0);
        let mut f = deflated.clone();
        f[start + len / 2] ^= 0xff;
        v.push(("deflate stream flipped", f, "member \"a.npy\""));
    }
    // Declared uncompressed sizes that lie: huge, one short, one long, zero.
    for (what, good, size, word) in [
        (
            "huge size, stored",
            &stored,
            0xffff_fff0,
            "declares 4294967280",
        ),
        (
            "huge size, deflated",
            &deflated,
            0xffff_fff0,
            "declares 4294967280",
        ),
        ("size 0, deflated", &deflated, 0, "declares 0"),
    ] {
        let mut f = good.clone();
        put_u32(&mut f, central_entry(good, 0) + 24, size);
        v.push((what, f, word));
    }
    for (what, good, delta, word) in [
        (
            "size one short, stored",
            &stored,
            -1i64,
            "its data holds more",
        ),
        (
            "size one short, deflated",
            &deflated,
            -1,
            "its data holds more",
        ),
        ("size one long, stored", &stored, 1, "its data holds"),
        ("size one long, deflated", &deflated, 1, "its data holds"),
    ] {
        let mut f = good.clone();
        let at = central_entry(good, 1) + 24;
        let size = u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
        put_u32(&mut f, at, (size as i64 + delta) as u32);
        v.push((what, f, word));
    }
    // A zip64 member declaring an uncompressed size of 2^62 bytes: no allocation of that
    // size is attempted (the error is a format error, not an allocation failure).
    {
        let good = zip_with(&[("z.npy", &npy_a)], deflate.large_file(true));
        let e = central_entry(&good, 0);
        let name_len = u16::from_le_bytes([good[e + 28], good[e + 29]]) as usize;
        let extra = e + 46 + name_len;
        assert_eq!(&good[extra..extra + 2], &[1, 0], "the zip64 extra field");
        let mut f = good.clone();
        f[extra + 4..extra + 12].copy_from_slice(&(1u64 << 62).to_le_bytes());
        v.push(("zip64 size 2^62", f, "declares 4611686018427387904"));
        let mut f = good.clone();
        f[extra + 4..extra + 12].copy_from_slice(&u64::MAX.to_le_bytes());
        v.push(("zip64 size u64::MAX", f, "declares 18446744073709551615"));
    }
    // Central directory damage.
    let eocd = stored.len() - 22;
    assert_eq!(&stored[eocd..eocd + 4], b"PK\x05\x06");
    {
        let mut f = stored.clone();
        put_u16(&mut f, eocd + 8, 1);
        put_u16(&mut f, eocd + 10, 1);
        v.push(("entry count 2 -> 1", f, "central directory holds 2 entries"));
        let mut f = stored.clone();
        put_u16(&mut f, eocd + 8, 3);
        put_u16(&mut f, eocd + 10, 3);
        v.push(("entry count 2 -> 3", f, "zip"));
        let mut f = stored.clone();
        put_u32(&mut f, eocd + 16, 7);
        v.push(("directory offset wrong", f, "zip"));
        let mut f = stored.clone();
        put_u32(&mut f, eocd + 16, u32::MAX - 1);
        v.push(("directory offset past the end", f, "zip"));
        let mut f = stored.clone();
        f[central_entry(&stored, 0)] = b'X';
        v.push(("central signature broken", f, "zip"));
        let mut f = stored.clone();
        put_u32(&mut f, central_entry(&stored, 1) + 42, 3);
        v.push(("local header offset wrong", f, "member \"b.npy\""));
        let mut f = stored.clone();
        put_u32(&mut f, central_entry(&stored, 1) + 42, 0xffff_fff0);
        v.push(("local header offset past the end", f, "zip"));
        let mut f = stored.clone();
        f[0] = b'X';
        v.push(("local signature broken", f, "member \"a.npy\""));
        let mut f = stored.clone();
        put_u16(&mut f, central_entry(&stored, 0) + 10, 12); // bzip2, not built in
        v.push(("unsupported compression", f, "member \"a.npy\""));
        let mut f = stored.clone();
        put_u16(&mut f, central_entry(&stored, 0) + 10, 99); // AES without its field
        v.push(("AES without its field", f, "zip"));
        let mut f = stored.clone();
        f[central_entry(&stored, 0) + 8] |= 1; // the encrypted flag
        v.push(("encrypted", f, "member \"a.npy\""));
        let mut f = stored.clone();
        put_u16(&mut f, central_entry(&stored, 0) + 28, 60_000); // name length
        v.push(("name length past the end", f, "zip"));
    }
    v
}

#[test]
fn corrupted_archives_are_clean_errors() {
    let cases = corrupted();
    assert!(cases.len() >= 40, "{}", cases.len());
    for (what, bytes, word) in &cases {
        let e = match load(what, bytes) {
            Ok(m) => panic!("{what}: loaded {:?}", m.keys().collect::<Vec<_>>()),
            Err(e) => e,
        };
        assert!(
            matches!(e, Error::Format { format: "npz", .. }),
            "{what}: not an npz format error: {e:?}"
        );
        assert!(e.to_string().contains(word), "{what}: {e}");
    }
    println!("{} corrupted archives, all clean errors", cases.len());
}

/// Every prefix and every single-byte change (xor 0x01, 0x80, 0xff at each position) of a good
/// archive: each gives an error or tensors equal to the originals (under any names: a flipped
/// name byte changes a key), never a panic.
fn truncations_and_flips(what: &str, good: &[u8], originals: &[&DynTensor]) -> (usize, usize) {
    let mut truncation_errors = 0;
    for cut in 0..good.len() {
        if load(&format!("{what} prefix {cut}"), &good[..cut]).is_err() {
            truncation_errors += 1;
        }
    }
    let (mut flips, mut flip_errors) = (0, 0);
    for i in 0..good.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut f = good.to_vec();
            f[i] ^= x;
            flips += 1;
            let variant = format!("{what} byte {i} ^ {x:#04x}");
            match load(&variant, &f) {
                Err(_) => flip_errors += 1,
                Ok(m) => {
                    assert_eq!(m.len(), originals.len(), "{variant}");
                    for t in m.values() {
                        assert!(originals.contains(&t), "{variant}: {t:?}");
                    }
                }
            }
        }
    }
    // Then 2000 seeded changes of 2 to 4 random bytes each, anywhere.
    let mut s: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut multi_errors = 0;
    for k in 0..2000 {
        let mut f = good.to_vec();
        for _ in 0..2 + next() % 3 {
            let i = (next() % good.len() as u64) as usize;
            f[i] = next() as u8;
        }
        match load(&format!("{what} multi-byte change {k}"), &f) {
            Err(_) => multi_errors += 1,
            Ok(m) => assert!(m.values().all(|t| originals.contains(&t))),
        }
    }
    println!(
        "{what} ({} bytes): {truncation_errors} of {} truncations are errors; \
         {flip_errors} of {flips} single-byte flips are errors, the other {} load the same \
         values; {multi_errors} of 2000 seeded multi-byte changes are errors",
        good.len(),
        good.len(),
        flips - flip_errors
    );
    (truncation_errors, flip_errors)
}

#[test]
fn every_truncation_and_byte_flip_never_panics() {
    let a = sample(DType::I16, &[3, 5]).t();
    let b = sample(DType::Bool, &[4]);
    for compressed in [false, true] {
        let good = npz::to_bytes([("a", &a), ("b", &b)], compressed).unwrap();
        let what = if compressed { "deflated" } else { "stored" };
        let (cuts, _) = truncations_and_flips(what, &good, &[&a, &b]);
        // The end record is at the end: no proper prefix is an archive.
        assert_eq!(cuts, good.len(), "{what}");
    }
}
