//! Projectiles spawned from parallel systems: ids reserved from a shared
//! borrow.
//!
//! Two teams of units shoot at each other. The firing system runs on two
//! threads, each over half of the unit table, and both hold only `&` of the
//! projectile table. A unit that fires takes the new projectile's id at once
//! with `reserve_id()` and links it from its own row (`last_shot`) in the
//! same pass; the projectile's row and its `Homing` component (a `SoaMap`
//! keyed by projectile ids, targeting a unit) are filled after the parallel
//! step with `insert_reserved`. No spawn is buffered without its id, and no
//! link is patched afterwards.
//!
//! Then projectiles steer towards their targets (a join of the projectile
//! table and the `Homing` map), hit or expire, and leave every container at
//! once (`remove_all`); dead units are replaced. Each frame the example
//! asserts that every link resolves to the object it was made for, or to
//! nothing: a unit's `last_shot` is a projectile that unit fired, every
//! `Homing` belongs to a live projectile, a dead target is never hit.
//!
//! Run it with `cargo run --release --example projectiles` (add
//! `-- --frames N --units N` for another run).

use std::ops::Range;

use idtable::{join, remove_all, SoaAllocator, SoaMap};

#[derive(SoaAllocator)]
pub struct Unit {
    pub pos: [f32; 2],
    pub hp: i32,
    pub team: u8,
    /// Frames until the unit may fire again.
    pub cooldown: u32,
    /// The last projectile this unit fired (maybe gone since).
    pub last_shot: Option<ProjectileId>,
}

#[derive(SoaAllocator)]
pub struct Projectile {
    pub pos: [f32; 2],
    pub damage: i32,
    pub owner: UnitId,
    /// The owner's team: a projectile only ever aims at the other one.
    pub team: u8,
    pub frames_left: u32,
}

/// What a projectile flies at.
#[derive(SoaAllocator)]
pub struct Homing {
    pub target: UnitId,
}

/// A projectile whose id is reserved and whose row waits for `&mut`.
struct Spawn {
    id: ProjectileId,
    shot: Projectile,
    target: UnitId,
}

const SPEED: f32 = 2.0;
const HIT_RADIUS: f32 = 0.75;

/// The firing system over rows `rows` of the unit table: the columns it
/// writes are this thread's part; ids, positions and teams are shared reads.
#[allow(clippy::too_many_arguments)]
fn fire(
    rows: Range<usize>,
    ids: &[UnitId],
    pos: &[[f32; 2]],
    team: &[u8],
    cooldown: &mut [u32],
    last_shot: &mut [Option<ProjectileId>],
    projectiles: &ProjectileAllocator,
    frame: usize,
) -> Vec<Spawn> {
    let mut spawns = Vec::new();
    for (k, row) in rows.enumerate() {
        if cooldown[k] > 0 {
            cooldown[k] -= 1;
            continue;
        }
        // A target of the other team, chosen by row (no id involved).
        let n = ids.len();
        let pick = (0..n)
            .map(|step| (row * 7919 + frame * 31 + step * 104_729) % n)
            .find(|&other| team[other] != team[row]);
        let Some(other) = pick else { continue };
        let id = projectiles.reserve_id(); // `&self`: lock-free
        last_shot[k] = Some(id);
        cooldown[k] = 20 + (row % 7) as u32;
        spawns.push(Spawn {
            id,
            shot: Projectile {
                pos: pos[row],
                damage: 3 + (row % 5) as i32,
                owner: ids[row],
                team: team[row],
                frames_left: 60,
            },
            target: ids[other],
        });
    }
    spawns
}

fn spawn_unit(units: &mut UnitAllocator, serial: usize) -> UnitId {
    let x = (serial * 37 % 200) as f32;
    let y = (serial * 91 % 200) as f32;
    units.insert(Unit {
        pos: [x, y],
        hp: 30,
        team: (serial % 2) as u8,
        cooldown: (serial % 20) as u32,
        last_shot: None,
    })
}

