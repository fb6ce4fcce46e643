//! `DataComponent` against a model: a `BTreeMap` from key hash to an owned
//! value (floats as bits, so NaNs compare), with the format's exact size
//! rules (a set fails with `TooLarge` exactly when the documented minimum
//! size of the result exceeds `MAX_BYTES`, and then changes nothing;
//! `shrink_to_fit` leaves exactly the minimum).
//!
//! [`Checked`] keeps a component and its model in step; every check panics
//! at the first difference. The owned values, key choices and typed-getter
//! checks are shared with [`data_map`](crate::data_map).

use std::collections::{BTreeMap, HashSet};

use idtable::data::{DataComponent, DataError, DataRef, Key, Value, MAX_BYTES};

/// The keys a [`KeySel::Pool`] picks from: few, so that sets often overwrite
/// and removes often hit; flat and nested names, the empty key and the empty
/// path, a name with a dot next to the path it looks like.
pub const POOL: [Key; 23] = [
    Key::new("name"),
    Key::path(&["stats", "health"]),
    Key::new("level"),
    Key::new("inventory"),
    Key::new("drunk"),
    Key::path(&[]),
    Key::path(&["stats", "mana"]),
    Key::new("stats.health"),
    Key::path(&["status_effects", "drunk"]),
    Key::new("color"),
    Key::new(""),
    Key::path(&["pool", "a"]),
    Key::path(&["pool", "b"]),
    Key::path(&["pool", "c"]),
    Key::path(&["pool", "name"]),
    Key::path(&["pool", "health"]),
    Key::path(&["pool", "mana"]),
    Key::path(&["pool", "x.y"]),
    Key::path(&["pool", ""]),
    Key::path(&["pool", "é"]),
    Key::path(&["pool", "drunk"]),
    Key::path(&["pool", "pos"]),
    Key::path(&["pool", "color"]),
];

/// A key: one of the [`POOL`] (so edits hit the same keys often), or any
/// hash.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum KeySel {
    Pool(u8),
    Hash(u32),
}

impl KeySel {
    pub fn key(self) -> Key {
        match self {
            KeySel::Pool(n) => POOL[usize::from(n) % POOL.len()],
            KeySel::Hash(h) => Key::from_hash(h),
        }
    }
}

/// A value to set. The `Big*` variants reach the format's size limit.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum ValueIn {
    Bool(bool),
    /// A float by its bits (NaNs and negative zero included).
    Float(u32),
    Int(i32),
    Str(String),
    Floats(Vec<u32>),
    /// `len * 2` copies of `byte` (an ASCII letter), up to 131,070 bytes.
    BigStr(u16, u8),
    /// `len` floats, up to 65,535 (four times the limit).
    BigFloats(u16),
}

/// An owned copy of a value; floats as bits so NaNs compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedValue {
    Bool(bool),
    Float(u32),
    Int(i32),
    Str(String),
    Floats(Vec<u32>),
}

impl ValueIn {
    /// The value this stands for.
    pub fn to_model(&self) -> OwnedValue {
        match self {
            ValueIn::Bool(b) => OwnedValue::Bool(*b),
            ValueIn::Float(bits) => OwnedValue::Float(*bits),
            ValueIn::Int(x) => OwnedValue::Int(*x),
            ValueIn::Str(s) => OwnedValue::Str(s.clone()),
            ValueIn::Floats(xs) => OwnedValue::Floats(xs.clone()),
            ValueIn::BigStr(len, byte) => {
                let c = char::from(b'a' + byte % 26);
                OwnedValue::Str(std::iter::repeat_n(c, usize::from(*len) * 2).collect())
            }
            ValueIn::BigFloats(len) => {
                OwnedValue::Floats((0..u32::from(*len)).map(|i| (i as f32).to_bits()).collect())
            }
        }
    }
}

