//! Validation of saved bytes: everything [`DataComponent::from_bytes`] checks.
//!
//! [`DataComponent::from_bytes`]: super::DataComponent::from_bytes

use super::error::DataError;
use super::format::{header_words, split_slot, Tag, FIXED_WORDS, OLDEST_VERSION, VERSION};
use super::key::Key;
use super::words::as_bytes;
use alloc::vec::Vec;

/// Checks that `words` (at least the fixed header, at most the size limit) is a
/// buffer in the documented format, of version 2 or of version 1 (which has no
/// integers). Whatever passes can be read and edited without panicking, once
/// its version byte says 2.
pub(crate) fn validate(words: &[u32]) -> Result<(), DataError> {
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
    let (payload_start, declared) = split_slot(word1);
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
                let (offset, field) = split_slot(word);
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
