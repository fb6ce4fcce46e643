//! Structure-of-arrays allocators with generational ids.
//!
//! `#[derive(SoaAllocator)]` turns a plain struct into an allocator that
//! stores every field in its own dense column and hands out small
//! generational ids that detect stale references.
//!
//! # Quick start
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Particle {
//!     pub pos: [f32; 3],
//!     pub vel: [f32; 3],
//!     pub mass: f32,
//! }
//!
//! let mut particles = ParticleAllocator::new();
//! let a = particles.insert(Particle { pos: [0.0; 3], vel: [1.0; 3], mass: 2.0 });
//! let b = particles.insert(Particle { pos: [5.0; 3], vel: [0.0; 3], mass: 1.0 });
//!
//! // One object, field by field:
//! let p = particles.get(a).unwrap();
//! assert_eq!(*p.mass, 2.0);
//!
//! // Hot loops run over the columns, in dense order:
//! let cols = particles.columns_mut();
//! for (pos, vel) in cols.pos.iter_mut().zip(cols.vel.iter()) {
//!     for k in 0..3 {
//!         pos[k] += vel[k] * 0.5;
//!     }
//! }
//! assert_eq!(particles.get(a).unwrap().pos, &[0.5; 3]);
//!
//! // Removing swaps the last object into the gap; ids stay valid...
//! assert_eq!(particles.remove(a).map(|p| p.mass), Some(2.0));
//! assert_eq!(particles.dense_index(b), Some(0));
//! // ...and a removed id resolves to nothing, even after its slot is reused.
//! let c = particles.insert(Particle { pos: [9.0; 3], vel: [0.0; 3], mass: 3.0 });
//! assert!(particles.get(a).is_none());
//! assert_eq!(c.index(), a.index());
//! assert_ne!(c, a);
//! ```
//!
//! # What the derive generates
//!
//! For `struct Foo` (with `Foo`'s visibility and generics):
//!
//! * `FooId`: the typed id, a [`TypedId`] over the chosen layout (a generic
//!   `Foo<T>` gets `FooId<T>`, so an id of `FooAllocator<u8>` does not
//!   compile with `FooAllocator<String>`);
//! * `FooAllocator`: the allocator, wrapping a [`SoaStorage`];
//! * `FooRef<'a>` / `FooMut<'a>`: one reference per field;
//! * `FooColumns<'a>` / `FooColumnsMut<'a>`: one slice per field.
//!
//! The [`example`] module shows them as rustdoc renders them, for a small
//! `Particle` struct, with every allocator method and an abridged listing of
//! the generated code.
//!
//! The `#[soa(...)]` options (id layout, `min_free`, exhaustion policy,
//! renames, serde) are listed once, with their defaults, on
//! [`SoaAllocator`](derive@SoaAllocator).
//!
//! The generated items give no more access to `Foo` than `Foo` itself does:
//! views and columns carry each field's own visibility, nothing outside
//! `Foo`'s module can build a `Foo` from field values or take one apart, the
//! allocator is `Clone` only if `Foo` is and `Debug` only if `Foo` is, and
//! the views' `Debug` prints only `pub` fields (`..` for the rest). A struct
//! whose private fields uphold an invariant keeps it (see
//! [`guarantees`]).
//!
//! # Choosing an id layout
//!
//! An id is one integer: the index of a slot in the low bits, the slot's
//! generation in the high bits. The index bits bound how many objects can
//! live at once (the all-ones index is reserved, so one less than the bits
//! can count); the generation bits bound how often one slot can be issued.
//! A slot is issued with generations 1, 2, …, [`MAX_GENERATION`](Id::MAX_GENERATION):
//! its first issue and `MAX_GENERATION - 1` reuses. When its last id is
//! freed, the slot retires for good (the default, [`OnExhausted::Retire`])
//! and a fresh index takes its place.
//!
//! | layout | live objects at most (`MAX_INDEX + 1`) | reuses per slot before retire (`MAX_GENERATION - 1`) | bytes per live object, besides its fields |
//! | --- | ---: | ---: | ---: |
//! | [`Id32_32`] (default) | 4,294,967,295 | 4,294,967,294 | 16 |
//! | [`Id20_12`] | 1,048,575 | 4,094 | 8 |
//! | [`Id24_8`] | 16,777,215 | 254 | 8 |
//! | [`Id16_16`] | 65,535 | 65,534 | 8 |
//!
//! Memory per live object is the size of its fields (each column is packed,
//! so there is no padding between fields) plus the id table's share: one
//! slot word and one dense id, the id's size each; spare capacity comes on
//! top, as in a `Vec`. Every slot that is free or retired keeps
//! its slot word (4 or 8 bytes), and a free one also waits in the FIFO queue
//! (4 or 8 more). The ids themselves are 4 or 8 bytes, and `Option` of one is
//! no larger:
//!
//! ```
//! use idtable::{Id, Id16_16, Id20_12, Id24_8, Id32_32, SoaAllocator};
//!
//! // The table above, from the layouts' constants:
//! assert_eq!((Id32_32::MAX_INDEX + 1, Id32_32::MAX_GENERATION - 1), (4_294_967_295, 4_294_967_294));
//! assert_eq!((Id20_12::MAX_INDEX + 1, Id20_12::MAX_GENERATION - 1), (1_048_575, 4_094));
//! assert_eq!((Id24_8::MAX_INDEX + 1, Id24_8::MAX_GENERATION - 1), (16_777_215, 254));
//! assert_eq!((Id16_16::MAX_INDEX + 1, Id16_16::MAX_GENERATION - 1), (65_535, 65_534));
//!
//! #[derive(SoaAllocator)]
//! #[soa(id = idtable::Id24_8)]
//! pub struct Spark {
//!     pub life: f32,
//! }
//! assert_eq!(std::mem::size_of::<Option<SparkId>>(), 4);
//!
//! // One spark removed and re-inserted in a loop: its slot is issued once and
//! // reused 254 times...
//! let mut sparks = SparkAllocator::new();
//! let first = sparks.insert(Spark { life: 1.0 });
//! let mut id = first;
//! for _ in 0..254 {
//!     sparks.remove(id);
//!     id = sparks.insert(Spark { life: 1.0 });
//! }
//! assert_eq!((id.index(), id.generation()), (first.index(), 255));
//! // ...then retires, and the next spark takes a fresh index.
//! sparks.remove(id);
//! let next = sparks.insert(Spark { life: 1.0 });
//! assert_ne!(next.index(), first.index());
//! assert!(sparks.get(first).is_none() && sparks.get(id).is_none());
//! ```
//!
//! The 32-bit layouts halve the id table and the ids stored in other
//! structs, at the price of a slot's lifetime. `min_free = n` buys it back:
//! while fresh indices remain, a freed slot is reused only once `n` freed
//! slots are waiting (oldest first), so a slot is reissued at most once
//! every `n` frees in the whole table, and lasts at least `n × (MAX_GENERATION - 1) + 1` frees before it
//! retires — 260,097 for `Id24_8` with `min_free = 1024`. The cost is up to
//! `n - 1` slots more than the peak number of live objects.
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator)]
//! #[soa(id = idtable::Id24_8, min_free = 4)]
//! pub struct Bullet {
//!     pub pos: [f32; 2],
//! }
//!
//! let mut bullets = BulletAllocator::new();
//! let a = bullets.insert(Bullet { pos: [0.0; 2] });
//! bullets.remove(a);
//! // One freed slot waits, fewer than 4: new bullets take fresh indices.
//! let more: Vec<_> = (0..3).map(|_| bullets.insert(Bullet { pos: [0.0; 2] })).collect();
//! assert!(more.iter().all(|id| id.index() != a.index()));
//! for id in more {
//!     bullets.remove(id);
//! }
//! // Four wait now: the oldest, `a`'s slot, is reused first.
//! assert_eq!(bullets.insert(Bullet { pos: [0.0; 2] }).index(), a.index());
//! ```
//!
//! Pick [`Id32_32`] unless memory for ids matters; then a 32-bit layout with
//! the index bits your peak needs and a `min_free` that makes slots last. The
//! [`guarantees`] page has the arithmetic, and what
//! `on_exhausted = wrap` risks.
//!
//! # Hot loops over columns
//!
//! A derived allocator gives two views of the same data. **Rows**
//! (`get(id)`, `iter()`) hand out one reference per field of one object:
//! right for the odd lookup by id. **Columns** (`columns()`,
//! `columns_mut()`) hand out one slice per field over every live object: a
//! loop over one or two fields reads only those fields' bytes, front to back,
//! and the compiler can vectorise it. Write update loops as zips of the
//! columns they touch:
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Body {
//!     pub pos: [f32; 2],
//!     pub vel: [f32; 2],
//!     pub mass: f32,
//!     pub name: String,
//! }
//!
//! let mut bodies = BodyAllocator::new();
//! let sun = bodies.insert(Body { pos: [0.0, 0.0], vel: [0.0, 0.0], mass: 1000.0, name: "sun".into() });
//! let earth = bodies.insert(Body { pos: [10.0, 0.0], vel: [0.0, 1.0], mass: 1.0, name: "earth".into() });
//! let moon = bodies.insert(Body { pos: [10.5, 0.0], vel: [0.0, 1.0], mass: 0.5, name: "moon".into() });
//!
//! // A row: every field of one object.
//! assert_eq!(bodies.get(earth).unwrap().name, "earth");
//!
//! // A column: one field of every object.
//! let total: f32 = bodies.columns().mass.iter().sum();
//! assert_eq!(total, 1001.5);
//!
//! // An update: zip the columns it reads and writes.
//! let dt = 0.5;
//! let cols = bodies.columns_mut();
//! for (pos, vel) in cols.pos.iter_mut().zip(cols.vel.iter()) {
//!     pos[0] += vel[0] * dt;
//!     pos[1] += vel[1] * dt;
//! }
//! assert_eq!(bodies.get(earth).unwrap().pos, &[10.0, 0.5]);
//!
//! // The same loop over flattened arrays is one straight run of f32s.
//! let cols = bodies.columns_mut();
//! for (p, v) in cols.pos.as_flattened_mut().iter_mut().zip(cols.vel.as_flattened()) {
//!     *p += v * dt;
//! }
//! assert_eq!(bodies.get(moon).unwrap().pos, &[10.5, 1.0]);
//!
//! // `ids()` is parallel to the columns: row `i` belongs to `ids()[i]`.
//! let heaviest = bodies.columns().mass.iter().enumerate()
//!     .max_by(|a, b| a.1.total_cmp(b.1))
//!     .map(|(row, _)| bodies.ids()[row]);
//! assert_eq!(heaviest, Some(sun));
//!
//! // Update rows and note the ids of some, in one pass:
//! // `ids_and_columns_mut()` lends the ids beside the mutable columns.
//! let (ids, cols) = bodies.ids_and_columns_mut();
//! let mut escaped = Vec::new();
//! for ((id, pos), vel) in ids.iter().zip(cols.pos.iter_mut()).zip(cols.vel.iter()) {
//!     pos[1] += vel[1] * 20.0;
//!     if pos[1] > 10.0 {
//!         escaped.push(*id);
//!     }
//! }
//! for id in escaped {
//!     bodies.remove(id); // once the columns are no longer borrowed
//! }
//! assert!(!bodies.contains(earth) && !bodies.contains(moon));
//! ```
//!
//! Columns are packed with no holes, so a loop never tests for a dead
//! object. The price is that **removing changes the dense order**: the last
//! row moves into the gap. Ids do not change, so keep ids, never row
//! numbers, across a remove; `dense_index(id)` gives an object's row now.
//! While a column slice is borrowed the allocator cannot insert or remove
//! (the borrow checker says so), so a slice never sees rows move.
//!
//! After much churn the rows are in no useful order. `sort_by` and
//! `sort_by_key` reorder every column at once (stable) and keep every id
//! valid: sorting by position puts neighbours next to each other in memory,
//! for loops that read nearby objects. Sorting moves every row, so do it now
//! and then, not every frame.
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator)]
//! pub struct Star {
//!     pub pos: [f32; 2],
//!     pub name: &'static str,
//! }
//!
//! let mut stars = StarAllocator::new();
//! let sun = stars.insert(Star { pos: [0.0, 0.0], name: "sun" });
//! let vega = stars.insert(Star { pos: [10.0, 0.0], name: "vega" });
//! let rigel = stars.insert(Star { pos: [10.5, 0.0], name: "rigel" });
//! assert_eq!(stars.ids(), &[sun, vega, rigel]);
//!
//! stars.remove(sun); // the last row, rigel, moves into row 0
//! assert_eq!(stars.ids(), &[rigel, vega]);
//! assert_eq!(stars.dense_index(rigel), Some(0));
//!
//! stars.sort_by(|a, b| a.pos[0].total_cmp(&b.pos[0]));
//! assert_eq!(stars.ids(), &[vega, rigel]);
//! assert_eq!(*stars.get(rigel).unwrap().name, "rigel"); // the id still finds it
//! ```
//!
//! # Ids across tables
//!
//! An id is a small `Copy` value, so one struct refers to another by storing
//! its id in a field. The reference is checked when it is used: once the
//! target is removed, its id resolves to nothing, even after the slot is
//! reused by a new object.
//!
//! ```
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator)]
//! pub struct Ship {
//!     pub name: &'static str,
//!     pub hp: u32,
//! }
//!
//! #[derive(SoaAllocator)]
//! pub struct Missile {
//!     pub target: ShipId,
//!     pub damage: u32,
//! }
//!
//! let mut ships = ShipAllocator::new();
//! let mut missiles = MissileAllocator::new();
//! let scout = ships.insert(Ship { name: "scout", hp: 10 });
//! let carrier = ships.insert(Ship { name: "carrier", hp: 100 });
//! let at_scout = missiles.insert(Missile { target: scout, damage: 4 });
//! missiles.insert(Missile { target: carrier, damage: 4 });
//!
//! // Two columns of one table, lookups by id in the other:
//! let m = missiles.columns();
//! for (&target, &damage) in m.target.iter().zip(m.damage) {
//!     if let Some(ship) = ships.get_mut(target) {
//!         *ship.hp -= damage;
//!     }
//! }
//! assert_eq!(*ships.get(scout).unwrap().hp, 6);
//!
//! // The scout is destroyed and a tanker takes its slot...
//! ships.remove(scout);
//! let tanker = ships.insert(Ship { name: "tanker", hp: 50 });
//! assert_eq!(tanker.index(), scout.index());
//! // ...but the missile's stored id is stale: it finds nothing, not the tanker.
//! let target = *missiles.get(at_scout).unwrap().target;
//! assert!(ships.get(target).is_none());
//!
//! // Drop the missiles whose target is gone.
//! missiles.retain(|_, m| ships.contains(*m.target));
//! assert_eq!(missiles.len(), 1);
//! ```
//!
//! Each struct has its own id type, so passing a `MissileId` where a
//! `ShipId` is expected does not compile:
//!
//! ```compile_fail,E0308
//! # use idtable::SoaAllocator;
//! # #[derive(SoaAllocator)]
//! # pub struct Ship { pub name: &'static str, pub hp: u32 }
//! # #[derive(SoaAllocator)]
//! # pub struct Missile { pub target: ShipId, pub damage: u32 }
//! let mut ships = ShipAllocator::new();
//! let mut missiles = MissileAllocator::new();
//! let scout = ships.insert(Ship { name: "scout", hp: 10 });
//! let missile = missiles.insert(Missile { target: scout, damage: 4 });
//! ships.get(missile); // expected `ShipId`, found `MissileId`
//! ```
//!
//! But an id carries **no instance identity**: it does not know which
//! allocator issued it. Two allocators of the same type can issue the same
//! id, so an id looked up in the wrong one finds whatever that allocator holds
//! under those bits. idtable cannot detect this; it is a bug in the caller.
//! Keep each id with the allocator that issued it, for example by owning
//! related allocators in one struct (slotmap keys behave the same way). The
//! [`guarantees`] page states the scope of the id promises and the test that
//! pins this down.
//!
//! ```
//! # use idtable::SoaAllocator;
//! # #[derive(SoaAllocator)]
//! # pub struct Ship { pub name: &'static str, pub hp: u32 }
//! # #[derive(SoaAllocator)]
//! # pub struct Missile { pub target: ShipId, pub damage: u32 }
//! let mut red = ShipAllocator::new();
//! let mut blue = ShipAllocator::new();
//! let r = red.insert(Ship { name: "red flagship", hp: 100 });
//! let b = blue.insert(Ship { name: "blue flagship", hp: 100 });
//! assert_eq!(r, b); // the same bits
//! assert_eq!(*blue.get(r).unwrap().name, "blue flagship"); // the wrong fleet answers
//! ```
//!
//! # Components keyed by another table's ids: `SoaMap`
//!
//! Some data belongs to only a few objects of a table: a unit may be
//! burning, poisoned or selected. A field of type `Option<Burning>` costs
//! every unit its room; a second allocator plus a `HashMap` back to the unit
//! costs a hash per lookup. A [`SoaMap<UnitId, Burning>`](SoaMap) stores the
//! `Burning` rows of the units that burn, keyed by their `UnitId`s: any
//! derived struct is a component, with no attribute. Its rows are dense
//! columns like an allocator's ([`columns`](Rows::columns) parallel to
//! [`keys`](Rows::keys), swap-remove packed), reached through a paged
//! sparse index from the key's slot index (4 bytes per slot index, in pages,
//! so a few high indices cost a few pages).
//!
//! ```
//! use idtable::{SoaAllocator, SoaMap};
//!
//! #[derive(SoaAllocator)]
//! pub struct Unit { pub hp: i32 }
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Burning { pub dps: i32, pub frames: u32 }
//!
//! let mut units = UnitAllocator::new();
//! let mut burning: SoaMap<UnitId, Burning> = SoaMap::new();
//! let orc = units.insert(Unit { hp: 10 });
//! let elf = units.insert(Unit { hp: 10 });
//! burning.insert(orc, Burning { dps: 3, frames: 2 });
//!
//! // A joined loop: the map's dense columns, the units looked up by key.
//! for _frame in 0..2 {
//!     let (keys, fire) = burning.keys_and_columns_mut();
//!     for ((unit, dps), frames) in keys.iter().zip(fire.dps.iter()).zip(fire.frames.iter_mut()) {
//!         *units.get_mut(*unit).unwrap().hp -= dps;
//!         *frames -= 1;
//!     }
//!     burning.retain(|_, fire| *fire.frames > 0);
//! }
//! assert_eq!((*units.get(orc).unwrap().hp, *units.get(elf).unwrap().hp), (4, 10));
//! assert!(burning.is_empty());
//!
//! // A unit dies with a component left behind; its slot is reused.
//! burning.insert(elf, Burning { dps: 1, frames: 9 });
//! units.remove(elf);
//! let imp = units.insert(Unit { hp: 3 });
//! assert_eq!(imp.index(), elf.index());
//! assert!(burning.get(imp).is_none()); // the imp is not burning
//! burning.retain(|unit, _| units.contains(unit)); // sweep what the dead left
//! assert!(burning.is_empty());
//! ```
//!
//! An entry is found only by the exact key it was inserted with. Inserting
//! with a newer key of the same slot (the slot's next object) replaces a
//! stale entry and returns `None`; inserting with an older key inserts
//! nothing: [`insert`](SoaMap::insert) drops the value, as slotmap's
//! `SecondaryMap` does, and [`try_insert`](SoaMap::try_insert) gives it
//! back. The map has the allocators' methods under std's names (`get`,
//! `get_mut`, `get_disjoint_mut`, `remove`, `contains_key`, `iter`,
//! `iter_mut`, `drain`, `retain`, `sort_by`, `Extend`, `FromIterator`),
//! `serde` for components that opted in with `#[soa(serde)]`, and
//! `par_iter` / `par_iter_mut` with `rayon`. `examples/status_effects.rs`
//! runs a few hundred frames of burning and poisoned units.
//!
//! # Per-entity data: the `DataComponent`
//!
//! Some data does not fit a fixed struct: a character sheet with a name,
//! stats, status effects and an inventory, different for every entity. A
//! [`DataComponent`](data::DataComponent) holds such key/value data (bools,
//! `f32`s, `i32`s, strings, `f32` arrays; nested names flattened into
//! [`Key`](data::Key) paths) in one contiguous buffer of little-endian words
//! without pointers. Put one in a field and every entity has its own sheet,
//! in a column like any other:
//!
//! ```
//! use idtable::data::{DataComponent, DataError, Key, Value};
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! pub struct Npc {
//!     pub pos: [f32; 2],
//!     pub sheet: DataComponent,
//! }
//!
//! const NAME: Key = Key::new("name");
//! const HEALTH: Key = Key::path(&["stats", "health"]);
//! const DRUNK: Key = Key::path(&["status_effects", "drunk"]);
//!
//! let mut sheet = DataComponent::new();
//! sheet.set(NAME, "Innkeeper")?;
//! sheet.set(HEALTH, 40.0_f32)?;
//! sheet.set("inventory_weights", &[1.5_f32, 0.25])?;
//! let mut npcs = NpcAllocator::new();
//! let innkeeper = npcs.insert(Npc { pos: [3.0, 4.0], sheet });
//!
//! // A turn of changes, by key:
//! let npc = npcs.get_mut(innkeeper).unwrap();
//! npc.sheet.set(DRUNK, true)?;
//! npc.sheet.set(HEALTH, 35.0_f32)?;
//! let sheet = npcs.get(innkeeper).unwrap().sheet;
//! assert_eq!(sheet.get_str(NAME), Some("Innkeeper"));
//! assert_eq!(sheet.get_f32s("inventory_weights"), Some(&[1.5, 0.25][..]));
//!
//! // Save: the bytes are the saved form. Load: every byte is checked, and the
//! // sheet comes back equal, saving to the same bytes.
//! let saved: Vec<u8> = sheet.as_bytes().to_vec();
//! let loaded = DataComponent::from_bytes(&saved)?;
//! assert_eq!(&loaded, sheet);
//! assert_eq!(loaded.get(HEALTH), Some(Value::Float(35.0)));
//! assert_eq!(loaded.as_bytes(), &saved[..]);
//!
//! // Corrupt or hostile bytes are an error, never a panic.
//! assert_eq!(DataComponent::from_bytes(&saved[..5]), Err(DataError::Truncated { len: 5 }));
//! let mut forged = saved.clone();
//! forged[2] = 0xff; // claims far more entries than the buffer holds
//! assert!(DataComponent::from_bytes(&forged).is_err());
//! for i in 0..saved.len() {
//!     let mut flipped = saved.clone();
//!     flipped[i] ^= 0x5a;
//!     // Whatever loads is consistent: it saves back to exactly these bytes.
//!     if let Ok(sheet) = DataComponent::from_bytes(&flipped) {
//!         assert_eq!(sheet.as_bytes(), &flipped[..]);
//!     }
//! }
//! # Ok::<(), DataError>(())
//! ```
//!
//! The byte format and the key hash are fixed and documented in
//! [`data`], so saved sheets load on every platform and version. With the
//! `serde` feature, the allocator saves whole, sheets included (next
//! section).
//!
//! A sheet per entity is one allocation per entity. For thousands of
//! entities, a [`DataMap`](data::DataMap) keyed by their ids keeps every
//! sheet in **one** buffer, each growing and shrinking on its own, with the
//! same getters; its bytes are the saved form of all of them, written and
//! read in one go (the `entity_data` example does that through a file:
//! `cargo run --example entity_data`):
//!
//! ```
//! use idtable::data::{DataError, DataMap, Key, KeyNames};
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator)]
//! pub struct Unit {
//!     pub pos: [f32; 2],
//! }
//!
//! const HEALTH: Key = Key::path(&["stats", "health"]);
//! let mut units = UnitAllocator::new();
//! let mut sheets: DataMap<UnitId> = DataMap::new();
//! for i in 0..100 {
//!     let u = units.insert(Unit { pos: [i as f32, 0.0] });
//!     sheets.set(u, HEALTH, 100.0_f32)?;
//!     sheets.set(u, "level", 1 + i % 10)?; // integers: Value::Int
//! }
//! let u = units.ids()[7];
//! sheets.set(u, "name", "Innkeeper")?;
//! assert_eq!(sheets.entity(u).unwrap().len(), 3);
//!
//! let saved = sheets.as_bytes().to_vec();
//! let loaded = DataMap::<UnitId>::from_bytes(&saved)?;
//! assert_eq!(loaded.get_i32(u, "level"), Some(8));
//!
//! // Stale ids find nothing, even when the table reuses the slot.
//! units.remove(u);
//! let newcomer = units.insert(Unit { pos: [0.0; 2] });
//! assert_eq!(sheets.get_str(newcomer, "name"), None);
//!
//! // Keys are hashes; a KeyNames table shows them by name.
//! let names = KeyNames::new().with(&["stats", "health"]).with(&["level"]).with(&["name"]);
//! let shown = format!("{:?}", names.debug(loaded.entity(u).unwrap()));
//! assert!(shown.contains("stats.health: Float(100.0)"), "{shown}");
//! # Ok::<(), DataError>(())
//! ```
//!
//! # Saving and loading (serde)
//!
//! With the `serde` feature, a struct opts in with `#[soa(serde)]` (the
//! derive cannot see your crate's features, so it asks; without the feature
//! the option is a compile error that names it). Every field must implement
//! `Serialize` and `DeserializeOwned`; a field that does not is reported on
//! that field. The allocator is saved as its id table and one sequence per
//! field, in dense order:
//!
//! ```json
//! { "table": { "slots": [1, 2], "dense": [1], "free": [0] },
//!   "columns": { "pos": [[2.0, 0.0]], "mass": [1.0] } }
//! ```
//!
//! `slots` holds each slot's generation, `dense` the slot of each live
//! object, `free` the freed slots in queue order (see [`IdTableParts`]). The
//! [`TableConfig`] is not saved: it belongs to the type. In binary formats
//! (postcard, bincode: `is_human_readable()` is false) each of the three
//! lists is one byte string instead of a sequence: empty for an empty list,
//! else a byte giving the width `w` (1, 2, 4 or 8) and each number in `w`
//! little-endian bytes, `w` the fewest its largest number needs. That is
//! about as small as varints, and a list loads in one loop over its bytes.
//!
#![cfg_attr(feature = "serde", doc = "```")]
#![cfg_attr(not(feature = "serde"), doc = "```ignore")]
//! use idtable::SoaAllocator;
//!
//! #[derive(SoaAllocator, Debug, Clone, PartialEq)]
//! #[soa(serde, id = idtable::Id24_8)]
//! pub struct Body {
//!     pub pos: [f32; 2],
//!     pub mass: f32,
//! }
//!
//! let mut bodies = BodyAllocator::new();
//! let gone = bodies.insert(Body { pos: [0.0; 2], mass: 1.0 });
//! let kept = bodies.insert(Body { pos: [2.0, 0.0], mass: 1.0 });
//! bodies.remove(gone);
//!
//! let text = serde_json::to_string(&bodies).unwrap();
//! let mut loaded: BodyAllocator = serde_json::from_str(&text).unwrap();
//!
//! assert_eq!(loaded.get(kept).unwrap().pos, &[2.0, 0.0]); // ids stay valid
//! assert!(loaded.get(gone).is_none());                    // stale ids stay stale
//! let next = Body { pos: [0.0; 2], mass: 3.0 };
//! assert_eq!(loaded.insert(next.clone()), bodies.insert(next)); // same free queue
//!
//! // Ids are their bits, so they can be saved anywhere:
//! assert_eq!(serde_json::to_string(&kept).unwrap(), kept.to_bits().to_string());
//!
//! // Input that would break the allocator is an error, never a panic:
//! let err = serde_json::from_str::<BodyAllocator>(
//!     r#"{"table":{"slots":[1],"dense":[0,0],"free":[]},"columns":{"pos":[],"mass":[]}}"#,
//! ).unwrap_err();
//! assert!(err.to_string().contains("slot 0 is listed twice"));
//! ```
//!
//! Loading checks everything before a single row is built: generations in
//! range and never 0, every slot live, queued or retired exactly once, no
//! queued slot that would restart its generations under
//! [`OnExhausted::Retire`], one value per live id in every column, no
//! unknown or missing field. The errors are [`PartsError`]s, passed to the
//! format as its custom error. [`DataComponent`](data::DataComponent) fields
//! save as their bytes and are checked by `from_bytes` on the way in.
//!
//! The runtime's types serialize too: [`Id32`]/[`Id64`] as their bits,
//! [`IdTable`] as its [`IdTableParts`] (deserialized with the default
//! [`TableConfig`]; for another one, deserialize [`IdTableParts`] and call
//! [`IdTable::from_parts`]), and the columns view `FooColumns` as one
//! sequence per field.
//!
//! # Parallel loops (rayon)
//!
//! With the `rayon` feature every derived allocator has `par_iter()` and
//! `par_iter_mut()`, indexed parallel iterators over `(FooId, FooRef)` /
//! `(FooId, FooMut)` in dense order (they exist when every field is `Sync` /
//! `Send`). Column loops need nothing from idtable: `columns_mut()` gives
//! plain slices, and rayon's slice iterators split them.
//!
#![cfg_attr(feature = "rayon", doc = "```")]
#![cfg_attr(not(feature = "rayon"), doc = "```ignore")]
//! use idtable::SoaAllocator;
//! use rayon::prelude::*;
//!
//! #[derive(SoaAllocator)]
//! pub struct Body { pub pos: [f32; 2], pub vel: [f32; 2] }
//!
//! let mut bodies: BodyAllocator =
//!     (0..10_000).map(|i| Body { pos: [0.0; 2], vel: [i as f32, 1.0] }).collect();
//!
//! // Over the columns: only the fields the loop needs.
//! let cols = bodies.columns_mut();
//! cols.pos.par_iter_mut().zip(cols.vel.par_iter()).for_each(|(p, v)| {
//!     p[0] += v[0] * 0.5;
//!     p[1] += v[1] * 0.5;
//! });
//!
//! // Over the rows, with their ids:
//! let fast: Vec<BodyId> = bodies
//!     .par_iter()
//!     .filter(|(_, b)| b.vel[0] > 9_000.0)
//!     .map(|(id, _)| id)
//!     .collect();
//! assert_eq!(fast.len(), 999);
//! assert_eq!(bodies.get(fast[0]).unwrap().pos[0], 9_001.0 * 0.5);
//! ```
//!
//! The module `idtable::par` (built with the feature) has the details. On a
//! 2-core machine the row loop ran 1.7–1.9× the serial speed at 1M objects
//! when the data was in cache and gained nothing when it came from memory;
//! below 100k objects the threads cost more than they save. `BENCHMARKS.md`
//! has the run and its command.
//!
//! # Comparison
//!
//! * **slotmap** (`SlotMap`, `DenseSlotMap`, secondary maps):
//!   generational keys with the same promise that a stale key finds nothing,
//!   over values stored whole, one struct after another. Pick it when code
//!   mostly works with whole values by key, when values are large or of
//!   varied shape, or when secondary maps keyed by the same keys fit the
//!   design; it is mature and widely used, idtable is new.
//! * **soa_derive**: generates structure-of-arrays vectors (one `Vec` per
//!   field) with slices and reference types for a struct, but no ids: an
//!   element is named by its index, which changes when elements are removed.
//!   Pick it when indices are enough (data built once, or rebuilt each
//!   frame). idtable adds the generational id table and keeps all columns in
//!   one allocation with one length.
//! * **An ECS** (hecs, bevy_ecs): entities with any set of components,
//!   queries across component types, archetype storage, and in bevy
//!   scheduling and parallel systems. Pick one when many kinds of entity
//!   share overlapping sets of components and code is organised as systems
//!   over queries. idtable is one table of one struct, with no runtime type
//!   lookups: a building block to keep a large number of one kind of object
//!   (particles, bullets, units) and loop over its fields; a [`SoaMap`]
//!   adds one component type keyed by a table's ids (an ECS's sparse set),
//!   joined by hand, with no queries.
//! * **idtable** fits one kind of object in large numbers, hot loops over a
//!   few of its fields, and stable handles to single objects, with
//!   `no_std` + `alloc` support.
//!
//! Speed is measured, not assumed: `BENCHMARKS.md` in the repository runs
//! idtable against slotmap, thunderdome, `HashMap`, soa_derive and raw `Vec`
//! columns in one criterion run, with the command, the machine and the date,
//! and marks each target met or missed. Read it for which operations are
//! faster or slower and by how much; in its recorded run, column loops ran at
//! the speed of raw `Vec` columns, and single inserts and removes cost less
//! than `DenseSlotMap`'s and more than `SlotMap`'s (which keeps each value in
//! its slot).
//!
//! # Guarantees
//!
//! See [`guarantees`]: every id resolves to its own object or to nothing,
//! never to another; a worn-out slot retires (or wraps, if asked); a full
//! table gives the value back; `DataComponent::from_bytes` never panics on
//! hostile bytes; a panic in user code leaves the allocator consistent.
//!
//! # Crates and features
//!
//! Everything here is re-exported from `idtable-runtime` (ids, [`IdTable`],
//! [`columns`], [`SoaStorage`], [`SoaMap`], [`data`]) and `idtable-derive`.
//!
//! * `std` (default): links `std`. Without it (`default-features = false`)
//!   idtable and all generated code are `#![no_std]` and need only `alloc`.
//! * `serde`: `Serialize`/`Deserialize` for ids, [`IdTable`],
//!   [`DataComponent`](data::DataComponent), and allocators and
//!   [`SoaMap`]s of structs marked `#[soa(serde)]`. Works without `std`.
//! * `rayon`: parallel iterators on every derived allocator and every
//!   [`SoaMap`] (implies `std`).

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

