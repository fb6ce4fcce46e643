//! A set of dense indices, one bit each: which rows a batch removal takes.

use alloc::vec::Vec;

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

    /// The smallest marked index, if any.
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
