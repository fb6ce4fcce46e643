//! `#[soa(serde)]`: saving and loading allocators and ids with serde_json and
//! postcard (a compact binary format).
//!
//! A round trip keeps every id valid and every stale id stale, and keeps the
//! free queue, so the loaded allocator issues the same ids as the original.
//! Hostile input is an error, never a panic and never an allocator whose
//! invariants fail.
#![cfg(feature = "serde")]

use idtable::data::DataComponent;
use idtable::SoaAllocator;
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id24_8, min_free = 2)]
pub struct Particle {
    pub pos: [f32; 2],
    pub name: String,
    pub r#type: u8,
}

fn particle(n: u32) -> Particle {
    Particle {
        pos: [n as f32, -(n as f32)],
        name: format!("p{n}"),
        r#type: n as u8,
    }
}

/// Same shape with `on_exhausted = wrap` and 2 generation bits.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id32<30>, on_exhausted = wrap)]
pub struct Wrapping {
    pub value: u32,
}

/// The same with `retire`.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde, id = idtable::Id32<30>)]
pub struct Retiring {
    pub value: u32,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Pair<T: Clone> {
    pub left: T,
    pub right: Vec<T>,
}

#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Marker {}

#[derive(SoaAllocator, Debug, Clone)]
#[soa(serde, id = idtable::Id24_8)]
pub struct Entity {
    pub hp: f32,
    pub sheet: DataComponent,
}

/// Field names that the generated code also uses for its own things.
#[derive(SoaAllocator, Debug, Clone, PartialEq)]
#[soa(serde)]
pub struct Clashing {
    pub table: u8,
    pub columns: u8,
    pub storage: u8,
    pub serializer: u8,
    pub deserializer: u8,
    pub rows: u8,
}

#[test]
fn generated_code_does_not_clash_with_field_names() {
    let mut a = ClashingAllocator::new();
    let id = a.insert(Clashing {
        table: 1,
        columns: 2,
        storage: 3,
        serializer: 4,
        deserializer: 5,
        rows: 6,
    });
    let text = serde_json::to_string(&a).unwrap();
    let back: ClashingAllocator = serde_json::from_str(&text).unwrap();
    assert_eq!(
        back.get(id).unwrap().to_owned(),
        a.get(id).unwrap().to_owned()
    );
}

/// An allocator after a churn: removes, reuses, a stale id of a reused slot,
/// and slots waiting in the free queue.
fn churned() -> (ParticleAllocator, Vec<ParticleId>) {
    let mut a = ParticleAllocator::new();
    let ids: Vec<_> = (0..8).map(|n| a.insert(particle(n))).collect();
    for &i in &[1, 4, 6, 2] {
        a.remove(ids[i]);
    }
    a.insert(particle(100)); // reuses slot 1 (min_free = 2)
    (a, ids)
}

fn json_round_trip(a: &ParticleAllocator) -> ParticleAllocator {
    let text = serde_json::to_string(a).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn postcard_round_trip(a: &ParticleAllocator) -> ParticleAllocator {
    let bytes = postcard::to_allocvec(a).unwrap();
    postcard::from_bytes(&bytes).unwrap()
}

/// Everything observable: content in dense order, every id's resolution,
/// and the ids of the next inserts.
fn assert_same(mut loaded: ParticleAllocator, mut original: ParticleAllocator, ids: &[ParticleId]) {
    loaded.check_invariants();
    assert_eq!(loaded.ids(), original.ids());
    let rows = |a: &ParticleAllocator| {
        a.iter()
            .map(|(id, p)| (id, p.to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&loaded), rows(&original));
    for &id in ids.iter().chain(original.ids()) {
        assert_eq!(loaded.contains(id), original.contains(id), "{id:?}");
    }
    for n in 0..6 {
        assert_eq!(loaded.insert(particle(n)), original.insert(particle(n)));
    }
    loaded.check_invariants();
}

#[test]
fn json_shape_is_table_plus_named_columns() {
    let mut a = ParticleAllocator::new();
    let x = a.insert(particle(1));
    a.insert(particle(2));
    a.remove(x);
    assert_eq!(
        serde_json::to_value(&a).unwrap(),
        json!({
            "table": { "slots": [1, 1], "dense": [1], "free": [0] },
            "columns": { "pos": [[2.0, -2.0]], "name": ["p2"], "type": [2] },
        })
    );
}

#[test]
fn round_trips_keep_ids_stale_ids_and_the_free_queue() {
    let (a, ids) = churned();
    assert!(a.id_table().free_count() > 0);
    assert_same(json_round_trip(&a), a.clone(), &ids);
    assert_same(postcard_round_trip(&a), a.clone(), &ids);
    // A stale id of a reused slot stays stale.
    let reused = a
        .ids()
        .iter()
        .find(|id| id.index() == ids[1].index())
        .unwrap();
    assert_ne!(*reused, ids[1]);
    let loaded = json_round_trip(&a);
    assert!(loaded.get(ids[1]).is_none());
    assert_eq!(loaded.get(*reused).unwrap().name, "p100");
}

#[test]
fn empty_allocators_round_trip() {
    let a = ParticleAllocator::new();
    assert_same(json_round_trip(&a), a.clone(), &[]);
    assert_same(postcard_round_trip(&a), a, &[]);
}

#[test]
fn ids_are_their_bits() {
    let (a, _) = churned();
    for &id in a.ids() {
        let text = serde_json::to_string(&id).unwrap();
        assert_eq!(text, id.to_bits().to_string());
        assert_eq!(serde_json::from_str::<ParticleId>(&text).unwrap(), id);
        let bytes = postcard::to_allocvec(&id).unwrap();
        assert_eq!(postcard::from_bytes::<ParticleId>(&bytes).unwrap(), id);
    }
    // Generation 0 is not an id.
    assert!(serde_json::from_str::<ParticleId>("5").is_err());
    // Ids saved inside other data come back resolving to the same object.
    let (a, _) = churned();
    let saved = serde_json::to_string(&(&a, a.ids()[2])).unwrap();
    let (loaded, id): (ParticleAllocator, ParticleId) = serde_json::from_str(&saved).unwrap();
    assert_eq!(
        loaded.get(id).unwrap().to_owned(),
        a.get(id).unwrap().to_owned()
    );
}

#[test]
fn generic_fieldless_and_data_component_structs_round_trip() {
    let mut pairs = PairAllocator::<u16>::new();
    let p = pairs.insert(Pair {
        left: 3,
        right: vec![1, 2],
    });
    let text = serde_json::to_string(&pairs).unwrap();
    let back: PairAllocator<u16> = serde_json::from_str(&text).unwrap();
    assert_eq!(back.get(p).unwrap().right, &vec![1, 2]);

    let mut markers = MarkerAllocator::new();
    let m = markers.insert(Marker {});
    let gone = markers.insert(Marker {});
    markers.remove(gone);
    let bytes = postcard::to_allocvec(&markers).unwrap();
    let back: MarkerAllocator = postcard::from_bytes(&bytes).unwrap();
    assert!(back.contains(m) && !back.contains(gone));
    back.check_invariants();

    let mut entities = EntityAllocator::new();
    let mut sheet = DataComponent::new();
    sheet.set("name", "Aria").unwrap();
    sheet.set("stats.str", 14.0f32).unwrap();
    let e = entities.insert(Entity { hp: 9.0, sheet });
    for bytes in [
        serde_json::to_vec(&entities).unwrap(),
        postcard::to_allocvec(&entities).unwrap(),
    ] {
        let back: EntityAllocator = if bytes[0] == b'{' {
            serde_json::from_slice(&bytes).unwrap()
        } else {
            postcard::from_bytes(&bytes).unwrap()
        };
        let loaded = back.get(e).unwrap();
        assert_eq!(
            loaded.sheet.as_bytes(),
            entities.get(e).unwrap().sheet.as_bytes()
        );
        assert_eq!(
            loaded.sheet.get("name").and_then(|v| v.as_str()),
            Some("Aria")
        );
    }
}

#[test]
fn columns_view_serializes_by_field_name() {
    let (a, _) = churned();
    let cols = serde_json::to_value(a.columns()).unwrap();
    assert_eq!(cols["name"].as_array().unwrap().len(), a.len());
    assert_eq!(cols["type"][0], json!(a.columns().r#type[0]));
}

/// The saved form of [`churned`] as JSON, to edit.
fn saved() -> Value {
    serde_json::to_value(churned().0).unwrap()
}

fn load(value: &Value) -> Result<ParticleAllocator, String> {
    match serde_json::from_value::<ParticleAllocator>(value.clone()) {
        Ok(a) => {
            a.check_invariants();
            Ok(a)
        }
        Err(e) => Err(e.to_string()),
    }
}

#[track_caller]
fn assert_refused(edit: impl FnOnce(&mut Value), expected: &str) {
    let mut v = saved();
    edit(&mut v);
    match load(&v) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => assert!(
            e.contains(expected),
            "error {e:?} does not mention {expected:?}"
        ),
    }
}

#[test]
fn hostile_tables_are_refused() {
    // The unedited form loads.
    load(&saved()).unwrap();
    let table = |v: &mut Value, list: &str| v["table"][list].as_array_mut().unwrap().clone();
    assert_refused(|v| v["table"]["slots"][0] = json!(0), "generation 0");
    assert_refused(|v| v["table"]["slots"][0] = json!(256), "generation 256");
    assert_refused(|v| v["table"]["slots"][0] = json!(-1), "invalid value");
    assert_refused(
        |v| {
            let mut dense = table(v, "dense");
            dense.push(dense[0].clone());
            v["table"]["dense"] = Value::Array(dense);
        },
        "listed twice",
    );
    assert_refused(
        |v| {
            let mut free = table(v, "free");
            free.push(v["table"]["dense"][0].clone());
            v["table"]["free"] = Value::Array(free);
        },
        "listed twice",
    );
    assert_refused(|v| v["table"]["dense"][0] = json!(99), "names slot 99");
    assert_refused(|v| v["table"]["free"][0] = json!(u64::MAX), "names slot");
    assert_refused(
        |v| {
            let mut free = table(v, "free");
            free.pop();
            v["table"]["free"] = Value::Array(free);
        },
        "neither queued",
    );
    // A queued slot at the last generation would restart at 1 under retire.
    assert_refused(
        |v| {
            let s = v["table"]["free"][0].as_u64().unwrap() as usize;
            v["table"]["slots"][s] = json!(255);
        },
        "reissuing it would make its old ids resolve again",
    );
    assert_refused(
        |v| {
            let n = 1usize << 24; // Id24_8 has 2^24 - 1 indices
            v["table"]["slots"] = json!(vec![1; n]);
        },
        "slots, but the id layout has",
    );
}

#[test]
fn repeated_fields_are_refused() {
    let text = saved().to_string();
    let columns = text.find("\"columns\":{").expect("columns") + "\"columns\":{".len();
    let twice = format!("{}\"pos\":[],{}", &text[..columns], &text[columns..]);
    let err = serde_json::from_str::<ParticleAllocator>(&twice)
        .err()
        .unwrap();
    assert!(err.to_string().contains("duplicate field `pos`"), "{err}");
    let table = format!(
        "{{\"table\":{{\"slots\":[],\"dense\":[],\"free\":[]}},{}",
        &text[1..]
    );
    let err = serde_json::from_str::<ParticleAllocator>(&table)
        .err()
        .unwrap();
    assert!(err.to_string().contains("duplicate field `table`"), "{err}");
}

/// An id is only bits: it saves and loads whatever its struct opts into.
/// (Saving the allocator or a `SoaMap` of a struct that did not opt in does
/// not compile: see the compile-fail cases in `ui-tests/tests/ui-serde/`.)
#[test]
fn ids_save_and_load_without_soa_serde() {
    #[derive(SoaAllocator)]
    struct Secret {
        key: u64,
    }
    let mut s = SecretAllocator::new();
    let first = s.insert(Secret { key: 42 });
    s.remove(first);
    let id = s.insert(Secret { key: 7 });
    let text = serde_json::to_string(&id).unwrap();
    assert_eq!(text, id.to_bits().to_string());
    let back: SecretId = serde_json::from_str(&text).unwrap();
    assert_eq!(back, id);
    assert_eq!(s.get(back).map(|r| *r.key), Some(7));
    let bytes = postcard::to_allocvec(&id).unwrap();
    assert_eq!(postcard::from_bytes::<SecretId>(&bytes).unwrap(), id);
}

/// A `SoaStorage` of an opted-in struct saves like its allocator, under the
/// storage's own struct names.
#[test]
fn a_storage_of_an_opted_in_struct_round_trips() {
    let (a, ids) = churned();
    let text = serde_json::to_string(&a).unwrap();
    let storage: idtable::SoaStorage<ParticleId, Particle> = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&storage).unwrap(), text);
    for id in ids {
        assert_eq!(storage.contains(id), a.contains(id));
    }
}

#[test]
fn hostile_columns_and_shapes_are_refused() {
    assert_refused(
        |v| {
            v["columns"]["name"].as_array_mut().unwrap().pop();
        },
        "column `name` has",
    );
    assert_refused(
        |v| v["columns"]["type"].as_array_mut().unwrap().push(json!(1)),
        "column `type` has",
    );
    assert_refused(
        |v| {
            v["columns"].as_object_mut().unwrap().remove("pos");
        },
        "missing field `pos`",
    );
    assert_refused(
        |v| v["columns"]["speed"] = json!([]),
        "unknown field `speed`",
    );
    assert_refused(|v| v["extra"] = json!(1), "unknown field `extra`");
    assert_refused(
        |v| {
            v.as_object_mut().unwrap().remove("table");
        },
        "missing field `table`",
    );
    assert_refused(|v| v["columns"]["type"][0] = json!(300), "invalid value");
    assert_refused(|v| v["columns"]["pos"] = json!("nope"), "invalid type");
    for text in ["", "[]", "null", "{", "{\"table\":{}}", "[[1],[0],[]]"] {
        assert!(
            serde_json::from_str::<ParticleAllocator>(text).is_err(),
            "{text}"
        );
    }
}

#[test]
fn the_policy_belongs_to_the_type() {
    // A slot worn out under `retire` is retired, not queued: loading it into
    // a `wrap` type that would have to reuse it is refused, and the other way
    // round a queued worn-out slot is refused by the `retire` type.
    let mut r = RetiringAllocator::new();
    for _ in 0..3 {
        let id = r.insert(Retiring { value: 1 });
        r.remove(id);
    }
    assert_eq!(r.id_table().free_count(), 0); // slot 0 retired
    let text = serde_json::to_string(&r).unwrap();
    serde_json::from_str::<RetiringAllocator>(&text).unwrap();
    let err = serde_json::from_str::<WrappingAllocator>(&text).unwrap_err();
    assert!(err.to_string().contains("neither queued"), "{err}");

    let mut w = WrappingAllocator::new();
    for _ in 0..3 {
        let id = w.insert(Wrapping { value: 1 });
        w.remove(id);
    }
    let text = serde_json::to_string(&w).unwrap();
    let mut loaded: WrappingAllocator = serde_json::from_str(&text).unwrap();
    assert_eq!(
        loaded.insert(Wrapping { value: 2 }),
        w.insert(Wrapping { value: 2 })
    );
    let err = serde_json::from_str::<RetiringAllocator>(&text).unwrap_err();
    assert!(err.to_string().contains("reissuing it"), "{err}");
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32),
    Remove(usize),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(
        prop_oneof![
            (0u32..1000).prop_map(Op::Insert),
            any::<usize>().prop_map(Op::Remove),
        ],
        0..120,
    )
}

fn run(ops: &[Op]) -> (ParticleAllocator, Vec<ParticleId>) {
    let mut a = ParticleAllocator::new();
    let mut issued = Vec::new();
    for op in ops {
        match *op {
            Op::Insert(n) => issued.push(a.insert(particle(n))),
            Op::Remove(i) if !issued.is_empty() => {
                a.remove(issued[i % issued.len()]);
            }
            Op::Remove(_) => {}
        }
    }
    (a, issued)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 2 } else { 128 }))]

    #[test]
    fn any_history_round_trips(ops in ops()) {
        let (a, issued) = run(&ops);
        assert_same(json_round_trip(&a), a.clone(), &issued);
        assert_same(postcard_round_trip(&a), a, &issued);
    }

    /// Random bytes, and saved bytes with one byte changed, truncated or
    /// extended: an error, or an allocator that passes its checks.
    #[test]
    fn hostile_postcard_bytes_never_panic(
        ops in ops(),
        noise in proptest::collection::vec(any::<u8>(), 0..64),
        at in any::<usize>(),
        byte in any::<u8>(),
        cut in any::<usize>(),
    ) {
        if let Ok(a) = postcard::from_bytes::<ParticleAllocator>(&noise) {
            a.check_invariants();
        }
        let bytes = postcard::to_allocvec(&run(&ops).0).unwrap();
        let mut changed = bytes.clone();
        let i = at % changed.len();
        changed[i] = byte;
        let variants = [changed, bytes[..cut % (bytes.len() + 1)].to_vec(), [&bytes[..], &noise[..]].concat()];
        for v in variants {
            if let Ok(mut a) = postcard::from_bytes::<ParticleAllocator>(&v) {
                a.check_invariants();
                a.insert(particle(1));
                a.check_invariants();
            }
        }
    }

    /// Random table lists with columns of the right length: an error, or an
    /// allocator that passes its checks and goes on working.
    #[test]
    fn hostile_json_tables_never_panic(
        slots in proptest::collection::vec(0u64..260, 0..10),
        dense in proptest::collection::vec(0u64..12, 0..10),
        free in proptest::collection::vec(0u64..12, 0..10),
    ) {
        let n = dense.len();
        let v = json!({
            "table": { "slots": slots, "dense": dense, "free": free },
            "columns": {
                "pos": vec![[0.0, 0.0]; n],
                "name": vec!["x"; n],
                "type": vec![0; n],
            },
        });
        if let Ok(mut a) = load(&v) {
            a.insert(particle(1));
            a.check_invariants();
        }
    }
}
