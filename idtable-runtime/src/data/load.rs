//! Validation of saved bytes: everything [`DataComponent::from_bytes`] checks.
//!
//! [`DataComponent::from_bytes`]: super::DataComponent::from_bytes

use super::error::DataError;
use super::format::{header_words, split_span, Tag, FIXED_WORDS, OLDEST_VERSION, VERSION};
use super::key::Key;
use super::words::{as_bytes, from_le_bytes};
use alloc::vec::Vec;

/// The little-endian words of saved `bytes` (of a component or of a map),
/// in aligned storage: the first check of every `from_bytes`. Shorter than
/// a header of `min_words` is [`DataError::Truncated`]; not whole words, or
/// more than `max_bytes`, is [`DataError::BadLength`].
pub(crate) fn saved_words(
    bytes: &[u8],
    min_words: usize,
    max_bytes: usize,
) -> Result<Vec<u32>, DataError> {
    let len = bytes.len();
    if len < min_words * 4 {
        return Err(DataError::Truncated { len });
    }
    if len % 4 != 0 || len > max_bytes {
        return Err(DataError::BadLength { len });
    }
    Ok(from_le_bytes(bytes))
}

/// Checks that `words` (at least the fixed header, at most the size limit) is a
/// buffer in the documented format, of version 2 or of version 1 (which has no
/// integers). Whatever passes can be read and edited without panicking, once
/// its version byte says 2.
///
/// Small, valid buffers (the many blocks of a `DataMap`) are accepted by
/// [`quick_check`], one pass without sorting or scratch space; anything it
/// does not accept goes through [`full_check`], which names the first
/// problem. Both accept exactly the same buffers (tests cross-check them on
/// every input in debug builds).
pub(crate) fn validate(words: &[u32]) -> Result<(), DataError> {
    validate_like(words, &mut Shape::default())
}

/// [`validate`] for one of many buffers checked in a row (the blocks of a
/// `DataMap`), where `shape` carries over what the previous buffers
/// taught: a buffer whose keys and type tags are the same words as the
/// last one [`quick_check`] accepted has no duplicate key and no bad tag
/// either, and its bools and payloads are the same entries, so only their
/// values are checked.
pub(crate) fn validate_like(words: &[u32], shape: &mut Shape) -> Result<(), DataError> {
    if quick_check(words, shape) {
        debug_assert_eq!(
            full_check(words),
            Ok(()),
            "quick_check accepted a buffer full_check refuses"
        );
        return Ok(());
    }
    full_check(words)
}

/// Most entries, and most payload words, [`quick_check`] handles; larger
/// buffers go to [`full_check`].
const QUICK_ENTRIES: usize = 16;
const QUICK_PAYLOAD_WORDS: usize = 64;

/// The keys and type tags of the last buffer [`quick_check`] accepted, and
/// which of its entries are bools, strings and float arrays (a bit each).
#[derive(Clone)]
pub(crate) struct Shape {
    version: u8,
    /// Entries; more than [`QUICK_ENTRIES`] before the first buffer.
    n: usize,
    keys: [u32; QUICK_ENTRIES],
    tags: [u32; QUICK_ENTRIES / 4],
    bools: u32,
    strs: u32,
    floats: u32,
}

impl Default for Shape {
    /// Matches no buffer.
    fn default() -> Self {
        Shape {
            version: 0,
            n: usize::MAX,
            keys: [0; QUICK_ENTRIES],
            tags: [0; QUICK_ENTRIES / 4],
            bools: 0,
            strs: 0,
            floats: 0,
        }
    }
}

