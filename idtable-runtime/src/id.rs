//! Generational ids: an index and a generation sliced into one integer.
//!
//! An id is `generation << INDEX_BITS | index`, stored in a `NonZeroU32`
//! ([`Id32`]) or a `NonZeroU64` ([`Id64`]):
//!
//! * the **index** (low bits) names a slot of an [`IdTable`](crate::IdTable);
//! * the **generation** (high bits) counts how often that slot has been
//!   issued. Generation 0 is never issued, so an id is never zero and
//!   `Option<Id>` is as small as the id itself;
//! * the **largest index value** (all index bits set) is reserved: no table
//!   ever issues it, so an id whose index bits are all ones — including the
//!   all-ones id — never resolves. [`MAX_INDEX`](Id::MAX_INDEX) is therefore
//!   one less than the largest value the index bits can hold.
//!
//! | alias | layout | live objects at most | issues of one slot |
//! | --- | --- | --- | --- |
//! | [`Id32_32`] (default of the derive) | `Id64<32>` | 4,294,967,295 | 4,294,967,295 |
//! | [`Id24_8`] | `Id32<24>` | 16,777,215 | 255 |
//! | [`Id20_12`] | `Id32<20>` | 1,048,575 | 4,095 |
//! | [`Id16_16`] | `Id32<16>` | 65,535 | 65,535 |
//!
//! The two parts, and what a table does with them:
//!
//! ```
//! use idtable::{Id, Id24_8, IdTable};
//!
//! let mut table = IdTable::<Id24_8>::new();
//! let (first, _) = table.insert();
//! assert_eq!((first.index(), first.generation()), (0, 1));
//! assert_eq!(first.to_bits(), 1 << Id24_8::INDEX_BITS); // generation 1, index 0
//!
//! table.remove(first);
//! let (second, _) = table.insert(); // the same slot, its next generation
//! assert_eq!((second.index(), second.generation()), (0, 2));
//! assert!(!table.contains(first));
//!
//! // Every index bit set is the reserved index: it never resolves.
//! let reserved = Id24_8::new(Id24_8::MAX_INDEX + 1, 1).unwrap();
//! assert!(!table.contains(reserved));
//! ```
//!
//! A layout with no generation bits, or with more index bits than fit, is a
//! compile error wherever it is used:
//!
//! ```compile_fail
//! use idtable::{Id, Id32};
//! let _ = <Id32<32> as Id>::MAX_INDEX; // 32 index bits leave no generation bits
//! ```

use core::fmt;
use core::hash::Hash;
use core::num::{NonZeroU32, NonZeroU64};

#[cfg(feature = "serde")]
mod serde;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl<const B: u32> Sealed for super::Id32<B> {}
    impl<const B: u32> Sealed for super::Id64<B> {}
}

/// The integer an id is stored in: `u32` or `u64`. Sealed.
///
/// [`Id::to_bits`] returns it; code generic over the id's width widens it to
/// `u64`:
///
/// ```
/// use idtable::{Id, IdBits, Id24_8, Id32_32};
///
/// fn packed<I: Id>(id: I) -> u64 {
///     id.to_bits().to_u64()
/// }
/// assert_eq!(packed(Id24_8::new(5, 3).unwrap()), 0x0300_0005);
/// assert_eq!(packed(Id32_32::new(5, 3).unwrap()), 0x0000_0003_0000_0005);
///
/// assert_eq!(<u32 as IdBits>::BITS, 32);
/// assert_eq!(<u64 as IdBits>::BITS, 64);
/// assert_eq!(<u32 as IdBits>::from_u64_truncating(0x1_0000_0007), 7);
/// ```
pub trait IdBits:
    Copy
    + Eq
    + Ord
    + Hash
    + fmt::Debug
    + fmt::Display
    + fmt::LowerHex
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// Width of the integer in bits.
    const BITS: u32;
    /// Widens to `u64` (lossless).
    fn to_u64(self) -> u64;
    /// Narrows from `u64`, keeping the low [`BITS`](IdBits::BITS) bits.
    fn from_u64_truncating(value: u64) -> Self;
}

impl IdBits for u32 {
    const BITS: u32 = 32;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn from_u64_truncating(value: u64) -> Self {
        value as u32
    }
}

impl IdBits for u64 {
    const BITS: u32 = 64;
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_u64_truncating(value: u64) -> Self {
        value
    }
}

