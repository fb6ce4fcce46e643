//! `Serialize`/`Deserialize` for [`DataComponent`] and [`DataMap`] (feature
//! `serde`).
//!
//! A [`DataComponent`] is its bytes ([`DataComponent::as_bytes`]) in every
//! format, checked by [`DataComponent::from_bytes`] on the way in.
//!
//! Binary formats (`is_human_readable()` false, e.g. postcard) get the
//! map's compact bytes ([`DataMap::to_bytes`]: the buffer, or a copy
//! without its holes), checked by [`DataMap::from_bytes`] on the way in:
//! identical bytes after a round trip.
//!
//! Human-readable formats (JSON, RON, YAML…) get a map from each entity's
//! id bits to its data, itself a map from key texts to plain values: `true`,
//! `1.5`, `3`, `"text"`, `[1.0, 2.0]`. A key text is the key's hash (`"0x"`
//! and 8 hex digits), or, saved through [`DataMap::named`], the key's name
//! (`"stats.health"`) where the [`KeyNames`] table has one that reads back
//! as the key. Loading reads a text of `0x` and 8 hex digits as a hash and
//! any other as a path of `.`-separated segments; see [`NamedMap`].
//! Integers and floats are told apart as the format tells them apart (in
//! JSON, `3` is an integer and `3.0` a float). Loading sets every value
//! into a new map, so a round trip keeps the contents, not the layout;
//! non-finite floats do not survive formats without them (JSON).
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use idtable_runtime::data::DataMap;
//! use idtable_runtime::Id24_8;
//!
//! let id = Id24_8::new(1, 1).unwrap();
//! let mut sheets: DataMap<Id24_8> = DataMap::new();
//! sheets.set(id, "level", 3).unwrap();
//! let json = serde_json::to_string(&sheets).unwrap();
//! assert_eq!(json, r#"{"16777217":{"0x5953e0d5":3}}"#);
//! let back: DataMap<Id24_8> = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, sheets);
//! # }
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::component::DataComponent;
use super::key::{key_of_text, Key};
use super::map::DataMap;
use super::named::NamedMap;
use super::names::KeyNames;
use super::value::Value;
use super::view::DataRef;
use crate::id::{Id, IdBits};
use crate::table::serde::bytes_of_seq;

impl Serialize for DataComponent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.as_bytes())
    }
}

impl<'de> Deserialize<'de> for DataComponent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ComponentBytes;

        impl<'de> Visitor<'de> for ComponentBytes {
            type Value = DataComponent;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the bytes of a DataComponent")
            }

            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<DataComponent, E> {
                DataComponent::from_bytes(bytes).map_err(E::custom)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<DataComponent, A::Error> {
                // Formats without a bytes type (JSON) write a list of numbers.
                self.visit_bytes(&bytes_of_seq(seq)?)
            }
        }

        deserializer.deserialize_bytes(ComponentBytes)
    }
}

impl<K: Id> Serialize for DataMap<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        save(self, None, serializer)
    }
}

impl<K: Id> Serialize for NamedMap<'_, K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        save(self.map, Some(self.names), serializer)
    }
}

/// Saves `map`: its compact bytes in binary formats, a map from id bits to
/// entity data in human-readable ones (keys by name where `names` has one
/// that reads back as the key).
fn save<K: Id, S: Serializer>(
    map: &DataMap<K>,
    names: Option<&KeyNames>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if serializer.is_human_readable() {
        serializer.collect_map(
            map.iter()
                .map(|(id, data)| (id.to_bits().to_u64(), Entity { data, names })),
        )
    } else {
        serializer.serialize_bytes(&map.to_bytes())
    }
}

/// One entity's data as a map from key text to plain values.
struct Entity<'a> {
    data: DataRef<'a>,
    names: Option<&'a KeyNames>,
}

impl Serialize for Entity<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.data.iter().map(|(key, value)| {
            let name = self
                .names
                .and_then(|names| names.name(key))
                .filter(|name| key_of_text(name) == Ok(key));
            (KeyText { key, name }, Plain(value))
        }))
    }
}

/// A key as its name, or as `"0x…"`.
struct KeyText<'a> {
    key: Key,
    name: Option<&'a str>,
}

impl Serialize for KeyText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.name {
            Some(name) => serializer.serialize_str(name),
            None => serializer.collect_str(&format_args!("{:#010x}", self.key.to_hash())),
        }
    }
}

/// A value as the format's own bool, number, string or sequence.
struct Plain<'a>(Value<'a>);

impl Serialize for Plain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Bool(b) => serializer.serialize_bool(b),
            Value::Float(x) => serializer.serialize_f32(x),
            Value::Int(x) => serializer.serialize_i32(x),
            Value::Str(s) => serializer.serialize_str(s),
            Value::Floats(xs) => serializer.collect_seq(xs),
        }
    }
}

