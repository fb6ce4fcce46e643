//! [`Tail`]: the fresh indices reserved past a table's slot words, kept as a
//! count and runs instead of one slot word each.
//!
//! A batch of reservations may claim more fresh indices than memory could
//! hold slot words for (`Id64<62>` has 2^62 indices). Settling such claims
//! must still work, and work without allocating, since every removal
//! settles the claims pending: so the claimed fresh indices are only
//! counted here, and become slot words when something needs them (a fill
//! of one of them, or an insert that takes the fresh index after them), as
//! far as it needs them.
//!
//! The tail is the indices `start..start + len`, `start` being the table's
//! slot count (the table passes it in). Each is either **reserved** (its id
//! of generation 1 waits for its row) or **spent** (that id was released,
//! cleared, or saved: it must never be issued again; the slot joins the
//! free queue once it has a word). Spent indices are the front
//! `start..spent_front` (what `clear` and loading make: one number), and
//! `runs`, sorted, disjoint and apart from each other and from that front
//! (what releasing one at a time makes).
//!
//! Invariants, checked by [`Tail::check`]: `spent` counts the spent
//! indices; every run lies in `max(start, spent_front)..start + len`,
//! ascending, with a gap before each; an empty tail has no run and spends
//! nothing.

use alloc::vec::Vec;
use core::ops::Range;

/// The fresh indices reserved past the slot words (module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct Tail {
    len: usize,
    /// `start..spent_front` is spent (nothing, while `spent_front <= start`).
    spent_front: usize,
    /// Spent runs past the spent front.
    runs: Vec<Range<usize>>,
    /// Number of spent indices.
    spent: usize,
}

impl Tail {
    pub(super) const fn new() -> Self {
        Tail {
            len: 0,
            spent_front: 0,
            runs: Vec::new(),
            spent: 0,
        }
    }

    /// A tail of `len` indices, all spent (a loaded table's).
    pub(super) fn all_spent(start: usize, len: usize) -> Self {
        Tail {
            len,
            spent_front: start + len,
            runs: Vec::new(),
            spent: len,
        }
    }

    /// Number of indices in the tail.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Number of reserved indices (waiting for their rows).
    #[inline]
    pub(super) fn reserved(&self) -> usize {
        self.len - self.spent
    }

    /// Number of spent indices.
    #[inline]
    pub(super) fn spent(&self) -> usize {
        self.spent
    }

    /// Appends `n` reserved indices (settled fresh claims).
    #[inline]
    pub(super) fn extend(&mut self, n: usize) {
        self.len += n;
    }

    /// Whether index `i` is in the tail and reserved.
    pub(super) fn is_reserved(&self, start: usize, i: usize) -> bool {
        i >= start.max(self.spent_front) && i - start < self.len && self.run_at(i).is_err()
    }

