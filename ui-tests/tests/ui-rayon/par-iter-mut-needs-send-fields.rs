// `par_iter_mut()` hands rows to other threads: every field must be `Send`.
// An `Rc` field is neither `Send` nor `Sync`: no parallel iterator at all.

use std::rc::Rc;

use idtable::SoaAllocator;

#[derive(SoaAllocator)]
struct Shared {
    owner: Rc<str>,
}

fn main() {
    let mut shared = SharedAllocator::new();
    let _ = shared.par_iter_mut();
    let _ = shared.par_iter();
}
