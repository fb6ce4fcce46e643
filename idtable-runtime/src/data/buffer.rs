//! [`DataComponent`]: the buffer, its layout helpers and its operations.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::error::DataError;
use super::format::{
    fixed_word0, fixed_word1, header_words, slot_word, split_slot, Tag, EMPTY_BYTES, FIXED_WORDS,
    MAX_BYTES, MAX_WORDS,
};
use super::key::Key;
use super::load::validate;
use super::value::Value;
use super::words::{as_bytes, as_f32s};

/// The first allocation, in words (32 bytes).
const MIN_WORDS: usize = 8;

/// A zeroed buffer of `len` words holding no entries.
fn empty_buffer(len: usize) -> Vec<u32> {
    let mut words = vec![0; len];
    words[0] = fixed_word0(0);
    words[1] = fixed_word1(len, len);
    words
}

/// Per-entity key/value data (bools, floats, strings, float arrays) in one
/// contiguous, relocatable buffer. See the [module docs](super) for the layout.
///
/// Keys are [`Key`]s (hashed paths); a `&str` converts to a one-segment key.
/// Values go in as anything that converts into a [`Value`] and come out borrowed
/// from the buffer. [`as_bytes`](Self::as_bytes) is the saved form and
/// [`from_bytes`](Self::from_bytes) loads it back, checking every byte.
///
/// Equality compares contents: the same keys holding equal values, whatever the
/// order, capacity or layout (so, like `f32`, a NaN is not equal to itself).
///
/// ```
/// use idtable::data::{DataComponent, DataError, Key, Value};
///
/// const HEALTH: Key = Key::path(&["stats", "health"]);
///
/// let mut sheet = DataComponent::new();
/// sheet.set("name", "The One")?;
/// sheet.set(HEALTH, 100.0_f32)?;
/// sheet.set(Key::new("status_effects").join("drunk"), true)?;
/// assert_eq!(sheet.get(HEALTH), Some(Value::Float(100.0)));
/// assert_eq!(sheet.get_str("name"), Some("The One"));
///
/// let saved: Vec<u8> = sheet.as_bytes().to_vec();
/// let loaded = DataComponent::from_bytes(&saved)?;
/// assert_eq!(loaded, sheet);
/// # Ok::<(), DataError>(())
/// ```
#[derive(Clone, Default)]
pub struct DataComponent {
    /// Empty (nothing allocated, no entries), or a buffer in the documented
    /// format that [`validate`] accepts: fixed header, keys, value words and
    /// type tags from the front, zeroed free space, payloads toward the back,
    /// every unused byte zero. Every operation keeps this; the tests check it by
    /// reloading `as_bytes()`.
    words: Vec<u32>,
}

