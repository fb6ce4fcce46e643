//! Column storage: every column of an allocator in one allocation, with one
//! shared length and capacity.
//!
//! A set of columns is described by a type built from three pieces:
//!
//! * [`Col<T>`]: one column of `T`;
//! * `(L, R)`: the columns of `L` followed by those of `R`;
//! * `()`: no column.
//!
//! The derive nests pairs as a balanced binary tree, so a struct of any width
//! (forty fields and more) is described with depth `log2(fields)`:
//! `struct P { a: A, b: B, c: C }` becomes `(Col<A>, (Col<B>, Col<C>))`, and
//! its values travel as `(a, (b, c))`.
//!
//! [`ColumnBuffer<C>`] lays the columns out back to back in one allocation
//! sized for `capacity` rows (each column aligned for its type, the block
//! aligned for the most aligned one) and keeps one `len` for all of them.
//! Growing reallocates once for all columns; pushing writes each column
//! without a per-column length or capacity check. Zero-sized columns take no
//! space; a buffer of only zero-sized columns never allocates.
//!
//! ```
//! use idtable::columns::{Col, ColumnBuffer};
//!
//! let mut buf = ColumnBuffer::<(Col<u8>, Col<f64>)>::new();
//! buf.push((1, 0.5));
//! buf.push((2, 1.5));
//! let (bytes, floats) = buf.slices();
//! assert_eq!(bytes, &[1, 2]);
//! assert_eq!(floats, &[0.5, 1.5]);
//! assert_eq!(buf.swap_remove(0), (1, 0.5));
//! assert_eq!(buf.get(0), Some((&2, &1.5)));
//! ```
//!
//! # Safety
//!
//! Nearly all `unsafe` code of idtable lives in this module (and its
//! `shaped` part: split and aligned columns) and in the column tree of a
//! nested record ([`Nested`](crate::Nested)), which forwards to the record's
//! own columns; the rest is in the [`data`](crate::data) module (two views
//! of its word buffer and one unchecked UTF-8 read, each justified where it
//! stands) and in the join sources. The invariants
//! this module relies on, for a `ColumnBuffer` with base `base`, capacity `cap` and
//! length `len`:
//!
//! 1. `ptrs` holds, per column, a pointer aligned for its type and valid for
//!    reads and writes of `cap` elements: inside the allocation at `base`
//!    (whose layout is `layout`), or dangling for a zero-sized type or when
//!    `cap == 0`;
//! 2. rows `0..len` of every column are initialised, rows `len..cap` are not;
//! 3. `len <= cap`.
//!
//! Every method keeps them; every `unsafe` block says which it uses. The
//! tests of this module run under Miri.

use alloc::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};
use alloc::vec::Vec;
use core::marker::PhantomData;
use core::mem::{align_of, size_of};
use core::ptr::{self, NonNull};

#[cfg(feature = "serde")]
pub(crate) mod serde;
mod shaped;
mod split;

pub use shaped::{Aligned, RowCount, Split};
pub use split::{SplitColumns, SplitColumnsMut};

pub(crate) mod sealed {
    pub trait Sealed {}
    impl<T> Sealed for super::Col<T> {}
    impl<L: Sealed, R: Sealed> Sealed for (L, R) {}
    impl Sealed for () {}
}

/// One column of `T` in a [`ColumnTree`] description. Never constructed.
///
/// ```
/// use idtable::columns::{Col, ColumnBuffer, ColumnTree};
///
/// assert_eq!(<Col<u64> as ColumnTree>::ROW_SIZE, 8);
/// let mut hp = ColumnBuffer::<Col<u64>>::new(); // a single column
/// hp.push(100);
/// hp.push(80);
/// assert_eq!(hp.slices(), &[100, 80]);
/// ```
pub struct Col<T>(PhantomData<fn() -> T>);

/// A description of a set of columns: [`Col<T>`], a pair `(L, R)` of
/// descriptions, or `()`. Sealed; its methods are the raw operations
/// [`ColumnBuffer`] is built from.
///
/// [`ColumnBuffer`] is the safe way to use a description. What it does with
/// these methods, written out by hand for a `u16` column and a `String`
/// column (every `unsafe` call below keeps the contract its method states):
///
/// ```
/// use std::alloc::{alloc, dealloc, realloc, Layout};
/// use std::mem::{align_of, size_of};
/// use std::ptr::NonNull;
/// use idtable::columns::{Col, ColumnTree};
///
/// type C = (Col<u16>, Col<String>);
/// assert_eq!(C::ROW_SIZE, 2 + size_of::<String>());
/// assert_eq!(C::ALIGN, align_of::<String>());
///
/// // With no allocation the pointers dangle; zero rows still make slices.
/// let (no_ids, no_names) = unsafe { C::slices(C::DANGLING, 0) };
/// assert!(no_ids.is_empty() && no_names.is_empty());
///
/// // Room for 2 rows: the u16 column, then the String column, aligned.
/// let size = C::extent(2, 0, 1).unwrap(); // 1: no alignment beyond the types'
/// assert_eq!(size, 2 * 2 + 4 /* padding */ + 2 * size_of::<String>());
/// let layout = Layout::from_size_align(size, C::ALIGN).unwrap();
/// unsafe {
///     let base = NonNull::new(alloc(layout)).unwrap();
///     let mut end = 0;
///     let ptrs = C::place(base, 2, &mut end, 1);
///     assert_eq!(end, size);
///
///     C::write(ptrs, 0, (7, "seven".to_string()));
///     C::write(ptrs, 1, (8, "eight".to_string()));
///     C::swap(ptrs, 0, 1);
///     let (id, name) = C::refs(ptrs, 0);
///     assert_eq!((*id, name.as_str()), (8, "eight"));
///     C::muts(ptrs, 1).1.push('!');
///
///     // Grow to 4 rows in place: `realloc`, then move every column up to
///     // its offset for the new capacity, last column first.
///     let new_size = C::extent(4, 0, 1).unwrap();
///     let base = NonNull::new(realloc(base.as_ptr(), layout, new_size)).unwrap();
///     let layout = Layout::from_size_align(new_size, C::ALIGN).unwrap();
///     let (mut old_end, mut new_end) = (0, 0);
///     let old = C::place(base, 2, &mut old_end, 1);
///     let ptrs = C::place(base, 4, &mut new_end, 1);
///     C::move_prefix_back(old, ptrs, 2);
///     assert_eq!(C::slices(ptrs, 2), (&[8, 7][..], &["eight".to_string(), "seven!".to_string()][..]));
///
///     // Swap-remove row 0: move its values out, copy the last row over it.
///     let (id, name) = C::read(ptrs, 0);
///     C::copy_row(ptrs, 1, 0);
///     assert_eq!((id, name.as_str()), (8, "eight"));
///
///     // Move the one live row to a second allocation, free the first.
///     let other = NonNull::new(alloc(layout)).unwrap();
///     let mut other_end = 0;
///     let moved = C::place(other, 4, &mut other_end, 1);
///     C::copy_prefix(ptrs, moved, 1);
///     dealloc(base.as_ptr(), layout);
///
///     C::slices_mut(moved, 1).1[0].push('?');
///     assert_eq!(C::slices(moved, 1).1, &["seven!?".to_string()]);
///     C::drop_range(moved, 0, 1); // drops the String
///     dealloc(other.as_ptr(), layout);
/// }
/// ```
///
/// # Safety
///
/// The `unsafe` methods take `ptrs` as produced by [`place`](ColumnTree::place)
/// for some capacity `cap`, and indices below `cap`; each states what must be
/// initialised.
pub trait ColumnTree: sealed::Sealed {
    /// The values of one row, by value: `T`, or `(L::Values, R::Values)`.
    type Values;
    /// One base pointer per column.
    type Ptrs: Copy;
    /// One `&'a T` per column, nested like [`Values`](ColumnTree::Values).
    type Refs<'a>
    where
        Self: 'a;
    /// One `&'a mut T` per column.
    type Muts<'a>
    where
        Self: 'a;
    /// One `&'a [T]` per column.
    type Slices<'a>
    where
        Self: 'a;
    /// One `&'a mut [T]` per column.
    type SlicesMut<'a>
    where
        Self: 'a;

    /// Total size of one row (sum of the element sizes).
    const ROW_SIZE: usize;
    /// The largest alignment of any column.
    const ALIGN: usize;

    /// Pointers for a buffer with no allocation (capacity 0, or zero-sized).
    const DANGLING: Self::Ptrs;

    /// One `Vec<T>` per column, nested like [`Values`](ColumnTree::Values):
    /// whole columns on their way in (a loader reads a column at a time).
    /// The runtime's, for loading.
    #[doc(hidden)]
    type Vecs;

    /// Whether every `Vec` of `vecs` holds exactly `n` elements.
    #[doc(hidden)]
    fn vecs_have_len(vecs: &Self::Vecs, n: usize) -> bool;

    /// Moves the elements of each `Vec` into rows `0..len` of its column
    /// (one `memcpy` per column) and frees the `Vec`s.
    ///
    /// # Safety
    ///
    /// Each column has room for its `Vec`'s length; what those rows held is
    /// forgotten.
    #[doc(hidden)]
    unsafe fn move_from_vecs(ptrs: Self::Ptrs, vecs: Self::Vecs);

    /// The end offset after laying these columns out for `cap` rows from
    /// offset `end`, each column starting at a multiple of `min_align` (a
    /// power of two) and of its element's alignment; `None` on overflow.
    fn extent(cap: usize, end: usize, min_align: usize) -> Option<usize>;

