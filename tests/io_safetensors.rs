//! `.safetensors` load/save through the safetensors crate.

use safetensors::tensor::{Dtype, TensorView};
use std::collections::BTreeMap;
use weft::io::safetensors as st;
use weft::{DType, DynTensor, Error};

const NO_META: BTreeMap<String, String> = BTreeMap::new();

fn sample(d: DType, shape: &[usize]) -> DynTensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| (i as f64 - 2.0) * 0.75).collect();
    DynTensor::from_vec(v, shape).unwrap().to(d)
}

#[test]
fn dtype_names_match_the_table() {
    for d in DType::ALL {
        let s = st::to_safetensors_dtype(d);
        assert_eq!(s.to_string(), d.safetensors_name());
        assert_eq!(st::from_safetensors_dtype(s), Ok(d));
    }
    assert!(st::from_safetensors_dtype(Dtype::F8_E4M3).is_err());
}

#[test]
fn round_trip_every_dtype_and_layouts() {
    let mut named = Vec::new();
    for d in DType::ALL {
        named.push((format!("{d}_c"), sample(d, &[3, 4])));
        named.push((format!("{d}_t"), sample(d, &[3, 4]).t()));
        named.push((format!("{d}_0d"), sample(d, &[])));
        named.push((format!("{d}_empty"), sample(d, &[0, 2])));
        named.push((
            format!("{d}_step"),
            sample(d, &[6]).slice(0, None, None, -2),
        ));
    }
    let bytes = st::to_bytes(named.iter().map(|(n, t)| (n.as_str(), t)), &NO_META).unwrap();
    let back = st::from_bytes(&bytes).unwrap();
    assert_eq!(back.len(), named.len());
    for (n, t) in &named {
        let b = &back[n];
        assert_eq!(b, t, "{n}");
        assert!(b.is_contiguous());
    }
}

#[test]
fn files_written_by_the_safetensors_crate_load() {
    let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let v = TensorView::new(Dtype::F32, vec![2, 2], &data).unwrap();
    let bytes = safetensors::serialize([("w", v)], None).unwrap();
    let m = st::from_bytes(&bytes).unwrap();
    assert_eq!(m["w"].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(m["w"].shape(), &[2, 2]);
}

#[test]
fn bad_input_is_an_error() {
    let t = sample(DType::F32, &[2]);
    let good = st::to_bytes([("a", &t)], &NO_META).unwrap();
    let n = u64::from_le_bytes(good[..8].try_into().unwrap()) as usize;
    let f8_file = {
        let v = TensorView::new(Dtype::F8_E4M3, vec![2], &[0, 1]).unwrap();
        safetensors::serialize([("u", v)], None).unwrap()
    };
    let bool_file = {
        let v = TensorView::new(Dtype::BOOL, vec![2], &[0, 2]).unwrap();
        safetensors::serialize([("b", v)], None).unwrap()
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], ""),
        (
            "header length past the end",
            [&u64::MAX.to_le_bytes()[..], &good[8..]].concat(),
            "",
        ),
        ("truncated header", good[..8 + n / 2].to_vec(), ""),
        ("truncated data", good[..good.len() - 1].to_vec(), ""),
        ("trailing byte", [&good[..], &[0]].concat(), ""),
        (
            "not JSON",
            [&good[..8], &vec![b'x'; n][..], &good[8 + n..]].concat(),
            "",
        ),
        ("unsupported dtype", f8_file, "F8_E4M3"),
        ("bool byte 2", bool_file, "bool byte"),
    ];
    for (what, bytes, word) in &cases {
        let e = st::from_bytes(bytes).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Format {
                    format: "safetensors",
                    ..
                }
            ),
            "{what}: {e:?}"
        );
        assert!(e.to_string().contains(word), "{what}: {e}");
    }
    let dup = st::to_bytes([("a", &t), ("a", &t)], &NO_META).unwrap_err();
    assert!(matches!(dup, Error::InvalidArgument { .. }));
}

