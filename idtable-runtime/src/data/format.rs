//! The saved format of a [`DataComponent`](super::DataComponent), each fact
//! once: the word layout of the header, the version, the size limit and the
//! value types' tags. The read view (`view.rs`), the edits (`edit.rs`) and
//! the checks of saved bytes (`load.rs`) all read it from here; the module
//! docs describe the same layout for users.

use super::value::Value;

/// The largest buffer a [`DataComponent`](super::DataComponent) may have, in
/// bytes (the 16-bit length and offset fields, rounded down to whole words).
///
/// ```
/// use idtable::data::{DataComponent, DataError, MAX_BYTES};
///
/// let mut sheet = DataComponent::new();
/// let floats = vec![0.0_f32; MAX_BYTES / 4];
/// assert!(matches!(sheet.set("big", &floats), Err(DataError::TooLarge { .. })));
/// ```
pub const MAX_BYTES: usize = 65_532;

/// Bytes the fixed header and the entry arrays of `entries` entries take in a
/// [`DataComponent`](super::DataComponent)'s buffer (8 + 8 per entry + one tag byte per entry,
/// rounded up to whole words): the smallest buffer that holds that many
/// bools and floats. Strings and float arrays take their payload on top.
///
/// ```
/// use idtable::data::{header_bytes, DataComponent};
///
/// assert_eq!(header_bytes(0), 8);
/// assert_eq!(header_bytes(3), 8 + 3 * 8 + 4);
/// let mut sheet = DataComponent::with_capacity(header_bytes(3));
/// for key in ["a", "b", "c"] {
///     sheet.set(key, 1.0_f32)?;
/// }
/// assert_eq!(sheet.capacity(), header_bytes(3)); // no growth was needed
/// # Ok::<(), idtable::data::DataError>(())
/// ```
pub const fn header_bytes(entries: usize) -> usize {
    header_words(entries) * 4
}

/// Words of the fixed header (version and count; payload start and length).
pub(crate) const FIXED_WORDS: usize = 2;
/// The format version written at byte 0.
pub(crate) const VERSION: u8 = 2;
/// The oldest version [`DataComponent::from_bytes`](super::DataComponent::from_bytes)
/// reads: version 1 is version 2 without [`Tag::Int`], and loads as version 2.
pub(crate) const OLDEST_VERSION: u8 = 1;
/// The largest buffer, in words.
pub(crate) const MAX_WORDS: usize = MAX_BYTES / 4;

/// The saved form of a component that has never allocated: version 2, no
/// entries, payload start 8, length 8.
pub(crate) const EMPTY_BYTES: [u8; 8] = [VERSION, 0, 0, 0, 8, 0, 8, 0];

/// Words taken by the fixed header and the three entry arrays of `n` entries
/// (keys, value words, and the type tags packed four to a word).
pub(crate) const fn header_words(n: usize) -> usize {
    FIXED_WORDS + 2 * n + n.div_ceil(4)
}

/// Splits a string's or array's value word into (byte offset, length field).
pub(crate) const fn split_span(word: u32) -> (usize, usize) {
    ((word & 0xffff) as usize, (word >> 16) as usize)
}

/// The value word of a payload at word `offset` with this length field.
pub(crate) const fn span_word(offset: usize, len: usize) -> u32 {
    (offset * 4) as u32 | (len as u32) << 16
}

/// Number of entries of a buffer in the layout (0 for an empty slice).
#[inline]
pub(crate) fn count(words: &[u32]) -> usize {
    match words.first() {
        Some(&word) => (word >> 16) as usize,
        None => 0,
    }
}

/// Header word 0: the version and the number of entries.
pub(crate) const fn fixed_word0(count: usize) -> u32 {
    VERSION as u32 | (count as u32) << 16
}

/// Header word 1: the payload start and the buffer length, in bytes.
pub(crate) const fn fixed_word1(payload_start_words: usize, len_words: usize) -> u32 {
    (payload_start_words * 4) as u32 | ((len_words * 4) as u32) << 16
}

/// Length in words of a buffer whose header word 1 is `word1`.
pub(crate) const fn len_words(word1: u32) -> usize {
    (word1 >> 16) as usize / 4
}

/// The format version of a [`DataMap`](super::DataMap)'s buffer, at byte 0.
pub(crate) const MAP_VERSION: u8 = 1;
/// Words of a [`DataMap`](super::DataMap)'s header (layout word; entity
/// count).
pub(crate) const MAP_HEADER_WORDS: usize = 2;

