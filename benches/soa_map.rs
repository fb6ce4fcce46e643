//! `SoaMap<K, T>` against the maps users key by another table's ids:
//! slotmap's `SecondaryMap` and `SparseSecondaryMap`, and `HashMap`.
//!
//! The keying table has N entities (N = 10,000 and 1,000,000); a component
//! of two `f32` fields (`Burning { dps, left }`) is held by all of them or
//! by a random 10%. Every map sees the same holders in the same seeded
//! random orders. Groups:
//!
//! * `map_insert`: insert the component of every holder into an empty map;
//! * `map_remove`: remove every holder's component from a full map;
//! * `map_get`: look up every holder's component (random order), summing
//!   one field;
//! * `map_iter_one_column`: sum one field over the whole map, against a raw
//!   `Vec<f32>` of the holders' values (the floor);
//! * `map_add_remove`: add the component to each of 10k of 10k entities,
//!   then remove it from each (the add/remove workload of the ECS
//!   benchmarks);
//! * `map_entry` (issue 37): every holder hit twice, in two random orders,
//!   adding an amount to its value in a `SoaMap<_, f32>` that starts empty
//!   (the first hit inserts): `entry(k).or_insert(0.0)` then `+=`
//!   (`entry_or_insert`), `entry(k).and_modify(..).or_insert(..)`
//!   (`entry_and_modify`), against `get_mut` then `insert` written by hand
//!   (`get_mut_insert`).
//!
//! A component of one value is in every group too (issue 37): `soa_map_f32`
//! is a `SoaMap<_, f32>` (a plain value, no derive), `soa_map_one_field` a
//! `SoaMap<_, Heat>` of a derived `struct Heat { value: f32 }`. Both store
//! the `left` value of the rows (their `map_get` sums it too); the target
//! is `soa_map_f32` ≤ 1.0× `soa_map_one_field` in every group.
//!
//! `hand_sparse` is a hand-written floor of `SoaMap`'s layout (see
//! [`HandSparse`]): what the layout itself costs, so a target out of its
//! reach shows as such. `hand_packed` is the floor of another entry layout,
//! EnTT's (see [`HandPacked`]), where the entry also holds the key's
//! generation. `hand_pooled_64` is `hand_sparse_64` with its pages in one
//! pool (see [`Pooled`]): the measurement behind keeping `SoaMap`'s
//! pages boxed one by one.
//!
//! Setup and drop stay outside the timed part (`iter_batched`). Entity keys
//! come from a slotmap `SlotMap` for the slotmap maps and from a derived
//! idtable allocator for `SoaMap` and `HashMap` (SipHash, std's default).
//!
//! Run: `cargo bench --manifest-path benches/Cargo.toml --bench soa_map`;
//! `-- --test` runs every routine once at small sizes. It also prints the
//! sparse index's bytes per entity of the keying table.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use idtable::{SoaAllocator, SoaMap};
use slotmap::{DefaultKey, SecondaryMap, SlotMap, SparseSecondaryMap};

/// The keying table's objects.
#[derive(SoaAllocator)]
pub struct Entity {
    pub alive: bool,
}

/// The component, as idtable stores it (two columns).
#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
pub struct Burning {
    pub dps: f32,
    pub left: f32,
}

/// A component of one value, derived: what a plain `f32` replaces.
#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
pub struct Heat {
    pub value: f32,
}

/// The component as the other maps store it (one struct per value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BurningRow {
    pub dps: f32,
    pub left: f32,
}

fn row(i: usize) -> (f32, f32) {
    (i as f32 * 0.5, (i % 97) as f32)
}

/// A seeded random permutation of `0..n` (Fisher–Yates over splitmix64).
fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = ((next() >> 32) * (i as u64 + 1)) >> 32;
        p.swap(i, j as usize);
    }
    p
}

/// One map under test, with the keys of its own entity table.
///
/// The maps' methods are `#[inline(always)]`, so every map's work is
/// inlined into the never-inlined timed loops (`timed_gets`,
/// `timed_removes`) alike, as it would be in a user's loop.
trait Map: Clone {
    const NAME: &'static str;
    type Key: Copy;
    fn new() -> Self;
    fn insert(&mut self, key: Self::Key, value: (f32, f32));
    fn remove(&mut self, key: Self::Key) -> bool;
    fn get_dps(&self, key: Self::Key) -> f32;
    fn sum_left(&self) -> f32;
}

