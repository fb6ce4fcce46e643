//! [`DataMap`]: the data of many entities, keyed by their ids, in one
//! buffer. The layout and the allocation scheme are described in the
//! [module docs](super#many-entities-in-one-buffer-datamap).

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;

use super::component::DataComponent;
use super::edit::{self, needed_words, rebuild_into, Room};
use super::error::DataError;
use super::format::{
    empty_map_bytes, fixed_word0, fixed_word1, header_words, id_words, len_words, map_word0, Tag,
    MAP_HEADER_WORDS, MAP_VERSION, MAX_WORDS, VERSION,
};
use super::index::{Place, Places};
use super::key::Key;
use super::load::{saved_words, validate_like, Shape};
use super::value::Value;
use super::view::DataRef;
use super::words::{as_bytes, saved_bytes};
use crate::id::{Id, IdBits};

/// The per-entity data ([`DataComponent`]s) of many entities, keyed by their
/// ids, in **one** buffer of little-endian words without pointers: the
/// map's compact bytes ([`to_bytes`](Self::to_bytes), the buffer without
/// its holes) are its saved form, loaded back by
/// [`from_bytes`](Self::from_bytes), which checks every byte.
///
/// Each entity's data is a block laid out like a [`DataComponent`], so it
/// grows and shrinks on its own, a lookup scans only that entity's keys,
/// and reads borrow from the buffer (`&str`, `&[f32]`). A block that
/// outgrows its room moves to the end of the buffer; the holes it leaves
/// are reclaimed by compaction (see the [module
/// docs](super#many-entities-in-one-buffer-datamap)).
///
/// Keys are the ids of another table (`K` is typically a derived
/// allocator's id type). An entity's data answers only to the exact id it
/// was set with: once its object is removed and the slot reused, the old id
/// finds nothing, and setting data for the new id replaces the stale data.
///
/// ```
/// use idtable::data::{DataError, DataMap, Key};
/// use idtable::{IdTable, Id32_32};
///
/// const HEALTH: Key = Key::path(&["stats", "health"]);
///
/// let mut units = IdTable::<Id32_32>::new();
/// let (u, _) = units.insert();
/// let mut sheets: DataMap<Id32_32> = DataMap::new();
/// sheets.set(u, HEALTH, 100.0_f32)?; // creates u's data
/// sheets.set(u, "name", "The One")?;
/// sheets.set(u, "level", 7)?;
/// assert_eq!(sheets.get_f32(u, HEALTH), Some(100.0));
/// assert_eq!(sheets.entity(u).unwrap().len(), 3);
///
/// let saved = sheets.to_bytes();
/// let loaded = DataMap::<Id32_32>::from_bytes(&saved)?;
/// assert_eq!(loaded.get_str(u, "name"), Some("The One"));
/// assert_eq!(loaded.to_bytes(), saved);
///
/// units.remove(u);
/// let (v, _) = units.insert(); // u's slot, a newer generation
/// assert_eq!(sheets.get_i32(v, "level"), None);
/// # Ok::<(), DataError>(())
/// ```
#[derive(Clone)]
pub struct DataMap<K: Id> {
    /// The saved form: the map header, then regions (an entity's block and
    /// its id) and zero words (holes) in any order. Empty until the first
    /// entity (the saved form is then the header alone).
    words: Vec<u32>,
    /// Every entity's id, in the order of `index`'s `dense` positions.
    ids: Vec<K>,
    /// Slot index of an id → its place: its region's offset and its
    /// position in `ids`.
    index: Places,
    /// Zero words between the header and the end that belong to no region.
    dead: usize,
}

/// Invariants, checked by the tests through `from_bytes(as_bytes())`:
/// `words` is empty or a valid saved map (header with `ids.len()` entities,
/// regions whose blocks pass `validate` at version 2, zero holes, `dead`
/// of them); `ids[place.dense]` is the id stored in the region at
/// `place.offset`, for the place at every id's slot index, and no other
/// place holds an entity.
impl<K: Id> DataMap<K> {
    /// Words an id takes in the buffer.
    const ID_WORDS: usize = id_words(<K::Bits as IdBits>::BITS);
    /// The saved form of the empty map.
    const EMPTY_BYTES: [u8; 8] = empty_map_bytes(<K::Bits as IdBits>::BITS, K::INDEX_BITS);

