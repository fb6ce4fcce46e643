//! Hashed, flattened keys: [`Key`] and the hash function behind it.

use alloc::string::String;
use core::fmt;

/// The FNV-1a 32-bit offset basis; also the hash of the empty path.
const FNV_OFFSET: u32 = 0x811c_9dc5;
/// The FNV 32-bit prime.
const FNV_PRIME: u32 = 0x0100_0193;

/// FNV-1a 32 of `bytes`, continuing from the state `hash`.
const fn fnv1a_from(mut hash: u32, bytes: &[u8]) -> u32 {
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u32;
        hash = hash.wrapping_mul(FNV_PRIME);
        i += 1;
    }
    hash
}

/// FNV-1a 32 of one path segment (its UTF-8 bytes).
pub(crate) const fn segment_hash(segment: &str) -> u32 {
    fnv1a_from(FNV_OFFSET, segment.as_bytes())
}

/// Appends a segment hash to a parent key: FNV-1a 32 continued from the parent's
/// hash over the four little-endian bytes of the segment hash.
const fn combine(parent: u32, segment: u32) -> u32 {
    fnv1a_from(parent, &segment.to_le_bytes())
}

/// A key of a [`DataComponent`](super::DataComponent): a path of string segments,
/// hashed to 32 bits.
///
/// Nested objects are flattened: `stats = { health = 100 }` is stored under the
/// path `["stats", "health"]`. Each segment is hashed on its own and the hashes are
/// combined (see the [module docs](super#the-key-hash)), so a `.` inside a segment
/// is an ordinary character: `Key::new("a.b")` is not `Key::path(&["a", "b"])`.
///
/// All constructors are `const fn`, so keys can be constants and cost nothing at
/// run time. The original strings are not kept; `Debug` shows the hash.
///
/// ```
/// use idtable::data::Key;
///
/// const HEALTH: Key = Key::path(&["stats", "health"]);
/// assert_eq!(HEALTH, Key::new("stats").join("health"));
/// assert_ne!(HEALTH, Key::new("stats.health"));
/// assert_ne!(HEALTH, Key::path(&["health", "stats"]));
/// assert_eq!(Key::from("stats"), Key::new("stats"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Key(u32);

impl Key {
    /// The key of a one-segment path.
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// const NAME: Key = Key::new("name");
    /// assert_eq!(NAME, Key::path(&["name"]));
    /// assert_eq!(NAME.to_hash(), 0xbfa1_1ba6);
    /// ```
    #[must_use]
    pub const fn new(segment: &str) -> Key {
        Key(FNV_OFFSET).join(segment)
    }

    /// The key of this path with one more segment appended.
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// const EFFECTS: Key = Key::new("status_effects");
    /// const DRUNK: Key = EFFECTS.join("drunk");
    /// assert_eq!(DRUNK, Key::path(&["status_effects", "drunk"]));
    /// ```
    #[must_use]
    pub const fn join(self, segment: &str) -> Key {
        Key(combine(self.0, segment_hash(segment)))
    }

    /// The key of a whole path, outermost segment first.
    ///
    /// `Key::path(&[a, b, c])` is `Key::new(a).join(b).join(c)`. The empty path
    /// `Key::path(&[])` is a key of its own (hash `0x811c9dc5`).
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// const MANA: Key = Key::path(&["stats", "mana"]);
    /// assert_eq!(MANA, Key::new("stats").join("mana"));
    /// assert_ne!(Key::path(&[]), Key::new(""));
    /// ```
    #[must_use]
    pub const fn path(segments: &[&str]) -> Key {
        let mut key = Key(FNV_OFFSET);
        let mut i = 0;
        while i < segments.len() {
            key = key.join(segments[i]);
            i += 1;
        }
        key
    }

    /// The key with this 32-bit hash, e.g. one read back from [`Key::to_hash`] or
    /// computed by a tool that implements the documented hash.
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// let key = Key::path(&["stats", "health"]);
    /// assert_eq!(Key::from_hash(key.to_hash()), key);
    /// ```
    #[must_use]
    pub const fn from_hash(hash: u32) -> Key {
        Key(hash)
    }

    /// The 32-bit hash this key stands for (what the buffer stores).
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// assert_eq!(Key::path(&[]).to_hash(), 0x811c_9dc5);
    /// ```
    #[must_use]
    pub const fn to_hash(self) -> u32 {
        self.0
    }
}

impl From<&str> for Key {
    /// A one-segment key, like [`Key::new`].
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// let key: Key = "name".into();
    /// assert_eq!(key, Key::new("name"));
    /// ```
    fn from(segment: &str) -> Key {
        Key::new(segment)
    }
}

impl From<&String> for Key {
    /// A one-segment key, like [`Key::new`].
    ///
    /// ```
    /// use idtable::data::Key;
    ///
    /// let name = String::from("name");
    /// assert_eq!(Key::from(&name), Key::new("name"));
    /// ```
    fn from(segment: &String) -> Key {
        Key::new(segment)
    }
}

