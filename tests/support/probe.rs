//! Probes: values that count their drops in a per-thread ledger, and whose
//! drop or clone can be made to panic once (the trigger disarms itself as
//! it fires, since a panic while unwinding aborts).

use std::cell::{Cell, RefCell};

thread_local! {
    /// Drop count of every probe made on this thread, by serial.
    pub static LEDGER: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// The serial whose next drop panics (once).
    pub static BOOM_ON_DROP: Cell<Option<usize>> = const { Cell::new(None) };
    /// The serial whose next clone panics (once).
    pub static BOOM_ON_CLONE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// A value with a serial number and a drop counter in the ledger.
#[derive(Debug)]
pub struct Probe {
    pub serial: usize,
    pub value: u32,
}

impl Probe {
    pub fn new(value: u32) -> Probe {
        let serial = LEDGER.with(|l| {
            let mut l = l.borrow_mut();
            l.push(0);
            l.len() - 1
        });
        Probe { serial, value }
    }
}

impl Clone for Probe {
    fn clone(&self) -> Probe {
        if BOOM_ON_CLONE.with(|b| b.get()) == Some(self.serial) {
            BOOM_ON_CLONE.with(|b| b.set(None));
            panic!("clone of probe {} panics", self.serial);
        }
        Probe::new(self.value)
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        LEDGER.with(|l| l.borrow_mut()[self.serial] += 1);
        if BOOM_ON_DROP.with(|b| b.get()) == Some(self.serial) {
            BOOM_ON_DROP.with(|b| b.set(None));
            panic!("drop of probe {} panics", self.serial);
        }
    }
}

pub fn drops_of(serial: usize) -> u32 {
    LEDGER.with(|l| l.borrow()[serial])
}

pub fn arm_drop(serial: usize) {
    BOOM_ON_DROP.with(|b| b.set(Some(serial)));
}

pub fn arm_clone(serial: usize) {
    BOOM_ON_CLONE.with(|b| b.set(Some(serial)));
}
