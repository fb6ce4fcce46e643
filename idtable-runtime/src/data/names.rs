//! [`KeyNames`]: the paths behind key hashes, for display.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::fmt;

use super::key::Key;
use super::view::DataRef;

/// A table from [`Key`]s back to the paths they were made from, for showing
/// data to people. Keys are hashes (the strings are not stored in the
/// data), so `Debug` of a key is `Key(0xbfa11ba6)`; a `KeyNames` built from
/// the same paths as the keys turns that back into `name` or
/// `stats.health` (segments joined with `.`).
///
/// ```
/// use idtable::data::{DataComponent, Key, KeyNames};
///
/// const HEALTH: Key = Key::path(&["stats", "health"]);
/// let mut names = KeyNames::new();
/// assert_eq!(names.add(&["stats", "health"]), HEALTH);
/// names.add(&["name"]);
///
/// assert_eq!(names.name(HEALTH), Some("stats.health"));
/// assert_eq!(names.show(HEALTH).to_string(), "stats.health");
/// let other = Key::new("other");
/// assert_eq!(names.show(other).to_string(), format!("{other:?}"));
///
/// let mut sheet = DataComponent::new();
/// sheet.set(HEALTH, 100.0_f32)?;
/// assert_eq!(format!("{:?}", names.debug(sheet.view())), "{stats.health: Float(100.0)}");
/// # Ok::<(), idtable::data::DataError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyNames {
    names: BTreeMap<Key, String>,
}

impl KeyNames {
    /// An empty table.
    ///
    /// ```
    /// use idtable::data::KeyNames;
    /// assert!(KeyNames::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        KeyNames {
            names: BTreeMap::new(),
        }
    }

    /// Adds the path `segments` (as [`Key::path`] takes it) and returns its
    /// key. A later path with the same key replaces the earlier name.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let mut names = KeyNames::new();
    /// let drunk = names.add(&["status_effects", "drunk"]);
    /// assert_eq!(drunk, Key::new("status_effects").join("drunk"));
    /// assert_eq!(names.len(), 1);
    /// ```
    pub fn add(&mut self, segments: &[&str]) -> Key {
        let key = Key::path(segments);
        self.names.insert(key, segments.join("."));
        key
    }

    /// The table with the path `segments` added, for building in one
    /// expression.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let names = KeyNames::new().with(&["name"]).with(&["stats", "mana"]);
    /// assert_eq!(names.name(Key::path(&["stats", "mana"])), Some("stats.mana"));
    /// ```
    #[must_use]
    pub fn with(mut self, segments: &[&str]) -> Self {
        self.add(segments);
        self
    }

    /// The name of `key`, if its path was added.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let names = KeyNames::new().with(&["name"]);
    /// assert_eq!(names.name(Key::new("name")), Some("name"));
    /// assert_eq!(names.name(Key::new("nope")), None);
    /// ```
    #[must_use]
    pub fn name(&self, key: Key) -> Option<&str> {
        self.names.get(&key).map(String::as_str)
    }

    /// The key whose name is `name` (segments joined with `.`), if it was
    /// added.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let names = KeyNames::new().with(&["stats", "hp"]);
    /// assert_eq!(names.key_of("stats.hp"), Some(Key::path(&["stats", "hp"])));
    /// assert_eq!(names.key_of("hp"), None);
    /// ```
    #[must_use]
    pub fn key_of(&self, name: &str) -> Option<Key> {
        self.names
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(&k, _)| k)
    }

    /// Number of names.
    ///
    /// ```
    /// use idtable::data::KeyNames;
    /// assert_eq!(KeyNames::new().with(&["a"]).with(&["b"]).len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no names.
    ///
    /// ```
    /// use idtable::data::KeyNames;
    /// assert!(!KeyNames::new().with(&["a"]).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// `key` for display (`Display` and `Debug`): its name if it has one,
    /// else its hash as `Key(0x…)`.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let names = KeyNames::new().with(&["name"]);
    /// assert_eq!(format!("{}", names.show(Key::new("name"))), "name");
    /// assert_eq!(format!("{:?}", names.show(Key::from_hash(1))), "Key(0x00000001)");
    /// ```
    #[must_use]
    pub fn show(&self, key: Key) -> ShowKey<'_> {
        ShowKey { names: self, key }
    }

    /// One entity's data (of a [`DataComponent`](super::DataComponent) or a
    /// [`DataMap`](super::DataMap)) for `Debug`, as a map from key names to
    /// values.
    ///
    /// ```
    /// use idtable::data::{DataMap, KeyNames};
    /// use idtable::Id24_8;
    ///
    /// let id = Id24_8::new(0, 1).unwrap();
    /// let mut sheets: DataMap<Id24_8> = DataMap::new();
    /// sheets.set(id, "level", 3)?;
    /// let names = KeyNames::new().with(&["level"]);
    /// let shown = format!("{:?}", names.debug(sheets.entity(id).unwrap()));
    /// assert_eq!(shown, "{level: Int(3)}");
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    #[must_use]
    pub fn debug<'a>(&'a self, data: DataRef<'a>) -> ShowData<'a> {
        ShowData { names: self, data }
    }
}

