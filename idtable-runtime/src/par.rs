//! Parallel iteration with [rayon](https://docs.rs/rayon) (feature `rayon`).
//!
//! With `idtable = { version = "0.1", features = ["rayon"] }` every derived
//! allocator gains `par_iter()` and `par_iter_mut()`, and its columns are
//! plain slices that rayon already splits. There are two ways to spread a
//! loop over the threads of rayon's pool:
//!
//! * **over the columns** — `columns_mut()` hands out one `&mut [T]` per
//!   field, and rayon's own slice iterators run over them: no id is touched,
//!   only the fields the loop needs, and `par_chunks_mut` lets each thread
//!   run an existing serial kernel on its chunk of every column;
//! * **over the rows** — `par_iter()` yields `(FooId, FooRef)` and
//!   `par_iter_mut()` yields `(FooId, FooMut)`, for loops that need the id or
//!   many fields of one object at once.
//!
//! # A parallel column loop
//!
//! ```
//! use idtable::SoaAllocator;
//! use rayon::prelude::*;
//!
//! #[derive(SoaAllocator)]
//! struct Particle {
//!     pos: [f32; 3],
//!     vel: [f32; 3],
//!     age: f32,
//! }
//!
//! let mut particles: ParticleAllocator = (0..1000)
//!     .map(|i| Particle { pos: [0.0; 3], vel: [i as f32, 1.0, 0.0], age: 0.0 })
//!     .collect();
//! let dt = 0.5;
//!
//! // Both columns are split at the same indices, so row `i` of `pos` meets
//! // row `i` of `vel`, as in a serial `zip`.
//! let cols = particles.columns_mut();
//! cols.pos.par_iter_mut().zip(cols.vel.par_iter()).for_each(|(pos, vel)| {
//!     for k in 0..3 {
//!         pos[k] += vel[k] * dt;
//!     }
//! });
//! cols.age.par_iter_mut().for_each(|age| *age += dt);
//!
//! // A column loop that reduces:
//! let max_x = particles.columns().pos.par_iter().map(|p| p[0]).reduce(|| 0.0, f32::max);
//! assert_eq!(max_x, 999.0 * 0.5);
//! ```
//!
//! # Rows with their ids
//!
//! [`ParIter`] and [`ParIterMut`] are [`IndexedParallelIterator`]s: they
//! know their length and split ids and rows at the same index, so `zip`,
//! `enumerate`, `with_min_len` and `collect` into a `Vec` work and keep the
//! dense order. They yield exactly what `iter()` / `iter_mut()` yield, in
//! the same order; only which thread sees which row differs.
//!
//! ```
//! use idtable::SoaAllocator;
//! use rayon::prelude::*;
//!
//! #[derive(SoaAllocator)]
//! struct Unit {
//!     health: f32,
//!     regen: f32,
//!     name: String,
//! }
//!
//! let mut units = UnitAllocator::new();
//! let ids: Vec<UnitId> = (0..100)
//!     .map(|i| units.insert(Unit { health: 50.0, regen: i as f32, name: format!("u{i}") }))
//!     .collect();
//! units.remove(ids[3]); // the last unit moves into row 3
//!
//! units.par_iter_mut().for_each(|(_, unit)| {
//!     *unit.health = (*unit.health + *unit.regen).min(100.0);
//! });
//! assert_eq!(*units.get(ids[10]).unwrap().health, 60.0);
//! assert_eq!(*units.get(ids[99]).unwrap().health, 100.0);
//!
//! // Indexed: collecting keeps the dense order, so the result lines up with
//! // `ids()` and the columns.
//! let wounded: Vec<(UnitId, bool)> =
//!     units.par_iter().map(|(id, unit)| (id, *unit.health < 100.0)).collect();
//! assert_eq!(wounded.len(), units.len());
//! assert!(wounded.iter().map(|(id, _)| id).eq(units.ids()));
//!
//! // Each id comes with its own row.
//! units.par_iter().for_each(|(id, unit)| {
//!     assert_eq!(units.get(id).unwrap().name, unit.name);
//! });
//!
//! // `&units` and `&mut units` are `IntoParallelIterator`s too.
//! let regen: f32 = (&units).into_par_iter().map(|(_, unit)| *unit.regen).sum();
//! assert_eq!(regen, (0..100).sum::<i32>() as f32 - 3.0);
//! ```
//!
//! # Which structs get them
//!
//! Like rayon's slice iterators: `par_iter()` exists when every field is
//! `Sync` (rows are shared between threads), `par_iter_mut()` when every
//! field is `Send` (each row is handed to one thread). A struct with a
//! `Cell` field has no `par_iter()`; one with an `Rc` field has neither.
//! The column slices follow the same rules through rayon's own impls, one
//! column at a time.
//!
//! # Cost
//!
//! rayon splits the work into tasks and hands them to its threads; for a
//! small allocator or a cheap loop body that costs more than it saves, and a
//! step whose data comes from memory gains little. Raise the grain with
//! `.with_min_len(n)` (or `par_chunks_mut` over the columns), and measure:
//! `benches/NOTES.md` ("Parallel integration (rayon)") has a particle
//! integration step at sizes from ten thousand to a million particles on a
//! 2-core machine, serial against each parallel loop, with the command.
//!
//! A loop called from outside rayon's pool (a program's main thread) is
//! handed to a pool thread while the caller sleeps, on every call; run the
//! program's loop inside `ThreadPool::install` so the loops start on a
//! pool thread. The guide's chapter *Parallel loops* shows how, with the
//! measurement (`benches/pool.rs`).