/// `#[derive(SoaAllocator)]` on a struct `Foo` with named fields generates
/// `FooId`, `FooAllocator`, `FooRef`, `FooMut`, `FooColumns` and
/// `FooColumnsMut`: the [`example`] module shows them as rustdoc renders
/// them, the [crate guide](crate) explains how to use them.
///
/// The options of `#[soa(...)]`, each optional (this is the one list of
/// them):
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug, Clone, PartialEq)]
/// #[soa(
///     id = idtable::Id24_8,  // the id layout (default `Id32_32`)
///     min_free = 64,         // reuse a freed slot once 64 are waiting (default 0)
///     on_exhausted = retire, // or `wrap` (default `retire`)
///     allocator = Flock,     // instead of `BirdAllocator`
///     id_type = BirdHandle,  // instead of `BirdId`
///     crate = idtable,       // the path to idtable, for crates that re-export it
/// )]
/// // and `#[soa(serde)]`: Serialize/Deserialize, with the `serde` feature
/// // (see "Saving and loading" in the crate guide).
/// pub struct Bird {
///     pub pos: [f32; 2],
///     pub name: String,
/// }
///
/// let mut flock = Flock::new();
/// let robin: BirdHandle = flock.insert(Bird { pos: [0.0, 1.0], name: "robin".into() });
/// let r: BirdRef<'_> = flock.get(robin).unwrap();
/// assert_eq!(r.name, "robin");
/// assert_eq!(r.to_owned(), Bird { pos: [0.0, 1.0], name: "robin".into() });
/// assert_eq!(std::mem::size_of::<BirdHandle>(), 4);
/// ```
pub use idtable_derive::SoaAllocator;
pub use idtable_runtime::*;