impl DataComponent {
    /// An empty component; allocates nothing until the first [`set`](Self::set).
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let sheet = DataComponent::new();
    /// assert!(sheet.is_empty());
    /// assert_eq!(sheet.capacity(), 0);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        DataComponent { words: Vec::new() }
    }

    /// An empty component whose buffer holds `bytes` bytes (rounded up to a
    /// multiple of 4, at least 8, at most [`MAX_BYTES`]); 0 allocates nothing.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let sheet = DataComponent::with_capacity(100);
    /// assert_eq!(sheet.capacity(), 100);
    /// assert!(sheet.is_empty());
    /// ```
    #[must_use]
    pub fn with_capacity(bytes: usize) -> Self {
        if bytes == 0 {
            return Self::new();
        }
        let len = bytes.div_ceil(4).clamp(FIXED_WORDS, MAX_WORDS);
        DataComponent {
            words: empty_buffer(len),
        }
    }

    /// Number of keys.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", 1.0_f32)?;
    /// sheet.set("a", 2.0_f32)?;
    /// assert_eq!(sheet.len(), 1);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn len(&self) -> usize {
        match self.words.first() {
            Some(&word) => (word >> 16) as usize,
            None => 0,
        }
    }

    /// Whether there are no keys.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// assert!(sheet.is_empty());
    /// sheet.set("a", true)?;
    /// assert!(!sheet.is_empty());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of the buffer in bytes: header, free space and payload together
    /// (the length of [`as_bytes`](Self::as_bytes), except 0 before the first
    /// allocation).
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// assert!(sheet.capacity() >= 8 + 9 + 8);
    /// assert_eq!(sheet.capacity(), sheet.as_bytes().len());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.words.len() * 4
    }

    /// The saved form: exactly the buffer, in the format of the
    /// [module docs](super#byte-format), free space (zeroed) included. Call
    /// [`shrink_to_fit`](Self::shrink_to_fit) first to save the smallest form.
    /// A component that never allocated gives the 8-byte empty header.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// assert_eq!(DataComponent::new().as_bytes(), &[2, 0, 0, 0, 8, 0, 8, 0]);
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        if self.words.is_empty() {
            &EMPTY_BYTES
        } else {
            as_bytes(&self.words)
        }
    }

    /// Loads bytes saved by [`as_bytes`](Self::as_bytes), from a slice at any
    /// address. Everything is checked (lengths, offsets, overlaps, type tags,
    /// UTF-8, duplicate keys, zeroed unused bytes); anything inconsistent is a
    /// [`DataError`] saying what was wrong. Saving the result gives the same
    /// bytes back, except that bytes of format version 1 (written before
    /// integers existed) load as version 2: the result saves with byte 0 set to
    /// `2` and every other byte unchanged.
    ///
    /// ```
    /// use idtable::data::{DataComponent, DataError};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// let bytes = sheet.as_bytes().to_vec();
    /// let loaded = DataComponent::from_bytes(&bytes)?;
    /// assert_eq!(loaded.as_bytes(), &bytes[..]);
    ///
    /// let mut corrupt = bytes.clone();
    /// corrupt[0] = 9;
    /// assert_eq!(
    ///     DataComponent::from_bytes(&corrupt),
    ///     Err(DataError::UnsupportedVersion { version: 9 })
    /// );
    /// # Ok::<(), DataError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DataError> {
        let len = bytes.len();
        if len < FIXED_WORDS * 4 {
            return Err(DataError::Truncated { len });
        }
        if len % 4 != 0 || len > MAX_BYTES {
            return Err(DataError::BadLength { len });
        }
        let mut words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        validate(&words)?;
        // Version 1 is version 2 without integers: it loads as version 2.
        words[0] = fixed_word0(words[0] as usize >> 16);
        Ok(DataComponent { words })
    }

    /// Whether `key` is set.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// assert!(sheet.contains("a"));
    /// assert!(!sheet.contains("b"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn contains(&self, key: impl Into<Key>) -> bool {
        self.find(key.into()).is_some()
    }

    /// The value of `key`, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::{DataComponent, Key, Value};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set(Key::path(&["pos"]), &[1.0_f32, 2.0])?;
    /// assert_eq!(sheet.get("pos"), Some(Value::Floats(&[1.0, 2.0])));
    /// assert_eq!(sheet.get("nope"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get(&self, key: impl Into<Key>) -> Option<Value<'_>> {
        let (tag, word) = self.entry(key.into())?;
        Some(self.decode(tag, word))
    }

    /// The value of `key` if it is a bool.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("drunk", true)?;
    /// assert_eq!(sheet.get_bool("drunk"), Some(true));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_bool(&self, key: impl Into<Key>) -> Option<bool> {
        match self.entry(key.into())? {
            (Some(Tag::Bool), word) => Some(word != 0),
            _ => None,
        }
    }

    /// The value of `key` if it is a float.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("mana", 200.0_f32)?;
    /// assert_eq!(sheet.get_f32("mana"), Some(200.0));
    /// assert_eq!(sheet.get_bool("mana"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32(&self, key: impl Into<Key>) -> Option<f32> {
        match self.entry(key.into())? {
            (Some(Tag::Float), word) => Some(f32::from_bits(word)),
            _ => None,
        }
    }

    /// The value of `key` if it is an integer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("gold", 1250)?;
    /// assert_eq!(sheet.get_i32("gold"), Some(1250));
    /// assert_eq!(sheet.get_f32("gold"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_i32(&self, key: impl Into<Key>) -> Option<i32> {
        match self.entry(key.into())? {
            (Some(Tag::Int), word) => Some(word as i32),
            _ => None,
        }
    }

    /// The value of `key` if it is a string, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// assert_eq!(sheet.get_str("name"), Some("The One"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_str(&self, key: impl Into<Key>) -> Option<&str> {
        match self.entry(key.into())? {
            (Some(Tag::Str), word) => Some(self.str_at(word)),
            _ => None,
        }
    }

    /// The value of `key` if it is a float array, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("color", &[0.0_f32, 0.5, 0.5, 0.7])?;
    /// assert_eq!(sheet.get_f32s("color"), Some(&[0.0, 0.5, 0.5, 0.7][..]));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32s(&self, key: impl Into<Key>) -> Option<&[f32]> {
        match self.entry(key.into())? {
            (Some(Tag::Floats), word) => Some(self.floats_at(word)),
            _ => None,
        }
    }

    /// Sets `key` to `value`, replacing any previous value of any type.
    ///
    /// Fails with [`DataError::TooLarge`] (leaving the component unchanged) if the
    /// buffer would exceed [`MAX_BYTES`]. When free space runs out the buffer is
    /// reallocated, doubling its size unless compacting the payload alone leaves
    /// a quarter of it free.
    ///
    /// ```
    /// use idtable::data::{DataComponent, DataError, Value};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("x", 1.0_f32)?;
    /// sheet.set("x", "one")?; // a key can change type
    /// assert_eq!(sheet.get("x"), Some(Value::Str("one")));
    ///
    /// let huge = "x".repeat(70_000);
    /// assert!(matches!(sheet.set("y", huge.as_str()), Err(DataError::TooLarge { .. })));
    /// assert_eq!(sheet.len(), 1);
    /// # Ok::<(), DataError>(())
    /// ```
    pub fn set<'v>(
        &mut self,
        key: impl Into<Key>,
        value: impl Into<Value<'v>>,
    ) -> Result<(), DataError> {
        let key = key.into();
        let value = value.into();
        let (tag, len) = Tag::of(&value);
        let size = tag.payload_words(len);
        if size > MAX_WORDS {
            // Checked early so the length fits the 16-bit field below.
            return Err(DataError::TooLarge {
                key,
                needed: size.saturating_mul(4).saturating_add(header_words(1) * 4),
            });
        }
        let (index, offset) = match self.find(key) {
            Some(index) => (index, self.make_room_in_place(key, index, size)?),
            None => self.push_entry(key, size)?,
        };
        let n = self.len();
        let payload = &mut self.words[offset..offset + size];
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
                slot_word(offset, len)
            }
            Value::Floats(xs) => {
                for (dst, x) in payload.iter_mut().zip(xs) {
                    *dst = x.to_bits();
                }
                slot_word(offset, len)
            }
        };
        self.words[FIXED_WORDS + n + index] = word;
        self.set_tag(n, index, tag.byte());
        Ok(())
    }

    /// Removes `key`; returns whether it was there. The last entry moves into
    /// its place, so iteration order changes.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// assert!(sheet.remove("name"));
    /// assert!(!sheet.remove("name"));
    /// assert!(sheet.is_empty());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn remove(&mut self, key: impl Into<Key>) -> bool {
        let Some(index) = self.find(key.into()) else {
            return false;
        };
        let n = self.len();
        if let Some((offset, size)) = self.slot(n, index) {
            self.free(offset, size);
        }
        let last = n - 1;
        if index != last {
            self.words[FIXED_WORDS + index] = self.words[FIXED_WORDS + last];
            self.words[FIXED_WORDS + n + index] = self.words[FIXED_WORDS + n + last];
            let tag = self.tag_byte(n, last);
            self.set_tag(n, index, tag);
        }
        self.set_tag(n, last, 0);
        // Close the gaps: values down by one word, tags down by two.
        let m = last;
        self.words
            .copy_within(FIXED_WORDS + n..FIXED_WORDS + n + m, FIXED_WORDS + m);
        let tags = FIXED_WORDS + 2 * n;
        self.words
            .copy_within(tags..tags + m.div_ceil(4), FIXED_WORDS + 2 * m);
        self.words[header_words(m)..header_words(n)].fill(0);
        self.words[0] = fixed_word0(m);
        true
    }

    /// Removes every key, keeping the buffer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// let capacity = sheet.capacity();
    /// sheet.clear();
    /// assert!(sheet.is_empty());
    /// assert_eq!(sheet.capacity(), capacity);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn clear(&mut self) {
        if !self.words.is_empty() {
            let len = self.words.len();
            self.words.fill(0);
            self.words[0] = fixed_word0(0);
            self.words[1] = fixed_word1(len, len);
        }
    }

    /// Compacts the payload and shrinks the buffer to exactly what the entries
    /// need (an empty component releases it), e.g. before saving.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?; // 8 header + 9 entry, padded, + 8 string
    /// sheet.shrink_to_fit();
    /// assert_eq!(sheet.capacity(), 8 + 12 + 8);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn shrink_to_fit(&mut self) {
        let n = self.len();
        if n == 0 {
            self.words = Vec::new();
        } else {
            let needed = header_words(n) + self.live_payload(None);
            self.rebuild(needed, None);
        }
    }

    /// The entries as `(Key, Value)`, in storage order.
    ///
    /// ```
    /// use idtable::data::{DataComponent, Key, Value};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// sheet.set("b", 2.0_f32)?;
    /// let all: Vec<(Key, Value)> = sheet.iter().collect();
    /// assert_eq!(all, [(Key::new("a"), Value::Bool(true)), (Key::new("b"), Value::Float(2.0))]);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            sheet: self,
            next: 0,
            end: self.len(),
        }
    }

    // ----- layout helpers -----

    #[inline]
    fn keys(&self) -> &[u32] {
        self.words
            .get(FIXED_WORDS..FIXED_WORDS + self.len())
            .unwrap_or(&[])
    }

    #[inline]
    fn find(&self, key: Key) -> Option<usize> {
        find_hash(self.keys(), key.to_hash())
    }

    fn key_at(&self, index: usize) -> Key {
        Key::from_hash(self.keys().get(index).copied().unwrap_or(0))
    }

    #[inline]
    fn value_word(&self, n: usize, index: usize) -> u32 {
        self.words
            .get(FIXED_WORDS + n + index)
            .copied()
            .unwrap_or(0)
    }

    /// The saved tag byte of entry `index` of `n` (0 past the end).
    #[inline]
    fn tag_byte(&self, n: usize, index: usize) -> u8 {
        let word = self
            .words
            .get(FIXED_WORDS + 2 * n + index / 4)
            .copied()
            .unwrap_or(0);
        (word >> (8 * (index % 4))) as u8
    }

    fn set_tag(&mut self, n: usize, index: usize, tag: u8) {
        let word = &mut self.words[FIXED_WORDS + 2 * n + index / 4];
        let shift = 8 * (index % 4);
        *word = (*word & !(0xff << shift)) | u32::from(tag) << shift;
    }

    /// The type tag and value word of `key`, if it is set.
    #[inline]
    fn entry(&self, key: Key) -> Option<(Option<Tag>, u32)> {
        let n = self.len();
        let index = find_hash(self.keys(), key.to_hash())?;
        Some((
            Tag::from_byte(self.tag_byte(n, index)),
            self.value_word(n, index),
        ))
    }

    /// Reads entry `index` of `n`; never panics, whatever the words hold.
    #[inline]
    fn value_at(&self, n: usize, index: usize) -> Value<'_> {
        self.decode(
            Tag::from_byte(self.tag_byte(n, index)),
            self.value_word(n, index),
        )
    }

    /// Decodes an entry. The byte and float views are computed for every tag
    /// (clamped to the buffer, so they never fail) and the match only picks
    /// one, which lets the compiler select instead of branching twice on the
    /// value type (once here, once in the caller's match).
    #[inline]
    fn decode(&self, tag: Option<Tag>, word: u32) -> Value<'_> {
        let bytes = self.bytes_at(word);
        let floats = self.floats_at(word);
        match tag {
            Some(Tag::Bool) => Value::Bool(word != 0),
            Some(Tag::Str) => Value::Str(str_of(bytes)),
            Some(Tag::Floats) => Value::Floats(floats),
            Some(Tag::Int) => Value::Int(word as i32),
            Some(Tag::Float) | None => Value::Float(f32::from_bits(word)),
        }
    }

    /// The string a string entry's value word points at.
    #[inline]
    fn str_at(&self, word: u32) -> &str {
        str_of(self.bytes_at(word))
    }

    /// The bytes a value word points at if read as (byte offset, byte length),
    /// clamped to the buffer.
    #[inline]
    fn bytes_at(&self, word: u32) -> &[u8] {
        let (offset, len) = split_slot(word);
        let all = as_bytes(&self.words);
        let end = (offset + len).min(all.len());
        all.get(offset.min(end)..end).unwrap_or(&[])
    }

    /// The floats a value word points at if read as (byte offset, count),
    /// clamped to the buffer.
    #[inline]
    fn floats_at(&self, word: u32) -> &[f32] {
        let (offset, len) = split_slot(word);
        let end = (offset / 4 + len).min(self.words.len());
        as_f32s(self.words.get((offset / 4).min(end)..end).unwrap_or(&[]))
    }

    /// Payload slot (word offset, words) of entry `index`, if it has one.
    fn slot(&self, n: usize, index: usize) -> Option<(usize, usize)> {
        let (offset, len) = split_slot(self.value_word(n, index));
        let size = Tag::from_byte(self.tag_byte(n, index)).map_or(0, |tag| tag.payload_words(len));
        (size > 0).then_some((offset / 4, size))
    }

    fn payload_start(&self) -> usize {
        self.words.get(1).map_or(0, |&w| (w & 0xffff) as usize / 4)
    }

    fn set_payload_start(&mut self, start: usize) {
        self.words[1] = fixed_word1(start, self.words.len());
    }

    fn free_words(&self) -> usize {
        self.payload_start() - header_words(self.len())
    }

    /// Zeroes a payload slot; gives it back to the free space if it is the lowest.
    fn free(&mut self, offset: usize, size: usize) {
        self.words[offset..offset + size].fill(0);
        if offset == self.payload_start() {
            self.set_payload_start(offset + size);
        }
    }

    /// Takes `size` words from the free space (the caller checked there is room).
    fn alloc(&mut self, size: usize) -> usize {
        let start = self.payload_start() - size;
        self.set_payload_start(start);
        start
    }

    /// Sum of payload words of all entries except `skip`.
    fn live_payload(&self, skip: Option<usize>) -> usize {
        let n = self.len();
        (0..n)
            .filter(|&i| Some(i) != skip)
            .filter_map(|i| self.slot(n, i))
            .map(|(_, size)| size)
            .sum()
    }

    /// Frees or reuses the payload of entry `index` and finds `size` words for
    /// its new payload; returns their word offset (0 when `size` is 0). The
    /// caller then writes the payload, the value word and the tag.
    fn make_room_in_place(
        &mut self,
        key: Key,
        index: usize,
        size: usize,
    ) -> Result<usize, DataError> {
        let n = self.len();
        let old = self.slot(n, index);
        let start = self.payload_start();
        let offset = match old {
            _ if size == 0 => {
                if let Some((offset, old_size)) = old {
                    self.free(offset, old_size);
                }
                0
            }
            Some((offset, old_size)) if offset != start && old_size >= size => {
                self.words[offset..offset + old_size].fill(0);
                offset
            }
            _ => {
                let reclaim = match old {
                    Some((offset, old_size)) if offset == start => old_size,
                    _ => 0,
                };
                if self.free_words() + reclaim < size {
                    self.grow(key, header_words(n), size, Some(index))?;
                } else if let Some((offset, old_size)) = old {
                    self.free(offset, old_size);
                }
                self.alloc(size)
            }
        };
        Ok(offset)
    }

    /// Appends an entry for `key` with room for a payload of `size` words;
    /// returns its index and the payload's word offset (0 when `size` is 0).
    /// The caller then writes the payload, the value word and the tag.
    fn push_entry(&mut self, key: Key, size: usize) -> Result<(usize, usize), DataError> {
        let n = self.len();
        let extra = header_words(n + 1) - header_words(n);
        if self.words.is_empty() || self.free_words() < extra + size {
            self.grow(key, header_words(n + 1), size, None)?;
        }
        // Open a gap: tags up by two words, values up by one.
        let tags = FIXED_WORDS + 2 * n;
        let tag_words = n.div_ceil(4);
        self.words.copy_within(tags..tags + tag_words, tags + 2);
        if (n + 1).div_ceil(4) > tag_words {
            self.words[tags + 2 + tag_words] = 0;
        }
        self.words
            .copy_within(FIXED_WORDS + n..FIXED_WORDS + 2 * n, FIXED_WORDS + n + 1);
        self.words[FIXED_WORDS + n] = key.to_hash();
        self.words[0] = fixed_word0(n + 1);
        let offset = if size > 0 { self.alloc(size) } else { 0 };
        Ok((n, offset))
    }

    /// Reallocates so that `header` words of entry arrays plus the live payload
    /// (without entry `skip`'s) plus `extra` words fit: doubling, unless the
    /// compacted contents leave a quarter of the current size free.
    fn grow(
        &mut self,
        key: Key,
        header: usize,
        extra: usize,
        skip: Option<usize>,
    ) -> Result<(), DataError> {
        let required = header + self.live_payload(skip) + extra;
        if required > MAX_WORDS {
            return Err(DataError::TooLarge {
                key,
                needed: required * 4,
            });
        }
        let current = self.words.len();
        let mut len = current.max(MIN_WORDS);
        while len < required {
            len *= 2;
        }
        if len == current && required * 4 > len * 3 {
            len *= 2;
        }
        self.rebuild(len.min(MAX_WORDS), skip);
        Ok(())
    }

    /// Copies the entries into a fresh buffer of `len` words with the payloads
    /// packed at the back; entry `skip` loses its payload (it is being replaced).
    fn rebuild(&mut self, len: usize, skip: Option<usize>) {
        let n = self.len();
        let mut words = empty_buffer(len);
        if !self.words.is_empty() {
            words[..header_words(n)].copy_from_slice(&self.words[..header_words(n)]);
        }
        let mut start = len;
        for index in 0..n {
            let Some((offset, size)) = self.slot(n, index) else {
                continue;
            };
            let value = &mut words[FIXED_WORDS + n + index];
            if Some(index) == skip {
                *value = 0;
                continue;
            }
            start -= size;
            let (_, field) = split_slot(*value);
            *value = slot_word(start, field);
            words[start..start + size].copy_from_slice(&self.words[offset..offset + size]);
        }
        words[0] = fixed_word0(n);
        words[1] = fixed_word1(start, len);
        self.words = words;
    }
}

