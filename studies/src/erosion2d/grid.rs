//! The 2-D grid of [Boulmier 2019, §IV-B]: `(P·W) × H` cells, one rock disc of radius `R` centred
//! in each initial stripe of `W` columns, and their erosion.
//!
//! A cell is *rock* (inside a disc, not yet eroded; no work), *fluid* (outside every disc; one
//! unit of work) or *eroded* (a former rock cell, now four fluid cells: four units of work).
//! No byte is stored per cell: a cell's state follows from its disc and the disc's eroded-set,
//! a bitset over the disc's bounding square. A rock cell with a non-rock 4-neighbour is on the
//! *front*; each of its non-rock neighbours erodes it with the rock's probability `p`, so it
//! erodes with probability `1 − (1 − p)^k`, `k` the non-rock neighbours at the start of the
//! iteration (one per neighbouring cell, refined or not). Only front cells are visited, so an
//! iteration costs O(front). The draws hash the seed, the rock, the iteration and the cell:
//! the erosion does not depend on the order of the visit nor on the partition, so every
//! balancing policy replays the same erosion ([`Trace`]).

use plume::hash::mix64;

/// Erosion probability of a weakly erodible rock's cell, per eroding neighbour and iteration.
pub const WEAK: f64 = 0.02;
/// Erosion probability of a strongly erodible rock's cell.
pub const STRONG: f64 = 0.4;
/// Work of a fluid cell.
pub const FLUID_WORK: u32 = 1;
/// Work of an eroded rock cell: four fluid cells.
pub const ERODED_WORK: u32 = 4;

/// The grid's size: `procs` initial stripes of `stripe_width` columns, `height` rows, rock
/// discs of `radius` cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Geometry {
    /// Processing elements P, which is also the number of rocks.
    pub procs: usize,
    /// Columns per initial stripe, W.
    pub stripe_width: usize,
    /// Rows, H.
    pub height: usize,
    /// Radius of every rock, R (cells).
    pub radius: usize,
}

impl Geometry {
    /// [Boulmier 2019]'s scale: 1000 × 1000 cells per PE, rocks of radius 250.
    pub fn seed_scale(procs: usize) -> Geometry {
        Geometry {
            procs,
            stripe_width: 1000,
            height: 1000,
            radius: 250,
        }
    }

    /// Columns of the grid, `P·W`.
    pub fn columns(&self) -> usize {
        self.procs * self.stripe_width
    }

    /// Checks that the grid exists and that the discs fit their stripes with a gap (no two
    /// discs touch, no disc touches the border).
    ///
    /// # Errors
    /// A message naming the size at fault.
    pub fn check(&self) -> Result<(), String> {
        if self.procs == 0 {
            return Err("the grid needs at least one PE".into());
        }
        if self.radius == 0 {
            return Err("the rock radius must be at least 1 cell".into());
        }
        let side = 2 * self.radius;
        if side >= self.stripe_width || side >= self.height {
            return Err(format!(
                "a rock of radius {} does not fit a stripe of {} × {} cells with a gap",
                self.radius, self.stripe_width, self.height
            ));
        }
        let cells = self.columns() as u128 * self.height as u128;
        if self.columns() > u32::MAX as usize || self.height > u32::MAX as usize || cells > 1 << 40
        {
            return Err(format!(
                "a grid of {} × {} cells is too large",
                self.columns(),
                self.height
            ));
        }
        Ok(())
    }
}

/// The state of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// Rock, not eroded: no work.
    Rock,
    /// Fluid from the start: one unit of work.
    Fluid,
    /// Eroded rock, refined into four fluid cells: four units of work.
    Eroded,
}

impl Cell {
    /// The cell's work per iteration.
    pub fn work(self) -> u32 {
        match self {
            Cell::Rock => 0,
            Cell::Fluid => FLUID_WORK,
            Cell::Eroded => ERODED_WORK,
        }
    }
}

