//! [`DataError`]: what can go wrong when setting values or loading bytes.

use alloc::boxed::Box;
use core::fmt;

use super::format::MAX_BYTES;
use super::key::Key;

/// Why a [`DataComponent`](super::DataComponent) or
/// [`DataMap`](super::DataMap) operation failed.
///
/// `TooLarge` comes from `set`; `StaleId`, `IdOutOfRange` and `MapTooLarge`
/// from a map's `set` and `insert`; every other variant comes from
/// `from_bytes` and says what was wrong in the bytes. Offsets are byte
/// offsets into the loaded slice (for `BadEntity`'s inner error, into the
/// entity's block).
///
/// ```
/// use idtable::data::{DataComponent, DataError};
///
/// let err = DataComponent::from_bytes(&[1, 0, 0]).unwrap_err();
/// assert_eq!(err, DataError::Truncated { len: 3 });
/// assert!(err.to_string().contains("3 bytes"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DataError {
    /// Setting `key` would need a buffer of `needed` bytes, more than
    /// [`MAX_BYTES`](super::MAX_BYTES).
    TooLarge {
        /// The key being set.
        key: Key,
        /// Bytes the buffer would need, header and all live values included.
        needed: usize,
    },
    /// The input is shorter than the 8-byte fixed header.
    Truncated {
        /// Length of the input.
        len: usize,
    },
    /// The input length is not a multiple of 4 or exceeds [`MAX_BYTES`](super::MAX_BYTES).
    BadLength {
        /// Length of the input.
        len: usize,
    },
    /// The format version byte (offset 0; for a map's block, offset 0 of the
    /// block) is not one this crate reads.
    UnsupportedVersion {
        /// The version found.
        version: u8,
    },
    /// The length recorded in the header differs from the input length.
    LengthMismatch {
        /// The length the header records.
        declared: usize,
        /// The length of the input.
        actual: usize,
    },
    /// The payload start is not 4-aligned, lies inside the entry arrays, or lies
    /// past the end.
    BadPayloadStart {
        /// The payload start the header records.
        payload_start: usize,
        /// Where the entry arrays end, from the entry count.
        header_end: usize,
    },
    /// An entry's type tag is not one of the value types of the buffer's
    /// format version (integers, tag 5, need version 2).
    BadType {
        /// Entry index.
        index: usize,
        /// The tag found.
        tag: u8,
    },
    /// A boolean's value word is neither 0 nor 1.
    BadBool {
        /// Entry index.
        index: usize,
        /// The word found.
        word: u32,
    },
    /// A string's or array's bytes are misaligned, outside the payload area, or
    /// (when empty) have a non-zero offset.
    BadPayload {
        /// Entry index.
        index: usize,
        /// Byte offset the entry records.
        offset: usize,
        /// Byte length the entry records.
        len: usize,
    },
    /// Two entries' payloads overlap.
    Overlap {
        /// One entry index.
        index: usize,
        /// The other entry index.
        other: usize,
    },
    /// A string's bytes are not UTF-8.
    BadUtf8 {
        /// Entry index.
        index: usize,
    },
    /// A key appears twice.
    DuplicateKey {
        /// The repeated key.
        key: Key,
    },
    /// A byte that belongs to no value (reserved, padding, free space or a hole)
    /// is not zero.
    NonZeroUnused {
        /// Byte offset.
        offset: usize,
        /// The byte found.
        byte: u8,
    },
    /// A map's entry is for an older id than the one the map holds for that
    /// slot index (the id's object was removed from its table, and the slot
    /// reused): the map keeps the newer entity's data.
    StaleId {
        /// The slot index of the id.
        index: usize,
    },
    /// An id's slot index is beyond what a map indexes (`u32::MAX`).
    IdOutOfRange {
        /// The slot index of the id.
        index: usize,
    },
    /// A map's buffer would pass 2³² words (16 GiB), beyond its 32-bit offsets.
    MapTooLarge {
        /// Words the buffer would need.
        words: usize,
    },
    /// Saved map bytes were written for another id type: ids of another
    /// width or with another number of index bits.
    IdLayoutMismatch {
        /// Words per id in the bytes.
        id_words: u8,
        /// Index bits in the bytes.
        index_bits: u8,
    },
    /// The entity count in a map's header differs from the entities found.
    EntityCountMismatch {
        /// The count the header records.
        declared: usize,
        /// The entities found.
        found: usize,
    },
    /// An entity's block in a map is not a valid
    /// [`DataComponent`](super::DataComponent) buffer of the current version.
    BadEntity {
        /// Byte offset of the block in the map's bytes.
        offset: usize,
        /// What is wrong with the block (offsets within the block).
        error: Box<DataError>,
    },
    /// An entity's id in a map has generation 0 or a slot index past
    /// `u32::MAX`, or does not fit before the end.
    BadId {
        /// Byte offset of the id.
        offset: usize,
    },
    /// Two entities of a map have ids with the same slot index.
    DuplicateId {
        /// Byte offset of the second one's id.
        offset: usize,
        /// The slot index.
        index: usize,
    },
}

