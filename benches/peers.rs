//! idtable's derived allocator against the containers users would pick instead.
//!
//! Issue 4 specifies the suite. Every group runs each implementation on the same
//! data, in the same seeded random orders, at N = 10,000 (in cache) and
//! N = 1,000,000 (out of cache), with `Throughput::Elements` so criterion and
//! `benches/report.py` can give time per element. Setup and drop stay outside
//! the timed part (`iter_batched` with `BatchSize::LargeInput`, or a container
//! built before `b.iter` for read-only and in-place groups).
//!
//! Issue 12 adds `hand_soa`, a hand-written floor with idtable's layout and
//! id scheme, to the keyed and iteration groups, and the groups `extend`
//! (building from an iterator, against 8 reserved `Vec`s) and `remove_many`
//! (removing half the ids at once, one by one, and by `retain`).
//!
//! Run: `python3 benches/report.py --run --only peers` (this bench, then
//! BENCHMARKS.md's tables and charts), or `cargo bench --manifest-path
//! benches/Cargo.toml --bench peers && python3 benches/report.py` (from the
//! repository root).
//!
//! Environment:
//! * `IDTABLE_BENCH_QUICK=1`: N = 1,000 and 16,384 and short measurements, for
//!   a smoke run (criterion's `-- --test` also uses these sizes and runs every
//!   routine once);
//! * `IDTABLE_BENCH_GROUPS=insert,churn`: only these groups (and no memory
//!   report), for profiling;
//! * `IDTABLE_BENCH_ONLY_INSERT=1`: only `insert`, for the run under
//!   `GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736`
//!   saved with `-- --save-baseline tuned`.

use std::collections::HashMap;
use std::hint::black_box;
use std::mem::{align_of, size_of, ManuallyDrop};
use std::num::NonZeroU32;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};

// ---------------------------------------------------------------------------
// The record (`support/record.rs`: 64 bytes, 8 fields, `make`, `convert!` and
// the hand-written floor `HandSoa`), declared once per container family (each
// derive generates `RecordRef` & co., so each lives in its own module).

#[macro_use]
#[path = "support/record.rs"]
mod record;

use record::{make, plain, HandSoa, Record, RecordVec};