    /// An empty map; allocates nothing until the first entity.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let sheets: DataMap<Id24_8> = DataMap::new();
    /// assert!(sheets.is_empty());
    /// assert_eq!(sheets.capacity(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        DataMap {
            words: Vec::new(),
            ids: Vec::new(),
            index: Places::default(),
            dead: 0,
        }
    }

    /// An empty map whose buffer holds `bytes` bytes before it reallocates.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let sheets: DataMap<Id24_8> = DataMap::with_capacity(4096);
    /// assert!(sheets.capacity() >= 4096);
    /// ```
    #[must_use]
    pub fn with_capacity(bytes: usize) -> Self {
        let mut map = Self::new();
        map.words.reserve_exact(bytes.div_ceil(4));
        map
    }

    /// Number of entities with data.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "a", 1)?;
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "b", 2)?;
    /// sheets.set(Id24_8::new(4, 1).unwrap(), "a", 1)?;
    /// assert_eq!(sheets.len(), 2);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no entity has data.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// assert!(sheets.is_empty());
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "a", true)?;
    /// assert!(!sheets.is_empty());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Bytes the buffer holds before it reallocates (the saved form is at
    /// most this long).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "hp", 10)?;
    /// assert!(sheets.capacity() >= sheets.as_bytes().len());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.words.capacity() * 4
    }

    /// The ids of the entities with data, in no particular order.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let (a, b) = (Id24_8::new(0, 1).unwrap(), Id24_8::new(1, 1).unwrap());
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(a, "x", 1)?;
    /// sheets.set(b, "x", 2)?;
    /// sheets.remove(a);
    /// assert_eq!(sheets.ids(), &[b]);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn ids(&self) -> &[K] {
        &self.ids
    }

    /// Whether `id` (this exact id) has data.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(2, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "x", 1)?;
    /// assert!(sheets.contains(id));
    /// assert!(!sheets.contains(Id24_8::new(2, 2).unwrap())); // same slot, another generation
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn contains(&self, id: K) -> bool {
        self.find(id).is_some()
    }

    /// A read view of `id`'s data, with the getters of a
    /// [`DataComponent`]; `None` if `id` has none (or is stale).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "name", "The One")?;
    /// sheets.set(id, "hp", 100.0_f32)?;
    /// let sheet = sheets.entity(id).unwrap();
    /// assert_eq!(sheet.len(), 2);
    /// assert_eq!(sheet.get_str("name"), Some("The One"));
    /// assert_eq!(sheet.iter().count(), 2);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn entity(&self, id: K) -> Option<DataRef<'_>> {
        let (offset, len) = self.find(id)?;
        Some(DataRef::new(&self.words[offset..offset + len]))
    }

    /// The value of `key` in `id`'s data, borrowed from the buffer.
    ///
    /// ```
    /// use idtable::data::{DataMap, Value};
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "pos", &[1.0_f32, 2.0])?;
    /// assert_eq!(sheets.get(id, "pos"), Some(Value::Floats(&[1.0, 2.0])));
    /// assert_eq!(sheets.get(id, "nope"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get(&self, id: K, key: impl Into<Key>) -> Option<Value<'_>> {
        self.entity(id)?.get(key)
    }

    /// The value of `key` in `id`'s data if it is a bool.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "drunk", true)?;
    /// assert_eq!(sheets.get_bool(id, "drunk"), Some(true));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_bool(&self, id: K, key: impl Into<Key>) -> Option<bool> {
        self.entity(id)?.get_bool(key)
    }

    /// The value of `key` in `id`'s data if it is a float.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "mana", 200.0_f32)?;
    /// assert_eq!(sheets.get_f32(id, "mana"), Some(200.0));
    /// assert_eq!(sheets.get_i32(id, "mana"), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32(&self, id: K, key: impl Into<Key>) -> Option<f32> {
        self.entity(id)?.get_f32(key)
    }

    /// The value of `key` in `id`'s data if it is an integer.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "gold", 1250)?;
    /// assert_eq!(sheets.get_i32(id, "gold"), Some(1250));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_i32(&self, id: K, key: impl Into<Key>) -> Option<i32> {
        self.entity(id)?.get_i32(key)
    }

    /// The value of `key` in `id`'s data if it is a string, borrowed from
    /// the buffer.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "name", "The One")?;
    /// assert_eq!(sheets.get_str(id, "name"), Some("The One"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_str(&self, id: K, key: impl Into<Key>) -> Option<&str> {
        self.entity(id)?.get_str(key)
    }

    /// The value of `key` in `id`'s data if it is a float array, borrowed
    /// from the buffer.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "color", &[0.0_f32, 0.5])?;
    /// assert_eq!(sheets.get_f32s(id, "color"), Some(&[0.0, 0.5][..]));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn get_f32s(&self, id: K, key: impl Into<Key>) -> Option<&[f32]> {
        self.entity(id)?.get_f32s(key)
    }

    /// Sets `key` to `value` in `id`'s data, creating the data if `id` has
    /// none. If the map holds data for an older id of the same slot (its
    /// object was removed and the slot reused), that stale data is dropped
    /// first.
    ///
    /// Errors, leaving the map unchanged: [`DataError::TooLarge`] if the
    /// entity's data would pass [`MAX_BYTES`](super::MAX_BYTES) (the limit of
    /// a [`DataComponent`]); [`DataError::StaleId`] if the map holds data for
    /// a newer id of the same slot (`id` is stale); [`DataError::IdOutOfRange`]
    /// for a slot index past `u32::MAX`.
    ///
    /// ```
    /// use idtable::data::{DataError, DataMap};
    /// use idtable::Id24_8;
    ///
    /// let old = Id24_8::new(0, 1).unwrap();
    /// let new = Id24_8::new(0, 2).unwrap(); // the slot, reused
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(old, "x", 1.0_f32)?;
    /// sheets.set(old, "x", "one")?; // a key can change type
    /// sheets.set(new, "y", 2)?; // replaces old's data
    /// assert!(!sheets.contains(old));
    /// assert_eq!(sheets.get_i32(new, "y"), Some(2));
    /// assert_eq!(sheets.set(old, "x", 3), Err(DataError::StaleId { index: 0 }));
    /// # Ok::<(), DataError>(())
    /// ```
    pub fn set<'v>(
        &mut self,
        id: K,
        key: impl Into<Key>,
        value: impl Into<Value<'v>>,
    ) -> Result<(), DataError> {
        let key = key.into();
        let value = value.into();
        let place = match self.existing_place(id)? {
            Some(place) => place,
            None => {
                // A new block holds this one value: check that it fits
                // before dropping any stale data, so that a failed set
                // changes nothing.
                let (tag, len) = Tag::of(&value);
                let needed = header_words(1).saturating_add(tag.payload_words(len));
                if needed > MAX_WORDS {
                    return Err(DataError::TooLarge {
                        key,
                        needed: needed.saturating_mul(4),
                    });
                }
                self.create_place(id)
            }
        };
        let mut room = EntityRoom {
            map: self,
            index: id.index(),
            offset: place.offset as usize,
        };
        let result = edit::set(&mut room, key, value);
        debug_assert!(result.is_ok() || self.contains(id));
        self.maybe_compact();
        result
    }

    /// Sets `id`'s data to a copy of `component`'s entries (packed: the
    /// block takes exactly what they need), replacing any data `id` had.
    /// Errors as [`set`](Self::set) does for ids.
    ///
    /// ```
    /// use idtable::data::{DataComponent, DataMap};
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheet = DataComponent::new();
    /// sheet.set("name", "The One")?;
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.insert(id, &sheet)?;
    /// assert_eq!(sheets.get_str(id, "name"), Some("The One"));
    /// assert_eq!(sheets.to_component(id), Some(sheet));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn insert(&mut self, id: K, component: &DataComponent) -> Result<(), DataError> {
        let place = match self.existing_place(id)? {
            Some(place) => place,
            None => self.create_place(id),
        };
        let source = component.view().words();
        let len = needed_words(source);
        let mut room = EntityRoom {
            map: self,
            index: id.index(),
            offset: place.offset as usize,
        };
        room.resize_from(len, Some(source), None);
        self.maybe_compact();
        Ok(())
    }

    /// A copy of `id`'s data as a [`DataComponent`] (same entries and bytes).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "hp", 5)?;
    /// let sheet = sheets.to_component(id).unwrap();
    /// assert_eq!(sheet.get_i32("hp"), Some(5));
    /// assert_eq!(sheets.to_component(Id24_8::new(1, 1).unwrap()), None);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn to_component(&self, id: K) -> Option<DataComponent> {
        Some(self.entity(id)?.to_component())
    }

    /// Removes `key` from `id`'s data; returns whether it was there. The
    /// entity keeps its (possibly empty) data; a block left less than half
    /// full moves into a smaller one.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "name", "The One")?;
    /// assert!(sheets.remove_key(id, "name"));
    /// assert!(!sheets.remove_key(id, "name"));
    /// assert!(sheets.contains(id));
    /// assert!(sheets.entity(id).unwrap().is_empty());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn remove_key(&mut self, id: K, key: impl Into<Key>) -> bool {
        let Some((offset, len)) = self.find(id) else {
            return false;
        };
        if !edit::remove(&mut self.words[offset..offset + len], key.into()) {
            return false;
        }
        let needed = needed_words(&self.words[offset..offset + len]);
        if needed * 2 < len {
            let mut room = EntityRoom {
                map: self,
                index: id.index(),
                offset,
            };
            room.resize(needed, None);
            self.maybe_compact();
        }
        true
    }

    /// Removes all of `id`'s data; returns whether it had any.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "name", "The One")?;
    /// assert!(sheets.remove(id));
    /// assert!(!sheets.remove(id));
    /// assert!(sheets.is_empty());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn remove(&mut self, id: K) -> bool {
        let Some((offset, len)) = self.find(id) else {
            return false;
        };
        let Some(place) = self.index.get(id.index()) else {
            return false;
        };
        self.free_region(offset, len + Self::ID_WORDS);
        self.index.remove(id.index());
        let dense = place.dense as usize;
        self.ids.swap_remove(dense);
        if let Some(&moved) = self.ids.get(dense) {
            self.index.entry(moved.index()).dense = dense as u32;
        }
        self.set_count();
        self.maybe_compact();
        true
    }

    /// Removes every entity's data, keeping the buffer's allocation.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "a", 1)?;
    /// sheets.clear();
    /// assert!(sheets.is_empty() && !sheets.contains(id));
    /// assert_eq!(sheets.as_bytes().len(), 8);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn clear(&mut self) {
        self.words.clear();
        self.ids.clear();
        self.index.clear();
        self.dead = 0;
    }

    /// Squeezes the holes out of the buffer (compaction) and releases
    /// unused capacity: the buffer is then as small as the blocks allow, and
    /// [`as_bytes`](Self::as_bytes) is the compact saved form. Saving needs
    /// no call to it: [`to_bytes`](Self::to_bytes) leaves the holes out
    /// through `&self`.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// for i in 0..5 {
    ///     sheets.set(Id24_8::new(i, 1).unwrap(), "x", 1)?;
    /// }
    /// sheets.remove(Id24_8::new(0, 1).unwrap()); // leaves a hole before the others
    /// let before = sheets.as_bytes().len();
    /// sheets.shrink_to_fit();
    /// assert!(sheets.as_bytes().len() < before);
    /// assert_eq!(sheets.capacity(), sheets.as_bytes().len());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if self.dead > 0 {
            self.compact();
        }
        if self.ids.is_empty() {
            self.words = Vec::new();
        }
        self.words.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.index.shrink_to_fit();
    }

    /// The entities and their data, in the order of [`ids`](Self::ids).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// for i in 0..3 {
    ///     sheets.set(Id24_8::new(i, 1).unwrap(), "hp", 10 * i as i32)?;
    /// }
    /// let total: i32 = sheets.iter().filter_map(|(_, sheet)| sheet.get_i32("hp")).sum();
    /// assert_eq!(total, 30);
    /// assert_eq!(sheets.iter().len(), 3);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    pub fn iter(&self) -> MapIter<'_, K> {
        MapIter {
            map: self,
            ids: self.ids.iter(),
        }
    }

    /// The buffer as it is, without a copy: the header, the blocks and
    /// ids, and the holes that moved or removed entities left (zero words,
    /// at most a quarter of it). It is a valid saved form, which
    /// [`from_bytes`](Self::from_bytes) loads and keeps as it is (so
    /// `from_bytes(as_bytes())` gives these bytes back), but for saving use
    /// [`to_bytes`](Self::to_bytes), which leaves the holes out; the two are
    /// the same when the map has none (after
    /// [`shrink_to_fit`](Self::shrink_to_fit), or built by `set` without
    /// removals). A map that never held an entity gives the 8-byte header.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::{Id24_8, Id32_32};
    ///
    /// // Version 1, one word per id, 24 index bits; no entities.
    /// assert_eq!(DataMap::<Id24_8>::new().as_bytes(), &[1, 1, 24, 0, 0, 0, 0, 0]);
    /// assert_eq!(DataMap::<Id32_32>::new().as_bytes(), &[1, 2, 32, 0, 0, 0, 0, 0]);
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// for i in 0..4 {
    ///     sheets.set(Id24_8::new(i, 1).unwrap(), "x", 1)?;
    /// }
    /// assert_eq!(sheets.as_bytes(), &sheets.to_bytes()[..]);
    /// sheets.remove(Id24_8::new(0, 1).unwrap()); // a hole before the others
    /// assert!(sheets.as_bytes().len() > sheets.to_bytes().len());
    /// let loaded = DataMap::<Id24_8>::from_bytes(sheets.as_bytes())?;
    /// assert_eq!(loaded.as_bytes(), sheets.as_bytes());
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        saved_bytes(&self.words, &Self::EMPTY_BYTES)
    }

    /// The saved form, compact: the header, then every entity's block and
    /// id in buffer order, without the holes (the [module
    /// docs](super#many-entities-in-one-buffer-datamap) give the format).
    /// Through `&self`: it borrows the buffer when the map has no holes and
    /// copies the regions into a new buffer of exactly the saved size when
    /// it has. The bytes are those [`as_bytes`](Self::as_bytes) gives after
    /// [`shrink_to_fit`](Self::shrink_to_fit); [`from_bytes`](Self::from_bytes)
    /// loads them into an equal map, whose `to_bytes` are the same bytes.
    /// The `serde` impls save this form in binary formats.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// for i in 0..5 {
    ///     sheets.set(Id24_8::new(i, 1).unwrap(), "name", "Aria")?;
    /// }
    /// assert!(matches!(sheets.to_bytes(), Cow::Borrowed(_))); // no holes: no copy
    ///
    /// sheets.remove(Id24_8::new(0, 1).unwrap()); // leaves a hole
    /// let saved = sheets.to_bytes();
    /// assert!(saved.len() < sheets.as_bytes().len());
    /// let loaded = DataMap::<Id24_8>::from_bytes(&saved)?;
    /// assert_eq!(loaded, sheets);
    /// assert_eq!(loaded.to_bytes(), saved);
    ///
    /// let mut packed = sheets.clone();
    /// packed.shrink_to_fit();
    /// assert_eq!(packed.as_bytes(), &saved[..]);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Cow<'_, [u8]> {
        if self.dead == 0 {
            return Cow::Borrowed(self.as_bytes());
        }
        let mut bytes = Vec::with_capacity((self.words.len() - self.dead) * 4);
        bytes.extend_from_slice(as_bytes(&self.words[..MAP_HEADER_WORDS]));
        // Runs of adjacent regions, each copied in one go.
        let mut run = MAP_HEADER_WORDS;
        let mut at = MAP_HEADER_WORDS;
        while let Some(&word) = self.words.get(at) {
            if word == 0 {
                bytes.extend_from_slice(as_bytes(&self.words[run..at]));
                at += 1;
                run = at;
            } else {
                at += len_words(self.words[at + 1]) + Self::ID_WORDS;
            }
        }
        bytes.extend_from_slice(as_bytes(&self.words[run..at]));
        debug_assert_eq!(bytes.len(), (self.words.len() - self.dead) * 4);
        Cow::Owned(bytes)
    }

    /// Loads bytes saved by [`to_bytes`](Self::to_bytes) (or the buffer of
    /// [`as_bytes`](Self::as_bytes), holes included), from a slice at
    /// any address. Every byte is checked: the header (version, and an id
    /// layout that matches `K`), each entity's block (as
    /// [`DataComponent::from_bytes`] checks one, version 2), each id
    /// (generation not 0, no slot index twice), zero holes and the entity
    /// count. Anything inconsistent is a [`DataError`]; what loads saves back
    /// to the same bytes.
    ///
    /// ```
    /// use idtable::data::{DataError, DataMap};
    /// use idtable::{Id24_8, Id32_32};
    ///
    /// let id = Id24_8::new(5, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "name", "The One")?;
    /// let bytes = sheets.to_bytes().into_owned();
    /// let loaded = DataMap::<Id24_8>::from_bytes(&bytes)?;
    /// assert_eq!(loaded.as_bytes(), &bytes[..]);
    /// assert_eq!(loaded.get_str(id, "name"), Some("The One"));
    ///
    /// // Bytes of a map keyed by other ids are refused.
    /// assert_eq!(
    ///     DataMap::<Id32_32>::from_bytes(&bytes).unwrap_err(),
    ///     DataError::IdLayoutMismatch { id_words: 1, index_bits: 24 }
    /// );
    /// let mut corrupt = bytes.clone();
    /// *corrupt.last_mut().unwrap() = 0; // the id's generation byte
    /// assert!(DataMap::<Id24_8>::from_bytes(&corrupt).is_err());
    /// # Ok::<(), DataError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DataError> {
        let words = saved_words(bytes, MAP_HEADER_WORDS, usize::MAX)?;
        let mut map = Self::new();
        let [version, id_words, index_bits, reserved] = words[0].to_le_bytes();
        if version != MAP_VERSION {
            return Err(DataError::UnsupportedVersion { version });
        }
        if words[0] & 0x00ff_ffff != Self::EMPTY_BYTES_WORD0 & 0x00ff_ffff {
            return Err(DataError::IdLayoutMismatch {
                id_words,
                index_bits,
            });
        }
        if reserved != 0 {
            return Err(DataError::NonZeroUnused {
                offset: 3,
                byte: reserved,
            });
        }
        // Room for the declared entities, but no more than the buffer can
        // hold (a region is at least a 2-word block and an id).
        let most = (words.len() - MAP_HEADER_WORDS) / (2 + Self::ID_WORDS);
        map.ids.reserve_exact((words[1] as usize).min(most));
        // Entities often share their keys and value types: each block's
        // check starts from what the previous one learned.
        let mut shape = Shape::default();
        let mut at = MAP_HEADER_WORDS;
        while let Some(&word) = words.get(at) {
            if word == 0 {
                map.dead += 1;
                at += 1;
                continue;
            }
            let end = Self::check_region(&words, at, &mut shape)?;
            let id_at = end - Self::ID_WORDS;
            let id = read_id::<K>(&words[id_at..end])
                .ok_or_else(|| DataError::BadId { offset: id_at * 4 })?;
            let place = Place {
                offset: at as u32,
                dense: map.ids.len() as u32,
            };
            if !map.index.insert_new(id.index(), place) {
                return Err(DataError::DuplicateId {
                    offset: id_at * 4,
                    index: id.index(),
                });
            }
            map.ids.push(id);
            at = end;
        }
        let declared = words[1] as usize;
        if declared != map.ids.len() {
            return Err(DataError::EntityCountMismatch {
                declared,
                found: map.ids.len(),
            });
        }
        map.words = words;
        Ok(map)
    }

    // ----- the allocator inside the buffer -----

    /// Header word 0 of this map type.
    const EMPTY_BYTES_WORD0: u32 = map_word0(<K::Bits as IdBits>::BITS, K::INDEX_BITS);

    /// Checks the region starting at word `at` (a block of the current
    /// version, then an id that fits); returns where it ends.
    fn check_region(words: &[u32], at: usize, shape: &mut Shape) -> Result<usize, DataError> {
        let bad = |error| DataError::BadEntity {
            offset: at * 4,
            error: Box::new(error),
        };
        let rest = &words[at..];
        let version = rest[0] as u8;
        if version != VERSION {
            return Err(bad(DataError::UnsupportedVersion { version }));
        }
        let Some(&word1) = rest.get(1) else {
            return Err(bad(DataError::Truncated {
                len: rest.len() * 4,
            }));
        };
        let block_len = (word1 >> 16) as usize;
        if block_len % 4 != 0 || block_len < 8 {
            return Err(bad(DataError::BadLength { len: block_len }));
        }
        let block = rest.get(..block_len / 4).ok_or_else(|| {
            bad(DataError::Truncated {
                len: rest.len() * 4,
            })
        })?;
        validate_like(block, shape).map_err(bad)?;
        let end = at + block.len() + Self::ID_WORDS;
        if end > words.len() {
            return Err(DataError::BadId {
                offset: (at + block.len()) * 4,
            });
        }
        Ok(end)
    }

    /// The block (word offset, length in words) of `id`, if it is this
    /// exact id's.
    #[inline]
    fn find(&self, id: K) -> Option<(usize, usize)> {
        let offset = self.index.get(id.index())?.offset as usize;
        let len = len_words(self.words[offset + 1]);
        let stored = &self.words[offset + len..offset + len + Self::ID_WORDS];
        (stored_bits(stored) == id.to_bits().to_u64()).then_some((offset, len))
    }

    /// The place of `id` if it has data; `None` if it has none, or if the
    /// map holds data for an older id of its slot (which
    /// [`create_place`](Self::create_place) then drops). Errors for a stale
    /// id, a slot index past `u32::MAX`, and a buffer that could not take
    /// a new block. Changes nothing.
    fn existing_place(&self, id: K) -> Result<Option<Place>, DataError> {
        let index = id.index();
        if index > u32::MAX as usize {
            return Err(DataError::IdOutOfRange { index });
        }
        if let Some(place) = self.index.get(index) {
            let held = self.ids[place.dense as usize];
            if held == id {
                return Ok(Some(place));
            }
            if held.generation().to_u64() > id.generation().to_u64() {
                return Err(DataError::StaleId { index });
            }
        }
        // Room for the largest block an entity can grow to, so that no
        // later step can pass the 32-bit offsets.
        let room = MAX_WORDS + 2 * Self::ID_WORDS + MAP_HEADER_WORDS;
        if self.words.len().saturating_add(room) > u32::MAX as usize {
            return Err(DataError::MapTooLarge {
                words: self.words.len().saturating_add(room),
            });
        }
        Ok(None)
    }

    /// Creates an empty block for `id` (which
    /// [`existing_place`](Self::existing_place) found without one), dropping
    /// the data of an older id of the same slot.
    fn create_place(&mut self, id: K) -> Place {
        let index = id.index();
        if let Some(place) = self.index.get(index) {
            let held = self.ids[place.dense as usize];
            self.remove(held);
        }
        if self.words.is_empty() {
            self.words.extend([Self::EMPTY_BYTES_WORD0, 0]);
        }
        let offset = self.words.len();
        self.reserve(2 + Self::ID_WORDS);
        self.words.extend([fixed_word0(0), fixed_word1(2, 2)]);
        push_id(&mut self.words, id);
        let place = Place {
            offset: offset as u32,
            dense: self.ids.len() as u32,
        };
        *self.index.entry(index) = place;
        if self.ids.len() == self.ids.capacity() {
            self.ids.reserve_exact(growth(self.ids.len()));
        }
        self.ids.push(id);
        self.set_count();
        place
    }

    /// Makes room for `extra` more words at the end: the buffer grows by a
    /// sixteenth of its size at least. Not doubling: a map is one large
    /// buffer, and a sixteenth keeps its spare room under a seventeenth of
    /// it at every size, for more copying than doubling (each word is
    /// copied up to sixteen times on average instead of twice) where the
    /// system allocator does not grow the block in place; large blocks it
    /// usually does (glibc remaps them). Building 10,000 entities of one
    /// key with `set` measured about 3% slower than growing by an eighth.
    fn reserve(&mut self, extra: usize) {
        let (len, capacity) = (self.words.len(), self.words.capacity());
        if len + extra > capacity {
            self.words.reserve_exact(extra.max(growth(capacity)));
        }
    }

    /// Turns the region at `offset` of `len` words into a hole, or cuts it
    /// off if it is the last.
    fn free_region(&mut self, offset: usize, len: usize) {
        if offset + len == self.words.len() {
            self.words.truncate(offset);
        } else {
            self.words[offset..offset + len].fill(0);
            self.dead += len;
        }
    }

    fn set_count(&mut self) {
        self.words[1] = self.ids.len() as u32;
    }

    /// Compacts when the holes pass a quarter of the buffer.
    fn maybe_compact(&mut self) {
        if self.dead > 0 && self.dead * 4 > self.words.len() {
            self.compact();
        }
    }

    /// Slides every region down over the holes, in buffer order.
    fn compact(&mut self) {
        let mut read = MAP_HEADER_WORDS;
        let mut write = MAP_HEADER_WORDS;
        while let Some(&word) = self.words.get(read) {
            if word == 0 {
                read += 1;
                continue;
            }
            let region = len_words(self.words[read + 1]) + Self::ID_WORDS;
            self.words.copy_within(read..read + region, write);
            if let Some(id) =
                read_id::<K>(&self.words[write + region - Self::ID_WORDS..write + region])
            {
                self.index.set_offset(id.index(), write);
            }
            read += region;
            write += region;
        }
        self.words.truncate(write);
        self.dead = 0;
    }
}

