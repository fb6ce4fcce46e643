//! [`DataComponent`]: the buffer, its layout helpers and its operations.

use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use super::edit::{self, needed_words, rebuild_into, Room};
use super::error::DataError;
use super::format::{count, fixed_word0, FIXED_WORDS, MAX_BYTES, MAX_WORDS};
use super::key::Key;
use super::load::{saved_words, validate};
use super::value::Value;
use super::view::{DataRef, Iter};

/// The first allocation, in words (32 bytes).
const MIN_WORDS: usize = 8;

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
        let mut words = vec![0; len];
        edit::clear(&mut words);
        DataComponent { words }
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
        count(&self.words)
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
        self.view().as_bytes()
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
        let mut words = saved_words(bytes, FIXED_WORDS, MAX_BYTES)?;
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
        self.view().contains(key)
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
        self.view().get(key)
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
        self.view().get_bool(key)
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
        self.view().get_f32(key)
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
        self.view().get_i32(key)
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
        self.view().get_str(key)
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
        self.view().get_f32s(key)
    }

    /// A read view of the component, the type a
    /// [`DataMap`](super::DataMap) lends for one entity: code that reads
    /// sheets can take a [`DataRef`] and serve both.
    ///
    /// ```
    /// use idtable::data::{DataComponent, DataRef};
    ///
    /// fn level(sheet: DataRef<'_>) -> i32 {
    ///     sheet.get_i32("level").unwrap_or(1)
    /// }
    /// let mut sheet = DataComponent::new();
    /// sheet.set("level", 4)?;
    /// assert_eq!(level(sheet.view()), 4);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn view(&self) -> DataRef<'_> {
        DataRef::new(&self.words)
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
        edit::set(self, key.into(), value.into())
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
        edit::remove(&mut self.words, key.into())
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
        edit::clear(&mut self.words);
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
        if self.is_empty() {
            self.words = Vec::new();
        } else {
            self.resize(needed_words(&self.words), None);
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
        self.view().iter()
    }

    /// Wraps words that are a valid buffer (or empty).
    pub(crate) fn from_valid_words(words: Vec<u32>) -> Self {
        DataComponent { words }
    }
}

/// The owned copy of a read view is written here, next to the type it
/// builds, so that the view does not depend on the component.
impl DataRef<'_> {
    /// An owned copy: a [`DataComponent`] with the same entries, layout and
    /// bytes.
    ///
    /// ```
    /// use idtable::data::DataComponent;
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("a", 1.5_f32)?;
    /// let copy = sheet.view().to_component();
    /// assert_eq!(copy.as_bytes(), sheet.as_bytes());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn to_component(self) -> DataComponent {
        DataComponent::from_valid_words(self.words().to_vec())
    }
}

/// A component's room is its own `Vec`: it grows by reallocating, doubling
/// unless packing the payloads leaves a quarter of the current size free.
impl Room for DataComponent {
    fn words(&self) -> &[u32] {
        &self.words
    }

    fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    fn grown_len(&self, current: usize, required: usize) -> usize {
        let mut len = current.max(MIN_WORDS);
        while len < required {
            len *= 2;
        }
        if len == current && required * 4 > len * 3 {
            len *= 2;
        }
        len.min(MAX_WORDS)
    }

    fn resize(&mut self, len: usize, skip: Option<usize>) {
        let mut words = vec![0; len];
        rebuild_into(&self.words, &mut words, skip);
        self.words = words;
    }
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
        self.view() == other.view()
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
        write!(f, "DataComponent {:?}", self.view())
    }
}

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
