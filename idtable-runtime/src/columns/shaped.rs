//! Shaped columns: an array split into one column per element
//! ([`Split`]), and columns that start at a multiple of more than their
//! type's alignment ([`Aligned`]). The derive builds them from
//! `#[soa(split)]` and `#[soa(align = N)]`; like [`Col`](super::Col) and
//! pairs, they are descriptions, never values.
//!
//! ```
//! use idtable::columns::{Aligned, Col, ColumnBuffer, Split};
//!
//! // A `[f32; 3]` as three columns, and a `u8` column at a multiple of 64.
//! let mut buf = ColumnBuffer::<(Split<Col<f32>, 3>, Aligned<Col<u8>, 64>)>::new();
//! buf.push(([1.0, 2.0, 3.0], 7));
//! buf.push(([4.0, 5.0, 6.0], 8));
//! let (xyz, team) = buf.slices();
//! let [x, y, z] = xyz.into_columns();
//! assert_eq!((x, y, z), (&[1.0, 4.0][..], &[2.0, 5.0][..], &[3.0, 6.0][..]));
//! assert_eq!(team.as_ptr() as usize % 64, 0);
//! assert_eq!(buf.swap_remove(0), ([1.0, 2.0, 3.0], 7));
//! ```

use core::marker::PhantomData;
use core::ptr::NonNull;

use alloc::vec::Vec;

use super::{
    max, sealed, CloneColumns, Col, ColumnTree, EqColumns, SplitColumns, SplitColumnsMut,
    TotalEqColumns, MAX_ALIGN,
};

/// `N` columns side by side: the columns of an array `[T; N]` split into
/// one column per element, `Split<Col<T>, N>` (the one `C` it is a
/// [`ColumnTree`] of). A row travels as `[T; N]`, its references as `[&T;
/// N]`, one per element; its slices are a [`SplitColumns`] (mutably a
/// [`SplitColumnsMut`]), one column per element.
///
/// ```
/// use idtable::columns::{Col, ColumnBuffer, Split};
///
/// let mut pos = ColumnBuffer::<Split<Col<f32>, 2>>::new();
/// pos.push([1.0, 2.0]);
/// pos.push([3.0, 4.0]);
/// let [xs, ys] = pos.slices_mut().into_columns();
/// for (x, y) in xs.iter_mut().zip(ys.iter()) {
///     *x += *y; // reads only the bytes of `x` and `y`
/// }
/// assert_eq!(pos.get(1), Some([&7.0, &4.0]));
/// assert_eq!(pos.pop(), Some([7.0, 4.0]));
/// ```
pub struct Split<C, const N: usize>(PhantomData<fn() -> C>);

/// The columns `C`, each starting at a multiple of `A` bytes (a power of
/// two, at most [`MAX_ALIGN`]) at every capacity, in the same one
/// allocation as the others: what `#[soa(align = A)]` builds. An empty
/// column's pointer is aligned as well.
///
/// ```
/// use idtable::columns::{Aligned, Col, ColumnBuffer};
///
/// let mut buf = ColumnBuffer::<(Col<u8>, Aligned<(Col<f32>, Col<u16>), 128>)>::new();
/// for n in 0..40u8 {
///     buf.push((n, (n.into(), n.into())));
///     let (_, (floats, shorts)) = buf.slices();
///     assert_eq!(floats.as_ptr() as usize % 128, 0);
///     assert_eq!(shorts.as_ptr() as usize % 128, 0);
/// }
/// ```
pub struct Aligned<C, const A: usize>(PhantomData<fn() -> C>);

/// A column of `()` that only counts the rows: what a derived struct adds
/// when none of its fields can tell how many rows there are (it has no
/// field, or only split arrays, which may have no element), so that its
/// column views know their length. It takes no memory, and is not saved
/// (its loaded form is nothing).
///
/// ```
/// use idtable::columns::{ColumnBuffer, RowCount};
///
/// let mut rows = ColumnBuffer::<RowCount>::new();
/// rows.push(());
/// rows.push(());
/// assert_eq!(rows.slices().len(), 2);
/// assert_eq!(rows.allocated_bytes(), 0);
/// ```
pub struct RowCount;

impl<C: sealed::Sealed, const N: usize> sealed::Sealed for Split<C, N> {}
impl sealed::Sealed for RowCount {}
impl<C: sealed::Sealed, const A: usize> sealed::Sealed for Aligned<C, A> {}