    /// Lays the columns out for `cap` rows from offset `*end` of `base`,
    /// advancing `*end` exactly as [`extent`](ColumnTree::extent) computes
    /// with the same `min_align`.
    ///
    /// # Safety
    ///
    /// `base` points to an allocation of at least `extent(cap, *end,
    /// min_align)` bytes, aligned to [`ALIGN`](ColumnTree::ALIGN) and to
    /// `min_align`, and that extent did not overflow.
    unsafe fn place(base: NonNull<u8>, cap: usize, end: &mut usize, min_align: usize)
        -> Self::Ptrs;

    /// Writes `values` into row `i`, without dropping what was there.
    ///
    /// # Safety
    ///
    /// Row `i` is in capacity; whatever it held is forgotten.
    unsafe fn write(ptrs: Self::Ptrs, i: usize, values: Self::Values);

    /// Moves the values of row `i` out.
    ///
    /// # Safety
    ///
    /// Row `i` is initialised; afterwards it must be treated as uninitialised.
    unsafe fn read(ptrs: Self::Ptrs, i: usize) -> Self::Values;

    /// Copies row `from` over row `to` bitwise.
    ///
    /// # Safety
    ///
    /// `from != to`, row `from` is initialised and is treated as
    /// uninitialised afterwards; what row `to` held is forgotten.
    unsafe fn copy_row(ptrs: Self::Ptrs, from: usize, to: usize);

    /// Copies rows `0..n` of `src` to rows `0..n` of `dst`.
    ///
    /// # Safety
    ///
    /// Both in capacity for `n` rows, in distinct allocations.
    unsafe fn copy_prefix(src: Self::Ptrs, dst: Self::Ptrs, n: usize);

    /// Moves rows `0..n` of each column from `src` to `dst` inside one
    /// allocation, last column first (`memmove`, overlap allowed).
    ///
    /// # Safety
    ///
    /// `src` and `dst` are placements of the same allocation for capacities
    /// `old <= new` (so each column's `dst` is at or after its `src`, and
    /// after the `src` of every earlier column), `n <= old`, and rows
    /// `0..n` are initialised at `src`.
    unsafe fn move_prefix_back(src: Self::Ptrs, dst: Self::Ptrs, n: usize);

    /// Swaps rows `a` and `b`.
    ///
    /// # Safety
    ///
    /// Both rows initialised.
    unsafe fn swap(ptrs: Self::Ptrs, a: usize, b: usize);

    /// Drops rows `start..end` in place.
    ///
    /// # Safety
    ///
    /// Those rows are initialised, and are treated as uninitialised after.
    unsafe fn drop_range(ptrs: Self::Ptrs, start: usize, end: usize);

    /// Shared references to row `i`.
    ///
    /// # Safety
    ///
    /// Row `i` is initialised and not mutably borrowed for `'a`.
    unsafe fn refs<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Refs<'a>
    where
        Self: 'a;

    /// Mutable references to row `i`.
    ///
    /// # Safety
    ///
    /// Row `i` is initialised and not otherwise borrowed for `'a`.
    unsafe fn muts<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Muts<'a>
    where
        Self: 'a;

    /// Shared slices of rows `0..len`.
    ///
    /// # Safety
    ///
    /// Those rows are initialised and not mutably borrowed for `'a`.
    unsafe fn slices<'a>(ptrs: Self::Ptrs, len: usize) -> Self::Slices<'a>
    where
        Self: 'a;

    /// Mutable slices of rows `0..len`.
    ///
    /// # Safety
    ///
    /// Those rows are initialised and not otherwise borrowed for `'a`.
    unsafe fn slices_mut<'a>(ptrs: Self::Ptrs, len: usize) -> Self::SlicesMut<'a>
    where
        Self: 'a;
}

/// A column tree whose every element type is `Clone`.
///
/// It makes [`ColumnBuffer`] (and so a derived allocator) `Clone`.
///
/// ```
/// use idtable::columns::{CloneColumns, Col, ColumnBuffer};
///
/// type C = (Col<u8>, Col<String>);
/// let mut buf = ColumnBuffer::<C>::new();
/// buf.push((1, "one".to_string()));
/// let row = C::clone_row(buf.get(0).unwrap());
/// assert_eq!(row, (1, "one".to_string()));
///
/// let copy = buf.clone();
/// assert_eq!(copy.get(0), buf.get(0));
/// ```
pub trait CloneColumns: ColumnTree {
    /// Clones one row.
    fn clone_row(refs: Self::Refs<'_>) -> Self::Values;
}

pub(crate) const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The largest alignment a column can be given beyond its type's
/// ([`Aligned`], `#[soa(align = N)]`): 2^29 bytes, the largest Rust allows
/// (`#[repr(align)]`), on every target with 32-bit or wider pointers.
///
/// ```
/// assert_eq!(idtable::columns::MAX_ALIGN, 1 << 29);
/// ```
pub const MAX_ALIGN: usize = 1
    << if usize::BITS >= 32 {
        29
    } else {
        usize::BITS - 2
    };

/// Where a column with no room points: a column of capacity 0, or of a
/// zero-sized type. The address is a multiple of every alignment a column
/// can have (of [`MAX_ALIGN`] and of `T`'s), so an aligned column stays
/// aligned when it is empty; no access through it touches memory.
const fn dangling<T>() -> NonNull<T> {
    let addr = max(MAX_ALIGN, align_of::<T>());
    // SAFETY: `addr` is not zero.
    unsafe { NonNull::new_unchecked(ptr::without_provenance_mut(addr)) }
}

/// [`ColumnBuffer::swap_remove`]'s panic, out of line.
#[cold]
#[inline(never)]
#[track_caller]
fn swap_remove_out_of_bounds(index: usize, len: usize) -> ! {
    panic!("swap_remove index {index} out of bounds (len {len})")
}

/// A [`ColumnTree`] whose columns can be compared: every column's element
/// type is `PartialEq`. Implemented for [`Col<T>`], pairs and `()`; what
/// `PartialEq` for [`Rows`](crate::Rows), [`SoaStorage`](crate::SoaStorage),
/// [`SoaMap`](crate::SoaMap) and derived allocators asks of a struct's
/// fields.
///
/// ```
/// use idtable::columns::EqColumns;
/// use idtable::{Record, SoaAllocator};
///
/// #[derive(SoaAllocator, PartialEq)]
/// pub struct Tag { pub name: String, pub weight: f32 }
///
/// fn comparable<T: Record>() -> bool where T::Tree: EqColumns { true }
/// assert!(comparable::<Tag>());
///
/// let mut a = TagAllocator::new();
/// a.insert(Tag { name: "x".into(), weight: 1.0 });
/// let mut b = TagAllocator::new();
/// b.insert(Tag { name: "x".into(), weight: 1.0 });
/// assert!(a == b);
/// ```
pub trait EqColumns: ColumnTree {
    /// Whether rows `0..len` of the two sets of columns hold equal
    /// elements.
    ///
    /// # Safety
    ///
    /// Both are placements whose rows `0..len` are initialised and not
    /// mutably borrowed during the call.
    #[doc(hidden)]
    unsafe fn eq_rows(a: Self::Ptrs, b: Self::Ptrs, len: usize) -> bool;
}

/// [`EqColumns`] whose every element type is `Eq` as well: what `Eq` for
/// the containers asks.
///
/// ```
/// use idtable::columns::TotalEqColumns;
/// use idtable::{Record, SoaAllocator};
///
/// #[derive(SoaAllocator, Clone, Debug, PartialEq, Eq)]
/// pub struct Tag { pub name: String, pub rank: u8 }
///
/// fn total<T: Record>() -> bool where T::Tree: TotalEqColumns { true }
/// assert!(total::<Tag>()); // a struct with an `f32` field would not compile
///
/// let mut tags = TagAllocator::new();
/// tags.insert(Tag { name: "x".into(), rank: 1 });
/// assert_eq!(tags, tags.clone()); // `Eq`: usable where total equality is asked
/// ```
pub trait TotalEqColumns: EqColumns {}

impl<T: PartialEq> EqColumns for Col<T> {
    unsafe fn eq_rows(a: NonNull<T>, b: NonNull<T>, len: usize) -> bool {
        // SAFETY: rows `0..len` of both are initialised and not mutably
        // borrowed (caller).
        unsafe { Self::slices(a, len) == Self::slices(b, len) }
    }
}

impl<T: Eq> TotalEqColumns for Col<T> {}

impl<L: EqColumns, R: EqColumns> EqColumns for (L, R) {
    unsafe fn eq_rows(a: Self::Ptrs, b: Self::Ptrs, len: usize) -> bool {
        // SAFETY: forwarded caller contract, per half.
        unsafe { L::eq_rows(a.0, b.0, len) && R::eq_rows(a.1, b.1, len) }
    }
}

impl<L: TotalEqColumns, R: TotalEqColumns> TotalEqColumns for (L, R) {}

impl EqColumns for () {
    unsafe fn eq_rows((): (), (): (), _len: usize) -> bool {
        true
    }
}

impl TotalEqColumns for () {}

impl<T> ColumnTree for Col<T> {
    type Values = T;
    type Ptrs = NonNull<T>;
    type Refs<'a>
        = &'a T
    where
        Self: 'a;
    type Muts<'a>
        = &'a mut T
    where
        Self: 'a;
    type Slices<'a>
        = &'a [T]
    where
        Self: 'a;
    type SlicesMut<'a>
        = &'a mut [T]
    where
        Self: 'a;

    const ROW_SIZE: usize = size_of::<T>();
    const ALIGN: usize = align_of::<T>();

    const DANGLING: NonNull<T> = dangling();

    type Vecs = Vec<T>;

    fn vecs_have_len(vec: &Vec<T>, n: usize) -> bool {
        vec.len() == n
    }

