//! Views of the `u32` word buffer as bytes and as floats, and the buffer
//! made from saved bytes.
//!
//! The buffer is a `Vec<u32>`, so it is 4-aligned wherever the allocator puts it.
//! Both casts hold for any contents, so they do not depend on the buffer's
//! invariants; `from_le_bytes` copies into a new buffer without zeroing
//! it first. The only other `unsafe` of the data module is the unchecked
//! UTF-8 read of string entries in `view.rs` (`str_of`).

use alloc::vec::Vec;

/// The words as bytes (native order; the data module only builds on little-endian
/// targets, so this is the documented little-endian format).
pub(crate) fn as_bytes(words: &[u32]) -> &[u8] {
    // SAFETY: the pointer comes from a live `&[u32]` of `words.len()` elements, so
    // `words.len() * 4` bytes from it are readable for the borrow's lifetime (the
    // product cannot overflow: the slice already spans that many bytes). `u8` has
    // alignment 1, every bit pattern is a valid `u8`, `u32` has no padding bytes,
    // and the result borrows `words` immutably, so nothing can write meanwhile.
    unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), words.len() * 4) }
}

/// A saved form: the bytes of `words`, or `empty` (what a buffer that
/// never allocated saves as, its header alone) when there are none.
pub(crate) fn saved_bytes<'a>(words: &'a [u32], empty: &'a [u8]) -> &'a [u8] {
    if words.is_empty() {
        empty
    } else {
        as_bytes(words)
    }
}

/// The words reinterpreted as `f32`s (bit for bit, as `f32::from_bits` would).
pub(crate) fn as_f32s(words: &[u32]) -> &[f32] {
    // SAFETY: `f32` and `u32` have the same size (4) and alignment (4), every bit
    // pattern is a valid `f32`, the length in elements is unchanged, and the
    // result keeps the immutable borrow of `words`.
    unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<f32>(), words.len()) }
}

/// The little-endian words of `bytes` (whose length is a multiple of 4), in
/// a new 4-aligned buffer: one copy, without zeroing the buffer first
/// (measured faster, by about 4%, when loading a `DataMap` of 1.3 MB).
pub(crate) fn from_le_bytes(bytes: &[u8]) -> Vec<u32> {
    let len = bytes.len() / 4;
    let mut words: Vec<u32> = Vec::with_capacity(len);
    // SAFETY: `words` has room for `len` words, that is `len * 4` bytes
    // (`Vec::with_capacity`), and `bytes` holds at least that many; the two
    // do not overlap (`words` is a new allocation). After the copy the first
    // `len` words are initialised (every bit pattern is a valid `u32`), so
    // `set_len(len)` exposes only initialised elements. The data module
    // builds only on little-endian targets, where the bytes of a `u32` in
    // memory are its little-endian bytes.
    unsafe {
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast::<u8>(), len * 4);
        words.set_len(len);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_view_is_little_endian_words() {
        let words = [0x0403_0201_u32, 0x0807_0605];
        assert_eq!(as_bytes(&words), &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(as_bytes(&words[1..]), &[5, 6, 7, 8]);
        assert!(as_bytes(&[]).is_empty());
    }

    #[test]
    fn words_from_bytes_are_little_endian() {
        assert_eq!(from_le_bytes(&[1, 2, 3, 4, 5, 0, 0, 0]), [0x0403_0201, 5]);
        assert!(from_le_bytes(&[]).is_empty());
    }

    #[test]
    fn float_view_matches_from_bits() {
        let words = [1.5_f32.to_bits(), (-0.25_f32).to_bits()];
        assert_eq!(as_f32s(&words), &[1.5, -0.25]);
    }
}