/// idtable, default layout (`Id32_32`).
mod idt {
    record!(#[derive(idtable::SoaAllocator, Clone, Copy, Debug, PartialEq)]);
}

/// idtable, 32-bit ids (`Id24_8`).
mod idt24 {
    record!(
        #[derive(idtable::SoaAllocator, Clone, Copy, Debug, PartialEq)]
        #[soa(id = idtable::Id24_8)]
    );
}

const _: () = assert!(size_of::<plain::Record>() == 64);
const _: () = assert!(size_of::<idt::Record>() == 64);
const _: () = assert!(size_of::<idt24::Record>() == 64);

// ---------------------------------------------------------------------------
// Kernels shared by every implementation, so only the layout differs.

const DT: f32 = 1.0 / 64.0;

/// Sum of a contiguous column with 4 independent accumulators.
#[inline(always)]
fn sum4(xs: &[f32]) -> f32 {
    let mut acc = [0.0f32; 4];
    let chunks = xs.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        acc[0] += c[0];
        acc[1] += c[1];
        acc[2] += c[2];
        acc[3] += c[3];
    }
    for (a, x) in acc.iter_mut().zip(rest) {
        *a += x;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Sum of `mass` over an iterator of records, 4 independent accumulators.
#[inline(always)]
fn sum4_iter<'a>(mut it: impl Iterator<Item = &'a Record>) -> f32 {
    let mut acc = [0.0f32; 4];
    while let Some(r) = it.next() {
        acc[0] += r.mass;
        let Some(r) = it.next() else { break };
        acc[1] += r.mass;
        let Some(r) = it.next() else { break };
        acc[2] += r.mass;
        let Some(r) = it.next() else { break };
        acc[3] += r.mass;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// `pos += vel * dt` over two `[f32; 3]` columns, through flat views so it
/// vectorises.
#[inline(always)]
fn update_flat(pos: &mut [[f32; 3]], vel: &[[f32; 3]], dt: f32) {
    for (p, v) in pos.as_flattened_mut().iter_mut().zip(vel.as_flattened()) {
        *p += v * dt;
    }
}

#[inline(always)]
fn update_rec(r: &mut Record, dt: f32) {
    r.pos[0] += r.vel[0] * dt;
    r.pos[1] += r.vel[1] * dt;
    r.pos[2] += r.vel[2] * dt;
}

/// Sum of `mass` looked up by key, 4 independent accumulators.
#[inline(always)]
fn lookup_sum4<K: Copy>(keys: &[K], get: impl Fn(K) -> Option<f32>) -> f32 {
    let mut acc = [0.0f32; 4];
    let chunks = keys.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        acc[0] += get(c[0]).unwrap_or(0.0);
        acc[1] += get(c[1]).unwrap_or(0.0);
        acc[2] += get(c[2]).unwrap_or(0.0);
        acc[3] += get(c[3]).unwrap_or(0.0);
    }
    for (a, k) in acc.iter_mut().zip(rest) {
        *a += get(*k).unwrap_or(0.0);
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

// ---------------------------------------------------------------------------
// The implementations.

/// What every group needs from a container. Implemented with the code a user
/// would write for each crate; all methods inline into the generic routines.
trait Iterable: Clone {
    const NAME: &'static str;
    /// A container holding `make(0..n)`.
    fn build(n: usize) -> Self;
    fn sum_mass(&self) -> f32;
    fn update(&mut self, dt: f32);
    /// One churn pass for containers without ids (floor, soa_derive):
    /// swap-remove row `picks[k]`, push a new record.
    fn churn_by_row(&mut self, picks: &[u32], n: usize);
}

trait Container: Iterable {
    type Key: Copy;
    fn new() -> Self;
    fn with_capacity(n: usize) -> Self;
    fn insert(&mut self, r: Record) -> Self::Key;
    fn get_mass(&self, k: Self::Key) -> Option<f32>;
    fn remove(&mut self, k: Self::Key) -> bool;
    /// Bookkeeping bytes per live object (excluding the 64-byte record) and
    /// how that number is computed.
    fn memory(&self) -> (f64, String);
}

fn build_with_keys<C: Container>(n: usize) -> (C, Vec<C::Key>) {
    let mut c = C::new();
    let keys = (0..n).map(|i| c.insert(make(i))).collect();
    (c, keys)
}

/// One churn pass (N times: remove a random live element, insert a new one);
/// the timed body of `churn` and the setup of `iter_after_churn`. Never
/// inlined, like the `timed_*` loops, so `scripts/instructions.sh` can count
/// its instructions alone.
#[inline(never)]
fn churn_pass<C: Container>(c: &mut C, live: &mut Vec<C::Key>, picks: &[u32], n: usize) {
    for (k, &j) in picks.iter().enumerate() {
        let id = live.swap_remove(j as usize);
        c.remove(id);
        live.push(c.insert(make(n + k)));
    }
}

macro_rules! impl_idtable {
    ($ty:ident, $module:ident, $name:literal) => {
        #[derive(Clone)]
        struct $ty($module::RecordAllocator);

        impl Iterable for $ty {
            const NAME: &'static str = $name;
            fn build(n: usize) -> Self {
                build_with_keys::<Self>(n).0
            }
            #[inline(always)]
            fn sum_mass(&self) -> f32 {
                sum4(self.0.columns().mass)
            }
            #[inline(always)]
            fn update(&mut self, dt: f32) {
                let $module::RecordColumnsMut { pos, vel, .. } = self.0.columns_mut();
                update_flat(pos, vel, dt);
            }
            fn churn_by_row(&mut self, _: &[u32], _: usize) {
                unreachable!()
            }
        }

        impl Container for $ty {
            type Key = $module::RecordId;
            #[inline(always)]
            fn new() -> Self {
                $ty($module::RecordAllocator::new())
            }
            #[inline(always)]
            fn with_capacity(n: usize) -> Self {
                $ty($module::RecordAllocator::with_capacity(n))
            }
            #[inline(always)]
            fn insert(&mut self, r: Record) -> Self::Key {
                self.0.insert(convert!($module::Record, r))
            }
            #[inline(always)]
            fn get_mass(&self, k: Self::Key) -> Option<f32> {
                self.0.get(k).map(|r| *r.mass)
            }
            #[inline(always)]
            fn remove(&mut self, k: Self::Key) -> bool {
                self.0.remove(k).is_some()
            }
            fn memory(&self) -> (f64, String) {
                type Bits = <$module::RecordId as idtable::Id>::Bits;
                let table = self.0.id_table();
                let (slot, id) = (size_of::<Bits>(), size_of::<$module::RecordId>());
                // The free list is threaded through the vacant slots up to
                // half the layout's indices (`IdTable`'s docs), one side link
                // per slot past that.
                let max_index = <$module::RecordId as idtable::Id>::MAX_INDEX;
                let side_links = if table.slot_count() > max_index / 2 {
                    table.slot_count()
                } else {
                    0
                };
                let bytes = table.slot_count() * slot + table.len() * id + side_links * slot;
                (
                    bytes as f64 / table.len() as f64,
                    format!(
                        "id_table(): slot_count {} x {slot} B (slot bits) + len {} x {id} B (dense id) + {side_links} side links x {slot} B (free list: {} queued in vacant slots), / len",
                        table.slot_count(),
                        table.len(),
                        table.free_count()
                    ),
                )
            }
        }
    };
}

impl_idtable!(IdtDefault, idt, "idtable");
impl_idtable!(Idt24, idt24, "idtable_24_8");

/// A peer that keeps whole records in one arena (`$inner`), keyed by
/// `$key`: the same wrapper for each, with its value iterators and its
/// memory formula as arguments.
macro_rules! impl_arena {
    (
        $ty:ident($inner:ty), $name:literal, key = $key:ty,
        values = |$m:ident| $values:expr,
        values_mut = |$mm:ident| $values_mut:expr,
        memory = $memory:path $(,)?
    ) => {
        #[derive(Clone)]
        struct $ty($inner);

        impl Iterable for $ty {
            const NAME: &'static str = $name;
            fn build(n: usize) -> Self {
                build_with_keys::<Self>(n).0
            }
            #[inline(always)]
            fn sum_mass(&self) -> f32 {
                let $m = &self.0;
                sum4_iter($values)
            }
            #[inline(always)]
            fn update(&mut self, dt: f32) {
                let $mm = &mut self.0;
                $values_mut.for_each(|r| update_rec(r, dt));
            }
            fn churn_by_row(&mut self, _: &[u32], _: usize) {
                unreachable!()
            }
        }

        impl Container for $ty {
            type Key = $key;
            #[inline(always)]
            fn new() -> Self {
                $ty(<$inner>::new())
            }
            #[inline(always)]
            fn with_capacity(n: usize) -> Self {
                $ty(<$inner>::with_capacity(n))
            }
            #[inline(always)]
            fn insert(&mut self, r: Record) -> Self::Key {
                self.0.insert(r)
            }
            #[inline(always)]
            fn get_mass(&self, k: Self::Key) -> Option<f32> {
                self.0.get(k).map(|r| r.mass)
            }
            #[inline(always)]
            fn remove(&mut self, k: Self::Key) -> bool {
                self.0.remove(k).is_some()
            }
            fn memory(&self) -> (f64, String) {
                $memory(&self.0)
            }
        }
    };
}

impl_arena!(
    Slot(slotmap::SlotMap<slotmap::DefaultKey, Record>),
    "slotmap",
    key = slotmap::DefaultKey,
    values = |m| m.values(),
    values_mut = |m| m.values_mut(),
    memory = slotmap_memory,
);
impl_arena!(
    Dense(slotmap::DenseSlotMap<slotmap::DefaultKey, Record>),
    "dense_slotmap",
    key = slotmap::DefaultKey,
    values = |m| m.values(),
    values_mut = |m| m.values_mut(),
    memory = dense_slotmap_memory,
);
impl_arena!(
    Thunder(thunderdome::Arena<Record>),
    "thunderdome",
    key = thunderdome::Index,
    values = |m| m.iter().map(|(_, r)| r),
    values_mut = |m| m.iter_mut().map(|(_, r)| r),
    memory = thunderdome_memory,
);

fn slotmap_memory(m: &slotmap::SlotMap<slotmap::DefaultKey, Record>) -> (f64, String) {
    // slotmap 1.x basic.rs: `struct Slot<T> { u: union { value:
    // ManuallyDrop<T>, next_free: u32 }, version: u32 }`, one per slot
    // ever used plus the sentinel slot 0; the record lives in the slot.
    #[allow(dead_code)]
    union U {
        value: ManuallyDrop<Record>,
        next_free: u32,
    }
    #[allow(dead_code)]
    struct MirrorSlot {
        u: U,
        version: u32,
    }
    let slot = size_of::<MirrorSlot>();
    let slots = m.len() + 1; // no removal before measuring: len + sentinel
    let over = slot - size_of::<Record>();
    (
        (slots * over) as f64 / m.len() as f64,
        format!(
            "(len + 1 sentinel) slots x (size_of Slot<Record> {slot} B - 64 B record) / len; key {} B held by the user",
            size_of::<slotmap::DefaultKey>()
        ),
    )
}

fn dense_slotmap_memory(m: &slotmap::DenseSlotMap<slotmap::DefaultKey, Record>) -> (f64, String) {
    // slotmap 1.x dense.rs: `keys: Vec<K>` (one key per live value),
    // `values: Vec<V>`, `slots: Vec<Slot { version: u32, idx_or_free: u32 }>`
    // (one per slot ever used plus the sentinel slot 0).
    let key = size_of::<slotmap::DefaultKey>();
    let slot = 2 * size_of::<u32>();
    let len = m.len();
    let slots = len + 1;
    (
        (len * key + slots * slot) as f64 / len as f64,
        format!("(len x {key} B dense key + (len + 1 sentinel) slots x {slot} B) / len"),
    )
}

fn thunderdome_memory(m: &thunderdome::Arena<Record>) -> (f64, String) {
    // thunderdome 0.6 arena.rs: `storage: Vec<Entry<T>>`, `enum Entry<T> {
    // Occupied { generation: NonZeroU32, value: T }, Empty { generation:
    // NonZeroU32, next_free: Option<NonZeroU32> } }`, one per slot.
    #[allow(dead_code)]
    enum MirrorEntry {
        Occupied(NonZeroU32, Record),
        Empty(NonZeroU32, Option<NonZeroU32>),
    }
    let entry = size_of::<MirrorEntry>();
    let over = entry - size_of::<Record>();
    let len = m.len();
    (
        (len * over) as f64 / len as f64,
        format!(
            "len slots x (size_of Entry<Record> {entry} B - 64 B record) / len; key {} B held by the user",
            size_of::<thunderdome::Index>()
        ),
    )
}

#[derive(Clone)]
struct Map {
    map: HashMap<u64, Record>,
    next: u64,
}

impl Iterable for Map {
    const NAME: &'static str = "hashmap";
    fn build(n: usize) -> Self {
        build_with_keys::<Self>(n).0
    }
    #[inline(always)]
    fn sum_mass(&self) -> f32 {
        sum4_iter(self.map.values())
    }
    #[inline(always)]
    fn update(&mut self, dt: f32) {
        self.map.values_mut().for_each(|r| update_rec(r, dt));
    }
    fn churn_by_row(&mut self, _: &[u32], _: usize) {
        unreachable!()
    }
}

impl Container for Map {
    type Key = u64;
    #[inline(always)]
    fn new() -> Self {
        Map {
            map: HashMap::new(),
            next: 0,
        }
    }
    #[inline(always)]
    fn with_capacity(n: usize) -> Self {
        Map {
            map: HashMap::with_capacity(n),
            next: 0,
        }
    }
    #[inline(always)]
    fn insert(&mut self, r: Record) -> Self::Key {
        let k = self.next;
        self.next += 1;
        self.map.insert(k, r);
        k
    }
    #[inline(always)]
    fn get_mass(&self, k: Self::Key) -> Option<f32> {
        self.map.get(&k).map(|r| r.mass)
    }
    #[inline(always)]
    fn remove(&mut self, k: Self::Key) -> bool {
        self.map.remove(&k).is_some()
    }
    fn memory(&self) -> (f64, String) {
        // hashbrown (std): `buckets` slots of (u64, Record) plus one control
        // byte each and 16 trailing control bytes; capacity = buckets * 7 / 8
        // (buckets >= 8), buckets a power of two.
        let cap = self.map.capacity();
        let buckets = (cap * 8).div_ceil(7).next_power_of_two();
        let bucket = size_of::<(u64, Record)>();
        let bytes = buckets * (bucket + 1) + 16;
        let len = self.map.len();
        let over = bytes as f64 / len as f64 - size_of::<Record>() as f64;
        (
            over,
            format!(
                "({buckets} buckets x ({bucket} B (u64, Record) + 1 control byte) + 16) / len - 64 B record (default SipHash; load factor at this N)"
            ),
        )
    }
}

/// The physical floor: one `Vec` per field, no ids.
#[derive(Clone)]
struct Floor {
    pos: Vec<[f32; 3]>,
    vel: Vec<[f32; 3]>,
    mass: Vec<f32>,
    charge: Vec<f32>,
    age: Vec<f32>,
    flags: Vec<u32>,
    color: Vec<[u8; 4]>,
    pad: Vec<[u32; 5]>,
}

impl Floor {
    fn with_capacity(n: usize) -> Self {
        Floor {
            pos: Vec::with_capacity(n),
            vel: Vec::with_capacity(n),
            mass: Vec::with_capacity(n),
            charge: Vec::with_capacity(n),
            age: Vec::with_capacity(n),
            flags: Vec::with_capacity(n),
            color: Vec::with_capacity(n),
            pad: Vec::with_capacity(n),
        }
    }

    fn swap_remove(&mut self, i: usize) {
        self.pos.swap_remove(i);
        self.vel.swap_remove(i);
        self.mass.swap_remove(i);
        self.charge.swap_remove(i);
        self.age.swap_remove(i);
        self.flags.swap_remove(i);
        self.color.swap_remove(i);
        self.pad.swap_remove(i);
    }

    fn push(&mut self, r: Record) {
        self.pos.push(r.pos);
        self.vel.push(r.vel);
        self.mass.push(r.mass);
        self.charge.push(r.charge);
        self.age.push(r.age);
        self.flags.push(r.flags);
        self.color.push(r.color);
        self.pad.push(r.pad);
    }
}

impl Iterable for Floor {
    const NAME: &'static str = "vec_floor";
    fn build(n: usize) -> Self {
        let mut f = Floor::with_capacity(0);
        (0..n).for_each(|i| f.push(make(i)));
        f
    }
    #[inline(always)]
    fn sum_mass(&self) -> f32 {
        sum4(&self.mass)
    }
    #[inline(always)]
    fn update(&mut self, dt: f32) {
        update_flat(&mut self.pos, &self.vel, dt);
    }
    fn churn_by_row(&mut self, picks: &[u32], n: usize) {
        for (k, &j) in picks.iter().enumerate() {
            self.swap_remove(j as usize);
            self.push(make(n + k));
        }
    }
}

#[derive(Clone)]
struct SoaDerive(RecordVec);

impl Iterable for SoaDerive {
    const NAME: &'static str = "soa_derive";
    fn build(n: usize) -> Self {
        let mut v = RecordVec::new();
        (0..n).for_each(|i| v.push(make(i)));
        SoaDerive(v)
    }
    #[inline(always)]
    fn sum_mass(&self) -> f32 {
        sum4(&self.0.mass)
    }
    #[inline(always)]
    fn update(&mut self, dt: f32) {
        update_flat(&mut self.0.pos, &self.0.vel, dt);
    }
    fn churn_by_row(&mut self, picks: &[u32], n: usize) {
        for (k, &j) in picks.iter().enumerate() {
            self.0.swap_remove(j as usize);
            self.0.push(make(n + k));
        }
    }
}

// ---------------------------------------------------------------------------
// The hand-written floor (`support/record.rs`) behind the benches' traits.

impl Iterable for HandSoa {
    const NAME: &'static str = "hand_soa";
    fn build(n: usize) -> Self {
        build_with_keys::<Self>(n).0
    }
    #[inline(always)]
    fn sum_mass(&self) -> f32 {
        sum4(self.mass())
    }
    #[inline(always)]
    fn update(&mut self, dt: f32) {
        // SAFETY: columns 0 and 1 are the `[f32; 3]` pos and vel columns,
        // disjoint, with `len` initialised rows each; `&mut self` makes the
        // mutable one unique.
        let (pos, vel) = unsafe {
            (
                std::slice::from_raw_parts_mut(self.col::<[f32; 3]>(0), self.len),
                std::slice::from_raw_parts(self.col::<[f32; 3]>(1), self.len),
            )
        };
        update_flat(pos, vel, dt);
    }
    fn churn_by_row(&mut self, _: &[u32], _: usize) {
        unreachable!()
    }
}
impl Container for HandSoa {
    /// `generation << 32 | slot`.
    type Key = u64;
    #[inline(always)]
    fn new() -> Self {
        HandSoa::new()
    }
    #[inline(always)]
    fn with_capacity(n: usize) -> Self {
        HandSoa::with_capacity(n)
    }
    #[inline(always)]
    fn insert(&mut self, r: Record) -> u64 {
        HandSoa::insert(self, r)
    }
    #[inline(always)]
    fn get_mass(&self, k: u64) -> Option<f32> {
        HandSoa::get_mass(self, k)
    }
    #[inline(always)]
    fn remove(&mut self, k: u64) -> bool {
        HandSoa::remove(self, k).is_some()
    }
    fn memory(&self) -> (f64, String) {
        let bytes = self.slots.len() * size_of::<u64>() + self.dense.len() * size_of::<u64>();
        (
            bytes as f64 / self.len as f64,
            format!(
                "slots {} x 8 B + len {} x 8 B (dense id), free list in the vacant slots ({} queued), / len",
                self.slots.len(),
                self.len,
                self.free_len
            ),
        )
    }
}

/// `hand_soa` against `DenseSlotMap` (which also swap-removes, so the rows
/// stay in the same order) on a seeded mix of inserts (through several
/// doublings), removes (the removed records compared), removes and lookups
/// of stale keys (also after their slot was reused), clones and updates.
/// Panics on any difference: a floor that is not a correct allocator would
/// be no floor.
fn check_hand_soa(ops: usize) {
    let mut rng = SplitMix64(0x1D7A_B1E5_0000_0003);
    let (mut h, mut d) = (HandSoa::new(), Dense::new());
    let mut live: Vec<(u64, slotmap::DefaultKey)> = Vec::new();
    let mut dead: Vec<u64> = Vec::new();
    let same = |h: &HandSoa, d: &Dense, live: &[(u64, slotmap::DefaultKey)]| {
        assert_eq!(h.len, d.0.len());
        assert!(live
            .iter()
            .all(|&(hk, dk)| h.get(hk).as_ref() == d.0.get(dk)));
        assert!(h.mass().iter().eq(d.0.values().map(|r| &r.mass)));
        assert_eq!(h.sum_mass().to_bits(), d.sum_mass().to_bits());
    };
    for i in 0..ops {
        match rng.below(16) {
            0..=8 => live.push((h.insert(make(i)), d.insert(make(i)))),
            9..=12 if !live.is_empty() => {
                let (hk, dk) = live.swap_remove(rng.below(live.len()));
                let removed = h.remove(hk);
                assert!(removed.is_some() && removed == d.0.remove(dk));
                dead.push(hk);
            }
            13 if !dead.is_empty() => {
                let hk = dead[rng.below(dead.len())];
                assert!(h.get_mass(hk).is_none() && h.remove(hk).is_none());
            }
            14 => h = h.clone(),
            _ => {
                h.update(DT);
                d.update(DT);
            }
        }
        if i % 997 == 0 {
            same(&h, &d, &live);
        }
    }
    same(&h, &d, &live);
    assert_eq!(h.slots.len(), h.len + h.free_len);
}

// ---------------------------------------------------------------------------
// Seeded random orders (splitmix64), identical for every implementation.

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; bias negligible here).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// A seeded random permutation of `0..n` (Fisher–Yates).
fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64(seed);
    let mut p: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i + 1));
    }
    p
}