impl<'s> FromIterator<&'s [&'s str]> for KeyNames {
    /// A table of these paths.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    ///
    /// let names: KeyNames = [&["name"][..], &["stats", "hp"]].into_iter().collect();
    /// assert_eq!(names.name(Key::path(&["stats", "hp"])), Some("stats.hp"));
    /// ```
    fn from_iter<I: IntoIterator<Item = &'s [&'s str]>>(paths: I) -> Self {
        let mut names = KeyNames::new();
        for path in paths {
            names.add(path);
        }
        names
    }
}

/// A [`Key`] shown by name, from [`KeyNames::show`].
///
/// ```
/// use idtable::data::{Key, KeyNames};
///
/// let names = KeyNames::new().with(&["hp"]);
/// let shown = names.show(Key::new("hp"));
/// assert_eq!(shown.to_string(), "hp");
/// ```
#[derive(Clone, Copy)]
pub struct ShowKey<'a> {
    names: &'a KeyNames,
    key: Key,
}

impl fmt::Display for ShowKey<'_> {
    /// The name, or `Key(0x…)`.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    /// assert_eq!(KeyNames::new().show(Key::from_hash(255)).to_string(), "Key(0x000000ff)");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.names.name(self.key) {
            Some(name) => f.write_str(name),
            None => write!(f, "{:?}", self.key),
        }
    }
}

impl fmt::Debug for ShowKey<'_> {
    /// Same as `Display`.
    ///
    /// ```
    /// use idtable::data::{Key, KeyNames};
    /// let names = KeyNames::new().with(&["hp"]);
    /// assert_eq!(format!("{:?}", names.show(Key::new("hp"))), "hp");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One entity's data shown with key names, from [`KeyNames::debug`].
///
/// ```
/// use idtable::data::{DataComponent, KeyNames};
///
/// let mut sheet = DataComponent::new();
/// sheet.set("drunk", true)?;
/// let names = KeyNames::new().with(&["drunk"]);
/// assert_eq!(format!("{:?}", names.debug(sheet.view())), "{drunk: Bool(true)}");
/// # Ok::<(), idtable::data::DataError>(())
/// ```
#[derive(Clone, Copy)]
pub struct ShowData<'a> {
    names: &'a KeyNames,
    data: DataRef<'a>,
}

impl fmt::Debug for ShowData<'_> {
    /// A map from key names to values.
    ///
    /// ```
    /// use idtable::data::{DataComponent, Key, KeyNames};
    ///
    /// let mut sheet = DataComponent::new();
    /// sheet.set("n", 1)?;
    /// let n = Key::new("n");
    /// assert_eq!(format!("{:?}", KeyNames::new().debug(sheet.view())), format!("{{{n:?}: Int(1)}}"));
    /// # Ok::<(), idtable::data::DataError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.data
                    .iter()
                    .map(|(key, value)| (self.names.show(key), value)),
            )
            .finish()
    }
}
