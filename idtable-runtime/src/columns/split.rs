//! The columns of a split array, as a column view holds them:
//! [`SplitColumns`] and [`SplitColumnsMut`].

use core::fmt;
use core::hash::{Hash, Hasher};

use crate::ranges::{ArrayRowIter, RowSlices};

/// The columns of a `#[soa(split)]` field `[T; N]` in a shared column view
/// (`FooColumns`): one column `&'a [T]` per element, each as long as the
/// view, indexed by element (`pos[k]` is element `k`'s column). A type of
/// its own rather than an array of slices, so that code written for the
/// field's unsplit column (`&'a [[T; N]]`, one array per row) does not
/// compile with another meaning once the field is split: it has no
/// `iter()`, `len()`, `first()` or `IntoIterator`, whose unsplit forms went
/// over rows. The number of rows is the view's `len()` (a `[T; 0]` split
/// has no column to count them).
///
/// Indexing is by element, where the unsplit column's was by row: `pos[i]`
/// is row `i` unsplit and element column `i` split. A loop over rows that
/// indexes `pos[i]` panics at `i == N` (naming the split) rather than read
/// another cell; write `pos[k][i]` for row `i`'s element `k`.
///
/// | unsplit `pos: &[[T; N]]` | split `pos: SplitColumns<T, N>` |
/// | --- | --- |
/// | `pos.iter().map(\|p\| p[0])` | `pos[0].iter()` |
/// | `pos[i][k]` | `pos[k][i]` |
/// | `pos.len()` | the view's `cols.len()` |
/// | `for p in pos` | `cols.for_each(\|row\| ..)` with `row.pos: [&T; N]` |
/// | — | `let [xs, ys] = pos.into_columns();` |
///
/// The element columns are read as slices, with everything slices offer:
///
/// ```
/// use idtable::columns::SplitColumns;
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// pub struct Body {
///     #[soa(split)]
///     pub pos: [i64; 2],
/// }
///
/// let bodies: BodyAllocator = (0..4).map(|i| Body { pos: [i, 10 * i] }).collect();
/// let pos: SplitColumns<'_, i64, 2> = bodies.columns().pos;
/// assert_eq!(pos.column(1), &[0, 10, 20, 30]);
/// assert_eq!(&pos[1], &[0, 10, 20, 30]); // indexed by element
/// assert_eq!(pos[0].iter().sum::<i64>(), 6);
/// let [xs, ys] = pos.into_columns();
/// let checksum: i64 = xs.iter().zip(ys).map(|(x, y)| x + 3 * y).sum();
/// assert_eq!(checksum, 186);
/// ```
///
/// Code written for the unsplit column does not compile:
///
/// ```compile_fail,E0599
/// # use idtable::SoaAllocator;
/// # #[derive(SoaAllocator)]
/// # pub struct Body { #[soa(split)] pub pos: [i64; 2] }
/// # let bodies = BodyAllocator::new();
/// let rows = bodies.columns().pos.len(); // `bodies.columns().len()`
/// ```
///
/// ```compile_fail,E0599
/// # use idtable::SoaAllocator;
/// # #[derive(SoaAllocator)]
/// # pub struct Body { #[soa(split)] pub pos: [i64; 2] }
/// # let bodies = BodyAllocator::new();
/// let sum: i64 = bodies.columns().pos.iter().map(|p| p[0] + 3 * p[1]).sum(); // `pos[0]`, `pos[1]`
/// ```
pub struct SplitColumns<'a, T, const N: usize> {
    columns: [&'a [T]; N],
}

/// The columns of a `#[soa(split)]` field `[T; N]` in a mutable column view
/// (`FooColumnsMut`): one column `&'a mut [T]` per element, indexed by
/// element (`cols.vel[0].iter_mut()`). As [`SplitColumns`], it offers none
/// of the unsplit column's slice methods; an element column is lent by
/// indexing or [`column_mut`](Self::column_mut), several at once by
/// [`columns_mut`](Self::columns_mut), and all of them for the view's
/// lifetime by [`into_columns`](Self::into_columns).
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator)]
/// pub struct Particle {
///     #[soa(split)]
///     pub pos: [f32; 2],
///     #[soa(split)]
///     pub vel: [f32; 2],
/// }
///
/// let mut ps: ParticleAllocator =
///     (0..3).map(|i| Particle { pos: [0.0; 2], vel: [i as f32, 1.0] }).collect();
/// let mut cols = ps.columns_mut();
/// for (x, vx) in cols.pos[0].iter_mut().zip(cols.vel[0].iter()) {
///     *x += vx;
/// }
/// cols.pos.column_mut(0)[1] += 0.0; // the same column, by a method
/// // Shared and shorter-lived copies, as the view's `as_columns()` and
/// // `reborrow()` make.
/// assert_eq!(cols.pos.as_columns().column(0), &[0.0, 1.0, 2.0]);
/// let [xs, _] = cols.pos.reborrow().into_columns();
/// xs[0] = 0.5;
/// let [xs, ys] = cols.pos.columns_mut();
/// xs[0] = ys[0];
/// // Every element column at once, as the view's lifetime allows.
/// let [_, ys] = cols.pos.into_columns();
/// let [_, vys] = cols.vel.into_columns();
/// for (y, vy) in ys.iter_mut().zip(vys.iter()) {
///     *y -= vy;
/// }
/// assert_eq!(ps.columns().pos.column(0), &[0.0, 1.0, 2.0]);
/// assert_eq!(ps.columns().pos.column(1), &[-1.0; 3]);
/// ```
pub struct SplitColumnsMut<'a, T, const N: usize> {
    columns: [&'a mut [T]; N],
}

