//! `Serialize`/`Deserialize` for [`IdTable`] (feature `serde`).
//!
//! A table is its [`IdTableParts`] (`slots`, `dense`, `free`), checked by
//! [`IdTable::from_parts`] on the way in, with the default [`TableConfig`].
//! For another configuration deserialize [`IdTableParts`] and call
//! [`IdTable::from_parts`]. Each list is a sequence of numbers in
//! human-readable formats (JSON) and one byte string of fixed-width numbers
//! in binary ones (see [`u64_list`]).

use alloc::vec::Vec;

use serde::de::{self, Deserialize, Deserializer, SeqAccess};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::id::Id;
use crate::table::{IdTable, IdTableParts, TableConfig};

/// The saved form of one list of an id table (`slots`, `dense`, `free`).
///
/// In a human-readable format (`Serializer::is_human_readable`, as JSON) a
/// list is a sequence of numbers, so a saved table can be read and edited
/// by hand. In a binary format (postcard, bincode, CBOR…) it is one byte
/// string: nothing for an empty list, else one byte giving the width `w`
/// (1, 2, 4 or 8) and then every number as `w` little-endian bytes, `w`
/// the fewest that hold the largest number. Generations are small and
/// dense slots below the table's size, so a list takes about as many bytes
/// as varints would (1 a generation, 2 a slot in tables of up to 65,536),
/// and loading copies each number out in one loop over fixed-size chunks
/// instead of one call through serde per number, which made the table's
/// lists most of what loading an allocator cost beyond its columns (`load`
/// in benches/NOTES.md).
///
/// Decoding refuses a width other than those four, bytes that do not split
/// into whole numbers, and a width wider than the largest number needs, so
/// every list has one encoding and what loads saves back to the same bytes.
pub(crate) mod u64_list {
    use alloc::vec::Vec;
    use core::fmt;

    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::Serializer;

    /// The fewest bytes that hold `max`: 1, 2, 4 or 8.
    fn width_for(max: u64) -> usize {
        match max {
            0..=0xff => 1,
            0x100..=0xffff => 2,
            0x1_0000..=0xffff_ffff => 4,
            _ => 8,
        }
    }

    /// The list's bytes: its width, then each number in that many bytes.
    /// The width is that of the OR of all numbers (the same highest bit as
    /// their maximum; the OR vectorises).
    pub(crate) fn encode<It: ExactSizeIterator<Item = u64>>(values: impl Fn() -> It) -> Vec<u8> {
        let count = values().len();
        if count == 0 {
            return Vec::new();
        }
        let width = width_for(values().fold(0, |acc, v| acc | v));
        let mut out = alloc::vec![0; 1 + count * width];
        out[0] = width as u8;
        let body = &mut out[1..];
        match width {
            1 => fill::<1>(body, values()),
            2 => fill::<2>(body, values()),
            4 => fill::<4>(body, values()),
            _ => fill::<8>(body, values()),
        }
        out
    }

    /// Writes each of `values` as `W` little-endian bytes into `body`.
    fn fill<const W: usize>(body: &mut [u8], values: impl Iterator<Item = u64>) {
        for (bytes, value) in body.chunks_exact_mut(W).zip(values) {
            bytes.copy_from_slice(&value.to_le_bytes()[..W]);
        }
    }