impl fmt::Display for DataError {
    /// ```
    /// use idtable::data::{DataError, Key};
    ///
    /// let err = DataError::TooLarge { key: Key::from_hash(7), needed: 70_000 };
    /// assert_eq!(
    ///     err.to_string(),
    ///     "setting Key(0x00000007) would need a buffer of 70000 bytes, \
    ///      more than the format's limit of 65532"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DataError::TooLarge { key, needed } => write!(
                f,
                "setting {key:?} would need a buffer of {needed} bytes, \
                 more than the format's limit of {MAX_BYTES}"
            ),
            DataError::Truncated { len } => write!(
                f,
                "DataComponent bytes truncated: {len} bytes, the fixed header alone is 8"
            ),
            DataError::BadLength { len } => write!(
                f,
                "DataComponent bytes have length {len}, which is not a multiple of 4 \
                 of at most {MAX_BYTES}"
            ),
            DataError::UnsupportedVersion { version } => write!(
                f,
                "data bytes have format version {version}, which idtable does not read \
                 (a DataComponent is version 1 or 2, a DataMap version 1)"
            ),
            DataError::LengthMismatch { declared, actual } => write!(
                f,
                "DataComponent header records {declared} bytes but {actual} were given"
            ),
            DataError::BadPayloadStart {
                payload_start,
                header_end,
            } => write!(
                f,
                "DataComponent payload start {payload_start} is misaligned, inside the \
                 entry arrays (which end at {header_end}) or past the end"
            ),
            DataError::BadType { index, tag } => {
                write!(f, "DataComponent entry {index} has unknown type tag {tag}")
            }
            DataError::BadBool { index, word } => write!(
                f,
                "DataComponent entry {index} is a bool with value word {word:#x}, not 0 or 1"
            ),
            DataError::BadPayload { index, offset, len } => write!(
                f,
                "DataComponent entry {index} points at {len} bytes at offset {offset}, \
                 which is misaligned or outside the payload area"
            ),
            DataError::Overlap { index, other } => write!(
                f,
                "DataComponent entries {index} and {other} have overlapping payloads"
            ),
            DataError::BadUtf8 { index } => {
                write!(
                    f,
                    "DataComponent entry {index} is a string that is not UTF-8"
                )
            }
            DataError::DuplicateKey { key } => {
                write!(f, "DataComponent bytes hold {key:?} twice")
            }
            DataError::NonZeroUnused { offset, byte } => write!(
                f,
                "DataComponent byte {offset} is unused (reserved, padding or free) \
                 and must be 0, found {byte:#04x}"
            ),
            DataError::StaleId { index } => write!(
                f,
                "the DataMap holds a newer id for slot index {index}: the id is stale"
            ),
            DataError::IdOutOfRange { index } => write!(
                f,
                "slot index {index} is past the largest a DataMap indexes, {}",
                u32::MAX
            ),
            DataError::MapTooLarge { words } => write!(
                f,
                "the DataMap's buffer would need {words} words, more than its 32-bit offsets reach"
            ),
            DataError::IdLayoutMismatch {
                id_words,
                index_bits,
            } => write!(
                f,
                "DataMap bytes hold ids of {id_words} words with {index_bits} index bits, \
                 not ids of the map's type"
            ),
            DataError::EntityCountMismatch { declared, found } => write!(
                f,
                "DataMap header records {declared} entities but {found} were found"
            ),
            DataError::BadEntity { offset, ref error } => {
                write!(f, "DataMap entity at byte {offset}: {error}")
            }
            DataError::BadId { offset } => write!(
                f,
                "DataMap id at byte {offset} has generation 0, a slot index past {}, \
                 or runs past the end",
                u32::MAX
            ),
            DataError::DuplicateId { offset, index } => write!(
                f,
                "DataMap id at byte {offset} has slot index {index}, like an earlier entity's"
            ),
        }
    }
}

impl core::error::Error for DataError {}