impl<'de, K: Id> Deserialize<'de> for DataMap<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_map(MapVisitor(PhantomData))
        } else {
            deserializer.deserialize_bytes(BytesVisitor(PhantomData))
        }
    }
}

struct BytesVisitor<K>(PhantomData<K>);

impl<'de, K: Id> Visitor<'de> for BytesVisitor<K> {
    type Value = DataMap<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of a DataMap")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<DataMap<K>, E> {
        DataMap::from_bytes(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<DataMap<K>, A::Error> {
        self.visit_bytes(&bytes_of_seq(seq)?)
    }
}

struct MapVisitor<K>(PhantomData<K>);

impl<'de, K: Id> Visitor<'de> for MapVisitor<K> {
    type Value = DataMap<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map from id bits to entity data")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<DataMap<K>, A::Error> {
        let mut map = DataMap::new();
        while let Some(bits) = access.next_key::<u64>()? {
            let id = K::from_bits(<K::Bits as IdBits>::from_u64_truncating(bits))
                .filter(|id| id.to_bits().to_u64() == bits)
                .ok_or_else(|| de::Error::custom(format_args!("{bits} is not an id of the map")))?;
            if map.contains(id) {
                return Err(de::Error::custom(format_args!("id {bits} is listed twice")));
            }
            let entries: Entries = access.next_value()?;
            if entries.0.is_empty() {
                map.insert(id, &DataComponent::new())
                    .map_err(de::Error::custom)?;
            }
            for (key, value) in &entries.0 {
                // By name and by hash, or two names of one hash: one key.
                if map.get(id, *key).is_some() {
                    return Err(de::Error::custom(format_args!(
                        "key {:#010x} is listed twice for id {bits}",
                        key.to_hash()
                    )));
                }
                map.set(id, *key, value.as_value())
                    .map_err(de::Error::custom)?;
            }
        }
        Ok(map)
    }
}

/// One entity's entries, read from a map of key text to plain values.
struct Entries(Vec<(Key, Owned)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;

        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from keys (\"0x\" and 8 hex digits, or a path) to values")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(KeyOfText(key)) = access.next_key()? {
                    entries.push((key, access.next_value::<Owned>()?));
                }
                Ok(Entries(entries))
            }
        }

        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// A key read from its text ([`key_of_text`]): a hash or a path. Reads
/// borrowed or transient text without copying it.
struct KeyOfText(Key);

impl<'de> Deserialize<'de> for KeyOfText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl Visitor<'_> for KeyVisitor {
            type Value = KeyOfText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key: \"0x\" and 8 hex digits, or a path like \"stats.health\"")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<KeyOfText, E> {
                key_of_text(text)
                    .map(KeyOfText)
                    .map_err(|why| E::custom(format_args!("key {:?} {why}", Clipped(text))))
            }
        }

        deserializer.deserialize_str(KeyVisitor)
    }
}

/// At most the first 40 characters of a text, for error messages about
/// input of any length.
struct Clipped<'a>(&'a str);

impl fmt::Debug for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(40) {
            Some((end, _)) => write!(f, "{:?}...", &self.0[..end]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

/// A value read from a human-readable format.
enum Owned {
    Bool(bool),
    Float(f32),
    Int(i32),
    Str(String),
    Floats(Vec<f32>),
}

impl Owned {
    fn as_value(&self) -> Value<'_> {
        match self {
            Owned::Bool(b) => Value::Bool(*b),
            Owned::Float(x) => Value::Float(*x),
            Owned::Int(x) => Value::Int(*x),
            Owned::Str(s) => Value::Str(s),
            Owned::Floats(xs) => Value::Floats(xs),
        }
    }
}

impl<'de> Deserialize<'de> for Owned {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OwnedVisitor;

        impl<'de> Visitor<'de> for OwnedVisitor {
            type Value = Owned;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a bool, an i32, a float, a string or a sequence of floats")
            }

            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Owned, E> {
                Ok(Owned::Bool(b))
            }

