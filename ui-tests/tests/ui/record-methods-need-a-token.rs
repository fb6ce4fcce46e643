// Another module (or crate) cannot build a struct from raw field values,
// take one apart, or name made-up values as a view: every `Record` method
// takes a `RecordToken`, which only idtable's runtime can create.
use idtable::Record;

mod checked {
    /// Invariant: `i < 4`, upheld by `Small::new`.
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
    let _forged = <checked::Small as Record>::from_values(1 << 20, idtable::RecordToken::new());
    let small = checked::Small::new(1).unwrap();
    let _raw: usize = small.into_values(idtable::RecordToken::new());
}