/// `n` picks into a live-id vector of length `n` (churn keeps the length).
fn churn_picks(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| rng.below(n) as u32).collect()
}

struct Orders {
    perm: Vec<u32>,
    picks: Vec<u32>,
}

fn shuffled<K: Copy>(keys: &[K], perm: &[u32]) -> Vec<K> {
    perm.iter().map(|&i| keys[i as usize]).collect()
}

// ---------------------------------------------------------------------------
// Groups.

struct Settings {
    sizes: Vec<usize>,
    quick: bool,
}

fn configure(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, n: usize, q: bool) {
    if q {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300));
    } else if n >= 100_000 {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(1000))
            .measurement_time(Duration::from_millis(3000));
    } else {
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(1500));
    }
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

/// Inserts `make(0..n)` into `c`: the timed loop of `insert` and
/// `insert_reserved`. Never inlined (one call per `n` inserts), so
/// `scripts/instructions.sh` can count its instructions alone.
#[inline(never)]
fn timed_inserts<C: Container>(mut c: C, n: usize) -> C {
    for i in 0..n {
        black_box(c.insert(make(i)));
    }
    c
}

/// Removes `victims` from `c`: the timed loop of `remove_random`; never
/// inlined, as `timed_inserts`.
#[inline(never)]
fn timed_removes<C: Container>(mut c: C, victims: &[C::Key]) -> C {
    for &k in victims {
        black_box(c.remove(k));
    }
    c
}

