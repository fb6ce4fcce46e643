//! The batch removals make no allocation call: `retain`, `remove_many`,
//! `extract_if` (consumed, and dropped part way) and a join's `retain` and
//! `extract_if`, on a derived allocator, a `SoaStorage` and a `SoaMap`,
//! with values that need dropping and values that do not.
//!
//! A counting global allocator counts the calls made by this thread while a
//! closure runs (frees are not counted: a removed `String` is freed). Each
//! container is churned first, so its free queue is long and its slots
//! reused, and each batch removes a scattered half of the rows.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use idtable::join::JoinItems;
use idtable::{join, Id32, SoaAllocator, SoaMap, SoaStorage};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn note_call() {
    // `try_with`: the allocator may run while thread locals are torn down.
    let _ = COUNTING.try_with(|counting| {
        if counting.get() {
            let _ = CALLS.try_with(|calls| calls.set(calls.get() + 1));
        }
    });
}

// SAFETY: every method forwards to `System` with the same arguments; the
// counting touches only `const`-initialised thread locals, which never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through `alloc`/`realloc` above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_call();
        // SAFETY: forwarded unchanged; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocation calls this thread makes while `f` runs.
fn calls_in<R>(f: impl FnOnce() -> R) -> (R, usize) {
    CALLS.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let out = f();
    COUNTING.with(|c| c.set(false));
    (out, CALLS.with(Cell::get))
}

/// The removals a test found allocating, all named when it ends.
#[derive(Default)]
struct Found(Vec<String>);

impl Found {
    /// Runs `f`, noting `what` if it made an allocation call.
    fn none_in<R>(&mut self, what: &str, f: impl FnOnce() -> R) -> R {
        let (out, calls) = calls_in(f);
        if calls > 0 {
            self.0.push(format!("{what}: {calls} allocation call(s)"));
        }
        out
    }
}

impl Drop for Found {
    fn drop(&mut self) {
        if !self.0.is_empty() && !std::thread::panicking() {
            panic!("allocated:\n  {}", self.0.join("\n  "));
        }
    }
}

#[test]
fn the_counter_sees_allocations() {
    let (v, calls) = calls_in(|| vec![1u8; 100]);
    assert_eq!(v.len(), 100);
    assert!(calls >= 1, "the counting allocator is not in use");
}

/// Needs dropping (the columns' pass with destructors).
#[derive(SoaAllocator)]
pub struct Body {
    pub n: u32,
    pub name: String,
}

/// Needs no dropping (the columns' pass without destructors).
#[derive(SoaAllocator)]
pub struct Spark {
    pub n: u32,
    pub life: f32,
}

/// A component of bodies, in a map.
#[derive(SoaAllocator)]
pub struct Tag {
    pub n: u32,
    pub label: String,
}

fn rows() -> usize {
    if cfg!(miri) {
        40
    } else {
        2_000
    }
}

/// A scrambled order of `0..n` (a fixed odd stride).
fn scrambled(n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |i| (i * 7919) % n)
}

/// Whether the row holding `n` goes: a scattered half.
fn goes(n: u32) -> bool {
    n.wrapping_mul(2_654_435_761) >> 31 == 1
}

fn body(n: usize) -> Body {
    Body {
        n: n as u32,
        name: format!("body {n}"),
    }
}

/// `n` bodies in an allocator whose slots were freed and reused once.
fn bodies(n: usize) -> BodyAllocator {
    let mut a = BodyAllocator::new();
    let ids: Vec<_> = (0..n).map(|i| a.insert(body(i))).collect();
    for i in scrambled(n).take(n / 2) {
        let old = a.remove(ids[i]).unwrap();
        a.insert(old);
    }
    a
}

/// `n` sparks in a storage whose slots were freed and reused once.
fn sparks(n: usize) -> SoaStorage<SparkId, Spark> {
    let mut s = SoaStorage::default();
    let ids: Vec<_> = (0..n)
        .map(|i| {
            s.insert(Spark {
                n: i as u32,
                life: 1.0,
            })
        })
        .collect();
    for i in scrambled(n).take(n / 2) {
        let old = s.remove(ids[i]).unwrap();
        s.insert(old);
    }
    s
}