impl Map for SoaMap<EntityId, Burning> {
    const NAME: &'static str = "soa_map";
    type Key = EntityId;
    fn new() -> Self {
        SoaMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (dps, left): (f32, f32)) {
        SoaMap::insert(self, key, Burning { dps, left });
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        SoaMap::remove(self, key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        self.get(key).map_or(0.0, |b| *b.dps)
    }
    fn sum_left(&self) -> f32 {
        sum4_slice(self.columns().left)
    }
}

impl Map for SecondaryMap<DefaultKey, BurningRow> {
    const NAME: &'static str = "secondary_map";
    type Key = DefaultKey;
    fn new() -> Self {
        SecondaryMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: DefaultKey, (dps, left): (f32, f32)) {
        SecondaryMap::insert(self, key, BurningRow { dps, left });
    }
    #[inline(always)]
    fn remove(&mut self, key: DefaultKey) -> bool {
        SecondaryMap::remove(self, key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: DefaultKey) -> f32 {
        self.get(key).map_or(0.0, |b| b.dps)
    }
    fn sum_left(&self) -> f32 {
        sum4(self.values().map(|b| b.left))
    }
}

impl Map for SparseSecondaryMap<DefaultKey, BurningRow> {
    const NAME: &'static str = "sparse_secondary_map";
    type Key = DefaultKey;
    fn new() -> Self {
        SparseSecondaryMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: DefaultKey, (dps, left): (f32, f32)) {
        SparseSecondaryMap::insert(self, key, BurningRow { dps, left });
    }
    #[inline(always)]
    fn remove(&mut self, key: DefaultKey) -> bool {
        SparseSecondaryMap::remove(self, key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: DefaultKey) -> f32 {
        self.get(key).map_or(0.0, |b| b.dps)
    }
    fn sum_left(&self) -> f32 {
        sum4(self.values().map(|b| b.left))
    }
}

impl Map for HashMap<EntityId, BurningRow> {
    const NAME: &'static str = "hashmap";
    type Key = EntityId;
    fn new() -> Self {
        HashMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (dps, left): (f32, f32)) {
        HashMap::insert(self, key, BurningRow { dps, left });
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        HashMap::remove(self, &key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        self.get(&key).map_or(0.0, |b| b.dps)
    }
    fn sum_left(&self) -> f32 {
        sum4(self.values().map(|b| b.left))
    }
}

/// A hand-written floor for `SoaMap`: the same layout and rules, written
/// for this one component and key type with nothing generic in the way.
/// Dense columns (`dps`, `left`) parallel to `keys` and packed by
/// swap-remove; a sparse index of one `u32` dense position per slot index
/// (4 bytes), in pages allocated when first written, as the design
/// requires (`P`: how the pages are held, see [`Boxed`] and [`Pooled`]);
/// an entry found only by its exact key (the key stored at the dense
/// position is compared). Unchecked where the invariants below make a
/// check redundant. What it cannot do, `SoaMap` cannot do either without a
/// layout the design does not allow.
///
/// Invariants: `keys`, `dps` and `left` have the same length; for every
/// `d < keys.len()`, the entry of `keys[d].index()` is `d`; every other
/// entry of an allocated page is `VACANT`.
#[derive(Clone, Default)]
pub struct HandSparse<P = Boxed<1024>> {
    pages: P,
    keys: Vec<EntityId>,
    dps: Vec<f32>,
    left: Vec<f32>,
}

/// The entry of a slot index that holds no key.
const VACANT: u32 = u32::MAX;

/// Where [`HandSparse`] keeps its pages of entries.
pub trait Pages: Default + Clone {
    /// The floor's name in the benchmark ids.
    const NAME: &'static str;
    /// The entry of slot index `i`, if its page exists.
    fn entry(&self, i: usize) -> Option<u32>;
    /// The entry of slot index `i`, its page allocated (entries `VACANT`)
    /// if needed.
    fn entry_mut(&mut self, i: usize) -> &mut u32;
    /// Writes the entry of slot index `i`.
    ///
    /// # Safety
    ///
    /// The page of `i` exists.
    unsafe fn set_entry(&mut self, i: usize, entry: u32);
}

/// Pages of `PAGE` slot indices (1024: `hand_sparse`; 64, `SoaMap`'s own
/// page: `hand_sparse_64`), each its own allocation, reached through one
/// flat array of page pointers (`SoaMap`'s `near` table, which serves
/// every slot index of this benchmark).
#[derive(Clone, Default)]
pub struct Boxed<const PAGE: usize>(Vec<Option<Box<[u32; PAGE]>>>);

impl<const PAGE: usize> Pages for Boxed<PAGE> {
    const NAME: &'static str = if PAGE == 1024 {
        "hand_sparse"
    } else {
        "hand_sparse_64"
    };
    #[inline(always)]
    fn entry(&self, i: usize) -> Option<u32> {
        let page = self.0.get(i / PAGE)?.as_deref()?;
        Some(page[i % PAGE])
    }
    #[inline(always)]
    fn entry_mut(&mut self, i: usize) -> &mut u32 {
        let p = i / PAGE;
        if p >= self.0.len() {
            self.0.resize(p + 1, None);
        }
        let page = self.0[p].get_or_insert_with(|| Box::new([VACANT; PAGE]));
        &mut page[i % PAGE]
    }
    #[inline(always)]
    unsafe fn set_entry(&mut self, i: usize, entry: u32) {
        // SAFETY: the caller promises the page exists.
        let page = unsafe { self.0.get_unchecked_mut(i / PAGE).as_deref_mut() };
        // SAFETY: as above.
        unsafe { page.unwrap_unchecked()[i % PAGE] = entry };
    }
}

/// Pages of 64 slot indices in one pool (`hand_pooled_64`): the page
/// table holds each page's position in `pool` (`u32::MAX`: none), so a new
/// page is a push onto one `Vec` instead of an allocation of its own, and
/// an entry is reached through a `u32` and the pool's base instead of a
/// pointer. It backs the choice of boxed pages in `SoaMap` (benches/NOTES.md,
/// "A pool of pages").
///
/// Invariant: every position in `table` but `u32::MAX` is below
/// `pool.len()`.
#[derive(Clone, Default)]
pub struct Pooled {
    table: Vec<u32>,
    pool: Vec<[u32; 64]>,
}

impl Pages for Pooled {
    const NAME: &'static str = "hand_pooled_64";
    #[inline(always)]
    fn entry(&self, i: usize) -> Option<u32> {
        let p = *self.table.get(i / 64)?;
        if p == u32::MAX {
            return None;
        }
        // SAFETY: every position in `table` but `u32::MAX` is a page of
        // `pool`.
        Some(unsafe { *self.pool.get_unchecked(p as usize).get_unchecked(i % 64) })
    }
    #[inline(always)]
    fn entry_mut(&mut self, i: usize) -> &mut u32 {
        let p = i / 64;
        if p >= self.table.len() {
            self.table.resize(p + 1, u32::MAX);
        }
        if self.table[p] == u32::MAX {
            self.table[p] = self.pool.len() as u32;
            self.pool.push([VACANT; 64]);
        }
        let q = self.table[p] as usize;
        &mut self.pool[q][i % 64]
    }
    #[inline(always)]
    unsafe fn set_entry(&mut self, i: usize, entry: u32) {
        // SAFETY: the caller promises the page exists, so its position in
        // `table` is below `pool.len()`.
        unsafe {
            let q = *self.table.get_unchecked(i / 64) as usize;
            *self.pool.get_unchecked_mut(q).get_unchecked_mut(i % 64) = entry;
        }
    }
}

impl<P: Pages> HandSparse<P> {
    /// The dense position of exactly `key`.
    #[inline(always)]
    fn find(&self, key: EntityId) -> Option<usize> {
        let d = self.pages.entry(key.index())? as usize;
        if d == VACANT as usize {
            return None;
        }
        // SAFETY: a non-vacant entry is a dense position below `keys.len()`.
        (unsafe { *self.keys.get_unchecked(d) } == key).then_some(d)
    }
}

impl<P: Pages> Map for HandSparse<P> {
    const NAME: &'static str = P::NAME;
    type Key = EntityId;
    fn new() -> Self {
        Self::default()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (dps, left): (f32, f32)) {
        let len = self.keys.len() as u32;
        let entry = self.pages.entry_mut(key.index());
        let d = *entry as usize;
        if d == VACANT as usize {
            *entry = len;
            self.keys.push(key);
            self.dps.push(dps);
            self.left.push(left);
        } else if key.generation() >= self.keys[d].generation() {
            // The same key, or a newer one of the slot: its row is replaced.
            (self.keys[d], self.dps[d], self.left[d]) = (key, dps, left);
        } // An older key: nothing changes (SoaMap's rule).
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        let Some(d) = self.find(key) else {
            return false;
        };
        self.keys.swap_remove(d);
        self.dps.swap_remove(d);
        self.left.swap_remove(d);
        // SAFETY: `key` and the key moved into its place (if any) hold an
        // entry, so their pages were allocated when they were inserted.
        unsafe {
            self.pages.set_entry(key.index(), VACANT);
            if let Some(moved) = self.keys.get(d) {
                self.pages.set_entry(moved.index(), d as u32);
            }
        }
        true
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        // SAFETY: `find` gives a dense position below `dps.len()`.
        self.find(key)
            .map_or(0.0, |d| unsafe { *self.dps.get_unchecked(d) })
    }
    fn sum_left(&self) -> f32 {
        sum4_slice(&self.left)
    }
}

/// Entries per page of [`HandPacked`].
const HAND_PAGE: usize = 1024;

/// A second hand-written floor, of the entry layout EnTT uses: an entry of
/// the key's own width (`u64` for `EntityId`) holds the dense position in
/// the key's index bits and the key's generation in its generation bits, so
/// a lookup checks the generation in the entry and reads the dense keys
/// only to move one on remove. Otherwise as [`HandSparse`]: pages of 1024
/// entries (8 KiB) through one flat array of page pointers, columns packed
/// by swap-remove. A vacant entry is 0: generation 0 is never issued, so
/// the generation check refuses it too.
///
/// Invariants: `keys`, `dps` and `left` have the same length; for every
/// `d < keys.len()`, the entry of `keys[d].index()` is `d` with the
/// generation of `keys[d]`; every other entry of an allocated page is 0.
#[derive(Clone, Default)]
pub struct HandPacked {
    pages: Vec<Option<Box<[u64; HAND_PAGE]>>>,
    keys: Vec<EntityId>,
    dps: Vec<f32>,
    left: Vec<f32>,
}

impl HandPacked {
    /// The entry of `key`: its generation and dense position `d`.
    #[inline(always)]
    fn packed(key: EntityId, d: usize) -> u64 {
        (key.generation() << 32) | d as u64
    }