/// Drops rows `start..end` of columns `from..N` of `ptrs`; if one column's
/// destructor panics, the columns after it are still dropped (a guard), as
/// the halves of a pair are.
///
/// # Safety
///
/// As [`ColumnTree::drop_range`], for each of those columns.
unsafe fn drop_columns<C: ColumnTree, const N: usize>(
    ptrs: &[C::Ptrs; N],
    from: usize,
    start: usize,
    end: usize,
) {
    struct Rest<'p, C: ColumnTree, const N: usize> {
        ptrs: &'p [C::Ptrs; N],
        from: usize,
        start: usize,
        end: usize,
    }
    impl<C: ColumnTree, const N: usize> Drop for Rest<'_, C, N> {
        fn drop(&mut self) {
            // SAFETY: the rows of these columns are initialised and given up
            // by the caller of `drop_columns`; they are dropped only here.
            unsafe { drop_columns::<C, N>(self.ptrs, self.from, self.start, self.end) }
        }
    }
    if from < N {
        let rest = Rest::<C, N> {
            ptrs,
            from: from + 1,
            start,
            end,
        };
        // SAFETY: forwarded caller contract for column `from`.
        unsafe { C::drop_range(ptrs[from], start, end) };
        drop(rest);
    }
}

impl<T, const N: usize> ColumnTree for Split<Col<T>, N> {
    type Values = [T; N];
    type Ptrs = [NonNull<T>; N];
    type Refs<'a>
        = [&'a T; N]
    where
        Self: 'a;
    type Muts<'a>
        = [&'a mut T; N]
    where
        Self: 'a;
    type Slices<'a>
        = SplitColumns<'a, T, N>
    where
        Self: 'a;
    type SlicesMut<'a>
        = SplitColumnsMut<'a, T, N>
    where
        Self: 'a;

    const ROW_SIZE: usize = Col::<T>::ROW_SIZE * N;
    const ALIGN: usize = Col::<T>::ALIGN;
    const DANGLING: Self::Ptrs = [Col::<T>::DANGLING; N];

    type Vecs = [Vec<T>; N];

    fn vecs_have_len(vecs: &Self::Vecs, n: usize) -> bool {
        vecs.iter().all(|v| Col::<T>::vecs_have_len(v, n))
    }

    #[inline]
    unsafe fn move_from_vecs(ptrs: Self::Ptrs, vecs: Self::Vecs) {
        for (p, v) in ptrs.into_iter().zip(vecs) {
            // SAFETY: forwarded caller contract, per column. Nothing here
            // can panic, so every column is moved.
            unsafe { Col::<T>::move_from_vecs(p, v) }
        }
    }

    #[inline]
    fn extent(cap: usize, mut end: usize, min_align: usize) -> Option<usize> {
        for _ in 0..N {
            end = Col::<T>::extent(cap, end, min_align)?;
        }
        Some(end)
    }

    #[inline]
    unsafe fn place(
        base: NonNull<u8>,
        cap: usize,
        end: &mut usize,
        min_align: usize,
    ) -> Self::Ptrs {
        // SAFETY: the allocation spans the extent of all `N` copies (caller),
        // laid out in the same order as `extent` (`from_fn` calls in order).
        core::array::from_fn(|_| unsafe { Col::<T>::place(base, cap, end, min_align) })
    }

    #[inline(always)]
    unsafe fn write(ptrs: Self::Ptrs, i: usize, values: Self::Values) {
        for (p, v) in ptrs.into_iter().zip(values) {
            // SAFETY: forwarded caller contract, per column.
            unsafe { Col::<T>::write(p, i, v) }
        }
    }

    #[inline(always)]
    unsafe fn read(ptrs: Self::Ptrs, i: usize) -> Self::Values {
        // SAFETY: forwarded caller contract, per column.
        ptrs.map(|p| unsafe { Col::<T>::read(p, i) })
    }

    #[inline(always)]
    unsafe fn copy_row(ptrs: Self::Ptrs, from: usize, to: usize) {
        for p in ptrs {
            // SAFETY: forwarded caller contract, per column.
            unsafe { Col::<T>::copy_row(p, from, to) }
        }
    }

    #[inline]
    unsafe fn copy_prefix(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        for (s, d) in src.into_iter().zip(dst) {
            // SAFETY: forwarded caller contract, per column.
            unsafe { Col::<T>::copy_prefix(s, d, n) }
        }
    }

    #[inline]
    unsafe fn move_prefix_back(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // Last column first, as for a pair: a later column lies after the
        // earlier ones, so moving it never overwrites rows not yet moved.
        for k in (0..N).rev() {
            // SAFETY: forwarded caller contract, per column.
            unsafe { Col::<T>::move_prefix_back(src[k], dst[k], n) }
        }
    }

    #[inline(always)]
    unsafe fn swap(ptrs: Self::Ptrs, a: usize, b: usize) {
        for p in ptrs {
            // SAFETY: forwarded caller contract, per column.
            unsafe { Col::<T>::swap(p, a, b) }
        }
    }

    #[inline]
    unsafe fn drop_range(ptrs: Self::Ptrs, start: usize, end: usize) {
        // SAFETY: forwarded caller contract, for every column.
        unsafe { drop_columns::<Col<T>, N>(&ptrs, 0, start, end) }
    }

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Refs<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract, per column.
        ptrs.map(|p| unsafe { Col::<T>::refs(p, i) })
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Muts<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract; the columns are distinct.
        ptrs.map(|p| unsafe { Col::<T>::muts(p, i) })
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: Self::Ptrs, len: usize) -> Self::Slices<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract, per column.
        SplitColumns::new(ptrs.map(|p| unsafe { Col::<T>::slices(p, len) }))
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: Self::Ptrs, len: usize) -> Self::SlicesMut<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract; the columns are distinct.
        SplitColumnsMut::new(ptrs.map(|p| unsafe { Col::<T>::slices_mut(p, len) }))
    }
}