/// A generational id: an index and a generation sliced into one integer.
///
/// Implemented by the raw layouts [`Id32`] and [`Id64`] and by the typed ids
/// that `#[derive(SoaAllocator)]` generates (which delegate to a layout).
///
/// The index is in the low [`INDEX_BITS`](Id::INDEX_BITS), the generation in
/// the high [`GENERATION_BITS`](Id::GENERATION_BITS). Any bit pattern with a
/// non-zero generation is an id (see [`from_bits`](Id::from_bits)); only the
/// table that issued it can say whether it is live.
///
/// ```
/// use idtable::{Id, Id24_8};
///
/// let id = Id24_8::from_bits(0x0300_0005).unwrap();
/// assert_eq!(id.index(), 5);
/// assert_eq!(id.generation(), 3);
/// assert_eq!(id.to_bits(), 0x0300_0005);
/// assert_eq!(Id24_8::INDEX_BITS, 24);
/// assert_eq!(Id24_8::GENERATION_BITS, 8);
/// assert_eq!(Id24_8::MAX_INDEX, (1 << 24) - 2);
/// assert_eq!(Id24_8::MAX_GENERATION, 255);
/// assert!(Id24_8::from_bits(0).is_none());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an idtable id",
    label = "not an id",
    note = "id layouts are `Id32_32` (the default), `Id24_8`, `Id20_12`, `Id16_16`, or `Id32<N>` / `Id64<N>`"
)]
pub trait Id: Copy + Eq + Ord + Hash + fmt::Debug + Send + Sync {
    /// The integer the id is stored in (`u32` or `u64`).
    type Bits: IdBits;
    /// Number of low bits holding the index.
    const INDEX_BITS: u32;
    /// Number of high bits holding the generation.
    const GENERATION_BITS: u32;
    /// The largest index a table issues (the all-ones index is reserved).
    const MAX_INDEX: usize;
    /// The largest generation (generations run from 1 to this value).
    const MAX_GENERATION: Self::Bits;

    /// The index part: which slot of the table this id names.
    #[inline(always)]
    fn index(self) -> usize {
        (self.to_bits().to_u64() & index_mask(Self::INDEX_BITS)) as usize
    }

    /// The generation part: which issue of the slot this id is (never 0).
    #[inline(always)]
    fn generation(self) -> Self::Bits {
        Self::Bits::from_u64_truncating(self.to_bits().to_u64() >> Self::INDEX_BITS)
    }

    /// The id as one integer, `generation << INDEX_BITS | index`.
    fn to_bits(self) -> Self::Bits;

    /// The id whose [`to_bits`](Id::to_bits) is `bits`, or `None` if the
    /// generation part is 0 (no table ever issues such an id).
    ///
    /// Any other pattern is accepted: a table resolves an id that it did not
    /// issue to nothing, never to another object.
    fn from_bits(bits: Self::Bits) -> Option<Self>;
}

/// Mask of the low `index_bits` bits.
#[inline(always)]
pub(crate) const fn index_mask(index_bits: u32) -> u64 {
    (1u64 << index_bits) - 1
}

