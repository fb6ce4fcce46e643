//! Generic structs of every shape `#[derive(SoaAllocator)]` accepts, and
//! each generated item used a little, from generic code with no more bounds
//! than the use needs and from concrete code whose type arguments borrow
//! (not `'static`). CI checks this crate with no feature, `serde`, `rayon`
//! and both: whatever compiles without a feature must compile with it.

#![deny(missing_docs)]

use core::fmt::Debug;

use idtable::{Id24_8, SoaAllocator, SoaMap};

/// Type parameters in plain fields, one with a default (which the
/// generated types do not carry: `PlainAllocator<T, U>`).
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Plain<T, U = u32> {
    /// One value.
    pub value: T,
    /// Several.
    pub values: Vec<T>,
    /// The defaulted one.
    pub count: U,
}

/// Lifetime, type and const parameters, bounds inline and in a where
/// clause without its trailing comma.
#[derive(SoaAllocator, Debug, Clone)]
#[soa(id = Id24_8, min_free = 4)]
#[rustfmt::skip]
pub struct Params<'a, 'b, T: Debug, const N: usize>
where
    T: Clone
{
    /// Borrowed text.
    pub name: &'a str,
    /// A borrowed value.
    pub other: &'b T,
    /// An array in one column.
    pub values: [T; N],
}

/// A lifetime bounded by another, and an unsized type parameter. (Its
/// allocator's `Clone` and `Debug` and its rows' `to_owned` ask
/// `Outlives: Clone` or `Debug` for any two lifetimes, which the bound
/// between them does not give: they are not used here.)
#[derive(SoaAllocator, Debug, Clone)]
pub struct Outlives<'a, 'b: 'a, T: ?Sized> {
    /// Borrowed text.
    pub short: &'a str,
    /// Text that outlives it.
    pub long: &'b T,
}

/// Split arrays of a type parameter: a literal length and a const one.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Split<T, const N: usize> {
    /// Columns `pair[0]`, `pair[1]`.
    #[soa(split)]
    pub pair: [T; 2],
    /// `N` columns.
    #[soa(split)]
    pub many: [T; N],
}

/// Only a split array of a type parameter: no column tells the rows but
/// the hidden one.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct OnlySplit<T, const N: usize> {
    /// `N` columns.
    #[soa(split)]
    pub many: [T; N],
}

/// A generic struct that is only nested.
#[derive(SoaAllocator, Debug, Clone, Copy, PartialEq)]
#[soa(parts_only)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct V2<T> {
    /// Across.
    pub x: T,
    /// Up.
    pub y: T,
}

/// Only a nested generic struct: nothing else names `T`.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Body<T> {
    /// Columns `pos.x`, `pos.y`.
    #[soa(nested)]
    pub pos: V2<T>,
}

/// A nested struct with a lifetime and a type parameter.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(parts_only)]
pub struct Label<'a, T> {
    /// Borrowed text.
    pub text: &'a str,
    /// A tag.
    pub tag: T,
}

/// A nested struct with a lifetime, beside a split array.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Labelled<'a, T> {
    /// Columns `label.text`, `label.tag`.
    #[soa(nested)]
    pub label: Label<'a, T>,
    /// Columns `marks[0]`, `marks[1]`.
    #[soa(split)]
    pub marks: [T; 2],
}

/// A nested struct that only names a lifetime.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(parts_only)]
pub struct Word<'a> {
    /// Borrowed text.
    pub text: &'a str,
}

/// Only a nested struct that names a lifetime.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Words<'a> {
    /// Column `word.text`.
    #[soa(nested)]
    pub word: Word<'a>,
}

/// Nested twice (a struct with an allocator of its own), and a nested
/// struct with a const parameter.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Deep<T, const N: usize> {
    /// `Body`'s columns.
    #[soa(nested)]
    pub body: Body<T>,
    /// `Split`'s columns.
    #[soa(nested)]
    pub split: Split<T, N>,
}

/// Aligned columns: the struct's, a plain field's, a split one's, a nested
/// one's.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(align = 16)]
#[cfg_attr(feature = "serde", soa(serde))]
pub struct Aligned<T> {
    /// A wider column start.
    #[soa(align = 64)]
    pub wide: T,
    /// Columns `pair[0]`, `pair[1]`.
    #[soa(split, align = 32)]
    pub pair: [T; 2],
    /// Columns `pos.x`, `pos.y`.
    #[soa(nested, align = 32)]
    pub pos: V2<T>,
}

