//! The derive accepts every struct shape the crate docs promise: generics of
//! every kind, raw identifiers, zero-sized and over-aligned fields, wide
//! structs, fields that are neither `Clone` nor `Debug`, renamed types and
//! a renamed facade crate.

use core::fmt::Debug;
use core::marker::PhantomData;
use idtable::{Id, SoaAllocator};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct Generic<'x, T: Clone + Debug, const N: usize>
where
    T: PartialEq,
{
    name: &'x str,
    values: [T; N],
}

/// A where clause whose last predicate has no trailing comma (rustfmt
/// adds one; hand-written and generated code often does not).
#[rustfmt::skip]
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
struct WhereNoComma<T> where T: Clone + Debug + PartialEq { pub value: T }

#[test]
fn where_clause_without_a_trailing_comma() {
    let mut a = WhereNoCommaAllocator::<u8>::new();
    let id = a.insert(WhereNoComma { value: 7 });
    assert_eq!(
        format!("{a:?}"),
        format!("{{{id:?}: WhereNoCommaRef {{ value: 7 }}}}")
    );
    assert_eq!(a.clone().remove(id), Some(WhereNoComma { value: 7 }));
}

#[test]
fn generic_struct_with_lifetime_type_and_const_parameters() {
    let text = String::from("abc");
    let mut a = GenericAllocator::<'_, u8, 2>::new();
    let id = a.insert(Generic {
        name: &text[..1],
        values: [1, 2],
    });
    let r = a.get(id).unwrap();
    assert_eq!(*r.name, "a");
    assert_eq!(r.values, &[1, 2]);
    assert_eq!(
        r.to_owned(),
        Generic {
            name: "a",
            values: [1, 2]
        }
    );
    assert_eq!(a.columns().values, &[[1, 2]]);
    let b = a.clone();
    assert_eq!(format!("{b:?}"), format!("{a:?}"));
}

#[derive(SoaAllocator)]
struct Keywords {
    pub r#type: u32,
    pub r#match: bool,
}

