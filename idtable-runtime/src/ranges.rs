//! Row ranges: the columns of a table cut into ranges of rows, every column
//! at the same rows, to hand to jobs, threads or SIMD batches.
//!
//! A [`RowSlices`] is a set of parallel slices of the same rows: a column
//! `&[T]` or `&mut [T]`, an array of them, a split field's
//! [`SplitColumns`](crate::columns::SplitColumns), a derived struct's
//! column views (`FooColumns`, `FooColumnsMut`, which the derive makes
//! `RowSlices` field by field), and a pair of them, such as the ids and
//! columns that `ids_and_columns_mut()` and `keys_and_columns_mut()`
//! return. The generated views name the operations like std's slices:
//!
//! | on `FooColumns<'a>` | on `FooColumnsMut<'a>` | what |
//! | --- | --- | --- |
//! | `len()`, `is_empty()` | `len()`, `is_empty()` | rows |
//! | `split_at(mid)` | `split_at_mut(mid)` | rows `..mid` and `mid..` |
//! | `chunks(n)` | `chunks_mut(n)` | ranges of `n` rows (the last shorter) |
//! | `get(range)` | `get_mut(range)` | a range of rows, `None` out of bounds |
//! | `row(i)` | `row_mut(i)` | the row at dense position `i` (`FooRef` / `FooMut`) |
//! | | `par_chunks_mut(n)` | `chunks_mut` for rayon (feature `rayon`) |
//!
//! The mutable view's `_mut` methods take it by value, so what they return
//! lives as long as the columns; `reborrow()` lends a shorter-lived copy of
//! it, `as_columns()` a shared view (with the shared methods), and `row(i)`
//! on it lends one row, shared.
//! [`RowRanges`] gives the same methods to an `(ids, columns)` pair, ids
//! split in step.
//!
//! ```
//! use idtable::{RowRanges, SoaAllocator};
//!
//! #[derive(SoaAllocator)]
//! pub struct Particle { pub pos: f32, pub vel: f32 }
//!
//! let mut particles: ParticleAllocator =
//!     (0..10).map(|i| Particle { pos: 0.0, vel: i as f32 }).collect();
//!
//! // One job per range of 4 rows, every column cut at the same rows.
//! for chunk in particles.columns_mut().chunks_mut(4) {
//!     for (pos, vel) in chunk.pos.iter_mut().zip(chunk.vel.iter()) {
//!         *pos += vel;
//!     }
//! }
//! let (left, right) = particles.columns().split_at(5);
//! assert_eq!((left.len(), right.len()), (5, 5));
//! assert_eq!(*right.row(0).pos, 5.0);
//! assert_eq!(particles.columns().get(8..).map(|c| c.len()), Some(2));
//!
//! // The ids come along, cut at the same rows.
//! let (head, tail) = particles.ids_and_columns_mut().split_at_mut(3);
//! assert_eq!((head.0.len(), head.1.len(), tail.0.len()), (3, 3, 7));
//! ```

use core::iter::FusedIterator;
use core::ops::{Bound, RangeBounds};

/// Parallel slices of the same rows, cut together: see the [module
/// docs](self). Implemented for `&[T]`, `&mut [T]`, arrays and pairs of
/// `RowSlices`, a split field's columns
/// ([`SplitColumns`](crate::columns::SplitColumns),
/// [`SplitColumnsMut`](crate::columns::SplitColumnsMut)), and by
/// `#[derive(SoaAllocator)]` for its column views.
///
/// Its methods are the raw operations; the generated views and
/// [`RowRanges`] offer them under std's names, checked.
///
/// ```
/// use idtable::ranges::RowSlices;
///
/// let xs = [1.0, 2.0, 3.0];
/// let mut ys = [4.0, 5.0, 6.0];
/// let both = ([&xs[..], &xs[..]], &mut ys[..]);
/// assert_eq!(both.row_count(), 3);
/// let (head, tail) = both.split_rows(1);
/// assert_eq!(head.row_count(), 1);
/// let ([x, _], y) = tail.into_row(1);
/// *y += *x;
/// assert_eq!(ys, [4.0, 5.0, 9.0]);
///
/// // Rows, front to back: as an iterator, or through a loop of its own.
/// let sums: Vec<f64> = (&xs[..], &ys[..]).into_rows().map(|(x, y)| x + y).collect();
/// assert_eq!(sums, [5.0, 7.0, 12.0]);
/// (&mut ys[..], &xs[..]).for_each_row(|(y, x)| *y -= *x);
/// let keys = ['a', 'b', 'c'];
/// let mut seen = Vec::new();
/// (&ys[..]).for_each_row_keyed(&keys, |(key, y)| seen.push((*key, *y)));
/// assert_eq!(seen, [('a', 3.0), ('b', 3.0), ('c', 6.0)]);
/// ```
pub trait RowSlices: Sized {
    /// One row: `&T` for `&[T]`, `&mut T` for `&mut [T]`, an array or a
    /// pair of rows, `FooRef` / `FooMut` for a derived struct's views.
    type Row;