#[cold]
#[inline(never)]
#[track_caller]
fn element_out_of_bounds(k: usize, n: usize) -> ! {
    panic!(
        "element column {k} out of bounds: the array splits into {n} columns \
         (a split field's columns are indexed by element, not by row)"
    )
}

impl<'a, T, const N: usize> SplitColumns<'a, T, N> {
    /// The columns, one per element (all of the same length).
    #[inline(always)]
    pub(crate) fn new(columns: [&'a [T]; N]) -> Self {
        SplitColumns { columns }
    }

    /// The column of element `k`: row `i`'s `field[k]` is `column(k)[i]`.
    ///
    /// # Panics
    ///
    /// If `k >= N`.
    #[inline(always)]
    #[track_caller]
    pub fn column(self, k: usize) -> &'a [T] {
        match self.columns.get(k) {
            Some(column) => column,
            None => element_out_of_bounds(k, N),
        }
    }

    /// The columns as an array, one per element, in element order: to
    /// destructure (`let [xs, ys] = cols.pos.into_columns();`) or to loop
    /// over the elements.
    #[inline(always)]
    pub fn into_columns(self) -> [&'a [T]; N] {
        self.columns
    }
}

impl<'a, T, const N: usize> SplitColumnsMut<'a, T, N> {
    /// The columns, one per element (all of the same length).
    #[inline(always)]
    pub(crate) fn new(columns: [&'a mut [T]; N]) -> Self {
        SplitColumnsMut { columns }
    }

    /// The column of element `k`, shared: row `i`'s `field[k]` is
    /// `column(k)[i]`.
    ///
    /// # Panics
    ///
    /// If `k >= N`.
    #[inline(always)]
    #[track_caller]
    pub fn column(&self, k: usize) -> &[T] {
        match self.columns.get(k) {
            Some(column) => column,
            None => element_out_of_bounds(k, N),
        }
    }

    /// The column of element `k`, mutably.
    ///
    /// # Panics
    ///
    /// If `k >= N`.
    #[inline(always)]
    #[track_caller]
    pub fn column_mut(&mut self, k: usize) -> &mut [T] {
        match self.columns.get_mut(k) {
            Some(column) => column,
            None => element_out_of_bounds(k, N),
        }
    }

    /// Every column mutably at once, for as long as `self` is borrowed.
    #[inline(always)]
    pub fn columns_mut(&mut self) -> [&mut [T]; N] {
        self.columns.each_mut().map(|column| &mut **column)
    }

    /// The columns as an array, one per element, for as long as the view
    /// lives: `let [xs, ys] = cols.pos.into_columns();`.
    #[inline(always)]
    pub fn into_columns(self) -> [&'a mut [T]; N] {
        self.columns
    }

    /// The same columns, shared, for as long as `self` is borrowed.
    #[inline(always)]
    pub fn as_columns(&self) -> SplitColumns<'_, T, N> {
        SplitColumns::new(self.columns.each_ref().map(|column| &**column))
    }

    /// The same columns for as long as `self` is borrowed: keeps `self`
    /// for after a method that takes the columns by value.
    #[inline(always)]
    pub fn reborrow(&mut self) -> SplitColumnsMut<'_, T, N> {
        SplitColumnsMut::new(self.columns_mut())
    }
}

/// Element `k`'s column (row `i`'s `field[k]` is `self[k][i]`).
///
/// # Panics
///
/// If `k >= N`, naming the split: the unsplit column was indexed by row.
impl<T, const N: usize> core::ops::Index<usize> for SplitColumns<'_, T, N> {
    type Output = [T];

    #[inline(always)]
    #[track_caller]
    fn index(&self, k: usize) -> &[T] {
        self.column(k)
    }
}

/// Element `k`'s column, shared.
///
/// # Panics
///
/// If `k >= N`, naming the split.
impl<T, const N: usize> core::ops::Index<usize> for SplitColumnsMut<'_, T, N> {
    type Output = [T];

    #[inline(always)]
    #[track_caller]
    fn index(&self, k: usize) -> &[T] {
        self.column(k)
    }
}

