//! The lookup from an id's slot index to its entity in a
//! [`DataMap`](super::DataMap): derived from the buffer (never saved),
//! rebuilt on load.
//!
//! Slot indices of a table are dense from 0, so the lookup is an array
//! indexed by them, in pages of [`PAGE`] slots: a page exists only where
//! some entity's index falls, so a map holding a few entities with high
//! indices stays small. The pages live in one `Vec` and the page table in
//! another, so the lookup costs two allocations however many pages there
//! are, and a lookup is two array reads.

use alloc::vec::Vec;

/// Slots per page.
const PAGE_BITS: u32 = 10;
/// Slots per page (1024).
pub(crate) const PAGE: usize = 1 << PAGE_BITS;

/// Where one entity is: its region's word offset in the map's buffer and its
/// position in the map's dense id list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) offset: u32,
    pub(crate) dense: u32,
}

/// A slot that holds no entity.
const EMPTY: Slot = Slot {
    offset: 0,
    dense: u32::MAX,
};

/// Slot index → [`Slot`], paged.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotIndex {
    /// Per page of slot indices: its page number in `slots` plus one, or 0.
    pages: Vec<u32>,
    /// Pages of [`PAGE`] slots, back to back.
    slots: Vec<Slot>,
}

impl SlotIndex {
    /// The entity at slot index `index`, if any.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<Slot> {
        let page = *self.pages.get(index >> PAGE_BITS)? as usize;
        let slot = *self
            .slots
            .get(page.wrapping_sub(1).wrapping_mul(PAGE) + (index & (PAGE - 1)))?;
        (slot != EMPTY).then_some(slot)
    }

    /// The slot of index `index` to write, adding its page if needed.
    /// `index` is at most `u32::MAX` (the map checks).
    #[inline]
    pub(crate) fn entry(&mut self, index: usize) -> &mut Slot {
        let at = match self.pages.get(index >> PAGE_BITS) {
            Some(&page) if page != 0 => (page as usize - 1) * PAGE + (index & (PAGE - 1)),
            _ => self.add_page(index),
        };
        &mut self.slots[at]
    }

    /// Adds the page of `index` (and room in the page table up to it);
    /// returns the position of `index`'s slot in `slots`.
    #[cold]
    #[inline(never)]
    fn add_page(&mut self, index: usize) -> usize {
        let page_of = index >> PAGE_BITS;
        if page_of >= self.pages.len() {
            self.pages.resize(page_of + 1, 0);
        }
        if self.pages[page_of] == 0 {
            self.slots.resize(self.slots.len() + PAGE, EMPTY);
            self.pages[page_of] = (self.slots.len() / PAGE) as u32;
        }
        (self.pages[page_of] as usize - 1) * PAGE + (index & (PAGE - 1))
    }

    /// Puts `slot` at index `index` if that holds no entity yet; `false`
    /// (changing nothing) if it does.
    #[inline]
    pub(crate) fn insert_new(&mut self, index: usize, slot: Slot) -> bool {
        let entry = self.entry(index);
        let vacant = *entry == EMPTY;
        if vacant {
            *entry = slot;
        }
        vacant
    }

    /// Sets the slot of `index`, which holds an entity, to `offset`.
    pub(crate) fn set_offset(&mut self, index: usize, offset: usize) {
        self.entry(index).offset = offset as u32;
    }

    /// Empties the slot of `index`.
    pub(crate) fn remove(&mut self, index: usize) {
        *self.entry(index) = EMPTY;
    }

    /// Empties every slot, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.pages.clear();
        self.slots.clear();
    }

    /// Releases unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.pages.shrink_to_fit();
        self.slots.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_far_apart_take_one_page_each() {
        let mut index = SlotIndex::default();
        assert_eq!(index.get(0), None);
        *index.entry(5) = Slot {
            offset: 7,
            dense: 0,
        };
        *index.entry(PAGE * 40 + 3) = Slot {
            offset: 9,
            dense: 1,
        };
        assert_eq!(index.slots.len(), 2 * PAGE);
        assert_eq!(index.get(5).map(|s| s.offset), Some(7));
        assert_eq!(index.get(PAGE * 40 + 3).map(|s| s.dense), Some(1));
        assert_eq!(index.get(6), None);
        assert_eq!(index.get(PAGE * 39), None);
        assert_eq!(index.get(usize::MAX), None);
        let taken = Slot {
            offset: 1,
            dense: 2,
        };
        assert!(!index.insert_new(5, taken));
        assert_eq!(index.get(5).map(|s| s.offset), Some(7));
        assert!(index.insert_new(6, taken));
        assert_eq!(index.get(6), Some(taken));
        index.set_offset(5, 11);
        assert_eq!(index.get(5).map(|s| s.offset), Some(11));
        index.remove(5);
        assert_eq!(index.get(5), None);
        index.clear();
        assert_eq!(index.get(PAGE * 40 + 3), None);
    }
}
