//! Shared pieces of the `DataMap` fuzz targets: edit operations on a map
//! keyed by the ids of a real `IdTable` (which reuses slots, so stale ids
//! come up), a model (`HashMap` of id → `BTreeMap` of key → value), and the
//! checks that compare the two.

use std::collections::{BTreeMap, HashMap};

use arbitrary::Arbitrary;
use idtable::data::{DataError, DataMap, DataRef, Key, MAX_BYTES};
use idtable::{Id, Id24_8, IdTable};

use crate::{check_typed_getters, needed_words, KeySel, MVal, ValueIn};

/// One edit of a map. Entities are picked among every id the table ever
/// issued, live or not.
#[derive(Arbitrary, Debug, Clone)]
pub enum MapOp {
    /// A new id from the table.
    Spawn,
    /// Removes an id from the table (its data stays in the map unless
    /// `also_data`).
    Despawn(u8, bool),
    Set(u8, KeySel, ValueIn),
    RemoveKey(u8, KeySel),
    Remove(u8),
    /// `insert` a copy of another entity's data (or an empty component).
    Insert(u8, u8),
    Clear,
    ShrinkToFit,
    /// Replace the map by `from_bytes(as_bytes())`.
    Reload,
    CloneIt,
}

pub type Model = HashMap<Id24_8, BTreeMap<u32, MVal>>;

/// A map, its model and the table that issues the ids.
#[derive(Default)]
pub struct CheckedMap {
    pub map: DataMap<Id24_8>,
    pub model: Model,
    pub table: IdTable<Id24_8>,
    pub spawned: Vec<Id24_8>,
}

impl CheckedMap {
    fn pick(&self, n: u8) -> Option<Id24_8> {
        (!self.spawned.is_empty()).then(|| self.spawned[usize::from(n) % self.spawned.len()])
    }

    /// The model's answer to writing for `id`: the ids of older data of the
    /// same slot, which a successful write drops; an error if the model
    /// holds a newer id of the slot.
    fn model_slot(&self, id: Id24_8) -> Result<Vec<Id24_8>, DataError> {
        let held: Vec<Id24_8> = self
            .model
            .keys()
            .copied()
            .filter(|k| k.index() == id.index() && *k != id)
            .collect();
        if held.iter().any(|k| k.generation() > id.generation()) {
            return Err(DataError::StaleId { index: id.index() });
        }
        Ok(held)
    }

    /// Drops the model's data of `stale` ids.
    fn drop_stale(&mut self, stale: &[Id24_8]) {
        for k in stale {
            self.model.remove(k);
        }
    }

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
                let Some(id) = self.pick(*n) else { return };
                let key = k.key();
                let value = v.to_model();
                let slot = self.model_slot(id);
                let mut entity = self.model.get(&id).cloned().unwrap_or_default();
                entity.insert(key.to_hash(), value.clone());
                let fits = needed_words(&entity) * 4 <= MAX_BYTES;
                let before = self.map.as_bytes().to_vec();
                let result = value.with_value(|v| self.map.set(id, key, v));
                match (slot, result) {
                    (Err(expected), got) => {
                        assert_eq!(got, Err(expected), "set with a stale id");
                    }
                    (Ok(stale), Ok(())) => {
                        assert!(fits, "set succeeded past the size limit");
                        self.drop_stale(&stale);
                        self.model.insert(id, entity);
                    }
                    (Ok(_), Err(DataError::TooLarge { key: k2, .. })) => {
                        assert!(!fits, "set failed although the entity fits");
                        assert_eq!(k2, key);
                        // Nothing changed but perhaps a hole where a new
                        // entity was tried: the contents are the same.
                        let old = DataMap::<Id24_8>::from_bytes(&before).unwrap();
                        assert_same_contents(&old, &self.map);
                    }
                    (Ok(_), Err(e)) => panic!("set returned {e:?}"),
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
                let component = self.map.to_component(source).unwrap_or_default();
                let entity = self.model.get(&source).cloned().unwrap_or_default();
                let slot = self.model_slot(id);
                let result = self.map.insert(id, &component);
                match slot {
                    Err(expected) => assert_eq!(result, Err(expected)),
                    Ok(stale) => {
                        assert_eq!(result, Ok(()));
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
        self.check();
    }

    /// The map holds exactly the model, for every id ever issued, and its
    /// bytes reload to the same bytes.
    pub fn check(&self) {
        let map = &self.map;
        assert_eq!(map.len(), self.model.len(), "len");
        assert_eq!(map.ids().len(), self.model.len());
        for &id in &self.spawned {
            match (map.entity(id), self.model.get(&id)) {
                (Some(found), Some(want)) => check_entity(found, want),
                (None, None) => {}
                (found, want) => panic!("{id:?}: {found:?} vs {want:?}"),
            }
            assert_eq!(map.contains(id), self.model.contains_key(&id));
        }
        let bytes = map.as_bytes();
        let loaded = DataMap::<Id24_8>::from_bytes(bytes).expect("as_bytes always reloads");
        assert_eq!(loaded.as_bytes(), bytes);
        assert_same_contents(&loaded, map);
    }
}

/// The entries of one entity, floats as bits (so NaNs compare).
fn entries(sheet: DataRef<'_>) -> BTreeMap<u32, MVal> {
    sheet
        .iter()
        .map(|(key, value)| (key.to_hash(), MVal::from_value(value)))
        .collect()
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

/// One entity's data holds exactly `want`.
pub fn check_entity(found: DataRef<'_>, want: &BTreeMap<u32, MVal>) {
    assert_eq!(found.len(), want.len(), "entity len");
    for (&hash, value) in want {
        check_typed_getters(found, Key::from_hash(hash), value);
    }
    assert_eq!(found.iter().count(), want.len());
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
