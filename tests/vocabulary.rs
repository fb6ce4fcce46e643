//! One word for each thing: tables name their rows by ids, maps by keys,
//! and every container's methods are its own, so calls by path compile and
//! an inherent method is never shadowed by a trait's method of the same
//! name. (`ui-tests/tests/ui/one-word-per-list.rs` holds the other half:
//! no container answers to the other word.)

use idtable::{SoaAllocator, SoaMap, SoaStorage};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
pub struct Unit {
    pub hp: u32,
}

/// A trait a user may have in scope, with names the containers also have.
trait Sized2 {
    fn len(&self) -> usize {
        usize::MAX
    }
    fn is_empty(&self) -> bool {
        true
    }
}
impl Sized2 for SoaMap<UnitId, f32> {}
// `UnitAllocator` is a name for `SoaStorage<UnitId, Unit>`: one impl.
impl Sized2 for UnitAllocator {}

#[test]
fn a_map_answers_by_path_and_to_keys() {
    let mut units = UnitAllocator::new();
    let a = units.insert(Unit { hp: 1 });
    let b = units.insert(Unit { hp: 2 });
    let mut speed: SoaMap<UnitId, f32> = SoaMap::new();
    SoaMap::insert(&mut speed, b, 2.5);
    SoaMap::insert(&mut speed, a, 1.5);
    assert_eq!(SoaMap::len(&speed), 2);
    assert!(!SoaMap::is_empty(&speed));
    assert_eq!(SoaMap::keys(&speed), &[b, a]);
    assert!(SoaMap::contains_key(&speed, a));
    assert_eq!(SoaMap::get(&speed, a), Some(&1.5));
    // The inherent methods win over the trait in scope.
    assert_eq!(speed.len(), 2);
    assert!(!speed.is_empty());
    assert_eq!(Sized2::len(&speed), usize::MAX);
    assert!(Sized2::is_empty(&speed));
}

#[test]
fn a_storage_and_an_allocator_answer_by_path_and_to_ids() {
    let mut storage = SoaStorage::<UnitId, Unit>::default();
    let a = SoaStorage::insert(&mut storage, Unit { hp: 7 });
    assert_eq!(SoaStorage::len(&storage), 1);
    assert_eq!(SoaStorage::ids(&storage), &[a]);
    assert_eq!(SoaStorage::id_table(&storage).len(), 1);
    assert_eq!(storage.len(), 1);
    assert!(!storage.is_empty());

    let mut units = UnitAllocator::new();
    let b = UnitAllocator::insert(&mut units, Unit { hp: 8 });
    assert_eq!(UnitAllocator::len(&units), 1);
    assert_eq!(UnitAllocator::ids(&units), &[b]);
    assert_eq!(UnitAllocator::id_table(&units).len(), 1);
    assert_eq!(units.len(), 1);
    assert!(!units.is_empty());
    let (ids, columns) = units.ids_and_columns_mut();
    assert_eq!(ids, &[b]);
    columns.hp[0] += 1;
    assert_eq!(units.get(b).map(|u| *u.hp), Some(9));
}
