//! The sparse-set engine behind [`SoaMap`](super::SoaMap): a paged index
//! from a key's slot index to a dense position, and the dense array of keys.
//!
//! Invariants, for a [`SparseSet`] with keys `keys`:
//!
//! * for every `d < keys.len()`, the index maps `keys[d].index()` to `d`;
//! * the index maps no other slot index (every other entry is vacant), so
//!   no two keys share a slot index;
//! * `keys.len() <= MAX_LEN`, so every dense position fits an entry.
//!
//! [`SparseSet::check_invariants`] checks them.
//!
//! Memory: an entry is a `u32` in a [`PagedIndex`] (pages of
//! [`PAGE_LEN`] slot indices allocated when a key of that page is first
//! stored, reached through a flat page table while the pages pay for it,
//! else through an ordered map): at most 384 bytes and a far map node's
//! share per page that holds or held a key, plus 64 KiB. A few keys with
//! high indices cost a few pages, never an array as long as the highest
//! index.

use alloc::vec::Vec;

use crate::id::{Id, IdBits};
use crate::marks;
use crate::paged_index::{Entry, PagedIndex};

/// The entry of a slot index no key holds.
const VACANT: u32 = <u32 as Entry>::VACANT;
/// The most keys a set holds: every dense position is an entry, and
/// [`VACANT`] is not one.
pub(crate) const MAX_LEN: usize = VACANT as usize;

/// The map from slot index to dense position.
type SparseIndex = PagedIndex<u32>;

/// Where a key stands against the key stored at its slot index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// No key at its slot index (from [`SparseSet::slot`], which loading
    /// uses; an insert asks [`SparseSet::vacancy`]).
    #[cfg_attr(not(any(test, feature = "serde")), allow(dead_code))]
    Vacant,
    /// This exact key, at this dense position.
    Same(usize),
    /// An older key of the same slot index (a stale entry), at this position.
    Stale(usize),
    /// A newer key of the same slot index: this key is stale itself.
    Newer(usize),
}

/// `key` against `stored`, the key at dense position `d` of its slot index.
#[inline(always)]
fn classify<K: Id>(stored: K, key: K, d: usize) -> Standing {
    let (have, want) = (stored.generation().to_u64(), key.generation().to_u64());
    if stored == key {
        Standing::Same(d)
    } else if want > have {
        Standing::Stale(d)
    } else {
        // Same slot index, another key: the generations differ.
        Standing::Newer(d)
    }
}

/// A vacant slot index ready for its key, from [`SparseSet::vacancy`] or
/// [`Free::room`]: the entry to point at the key (its page allocated) and
/// room for the key.
pub(crate) struct Vacant<'a, K> {
    entry: &'a mut u32,
    keys: &'a mut Vec<K>,
    key: K,
}

impl<K: Id> Vacant<'_, K> {
    /// Appends the key; returns its dense position. Nothing in it can fail.
    #[inline(always)]
    pub(crate) fn fill(self) -> usize {
        let d = self.keys.len();
        debug_assert!(d < MAX_LEN && self.keys.capacity() > d);
        *self.entry = d as u32;
        self.keys.push(self.key);
        d
    }
}

/// A vacant slot index found by a lookup, from [`SparseSet::place`]: the
/// set and the key, and nothing allocated for it yet (its page may not
/// exist) until [`room`](Free::room) is asked for on insert.
pub(crate) struct Free<'a, K> {
    set: &'a mut SparseSet<K>,
    key: K,
}

impl<'a, K: Id> Free<'a, K> {
    /// The key's entry, its page allocated if needed, and room for the
    /// key: what [`Vacant::fill`] needs in order not to fail.
    ///
    /// # Panics
    ///
    /// If the set already holds [`MAX_LEN`] keys (nothing changes but a
    /// page allocated).
    #[inline(always)]
    pub(crate) fn room(self) -> Vacant<'a, K> {
        let SparseSet { index, keys } = self.set;
        let entry = index.entry(self.key.index());
        debug_assert_eq!(*entry, VACANT, "a free slot index stays vacant");
        make_room(entry, keys, self.key)
    }
}