/// A set of cell indices of one square.
#[derive(Debug, Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn get(&self, i: u32) -> bool {
        self.0[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }
    fn set(&mut self, i: u32) {
        self.0[(i >> 6) as usize] |= 1 << (i & 63);
    }
    fn clear(&mut self, i: u32) {
        self.0[(i >> 6) as usize] &= !(1 << (i & 63));
    }
}

/// One rock disc and its erosion. Cells are indexed in the disc's bounding square of side
/// `2R`, `ly · 2R + lx`.
#[derive(Debug, Clone)]
struct Rock {
    /// First column and row of the bounding square.
    x0: usize,
    y0: usize,
    radius: usize,
    /// Erosion probability of a front cell with `k` non-rock neighbours, `k = 0..=4`.
    erode_with: [f64; 5],
    /// Seed of the rock's draws.
    seed: u64,
    eroded: Bits,
    in_front: Bits,
    front: Vec<u32>,
}

impl Rock {
    fn new(x0: usize, y0: usize, radius: usize, probability: f64, seed: u64) -> Rock {
        let side = 2 * radius;
        let erode_with = std::array::from_fn(|k| 1.0 - (1.0 - probability).powi(k as i32));
        let mut rock = Rock {
            x0,
            y0,
            radius,
            erode_with,
            seed,
            eroded: Bits::new(side * side),
            in_front: Bits::new(side * side),
            front: Vec::new(),
        };
        // Front cells: the ends of every row's chord, and the cells a shorter row above or
        // below leaves exposed.
        for ly in 0..side as i64 {
            let Some(row) = rock.chord(ly) else { continue };
            let inner = [ly - 1, ly + 1]
                .iter()
                .map(|&n| rock.chord(n).unwrap_or(0..0))
                .fold(row.start + 1..row.end - 1, |a, b| {
                    a.start.max(b.start)..a.end.min(b.end)
                });
            for lx in row {
                if !inner.contains(&lx) {
                    let c = rock.index(lx, ly);
                    rock.in_front.set(c);
                    rock.front.push(c);
                }
            }
        }
        rock
    }

    /// The columns `lx` of row `ly` inside the disc, `None` for a row outside it (the disc is
    /// symmetric: also the rows of column `ly`).
    fn chord(&self, ly: i64) -> Option<std::ops::Range<i64>> {
        let r = self.radius as i64;
        if !(0..2 * r).contains(&ly) {
            return None;
        }
        // (2lx + 1 − 2R)² ≤ 4R² − (2ly + 1 − 2R)²: |2lx + 1 − 2R| ≤ s, s the integer root.
        let dy = 2 * ly + 1 - 2 * r;
        let s = (4 * r * r - dy * dy).isqrt();
        // 2lx + 1 − 2R ∈ [−s, s] with 2lx + 1 − 2R odd.
        let lo = (2 * r - 1 - s + 1).div_euclid(2);
        let hi = (2 * r - 1 + s).div_euclid(2);
        (lo <= hi).then_some(lo..hi + 1)
    }

    fn side(&self) -> i64 {
        2 * self.radius as i64
    }

    fn index(&self, lx: i64, ly: i64) -> u32 {
        (ly * self.side() + lx) as u32
    }

    fn coords(&self, c: u32) -> (i64, i64) {
        let side = self.side();
        (i64::from(c) % side, i64::from(c) / side)
    }

    /// Inside the disc: the cell's centre within `R` of the square's centre.
    fn in_disc(&self, lx: i64, ly: i64) -> bool {
        let (side, r) = (self.side(), self.radius as i64);
        if !(0..side).contains(&lx) || !(0..side).contains(&ly) {
            return false;
        }
        let (dx, dy) = (2 * lx + 1 - 2 * r, 2 * ly + 1 - 2 * r);
        dx * dx + dy * dy <= 4 * r * r
    }

    fn is_rock(&self, lx: i64, ly: i64) -> bool {
        self.in_disc(lx, ly) && !self.eroded.get(self.index(lx, ly))
    }

