//! `Serialize`/`Deserialize` (feature `serde`) for the runtime's types.
//!
//! * [`Id32`]/[`Id64`] are their bits (a `u32`/`u64`); bits with
//!   generation 0 are refused.
//! * [`IdTable`] is its [`IdTableParts`] (`slots`, `dense`, `free`), checked
//!   by [`IdTable::from_parts`] on the way in, with the default
//!   [`TableConfig`]. For another configuration deserialize
//!   [`IdTableParts`] and call [`IdTable::from_parts`].
//! * [`DataComponent`] is its bytes ([`DataComponent::as_bytes`]), checked
//!   by [`DataComponent::from_bytes`] on the way in.
//!
//! A derived allocator opts in with `#[soa(serde)]`; see the facade's docs.

use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::data::DataComponent;
use crate::id::{Id, Id32, Id64};
use crate::table::{IdTable, IdTableParts, TableConfig};

macro_rules! id_serde {
    ($name:ident, $bits:ty) => {
        impl<const INDEX_BITS: u32> Serialize for $name<INDEX_BITS> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.to_bits().serialize(serializer)
            }
        }

        impl<'de, const INDEX_BITS: u32> Deserialize<'de> for $name<INDEX_BITS> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let bits = <$bits>::deserialize(deserializer)?;
                Self::from_bits(bits).ok_or_else(|| {
                    de::Error::invalid_value(
                        de::Unexpected::Unsigned(bits.into()),
                        &"id bits with a generation of at least 1",
                    )
                })
            }
        }
    };
}

id_serde!(Id32, u32);
id_serde!(Id64, u64);

/// A sequence written from an iterator made on demand, so a table is
/// serialized without copying its lists.
struct SeqOf<F>(F);

impl<F, It> Serialize for SeqOf<F>
where
    F: Fn() -> It,
    It: ExactSizeIterator<Item = u64>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

impl<I: Id> Serialize for IdTable<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut st = serializer.serialize_struct("IdTable", 3)?;
        st.serialize_field("slots", &SeqOf(|| self.slot_generations()))?;
        st.serialize_field(
            "dense",
            &SeqOf(|| self.ids().iter().map(|id| id.index() as u64)),
        )?;
        st.serialize_field("free", &SeqOf(|| self.free_slots()))?;
        st.end()
    }
}

impl<'de, I: Id> Deserialize<'de> for IdTable<I> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = IdTableParts::deserialize(deserializer)?;
        IdTable::from_parts(&parts, TableConfig::default()).map_err(de::Error::custom)
    }
}

impl Serialize for DataComponent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.as_bytes())
    }
}

impl<'de> Deserialize<'de> for DataComponent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;

        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = DataComponent;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the bytes of a DataComponent")
            }

            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<DataComponent, E> {
                DataComponent::from_bytes(bytes).map_err(E::custom)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DataComponent, A::Error> {
                // Formats without a bytes type (JSON) write a list of numbers.
                // The size hint is untrusted: cap the preallocation.
                let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                self.visit_bytes(&bytes)
            }
        }

        deserializer.deserialize_bytes(BytesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id24_8, Id32_32};

    #[test]
    fn ids_are_their_bits() {
        let id = Id24_8::new(5, 3).unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, (3u32 << 24 | 5).to_string());
        assert_eq!(serde_json::from_str::<Id24_8>(&json).unwrap(), id);
        let wide = Id32_32::new(7, 9).unwrap();
        let bytes = postcard::to_allocvec(&wide).unwrap();
        assert_eq!(postcard::from_bytes::<Id32_32>(&bytes).unwrap(), wide);
    }

    #[test]
    fn ids_with_generation_zero_are_refused() {
        let err = serde_json::from_str::<Id24_8>("5").unwrap_err();
        assert!(
            err.to_string().contains("generation of at least 1"),
            "{err}"
        );
        assert!(serde_json::from_str::<Id24_8>("-1").is_err());
        assert!(serde_json::from_str::<Id24_8>("4294967296").is_err());
    }

    #[test]
    fn tables_round_trip_and_refuse_bad_parts() {
        let mut t = IdTable::<Id24_8>::new();
        let ids: Vec<_> = (0..5).map(|_| t.insert().0).collect();
        t.remove(ids[1]);
        t.remove(ids[3]);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            r#"{"slots":[1,1,1,1,1],"dense":[0,4,2],"free":[1,3]}"#
        );
        let mut back: IdTable<Id24_8> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.ids(), t.ids());
        assert_eq!(back.insert(), t.insert());
        let bytes = postcard::to_allocvec(&t).unwrap();
        let back: IdTable<Id24_8> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.to_parts(), t.to_parts());

        let err =
            serde_json::from_str::<IdTable<Id24_8>>(r#"{"slots":[1,1],"dense":[0,1],"free":[1]}"#)
                .unwrap_err();
        assert!(err.to_string().contains("slot 1 is listed twice"), "{err}");
        let err = serde_json::from_str::<IdTable<Id24_8>>(
            r#"{"slots":[1],"dense":[0],"free":[],"extra":1}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
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
