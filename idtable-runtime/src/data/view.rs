//! [`DataRef`]: reading a buffer in the [`DataComponent`](super::DataComponent)
//! layout, wherever it
//! lives (a component's own buffer, or an entity's block inside a
//! [`DataMap`](super::DataMap)). Every getter of both is written here once.

use core::fmt;

use super::format::{count, split_span, Tag, EMPTY_BYTES, FIXED_WORDS};
use super::key::Key;
use super::value::Value;
use super::words::{as_bytes, as_f32s, saved_bytes};

/// A borrowed, read-only view of one entity's data: what
/// [`DataMap::entity`](super::DataMap::entity) returns, with the getters of a
/// [`DataComponent`](super::DataComponent). Reads are zero-copy: strings and float arrays borrow
/// from the map's buffer.
///
/// ```
/// use idtable::data::{DataComponent, DataMap, Key, Value};
/// use idtable::Id24_8;
///
/// let id = Id24_8::new(0, 1).unwrap();
/// let mut sheets: DataMap<Id24_8> = DataMap::new();
/// sheets.set(id, "name", "The One")?;
/// sheets.set(id, "level", 7)?;
/// let sheet = sheets.entity(id).unwrap();
/// assert_eq!(sheet.len(), 2);
/// assert_eq!(sheet.get_str("name"), Some("The One"));
/// assert_eq!(sheet.get("level"), Some(Value::Int(7)));
/// let copy: DataComponent = sheet.to_component();
/// assert_eq!(copy.get_i32("level"), Some(7));
/// # Ok::<(), idtable::data::DataError>(())
/// ```
#[derive(Clone, Copy)]
pub struct DataRef<'a> {
    /// A buffer in the DataComponent layout that `validate` accepts (version
    /// 2), or empty.
    words: &'a [u32],
}

impl<'a> DataRef<'a> {
    /// Views `words`, which must be empty or a valid buffer (a
    /// [`DataComponent`](super::DataComponent)'s, or a map's block).
    #[inline(always)]
    pub(crate) const fn new(words: &'a [u32]) -> Self {
        DataRef { words }
    }

