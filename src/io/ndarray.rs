//! Conversions to and from `ndarray` (cargo feature `ndarray`).