/// A tag on every body of `a`, inserted in a scrambled order.
fn tags(a: &BodyAllocator) -> SoaMap<BodyId, Tag> {
    let mut m = SoaMap::new();
    let ids = a.ids();
    for i in scrambled(ids.len()) {
        let n = a.get(ids[i]).unwrap().n;
        m.insert(
            ids[i],
            Tag {
                n: *n,
                label: format!("tag {n}"),
            },
        );
    }
    m
}

/// The ids of the rows that go, in a scrambled order, each listed twice,
/// with an id that holds no row.
fn listed<K: Copy>(keys: &[K], n_of: impl Fn(K) -> u32, stale: K) -> Vec<K> {
    let mut out: Vec<K> = scrambled(keys.len())
        .map(|i| keys[i])
        .filter(|&k| goes(n_of(k)))
        .collect();
    out.extend_from_within(..);
    out.push(stale);
    out
}

#[test]
fn retain_allocates_nothing() {
    let mut found = Found::default();
    let n = rows();
    let mut a = bodies(n);
    found.none_in("an allocator's retain", || a.retain(|_, b| !goes(*b.n)));
    a.check_invariants();
    assert!(a.len() < n && a.iter().all(|(_, b)| !goes(*b.n)));

    let mut s = sparks(n);
    found.none_in("a storage's retain", || s.retain(|_, p| !goes(*p.n)));
    s.check_invariants();
    assert!(s.len() < n && s.iter().all(|(_, p)| !goes(*p.n)));

    let mut m = tags(&bodies(n));
    found.none_in("a map's retain", || m.retain(|_, t| !goes(*t.n)));
    m.check_invariants();
    assert!(m.len() < n && m.iter().all(|(_, t)| !goes(*t.n)));
}

#[test]
fn remove_many_allocates_nothing() {
    let mut found = Found::default();
    let n = rows();
    let mut a = bodies(n);
    let stale = a.ids()[0];
    a.remove(stale).unwrap();
    let gone = listed(a.ids(), |id| *a.get(id).unwrap().n, stale);
    let removed = found.none_in("an allocator's remove_many", || {
        a.remove_many(gone.iter().copied())
    });
    a.check_invariants();
    assert_eq!(removed, gone.len() / 2);
    assert!(a.iter().all(|(_, b)| !goes(*b.n)));

    let mut s = sparks(n);
    let stale = s.ids()[0];
    s.remove(stale).unwrap();
    let gone = listed(s.ids(), |id| *s.get(id).unwrap().n, stale);
    let removed = found.none_in("a storage's remove_many", || {
        s.remove_many(gone.iter().copied())
    });
    s.check_invariants();
    assert_eq!(removed, gone.len() / 2);
    assert!(s.iter().all(|(_, p)| !goes(*p.n)));

    let mut m = tags(&bodies(n));
    let stale = m.keys()[0];
    m.remove(stale).unwrap();
    let gone = listed(m.keys(), |id| *m.get(id).unwrap().n, stale);
    let removed = found.none_in("a map's remove_many", || {
        m.remove_many(gone.iter().copied())
    });
    m.check_invariants();
    assert_eq!(removed, gone.len() / 2);
    assert!(m.iter().all(|(_, t)| !goes(*t.n)));
}

