//! The seeded world of the join benchmarks (`joins`, `ecs`): the script
//! every implementation builds from, and idtable's world, a unit table and
//! three `SoaMap`s keyed by it.

use idtable::{SoaAllocator, SoaMap};

/// The seeded world every implementation builds.
pub trait Build {
    type Handle: Copy;
    fn spawn(&mut self, hp: f32) -> Self::Handle;
    fn despawn(&mut self, unit: Self::Handle);
    fn burn(&mut self, unit: Self::Handle, dps: f32);
    fn poison(&mut self, unit: Self::Handle, dose: f32);
    fn freeze(&mut self, unit: Self::Handle, left: f32);
}

/// A seeded xorshift, so every run builds the same world.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// `n` units, a tenth despawned and spawned again (so dense orders
/// differ); then `n` draws of a random unit, which burns with probability
/// `burn` percent, is poisoned at 50% and frozen at 33%.
pub fn build<B: Build>(b: &mut B, n: usize, burn: u64) {
    let mut rng = Rng(0x5eed);
    let mut ids: Vec<B::Handle> = (0..n).map(|i| b.spawn(i as f32)).collect();
    for _ in 0..n / 10 {
        let at = rng.below(ids.len() as u64) as usize;
        b.despawn(ids[at]);
        ids[at] = b.spawn(1.0);
    }
    for _ in 0..n {
        let id = ids[rng.below(ids.len() as u64) as usize];
        if rng.below(100) < burn {
            b.burn(id, 1.0);
        }
        if rng.below(100) < 50 {
            b.poison(id, 0.5);
        }
        if rng.below(100) < 33 {
            b.freeze(id, 2.0);
        }
    }
}

pub fn built<B: Build>(mut b: B, n: usize, burn: u64) -> B {
    build(&mut b, n, burn);
    b
}

#[derive(SoaAllocator)]
pub struct Unit {
    pub hp: f32,
    pub pos: [f32; 2],
}

#[derive(SoaAllocator, Clone)]
pub struct Burning {
    pub dps: f32,
}

#[derive(SoaAllocator)]
pub struct Poisoned {
    pub dose: f32,
}

#[derive(SoaAllocator, Clone)]
pub struct Frozen {
    pub left: f32,
}

pub struct World {
    pub units: UnitAllocator,
    pub burning: SoaMap<UnitId, Burning>,
    pub poisoned: SoaMap<UnitId, Poisoned>,
    pub frozen: SoaMap<UnitId, Frozen>,
}

impl World {
    pub fn new(n: usize) -> Self {
        World {
            units: UnitAllocator::with_capacity(n),
            burning: SoaMap::new(),
            poisoned: SoaMap::new(),
            frozen: SoaMap::new(),
        }
    }
}

impl Build for World {
    type Handle = UnitId;
    fn spawn(&mut self, hp: f32) -> UnitId {
        self.units.insert(Unit { hp, pos: [0.0; 2] })
    }
    fn despawn(&mut self, unit: UnitId) {
        self.units.remove(unit);
    }
    fn burn(&mut self, unit: UnitId, dps: f32) {
        self.burning.insert(unit, Burning { dps });
    }
    fn poison(&mut self, unit: UnitId, dose: f32) {
        self.poisoned.insert(unit, Poisoned { dose });
    }
    fn freeze(&mut self, unit: UnitId, left: f32) {
        self.frozen.insert(unit, Frozen { left });
    }
}
