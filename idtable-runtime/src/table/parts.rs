//! [`IdTableParts`]: an [`IdTable`] as plain data, and the checks that turn
//! plain data back into a table.

use alloc::vec::Vec;
use core::fmt;

use super::{IdTable, OnExhausted, TableConfig};
use crate::id::{Id, IdBits};
use crate::marks::Marks;

/// The state of an [`IdTable`] as plain numbers: what a save file holds.
///
/// Three lists and a number describe a table completely:
///
/// * `slots[s]` is the generation of slot `s`: the generation of its live
///   id, or of the last id it issued while it is free or retired;
/// * `dense[d]` is the slot of the live id at dense index `d`, so that id is
///   `(dense[d], slots[dense[d]])`;
/// * `free` lists the freed slots waiting for reuse, oldest first;
/// * `spent_tail` counts the indices past `slots` whose first id was
///   reserved and never filled (usually 0; see the field).
///
/// The configuration ([`TableConfig`]) is not part of it: it belongs to the
/// allocator's type and is given back to [`IdTable::from_parts`].
/// [`IdTable::from_parts`] checks every list, so parts from an untrusted
/// source give an error, never a table that misbehaves.
///
/// ```
/// use idtable::{Id24_8, IdTable, IdTableParts, TableConfig};
///
/// let mut table = IdTable::<Id24_8>::new();
/// let (a, _) = table.insert();
/// let (b, _) = table.insert();
/// table.remove(a);
///
/// let parts = table.to_parts();
/// assert_eq!(parts, IdTableParts { slots: vec![1, 1], dense: vec![1], free: vec![0], spent_tail: 0 });
///
/// let loaded = IdTable::<Id24_8>::from_parts(&parts, TableConfig::default()).unwrap();
/// assert_eq!(loaded.ids(), &[b]);
/// assert!(!loaded.contains(a));
/// assert_eq!(loaded.next_id(), table.next_id()); // the free queue came along
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(rename = "IdTable", deny_unknown_fields)
)]
pub struct IdTableParts {
    /// The generation of every slot ever issued (live, free or retired).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::table::serde::u64_list::deserialize")
    )]
    pub slots: Vec<u64>,
    /// The slot of each live id, in dense order.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::table::serde::u64_list::deserialize")
    )]
    pub dense: Vec<u64>,
    /// The freed slots waiting for reuse, oldest first.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::table::serde::u64_list::deserialize")
    )]
    pub free: Vec<u64>,
    /// How many indices past `slots` were reserved (their id of generation
    /// 1 issued) and never filled. Like every reservation a save holds,
    /// they are spent: the loaded table never issues those ids, and queues
    /// the indices' slots, with generation 1, after `free` (in index order)
    /// when it first needs a fresh index past them. A batch of reservations
    /// is kept as this one number however large it is, so a save holds
    /// reservations in space that does not grow with their count. In
    /// human-readable formats the field is left out while it is 0.
    #[cfg_attr(feature = "serde", serde(default))]
    pub spent_tail: u64,
}