    /// How many rows there are (every slice has this many).
    fn row_count(&self) -> usize;

    /// Rows `..mid` and `mid..`.
    ///
    /// # Panics
    ///
    /// If `mid > row_count()`.
    fn split_rows(self, mid: usize) -> (Self, Self);

    /// The row at `index`.
    ///
    /// # Panics
    ///
    /// If `index >= row_count()`.
    fn into_row(self, index: usize) -> Self::Row;

    /// The rows, front to back, as an iterator.
    type RowIter: Iterator<Item = Self::Row>;

    /// The rows as an iterator (a loop should call
    /// [`for_each_row`](RowSlices::for_each_row)).
    fn into_rows(self) -> Self::RowIter;

    /// Calls `f` with every row, front to back, from inside a function
    /// that takes the slices as arguments of their own where it can: there
    /// the compiler knows that no two of them overlap, so a loop that
    /// writes one column and reads another keeps its values in registers
    /// and can be vectorised. A loop over slices taken out of one struct
    /// (`cols.pos.iter_mut().zip(cols.vel)`) cannot know it, and reloads
    /// what it read after every write. A slice, a pair of slices and a
    /// derived view's plain fields (and split fields of a literal length)
    /// are passed so; the slices of a nested field's view are not.
    #[inline(always)]
    fn for_each_row(self, f: impl FnMut(Self::Row)) {
        self.into_rows().for_each(f);
    }

    /// [`for_each_row`](RowSlices::for_each_row) with `keys` (one per
    /// row) in step, the keys' slice an argument of its own too: what
    /// [`RowRanges::for_each`] of an `(ids, columns)` pair calls.
    #[inline(always)]
    fn for_each_row_keyed<'k, K>(self, keys: &'k [K], f: impl FnMut((&'k K, Self::Row))) {
        keys.iter().zip(self.into_rows()).for_each(f);
    }
}

/// Calls `f` with every row of `slices`, front to back, through
/// [`RowSlices::for_each_row`]: what the generated `for_each` of
/// `FooColumns` and `FooColumnsMut` calls, and the way to write a hot loop
/// over several columns.
///
/// ```
/// let mut pos = vec![[0.0f32; 3]; 4];
/// let vel = vec![[1.0f32, 2.0, 3.0]; 4];
/// idtable::ranges::for_each((&mut pos[..], &vel[..]), |(p, v)| {
///     for k in 0..3 {
///         p[k] += v[k];
///     }
/// });
/// assert_eq!(pos[3], [1.0, 2.0, 3.0]);
/// ```
#[inline(always)]
pub fn for_each<S: RowSlices>(slices: S, f: impl FnMut(S::Row)) {
    slices.for_each_row(f);
}

/// The loops the derive's `for_each_row` and `for_each_row_keyed` call: each
/// takes a view's columns as arguments of their own (and `keys` for the
/// keyed one), never inlined, so the loop knows that no two overlap, and
/// calls `f` with the rows as nested pairs, `(a, (b, c))`. Written once
/// here for 1 to 16 columns, so a derived struct names a loop instead of
/// writing one (the type checker's work per struct stays small); wider
/// views zip through nested pairs' [`RowSlices`].
#[doc(hidden)]
pub mod loops {
    use super::RowSlices;

    macro_rules! nest_ty {
        ($one:ty) => { $one };
        ($first:ty, $($rest:ty),+) => { ($first, nest_ty!($($rest),+)) };
    }

