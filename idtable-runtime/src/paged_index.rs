//! A paged array indexed by slot index, shared by the sparse set behind
//! [`SoaMap`](crate::SoaMap) (an entry is a dense position) and the id
//! lookup of [`DataMap`](crate::DataMap) (an entry is a region offset and a
//! dense position).
//!
//! Entries come in pages of [`PAGE_LEN`] slot indices, allocated when an
//! entry of that page is first written; a page is reached by its number
//! `index >> PAGE_BITS`:
//!
//! * through the flat `near` table of page pointers when its number is
//!   below the table's length: a lookup is two array reads, and every table
//!   that grew without gaps (page after page) has all its pages there;
//! * through the ordered map `far` otherwise (cold, a tree search).
//!
//! Memory is in proportion to the pages held, whatever the slot indices:
//! the table never grows past [`TABLE_FREE_BYTES`] plus half the bytes of
//! the pages held, and the far map costs a node share per page. When the
//! pages held pay for a longer table, the table grows and takes the far
//! pages below its new end, so a map that fills up gaps between high
//! indices moves to the fast path on its own. So the index costs at most
//! 1.5 times a page's bytes and a far map entry per page, plus
//! [`TABLE_FREE_BYTES`]; a page exists only where an entry was written.
//!
//! Invariant: every page number below `near.len()` has its page (if any) in
//! `near`, every other page is in `far`; `pages` counts both.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::mem::size_of;

/// An entry of a [`PagedIndex`]: a plain value with one value that means
/// "nothing here", which fresh pages are filled with.
pub(crate) trait Entry: Copy + PartialEq {
    /// The entry of a slot index that holds nothing.
    const VACANT: Self;
}

impl Entry for u32 {
    const VACANT: u32 = u32::MAX;
}

const PAGE_BITS: u32 = 6;
/// Slot indices per page (64: a page of `u32` entries is 256 bytes).
pub(crate) const PAGE_LEN: usize = 1 << PAGE_BITS;
/// Bytes of page table the index may hold whatever its pages: 8,192
/// pointers, 524,288 slot indices.
pub(crate) const TABLE_FREE_BYTES: usize = 64 * 1024;

type Page<E> = [E; PAGE_LEN];
type Pointer<E> = Option<Box<Page<E>>>;
/// The pages past the table, by page number.
type FarMap<E> = BTreeMap<usize, Box<Page<E>>>;

/// A map from slot index to an entry `E`, in pages (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct PagedIndex<E> {
    /// `near[n]` is page `n`, for every page number `n < near.len()`.
    near: Vec<Pointer<E>>,
    /// The pages numbered `near.len()` and above, by page number; `None`
    /// until there is one. Boxed, so the cold lookups of far pages are
    /// given a pointer loaded from the index, not one into it: the
    /// compiler then knows they cannot write the index's own fields, and a
    /// loop of removals keeps them in registers instead of reloading them
    /// after every write (benches/NOTES.md, "`SoaMap` against its floors").
    far: Option<Box<FarMap<E>>>,
    /// Pages allocated, in `near` and `far`.
    pages: usize,
}

impl<E> Default for PagedIndex<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> PagedIndex<E> {
    pub(crate) const fn new() -> Self {
        PagedIndex {
            near: Vec::new(),
            far: None,
            pages: 0,
        }
    }
}

impl<E: Entry> PagedIndex<E> {
    /// The entry of `index` as stored ([`Entry::VACANT`] included), if its
    /// page exists.
    #[inline(always)]
    pub(crate) fn raw(&self, index: usize) -> Option<E> {
        match self.near.get(index >> PAGE_BITS) {
            Some(page) => Some(page.as_deref()?[index % PAGE_LEN]),
            None => self.far_raw(index),
        }
    }

    /// [`raw`](Self::raw) for an index in the table's range; `None` past
    /// it (where [`raw`](Self::raw) would look in the far map).
    #[inline(always)]
    pub(crate) fn raw_near(&self, index: usize) -> Option<E> {
        Some(self.near.get(index >> PAGE_BITS)?.as_deref()?[index % PAGE_LEN])
    }

    /// Whether no page is past the table (so [`raw_near`](Self::raw_near)
    /// answers as [`raw`](Self::raw)).
    #[inline]
    pub(crate) fn near_only(&self) -> bool {
        self.far_len() == 0
    }