/// The id bits stored in `words` (1 or 2 little-endian words).
#[inline]
fn stored_bits(words: &[u32]) -> u64 {
    match *words {
        [low] => u64::from(low),
        [low, high, ..] => u64::from(low) | u64::from(high) << 32,
        [] => 0,
    }
}

/// The id stored in `words`, if it is one a map accepts.
fn read_id<K: Id>(words: &[u32]) -> Option<K> {
    let bits = stored_bits(words);
    let id = K::from_bits(<K::Bits as IdBits>::from_u64_truncating(bits))?;
    (id.to_bits().to_u64() == bits && id.index() <= u32::MAX as usize).then_some(id)
}

/// Appends `id`'s bits as 1 or 2 little-endian words.
fn push_id<K: Id>(words: &mut Vec<u32>, id: K) {
    let bits = id.to_bits().to_u64();
    words.push(bits as u32);
    if <K::Bits as IdBits>::BITS > 32 {
        words.push((bits >> 32) as u32);
    }
}

/// One entity's block as the [`Room`] that `edit` works in: growing moves
/// it to the end of the map's buffer, packed to exactly what it needs.
struct EntityRoom<'m, K: Id> {
    map: &'m mut DataMap<K>,
    /// The slot index of the entity's id.
    index: usize,
    /// Word offset of its region.
    offset: usize,
}

