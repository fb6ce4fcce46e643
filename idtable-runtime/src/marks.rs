//! A set of dense indices, one bit each: which rows a batch removal takes.

use alloc::vec::Vec;

/// Bit `d` set when index `d` is marked.
#[derive(Clone, Default)]
pub struct Marks {
    words: Vec<u64>,
}

impl Marks {
    /// No index marked, no room.
    pub(crate) const fn new() -> Self {
        Marks { words: Vec::new() }
    }

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

    /// Unmarks `d`; `false` if it was not marked.
    #[inline]
    pub(crate) fn remove(&mut self, d: usize) -> bool {
        let bit = 1u64 << (d % 64);
        match self.words.get_mut(d / 64) {
            Some(word) if *word & bit != 0 => {
                *word &= !bit;
                true
            }
            _ => false,
        }
    }

    /// Marks every index of `range`, a word at a time.
    pub(crate) fn insert_range(&mut self, range: core::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        let words = range.end.div_ceil(64);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
        let mut d = range.start;
        while d < range.end {
            let word = d / 64;
            let low = d % 64;
            let high = (range.end - word * 64).min(64);
            self.words[word] |= (u64::MAX >> (64 - (high - low))) << low;
            d = word * 64 + high;
        }
    }

    /// Room for indices below `len` without reallocating; `false` (and
    /// nothing changes) if that much memory cannot be had.
    pub(crate) fn try_reserve_len(&mut self, len: usize) -> bool {
        let words = len.div_ceil(64);
        self.words
            .try_reserve(words.saturating_sub(self.words.len()))
            .is_ok()
    }

    /// Whether `d` is marked (an index past the end is not).
    #[inline(always)]
    pub(crate) fn contains(&self, d: usize) -> bool {
        self.words
            .get(d / 64)
            .is_some_and(|w| w & (1u64 << (d % 64)) != 0)
    }

    /// The smallest marked index, if any.
    /// Calls `f` with each marked index in `start..end`, ascending (`set ==
    /// true`), or with each unmarked one (`set == false`): a word at a time,
    /// one step per index visited, with no branch on each index's mark.
    #[inline(always)]
    pub(crate) fn for_each(&self, set: bool, start: usize, end: usize, mut f: impl FnMut(usize)) {
        if start >= end {
            return;
        }
        let flip = if set { 0 } else { u64::MAX };
        let (first, last) = (start / 64, (end - 1) / 64);
        for w in first..=last {
            let mut bits = self.words.get(w).copied().unwrap_or(0) ^ flip;
            if w == first {
                bits &= u64::MAX << (start % 64);
            }
            let base = w * 64;
            if end - base < 64 {
                bits &= (1u64 << (end - base)) - 1;
            }
            while bits != 0 {
                f(base + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }

    /// The marked indices, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            core::iter::from_fn(move || {
                let bit = bits.trailing_zeros();
                (bits != 0).then(|| {
                    bits &= bits - 1;
                    w * 64 + bit as usize
                })
            })
        })
    }

    /// Number of marked indices.
    pub(crate) fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub(crate) fn first(&self) -> Option<usize> {
        let (i, w) = self.words.iter().enumerate().find(|(_, w)| **w != 0)?;
        Some(i * 64 + w.trailing_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::Marks;

    #[test]
    fn marks_are_a_set_of_indices() {
        let mut m = Marks::with_len(10);
        assert_eq!(m.first(), None);
        assert!(m.insert(3));
        assert!(!m.insert(3));
        assert!(m.insert(200)); // grows past the initial length
        assert!(m.contains(3) && m.contains(200));
        assert!(!m.contains(4) && !m.contains(100_000));
        assert_eq!(m.first(), Some(3));
        assert!(m.remove(3) && !m.remove(3) && !m.remove(100_000));
        assert_eq!(m.first(), Some(200));
    }

    #[test]
    fn insert_range_marks_each_index_once() {
        for (start, end) in [
            (0, 0),
            (0, 1),
            (3, 64),
            (61, 150),
            (64, 128),
            (5, 7),
            (0, 200),
        ] {
            let mut m = Marks::new();
            m.insert_range(start..end);
            let got: Vec<_> = (0..260).filter(|&d| m.contains(d)).collect();
            assert_eq!(got, (start..end).collect::<Vec<_>>(), "{start}..{end}");
        }
    }

    #[test]
    fn for_each_visits_marked_or_unmarked_indices_in_a_range() {
        let mut m = Marks::with_len(200);
        for d in [0, 3, 63, 64, 65, 127, 130, 199] {
            m.insert(d);
        }
        for (start, end) in [
            (0, 200),
            (3, 130),
            (4, 64),
            (64, 65),
            (65, 65),
            (100, 200),
            (5, 7),
        ] {
            let (mut set, mut unset) = (Vec::new(), Vec::new());
            m.for_each(true, start, end, |d| set.push(d));
            m.for_each(false, start, end, |d| unset.push(d));
            let want_set: Vec<_> = (start..end).filter(|&d| m.contains(d)).collect();
            let want_unset: Vec<_> = (start..end).filter(|&d| !m.contains(d)).collect();
            assert_eq!((set, unset), (want_set, want_unset), "{start}..{end}");
        }
    }
}