/// `true` only if `words` is valid (what [`full_check`] accepts); `false`
/// if it is not, or is too large for this check. Payload overlaps and the
/// zero words between payloads are found with a bit per payload word.
/// Keys and tags are checked only when they differ from `shape`'s, which
/// then learns them.
fn quick_check(words: &[u32], shape: &mut Shape) -> bool {
    let len = words.len() * 4;
    let (Some(&word0), Some(&word1)) = (words.first(), words.get(1)) else {
        return false;
    };
    let version = word0 as u8;
    let n = (word0 >> 16) as usize;
    let (payload_start, declared) = split_span(word1);
    let header_len = header_words(n);
    let header_end = header_len * 4;
    if !(OLDEST_VERSION..=VERSION).contains(&version)
        || word0 & 0xff00 != 0
        || declared != len
        || n > QUICK_ENTRIES
        || payload_start % 4 != 0
        || payload_start < header_end
        || payload_start > len
        || (len - header_end) / 4 > QUICK_PAYLOAD_WORDS
    {
        return false;
    }
    let header = &words[..header_len];
    let keys = &header[FIXED_WORDS..FIXED_WORDS + n];
    let values = &header[FIXED_WORDS + n..FIXED_WORDS + 2 * n];
    let tag_words = &header[FIXED_WORDS + 2 * n..];
    let same = shape.n == n
        && shape.version == version
        && shape.keys[..n] == *keys
        && shape.tags[..tag_words.len()] == *tag_words;
    if !same && !learn_shape(version, keys, tag_words, shape) {
        return false;
    }
    let mut bad = false;
    let mut bools = shape.bools;
    while bools != 0 {
        bad |= values[bools.trailing_zeros() as usize] > 1;
        bools &= bools - 1;
    }
    let first_payload_word = header_len;
    let mut covered = 0u64;
    let mut payloads = shape.strs | shape.floats;
    while payloads != 0 {
        let index = payloads.trailing_zeros() as usize;
        payloads &= payloads - 1;
        let is_str = shape.strs >> index & 1 != 0;
        let (offset, field) = split_span(values[index]);
        let size = if is_str { field } else { field * 4 };
        if size == 0 {
            bad |= offset != 0;
            continue;
        }
        if offset % 4 != 0 || offset < payload_start || offset + size > len {
            return false;
        }
        // The payload's words (`offset` is word-aligned, past the header,
        // and the payload ends within the buffer).
        let span = &words[offset / 4..(offset + size).div_ceil(4)];
        if is_str && !is_text(span, size) {
            return false;
        }
        // The payload's words as bits of the payload area (at most 64
        // words, checked above).
        let first = offset / 4 - first_payload_word;
        let bits = (u64::MAX >> (64 - span.len())) << first;
        bad |= covered & bits != 0;
        covered |= bits;
    }
    if bad {
        return false;
    }
    // Every payload-area word no payload covers is zero.
    let area = &words[first_payload_word..];
    let mut gaps = if area.len() == 64 {
        !covered
    } else {
        !covered & ((1u64 << area.len()) - 1)
    };
    while gaps != 0 {
        if area[gaps.trailing_zeros() as usize] != 0 {
            return false;
        }
        gaps &= gaps - 1;
    }
    true
}

/// Checks the keys (all different) and the type tag words (a type of
/// `version` per entry, zero bytes after the last) of a buffer of at most
/// [`QUICK_ENTRIES`] entries; if they pass, `shape` takes them and which
/// entries are bools, strings and float arrays.
#[inline(never)]
fn learn_shape(version: u8, keys: &[u32], tag_words: &[u32], shape: &mut Shape) -> bool {
    let n = keys.len();
    // The bytes after the last tag, up to the end of its word, are zero.
    if n % 4 != 0 && tag_words[n / 4] >> (8 * (n % 4)) != 0 {
        return false;
    }
    // Duplicate keys: a key is compared with the earlier ones only when its
    // low 6 bits met an earlier key's (keys are hashes, so rarely).
    let mut seen = 0u64;
    for (i, &key) in keys.iter().enumerate() {
        let bit = 1u64 << (key & 63);
        if seen & bit != 0 && keys[..i].contains(&key) {
            return false;
        }
        seen |= bit;
    }
    // Tags run from 1 to the newest type of the version (integers, 5, are
    // the one type version 1 lacks).
    let types = if version >= 2 {
        Tag::Int.byte()
    } else {
        Tag::Floats.byte()
    };
    let (mut bools, mut strs, mut floats) = (0u32, 0u32, 0u32);
    for index in 0..n {
        let tag = (tag_words[index / 4] >> (8 * (index % 4))) as u8;
        if tag.wrapping_sub(1) >= types {
            return false;
        }
        bools |= u32::from(tag == Tag::Bool.byte()) << index;
        strs |= u32::from(tag == Tag::Str.byte()) << index;
        floats |= u32::from(tag == Tag::Floats.byte()) << index;
    }
    shape.version = version;
    shape.n = n;
    shape.keys[..n].copy_from_slice(keys);
    shape.tags[..tag_words.len()].copy_from_slice(tag_words);
    shape.bools = bools;
    shape.strs = strs;
    shape.floats = floats;
    true
}

/// `span`, the words of a string payload of `size` bytes, holds UTF-8
/// text followed by zero padding. ASCII text (no byte with its high bit
/// set, padding included) is checked a word at a time.
#[inline]
fn is_text(span: &[u32], size: usize) -> bool {
    let tail = size % 4;
    let padding_ok = tail == 0 || span[span.len() - 1] >> (8 * tail) == 0;
    padding_ok
        && (span.iter().all(|&w| w & 0x8080_8080 == 0)
            || core::str::from_utf8(&as_bytes(span)[..size]).is_ok())
}