fn insert<C: Container>(g: &mut Group<'_>, n: usize) {
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter_batched(C::new, |c| timed_inserts(c, n), BatchSize::LargeInput)
    });
}

/// Not a target: `insert` with the growth taken out (`with_capacity(N)`),
/// to separate the per-insert path from reallocation.
fn insert_reserved<C: Container>(g: &mut Group<'_>, n: usize) {
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter_batched(
            || C::with_capacity(n),
            |c| timed_inserts(c, n),
            BatchSize::LargeInput,
        )
    });
}

/// `extend`: a container built from an iterator of N records (the same
/// values, `make(0..N)`), allocation included, drop excluded: idtable by
/// `collect()` and by `extend` into `with_capacity(N)`, the floor by pushing
/// into 8 `Vec`s made with `with_capacity(N)`.
fn extend(g: &mut Group<'_>, n: usize) {
    let values = || (0..n).map(make);
    let to_idt = |r: Record| convert!(idt::Record, r);
    let collected: idt::RecordAllocator = values().map(to_idt).collect();
    assert!(collected.len() == n && collected.columns().mass == Floor::build(n).mass);
    drop(collected);
    g.bench_function(BenchmarkId::new("idtable_collect", n), |b| {
        b.iter_batched(
            || (),
            |()| values().map(to_idt).collect::<idt::RecordAllocator>(),
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("idtable_extend", n), |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut a = idt::RecordAllocator::with_capacity(n);
                a.extend(values().map(to_idt));
                a
            },
            BatchSize::LargeInput,
        )
    });
    // The physical floor of building columns: each `Vec` filled by one
    // `extend` from the same generator, projected on its field (the
    // compiler computes only that field), so no per-row capacity check.
    g.bench_function(BenchmarkId::new("vec_floor_columns", n), |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut f = Floor::with_capacity(n);
                f.pos.extend(values().map(|r| r.pos));
                f.vel.extend(values().map(|r| r.vel));
                f.mass.extend(values().map(|r| r.mass));
                f.charge.extend(values().map(|r| r.charge));
                f.age.extend(values().map(|r| r.age));
                f.flags.extend(values().map(|r| r.flags));
                f.color.extend(values().map(|r| r.color));
                f.pad.extend(values().map(|r| r.pad));
                f
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("vec_floor_extend", n), |b| {
        b.iter_batched(
            || (),
            |()| {
                let mut f = Floor::with_capacity(n);
                values().for_each(|r| f.push(r));
                f
            },
            BatchSize::LargeInput,
        )
    });
}