impl<T: Clone, const N: usize> CloneColumns for Split<Col<T>, N> {
    #[inline]
    fn clone_row(refs: Self::Refs<'_>) -> Self::Values {
        refs.map(T::clone)
    }
}

impl<T: PartialEq, const N: usize> EqColumns for Split<Col<T>, N> {
    unsafe fn eq_rows(a: Self::Ptrs, b: Self::Ptrs, len: usize) -> bool {
        // SAFETY: forwarded caller contract, per column.
        (0..N).all(|k| unsafe { Col::<T>::eq_rows(a[k], b[k], len) })
    }
}

impl<T: Eq, const N: usize> TotalEqColumns for Split<Col<T>, N> {}

impl ColumnTree for RowCount {
    type Values = ();
    type Ptrs = NonNull<()>;
    type Refs<'a> = &'a ();
    type Muts<'a> = &'a mut ();
    type Slices<'a> = &'a [()];
    type SlicesMut<'a> = &'a mut [()];

    const ROW_SIZE: usize = 0;
    const ALIGN: usize = 1;
    const DANGLING: NonNull<()> = Col::<()>::DANGLING;

    /// Nothing: a `()` needs no writing, so loading only sets the length.
    type Vecs = ();

    fn vecs_have_len((): &(), _: usize) -> bool {
        true
    }

    unsafe fn move_from_vecs(_: NonNull<()>, (): ()) {}

    fn extent(_: usize, end: usize, _: usize) -> Option<usize> {
        Some(end)
    }

    unsafe fn place(_: NonNull<u8>, cap: usize, end: &mut usize, align: usize) -> NonNull<()> {
        // SAFETY: forwarded caller contract (a zero-sized column).
        unsafe { Col::<()>::place(NonNull::dangling(), cap, end, align) }
    }

    #[inline(always)]
    unsafe fn write(_: NonNull<()>, _: usize, (): ()) {}

    #[inline(always)]
    unsafe fn read(_: NonNull<()>, _: usize) {}

    #[inline(always)]
    unsafe fn copy_row(_: NonNull<()>, _: usize, _: usize) {}

    unsafe fn copy_prefix(_: NonNull<()>, _: NonNull<()>, _: usize) {}

    unsafe fn move_prefix_back(_: NonNull<()>, _: NonNull<()>, _: usize) {}

    #[inline(always)]
    unsafe fn swap(_: NonNull<()>, _: usize, _: usize) {}

    unsafe fn drop_range(_: NonNull<()>, _: usize, _: usize) {}

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: NonNull<()>, i: usize) -> &'a () {
        // SAFETY: forwarded caller contract.
        unsafe { Col::<()>::refs(ptrs, i) }
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: NonNull<()>, i: usize) -> &'a mut () {
        // SAFETY: forwarded caller contract.
        unsafe { Col::<()>::muts(ptrs, i) }
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: NonNull<()>, len: usize) -> &'a [()] {
        // SAFETY: forwarded caller contract.
        unsafe { Col::<()>::slices(ptrs, len) }
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: NonNull<()>, len: usize) -> &'a mut [()] {
        // SAFETY: forwarded caller contract.
        unsafe { Col::<()>::slices_mut(ptrs, len) }
    }
}

