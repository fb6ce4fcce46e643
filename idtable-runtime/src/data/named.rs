//! [`NamedMap`]: a [`DataMap`] shown and saved with a [`KeyNames`] table,
//! from [`DataMap::named`]. Above both the map and the names, so neither
//! imports the other.

use core::fmt;

use super::map::DataMap;
use super::names::KeyNames;
use crate::id::Id;

impl<K: Id> DataMap<K> {
    /// The map with a [`KeyNames`] table, for people: its `Debug` shows
    /// keys by name, and (feature `serde`) human-readable formats write each
    /// key whose name `names` knows as that name (`"stats.health"`), the
    /// others as their hash (`"0x5953e0d5"`). Loading takes both forms back
    /// with the plain `DataMap` `Deserialize`, without the table: a name is
    /// a path, hashed again. See [`NamedMap`] for the rules.
    ///
    /// ```
    /// use idtable::data::{DataMap, Key, KeyNames};
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, Key::path(&["stats", "health"]), 40.0_f32)?;
    /// let names = KeyNames::new().with(&["stats", "health"]);
    /// let shown = format!("{:?}", sheets.named(&names));
    /// assert_eq!(shown, format!("DataMap {{{id:?}: {{stats.health: Float(40.0)}}}}"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn named<'a>(&'a self, names: &'a KeyNames) -> NamedMap<'a, K> {
        NamedMap::new(self, names)
    }
}

/// A [`DataMap`] with a [`KeyNames`] table, from [`DataMap::named`]: keys
/// are shown, and saved in human-readable formats, by name.
///
/// * `Debug` is the map's, with each key that `names` knows shown by name
///   (as [`KeyNames::debug`] shows one entity).
/// * `Serialize` (feature `serde`): in human-readable formats (JSON…) the
///   map's own form, a map from id bits to each entity's data, except that
///   a key whose name `names` knows is written as that name
///   (`"stats.health"`) instead of its hash (`"0x5953e0d5"`). Binary
///   formats get the map's compact bytes ([`DataMap::to_bytes`]); names
///   are not part of them.
///
/// Loading needs no table: the plain `DataMap` `Deserialize` reads a key
/// text that is `0x` and 8 hex digits as a hash, and any other text as a
/// path whose segments are separated by `.`, hashed as [`Key::path`](super::Key::path)
/// hashes them. It refuses the empty text, any other text that starts
/// with `0x` or `0X`, a path with an empty segment (`"a..b"`, `"a."`), and
/// a key listed twice in one entity (by name and by hash, say).
///
/// So a name is written only when it reads back as its key; these keys
/// are written as hashes whatever `names` says: a path with a segment
/// that holds a `.` (`Key::new("a.b")` would read back as the path `a`,
/// `b`), with an empty segment, or whose first segment starts with `0x`
/// or `0X`, and the empty path.
///
/// ```
/// use idtable::data::{DataMap, Key, KeyNames};
/// use idtable::Id24_8;
///
/// let id = Id24_8::new(1, 1).unwrap();
/// let mut sheets: DataMap<Id24_8> = DataMap::new();
/// sheets.set(id, Key::path(&["stats", "health"]), 40.0_f32)?;
/// sheets.set(id, "level", 3)?;
/// sheets.set(id, "a.b", true)?; // one segment holding a dot
/// let names = KeyNames::new().with(&["stats", "health"]).with(&["a.b"]);
/// let shown = format!("{:?}", sheets.named(&names));
/// assert!(shown.contains("stats.health: Float(40.0)"), "{shown}");
///
/// # #[cfg(feature = "serde")] {
/// let json = serde_json::to_string(&sheets.named(&names)).unwrap();
/// assert_eq!(
///     json,
///     format!(
///         r#"{{"16777217":{{"stats.health":40.0,"{:#010x}":3,"{:#010x}":true}}}}"#,
///         Key::new("level").to_hash(),
///         Key::new("a.b").to_hash(),
///     )
/// );
/// let back: DataMap<Id24_8> = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, sheets);
/// # }
/// # Ok::<(), idtable::data::DataError>(())
/// ```
pub struct NamedMap<'a, K: Id> {
    pub(super) map: &'a DataMap<K>,
    pub(super) names: &'a KeyNames,
}

impl<'a, K: Id> NamedMap<'a, K> {
    fn new(map: &'a DataMap<K>, names: &'a KeyNames) -> Self {
        NamedMap { map, names }
    }
}

impl<K: Id> Clone for NamedMap<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Id> Copy for NamedMap<'_, K> {}

impl<K: Id> fmt::Debug for NamedMap<'_, K> {
    /// The map's `Debug`, keys by name where `names` knows them.
    ///
    /// ```
    /// use idtable::data::{DataMap, KeyNames};
    /// use idtable::Id24_8;
    ///
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// let names = KeyNames::new().with(&["hp"]);
    /// assert_eq!(format!("{:?}", sheets.named(&names)), "DataMap {}");
    /// sheets.set(Id24_8::new(0, 1).unwrap(), "hp", 3)?;
    /// assert!(format!("{:?}", sheets.named(&names)).ends_with(": {hp: Int(3)}}"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DataMap ")?;
        f.debug_map()
            .entries(
                self.map
                    .iter()
                    .map(|(id, data)| (id, self.names.debug(data))),
            )
            .finish()
    }
}
