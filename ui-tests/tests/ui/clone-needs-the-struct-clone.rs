// Fields that are `Clone` do not make the allocator `Clone`, nor let a row be
// copied out with `to_owned()`: the struct itself must be `Clone`.
mod checked {
    /// One of a kind: deliberately not `Clone`, though its field is.
    #[derive(idtable::SoaAllocator)]
    pub struct Ticket {
        pub seat: u32,
    }
}

fn main() {
    let mut tickets = checked::TicketAllocator::new();
    let id = tickets.insert(checked::Ticket { seat: 7 });
    let _copy = tickets.get(id).unwrap().to_owned();
    let _all = tickets.clone();
}
