//! `Serialize`/`Deserialize` for [`Id32`] and [`Id64`] (feature `serde`):
//! an id is its bits (a `u32` or a `u64`); bits with generation 0 are
//! refused.

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::{Id, Id32, Id64};

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

#[cfg(test)]
mod tests {
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
}