fn get_random<C: Container>(g: &mut Group<'_>, n: usize, o: &Orders) {
    let (c, keys) = build_with_keys::<C>(n);
    let keys = shuffled(&keys, &o.perm);
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter(|| black_box(lookup_sum4(&keys, |k| c.get_mass(k))))
    });
}

fn iter_one_field<C: Iterable>(g: &mut Group<'_>, n: usize, c: &C) {
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter(|| black_box(black_box(c).sum_mass()))
    });
}

fn update_two_fields<C: Iterable>(g: &mut Group<'_>, n: usize) {
    let mut c = C::build(n);
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter(|| black_box(&mut c).update(black_box(DT)))
    });
    black_box(c.sum_mass());
}

fn remove_random<C: Container>(g: &mut Group<'_>, n: usize, o: &Orders) {
    let (c, keys) = build_with_keys::<C>(n);
    let victims = &shuffled(&keys, &o.perm)[..n / 2];
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter_batched(
            || c.clone(),
            |c| timed_removes(c, victims),
            BatchSize::LargeInput,
        )
    });
}

/// The records of `remove_many`: `make(i)`, with bit 0 of `flags` set on
/// the half that is removed (`perm[..n / 2]`) and `i` in the other bits.
fn build_marked<C: Container>(n: usize, half: &[u32]) -> (C, Vec<C::Key>) {
    let mut marked = vec![false; n];
    half.iter().for_each(|&i| marked[i as usize] = true);
    let mut c = C::new();
    let keys = (0..n)
        .map(|i| {
            let flags = (i as u32) << 1 | marked[i] as u32;
            c.insert(Record { flags, ..make(i) })
        })
        .collect();
    (c, keys)
}

