//! Views of the `u32` word buffer as bytes and as floats.
//!
//! The buffer is a `Vec<u32>`, so it is 4-aligned wherever the allocator puts it.
//! Both casts hold for any contents, so they do not depend on the buffer's
//! invariants. The only other `unsafe` of the data module is the unchecked
//! UTF-8 read of string entries in `view.rs` (`str_of`).

use alloc::vec;
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
/// a new 4-aligned buffer.
pub(crate) fn from_le_bytes(bytes: &[u8]) -> Vec<u32> {
    let mut words = vec![0; bytes.len() / 4];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
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
