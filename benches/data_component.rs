//! `DataComponent` against the naive designs of reference/data-component.md:
//! `set` and `get` on sheets of 4, 16 and 64 keys, and heap bytes per sheet.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench
//! data_component`. Heap bytes are measured with a counting global allocator
//! (bytes requested from the allocator and still live after building one
//! sheet; the allocator's own overhead not included).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use idtable::data::{DataComponent, Key, Value};

mod support;
use support::{heap_of, order, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

// ----- the peers -----

/// The reference's naive value: owned strings and arrays.
#[derive(Clone, Debug, PartialEq)]
enum Naive {
    Bool(bool),
    Float(f32),
    Int(i32),
    Str(String),
    Floats(Vec<f32>),
}

impl Naive {
    fn from_value(value: Value<'_>) -> Naive {
        match value {
            Value::Bool(b) => Naive::Bool(b),
            Value::Float(x) => Naive::Float(x),
            Value::Int(x) => Naive::Int(x),
            Value::Str(s) => Naive::Str(s.to_owned()),
            Value::Floats(xs) => Naive::Floats(xs.to_vec()),
        }
    }

    fn weigh(&self) -> f32 {
        match self {
            Naive::Bool(b) => f32::from(u8::from(*b)),
            Naive::Float(x) => *x,
            Naive::Int(x) => *x as f32,
            Naive::Str(s) => s.len() as f32,
            Naive::Floats(xs) => xs.first().copied().unwrap_or(0.0),
        }
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

// ----- the workload -----

/// Key names like a character sheet's: nested paths, flattened.
fn names(n: usize) -> Vec<(String, Key)> {
    (0..n)
        .map(|i| {
            let group = ["stats", "status_effects", "inventory", "quests"][i % 4];
            let leaf = format!("entry_{i}");
            (format!("{group}.{leaf}"), Key::path(&[group, &leaf]))
        })
        .collect()
}

/// Value `i` of generation `round`: a mix of all four types; strings and arrays
/// change length between rounds.
fn value_of(i: usize, round: usize, text: &mut String, floats: &mut Vec<f32>) -> Value<'static> {
    match i % 4 {
        0 => Value::Bool(round % 2 == 0),
        1 => Value::Float((i + round) as f32),
        2 => {
            text.clear();
            text.push_str(["The One", "Someone with a longer name"][round % 2]);
            Value::Str(Box::leak(text.clone().into_boxed_str()))
        }
        _ => {
            floats.clear();
            floats.extend((0..4 + round % 2).map(|x| x as f32));
            Value::Floats(Box::leak(floats.clone().into_boxed_slice()))
        }
    }
}

/// Precomputed values for two rounds, so the timed loops allocate nothing of
/// their own except what the container under test needs.
fn values(n: usize) -> [Vec<Value<'static>>; 2] {
    let (mut text, mut floats) = (String::new(), Vec::new());
    [0, 1].map(|round| {
        (0..n)
            .map(|i| value_of(i, round, &mut text, &mut floats))
            .collect()
    })
}

fn build_data(names: &[(String, Key)], values: &[Value<'static>]) -> DataComponent {
    let mut sheet = DataComponent::new();
    for ((_, key), value) in names.iter().zip(values) {
        sheet.set(*key, *value).unwrap();
    }
    sheet
}

fn build_string_map(names: &[(String, Key)], values: &[Value<'static>]) -> HashMap<String, Naive> {
    let mut map = HashMap::new();
    for ((name, _), value) in names.iter().zip(values) {
        map.insert(name.clone(), Naive::from_value(*value));
    }
    map
}

fn build_u32_map(names: &[(String, Key)], values: &[Value<'static>]) -> HashMap<u32, Naive> {
    let mut map = HashMap::new();
    for ((_, key), value) in names.iter().zip(values) {
        map.insert(key.to_hash(), Naive::from_value(*value));
    }
    map
}

const SIZES: [usize; 3] = [4, 16, 64];

fn bench_get(c: &mut Criterion) {
    let mut group = c.benchmark_group("get");
    for n in SIZES {
        let names = names(n);
        let [values, _] = values(n);
        let order = order(n);
        let data = build_data(&names, &values);
        let strings = build_string_map(&names, &values);
        let hashes = build_u32_map(&names, &values);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("DataComponent", n), &n, |b, _| {
            b.iter(|| {
                let mut sum = 0.0;
                for &i in &order {
                    sum += weigh(data.get(black_box(names[i].1)).unwrap());
                }
                sum
            })
        });
        group.bench_with_input(
            BenchmarkId::new("DataComponent, key hashed at call", n),
            &n,
            |b, _| {
                b.iter(|| {
                    let mut sum = 0.0;
                    for &i in &order {
                        let name = black_box(names[i].0.as_str());
                        let (outer, leaf) = name.split_once('.').unwrap();
                        sum += weigh(data.get(Key::new(outer).join(leaf)).unwrap());
                    }
                    sum
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("HashMap<String, enum>", n), &n, |b, _| {
            b.iter(|| {
                let mut sum = 0.0;
                for &i in &order {
                    sum += strings[black_box(names[i].0.as_str())].weigh();
                }
                sum
            })
        });
        group.bench_with_input(BenchmarkId::new("HashMap<u32, enum>", n), &n, |b, _| {
            b.iter(|| {
                let mut sum = 0.0;
                for &i in &order {
                    sum += hashes[&black_box(names[i].1.to_hash())].weigh();
                }
                sum
            })
        });
    }
    group.finish();
}

fn bench_set(c: &mut Criterion) {
    let mut group = c.benchmark_group("set");
    for n in SIZES {
        let names = names(n);
        let rounds = values(n);
        let order = order(n);
        let mut data = build_data(&names, &rounds[0]);
        let mut strings = build_string_map(&names, &rounds[0]);
        let mut hashes = build_u32_map(&names, &rounds[0]);
        group.throughput(Throughput::Elements(n as u64));
        let mut round = 0;
        group.bench_with_input(BenchmarkId::new("DataComponent", n), &n, |b, _| {
            b.iter(|| {
                round ^= 1;
                for &i in &order {
                    data.set(black_box(names[i].1), rounds[round][i]).unwrap();
                }
            })
        });
        group.bench_with_input(BenchmarkId::new("HashMap<String, enum>", n), &n, |b, _| {
            b.iter(|| {
                round ^= 1;
                for &i in &order {
                    let name = black_box(names[i].0.as_str());
                    let value = Naive::from_value(rounds[round][i]);
                    match strings.get_mut(name) {
                        Some(slot) => *slot = value,
                        None => {
                            strings.insert(name.to_owned(), value);
                        }
                    }
                }
            })
        });
        group.bench_with_input(BenchmarkId::new("HashMap<u32, enum>", n), &n, |b, _| {
            b.iter(|| {
                round ^= 1;
                for &i in &order {
                    let value = Naive::from_value(rounds[round][i]);
                    hashes.insert(black_box(names[i].1.to_hash()), value);
                }
            })
        });
        // The sheets still hold what they were given.
        assert_eq!(data.len(), n);
        assert_eq!(strings.len(), n);
        assert_eq!(hashes.len(), n);
    }
    group.finish();
}

/// Prints heap bytes per sheet for each design (not timed).
fn report_heap(_: &mut Criterion) {
    println!("\nheap bytes per sheet (live bytes requested from the allocator):");
    println!("| keys | DataComponent | DataComponent, shrink_to_fit | HashMap<String, enum> | HashMap<u32, enum> |");
    println!("| ---: | ---: | ---: | ---: | ---: |");
    for n in SIZES {
        let names = names(n);
        let [values, _] = values(n);
        let (data, sheet) = heap_of(|| build_data(&names, &values));
        let data = data.bytes;
        let (packed, packed_sheet) = heap_of(|| {
            let mut sheet = build_data(&names, &values);
            sheet.shrink_to_fit();
            sheet
        });
        let (strings, string_map) = heap_of(|| build_string_map(&names, &values));
        let (hashes, u32_map) = heap_of(|| build_u32_map(&names, &values));
        let (packed, strings, hashes) = (packed.bytes, strings.bytes, hashes.bytes);
        assert_eq!(data, sheet.capacity());
        assert_eq!(packed, packed_sheet.capacity());
        drop((sheet, packed_sheet, string_map, u32_map));
        println!("| {n} | {data} | {packed} | {strings} | {hashes} |");
    }
    println!();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(900))
        .sample_size(40);
    targets = report_heap, bench_get, bench_set
}
criterion_main!(benches);
