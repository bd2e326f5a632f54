//! `Serialize`/`Deserialize` for `Tensor<T>` and `DynTensor` (cargo feature `serde`).
