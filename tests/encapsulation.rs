//! Deriving does not widen access. A struct whose private field upholds an
//! `unsafe` invariant stays sound after `#[derive(SoaAllocator)]`: every
//! safe path the derive and the runtime offer another module only ever hands
//! back values the struct's own module made (the ways to forge or read one
//! are compile-fail cases in `ui-tests/tests/ui/`). Generic structs get ids typed by
//! their arguments, asking nothing of them. Runs under Miri in CI.

use std::rc::Rc;

use idtable::{SoaAllocator, SoaStorage};

mod checked {
    /// `i < 4` always: `read` relies on it with an unchecked index.
    #[derive(idtable::SoaAllocator, Debug, Clone, PartialEq)]
    pub struct Idx {
        i: usize,
        pub label: &'static str,
    }

    static TABLE: [u8; 4] = [10, 11, 12, 13];

    impl Idx {
        pub fn new(i: usize, label: &'static str) -> Option<Idx> {
            (i < 4).then_some(Idx { i, label })
        }

        pub fn read(&self) -> u8 {
            // SAFETY: every `Idx` is made by `new`, which checks `i < 4`, and
            // nothing outside this module can write `i`.
            unsafe { *TABLE.get_unchecked(self.i) }
        }
    }
}

use checked::{Idx, IdxAllocator, IdxId};

fn filled() -> (IdxAllocator, Vec<IdxId>) {
    let mut a = IdxAllocator::new();
    let ids = (0..8)
        .map(|n| a.insert(Idx::new(n % 4, "x").unwrap()))
        .collect();
    (a, ids)
}

#[test]
fn every_safe_path_gives_back_only_values_the_module_made() {
    let (mut a, ids) = filled();
    a.insert_with_id(|_| Idx::new(3, "with id").unwrap());
    a.extend([Idx::new(2, "extended").unwrap()]);
    // Views reach the pub field only.
    for (_, row) in a.iter_mut() {
        *row.label = "renamed";
    }
    for label in a.columns_mut().label.iter_mut() {
        *label = "column";
    }
    a.retain(|_, row| *row.label == "column");
    a.sort_by_key(|row| *row.label);
    let copy = a.clone();
    let owned: Vec<Idx> = a.iter().map(|(_, row)| row.to_owned()).collect();
    let removed = a.remove(ids[3]).unwrap();
    let drained: Vec<Idx> = a.drain().map(|(_, v)| v).collect();
    let collected: Vec<Idx> = copy.into_iter().map(|(_, v)| v).collect();
    let reads: Vec<u8> = owned
        .iter()
        .chain([&removed])
        .chain(&drained)
        .chain(&collected)
        .map(Idx::read)
        .collect();
    assert_eq!(reads.len(), 10 + 1 + 9 + 10);
    assert!(reads.iter().all(|r| (10..=13).contains(r)));
}

#[test]
fn a_storage_of_another_modules_struct_holds_only_real_values() {
    let mut s = SoaStorage::<IdxId, Idx>::default();
    let ids: Vec<_> = (0..4)
        .map(|i| s.insert(Idx::new(i, "s").unwrap()))
        .collect();
    assert_eq!(s.remove(ids[1]).map(|v| v.read()), Some(11));
    let rest: Vec<u8> = s.drain().map(|(_, v)| v.read()).collect();
    assert_eq!(rest, [12, 13, 10]); // 13 filled the gap; drained from the last row
}

#[test]
fn debug_shows_pub_fields_only() {
    let (a, ids) = filled();
    let row = a.get(ids[0]).unwrap();
    assert_eq!(format!("{row:?}"), r#"IdxRef { label: "x", .. }"#);
    let shown = format!("{a:?}");
    assert!(shown.contains(r#"IdxRef { label: "x", .. }"#), "{shown}");
    assert!(!shown.contains("i:"), "{shown}");
    assert_eq!(
        format!("{:?}", a.columns()),
        r#"IdxColumns { label: ["x", "x", "x", "x", "x", "x", "x", "x"], .. }"#
    );
}

/// A struct whose own `Debug` hides a field: the allocator does not show it.
#[derive(SoaAllocator)]
pub struct Login {
    pub user: &'static str,
    password: &'static str,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

#[test]
fn debug_never_shows_a_field_the_structs_debug_hides() {
    let mut logins = LoginAllocator::new();
    let id = logins.insert(Login {
        user: "ada",
        password: "hunter2",
    });
    let shown = format!("{logins:?}");
    assert_eq!(
        shown,
        format!(r#"{{{id:?}: LoginRef {{ user: "ada", .. }}}}"#)
    );
    assert!(!shown.contains("hunter2"));
    assert_eq!(logins.remove(id).map(|l| l.password), Some("hunter2"));
}

#[derive(SoaAllocator)]
pub struct Track<T> {
    pub key: T,
}

#[derive(SoaAllocator)]
pub struct Borrowed<'s, const N: usize> {
    pub name: &'s str,
    pub values: [u8; N],
}

fn id_traits<I: Copy + Eq + Ord + std::hash::Hash + std::fmt::Debug + Send + Sync>() {}

#[test]
fn generic_ids_need_nothing_of_their_arguments() {
    // `Rc<()>` is neither `Send`, `Sync`, `Eq` nor `Hash`; the id is all of them.
    id_traits::<TrackId<Rc<()>>>();
    id_traits::<BorrowedId<'static, 3>>();
    let mut tracks = TrackAllocator::<Rc<()>>::new();
    let id = tracks.insert(Track { key: Rc::new(()) });
    let copy = id;
    assert_eq!(copy, id);
    assert_eq!(format!("{id:?}"), "TrackId(0v1)");
}

#[test]
fn generic_ids_differ_by_type_argument() {
    use std::any::TypeId;
    assert_ne!(TypeId::of::<TrackId<u8>>(), TypeId::of::<TrackId<String>>());
    assert_ne!(
        TypeId::of::<BorrowedId<'static, 2>>(),
        TypeId::of::<BorrowedId<'static, 3>>()
    );
    assert_eq!(std::mem::size_of::<TrackId<String>>(), 8);
    assert_eq!(std::mem::size_of::<Option<TrackId<String>>>(), 8);
    let text = String::from("abc");
    let mut b = BorrowedAllocator::<'_, 2>::new();
    let id: BorrowedId<'_, 2> = b.insert(Borrowed {
        name: &text,
        values: [1, 2],
    });
    assert_eq!(*b.get(id).unwrap().name, "abc");
}