#[cfg(any(doc, test))]
pub mod example;

/// Crates and switches the generated code reaches through `idtable`, so the
/// user's crate needs no direct dependency on them. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use alloc::vec::Vec;
    #[cfg(feature = "rayon")]
    pub use rayon;
    #[cfg(feature = "serde")]
    pub use serde;
}

/// Expands the `Serialize`/`Deserialize` impls of a `#[soa(serde)]` struct,
/// or explains which feature is missing. Not public API.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_serde {
    ($($items:tt)*) => { $($items)* };
}

/// Expands the `Serialize`/`Deserialize` impls of a `#[soa(serde)]` struct,
/// or explains which feature is missing. Not public API.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_serde {
    ($($items:tt)*) => {
        ::core::compile_error!(
            "`#[soa(serde)]` needs the `serde` feature of idtable: \
             `idtable = { version = \"0.1\", features = [\"serde\"] }`"
        );
    };
}

/// Expands the parallel iterators of a derived allocator when the `rayon`
/// feature is on, and nothing otherwise. Not public API.
#[cfg(feature = "rayon")]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_rayon {
    ($($items:tt)*) => { $($items)* };
}

/// Expands the parallel iterators of a derived allocator when the `rayon`
/// feature is on, and nothing otherwise. Not public API.
#[cfg(not(feature = "rayon"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __soa_rayon {
    ($($items:tt)*) => {};
}

