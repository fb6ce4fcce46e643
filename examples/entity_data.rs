//! Entities with character sheets: the data of a few thousand entities in
//! one `DataMap`, keyed by the ids of a derived allocator.
//!
//! Every entity has a sheet (name, stats, level, status effects, an
//! inventory of weights). All sheets live in **one** buffer of the
//! `DataMap`, each growing and shrinking on its own. The example plays a
//! few turns of changes, removes some entities, saves the whole map to a
//! file in one write, reads it back in one read, checks that every sheet
//! came back identical, and prints a few sheets with their keys named.
//!
//! Run it with `cargo run --example entity_data`.

use std::error::Error;
use std::fs;

use idtable::data::{DataError, DataMap, Key, KeyNames};
use idtable::SoaAllocator;

/// One entity: where it is. Its sheet lives in the `DataMap`, under its id.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Entity {
    pub pos: [f32; 2],
}

const ENTITIES: usize = 4000;

const NAME: Key = Key::new("name");
const HEALTH: Key = Key::path(&["stats", "health"]);
const MANA: Key = Key::path(&["stats", "mana"]);
const LEVEL: Key = Key::new("level");
const GOLD: Key = Key::new("gold");
const DRUNK: Key = Key::path(&["status_effects", "drunk"]);
const DELIRIOUS: Key = Key::path(&["status_effects", "delirious"]);
const INVENTORY: Key = Key::new("inventory_weights");

/// The names of the keys above, for printing: keys are hashes, and the
/// table turns them back into their paths.
fn key_names() -> KeyNames {
    let paths: [&[&str]; 8] = [
        &["name"],
        &["stats", "health"],
        &["stats", "mana"],
        &["level"],
        &["gold"],
        &["status_effects", "drunk"],
        &["status_effects", "delirious"],
        &["inventory_weights"],
    ];
    let names: KeyNames = paths.into_iter().collect();
    for key in [NAME, HEALTH, MANA, LEVEL, GOLD, DRUNK, DELIRIOUS, INVENTORY] {
        assert!(names.name(key).is_some(), "{key:?} has no name");
    }
    names
}

fn new_sheet(sheets: &mut DataMap<EntityId>, id: EntityId, n: usize) -> Result<(), DataError> {
    const NAMES: [&str; 6] = ["The One", "Trinity", "Morpheus", "Niobe", "Tank", "Dozer"];
    sheets.set(
        id,
        NAME,
        format!("{} #{n}", NAMES[n % NAMES.len()]).as_str(),
    )?;
    sheets.set(id, HEALTH, 100.0_f32)?;
    sheets.set(id, MANA, 200.0_f32)?;
    sheets.set(id, LEVEL, 1)?;
    sheets.set(id, DRUNK, false)?;
    sheets.set(id, INVENTORY, &[1.5_f32, 0.25])?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut entities = EntityAllocator::new();
    let mut sheets: DataMap<EntityId> = DataMap::new();
    for n in 0..ENTITIES {
        let id = entities.insert(Entity {
            pos: [n as f32, 0.0],
        });
        new_sheet(&mut sheets, id, n)?;
    }
    println!(
        "{} entities with character sheets in one buffer of {} bytes",
        sheets.len(),
        sheets.as_bytes().len()
    );

    // A few turns: damage, levels and gold (integers), drinks, growing
    // inventories, renames; each sheet grows on its own inside the buffer.
    let ids: Vec<EntityId> = entities.ids().to_vec();
    for turn in 1..=5_u8 {
        for (n, &id) in ids.iter().enumerate() {
            let health = sheets.get_f32(id, HEALTH).unwrap_or(0.0) - 7.5;
            sheets.set(id, HEALTH, health)?;
            if n % 4 == usize::from(turn) % 4 {
                let level = sheets.get_i32(id, LEVEL).unwrap_or(0);
                sheets.set(id, LEVEL, level + 1)?;
                sheets.set(id, GOLD, (n as i32) * 10 + i32::from(turn))?;
            }
            if turn % 2 == 0 {
                sheets.set(id, DRUNK, true)?;
                sheets.set(id, DELIRIOUS, turn == 4)?;
            }
            if n % 3 == 0 {
                let mut weights = sheets.get_f32s(id, INVENTORY).unwrap_or(&[]).to_vec();
                weights.push(f32::from(turn) * 0.5);
                sheets.set(id, INVENTORY, &weights)?;
            }
            if n % 7 == 0 && turn == 5 {
                sheets.remove_key(id, DELIRIOUS);
            }
        }
    }

    // Deaths: every tenth entity leaves the table and the map; its id is
    // then stale, and a newcomer in its slot starts with an empty sheet.
    for &id in ids.iter().step_by(10) {
        entities.remove(id);
        sheets.remove(id);
    }
    let newcomer = entities.insert(Entity { pos: [0.0; 2] });
    assert_eq!(newcomer.index(), ids[0].index(), "the slot is reused");
    assert!(sheets.entity(newcomer).is_none() && sheets.entity(ids[0]).is_none());
    new_sheet(&mut sheets, newcomer, ENTITIES)?;
    println!(
        "after 5 turns and {} deaths: {} sheets, {} bytes",
        ids.len().div_ceil(10),
        sheets.len(),
        sheets.as_bytes().len()
    );

    // Save the whole map in one write, read it back in one read.
    let path = std::env::temp_dir().join(format!("idtable-entity-data-{}.bin", std::process::id()));
    fs::write(&path, sheets.to_bytes())?; // compact: the holes stay out of the file
    let read_back = fs::read(&path)?;
    fs::remove_file(&path)?;
    let reloaded = DataMap::<EntityId>::from_bytes(&read_back)?;
    println!(
        "saved {} sheets in {} bytes, read them back",
        reloaded.len(),
        read_back.len()
    );

    // Every sheet came back identical, key by key and byte for byte.
    assert_eq!(reloaded, sheets);
    assert_eq!(reloaded.as_bytes(), &*sheets.to_bytes());
    for (id, sheet) in &sheets {
        assert!(entities.contains(id));
        assert_eq!(reloaded.entity(id), Some(sheet));
    }
    assert_eq!(
        reloaded.get_f32(ids[1], HEALTH),
        Some(100.0 - 5.0 * 7.5),
        "five turns of damage"
    );

    let names = key_names();
    for &id in [ids[1], ids[3], newcomer].iter() {
        let sheet = reloaded.entity(id).ok_or("a sheet did not come back")?;
        println!("  {id:?}: {:?}", names.debug(sheet));
    }
    println!("all {} sheets reloaded identical", reloaded.len());
    Ok(())
}