    #[inline]
    unsafe fn move_from_vecs(ptrs: NonNull<T>, mut vec: Vec<T>) {
        // SAFETY: the column has room for `vec.len()` elements (caller) and
        // is not the `Vec`'s allocation. The elements are moved: the `Vec`'s
        // length is set to 0 before it is dropped, so it frees its block
        // without dropping them.
        unsafe {
            ptr::copy_nonoverlapping(vec.as_ptr(), ptrs.as_ptr(), vec.len());
            vec.set_len(0);
        }
    }

    #[inline]
    fn extent(cap: usize, end: usize, min_align: usize) -> Option<usize> {
        if size_of::<T>() == 0 {
            return Some(end);
        }
        let start = end.checked_next_multiple_of(max(align_of::<T>(), min_align))?;
        start.checked_add(cap.checked_mul(size_of::<T>())?)
    }

    #[inline]
    unsafe fn place(
        base: NonNull<u8>,
        cap: usize,
        end: &mut usize,
        min_align: usize,
    ) -> NonNull<T> {
        if size_of::<T>() == 0 {
            return dangling();
        }
        let start = end.next_multiple_of(max(align_of::<T>(), min_align));
        *end = start + cap * size_of::<T>();
        // SAFETY: the caller guarantees the allocation spans `extent(cap, end,
        // min_align)` bytes, which includes `start..*end`; `start` is a
        // multiple of T's alignment and of `min_align`, and `base` is aligned
        // to at least both, so the pointer is in bounds, non-null and aligned.
        unsafe { base.add(start).cast::<T>() }
    }

    #[inline(always)]
    unsafe fn write(ptrs: NonNull<T>, i: usize, values: T) {
        // SAFETY: row `i` is in capacity (caller), so the write is in bounds.
        unsafe { ptrs.add(i).write(values) }
    }

    #[inline(always)]
    unsafe fn read(ptrs: NonNull<T>, i: usize) -> T {
        // SAFETY: row `i` is initialised (caller), who also stops treating it
        // as initialised, so the value is moved out exactly once.
        unsafe { ptrs.add(i).read() }
    }

    #[inline(always)]
    unsafe fn copy_row(ptrs: NonNull<T>, from: usize, to: usize) {
        // SAFETY: both rows are in capacity and distinct (caller), so the
        // one-element ranges do not overlap.
        unsafe { ptr::copy_nonoverlapping(ptrs.add(from).as_ptr(), ptrs.add(to).as_ptr(), 1) }
    }

    #[inline]
    unsafe fn copy_prefix(src: NonNull<T>, dst: NonNull<T>, n: usize) {
        // SAFETY: both are valid for `n` elements in distinct allocations.
        unsafe { ptr::copy_nonoverlapping(src.as_ptr(), dst.as_ptr(), n) }
    }

    #[inline]
    unsafe fn move_prefix_back(src: NonNull<T>, dst: NonNull<T>, n: usize) {
        // SAFETY: both ranges lie in one allocation and hold `n` elements
        // (caller); `ptr::copy` allows them to overlap.
        unsafe { ptr::copy(src.as_ptr(), dst.as_ptr(), n) }
    }

    #[inline(always)]
    unsafe fn swap(ptrs: NonNull<T>, a: usize, b: usize) {
        // SAFETY: both rows are initialised (caller); `ptr::swap` allows
        // `a == b`.
        unsafe { ptr::swap(ptrs.add(a).as_ptr(), ptrs.add(b).as_ptr()) }
    }

    #[inline]
    unsafe fn drop_range(ptrs: NonNull<T>, start: usize, end: usize) {
        // SAFETY: rows `start..end` are initialised and given up (caller).
        unsafe {
            let first = ptrs.add(start).as_ptr();
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(first, end - start));
        }
    }

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: NonNull<T>, i: usize) -> &'a T
    where
        Self: 'a,
    {
        // SAFETY: row `i` is initialised and not mutably borrowed (caller).
        unsafe { ptrs.add(i).as_ref() }
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: NonNull<T>, i: usize) -> &'a mut T
    where
        Self: 'a,
    {
        // SAFETY: row `i` is initialised and not otherwise borrowed (caller).
        unsafe { ptrs.add(i).as_mut() }
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: NonNull<T>, len: usize) -> &'a [T]
    where
        Self: 'a,
    {
        // SAFETY: rows `0..len` are initialised, not mutably borrowed, and
        // `ptrs` is aligned and non-null (also when dangling).
        unsafe { core::slice::from_raw_parts(ptrs.as_ptr(), len) }
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: NonNull<T>, len: usize) -> &'a mut [T]
    where
        Self: 'a,
    {
        // SAFETY: as in `slices`, and not otherwise borrowed (caller).
        unsafe { core::slice::from_raw_parts_mut(ptrs.as_ptr(), len) }
    }
}

impl<T: Clone> CloneColumns for Col<T> {
    #[inline]
    fn clone_row(refs: &T) -> T {
        refs.clone()
    }
}

impl<L: ColumnTree, R: ColumnTree> ColumnTree for (L, R) {
    type Values = (L::Values, R::Values);
    type Ptrs = (L::Ptrs, R::Ptrs);
    type Refs<'a>
        = (L::Refs<'a>, R::Refs<'a>)
    where
        Self: 'a;
    type Muts<'a>
        = (L::Muts<'a>, R::Muts<'a>)
    where
        Self: 'a;
    type Slices<'a>
        = (L::Slices<'a>, R::Slices<'a>)
    where
        Self: 'a;
    type SlicesMut<'a>
        = (L::SlicesMut<'a>, R::SlicesMut<'a>)
    where
        Self: 'a;

    const ROW_SIZE: usize = L::ROW_SIZE + R::ROW_SIZE;
    const ALIGN: usize = max(L::ALIGN, R::ALIGN);

    const DANGLING: Self::Ptrs = (L::DANGLING, R::DANGLING);

    type Vecs = (L::Vecs, R::Vecs);

    fn vecs_have_len((left, right): &Self::Vecs, n: usize) -> bool {
        L::vecs_have_len(left, n) && R::vecs_have_len(right, n)
    }

    #[inline]
    unsafe fn move_from_vecs(ptrs: Self::Ptrs, vecs: Self::Vecs) {
        // SAFETY: forwarded caller contract, per half. Nothing here can
        // panic, so both halves are always moved.
        unsafe {
            L::move_from_vecs(ptrs.0, vecs.0);
            R::move_from_vecs(ptrs.1, vecs.1);
        }
    }

    #[inline]
    fn extent(cap: usize, end: usize, min_align: usize) -> Option<usize> {
        R::extent(cap, L::extent(cap, end, min_align)?, min_align)
    }

    #[inline]
    unsafe fn place(
        base: NonNull<u8>,
        cap: usize,
        end: &mut usize,
        min_align: usize,
    ) -> Self::Ptrs {
        // SAFETY: the allocation spans the extent of both halves (caller),
        // laid out in the same order as `extent`.
        unsafe {
            (
                L::place(base, cap, end, min_align),
                R::place(base, cap, end, min_align),
            )
        }
    }

    #[inline(always)]
    unsafe fn write(ptrs: Self::Ptrs, i: usize, values: Self::Values) {
        // SAFETY: forwarded caller contract, per half.
        unsafe {
            L::write(ptrs.0, i, values.0);
            R::write(ptrs.1, i, values.1);
        }
    }

    #[inline(always)]
    unsafe fn read(ptrs: Self::Ptrs, i: usize) -> Self::Values {
        // SAFETY: forwarded caller contract, per half.
        unsafe { (L::read(ptrs.0, i), R::read(ptrs.1, i)) }
    }

    #[inline(always)]
    unsafe fn copy_row(ptrs: Self::Ptrs, from: usize, to: usize) {
        // SAFETY: forwarded caller contract, per half.
        unsafe {
            L::copy_row(ptrs.0, from, to);
            R::copy_row(ptrs.1, from, to);
        }
    }

    #[inline]
    unsafe fn copy_prefix(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract, per half.
        unsafe {
            L::copy_prefix(src.0, dst.0, n);
            R::copy_prefix(src.1, dst.1, n);
        }
    }

    #[inline]
    unsafe fn move_prefix_back(src: Self::Ptrs, dst: Self::Ptrs, n: usize) {
        // SAFETY: forwarded caller contract; the right half's columns come
        // after the left half's, so moving them first never overwrites rows
        // of the left half that have not moved yet.
        unsafe {
            R::move_prefix_back(src.1, dst.1, n);
            L::move_prefix_back(src.0, dst.0, n);
        }
    }

    #[inline(always)]
    unsafe fn swap(ptrs: Self::Ptrs, a: usize, b: usize) {
        // SAFETY: forwarded caller contract, per half.
        unsafe {
            L::swap(ptrs.0, a, b);
            R::swap(ptrs.1, a, b);
        }
    }

    #[inline]
    unsafe fn drop_range(ptrs: Self::Ptrs, start: usize, end: usize) {
        // A guard drops the right half even if a destructor of the left half
        // panics, so one panicking `Drop` leaks nothing else.
        struct Rest<R: ColumnTree> {
            ptrs: R::Ptrs,
            start: usize,
            end: usize,
        }
        impl<R: ColumnTree> Drop for Rest<R> {
            fn drop(&mut self) {
                // SAFETY: the rows of this half are initialised and given up
                // by the caller of `drop_range`; they are dropped only here.
                unsafe { R::drop_range(self.ptrs, self.start, self.end) }
            }
        }
        let rest = Rest::<R> {
            ptrs: ptrs.1,
            start,
            end,
        };
        // SAFETY: forwarded caller contract for the left half.
        unsafe { L::drop_range(ptrs.0, start, end) };
        drop(rest);
    }