/// Index of `hash` in `keys`, which are all different (a buffer invariant).
///
/// Each chunk of keys is compared as a whole before branching: a matching lane
/// contributes its number (1-based), the others 0, and the sum is the match. The
/// compiler turns a chunk into a few SIMD compares and adds, so a lookup costs
/// one unpredictable branch per chunk instead of one per key.
#[inline]
fn find_hash(keys: &[u32], hash: u32) -> Option<usize> {
    const CHUNK: usize = 16;
    #[inline]
    fn lane_of(chunk: &[u32], hash: u32) -> u32 {
        chunk
            .iter()
            .zip(1..)
            .map(|(&k, lane)| if k == hash { lane } else { 0 })
            .sum()
    }
    let mut chunks = keys.chunks_exact(CHUNK);
    let mut base = 0;
    for chunk in &mut chunks {
        let lane = lane_of(chunk, hash);
        if lane != 0 {
            return Some(base + lane as usize - 1);
        }
        base += CHUNK;
    }
    let lane = lane_of(chunks.remainder(), hash);
    (lane != 0).then(|| base + lane as usize - 1)
}

/// The bytes of a string entry as `&str`, without checking them again.
#[inline]
fn str_of(bytes: &[u8]) -> &str {
    debug_assert!(core::str::from_utf8(bytes).is_ok());
    // SAFETY: callers pass only the bytes of a string entry (tag 3), and every
    // string entry points at valid UTF-8: `set` copies the bytes of a `&str`
    // into a slot and records their exact length, `from_bytes` only accepts
    // buffers whose string entries pass `str::from_utf8`, and later moves
    // (compaction, `shrink_to_fit`) copy whole slots. Payload bytes are only
    // overwritten or zeroed after no entry points at them any more.
    unsafe { core::str::from_utf8_unchecked(bytes) }
}

