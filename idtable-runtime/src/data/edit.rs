//! Editing a buffer in the [`DataComponent`](super::DataComponent) layout:
//! `set`, `remove`, `clear` and the packing rebuild, written once over
//! [`Room`], the place the buffer lives. A component's room is its own
//! `Vec`; a [`DataMap`](super::DataMap) entity's room is its block inside
//! the map's buffer, which moves to the free end when it grows.

use super::error::DataError;
use super::format::{
    count, fixed_word0, fixed_word1, header_words, span_word, split_span, Tag, FIXED_WORDS,
    MAX_WORDS,
};
use super::key::Key;
use super::value::Value;
use super::view::DataRef;

/// Where a buffer in the layout lives, and how it gets a new size.
pub(crate) trait Room {
    /// The buffer (empty before its first allocation).
    fn words(&self) -> &[u32];
    /// The buffer, to edit in place.
    fn words_mut(&mut self) -> &mut [u32];
    /// The length, in words, to give a buffer that must hold `required` words
    /// and now has `current` (at most [`MAX_WORDS`]; at least `required`).
    fn grown_len(&self, current: usize, required: usize) -> usize;
    /// Replaces the buffer by one of `len` words holding the same entries,
    /// built by [`rebuild_into`] (payloads packed at the back; entry `skip`
    /// loses its payload).
    fn resize(&mut self, len: usize, skip: Option<usize>);
}

/// Writes into `dst` (zeroed, at least the header of `src`'s entries plus
/// their payloads) a buffer of `dst.len()` words with `src`'s entries and
/// their payloads packed at the back, in entry order; entry `skip` loses its
/// payload (it is being replaced). `src` may be empty (no entries).
pub(crate) fn rebuild_into(src: &[u32], dst: &mut [u32], skip: Option<usize>) {
    let n = count(src);
    let len = dst.len();
    if !src.is_empty() {
        dst[..header_words(n)].copy_from_slice(&src[..header_words(n)]);
    }
    let mut start = len;
    for index in 0..n {
        let Some((offset, size)) = payload_span(src, n, index) else {
            continue;
        };
        let value = &mut dst[FIXED_WORDS + n + index];
        if Some(index) == skip {
            *value = 0;
            continue;
        }
        start -= size;
        let (_, field) = split_span(*value);
        *value = span_word(start, field);
        dst[start..start + size].copy_from_slice(&src[offset..offset + size]);
    }
    dst[0] = fixed_word0(n);
    dst[1] = fixed_word1(start, len);
}

/// Words of the entry arrays plus every payload: the smallest buffer that
/// holds `words`' entries.
pub(crate) fn needed_words(words: &[u32]) -> usize {
    header_words(count(words)) + live_payload(words, None)
}

/// Payload span (word offset, words) of entry `index` of `n`, if it has one.
fn payload_span(words: &[u32], n: usize, index: usize) -> Option<(usize, usize)> {
    let view = DataRef::new(words);
    let (offset, len) = split_span(view.value_word(n, index));
    let size = Tag::from_byte(view.tag_byte(n, index)).map_or(0, |tag| tag.payload_words(len));
    (size > 0).then_some((offset / 4, size))
}

/// Sum of payload words of all entries except `skip`.
fn live_payload(words: &[u32], skip: Option<usize>) -> usize {
    let n = count(words);
    (0..n)
        .filter(|&i| Some(i) != skip)
        .filter_map(|i| payload_span(words, n, i))
        .map(|(_, size)| size)
        .sum()
}

fn payload_start(words: &[u32]) -> usize {
    words.get(1).map_or(0, |&w| (w & 0xffff) as usize / 4)
}

fn set_payload_start(words: &mut [u32], start: usize) {
    words[1] = fixed_word1(start, words.len());
}

fn free_words(words: &[u32]) -> usize {
    payload_start(words) - header_words(count(words))
}

fn set_tag(words: &mut [u32], n: usize, index: usize, tag: u8) {
    let word = &mut words[FIXED_WORDS + 2 * n + index / 4];
    let shift = 8 * (index % 4);
    *word = (*word & !(0xff << shift)) | u32::from(tag) << shift;
}

/// Zeroes a payload span; gives it back to the free space if it is the lowest.
fn free(words: &mut [u32], offset: usize, size: usize) {
    words[offset..offset + size].fill(0);
    if offset == payload_start(words) {
        set_payload_start(words, offset + size);
    }
}

/// Takes `size` words from the free space (the caller checked there is room).
fn alloc(words: &mut [u32], size: usize) -> usize {
    let start = payload_start(words) - size;
    set_payload_start(words, start);
    start
}

