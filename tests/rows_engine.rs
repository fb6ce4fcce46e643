//! The dense-rows engine (`idtable::Rows`) as both of its containers show
//! it: a `SoaStorage` (and the derived allocator over it) and a `SoaMap`
//! give the same answers for the same rows, and every engine method takes a
//! struct that borrows (`retain` and the sorts do not force `'static`).

use idtable::{Container, RowMut, RowRef, Rows, SoaAllocator, SoaMap, SoaStorage};

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: i32,
}

/// A struct that borrows: its rows live no longer than the text.
#[derive(SoaAllocator, Debug, PartialEq)]
pub struct Label<'t> {
    pub text: &'t str,
    pub rank: u32,
}

/// Runs the engine's methods on a map of labels borrowing from `words`, a
/// local that is not `'static`.
fn map_of_borrowed_labels(words: &[String]) -> Vec<(u32, String)> {
    let mut units = UnitAllocator::new();
    let mut labels: SoaMap<UnitId, Label<'_>> = SoaMap::new();
    for (rank, word) in words.iter().enumerate() {
        let unit = units.insert(Unit { hp: 1 });
        labels.insert(
            unit,
            Label {
                text: word,
                rank: rank as u32,
            },
        );
    }
    labels.retain(|_, label| label.text.len() > 1);
    labels.sort_by(|a, b| a.text.cmp(b.text));
    labels.sort_by_key(|label| std::cmp::Reverse(*label.rank));
    // Writing through the row needs a `mut` binding (`RowMut` derefs to
    // `LabelMut` mutably).
    labels.retain(|_, mut label| {
        *label.rank += 100;
        true
    });
    // The view itself, by name, through `into_inner`.
    labels.retain(|_, label: RowMut<'_, Label<'_>>| {
        let view: LabelMut<'_, '_> = label.into_inner();
        *view.rank >= 100
    });
    assert_eq!(labels.len(), 3);
    labels.check_invariants();
    labels
        .iter()
        .map(|(_, label)| (*label.rank, label.text.to_string()))
        .collect()
}

#[test]
fn a_soa_map_of_a_borrowing_struct_retains_and_sorts() {
    let words: Vec<String> = ["b", "ccc", "aa", "dd"].map(String::from).to_vec();
    assert_eq!(
        map_of_borrowed_labels(&words),
        [
            (103, "dd".to_string()),
            (102, "aa".to_string()),
            (101, "ccc".to_string())
        ]
    );
}

#[test]
fn a_storage_and_an_allocator_of_a_borrowing_struct_retain_and_sort() {
    let words: Vec<String> = ["x", "yy", "zzz"].map(String::from).to_vec();
    let mut storage = SoaStorage::<LabelId<'_>, Label<'_>>::default();
    let mut allocator = LabelAllocator::new();
    for (rank, word) in words.iter().enumerate() {
        let a = storage.insert(Label {
            text: word,
            rank: rank as u32,
        });
        let b = allocator.insert(Label {
            text: word,
            rank: rank as u32,
        });
        assert_eq!(a, b);
    }
    storage.retain(|_, label| *label.rank != 1);
    allocator.retain(|_, label| *label.rank != 1);
    storage.sort_by_key(|label: RowRef<'_, Label<'_>>| std::cmp::Reverse(*label.rank));
    allocator.sort_by_key(|label| std::cmp::Reverse(*label.rank));
    assert_eq!(storage.ids(), allocator.ids());
    assert_eq!(storage.columns().text, &["zzz", "x"]);
    assert_eq!(allocator.columns().text, &["zzz", "x"]);
    storage.check_invariants();
    allocator.check_invariants();
}

