//! [`Entry`]: a [`SoaMap`](super::SoaMap)'s place for one key, occupied or
//! vacant, found once and then read, updated or filled without a second
//! lookup (slotmap's `SecondaryMap::entry`).

use core::fmt;

use super::sparse::{self, Free, SparseSet, Stale};
use crate::columns::ColumnBuffer;
use crate::id::Id;
use crate::record::{from_values, into_values, make_mut, make_ref, Record};
use crate::rows::Rows;

/// The place of one key in a [`SoaMap`](super::SoaMap), from
/// [`SoaMap::entry`](super::SoaMap::entry): [`Occupied`](Entry::Occupied)
/// when the key holds a row, [`Vacant`](Entry::Vacant) when it does not (an
/// older key of its slot index may: it is replaced on insert, as by
/// [`insert`](super::SoaMap::insert)). For a derived component the filled
/// row is its `FooMut` view; for a plain value, a `&mut T`.
///
/// ```
/// use idtable::map::Entry;
/// use idtable::{SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
///
/// let mut units = UnitAllocator::new();
/// let u = units.insert(Unit { hp: 10 });
/// let mut heat: SoaMap<UnitId, f32> = SoaMap::new();
/// *heat.entry(u).unwrap().or_insert(0.0) += 1.5; // None only for a key older than the stored one
/// heat.entry(u).unwrap().and_modify(|h| *h *= 2.0).or_default();
/// assert_eq!(heat.columns(), &[3.0]);
/// assert_eq!(heat.entry(u).unwrap().key(), u);
///
/// match heat.entry(u).unwrap() {
///     Entry::Occupied(mut hot) => {
///         *hot.get_mut() -= 1.0;
///         assert_eq!(hot.remove(), 2.0);
///     }
///     Entry::Vacant(_) => unreachable!(),
/// }
/// assert!(heat.is_empty());
/// ```
pub enum Entry<'a, K: Id, T: Record> {
    /// The key holds a row.
    Occupied(OccupiedEntry<'a, K, T>),
    /// The key holds no row.
    Vacant(VacantEntry<'a, K, T>),
}

/// A key that holds a row: [`Entry::Occupied`].
///
/// ```
/// use idtable::map::Entry;
/// use idtable::{Id32_32, SoaAllocator, SoaMap};
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// pub struct Burning { pub dps: f32, pub left: f32 }
///
/// let key = Id32_32::new(3, 1).unwrap();
/// let mut burning: SoaMap<Id32_32, Burning> = SoaMap::new();
/// burning.insert(key, Burning { dps: 1.0, left: 3.0 });
/// let Some(Entry::Occupied(mut fire)) = burning.entry(key) else { unreachable!() };
/// assert_eq!(fire.key(), key);
/// assert_eq!(*fire.get().dps, 1.0);
/// *fire.get_mut().left -= 1.0;
/// assert_eq!(fire.insert(Burning { dps: 2.0, left: 1.0 }), Burning { dps: 1.0, left: 2.0 });
/// let row = fire.into_mut();
/// *row.dps *= 2.0;
/// let Some(Entry::Occupied(fire)) = burning.entry(key) else { unreachable!() };
/// assert_eq!(fire.remove(), Burning { dps: 4.0, left: 1.0 });
/// assert!(burning.is_empty());
/// ```
pub struct OccupiedEntry<'a, K: Id, T: Record> {
    index: &'a mut SparseSet<K>,
    columns: &'a mut ColumnBuffer<T::Tree>,
    /// The key's dense position.
    dense: usize,
    key: K,
}

/// A key that holds no row: [`Entry::Vacant`].
///
/// ```
/// use idtable::map::Entry;
/// use idtable::{Id32_32, SoaMap};
///
/// let key = Id32_32::new(7, 2).unwrap();
/// let mut names: SoaMap<Id32_32, String> = SoaMap::new();
/// let Some(Entry::Vacant(place)) = names.entry(key) else { unreachable!() };
/// assert_eq!(place.key(), key);
/// place.insert("seven".to_string()).push('!');
/// assert_eq!(names.get(key).map(String::as_str), Some("seven!"));
/// ```
pub struct VacantEntry<'a, K: Id, T: Record> {
    place: Place<'a, K>,
    columns: &'a mut ColumnBuffer<T::Tree>,
    key: K,
}