use rayon::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

use crate::id::Id;
use crate::rows::{self, KeyOf, RowIndex};
use crate::storage::Record;

impl<X: RowIndex, T: Record> rows::Rows<X, T> {
    /// `(id, fields)` of every object, in dense order, as a parallel
    /// iterator. Needs every field `Sync`.
    ///
    /// A derived allocator's `par_iter()` is this one; see the
    /// [module docs](self).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// struct Shot { damage: u32 }
    ///
    /// let mut shots = SoaStorage::<ShotId, Shot>::default();
    /// let a = shots.insert(Shot { damage: 3 });
    /// shots.insert(Shot { damage: 4 });
    /// let total: u32 = shots.par_iter().map(|(_, shot)| *shot.damage).sum();
    /// assert_eq!(total, 7);
    /// let (id, shot) = shots.par_iter().find_first(|(_, s)| *s.damage == 3).unwrap();
    /// assert_eq!((id, *shot.damage), (a, 3));
    /// ```
    pub fn par_iter<'a>(&'a self) -> ParIter<'a, KeyOf<X>, T>
    where
        KeyOf<X>: Send + Sync,
        T::Values: Sync,
        T::Ref<'a>: Send,
    {
        ParIter { iter: self.iter() }
    }

    /// `(id, mutable fields)` of every object, in dense order, as a parallel
    /// iterator. Needs every field `Send`.
    ///
    /// A derived allocator's `par_iter_mut()` is this one; see the
    /// [module docs](self).
    ///
    /// ```
    /// use idtable::{SoaAllocator, SoaStorage};
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// struct Shot { damage: u32 }
    ///
    /// let mut shots = SoaStorage::<ShotId, Shot>::default();
    /// let a = shots.insert(Shot { damage: 3 });
    /// shots.par_iter_mut().for_each(|(_, shot)| *shot.damage *= 2);
    /// assert_eq!(*shots.get(a).unwrap().damage, 6);
    /// ```
    pub fn par_iter_mut<'a>(&'a mut self) -> ParIterMut<'a, KeyOf<X>, T>
    where
        KeyOf<X>: Send + Sync,
        T::Values: Send,
        T::Mut<'a>: Send,
    {
        ParIterMut {
            iter: self.iter_mut(),
        }
    }
}

/// `(key, fields)` of every row of a [`SoaStorage`](crate::SoaStorage) or a [`SoaMap`](crate::SoaMap), in
/// dense order: an [`IndexedParallelIterator`], made by their
/// `par_iter`.
///
/// It is `Send` (rayon can hand it to other threads) when the ids are
/// `Sync` and every field is `Sync`.
///
/// ```
/// use idtable::{SoaAllocator, SoaStorage};
/// use rayon::prelude::*;
///
/// #[derive(SoaAllocator)]
/// struct Shot { damage: u32 }
///
/// let mut shots = SoaStorage::<ShotId, Shot>::default();
/// for damage in 0..100 {
///     shots.insert(Shot { damage });
/// }
/// // Indexed: collecting keeps the dense order, parallel to `ids()`.
/// let ids: Vec<ShotId> = shots.par_iter().map(|(id, _)| id).collect();
/// assert_eq!(ids, shots.ids());
/// assert_eq!(shots.par_iter().len(), 100);
/// ```
pub struct ParIter<'a, I: Id, T: Record + 'a> {
    pub(crate) iter: rows::Iter<'a, I, T>,
}

