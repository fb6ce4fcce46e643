//! A particle system of a million particles on a derived structure-of-arrays
//! allocator: the main idtable demo.
//!
//! ```text
//! cargo run --release --example particles
//! cargo run --release --example particles -- --frames 600 --particles 250000
//! cargo run --release --example particles --features rayon -- --parallel
//! ```
//!
//! What it shows:
//!
//! * **`#[derive(SoaAllocator)]`** on a plain `Particle` struct: every field
//!   becomes its own dense column, all columns in one allocation, packed with
//!   no holes (a removal swaps the last particle into the gap).
//! * **Hot loops over `columns_mut()`.** The integration step never touches an
//!   id: it walks the columns as slices. The `[f32; 3]` columns are flattened
//!   with `as_flattened_mut()` / `as_flattened()`, so `pos += vel * dt` is a
//!   loop over two plain `f32` slices that the compiler vectorises.
//!   With `--parallel` (feature `rayon`) the same loops run on rayon's
//!   thread pool: the columns are cut into chunks at the same indices and
//!   each thread runs the serial kernel on its chunks. Every particle sees
//!   the same arithmetic, so the checksum is the same in both modes.
//! * **Churn every frame.** Particles age and die (lifetime over, or fallen
//!   through the floor). One pass over `ids_and_columns_mut()` ages every
//!   particle and notes the ids of the dead (row `i` belongs to `ids[i]`);
//!   they are removed by id after the loop, and emitters spawn new ones to
//!   keep the population at its target. Freed slots are reused FIFO.
//! * **Ids held outside the allocator.** Each emitter remembers the ids of the
//!   particles it spawned, across frames, and never hears about their deaths.
//!   Every frame it resolves each remembered id with `get`: a live id must
//!   lead back to a particle of the same emitter (asserted), a dead one
//!   resolves to nothing — its slot may already hold a new particle, but the
//!   generation in the id no longer matches — and is dropped and counted as
//!   a detected stale id. At the end, every despawned particle must have been
//!   detected exactly once, and each emitter's list must match the particles
//!   that name it, so no stale id can have resolved to a wrong particle.
//!
//! The run is deterministic (an inline SplitMix64 generator, fixed seed): the
//! counts and the checksum are the same on every machine; only the times
//! differ. Options: `--frames N` (default 120: two seconds of game time, in
//! which twice as many particles die and respawn as are alive at once),
//! `--particles N` (default 1,000,000), `--emitters N` (default one per
//! 1,000 particles), `--parallel` (integrate with rayon; needs
//! `--features rayon`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use idtable::{Id, IdBits, LayoutName, SoaAllocator};

/// One particle: 36 bytes spread over five columns.
///
/// The id layout is chosen on purpose. `Id24_8` ids are 4 bytes instead of
/// the default `Id32_32`'s 8, which halves every id held outside the
/// allocator (the emitters keep one per live particle) and the allocator's own
/// dense id array and slot table (a smaller table stays in cache better when
/// ids are resolved at random); 24 index bits address 16.7 million slots,
/// plenty for a million particles. The price is 8 generation bits: a slot can be issued
/// only 255 times, after which the default `on_exhausted = retire` policy
/// retires it for good (so a stale id can never come back to life), and the
/// table moves on to fresh slots. `min_free = 1024` makes freed slots wait in
/// the FIFO queue until 1,024 of them are queued, so even a trickle of
/// spawns and despawns spreads generation wear over many slots instead of
/// wearing out one. The summary prints how much of the id budget the run used
/// and how long it would last at the measured churn; a game that runs for
/// days at this rate should keep the default `Id32_32`.
#[derive(SoaAllocator)]
#[soa(id = idtable::Id24_8, min_free = 1024)]
struct Particle {
    /// Position, metres.
    pos: [f32; 3],
    /// Velocity, metres per second.
    vel: [f32; 3],
    /// Seconds since spawn.
    age: f32,
    /// Seconds the particle lives.
    lifetime: f32,
    /// Index of the emitter that spawned it.
    emitter: u32,
}

/// A fountain that spawns particles and remembers their ids.
struct Emitter {
    pos: [f32; 3],
    /// Ids of the particles this emitter spawned that it believes alive.
    spawned: Vec<ParticleId>,
}