    macro_rules! nest_rows {
        ($one:ident) => { RowSlices::into_rows($one) };
        ($first:ident, $($rest:ident),+) => {
            Iterator::zip(RowSlices::into_rows($first), nest_rows!($($rest),+))
        };
    }

    macro_rules! loops {
        ($($rows:ident $keyed:ident: $($p:ident $a:ident),+;)+) => {$(
            /// The rows of the columns, one argument each, in step.
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            pub fn $rows<$($p: RowSlices,)+ F: FnMut(nest_ty!($($p::Row),+))>(
                $($a: $p,)+
                f: F,
            ) {
                nest_rows!($($a),+).for_each(f);
            }

            /// As the plain loop, with `keys` in step.
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            pub fn $keyed<'k, K, $($p: RowSlices,)+ F: FnMut((&'k K, nest_ty!($($p::Row),+)))>(
                keys: &'k [K],
                $($a: $p,)+
                f: F,
            ) {
                keys.iter().zip(nest_rows!($($a),+)).for_each(f);
            }
        )+};
    }

    loops! {
        rows1 keyed1: A a;
        rows2 keyed2: A a, B b;
        rows3 keyed3: A a, B b, C c;
        rows4 keyed4: A a, B b, C c, D d;
        rows5 keyed5: A a, B b, C c, D d, E e;
        rows6 keyed6: A a, B b, C c, D d, E e, G g;
        rows7 keyed7: A a, B b, C c, D d, E e, G g, H h;
        rows8 keyed8: A a, B b, C c, D d, E e, G g, H h, I i;
        rows9 keyed9: A a, B b, C c, D d, E e, G g, H h, I i, J j;
        rows10 keyed10: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l;
        rows11 keyed11: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m;
        rows12 keyed12: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m, N n;
        rows13 keyed13: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m, N n, O o;
        rows14 keyed14: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m, N n, O o, P p;
        rows15 keyed15: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m, N n, O o, P p, Q q;
        rows16 keyed16: A a, B b, C c, D d, E e, G g, H h, I i, J j, L l, M m, N n, O o, P p, Q q, R r;
    }
}

/// A view made of parts: a derived struct's column view is its fields'
/// slices as nested pairs (`(a, (b, c))`), each row assembled from the
/// pairs' rows (what its [`RowSlices::into_rows`] yields). `#[derive(SoaAllocator)]` implements it for `FooColumns`
/// and `FooColumnsMut`, whose [`RowSlices::RowIter`] are [`ViewRowIter`].
///
/// ```
/// use idtable::ranges::{RowParts, RowSlices, ViewRowIter};
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// pub struct P { pub x: f32, pub v: f32 }
///
/// let mut ps: PAllocator = (0..3).map(|i| P { x: 0.0, v: i as f32 }).collect();
/// let (x, v): (&mut [f32], &mut [f32]) = ps.columns_mut().into_parts();
/// x[2] = v[2];
/// let rows: ViewRowIter<PColumns<'_>> = ps.columns().into_rows();
/// assert_eq!(rows.map(|p| *p.x).collect::<Vec<_>>(), [0.0, 0.0, 2.0]);
/// // The same rows, assembled by hand from the parts' rows:
/// let parts = ps.columns().into_parts().into_rows();
/// let rows = ViewRowIter::<PColumns<'_>>::new(parts);
/// assert_eq!(rows.map(|p| *p.v).sum::<f32>(), 3.0);
/// let row = PColumns::row_of_parts((&1.0, &2.0));
/// assert_eq!((*row.x, *row.v), (1.0, 2.0));
/// ```
pub trait RowParts: RowSlices {
    /// The view's slices, as nested pairs.
    type Parts: RowSlices;

    /// The view taken apart.
    fn into_parts(self) -> Self::Parts;

    /// The view's row of one row of its parts.
    fn row_of_parts(parts: <Self::Parts as RowSlices>::Row) -> Self::Row;
}

/// The rows of a [`RowParts`] view: its parts' rows, each assembled into
/// the view's row.
pub struct ViewRowIter<V: RowParts>(<V::Parts as RowSlices>::RowIter);