    #[inline(always)]
    unsafe fn refs<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Refs<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract, per half.
        unsafe { (L::refs(ptrs.0, i), R::refs(ptrs.1, i)) }
    }

    #[inline(always)]
    unsafe fn muts<'a>(ptrs: Self::Ptrs, i: usize) -> Self::Muts<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract; the halves are distinct columns.
        unsafe { (L::muts(ptrs.0, i), R::muts(ptrs.1, i)) }
    }

    #[inline(always)]
    unsafe fn slices<'a>(ptrs: Self::Ptrs, len: usize) -> Self::Slices<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract, per half.
        unsafe { (L::slices(ptrs.0, len), R::slices(ptrs.1, len)) }
    }

    #[inline(always)]
    unsafe fn slices_mut<'a>(ptrs: Self::Ptrs, len: usize) -> Self::SlicesMut<'a>
    where
        Self: 'a,
    {
        // SAFETY: forwarded caller contract; the halves are distinct columns.
        unsafe { (L::slices_mut(ptrs.0, len), R::slices_mut(ptrs.1, len)) }
    }
}

impl<L: CloneColumns, R: CloneColumns> CloneColumns for (L, R) {
    #[inline]
    fn clone_row(refs: Self::Refs<'_>) -> Self::Values {
        (L::clone_row(refs.0), R::clone_row(refs.1))
    }
}

impl ColumnTree for () {
    type Values = ();
    type Ptrs = ();
    type Refs<'a> = ();
    type Muts<'a> = ();
    type Slices<'a> = ();
    type SlicesMut<'a> = ();

    const ROW_SIZE: usize = 0;
    const ALIGN: usize = 1;

    const DANGLING: () = ();
    type Vecs = ();
    fn vecs_have_len((): &(), _n: usize) -> bool {
        true
    }
    unsafe fn move_from_vecs(_ptrs: (), _vecs: ()) {}
    fn extent(_cap: usize, end: usize, _min_align: usize) -> Option<usize> {
        Some(end)
    }
    unsafe fn place(_base: NonNull<u8>, _cap: usize, _end: &mut usize, _min_align: usize) {}
    unsafe fn write(_ptrs: (), _i: usize, _values: ()) {}
    unsafe fn read(_ptrs: (), _i: usize) {}
    unsafe fn copy_row(_ptrs: (), _from: usize, _to: usize) {}
    unsafe fn copy_prefix(_src: (), _dst: (), _n: usize) {}
    unsafe fn move_prefix_back(_src: (), _dst: (), _n: usize) {}
    unsafe fn swap(_ptrs: (), _a: usize, _b: usize) {}
    unsafe fn drop_range(_ptrs: (), _start: usize, _end: usize) {}
    unsafe fn refs<'a>(_ptrs: (), _i: usize)
    where
        Self: 'a,
    {
    }
    unsafe fn muts<'a>(_ptrs: (), _i: usize)
    where
        Self: 'a,
    {
    }
    unsafe fn slices<'a>(_ptrs: (), _len: usize)
    where
        Self: 'a,
    {
    }
    unsafe fn slices_mut<'a>(_ptrs: (), _len: usize)
    where
        Self: 'a,
    {
    }
}

impl CloneColumns for () {
    fn clone_row(_refs: ()) {}
}

/// Rows of columns `C` in one allocation with one length and capacity.
///
/// The safe API of this module; see the [module docs](self) for the layout
/// and the invariants. [`SoaStorage`](crate::SoaStorage) keeps one next to
/// its [`IdTable`](crate::IdTable); on its own it is a `Vec` of rows stored
/// column by column:
///
/// ```
/// use idtable::columns::{Col, ColumnBuffer};
///
/// // Three columns: (name, (hp, alive)).
/// let mut units = ColumnBuffer::<(Col<&str>, (Col<u32>, Col<bool>))>::new();
/// units.push(("orc", (30, true)));
/// units.push(("elf", (20, true)));
/// units.push(("imp", (5, false)));
///
/// let (names, (hp, alive)) = units.slices_mut();
/// for (hp, alive) in hp.iter_mut().zip(alive.iter()) {
///     if !*alive {
///         *hp = 0;
///     }
/// }
/// assert_eq!(names, &["orc", "elf", "imp"]);
/// assert_eq!(units.slices().1 .0, &[30, 20, 0]);
/// // One allocation holds all three columns:
/// let row = core::mem::size_of::<&str>() + 4 + 1;
/// assert!(units.allocated_bytes() >= units.capacity() * row);
/// ```
pub struct ColumnBuffer<C: ColumnTree> {
    ptrs: C::Ptrs,
    /// The allocation, when `layout.size() > 0`.
    base: NonNull<u8>,
    layout: Layout,
    len: usize,
    cap: usize,
    /// Moves on whenever a row leaves or changes place, which a push does
    /// not (see [`order`](Self::order)).
    order: u64,
    /// This buffer among all others, for the groups that keep its order:
    /// 0 until a group claims one, and 0 again in a clone.
    identity: u64,
    _owns: PhantomData<C::Values>,
}

// SAFETY: the buffer owns its rows like a `Vec` of them: sending it sends the
// values, sharing it shares them.
unsafe impl<C: ColumnTree> Send for ColumnBuffer<C> where C::Values: Send {}
// SAFETY: as above; `&ColumnBuffer` only hands out shared references.
unsafe impl<C: ColumnTree> Sync for ColumnBuffer<C> where C::Values: Sync {}

impl<C: ColumnTree> Default for ColumnBuffer<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: ColumnTree> Drop for ColumnBuffer<C> {
    fn drop(&mut self) {
        // Free the block even if a destructor panics.
        struct Free(NonNull<u8>, Layout);
        impl Drop for Free {
            fn drop(&mut self) {
                if self.1.size() != 0 {
                    // SAFETY: the block was allocated with exactly this layout
                    // and is freed once, here.
                    unsafe { dealloc(self.0.as_ptr(), self.1) }
                }
            }
        }
        let _free = Free(self.base, self.layout);
        let len = core::mem::replace(&mut self.len, 0);
        // SAFETY: rows `0..len` are initialised (invariant 2); `len` was set
        // to 0 first so nothing can observe them after.
        unsafe { C::drop_range(self.ptrs, 0, len) }
    }
}

impl<C: ColumnTree> ColumnBuffer<C> {
    const EMPTY_LAYOUT: Layout = match Layout::from_size_align(0, C::ALIGN) {
        Ok(layout) => layout,
        Err(_) => panic!("column alignment is a power of two"),
    };

    /// An empty buffer; does not allocate.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// assert!(buf.is_empty());
    /// assert_eq!(buf.allocated_bytes(), 0);
    /// // Zero-sized columns never allocate and never run out of room:
    /// assert_eq!(ColumnBuffer::<Col<()>>::new().capacity(), usize::MAX);
    /// ```
    pub const fn new() -> Self {
        ColumnBuffer {
            ptrs: C::DANGLING,
            base: NonNull::dangling(),
            layout: Self::EMPTY_LAYOUT,
            len: 0,
            cap: if C::ROW_SIZE == 0 { usize::MAX } else { 0 },
            order: 0,
            identity: 0,
            _owns: PhantomData,
        }
    }