/// Words an id of `id_bits` bits takes in a map's buffer.
pub(crate) const fn id_words(id_bits: u32) -> usize {
    id_bits.div_ceil(32) as usize
}

/// A map's header word 0: version, id words, index bits, a zero byte.
pub(crate) const fn map_word0(id_bits: u32, index_bits: u32) -> u32 {
    MAP_VERSION as u32 | (id_words(id_bits) as u32) << 8 | index_bits << 16
}

/// The saved form of an empty map whose ids have `id_bits` bits, of which
/// `index_bits` are the index.
pub(crate) const fn empty_map_bytes(id_bits: u32, index_bits: u32) -> [u8; 8] {
    let w = map_word0(id_bits, index_bits).to_le_bytes();
    [w[0], w[1], w[2], w[3], 0, 0, 0, 0]
}

/// The type tag of an entry: one byte per entry in the header. Each value
/// type is described here once: its tag byte, the length its value word
/// records, and the payload that length takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum Tag {
    /// `Value::Bool`: the value word is 0 or 1.
    Bool = 1,
    /// `Value::Float`: the value word is the `f32`'s bits.
    Float = 2,
    /// `Value::Str`: the value word is a span of that many UTF-8 bytes.
    Str = 3,
    /// `Value::Floats`: the value word is a span of that many `f32`s.
    Floats = 4,
    /// `Value::Int`: the value word is the `i32`'s two's-complement bits
    /// (format version 2 on).
    Int = 5,
}

impl Tag {
    /// Whether a buffer of format `version` may hold this tag.
    pub(crate) const fn in_version(self, version: u8) -> bool {
        match self {
            Tag::Int => version >= 2,
            Tag::Bool | Tag::Float | Tag::Str | Tag::Floats => true,
        }
    }

    /// The tag a saved byte names, if any.
    #[inline(always)]
    pub(crate) const fn from_byte(byte: u8) -> Option<Tag> {
        match byte {
            1 => Some(Tag::Bool),
            2 => Some(Tag::Float),
            3 => Some(Tag::Str),
            4 => Some(Tag::Floats),
            5 => Some(Tag::Int),
            _ => None,
        }
    }

    /// The byte saved for this tag.
    #[inline(always)]
    pub(crate) const fn byte(self) -> u8 {
        self as u8
    }

    /// The tag of `value` and the length field its value word records.
    #[inline]
    pub(crate) fn of(value: &Value<'_>) -> (Tag, usize) {
        match value {
            Value::Bool(_) => (Tag::Bool, 0),
            Value::Float(_) => (Tag::Float, 0),
            Value::Int(_) => (Tag::Int, 0),
            Value::Str(s) => (Tag::Str, s.len()),
            Value::Floats(xs) => (Tag::Floats, xs.len()),
        }
    }

    /// Payload bytes of a value of this tag with length field `len` (0 for
    /// the types held in the value word).
    #[inline(always)]
    pub(crate) const fn payload_bytes(self, len: usize) -> usize {
        match self {
            Tag::Str => len,
            Tag::Floats => len * 4,
            Tag::Bool | Tag::Float | Tag::Int => 0,
        }
    }

    /// Words the payload occupies (its bytes rounded up to whole words).
    #[inline(always)]
    pub(crate) const fn payload_words(self, len: usize) -> usize {
        self.payload_bytes(len).div_ceil(4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_round_trips_through_its_byte_and_no_other_byte_is_a_tag() {
        for byte in 0..=u8::MAX {
            match Tag::from_byte(byte) {
                Some(tag) => assert_eq!(tag.byte(), byte),
                None => assert!(byte == 0 || byte > 5),
            }
        }
        let values = [
            Value::Bool(true),
            Value::Float(1.0),
            Value::Str("abcde"),
            Value::Floats(&[1.0, 2.0]),
            Value::Int(-7),
        ];
        let words: Vec<usize> = values
            .iter()
            .map(|v| {
                let (tag, len) = Tag::of(v);
                assert_eq!(Tag::from_byte(tag.byte()), Some(tag));
                tag.payload_words(len)
            })
            .collect();
        assert_eq!(words, [0, 0, 2, 2, 0]);
        assert!(!Tag::Int.in_version(1) && Tag::Int.in_version(2));
        assert!(Tag::Floats.in_version(1));
    }
}