/// Where a vacant key goes.
enum Place<'a, K> {
    /// Its slot index holds no key: the set, which makes room for it (and
    /// its index page) only on insert.
    Free(Free<'a, K>),
    /// Its slot index holds an older key: that row is replaced.
    Stale(Stale<'a, K>),
}

impl<'a, K: Id, T: Record> Entry<'a, K, T> {
    /// The entry of `key` in `rows`, found with one walk to its index
    /// entry (two for a vacant slot index that is filled, as `get_mut`
    /// then `insert`); `None` if the stored key of its slot index is newer
    /// (`key` is stale). Allocates nothing: a vacant key's index page and
    /// room wait for [`VacantEntry::insert`].
    #[inline(always)]
    pub(crate) fn of(rows: &'a mut Rows<SparseSet<K>, T>, key: K) -> Option<Self> {
        let Rows { index, columns } = rows;
        match index.place(key) {
            sparse::Place::Same(index, dense) => Some(Entry::Occupied(OccupiedEntry {
                index,
                columns,
                dense,
                key,
            })),
            sparse::Place::Free(free) => Some(Entry::Vacant(VacantEntry {
                place: Place::Free(free),
                columns,
                key,
            })),
            sparse::Place::Stale(stale) => Some(Entry::Vacant(VacantEntry {
                place: Place::Stale(stale),
                columns,
                key,
            })),
            sparse::Place::Newer => None,
        }
    }

    /// The key of this entry.
    pub fn key(&self) -> K {
        match self {
            Entry::Occupied(e) => e.key,
            Entry::Vacant(e) => e.key,
        }
    }

    /// The row of the key, inserting `default` first if there is none.
    #[inline(always)]
    pub fn or_insert(self, default: T) -> T::Mut<'a> {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(default),
        }
    }

    /// The row of the key, inserting `make()` first if there is none
    /// (`make` is called only then).
    ///
    /// ```
    /// use idtable::{Id32_32, SoaMap};
    ///
    /// let key = Id32_32::new(1, 1).unwrap();
    /// let mut hits: SoaMap<Id32_32, Vec<u32>> = SoaMap::new();
    /// hits.entry(key).unwrap().or_insert_with(Vec::new).push(3);
    /// hits.entry(key).unwrap().or_insert_with(|| unreachable!()).push(4);
    /// assert_eq!(hits.get(key), Some(&vec![3, 4]));
    /// ```
    #[inline(always)]
    pub fn or_insert_with(self, make: impl FnOnce() -> T) -> T::Mut<'a> {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(make()),
        }
    }

    /// The row of the key, inserting `make(key)` first if there is none.
    ///
    /// ```
    /// use idtable::{Id, Id32_32, SoaMap};
    ///
    /// let key = Id32_32::new(9, 1).unwrap();
    /// let mut slots: SoaMap<Id32_32, usize> = SoaMap::new();
    /// assert_eq!(*slots.entry(key).unwrap().or_insert_with_key(|k| k.index()), 9);
    /// ```
    #[inline(always)]
    pub fn or_insert_with_key(self, make: impl FnOnce(K) -> T) -> T::Mut<'a> {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let value = make(e.key);
                e.insert(value)
            }
        }
    }

    /// The row of the key, inserting `T::default()` first if there is
    /// none.
    #[inline(always)]
    pub fn or_default(self) -> T::Mut<'a>
    where
        T: Default,
    {
        self.or_insert_with(T::default)
    }

    /// Calls `update` on the row if the key holds one, and gives the entry
    /// back.
    #[inline(always)]
    pub fn and_modify(self, update: impl FnOnce(T::Mut<'_>)) -> Self {
        match self {
            Entry::Occupied(mut e) => {
                update(e.get_mut());
                Entry::Occupied(e)
            }
            vacant => vacant,
        }
    }
}

impl<'a, K: Id, T: Record> OccupiedEntry<'a, K, T> {
    /// The key of this entry.
    pub fn key(&self) -> K {
        self.key
    }