macro_rules! id_layout {
    ($(#[$doc:meta])* $name:ident, $bits:ty, $nonzero:ty, $width:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name<const INDEX_BITS: u32>($nonzero);

        impl<const INDEX_BITS: u32> $name<INDEX_BITS> {
            /// Compile-time check of the layout, evaluated by every constant
            /// and constructor of the type.
            const LAYOUT: () = assert!(
                INDEX_BITS >= 1 && INDEX_BITS < $width && INDEX_BITS < usize::BITS,
                concat!(
                    "invalid id layout: ", stringify!($name),
                    "<INDEX_BITS> needs 1 <= INDEX_BITS < ", $width,
                    " (at least one generation bit) and INDEX_BITS < usize::BITS"
                )
            );

            /// The id with the given index and generation, or `None` if the
            /// generation is 0 or either part does not fit its bits.
            ///
            /// ```
            #[doc = concat!("use idtable::{Id, ", stringify!($name), "};")]
            #[doc = concat!("let id = ", stringify!($name), "::<16>::new(7, 2).unwrap();")]
            /// assert_eq!((id.index(), id.generation()), (7, 2));
            #[doc = concat!("assert!(", stringify!($name), "::<16>::new(7, 0).is_none());")]
            /// ```
            pub const fn new(index: usize, generation: $bits) -> Option<Self> {
                let () = Self::LAYOUT;
                let gen_bits = $width - INDEX_BITS;
                if generation == 0
                    || (generation as u64) >> gen_bits != 0
                    || (index as u64) > index_mask(INDEX_BITS)
                {
                    return None;
                }
                let bits = ((generation as u64) << INDEX_BITS | index as u64) as $bits;
                match <$nonzero>::new(bits) {
                    Some(nz) => Some(Self(nz)),
                    None => None,
                }
            }
        }

        impl<const INDEX_BITS: u32> Id for $name<INDEX_BITS> {
            type Bits = $bits;
            const INDEX_BITS: u32 = {
                let () = Self::LAYOUT;
                INDEX_BITS
            };
            const GENERATION_BITS: u32 = $width - <Self as Id>::INDEX_BITS;
            const MAX_INDEX: usize = index_mask(<Self as Id>::INDEX_BITS) as usize - 1;
            const MAX_GENERATION: $bits =
                (<$bits>::MAX >> <Self as Id>::INDEX_BITS) as $bits;

            #[inline(always)]
            fn to_bits(self) -> $bits {
                self.0.get()
            }

            #[inline(always)]
            fn from_bits(bits: $bits) -> Option<Self> {
                if bits >> <Self as Id>::INDEX_BITS == 0 {
                    return None;
                }
                <$nonzero>::new(bits).map(Self)
            }
        }

        impl<const INDEX_BITS: u32> fmt::Debug for $name<INDEX_BITS> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "{}({}v{})",
                    LayoutName::<Self>::new(),
                    self.index(),
                    self.generation()
                )
            }
        }
    };
}

id_layout!(
    /// A 32-bit id layout: `INDEX_BITS` index bits, `32 - INDEX_BITS`
    /// generation bits, stored in a `NonZeroU32`.
    ///
    /// ```
    /// use idtable::{Id, Id32};
    /// assert_eq!(<Id32<20> as Id>::GENERATION_BITS, 12);
    /// assert_eq!(core::mem::size_of::<Option<Id32<20>>>(), 4);
    /// ```
    Id32,
    u32,
    NonZeroU32,
    32
);

id_layout!(
    /// A 64-bit id layout: `INDEX_BITS` index bits, `64 - INDEX_BITS`
    /// generation bits, stored in a `NonZeroU64`.
    ///
    /// ```
    /// use idtable::{Id, Id64};
    /// assert_eq!(<Id64<32> as Id>::GENERATION_BITS, 32);
    /// assert_eq!(core::mem::size_of::<Option<Id64<32>>>(), 8);
    /// ```
    Id64,
    u64,
    NonZeroU64,
    64
);

/// 16 index bits, 16 generation bits: 65,535 live objects, 65,535 issues per slot.
///
/// ```
/// use idtable::{Id, Id16_16};
/// assert_eq!(Id16_16::MAX_INDEX + 1, 65_535); // live objects at most
/// assert_eq!(Id16_16::MAX_GENERATION, 65_535); // issues of one slot
/// assert_eq!(core::mem::size_of::<Option<Id16_16>>(), 4);
/// ```
pub type Id16_16 = Id32<16>;
/// 24 index bits, 8 generation bits: 16,777,215 live objects, only 255 issues
/// per slot — pair it with `min_free` (see [`TableConfig`](crate::TableConfig)).
///
/// ```
/// use idtable::{Id, Id24_8, IdTable};
///
/// // One object removed and re-inserted in a loop: its slot is issued 255
/// // times, then retired, and the next insert takes a fresh index.
/// let mut table = IdTable::<Id24_8>::new();
/// for _ in 0..Id24_8::MAX_GENERATION {
///     let (id, _) = table.insert();
///     assert_eq!(id.index(), 0);
///     table.remove(id);
/// }
/// assert_eq!(table.insert().0.index(), 1);
/// ```
pub type Id24_8 = Id32<24>;
/// 20 index bits, 12 generation bits: 1,048,575 live objects, 4,095 issues per slot.
///
/// ```
/// use idtable::{Id, Id20_12};
/// assert_eq!(Id20_12::MAX_INDEX + 1, 1_048_575);
/// assert_eq!(Id20_12::MAX_GENERATION, 4_095);
/// let id = Id20_12::new(1_000, 4_095).unwrap();
/// assert_eq!(id.to_bits(), 4_095 << 20 | 1_000);
/// ```
pub type Id20_12 = Id32<20>;
/// 32 index bits, 32 generation bits, in 64 bits: the default layout of a
/// derived allocator.
///
/// ```
/// use idtable::{Id, Id32_32};
/// assert_eq!(Id32_32::MAX_INDEX + 1, 4_294_967_295);
/// assert_eq!(Id32_32::MAX_GENERATION, 4_294_967_295);
/// assert_eq!(core::mem::size_of::<Option<Id32_32>>(), 8);
/// ```
pub type Id32_32 = Id64<32>;