/// Why [`IdTable::from_parts`] (or a derived allocator's `Deserialize`)
/// refused its input. The input is described, not trusted: every message
/// names the slot or list at fault.
///
/// ```
/// use idtable::{Id24_8, IdTable, IdTableParts, PartsError, TableConfig};
///
/// // Slot 0 is live twice.
/// let parts = IdTableParts { slots: vec![1], dense: vec![0, 0], free: vec![], spent_tail: 0 };
/// let err = IdTable::<Id24_8>::from_parts(&parts, TableConfig::default()).unwrap_err();
/// assert_eq!(err, PartsError::DuplicateSlot { slot: 0 });
/// assert_eq!(err.to_string(), "slot 0 is listed twice in `dense` and `free`");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PartsError {
    /// More slots than the id layout has indices.
    TooManySlots {
        /// Slots given.
        slots: usize,
        /// Indices of the layout (`MAX_INDEX + 1`).
        max: usize,
    },
    /// A generation of 0 (never issued) or above the layout's
    /// `MAX_GENERATION`.
    BadGeneration {
        /// The slot.
        slot: usize,
        /// Its generation.
        generation: u64,
    },
    /// `dense` or `free` names a slot past the end of `slots`.
    SlotOutOfRange {
        /// `"dense"` or `"free"`.
        list: &'static str,
        /// The slot named.
        slot: u64,
        /// Number of slots.
        slots: usize,
    },
    /// A slot appears twice across `dense` and `free`: live twice, queued
    /// twice, or both live and queued.
    DuplicateSlot {
        /// The slot.
        slot: usize,
    },
    /// A vacant slot is neither queued nor retired: it would be lost.
    LostSlot {
        /// The slot.
        slot: usize,
    },
    /// A queued slot has used up its generations under
    /// [`OnExhausted::Retire`]: issuing it again would restart at generation
    /// 1 and make old ids of the slot resolve again.
    WouldResurrect {
        /// The slot.
        slot: usize,
    },
    /// A column does not have one value per live id.
    ColumnLength {
        /// The column (field) name.
        column: &'static str,
        /// Values given.
        len: usize,
        /// Live ids in the table.
        expected: usize,
    },
    /// Not exactly one row per live id
    /// ([`SoaStorage::from_table_and_rows`](crate::SoaStorage::from_table_and_rows)).
    RowCount {
        /// Rows given.
        rows: usize,
        /// Live ids in the table.
        expected: usize,
    },
}

impl fmt::Display for PartsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PartsError::TooManySlots { slots, max } => {
                write!(f, "{slots} slots, but the id layout has {max} indices")
            }
            PartsError::BadGeneration { slot, generation } => write!(
                f,
                "slot {slot} has generation {generation}, outside 1..=MAX_GENERATION of the id layout"
            ),
            PartsError::SlotOutOfRange { list, slot, slots } => {
                write!(f, "`{list}` names slot {slot}, but there are {slots} slots")
            }
            PartsError::DuplicateSlot { slot } => {
                write!(f, "slot {slot} is listed twice in `dense` and `free`")
            }
            PartsError::LostSlot { slot } => write!(
                f,
                "slot {slot} is vacant but neither queued in `free` nor retired"
            ),
            PartsError::WouldResurrect { slot } => write!(
                f,
                "slot {slot} is queued in `free` but has used up its generations \
                 (on_exhausted = retire): reissuing it would make its old ids resolve again"
            ),
            PartsError::ColumnLength {
                column,
                len,
                expected,
            } => write!(
                f,
                "column `{column}` has {len} values, but the table has {expected} live ids"
            ),
            PartsError::RowCount { rows, expected } => {
                write!(f, "{rows} rows given, but the table has {expected} live ids")
            }
        }
    }
}

impl core::error::Error for PartsError {}

