//! Sets of indices: [`Marks`], one bit each (the loader's check of a
//! table's free queue); [`Detached`], the rows a batch removal has marked, and
//! the tags it marks keys with.

use alloc::vec::Vec;

use crate::id::{Id, IdBits};

/// Bit `d` set when index `d` is marked.
#[derive(Clone, Default)]
pub struct Marks {
    words: Vec<u64>,
}

impl Marks {
    /// No index marked, room for `0..len` without reallocating.
    pub(crate) fn with_len(len: usize) -> Self {
        Marks {
            words: alloc::vec![0; len.div_ceil(64)],
        }
    }

    /// Marks `d`; `false` if it was marked already.
    #[inline]
    pub(crate) fn insert(&mut self, d: usize) -> bool {
        let (word, bit) = (d / 64, 1u64 << (d % 64));
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let was = self.words[word] & bit != 0;
        self.words[word] |= bit;
        !was
    }

    /// Whether `d` is marked (an index past the end is not).
    #[inline(always)]
    pub(crate) fn contains(&self, d: usize) -> bool {
        self.words
            .get(d / 64)
            .is_some_and(|w| w & (1u64 << (d % 64)) != 0)
    }
}

/// The dense positions a batch removal has detached (`rows::detach`), all
/// in `first..end` (none while that is empty), and where their marks are:
/// the range its second pass reads and, if it stops before that pass, the
/// range it reattaches.
///
/// The marks are kept where no allocation is needed. Where every key's
/// index leaves its top bit clear (the index says so,
/// `rows::sealed::Index::taggable`), a key is marked in place in the keys,
/// that bit set ([`tagged`]): the second pass reads the marks as it reads
/// the keys, in order. Otherwise the index itself is marked (a table's slot
/// or a map's entry stops naming the key's position), and the second pass
/// asks it for each row.
#[derive(Clone, Copy, Debug, Default)]
pub struct Detached {
    pub(crate) first: usize,
    pub(crate) end: usize,
    /// Whether the marks are tags in the keys (else in the index).
    pub(crate) tagged: bool,
}

impl Detached {
    /// Nothing detached.
    pub(crate) const NONE: Detached = Detached {
        first: 0,
        end: 0,
        tagged: false,
    };

    /// Marks in `first..end` (none if it is empty), in the keys if
    /// `tagged`, else in the index.
    pub(crate) fn new(first: usize, end: usize, tagged: bool) -> Detached {
        Detached { first, end, tagged }
    }

    /// Whether nothing was detached.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.first >= self.end
    }

    /// Notes that `dense` was detached.
    #[inline(always)]
    pub(crate) fn note(&mut self, dense: usize) {
        if self.is_empty() {
            (self.first, self.end) = (dense, dense + 1);
        } else {
            self.first = self.first.min(dense);
            self.end = self.end.max(dense + 1);
        }
    }
}

/// The top bit of `K`'s index: clear in every key of a taggable index.
#[inline(always)]
fn tag_bit<K: Id>() -> u64 {
    1 << (K::INDEX_BITS - 1)
}

/// The indices below which a key's tag bit is clear: an index holding
/// only such keys can tag them (none for a layout with no index bits).
#[inline(always)]
pub(crate) fn tag_limit<K: Id>() -> u64 {
    if K::INDEX_BITS == 0 {
        0
    } else {
        tag_bit::<K>()
    }
}

/// `key` marked in place: its index's top bit set.
#[inline(always)]
pub(crate) fn tagged<K: Id>(key: K) -> K {
    retagged(key, key.to_bits().to_u64() | tag_bit::<K>())
}

/// `key` with its mark taken off: its index's top bit cleared.
#[inline(always)]
pub(crate) fn untagged<K: Id>(key: K) -> K {
    retagged(key, key.to_bits().to_u64() & !tag_bit::<K>())
}

/// Whether `key`, held by a taggable index, is marked.
#[inline(always)]
pub(crate) fn is_tagged<K: Id>(key: K) -> bool {
    key.to_bits().to_u64() & tag_bit::<K>() != 0
}

/// Which of `keys` (at most 64) are tagged: bit `i` for `keys[i]`.
#[inline(always)]
pub(crate) fn tags<K: Id>(keys: &[K]) -> u64 {
    debug_assert!(keys.len() <= 64);
    let shift = K::INDEX_BITS - 1;
    keys.iter().rev().fold(0, |word, key| {
        word << 1 | (key.to_bits().to_u64() >> shift & 1)
    })
}

/// `key` with its bits replaced by `bits`, which differ from them in an
/// index bit only (the generation, never 0, is kept).
#[inline(always)]
fn retagged<K: Id>(key: K, bits: u64) -> K {
    match K::from_bits(K::Bits::from_u64_truncating(bits)) {
        Some(key) => key,
        None => unreachable!("{key:?} has its generation"),
    }
}

#[cfg(test)]
mod tests {
    use super::{is_tagged, tagged, tags, untagged, Detached, Marks};
    use crate::id::{Id, Id16_16, Id32, Id32_32};

    #[test]
    fn a_tag_sets_the_top_index_bit_and_comes_off() {
        let id = Id32_32::new(5, 7).unwrap();
        let t = tagged(id);
        assert_eq!((t.index(), t.generation()), (5 | 1 << 31, 7));
        assert!(is_tagged(t) && !is_tagged(id));
        assert_eq!(untagged(t), id);
        let small = Id32::<1>::new(0, 3).unwrap(); // one index bit
        assert_eq!(tagged(small).index(), 1);
        assert_eq!(untagged(tagged(small)), small);
        let top = Id16_16::new(Id16_16::MAX_INDEX >> 1, Id16_16::MAX_GENERATION).unwrap();
        assert_eq!(untagged(tagged(top)), top);
        let keys: Vec<Id32_32> = (0..64).map(|i| Id32_32::new(i, 1).unwrap()).collect();
        let marked: Vec<_> = keys
            .iter()
            .map(|&k| if k.index() % 3 == 1 { tagged(k) } else { k })
            .collect();
        let want = (0..64).filter(|i| i % 3 == 1).fold(0u64, |w, i| w | 1 << i);
        assert_eq!(
            (tags(&marked), tags(&marked[..5]), tags(&keys)),
            (want, 0b10010, 0)
        );
    }

    #[test]
    fn detached_notes_the_range_of_the_marks() {
        let mut span = Detached::NONE;
        assert!(span.is_empty());
        span.note(7);
        assert_eq!((span.first, span.end), (7, 8));
        span.note(3);
        span.note(5);
        assert_eq!((span.first, span.end), (3, 8));
    }

    #[test]
    fn marks_are_a_set_of_indices() {
        let mut m = Marks::with_len(10);
        assert!(!m.contains(3));
        assert!(m.insert(3));
        assert!(!m.insert(3));
        assert!(m.insert(200)); // grows past the initial length
        assert!(m.contains(3) && m.contains(200));
        assert!(!m.contains(4) && !m.contains(100_000));
    }
}