/// The complete check behind [`validate`]: the first problem, by name.
fn full_check(words: &[u32]) -> Result<(), DataError> {
    let bytes = as_bytes(words);
    let len = bytes.len();
    let (Some(&word0), Some(&word1)) = (words.first(), words.get(1)) else {
        return Err(DataError::Truncated { len });
    };
    let version = word0 as u8;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(DataError::UnsupportedVersion { version });
    }
    check_zero(bytes, 1, 2)?;
    let n = (word0 >> 16) as usize;
    let (payload_start, declared) = split_span(word1);
    if declared != len {
        return Err(DataError::LengthMismatch {
            declared,
            actual: len,
        });
    }
    let header_end = header_words(n) * 4;
    if payload_start % 4 != 0 || payload_start < header_end || payload_start > len {
        return Err(DataError::BadPayloadStart {
            payload_start,
            header_end,
        });
    }
    // Errors are built only when returned: a map checks thousands of blocks.
    let bad_header = || DataError::BadPayloadStart {
        payload_start,
        header_end,
    };
    let keys = words
        .get(FIXED_WORDS..FIXED_WORDS + n)
        .ok_or_else(bad_header)?;
    let values = words
        .get(FIXED_WORDS + n..FIXED_WORDS + 2 * n)
        .ok_or_else(bad_header)?;
    let tags_start = (FIXED_WORDS + 2 * n) * 4;
    let tags = bytes.get(tags_start..header_end).ok_or_else(bad_header)?;

    // Type tags, then zero padding up to the end of the entry arrays.
    for (index, &tag) in tags.iter().enumerate().take(n) {
        if !Tag::from_byte(tag).is_some_and(|tag| tag.in_version(version)) {
            return Err(DataError::BadType { index, tag });
        }
    }
    check_zero(bytes, tags_start + n, header_end)?;

    if let Some(hash) = duplicate(keys) {
        return Err(DataError::DuplicateKey {
            key: Key::from_hash(hash),
        });
    }

    // Value words; payloads collected as (start, end, index) byte ranges.
    let mut ranges = Ranges::default();
    for (index, (&word, &byte)) in values.iter().zip(tags).enumerate() {
        let Some(tag) = Tag::from_byte(byte) else {
            continue; // refused above
        };
        match tag {
            Tag::Bool if word > 1 => return Err(DataError::BadBool { index, word }),
            Tag::Str | Tag::Floats => {
                let (offset, field) = split_span(word);
                let size = tag.payload_bytes(field);
                let bad = || DataError::BadPayload {
                    index,
                    offset,
                    len: size,
                };
                if size == 0 {
                    if offset != 0 {
                        return Err(bad());
                    }
                    continue;
                }
                if offset % 4 != 0 || offset < payload_start || offset + size > len {
                    return Err(bad());
                }
                let end = offset + size.next_multiple_of(4);
                if tag == Tag::Str {
                    let text = bytes.get(offset..offset + size).ok_or_else(bad)?;
                    if core::str::from_utf8(text).is_err() {
                        return Err(DataError::BadUtf8 { index });
                    }
                    check_zero(bytes, offset + size, end)?;
                }
                ranges.push((offset, end, index));
            }
            _ => {}
        }
    }

    // No overlaps; every byte between the entry arrays and the end that no
    // payload covers (free space and holes) is zero.
    let ranges = ranges.as_mut_slice();
    ranges.sort_unstable();
    let mut cursor = header_end;
    let mut previous = None;
    for &(start, end, index) in &*ranges {
        if let Some((previous_end, other)) = previous {
            if start < previous_end {
                return Err(DataError::Overlap { index, other });
            }
        }
        check_zero(bytes, cursor, start)?;
        cursor = end;
        previous = Some((end, index));
    }
    check_zero(bytes, cursor, len)
}

/// Errors with the first non-zero byte in `bytes[start..end]`.
fn check_zero(bytes: &[u8], start: usize, end: usize) -> Result<(), DataError> {
    let span = bytes.get(start..end).unwrap_or(&[]);
    match span.iter().position(|&b| b != 0) {
        Some(at) => Err(DataError::NonZeroUnused {
            offset: start + at,
            byte: span[at],
        }),
        None => Ok(()),
    }
}

/// Buffers of up to this many entries (or payloads) are checked without
/// allocating (a map's `from_bytes` checks thousands of small blocks).
const SMALL: usize = 8;

/// A key that appears twice in `keys`, if any.
fn duplicate(keys: &[u32]) -> Option<u32> {
    if keys.len() <= SMALL {
        keys.iter()
            .enumerate()
            .find_map(|(i, key)| keys[i + 1..].contains(key).then_some(*key))
    } else {
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted
            .windows(2)
            .find(|pair| pair[0] == pair[1])
            .map(|pair| pair[0])
    }
}

/// Payload byte ranges `(start, end, entry index)`: on the stack while
/// there are few.
#[derive(Default)]
struct Ranges {
    small: [(usize, usize, usize); SMALL],
    count: usize,
    large: Vec<(usize, usize, usize)>,
}