/// Element `k`'s column, mutably.
///
/// # Panics
///
/// If `k >= N`, naming the split.
impl<T, const N: usize> core::ops::IndexMut<usize> for SplitColumnsMut<'_, T, N> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, k: usize) -> &mut [T] {
        self.column_mut(k)
    }
}

impl<T, const N: usize> Clone for SplitColumns<'_, T, N> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const N: usize> Copy for SplitColumns<'_, T, N> {}

/// As the array of columns: `[[x0, x1, ..], [y0, y1, ..]]`.
impl<T: fmt::Debug, const N: usize> fmt::Debug for SplitColumns<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.columns, f)
    }
}

/// As the array of columns: `[[x0, x1, ..], [y0, y1, ..]]`.
impl<T: fmt::Debug, const N: usize> fmt::Debug for SplitColumnsMut<'_, T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.columns, f)
    }
}

/// Equal when every element column is.
impl<T: PartialEq, const N: usize> PartialEq for SplitColumns<'_, T, N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.columns == other.columns
    }
}

impl<T: Eq, const N: usize> Eq for SplitColumns<'_, T, N> {}

/// As the array of columns.
impl<T: Hash, const N: usize> Hash for SplitColumns<'_, T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.columns.hash(state);
    }
}

/// Equal when every element column is.
impl<T: PartialEq, const N: usize> PartialEq for SplitColumnsMut<'_, T, N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.columns == other.columns
    }
}

impl<T: Eq, const N: usize> Eq for SplitColumnsMut<'_, T, N> {}

/// As the array of columns.
impl<T: Hash, const N: usize> Hash for SplitColumnsMut<'_, T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.columns.hash(state);
    }
}

/// Rows of every element column at once: a row is `[&T; N]`, one
/// reference per element.
impl<'a, T, const N: usize> RowSlices for SplitColumns<'a, T, N> {
    type Row = [&'a T; N];

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.columns.row_count()
    }

    #[inline]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        let (left, right) = self.columns.split_rows(mid);
        (SplitColumns::new(left), SplitColumns::new(right))
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> Self::Row {
        self.columns.into_row(index)
    }

    type RowIter = ArrayRowIter<core::slice::Iter<'a, T>, N>;

    #[inline]
    fn into_rows(self) -> Self::RowIter {
        self.columns.into_rows()
    }
}

/// Rows of every element column at once: a row is `[&mut T; N]`, one
/// reference per element.
impl<'a, T, const N: usize> RowSlices for SplitColumnsMut<'a, T, N> {
    type Row = [&'a mut T; N];

    #[inline(always)]
    fn row_count(&self) -> usize {
        self.columns.row_count()
    }

    #[inline]
    fn split_rows(self, mid: usize) -> (Self, Self) {
        let (left, right) = self.columns.split_rows(mid);
        (SplitColumnsMut::new(left), SplitColumnsMut::new(right))
    }

    #[inline(always)]
    fn into_row(self, index: usize) -> Self::Row {
        self.columns.into_row(index)
    }

    type RowIter = ArrayRowIter<core::slice::IterMut<'a, T>, N>;

    #[inline]
    fn into_rows(self) -> Self::RowIter {
        self.columns.into_rows()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "element column 2 out of bounds: the array splits into 2 columns")]
    fn an_element_past_the_last_panics() {
        let (xs, ys) = ([1, 2], [3, 4]);
        let _ = SplitColumns::new([&xs[..], &ys[..]]).column(2);
    }

    #[test]
    #[should_panic(expected = "indexed by element, not by row")]
    fn indexing_past_the_last_element_names_the_split() {
        let (xs, ys) = ([1, 2, 3], [3, 4, 5]);
        let cols = SplitColumns::new([&xs[..], &ys[..]]);
        // A loop written for the unsplit column, by row: rows 0 and 1 read
        // element columns, row 2 panics.
        for i in 0..3 {
            let _ = &cols[i];
        }
    }

    #[test]
    fn rows_cut_every_element_column() {
        let (mut xs, mut ys) = ([1, 2, 3], [4, 5, 6]);
        let mut cols = SplitColumnsMut::new([&mut xs[..], &mut ys[..]]);
        assert_eq!(cols.as_columns().row_count(), 3);
        let (head, tail) = cols.reborrow().split_rows(1);
        assert_eq!(head.as_columns().into_columns(), [&[1][..], &[4][..]]);
        let [x, y] = tail.into_row(1);
        core::mem::swap(x, y);
        let [a, b] = cols.columns_mut();
        a[0] += b[0];
        assert_eq!(cols.column(0), &[5, 2, 6]);
        assert_eq!(cols.column_mut(1), &mut [4, 5, 3]);
        let shared = cols.as_columns();
        let rows: alloc::vec::Vec<[&i32; 2]> = shared.into_rows().collect();
        assert_eq!(rows, [[&5, &4], [&2, &5], [&6, &3]]);
        assert_eq!(alloc::format!("{shared:?}"), "[[5, 2, 6], [4, 5, 3]]");
    }
}
