//! Entities with character sheets: a `DataComponent` per entity, as a column
//! of a derived allocator.
//!
//! Each entity carries one `DataComponent` (its character sheet: name, stats,
//! status effects, an inventory of weights), kept in one relocatable buffer.
//! The example plays a few turns of changes, saves every sheet to a file as
//! raw bytes, loads the file back into a new allocator and checks that every
//! sheet came back identical.
//!
//! Run it with `cargo run --example entity_data`.

use std::collections::HashMap;
use std::error::Error;
use std::fs;

use idtable::data::{DataComponent, Key, Value};
use idtable::SoaAllocator;

/// One entity: where it is, and its character sheet.
#[derive(SoaAllocator, Clone, Debug, PartialEq)]
pub struct Entity {
    pub pos: [f32; 2],
    pub sheet: DataComponent,
}

const NAME: Key = Key::new("name");
const HEALTH: Key = Key::path(&["stats", "health"]);
const MANA: Key = Key::path(&["stats", "mana"]);
const DRUNK: Key = Key::path(&["status_effects", "drunk"]);
const DELIRIOUS: Key = Key::path(&["status_effects", "delirious"]);
const INVENTORY: Key = Key::new("inventory_weights");

fn character_sheet(name: &str, health: f32) -> Result<DataComponent, idtable::data::DataError> {
    let mut sheet = DataComponent::new();
    sheet.set(NAME, name)?;
    sheet.set(HEALTH, health)?;
    sheet.set(MANA, 200.0_f32)?;
    sheet.set(DRUNK, false)?;
    sheet.set(INVENTORY, &[1.5_f32, 0.25][..])?;
    Ok(sheet)
}

/// The saved form of a table: per entity, its id bits (`u64` LE), the
/// sheet's byte length (`u32` LE), then the sheet's bytes as they are.
fn save(entities: &EntityAllocator) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, entity) in entities.iter() {
        let bytes = entity.sheet.as_bytes();
        out.extend_from_slice(&id.to_bits().to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// Reads what `save` wrote: `(saved id bits, sheet)` per entity.
fn load(mut bytes: &[u8]) -> Result<Vec<(u64, DataComponent)>, Box<dyn Error>> {
    let mut sheets = Vec::new();
    while !bytes.is_empty() {
        let (id, rest) = bytes.split_at_checked(8).ok_or("truncated id")?;
        let (len, rest) = rest.split_at_checked(4).ok_or("truncated length")?;
        let len = u32::from_le_bytes(len.try_into()?) as usize;
        let (sheet, rest) = rest.split_at_checked(len).ok_or("truncated sheet")?;
        sheets.push((
            u64::from_le_bytes(id.try_into()?),
            DataComponent::from_bytes(sheet)?,
        ));
        bytes = rest;
    }
    Ok(sheets)
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut entities = EntityAllocator::new();
    let names = ["The One", "Trinity", "Morpheus", "Niobe", "Tank", "Dozer"];
    let ids: Vec<EntityId> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let sheet = character_sheet(name, 100.0 - 10.0 * i as f32)?;
            Ok(entities.insert(Entity {
                pos: [i as f32, 0.0],
                sheet,
            }))
        })
        .collect::<Result<_, idtable::data::DataError>>()?;
    println!("{} entities with character sheets", entities.len());

    // A few turns: damage, drinks, renames, growing inventories, a death.
    for turn in 1..=5u32 {
        for (id, entity) in entities.iter_mut() {
            let sheet = entity.sheet;
            let health = sheet.get_f32(HEALTH).unwrap_or(0.0) - 7.5;
            sheet.set(HEALTH, health)?;
            if turn % 2 == 0 {
                sheet.set(DRUNK, true)?;
                sheet.set(DELIRIOUS, turn == 4)?;
            }
            // The inventory grows by one item a turn: the array is rewritten
            // in the buffer's payload area, which compacts when it fills up.
            let mut weights = sheet.get_f32s(INVENTORY).unwrap_or(&[]).to_vec();
            weights.push(turn as f32 * 0.5);
            sheet.set(INVENTORY, &weights)?;
            if id.index() % 3 == 0 {
                // Strings change length too: "Niobe" -> "Niobe, level 5".
                let name = sheet.get_str(NAME).unwrap_or("?");
                let base = name.split(',').next().unwrap_or(name).to_string();
                sheet.set(NAME, format!("{base}, level {turn}").as_str())?;
            }
            entity.pos[1] += 1.0;
        }
    }
    let dead = ids[2];
    let removed = entities.remove(dead).ok_or("entity 2 should be alive")?;
    println!(
        "removed {:?} ({}); its id is now stale: {}",
        dead,
        removed.sheet.get_str(NAME).unwrap_or("?"),
        !entities.contains(dead)
    );

    for (id, entity) in entities.iter() {
        let sheet = entity.sheet;
        println!(
            "  {:?}: {:<18} health {:>5.1}  drunk {:<5}  items {}  ({} keys, {} bytes)",
            id,
            sheet.get_str(NAME).unwrap_or("?"),
            sheet.get_f32(HEALTH).unwrap_or(f32::NAN),
            sheet.get_bool(DRUNK).unwrap_or(false),
            sheet.get_f32s(INVENTORY).map_or(0, <[f32]>::len),
            sheet.len(),
            sheet.capacity(),
        );
    }

    // Save every sheet as raw bytes, then load them into a new table.
    let path = std::env::temp_dir().join(format!("idtable-entity-data-{}.bin", std::process::id()));
    let saved = save(&entities);
    fs::write(&path, &saved)?;
    let read_back = fs::read(&path)?;
    fs::remove_file(&path)?;
    println!(
        "saved {} entities in {} bytes, read them back",
        entities.len(),
        read_back.len()
    );

    let mut reloaded = EntityAllocator::new();
    let mut new_id_of: HashMap<u64, EntityId> = HashMap::new();
    for (old_bits, sheet) in load(&read_back)? {
        let new_id = reloaded.insert(Entity {
            pos: [0.0; 2],
            sheet,
        });
        new_id_of.insert(old_bits, new_id);
    }

    // Every sheet came back identical, key by key and byte for byte.
    assert_eq!(reloaded.len(), entities.len());
    for (id, entity) in entities.iter() {
        let copy = reloaded
            .get(new_id_of[&id.to_bits()])
            .ok_or("a saved entity did not come back")?;
        assert_eq!(copy.sheet, entity.sheet);
        assert_eq!(copy.sheet.as_bytes(), entity.sheet.as_bytes());
        for (key, value) in entity.sheet.iter() {
            assert_eq!(copy.sheet.get(key), Some(value));
        }
    }
    let one = reloaded
        .get(new_id_of[&ids[0].to_bits()])
        .ok_or("missing")?;
    assert!(matches!(one.sheet.get(HEALTH), Some(Value::Float(h)) if h == 100.0 - 5.0 * 7.5));
    println!("all {} sheets reloaded identical", reloaded.len());
    Ok(())
}