impl Ranges {
    #[inline]
    fn push(&mut self, range: (usize, usize, usize)) {
        if self.count < SMALL {
            self.small[self.count] = range;
        } else {
            if self.large.is_empty() {
                self.large.extend_from_slice(&self.small);
            }
            self.large.push(range);
        }
        self.count += 1;
    }

    fn as_mut_slice(&mut self) -> &mut [(usize, usize, usize)] {
        if self.count <= SMALL {
            &mut self.small[..self.count]
        } else {
            &mut self.large
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::words::from_le_bytes;
    use crate::data::{DataComponent, Value};

    /// Components of every value type and of 0 to 20 entries; some within
    /// `quick_check`'s limits, some past them.
    fn samples() -> Vec<DataComponent> {
        let mut out = Vec::new();
        for n in 0..=20usize {
            let mut sheet = DataComponent::new();
            for k in 0..n {
                let key = alloc::format!("key {k}");
                let value = match k % 6 {
                    0 => Value::Float(k as f32),
                    1 => Value::Int(-(k as i32)),
                    2 => Value::Bool(k % 4 == 0),
                    3 => Value::Str(if k % 2 == 0 { "plain" } else { "naïve café" }),
                    4 => Value::Floats(&[1.0, 2.0, 3.0]),
                    _ => Value::Str(""),
                };
                sheet.set(key.as_str(), value).unwrap();
            }
            out.push(sheet.clone());
            // Removing entries leaves zeroed payload holes behind.
            if n > 3 {
                sheet.remove("key 3");
                out.push(sheet);
            }
        }
        out
    }

    /// The header fields `quick_check` decides its limits on, if readable.
    fn within_quick_limits(words: &[u32]) -> bool {
        let n = (words[0] >> 16) as usize;
        let len = words.len() * 4;
        let header_end = header_words(n) * 4;
        n <= QUICK_ENTRIES && header_end <= len && (len - header_end) / 4 <= QUICK_PAYLOAD_WORDS
    }

    #[test]
    fn quick_check_accepts_every_valid_buffer_within_its_limits() {
        let mut quick = 0;
        for sheet in samples() {
            let words = from_le_bytes(sheet.as_bytes());
            assert_eq!(full_check(&words), Ok(()));
            let fresh = quick_check(&words, &mut Shape::default());
            assert_eq!(fresh, within_quick_limits(&words), "{sheet:?}");
            // With the shape of the same buffer learned: the same answer.
            let mut shape = Shape::default();
            quick_check(&words, &mut shape);
            assert_eq!(quick_check(&words, &mut shape), fresh, "{sheet:?}");
            quick += usize::from(fresh);
        }
        assert!(quick > 10, "only {quick} samples took the quick path");
    }

    /// Whether `quick_check` accepts `words` with a fresh shape and with the
    /// shape learned from `learned` (a valid buffer checked just before, as
    /// a map's previous block is); both must agree with `full_check`.
    fn check_both_ways(learned: &[u32], words: &[u32]) -> bool {
        let mut shape = Shape::default();
        assert!(!within_quick_limits(learned) || quick_check(learned, &mut shape));
        let after = quick_check(words, &mut shape);
        let fresh = quick_check(words, &mut Shape::default());
        assert_eq!(
            after, fresh,
            "the learned shape changed the answer for {words:?}"
        );
        fresh
    }

    #[test]
    fn quick_check_accepts_only_what_full_check_accepts() {
        // Every truncation and every 1-byte corruption (5 values per byte)
        // of each sample: the two checks agree on what is valid.
        // Under Miri, the smaller samples and two values per byte.
        let (most_entries, values): (usize, &[u8]) = if cfg!(miri) {
            (3, &[0, 0xff])
        } else {
            (12, &[0, 1, 0x7f, 0x80, 0xff])
        };
        for sheet in samples().into_iter().filter(|s| s.len() <= most_entries) {
            let bytes = sheet.as_bytes();
            let mut cases: Vec<Vec<u8>> = (0..bytes.len() / 4)
                .map(|w| bytes[..w * 4].to_vec())
                .collect();
            for at in 0..bytes.len() {
                for &value in values {
                    let mut bad = bytes.to_vec();
                    bad[at] = value;
                    cases.push(bad);
                }
            }
            for case in cases {
                let words = from_le_bytes(&case);
                let full = full_check(&words);
                if check_both_ways(&from_le_bytes(bytes), &words) {
                    assert_eq!(full, Ok(()), "quick_check accepted {case:?}");
                } else if full.is_ok() && words.len() >= 2 {
                    assert!(
                        !within_quick_limits(&words),
                        "quick_check refused valid {case:?}"
                    );
                }
            }
        }
    }
}