    /// The row, shared.
    #[inline(always)]
    pub fn get(&self) -> T::Ref<'_> {
        match self.columns.get(self.dense) {
            Some(row) => make_ref::<T>(row),
            None => unreachable!("an occupied entry's row exists"),
        }
    }

    /// The row, mutably.
    #[inline(always)]
    pub fn get_mut(&mut self) -> T::Mut<'_> {
        match self.columns.get_mut(self.dense) {
            Some(row) => make_mut::<T>(row),
            None => unreachable!("an occupied entry's row exists"),
        }
    }

    /// The row, mutably, for as long as the map is borrowed.
    #[inline(always)]
    pub fn into_mut(self) -> T::Mut<'a> {
        match self.columns.get_mut(self.dense) {
            Some(row) => make_mut::<T>(row),
            None => unreachable!("an occupied entry's row exists"),
        }
    }

    /// Puts `value` in the row and returns the value it held.
    #[inline(always)]
    pub fn insert(&mut self, value: T) -> T {
        replace_row(self.columns, self.dense, value)
    }

    /// Removes the row and returns its value; the last row moves into the
    /// gap, as with [`SoaMap::remove`](super::SoaMap::remove).
    #[inline(always)]
    pub fn remove(self) -> T {
        // The key first, the row (where destructors run) last, as in
        // `SoaMap::remove`.
        match self.index.remove(self.key) {
            Some(dense) => from_values(self.columns.swap_remove(dense)),
            None => unreachable!("an occupied entry's key holds a row"),
        }
    }
}

impl<'a, K: Id, T: Record> VacantEntry<'a, K, T> {
    /// The key of this entry.
    pub fn key(&self) -> K {
        self.key
    }

    /// Inserts `value` for the key and returns its row. A stale row of the
    /// same slot index (an older key's) is replaced, and dropped last. The
    /// key's index page, if it has none yet, is allocated here, not by
    /// [`SoaMap::entry`](super::SoaMap::entry).
    #[inline(always)]
    pub fn insert(self, value: T) -> T::Mut<'a> {
        let columns = self.columns;
        match self.place {
            Place::Free(free) => {
                // As in `SoaMap::try_insert`: room for the key (and its
                // page) first, then the row (either may panic: nothing has
                // changed but a page allocated), then the key, which
                // cannot fail.
                let vacant = free.room();
                let row = columns.push_mut(into_values(value));
                vacant.fill();
                make_mut::<T>(row)
            }
            Place::Stale(stale_key) => {
                // Another key at position `dense`: `replace_row`'s swap and
                // pop moved the order stamp, as a group must see.
                let stale = replace_row(columns, stale_key.dense(), value);
                let dense = stale_key.fill();
                // Dropped last: a panicking destructor finds the map whole.
                drop(stale);
                match columns.get_mut(dense) {
                    Some(row) => make_mut::<T>(row),
                    None => unreachable!("the row was just written"),
                }
            }
        }
    }
}

/// Puts `value` at dense position `dense` of `columns` and returns the
/// value it replaced.
pub(super) fn replace_row<T: Record>(
    columns: &mut ColumnBuffer<T::Tree>,
    dense: usize,
    value: T,
) -> T {
    columns.push(into_values(value));
    let last = columns.len() - 1;
    columns.swap(dense, last);
    match columns.pop() {
        Some(old) => from_values(old),
        None => unreachable!("a row was just pushed"),
    }
}

/// Shows the key and whether it holds a row (not the row).
impl<K: Id, T: Record> fmt::Debug for Entry<'_, K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Occupied(e) => f.debug_tuple("Occupied").field(e).finish(),
            Entry::Vacant(e) => f.debug_tuple("Vacant").field(e).finish(),
        }
    }
}

/// Shows the key.
impl<K: Id, T: Record> fmt::Debug for OccupiedEntry<'_, K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OccupiedEntry")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Shows the key.
impl<K: Id, T: Record> fmt::Debug for VacantEntry<'_, K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VacantEntry")
            .field("key", &self.key)
            .finish()
    }
}