/// Simulation step, seconds (60 frames per second).
const DT: f32 = 1.0 / 60.0;
/// Gravity, metres per second squared.
const GRAVITY: f32 = 9.81;
/// Velocity kept per frame (air drag).
const DRAG: f32 = 0.995;
/// Seed of the generator; change it for another (equally deterministic) run.
const SEED: u64 = 0x1D7A_B1E5_0A11_0CA7;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and good enough for a demo.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32);
        lo + (hi - lo) * unit
    }
}

const USAGE: &str = "usage: particles [--frames N] [--particles N] [--emitters N] [--parallel]";

/// Particles per task of the parallel integration step: large enough that
/// a task's work dwarfs rayon's cost of handing it out, small enough that a
/// million particles make dozens of tasks to balance over the threads.
#[cfg(feature = "rayon")]
const CHUNK: usize = 16 * 1024;

struct Options {
    frames: usize,
    particles: usize,
    emitters: usize,
    /// Integrate on rayon's thread pool.
    parallel: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut frames = 120;
    let mut particles = 1_000_000;
    let mut emitters = None;
    let mut parallel = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            let text = args
                .next()
                .ok_or_else(|| format!("{name} needs a number"))?;
            text.replace('_', "")
                .parse()
                .map_err(|_| format!("{name}: `{text}` is not a number"))
        };
        match arg.as_str() {
            "--frames" => frames = value("--frames")?,
            "--particles" => particles = value("--particles")?,
            "--emitters" => emitters = Some(value("--emitters")?.max(1)),
            "--parallel" if cfg!(feature = "rayon") => parallel = true,
            "--parallel" => {
                return Err(
                    "--parallel runs the integration step with rayon, which this build \
                     does not include: add `--features rayon`, as in\n  \
                     cargo run --release --example particles --features rayon -- --parallel"
                        .to_string(),
                )
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let max = <ParticleId as Id>::MAX_INDEX + 1;
    if particles > max {
        let layout = LayoutName::<ParticleId>::new();
        let max = thousands(max as u64);
        return Err(format!(
            "--particles: at most {max} fit the {layout} layout"
        ));
    }
    Ok(Options {
        frames,
        particles,
        emitters: emitters.unwrap_or((particles / 1000).max(1)),
        parallel,
    })
}

/// Per-frame times of each phase.
#[derive(Default)]
struct Timings {
    frame: Vec<Duration>,
    integrate: Vec<Duration>,
    despawn: Vec<Duration>,
    check: Vec<Duration>,
    spawn: Vec<Duration>,
}

/// Running totals.
#[derive(Default)]
struct Counts {
    spawned: u64,
    expired: u64,
    fell: u64,
    stale_detected: u64,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    run(&options);
    ExitCode::SUCCESS
}

fn run(options: &Options) {
    let Options {
        frames,
        particles: target,
        emitters: emitter_count,
        parallel,
    } = *options;
    print_header(options);

    let mut rng = SplitMix64(SEED);
    let mut emitters: Vec<Emitter> = (0..emitter_count)
        .map(|_| Emitter {
            pos: [
                rng.range(-50.0, 50.0),
                rng.range(0.5, 3.0),
                rng.range(-50.0, 50.0),
            ],
            spawned: Vec::with_capacity(2 * target / emitter_count),
        })
        .collect();
    let mut particles = ParticleAllocator::with_capacity(target);
    let mut counts = Counts::default();

    // Fill to the target with particles of random age, so deaths (and thus
    // spawns) are spread evenly over the frames from the start.
    let start = Instant::now();
    let mut next_emitter = 0;
    spawn(
        &mut particles,
        &mut emitters,
        &mut next_emitter,
        &mut rng,
        target,
        true,
    );
    counts.spawned += target as u64;
    let fill = start.elapsed();

    let mut t = Timings::default();
    let mut dead = Vec::new();
    let run_start = Instant::now();
    for _ in 0..frames {
        let frame_start = Instant::now();

        // 1. Integrate: hot loops over the columns, no id in sight.
        if parallel {
            integrate_parallel(&mut particles);
        } else {
            integrate(&mut particles);
        }
        let after_integrate = Instant::now();

        // 2. Age every particle and despawn whatever expired or fell through
        //    the floor. The ids come with the mutable columns, row for row, so
        //    one pass both writes `age` and notes who died; removing waits
        //    until the loop has let go of the columns. The removed ids go
        //    stale, and their slots join the FIFO free queue.
        let (ids, columns) = particles.ids_and_columns_mut();
        let rows = columns.age.iter_mut().zip(columns.lifetime.iter());
        for ((id, (age, lifetime)), pos) in ids.iter().zip(rows).zip(columns.pos.iter()) {
            *age += DT;
            if *age >= *lifetime {
                counts.expired += 1;
                dead.push(*id);
            } else if pos[1] < 0.0 {
                counts.fell += 1;
                dead.push(*id);
            }
        }
        for id in dead.drain(..) {
            particles.remove(id);
        }
        let after_despawn = Instant::now();

        // 3. Each emitter checks the ids it remembers. Nobody told it which of
        //    its particles died: a stale id simply resolves to nothing.
        for (index, emitter) in emitters.iter_mut().enumerate() {
            emitter.spawned.retain(|&id| match particles.get(id) {
                Some(p) => {
                    assert_eq!(
                        *p.emitter, index as u32,
                        "{id:?} resolved to another emitter's particle"
                    );
                    true
                }
                None => {
                    counts.stale_detected += 1;
                    false
                }
            });
        }
        let after_check = Instant::now();

        // 4. Emitters top the population back up, reusing freed slots.
        let missing = target - particles.len();
        spawn(
            &mut particles,
            &mut emitters,
            &mut next_emitter,
            &mut rng,
            missing,
            false,
        );
        counts.spawned += missing as u64;
        let after_spawn = Instant::now();

        t.integrate.push(after_integrate - frame_start);
        t.despawn.push(after_despawn - after_integrate);
        t.check.push(after_check - after_despawn);
        t.spawn.push(after_spawn - after_check);
        t.frame.push(after_spawn - frame_start);
    }
    let total = run_start.elapsed();

    verify(&particles, &emitters, &counts);
    print_summary(options, &particles, &counts, &mut t, fill, total);
}

/// Spawns `count` particles, handing them to the emitters round-robin.
fn spawn(
    particles: &mut ParticleAllocator,
    emitters: &mut [Emitter],
    next_emitter: &mut usize,
    rng: &mut SplitMix64,
    count: usize,
    random_age: bool,
) {
    for _ in 0..count {
        let index = *next_emitter;
        *next_emitter = (index + 1) % emitters.len();
        let emitter = &mut emitters[index];
        let [x, y, z] = emitter.pos;
        let lifetime = rng.range(0.5, 2.5);
        let id = particles.insert(Particle {
            pos: [x + rng.range(-0.1, 0.1), y, z + rng.range(-0.1, 0.1)],
            vel: [
                rng.range(-1.5, 1.5),
                rng.range(2.0, 6.0),
                rng.range(-1.5, 1.5),
            ],
            age: if random_age {
                rng.range(0.0, lifetime)
            } else {
                0.0
            },
            lifetime,
            emitter: index as u32,
        });
        emitter.spawned.push(id);
    }
}

/// The integration step: every loop runs over whole columns.
fn integrate(particles: &mut ParticleAllocator) {
    let columns = particles.columns_mut();
    integrate_rows(columns.pos, columns.vel);
}

/// The integration step on rayon's pool: the columns are cut into chunks of
/// `CHUNK` rows at the same indices, so each task gets the `pos` and `vel`
/// of the same particles and runs the serial kernel on them.
#[cfg(feature = "rayon")]
fn integrate_parallel(particles: &mut ParticleAllocator) {
    use rayon::prelude::*;

    let columns = particles.columns_mut();
    columns
        .pos
        .par_chunks_mut(CHUNK)
        .zip(columns.vel.par_chunks_mut(CHUNK))
        .for_each(|(pos, vel)| integrate_rows(pos, vel));
}

/// Never called: `--parallel` is rejected when rayon is not built in.
#[cfg(not(feature = "rayon"))]
fn integrate_parallel(_: &mut ParticleAllocator) {
    unreachable!("--parallel needs the rayon feature")
}

/// The integration kernel over rows of the `pos` and `vel` columns (whole
/// columns, or one chunk of each).
fn integrate_rows(pos: &mut [[f32; 3]], vel: &mut [[f32; 3]]) {
    // Per-axis work reads a row as `[f32; 3]`: drag everywhere, gravity on y.
    for v in vel.iter_mut() {
        v[0] *= DRAG;
        v[1] = v[1] * DRAG - GRAVITY * DT;
        v[2] *= DRAG;
    }

    // Uniform work flattens the rows: `pos += vel * dt` over 3n plain `f32`s,
    // no stride, no per-particle branch — this is the loop that vectorises.
    let pos = pos.as_flattened_mut();
    let vel = vel.as_flattened();
    for (p, v) in pos.iter_mut().zip(vel) {
        *p += *v * DT;
    }
}

/// End-of-run checks that would catch a stale id resolving to a wrong
/// particle at any frame: such an id would have stayed in its emitter's list.
fn verify(particles: &ParticleAllocator, emitters: &[Emitter], counts: &Counts) {
    particles.check_invariants();

    // Every despawned particle was detected by its emitter exactly once.
    assert_eq!(counts.stale_detected, counts.expired + counts.fell);
    assert_eq!(
        counts.spawned - counts.stale_detected,
        particles.len() as u64
    );

    // Each emitter's list is exactly the live particles that name it: if a
    // stale id had resolved to a new particle of the same emitter, the list
    // would hold one id too many.
    let mut per_emitter = vec![0usize; emitters.len()];
    for &e in particles.columns().emitter {
        per_emitter[e as usize] += 1;
    }
    for (index, emitter) in emitters.iter().enumerate() {
        assert_eq!(emitter.spawned.len(), per_emitter[index]);
        for &id in &emitter.spawned {
            assert_eq!(particles.get(id).map(|p| *p.emitter), Some(index as u32));
        }
    }
}

fn print_header(options: &Options) {
    let columns = [
        ("pos", "[f32; 3]", size_of::<[f32; 3]>()),
        ("vel", "[f32; 3]", size_of::<[f32; 3]>()),
        ("age", "f32", size_of::<f32>()),
        ("lifetime", "f32", size_of::<f32>()),
        ("emitter", "u32", size_of::<u32>()),
    ];
    let bytes: usize = columns.iter().map(|c| c.2).sum();
    let list: Vec<String> = columns.iter().map(|c| format!("{} {}", c.0, c.1)).collect();
    println!("idtable particles: #[derive(SoaAllocator)] struct Particle");
    println!(
        "  {} particles, {} emitters, {} frames at dt = 1/60 s",
        thousands(options.particles as u64),
        thousands(options.emitters as u64),
        options.frames
    );
    println!(
        "  columns  {} = {bytes} B per particle, one allocation",
        list.join(", ")
    );
    println!(
        "  ids      ParticleId = {}, {} B: {} slots x {} generations, \
         then retired; min_free = {}",
        LayoutName::<ParticleId>::new(),
        size_of::<ParticleId>(),
        thousands(slots() as u64),
        <ParticleId as Id>::MAX_GENERATION,
        ParticleAllocator::new().id_table().config().min_free
    );
    println!(
        "  frame    integrate (columns_mut) -> age, despawn (ids_and_columns_mut, remove) -> \
         emitters check their ids (get) -> spawn (insert)"
    );
    println!("  mode     {}", mode(options));
    println!();
}

/// How the integration step runs, for the header.
fn mode(options: &Options) -> String {
    #[cfg(feature = "rayon")]
    if options.parallel {
        return format!(
            "parallel: integrate on rayon's pool of {} threads, chunks of {} particles; \
             the rest of the frame serial",
            rayon::current_num_threads(),
            thousands(CHUNK as u64)
        );
    }
    let _ = options;
    let hint = if cfg!(feature = "rayon") {
        "--parallel"
    } else {
        "--features rayon -- --parallel"
    };
    format!("serial: one thread (parallel integration: {hint})")
}

fn print_summary(
    options: &Options,
    particles: &ParticleAllocator,
    counts: &Counts,
    t: &mut Timings,
    fill: Duration,
    total: Duration,
) {
    let despawned = counts.expired + counts.fell;
    let per_frame = if options.frames == 0 {
        0.0
    } else {
        (counts.spawned - options.particles as u64) as f64 / options.frames as f64
    };
    println!("live particles   {}", thousands(particles.len() as u64));
    println!(
        "spawned          {} ({} initial + {} per frame)",
        thousands(counts.spawned),
        thousands(options.particles as u64),
        thousands(per_frame.round() as u64)
    );
    println!(
        "despawned        {} ({} expired, {} fell through the floor)",
        thousands(despawned),
        thousands(counts.expired),
        thousands(counts.fell)
    );
    println!(
        "stale ids        {} detected by emitters, 0 resolved to a wrong particle",
        thousands(counts.stale_detected)
    );
    println!(
        "frame time       median {}, p95 {}, max {} ({} frames in {})",
        ms(percentile(&mut t.frame, 50)),
        ms(percentile(&mut t.frame, 95)),
        ms(percentile(&mut t.frame, 100)),
        options.frames,
        ms(total)
    );
    let phases = [
        (
            "integrate",
            &mut t.integrate,
            "particle",
            if options.parallel {
                "columns_mut, parallel"
            } else {
                "columns_mut, sequential"
            },
        ),
        (
            "despawn",
            &mut t.despawn,
            "particle",
            "ids_and_columns_mut, remove",
        ),
        ("id check", &mut t.check, "id", "get, random access"),
        ("spawn", &mut t.spawn, "spawn", "insert"),
    ];
    for (name, times, unit, how) in phases {
        let median = percentile(times, 50);
        let items = if unit == "spawn" {
            per_frame
        } else {
            options.particles as f64
        };
        let each = if items > 0.0 {
            median.as_secs_f64() * 1e9 / items
        } else {
            0.0
        };
        println!(
            "  {name:<14} median {:>9}, {each:>5.1} ns per {unit:<8} ({how})",
            ms(median)
        );
    }
    println!("initial fill     {}", ms(fill));

    let table = particles.id_table();
    let highest = particles
        .ids()
        .iter()
        .map(|id| id.generation())
        .max()
        .unwrap_or(0);
    let retired = table.slot_count() - table.len() - table.free_count();
    println!(
        "id table         {} of {} slots used, {} queued free, {} retired, \
         highest generation {} of {}",
        thousands(table.slot_count() as u64),
        thousands(slots() as u64),
        thousands(table.free_count() as u64),
        thousands(retired as u64),
        highest,
        <ParticleId as Id>::MAX_GENERATION
    );
    if per_frame > 0.0 {
        // Every slot can be issued MAX_GENERATION times; then it retires.
        let per_second = per_frame * 60.0;
        let seconds = |budget: f64| budget / per_second;
        println!(
            "  id budget      {:.2e} ids in all: each slot is issued {} times, then retired \
             (never reused, so no id is issued twice)",
            id_budget::<ParticleId>(),
            <ParticleId as Id>::MAX_GENERATION,
        );
        println!(
            "                 at this churn ({} spawns/s at 60 fps) every slot is retired after {}; \
             then insert panics and try_insert gives the particle back",
            thousands(per_second as u64),
            span(seconds(id_budget::<ParticleId>())),
        );
        println!(
            "                 (the default Id32_32 layout, 8 B per id, would last {})",
            span(seconds(id_budget::<idtable::Id32_32>()))
        );
    }
    println!("checksum         {:#018x}", checksum(particles));
}

/// Number of slots the id layout can address.
fn slots() -> usize {
    <ParticleId as Id>::MAX_INDEX + 1
}

/// How many ids layout `I` can issue before every slot is retired.
fn id_budget<I: Id>() -> f64 {
    (I::MAX_INDEX + 1) as f64 * I::MAX_GENERATION.to_u64() as f64
}

/// A number of seconds in the largest unit that keeps it readable.
fn span(seconds: f64) -> String {
    const UNITS: [(f64, &str); 4] = [
        (365.25 * 86400.0, "years"),
        (86400.0, "days"),
        (3600.0, "hours"),
        (60.0, "minutes"),
    ];
    match UNITS.iter().find(|(unit, _)| seconds >= *unit) {
        Some((unit, name)) if seconds / unit >= 100.0 => {
            format!("{} {name}", thousands((seconds / unit) as u64))
        }
        Some((unit, name)) => format!("{:.1} {name}", seconds / unit),
        None => format!("{seconds:.0} s"),
    }
}

/// FNV-1a over every particle's id and position, in dense order.
fn checksum(particles: &ParticleAllocator) -> u64 {
    let mut hash = 0xCBF2_9CE4_8422_2325u64;
    let mut mix = |word: u32| {
        hash ^= u64::from(word);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    };
    for (id, pos) in particles.ids().iter().zip(particles.columns().pos) {
        mix(id.to_bits());
        pos.iter().for_each(|p| mix(p.to_bits()));
    }
    hash
}

/// The `p`-th percentile (nearest rank) of `times`; sorts them.
fn percentile(times: &mut [Duration], p: usize) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort_unstable();
    let rank = (p * times.len()).div_ceil(100).max(1);
    times[rank - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