    /// The words viewed.
    #[inline(always)]
    pub(crate) const fn words(self) -> &'a [u32] {
        self.words
    }

    /// Number of keys.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", 1)?;
    /// assert_eq!(sheet.view().len(), 1);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn len(self) -> usize {
        count(self.words)
    }

    /// Whether there are no keys.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// assert!(DataComponent::new().view().is_empty());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether `key` is set.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// assert!(sheet.view().contains("a"));
    /// assert!(!sheet.view().contains("b"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn contains(self, key: impl Into<Key>) -> bool {
        self.find(key.into()).is_some()
    }

    /// The value of `key`, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::{DataComponent, Value};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("pos", &[1.0_f32, 2.0])?;
    /// assert_eq!(sheet.view().get("pos"), Some(Value::Floats(&[1.0, 2.0])));
    /// assert_eq!(sheet.view().get("nope"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get(self, key: impl Into<Key>) -> Option<Value<'a>> {
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
    /// assert_eq!(sheet.view().get_bool("drunk"), Some(true));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_bool(self, key: impl Into<Key>) -> Option<bool> {
        self.word_of(key.into(), Tag::Bool).map(|word| word != 0)
    }

    /// The value of `key` if it is a float.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("mana", 200.0_f32)?;
    /// assert_eq!(sheet.view().get_f32("mana"), Some(200.0));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32(self, key: impl Into<Key>) -> Option<f32> {
        self.word_of(key.into(), Tag::Float).map(f32::from_bits)
    }

    /// The value of `key` if it is an integer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("gold", 1250)?;
    /// assert_eq!(sheet.view().get_i32("gold"), Some(1250));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_i32(self, key: impl Into<Key>) -> Option<i32> {
        self.word_of(key.into(), Tag::Int).map(|word| word as i32)
    }

    /// The value of `key` if it is a string, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// assert_eq!(sheet.view().get_str("name"), Some("The One"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_str(self, key: impl Into<Key>) -> Option<&'a str> {
        self.word_of(key.into(), Tag::Str)
            .map(|word| str_of(self.bytes_at(word)))
    }

    /// The value of `key` if it is a float array, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("color", &[0.0_f32, 0.5])?;
    /// assert_eq!(sheet.view().get_f32s("color"), Some(&[0.0, 0.5][..]));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32s(self, key: impl Into<Key>) -> Option<&'a [f32]> {
        self.word_of(key.into(), Tag::Floats)
            .map(|word| self.floats_at(word))
    }

    /// The entries as `(Key, Value)`, in storage order.
    ///
    /// ```
    /// use idtable::data::{DataComponent, Key, Value};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// let all: Vec<(Key, Value)> = sheet.view().iter().collect();
    /// assert_eq!(all, [(Key::new("a"), Value::Bool(true))]);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn iter(self) -> Iter<'a> {
        Iter {
            sheet: self,
            next: 0,
            end: self.len(),
        }
    }

    /// The data's saved form: the bytes of a [`DataComponent`](super::DataComponent) holding it
    /// (for a map's entity, its block as it lies in the map's buffer), which
    /// [`DataComponent::from_bytes`](super::DataComponent::from_bytes) loads.
    ///
    /// ```
    /// use idtable::data::{DataComponent, DataMap};
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(3, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "hp", 10)?;
    /// let bytes = sheets.entity(id).unwrap().as_bytes();
    /// assert_eq!(DataComponent::from_bytes(bytes)?.get_i32("hp"), Some(10));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn as_bytes(self) -> &'a [u8] {
        saved_bytes(self.words, &EMPTY_BYTES)
    }

    // ----- layout helpers -----

    #[inline]
    fn keys(self) -> &'a [u32] {
        self.words
            .get(FIXED_WORDS..FIXED_WORDS + self.len())
            .unwrap_or(&[])
    }

    /// Index of `key` among the entries.
    #[inline]
    pub(crate) fn find(self, key: Key) -> Option<usize> {
        find_hash(self.keys(), key.to_hash())
    }

    fn key_at(self, index: usize) -> Key {
        Key::from_hash(self.keys().get(index).copied().unwrap_or(0))
    }

    #[inline]
    pub(crate) fn value_word(self, n: usize, index: usize) -> u32 {
        self.words
            .get(FIXED_WORDS + n + index)
            .copied()
            .unwrap_or(0)
    }

    /// The saved tag byte of entry `index` of `n` (0 past the end).
    #[inline]
    pub(crate) fn tag_byte(self, n: usize, index: usize) -> u8 {
        let word = self
            .words
            .get(FIXED_WORDS + 2 * n + index / 4)
            .copied()
            .unwrap_or(0);
        (word >> (8 * (index % 4))) as u8
    }

    /// The type tag and value word of `key`, if it is set.
    #[inline]
    fn entry(self, key: Key) -> Option<(Option<Tag>, u32)> {
        let n = self.len();
        let index = find_hash(self.keys(), key.to_hash())?;
        Some((
            Tag::from_byte(self.tag_byte(n, index)),
            self.value_word(n, index),
        ))
    }

    /// The value word of `key` if it holds a value of type `tag`: the one
    /// test of every typed getter, which then reads the word as its type.
    /// (Going through [`get`](Self::get) and [`Value`]'s accessors instead
    /// decodes every type first and was measured slower.)
    #[inline]
    fn word_of(self, key: Key, tag: Tag) -> Option<u32> {
        match self.entry(key)? {
            (Some(found), word) if found == tag => Some(word),
            _ => None,
        }
    }

    /// Reads entry `index` of `n`; never panics, whatever the words hold.
    #[inline]
    fn value_at(self, n: usize, index: usize) -> Value<'a> {
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
    fn decode(self, tag: Option<Tag>, word: u32) -> Value<'a> {
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

    /// The bytes a value word points at if read as (byte offset, byte length),
    /// clamped to the buffer.
    #[inline]
    fn bytes_at(self, word: u32) -> &'a [u8] {
        let (offset, len) = split_span(word);
        let all = as_bytes(self.words);
        let end = (offset + len).min(all.len());
        all.get(offset.min(end)..end).unwrap_or(&[])
    }

    /// The floats a value word points at if read as (byte offset, count),
    /// clamped to the buffer.
    #[inline]
    fn floats_at(self, word: u32) -> &'a [f32] {
        let (offset, len) = split_span(word);
        let end = (offset / 4 + len).min(self.words.len());
        as_f32s(self.words.get((offset / 4).min(end)..end).unwrap_or(&[]))
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
    // into a span and records their exact length, `from_bytes` (of a
    // component, or of a map, block by block) only accepts buffers whose
    // string entries pass `str::from_utf8`, and later moves (compaction,
    // `shrink_to_fit`, a block moving inside a map) copy whole spans. Payload
    // bytes are only overwritten or zeroed after no entry points at them any
    // more.
    unsafe { core::str::from_utf8_unchecked(bytes) }
}

impl PartialEq for DataRef<'_> {
    /// Same keys with equal values, in any order and layout.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut a = DataComponent::new();
    /// a.set("x", 1)?;
    /// let mut b = DataComponent::with_capacity(64);
    /// b.set("x", 1)?;
    /// assert!(a.view() == b.view());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl fmt::Debug for DataRef<'_> {
    /// Shows the entries as a map from key hashes to values.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("drunk", true)?;
    /// let shown = format!("{:?}", sheet.view());
    /// assert!(shown.starts_with("{Key(0x"), "{shown}");
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Iterator over the `(Key, Value)` entries of a [`DataComponent`](super::DataComponent) or a
/// [`DataRef`], from [`DataComponent::iter`](super::DataComponent::iter) or [`DataRef::iter`].
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
    sheet: DataRef<'a>,
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

impl<'a> IntoIterator for DataRef<'a> {
    type Item = (Key, Value<'a>);
    type IntoIter = Iter<'a>;

    /// Same as [`DataRef::iter`].
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", true)?;
    /// for (key, value) in sheet.view() {
    ///     assert_eq!(value.as_bool(), Some(true));
    /// }
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}