    /// [`raw`](Self::raw) past the table: out of line and cold, so a
    /// lookup's hot path holds no call (nor a test of the far map).
    #[cold]
    #[inline(never)]
    fn far_raw(&self, index: usize) -> Option<E> {
        Some(self.far.as_deref()?.get(&(index >> PAGE_BITS))?[index % PAGE_LEN])
    }

    /// The entry of `index`, if it is not vacant.
    #[inline(always)]
    pub(crate) fn get(&self, index: usize) -> Option<E> {
        self.raw(index).filter(|e| *e != E::VACANT)
    }

    /// The entry of `index`, mutably, if its page exists.
    #[inline(always)]
    pub(crate) fn raw_mut(&mut self, index: usize) -> Option<&mut E> {
        let number = index >> PAGE_BITS;
        let page = if number < self.near.len() {
            self.near[number].as_deref_mut()?
        } else {
            far_page_mut(self.far.as_deref_mut()?, index)?
        };
        Some(&mut page[index % PAGE_LEN])
    }

    /// Writes the entry of `index`, whose page exists (an index that holds
    /// an entry): unlike [`write`](Self::write), no path of it allocates
    /// or calls a function given the index.
    ///
    /// # Panics
    ///
    /// If the page of `index` does not exist.
    #[inline(always)]
    pub(crate) fn write_held(&mut self, index: usize, entry: E) {
        match self.raw_mut(index) {
            Some(slot) => *slot = entry,
            None => unreachable!("an index that holds an entry has its page"),
        }
    }

    /// The entry of `index` to write, its page allocated if needed.
    #[inline(always)]
    pub(crate) fn entry(&mut self, index: usize) -> &mut E {
        let number = index >> PAGE_BITS;
        if !self.near.get(number).is_some_and(Option::is_some) {
            return self.entry_cold(index);
        }
        match self.near[number].as_deref_mut() {
            Some(page) => &mut page[index % PAGE_LEN],
            None => unreachable!("the page was just seen"),
        }
    }

    /// [`entry`](Self::entry) past the table or in a page not allocated.
    #[cold]
    #[inline(never)]
    fn entry_cold(&mut self, index: usize) -> &mut E {
        let number = index >> PAGE_BITS;
        if self.raw(index).is_none() {
            return &mut self.add_page(number)[index % PAGE_LEN];
        }
        match self.far.as_deref_mut().and_then(|far| far.get_mut(&number)) {
            Some(page) => &mut page[index % PAGE_LEN],
            None => unreachable!("a page past the table is in the far map"),
        }
    }

    /// Writes the entry of `index`, allocating its page if needed.
    #[inline(always)]
    pub(crate) fn write(&mut self, index: usize, entry: E) {
        if let Some(slot) = self.raw_mut(index) {
            *slot = entry;
            return;
        }
        self.add_page(index >> PAGE_BITS)[index % PAGE_LEN] = entry;
    }

    /// The longest table `pages` pages pay for (see the module docs).
    fn table_limit(pages: usize) -> usize {
        let paid = pages.saturating_mul(size_of::<Page<E>>()) / 2;
        TABLE_FREE_BYTES.max(paid) / size_of::<Pointer<E>>()
    }

    /// Allocates page `number`, absent so far, in the table if the pages
    /// pay for a table that long, else in the far map; grows the table as
    /// far as the pages pay for, taking the far pages below its new end.
    /// Cold: the writes' hot path finds an allocated page.
    #[cold]
    #[inline(never)]
    fn add_page(&mut self, number: usize) -> &mut Page<E> {
        self.pages += 1;
        let page = Box::new([E::VACANT; PAGE_LEN]);
        // A page in the table, with no far page the table could take,
        // neither grows nor moves anything: the limit is not computed.
        if number >= self.near.len() || self.far.as_deref().is_some_and(|far| !far.is_empty()) {
            let limit = Self::table_limit(self.pages);
            // The table's new end: past this page and the far pages below
            // the limit, if any.
            let far_end = (self.far.as_deref())
                .and_then(|far| far.range(..limit).next_back())
                .map(|(&n, _)| n + 1);
            let page_end = (number < limit).then_some(number + 1);
            let end = far_end.max(page_end).unwrap_or(0);
            if end > self.near.len() {
                self.grow_table(end, limit);
            }
        }
        if number < self.near.len() {
            self.near[number].insert(page)
        } else {
            (self.far.get_or_insert_with(Box::default))
                .entry(number)
                .or_insert(page)
        }
    }

