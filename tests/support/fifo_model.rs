//! The reference allocator both the model tests (`tests/model.rs`) and the
//! fuzz target `allocator_ops` compare idtable with: live ids in dense order,
//! their values, and the id table's FIFO slot rules (`min_free`, retire or
//! wrap) written out plainly. Ids are their bits as `u64`; values are any
//! `V`. The fuzz crate includes this file with `#[path]`.

#![allow(dead_code)] // each user takes what it needs

use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Clone)]
pub struct FifoModel<V> {
    /// Live ids in dense order.
    pub dense: Vec<u64>,
    /// id bits -> value.
    pub values: HashMap<u64, V>,
    /// Per slot ever issued: the generation of its last id.
    pub slots: Vec<u64>,
    /// Slots waiting for reuse, oldest first.
    pub free: VecDeque<usize>,
    /// Every id ever issued, and whether one was issued twice.
    pub issued: HashSet<u64>,
    pub reissued: bool,
    /// Ids that stopped being live, most recent last.
    pub dead: Vec<u64>,
    pub index_bits: u32,
    /// Bits of the whole id (32 or 64).
    pub width: u32,
    pub max_index: usize,
    pub max_generation: u64,
    pub min_free: usize,
    pub wrap: bool,
}

impl<V: Clone> FifoModel<V> {
    pub fn new(index_bits: u32, width: u32, min_free: usize, wrap: bool) -> Self {
        let generation_bits = width - index_bits;
        FifoModel {
            dense: Vec::new(),
            values: HashMap::new(),
            slots: Vec::new(),
            free: VecDeque::new(),
            issued: HashSet::new(),
            reissued: false,
            dead: Vec::new(),
            index_bits,
            width,
            max_index: (1usize << index_bits) - 2,
            max_generation: if generation_bits == 64 {
                u64::MAX
            } else {
                (1u64 << generation_bits) - 1
            },
            min_free,
            wrap,
        }
    }

    /// The slot index of an id.
    pub fn index_of(&self, bits: u64) -> usize {
        (bits & ((1u64 << self.index_bits) - 1)) as usize
    }

    /// Every bit an id of this width can have.
    pub fn mask(&self) -> u64 {
        if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// The id the next insert issues, and whether it reuses the front of
    /// the free queue; `None` when the table is full.
    pub fn next_id(&self) -> Option<(u64, bool)> {
        let waiting = self.free.len();
        let fresh_left = self.slots.len() <= self.max_index;
        if waiting > 0 && (waiting >= self.min_free || !fresh_left) {
            let s = self.free[0];
            let last = self.slots[s];
            let generation = if last >= self.max_generation {
                1
            } else {
                last + 1
            };
            Some((generation << self.index_bits | s as u64, true))
        } else if fresh_left {
            Some((1 << self.index_bits | self.slots.len() as u64, false))
        } else {
            None
        }
    }

    /// Records an insert that issued `issued_bits`, asserting it is the id
    /// the FIFO rules predict.
    pub fn insert(&mut self, issued_bits: u64, v: V) {
        let (bits, reuse) = self.next_id().expect("model: insert into a full table");
        assert_eq!(
            issued_bits, bits,
            "issued id {issued_bits:#x}, the FIFO / min_free model predicts {bits:#x}"
        );
        let index = self.index_of(bits);
        if reuse {
            self.free.pop_front();
            self.slots[index] = bits >> self.index_bits;
        } else {
            self.slots.push(1);
        }
        if !self.issued.insert(bits) {
            self.reissued = true;
        }
        self.dense.push(bits);
        self.values.insert(bits, v);
    }

    /// An id stops being live: its slot is queued unless it retires.
    pub fn release(&mut self, bits: u64) {
        let generation = bits >> self.index_bits;
        let retired = generation >= self.max_generation && !self.wrap;
        if !retired {
            let index = self.index_of(bits);
            self.free.push_back(index);
        }
        self.values.remove(&bits);
        self.dead.push(bits);
    }

    /// Removes a live id (the last one moves into its place).
    pub fn remove(&mut self, bits: u64) -> Option<V> {
        let d = self.dense.iter().position(|&b| b == bits)?;
        let v = self.values.get(&bits).cloned();
        self.dense.swap_remove(d);
        self.release(bits);
        v
    }

    /// Removes the last id in dense order.
    pub fn pop(&mut self) -> Option<(u64, V)> {
        let bits = *self.dense.last()?;
        let v = self.remove(bits)?;
        Some((bits, v))
    }

    pub fn clear(&mut self) {
        for bits in std::mem::take(&mut self.dense) {
            self.release(bits);
        }
    }

    /// Keeps the values for which `keep` (which may change them) returns
    /// `true`, as the allocator's `retain` does: every row visited once in
    /// dense order, the kept ones keeping their order, the freed slots
    /// queued in dense order. Returns every id visited, in visiting order.
    pub fn retain(&mut self, mut keep: impl FnMut(&mut V) -> bool) -> Vec<u64> {
        let visited = self.dense.clone();
        let mut removed = Vec::new();
        for &bits in &visited {
            let v = self.values.get_mut(&bits).expect("a live id has a value");
            if !keep(v) {
                removed.push(bits);
            }
        }
        self.remove_in_dense_order(&removed);
        visited
    }

    /// Removes every live id of `ids` at once, as the allocator's
    /// `remove_many` does: the kept ones keep their order, the freed slots
    /// are queued in dense order. Returns how many were removed.
    pub fn remove_many(&mut self, ids: &[u64]) -> usize {
        let live: Vec<u64> = ids
            .iter()
            .copied()
            .filter(|b| self.values.contains_key(b))
            .collect();
        self.remove_in_dense_order(&live)
    }

    fn remove_in_dense_order(&mut self, ids: &[u64]) -> usize {
        let gone: HashSet<u64> = ids.iter().copied().collect();
        let (out, kept): (Vec<u64>, Vec<u64>) = self.dense.iter().partition(|b| gone.contains(b));
        self.dense = kept;
        for &bits in &out {
            self.release(bits);
        }
        out.len()
    }

    /// Sorts the dense order by `key` (stable), as the allocator's
    /// `sort_by_key` does.
    pub fn sort_by_key<K: Ord>(&mut self, key: impl Fn(&V) -> K) {
        let values = &self.values;
        self.dense.sort_by_key(|b| key(&values[b]));
    }

    /// How many of `want` inserts succeed from here.
    pub fn room(&self, want: usize) -> usize {
        let mut free = self.free.len();
        let mut slots = self.slots.len();
        let mut n = 0;
        while n < want {
            let fresh_left = slots <= self.max_index;
            if free > 0 && (free >= self.min_free || !fresh_left) {
                free -= 1;
            } else if fresh_left {
                slots += 1;
            } else {
                break;
            }
            n += 1;
        }
        n
    }
}