impl CloneColumns for RowCount {
    #[inline]
    fn clone_row((): &()) {}
}

impl EqColumns for RowCount {
    unsafe fn eq_rows(_: NonNull<()>, _: NonNull<()>, _: usize) -> bool {
        true
    }
}

impl TotalEqColumns for RowCount {}

impl<C: ColumnTree, const A: usize> ColumnTree for Aligned<C, A> {
    type Values = C::Values;
    type Ptrs = C::Ptrs;
    type Refs<'a>
        = C::Refs<'a>
    where
        Self: 'a;
    type Muts<'a>
        = C::Muts<'a>
    where
        Self: 'a;
    type Slices<'a>
        = C::Slices<'a>
    where
        Self: 'a;
    type SlicesMut<'a>
        = C::SlicesMut<'a>
    where
        Self: 'a;

    const ROW_SIZE: usize = C::ROW_SIZE;
    const ALIGN: usize = {
        assert!(
            A.is_power_of_two() && A <= MAX_ALIGN,
            "a column alignment is a power of two, at most MAX_ALIGN"
        );
        max(C::ALIGN, A)
    };
    const DANGLING: Self::Ptrs = C::DANGLING;

    type Vecs = C::Vecs;

    fn vecs_have_len(vecs: &Self::Vecs, n: usize) -> bool {
        C::vecs_have_len(vecs, n)
    }

    #[inline]
    unsafe fn move_from_vecs(ptrs: Self::Ptrs, vecs: Self::Vecs) {
        // SAFETY: forwarded caller contract.
        unsafe { C::move_from_vecs(ptrs, vecs) }
    }

    #[inline]
    fn extent(cap: usize, end: usize, min_align: usize) -> Option<usize> {
        C::extent(cap, end, max(min_align, A))
    }

    #[inline]
    unsafe fn place(
        base: NonNull<u8>,
        cap: usize,
        end: &mut usize,
        min_align: usize,
    ) -> Self::Ptrs {
        // SAFETY: the allocation spans this extent (caller) and is aligned
        // to the tree's `ALIGN`, which is at least `A` (this `ALIGN` is part
        // of it), and to `min_align`.
        unsafe { C::place(base, cap, end, max(min_align, A)) }
    }

    #[inline(always)]
    unsafe fn write(ptrs: Self::Ptrs, i: usize, values: Self::Values) {
        // SAFETY: forwarded caller contract.
        unsafe { C::write(ptrs, i, values) }
    }

    #[inline(always)]
    unsafe fn read(ptrs: Self::Ptrs, i: usize) -> Self::Values {
        // SAFETY: forwarded caller contract.
        unsafe { C::read(ptrs, i) }
    }

    #[inline(always)]
    unsafe fn copy_row(ptrs: Self::Ptrs, from: usize, to: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { C::copy_row(ptrs, from, to) }
    }

    #[inline]
    unsafe fn copy_prefix(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { C::copy_prefix(src, dst, n) }
    }

    #[inline]
    unsafe fn move_prefix_back(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { C::move_prefix_back(src, dst, n) }
    }

    #[inline(always)]
    unsafe fn swap(ptrs: Self::Ptrs, a: usize, b: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { C::swap(ptrs, a, b) }
    }

    #[inline]
    unsafe fn drop_range(ptrs: Self::Ptrs, start: usize, end: usize) {
        // SAFETY: forwarded caller contract.
        unsafe { C::drop_range(ptrs, start, end) }
    }

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Refs<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        unsafe { C::refs(ptrs, i) }
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Muts<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        unsafe { C::muts(ptrs, i) }
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: Self::Ptrs, len: usize) -> Self::Slices<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        unsafe { C::slices(ptrs, len) }
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: Self::Ptrs, len: usize) -> Self::SlicesMut<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract.
        unsafe { C::slices_mut(ptrs, len) }
    }
}

impl<C: CloneColumns, const A: usize> CloneColumns for Aligned<C, A> {
    #[inline]
    fn clone_row(refs: Self::Refs<'_>) -> Self::Values {
        C::clone_row(refs)
    }
}

impl<C: EqColumns, const A: usize> EqColumns for Aligned<C, A> {
    unsafe fn eq_rows(a: Self::Ptrs, b: Self::Ptrs, len: usize) -> bool {
        // SAFETY: forwarded caller contract.
        unsafe { C::eq_rows(a, b, len) }
    }
}