impl<T: Record, I: Id> Clone for ParIter<'_, I, T> {
    fn clone(&self) -> Self {
        ParIter {
            iter: self.iter.clone(),
        }
    }
}

/// `(key, mutable fields)` of every row of a [`SoaStorage`](crate::SoaStorage) or a
/// [`SoaMap`](crate::SoaMap), in dense order: an [`IndexedParallelIterator`], made by
/// their `par_iter_mut`.
///
/// It is `Send` when the ids are `Sync` and every field is `Send`: each row
/// goes to exactly one thread.
///
/// ```
/// use idtable::{SoaAllocator, SoaStorage};
/// use rayon::prelude::*;
///
/// #[derive(SoaAllocator)]
/// struct Shot { damage: u32 }
///
/// let mut shots = SoaStorage::<ShotId, Shot>::default();
/// for _ in 0..100 {
///     shots.insert(Shot { damage: 0 });
/// }
/// // `enumerate` gives each row its dense index.
/// shots.par_iter_mut().enumerate().for_each(|(d, (_, shot))| *shot.damage = d as u32);
/// assert_eq!(shots.columns().damage, (0..100).collect::<Vec<u32>>());
/// ```
pub struct ParIterMut<'a, I: Id, T: Record + 'a> {
    pub(crate) iter: rows::IterMut<'a, I, T>,
}

/// Serial iterators that split in two at an index, ids and rows alike.
pub(crate) trait SplitAt: Sized {
    /// The first `mid` objects not yet yielded, and the rest.
    ///
    /// # Panics
    ///
    /// If `mid` is more than the objects left.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// `SplitAt` for `Iter` and `IterMut`: ids and rows split at the same index,
/// so each half still pairs every id with its row.
macro_rules! split_at {
    ($iter:ident) => {
        impl<T: Record, I: Id> SplitAt for rows::$iter<'_, I, T> {
            fn split_at(self, mid: usize) -> (Self, Self) {
                let (rows, rest_rows) = self.rows.split_at(mid);
                let (ids, rest) = self.ids.as_slice().split_at(mid);
                let left = rows::$iter {
                    ids: ids.iter(),
                    rows,
                };
                let right = rows::$iter {
                    ids: rest.iter(),
                    rows: rest_rows,
                };
                (left, right)
            }
        }
    };
}
split_at!(Iter);
split_at!(IterMut);

/// rayon's view of a [`ParIter`] or [`ParIterMut`]: the serial iterator,
/// split wherever rayon asks.
struct Halves<It>(It);

impl<It> Producer for Halves<It>
where
    It: SplitAt + DoubleEndedIterator + ExactSizeIterator + Send,
{
    type Item = It::Item;
    type IntoIter = It;

    #[inline]
    fn into_iter(self) -> It {
        self.0
    }

    #[inline]
    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.0.split_at(index);
        (Halves(left), Halves(right))
    }
}

/// `ParallelIterator` and `IndexedParallelIterator` for a wrapper of a
/// splittable serial iterator, and `IntoParallelIterator` for the borrow of
/// `SoaStorage` that makes it, with the bounds that make it `Send`: ids
/// `Send + Sync`, the field values `$values`, the yielded view `Send`.
macro_rules! indexed_parallel_iterator {
    ($wrapper:ident, $view:ident, $values:ident, $method:ident, &$($mutability:ident)?) => {
        impl<'a, T, I> ParallelIterator for $wrapper<'a, I, T>
        where
            T: Record + 'a,
            I: Id + Send + Sync,
            T::Values: $values,
            T::$view<'a>: Send,
        {
            type Item = (I, T::$view<'a>);

            fn drive_unindexed<C>(self, consumer: C) -> C::Result
            where
                C: UnindexedConsumer<Self::Item>,
            {
                bridge(self, consumer)
            }

            fn opt_len(&self) -> Option<usize> {
                Some(self.iter.len())
            }
        }

        impl<'a, T, I> IndexedParallelIterator for $wrapper<'a, I, T>
        where
            T: Record + 'a,
            I: Id + Send + Sync,
            T::Values: $values,
            T::$view<'a>: Send,
        {
            fn len(&self) -> usize {
                self.iter.len()
            }

            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                bridge(self, consumer)
            }

            fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
                callback.callback(Halves(self.iter))
            }
        }

        impl<'a, X, T> IntoParallelIterator for &'a $($mutability)? rows::Rows<X, T>
        where
            X: RowIndex,
            T: Record + 'a,
            KeyOf<X>: Send + Sync,
            T::Values: $values,
            T::$view<'a>: Send,
        {
            type Item = (KeyOf<X>, T::$view<'a>);
            type Iter = $wrapper<'a, KeyOf<X>, T>;

            fn into_par_iter(self) -> Self::Iter {
                self.$method()
            }
        }

    };
}