fn main() {
    let arg = |name: &str, default: usize| -> usize {
        let value = std::env::args().skip_while(|a| a != name).nth(1);
        value.map_or(default, |v| v.parse().expect("a number"))
    };
    let (frames, population) = (arg("--frames", 300), arg("--units", 10_000).max(2));

    let mut units = UnitAllocator::new();
    let mut projectiles = ProjectileAllocator::new();
    let mut homing = SoaMap::<ProjectileId, Homing>::new();
    let mut spawned_units = 0;
    while units.len() < population {
        spawn_unit(&mut units, spawned_units);
        spawned_units += 1;
    }
    let (mut fired, mut hits, mut missed, mut kills, mut stale_targets) = (0, 0, 0, 0, 0);

    for frame in 0..frames {
        // 1. Fire, on two threads over halves of the unit table. Each
        //    reserves the ids of its projectiles from the shared table and
        //    links them from its own rows at once.
        let (ids, cols) = units.ids_and_columns_mut();
        let half = ids.len() / 2;
        let (pos, team) = (&*cols.pos, &*cols.team);
        let (cool_a, cool_b) = cols.cooldown.split_at_mut(half);
        let (shot_a, shot_b) = cols.last_shot.split_at_mut(half);
        let shared = &projectiles;
        let spawns: Vec<Spawn> = std::thread::scope(|s| {
            let other = s.spawn(move || {
                fire(
                    half..ids.len(),
                    ids,
                    pos,
                    team,
                    cool_b,
                    shot_b,
                    shared,
                    frame,
                )
            });
            let mut spawns = fire(0..half, ids, pos, team, cool_a, shot_a, shared, frame);
            spawns.extend(other.join().expect("the firing thread panicked"));
            spawns
        });

        // 2. Fill the reserved rows, now that the table is ours again.
        assert_eq!(projectiles.reserved_len(), spawns.len());
        fired += spawns.len();
        for Spawn { id, shot, target } in spawns {
            assert!(projectiles.get(id).is_none(), "a reservation resolved");
            homing.insert(id, Homing { target });
            if projectiles.insert_reserved(id, shot).is_err() {
                unreachable!("{id:?} was reserved this frame and filled once");
            }
        }
        assert_eq!(projectiles.reserved_len(), 0);

        // 3. Fly: every projectile with a `Homing` steers at its target's
        //    position; a dead target's id resolves to nothing.
        let mut done = Vec::new();
        for (id, (shot, aim)) in join((&mut projectiles, &homing)) {
            *shot.frames_left -= 1;
            let Some(target) = units.get(*aim.target) else {
                stale_targets += 1;
                done.push((id, None));
                continue;
            };
            let (dx, dy) = (target.pos[0] - shot.pos[0], target.pos[1] - shot.pos[1]);
            let dist = (dx * dx + dy * dy).sqrt();
            if dist <= HIT_RADIUS.max(SPEED) {
                done.push((id, Some((*aim.target, *shot.damage))));
            } else if *shot.frames_left == 0 {
                done.push((id, None));
            } else {
                shot.pos[0] += dx / dist * SPEED;
                shot.pos[1] += dy / dist * SPEED;
            }
        }

        // 4. Hits and misses leave the table and the map in one call.
        for (id, hit) in done {
            match hit {
                Some((target, damage)) => {
                    let unit = units.get_mut(target).expect("hit only live targets");
                    *unit.hp -= damage;
                    hits += 1;
                }
                None => missed += 1,
            }
            let (shot, aim) = remove_all(id, (&mut projectiles, &mut homing));
            assert!(shot.is_some() && aim.is_some());
        }

        // 5. The dead are replaced; their ids go stale for everyone.
        kills += units.extract_if(|_, unit| *unit.hp <= 0).count();
        while units.len() < population {
            spawn_unit(&mut units, spawned_units);
            spawned_units += 1;
        }

        // Every link resolves to the object it was made for, or to nothing.
        for (unit, row) in &units {
            if let Some(last) = row.last_shot.and_then(|id| projectiles.get(id)) {
                assert_eq!(
                    *last.owner, unit,
                    "frame {frame}: a unit's last shot is not its own"
                );
            }
        }
        assert_eq!(homing.len(), projectiles.len(), "frame {frame}");
        assert!(homing.keys().iter().all(|&id| projectiles.contains(id)));
        for (_, (shot, aim)) in join((&projectiles, &homing)) {
            if let Some(target) = units.get(*aim.target) {
                assert_ne!(*target.team, *shot.team, "frame {frame}: aimed at a friend");
            }
        }
    }

    let in_flight = projectiles.len();
    assert_eq!(fired, hits + missed + in_flight);
    println!(
        "{frames} frames, {population} units: {fired} projectiles fired from two threads \
         (ids reserved from a shared borrow), {hits} hits, {missed} misses, {in_flight} in \
         flight, {kills} units killed and replaced, {stale_targets} projectiles found their \
         target gone; every link resolved to its own object or to nothing"
    );
}
