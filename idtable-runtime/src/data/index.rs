//! The lookup from an id's slot index to its entity in a
//! [`DataMap`](super::DataMap): derived from the buffer (never saved),
//! rebuilt on load.
//!
//! A [`PagedIndex`] of [`Place`]s: a page exists only where some entity's
//! index falls, and the index holds memory in proportion to its pages
//! whatever the indices (see [`paged_index`](crate::paged_index)), so a
//! map holding a few entities with high indices stays small. A lookup of a
//! table that grew without gaps is two array reads.

use crate::paged_index::{Entry, PagedIndex};

/// Where one entity is: its region's word offset in the map's buffer and its
/// position in the map's dense id list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) offset: u32,
    pub(crate) dense: u32,
}

/// The place of no entity.
impl Entry for Place {
    const VACANT: Place = Place {
        offset: 0,
        dense: u32::MAX,
    };
}

const EMPTY: Place = Place::VACANT;

/// Slot index → [`Place`], paged.
#[derive(Clone, Debug, Default)]
pub(crate) struct Places {
    pages: PagedIndex<Place>,
}

impl Places {
    /// The entity at slot index `index`, if any.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<Place> {
        self.pages.get(index)
    }

    /// The place at slot index `index`, to write, adding its page if needed.
    #[inline]
    pub(crate) fn entry(&mut self, index: usize) -> &mut Place {
        self.pages.entry(index)
    }

    /// Puts `place` at index `index` if that holds no entity yet; `false`
    /// (changing nothing) if it does.
    #[inline]
    pub(crate) fn insert_new(&mut self, index: usize, place: Place) -> bool {
        let entry = self.entry(index);
        let vacant = *entry == EMPTY;
        if vacant {
            *entry = place;
        }
        vacant
    }

    /// Sets the place at slot index `index`, which holds an entity, to `offset`.
    pub(crate) fn set_offset(&mut self, index: usize, offset: usize) {
        self.entry(index).offset = offset as u32;
    }

    /// Empties the place at slot index `index`.
    pub(crate) fn remove(&mut self, index: usize) {
        *self.entry(index) = EMPTY;
    }

    /// Empties every place, keeping the pages.
    pub(crate) fn clear(&mut self) {
        self.pages.vacate_all();
    }

    /// Releases unused capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.pages.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paged_index::PAGE_LEN as PAGE;

    #[test]
    fn slots_far_apart_take_one_page_each() {
        let mut index = Places::default();
        assert_eq!(index.get(0), None);
        *index.entry(5) = Place {
            offset: 7,
            dense: 0,
        };
        *index.entry(PAGE * 40 + 3) = Place {
            offset: 9,
            dense: 1,
        };
        assert_eq!(index.pages.page_count(), 2);
        assert_eq!(index.get(5).map(|s| s.offset), Some(7));
        assert_eq!(index.get(PAGE * 40 + 3).map(|s| s.dense), Some(1));
        assert_eq!(index.get(6), None);
        assert_eq!(index.get(PAGE * 39), None);
        assert_eq!(index.get(usize::MAX), None);
        let taken = Place {
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