#[test]
fn raw_identifier_fields_keep_their_names() {
    let mut a = KeywordsAllocator::new();
    let id = a.insert(Keywords {
        r#type: 7,
        r#match: true,
    });
    let r = a.get(id).unwrap();
    assert_eq!((*r.r#type, *r.r#match), (7, true));
    assert_eq!(a.columns().r#type, &[7]);
    assert!(format!("{:?}", a.get(id).unwrap()).contains("type: 7"));
}

#[repr(align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct CacheLine([u8; 64]);

#[derive(SoaAllocator, Debug, Clone)]
struct Odd {
    unit: (),
    marker: PhantomData<u64>,
    line: CacheLine,
    byte: u8,
}

#[test]
fn zero_sized_and_over_aligned_fields() {
    let mut a = OddAllocator::new();
    let ids: Vec<_> = (0..10u8)
        .map(|i| {
            a.insert(Odd {
                unit: (),
                marker: PhantomData,
                line: CacheLine([i; 64]),
                byte: i,
            })
        })
        .collect();
    a.remove(ids[2]);
    let cols = a.columns();
    assert_eq!(cols.line.as_ptr() as usize % 64, 0);
    assert_eq!(cols.unit.len(), 9);
    assert_eq!(cols.marker.len(), 9);
    for (i, id) in a.ids().iter().enumerate() {
        assert_eq!(cols.line[i].0[0], cols.byte[i]);
        assert_eq!(a.get(*id).unwrap().byte, &cols.byte[i]);
    }
    a.check_invariants();
}

#[derive(SoaAllocator)]
struct OnlyZeroSized {
    a: (),
    b: [u32; 0],
}

#[test]
fn only_zero_sized_fields() {
    let mut a = OnlyZeroSizedAllocator::new();
    let ids: Vec<_> = (0..100)
        .map(|_| a.insert(OnlyZeroSized { a: (), b: [] }))
        .collect();
    assert!(a.remove(ids[50]).is_some());
    assert!(a.remove(ids[50]).is_none());
    assert_eq!(a.len(), 99);
    a.check_invariants();
}

#[derive(SoaAllocator, Default)]
struct Empty {}

#[test]
fn struct_without_fields() {
    let mut a = EmptyAllocator::new();
    let id = a.insert(Empty {});
    assert!(a.contains(id));
    assert!(a.remove(id).is_some());
    assert!(!a.contains(id));
}

macro_rules! wide {
    ($($f:ident),*) => {
        #[derive(SoaAllocator, Debug, Clone, Default, PartialEq)]
        struct Wide { $($f: u64,)* }
        fn wide(seed: u64) -> Wide {
            let mut n = seed;
            Wide { $($f: { n += 1; n },)* }
        }
        fn wide_sum(r: &WideRef<'_>) -> u64 { 0 $(+ *r.$f)* }
    };
}
wide!(
    f00, f01, f02, f03, f04, f05, f06, f07, f08, f09, f10, f11, f12, f13, f14, f15, f16, f17, f18,
    f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37,
    f38, f39, f40, f41
);

#[test]
fn wide_struct_of_forty_two_fields() {
    let mut a = WideAllocator::new();
    let ids: Vec<_> = (0..50).map(|i| a.insert(wide(i * 100))).collect();
    a.remove(ids[0]);
    let r = a.get(ids[49]).unwrap();
    assert_eq!(r.to_owned(), wide(4900));
    assert_eq!(wide_sum(&r), (4901..=4942).sum::<u64>());
    assert_eq!(a.columns().f41[0], 4900 + 42);
    a.check_invariants();
}

struct Opaque(u32); // neither Clone nor Debug

#[derive(SoaAllocator)]
struct HasOpaque {
    inner: Opaque,
}

#[test]
fn fields_without_clone_or_debug_still_derive() {
    let mut a = HasOpaqueAllocator::new();
    let id = a.insert(HasOpaque { inner: Opaque(3) });
    assert_eq!(a.get(id).unwrap().inner.0, 3);
    assert_eq!(a.remove(id).map(|h| h.inner.0), Some(3));
}

/// A generic struct mixing fields that depend on its parameters, two
/// lifetimes among them, with concrete ones: `&'a T` and `&'b T` must not
/// make two clashing bounds, nor `&'a Opaque` force every borrow the views
/// print to live for `'a`.
#[derive(SoaAllocator, Debug)]
struct Mixed<'a, 'b, T: Debug> {
    pub label: &'a T,
    pub values: Vec<T>,
    pub opaque: Opaque,
    pub borrowed: &'a Opaque,
    pub other: &'b T,
    pub nested: &'a &'b u8,
}

impl Debug for Opaque {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Opaque")
    }
}

/// `true` when `T: Debug`, decided at the call site's concrete type
/// (autoref: the inherent-looking method on `Probe` wins when it applies).
struct Probe<T>(PhantomData<T>);
trait ProbeDebug {
    fn is_debug(&self) -> bool {
        true
    }
}
impl<T: Debug> ProbeDebug for Probe<T> {}
trait ProbeOther {
    fn is_debug(&self) -> bool {
        false
    }
}
impl<T> ProbeOther for &Probe<T> {}

struct Plain(u8); // no Debug

#[derive(SoaAllocator)]
struct Holds<T> {
    pub value: T,
    pub count: u32,
}

#[test]
// The explicit borrow is what lets `ProbeOther` answer when `ProbeDebug`
// does not apply.
#[allow(clippy::needless_borrow)]
fn bounds_follow_the_generic_arguments() {
    let (text, other) = (5u8, 6u8);
    let nested = &other;
    let mut a = MixedAllocator::<u8>::new();
    let id = a.insert(Mixed {
        label: &text,
        values: vec![1, 2],
        opaque: Opaque(1),
        borrowed: &Opaque(2),
        other: &other,
        nested: &nested,
    });
    assert_eq!(
        format!("{:?}", a.get(id).unwrap()),
        "MixedRef { label: 5, values: [1, 2], opaque: Opaque, borrowed: Opaque, \
         other: 6, nested: 6 }"
    );
    assert_eq!(format!("{:?}", a.columns().other), "[6]");
    // `HoldsRef<T>` is `Debug` exactly when `T` is.
    assert!((&Probe::<HoldsRef<'_, u8>>(PhantomData)).is_debug());
    assert!(!(&Probe::<HoldsRef<'_, Plain>>(PhantomData)).is_debug());
    assert!(!(&Probe::<HoldsAllocator<u8>>(PhantomData)).is_debug());
    let mut h = HoldsAllocator::new();
    let id = h.insert(Holds {
        value: Plain(4),
        count: 1,
    });
    assert_eq!(h.get(id).unwrap().value.0, 4);
}

#[derive(SoaAllocator)]
#[soa(allocator = Pool, id_type = Handle, id = idtable::Id20_12, on_exhausted = wrap)]
pub struct Renamed {
    pub x: i32,
}

#[test]
fn renamed_types_and_layout() {
    let mut pool = Pool::new();
    let h: Handle = pool.insert(Renamed { x: 1 });
    assert_eq!(<Handle as Id>::INDEX_BITS, 20);
    assert_eq!(h.generation(), 1u32);
    assert_eq!(core::mem::size_of::<Option<Handle>>(), 4);
    assert_eq!(
        pool.id_table().config().on_exhausted,
        idtable::OnExhausted::Wrap
    );
}

mod facade {
    pub use idtable as reexported;
}

#[derive(SoaAllocator)]
#[soa(crate = facade::reexported)]
struct ThroughReexport {
    v: u8,
}

#[derive(SoaAllocator)]
#[soa(crate = "facade::reexported")]
struct ThroughStringPath {
    v: u8,
}

#[test]
fn crate_path_override() {
    let mut a = ThroughReexportAllocator::new();
    let id = a.insert(ThroughReexport { v: 9 });
    assert_eq!(*a.get(id).unwrap().v, 9);
    let mut b = ThroughStringPathAllocator::new();
    let id = b.insert(ThroughStringPath { v: 8 });
    assert_eq!(*b.get(id).unwrap().v, 8);
}

#[test]
fn default_layout_is_id32_32() {
    let mut a = KeywordsAllocator::new();
    let id = a.insert(Keywords {
        r#type: 0,
        r#match: false,
    });
    assert_eq!(<KeywordsId as Id>::INDEX_BITS, 32);
    assert_eq!(<KeywordsId as Id>::GENERATION_BITS, 32);
    assert_eq!(core::mem::size_of::<KeywordsId>(), 8);
    assert_eq!(core::mem::size_of::<Option<KeywordsId>>(), 8);
    assert_eq!(format!("{id:?}"), "KeywordsId(0v1)");
}