/// Sets `key` to `value` in the buffer of `room`, replacing any previous
/// value; on [`DataError::TooLarge`] nothing changed.
pub(crate) fn set(room: &mut impl Room, key: Key, value: Value<'_>) -> Result<(), DataError> {
    let (tag, len) = Tag::of(&value);
    let size = tag.payload_words(len);
    if size > MAX_WORDS {
        // Checked early so the length fits the 16-bit field below.
        return Err(DataError::TooLarge {
            key,
            needed: size.saturating_mul(4).saturating_add(header_words(1) * 4),
        });
    }
    let (index, offset) = match DataRef::new(room.words()).find(key) {
        Some(index) => (index, make_room_in_place(room, key, index, size)?),
        None => push_entry(room, key, size)?,
    };
    let words = room.words_mut();
    let n = count(words);
    let payload = &mut words[offset..offset + size];
    let word = match value {
        Value::Bool(b) => u32::from(b),
        Value::Float(x) => x.to_bits(),
        Value::Int(x) => x as u32,
        Value::Str(s) => {
            for (dst, chunk) in payload.iter_mut().zip(s.as_bytes().chunks(4)) {
                let mut bytes = [0; 4];
                bytes[..chunk.len()].copy_from_slice(chunk);
                *dst = u32::from_le_bytes(bytes);
            }
            span_word(offset, len)
        }
        Value::Floats(xs) => {
            for (dst, x) in payload.iter_mut().zip(xs) {
                *dst = x.to_bits();
            }
            span_word(offset, len)
        }
    };
    words[FIXED_WORDS + n + index] = word;
    set_tag(words, n, index, tag.byte());
    Ok(())
}

/// Removes `key` from `words` (in place, never reallocating); returns whether
/// it was there. The last entry moves into its place.
pub(crate) fn remove(words: &mut [u32], key: Key) -> bool {
    let Some(index) = DataRef::new(words).find(key) else {
        return false;
    };
    let n = count(words);
    if let Some((offset, size)) = payload_span(words, n, index) {
        free(words, offset, size);
    }
    let last = n - 1;
    if index != last {
        words[FIXED_WORDS + index] = words[FIXED_WORDS + last];
        words[FIXED_WORDS + n + index] = words[FIXED_WORDS + n + last];
        let tag = DataRef::new(words).tag_byte(n, last);
        set_tag(words, n, index, tag);
    }
    set_tag(words, n, last, 0);
    // Close the gaps: values down by one word, tags down by two.
    let m = last;
    words.copy_within(FIXED_WORDS + n..FIXED_WORDS + n + m, FIXED_WORDS + m);
    let tags = FIXED_WORDS + 2 * n;
    words.copy_within(tags..tags + m.div_ceil(4), FIXED_WORDS + 2 * m);
    words[header_words(m)..header_words(n)].fill(0);
    words[0] = fixed_word0(m);
    true
}

/// Empties `words` (no entries, all free), keeping its length.
pub(crate) fn clear(words: &mut [u32]) {
    let len = words.len();
    if len != 0 {
        words.fill(0);
        words[0] = fixed_word0(0);
        words[1] = fixed_word1(len, len);
    }
}

/// Frees or reuses the payload of entry `index` and finds `size` words for
/// its new payload; returns their word offset (0 when `size` is 0). The
/// caller then writes the payload, the value word and the tag.
fn make_room_in_place(
    room: &mut impl Room,
    key: Key,
    index: usize,
    size: usize,
) -> Result<usize, DataError> {
    let words = room.words_mut();
    let n = count(words);
    let old = payload_span(words, n, index);
    let start = payload_start(words);
    let offset = match old {
        _ if size == 0 => {
            if let Some((offset, old_size)) = old {
                free(words, offset, old_size);
            }
            0
        }
        Some((offset, old_size)) if offset != start && old_size >= size => {
            words[offset..offset + old_size].fill(0);
            offset
        }
        _ => {
            let reclaim = match old {
                Some((offset, old_size)) if offset == start => old_size,
                _ => 0,
            };
            if free_words(words) + reclaim < size {
                grow(room, key, header_words(n), size, Some(index))?;
            } else if let Some((offset, old_size)) = old {
                free(words, offset, old_size);
            }
            alloc(room.words_mut(), size)
        }
    };
    Ok(offset)
}

/// Appends an entry for `key` with room for a payload of `size` words;
/// returns its index and the payload's word offset (0 when `size` is 0).
/// The caller then writes the payload, the value word and the tag.
fn push_entry(room: &mut impl Room, key: Key, size: usize) -> Result<(usize, usize), DataError> {
    let n = count(room.words());
    let extra = header_words(n + 1) - header_words(n);
    if room.words().is_empty() || free_words(room.words()) < extra + size {
        grow(room, key, header_words(n + 1), size, None)?;
    }
    let words = room.words_mut();
    // Open a gap: tags up by two words, values up by one.
    let tags = FIXED_WORDS + 2 * n;
    let tag_words = n.div_ceil(4);
    words.copy_within(tags..tags + tag_words, tags + 2);
    if (n + 1).div_ceil(4) > tag_words {
        words[tags + 2 + tag_words] = 0;
    }
    words.copy_within(FIXED_WORDS + n..FIXED_WORDS + 2 * n, FIXED_WORDS + n + 1);
    words[FIXED_WORDS + n] = key.to_hash();
    words[0] = fixed_word0(n + 1);
    let offset = if size > 0 { alloc(words, size) } else { 0 };
    Ok((n, offset))
}

/// Gives the buffer room for `header` words of entry arrays plus the live
/// payload (without entry `skip`'s) plus `extra` words, at the length the
/// room chooses.
fn grow(
    room: &mut impl Room,
    key: Key,
    header: usize,
    extra: usize,
    skip: Option<usize>,
) -> Result<(), DataError> {
    let required = header + live_payload(room.words(), skip) + extra;
    if required > MAX_WORDS {
        return Err(DataError::TooLarge {
            key,
            needed: required * 4,
        });
    }
    let len = room.grown_len(room.words().len(), required);
    debug_assert!(required <= len && len <= MAX_WORDS);
    room.resize(len, skip);
    Ok(())
}
