// A `SoaStorage` of someone else's struct shows its private fields no more
// than the struct does: no raw column buffer, and views keep each field's
// visibility.
use idtable::SoaStorage;

mod checked {
    #[derive(idtable::SoaAllocator)]
    pub struct Small {
        i: usize,
    }

    impl Small {
        pub fn new(i: usize) -> Option<Small> {
            (i < 4).then_some(Small { i })
        }
    }
}

fn main() {
    let mut storage = SoaStorage::<checked::SmallId, checked::Small>::default();
    let id = storage.insert(checked::Small::new(1).unwrap());
    let _ = storage.column_buffer();
    let _: &[usize] = storage.columns().i;
    *storage.get_mut(id).unwrap().i = 1 << 20;
}