/// Past 16,384 rows `remove_many` marks its rows in the index or the
/// keys rather than in a bitset on the stack: still no allocation.
#[test]
#[cfg_attr(miri, ignore = "20,000 rows")]
fn remove_many_of_a_large_container_allocates_nothing() {
    let mut found = Found::default();
    let n = 20_000;
    let mut s = sparks(n);
    let gone: Vec<_> = s
        .ids()
        .iter()
        .copied()
        .filter(|&id| goes(*s.get(id).unwrap().n))
        .collect();
    let removed = found.none_in("a large storage's remove_many", || {
        s.remove_many(gone.iter().rev().copied())
    });
    s.check_invariants();
    assert_eq!(removed, gone.len());
    let mut m = SoaMap::<SparkId, Spark>::new();
    for (id, p) in sparks(n).iter() {
        m.insert(id, Spark { n: *p.n, life: 0.0 });
    }
    let gone: Vec<_> = m
        .keys()
        .iter()
        .copied()
        .filter(|&k| goes(*m.get(k).unwrap().n))
        .collect();
    let removed = found.none_in("a large map's remove_many", || {
        m.remove_many(gone.iter().rev().copied())
    });
    m.check_invariants();
    assert_eq!(removed, gone.len());
}

#[test]
fn extract_if_allocates_nothing_consumed_or_dropped_part_way() {
    let mut found = Found::default();
    let n = rows();
    let mut a = bodies(n);
    let taken = found.none_in("an allocator's extract_if", || {
        a.extract_if(|_, b| goes(*b.n))
            .map(|(_, b)| usize::from(goes(b.n)))
            .sum::<usize>()
    });
    assert!(taken > 0 && a.iter().all(|(_, b)| !goes(*b.n)));
    let mut a = bodies(n);
    found.none_in("an allocator's extract_if dropped part way", || {
        a.extract_if(|_, b| goes(*b.n)).take(3).for_each(drop)
    });
    a.check_invariants();

    let mut s = sparks(n);
    found.none_in("a storage's extract_if", || {
        s.extract_if(|_, p| goes(*p.n)).for_each(drop)
    });
    assert!(s.iter().all(|(_, p)| !goes(*p.n)));
    let mut s = sparks(n);
    found.none_in("a storage's extract_if dropped part way", || {
        s.extract_if(|_, p| goes(*p.n)).take(3).for_each(drop)
    });
    s.check_invariants();

    let mut m = tags(&bodies(n));
    found.none_in("a map's extract_if", || {
        m.extract_if(|_, t| goes(*t.n)).for_each(drop)
    });
    assert!(m.iter().all(|(_, t)| !goes(*t.n)));
    let mut m = tags(&bodies(n));
    found.none_in("a map's extract_if dropped part way", || {
        m.extract_if(|_, t| goes(*t.n)).take(3).for_each(drop)
    });
    m.check_invariants();
}

#[test]
fn a_joins_retain_and_extract_if_allocate_nothing() {
    let mut found = Found::default();
    let n = rows();
    // From a map, reading the allocator.
    let a = bodies(n);
    let mut m = tags(&a);
    found.none_in("a join's retain from a map", || {
        join((&mut m, &a)).retain(|_, JoinItems((_, b))| !goes(*b.n))
    });
    m.check_invariants();
    assert!(m.len() < n && m.iter().all(|(_, t)| !goes(*t.n)));
    let mut m = tags(&a);
    found.none_in("a join's extract_if from a map", || {
        join((&mut m, &a))
            .extract_if(|_, JoinItems((_, b))| goes(*b.n))
            .for_each(drop)
    });
    m.check_invariants();

    // From the allocator, reading the map.
    let mut a = bodies(n);
    let m = tags(&a);
    found.none_in("a join's retain from an allocator", || {
        join((&mut a, &m)).retain(|_, JoinItems((_, t))| !goes(*t.n))
    });
    a.check_invariants();
    assert!(a.len() < n && a.iter().all(|(_, b)| !goes(*b.n)));
    let mut a = bodies(n);
    found.none_in("a join's extract_if from an allocator", || {
        join((&mut a, &m))
            .extract_if(|_, JoinItems((_, t))| goes(*t.n))
            .take(3)
            .for_each(drop)
    });
    a.check_invariants();

    // From a storage, alone.
    let mut s = sparks(n);
    found.none_in("a join's retain from a storage", || {
        join((&mut s,)).retain(|_, JoinItems((p,))| !goes(*p.n))
    });
    s.check_invariants();
    assert!(s.len() < n && s.iter().all(|(_, p)| !goes(*p.n)));
}