    /// The run holding `i` (`Ok`), or where a run starting at `i` would go
    /// (`Err`).
    fn run_at(&self, i: usize) -> Result<usize, usize> {
        self.runs.binary_search_by(|run| {
            if run.end <= i {
                core::cmp::Ordering::Less
            } else if run.start > i {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
    }

    /// Spends the reserved index `i` (a release). May allocate a run.
    pub(super) fn spend(&mut self, start: usize, i: usize) {
        debug_assert!(self.is_reserved(start, i));
        self.spent += 1;
        let front = start.max(self.spent_front);
        let Err(at) = self.run_at(i) else {
            unreachable!("a reserved index is in no run");
        };
        let joins_before = if at == 0 {
            i == front
        } else {
            self.runs[at - 1].end == i
        };
        let joins_after = self.runs.get(at).is_some_and(|run| run.start == i + 1);
        match (joins_before, joins_after) {
            (true, true) if at == 0 => {
                // The front reaches the first run: they become one front.
                self.spent_front = self.runs.remove(0).end;
            }
            (true, true) => {
                let next = self.runs.remove(at);
                self.runs[at - 1].end = next.end;
            }
            (true, false) if at == 0 => self.spent_front = i + 1,
            (true, false) => self.runs[at - 1].end = i + 1,
            (false, true) => self.runs[at].start = i,
            (false, false) => self.runs.insert(at, i..i + 1),
        }
    }

    /// Spends every index (a clear). Allocates nothing.
    pub(super) fn spend_all(&mut self, start: usize) {
        self.runs.clear();
        self.spent_front = start + self.len;
        self.spent = self.len;
    }

    /// Takes `start..upto` off the front of the tail, calling `spent` with
    /// each spent index among them, ascending; returns how many were
    /// reserved. The caller has made slot words for them.
    pub(super) fn take_front(
        &mut self,
        start: usize,
        upto: usize,
        mut spent: impl FnMut(usize),
    ) -> usize {
        debug_assert!(start <= upto && upto - start <= self.len);
        let taken = upto - start;
        let mut spent_taken = 0;
        for i in start..self.spent_front.min(upto) {
            spent(i);
            spent_taken += 1;
        }
        let mut whole = 0;
        for run in &mut self.runs {
            if run.start >= upto {
                break;
            }
            for i in run.start..run.end.min(upto) {
                spent(i);
                spent_taken += 1;
            }
            if run.end <= upto {
                whole += 1;
            } else {
                run.start = upto;
            }
        }
        self.runs.drain(..whole);
        self.len -= taken;
        self.spent -= spent_taken;
        // A run now at the front joins it.
        let front = upto.max(self.spent_front);
        if self.runs.first().is_some_and(|run| run.start == front) {
            self.spent_front = self.runs.remove(0).end;
        }
        if self.len == 0 {
            self.spent_front = 0;
        }
        taken - spent_taken
    }

    /// Checks the invariants (module docs) for a tail starting at `start`.
    ///
    /// # Panics
    ///
    /// With a message naming the first that does not hold.
    pub(super) fn check(&self, start: usize) {
        let end = start + self.len;
        assert!(
            self.spent_front <= end,
            "the tail's spent front is past its end"
        );
        let front = start.max(self.spent_front);
        let mut spent = front - start;
        let mut after = front;
        for (k, run) in self.runs.iter().enumerate() {
            assert!(run.start < run.end, "empty run {k} in the tail");
            assert!(
                run.start > after,
                "tail run {k} touches what is spent before it"
            );
            assert!(run.end <= end, "tail run {k} is past the tail");
            spent += run.len();
            after = run.end;
        }
        assert_eq!(spent, self.spent, "the tail's spent indices are miscounted");
    }
}

#[cfg(test)]
mod tests {
    use super::Tail;
    use alloc::collections::BTreeSet;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// Spending and taking the front against a set of spent indices.
    #[derive(Clone, Debug)]
    enum Op {
        Extend(usize),
        Spend(usize),
        SpendAll,
        Take(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            2 => (0..20usize).prop_map(Op::Extend),
            6 => any::<usize>().prop_map(Op::Spend),
            1 => Just(Op::SpendAll),
            2 => any::<usize>().prop_map(Op::Take),
        ]
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config(256, 4))]
        #[test]
        fn tail_against_a_set(ops in proptest::collection::vec(op(), 1..80)) {
            let mut tail = Tail::new();
            let mut start = 5usize;
            let mut len = 0usize;
            let mut spent = BTreeSet::new();
            for op in ops {
                match op {
                    Op::Extend(n) => {
                        tail.extend(n);
                        len += n;
                    }
                    Op::Spend(k) => {
                        let reserved: Vec<usize> =
                            (start..start + len).filter(|i| !spent.contains(i)).collect();
                        if !reserved.is_empty() {
                            let i = reserved[k % reserved.len()];
                            prop_assert!(tail.is_reserved(start, i));
                            tail.spend(start, i);
                            spent.insert(i);
                        }
                    }
                    Op::SpendAll => {
                        tail.spend_all(start);
                        spent.extend(start..start + len);
                    }
                    Op::Take(k) => {
                        let upto = start + k % (len + 1);
                        let mut seen = Vec::new();
                        let reserved = tail.take_front(start, upto, |i| seen.push(i));
                        let want: Vec<usize> = spent.range(start..upto).copied().collect();
                        prop_assert_eq!(&seen, &want);
                        prop_assert_eq!(reserved, upto - start - want.len());
                        for i in want {
                            spent.remove(&i);
                        }
                        len -= upto - start;
                        start = upto;
                    }
                }
                tail.check(start);
                prop_assert_eq!(tail.len(), len);
                prop_assert_eq!(tail.reserved(), len - spent.len());
                for i in start.saturating_sub(2)..start + len + 2 {
                    let want = i >= start && i < start + len && !spent.contains(&i);
                    prop_assert_eq!(tail.is_reserved(start, i), want, "index {}", i);
                }
            }
        }
    }
}
