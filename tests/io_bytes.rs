//! Raw little-endian bytes in and out of tensors.

use weft::half::{bf16, f16};
use weft::{DType, DynTensor, Error, Tensor};

/// A tensor of every dtype with a few values (3 x 2), as a DynTensor.
pub fn sample(d: DType) -> DynTensor {
    let v = [0.0, 1.0, -2.5, 100.0, f64::INFINITY, -0.0];
    let v: Vec<f64> = v.to_vec();
    DynTensor::from_vec(v, &[3, 2]).unwrap().to(d)
}

#[test]
fn round_trip_every_dtype() {
    for d in DType::ALL {
        let t = sample(d);
        let bytes = t.to_bytes().unwrap();
        assert_eq!(bytes.len(), 6 * d.size());
        let back = DynTensor::from_bytes(d, &[3, 2], &bytes).unwrap();
        assert_eq!(back, t, "{d}");
        assert!(back.is_contiguous());
        let owned = DynTensor::from_bytes_vec(d, &[3, 2], bytes.clone()).unwrap();
        assert_eq!(owned, t);
        // Any layout: the transposed view's bytes are its row-major order.
        let tt = t.t();
        let tb = tt.to_bytes().unwrap();
        assert_eq!(DynTensor::from_bytes(d, &[2, 3], &tb).unwrap(), tt, "{d}");
        assert_eq!(tb, tt.contiguous().to_bytes().unwrap());
    }
}

#[test]
fn little_endian_layout_of_the_bytes() {
    let t = Tensor::<i32>::from_vec(vec![1, -2], &[2]).unwrap();
    assert_eq!(t.to_bytes().unwrap(), [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
    let f = Tensor::<f32>::from_bytes(&[], &1.5f32.to_le_bytes()).unwrap();
    assert_eq!(f.item().unwrap(), 1.5);
    let h = Tensor::<f16>::from_bytes(&[1], &[0x00, 0x3c]).unwrap();
    assert_eq!(h.to_vec(), [f16::ONE]);
    let b = Tensor::<bf16>::from_bytes(&[1], &[0x80, 0x3f]).unwrap();
    assert_eq!(b.to_vec(), [bf16::ONE]);
    let i = Tensor::<i64>::from_bytes(&[1], &(-3i64).to_le_bytes()).unwrap();
    assert_eq!(i.to_vec(), [-3]);
    // Views with offsets, negative steps and broadcasting.
    let a = Tensor::<u8>::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    assert_eq!(
        a.slice(1, None, None, -1).to_bytes().unwrap(),
        [3, 2, 1, 6, 5, 4]
    );
    assert_eq!(a.select(0, 1).to_bytes().unwrap(), [4, 5, 6]);
    let e = Tensor::<i16>::from_vec(vec![258], &[1])
        .unwrap()
        .expand([2, 2]);
    assert_eq!(e.to_bytes().unwrap(), [2, 1, 2, 1, 2, 1, 2, 1]);
}

#[test]
fn zero_d_and_empty() {
    for d in DType::ALL {
        let z = DynTensor::from_bytes(d, &[], &vec![0u8; d.size()]).unwrap();
        assert_eq!(z.shape(), &[] as &[usize]);
        assert_eq!(z, DynTensor::zeros(d, &[]).unwrap());
        let e = DynTensor::from_bytes(d, &[0, 5], &[]).unwrap();
        assert_eq!(e.shape(), &[0, 5]);
        assert_eq!(e.to_bytes().unwrap(), Vec::<u8>::new());
    }
}

#[test]
fn bad_lengths_and_bools_are_errors() {
    for d in DType::ALL {
        let n = 6 * d.size();
        for len in [0, n - 1, n + 1, 2 * n] {
            let e = DynTensor::from_bytes(d, &[2, 3], &vec![0u8; len]).unwrap_err();
            assert!(matches!(e, Error::Format { .. }), "{d} {len}: {e:?}");
            assert!(e.to_string().contains(&format!("got {len}")), "{e}");
        }
    }
    // Overflowing shapes: checked arithmetic, no allocation.
    for shape in [&[usize::MAX, 2][..], &[1 << 62, 4], &[1 << 40, 1 << 40]] {
        assert!(matches!(
            DynTensor::from_bytes(DType::F64, shape, &[]),
            Err(Error::NumelOverflow { .. })
        ));
    }
    // The shape is not what overflows here but the byte size (i64 elements).
    assert!(matches!(
        DynTensor::from_bytes(DType::I64, &[1 << 61], &[]),
        Err(Error::NumelOverflow { .. })
    ));
    let e = DynTensor::from_bytes(DType::Bool, &[3], &[0, 1, 2]).unwrap_err();
    assert!(e.to_string().contains("bool byte 2 is 2"), "{e}");
    assert!(DynTensor::from_bytes(DType::Bool, &[1], &[255]).is_err());
    let ok = DynTensor::from_bytes(DType::Bool, &[3], &[0, 1, 1]).unwrap();
    assert_eq!(ok.to_vec::<bool>().unwrap(), [false, true, true]);
}

#[test]
fn storage_is_aligned_and_fresh() {
    let bytes: Vec<u8> = (0..=255).collect();
    // An unaligned source slice still gives an aligned storage.
    let t = DynTensor::from_bytes(DType::F32, &[15], &bytes[1..61]).unwrap();
    assert_eq!(t.data_ptr_bytes() as usize % 64, 0);
    assert_eq!(t.to_bytes().unwrap(), &bytes[1..61]);
}