impl OwnedValue {
    /// Calls `f` with this value as a `Value`.
    pub fn with_value<R>(&self, f: impl FnOnce(Value<'_>) -> R) -> R {
        match self {
            OwnedValue::Bool(b) => f(Value::Bool(*b)),
            OwnedValue::Float(bits) => f(Value::Float(f32::from_bits(*bits))),
            OwnedValue::Int(x) => f(Value::Int(*x)),
            OwnedValue::Str(s) => f(Value::Str(s)),
            OwnedValue::Floats(xs) => {
                let floats: Vec<f32> = xs.iter().map(|&b| f32::from_bits(b)).collect();
                f(Value::Floats(&floats))
            }
        }
    }

    /// Sets `key` to this value on `dc`.
    pub fn set_on(&self, dc: &mut DataComponent, key: Key) -> Result<(), DataError> {
        self.with_value(|value| dc.set(key, value))
    }

    /// Words of payload this value takes in the buffer.
    pub fn payload_words(&self) -> usize {
        match self {
            OwnedValue::Str(s) => s.len().div_ceil(4),
            OwnedValue::Floats(xs) => xs.len(),
            _ => 0,
        }
    }

    pub fn from_value(v: Value<'_>) -> OwnedValue {
        match v {
            Value::Bool(b) => OwnedValue::Bool(b),
            Value::Float(x) => OwnedValue::Float(x.to_bits()),
            Value::Int(x) => OwnedValue::Int(x),
            Value::Str(s) => OwnedValue::Str(s.to_owned()),
            Value::Floats(xs) => OwnedValue::Floats(xs.iter().map(|x| x.to_bits()).collect()),
        }
    }
}

/// One edit of a component.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub enum DataOp {
    Set(KeySel, ValueIn),
    Remove(KeySel),
    Get(KeySel),
    Clear,
    ShrinkToFit,
    /// Replace the component by `from_bytes(as_bytes())`.
    Reload,
    /// Replace the component by its clone.
    CloneIt,
    /// Replace the component by a copy loaded from an odd address.
    ReloadMisaligned,
}

/// One entity's or one component's contents: key hash to value.
pub type Entries = BTreeMap<u32, OwnedValue>;

/// A component and its model, kept in step.
#[derive(Default)]
pub struct Checked {
    pub dc: DataComponent,
    pub model: Entries,
}

/// Words the fixed header and the entry arrays of `n` entries take.
pub fn header_words(n: usize) -> usize {
    idtable::data::header_bytes(n) / 4
}

/// The smallest buffer, in words, that holds `model`.
pub fn needed_words(model: &Entries) -> usize {
    header_words(model.len()) + model.values().map(OwnedValue::payload_words).sum::<usize>()
}

impl Checked {
    /// Takes a loaded component; the model is what it reads back.
    pub fn from_loaded(dc: DataComponent) -> Checked {
        let mut model = BTreeMap::new();
        for (key, value) in dc.iter() {
            let old = model.insert(key.to_hash(), OwnedValue::from_value(value));
            assert!(old.is_none(), "iter yields {key:?} twice");
        }
        let c = Checked { dc, model };
        c.check();
        c
    }