    /// Why a list's bytes were refused.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum ListError {
        /// The first byte is not 1, 2, 4 or 8.
        BadWidth(u8),
        /// The bytes after the width are not a whole number of numbers, or
        /// there are none.
        Length,
        /// The largest number fits in fewer bytes than the width.
        TooWide,
    }

    impl fmt::Display for ListError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                ListError::BadWidth(w) => write!(
                    f,
                    "a table list's numbers are {w} bytes wide; expected 1, 2, 4 or 8"
                ),
                ListError::Length => {
                    f.write_str("a table list's bytes are not a whole, non-zero number of numbers")
                }
                ListError::TooWide => {
                    f.write_str("a table list's numbers are wider than its largest number needs")
                }
            }
        }
    }

    /// The numbers of `body`, each `W` little-endian bytes (`body` splits
    /// into whole numbers).
    fn numbers<const W: usize>(body: &[u8]) -> Vec<u64> {
        body.chunks_exact(W)
            .map(|chunk| {
                let mut le = [0u8; 8];
                le[..W].copy_from_slice(chunk);
                u64::from_le_bytes(le)
            })
            .collect()
    }

    /// The numbers of `bytes`, or why they are not a list.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<u64>, ListError> {
        let Some((&width, body)) = bytes.split_first() else {
            return Ok(Vec::new());
        };
        let w = usize::from(width);
        if !matches!(w, 1 | 2 | 4 | 8) {
            return Err(ListError::BadWidth(width));
        }
        if body.is_empty() || body.len() % w != 0 {
            return Err(ListError::Length);
        }
        let values = match w {
            1 => numbers::<1>(body),
            2 => numbers::<2>(body),
            4 => numbers::<4>(body),
            _ => numbers::<8>(body),
        };
        // The width is the fewest bytes when some number needs more than
        // half of it (an OR of all of them, which vectorises, not a max).
        let any_bits = values.iter().fold(0, |acc, &v| acc | v);
        if w > 1 && any_bits >> (4 * w) == 0 {
            return Err(ListError::TooWide);
        }
        Ok(values)
    }

    /// Writes `values` in the list form `serializer` wants.
    pub(crate) fn serialize_iter<S, It>(
        values: impl Fn() -> It,
        serializer: S,
    ) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        It: ExactSizeIterator<Item = u64>,
    {
        if serializer.is_human_readable() {
            serializer.collect_seq(values())
        } else {
            serializer.serialize_bytes(&encode(values))
        }
    }

    /// For `#[serde(with = ...)]` on a `Vec<u64>` list.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u64>, D::Error> {
        if deserializer.is_human_readable() {
            return <Vec<u64> as serde::Deserialize>::deserialize(deserializer);
        }

        struct ListVisitor;

        impl<'de> Visitor<'de> for ListVisitor {
            type Value = Vec<u64>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the bytes of a table list (a width, then little-endian numbers)")
            }

            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u64>, E> {
                decode(bytes).map_err(E::custom)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<u64>, A::Error> {
                // A binary format without a bytes type writes them as a
                // sequence of `u8`.
                self.visit_bytes(&super::bytes_of_seq(seq)?)
            }
        }

        deserializer.deserialize_bytes(ListVisitor)
    }
}

/// The bytes of a format that writes a byte string as a sequence of `u8`.
/// The size hint is untrusted: the preallocation is capped.
pub(crate) fn bytes_of_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<u8>, A::Error> {
    let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
    while let Some(b) = seq.next_element::<u8>()? {
        bytes.push(b);
    }
    Ok(bytes)
}

/// A list written from an iterator made on demand, so a table is
/// serialized without copying its lists.
struct ListOf<F>(F);

impl<F, It> Serialize for ListOf<F>
where
    F: Fn() -> It,
    It: ExactSizeIterator<Item = u64>,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        u64_list::serialize_iter(&self.0, serializer)
    }
}

impl<I: Id> Serialize for IdTable<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.reserved_len() > 0 {
            // Reserved ids are saved spent (see `IdTable::to_parts`): the
            // loaded table never issues them.
            return self.to_parts().serialize(serializer);
        }
        // With no reservation waiting, the tail is all spent.
        let spent_tail = (self.slot_count() - self.slots.len()) as u64;
        let n = field_count(serializer.is_human_readable(), spent_tail);
        let mut st = serializer.serialize_struct("IdTable", n)?;
        st.serialize_field("slots", &ListOf(|| self.slot_generations()))?;
        st.serialize_field(
            "dense",
            &ListOf(|| self.ids().iter().map(|id| id.index() as u64)),
        )?;
        st.serialize_field("free", &ListOf(|| self.free_slots()))?;
        if n == 4 {
            st.serialize_field("spent_tail", &spent_tail)?;
        }
        st.end()
    }
}

/// How many fields a saved table writes: `spent_tail` is left out of
/// human-readable formats while it is 0 (a load reads it as 0 then), and
/// always written in binary ones, whose structs carry no field names.
fn field_count(human_readable: bool, spent_tail: u64) -> usize {
    if human_readable && spent_tail == 0 {
        3
    } else {
        4
    }
}

impl Serialize for IdTableParts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let n = field_count(serializer.is_human_readable(), self.spent_tail);
        let mut st = serializer.serialize_struct("IdTable", n)?;
        st.serialize_field("slots", &ListOf(|| self.slots.iter().copied()))?;
        st.serialize_field("dense", &ListOf(|| self.dense.iter().copied()))?;
        st.serialize_field("free", &ListOf(|| self.free.iter().copied()))?;
        if n == 4 {
            st.serialize_field("spent_tail", &self.spent_tail)?;
        }
        st.end()
    }
}