impl<K: Id> EntityRoom<'_, K> {
    fn block_len(&self) -> usize {
        len_words(self.map.words[self.offset + 1])
    }

    /// Rebuilds the block as `len` words from `source` (another buffer) or
    /// from itself, at the end of the buffer; the old region becomes a hole,
    /// unless it was the last one, in which case the new block takes its
    /// place.
    fn resize_from(&mut self, len: usize, source: Option<&[u32]>, skip: Option<usize>) {
        let id_words = DataMap::<K>::ID_WORDS;
        let old = self.offset;
        let old_len = self.block_len();
        let old_end = old + old_len + id_words;
        let was_last = old_end == self.map.words.len();
        let new = self.map.words.len();
        self.map.reserve(len + id_words);
        self.map.words.resize(new + len + id_words, 0);
        let (head, tail) = self.map.words.split_at_mut(new);
        rebuild_into(
            source.unwrap_or(&head[old..old + old_len]),
            &mut tail[..len],
            skip,
        );
        tail[len..].copy_from_slice(&head[old + old_len..old_end]);
        if was_last {
            self.map.words.copy_within(new.., old);
            self.map.words.truncate(old + len + id_words);
        } else {
            self.map.free_region(old, old_end - old);
            self.offset = new;
            self.map.index.set_offset(self.index, new);
        }
    }
}