impl PartsError {
    /// Checks that each named column holds one value per live id: the
    /// first mismatch as [`PartsError::ColumnLength`].
    ///
    /// ```
    /// use idtable::PartsError;
    ///
    /// assert_eq!(PartsError::check_columns(&[("pos", 2), ("vel", 2)], 2), Ok(()));
    /// assert_eq!(
    ///     PartsError::check_columns(&[("pos", 2), ("vel", 1)], 2),
    ///     Err(PartsError::ColumnLength { column: "vel", len: 1, expected: 2 }),
    /// );
    /// ```
    pub fn check_columns(columns: &[(&'static str, usize)], expected: usize) -> Result<(), Self> {
        match columns.iter().find(|&&(_, len)| len != expected) {
            Some(&(column, len)) => Err(PartsError::ColumnLength {
                column,
                len,
                expected,
            }),
            None => Ok(()),
        }
    }
}

impl<I: Id> IdTable<I> {
    /// The table as plain data; [`from_parts`](IdTable::from_parts) gives
    /// it back. See [`IdTableParts`].
    ///
    /// ```
    /// use idtable::{Id32_32, IdTable};
    ///
    /// let mut table = IdTable::<Id32_32>::new();
    /// let (a, _) = table.insert();
    /// table.remove(a);
    /// table.insert(); // reuses slot 0 with generation 2
    /// let parts = table.to_parts();
    /// assert_eq!((parts.slots, parts.dense, parts.free), (vec![2], vec![0], vec![]));
    /// ```
    pub fn to_parts(&self) -> IdTableParts {
        if self.reserved_len() > 0 {
            return self.parts_with_reservations();
        }
        IdTableParts {
            slots: self.slot_generations().collect(),
            dense: self.ids.iter().map(|id| id.index() as u64).collect(),
            free: self.free_slots().collect(),
            spent_tail: self.reserved.tail().len() as u64,
        }
    }

    /// [`to_parts`](IdTable::to_parts) of a table holding reservations: a
    /// reserved id is spent, not saved as a reservation. A reservation held
    /// in a slot word is saved with the reserved id's generation and queued
    /// after the free slots (retired if that generation is the last under
    /// [`OnExhausted::Retire`]); the reserved tail, with the fresh indices
    /// of claims still pending, is saved as its length
    /// ([`IdTableParts::spent_tail`]). The table loaded from the parts
    /// never issues them.
    #[cold]
    fn parts_with_reservations(&self) -> IdTableParts {
        let mut slots: Vec<u64> = self.slot_generations().collect();
        // Claims not settled yet take the queue's first slots and the
        // fresh indices after the tail, as settling them would.
        let (pending_queued, pending_fresh) = self.plan().split(self.reserved.claims());
        let mut spent: Vec<u64> = Vec::new();
        if self.reserved.held() > 0 {
            spent.extend(
                (0..self.slots.len())
                    .filter(|&s| self.holds_reserved_word(s))
                    .map(|s| s as u64),
            );
        }
        let mut free = Vec::new();
        for (i, s) in self.free.iter(&self.slots).enumerate() {
            if i < pending_queued {
                slots[s] = Self::generation_of(self.slots[s]) + 1;
                spent.push(s as u64);
            } else {
                free.push(s as u64);
            }
        }
        let retire = self.config.on_exhausted == OnExhausted::Retire;
        free.extend(
            spent
                .into_iter()
                .filter(|&s| !(retire && slots[s as usize] == Self::MAX_GENERATION)),
        );
        IdTableParts {
            slots,
            dense: self.ids.iter().map(|id| id.index() as u64).collect(),
            free,
            spent_tail: (self.reserved.tail().len() + pending_fresh) as u64,
        }
    }

    /// Whether `self` and `other` are the same table: the same generation
    /// in every slot, live ids in the same dense order, the same free queue
    /// and configuration (and, with reservations, the same number of them
    /// and the same parts once they are spent). What `PartialEq` compares.
    pub(crate) fn same_as(&self, other: &Self) -> bool {
        if self.config != other.config || self.ids != other.ids {
            return false;
        }
        if self.reserved_len() > 0 || other.reserved_len() > 0 {
            return self.reserved_len() == other.reserved_len()
                && self.to_parts() == other.to_parts();
        }
        self.slot_generations().eq(other.slot_generations())
            && self.free_slots().eq(other.free_slots())
            && self.reserved.tail().len() == other.reserved.tail().len()
    }

    /// The generation of each slot, in slot order (`IdTableParts::slots`).
    pub(crate) fn slot_generations(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.slots.len()).map(|s| self.last_generation(s))
    }

    /// The queued slots, oldest first (`IdTableParts::free`).
    pub(crate) fn free_slots(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.free.iter(&self.slots).map(|s| s as u64)
    }

    /// Rebuilds a table from [`IdTableParts`] and a configuration, checking
    /// everything: the result passes
    /// [`check_invariants`](IdTable::check_invariants), issues the same ids
    /// as the table the parts came from (given the same configuration), and
    /// resolves exactly the ids that table resolved.
    ///
    /// # Errors
    ///
    /// A [`PartsError`] naming the first problem: too many slots for the
    /// layout, a generation of 0 or past `MAX_GENERATION`, a slot out of
    /// range or listed twice, a vacant slot neither queued nor retired, or a
    /// queued slot that would restart its generations under
    /// [`OnExhausted::Retire`].
    ///
    /// ```
    /// use idtable::{Id, Id32, IdTable, IdTableParts, PartsError, TableConfig};
    ///
    /// // Id32<30> has 2 generation bits: generation 3 is its last.
    /// let parts = IdTableParts { slots: vec![3], dense: vec![], free: vec![0], spent_tail: 0 };
    /// let err = IdTable::<Id32<30>>::from_parts(&parts, TableConfig::default()).unwrap_err();
    /// assert_eq!(err, PartsError::WouldResurrect { slot: 0 });
    ///
    /// // Retired instead of queued, it is fine.
    /// let parts = IdTableParts { slots: vec![3], dense: vec![], free: vec![], spent_tail: 0 };
    /// let table = IdTable::<Id32<30>>::from_parts(&parts, TableConfig::default()).unwrap();
    /// assert_eq!(table.next_id().unwrap().index(), 1);
    /// ```
    pub fn from_parts(parts: &IdTableParts, config: TableConfig) -> Result<Self, PartsError> {
        let slot_count = parts.slots.len();
        let max = Self::SLOT_LIMIT;
        let with_tail = usize::try_from(parts.spent_tail)
            .ok()
            .and_then(|tail| slot_count.checked_add(tail));
        match with_tail {
            Some(slots) if slots <= max => {}
            _ => {
                return Err(PartsError::TooManySlots {
                    slots: with_tail.unwrap_or(usize::MAX),
                    max,
                })
            }
        }
        let max_generation = I::MAX_GENERATION.to_u64();
        // `generation - 1` wraps 0 past every valid value: one comparison,
        // folded into the pass that builds the slots, without an early exit;
        // the slot at fault is looked for only when there is one. Every slot
        // starts vacant (generation kept, reserved dense index); `dense` then
        // occupies slots and `free` queues them, each once. A slot is listed
        // when it is occupied, or marked in `queued`.
        let bad_generation = |g: u64| g.wrapping_sub(1) >= max_generation;
        let mut any_bad = false;
        let mut slots: Vec<I::Bits> = parts
            .slots
            .iter()
            .map(|&generation| {
                any_bad |= bad_generation(generation);
                Self::pack(generation, Self::MASK)
            })
            .collect();
        if any_bad {
            if let Some((slot, &generation)) = parts
                .slots
                .iter()
                .enumerate()
                .find(|&(_, &g)| bad_generation(g))
            {
                return Err(PartsError::BadGeneration { slot, generation });
            }
        }
        let out_of_range = |list: &'static str, slot: u64| PartsError::SlotOutOfRange {
            list,
            slot,
            slots: slot_count,
        };
        let check = |list: &'static str, slot: u64| -> Result<usize, PartsError> {
            match usize::try_from(slot) {
                Ok(s) if s < slot_count => Ok(s),
                _ => Err(out_of_range(list, slot)),
            }
        };
        let vacant = |word: I::Bits| word.to_u64() & Self::MASK == Self::MASK;
        for (d, &slot) in parts.dense.iter().enumerate() {
            // One bounds check: the slot's word, if the slot exists.
            let word = match usize::try_from(slot).ok().and_then(|s| slots.get_mut(s)) {
                Some(word) => word,
                None => return Err(out_of_range("dense", slot)),
            };
            if !vacant(*word) {
                return Err(PartsError::DuplicateSlot {
                    slot: slot as usize,
                });
            }
            *word = Self::pack(Self::generation_of(*word), d as u64);
        }
        // The ids in a pass of their own, once every dense slot is known to
        // be in range: a collect, not a push per id (pushing in the loop
        // above kept the vector's length in memory, a store and a load per
        // id on the loop's critical path).
        let ids: Vec<I> = parts
            .dense
            .iter()
            .map(|&slot| {
                let s = slot as usize;
                Self::make_id(s, Self::generation_of(slots[s]))
            })
            .collect();
        let retire = config.on_exhausted == OnExhausted::Retire;
        let mut queued = Marks::with_len(if parts.free.is_empty() { 0 } else { slot_count });
        for &slot in &parts.free {
            let s = check("free", slot)?;
            if !vacant(slots[s]) || !queued.insert(s) {
                return Err(PartsError::DuplicateSlot { slot: s });
            }
            if retire && parts.slots[s] == max_generation {
                return Err(PartsError::WouldResurrect { slot: s });
            }
        }
        // Each slot was listed at most once, so when the lists name as many
        // slots as there are, every slot is listed: nothing to look for.
        if parts.dense.len() + parts.free.len() != slot_count {
            for (slot, &word) in slots.iter().enumerate() {
                let listed = !vacant(word) || queued.contains(slot);
                let retired = retire && parts.slots[slot] == max_generation;
                if !listed && !retired {
                    return Err(PartsError::LostSlot { slot });
                }
            }
        }
        let tail = parts.spent_tail as usize; // checked above
        Ok(IdTable::from_checked(slots, ids, &parts.free, tail, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{Id24_8, Id32, Id32_32};
    use proptest::prelude::*;

    fn parts(slots: &[u64], dense: &[u64], free: &[u64]) -> IdTableParts {
        IdTableParts {
            slots: slots.to_vec(),
            dense: dense.to_vec(),
            free: free.to_vec(),
            spent_tail: 0,
        }
    }

    fn load<I: Id>(p: &IdTableParts, on_exhausted: OnExhausted) -> Result<IdTable<I>, PartsError> {
        IdTable::from_parts(
            p,
            TableConfig {
                min_free: 0,
                on_exhausted,
            },
        )
    }

    #[test]
    fn empty_parts_give_an_empty_table() {
        let t = load::<Id24_8>(&IdTableParts::default(), OnExhausted::Retire).unwrap();
        assert!(t.is_empty());
        assert_eq!(t.slot_count(), 0);
        assert_eq!(t.to_parts(), IdTableParts::default());
    }

    #[test]
    fn every_kind_of_bad_input_is_named() {
        use PartsError::*;
        let retire = OnExhausted::Retire;
        let cases: &[(IdTableParts, PartsError)] = &[
            (
                parts(&[0], &[0], &[]),
                BadGeneration {
                    slot: 0,
                    generation: 0,
                },
            ),
            (
                parts(&[1, 256], &[0], &[1]),
                BadGeneration {
                    slot: 1,
                    generation: 256,
                },
            ),
            (
                parts(&[1], &[1], &[]),
                SlotOutOfRange {
                    list: "dense",
                    slot: 1,
                    slots: 1,
                },
            ),
            (
                parts(&[1], &[], &[u64::MAX]),
                SlotOutOfRange {
                    list: "free",
                    slot: u64::MAX,
                    slots: 1,
                },
            ),
            (parts(&[1], &[0, 0], &[]), DuplicateSlot { slot: 0 }),
            (parts(&[1], &[], &[0, 0]), DuplicateSlot { slot: 0 }),
            (parts(&[1], &[0], &[0]), DuplicateSlot { slot: 0 }),
            (parts(&[1, 1], &[0], &[]), LostSlot { slot: 1 }),
            (parts(&[255], &[], &[0]), WouldResurrect { slot: 0 }),
        ];
        for (p, expected) in cases {
            let got = load::<Id24_8>(p, retire).map(|_| ()).unwrap_err();
            assert_eq!(&got, expected, "{p:?}");
            assert!(!got.to_string().is_empty());
        }
    }

    #[test]
    fn too_many_slots_for_the_layout() {
        // Id32<2>: indices 0, 1, 2.
        let p = parts(&[1; 4], &[0, 1, 2, 3], &[]);
        assert_eq!(
            load::<Id32<2>>(&p, OnExhausted::Retire).map(|_| ()),
            Err(PartsError::TooManySlots { slots: 4, max: 3 })
        );
        let p = parts(&[1; 3], &[0, 1, 2], &[]);
        load::<Id32<2>>(&p, OnExhausted::Retire).unwrap();
    }

    #[test]
    fn retirement_depends_on_the_policy() {
        // A worn-out vacant slot is retired under Retire and must be queued
        // under Wrap.
        let worn = parts(&[255], &[], &[]);
        load::<Id24_8>(&worn, OnExhausted::Retire).unwrap();
        assert_eq!(
            load::<Id24_8>(&worn, OnExhausted::Wrap).map(|_| ()),
            Err(PartsError::LostSlot { slot: 0 })
        );
        let queued = parts(&[255], &[], &[0]);
        let t = load::<Id24_8>(&queued, OnExhausted::Wrap).unwrap();
        assert_eq!(t.next_id().unwrap().generation(), 1);
        // Live at the last generation is fine under both.
        let live = parts(&[255], &[0], &[]);
        load::<Id24_8>(&live, OnExhausted::Retire).unwrap();
        load::<Id24_8>(&live, OnExhausted::Wrap).unwrap();
    }

    /// A table after a random run of inserts and removes.
    fn churned(ops: &[(bool, usize)], config: TableConfig) -> IdTable<Id32<28>> {
        let mut t = IdTable::<Id32<28>>::with_config(config);
        for &(insert, pick) in ops {
            if insert || t.is_empty() {
                t.try_insert().ok();
            } else {
                let id = t.ids()[pick % t.len()];
                t.remove(id);
            }
        }
        t
    }

    proptest! {
        #![proptest_config(crate::testing::proptest_config(256, 4))]

        #[test]
        fn round_trip_keeps_ids_stale_ids_and_the_free_queue(
            ops in proptest::collection::vec((any::<bool>(), any::<usize>()), 0..200),
            min_free in 0usize..4,
            wrap in any::<bool>(),
        ) {
            let config = TableConfig {
                min_free,
                on_exhausted: if wrap { OnExhausted::Wrap } else { OnExhausted::Retire },
            };
            let mut original = churned(&ops, config);
            let mut loaded = IdTable::<Id32<28>>::from_parts(&original.to_parts(), config).unwrap();
            loaded.check_invariants();
            prop_assert_eq!(loaded.ids(), original.ids());
            prop_assert_eq!(loaded.to_parts(), original.to_parts());
            // Every id either table ever could have issued resolves the same.
            for index in 0..original.slot_count() + 1 {
                for generation in 1..=16u32 {
                    if let Some(id) = Id32::<28>::new(index, generation) {
                        prop_assert_eq!(loaded.dense_index(id), original.dense_index(id));
                    }
                }
            }
            // And both go on issuing the same ids.
            for _ in 0..40 {
                prop_assert_eq!(loaded.try_insert().ok(), original.try_insert().ok());
                if let Some(&id) = original.ids().first() {
                    prop_assert_eq!(loaded.remove(id), original.remove(id));
                }
            }
        }

        #[test]
        fn arbitrary_parts_give_an_error_or_a_sound_table(
            (p, wrap) in parts_near_valid(),
        ) {
            let config = TableConfig {
                min_free: 0,
                on_exhausted: if wrap { OnExhausted::Wrap } else { OnExhausted::Retire },
            };
            // Id32<28>: generations 1..=15.
            if let Ok(mut t) = IdTable::<Id32<28>>::from_parts(&p, config) {
                t.check_invariants();
                prop_assert_eq!(t.to_parts(), p);
                while t.try_insert().is_ok() && t.len() < 64 {}
                t.check_invariants();
            }
        }
    }

    /// Valid parts for `Id32<28>` (slots shuffled into live, queued and
    /// retired), then, half the time, one edit that may break them.
    fn parts_near_valid() -> impl Strategy<Value = (IdTableParts, bool)> {
        (
            proptest::collection::vec((1u64..=15, 0u8..3), 0..12),
            any::<bool>(),
            proptest::option::of((0u8..6, 0usize..16, 0u64..20)),
        )
            .prop_map(|(slots, wrap, edit)| {
                let mut p = IdTableParts::default();
                for (s, &(generation, role)) in slots.iter().enumerate() {
                    let generation = if role == 2 && !wrap { 15 } else { generation };
                    p.slots.push(generation);
                    match role {
                        0 => p.dense.push(s as u64),
                        1 if generation != 15 || wrap => p.free.push(s as u64),
                        1 => p.dense.push(s as u64),
                        _ if wrap => p.free.push(s as u64),
                        _ => {}
                    }
                }
                if let Some((kind, at, value)) = edit {
                    let list = match kind % 3 {
                        0 => &mut p.slots,
                        1 => &mut p.dense,
                        _ => &mut p.free,
                    };
                    if kind < 3 || list.is_empty() {
                        list.push(value);
                    } else {
                        let at = at % list.len();
                        list[at] = value;
                    }
                }
                (p, wrap)
            })
    }

    #[test]
    fn id32_32_round_trip_at_the_extremes() {
        let p = parts(&[u32::MAX as u64, 1], &[0], &[1]);
        let t = load::<Id32_32>(&p, OnExhausted::Wrap).unwrap();
        t.check_invariants();
        assert_eq!(t.ids()[0].generation(), u64::from(u32::MAX));
        assert_eq!(t.to_parts(), p);
    }
}
