//! The `DataComponent`: per-entity key/value data in one relocatable buffer.
//!
//! A [`DataComponent`] holds small, arbitrary data for one entity (a character
//! sheet, say) as [`Key`] → [`Value`] pairs, where a value is a `bool`, an `f32`,
//! a string or an `f32` array. Everything lives in **one** contiguous buffer of
//! little-endian 32-bit words without pointers, so a component can be copied
//! with `memcpy`, and its bytes ([`DataComponent::as_bytes`]) are its saved form.
//!
//! ```
//! use idtable::data::{DataComponent, DataError, Key, Value};
//!
//! const HEALTH: Key = Key::path(&["stats", "health"]);
//!
//! let mut sheet = DataComponent::new();
//! sheet.set("name", "The One")?;
//! sheet.set(HEALTH, 100.0_f32)?;
//! sheet.set(Key::path(&["stats", "mana"]), 200.0_f32)?;
//! sheet.set("level", 7)?;
//! sheet.set(Key::new("status_effects").join("drunk"), true)?;
//! sheet.set(Key::new("status_effects").join("delirious"), true)?;
//! assert_eq!(sheet.get(HEALTH), Some(Value::Float(100.0)));
//! assert_eq!(sheet.get_f32(HEALTH), Some(100.0));
//! assert_eq!(sheet.get_i32("level"), Some(7));
//! assert!(sheet.remove("name"));
//!
//! let saved: Vec<u8> = sheet.as_bytes().to_vec();
//! let loaded = DataComponent::from_bytes(&saved)?;
//! assert_eq!(loaded, sheet);
//! assert_eq!(loaded.as_bytes(), &saved[..]);
//! # Ok::<(), DataError>(())
//! ```
//!
//! # The key hash
//!
//! Nested objects are flattened into paths (`stats = { health = 100 }` becomes
//! the path `stats`, `health`), and a path is hashed to 32 bits. The hash is part
//! of the saved format and never changes:
//!
//! * a **segment** (a `&str`) is hashed with 32-bit **FNV-1a** over its UTF-8
//!   bytes: start from the offset basis `0x811c9dc5`, and for each byte
//!   `h = (h ^ byte) * 0x01000193` (wrapping);
//! * a **path** starts at `0x811c9dc5` and takes in each segment, outermost first,
//!   by continuing FNV-1a from the current path hash over the **four
//!   little-endian bytes of the segment's hash**.
//!
//! So `Key::new(s)` is `combine(0x811c9dc5, fnv1a(s))`, `key.join(s)` is
//! `combine(key, fnv1a(s))`, `Key::path(&[a, b])` equals `Key::new(a).join(b)`,
//! and a `.` inside a segment is just a byte: `Key::new("a.b")` is a different
//! key. Pinned values: `fnv1a("a") = 0xe40c292c`, `Key::new("name") =
//! 0xbfa11ba6`, `Key::path(&["stats", "health"]) = 0xefa7583b`,
//! `Key::new("stats.health") = 0xbb8e176b`, `Key::path(&[]) = 0x811c9dc5`.
//! Two different paths can collide (32 bits); they are then the same key.
//!
//! # Byte format
//!
//! Version 2. All fields are little-endian; the buffer is a whole number of
//! 4-byte words and 4-aligned in memory. With `n` entries:
//!
//! | bytes | type | field |
//! | --- | --- | --- |
//! | `0` | `u8` | format version, `2` |
//! | `1` | `u8` | reserved, `0` |
//! | `2..4` | `u16` | `n`, the number of entries |
//! | `4..6` | `u16` | `P`, byte offset where the payload area starts; multiple of 4 |
//! | `6..8` | `u16` | `L`, the total length in bytes (= capacity); multiple of 4, at most [`MAX_BYTES`] |
//! | `8 .. 8+4n` | `u32` × n | keys ([`Key::to_hash`]), all different |
//! | `8+4n .. 8+8n` | `u32` × n | value words (below) |
//! | `8+8n .. 8+9n` | `u8` × n | type tags: `1` bool, `2` float, `3` string, `4` float array, `5` integer |
//! | `8+9n .. H` | | zero padding to `H = 8 + 8n + 4·⌈n/4⌉`, the end of the entry arrays |
//! | `H .. P` | | free space, zero |
//! | `P .. L` | | payload area: strings and float arrays, each starting on a multiple of 4; the bytes between them (padding after a string, holes left by overwritten values) are zero |
//!
//! The three entry arrays are separate (structure of arrays) so that a lookup
//! scans only the keys. Entry `i` is `keys[i]`, `values[i]`, `tags[i]`:
//!
//! | tag | value | value word |
//! | --- | --- | --- |
//! | `1` | bool | `0` or `1` |
//! | `2` | float | the `f32`'s bits |
//! | `3` | string | bits 0–15: byte offset of the UTF-8 bytes; bits 16–31: length in bytes |
//! | `4` | float array | bits 0–15: byte offset of the `f32`s; bits 16–31: number of floats |
//! | `5` | integer | the `i32`'s two's-complement bits |
//!
//! An empty string or array has offset `0` and takes no payload. Limits: the
//! whole buffer is at most [`MAX_BYTES`] (65 532) bytes, which bounds every
//! string, array and entry count; going past it is a [`DataError::TooLarge`].
//!
//! Entries are added at the end of the arrays (the tags and value words shift
//! up a word or two) and removed by moving the last entry into the gap.
//! Payloads are allocated downward from `P`, so header and payload share the
//! free space. A value that no longer fits its slot gets a new one and leaves a
//! zeroed hole. When the free space runs out the buffer is reallocated with the
//! payloads packed at the back (holes reclaimed), at double the size unless the
//! packed contents leave a quarter of the current size free.
//!
//! **Version 1** is the same layout without integers (tag `5` is an error in
//! it). [`DataComponent::from_bytes`] still reads it, as version 2: saving a
//! component loaded from version-1 bytes gives those bytes with byte 0 set to
//! `2`, every other byte unchanged. All other versions are refused.
//!
//! [`DataComponent::as_bytes`] is the buffer itself, free space included
//! ([`DataComponent::shrink_to_fit`] squeezes it out before saving). The
//! unallocated empty component saves as the 8-byte header `02 00 00 00 08 00 08
//! 00`. [`DataComponent::from_bytes`] accepts exactly the byte strings this table
//! describes (from any address: it copies into aligned storage) and keeps them
//! as they are, so saving a loaded version-2 component gives identical bytes.
//!
//! The format is little-endian and floats are read in place, so this module only
//! builds on little-endian targets.

#[cfg(target_endian = "big")]
compile_error!(
    "idtable::data keeps little-endian words and lends f32 arrays in place; \
     big-endian targets are not supported"
);

mod buffer;
mod error;
mod format;
mod key;
mod load;
mod value;
mod words;

pub use buffer::{DataComponent, Iter};
pub use error::DataError;
pub use format::{header_bytes, MAX_BYTES};
pub use key::Key;
pub use value::Value;