impl<V: RowParts> ViewRowIter<V> {
    /// The rows `parts` yields, each assembled into the view's row: see
    /// [`RowParts`]'s example.
    #[inline(always)]
    pub fn new(parts: <V::Parts as RowSlices>::RowIter) -> Self {
        ViewRowIter(parts)
    }
}

impl<V: RowParts> Iterator for ViewRowIter<V> {
    type Item = V::Row;

    #[inline(always)]
    fn next(&mut self) -> Option<V::Row> {
        self.0.next().map(V::row_of_parts)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    #[inline(always)]
    fn fold<B, F: FnMut(B, V::Row) -> B>(self, init: B, mut f: F) -> B {
        self.0
            .fold(init, move |acc, parts| f(acc, V::row_of_parts(parts)))
    }
}

/// The rows of an array of [`RowSlices`] (and of a split field's
/// [`SplitColumns`](crate::columns::SplitColumns)): one row of each
/// element, as an array.
///
/// ```
/// use idtable::ranges::RowSlices;
///
/// let (xs, ys) = ([1, 2], [10, 20]);
/// let rows: Vec<[&i32; 2]> = [&xs[..], &ys[..]].into_rows().collect();
/// assert_eq!(rows, [[&1, &10], [&2, &20]]);
/// ```
pub struct ArrayRowIter<I, const N: usize>([I; N]);

impl<I: Iterator, const N: usize> Iterator for ArrayRowIter<I, N> {
    type Item = [I::Item; N];

    #[inline]
    fn next(&mut self) -> Option<[I::Item; N]> {
        let items = self.0.each_mut().map(Iterator::next);
        if items.iter().any(Option::is_none) {
            return None;
        }
        Some(items.map(|item| match item {
            Some(row) => row,
            None => unreachable!("every element has a row"),
        }))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.first().map_or((0, Some(0)), Iterator::size_hint)
    }
}

impl<'a, T> RowSlices for &'a [T] {
    type Row = &'a T;

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        self.split_at(mid)
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> &'a T {
        &self[index]
    }

    type RowIter = core::slice::Iter<'a, T>;

    #[inline(always)]
    fn into_rows(self) -> Self::RowIter {
        self.iter()
    }
}

impl<'a, T> RowSlices for &'a mut [T] {
    type Row = &'a mut T;

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.len()
    }

    #[inline(always)]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> &'a mut T {
        &mut self[index]
    }

    type RowIter = core::slice::IterMut<'a, T>;

    #[inline(always)]
    fn into_rows(self) -> Self::RowIter {
        self.iter_mut()
    }
}

impl<S: RowSlices, const N: usize> RowSlices for [S; N] {
    type Row = [S::Row; N];

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.first().map_or(0, S::row_count)
    }

    #[inline]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        let mut halves = self.map(|s| {
            let (left, right) = s.split_rows(mid);
            (Some(left), Some(right))
        });
        let left = core::array::from_fn(|k| take(&mut halves[k].0));
        let right = core::array::from_fn(|k| take(&mut halves[k].1));
        (left, right)
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> Self::Row {
        self.map(|s| s.into_row(index))
    }

    type RowIter = ArrayRowIter<S::RowIter, N>;

    #[inline]
    fn into_rows(self) -> Self::RowIter {
        ArrayRowIter(self.map(S::into_rows))
    }
}

/// The half `split_rows` put there, once.
#[inline(always)]
fn take<S>(half: &mut Option<S>) -> S {
    match half.take() {
        Some(s) => s,
        None => unreachable!("each half is taken once"),
    }
}

impl<A: RowSlices, B: RowSlices> RowSlices for (A, B) {
    type Row = (A::Row, B::Row);

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.0.row_count()
    }

    #[inline(always)]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        let (a0, a1) = self.0.split_rows(mid);
        let (b0, b1) = self.1.split_rows(mid);
        ((a0, b0), (a1, b1))
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> Self::Row {
        (self.0.into_row(index), self.1.into_row(index))
    }

    type RowIter = core::iter::Zip<A::RowIter, B::RowIter>;

    #[inline(always)]
    fn into_rows(self) -> Self::RowIter {
        self.0.into_rows().zip(self.1.into_rows())
    }

    /// The two halves as arguments of their own (two slices each one).
    #[inline(always)]
    fn for_each_row(self, f: impl FnMut(Self::Row)) {
        pair_for_each(self.0, self.1, f);
    }
}