#[test]
fn files_on_disk() {
    let dir = std::env::temp_dir().join(format!("weft-io-st-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("m.safetensors");
    let a = sample(DType::BF16, &[2, 3]);
    let b = sample(DType::I64, &[4]);
    st::save(&p, [("a", &a), ("b", &b)], &NO_META).unwrap();
    let m = st::load(&p).unwrap();
    assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(m["a"], a);
    assert_eq!(m["b"], b);
    assert!(matches!(
        st::load(dir.join("nope.safetensors")),
        Err(Error::Io { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("weft-io-st-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn mapped_load_shares_the_file_bytes_and_writes_stay_private() {
    let dir = temp_dir("map");
    let p = dir.join("m.safetensors");
    let a = sample(DType::F32, &[64]);
    let b = sample(DType::F64, &[3, 5]);
    let meta = BTreeMap::from([("format".to_string(), "pt".to_string())]);
    st::save(&p, [("a", &a), ("b", &b)], &meta).unwrap();
    let (mut m, back_meta) = st::load_with_metadata(&p).unwrap();
    assert_eq!(back_meta, meta);
    assert_eq!(m["a"], a);
    assert_eq!(m["b"], b);
    // Both tensors point into one mapping: their data lie exactly as far apart as in the file.
    let file = std::fs::read(&p).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&file).unwrap();
    let off = |n: &str| header.info(n).unwrap().data_offsets.0 as isize;
    let gap = m["a"].data_ptr_bytes() as isize - m["b"].data_ptr_bytes() as isize;
    assert_eq!(gap, off("a") - off("b"), "not zero-copy");
    // A write lands in the tensor (private copy-on-write pages), never in the file.
    m.get_mut("a").unwrap().fill_(weft::Scalar::Float(7.0));
    assert_eq!(m["a"].to_vec::<f32>().unwrap(), vec![7.0; 64]);
    assert_eq!(std::fs::read(&p).unwrap(), file);
    assert_eq!(st::load(&p).unwrap()["a"], a);
    // The mapping outlives the map of tensors: one tensor kept alone still reads.
    let kept = m.remove("b").unwrap();
    drop(m);
    assert_eq!(kept, b);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A `.safetensors` file written by hand: the crate's own writer keeps every tensor aligned,
/// other writers need not.
fn handmade(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.as_bytes().to_vec();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    [&(h.len() as u64).to_le_bytes()[..], &h, data].concat()
}

#[test]
fn misaligned_and_bool_tensors_are_copied_with_the_right_values() {
    let dir = temp_dir("misaligned");
    let p = dir.join("m.safetensors");
    let data: Vec<u8> = [
        &[1u8, 0, 1][..],
        &1.5f32.to_le_bytes(),
        &(-2.0f32).to_le_bytes(),
    ]
    .concat();
    let file = handmade(
        r#"{"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]},"e":{"dtype":"F32","shape":[0,2],"data_offsets":[3,3]},"x":{"dtype":"F32","shape":[2],"data_offsets":[3,11]}}"#,
        &data,
    );
    std::fs::write(&p, &file).unwrap();
    let m = st::load(&p).unwrap();
    assert_eq!(m["m"].to_vec::<bool>().unwrap(), [true, false, true]);
    assert_eq!(m["x"].to_vec::<f32>().unwrap(), [1.5, -2.0]);
    // An empty tensor at the offset where the next one starts is not an overlap.
    assert_eq!(m["e"].shape(), &[0, 2]);
    assert_eq!(
        m["x"].data_ptr_bytes() as usize % 4,
        0,
        "copied into an aligned storage"
    );
    // The same bytes through from_bytes (always copied) agree.
    assert_eq!(st::from_bytes(&file).unwrap(), m);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupted_files_are_errors_through_the_mapped_loader() {
    let dir = temp_dir("corrupt");
    let p = dir.join("c.safetensors");
    let t = sample(DType::I16, &[2, 3]);
    let u = sample(DType::Bool, &[4]);
    let good = st::to_bytes([("t", &t), ("u", &u)], &NO_META).unwrap();
    let (mut tried, mut refused) = (0, 0);
    let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
    for i in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut v = good.clone();
            v[i] ^= flip;
            variants.push(v);
        }
    }
    variants.push([&good[..], b"tail"].concat());
    variants.push(handmade(
        r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}"#,
        &[0; 6],
    ));
    variants.push(handmade(
        r#"{"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}}"#,
        &[],
    ));
    for v in &variants {
        std::fs::write(&p, v).unwrap();
        tried += 1;
        let mapped = std::panic::catch_unwind(|| st::load(&p)).expect("load panicked");
        let copied = std::panic::catch_unwind(|| st::from_bytes(v)).expect("from_bytes panicked");
        match (&mapped, &copied) {
            (Err(_), Err(_)) => refused += 1,
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            _ => panic!("mapped {mapped:?} vs copied {copied:?}"),
        }
    }
    println!(
        "safetensors corrupted variants: {tried} tried, {refused} refused, the rest loaded equal both ways"
    );
    assert!(refused > tried / 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