impl<C: TotalEqColumns, const A: usize> TotalEqColumns for Aligned<C, A> {}

#[cfg(test)]
mod tests {
    use alloc::rc::Rc;
    use alloc::string::{String, ToString};
    use core::cell::Cell;

    use super::super::{ColumnBuffer, ColumnTree};
    use super::*;

    type Shape = (
        Col<u8>,
        (
            Split<Col<String>, 3>,
            Aligned<(Col<u16>, Split<Col<f64>, 2>), 64>,
        ),
    );

    fn row(i: usize) -> <Shape as ColumnTree>::Values {
        (
            i as u8,
            (
                [i.to_string(), (i + 1).to_string(), (i + 2).to_string()],
                (i as u16, [i as f64, -(i as f64)]),
            ),
        )
    }

    #[test]
    fn split_columns_hold_one_element_of_each_row() {
        let mut b = ColumnBuffer::<Shape>::new();
        for i in 0..20 {
            b.push(row(i));
        }
        let (_, (strings, (_, floats))) = b.slices();
        let ([a, c, d], [x, y]) = (strings.into_columns(), floats.into_columns());
        assert_eq!(
            (a[7].as_str(), c[7].as_str(), d[7].as_str()),
            ("7", "8", "9")
        );
        assert_eq!((x[3], y[3]), (3.0, -3.0));
        assert_eq!(b.swap_remove(2), row(2));
        assert_eq!(b.get(2).unwrap().1 .0[0], "19");
        let copy = b.clone();
        assert!(copy == b);
        let ((_, (_, (_, [_, y]))),) = (b.get_mut(0).unwrap(),);
        *y = 5.0;
        assert!(copy != b);
        b.swap(0, 1);
        assert_eq!(b.get(1).unwrap().1 .1 .1[1], &5.0);
        assert_eq!(b.pop(), Some(row(18)));
    }

    /// Every column under `Aligned` starts at a multiple of its alignment
    /// at every capacity the buffer passes through, growing (in place or
    /// not) and shrinking, and when empty.
    #[test]
    fn aligned_columns_start_at_multiples_at_every_capacity() {
        let check = |b: &ColumnBuffer<Shape>| {
            let (bytes, (_, (shorts, floats))) = b.slices();
            let _ = bytes;
            let [x, y] = floats.into_columns();
            for p in [
                shorts.as_ptr() as usize,
                x.as_ptr() as usize,
                y.as_ptr() as usize,
            ] {
                assert_eq!(p % 64, 0, "capacity {}", b.capacity());
            }
        };
        let mut b = ColumnBuffer::<Shape>::new();
        check(&b);
        let n = if cfg!(miri) { 20 } else { 300 };
        for i in 0..n {
            b.push(row(i));
            check(&b);
        }
        b.truncate(3);
        b.shrink_to_fit();
        check(&b);
        b.clear();
        b.shrink_to_fit();
        check(&b);
        assert_eq!(<Shape as ColumnTree>::ALIGN, 64);
    }

    struct Counted(Rc<Cell<usize>>, bool);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
            if self.1 {
                panic!("boom");
            }
        }
    }

    /// A panicking destructor in one split column leaves the other
    /// columns' values dropped, each once.
    #[test]
    fn a_panicking_drop_in_one_split_column_drops_the_others() {
        extern crate std;
        let drops = Rc::new(Cell::new(0));
        let mut b = ColumnBuffer::<Split<Col<Counted>, 3>>::new();
        for i in 0..4 {
            b.push([
                Counted(drops.clone(), false),
                Counted(drops.clone(), i == 1),
                Counted(drops.clone(), false),
            ]);
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.truncate(0)));
        assert!(r.is_err());
        assert_eq!(drops.get(), 12);
        assert!(b.is_empty());
    }

    #[test]
    fn zero_sized_and_empty_aligned_columns_are_aligned() {
        let mut b = ColumnBuffer::<(Col<u8>, Aligned<(Col<()>, Col<u32>), 4096>)>::new();
        let (_, (unit, words)) = b.slices();
        assert_eq!(unit.as_ptr() as usize % 4096, 0);
        assert_eq!(words.as_ptr() as usize % 4096, 0);
        b.push((1, ((), 2)));
        let (_, (unit, words)) = b.slices();
        assert_eq!((unit.len(), words[0]), (1, 2));
        assert_eq!(words.as_ptr() as usize % 4096, 0);
        assert_eq!(unit.as_ptr() as usize % 4096, 0);
    }
}