    /// Applies `op` to the component and the model, comparing every
    /// answer, then [`check`](Checked::check)s.
    pub fn apply(&mut self, op: &DataOp) {
        match op {
            DataOp::Set(k, v) => {
                let key = k.key();
                let value = v.to_model();
                let mut after = self.model.clone();
                after.insert(key.to_hash(), value.clone());
                let fits = needed_words(&after) * 4 <= MAX_BYTES;
                let before = self.dc.as_bytes().to_vec();
                match value.set_on(&mut self.dc, key) {
                    Ok(()) => {
                        assert!(fits, "set succeeded past the size limit");
                        self.model = after;
                    }
                    Err(DataError::TooLarge { key: k2, needed }) => {
                        assert!(
                            !fits,
                            "set failed although {} words fit",
                            needed_words(&after)
                        );
                        assert_eq!(k2, key, "TooLarge names another key");
                        assert!(needed > MAX_BYTES, "TooLarge with needed = {needed}");
                        assert_eq!(self.dc.as_bytes(), &before[..], "failed set changed bytes");
                    }
                    Err(e) => panic!("set returned {e:?}"),
                }
            }
            DataOp::Remove(k) => {
                let key = k.key();
                let was = self.model.remove(&key.to_hash()).is_some();
                assert_eq!(self.dc.remove(key), was, "remove({key:?})");
            }
            DataOp::Get(k) => {
                let key = k.key();
                let got = self.dc.get(key).map(OwnedValue::from_value);
                assert_eq!(got.as_ref(), self.model.get(&key.to_hash()), "get({key:?})");
            }
            DataOp::Clear => {
                let cap = self.dc.capacity();
                self.dc.clear();
                self.model.clear();
                assert_eq!(self.dc.capacity(), cap, "clear keeps the buffer");
            }
            DataOp::ShrinkToFit => {
                self.dc.shrink_to_fit();
                let want = if self.model.is_empty() {
                    0
                } else {
                    needed_words(&self.model) * 4
                };
                assert_eq!(
                    self.dc.capacity(),
                    want,
                    "shrink_to_fit leaves exactly what is needed"
                );
            }
            DataOp::Reload => {
                let bytes = self.dc.as_bytes().to_vec();
                self.dc = DataComponent::from_bytes(&bytes).expect("own bytes reload");
                assert_eq!(self.dc.as_bytes(), &bytes[..], "reload keeps the bytes");
            }
            DataOp::CloneIt => {
                let copy = self.dc.clone();
                assert_eq!(copy.as_bytes(), self.dc.as_bytes());
                self.dc = copy;
            }
            DataOp::ReloadMisaligned => {
                let bytes = self.dc.as_bytes();
                let mut shifted = vec![0u8; bytes.len() + 1];
                shifted[1..].copy_from_slice(bytes);
                let loaded = DataComponent::from_bytes(&shifted[1..]).expect("reload");
                assert_eq!(loaded.as_bytes(), bytes);
                self.dc = loaded;
            }
        }
        self.check();
    }

    /// The component holds exactly the model (every pool key present or
    /// absent as the model says), reads agree with each other, and its
    /// bytes are a valid saved form that loads to the same contents.
    pub fn check(&self) {
        let dc = &self.dc;
        assert_eq!(dc.len(), self.model.len(), "len");
        assert_eq!(dc.is_empty(), self.model.is_empty());
        assert!(
            dc.capacity() <= MAX_BYTES,
            "capacity {} past the limit",
            dc.capacity()
        );
        if dc.capacity() != 0 {
            assert_eq!(dc.capacity(), dc.as_bytes().len());
            assert!(
                needed_words(&self.model) * 4 <= dc.capacity(),
                "contents exceed the buffer"
            );
        }
        for (&hash, want) in &self.model {
            let key = Key::from_hash(hash);
            assert!(dc.contains(key));
            let got = dc.get(key).map(OwnedValue::from_value);
            assert_eq!(got.as_ref(), Some(want), "get({key:?})");
            check_typed_getters(dc.view(), key, want);
        }
        for key in POOL {
            let want = self.model.get(&key.to_hash());
            assert_eq!(dc.contains(key), want.is_some(), "contains({key:?})");
            let got = dc.get(key).map(OwnedValue::from_value);
            assert_eq!(got.as_ref(), want, "get({key:?})");
        }
        assert_eq!(entries(dc.view()), self.model, "iter");
        let bytes = dc.as_bytes();
        let loaded = DataComponent::from_bytes(bytes).expect("as_bytes always reloads");
        assert_eq!(loaded.as_bytes(), bytes);
        assert_eq!(entries(loaded.view()), self.model, "iter after a reload");
    }
}

/// The entries of a component or an entity (each key once, checked), and
/// `iter()`'s exact length.
pub fn entries(dc: DataRef<'_>) -> Entries {
    let iter = dc.iter();
    let len = iter.len();
    let mut seen = HashSet::new();
    let out: Entries = iter
        .map(|(key, value)| {
            assert!(seen.insert(key.to_hash()), "iter yields {key:?} twice");
            (key.to_hash(), OwnedValue::from_value(value))
        })
        .collect();
    assert_eq!(out.len(), len, "iter().len()");
    assert_eq!(dc.len(), len, "len() and iter()");
    out
}