    /// An empty buffer with room for at least `capacity` rows.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let buf = ColumnBuffer::<(Col<u32>, Col<u8>)>::with_capacity(10);
    /// assert!(buf.capacity() >= 10);
    /// assert!(buf.allocated_bytes() >= 10 * 5);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        let mut buf = Self::new();
        buf.reserve(capacity);
        buf
    }

    /// A buffer of `n` rows, its columns moved in whole from `vecs` (one
    /// `memcpy` each, no row at a time).
    ///
    /// # Panics
    ///
    /// If some `Vec` does not hold exactly `n` elements.
    #[cfg(feature = "serde")]
    pub(crate) fn from_vecs(vecs: C::Vecs, n: usize) -> Self {
        assert!(
            C::vecs_have_len(&vecs, n),
            "every column must hold {n} rows"
        );
        let mut buf = Self::with_capacity(n);
        // SAFETY: the buffer is new, so rows `0..n` are in capacity and hold
        // nothing; every `Vec` holds `n` elements (checked above). Moving
        // cannot panic, so all `n` rows of every column are initialised when
        // the length is set.
        unsafe { C::move_from_vecs(buf.ptrs, vecs) };
        buf.len = n;
        buf
    }

    /// Number of rows.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// assert_eq!(buf.len(), 2);
    /// ```
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are no rows.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// assert!(buf.is_empty());
    /// buf.push((1, "a"));
    /// assert!(!buf.is_empty());
    /// ```
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Rows that fit before the next reallocation (`usize::MAX` when every
    /// column is zero-sized).
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// assert_eq!(buf.capacity(), 0);
    /// buf.push((1, "a"));
    /// assert!(buf.capacity() >= 1);
    /// ```
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Bytes of the allocation (0 when nothing is allocated).
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.reserve(4);
    /// let per_row = 4 + core::mem::size_of::<&str>();
    /// assert!(buf.allocated_bytes() >= buf.capacity() * per_row);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.layout.size()
    }

    /// Moves the rows into a new allocation of `new_cap` rows.
    fn reallocate(&mut self, new_cap: usize) {
        debug_assert!(new_cap >= self.len && C::ROW_SIZE != 0);
        if new_cap > self.cap && self.layout.size() != 0 {
            self.grow_in_place(new_cap);
            return;
        }
        let (base, layout, ptrs) = if new_cap == 0 {
            (NonNull::dangling(), Self::EMPTY_LAYOUT, C::DANGLING)
        } else {
            let layout = C::extent(new_cap, 0, 1)
                .and_then(|size| Layout::from_size_align(size, C::ALIGN).ok())
                .unwrap_or_else(|| capacity_overflow());
            // SAFETY: the layout has a non-zero size: `new_cap > 0` and some
            // column is not zero-sized.
            let raw = unsafe { alloc(layout) };
            let Some(base) = NonNull::new(raw) else {
                handle_alloc_error(layout)
            };
            let mut end = 0;
            // SAFETY: `base` spans `extent(new_cap, 0, 1)` bytes, aligned to
            // `C::ALIGN`, and that extent was computed without overflow.
            let ptrs = unsafe { C::place(base, new_cap, &mut end, 1) };
            (base, layout, ptrs)
        };
        // SAFETY: rows `0..len` of the old buffer are initialised and the new
        // one has room for them (`new_cap >= len`); the allocations are
        // distinct. The old rows are forgotten, not dropped: they moved.
        unsafe { C::copy_prefix(self.ptrs, ptrs, self.len) };
        if self.layout.size() != 0 {
            // SAFETY: the old block was allocated with this layout; its rows
            // were moved out above.
            unsafe { dealloc(self.base.as_ptr(), self.layout) };
        }
        self.ptrs = ptrs;
        self.base = base;
        self.layout = layout;
        self.cap = new_cap;
    }

    /// Grows an existing allocation with `realloc` (which can extend the
    /// block or remap its pages instead of copying them), then moves each
    /// column up to its offset for `new_cap`, last column first.
    fn grow_in_place(&mut self, new_cap: usize) {
        let layout = C::extent(new_cap, 0, 1)
            .and_then(|size| Layout::from_size_align(size, C::ALIGN).ok())
            .unwrap_or_else(|| capacity_overflow());
        // SAFETY: `base` was allocated with `self.layout`, whose size is not
        // zero; the new size is not zero and fits `isize` with the same
        // alignment (checked by `Layout::from_size_align`).
        let raw = unsafe { realloc(self.base.as_ptr(), self.layout, layout.size()) };
        let Some(base) = NonNull::new(raw) else {
            handle_alloc_error(layout)
        };
        // The old bytes now start at `base`: the columns sit at their offsets
        // for the old capacity.
        let (mut old_end, mut new_end) = (0, 0);
        // SAFETY: the block spans `extent(new_cap)` >= `extent(self.cap)`
        // bytes, aligned to `C::ALIGN`; neither extent overflowed (the old
        // one was computed when the old block was made).
        let (old, new) = unsafe {
            (
                C::place(base, self.cap, &mut old_end, 1),
                C::place(base, new_cap, &mut new_end, 1),
            )
        };
        // SAFETY: both placements are of this block, for capacities
        // `self.cap < new_cap`; rows `0..len` are initialised at `old`.
        unsafe { C::move_prefix_back(old, new, self.len) };
        self.ptrs = new;
        self.base = base;
        self.layout = layout;
        self.cap = new_cap;
    }

    /// Reserves room for at least `additional` more rows (doubling).
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.reserve(10);
    /// let cap = buf.capacity();
    /// assert!(cap >= 10);
    /// for i in 0..10 {
    ///     buf.push((i, "x"));
    /// }
    /// assert_eq!(buf.capacity(), cap); // no reallocation
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        let needed = self
            .len
            .checked_add(additional)
            .unwrap_or_else(|| capacity_overflow());
        if needed > self.cap {
            let doubled = self.cap.saturating_mul(2);
            self.reallocate(needed.max(doubled).max(4));
        }
    }

    /// Shrinks the allocation to the length.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.reserve(100);
    /// buf.push((1, "a"));
    /// buf.shrink_to_fit();
    /// assert_eq!(buf.capacity(), 1);
    /// assert_eq!(buf.get(0), Some((&1, &"a")));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        if C::ROW_SIZE != 0 && self.cap > self.len {
            self.reallocate(self.len);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_one(&mut self) {
        self.reserve(1);
    }

    /// Appends a row.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// assert_eq!(buf.get(0), Some((&1, &"a")));
    /// ```
    #[inline]
    pub fn push(&mut self, values: C::Values) {
        self.push_from(values, |values| values);
    }

    /// Appends the row `split` makes of `value`, called once there is room
    /// for it: a caller that takes a struct apart into its column values
    /// reads them after the growth check, not before it (where they would
    /// be kept across the call that grows).
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push_from([1, 2], |[n, _]| (n, "a"));
    /// assert_eq!(buf.get(0), Some((&1, &"a")));
    /// ```
    #[inline(always)]
    pub fn push_from<V>(&mut self, value: V, split: impl FnOnce(V) -> C::Values) {
        if self.len == self.cap {
            self.grow_one();
        }
        let values = split(value);
        // SAFETY: `len < cap` now, so row `len` is in capacity and
        // uninitialised (invariant 2); `split` had no access to the buffer.
        unsafe { C::write(self.ptrs, self.len, values) };
        self.len += 1;
    }

    /// Appends a row and returns its mutable references (what a `SoaMap`
    /// entry's insert hands back, without reading the row again).
    #[inline]
    pub(crate) fn push_mut(&mut self, values: C::Values) -> C::Muts<'_> {
        if self.len == self.cap {
            self.grow_one();
        }
        let row = self.len;
        // SAFETY: `len < cap` now, so row `len` is in capacity and
        // uninitialised (invariant 2); once written and counted it is
        // initialised, and `&mut self` makes the references unique.
        unsafe {
            C::write(self.ptrs, row, values);
            self.len = row + 1;
            C::muts(self.ptrs, row)
        }
    }

    /// Removes and returns the last row.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// assert_eq!(buf.pop(), Some((2, "b")));
    /// assert_eq!(buf.len(), 1);
    /// ```
    #[inline]
    pub fn pop(&mut self) -> Option<C::Values> {
        self.moved();
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: row `len` (the old last) is initialised and, with the
        // length lowered, no longer counted as such.
        Some(unsafe { C::read(self.ptrs, self.len) })
    }

    /// Removes row `index`, moving the last row into its place.
    ///
    /// # Panics
    ///
    /// If `index >= len`.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// buf.push((3, "c"));
    /// assert_eq!(buf.swap_remove(0), (1, "a"));
    /// assert_eq!(buf.slices(), (&[3, 2][..], &["c", "b"][..]));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn swap_remove(&mut self, index: usize) -> C::Values {
        self.moved();
        let len = self.len;
        if index >= len {
            // Out of line: the hot path keeps the two values in registers
            // instead of storing them for the message.
            swap_remove_out_of_bounds(index, len);
        }
        let last = len - 1;
        // SAFETY: `index < len`, so row `index` is initialised; the value is
        // moved out and the row refilled from `last` (if different), after
        // which row `last` is given up by lowering the length.
        unsafe {
            let values = C::read(self.ptrs, index);
            if index != last {
                C::copy_row(self.ptrs, last, index);
            }
            self.len = last;
            values
        }
    }

    /// Drops every row; keeps the allocation.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// let bytes = buf.allocated_bytes();
    /// buf.clear();
    /// assert!(buf.is_empty());
    /// assert_eq!(buf.allocated_bytes(), bytes);
    /// ```
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Drops rows `new_len..len`; does nothing if `new_len >= len`.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// for i in 0..5 {
    ///     buf.push((i, "x"));
    /// }
    /// buf.truncate(2);
    /// assert_eq!(buf.slices().0, &[0, 1]);
    /// buf.truncate(10);
    /// assert_eq!(buf.len(), 2);
    /// ```
    pub fn truncate(&mut self, new_len: usize) {
        if new_len >= self.len {
            return;
        }
        self.moved();
        let old = core::mem::replace(&mut self.len, new_len);
        // SAFETY: rows `new_len..old` were initialised; the length was lowered
        // first, so if a destructor panics they are leaked, never dropped
        // twice.
        unsafe { C::drop_range(self.ptrs, new_len, old) };
    }

    /// Drops the rows at or after `start` that `removed` names and moves
    /// the others down over them in one pass, keeping their order; rows
    /// before `start` stay where they are. `removed(base, n)` answers for
    /// rows `base..base + n` at once (`n <= 64`; bit `i` set when row
    /// `base + i` goes): it is asked once per block, in order, before any
    /// row of the block is dropped or moved. Allocates nothing.
    ///
    /// If a destructor panics, the pass still completes (the blocks left
    /// are asked for, the rows left to drop are dropped, a second panic
    /// aborts, as for a slice), so the buffer holds exactly the rows not
    /// removed either way.
    pub(crate) fn remove_where(&mut self, start: usize, removed: impl FnMut(usize, usize) -> u64) {
        self.moved();
        /// The pass's state; dropping it finishes the pass.
        struct Pass<'a, C: ColumnTree, F: FnMut(usize, usize) -> u64> {
            buf: &'a mut ColumnBuffer<C>,
            removed: F,
            /// The next row to look at.
            read: usize,
            /// Where the next kept row goes.
            write: usize,
            /// The length before the pass.
            end: usize,
            /// The end of the block `removed` last answered for.
            block_end: usize,
            /// Its answer for rows `read..block_end`, row `read` lowest.
            bits: u64,
        }
        impl<C: ColumnTree, F: FnMut(usize, usize) -> u64> Pass<'_, C, F> {
            fn run(&mut self) {
                while self.read < self.end {
                    if self.read == self.block_end {
                        let n = (self.end - self.read).min(64);
                        self.bits = (self.removed)(self.read, n);
                        self.block_end = self.read + n;
                    }
                    let row = self.read;
                    let gone = self.bits & 1 != 0;
                    // Advanced first: if this row's destructor panics, the
                    // pass resumes after it.
                    self.read += 1;
                    self.bits >>= 1;
                    if gone {
                        // SAFETY: rows `read..end` are initialised and
                        // counted by no one (the length is `write`); this
                        // one is moved out once and dropped.
                        drop(unsafe { C::read(self.buf.ptrs, row) });
                    } else {
                        if row != self.write {
                            // SAFETY: `row` is initialised; `write < row` is
                            // a row whose value was dropped or moved away.
                            unsafe { C::copy_row(self.buf.ptrs, row, self.write) };
                        }
                        self.write += 1;
                        self.buf.len = self.write;
                    }
                }
            }
        }
        impl<C: ColumnTree, F: FnMut(usize, usize) -> u64> Drop for Pass<'_, C, F> {
            fn drop(&mut self) {
                self.run();
            }
        }
        let end = self.len;
        if start >= end {
            return;
        }
        if !core::mem::needs_drop::<C::Values>() {
            // Nothing to drop and no user code to panic: the kept rows of
            // each block move down, found a bit at a time (no branch on
            // each row's answer).
            // The length stays `start` until the end: `removed` is the
            // caller's code, and no row is counted twice meanwhile.
            self.len = start;
            let mut removed = removed;
            let mut write = start;
            let mut base = start;
            while base < end {
                let n = (end - base).min(64);
                let mut kept = !removed(base, n) & (u64::MAX >> (64 - n));
                while kept != 0 {
                    let row = base + kept.trailing_zeros() as usize;
                    kept &= kept - 1;
                    if row != write {
                        // SAFETY: `row < end` is initialised; `write < row`
                        // is a removed row (its value needs no drop) or one
                        // already moved down, so overwriting it loses
                        // nothing.
                        unsafe { C::copy_row(self.ptrs, row, write) };
                    }
                    write += 1;
                }
                base += n;
            }
            self.len = write;
            return;
        }
        // Rows `start..end` belong to the pass until it counts them again.
        self.len = start;
        let mut pass = Pass {
            buf: self,
            removed,
            read: start,
            write: start,
            end,
            block_end: start,
            bits: 0,
        };
        pass.run();
    }

    /// Swaps rows `a` and `b`.
    ///
    /// # Panics
    ///
    /// If either is not below `len`.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// buf.swap(0, 1);
    /// assert_eq!(buf.slices(), (&[2, 1][..], &["b", "a"][..]));
    /// ```
    #[inline]
    #[track_caller]
    pub fn swap(&mut self, a: usize, b: usize) {
        assert!(a < self.len && b < self.len, "swap index out of bounds");
        self.moved();
        // SAFETY: both rows are initialised.
        unsafe { C::swap(self.ptrs, a, b) }
    }

    /// References to row `index`, or `None` past the end.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// assert_eq!(buf.get(0), Some((&1, &"a")));
    /// assert_eq!(buf.get(1), None);
    /// ```
    #[inline(always)]
    pub fn get(&self, index: usize) -> Option<C::Refs<'_>> {
        if index < self.len {
            // SAFETY: the row is initialised; `&self` keeps it from being
            // mutated for the borrow.
            Some(unsafe { C::refs(self.ptrs, index) })
        } else {
            None
        }
    }

    /// Mutable references to row `index`, or `None` past the end.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// let (n, s) = buf.get_mut(0).unwrap();
    /// *n += 1;
    /// *s = "b";
    /// assert_eq!(buf.get(0), Some((&2, &"b")));
    /// assert!(buf.get_mut(1).is_none());
    /// ```
    #[inline(always)]
    pub fn get_mut(&mut self, index: usize) -> Option<C::Muts<'_>> {
        if index < self.len {
            // SAFETY: the row is initialised; `&mut self` makes the borrow
            // unique.
            Some(unsafe { C::muts(self.ptrs, index) })
        } else {
            None
        }
    }

    /// Mutable references to `N` distinct rows, or `None` if any index is
    /// out of bounds or repeated.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// let [(n0, _), (n1, _)] = buf.get_disjoint_mut([0, 1]).unwrap();
    /// core::mem::swap(n0, n1);
    /// assert_eq!(buf.slices().0, &[2, 1]);
    /// assert!(buf.get_disjoint_mut([1, 1]).is_none());
    /// assert!(buf.get_disjoint_mut([0, 2]).is_none());
    /// ```
    pub fn get_disjoint_mut<const N: usize>(
        &mut self,
        indices: [usize; N],
    ) -> Option<[C::Muts<'_>; N]> {
        for (k, &i) in indices.iter().enumerate() {
            if i >= self.len || indices[..k].contains(&i) {
                return None;
            }
        }
        let ptrs = self.ptrs;
        // SAFETY: every row is initialised and the indices are distinct, so
        // the `N` borrows are disjoint; `&mut self` makes them unique.
        Some(indices.map(|i| unsafe { C::muts(ptrs, i) }))
    }

    /// One slice per column, rows `0..len`.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// let (numbers, names) = buf.slices();
    /// assert_eq!(numbers.iter().sum::<u32>(), 3);
    /// assert_eq!(names, &["a", "b"]);
    /// ```
    #[inline(always)]
    pub fn slices(&self) -> C::Slices<'_> {
        // SAFETY: rows `0..len` are initialised; shared borrow of `self`.
        unsafe { C::slices(self.ptrs, self.len) }
    }

    /// One mutable slice per column, rows `0..len`.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// let (numbers, _names) = buf.slices_mut();
    /// numbers.iter_mut().for_each(|n| *n *= 10);
    /// assert_eq!(buf.slices().0, &[10, 20]);
    /// ```
    #[inline(always)]
    pub fn slices_mut(&mut self) -> C::SlicesMut<'_> {
        // SAFETY: rows `0..len` are initialised; unique borrow of `self`.
        unsafe { C::slices_mut(self.ptrs, self.len) }
    }

    /// Iterator over the rows' references, in order.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// let rows: Vec<_> = buf.iter().collect();
    /// assert_eq!(rows, [(&1, &"a"), (&2, &"b")]);
    /// ```
    pub fn iter(&self) -> Iter<'_, C> {
        Iter {
            ptrs: self.ptrs,
            front: 0,
            back: self.len,
            _borrow: PhantomData,
        }
    }

    /// Iterator over the rows' mutable references, in order.
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<&str>)>::new();
    /// buf.push((1, "a"));
    /// buf.push((2, "b"));
    /// for (n, s) in buf.iter_mut() {
    ///     if *s == "b" {
    ///         *n = 0;
    ///     }
    /// }
    /// assert_eq!(buf.slices().0, &[1, 0]);
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, C> {
        IterMut {
            ptrs: self.ptrs,
            front: 0,
            back: self.len,
            _borrow: PhantomData,
        }
    }
}