/// A raw id layout ([`Id32`] or [`Id64`]), as named by `#[soa(id = ...)]`.
///
/// Sealed: typed ids generated by the derive implement [`Id`] but are not
/// layouts.
///
/// ```
/// use idtable::{IdBits, IdLayout, Id16_16, Id32_32};
///
/// /// How many ids a table of layout `L` can ever issue under `retire`.
/// fn lifetime_ids<L: IdLayout>() -> u128 {
///     (L::MAX_INDEX as u128 + 1) * u128::from(L::MAX_GENERATION.to_u64())
/// }
/// assert_eq!(lifetime_ids::<Id16_16>(), 65_535 * 65_535);
/// assert_eq!(lifetime_ids::<Id32_32>(), (u128::from(u32::MAX)).pow(2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an idtable id layout",
    label = "not an id layout",
    note = "use one of `Id32_32` (the default), `Id24_8`, `Id20_12`, `Id16_16`, or `Id32<N>` / `Id64<N>`"
)]
pub trait IdLayout: Id + sealed::Sealed {}
impl<const B: u32> IdLayout for Id32<B> {}
impl<const B: u32> IdLayout for Id64<B> {}

/// A typed id: a newtype over an [`IdLayout`], as generated by
/// `#[derive(SoaAllocator)]` (`FooId`). Every `TypedId` is an [`Id`] with
/// its layout's bits.
///
/// ```
/// use idtable::{Id, Id24_8, TypedId};
///
/// #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
/// struct MeshId(Id24_8);
///
/// impl TypedId for MeshId {
///     type Layout = Id24_8;
///     fn from_layout(raw: Id24_8) -> Self {
///         MeshId(raw)
///     }
///     fn to_layout(self) -> Id24_8 {
///         self.0
///     }
/// }
///
/// let id = MeshId::from_bits(0x0100_0002).unwrap();
/// assert_eq!((id.index(), id.generation()), (2, 1));
///
/// // The raw layout inside, and back:
/// let raw: Id24_8 = id.to_layout();
/// assert_eq!(raw, Id24_8::new(2, 1).unwrap());
/// assert_eq!(MeshId::from_layout(raw), id);
/// ```
pub trait TypedId: Copy + Eq + Ord + Hash + fmt::Debug + Send + Sync {
    /// The raw layout the id wraps.
    type Layout: IdLayout;
    /// Wraps a raw id.
    fn from_layout(raw: Self::Layout) -> Self;
    /// The raw id inside.
    fn to_layout(self) -> Self::Layout;
}

impl<T: TypedId> Id for T {
    type Bits = <T::Layout as Id>::Bits;
    const INDEX_BITS: u32 = <T::Layout as Id>::INDEX_BITS;
    const GENERATION_BITS: u32 = <T::Layout as Id>::GENERATION_BITS;
    const MAX_INDEX: usize = <T::Layout as Id>::MAX_INDEX;
    const MAX_GENERATION: Self::Bits = <T::Layout as Id>::MAX_GENERATION;

    #[inline(always)]
    fn index(self) -> usize {
        self.to_layout().index()
    }
    #[inline(always)]
    fn generation(self) -> Self::Bits {
        self.to_layout().generation()
    }
    #[inline(always)]
    fn to_bits(self) -> Self::Bits {
        self.to_layout().to_bits()
    }
    #[inline(always)]
    fn from_bits(bits: Self::Bits) -> Option<Self> {
        <T::Layout as Id>::from_bits(bits).map(T::from_layout)
    }
}

/// Displays an id layout as `Id<index bits>_<generation bits>`, e.g. `Id24_8`.
///
/// ```
/// use idtable::{Id24_8, LayoutName};
/// assert_eq!(LayoutName::<Id24_8>::new().to_string(), "Id24_8");
/// ```
pub struct LayoutName<I>(core::marker::PhantomData<I>);