/// What idtable promises — ids, exhaustion, full tables, hostile bytes, panic
/// safety, `unsafe` — and the test behind each promise.
///
/// The first promises, in a few lines:
///
/// ```
/// use idtable::SoaAllocator;
///
/// #[derive(SoaAllocator, Debug, PartialEq)]
/// #[soa(id = idtable::Id32<2>)] // 3 usable indices, 2^30 - 1 issues per slot
/// pub struct Token {
///     pub n: u32,
/// }
///
/// let mut tokens = TokenAllocator::new();
/// let a = tokens.insert(Token { n: 1 });
/// tokens.remove(a);
/// let b = tokens.insert(Token { n: 2 }); // reuses `a`'s slot
/// assert_eq!(b.index(), a.index());
/// assert!(tokens.get(a).is_none()); // stale: nothing, not `b`'s object
///
/// // Any bits: the object they were issued for, or nothing.
/// for bits in 0..1024 {
///     if let Some(token) = TokenId::from_bits(bits).and_then(|id| tokens.get(id)) {
///         assert_eq!((bits, *token.n), (b.to_bits(), 2));
///     }
/// }
///
/// // A full table gives the value back and stays as it was.
/// tokens.insert(Token { n: 3 });
/// tokens.insert(Token { n: 4 });
/// let err = tokens.try_insert(Token { n: 5 }).unwrap_err();
/// assert_eq!(err.into_inner(), Token { n: 5 });
/// assert_eq!(tokens.len(), 3);
/// ```
///
#[doc = include_str!("../GUARANTEES.md")]
pub mod guarantees {}

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
