//! `DataMap` keyed by the ids of a real `IdTable` (which reuses slots, so
//! stale ids come up), against a model: a `HashMap` from id to the entity's
//! entries, with the contract's stale-id rule for writes (data of an older
//! id of the same slot is dropped by a successful write; a write with an id
//! older than the one held is refused with `StaleId`).
//!
//! [`CheckedMap`] keeps a map and its model in step; every check panics at
//! the first difference.

use std::collections::HashMap;

use idtable::data::{DataComponent, DataError, DataMap, DataRef, Key, MAX_BYTES};
use idtable::{Id, Id24_8, IdTable};

use crate::data::{
    check_typed_getters, entries, needed_words, Entries, KeySel, OwnedValue, ValueIn, POOL,
};

/// One edit of a map. Entities are picked among every id the table ever
/// issued, live or not.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum MapOp {
    /// A new id from the table.
    Spawn,
    /// Removes an id from the table (its data stays in the map unless
    /// `also_data`).
    Despawn(u8, bool),
    Set(u8, KeySel, ValueIn),
    /// Grows one entity by this many keys with longer and longer strings.
    Grow(u8, u8),
    RemoveKey(u8, KeySel),
    /// Removes every key of one entity but one.
    Shrink(u8),
    Remove(u8),
    /// `insert` a copy of another entity's data (or an empty component).
    Insert(u8, u8),
    Clear,
    ShrinkToFit,
    /// Replace the map by `from_bytes(as_bytes())`.
    Reload,
    CloneIt,
}

/// The model: each id's entries.
pub type Model = HashMap<Id24_8, Entries>;

/// The model's answer to a write for `id`: the ids of older data of the
/// same slot, which a successful write drops; `StaleId` if the model holds
/// a newer id of the slot.
pub fn stale_rule<K: Id, V>(model: &HashMap<K, V>, id: K) -> Result<Vec<K>, DataError> {
    let held: Vec<K> = model
        .keys()
        .copied()
        .filter(|k| k.index() == id.index() && *k != id)
        .collect();
    if held.iter().any(|k| k.generation() > id.generation()) {
        return Err(DataError::StaleId { index: id.index() });
    }
    Ok(held)
}

/// A map, its model and the table that issues the ids.
pub struct CheckedMap {
    pub map: DataMap<Id24_8>,
    pub model: Model,
    pub table: IdTable<Id24_8>,
    pub spawned: Vec<Id24_8>,
    /// Every answer of each edit is compared at once; the whole map (every
    /// id ever issued, a reload) every `check_every` edits.
    pub check_every: usize,
    edits: usize,
}

impl Default for CheckedMap {
    fn default() -> Self {
        CheckedMap::new(1)
    }
}

impl CheckedMap {
    /// An empty map, checked whole every `check_every` edits (at least 1).
    pub fn new(check_every: usize) -> CheckedMap {
        CheckedMap {
            map: DataMap::new(),
            model: Model::new(),
            table: IdTable::new(),
            spawned: Vec::new(),
            check_every: check_every.max(1),
            edits: 0,
        }
    }

    fn pick(&self, n: u8) -> Option<Id24_8> {
        (!self.spawned.is_empty()).then(|| self.spawned[usize::from(n) % self.spawned.len()])
    }

    /// Drops the model's data of `stale` ids.
    fn drop_stale(&mut self, stale: &[Id24_8]) {
        for k in stale {
            self.model.remove(k);
        }
    }

    /// Sets `key` of `id` on the map and the model; `false` when the map
    /// refused it (a stale id, or past the size limit), as the model says.
    fn set(&mut self, id: Id24_8, key: Key, value: &OwnedValue) -> bool {
        let slot = stale_rule(&self.model, id);
        let mut entity = self.model.get(&id).cloned().unwrap_or_default();
        entity.insert(key.to_hash(), value.clone());
        let fits = needed_words(&entity) * 4 <= MAX_BYTES;
        // Only a set that does not fit may fail; its bytes are compared.
        let before = (!fits).then(|| self.map.as_bytes().to_vec());
        let result = value.with_value(|v| self.map.set(id, key, v));
        match (slot, result) {
            (Err(expected), got) => {
                assert_eq!(got, Err(expected), "set with a stale id");
                false
            }
            (Ok(stale), Ok(())) => {
                assert!(fits, "set succeeded past the size limit");
                self.drop_stale(&stale);
                self.model.insert(id, entity);
                true
            }
            (Ok(_), Err(DataError::TooLarge { key: k2, .. })) => {
                assert!(!fits, "set failed although the entity fits");
                assert_eq!(k2, key);
                // Nothing changed but perhaps a hole where a new
                // entity was tried: the contents are the same.
                let old = DataMap::<Id24_8>::from_bytes(&before.unwrap()).unwrap();
                assert_same_contents(&old, &self.map);
                false
            }
            (Ok(_), Err(e)) => panic!("set returned {e:?}"),
        }
    }