/// The same rows in a table and in a map keyed by the table's ids: every
/// engine method answers alike.
#[test]
fn a_table_and_a_map_of_the_same_rows_answer_alike() {
    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    pub struct Point {
        pub x: i32,
        pub y: i32,
    }

    let mut table = SoaStorage::<PointId, Point>::default();
    let mut map: SoaMap<PointId, Point> = SoaMap::new();
    let mut ids = Vec::new();
    for n in 0..40 {
        let point = Point { x: n, y: n % 7 };
        let id = table.insert(point.clone());
        map.insert(id, point);
        ids.push(id);
    }
    for &id in ids.iter().step_by(3) {
        assert_eq!(table.remove(id), map.remove(id));
    }

    macro_rules! same {
        ($a:expr, $b:expr) => {{
            let (a, b): (&Rows<_, Point>, &Rows<_, Point>) =
                (Container::rows(&$a), Container::rows(&$b));
            assert_eq!(a.keys(), b.keys());
            assert_eq!(a.columns().x, b.columns().x);
            assert_eq!(a.columns().y, b.columns().y);
            a.check_invariants();
            b.check_invariants();
        }};
    }

    same!(table, map);
    table.retain(|_, p| *p.x % 2 == 0);
    map.retain(|_, p| *p.x % 2 == 0);
    same!(table, map);
    table.sort_by(|a, b| a.y.cmp(b.y).then(b.x.cmp(a.x)));
    map.sort_by(|a, b| a.y.cmp(b.y).then(b.x.cmp(a.x)));
    same!(table, map);
    let pair = [table.ids()[0], table.ids()[3]];
    let [p, q] = table.get_disjoint_mut(pair).unwrap();
    std::mem::swap(p.x, q.x);
    let [p, q] = map.get_disjoint_mut(pair).unwrap();
    std::mem::swap(p.x, q.x);
    same!(table, map);
    assert!(table.get_disjoint_mut([pair[0], pair[0]]).is_none());
    assert!(map.get_disjoint_mut([pair[0], pair[0]]).is_none());
    let removed = [ids[1], ids[3], ids[0]];
    assert_eq!(table.remove_many(removed), map.remove_many(removed));
    same!(table, map);
    for &id in &ids {
        assert_eq!(table.get(id).map(|p| *p.x), map.get(id).map(|p| *p.x));
        assert_eq!(table.dense_index(id), map.dense_index(id));
    }
    let drained_table: Vec<_> = table.drain().collect();
    let drained_map: Vec<_> = map.into_iter().collect();
    assert_eq!(drained_table, drained_map);
    assert!(table.is_empty());
}

/// `extract_if` removes exactly what `retain` would, yields each removed
/// row once with its key, leaves every other key finding its row, and stops
/// where the caller stops.
#[test]
fn extract_if_removes_what_retain_would_and_yields_it() {
    #[derive(SoaAllocator, Debug, Clone, PartialEq)]
    pub struct Point {
        pub x: i32,
        pub name: String,
    }

    let mut allocator = PointAllocator::new();
    let mut map: SoaMap<PointId, Point> = SoaMap::new();
    let mut ids = Vec::new();
    for n in 0..200 {
        let p = Point {
            x: (n * 37) % 11,
            name: n.to_string(),
        };
        let id = allocator.insert(p.clone());
        map.insert(id, p);
        ids.push(id);
    }
    let mut kept_by_retain = allocator.clone();
    kept_by_retain.retain(|_, p| *p.x >= 4);

    let mut out: Vec<(PointId, Point)> = allocator.extract_if(|_, p| *p.x < 4).collect();
    let mut out_map: Vec<(PointId, Point)> = map.extract_if(|_, p| *p.x < 4).collect();
    out.sort_by_key(|(id, _)| *id);
    out_map.sort_by_key(|(id, _)| *id);
    assert_eq!(out, out_map);
    assert_eq!(out.len() + allocator.len(), 200);
    for (id, p) in &out {
        assert!(p.x < 4 && p.name == ids.iter().position(|i| i == id).unwrap().to_string());
        assert!(!allocator.contains(*id) && !map.contains_key(*id));
    }
    let mut left: Vec<PointId> = allocator.ids().to_vec();
    let mut want: Vec<PointId> = kept_by_retain.ids().to_vec();
    left.sort();
    want.sort();
    assert_eq!(left, want);
    for &id in &left {
        assert_eq!(
            allocator.get(id).map(|p| p.name.clone()),
            kept_by_retain.get(id).map(|p| p.name.clone())
        );
        assert_eq!(map.get(id).map(|p| *p.x), allocator.get(id).map(|p| *p.x));
    }
    allocator.check_invariants();
    map.check_invariants();

    // Stopped early: only what it yielded is gone.
    let before = allocator.len();
    let first: Vec<_> = allocator.extract_if(|_, _| true).take(3).collect();
    assert_eq!((first.len(), allocator.len()), (3, before - 3));
    allocator.check_invariants();
}

/// `extract_if` takes a struct that borrows.
#[test]
fn extract_if_of_a_borrowing_struct() {
    let words: Vec<String> = ["a", "bb", "ccc"].map(String::from).to_vec();
    let mut labels = LabelAllocator::new();
    for (rank, word) in words.iter().enumerate() {
        labels.insert(Label {
            text: word,
            rank: rank as u32,
        });
    }
    let long: Vec<&str> = labels
        .extract_if(|_, l| l.text.len() > 1)
        .map(|(_, l)| l.text)
        .collect();
    assert_eq!(long.len(), 2);
    assert_eq!(labels.columns().text, &["a"]);
}
