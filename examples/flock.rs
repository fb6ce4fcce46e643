//! A flock of boids with shaped columns: positions nested (`pos.x`,
//! `pos.y` are columns of their own), velocities split (`vel[0]`,
//! `vel[1]`), every column at a multiple of 64 bytes; the integration step
//! runs over ranges of rows, on rayon's threads with `--parallel` (feature
//! `rayon`), one job per range; a `SoaMap<BoidId, f32>` of plain values
//! counts how often each boid hit the walls (`entry`), and a
//! `SoaMap<BoidId, ()>` is the set of boids that left the field and will be
//! respawned.
//!
//! Every frame: the step integrates the columns it needs (only `pos.x` and
//! `vel[0]` in the x pass, only `pos.y` and `vel[1]` in the y pass), boids
//! that reach a wall bounce and are counted, boids too fast are removed and
//! respawned into their freed slots. The example checks the step against
//! the same step written over the rows, then prints a summary.
//!
//! Run it with `cargo run --release --example flock` (add `-- --frames N`,
//! and `--features rayon` with `-- --parallel`).

use idtable::{SoaAllocator, SoaMap};

/// A 2-float vector, columns only: it is nested, never stored alone.
#[derive(SoaAllocator, Clone, Copy, Debug, PartialEq)]
#[soa(parts_only)]
pub struct V2 {
    pub x: f32,
    pub y: f32,
}

#[derive(SoaAllocator, Clone, Debug, PartialEq)]
#[soa(align = 64)]
pub struct Boid {
    /// Columns `pos.x` and `pos.y`.
    #[soa(nested)]
    pub pos: V2,
    /// Columns `vel[0]` and `vel[1]`.
    #[soa(split)]
    pub vel: [f32; 2],
    pub flock: u8,
}

const N: usize = 200_000;
const DT: f32 = 1.0 / 60.0;
const SIZE: f32 = 100.0;
const MAX_SPEED: f32 = 10.5;
/// Rows per job of the step.
const CHUNK: usize = 4096;

/// A small deterministic generator (xorshift64*), so runs repeat.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    }

    fn boid(&mut self) -> Boid {
        Boid {
            pos: V2 {
                x: self.unit() * SIZE,
                y: self.unit() * SIZE,
            },
            vel: [self.unit() * 20.0 - 10.0, self.unit() * 20.0 - 10.0],
            flock: (self.unit() * 4.0) as u8,
        }
    }
}

/// One axis of the step over a range of rows: move, bounce off the walls.
/// Reads and writes only this axis's position and velocity columns.
fn step_axis(pos: &mut [f32], vel: &mut [f32]) {
    for (p, v) in pos.iter_mut().zip(vel.iter_mut()) {
        *p += *v * DT;
        if !(0.0..=SIZE).contains(p) {
            *p = p.clamp(0.0, SIZE);
            *v = -*v * 1.1;
        }
    }
}

/// The step over one range of rows (a job): both axes, one after the other.
fn step(rows: BoidColumnsMut<'_>) {
    let [vx, vy] = rows.vel.into_columns();
    step_axis(rows.pos.x, vx);
    step_axis(rows.pos.y, vy);
}

fn step_all(boids: &mut BoidAllocator, parallel: bool) {
    if parallel {
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            boids.columns_mut().par_chunks_mut(CHUNK).for_each(step);
            return;
        }
    }
    boids.columns_mut().chunks_mut(CHUNK).for_each(step);
}

/// The same step written over the rows, for the check.
fn step_rows(boids: &mut BoidAllocator) {
    for (_, b) in boids.iter_mut() {
        for (p, v) in [b.pos.x, b.pos.y].into_iter().zip(b.vel) {
            *p += *v * DT;
            if !(0.0..=SIZE).contains(p) {
                *p = p.clamp(0.0, SIZE);
                *v = -*v * 1.1;
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let frames: u32 = match args.iter().skip_while(|a| *a != "--frames").nth(1) {
        Some(n) => n.parse().expect("--frames takes a number"),
        None => 300,
    };
    let parallel = args.iter().any(|a| a == "--parallel");
    if parallel && cfg!(not(feature = "rayon")) {
        eprintln!("--parallel needs the rayon feature: cargo run --release --features rayon --example flock -- --parallel");
        std::process::exit(2);
    }

    let mut rng = Rng(0x5eed_b01d);
    let mut boids: BoidAllocator = (0..N).map(|_| rng.boid()).collect();
    let mut bounces: SoaMap<BoidId, f32> = SoaMap::new();
    let mut leaving: SoaMap<BoidId, ()> = SoaMap::new();

    // The column step gives what the row step gives.
    let mut by_rows = boids.clone();
    step_all(&mut boids, parallel);
    step_rows(&mut by_rows);
    assert!(boids == by_rows, "the column step and the row step differ");
    let cols = boids.columns();
    assert_eq!(cols.pos.x.as_ptr() as usize % 64, 0);
    assert_eq!(cols.vel.column(1).as_ptr() as usize % 64, 0);

    let started = std::time::Instant::now();
    let mut respawned = 0usize;
    for _ in 0..frames {
        step_all(&mut boids, parallel);
        // Count the boids at a wall; mark the ones that got too fast.
        let (ids, cols) = boids.ids_and_columns_mut();
        for (row, &id) in ids.iter().enumerate() {
            let (x, y) = (cols.pos.x[row], cols.pos.y[row]);
            if x == 0.0 || x == SIZE || y == 0.0 || y == SIZE {
                *bounces.entry(id).expect("a live boid's key").or_insert(0.0) += 1.0;
            }
            if cols.vel.column(0)[row]
                .abs()
                .max(cols.vel.column(1)[row].abs())
                > MAX_SPEED
            {
                leaving.insert(id, ());
            }
        }
        // The fast ones leave and new boids take their slots.
        for (id, ()) in leaving.drain() {
            boids.remove(id);
            bounces.remove(id);
            boids.insert(rng.boid());
            respawned += 1;
        }
    }
    let elapsed = started.elapsed();

    assert_eq!(boids.len(), N);
    assert!(bounces.keys().iter().all(|&id| boids.contains(id)));
    let (most, count) =
        bounces
            .iter()
            .map(|(id, n)| (id, *n))
            .fold(
                (None, 0.0),
                |best, (id, n)| if n > best.1 { (Some(id), n) } else { best },
            );
    let mean_x: f32 = boids.columns().pos.x.iter().sum::<f32>() / N as f32;
    println!(
        "{N} boids, {frames} frames in {:.1} ms ({}): {respawned} respawned, {} bounced \
         (most: {count} times, boid {:?}), mean x {mean_x:.1}",
        elapsed.as_secs_f64() * 1e3,
        if parallel {
            "rayon, chunks of 4096"
        } else {
            "serial, chunks of 4096"
        },
        bounces.len(),
        most.map(|id| id.index()),
    );
}