/// The typed getters return the value exactly when its type matches.
pub fn check_typed_getters(dc: DataRef<'_>, key: Key, want: &OwnedValue) {
    let b = dc.get_bool(key);
    let f = dc.get_f32(key).map(f32::to_bits);
    let i = dc.get_i32(key);
    let s = dc.get_str(key);
    let fs = dc
        .get_f32s(key)
        .map(|xs| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    let none_but = |which: usize| {
        let present = [
            b.is_some(),
            f.is_some(),
            i.is_some(),
            s.is_some(),
            fs.is_some(),
        ];
        assert!(
            present.iter().enumerate().all(|(n, &p)| p == (n == which)),
            "typed getters of {key:?}: {present:?}"
        );
    };
    match want {
        OwnedValue::Bool(v) => {
            none_but(0);
            assert_eq!(b, Some(*v));
        }
        OwnedValue::Float(v) => {
            none_but(1);
            assert_eq!(f, Some(*v));
        }
        OwnedValue::Int(v) => {
            none_but(2);
            assert_eq!(i, Some(*v));
        }
        OwnedValue::Str(v) => {
            none_but(3);
            assert_eq!(s, Some(v.as_str()));
        }
        OwnedValue::Floats(v) => {
            none_but(4);
            assert_eq!(fs.as_ref(), Some(v));
        }
    }
}

/// Reads every entry of a loaded component through every accessor, checking
/// that they agree with `iter()`.
pub fn read_everything(dc: &DataComponent) {
    let mut seen = HashSet::new();
    for (key, value) in dc.iter() {
        assert!(seen.insert(key.to_hash()), "iter yields {key:?} twice");
        let want = OwnedValue::from_value(value);
        assert_eq!(
            dc.get(key).map(OwnedValue::from_value).as_ref(),
            Some(&want)
        );
        check_typed_getters(dc.view(), key, &want);
        if let Value::Str(s) = value {
            // A `&str` handed out must be UTF-8 (the unchecked read in the
            // library relies on validation).
            assert!(std::str::from_utf8(s.as_bytes()).is_ok());
        }
    }
    assert_eq!(seen.len(), dc.len());
    let _ = format!("{dc:?}");
}

/// proptest strategies for keys, values and edits.
#[cfg(feature = "proptest")]
pub mod strategy {
    use proptest::prelude::*;

    use super::{DataOp, KeySel, ValueIn, POOL};

    /// One of the first `among` pool keys most of the time, any hash now
    /// and then.
    pub fn key_sel(among: usize) -> impl Strategy<Value = KeySel> {
        let among = among.clamp(1, POOL.len()) as u8;
        prop_oneof![
            8 => (0..among).prop_map(KeySel::Pool),
            1 => any::<u32>().prop_map(KeySel::Hash),
        ]
    }

    /// Any value, with strings and arrays of up to `max_len` elements; with
    /// `big`, now and then one past the size limit.
    pub fn value(max_len: usize, big: bool) -> impl Strategy<Value = ValueIn> {
        let big_weight = u32::from(big);
        prop_oneof![
            4 => any::<bool>().prop_map(ValueIn::Bool),
            4 => any::<u32>().prop_map(ValueIn::Float),
            4 => any::<i32>().prop_map(ValueIn::Int),
            4 => prop::collection::vec(any::<char>(), 0..max_len)
                .prop_map(|cs| ValueIn::Str(cs.into_iter().collect())),
            4 => prop::collection::vec(any::<u32>(), 0..max_len).prop_map(ValueIn::Floats),
            big_weight => (any::<u16>(), any::<u8>()).prop_map(|(n, b)| ValueIn::BigStr(n, b)),
            big_weight => any::<u16>().prop_map(ValueIn::BigFloats),
        ]
    }

    /// One edit, sets likeliest, on the first 11 pool keys (flat and
    /// nested names, a dotted name, the empty key and the empty path) and
    /// now and then any hash; values up to `max_len` long (with `big`, some
    /// past the size limit).
    pub fn op(max_len: usize, big: bool) -> impl Strategy<Value = DataOp> {
        prop_oneof![
            12 => (key_sel(11), value(max_len, big)).prop_map(|(k, v)| DataOp::Set(k, v)),
            4 => key_sel(11).prop_map(DataOp::Remove),
            2 => key_sel(11).prop_map(DataOp::Get),
            1 => Just(DataOp::Clear),
            1 => Just(DataOp::ShrinkToFit),
            1 => Just(DataOp::Reload),
            1 => Just(DataOp::CloneIt),
            1 => Just(DataOp::ReloadMisaligned),
        ]
    }
}