/// The loop of a pair's [`RowSlices::for_each_row`], its halves passed as
/// arguments.
#[inline(always)]
fn pair_for_each<A: RowSlices, B: RowSlices>(a: A, b: B, f: impl FnMut((A::Row, B::Row))) {
    a.into_rows().zip(b.into_rows()).for_each(f);
}

/// Rows `..mid` and `mid..` of `slices`, with std's panic message: what the
/// generated `split_at` and `split_at_mut` call.
///
/// # Panics
///
/// If `mid` is past the last row.
///
/// ```
/// let xs = [1, 2, 3];
/// let (a, b) = idtable::ranges::split_at(&xs[..], 1);
/// assert_eq!((a, b), (&[1][..], &[2, 3][..]));
/// ```
#[inline]
#[track_caller]
pub fn split_at<S: RowSlices>(slices: S, mid: usize) -> (S, S) {
    let len = slices.row_count();
    if mid > len {
        split_out_of_bounds(mid, len);
    }
    slices.split_rows(mid)
}

/// Rows `range` of `slices`, or `None` if the range is out of bounds or
/// decreasing (as `slice::get`): what the generated `get(range)` and
/// `get_mut(range)` call.
///
/// ```
/// let xs = [1, 2, 3, 4];
/// assert_eq!(idtable::ranges::get(&xs[..], 1..3), Some(&[2, 3][..]));
/// assert_eq!(idtable::ranges::get(&xs[..], 3..9), None);
/// ```
#[inline]
pub fn get<S: RowSlices>(slices: S, range: impl RangeBounds<usize>) -> Option<S> {
    let len = slices.row_count();
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return None;
    }
    let (_, tail) = slices.split_rows(start);
    let (middle, _) = tail.split_rows(end - start);
    Some(middle)
}

/// The row at `index` of `slices`, with std's panic message: what the
/// generated `row` and `row_mut` call.
///
/// # Panics
///
/// If `index` is not below the number of rows.
///
/// ```
/// let xs = [1, 2, 3];
/// assert_eq!(idtable::ranges::row(&xs[..], 2), &3);
/// ```
#[inline]
#[track_caller]
pub fn row<S: RowSlices>(slices: S, index: usize) -> S::Row {
    let len = slices.row_count();
    if index >= len {
        row_out_of_bounds(index, len);
    }
    slices.into_row(index)
}