/// `entry`, vacant, with room in `keys` for `key`.
///
/// # Panics
///
/// If `keys` already holds [`MAX_LEN`] keys.
#[inline(always)]
fn make_room<'a, K>(entry: &'a mut u32, keys: &'a mut Vec<K>, key: K) -> Vacant<'a, K> {
    if keys.len() >= MAX_LEN {
        too_many();
    }
    keys.reserve(1);
    Vacant { entry, keys, key }
}

/// An older key's place, from [`SparseSet::place`]: the key it holds, to
/// be overwritten by the newer key of the same slot index.
pub(crate) struct Stale<'a, K> {
    stored: &'a mut K,
    key: K,
    dense: usize,
}

impl<K: Id> Stale<'_, K> {
    /// The dense position of the stale row.
    #[inline(always)]
    pub(crate) fn dense(&self) -> usize {
        self.dense
    }

    /// Puts the newer key in place of the older one; returns the dense
    /// position. Nothing in it can fail.
    #[inline(always)]
    pub(crate) fn fill(self) -> usize {
        *self.stored = self.key;
        self.dense
    }
}

/// Where a key stands, found with one walk for an entry: what it needs to
/// read its row, or to become a key of the set. Finding it allocates
/// nothing.
pub(crate) enum Place<'a, K> {
    /// This exact key, at this dense position; the set, for a removal.
    Same(&'a mut SparseSet<K>, usize),
    /// A vacant slot index (see [`Free`]).
    Free(Free<'a, K>),
    /// An older key of the same slot index (a stale entry).
    Stale(Stale<'a, K>),
    /// A newer key of the same slot index: this key is stale itself.
    Newer,
}

/// The dense keys of a sparse set and the paged index that finds them: the
/// index of a [`SoaMap`](crate::SoaMap)'s [`Rows`](crate::rows::Rows).
///
/// A key is found only by itself: the index maps its slot index to a dense
/// position, and the key stored there must be equal. Its methods are the
/// engine's own; users reach it through `SoaMap` (see [`Rows`](crate::Rows)'s
/// example).
#[derive(Clone)]
pub struct SparseSet<K> {
    index: SparseIndex,
    keys: Vec<K>,
}

/// Two indexes are equal when they hold the same keys in the same dense
/// order (the pages follow from the keys).
impl<K: Id> PartialEq for SparseSet<K> {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys
    }
}

impl<K: Id> Eq for SparseSet<K> {}

impl<K: Id> SparseSet<K> {
    pub(crate) const fn new() -> Self {
        SparseSet {
            index: PagedIndex::new(),
            keys: Vec::new(),
        }
    }

    /// The keys in dense order.
    #[inline(always)]
    pub(crate) fn keys(&self) -> &[K] {
        &self.keys
    }

    pub(crate) fn capacity(&self) -> usize {
        self.keys.capacity()
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.keys.shrink_to_fit();
    }

    /// Bytes of the sparse index (not the keys).
    pub(crate) fn index_bytes(&self) -> usize {
        self.index.heap_bytes()
    }

    /// The dense position of exactly `key`.
    #[inline(always)]
    pub(crate) fn find(&self, key: K) -> Option<usize> {
        self.confirm(key, self.index.raw(key.index()))
    }

    /// The dense position `entry` (`key`'s entry, if its page exists)
    /// names, if the key held there is exactly `key`.
    #[inline(always)]
    fn confirm(&self, key: K, entry: Option<u32>) -> Option<usize> {
        // A vacant entry (`u32::MAX`) is past every key (`len <= MAX_LEN`):
        // the bounds check of `keys` refuses it too.
        let d = entry? as usize;
        (*self.keys.get(d)? == key).then_some(d)
    }

    /// Whether every page is in the page table (none past it), so that
    /// [`find_near`](Self::find_near) finds every key.
    #[inline(always)]
    pub(crate) fn near_only(&self) -> bool {
        self.index.near_only()
    }

    /// [`find`](Self::find) through the page table alone: the same answer
    /// while [`near_only`](Self::near_only) holds, with no call on any path.
    #[inline(always)]
    pub(crate) fn find_near(&self, key: K) -> Option<usize> {
        self.confirm(key, self.index.raw_near(key.index()))
    }

    /// Removes exactly `key` and returns the dense position it had, the
    /// last key moving into its place; `None` (and nothing changes) unless
    /// the set holds `key`. Reads `key`'s entry once: the lookup of
    /// [`find`](Self::find) and the write that vacates it.
    #[inline(always)]
    pub(crate) fn remove(&mut self, key: K) -> Option<usize> {
        let entry = self.index.raw_mut(key.index())?;
        let d = *entry as usize;
        // A vacant entry is past every key, as in `find`.
        if *self.keys.get(d)? != key {
            return None;
        }
        *entry = VACANT;
        self.keys.swap_remove(d);
        if let Some(&moved) = self.keys.get(d) {
            // A held key's page exists: no path here allocates, so the
            // removal holds no call that could write the map's fields.
            self.index.write_held(moved.index(), d as u32);
        }
        Some(d)
    }

    /// How `key` relates to what is stored at its slot index.
    #[cfg(any(test, feature = "serde"))]
    #[inline]
    pub(crate) fn standing(&self, key: K) -> Standing {
        let Some(d) = self.index.get(key.index()) else {
            return Standing::Vacant;
        };
        let d = d as usize;
        classify(self.keys[d], key, d)
    }

    /// [`slot`](Self::slot), walking to `key`'s entry once for an insert:
    /// where the slot index is vacant, its entry (the page allocated) and
    /// room for one more key, so that [`Vacant::fill`] cannot fail; else
    /// the slot (never [`Standing::Vacant`]).
    ///
    /// # Panics
    ///
    /// If the slot index is vacant and the set already holds [`MAX_LEN`]
    /// keys (nothing changes but a page allocated).
    #[inline(always)]
    pub(crate) fn vacancy(&mut self, key: K) -> Result<Vacant<'_, K>, Standing> {
        let entry = self.index.entry(key.index());
        let d = *entry as usize;
        // A vacant entry is past every key, as in `find`.
        match self.keys.get(d) {
            Some(&stored) => Err(classify(stored, key, d)),
            None => Ok(make_room(entry, &mut self.keys, key)),
        }
    }

    /// Where `key` stands: [`Place::Same`] with this set, [`Place::Stale`],
    /// [`Place::Newer`] or [`Place::Free`] after one walk to its entry.
    /// Allocates nothing: a vacant slot index's page and room for its key
    /// wait for [`Free::room`] (a second walk).
    #[inline(always)]
    pub(crate) fn place(&mut self, key: K) -> Place<'_, K> {
        if let Some(entry) = self.index.raw(key.index()) {
            let d = entry as usize;
            // As in `find`: a vacant entry is past every key.
            if let Some(&stored) = self.keys.get(d) {
                if stored == key {
                    return Place::Same(self, d);
                }
                return match classify(stored, key, d) {
                    Standing::Stale(dense) => Place::Stale(Stale {
                        stored: &mut self.keys[dense],
                        key,
                        dense,
                    }),
                    _ => Place::Newer,
                };
            }
        }
        Place::Free(Free { set: self, key })
    }

    /// Appends `key`, whose slot index holds no key; returns its position.
    ///
    /// # Panics
    ///
    /// If the set already holds [`MAX_LEN`] keys.
    #[cfg(any(test, feature = "serde"))]
    pub(crate) fn push(&mut self, key: K) -> usize {
        self.reserve_one();
        self.push_reserved(key)
    }

    /// Makes room for one more key, so that the next
    /// [`push_reserved`](Self::push_reserved) cannot fail.
    ///
    /// # Panics
    ///
    /// If the set already holds [`MAX_LEN`] keys (nothing changes).
    #[cfg(any(test, feature = "serde"))]
    #[inline(always)]
    pub(crate) fn reserve_one(&mut self) {
        if self.keys.len() >= MAX_LEN {
            too_many();
        }
        self.keys.reserve(1);
    }

    /// Appends `key`, whose slot index holds no key, after a
    /// [`reserve_one`](Self::reserve_one); returns its position. Nothing in
    /// it can fail.
    #[cfg(any(test, feature = "serde"))]
    #[inline(always)]
    pub(crate) fn push_reserved(&mut self, key: K) -> usize {
        let d = self.keys.len();
        debug_assert!(d < MAX_LEN && self.keys.capacity() > d);
        debug_assert!(self.index.get(key.index()).is_none());
        self.index.write(key.index(), d as u32);
        self.keys.push(key);
        d
    }

    /// Puts `key` at position `d`, in place of a key of the same slot index.
    #[inline]
    pub(crate) fn replace(&mut self, d: usize, key: K) {
        debug_assert_eq!(self.keys[d].index(), key.index());
        self.keys[d] = key;
    }

    /// Removes the last key.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<K> {
        let key = self.keys.pop()?;
        self.index.write(key.index(), VACANT);
        Some(key)
    }

    /// Whether no key's index has its top bit set (no page reaches that
    /// far), so that a batch removal can mark keys in place
    /// ([`detach`](Self::detach)).
    #[inline]
    pub(crate) fn taggable(&self) -> bool {
        self.index.index_end() as u64 <= marks::tag_limit::<K>()
    }

    /// The keys, mutably: for a batch removal to tag and untag them in
    /// place ([`detach`](Self::detach)), and for nothing else.
    #[inline(always)]
    pub(crate) fn keys_mut(&mut self) -> &mut [K] {
        &mut self.keys
    }

    /// Detaches `key`, held at `dense`, as the mark of a batch removal: one
    /// write, no allocation. If `tagged` (the set is
    /// [`taggable`](Self::taggable)), the key at `dense` becomes the tagged
    /// key; else its entry is vacated (a held key's page exists). Either
    /// way `find(key)` answers `None`, while the key (tagged or not) stays
    /// at `dense`.
    #[inline(always)]
    pub(crate) fn detach(&mut self, key: K, dense: usize, tagged: bool) {
        debug_assert_eq!(self.find(key), Some(dense));
        if tagged {
            self.keys[dense] = marks::tagged(key);
        } else {
            self.index.write_held(key.index(), VACANT);
        }
    }

    /// Whether the key at `dense` (below the length) was detached: tagged,
    /// or its entry no longer names `dense`.
    #[inline(always)]
    pub(crate) fn is_detached(&self, dense: usize, tagged: bool) -> bool {
        let key = self.keys[dense];
        if tagged {
            marks::is_tagged(key)
        } else {
            self.index.raw(key.index()) != Some(dense as u32)
        }
    }

    /// Undoes [`detach`](Self::detach) of the key at `dense`.
    pub(crate) fn reattach(&mut self, dense: usize, tagged: bool) {
        if tagged {
            self.keys[dense] = marks::untagged(self.keys[dense]);
        } else {
            let key = self.keys[dense];
            self.index.write_held(key.index(), dense as u32);
        }
    }

    /// A block of a batch removal's second pass, positions
    /// `base..base + n` (`n <= 64`, none moved yet): vacates the entries of
    /// the detached keys and moves the others down to `*write..`,
    /// advancing it, where they are found. Returns the detached positions,
    /// bit `i` for `base + i`.
    #[inline(always)]
    pub(crate) fn remove_detached_block(
        &mut self,
        base: usize,
        n: usize,
        write: &mut usize,
        tagged: bool,
    ) -> u64 {
        if !tagged {
            return self.remove_untagged_block(base, n, write);
        }
        // Row by row, as the keys are read, as before the marks moved
        // into the keys: a map's batch removal takes few of its rows as a
        // rule (a branch the processor predicts), where a walk of the bits
        // measured slower.
        let (mut gone, mut to) = (0u64, *write);
        for i in 0..n {
            let d = base + i;
            let key = self.keys[d];
            if marks::is_tagged(key) {
                gone |= 1 << i;
                self.index.write_held(marks::untagged(key).index(), VACANT);
            } else {
                self.keys[to] = key;
                self.index.write_held(key.index(), to as u32);
                to += 1;
            }
        }
        *write = to;
        gone
    }

    /// A block of a batch removal's second pass whose marks the caller
    /// kept itself (a small container's bitset on the stack): the keys
    /// `gone` names (bit `i` for `base + i`), neither tagged nor detached,
    /// have their entries vacated; the others move down to `*write..`.
    /// Row by row, as the map's pass with a bitset went.
    #[inline(always)]
    pub(crate) fn remove_marked_block(
        &mut self,
        base: usize,
        n: usize,
        gone: u64,
        write: &mut usize,
    ) {
        let mut to = *write;
        for i in 0..n {
            let key = self.keys[base + i];
            if gone >> i & 1 != 0 {
                self.index.write_held(key.index(), VACANT);
            } else {
                self.keys[to] = key;
                self.index.write_held(key.index(), to as u32);
                to += 1;
            }
        }
        *write = to;
    }

    /// [`remove_detached_block`](Self::remove_detached_block) of keys
    /// detached in the index (their entries vacated already). One walk to
    /// each key's entry, which is read and written back (`VACANT` again
    /// for a detached key), and every key written at `*write` (overwritten
    /// later if it was detached): no branch on each key's answer.
    #[inline(always)]
    fn remove_untagged_block(&mut self, base: usize, n: usize, write: &mut usize) -> u64 {
        let (mut gone, mut to) = (0u64, *write);
        for i in 0..n {
            let d = base + i;
            let key = self.keys[d];
            let Some(entry) = self.index.raw_mut(key.index()) else {
                unreachable!("a held key's page exists");
            };
            let kept = *entry == d as u32;
            gone |= u64::from(!kept) << i;
            *entry = if kept { to as u32 } else { VACANT };
            // `to <= d`: a place already read.
            self.keys[to] = key;
            to += usize::from(kept);
        }
        *write = to;
        gone
    }

    /// Cuts the keys to the first `len`, those past having been detached
    /// or moved away.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.keys.truncate(len);
    }

    /// Swaps the keys at positions `a` and `b`.
    #[inline]
    pub(crate) fn swap(&mut self, a: usize, b: usize) {
        self.keys.swap(a, b);
        for d in [a, b] {
            self.index.write(self.keys[d].index(), d as u32);
        }
    }

    /// Removes every key; the pages stay allocated.
    pub(crate) fn clear(&mut self) {
        for key in &self.keys {
            self.index.write(key.index(), VACANT);
        }
        self.keys.clear();
    }

    /// Checks the invariants listed in the module docs; walks every page.
    ///
    /// # Panics
    ///
    /// With a message naming the first that does not hold.
    pub(crate) fn check_invariants(&self) {
        assert!(
            self.keys.len() <= MAX_LEN,
            "more keys than entries can name"
        );
        for (d, key) in self.keys.iter().enumerate() {
            assert_eq!(
                self.index.get(key.index()),
                Some(d as u32),
                "key {key:?} at dense {d} is not indexed there"
            );
        }
        let mut entries = 0usize;
        self.index.check_layout();
        for (index, d) in self.index.entries() {
            let d = d as usize;
            entries += 1;
            assert!(
                d < self.keys.len(),
                "slot index {index} points past the keys"
            );
            assert_eq!(
                self.keys[d].index(),
                index,
                "slot index {index} points at a key of another index"
            );
        }
        assert_eq!(
            entries,
            self.keys.len(),
            "entries and keys differ in number"
        );
    }
}