    /// Makes the table `len` long (at most `limit`), its capacity growing
    /// geometrically but never past `limit`; moves in the far pages below
    /// `len`.
    fn grow_table(&mut self, len: usize, limit: usize) {
        debug_assert!(len > self.near.len() && len <= limit);
        if len > self.near.capacity() {
            let capacity = len.max(2 * self.near.capacity()).min(limit);
            self.near.reserve_exact(capacity - self.near.len());
        }
        self.near.resize_with(len, || None);
        let Some(far) = self.far.as_deref_mut() else {
            return;
        };
        let above = far.split_off(&len);
        for (number, page) in core::mem::replace(far, above) {
            self.near[number] = Some(page);
        }
    }

    /// Every allocated page with its first slot index, in slot order.
    pub(crate) fn pages(&self) -> impl Iterator<Item = (usize, &Page<E>)> + '_ {
        let near = self
            .near
            .iter()
            .enumerate()
            .filter_map(|(number, page)| Some((number << PAGE_BITS, page.as_deref()?)));
        let far = (self.far.iter())
            .flat_map(|far| far.iter())
            .map(|(&number, page)| (number << PAGE_BITS, &**page));
        near.chain(far)
    }

    /// Every `(slot index, entry)` not vacant, in slot order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (usize, E)> + '_ {
        self.pages().flat_map(|(first, page)| {
            page.iter()
                .enumerate()
                .filter(|(_, e)| **e != E::VACANT)
                .map(move |(o, &e)| (first + o, e))
        })
    }

    /// One past the highest index a page could hold an entry for: every
    /// index with an entry is below it. Cheap: the table's length and the
    /// far map's last page.
    pub(crate) fn index_end(&self) -> usize {
        let far = (self.far.as_deref())
            .and_then(|far| far.last_key_value())
            .map_or(0, |(&number, _)| number + 1);
        self.near.len().max(far).saturating_mul(PAGE_LEN)
    }

    /// Pages allocated.
    #[cfg(test)]
    pub(crate) fn page_count(&self) -> usize {
        self.pages
    }

    /// Bytes the index holds on the heap: pages, the table's capacity and
    /// the far map's entries (its nodes counted by their payload).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.pages * size_of::<Page<E>>()
            + self.near.capacity() * size_of::<Pointer<E>>()
            + self.far.as_ref().map_or(0, |far| {
                size_of::<FarMap<E>>()
                    + far.len() * (size_of::<usize>() + size_of::<Box<Page<E>>>())
            })
    }

    /// Makes every entry vacant; the pages stay allocated.
    pub(crate) fn vacate_all(&mut self) {
        let near = self.near.iter_mut().filter_map(|p| p.as_deref_mut());
        let far = (self.far.iter_mut()).flat_map(|far| far.values_mut().map(|p| &mut **p));
        for page in near.chain(far) {
            page.fill(E::VACANT);
        }
    }

    /// Frees the pages that hold only vacant entries and the table's
    /// unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        let held = |page: &Page<E>| page.iter().any(|e| *e != E::VACANT);
        for slot in &mut self.near {
            if slot.as_deref().is_some_and(|page| !held(page)) {
                *slot = None;
            }
        }
        if let Some(far) = self.far.as_deref_mut() {
            far.retain(|_, page| held(page));
        }
        if self.far_len() == 0 {
            self.far = None;
        }
        self.pages = self.near.iter().filter(|p| p.is_some()).count() + self.far_len();
        let used = self
            .near
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |n| n + 1);
        self.near.truncate(used);
        // Fewer pages pay for a shorter table: the pages past it go far.
        let limit = Self::table_limit(self.pages);
        if self.near.len() > limit {
            for (number, slot) in self.near.drain(limit..).enumerate() {
                if let Some(page) = slot {
                    (self.far.get_or_insert_with(Box::default)).insert(limit + number, page);
                }
            }
        }
        self.near.shrink_to_fit();
    }

    /// Pages past the table.
    fn far_len(&self) -> usize {
        self.far.as_ref().map_or(0, |far| far.len())
    }

    /// Checks the layout invariant of the module docs.
    ///
    /// # Panics
    ///
    /// If it does not hold.
    pub(crate) fn check_layout(&self) {
        let near = self.near.iter().filter(|p| p.is_some()).count();
        assert_eq!(near + self.far_len(), self.pages, "pages miscounted");
        if let Some((&first, _)) = self.far.as_deref().and_then(BTreeMap::first_key_value) {
            assert!(first >= self.near.len(), "a far page the table covers");
        }
        assert!(
            self.near.len() <= Self::table_limit(self.pages),
            "a table longer than its pages pay for"
        );
    }
}