/// Ranges of `size` rows of `slices` (the last one shorter if the rows do
/// not divide evenly): what the generated `chunks` and `chunks_mut` call.
///
/// # Panics
///
/// If `size` is 0.
///
/// ```
/// let xs = [1, 2, 3, 4, 5];
/// let lens: Vec<usize> = idtable::ranges::chunks(&xs[..], 2).map(|c| c.len()).collect();
/// assert_eq!(lens, [2, 2, 1]);
/// ```
#[inline]
#[track_caller]
pub fn chunks<S: RowSlices>(slices: S, size: usize) -> Chunks<S> {
    assert!(size != 0, "chunk size must be non-zero");
    Chunks {
        rest: Some(slices),
        size,
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn split_out_of_bounds(mid: usize, len: usize) -> ! {
    panic!("mid > len: split at {mid} of {len} rows")
}

#[cold]
#[inline(never)]
#[track_caller]
fn row_out_of_bounds(index: usize, len: usize) -> ! {
    panic!("row index {index} out of bounds (len {len})")
}

/// Ranges of rows of a [`RowSlices`], each `size` rows but the last: from
/// the generated `chunks` / `chunks_mut` and [`chunks`]. Double-ended and
/// exact-size, like `slice::Chunks`.
///
/// ```
/// let xs = [1, 2, 3, 4, 5];
/// let mut it = idtable::ranges::chunks(&xs[..], 2);
/// assert_eq!(it.len(), 3);
/// assert_eq!(it.next_back(), Some(&[5][..]));
/// assert_eq!(it.next(), Some(&[1, 2][..]));
/// assert_eq!(it.collect::<Vec<_>>(), [&[3, 4][..]]);
/// ```
pub struct Chunks<S> {
    /// The rows not yet handed out; `None` once they are all gone.
    rest: Option<S>,
    size: usize,
}

impl<S: RowSlices> Chunks<S> {
    fn rows_left(&self) -> usize {
        self.rest.as_ref().map_or(0, S::row_count)
    }
}

impl<S: RowSlices> Iterator for Chunks<S> {
    type Item = S;

    #[inline]
    fn next(&mut self) -> Option<S> {
        let rest = self.rest.take()?;
        let len = rest.row_count();
        if len == 0 {
            return None;
        }
        let (chunk, tail) = rest.split_rows(self.size.min(len));
        self.rest = Some(tail);
        Some(chunk)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rows_left().div_ceil(self.size);
        (n, Some(n))
    }
}

impl<S: RowSlices> DoubleEndedIterator for Chunks<S> {
    #[inline]
    fn next_back(&mut self) -> Option<S> {
        let rest = self.rest.take()?;
        let len = rest.row_count();
        if len == 0 {
            return None;
        }
        let last = match len % self.size {
            0 => self.size,
            short => short,
        };
        let (head, chunk) = rest.split_rows(len - last);
        self.rest = Some(head);
        Some(chunk)
    }
}

impl<S: RowSlices> ExactSizeIterator for Chunks<S> {}
impl<S: RowSlices> FusedIterator for Chunks<S> {}

/// Row ranges of the `(ids, columns)` pair that `ids_and_columns_mut()` and
/// `keys_and_columns_mut()` return, the ids cut at the same rows as the
/// columns. The pair stays a pair (`let (ids, columns) = ...` still
/// works); import this trait for its methods.
///
/// ```
/// use idtable::{RowRanges, SoaAllocator};
///
/// #[derive(SoaAllocator)]
/// pub struct Unit { pub hp: i32 }
///
/// let mut units: UnitAllocator = (0..10).map(|hp| Unit { hp }).collect();
/// let all = units.ids().to_vec();
/// for (ids, columns) in units.ids_and_columns_mut().chunks_mut(4) {
///     assert_eq!(ids.len(), columns.len());
///     for (id, hp) in ids.iter().zip(columns.hp.iter_mut()) {
///         *hp += id.index() as i32;
///     }
/// }
/// let pair = units.ids_and_columns_mut();
/// assert_eq!((pair.len(), pair.is_empty()), (10, false));
/// let (id, unit) = pair.row_mut(9);
/// assert_eq!((*id, *unit.hp), (all[9], 18));
/// let tail = units.ids_and_columns_mut().get_mut(8..).unwrap();
/// assert_eq!(tail.0, &all[8..]);
/// let (head, rest) = units.ids_and_columns_mut().split_at_mut(2);
/// assert_eq!((head.0, rest.1.len()), (&all[..2], 8));
/// ```
pub trait RowRanges: RowSlices {
    /// How many rows.
    fn len(&self) -> usize {
        self.row_count()
    }

    /// `true` if there is no row.
    fn is_empty(&self) -> bool {
        self.row_count() == 0
    }

    /// Rows `..mid` and `mid..`.
    ///
    /// # Panics
    ///
    /// If `mid` is past the last row.
    #[track_caller]
    fn split_at_mut(self, mid: usize) -> (Self, Self) {
        split_at(self, mid)
    }

    /// Ranges of `size` rows (the last one shorter).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    #[track_caller]
    fn chunks_mut(self, size: usize) -> Chunks<Self> {
        chunks(self, size)
    }

    /// Rows `range`, or `None` if it is out of bounds.
    fn get_mut(self, range: impl RangeBounds<usize>) -> Option<Self> {
        get(self, range)
    }

    /// The row at dense position `index`: `(&id, FooMut)`.
    ///
    /// # Panics
    ///
    /// If `index` is not below the number of rows.
    #[track_caller]
    fn row_mut(self, index: usize) -> Self::Row {
        row(self, index)
    }

    /// Calls `f` with every row, `(&id, FooMut)`, front to back, the ids
    /// and the columns passed as arguments of their own (see
    /// [`RowSlices::for_each_row`]): the way to write a hot loop that needs
    /// the ids.
    ///
    /// ```
    /// use idtable::{RowRanges, SoaAllocator};
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32, pub regen: i32 }
    ///
    /// let mut units: UnitAllocator = (0..4).map(|hp| Unit { hp, regen: 1 }).collect();
    /// let mut full = Vec::new();
    /// units.ids_and_columns_mut().for_each(|(id, unit)| {
    ///     *unit.hp += *unit.regen;
    ///     if *unit.hp >= 3 {
    ///         full.push(*id);
    ///     }
    /// });
    /// assert_eq!(full, units.ids()[2..]);
    /// ```
    #[inline(always)]
    fn for_each(self, f: impl FnMut(Self::Row)) {
        for_each(self, f);
    }

    /// [`chunks_mut`](RowRanges::chunks_mut) as a rayon parallel iterator
    /// (feature `rayon`).
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use idtable::{RowRanges, SoaAllocator};
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct Unit { pub hp: i32 }
    ///
    /// let mut units: UnitAllocator = (0..10_000).map(|hp| Unit { hp }).collect();
    /// units.ids_and_columns_mut().par_chunks_mut(4096).for_each(|(ids, cols)| {
    ///     for (id, hp) in ids.iter().zip(cols.hp.iter_mut()) {
    ///         *hp -= id.index() as i32;
    ///     }
    /// });
    /// assert!(units.columns().hp.iter().all(|&hp| hp == 0));
    /// ```
    #[cfg(feature = "rayon")]
    #[track_caller]
    fn par_chunks_mut(self, size: usize) -> ParChunks<Self>
    where
        Self: Send,
    {
        par_chunks(self, size)
    }
}

impl<K, C: RowSlices> RowRanges for (&[K], C) {
    #[inline(always)]
    fn for_each(self, f: impl FnMut(Self::Row)) {
        let (keys, columns) = self;
        columns.for_each_row_keyed(keys, f);
    }
}

#[cfg(feature = "rayon")]
pub use par::{par_chunks, ParChunks};

#[cfg(feature = "rayon")]
mod par {
    use rayon::iter::plumbing::{bridge, Consumer, Producer, ProducerCallback, UnindexedConsumer};
    use rayon::iter::{IndexedParallelIterator, ParallelIterator};

    use super::{chunks, Chunks, RowSlices};

    /// [`chunks`](super::chunks) for rayon: ranges of `size` rows handed to
    /// the pool's threads, each range to one. What the generated
    /// `par_chunks_mut` calls.
    ///
    /// # Panics
    ///
    /// If `size` is 0.
    ///
    /// ```
    /// use rayon::prelude::*;
    ///
    /// let mut xs = vec![1u32; 1000];
    /// let ys = vec![2u32; 1000];
    /// idtable::ranges::par_chunks((&mut xs[..], &ys[..]), 64).for_each(|(x, y)| {
    ///     x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
    /// });
    /// assert!(xs.iter().all(|&x| x == 3));
    /// ```
    #[track_caller]
    pub fn par_chunks<S: RowSlices + Send>(slices: S, size: usize) -> ParChunks<S> {
        assert!(size != 0, "chunk size must be non-zero");
        ParChunks { slices, size }
    }

    /// Ranges of rows of a [`RowSlices`] as an
    /// [`IndexedParallelIterator`]: from the generated `par_chunks_mut` and
    /// [`par_chunks`].
    ///
    /// ```
    /// use idtable::SoaAllocator;
    /// use rayon::prelude::*;
    ///
    /// #[derive(SoaAllocator)]
    /// pub struct P { pub x: f32, pub v: f32 }
    ///
    /// let mut ps: PAllocator = (0..10_000).map(|i| P { x: 0.0, v: i as f32 }).collect();
    /// let chunks: idtable::ranges::ParChunks<PColumnsMut<'_>> = ps.columns_mut().par_chunks_mut(4096);
    /// assert_eq!(chunks.len(), 3);
    /// chunks.for_each(|c| c.x.iter_mut().zip(c.v.iter()).for_each(|(x, v)| *x += v));
    /// assert_eq!(ps.columns().x[9_999], 9_999.0);
    /// ```
    pub struct ParChunks<S> {
        slices: S,
        size: usize,
    }

    impl<S: RowSlices + Send> ParallelIterator for ParChunks<S> {
        type Item = S;

        fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }

        fn opt_len(&self) -> Option<usize> {
            Some(self.len())
        }
    }

    impl<S: RowSlices + Send> IndexedParallelIterator for ParChunks<S> {
        fn len(&self) -> usize {
            self.slices.row_count().div_ceil(self.size)
        }

        fn drive<C: Consumer<S>>(self, consumer: C) -> C::Result {
            bridge(self, consumer)
        }

        fn with_producer<CB: ProducerCallback<S>>(self, callback: CB) -> CB::Output {
            callback.callback(ChunksProducer {
                slices: self.slices,
                size: self.size,
            })
        }
    }

    struct ChunksProducer<S> {
        slices: S,
        size: usize,
    }

    impl<S: RowSlices + Send> Producer for ChunksProducer<S> {
        type Item = S;
        type IntoIter = Chunks<S>;

        fn into_iter(self) -> Chunks<S> {
            chunks(self.slices, self.size)
        }

        fn split_at(self, index: usize) -> (Self, Self) {
            let rows = (index * self.size).min(self.slices.row_count());
            let (left, right) = self.slices.split_rows(rows);
            let size = self.size;
            (
                ChunksProducer { slices: left, size },
                ChunksProducer {
                    slices: right,
                    size,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;

    #[test]
    fn chunks_cover_every_row_once_from_both_ends() {
        for len in 0..20usize {
            for size in 1..7 {
                let xs: Vec<usize> = (0..len).collect();
                let ys: Vec<usize> = (0..len).map(|i| i * 10).collect();
                let it = chunks((&xs[..], [&ys[..], &ys[..]]), size);
                assert_eq!(it.len(), len.div_ceil(size));
                let forward: Vec<usize> = it.flat_map(|(x, _)| x.iter().copied()).collect();
                assert_eq!(forward, xs);
                let mut back: Vec<&[usize]> = chunks((&xs[..], &ys[..]), size)
                    .rev()
                    .map(|(x, _)| x)
                    .collect();
                back.reverse();
                assert_eq!(back.concat(), xs);
                let mut it = chunks(&ys[..], size);
                let mut seen = 0;
                while let Some(c) = if seen % 2 == 0 {
                    it.next()
                } else {
                    it.next_back()
                } {
                    assert!(!c.is_empty() && c.len() <= size);
                    seen += 1;
                }
                assert_eq!(seen, len.div_ceil(size));
            }
        }
    }

    #[test]
    fn get_refuses_what_slice_get_refuses() {
        let xs = [0, 1, 2, 3, 4];
        let views = [&xs[..], &xs[..]];
        for a in 0..8 {
            for b in 0..8 {
                let want = xs.get(a..b);
                assert_eq!(get(views, a..b).map(|[v, _]| v), want, "{a}..{b}");
                assert_eq!(get(views, a..=b).map(|[v, _]| v), xs.get(a..=b));
            }
        }
        assert_eq!(get(&xs[..], ..), Some(&xs[..]));
        assert_eq!(
            get(&xs[..], (Bound::Excluded(usize::MAX), Bound::Unbounded)),
            None
        );
        assert_eq!(get(&xs[..], ..=usize::MAX), None);
    }

    #[test]
    #[should_panic(expected = "mid > len: split at 4 of 3 rows")]
    fn split_past_the_end_panics() {
        let xs = [1, 2, 3];
        let _ = split_at(&xs[..], 4);
    }

    #[test]
    #[should_panic(expected = "row index 3 out of bounds (len 3)")]
    fn row_past_the_end_panics() {
        let mut xs = [1, 2, 3];
        let _ = row(&mut xs[..], 3);
    }

    #[test]
    fn split_arrays_cut_every_column_at_the_same_row() {
        let mut a = [1, 2, 3, 4];
        let mut b = [5, 6, 7, 8];
        let cols = [&mut a[..], &mut b[..]];
        let ([a0, b0], [a1, b1]) = cols.split_rows(1);
        assert_eq!((a0.len(), b0.len(), a1.len(), b1.len()), (1, 1, 3, 3));
        a1[0] = 20;
        b1[2] = 80;
        assert_eq!((a, b), ([1, 20, 3, 4], [5, 6, 7, 80]));
    }
}