#[cold]
#[track_caller]
fn too_many() -> ! {
    panic!("a SoaMap holds at most {MAX_LEN} entries")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id32, Id32_32, Id64};
    use crate::paged_index::{PAGE_LEN, TABLE_FREE_BYTES};

    fn key(index: usize, generation: u64) -> Id32_32 {
        Id32_32::new(index, generation).unwrap()
    }

    #[test]
    fn keys_resolve_only_to_themselves() {
        let mut s = SparseSet::<Id32_32>::new();
        assert_eq!(s.push(key(5, 1)), 0);
        assert_eq!(s.push(key(2000, 3)), 1);
        assert_eq!(s.find(key(5, 1)), Some(0));
        assert_eq!(s.find(key(5, 2)), None);
        assert_eq!(s.find(key(6, 1)), None);
        assert_eq!(s.find(key(2000, 3)), Some(1));
        assert_eq!(s.standing(key(5, 1)), Standing::Same(0));
        assert_eq!(s.standing(key(5, 2)), Standing::Stale(0));
        assert_eq!(s.standing(key(2000, 2)), Standing::Newer(1));
        assert_eq!(s.standing(key(7, 1)), Standing::Vacant);
        s.check_invariants();
    }

    #[test]
    fn remove_reindexes_the_moved_key() {
        let mut s = SparseSet::<Id32_32>::new();
        for i in 0..10 {
            s.push(key(i * 3, 1));
        }
        // Not held: a vacant index, an index past every page, another
        // generation. Nothing changes.
        for absent in [key(7, 1), key(5_000_000, 1), key(6, 2)] {
            assert_eq!(s.remove(absent), None);
        }
        assert_eq!(s.keys().len(), 10);
        s.check_invariants();
        assert_eq!(s.remove(key(6, 1)), Some(2));
        assert_eq!(s.remove(key(6, 1)), None);
        assert_eq!(s.find(key(27, 1)), Some(2));
        assert_eq!(s.find(key(6, 1)), None);
        assert_eq!(s.pop(), Some(key(24, 1)));
        s.check_invariants();
        s.swap(0, 1);
        assert_eq!(s.keys()[..2], [key(3, 1), key(0, 1)]);
        s.check_invariants();
        s.replace(0, key(3, 9));
        assert_eq!(s.find(key(3, 9)), Some(0));
        assert_eq!(s.find(key(3, 1)), None);
        s.check_invariants();
    }

    #[test]
    fn detached_keys_are_found_no_more_and_reattach_or_compact_away() {
        for tagged in [true, false] {
            let mut s = SparseSet::<Id32_32>::new();
            for i in 0..100 {
                s.push(key(99 - i, 1));
            }
            assert!(s.taggable());
            let gone = [10, 11, 50, 99];
            for d in gone {
                s.detach(s.keys()[d], d, tagged);
            }
            for d in 0..100 {
                let k = key(99 - d, 1);
                assert_eq!(s.is_detached(d, tagged), gone.contains(&d), "{d}");
                assert_eq!(s.find(k).is_none(), gone.contains(&d), "{d}");
            }
            // Taken back: the set is as before.
            s.reattach(50, tagged);
            assert_eq!(s.find(key(49, 1)), Some(50));
            assert_eq!(s.keys()[50], key(49, 1));
            s.detach(key(49, 1), 50, tagged);
            // Compacted: the others move down in order, a block at a time.
            let mut write = 10;
            let gone = s.remove_detached_block(10, 64, &mut write, tagged);
            assert_eq!(gone, 0b11 | 1 << 40, "positions 10, 11 and 50");
            let gone = s.remove_detached_block(74, 26, &mut write, tagged);
            assert_eq!(gone, 1 << 25, "position 99");
            s.truncate(write);
            assert_eq!(s.keys().len(), 96);
            assert_eq!(s.keys()[10], key(99 - 12, 1));
            assert_eq!(s.find(key(99 - 51, 1)), Some(48));
            assert_eq!(s.find(key(89, 1)), None);
            s.check_invariants();
        }
    }

    #[test]
    fn a_set_with_a_page_past_half_the_indices_is_not_taggable() {
        let mut s = SparseSet::<Id32<7>>::new();
        s.push(Id32::<7>::new(63, 1).unwrap());
        assert!(s.taggable(), "page 0 covers indices 0..64, below 64");
        s.push(Id32::<7>::new(64, 1).unwrap());
        assert!(!s.taggable());
        s.remove(Id32::<7>::new(64, 1).unwrap());
        assert!(!s.taggable(), "its page stays");
    }

    #[test]
    fn clear_forgets_every_key_but_keeps_pages() {
        let mut s = SparseSet::<Id32_32>::new();
        for i in 0..3000 {
            s.push(key(i, 2));
        }
        let bytes = s.index_bytes();
        s.clear();
        assert_eq!(s.find(key(5, 2)), None);
        assert_eq!(s.index_bytes(), bytes);
        s.check_invariants();
        s.push(key(5, 3));
        assert_eq!(s.find(key(5, 3)), Some(0));
    }

    #[test]
    fn the_index_costs_at_most_4_bytes_per_slot_index_used() {
        let mut s = SparseSet::<Id32_32>::new();
        let n = if cfg!(miri) { 5_000 } else { 100_000 };
        for i in 0..n {
            s.push(key(i, 1));
        }
        let pages = n.div_ceil(PAGE_LEN);
        assert_eq!(s.index.page_count(), pages);
        // The pages, and a table of at most the free bytes or half theirs.
        let page_bytes = 4 * pages * PAGE_LEN;
        assert!(s.index_bytes() <= page_bytes + TABLE_FREE_BYTES.max(page_bytes / 2));
        assert!(s.index_bytes() <= 4 * n + 4 * PAGE_LEN + TABLE_FREE_BYTES);
    }

    #[test]
    fn a_few_high_keys_stay_small() {
        let mut s = SparseSet::<Id32_32>::new();
        let high = [u32::MAX as usize - 1, 3_000_000_000, 1 << 31];
        for (i, &index) in high.iter().enumerate() {
            s.push(key(index, 1));
            assert_eq!(s.find(key(index, 1)), Some(i));
        }
        assert_eq!(s.index.page_count(), 3);
        // Three pages and the far map's entries: under a KiB, where an
        // array up to the highest index would take 16 GiB.
        assert!(s.index_bytes() < 1024, "{} bytes", s.index_bytes());
        s.check_invariants();

        // Above 2^32 (a 64-bit layout with more index bits): the ordered map.
        let mut wide = SparseSet::<Id64<48>>::new();
        let far = (1usize << 47) + 12345;
        wide.push(Id64::<48>::new(far, 1).unwrap());
        wide.push(Id64::<48>::new(7, 1).unwrap());
        assert_eq!(wide.find(Id64::<48>::new(far, 1).unwrap()), Some(0));
        assert_eq!(wide.find(Id64::<48>::new(far + 1, 1).unwrap()), None);
        assert!(wide.index_bytes() < 16 * 1024);
        wide.check_invariants();
        assert_eq!(wide.remove(Id64::<48>::new(far, 1).unwrap()), Some(0));
        assert_eq!(wide.find(Id64::<48>::new(7, 1).unwrap()), Some(0));
        wide.check_invariants();
        // A far key moved into the gap of a removed near one: its entry is
        // rewritten in its far page.
        assert_eq!(wide.push(Id64::<48>::new(far, 2).unwrap()), 1);
        assert_eq!(wide.remove(Id64::<48>::new(7, 1).unwrap()), Some(0));
        assert_eq!(wide.find(Id64::<48>::new(far, 2).unwrap()), Some(0));
        wide.check_invariants();
    }

    #[test]
    fn keys_on_both_sides_of_the_free_table_resolve() {
        let mut s = SparseSet::<Id32_32>::new();
        // The first slot index past the table its free bytes allow.
        let edge = TABLE_FREE_BYTES / 8 * PAGE_LEN;
        for (d, index) in [edge - 1, edge, edge + PAGE_LEN, 0].into_iter().enumerate() {
            assert_eq!(s.push(key(index, 2)), d);
        }
        for index in [edge - 1, edge, edge + PAGE_LEN, 0] {
            assert!(s.find(key(index, 2)).is_some());
            assert_eq!(s.find(key(index, 1)), None);
        }
        assert_eq!(s.find(key(edge + 1, 2)), None);
        s.check_invariants();
        assert_eq!(s.remove(key(edge - 1, 2)), Some(0));
        assert_eq!(s.remove(key(edge + 1, 2)), None);
        assert_eq!(s.find(key(0, 2)), Some(0));
        s.check_invariants();
        // The free table (full), two far map entries and four pages.
        assert!(s.index_bytes() <= TABLE_FREE_BYTES + 4 * 4 * PAGE_LEN + 64);
    }

    #[test]
    fn lookups_of_unknown_indices_allocate_nothing() {
        let mut s = SparseSet::<Id32<24>>::new();
        s.push(Id32::<24>::new(1, 1).unwrap());
        let bytes = s.index_bytes();
        for index in [0, 5000, (1 << 24) - 2] {
            let key = Id32::<24>::new(index, 1).unwrap();
            assert_eq!(s.find(key), None);
            // An entry's lookup: the page waits for `Free::room`.
            assert!(matches!(s.place(key), Place::Free(_)));
        }
        assert_eq!(s.index_bytes(), bytes);
        let Place::Free(free) = s.place(Id32::<24>::new(5000, 1).unwrap()) else {
            unreachable!()
        };
        free.room().fill();
        assert!(s.index_bytes() > bytes);
        assert_eq!(s.find(Id32::<24>::new(5000, 1).unwrap()), Some(1));
        s.check_invariants();
    }

    #[test]
    #[should_panic(expected = "not indexed there")]
    fn check_invariants_catches_a_wrong_entry() {
        let mut s = SparseSet::<Id32_32>::new();
        s.push(key(1, 1));
        s.push(key(2, 1));
        s.index.write(2, 0);
        s.check_invariants();
    }
}
