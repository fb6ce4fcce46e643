//! The atomics of id reservation (`table/reserve.rs`), swappable for
//! loom's under `cfg(loom)` so that `tests/loom.rs` can explore every
//! interleaving of the reserving threads.
//!
//! Ordinary builds use `core`'s atomics, unchanged. Under `cfg(loom)`,
//! [`AtomicUsize`] wraps loom's, which has no `get_mut`: the wrapper lends
//! the value through a guard that stores it back (checked by loom to happen
//! after every other access), and loom's atomics cannot be built in const
//! context, so the `const fn`s that build a table are plain `fn`s there
//! (`const_fn!`).

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::Ordering;
#[cfg(loom)]
pub(crate) use loom_atomics::AtomicUsize;

/// Declares a `const fn` that is a plain `fn` under `cfg(loom)`, where the
/// table's atomics cannot be built in const context.
macro_rules! const_fn {
    ($(#[$attr:meta])* $vis:vis const fn $($item:tt)*) => {
        #[cfg(not(loom))]
        $(#[$attr])* $vis const fn $($item)*
        #[cfg(loom)]
        $(#[$attr])* $vis fn $($item)*
    };
}
pub(crate) use const_fn;

#[cfg(loom)]
mod loom_atomics {
    use core::ops::{Deref, DerefMut};

    /// loom's `AtomicUsize`, with the `get_mut` of `core`'s.
    #[derive(Debug)]
    pub(crate) struct AtomicUsize(loom::sync::atomic::AtomicUsize);

    impl AtomicUsize {
        pub(crate) fn new(v: usize) -> Self {
            AtomicUsize(loom::sync::atomic::AtomicUsize::new(v))
        }

        /// The value, through exclusive access.
        pub(crate) fn get_mut(&mut self) -> GetMut<'_> {
            let value = self.0.with_mut(|v| *v);
            GetMut {
                atomic: &mut self.0,
                value,
            }
        }
    }

    impl Deref for AtomicUsize {
        type Target = loom::sync::atomic::AtomicUsize;

        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }

    /// The value of an [`AtomicUsize`] lent by `get_mut`; stored back when
    /// dropped.
    pub(crate) struct GetMut<'a> {
        atomic: &'a mut loom::sync::atomic::AtomicUsize,
        value: usize,
    }

    impl Deref for GetMut<'_> {
        type Target = usize;

        fn deref(&self) -> &usize {
            &self.value
        }
    }

    impl DerefMut for GetMut<'_> {
        fn deref_mut(&mut self) -> &mut usize {
            &mut self.value
        }
    }

    impl Drop for GetMut<'_> {
        fn drop(&mut self) {
            let value = self.value;
            self.atomic.with_mut(|v| *v = value);
        }
    }
}
