//! The committed gpu/kernels.ptx is current, self-contained and panic-free (stable toolchain; no
//! GPU or nightly needed). Regenerate with `gpu/build-ptx.sh` when `stamp_matches_sources` fails.

use std::path::{Path, PathBuf};
use weft::device::KERNELS_PTX;
use weft::device::kernel_list::KERNEL_NAMES;
use weft::device::layout::StridedLayout;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// SHA-256 (FIPS 180-4), small and dependency-free; checked against a known vector below.
fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for i in 0..8 {
            h[i] = h[i].wrapping_add(v[i]);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

fn rs_files(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().into_string().unwrap();
        let r = format!("{rel}/{name}");
        if e.file_type().unwrap().is_dir() {
            rs_files(&e.path(), &r, out);
        } else if name.ends_with(".rs") {
            out.push(r);
        }
    }
}

/// The same byte stream as `stamp()` in gpu/build-ptx.sh.
fn source_stamp() -> String {
    let list = std::fs::read_to_string(root().join("gpu/stamp-files.txt")).unwrap();
    let mut files = Vec::new();
    for line in list.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let p = root().join(line);
        if p.is_dir() {
            rs_files(&p, line, &mut files);
        } else if p.is_file() {
            files.push(line.to_string());
        }
    }
    files.sort(); // byte order, as LC_ALL=C sort
    files.dedup();
    let mut stream = Vec::new();
    for f in &files {
        stream.extend_from_slice(f.as_bytes());
        stream.push(b'\n');
        stream.extend_from_slice(&std::fs::read(root().join(f)).unwrap());
    }
    sha256(&stream)
}

fn header(key: &str) -> Option<&'static str> {
    KERNELS_PTX
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")))
}

#[test]
fn sha256_known_vectors() {
    assert_eq!(
        sha256(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256(&[b'a'; 1000]),
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
    );
}

#[test]
fn stamp_matches_sources() {
    let recorded = header("source-hash").expect("gpu/kernels.ptx has no source-hash header");
    let now = source_stamp();
    assert_eq!(
        recorded, now,
        "gpu/kernels.ptx is stale: a file listed in gpu/stamp-files.txt changed since it was \
         built. Run gpu/build-ptx.sh (nightly + rust-src + llvm-tools) and commit the PTX."
    );
}

#[test]
fn ptx_is_self_contained_and_panic_free() {
    assert!(KERNELS_PTX.contains(".version "), "no .version directive");
    assert!(KERNELS_PTX.contains(".target sm_"), "no .target directive");
    let mut entry = "";
    for (n, line) in KERNELS_PTX.lines().enumerate() {
        let l = line.trim_start();
        if l.starts_with(".visible .entry") || l.starts_with(".entry") || l.starts_with(".func") {
            entry = l;
        }
        assert!(
            !l.starts_with(".extern"),
            "line {}: unresolved symbol: {line}",
            n + 1
        );
        assert!(!l.contains("panick"), "line {}: panic path: {line}", n + 1);
        let is_trap = l
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == "trap");
        assert!(
            !is_trap,
            "line {}: trap (a panic path) in {entry}: {line}",
            n + 1
        );
    }
}

#[test]
fn ptx_declares_exactly_the_listed_kernels() {
    let mut declared: Vec<&str> = KERNELS_PTX
        .lines()
        .filter_map(|l| l.strip_prefix(".visible .entry "))
        .map(|l| l.trim_end_matches('('))
        .collect();
    declared.sort();
    let reductions = weft::device::reduce_plan::reduce_kernel_names();
    let mut listed: Vec<&str> = KERNEL_NAMES.to_vec();
    listed.extend(reductions.iter().map(|s| s.as_str()));
    listed.sort();
    assert_eq!(declared, listed);
}

#[test]
fn ptx_layout_params_have_the_host_sizes() {
    let ls = format!("add_f32_s_param_0[{}]", size_of::<StridedLayout>());
    assert!(KERNELS_PTX.contains(&ls), "expected {ls} in the PTX");
    // Zero-sized functors take no parameter; a scalar functor takes its bytes.
    assert!(
        KERNELS_PTX.contains("add_f32_c_param_1,")
            && KERNELS_PTX.contains(".ptr .align 1 add_f32_c_param_1")
    );
    assert!(KERNELS_PTX.contains(".b8 add_scalar_f32_c_param_1[4]"));
}

/// Rebuilds the PTX with the recorded toolchain and byte-compares (opt-in: `WEFT_PTX_REBUILD=1`;
/// needs that nightly with rust-src and llvm-tools; ~25 s cold).
#[test]
fn ptx_matches_a_fresh_build() {
    if std::env::var("WEFT_PTX_REBUILD").as_deref() != Ok("1") {
        eprintln!("skipped: set WEFT_PTX_REBUILD=1 to rebuild gpu/kernels.ptx and compare");
        return;
    }
    let tc = header("rustup-toolchain").expect("no rustup-toolchain header");
    let status = std::process::Command::new(root().join("gpu/build-ptx.sh"))
        .arg("--check")
        .env("PTX_TOOLCHAIN", tc)
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .expect("running gpu/build-ptx.sh");
    assert!(status.success(), "gpu/build-ptx.sh --check failed");
}