/// Uses the generated items of `Split` from generic code: the bounds are
/// the ones the calls need, on `T` (the element of the split arrays).
pub fn split_items<T: Copy + Debug + PartialEq, const N: usize>(
    a: &mut SplitAllocator<T, N>,
    value: Split<T, N>,
) -> usize {
    let id: SplitId<T, N> = a.insert(value);
    let row: SplitRef<'_, T, N> = a.get(id).expect("inserted");
    let owned = row.to_owned();
    let _ = format!("{row:?} {a:?}");
    if let Some(row) = a.get_mut(id) {
        let _: SplitMut<'_, T, N> = row;
    }
    let cols: SplitColumns<'_, T, N> = a.columns();
    let mut rows = cols.len() + cols.chunks(2).count();
    cols.for_each(|r| rows += usize::from(*r.pair[0] == *r.pair[1]));
    let mut cols: SplitColumnsMut<'_, T, N> = a.columns_mut();
    let _ = cols.reborrow().split_at_mut(0);
    cols.for_each(|r| *r.pair[1] = *r.pair[0]);
    let copy = a.clone();
    assert!(copy == *a);
    assert_eq!(a.remove(id).map(|s| s.pair), Some(owned.pair));
    rows + a.iter().count() + a.iter_mut().count()
}

/// Uses the generated items of `Body` from generic code with no bound
/// on `T` but the calls': no `'static`.
pub fn body_items<T: Copy + Debug + PartialEq>(a: &mut BodyAllocator<T>, at: V2<T>) -> usize {
    let id: BodyId<T> = a.insert(Body { pos: at });
    let row: BodyRef<'_, T> = a.get(id).expect("inserted");
    let back = row.to_owned();
    let _ = format!("{row:?} {a:?}");
    let cols: BodyColumns<'_, T> = a.columns();
    let x: &[T] = cols.pos.x;
    let n = x.len() + cols.chunks(1).count();
    let mut cols: BodyColumnsMut<'_, T> = a.columns_mut();
    cols.reborrow().for_each(|r| *r.pos.y = *r.pos.x);
    let _: V2ColumnsMut<'_, T> = cols.pos;
    let mut map: SoaMap<BodyId<T>, V2<T>> = SoaMap::new();
    map.insert(id, back.pos);
    let _ = format!("{map:?}");
    let m = map.iter().count()
        + map
            .get(id)
            .map_or(0, |p: V2Ref<'_, T>| usize::from(p.x == p.y));
    assert_eq!(a.remove(id), Some(back));
    n + m
}

/// Every struct, with type arguments that borrow `text`.
pub fn exercise(text: &str) -> usize {
    let word: &str = &text[..text.len() / 2];
    let mut n = 0;

    let mut plain = PlainAllocator::<&str, u32>::new();
    let id = plain.insert(Plain {
        value: word,
        values: vec![word, text],
        count: 2,
    });
    n += plain
        .get(id)
        .map_or(0, |r| r.values.len() + *r.count as usize);
    let _ = format!("{:?}", plain.clone());

    let value = String::from(word);
    let mut params = ParamsAllocator::<'_, '_, &str, 3>::new();
    let id = params.insert(Params {
        name: text,
        other: &word,
        values: [word; 3],
    });
    n += params.get(id).map_or(0, |r| r.name.len() + r.values.len());
    let copy = params.get(id).map(|r| r.to_owned());
    n += copy.map_or(0, |p| p.other.len() + value.len());

    let mut outlives = OutlivesAllocator::<'_, '_, str>::new();
    let id = outlives.insert(Outlives {
        short: word,
        long: text,
    });
    n += outlives.get(id).map_or(0, |r| r.short.len() + r.long.len());

    let mut split = SplitAllocator::<&str, 3>::new();
    n += split_items(
        &mut split,
        Split {
            pair: [word, text],
            many: [text; 3],
        },
    );
    let mut only = OnlySplitAllocator::<&str, 2>::new();
    let id = only.insert(OnlySplit { many: [word, text] });
    n += only.columns().len() + only.get(id).map_or(0, |r| r.many[1].len());
    let mut none = OnlySplitAllocator::<&str, 0>::new();
    none.insert(OnlySplit { many: [] });
    n += none.columns().len();

    let mut bodies = BodyAllocator::<&str>::new();
    n += body_items(&mut bodies, V2 { x: word, y: text });

    let mut labelled = LabelledAllocator::<'_, &str>::new();
    let id = labelled.insert(Labelled {
        label: Label { text, tag: word },
        marks: [word, word],
    });
    let row: LabelledRef<'_, '_, &str> = labelled.get(id).expect("inserted");
    n += row.label.text.len() + row.to_owned().marks.len();
    let _ = format!("{row:?}");
    let cols = labelled.columns();
    n += cols.label.tag.len() + cols.marks.column(1).len();
    labelled
        .columns_mut()
        .for_each(|r| *r.label.tag = *r.marks[0]);

    let mut words = WordsAllocator::new();
    let id = words.insert(Words {
        word: Word { text: word },
    });
    n += words
        .get(id)
        .map_or(0, |r| r.word.text.len() + r.to_owned().word.text.len());
    let mut tags: SoaMap<WordsId<'_>, Label<'_, &str>> = SoaMap::new();
    tags.insert(id, Label { text, tag: word });
    n += tags.iter().count();

    let mut deep = DeepAllocator::<&str, 1>::new();
    let id = deep.insert(Deep {
        body: Body {
            pos: V2 { x: word, y: text },
        },
        split: Split {
            pair: [word, word],
            many: [text],
        },
    });
    let cols = deep.columns();
    n += cols.body.pos.x.len()
        + cols.split.many.column(0).len()
        + cols.split.pair.column(1).len();
    n += deep.get(id).map_or(0, |r| r.to_owned().split.many.len());

    let mut aligned = AlignedAllocator::<&str>::new();
    let id = aligned.insert(Aligned {
        wide: word,
        pair: [text, word],
        pos: V2 { x: word, y: word },
    });
    n += aligned
        .get(id)
        .map_or(0, |r| r.pos.y.len() + r.pair[0].len());
    let cols = aligned.columns();
    n += cols.wide.len() + cols.pos.x.len();
    n + parallel::exercise(text) + saving::exercise()
}

/// The parallel iterators, from generic code (bounds on the fields' types
/// only) and on borrowing type arguments.
#[cfg(feature = "rayon")]
pub mod parallel {
    use super::*;
    use rayon::prelude::*;

    /// `par_iter` needs the split arrays' element `Sync`, `par_iter_mut`
    /// needs it `Send`: nothing on the struct, nothing `'static`.
    pub fn split_sum<T: Sync + Send + Copy + Into<u64>, const N: usize>(
        a: &mut SplitAllocator<T, N>,
    ) -> u64 {
        a.par_iter_mut().for_each(|(_, r)| *r.pair[1] = *r.pair[0]);
        (&mut *a)
            .into_par_iter()
            .for_each(|(_, r)| *r.pair[0] = *r.pair[1]);
        let by_row: u64 = a.par_iter().map(|(_, r)| (*r.pair[0]).into()).sum();
        let by_ref: u64 = (&*a)
            .into_par_iter()
            .map(|(_, r)| (*r.pair[1]).into())
            .sum();
        a.columns_mut().par_chunks_mut(2).for_each(|c| {
            let [first, second] = c.pair.into_columns();
            first.copy_from_slice(second);
        });
        let chunks = a.columns().par_chunks(2).count() as u64;
        by_row + by_ref + chunks
    }

    /// The same through a nested generic struct.
    pub fn body_sum<T: Sync + Send + Copy + Into<u64>>(a: &mut BodyAllocator<T>) -> u64 {
        a.par_iter_mut().for_each(|(_, r)| *r.pos.y = *r.pos.x);
        (&mut *a)
            .into_par_iter()
            .for_each(|(_, r)| *r.pos.x = *r.pos.y);
        let by_row: u64 = a.par_iter().map(|(_, r)| (*r.pos.x).into()).sum();
        let by_ref: u64 = (&*a).into_par_iter().map(|(_, r)| (*r.pos.y).into()).sum();
        by_row + by_ref + a.columns().par_chunks(1).count() as u64
    }

    /// Every allocator of a borrowing type argument, in parallel.
    pub fn exercise(text: &str) -> usize {
        let word = &text[1..];
        let mut n = 0;
        let mut split = SplitAllocator::<u8, 2>::new();
        split.insert(Split {
            pair: [1, 2],
            many: [3, 4],
        });
        n += split_sum(&mut split) as usize;
        let mut bodies = BodyAllocator::<u16>::new();
        bodies.insert(Body {
            pos: V2 { x: 1, y: 2 },
        });
        n += body_sum(&mut bodies) as usize;

        let mut plain = PlainAllocator::<&str, u32>::new();
        plain.insert(Plain {
            value: word,
            values: vec![text],
            count: 1,
        });
        n += plain.par_iter().map(|(_, r)| r.value.len()).sum::<usize>();
        let mut params = ParamsAllocator::<'_, '_, &str, 1>::new();
        params.insert(Params {
            name: word,
            other: &text,
            values: [word],
        });
        params
            .par_iter_mut()
            .for_each(|(_, r)| *r.name = r.values[0]);
        let mut outlives = OutlivesAllocator::<'_, '_, str>::new();
        outlives.insert(Outlives {
            short: word,
            long: text,
        });
        n += outlives
            .par_iter()
            .map(|(_, r)| r.long.len())
            .sum::<usize>();
        outlives
            .par_iter_mut()
            .for_each(|(_, r)| *r.short = *r.long);
        let mut split = SplitAllocator::<&str, 1>::new();
        split.insert(Split {
            pair: [word, text],
            many: [word],
        });
        split
            .par_iter_mut()
            .for_each(|(_, r)| *r.pair[0] = *r.many[0]);
        n += split
            .par_iter()
            .map(|(_, r)| r.pair[1].len())
            .sum::<usize>();
        let mut only = OnlySplitAllocator::<&str, 1>::new();
        only.insert(OnlySplit { many: [word] });
        n += only
            .par_iter_mut()
            .map(|(_, r)| r.many[0].len())
            .sum::<usize>();
        let mut bodies = BodyAllocator::<&str>::new();
        bodies.insert(Body {
            pos: V2 { x: word, y: text },
        });
        bodies.par_iter_mut().for_each(|(_, r)| *r.pos.x = *r.pos.y);
        n += bodies.par_iter().map(|(_, r)| r.pos.x.len()).sum::<usize>();
        n += (&bodies).into_par_iter().count();
        let mut labelled = LabelledAllocator::<'_, &str>::new();
        labelled.insert(Labelled {
            label: Label { text, tag: word },
            marks: [word, text],
        });
        labelled
            .par_iter_mut()
            .for_each(|(_, r)| *r.label.tag = *r.marks[1]);
        n += labelled
            .par_iter()
            .map(|(_, r)| r.label.text.len())
            .sum::<usize>();
        let mut words = WordsAllocator::new();
        words.insert(Words {
            word: Word { text: word },
        });
        n += words
            .par_iter()
            .map(|(_, r)| r.word.text.len())
            .sum::<usize>();
        n += (&mut words).into_par_iter().count();
        let mut deep = DeepAllocator::<&str, 1>::new();
        deep.insert(Deep {
            body: Body {
                pos: V2 { x: word, y: word },
            },
            split: Split {
                pair: [word, word],
                many: [text],
            },
        });
        deep.par_iter_mut()
            .for_each(|(_, r)| *r.body.pos.x = *r.split.many[0]);
        n += deep.par_iter().count();
        let mut aligned = AlignedAllocator::<&str>::new();
        aligned.insert(Aligned {
            wide: word,
            pair: [word, text],
            pos: V2 { x: text, y: word },
        });
        aligned.par_iter_mut().for_each(|(_, r)| *r.wide = *r.pos.x);
        n += aligned.par_iter().count();
        n += aligned.columns_mut().par_chunks_mut(1).count();
        let mut tags: SoaMap<BodyId<&str>, V2<&str>> = SoaMap::new();
        tags.insert(bodies.ids()[0], V2 { x: word, y: text });
        n += tags.par_iter().count();
        n
    }
}

/// Without `rayon`: nothing to run.
#[cfg(not(feature = "rayon"))]
pub mod parallel {
    /// Nothing to run without `rayon`.
    pub fn exercise(_: &str) -> usize {
        0
    }
}

/// The structs that opt in with `#[soa(serde)]` save and load.
#[cfg(feature = "serde")]
pub mod saving {
    use super::*;

    fn saved<A: serde::Serialize + serde::de::DeserializeOwned>() -> usize {
        core::mem::size_of::<A>()
    }

    fn shown<C: serde::Serialize>(_: C) -> usize {
        1
    }

    /// The allocators of generic structs can be saved and loaded, and
    /// their column views saved, borrowing type arguments included.
    pub fn exercise() -> usize {
        let mut n = saved::<PlainAllocator<u8, u16>>()
            + saved::<SplitAllocator<u16, 3>>()
            + saved::<BodyAllocator<f32>>()
            + saved::<DeepAllocator<u8, 2>>()
            + saved::<AlignedAllocator<u64>>();
        let text = String::from("saved");
        let mut split = SplitAllocator::<&str, 1>::new();
        split.insert(Split {
            pair: [&text, &text],
            many: [&text],
        });
        n += shown(split.columns());
        let mut deep = DeepAllocator::<&str, 1>::new();
        n += shown(deep.columns_mut().as_columns());
        let mut bodies = AlignedAllocator::<f64>::new();
        bodies.insert(Aligned {
            wide: 1.0,
            pair: [2.0, 3.0],
            pos: V2 { x: 4.0, y: 5.0 },
        });
        n + shown(&bodies) + shown(bodies.columns())
    }
}

/// Without `serde`: nothing to run.
#[cfg(not(feature = "serde"))]
pub mod saving {
    /// Nothing to run without `serde`.
    pub fn exercise() -> usize {
        0
    }
}