impl<C: ColumnTree> ColumnBuffer<C> {
    /// The columns' pointers and the length: rows `0..len` at those
    /// pointers are initialised, and stay so while `self` is borrowed.
    #[cfg(feature = "serde")]
    #[inline(always)]
    pub(crate) fn raw_parts(&self) -> (C::Ptrs, usize) {
        (self.ptrs, self.len)
    }

    /// A shared handle on the rows, with the buffer's pointers and length
    /// copied out (a join keeps them in registers while it writes to other
    /// rows).
    #[inline(always)]
    pub(crate) fn handle(&self) -> RowHandle<'_, C> {
        RowHandle {
            ptrs: self.ptrs,
            len: self.len,
            _borrow: PhantomData,
        }
    }

    /// The order stamp: it moves on whenever a row is removed or changes
    /// place (pop, swap, swap-remove, truncate, clear, a sort, a key
    /// replaced in place), and stays when rows are only pushed. Two reads
    /// that agree, with the length grown or not, mean that every row read
    /// at the first is where it was, and any new row is at the end. A
    /// [`Group`](crate::group::Group) relies on it to notice a change
    /// that bypassed it.
    #[inline(always)]
    pub(crate) fn order(&self) -> u64 {
        self.order
    }

    /// Moves the order stamp on: a row left or changed place.
    #[inline(always)]
    pub(crate) fn moved(&mut self) {
        self.order = self.order.wrapping_add(1);
    }

    /// This buffer's identity (0 if no group claimed one yet).
    #[inline(always)]
    pub(crate) fn identity(&self) -> u64 {
        self.identity
    }

    /// This buffer's identity, claimed from a process-wide counter if it
    /// has none yet: no two buffers share one (0 if the counter ran out,
    /// which groups treat as unknown).
    pub(crate) fn claim_identity(&mut self) -> u64 {
        if self.identity == 0 {
            self.identity = next_identity();
        }
        self.identity
    }

    /// A handle that lends the rows mutably one at a time, from a shared
    /// reference to it (a join's mutable source, read from several threads).
    #[inline(always)]
    pub(crate) fn handle_mut(&mut self) -> RowHandleMut<'_, C> {
        RowHandleMut {
            ptrs: self.ptrs,
            len: self.len,
            _borrow: PhantomData,
        }
    }
}