impl<K: Id> Room for EntityRoom<'_, K> {
    fn words(&self) -> &[u32] {
        let len = self.block_len();
        &self.map.words[self.offset..self.offset + len]
    }

    fn words_mut(&mut self) -> &mut [u32] {
        let len = self.block_len();
        &mut self.map.words[self.offset..self.offset + len]
    }

    /// Exactly what is needed: a map's blocks have no spare room of their
    /// own; the buffer's free end is the spare room of all of them.
    fn grown_len(&self, _current: usize, required: usize) -> usize {
        required
    }

    fn resize(&mut self, len: usize, skip: Option<usize>) {
        self.resize_from(len, None, skip);
    }
}

impl<K: Id> Default for DataMap<K> {
    /// Same as [`DataMap::new`].
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// assert!(DataMap::<Id24_8>::default().is_empty());
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Id> PartialEq for DataMap<K> {
    /// The same ids, each with equal data (same keys and values, in any
    /// order and layout).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let (a, b) = (Id24_8::new(0, 1).unwrap(), Id24_8::new(1, 1).unwrap());
    /// let mut one: DataMap<Id24_8> = DataMap::new();
    /// one.set(a, "x", 1)?;
    /// one.set(b, "y", 2)?;
    /// let mut two: DataMap<Id24_8> = DataMap::new();
    /// two.set(b, "y", 2)?;
    /// two.set(a, "x", 1)?;
    /// assert_eq!(one, two);
    /// two.set(a, "x", 3)?;
    /// assert_ne!(one, two);
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .all(|(id, sheet)| other.entity(id) == Some(sheet))
    }
}