impl<'de, I: Id> Deserialize<'de> for IdTable<I> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let parts = IdTableParts::deserialize(deserializer)?;
        IdTable::from_parts(&parts, TableConfig::default()).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::Id24_8;

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
    fn table_lists_are_fixed_width_bytes_in_binary_formats() {
        use super::u64_list::{decode, encode, ListError};

        let enc = |values: &[u64]| encode(|| values.iter().copied());
        assert_eq!(enc(&[]), Vec::<u8>::new());
        assert_eq!(enc(&[0, 1, 255]), [1, 0, 1, 255]);
        assert_eq!(enc(&[1, 256]), [2, 1, 0, 0, 1]);
        assert_eq!(enc(&[0x1_0000]), [4, 0, 0, 1, 0]);
        assert_eq!(
            enc(&[u64::MAX]),
            [8, 255, 255, 255, 255, 255, 255, 255, 255]
        );
        for values in [
            &[][..],
            &[0, 1, 255],
            &[300, 0],
            &[70_000, 1],
            &[u64::from(u32::MAX) + 1, 7],
        ] {
            assert_eq!(decode(&enc(values)).unwrap(), values);
        }

        assert_eq!(decode(&[3, 1, 2, 3]), Err(ListError::BadWidth(3)));
        assert_eq!(decode(&[0]), Err(ListError::BadWidth(0)));
        assert_eq!(decode(&[1]), Err(ListError::Length));
        assert_eq!(decode(&[2, 1, 0, 1]), Err(ListError::Length));
        assert_eq!(decode(&[2, 1, 0, 255, 0]), Err(ListError::TooWide));
        assert_eq!(
            decode(&[8, 1, 0, 0, 0, 0, 0, 0, 0]),
            Err(ListError::TooWide)
        );
        for e in [
            ListError::BadWidth(3),
            ListError::Length,
            ListError::TooWide,
        ] {
            assert!(e.to_string().contains("table list"), "{e}");
        }
    }

    #[test]
    fn table_lists_decode_every_encoding_and_nothing_else() {
        use super::u64_list::{decode, encode};
        use proptest::prelude::*;

        let config = crate::testing::proptest_config(256, 8);
        let any_value = prop_oneof![0u64..300, 0u64..70_000, any::<u64>()];
        proptest!(config.clone(), |(values in proptest::collection::vec(any_value, 0..40))| {
            let bytes = encode(|| values.iter().copied());
            prop_assert_eq!(decode(&bytes).unwrap(), values);
        });
        // Any bytes: decoded, they encode back to the same bytes, or are refused.
        let width_first = (
            prop_oneof![Just(1u8), Just(2), Just(4), Just(8), any::<u8>()],
            proptest::collection::vec(any::<u8>(), 0..40),
        );
        proptest!(config, |((width, mut bytes) in width_first)| {
            bytes.insert(0, width);
            if let Ok(values) = decode(&bytes) {
                prop_assert_eq!(encode(|| values.iter().copied()), bytes);
            }
        });
    }

    #[test]
    fn table_parts_are_lists_of_numbers_in_json_and_bytes_in_postcard() {
        let parts = IdTableParts {
            slots: vec![1, 2, 300],
            dense: vec![2, 0],
            free: vec![1],
            spent_tail: 0,
        };
        let json = serde_json::to_string(&parts).unwrap();
        assert_eq!(json, r#"{"slots":[1,2,300],"dense":[2,0],"free":[1]}"#);
        assert_eq!(serde_json::from_str::<IdTableParts>(&json).unwrap(), parts);
        let bytes = postcard::to_allocvec(&parts).unwrap();
        // Each list after its length in bytes: slots 2 bytes wide (300 needs
        // two), dense and free 1 byte wide; then `spent_tail`, a varint.
        assert_eq!(
            bytes,
            [7, 2, 1, 0, 2, 0, 0x2c, 0x01, 3, 1, 2, 0, 2, 1, 1, 0]
        );
        assert_eq!(postcard::from_bytes::<IdTableParts>(&bytes).unwrap(), parts);
        // A spent tail is one number, in JSON too once it is not 0.
        let tail = IdTableParts {
            spent_tail: 1 << 40,
            ..parts.clone()
        };
        let json = serde_json::to_string(&tail).unwrap();
        assert_eq!(
            json,
            r#"{"slots":[1,2,300],"dense":[2,0],"free":[1],"spent_tail":1099511627776}"#
        );
        assert_eq!(serde_json::from_str::<IdTableParts>(&json).unwrap(), tail);
        let bytes = postcard::to_allocvec(&tail).unwrap();
        assert_eq!(bytes.len(), 15 + 6);
        assert_eq!(postcard::from_bytes::<IdTableParts>(&bytes).unwrap(), tail);
        // A table saves the same bytes as its parts.
        let mut t = IdTable::<Id24_8>::new();
        let (a, _) = t.insert();
        t.insert();
        t.remove(a);
        assert_eq!(
            postcard::to_allocvec(&t).unwrap(),
            postcard::to_allocvec(&t.to_parts()).unwrap()
        );
        let err = postcard::from_bytes::<IdTableParts>(&[2, 3, 1, 0, 0]).unwrap_err();
        assert!(!err.to_string().is_empty());
    }
}
