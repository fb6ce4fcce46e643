//! Shared pieces of the `DataComponent` fuzz targets: arbitrary edit
//! operations, a `BTreeMap` model of a component, and the checks that compare
//! the two.
//!
//! Every check panics on a mismatch, which libFuzzer reports as a crash.

pub mod map;

use std::collections::{BTreeMap, HashSet};

use arbitrary::Arbitrary;
use idtable::data::{DataComponent, DataError, DataRef, Key, Value, MAX_BYTES};

/// A key: one of a small pool of named keys (so edits hit the same keys
/// often), or any hash.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum KeySel {
    Pool(u8),
    Hash(u32),
}

impl KeySel {
    pub fn key(self) -> Key {
        match self {
            KeySel::Pool(n) => Key::path(&["pool", POOL[usize::from(n) % POOL.len()]]),
            KeySel::Hash(h) => Key::from_hash(h),
        }
    }
}

const POOL: [&str; 12] = [
    "a", "b", "c", "name", "health", "mana", "x.y", "", "é", "drunk", "pos", "color",
];

/// A value to set. The `Big*` variants reach the format's size limit.
#[derive(Arbitrary, Debug, Clone)]
pub enum ValueIn {
    Bool(bool),
    Float(u32),
    Int(i32),
    Str(String),
    Floats(Vec<u32>),
    /// `len * 2` copies of `byte` (an ASCII letter), up to 131,070 bytes.
    BigStr(u16, u8),
    /// `len` floats, up to 65,535 (four times the limit).
    BigFloats(u16),
}

/// The model's copy of a value; floats as bits so NaNs compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MVal {
    Bool(bool),
    Float(u32),
    Int(i32),
    Str(String),
    Floats(Vec<u32>),
}

impl ValueIn {
    pub fn to_model(&self) -> MVal {
        match self {
            ValueIn::Bool(b) => MVal::Bool(*b),
            ValueIn::Float(bits) => MVal::Float(*bits),
            ValueIn::Int(x) => MVal::Int(*x),
            ValueIn::Str(s) => MVal::Str(s.clone()),
            ValueIn::Floats(xs) => MVal::Floats(xs.clone()),
            ValueIn::BigStr(len, byte) => {
                let c = char::from(b'a' + byte % 26);
                MVal::Str(std::iter::repeat_n(c, usize::from(*len) * 2).collect())
            }
            ValueIn::BigFloats(len) => {
                MVal::Floats((0..u32::from(*len)).map(|i| (i as f32).to_bits()).collect())
            }
        }
    }
}

impl MVal {
    /// Calls `f` with this value as a `Value`.
    pub fn with_value<R>(&self, f: impl FnOnce(Value<'_>) -> R) -> R {
        match self {
            MVal::Bool(b) => f(Value::Bool(*b)),
            MVal::Float(bits) => f(Value::Float(f32::from_bits(*bits))),
            MVal::Int(x) => f(Value::Int(*x)),
            MVal::Str(s) => f(Value::Str(s)),
            MVal::Floats(xs) => {
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
            MVal::Str(s) => s.len().div_ceil(4),
            MVal::Floats(xs) => xs.len(),
            _ => 0,
        }
    }

    pub fn from_value(v: Value<'_>) -> MVal {
        match v {
            Value::Bool(b) => MVal::Bool(b),
            Value::Float(x) => MVal::Float(x.to_bits()),
            Value::Int(x) => MVal::Int(x),
            Value::Str(s) => MVal::Str(s.to_owned()),
            Value::Floats(xs) => MVal::Floats(xs.iter().map(|x| x.to_bits()).collect()),
        }
    }
}

/// One edit of a component.
#[derive(Arbitrary, Debug, Clone)]
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

/// A component and its model, kept in step.
#[derive(Default)]
pub struct Checked {
    pub dc: DataComponent,
    pub model: BTreeMap<u32, MVal>,
}

/// Words the fixed header and the entry arrays of `n` entries take.
pub fn header_words(n: usize) -> usize {
    idtable::data::header_bytes(n) / 4
}

/// The smallest buffer, in words, that holds `model`.
pub fn needed_words(model: &BTreeMap<u32, MVal>) -> usize {
    header_words(model.len()) + model.values().map(MVal::payload_words).sum::<usize>()
}

impl Checked {
    /// Takes a loaded component; the model is what it reads back.
    pub fn from_loaded(dc: DataComponent) -> Checked {
        let mut model = BTreeMap::new();
        for (key, value) in dc.iter() {
            let old = model.insert(key.to_hash(), MVal::from_value(value));
            assert!(old.is_none(), "iter yields {key:?} twice");
        }
        let c = Checked { dc, model };
        c.check();
        c
    }

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
                let got = self.dc.get(key).map(MVal::from_value);
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

    /// The component holds exactly the model, reads agree with each other,
    /// and its bytes are a valid saved form.
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
            let got = dc.get(key).map(MVal::from_value);
            assert_eq!(got.as_ref(), Some(want), "get({key:?})");
            check_typed_getters(dc.view(), key, want);
        }
        let mut seen = HashSet::new();
        let iter = dc.iter();
        assert_eq!(iter.len(), self.model.len());
        for (key, value) in iter {
            assert!(seen.insert(key.to_hash()), "iter yields {key:?} twice");
            assert_eq!(
                self.model.get(&key.to_hash()),
                Some(&MVal::from_value(value))
            );
        }
        let bytes = dc.as_bytes();
        let loaded = DataComponent::from_bytes(bytes).expect("as_bytes always reloads");
        assert_eq!(loaded.as_bytes(), bytes);
        assert_eq!(loaded.len(), dc.len());
    }
}

/// The typed getters return the value exactly when its type matches.
pub fn check_typed_getters(dc: DataRef<'_>, key: Key, want: &MVal) {
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
        MVal::Bool(v) => {
            none_but(0);
            assert_eq!(b, Some(*v));
        }
        MVal::Float(v) => {
            none_but(1);
            assert_eq!(f, Some(*v));
        }
        MVal::Int(v) => {
            none_but(2);
            assert_eq!(i, Some(*v));
        }
        MVal::Str(v) => {
            none_but(3);
            assert_eq!(s, Some(v.as_str()));
        }
        MVal::Floats(v) => {
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
        let want = MVal::from_value(value);
        assert_eq!(dc.get(key).map(MVal::from_value).as_ref(), Some(&want));
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