/// The row handle and the row iterator of one kind of borrow of a
/// [`ColumnBuffer`]: `[]` for shared (rows as [`ColumnTree::Refs`], through
/// `refs`), `[mut]` for unique (rows as [`ColumnTree::Muts`], through
/// `muts`), with the bounds under which each may cross threads.
///
/// Both hold the buffer's pointers and bounds and hand out row `i` only for
/// an initialised row `i` of a buffer borrowed for `'a` in that way; the
/// unique kind hands each row out at most once (the handle by its caller's
/// promise, the iterator because `front..back` only shrinks), so the
/// mutable borrows it gives are disjoint, as `slice::IterMut`'s are.
macro_rules! borrow_kind {
    (
        [$($mutability:tt)?] $rows:ident, $get:ident;
        $(#[$handle_doc:meta])* $handle:ident;
        $(#[$iter_doc:meta])* $iter:ident;
        Send if $send:ident, Sync if $sync:ident
    ) => {
        $(#[$handle_doc])*
        pub(crate) struct $handle<'a, C: ColumnTree> {
            ptrs: C::Ptrs,
            len: usize,
            _borrow: PhantomData<&'a $($mutability)? ColumnBuffer<C>>,
        }

        // SAFETY: it hands out the borrow it stands for, of distinct rows,
        // from any thread that holds it: the bounds are those of that
        // borrow of a slice split between threads.
        unsafe impl<C: ColumnTree> Send for $handle<'_, C> where C::Values: $send {}
        // SAFETY: as above.
        unsafe impl<C: ColumnTree> Sync for $handle<'_, C> where C::Values: $send {}

        impl<'a, C: ColumnTree> $handle<'a, C> {
            /// Row `index`.
            ///
            /// # Safety
            ///
            /// `index < len` of the buffer; for the unique kind, no other
            /// reference to row `index` handed out by this handle lives
            /// while the returned one does.
            #[inline(always)]
            pub(crate) unsafe fn row(&self, index: usize) -> C::$rows<'a> {
                debug_assert!(index < self.len);
                // SAFETY: the row is initialised (`index < len`, the
                // caller's promise) and the buffer is borrowed for `'a` in
                // this kind; a unique row is handed out once (the caller's
                // promise), so the references do not alias.
                unsafe { C::$get(self.ptrs, index) }
            }
        }

        $(#[$iter_doc])*
        pub struct $iter<'a, C: ColumnTree> {
            ptrs: C::Ptrs,
            front: usize,
            back: usize,
            _borrow: PhantomData<&'a $($mutability)? ColumnBuffer<C>>,
        }

        // SAFETY: it hands out the borrow it stands for, of distinct rows,
        // like `slice::Iter` / `slice::IterMut`.
        unsafe impl<C: ColumnTree> Send for $iter<'_, C> where C::Values: $send {}
        // SAFETY: `&Self` gives no access to the rows but shared ones of
        // the shared kind.
        unsafe impl<C: ColumnTree> Sync for $iter<'_, C> where C::Values: $sync {}

        impl<'a, C: ColumnTree + 'a> Iterator for $iter<'a, C> {
            type Item = C::$rows<'a>;

            #[inline(always)]
            fn next(&mut self) -> Option<C::$rows<'a>> {
                if self.front < self.back {
                    let i = self.front;
                    self.front += 1;
                    // SAFETY: `i < back <= len` of the buffer borrowed for
                    // 'a; `front` passed `i`, so row `i` is not handed out
                    // again.
                    Some(unsafe { C::$get(self.ptrs, i) })
                } else {
                    None
                }
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                let n = self.back - self.front;
                (n, Some(n))
            }
        }

        impl<'a, C: ColumnTree + 'a> DoubleEndedIterator for $iter<'a, C> {
            #[inline]
            fn next_back(&mut self) -> Option<C::$rows<'a>> {
                if self.front < self.back {
                    self.back -= 1;
                    // SAFETY: as in `next`; `front..back` shrinks from
                    // either end.
                    Some(unsafe { C::$get(self.ptrs, self.back) })
                } else {
                    None
                }
            }
        }

        impl<'a, C: ColumnTree + 'a> ExactSizeIterator for $iter<'a, C> {}
        impl<'a, C: ColumnTree + 'a> core::iter::FusedIterator for $iter<'a, C> {}

        #[cfg(feature = "rayon")]
        impl<C: ColumnTree> $iter<'_, C> {
            /// Splits the rows not yet yielded at `mid` into two iterators
            /// over disjoint rows: the first `mid` and the rest, like
            /// `slice::split_at`.
            ///
            /// # Panics
            ///
            /// If `mid` is more than the rows left.
            pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
                let at = split_point(self.front, self.back, mid);
                // Each row of `front..back` goes to exactly one half, so
                // the rows the halves hand out stay disjoint.
                let left = $iter {
                    ptrs: self.ptrs,
                    front: self.front,
                    back: at,
                    _borrow: PhantomData,
                };
                (left, $iter { front: at, ..self })
            }
        }
    };
}

borrow_kind! {
    [] Refs, refs;
    /// The rows of a [`ColumnBuffer`] borrowed shared for `'a`, any of
    /// them on request.
    RowHandle;
    /// Iterator over the rows of a [`ColumnBuffer`], as
    /// [`ColumnTree::Refs`].
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<char>)>::new();
    /// for row in [(1, 'a'), (2, 'b'), (3, 'c')] {
    ///     buf.push(row);
    /// }
    /// let mut rows = buf.iter();
    /// assert_eq!(rows.len(), 3);
    /// assert_eq!(rows.next_back(), Some((&3, &'c')));
    /// assert_eq!(rows.next(), Some((&1, &'a')));
    /// assert_eq!(rows.len(), 1);
    /// ```
    Iter;
    Send if Sync, Sync if Sync
}

borrow_kind! {
    [mut] Muts, muts;
    /// The rows of a [`ColumnBuffer`] borrowed mutably for `'a`, each
    /// handed out by [`row`](RowHandleMut::row) under the caller's promise
    /// that no row is handed out twice at once: what `slice::IterMut` does,
    /// in any order.
    RowHandleMut;
    /// Iterator over the rows of a [`ColumnBuffer`], as
    /// [`ColumnTree::Muts`].
    ///
    /// ```
    /// use idtable::columns::{Col, ColumnBuffer};
    ///
    /// let mut buf = ColumnBuffer::<(Col<u32>, Col<char>)>::new();
    /// buf.push((1, 'a'));
    /// buf.push((2, 'b'));
    /// let mut rows = buf.iter_mut();
    /// let (n, c) = rows.next_back().unwrap();
    /// *n += 40;
    /// *c = 'z';
    /// assert_eq!(rows.len(), 1);
    /// assert_eq!(buf.get(1), Some((&42, &'z')));
    /// ```
    IterMut;
    Send if Send, Sync if Sync
}

impl<C: ColumnTree> Clone for RowHandle<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: ColumnTree> Copy for RowHandle<'_, C> {}

impl<C: ColumnTree> Clone for Iter<'_, C> {
    fn clone(&self) -> Self {
        Iter { ..*self }
    }
}

/// Equal when both hold the same number of rows and every column holds
/// equal elements.
///
/// ```
/// use idtable::columns::{Col, ColumnBuffer};
///
/// let mut a = ColumnBuffer::<(Col<u8>, Col<&str>)>::new();
/// let mut b = ColumnBuffer::with_capacity(100);
/// a.push((1, "one"));
/// b.push((1, "one"));
/// assert!(a == b);
/// b.push((2, "two"));
/// assert!(a != b);
/// ```
impl<C: EqColumns> PartialEq for ColumnBuffer<C> {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: rows `0..len` of both buffers are initialised and shared
        // for the call.
        self.len == other.len && unsafe { C::eq_rows(self.ptrs, other.ptrs, self.len) }
    }
}

impl<C: TotalEqColumns> Eq for ColumnBuffer<C> {}

impl<C: CloneColumns> Clone for ColumnBuffer<C> {
    fn clone(&self) -> Self {
        let mut out = Self::with_capacity(self.len);
        for refs in self.iter() {
            // A panicking `Clone` drops the partly built row (its finished
            // parts are locals) and `out` with its complete rows.
            out.push(C::clone_row(refs));
        }
        out
    }
}

/// A new buffer identity: 1, 2, … in the order they are claimed, never
/// the same twice; 0 once the counter has run out (only where 64-bit
/// atomics are missing, after 2^32 claims).
fn next_identity() -> u64 {
    #[cfg(target_has_atomic = "64")]
    {
        use core::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }
    #[cfg(not(target_has_atomic = "64"))]
    {
        use core::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .map_or(0, |n| n as u64)
    }
}

#[cold]
#[track_caller]
fn capacity_overflow() -> ! {
    panic!("capacity overflow")
}