impl<K: Id> fmt::Debug for DataMap<K> {
    /// Shows a map from ids to their data (keys as hashes; see
    /// [`KeyNames`](super::KeyNames) and [`named`](Self::named) for names).
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "hp", 3)?;
    /// let shown = format!("{sheets:?}");
    /// assert!(shown.starts_with("DataMap {"), "{shown}");
    /// assert!(shown.contains("Int(3)"), "{shown}");
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataMap ")?;
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Iterator over the `(id, data)` of a [`DataMap`], from [`DataMap::iter`].
///
/// ```
/// use idtable::data::DataMap;
/// use idtable::Id24_8;
///
/// let id = Id24_8::new(0, 1).unwrap();
/// let mut sheets: DataMap<Id24_8> = DataMap::new();
/// sheets.set(id, "hp", 3)?;
/// let mut iter = sheets.iter();
/// let (first, sheet) = iter.next().unwrap();
/// assert_eq!((first, sheet.get_i32("hp")), (id, Some(3)));
/// assert!(iter.next().is_none());
/// # Ok::<(), idtable::data::DataError>(())
/// ```
#[derive(Clone)]
pub struct MapIter<'a, K: Id> {
    map: &'a DataMap<K>,
    ids: core::slice::Iter<'a, K>,
}

impl<'a, K: Id> Iterator for MapIter<'a, K> {
    type Item = (K, DataRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let id = *self.ids.next()?;
        let sheet = self.map.entity(id).unwrap_or(DataRef::new(&[]));
        Some((id, sheet))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }
}

impl<K: Id> ExactSizeIterator for MapIter<'_, K> {}

impl<K: Id> core::iter::FusedIterator for MapIter<'_, K> {}

impl<K: Id> fmt::Debug for MapIter<'_, K> {
    /// Shows the ids left.
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let sheets: DataMap<Id24_8> = DataMap::new();
    /// assert_eq!(format!("{:?}", sheets.iter()), "MapIter([])");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MapIter")
            .field(&self.ids.as_slice())
            .finish()
    }
}

impl<'a, K: Id> IntoIterator for &'a DataMap<K> {
    type Item = (K, DataRef<'a>);
    type IntoIter = MapIter<'a, K>;

    /// Same as [`DataMap::iter`].
    ///
    /// ```
    /// use idtable::data::DataMap;
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "hp", 3)?;
    /// for (_id, sheet) in &sheets {
    ///     assert_eq!(sheet.get_i32("hp"), Some(3));
    /// }
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn into_iter(self) -> MapIter<'a, K> {
        self.iter()
    }
}

/// How much room the buffer and the id list add when they are full: a
/// sixteenth of what they hold, at least 16 (see `DataMap::reserve`).
fn growth(len: usize) -> usize {
    (len / 16).max(16)
}
