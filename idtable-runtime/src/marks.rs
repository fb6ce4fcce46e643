//! A set of dense indices, one bit each: which rows a batch removal takes.

use alloc::vec::Vec;

/// Bit `d` set when dense index `d` is marked.
pub(crate) struct Marks {
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
}