impl<I: Id> LayoutName<I> {
    /// The name of layout `I`.
    ///
    /// ```
    /// use idtable::{Id32, Id32_32, LayoutName};
    /// assert_eq!(format!("{}", LayoutName::<Id32_32>::new()), "Id32_32");
    /// assert_eq!(format!("{}", LayoutName::<Id32<10>>::new()), "Id10_22");
    /// ```
    pub const fn new() -> Self {
        LayoutName(core::marker::PhantomData)
    }
}

impl<I: Id> Default for LayoutName<I> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Id> fmt::Display for LayoutName<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id{}_{}", I::INDEX_BITS, I::GENERATION_BITS)
    }
}

impl<I: Id> fmt::Debug for LayoutName<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Formats an id as `Name(<index>v<generation>)`; used by generated typed ids.
#[doc(hidden)]
pub fn fmt_id<I: Id>(id: I, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{}({}v{})", name, id.index(), id.generation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extremes<I: Id>() {
        let ib = I::INDEX_BITS;
        let max_gen = I::MAX_GENERATION.to_u64();
        assert_eq!(I::INDEX_BITS + I::GENERATION_BITS, I::Bits::BITS);
        assert_eq!(I::MAX_INDEX as u64, (1u64 << ib) - 2);
        assert_eq!(max_gen, (u64::MAX >> (64 - I::GENERATION_BITS)));
        for index in [0u64, 1, I::MAX_INDEX as u64, I::MAX_INDEX as u64 + 1] {
            for generation in [1u64, 2, max_gen - 1, max_gen] {
                if generation == 0 || generation > max_gen {
                    continue; // layouts with one generation bit
                }
                let bits = I::Bits::from_u64_truncating(generation << ib | index);
                let id = I::from_bits(bits).expect("non-zero generation is an id");
                assert_eq!(id.index() as u64, index);
                assert_eq!(id.generation().to_u64(), generation);
                assert_eq!(id.to_bits(), bits);
                assert_eq!(I::from_bits(id.to_bits()), Some(id));
            }
            // generation 0 is never an id
            assert!(I::from_bits(I::Bits::from_u64_truncating(index)).is_none());
        }
        assert!(I::from_bits(I::Bits::from_u64_truncating(0)).is_none());
        assert_eq!(
            core::mem::size_of::<Option<I>>(),
            core::mem::size_of::<I::Bits>()
        );
    }

    #[test]
    fn every_alias_round_trips_at_the_extremes() {
        extremes::<Id16_16>();
        extremes::<Id24_8>();
        extremes::<Id20_12>();
        extremes::<Id32_32>();
        extremes::<Id32<1>>();
        extremes::<Id32<31>>();
        extremes::<Id64<1>>();
        extremes::<Id64<48>>();
        extremes::<Id64<63>>();
    }

    #[test]
    fn alias_constants() {
        assert_eq!(Id16_16::MAX_INDEX, 65_534);
        assert_eq!(Id16_16::MAX_GENERATION, 65_535);
        assert_eq!(Id24_8::MAX_INDEX, 16_777_214);
        assert_eq!(Id24_8::MAX_GENERATION, 255);
        assert_eq!(Id20_12::MAX_INDEX, 1_048_574);
        assert_eq!(Id20_12::MAX_GENERATION, 4_095);
        assert_eq!(Id32_32::MAX_INDEX, 4_294_967_294);
        assert_eq!(Id32_32::MAX_GENERATION, 4_294_967_295);
    }

    #[test]
    fn new_checks_both_parts() {
        assert_eq!(Id24_8::new(5, 3).map(Id::to_bits), Some(0x0300_0005));
        assert!(Id24_8::new(5, 256).is_none());
        assert!(Id24_8::new(1 << 24, 1).is_none());
        assert!(Id24_8::new(5, 0).is_none());
        // the reserved index can be built (it never resolves)
        assert!(Id24_8::new((1 << 24) - 1, 1).is_some());
        assert_eq!(
            Id32_32::new(0, u64::from(u32::MAX)).unwrap().generation(),
            u64::from(u32::MAX)
        );
    }

    #[test]
    fn debug_names_the_layout() {
        let id = Id24_8::new(5, 3).unwrap();
        assert_eq!(format!("{id:?}"), "Id24_8(5v3)");
        assert_eq!(format!("{:?}", Id32_32::new(1, 1).unwrap()), "Id32_32(1v1)");
    }
}