    /// Non-rock 4-neighbours of a cell of the square.
    fn open_sides(&self, lx: i64, ly: i64) -> usize {
        NEIGHBOURS
            .iter()
            .filter(|(dx, dy)| !self.is_rock(lx + dx, ly + dy))
            .count()
    }

    /// One iteration: draws every front cell against the state at the start of the
    /// iteration, then erodes the drawn cells and extends the front to their rock
    /// neighbours. Pushes the grid column and row of every eroded cell onto `eroded`.
    fn step(&mut self, iteration: usize, eroded: &mut Vec<(u32, u32)>) {
        let start = eroded.len();
        let salt = self.seed ^ mix64(iteration as u64);
        for &c in &self.front {
            let draw = mix64(salt.wrapping_add(u64::from(c).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            let unit = (draw >> 11) as f64 / (1u64 << 53) as f64;
            // Count the open sides only when the draw could erode with all four open.
            if unit >= self.erode_with[4] {
                continue;
            }
            let (lx, ly) = self.coords(c);
            if unit < self.erode_with[self.open_sides(lx, ly)] {
                eroded.push(((self.x0 as i64 + lx) as u32, (self.y0 as i64 + ly) as u32));
            }
        }
        let new = &eroded[start..];
        if new.is_empty() {
            return;
        }
        for &(x, y) in new {
            let c = self.index(x as i64 - self.x0 as i64, y as i64 - self.y0 as i64);
            self.eroded.set(c);
            self.in_front.clear(c);
        }
        let (eroded_set, front) = (&self.eroded, &mut self.front);
        front.retain(|&c| !eroded_set.get(c));
        for &(x, y) in new {
            let (lx, ly) = (x as i64 - self.x0 as i64, y as i64 - self.y0 as i64);
            for (dx, dy) in NEIGHBOURS {
                let (nx, ny) = (lx + dx, ly + dy);
                if self.is_rock(nx, ny) {
                    let n = self.index(nx, ny);
                    if !self.in_front.get(n) {
                        self.in_front.set(n);
                        self.front.push(n);
                    }
                }
            }
        }
    }
}

const NEIGHBOURS: [(i64, i64); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The grid: its rocks, their erosion, and the work of every column kept up to date.
#[derive(Debug, Clone)]
pub struct Grid {
    geometry: Geometry,
    rocks: Vec<Rock>,
    strong: Vec<u32>,
    column_work: Vec<u32>,
}

impl Grid {
    /// The grid of `geometry` with the rocks listed in `strong` strongly erodible, the others
    /// weakly, the draws seeded by `seed`.
    ///
    /// # Errors
    /// When the geometry is invalid ([`Geometry::check`]) or a strong rock does not exist.
    pub fn new(geometry: Geometry, strong: &[u32], seed: u64) -> Result<Grid, String> {
        geometry.check()?;
        if let Some(&k) = strong.iter().find(|&&k| k as usize >= geometry.procs) {
            return Err(format!(
                "strong rock {k} does not exist: there are {} rocks",
                geometry.procs
            ));
        }
        let (w, h, r) = (geometry.stripe_width, geometry.height, geometry.radius);
        let rocks: Vec<Rock> = (0..geometry.procs)
            .map(|k| {
                let probability = if strong.contains(&(k as u32)) {
                    STRONG
                } else {
                    WEAK
                };
                let rock_seed = mix64(seed ^ mix64(0x524F_434B_0000_0000 | k as u64));
                Rock::new(k * w + w / 2 - r, h / 2 - r, r, probability, rock_seed)
            })
            .collect();
        let mut column_work = vec![(h as u32) * FLUID_WORK; geometry.columns()];
        for rock in &rocks {
            for lx in 0..rock.side() {
                let disc = rock.chord(lx).map_or(0, |c| c.end - c.start) as u32;
                column_work[rock.x0 + lx as usize] -= disc * FLUID_WORK;
            }
        }
        let mut strong = strong.to_vec();
        strong.sort_unstable();
        Ok(Grid {
            geometry,
            rocks,
            strong,
            column_work,
        })
    }

    /// The grid's size.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The strongly erodible rocks, ascending.
    pub fn strong(&self) -> &[u32] {
        &self.strong
    }

    /// The work of every column (the sum of its cells' [`Cell::work`]).
    pub fn column_work(&self) -> &[u32] {
        &self.column_work
    }

    /// Rock cells on the front, over all rocks.
    pub fn front_len(&self) -> usize {
        self.rocks.iter().map(|r| r.front.len()).sum()
    }

    /// The state of cell `(x, y)` (`x < P·W`, `y < H`; cells outside are fluid).
    pub fn cell(&self, x: usize, y: usize) -> Cell {
        let rock = &self.rocks[(x / self.geometry.stripe_width).min(self.rocks.len() - 1)];
        let (lx, ly) = (x as i64 - rock.x0 as i64, y as i64 - rock.y0 as i64);
        if !rock.in_disc(lx, ly) {
            Cell::Fluid
        } else if rock.eroded.get(rock.index(lx, ly)) {
            Cell::Eroded
        } else {
            Cell::Rock
        }
    }

    /// Iteration `iteration` of the erosion: every rock's front draws, eroded cells turn
    /// into four fluid cells. Replaces `eroded` with the `(column, row)` of every cell eroded,
    /// rock by rock, and adds their work to the column sums. O(front).
    pub fn step(&mut self, iteration: usize, eroded: &mut Vec<(u32, u32)>) {
        eroded.clear();
        for rock in &mut self.rocks {
            rock.step(iteration, eroded);
        }
        for &(x, _) in eroded.iter() {
            self.column_work[x as usize] += ERODED_WORK;
        }
    }
}

/// The erosion of a whole run, recorded once and replayed by every policy: the initial work
/// of every column and, per iteration, the column of every cell eroded.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The grid's size.
    pub geometry: Geometry,
    /// The strongly erodible rocks, ascending.
    pub strong: Vec<u32>,
    /// Work of every column before the first iteration.
    pub initial_work: Vec<u32>,
    /// The grid after the last iteration.
    pub last: Grid,
    offsets: Vec<usize>,
    columns: Vec<u32>,
}

impl Trace {
    /// Runs the erosion of `grid` for `iterations` iterations and records it.
    pub fn record(mut grid: Grid, iterations: usize) -> Trace {
        let initial_work = grid.column_work.clone();
        let mut offsets = Vec::with_capacity(iterations + 1);
        let mut columns = Vec::new();
        let mut eroded = Vec::new();
        offsets.push(0);
        for i in 0..iterations {
            grid.step(i, &mut eroded);
            columns.extend(eroded.iter().map(|&(x, _)| x));
            offsets.push(columns.len());
        }
        Trace {
            geometry: grid.geometry,
            strong: grid.strong.clone(),
            initial_work,
            last: grid,
            offsets,
            columns,
        }
    }

    /// Iterations recorded.
    pub fn iterations(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The columns of the cells eroded at iteration `i` (one entry per cell).
    pub fn eroded_at(&self, i: usize) -> &[u32] {
        &self.columns[self.offsets[i]..self.offsets[i + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chords_and_front_match_the_disc_test() {
        for radius in [1, 2, 3, 7, 10] {
            let rock = Rock::new(0, 0, radius, WEAK, 1);
            let side = 2 * radius as i64;
            let mut front = Vec::new();
            for ly in -1..=side {
                let inside: Vec<i64> = (-1..=side).filter(|&lx| rock.in_disc(lx, ly)).collect();
                let chord: Vec<i64> = rock.chord(ly).map_or(Vec::new(), |c| c.collect());
                assert_eq!(inside, chord, "R = {radius}, row {ly}");
                front.extend(
                    inside
                        .iter()
                        .filter(|&&lx| rock.open_sides(lx, ly) > 0)
                        .map(|&lx| rock.index(lx, ly)),
                );
            }
            let mut got = rock.front.clone();
            got.sort_unstable();
            front.sort_unstable();
            assert_eq!(got, front, "R = {radius}");
        }
    }
}
