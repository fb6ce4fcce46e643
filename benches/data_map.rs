//! `DataMap` (every entity's data in one buffer) against a
//! `HashMap<UnitId, DataComponent>` and a `Vec<DataComponent>` indexed by
//! the ids' slot index: 10,000 entities with 1 and with 8 keys each.
//!
//! * heap bytes and allocations after building (printed, not timed), from a
//!   counting global allocator: live bytes requested, allocation calls
//!   (`alloc` and `realloc`) made while building, and live allocations;
//! * `get`: one key of each entity, entities in a seeded random order;
//!   beside them, the same keys read from one standalone `DataComponent`
//!   (the key scan alone, always in cache);
//! * `grow_one`: one entity gains 16 keys and loses them again, in maps of
//!   10,000 entities with 8 or 64 keys and of 100,000 entities with 8 keys
//!   (the cost should follow the entity's size, not the map's);
//! * `save_load`: the whole map to bytes and back (`to_bytes` + `from_bytes`)
//!   against serde with postcard for the `HashMap` and the `Vec`.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench data_map`.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use idtable::data::{DataComponent, DataMap, Key, Value};
use idtable::SoaAllocator;

mod support;
use support::{heap_of, order, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

// ----- the workload -----

/// The entities: ids from a derived allocator (layout `Id32_32`).
#[derive(SoaAllocator)]
#[soa(serde)]
pub struct Unit {
    pub x: f32,
}

/// Key `k` of a sheet and entity `n`'s value for it: a character sheet's
/// mix of floats, integers, a bool, strings and a float array.
fn entry(k: usize, n: usize) -> (Key, Value<'static>) {
    const NAMES: [&str; 4] = ["Aria", "Brann", "Cato the Elder", "Dwyn"];
    const TITLES: [&str; 2] = ["of the North", "keeper of the eastern gate"];
    match k {
        0 => (
            Key::path(&["stats", "health"]),
            Value::Float(100.0 - n as f32 % 7.0),
        ),
        1 => (Key::new("level"), Value::Int((n % 50) as i32)),
        2 => (Key::new("name"), Value::Str(NAMES[n % 4])),
        3 => (Key::path(&["stats", "mana"]), Value::Float(n as f32)),
        4 => (Key::new("drunk"), Value::Bool(n % 3 == 0)),
        5 => (Key::new("gold"), Value::Int(n as i32 * 3)),
        6 => (Key::new("pos"), Value::Floats(&[1.0, 2.0, 3.0])),
        _ => (Key::new("title"), Value::Str(TITLES[n % 2])),
    }
}

fn weigh(value: Value<'_>) -> f32 {
    match value {
        Value::Bool(b) => f32::from(u8::from(b)),
        Value::Float(x) => x,
        Value::Int(x) => x as f32,
        Value::Str(s) => s.len() as f32,
        Value::Floats(xs) => xs.first().copied().unwrap_or(0.0),
    }
}

fn unit_ids(n: usize) -> Vec<UnitId> {
    let mut units = UnitAllocator::new();
    (0..n).map(|i| units.insert(Unit { x: i as f32 })).collect()
}

fn sheet(keys: usize, n: usize) -> DataComponent {
    let mut sheet = DataComponent::new();
    for k in 0..keys {
        let (key, value) = entry(k, n);
        sheet.set(key, value).unwrap();
    }
    sheet
}

fn build_map(ids: &[UnitId], keys: usize) -> DataMap<UnitId> {
    let mut map = DataMap::new();
    for (n, &id) in ids.iter().enumerate() {
        for k in 0..keys {
            let (key, value) = entry(k, n);
            map.set(id, key, value).unwrap();
        }
    }
    map
}

fn build_hashmap(ids: &[UnitId], keys: usize) -> HashMap<UnitId, DataComponent> {
    ids.iter()
        .enumerate()
        .map(|(n, &id)| (id, sheet(keys, n)))
        .collect()
}

/// Indexed by the ids' slot index (a fresh table issues 0..n).
fn build_vec(ids: &[UnitId], keys: usize) -> Vec<DataComponent> {
    (0..ids.len()).map(|n| sheet(keys, n)).collect()
}

const ENTITIES: usize = 10_000;
const KEYS: [usize; 2] = [1, 8];

/// Prints heap bytes and allocations of each design (not timed).
fn report_heap(_: &mut Criterion) {
    println!("\nheap after building {ENTITIES} entities' data (bytes held: each live block's usable size; bytes requested; alloc+realloc calls while building; live allocations):");
    println!("| keys | design | bytes held | held / entity | bytes requested | alloc calls | live allocations |");
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    let ids = unit_ids(ENTITIES);
    for keys in KEYS {
        let (map_heap, map) = heap_of(|| build_map(&ids, keys));
        let (packed_heap, packed) = heap_of(|| {
            let mut map = build_map(&ids, keys);
            map.shrink_to_fit();
            map
        });
        let (hash_heap, hash) = heap_of(|| build_hashmap(&ids, keys));
        let (vec_heap, vec) = heap_of(|| build_vec(&ids, keys));
        assert_eq!(map.len(), ENTITIES);
        assert_eq!(packed, map);
        assert_eq!(hash.len(), ENTITIES);
        assert_eq!(vec.len(), ENTITIES);
        for (name, heap) in [
            ("DataMap", &map_heap),
            ("DataMap, shrink_to_fit", &packed_heap),
            ("HashMap<UnitId, DataComponent>", &hash_heap),
            ("Vec<DataComponent>", &vec_heap),
        ] {
            println!(
                "| {keys} | {name} | {} | {:.1} | {} | {} | {} |",
                heap.held,
                heap.held as f64 / ENTITIES as f64,
                heap.bytes,
                heap.calls,
                heap.blocks
            );
        }
        // The targets read bytes held (what the allocator really keeps).
        for (name, heap) in [
            ("DataMap", &map_heap),
            ("DataMap, shrink_to_fit", &packed_heap),
        ] {
            println!(
                "| {keys} | ratio {name} / HashMap, / Vec (held) | {:.2}, {:.2} | | | | |",
                heap.held as f64 / hash_heap.held as f64,
                heap.held as f64 / vec_heap.held as f64
            );
        }
    }
    println!();
}

fn bench_get(c: &mut Criterion) {
    let mut group = c.benchmark_group("data_map_get");
    let ids = unit_ids(ENTITIES);
    let order = order(ENTITIES);
    for keys in KEYS {
        let map = build_map(&ids, keys);
        let hash = build_hashmap(&ids, keys);
        let vec = build_vec(&ids, keys);
        let one = sheet(keys, 0);
        // Entity n is asked for key n % keys.
        let asks: Vec<(UnitId, Key)> = order
            .iter()
            .map(|&n| (ids[n], entry(n % keys, n).0))
            .collect();
        group.throughput(Throughput::Elements(ENTITIES as u64));
        group.bench_with_input(BenchmarkId::new("DataMap", keys), &keys, |b, _| {
            b.iter(|| {
                let mut sum = 0.0;
                for &(id, key) in &asks {
                    sum += weigh(map.get(black_box(id), key).unwrap());
                }
                sum
            })
        });
        group.bench_with_input(
            BenchmarkId::new("HashMap<UnitId, DataComponent>", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let mut sum = 0.0;
                    for &(id, key) in &asks {
                        sum += weigh(hash[&black_box(id)].get(key).unwrap());
                    }
                    sum
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("Vec<DataComponent>", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let mut sum = 0.0;
                    for &(id, key) in &asks {
                        sum += weigh(vec[black_box(id).index()].get(key).unwrap());
                    }
                    sum
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("one DataComponent", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let mut sum = 0.0;
                    for &(_, key) in &asks {
                        sum += weigh(one.get(black_box(key)).unwrap());
                    }
                    sum
                })
            },
        );
    }
    group.finish();
}

/// Keys an entity gains and loses in `grow_one`.
const GROWTH: usize = 16;

fn bench_grow_one(c: &mut Criterion) {
    let mut group = c.benchmark_group("data_map_grow_one");
    let extra: Vec<Key> = (0..GROWTH)
        .map(|k| Key::new("extra").join(&k.to_string()))
        .collect();
    for (entities, keys) in [(ENTITIES, 8), (ENTITIES, 64), (10 * ENTITIES, 8)] {
        let ids = unit_ids(entities);
        let grown = ids[entities / 2];
        let base: Vec<(Key, f32)> = (0..keys)
            .map(|k| (Key::new("base").join(&k.to_string()), k as f32))
            .collect();
        let mut map = build_map(&ids, 1);
        let mut hash = build_hashmap(&ids, 1);
        for &(key, x) in &base {
            map.set(grown, key, x).unwrap();
            hash.get_mut(&grown).unwrap().set(key, x).unwrap();
        }
        let label = format!("{entities} entities, {keys} keys");
        group.throughput(Throughput::Elements(GROWTH as u64));
        group.bench_function(BenchmarkId::new("DataMap", &label), |b| {
            b.iter(|| {
                for &key in &extra {
                    map.set(black_box(grown), key, 1.0_f32).unwrap();
                }
                for &key in &extra {
                    map.remove_key(black_box(grown), key);
                }
            })
        });
        group.bench_function(
            BenchmarkId::new("HashMap<UnitId, DataComponent>", &label),
            |b| {
                b.iter(|| {
                    let sheet = hash.get_mut(&black_box(grown)).unwrap();
                    for &key in &extra {
                        sheet.set(key, 1.0_f32).unwrap();
                    }
                    for &key in &extra {
                        sheet.remove(key);
                    }
                })
            },
        );
        assert_eq!(map.entity(grown).unwrap().len(), keys + 1);
        assert_eq!(map.entity(grown), Some(hash[&grown].view()));
    }
    group.finish();
}

fn bench_save_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("data_map_save_load");
    let ids = unit_ids(ENTITIES);
    for keys in KEYS {
        let map = build_map(&ids, keys);
        let hash = build_hashmap(&ids, keys);
        let vec = build_vec(&ids, keys);
        group.throughput(Throughput::Elements(ENTITIES as u64));
        group.bench_with_input(
            BenchmarkId::new("DataMap to_bytes + from_bytes", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let saved = black_box(&map).to_bytes().into_owned();
                    DataMap::<UnitId>::from_bytes(black_box(&saved)).unwrap()
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("HashMap<UnitId, DataComponent> postcard", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let saved = postcard::to_allocvec(black_box(&hash)).unwrap();
                    postcard::from_bytes::<HashMap<UnitId, DataComponent>>(black_box(&saved))
                        .unwrap()
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("Vec<DataComponent> postcard", keys),
            &keys,
            |b, _| {
                b.iter(|| {
                    let saved = postcard::to_allocvec(black_box(&vec)).unwrap();
                    postcard::from_bytes::<Vec<DataComponent>>(black_box(&saved)).unwrap()
                })
            },
        );
        let saved = postcard::to_allocvec(&hash).unwrap();
        let back: HashMap<UnitId, DataComponent> = postcard::from_bytes(&saved).unwrap();
        assert_eq!(back, hash);
        let reloaded = DataMap::<UnitId>::from_bytes(map.as_bytes()).unwrap();
        assert_eq!(reloaded, map);
        println!(
            "saved sizes, {keys} keys: DataMap {} bytes, HashMap postcard {} bytes",
            map.as_bytes().len(),
            saved.len()
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(900))
        .sample_size(40);
    targets = report_heap, bench_get, bench_grow_one, bench_save_load
}
criterion_main!(benches);