    /// The entry of slot index `i`, if its page exists.
    #[inline(always)]
    fn entry(&self, i: usize) -> Option<u64> {
        let page = self.pages.get(i / HAND_PAGE)?.as_deref()?;
        Some(page[i % HAND_PAGE])
    }

    /// The entry of slot index `i`, its page allocated if needed.
    #[inline(always)]
    fn entry_mut(&mut self, i: usize) -> &mut u64 {
        let p = i / HAND_PAGE;
        if p >= self.pages.len() {
            self.pages.resize(p + 1, None);
        }
        let page = self.pages[p].get_or_insert_with(|| Box::new([0; HAND_PAGE]));
        &mut page[i % HAND_PAGE]
    }

    /// The entry of slot index `i`, whose page exists.
    #[inline(always)]
    fn set_entry(&mut self, i: usize, entry: u64) {
        // SAFETY: only called for slot indices that hold a key, whose page
        // was allocated when the key was inserted.
        let page = unsafe { self.pages.get_unchecked_mut(i / HAND_PAGE).as_deref_mut() };
        // SAFETY: as above, the page exists.
        unsafe { page.unwrap_unchecked()[i % HAND_PAGE] = entry };
    }

    /// The dense position of exactly `key`: its generation is the entry's.
    #[inline(always)]
    fn find(&self, key: EntityId) -> Option<usize> {
        let e = self.entry(key.index())?;
        (e >> 32 == key.generation()).then_some(e as u32 as usize)
    }
}

impl Map for HandPacked {
    const NAME: &'static str = "hand_packed";
    type Key = EntityId;
    fn new() -> Self {
        Self::default()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (dps, left): (f32, f32)) {
        let len = self.keys.len();
        let entry = self.entry_mut(key.index());
        let (generation, d) = (*entry >> 32, *entry as u32 as usize);
        if generation == 0 {
            *entry = Self::packed(key, len);
            self.keys.push(key);
            self.dps.push(dps);
            self.left.push(left);
        } else if key.generation() >= generation {
            // The same key, or a newer one of the slot: its row is replaced.
            *entry = Self::packed(key, d);
            (self.keys[d], self.dps[d], self.left[d]) = (key, dps, left);
        } // An older key: nothing changes (SoaMap's rule).
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        let Some(d) = self.find(key) else {
            return false;
        };
        self.keys.swap_remove(d);
        self.dps.swap_remove(d);
        self.left.swap_remove(d);
        self.set_entry(key.index(), 0);
        if let Some(&moved) = self.keys.get(d) {
            self.set_entry(moved.index(), Self::packed(moved, d));
        }
        true
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        // SAFETY: `find` gives a dense position below `dps.len()`.
        self.find(key)
            .map_or(0.0, |d| unsafe { *self.dps.get_unchecked(d) })
    }
    fn sum_left(&self) -> f32 {
        sum4_slice(&self.left)
    }
}

impl Map for SoaMap<EntityId, f32> {
    const NAME: &'static str = "soa_map_f32";
    type Key = EntityId;
    fn new() -> Self {
        SoaMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (_, left): (f32, f32)) {
        SoaMap::insert(self, key, left);
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        SoaMap::remove(self, key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        self.get(key).map_or(0.0, |v| *v)
    }
    fn sum_left(&self) -> f32 {
        sum4_slice(self.columns())
    }
}

impl Map for SoaMap<EntityId, Heat> {
    const NAME: &'static str = "soa_map_one_field";
    type Key = EntityId;
    fn new() -> Self {
        SoaMap::new()
    }
    #[inline(always)]
    fn insert(&mut self, key: EntityId, (_, left): (f32, f32)) {
        SoaMap::insert(self, key, Heat { value: left });
    }
    #[inline(always)]
    fn remove(&mut self, key: EntityId) -> bool {
        SoaMap::remove(self, key).is_some()
    }
    #[inline(always)]
    fn get_dps(&self, key: EntityId) -> f32 {
        self.get(key).map_or(0.0, |h| *h.value)
    }
    fn sum_left(&self) -> f32 {
        sum4_slice(self.columns().value)
    }
}

/// How `map_entry` adds an amount to a key's value, creating it if absent.
#[derive(Clone, Copy)]
enum Accumulate {
    EntryOrInsert,
    EntryAndModify,
    GetMutInsert,
}

impl Accumulate {
    fn label(self) -> &'static str {
        match self {
            Accumulate::EntryOrInsert => "entry_or_insert",
            Accumulate::EntryAndModify => "entry_and_modify",
            Accumulate::GetMutInsert => "get_mut_insert",
        }
    }
}

/// The timed loop of `map_entry`, one function per way (the match is on a
/// constant after inlining into each caller).
#[inline(always)]
fn accumulate(m: &mut SoaMap<EntityId, f32>, hits: &[(EntityId, f32)], how: Accumulate) {
    match how {
        Accumulate::EntryOrInsert => {
            for &(k, d) in hits {
                if let Some(e) = m.entry(k) {
                    *e.or_insert(0.0) += d;
                }
            }
        }
        Accumulate::EntryAndModify => {
            for &(k, d) in hits {
                if let Some(e) = m.entry(k) {
                    e.and_modify(|h| *h += d).or_insert(d);
                }
            }
        }
        Accumulate::GetMutInsert => {
            for &(k, d) in hits {
                match m.get_mut(k) {
                    Some(h) => *h += d,
                    None => {
                        m.insert(k, d);
                    }
                }
            }
        }
    }
}

#[inline(never)]
fn timed_entry_or_insert(m: &mut SoaMap<EntityId, f32>, hits: &[(EntityId, f32)]) {
    accumulate(m, hits, Accumulate::EntryOrInsert)
}

#[inline(never)]
fn timed_entry_and_modify(m: &mut SoaMap<EntityId, f32>, hits: &[(EntityId, f32)]) {
    accumulate(m, hits, Accumulate::EntryAndModify)
}

#[inline(never)]
fn timed_get_mut_insert(m: &mut SoaMap<EntityId, f32>, hits: &[(EntityId, f32)]) {
    accumulate(m, hits, Accumulate::GetMutInsert)
}

fn bench_entry(g: &mut Group<'_>, c: &Case<EntityId>, n: usize, share: Share) {
    let hits: Vec<(EntityId, f32)> = c
        .insert_order
        .iter()
        .chain(&c.access_order)
        .enumerate()
        .map(|(i, &k)| (k, row(i).1))
        .collect();
    let mut sums = Vec::new();
    for how in [
        Accumulate::EntryOrInsert,
        Accumulate::EntryAndModify,
        Accumulate::GetMutInsert,
    ] {
        let run = match how {
            Accumulate::EntryOrInsert => timed_entry_or_insert,
            Accumulate::EntryAndModify => timed_entry_and_modify,
            Accumulate::GetMutInsert => timed_get_mut_insert,
        };
        let mut check = SoaMap::new();
        run(&mut check, &hits);
        sums.push(check.sum_left());
        g.bench_function(id(how.label(), n, share), |b| {
            b.iter_batched(
                SoaMap::new,
                |mut m| {
                    run(&mut m, &hits);
                    m
                },
                BatchSize::LargeInput,
            )
        });
    }
    assert!(sums.windows(2).all(|w| w[0] == w[1]), "{sums:?}");
}

/// A sum with four independent accumulators (as the peers benchmark sums).
#[inline]
fn sum4(values: impl Iterator<Item = f32>) -> f32 {
    let mut acc = [0.0f32; 4];
    for (i, v) in values.enumerate() {
        acc[i % 4] += v;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// The four-way sum over a slice, chunked so it vectorises: `SoaMap`'s
/// column and the raw `Vec` floor go through this same function.
fn sum4_slice(values: &[f32]) -> f32 {
    let mut acc = [0.0f32; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..4 {
            acc[k] += c[k];
        }
    }
    for (k, v) in rest.iter().enumerate() {
        acc[k] += v;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// The inputs of one size and share: each map's holder keys, in the order
/// they are inserted (random) and looked up or removed (another random
/// order).
struct Case<K> {
    insert_order: Vec<K>,
    access_order: Vec<K>,
}

fn case<K: Copy>(keys: &[K], share: Share, n: usize) -> Case<K> {
    let holders: Vec<K> = match share {
        Share::All => keys.to_vec(),
        Share::Tenth => permutation(n, 0x50a_0001 ^ n as u64)[..n / 10]
            .iter()
            .map(|&i| keys[i])
            .collect(),
    };
    let h = holders.len();
    let insert_order = permutation(h, 0x50a_0002 ^ n as u64)
        .iter()
        .map(|&i| holders[i])
        .collect();
    let access_order = permutation(h, 0x50a_0003 ^ n as u64)
        .iter()
        .map(|&i| holders[i])
        .collect();
    Case {
        insert_order,
        access_order,
    }
}

#[derive(Clone, Copy, Debug)]
enum Share {
    All,
    Tenth,
}

impl Share {
    fn label(self) -> &'static str {
        match self {
            Share::All => "all",
            Share::Tenth => "tenth",
        }
    }
}

fn filled<M: Map>(c: &Case<M::Key>) -> M {
    let mut m = M::new();
    for (i, &k) in c.insert_order.iter().enumerate() {
        m.insert(k, row(i));
    }
    m
}

type Group<'a> = BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn configure(group: &mut Group<'_>, n: usize, test_mode: bool) {
    if test_mode {
        group.sample_size(10);
    } else if n >= 100_000 {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(2000));
    } else {
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_millis(1000));
    }
}

fn id(m: &str, n: usize, share: Share) -> BenchmarkId {
    BenchmarkId::new(m, format!("{n}/{}", share.label()))
}

/// The timed loop of `map_insert`, never inlined (see `timed_gets`). Only
/// the timed part calls it (`filled` writes the same loop out), so a
/// callgrind count of it holds nothing else.
#[inline(never)]
fn timed_inserts<M: Map>(mut m: M, keys: &[M::Key]) -> M {
    for (i, &k) in keys.iter().enumerate() {
        m.insert(k, row(i));
    }
    m
}

fn bench_insert<M: Map>(g: &mut Group<'_>, c: &Case<M::Key>, n: usize, share: Share) {
    g.bench_function(id(M::NAME, n, share), |b| {
        b.iter_batched(
            M::new,
            |m| timed_inserts(m, &c.insert_order),
            BatchSize::LargeInput,
        )
    });
}

/// The timed loop of `map_remove`, never inlined (see `timed_gets`):
/// how many keys were removed.
#[inline(never)]
fn timed_removes<M: Map>(m: &mut M, keys: &[M::Key]) -> usize {
    keys.iter().map(|&k| usize::from(m.remove(k))).sum()
}

fn bench_remove<M: Map>(g: &mut Group<'_>, c: &Case<M::Key>, n: usize, share: Share) {
    let full = filled::<M>(c);
    g.bench_function(id(M::NAME, n, share), |b| {
        b.iter_batched(
            || full.clone(),
            |mut m| {
                let removed = timed_removes(&mut m, &c.access_order);
                assert_eq!(removed, c.access_order.len());
                m
            },
            BatchSize::LargeInput,
        )
    });
}

/// The timed loop of `map_get`: never inlined, so callgrind can count its
/// instructions alone (`--toggle-collect='soa_map::timed_gets*'`).
#[inline(never)]
fn timed_gets<M: Map>(m: &M, keys: &[M::Key]) -> f32 {
    sum4(keys.iter().map(|&k| m.get_dps(black_box(k))))
}

fn bench_get<M: Map>(g: &mut Group<'_>, c: &Case<M::Key>, n: usize, share: Share) {
    let m = filled::<M>(c);
    g.bench_function(id(M::NAME, n, share), |b| {
        b.iter(|| timed_gets(&m, &c.access_order))
    });
}

fn bench_iter<M: Map>(g: &mut Group<'_>, c: &Case<M::Key>, n: usize, share: Share) {
    let m = filled::<M>(c);
    g.bench_function(id(M::NAME, n, share), |b| {
        b.iter(|| black_box(&m).sum_left())
    });
}

fn bench_add_remove<M: Map>(g: &mut Group<'_>, keys: &[M::Key], n: usize) {
    g.bench_function(id(M::NAME, n, Share::All), |b| {
        b.iter_batched(
            M::new,
            |mut m| {
                for (i, &k) in keys.iter().enumerate() {
                    m.insert(k, row(i));
                }
                for &k in keys {
                    m.remove(k);
                }
                m
            },
            BatchSize::LargeInput,
        )
    });
}

/// Every map answers the same: the benchmark compares equal work.
fn check_same(n: usize, idt: &[EntityId], slot: &[DefaultKey]) {
    for share in [Share::All, Share::Tenth] {
        let (ci, cs) = (case(idt, share, n), case(slot, share, n));
        let soa = filled::<SoaMap<EntityId, Burning>>(&ci);
        let sec = filled::<SecondaryMap<DefaultKey, BurningRow>>(&cs);
        let sparse = filled::<SparseSecondaryMap<DefaultKey, BurningRow>>(&cs);
        let hash = filled::<HashMap<EntityId, BurningRow>>(&ci);
        let hand = filled::<HandSparse>(&ci);
        let plain = filled::<SoaMap<EntityId, f32>>(&ci);
        let one_field = filled::<SoaMap<EntityId, Heat>>(&ci);
        let hand_64 = filled::<HandSparse<Boxed<64>>>(&ci);
        let pooled = filled::<HandSparse<Pooled>>(&ci);
        let packed = filled::<HandPacked>(&ci);
        let want = sum4_slice(
            &ci.insert_order
                .iter()
                .enumerate()
                .map(|(i, _)| row(i).1)
                .collect::<Vec<_>>(),
        );
        for (name, got) in [
            ("soa_map", soa.sum_left()),
            ("secondary_map", sec.sum_left()),
            ("sparse_secondary_map", sparse.sum_left()),
            ("hashmap", hash.sum_left()),
            ("hand_sparse", hand.sum_left()),
            ("hand_sparse_64", hand_64.sum_left()),
            ("hand_pooled_64", pooled.sum_left()),
            ("hand_packed", packed.sum_left()),
            ("soa_map_f32", plain.sum_left()),
            ("soa_map_one_field", one_field.sum_left()),
        ] {
            // Summation order differs (dense, slot or hash order): compare
            // loosely; the row values are small integers and halves.
            assert!(
                (got - want).abs() <= want.abs() * 1e-4 + 1.0,
                "{name}: {got} vs {want}"
            );
        }
        for (a, b) in ci.access_order.iter().zip(&cs.access_order).take(1000) {
            assert_eq!(soa.get_dps(*a), sec.get_dps(*b));
            assert_eq!(soa.get_dps(*a), hash.get_dps(*a));
            assert_eq!(soa.get_dps(*a), hand.get_dps(*a));
            assert_eq!(soa.get_dps(*a), packed.get_dps(*a));
            assert_eq!(sparse.get_dps(*b), sec.get_dps(*b));
            assert_eq!(plain.get_dps(*a), one_field.get_dps(*a));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test" || a == "--list");
    let sizes: &[usize] = if test_mode {
        &[1_000, 16_384]
    } else {
        &[10_000, 1_000_000]
    };
    let mut c = Criterion::default().configure_from_args();

    for &n in sizes {
        let mut entities = EntityAllocator::new();
        let idt: Vec<EntityId> = (0..n)
            .map(|_| entities.insert(Entity { alive: true }))
            .collect();
        let mut slots = SlotMap::<DefaultKey, ()>::new();
        let slot: Vec<DefaultKey> = (0..n).map(|_| slots.insert(())).collect();
        check_same(n, &idt, &slot);

        // The sparse index's cost, per entity of the keying table.
        let all = filled::<SoaMap<EntityId, Burning>>(&case(&idt, Share::All, n));
        let tenth = filled::<SoaMap<EntityId, Burning>>(&case(&idt, Share::Tenth, n));
        println!(
            "memory/soa_map/{n}: sparse index {:.3} B per entity with all holding the component, \
             {:.3} B per entity ({:.3} B per entry) with 10%; keys {} B and columns {} B per entry",
            all.index_bytes() as f64 / n as f64,
            tenth.index_bytes() as f64 / n as f64,
            tenth.index_bytes() as f64 / tenth.len() as f64,
            std::mem::size_of::<EntityId>(),
            std::mem::size_of::<Burning>(),
        );

        for share in [Share::All, Share::Tenth] {
            let (ci, cs) = (case(&idt, share, n), case(&slot, share, n));
            let holders = ci.insert_order.len() as u64;
            macro_rules! group {
                ($name:literal, $bench:ident) => {{
                    let mut g = c.benchmark_group($name);
                    configure(&mut g, n, test_mode);
                    g.throughput(Throughput::Elements(holders));
                    $bench::<SoaMap<EntityId, Burning>>(&mut g, &ci, n, share);
                    $bench::<SoaMap<EntityId, f32>>(&mut g, &ci, n, share);
                    $bench::<SoaMap<EntityId, Heat>>(&mut g, &ci, n, share);
                    $bench::<SecondaryMap<DefaultKey, BurningRow>>(&mut g, &cs, n, share);
                    $bench::<SparseSecondaryMap<DefaultKey, BurningRow>>(&mut g, &cs, n, share);
                    $bench::<HashMap<EntityId, BurningRow>>(&mut g, &ci, n, share);
                    $bench::<HandSparse>(&mut g, &ci, n, share);
                    $bench::<HandSparse<Boxed<64>>>(&mut g, &ci, n, share);
                    $bench::<HandSparse<Pooled>>(&mut g, &ci, n, share);
                    $bench::<HandPacked>(&mut g, &ci, n, share);
                    g
                }};
            }
            group!("map_insert", bench_insert).finish();
            group!("map_remove", bench_remove).finish();
            group!("map_get", bench_get).finish();
            let mut g = group!("map_iter_one_column", bench_iter);
            let floor: Vec<f32> = (0..ci.insert_order.len()).map(|i| row(i).1).collect();
            g.bench_function(id("vec_floor", n, share), |b| {
                b.iter(|| sum4_slice(black_box(&floor)))
            });
            g.finish();
            let mut g = c.benchmark_group("map_entry");
            configure(&mut g, n, test_mode);
            g.throughput(Throughput::Elements(2 * holders));
            bench_entry(&mut g, &ci, n, share);
            g.finish();
        }

        // Add then remove on every entity: 10k of 10k (the small size in
        // test mode).
        if n == sizes[0] {
            let mut g = c.benchmark_group("map_add_remove");
            configure(&mut g, n, test_mode);
            g.throughput(Throughput::Elements(n as u64));
            bench_add_remove::<SoaMap<EntityId, Burning>>(&mut g, &idt, n);
            bench_add_remove::<SoaMap<EntityId, f32>>(&mut g, &idt, n);
            bench_add_remove::<SoaMap<EntityId, Heat>>(&mut g, &idt, n);
            bench_add_remove::<SecondaryMap<DefaultKey, BurningRow>>(&mut g, &slot, n);
            bench_add_remove::<SparseSecondaryMap<DefaultKey, BurningRow>>(&mut g, &slot, n);
            bench_add_remove::<HashMap<EntityId, BurningRow>>(&mut g, &idt, n);
            bench_add_remove::<HandSparse>(&mut g, &idt, n);
            bench_add_remove::<HandSparse<Boxed<64>>>(&mut g, &idt, n);
            bench_add_remove::<HandSparse<Pooled>>(&mut g, &idt, n);
            bench_add_remove::<HandPacked>(&mut g, &idt, n);
            g.finish();
        }
    }
    c.final_summary();
}
