// A derived allocator's rows, reached through `Container` (what joins use),
// show its private fields no more than the allocator does.
use idtable::join::Container;

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
    let mut small = checked::SmallAllocator::new();
    let id = small.insert(checked::Small::new(1).unwrap());
    let _: &[usize] = Container::rows(&small).columns().i;
    let _ = id;
    for (_, (row,)) in idtable::join((&mut small,)) {
        *row.i = 1 << 20;
    }
}
