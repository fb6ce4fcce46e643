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
//! free space. A value that no longer fits its span gets a new one and leaves a
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
//! # Many entities in one buffer: `DataMap`
//!
//! A game has thousands of entities, each with a little data; a
//! [`DataComponent`] each would be thousands of allocations. A
//! [`DataMap<K>`](DataMap) keeps the data of every entity, keyed by the ids
//! `K` of another table, in **one** buffer of words, with offsets only, so
//! the whole map can be copied with `memcpy`, and its compact bytes
//! ([`DataMap::to_bytes`], through `&`) are its saved form:
//!
//! ```
//! use idtable::data::{DataMap, DataError, Key};
//! use idtable::{IdTable, Id32_32};
//!
//! const HEALTH: Key = Key::path(&["stats", "health"]);
//! let mut units = IdTable::<Id32_32>::new();
//! let mut sheets: DataMap<Id32_32> = DataMap::new();
//! for i in 0..1000 {
//!     let (u, _) = units.insert();
//!     sheets.set(u, HEALTH, 100.0_f32)?;
//!     sheets.set(u, "level", i % 50)?;
//! }
//! let saved = sheets.to_bytes(); // one write: the buffer, borrowed
//! let loaded = DataMap::<Id32_32>::from_bytes(&saved)?; // one read
//! assert_eq!(loaded, sheets);
//!
//! sheets.remove(units.ids()[0]); // leaves a hole
//! let saved = sheets.to_bytes(); // without it: a copy of the other regions
//! assert!(saved.len() < sheets.as_bytes().len());
//! assert_eq!(DataMap::<Id32_32>::from_bytes(&saved)?, sheets);
//! # Ok::<(), DataError>(())
//! ```
//!
//! **Blocks.** Each entity's data is a *block*: a buffer laid out exactly
//! like a [`DataComponent`]'s (the table above, version 2), followed by the
//! entity's id. Inside its block an entity's data grows and shrinks as a
//! component's does (header up from the front, payloads down from the back),
//! a key lookup scans only that entity's keys, and reads borrow from the
//! map's buffer. Saved blocks are checked by the same code as saved
//! components, and [`DataMap::to_component`] is a copy of the block.
//!
//! **Allocation inside the buffer.** Blocks are allocated at the free end of
//! the buffer, one after another, each exactly as large as its contents
//! (a block has no spare room of its own: the free end of the buffer is the
//! spare room of all of them). When a `set` needs more room than the block
//! has, the block is rebuilt, packed, at the free end, and its old place
//! becomes a *hole* of zero words; a block that is already the last one is
//! rebuilt in place instead, leaving no hole. A `remove_key` that leaves a
//! block less than half full moves it into an exact block the same way, and
//! `remove` turns the entity's whole region into a hole. So a `set` that
//! grows an entity costs a copy of that entity (its size), never of the map.
//!
//! **Fragmentation and compaction.** The holes are the only fragmentation:
//! once they pass a quarter of the buffer, the map compacts, sliding every
//! block down over the holes in one pass (cost: the buffer's size, paid
//! after a quarter of it was freed, so amortised over the frees). Holes are
//! therefore at most a quarter of the buffer. They are never saved:
//! [`DataMap::to_bytes`] (and the `serde` impls) copy the regions around
//! them when there are any, through `&self`, and
//! [`DataMap::shrink_to_fit`] squeezes them out of the buffer itself. The
//! buffer grows by a sixteenth of its size when its free end runs out.
//!
//! Why this scheme: entity data is small and changes rarely compared with
//! how often it is read, so packed blocks (no per-block slack, the best
//! memory use) and moving a block when it grows (a copy of one small block)
//! beat size classes or a buddy allocator, which round every block up to a
//! class and so waste a quarter to a half of it, for no gain in the common
//! read path.
//!
//! **Ids.** The map stores each entity's full id next to its block and
//! resolves an id through a paged array indexed by the id's slot index (not
//! saved; rebuilt on load), then compares the stored id with the given one:
//! an entity's data answers only to the exact id it was set with. Setting
//! data for a newer id of the same slot index drops the stale data; setting it for
//! an older one is a [`DataError::StaleId`]. Slot indices go up to
//! `u32::MAX`.
//!
//! **Map format**, version 1, little-endian words:
//!
//! | words | field |
//! | --- | --- |
//! | `0` | byte 0: map format version, `1`; byte 1: words per id, `1` (32-bit ids) or `2` (64-bit ids); byte 2: index bits of the id type; byte 3: `0` |
//! | `1` | `u32`: number of entities `m` |
//! | `2 ..` | `m` regions and any number of holes, in any order, to the end |
//!
//! A *region* is a block (a whole [`DataComponent`] buffer of version 2, its
//! length `L` in its own header) followed by the entity's id
//! ([`Id::to_bits`](crate::Id::to_bits), low word first): `L / 4 + 1` or
//! `L / 4 + 2` words. A *hole* is a zero word; a block never starts with
//! one (its first byte is its version). [`DataMap::from_bytes`] walks the
//! regions and holes from word 2 to the end and refuses anything else:
//! another version or id layout, a block that
//! [`DataComponent::from_bytes`] would refuse (or of version 1), an id with
//! generation 0 or a slot index past `u32::MAX`, two ids with the same slot
//! index, a count that differs from the regions found. What it accepts it
//! keeps as it is, holes included, so [`DataMap::as_bytes`] of a loaded
//! map gives identical bytes, and so does [`DataMap::to_bytes`] when the
//! input had no holes (the form `to_bytes` writes). An empty map saves as
//! its 8-byte header. A map built by edits saves in the order its blocks
//! were placed; two maps with the same contents can have different bytes.
//!
//! **serde** (feature `serde`): binary formats (postcard…) save a map as its
//! compact bytes ([`DataMap::to_bytes`]), checked by [`DataMap::from_bytes`]
//! on the way in. Human-readable formats (JSON…) save a map from id bits to
//! each entity's data, a map from key hashes (`"0x5953e0d5"`) to plain
//! values (`true`, `1.5`, `3`, `"text"`, `[1.0, 2.0]`); saved through
//! [`DataMap::named`] with a [`KeyNames`] table, keys it knows are written
//! by name (`"stats.health"`). Loading takes either key form back (a text
//! other than `0x` and 8 hex digits is a path of `.`-separated segments;
//! [`NamedMap`] gives the rules) and sets each value again, so the
//! contents survive, not the byte layout. A [`DataComponent`] saves as its
//! bytes in every format.
//!
//! # Little-endian targets only
//!
//! The saved form is little-endian words, and reads lend strings and `f32`
//! arrays straight from the buffer (`&str`, `&[f32]`), so the buffer holds
//! the saved bytes as they are. On a big-endian target that would need a
//! byte swap on every read and copies instead of borrows, so this module
//! (with its `serde` impls) is compiled only where `target_endian =
//! "little"`. On big-endian targets `idtable::data` does not exist; ids,
//! tables, derived allocators and `SoaMap` build and work there as
//! everywhere.

#![cfg(target_endian = "little")]

mod component;
mod edit;
mod error;
mod format;
mod index;
mod key;
mod load;
mod map;
mod named;
mod names;
#[cfg(feature = "serde")]
mod serde;
mod value;
mod view;
mod words;

pub use component::DataComponent;
pub use error::DataError;
pub use format::{header_bytes, MAX_BYTES};
pub use key::Key;
pub use map::{DataMap, MapIter};
pub use named::NamedMap;
pub use names::{KeyNames, ShowData, ShowKey};
pub use value::Value;
pub use view::{DataRef, Iter};