impl PartialEq for DataComponent {
    /// Same keys with equal values, in any order and layout.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut a = DataComponent::new();
    /// a.set("x", 1.0_f32)?;
    /// a.set("y", "why")?;
    /// let mut b = DataComponent::with_capacity(256);
    /// b.set("y", "why")?;
    /// b.set("x", 1.0_f32)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl fmt::Debug for DataComponent {
    /// Shows the entries as a map from key hashes to values.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("drunk", true)?;
    /// let shown = format!("{sheet:?}");
    /// assert!(shown.starts_with("DataComponent {Key(0x"), "{shown}");
    /// assert!(shown.ends_with(": Bool(true)}"), "{shown}");
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataComponent ")?;
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Iterator over the `(Key, Value)` entries of a [`DataComponent`], from
/// [`DataComponent::iter`].
///
/// ```
/// use idtable::data::DataComponent;
///
/// let mut sheet = DataComponent::new();
/// sheet.set("a", 1.0_f32)?;
/// sheet.set("b", 2.0_f32)?;
/// let total: f32 = sheet.iter().filter_map(|(_, v)| v.as_f32()).sum();
/// assert_eq!(total, 3.0);
/// assert_eq!(sheet.iter().len(), 2);
/// # Ok::<(), idtable::data::DataError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    sheet: &'a DataComponent,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (Key, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let index = self.next;
        self.next += 1;
        Some((
            self.sheet.key_at(index),
            self.sheet.value_at(self.end, index),
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl core::iter::FusedIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a DataComponent {
    type Item = (Key, Value<'a>);
    type IntoIter = Iter<'a>;

    /// Same as [`DataComponent::iter`].
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// for (key, value) in &sheet {
    ///     println!("{key:?} = {value:?}");
    /// }
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}