impl fmt::Debug for Key {
    /// Shows the hash in hex, e.g. `Key(0xbfa11ba6)`: the strings are not kept.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({:#010x})", self.0)
    }
}

/// Why a key text (a key as human-readable formats write it) reads as no
/// key; see [`key_of_text`].
#[cfg(any(feature = "serde", test))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BadKeyText {
    /// The empty text (the empty path is written as its hash only).
    Empty,
    /// Starts with `0x` or `0X` but is not `0x` and 8 hex digits.
    BadHash,
    /// A path with an empty segment: two dots in a row, or a dot at an end.
    EmptySegment,
}

#[cfg(any(feature = "serde", test))]
impl fmt::Display for BadKeyText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadKeyText::Empty => "is empty",
            BadKeyText::BadHash => "starts with \"0x\" but is not \"0x\" and 8 hex digits",
            BadKeyText::EmptySegment => "has an empty segment (two dots, or a dot at an end)",
        })
    }
}

/// The key that `text` stands for in a human-readable format: `0x` and 8
/// hex digits (either case) is a hash ([`Key::from_hash`]); any other text
/// is a path whose segments are separated by `.` ([`Key::path`] of them).
/// Refused: the empty text, other texts starting with `0x` or `0X` (kept
/// for hashes, so a mistyped hash is an error, not a new key), and empty
/// segments. A segment cannot hold a `.`: such a key has no text but its
/// hash. Allocates nothing; linear in the text.
#[cfg(any(feature = "serde", test))]
pub(crate) fn key_of_text(text: &str) -> Result<Key, BadKeyText> {
    if let Some(digits) = text.strip_prefix("0x") {
        if digits.len() != 8 {
            return Err(BadKeyText::BadHash);
        }
        return digits
            .chars()
            .try_fold(0_u32, |hash, c| Some(hash << 4 | c.to_digit(16)?))
            .map(Key::from_hash)
            .ok_or(BadKeyText::BadHash);
    }
    if text.starts_with("0X") {
        return Err(BadKeyText::BadHash);
    }
    if text.is_empty() {
        return Err(BadKeyText::Empty);
    }
    let mut key = Key(FNV_OFFSET);
    for segment in text.split('.') {
        if segment.is_empty() {
            return Err(BadKeyText::EmptySegment);
        }
        key = key.join(segment);
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_hash_is_fnv1a_32() {
        // Published FNV-1a 32 test vectors.
        assert_eq!(segment_hash(""), 0x811c_9dc5);
        assert_eq!(segment_hash("a"), 0xe40c_292c);
        assert_eq!(segment_hash("foobar"), 0xbf9c_f968);
    }

    #[test]
    fn key_texts_are_hashes_or_dotted_paths() {
        let ok = [
            ("0xbfa11ba6", Key::new("name")),
            ("0xBFA11BA6", Key::new("name")),
            ("0x811c9dc5", Key::path(&[])),
            ("name", Key::new("name")),
            ("stats.health", Key::path(&["stats", "health"])),
            ("a.b.c", Key::path(&["a", "b", "c"])),
            (" spaced .\u{e9}", Key::path(&[" spaced ", "\u{e9}"])),
            ("x0x12345678", Key::new("x0x12345678")),
            ("a.0x1", Key::path(&["a", "0x1"])),
        ];
        for (text, key) in ok {
            assert_eq!(key_of_text(text), Ok(key), "{text:?}");
        }
        let bad = [
            ("", BadKeyText::Empty),
            ("0x", BadKeyText::BadHash),
            ("0x1234", BadKeyText::BadHash),
            ("0x123456789", BadKeyText::BadHash),
            ("0x1234567g", BadKeyText::BadHash),
            ("0x+1234567", BadKeyText::BadHash),
            ("0x-1234567", BadKeyText::BadHash),
            ("0x1234567\u{e9}", BadKeyText::BadHash),
            ("0x\u{e9}\u{e9}\u{e9}\u{e9}", BadKeyText::BadHash),
            ("0X12345678", BadKeyText::BadHash),
            ("0xname.stats", BadKeyText::BadHash),
            (".", BadKeyText::EmptySegment),
            ("a.", BadKeyText::EmptySegment),
            (".a", BadKeyText::EmptySegment),
            ("a..b", BadKeyText::EmptySegment),
        ];
        for (text, error) in bad {
            assert_eq!(key_of_text(text), Err(error), "{text:?}");
            assert!(!error.to_string().is_empty());
        }
    }

    #[test]
    fn combine_continues_fnv1a_over_le_bytes_of_segment_hash() {
        let by_hand = fnv1a_from(FNV_OFFSET, &[0x2c, 0x29, 0x0c, 0xe4]);
        assert_eq!(Key::new("a").to_hash(), by_hand);
    }
}
