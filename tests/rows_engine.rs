//! The table type (`idtable::Rows`) as both of its forms show it: a
//! `SoaStorage` (and the derived allocator, a name for one) and a `SoaMap`
//! give the same answers for the same rows, and a struct that borrows is
//! stored, read, written and removed from like any other.

use idtable::{Container, Rows, SoaAllocator, SoaMap, SoaStorage};

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

/// A table and a map of labels borrowing from `words`, a local that is not
/// `'static`: every call that takes no closure over a row works on them.
/// (`retain`, `extract_if` and the sorts hand their closure the row's view,
/// and a closure over the view of a borrowing struct is refused by the
/// compiler: the rows are selected by `iter` and removed by `remove_many`.)
fn borrowed_labels(words: &[String]) -> Vec<(u32, String)> {
    let mut labels = LabelAllocator::new();
    let mut marks: SoaMap<LabelId<'_>, Label<'_>> = SoaMap::new();
    for (rank, word) in words.iter().enumerate() {
        let label = Label {
            text: word,
            rank: rank as u32,
        };
        let id = labels.insert(label);
        marks.insert(
            id,
            Label {
                text: word,
                rank: 0,
            },
        );
    }
    let short: Vec<_> = labels
        .iter()
        .filter(|(_, l)| l.text.len() <= 1)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(labels.remove_many(short.iter().copied()), 1);
    assert_eq!(marks.remove_many(short), 1);
    for (_, label) in labels.iter_mut() {
        *label.rank += 100;
    }
    let first = labels.ids()[0];
    *marks.get_mut(first).unwrap().rank = 7;
    assert_eq!(*marks.get(first).unwrap().rank, 7);
    labels.check_invariants();
    marks.check_invariants();
    let mut out: Vec<_> = labels
        .drain()
        .map(|(_, label)| (label.rank, label.text.to_string()))
        .collect();
    out.sort();
    out
}

#[test]
fn a_table_and_a_map_of_a_borrowing_struct() {
    let words: Vec<String> = ["b", "ccc", "aa", "dd"].map(String::from).to_vec();
    assert_eq!(
        borrowed_labels(&words),
        [
            (101, "ccc".to_string()),
            (102, "aa".to_string()),
            (103, "dd".to_string())
        ]
    );
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
            assert!(a.iter().map(|(k, _)| k).eq(b.iter().map(|(k, _)| k)));
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