/// A table past half its layout's indices keeps its free queue's links
/// on the side, and its ids have no room for a tag: the batch removals
/// mark its slots (a map's entries), and still allocate nothing.
#[test]
fn batch_removals_past_half_the_indices_allocate_nothing() {
    let mut found = Found::default();
    // Id32<6>: 63 indices; past 31 slots the links are on the side.
    let fill = || {
        let mut s = SoaStorage::<Id32<6>, Spark>::default();
        for i in 0..63 {
            s.insert(Spark { n: i, life: 0.0 });
        }
        s
    };
    let mut s = fill();
    found.none_in("retain past half the indices", || {
        s.retain(|_, p| !goes(*p.n))
    });
    s.check_invariants();
    let mut s = fill();
    let gone: Vec<_> = s.ids().iter().copied().step_by(2).collect();
    found.none_in("remove_many past half the indices", || {
        s.remove_many(gone.iter().rev().copied())
    });
    s.check_invariants();
    assert_eq!(s.len(), 31);

    // A map keyed by those ids: its page of entries reaches past half the
    // indices too.
    let ids = fill();
    let fill_map = || {
        let mut m = SoaMap::<Id32<6>, Spark>::new();
        for (id, p) in ids.iter() {
            m.insert(id, Spark { n: *p.n, life: 0.0 });
        }
        m
    };
    let mut m = fill_map();
    found.none_in("a map's retain past half the indices", || {
        m.retain(|_, p| !goes(*p.n))
    });
    m.check_invariants();
    let mut m = fill_map();
    let gone: Vec<_> = m.keys().iter().copied().step_by(2).collect();
    found.none_in("a map's remove_many past half the indices", || {
        m.remove_many(gone.iter().rev().copied())
    });
    m.check_invariants();
    assert_eq!(m.len(), 31);
}

/// A batch removal on an allocator.
type Removal = fn(&mut BodyAllocator);

/// With reservations waiting (claims pending from `&self`, on queued slots
/// and on fresh indices), each batch removal settles them without an
/// allocation, and every reservation still fills afterwards, once.
#[test]
fn batch_removals_with_reservations_waiting_allocate_nothing() {
    let mut found = Found::default();
    let n = rows();
    let waiting = if cfg!(miri) { 100 } else { 100_000 };
    let removals: [(&str, Removal); 4] = [
        ("retain", |a| a.retain(|_, b| !goes(*b.n))),
        ("remove_many", |a| {
            let gone: Vec<_> = a
                .iter()
                .filter(|(_, b)| goes(*b.n))
                .map(|(id, _)| id)
                .collect();
            let (removed, calls) = calls_in(|| a.remove_many(gone.iter().copied()));
            assert_eq!((removed, calls), (gone.len(), 0));
        }),
        ("extract_if", |a| {
            a.extract_if(|_, b| goes(*b.n)).for_each(drop);
        }),
        ("a join's retain", |a| {
            join((a,)).retain(|_, JoinItems((b,))| !goes(*b.n))
        }),
    ];
    for (what, remove) in removals {
        let mut a = bodies(n);
        for &id in a.ids()[..n / 8].to_vec().iter() {
            a.remove(id);
        }
        let reserved: Vec<_> = a.reserve_ids(waiting).collect();
        if what == "remove_many" {
            // The ids to remove are listed outside the count, above.
            remove(&mut a);
        } else {
            found.none_in(what, || remove(&mut a));
        }
        a.check_invariants();
        assert!(a.iter().all(|(_, b)| !goes(*b.n)), "{what}");
        assert_eq!(a.reserved_len(), waiting, "{what}");
        let live = a.len();
        for (i, &id) in reserved.iter().enumerate() {
            assert!(a.insert_reserved(id, body(i)).is_ok(), "{what}");
        }
        assert_eq!(a.len(), live + waiting, "{what}");
        a.check_invariants();
    }
}