/// [`PagedIndex::raw_mut`]'s page past the table: out of line and cold,
/// and given the far map (see the `far` field), not the index.
#[cold]
#[inline(never)]
fn far_page_mut<E>(far: &mut FarMap<E>, index: usize) -> Option<&mut Page<E>> {
    far.get_mut(&(index >> PAGE_BITS)).map(|p| &mut **p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_resolve_in_both_halves() {
        let mut index = PagedIndex::<u32>::new();
        assert_eq!(index.raw(0), None);
        index.write(5, 1);
        let far = 1usize << 40;
        index.write(far, 2);
        *index.entry(far + 1) = 3;
        assert_eq!(index.get(5), Some(1));
        assert_eq!(index.raw(6), Some(u32::VACANT));
        assert_eq!(index.get(6), None);
        assert_eq!(index.get(far), Some(2));
        assert_eq!(index.get(far + 1), Some(3));
        assert_eq!(index.get(far + PAGE_LEN), None);
        assert_eq!(index.get(usize::MAX), None);
        assert_eq!(index.page_count(), 2);
        assert_eq!(
            index.entries().collect::<Vec<_>>(),
            [(5, 1), (far, 2), (far + 1, 3)]
        );
        index.check_layout();
        index.vacate_all();
        assert_eq!(index.entries().count(), 0);
        assert_eq!(index.page_count(), 2);
        index.write(7, 4);
        index.shrink_to_fit();
        assert_eq!(index.page_count(), 1);
        assert_eq!(index.get(7), Some(4));
        index.check_layout();
    }

    #[test]
    fn a_table_grown_page_after_page_holds_every_page() {
        let mut index = PagedIndex::<u32>::new();
        let n = if cfg!(miri) {
            20 * PAGE_LEN
        } else {
            20_000 * PAGE_LEN
        };
        for i in (0..n).step_by(7) {
            index.write(i, i as u32);
        }
        assert!((index.far_len() == 0));
        assert_eq!(index.page_count(), n / PAGE_LEN);
        assert_eq!(index.get(7 * 100), Some(700));
        index.check_layout();
    }

    #[test]
    fn one_entry_per_far_page_costs_a_page_and_a_node_share() {
        let mut index = PagedIndex::<u32>::new();
        let n = if cfg!(miri) { 50 } else { 5_000 };
        // One entry per page, 2^20 pages apart, then one at the top.
        for k in 0..n {
            index.write((k << 20) * PAGE_LEN, k as u32);
        }
        index.write(usize::MAX, 9);
        assert_eq!(index.get(usize::MAX), Some(9));
        assert_eq!(index.page_count(), n + 1);
        let per_page = size_of::<Page<u32>>() + 16;
        assert!(index.heap_bytes() <= TABLE_FREE_BYTES + (n + 1) * per_page);
        index.check_layout();
    }

    #[test]
    fn far_pages_move_into_the_table_once_it_pays() {
        let mut index = PagedIndex::<u32>::new();
        // Pages from far above the free table, added in order: the first
        // ones go to the far map, then the table catches up and takes them.
        let start = 2 * TABLE_FREE_BYTES / size_of::<Pointer<u32>>();
        let count = if cfg!(miri) { 10 } else { start };
        index.write(start * PAGE_LEN, 0);
        assert_eq!(index.far_len(), 1);
        for p in 1..count {
            index.write((start + p) * PAGE_LEN + 1, p as u32);
            index.check_layout();
        }
        if !cfg!(miri) {
            assert!((index.far_len() == 0), "{} far pages", index.far_len());
        }
        for p in 1..count {
            assert_eq!(index.get((start + p) * PAGE_LEN + 1), Some(p as u32));
        }
        assert_eq!(index.get(start * PAGE_LEN), Some(0));
        // Emptied down to its first and last pages, the table is too long
        // for them: the last goes back to the far map.
        for p in 1..count - 1 {
            index.write((start + p) * PAGE_LEN + 1, u32::VACANT);
        }
        index.shrink_to_fit();
        index.check_layout();
        assert_eq!(index.page_count(), 2.min(count));
        assert_eq!(
            index.get((start + count - 1) * PAGE_LEN + 1),
            Some(count as u32 - 1)
        );
        assert_eq!(index.get(start * PAGE_LEN), Some(0));
    }
}