/// `remove_many`: removing the ids of `remove_random` (the same random half,
/// in the same order) from the same records, in four ways. Per removed
/// element.
fn remove_many(g: &mut Group<'_>, n: usize, o: &Orders) {
    let half = &o.perm[..n / 2];
    let kept = n - half.len();
    let (idt, keys) = build_marked::<IdtDefault>(n, half);
    let idt = idt.0;
    let victims = shuffled(&keys, half);
    let (dense, dense_keys) = build_marked::<Dense>(n, half);
    let dense_victims = shuffled(&dense_keys, half);
    let retain = |a: &mut idt::RecordAllocator| a.retain(|_, r| *r.flags & 1 == 0);
    // Each way leaves the same objects.
    let gone =
        |a: &idt::RecordAllocator| a.len() == kept && victims.iter().all(|&k| !a.contains(k));
    let mut a = idt.clone();
    assert_eq!(a.remove_many(victims.iter().copied()), half.len());
    assert!(gone(&a));
    let mut a = idt.clone();
    victims.iter().for_each(|&k| assert!(a.remove(k).is_some()));
    assert!(gone(&a));
    let mut a = idt.clone();
    retain(&mut a);
    assert!(gone(&a));

    g.bench_function(BenchmarkId::new("idtable_remove_many", n), |b| {
        b.iter_batched(
            || idt.clone(),
            |mut a| {
                black_box(a.remove_many(victims.iter().copied()));
                a
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("idtable_remove", n), |b| {
        b.iter_batched(
            || idt.clone(),
            |mut a| {
                for &k in &victims {
                    black_box(a.remove(k).is_some());
                }
                a
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("dense_slotmap_remove", n), |b| {
        b.iter_batched(
            || dense.clone(),
            |mut d| {
                for &k in &dense_victims {
                    black_box(d.remove(k));
                }
                d
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function(BenchmarkId::new("idtable_retain", n), |b| {
        b.iter_batched(
            || idt.clone(),
            |mut a| {
                retain(&mut a);
                a
            },
            BatchSize::LargeInput,
        )
    });
}

fn churn<C: Container>(g: &mut Group<'_>, n: usize, o: &Orders) {
    let (c, keys) = build_with_keys::<C>(n);
    g.bench_function(BenchmarkId::new(C::NAME, n), |b| {
        b.iter_batched(
            || (c.clone(), keys.clone()),
            |(mut c, mut live)| {
                churn_pass(&mut c, &mut live, &o.picks, n);
                (c, live)
            },
            BatchSize::LargeInput,
        )
    });
}

fn after_churn<C: Container>(n: usize, o: &Orders) -> C {
    let (mut c, mut live) = build_with_keys::<C>(n);
    churn_pass(&mut c, &mut live, &o.picks, n);
    c
}

fn after_churn_rows<C: Iterable>(n: usize, o: &Orders) -> C {
    let mut c = C::build(n);
    c.churn_by_row(&o.picks, n);
    c
}

macro_rules! for_containers {
    ($f:ident, $g:expr $(, $arg:expr)*) => {
        $f::<IdtDefault>($g $(, $arg)*);
        $f::<Idt24>($g $(, $arg)*);
        $f::<HandSoa>($g $(, $arg)*);
        $f::<Dense>($g $(, $arg)*);
        $f::<Slot>($g $(, $arg)*);
        $f::<Thunder>($g $(, $arg)*);
        $f::<Map>($g $(, $arg)*);
    };
}

fn run_groups(c: &mut Criterion, s: &Settings, only_insert: bool) {
    let filter = std::env::var("IDTABLE_BENCH_GROUPS").ok();
    let wanted = |name: &str| {
        if only_insert {
            return name == "insert";
        }
        filter
            .as_deref()
            .is_none_or(|list| list.split(',').any(|g| g == name))
    };
    for &n in &s.sizes {
        let o = Orders {
            perm: permutation(n, 0x1D7A_B1E5_0000_0001 ^ n as u64),
            picks: churn_picks(n, 0x1D7A_B1E5_0000_0002 ^ n as u64),
        };
        let q = s.quick;
        fn group<'c>(
            c: &'c mut Criterion,
            name: &str,
            elems: usize,
            n: usize,
            q: bool,
        ) -> Group<'c> {
            let mut g = c.benchmark_group(name.to_string());
            configure(&mut g, n, q);
            g.throughput(Throughput::Elements(elems as u64));
            g
        }

        if wanted("insert") {
            let mut g = group(c, "insert", n, n, q);
            for_containers!(insert, &mut g, n);
            g.finish();
        }
        if wanted("insert_reserved") {
            let mut g = group(c, "insert_reserved", n, n, q);
            for_containers!(insert_reserved, &mut g, n);
            g.finish();
        }
        if wanted("extend") {
            let mut g = group(c, "extend", n, n, q);
            extend(&mut g, n);
            g.finish();
        }
        if wanted("get_random") {
            let mut g = group(c, "get_random", n, n, q);
            for_containers!(get_random, &mut g, n, &o);
            g.finish();
        }
        if wanted("iter_one_field") {
            let mut g = group(c, "iter_one_field", n, n, q);
            iter_one_field(&mut g, n, &Floor::build(n));
            iter_one_field(&mut g, n, &SoaDerive::build(n));
            macro_rules! one {
                ($t:ty) => {
                    iter_one_field(&mut g, n, &<$t>::build(n))
                };
            }
            one!(IdtDefault);
            one!(Idt24);
            one!(HandSoa);
            one!(Dense);
            one!(Slot);
            one!(Thunder);
            one!(Map);
            g.finish();
        }
        if wanted("update_two_fields") {
            let mut g = group(c, "update_two_fields", n, n, q);
            update_two_fields::<Floor>(&mut g, n);
            update_two_fields::<SoaDerive>(&mut g, n);
            for_containers!(update_two_fields, &mut g, n);
            g.finish();
        }
        if wanted("remove_random") {
            let mut g = group(c, "remove_random", n / 2, n, q);
            for_containers!(remove_random, &mut g, n, &o);
            g.finish();
        }
        if wanted("remove_many") {
            let mut g = group(c, "remove_many", n / 2, n, q);
            remove_many(&mut g, n, &o);
            g.finish();
        }
        if wanted("churn") {
            let mut g = group(c, "churn", n, n, q);
            for_containers!(churn, &mut g, n, &o);
            g.finish();
        }
        if wanted("iter_after_churn") {
            let mut g = group(c, "iter_after_churn", n, n, q);
            iter_one_field(&mut g, n, &after_churn_rows::<Floor>(n, &o));
            iter_one_field(&mut g, n, &after_churn_rows::<SoaDerive>(n, &o));
            macro_rules! one {
                ($t:ty) => {
                    iter_one_field(&mut g, n, &after_churn::<$t>(n, &o))
                };
            }
            one!(IdtDefault);
            one!(Idt24);
            one!(HandSoa);
            one!(Dense);
            one!(Slot);
            one!(Thunder);
            one!(Map);
            g.finish();
        }
    }
}

// ---------------------------------------------------------------------------
// Memory per live object (bookkeeping beyond the 64-byte record), written
// next to criterion's output for `benches/report.py`.

fn memory_report(sizes: &[usize]) {
    let mut rows = Vec::new();
    for &n in sizes {
        macro_rules! mem {
            ($t:ty) => {{
                let (c, _) = build_with_keys::<$t>(n);
                let (bytes, how) = c.memory();
                println!("memory/{}/{n}: {bytes:.2} B per live object ({how})", <$t>::NAME);
                rows.push(format!(
                    "{{\"impl\": \"{}\", \"n\": {n}, \"bytes_per_live\": {bytes:.3}, \"how\": \"{}\"}}",
                    <$t>::NAME,
                    how.replace('"', "'")
                ));
            }};
        }
        mem!(IdtDefault);
        mem!(Idt24);
        mem!(HandSoa);
        mem!(Dense);
        mem!(Slot);
        mem!(Thunder);
        mem!(Map);
        // After a churn pass the slot counts can differ (free queue, reuse).
        let o = Orders {
            perm: Vec::new(),
            picks: churn_picks(n, 0x1D7A_B1E5_0000_0002 ^ n as u64),
        };
        for (name, (bytes, how)) in [
            ("idtable", after_churn::<IdtDefault>(n, &o).memory()),
            ("idtable_24_8", after_churn::<Idt24>(n, &o).memory()),
        ] {
            println!("memory/{name}/after_churn/{n}: {bytes:.2} B per live object ({how})");
            rows.push(format!(
                "{{\"impl\": \"{name} (after churn)\", \"n\": {n}, \"bytes_per_live\": {bytes:.3}, \"how\": \"{}\"}}",
                how.replace('"', "'")
            ));
        }
    }
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "target".into())
        .join("criterion");
    if std::fs::create_dir_all(&dir).is_ok() {
        let body = format!(
            "{{\"record_bytes\": {}, \"align\": {}, \"rows\": [\n  {}\n]}}\n",
            size_of::<Record>(),
            align_of::<Record>(),
            rows.join(",\n  ")
        );
        let _ = std::fs::write(dir.join("peers-memory.json"), body);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let quick = std::env::var("IDTABLE_BENCH_QUICK").is_ok_and(|v| v != "0" && !v.is_empty());
    let s = Settings {
        sizes: if quick || test_mode {
            vec![1_000, 16_384]
        } else {
            vec![10_000, 1_000_000]
        },
        quick,
    };
    // IDTABLE_BENCH_ONLY_INSERT=1 runs the insert group alone (used for the
    // GLIBC_TUNABLES run, saved under the criterion baseline `tuned`).
    let only_insert = std::env::var("IDTABLE_BENCH_ONLY_INSERT").is_ok_and(|v| v == "1");
    let filtered = std::env::var_os("IDTABLE_BENCH_GROUPS").is_some();
    if !only_insert && !test_mode && !filtered {
        memory_report(&s.sizes);
    }
    check_hand_soa(if test_mode { 4_000 } else { 40_000 });
    let mut c = Criterion::default().configure_from_args();
    run_groups(&mut c, &s, only_insert);
    c.final_summary();
}