    /// Applies `op` to the map and the model, comparing every answer.
    pub fn apply(&mut self, op: &MapOp) {
        match op {
            MapOp::Spawn => {
                if self.spawned.len() < 4096 {
                    self.spawned.push(self.table.insert().0);
                }
            }
            MapOp::Despawn(n, also_data) => {
                if let Some(id) = self.pick(*n) {
                    self.table.remove(id);
                    if *also_data {
                        let had = self.model.remove(&id).is_some();
                        assert_eq!(self.map.remove(id), had, "remove({id:?})");
                    }
                }
            }
            MapOp::Set(n, k, v) => {
                if let Some(id) = self.pick(*n) {
                    self.set(id, k.key(), &v.to_model());
                }
            }
            MapOp::Grow(n, count) => {
                if let Some(id) = self.pick(*n) {
                    for c in 0..usize::from(*count) {
                        let key = Key::new("grow").join(&c.to_string());
                        let text = OwnedValue::Str("g".repeat(c % 40));
                        if !self.set(id, key, &text) {
                            break;
                        }
                    }
                }
            }
            MapOp::RemoveKey(n, k) => {
                if let Some(id) = self.pick(*n) {
                    let key = k.key();
                    let had = self
                        .model
                        .get_mut(&id)
                        .is_some_and(|e| e.remove(&key.to_hash()).is_some());
                    assert_eq!(self.map.remove_key(id, key), had, "remove_key");
                }
            }
            MapOp::Shrink(n) => {
                if let Some(id) = self.pick(*n) {
                    let hashes: Vec<u32> = self
                        .model
                        .get(&id)
                        .map(|e| e.keys().copied().collect())
                        .unwrap_or_default();
                    for hash in hashes.into_iter().skip(1) {
                        assert!(self.map.remove_key(id, Key::from_hash(hash)));
                        self.model.get_mut(&id).unwrap().remove(&hash);
                    }
                }
            }
            MapOp::Remove(n) => {
                if let Some(id) = self.pick(*n) {
                    let had = self.model.remove(&id).is_some();
                    assert_eq!(self.map.remove(id), had, "remove({id:?})");
                }
            }
            MapOp::Insert(n, from) => {
                let (Some(id), Some(source)) = (self.pick(*n), self.pick(*from)) else {
                    return;
                };
                let component: DataComponent = self.map.to_component(source).unwrap_or_default();
                let entity = self.model.get(&source).cloned().unwrap_or_default();
                assert_eq!(entries(component.view()), entity, "to_component");
                let slot = stale_rule(&self.model, id);
                let result = self.map.insert(id, &component);
                match slot {
                    Err(expected) => assert_eq!(result, Err(expected)),
                    Ok(stale) => {
                        assert_eq!(result, Ok(()));
                        let copy = self
                            .map
                            .to_component(id)
                            .expect("to_component after insert");
                        assert_eq!(entries(copy.view()), entity, "to_component after insert");
                        self.drop_stale(&stale);
                        self.model.insert(id, entity);
                    }
                }
            }
            MapOp::Clear => {
                self.map.clear();
                self.model.clear();
            }
            MapOp::ShrinkToFit => {
                self.map.shrink_to_fit();
                assert!(self.map.capacity() <= self.map.as_bytes().len());
            }
            MapOp::Reload => {
                let bytes = self.map.as_bytes().to_vec();
                self.map = DataMap::from_bytes(&bytes).expect("own bytes reload");
                assert_eq!(self.map.as_bytes(), &bytes[..], "reload keeps the bytes");
            }
            MapOp::CloneIt => {
                let copy = self.map.clone();
                assert_eq!(copy.as_bytes(), self.map.as_bytes());
                self.map = copy;
            }
        }
        assert_eq!(self.map.len(), self.model.len(), "len");
        self.edits += 1;
        if self.edits % self.check_every == 0 {
            self.check();
        }
    }

    /// The map holds exactly the model, for every id ever issued and every
    /// pool key through the map's own getters, and its bytes reload to the
    /// same bytes and contents.
    pub fn check(&self) {
        let map = &self.map;
        assert_eq!(map.len(), self.model.len(), "len");
        assert_eq!(map.ids().len(), self.model.len());
        for id in map.ids() {
            assert!(self.model.contains_key(id), "{id:?} listed but not held");
        }
        for &id in &self.spawned {
            let want = self.model.get(&id);
            match (map.entity(id), want) {
                (Some(found), Some(want)) => check_entity(found, want),
                (None, None) => {}
                (found, want) => panic!("{id:?}: {found:?} vs {want:?}"),
            }
            assert_eq!(map.contains(id), want.is_some());
            // The map's own getters, for a few pool keys (held or not).
            for key in POOL.iter().copied().take(6) {
                let value = want.and_then(|e| e.get(&key.to_hash()));
                check_map_getters(map, id, key, value);
            }
        }
        let bytes = map.as_bytes();
        let loaded = DataMap::<Id24_8>::from_bytes(bytes).expect("as_bytes always reloads");
        assert_eq!(loaded.as_bytes(), bytes);
        assert_same_contents(&loaded, map);
    }
}

