// `par_iter()` shares rows between threads: every field must be `Sync`.
// A `Cell` field is `Send` but not `Sync`, so `par_iter_mut()` is there and
// `par_iter()` is not.

use std::cell::Cell;

use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Counter {
    hits: Cell<u32>,
    name: String,
}

fn main() {
    let mut counters = CounterAllocator::new();
    let _ = counters.par_iter_mut();
    let _ = counters.par_iter();
}