/// The row `mid` rows after `front`, checked against `back`.
#[cfg(feature = "rayon")]
#[track_caller]
fn split_point(front: usize, back: usize, mid: usize) -> usize {
    assert!(
        mid <= back - front,
        "split index {mid} out of bounds (len {})",
        back - front
    );
    front + mid
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::rc::Rc;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use core::cell::Cell;

    type Three = (Col<u8>, (Col<u64>, Col<String>));

    #[test]
    fn push_get_and_slices_line_up() {
        let mut b = ColumnBuffer::<Three>::new();
        for i in 0..100u64 {
            b.push((i as u8, (i * 3, (i.to_string()))));
        }
        assert_eq!(b.len(), 100);
        let (a, (c, s)) = b.slices();
        assert_eq!(a[42], 42);
        assert_eq!(c[42], 126);
        assert_eq!(s[42], "42");
        let (x, (y, z)) = b.get(7).unwrap();
        assert_eq!((*x, *y, z.as_str()), (7, 21, "7"));
        assert!(b.get(100).is_none());
    }

    #[test]
    fn swap_remove_moves_the_last_row() {
        let mut b = ColumnBuffer::<Three>::new();
        for i in 0..5u64 {
            b.push((i as u8, (i, i.to_string())));
        }
        assert_eq!(b.swap_remove(1), (1, (1, "1".to_string())));
        let (a, (c, s)) = b.slices();
        assert_eq!(a, &[0, 4, 2, 3]);
        assert_eq!(c, &[0, 4, 2, 3]);
        assert_eq!(s, &["0", "4", "2", "3"]);
        assert_eq!(b.swap_remove(3), (3, (3, "3".to_string())));
        assert_eq!(b.pop(), Some((2, (2, "2".to_string()))));
        assert_eq!(b.len(), 2);
    }

    #[repr(align(64))]
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Wide(u8);

    #[test]
    fn over_aligned_and_zero_sized_columns() {
        let mut b = ColumnBuffer::<(Col<u8>, (Col<Wide>, Col<()>))>::new();
        for i in 0..20u8 {
            b.push((i, (Wide(i), ())));
        }
        let (_, (w, z)) = b.slices();
        assert_eq!(w.as_ptr() as usize % 64, 0);
        assert_eq!(w[19], Wide(19));
        assert_eq!(z.len(), 20);
        b.shrink_to_fit();
        assert_eq!(b.capacity(), 20);
        assert_eq!(b.slices().1 .0[3], Wide(3));
    }

    #[test]
    fn only_zero_sized_columns_never_allocate() {
        let mut b = ColumnBuffer::<(Col<()>, Col<[u8; 0]>)>::new();
        assert_eq!(b.capacity(), usize::MAX);
        for _ in 0..1000 {
            b.push(((), []));
        }
        assert_eq!(b.allocated_bytes(), 0);
        assert_eq!(b.swap_remove(3), ((), []));
        assert_eq!(b.len(), 999);
    }

    struct Counted(Rc<Cell<usize>>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn from_vecs_moves_whole_columns_and_drops_each_value_once() {
        let drops = Rc::new(Cell::new(0));
        {
            let names: Vec<String> = (0..5).map(|i| i.to_string()).collect();
            let counted: Vec<Counted> = (0..5).map(|_| Counted(drops.clone())).collect();
            let b = ColumnBuffer::<(Col<String>, (Col<Counted>, Col<()>))>::from_vecs(
                (names, (counted, Vec::from([(); 5]))),
                5,
            );
            assert_eq!(b.len(), 5);
            assert_eq!(b.slices().0[3], "3");
            assert_eq!(drops.get(), 0, "moved, not dropped");
        }
        assert_eq!(drops.get(), 5);
        let empty = ColumnBuffer::<(Col<u8>, Col<String>)>::from_vecs((Vec::new(), Vec::new()), 0);
        assert!(empty.is_empty());
    }

    #[cfg(feature = "serde")]
    #[test]
    #[should_panic(expected = "every column must hold 2 rows")]
    fn from_vecs_refuses_columns_of_other_lengths() {
        let _ = ColumnBuffer::<(Col<u8>, Col<u8>)>::from_vecs((vec![1, 2], vec![1]), 2);
    }

    #[test]
    fn every_row_is_dropped_once() {
        let drops = Rc::new(Cell::new(0));
        {
            let mut b = ColumnBuffer::<(Col<Counted>, Col<Counted>)>::new();
            for _ in 0..10 {
                b.push((Counted(drops.clone()), Counted(drops.clone())));
            }
            drop(b.swap_remove(0));
            assert_eq!(drops.get(), 2);
            b.truncate(5);
            assert_eq!(drops.get(), 10);
            b.reserve(100); // moves, never drops
            assert_eq!(drops.get(), 10);
        }
        assert_eq!(drops.get(), 20);
    }

    /// The answer of `remove_where`'s `removed` for rows `base..base + n`
    /// when the rows `goes` names go; the block is noted in `asked`.
    fn answer(
        goes: impl Fn(usize) -> bool,
        asked: &mut Vec<(usize, usize)>,
        base: usize,
        n: usize,
    ) -> u64 {
        assert!((1..=64).contains(&n), "a block of {n} rows");
        asked.push((base, n));
        (0..n).fold(0, |bits, i| bits | u64::from(goes(base + i)) << i)
    }

    /// Whether `asked` covers `start..end` block after block, in order.
    fn covers(asked: &[(usize, usize)], start: usize, end: usize) -> bool {
        let mut next = start;
        asked.iter().all(|&(base, n)| {
            let ok = base == next;
            next = base + n;
            ok
        }) && next == end.max(start)
    }

    #[test]
    fn remove_where_keeps_order_and_drops_each_removed_row_once() {
        let drops = Rc::new(Cell::new(0));
        let mut b = ColumnBuffer::<(Col<u32>, (Col<Counted>, Col<()>))>::new();
        for i in 0..100 {
            b.push((i, (Counted(drops.clone()), ())));
        }
        // Row 1 is before `start`: never asked for, left alone.
        let goes = |d: usize| [1, 3, 4, 17, 70, 98, 99].contains(&d);
        let mut asked = Vec::new();
        b.remove_where(3, |base, n| answer(goes, &mut asked, base, n));
        assert!(covers(&asked, 3, 100), "{asked:?}");
        assert_eq!(drops.get(), 6);
        let want: Vec<u32> = (0..100).filter(|&i| i == 1 || !goes(i as usize)).collect();
        assert_eq!(b.slices().0, &want[..]);
        assert_eq!(b.slices().1 .1.len(), 94);
        asked.clear();
        b.remove_where(100, |base, n| answer(|_| true, &mut asked, base, n));
        assert_eq!((b.len(), asked.len()), (94, 0), "past the end: nothing");
        drop(b);
        assert_eq!(drops.get(), 100);
    }

    #[test]
    fn remove_where_without_drops_keeps_the_other_rows_in_order() {
        // Rows whose values need no drop take the block-at-a-time path.
        for (len, every) in [
            (1, 1),
            (64, 3),
            (65, 64),
            (130, 2),
            (200, 7),
            (257, 1),
            (300, 5),
        ] {
            let mut b = ColumnBuffer::<(Col<u32>, (Col<[u8; 3]>, Col<()>))>::new();
            for i in 0..len {
                b.push((i as u32, ([i as u8; 3], ())));
            }
            // Row 1 is before `start`: never asked for, left alone.
            let goes = |d: usize| d == 1 || d % every == 0;
            let start = len / 3;
            let mut asked = Vec::new();
            b.remove_where(start, |base, n| answer(goes, &mut asked, base, n));
            assert!(covers(&asked, start, len), "{len} rows: {asked:?}");
            let want: Vec<u32> = (0..len)
                .filter(|&d| d < start || !goes(d))
                .map(|d| d as u32)
                .collect();
            assert_eq!(b.slices().0, &want[..], "{len} rows, every {every}");
            let bytes: Vec<[u8; 3]> = want.iter().map(|&i| [i as u8; 3]).collect();
            assert_eq!(b.slices().1 .0, &bytes[..]);
            assert_eq!(b.len(), want.len());
        }
    }

    struct Bomb(Rc<Cell<usize>>, bool);
    impl Drop for Bomb {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
            if self.1 {
                panic!("bomb");
            }
        }
    }

    #[test]
    fn remove_where_finishes_when_a_destructor_panics() {
        let drops = Rc::new(Cell::new(0));
        let mut b = ColumnBuffer::<(Col<Bomb>, Col<u8>)>::new();
        for i in 0..140u8 {
            b.push((Bomb(drops.clone(), i == 2), i));
        }
        let goes = |d: usize| [2, 5, 9, 64, 139].contains(&d);
        let mut asked = Vec::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            b.remove_where(0, |base, n| answer(goes, &mut asked, base, n))
        }));
        assert!(r.is_err());
        assert!(
            covers(&asked, 0, 140),
            "every block is asked for: {asked:?}"
        );
        assert_eq!(
            drops.get(),
            5,
            "the rows after the panicking one are dropped too"
        );
        let want: Vec<u8> = (0..140).filter(|&i| !goes(i as usize)).collect();
        assert_eq!(b.slices().1, &want[..]);
        drop(b);
        assert_eq!(drops.get(), 140);
    }

    #[test]
    fn disjoint_mut_rejects_repeats_and_out_of_bounds() {
        let mut b = ColumnBuffer::<Col<u32>>::new();
        for i in 0..4 {
            b.push(i);
        }
        let [x, y] = b.get_disjoint_mut([0, 3]).unwrap();
        core::mem::swap(x, y);
        assert_eq!(b.slices(), &[3, 1, 2, 0]);
        assert!(b.get_disjoint_mut([1, 1]).is_none());
        assert!(b.get_disjoint_mut([1, 4]).is_none());
    }

    #[test]
    fn clone_and_iterators() {
        let mut b = ColumnBuffer::<(Col<u32>, Col<String>)>::new();
        for i in 0..6u32 {
            b.push((i, i.to_string()));
        }
        for (n, s) in b.iter_mut() {
            *n += 1;
            s.push('!');
        }
        let c = b.clone();
        let got: Vec<_> = c.iter().rev().map(|(n, s)| (*n, s.clone())).collect();
        assert_eq!(got[0], (6, "5!".to_string()));
        assert_eq!(c.iter().len(), 6);
    }

    /// Each row goes to exactly one half of a split: the halves write every
    /// row on two threads at once (Miri reports a race or an aliasing
    /// violation if they overlapped), and their lengths add up.
    #[cfg(feature = "rayon")]
    #[test]
    fn split_iterators_hand_out_disjoint_rows() {
        extern crate std;
        let n = if cfg!(miri) { 6 } else { 64 };
        let mut b = ColumnBuffer::<(Col<u32>, Col<String>)>::new();
        for i in 0..n {
            b.push((i, String::new()));
        }
        for mid in 0..=n as usize {
            let (left, right) = b.iter_mut().split_at(mid);
            assert_eq!((left.len(), right.len()), (mid, n as usize - mid));
            std::thread::scope(|scope| {
                scope.spawn(move || {
                    left.for_each(|(k, s)| {
                        *k += 1;
                        s.push('l')
                    })
                });
                scope.spawn(move || {
                    right.for_each(|(k, s)| {
                        *k += 1;
                        s.push('r')
                    })
                });
            });
            let (l, r) = b.iter().split_at(mid);
            assert!(l.clone().all(|(_, s)| s.ends_with('l')));
            assert!(r.clone().all(|(_, s)| s.ends_with('r')));
            assert!(l
                .chain(r)
                .map(|(k, _)| *k)
                .eq((0..n).map(|i| i + mid as u32 + 1)));
        }
    }

    #[test]
    fn swap_exchanges_whole_rows() {
        let mut b = ColumnBuffer::<(Col<u8>, Col<String>)>::new();
        b.push((1, "a".into()));
        b.push((2, "b".into()));
        b.swap(0, 1);
        assert_eq!(b.get(0), Some((&2, &"b".to_string())));
    }
}