indexed_parallel_iterator!(ParIter, Ref, Sync, par_iter, &);
indexed_parallel_iterator!(ParIterMut, Mut, Send, par_iter_mut, &mut);

#[cfg(test)]
mod tests {
    //! The runtime alone, with a hand-written `Record`; the derive's
    //! allocators are tested in the facade's `tests/parallel.rs`.

    use super::*;
    use crate::columns::{Col, ColumnTree};
    use crate::id::Id32_32;
    use crate::storage::{RecordToken, SoaStorage};
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;

    /// Small under Miri, which runs rayon's threads slowly.
    const N: u32 = if cfg!(miri) { 24 } else { 2000 };

    #[derive(Debug, Clone, PartialEq)]
    struct Pair {
        n: u32,
        s: String,
    }

    impl Record for Pair {
        type Tree = (Col<u32>, Col<String>);
        type Values = (u32, String);
        type Ref<'a> = (&'a u32, &'a String);
        type Mut<'a> = (&'a mut u32, &'a mut String);
        type Columns<'a> = (&'a [u32], &'a [String]);
        type ColumnsMut<'a> = (&'a mut [u32], &'a mut [String]);

        fn into_values(self, _: RecordToken<Self>) -> (u32, String) {
            (self.n, self.s)
        }
        fn from_values((n, s): (u32, String), _: RecordToken<Self>) -> Self {
            Pair { n, s }
        }
        fn make_ref<'a>(
            refs: <Self::Tree as ColumnTree>::Refs<'a>,
            _: RecordToken<Self>,
        ) -> Self::Ref<'a> {
            refs
        }
        fn make_mut<'a>(
            muts: <Self::Tree as ColumnTree>::Muts<'a>,
            _: RecordToken<Self>,
        ) -> Self::Mut<'a> {
            muts
        }
        fn make_columns<'a>(
            slices: <Self::Tree as ColumnTree>::Slices<'a>,
            _: RecordToken<Self>,
        ) -> Self::Columns<'a> {
            slices
        }
        fn make_columns_mut<'a>(
            slices: <Self::Tree as ColumnTree>::SlicesMut<'a>,
            _: RecordToken<Self>,
        ) -> Self::ColumnsMut<'a> {
            slices
        }
        fn shared_columns<'b, 'a: 'b>(c: &'b Self::ColumnsMut<'a>) -> Self::Columns<'b> {
            (&*c.0, &*c.1)
        }
        fn reborrow_columns<'b, 'a: 'b>(c: &'b mut Self::ColumnsMut<'a>) -> Self::ColumnsMut<'b> {
            (&mut *c.0, &mut *c.1)
        }
    }

    type Storage = SoaStorage<Id32_32, Pair>;

    /// `n` objects, then every third removed and some reinserted, so the
    /// dense order is not the insertion order.
    fn churned(n: u32) -> Storage {
        let mut s = Storage::default();
        let ids: Vec<_> = (0..n)
            .map(|i| {
                s.insert(Pair {
                    n: i,
                    s: i.to_string(),
                })
            })
            .collect();
        for id in ids.iter().step_by(3) {
            s.remove(*id);
        }
        for i in n..n + n / 6 {
            s.insert(Pair {
                n: i,
                s: i.to_string(),
            });
        }
        s
    }

    fn owned(rows: impl Iterator<Item = (Id32_32, (u32, String))>) -> Vec<(Id32_32, u32, String)> {
        rows.map(|(id, (n, s))| (id, n, s)).collect()
    }

    #[test]
    fn par_iter_yields_the_serial_pairs_in_dense_order() {
        let s = churned(N);
        let serial = owned(s.iter().map(|(id, (n, t))| (id, (*n, t.clone()))));
        let parallel: Vec<_> = s
            .par_iter()
            .with_max_len(1)
            .map(|(id, (n, t))| (id, *n, t.clone()))
            .collect();
        assert_eq!(parallel, serial);
        assert_eq!(s.par_iter().len(), s.len());
        let by_ref: Vec<_> = (&s).into_par_iter().map(|(id, _)| id).collect();
        assert_eq!(by_ref, s.ids());
    }

    #[test]
    fn par_iter_mut_writes_each_row_once() {
        let mut s = churned(N);
        s.par_iter_mut().with_max_len(1).for_each(|(id, (n, t))| {
            *n += 1;
            t.push_str(&id.to_bits().to_string());
        });
        for (id, (n, t)) in s.iter() {
            assert_eq!(*t, alloc::format!("{}{}", *n - 1, id.to_bits()));
        }
        (&mut s).into_par_iter().for_each(|(_, (n, _))| *n = 0);
        assert!(s.columns().0.iter().all(|&n| n == 0));
    }

    /// Splits `whole` at `mid`, the right part again at `inner`, and reads
    /// the three pieces in order (the last one back to front, reversed).
    fn pieces<It>(whole: It, mid: usize, inner: usize) -> Vec<It::Item>
    where
        It: SplitAt + DoubleEndedIterator + ExactSizeIterator,
    {
        let len = whole.len();
        let (left, right) = whole.split_at(mid);
        assert_eq!((left.len(), right.len()), (mid, len - mid));
        let (middle, last) = right.split_at(inner);
        let mut last: Vec<_> = last.rev().collect();
        last.reverse();
        left.chain(middle).chain(last).collect()
    }

    #[test]
    fn split_ids_and_rows_at_every_index() {
        let mut s = churned(if cfg!(miri) { 7 } else { 40 });
        let len = s.len();
        let serial: Vec<_> = s.iter().map(|(id, (n, _))| (id, *n)).collect();
        for mid in 0..=len {
            for inner in 0..=len - mid {
                let got: Vec<_> = pieces(s.iter(), mid, inner)
                    .into_iter()
                    .map(|(id, (n, _))| (id, *n))
                    .collect();
                assert_eq!(got, serial, "split at {mid}, then {inner}");
            }
        }
        for mid in 0..=len {
            let (left, right) = s.iter_mut().split_at(mid);
            left.for_each(|(_, (n, _))| *n = 1);
            right.for_each(|(_, (n, _))| *n = 2);
            let (head, tail) = s.columns().0.split_at(mid);
            assert!(head.iter().all(|&n| n == 1) && tail.iter().all(|&n| n == 2));
        }
    }

    #[test]
    #[should_panic = "out of bounds"]
    fn split_past_the_end_panics() {
        let s = churned(4);
        let _ = s.iter().split_at(s.len() + 1);
    }

    /// The halves of a split go to two threads at once, as rayon sends them,
    /// without rayon's pool (so this test also runs under Miri's default
    /// Stacked Borrows, which rayon's deque does not pass).
    #[test]
    fn split_halves_work_on_two_threads() {
        let mut s = churned(if cfg!(miri) { 10 } else { 1000 });
        let mid = s.len() / 3;
        let (left, right) = s.iter_mut().split_at(mid);
        std::thread::scope(|scope| {
            scope.spawn(move || left.for_each(|(id, (n, _))| *n = id.to_bits() as u32));
            scope.spawn(move || right.for_each(|(_, (n, t))| *n = t.len() as u32));
        });
        let (left, right) = s.iter().split_at(mid);
        let (sum_left, sum_right) = std::thread::scope(|scope| {
            let l = scope.spawn(move || left.map(|(_, (n, _))| u64::from(*n)).sum::<u64>());
            let r = scope.spawn(move || right.map(|(_, (n, _))| u64::from(*n)).sum::<u64>());
            (l.join().unwrap(), r.join().unwrap())
        });
        let ids = s.ids();
        let strings = s.columns().1;
        let expected_left: u64 = ids[..mid].iter().map(|id| id.to_bits() as u32 as u64).sum();
        let expected_right: u64 = strings[mid..].iter().map(|t| t.len() as u64).sum();
        assert_eq!((sum_left, sum_right), (expected_left, expected_right));
    }

    #[test]
    fn empty_storage_yields_nothing() {
        let mut s = Storage::default();
        assert_eq!(s.par_iter().count(), 0);
        assert_eq!(s.par_iter_mut().len(), 0);
        let (left, right) = s.iter().split_at(0);
        assert_eq!(left.len() + right.len(), 0);
    }
}