            fn visit_i64<E: de::Error>(self, x: i64) -> Result<Owned, E> {
                i32::try_from(x)
                    .map(Owned::Int)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(x), &self))
            }

            fn visit_u64<E: de::Error>(self, x: u64) -> Result<Owned, E> {
                i32::try_from(x)
                    .map(Owned::Int)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(x), &self))
            }

            fn visit_f64<E: de::Error>(self, x: f64) -> Result<Owned, E> {
                Ok(Owned::Float(x as f32))
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<Owned, E> {
                Ok(Owned::Str(s.into()))
            }

            fn visit_string<E: de::Error>(self, s: String) -> Result<Owned, E> {
                Ok(Owned::Str(s))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Owned, A::Error> {
                let mut xs = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 14));
                while let Some(x) = seq.next_element::<f32>()? {
                    xs.push(x);
                }
                Ok(Owned::Floats(xs))
            }
        }

        deserializer.deserialize_any(OwnedVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id24_8, Id32_32};

    fn sample() -> DataMap<Id32_32> {
        let mut map = DataMap::new();
        for i in 0..4 {
            let id = Id32_32::new(i * 5, 3).unwrap();
            map.set(id, "name", "Aria").unwrap();
            map.set(id, "hp", 9.5_f32).unwrap();
            map.set(id, "level", -(i as i32)).unwrap();
            map.set(id, "flag", i % 2 == 0).unwrap();
            map.set(id, "xs", &[1.0_f32, 2.5]).unwrap();
            map.set(id, "whole", 2.0_f32).unwrap();
        }
        map.insert(Id32_32::new(99, 1).unwrap(), &DataComponent::new())
            .unwrap();
        map
    }

    #[test]
    fn json_is_a_readable_map_that_keeps_every_type() {
        let map = sample();
        let json = serde_json::to_value(&map).unwrap();
        let first = &json[(3_u64 << 32).to_string()];
        assert_eq!(
            first[format!("{:#010x}", Key::new("name").to_hash())],
            "Aria"
        );
        assert_eq!(first[format!("{:#010x}", Key::new("level").to_hash())], 0);
        assert_eq!(first[format!("{:#010x}", Key::new("whole").to_hash())], 2.0);
        let back: DataMap<Id32_32> = serde_json::from_value(json).unwrap();
        assert_eq!(back, map);
        for id in map.ids() {
            assert_eq!(back.get_i32(*id, "level"), map.get_i32(*id, "level"));
            assert_eq!(back.get_f32(*id, "whole"), map.get_f32(*id, "whole"));
        }
        assert_eq!(
            back.get_f32(Id32_32::new(5, 3).unwrap(), "whole"),
            Some(2.0)
        );
    }

    #[test]
    fn binary_formats_get_the_exact_bytes() {
        let map = sample();
        let bytes = postcard::to_allocvec(&map).unwrap();
        let back: DataMap<Id32_32> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.as_bytes(), map.as_bytes());
        // Corrupt bytes are the format's error, not a panic.
        let mut corrupt = bytes.clone();
        let version = corrupt.len() - map.as_bytes().len();
        corrupt[version] = 9;
        assert!(postcard::from_bytes::<DataMap<Id32_32>>(&corrupt).is_err());
    }

    #[test]
    fn bad_human_readable_input_is_an_error() {
        let bad = [
            r#"{"5":{}}"#,                               // generation 0
            r#"{"16777217":{"0x1234":1}}"#,              // key too short
            r#"{"16777217":{"a..b":1}}"#,                // empty segment
            r#"{"16777217":{"name":1,"0xbfa11ba6":2}}"#, // one key twice
            r#"{"16777217":{"0x00001234":{}}}"#,         // value not a value
            r#"{"16777217":{"0x00001234":5000000000}}"#, // past i32
            r#"{"16777217":{},"16777217":{}}"#,          // listed twice
            r#"{"33554433":{},"16777217":{}}"#,          // stale after newer
        ];
        for text in bad {
            assert!(
                serde_json::from_str::<DataMap<Id24_8>>(text).is_err(),
                "{text}"
            );
        }
        let ok: DataMap<Id24_8> = serde_json::from_str(r#"{"16777217":{}}"#).unwrap();
        assert!(ok.contains(Id24_8::new(1, 1).unwrap()));
        // A key that is not a hash is a path.
        let ok: DataMap<Id24_8> =
            serde_json::from_str(r#"{"16777217":{"name":1,"stats.hp":2}}"#).unwrap();
        let id = Id24_8::new(1, 1).unwrap();
        assert_eq!(ok.get_i32(id, "name"), Some(1));
        assert_eq!(ok.get_i32(id, Key::path(&["stats", "hp"])), Some(2));
    }

    #[test]
    fn data_components_are_their_bytes() {
        let mut data = DataComponent::new();
        data.set("hp", 7.0f32).unwrap();
        data.set("name", "Aria").unwrap();
        for encoded in [
            serde_json::to_vec(&data).unwrap(),
            postcard::to_allocvec(&data).unwrap(),
        ] {
            let back: DataComponent = if encoded.first() == Some(&b'[') {
                serde_json::from_slice(&encoded).unwrap()
            } else {
                postcard::from_bytes(&encoded).unwrap()
            };
            assert_eq!(back.as_bytes(), data.as_bytes());
        }
        let err = serde_json::from_str::<DataComponent>("[1,2,3]").unwrap_err();
        assert!(!err.to_string().is_empty());
    }
}
