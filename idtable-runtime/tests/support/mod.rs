//! Pieces shared by the data tests: the single-byte corruptions of a saved
//! buffer. (The models are the test kit's, `idtable_test_kit`.)

#![allow(dead_code)] // each test file uses its own part

/// Calls `load` on every copy of `saved` with one byte changed (to 0, 0xFF,
/// and with bits 0, 4 and 7 flipped), at every `step`-th position; returns
/// how many loaded (`Ok`) and how many were refused.
pub fn single_byte_corruptions<E>(
    saved: &[u8],
    step: usize,
    mut load: impl FnMut(&[u8]) -> Result<(), E>,
) -> (usize, usize) {
    let (mut loaded, mut rejected) = (0, 0);
    for at in (0..saved.len()).step_by(step) {
        let original = saved[at];
        for byte in [
            0x00,
            0xFF,
            original ^ 0x01,
            original ^ 0x80,
            original ^ 0x10,
        ] {
            if byte == original {
                continue;
            }
            let mut corrupt = saved.to_vec();
            corrupt[at] = byte;
            match load(&corrupt) {
                Ok(()) => loaded += 1,
                Err(_) => rejected += 1,
            }
        }
    }
    (loaded, rejected)
}