/// The map's getters for `(id, key)` answer `want` (or nothing).
fn check_map_getters<K: Id>(map: &DataMap<K>, id: K, key: Key, want: Option<&OwnedValue>) {
    let got = map.get(id, key).map(OwnedValue::from_value);
    assert_eq!(got.as_ref(), want, "get({id:?}, {key:?})");
    let typed = (
        map.get_bool(id, key),
        map.get_f32(id, key).map(f32::to_bits),
        map.get_i32(id, key),
        map.get_str(id, key),
        map.get_f32s(id, key)
            .map(|xs| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>()),
    );
    let expected = match want {
        Some(OwnedValue::Bool(b)) => (Some(*b), None, None, None, None),
        Some(OwnedValue::Float(f)) => (None, Some(*f), None, None, None),
        Some(OwnedValue::Int(i)) => (None, None, Some(*i), None, None),
        Some(OwnedValue::Str(s)) => (None, None, None, Some(s.as_str()), None),
        Some(OwnedValue::Floats(xs)) => (None, None, None, None, Some(xs.clone())),
        None => (None, None, None, None, None),
    };
    assert_eq!(typed, expected, "typed getters of ({id:?}, {key:?})");
}

/// The same ids with the same data, bit for bit (`==` on maps follows
/// `f32`: a NaN is not equal to itself).
pub fn assert_same_contents<K: Id>(a: &DataMap<K>, b: &DataMap<K>) {
    assert_eq!(a.len(), b.len(), "entity counts");
    for (id, sheet) in a {
        let other = b.entity(id).unwrap_or_else(|| panic!("{id:?} missing"));
        assert_eq!(entries(sheet), entries(other), "{id:?}");
    }
}

/// One entity's data holds exactly `want`, through `iter()` and every
/// typed getter.
pub fn check_entity(found: DataRef<'_>, want: &Entries) {
    assert_eq!(found.len(), want.len(), "entity len");
    assert_eq!(&entries(found), want, "entity entries");
    for (&hash, value) in want {
        check_typed_getters(found, Key::from_hash(hash), value);
    }
}

/// Reads every entity of a loaded map through every accessor.
pub fn read_map<K: Id>(map: &DataMap<K>) {
    assert_eq!(map.iter().len(), map.len());
    for (id, sheet) in map {
        assert!(map.contains(id));
        let model = entries(sheet);
        assert_eq!(model.len(), sheet.len(), "a key listed twice");
        check_entity(sheet, &model);
        let copy = map.to_component(id).expect("to_component of a listed id");
        assert_eq!(copy.as_bytes(), sheet.as_bytes());
    }
    let _ = format!("{map:?}");
}

/// proptest strategies for the edits.
#[cfg(feature = "proptest")]
pub mod strategy {
    use proptest::prelude::*;

    use super::MapOp;
    use crate::data::strategy::{key_sel, value};

    /// One edit of a map whose entities are picked among the first 64
    /// spawned; sets likeliest, on the first 6 pool keys (those the map's
    /// own getters are checked with) and now and then any hash, values up
    /// to 20 long.
    pub fn op() -> impl Strategy<Value = MapOp> {
        let n = 0..64_u8;
        prop_oneof![
            6 => Just(MapOp::Spawn),
            2 => (n.clone(), any::<bool>()).prop_map(|(i, d)| MapOp::Despawn(i, d)),
            20 => (n.clone(), key_sel(6), value(20, false))
                .prop_map(|(i, k, v)| MapOp::Set(i, k, v)),
            1 => (n.clone(), 1..60_u8).prop_map(|(i, k)| MapOp::Grow(i, k)),
            5 => (n.clone(), key_sel(6)).prop_map(|(i, k)| MapOp::RemoveKey(i, k)),
            1 => n.clone().prop_map(MapOp::Shrink),
            2 => n.clone().prop_map(MapOp::Remove),
            1 => (n.clone(), n.clone()).prop_map(|(i, j)| MapOp::Insert(i, j)),
            1 => Just(MapOp::Reload),
            1 => Just(MapOp::ShrinkToFit),
            1 => Just(MapOp::CloneIt),
        ]
    }
}
