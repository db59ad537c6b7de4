//! The erosion case's domain: a box of P unit stripes along x, `[0, P] × [0, 1] × [0, h]`, one
//! cylindrical rock (axis along z, radius 0.25) centred in each stripe. A root belongs to the
//! rock of its stripe when its centroid lies inside the cylinder; its leaves start as rock,
//! all others as fluid. `strong` rocks, drawn from the seed, erode with probability 0.4, the
//! others with 0.02.

use plume::adapt::{AdaptOptions, Forest, Transfer};
use plume::mesh::chunk::Chunk;
use plume::mesh::geometry::centroid;
use plume::mesh::{box_size, generate_box, generate_box_chunk, Mesh};
use plume::rng::Rng;

use crate::error::{Error, Result};

use super::front::{FLUID, ROCK};

/// Radius of every rock.
pub const ROCK_RADIUS: f64 = 0.25;
/// Erosion probability per step of a front leaf of a weakly erodible rock.
pub const WEAK: f64 = 0.02;
/// Erosion probability per step of a front leaf of a strongly erodible rock.
pub const STRONG: f64 = 0.4;

/// The initial forest and its rocks.
pub struct Domain {
    /// The forest, one solution value per leaf (rock or fluid), refinement capped at the
    /// maximum depth.
    pub forest: Forest,
    /// The rock of every root, if any.
    pub rock_of_root: Vec<Option<u32>>,
    /// Erosion probability of every rock.
    pub probability: Vec<f64>,
    /// The strongly erodible rocks, ascending.
    pub strong: Vec<u32>,
}

/// The domain of `stripes` unit stripes of `cells` cubes each (x, y, z; the cubes are
/// `1/cells[0]` by `1/cells[1]` by `1/cells[1]`, so the box is `cells[2]/cells[1]` high),
/// with `strong` strongly erodible rocks drawn from `seed`.
///
/// # Errors
/// When the box cannot be generated; [`Error::SettingOutOfRange`] when `strong > stripes`.
pub fn build(
    stripes: usize,
    cells: [usize; 3],
    strong: usize,
    seed: u64,
    max_depth: u8,
) -> Result<Domain> {
    let (strong, probability) = strong_rocks(stripes, strong, seed)?;
    let mesh = generate_box(box_cells(stripes, cells)?, box_size_of(stripes, cells))?;
    let rock_of_root = rocks(&mesh, stripes);
    let mut forest = Forest::new(mesh, options(max_depth))?;
    set_materials(&mut forest, &rock_of_root);
    Ok(Domain {
        forest,
        rock_of_root,
        probability,
        strong,
    })
}

/// The adaptation options of the domain's forests: one field, the rock/fluid flag, a label
/// kept through every adaptation; refinement capped at `max_depth`.
pub fn options(max_depth: u8) -> AdaptOptions {
    AdaptOptions {
        max_depth,
        ..AdaptOptions::with_fields(vec![Transfer::Inherit])
    }
}

/// Rank `rank`'s chunk (of `nranks`) of the box of `stripes` stripes of `cells` cubes each:
/// the block of roots it generates for a run that starts from chunks.
///
/// # Errors
/// When the box cannot be generated (as [`build`]).
pub fn chunk(stripes: usize, cells: [usize; 3], rank: usize, nranks: usize) -> Result<Chunk> {
    let size = box_size_of(stripes, cells);
    Ok(generate_box_chunk(
        box_cells(stripes, cells)?,
        size,
        rank,
        nranks,
    )?)
}

/// The strongly erodible rocks among `stripes`, `strong` of them drawn from `seed`
/// (ascending), and every rock's erosion probability.
///
/// # Errors
/// [`Error::SettingOutOfRange`] when `strong > stripes`.
pub fn strong_rocks(stripes: usize, strong: usize, seed: u64) -> Result<(Vec<u32>, Vec<f64>)> {
    if strong > stripes {
        return Err(Error::SettingOutOfRange {
            setting: "strong".into(),
            value: strong.to_string(),
            rule: format!("exceeds the {stripes} rocks (one per rank)"),
        });
    }
    let strong = choose(stripes, strong, &mut Rng::new(seed));
    let probability = (0..stripes as u32)
        .map(|r| if strong.contains(&r) { STRONG } else { WEAK })
        .collect();
    Ok((strong, probability))
}

/// The rock of every root of `mesh` (the whole box or a rank's part of it) among `stripes`,
/// if any: that of the root's stripe when the root's centroid lies inside its cylinder. A
/// root's rock depends on its corners alone, so every rank finds the same for it.
pub fn rocks(mesh: &Mesh, stripes: usize) -> Vec<Option<u32>> {
    (0..mesh.nelems())
        .map(|r| {
            let [x, y, _] = centroid(&mesh.corners(r));
            let stripe = (x.floor().max(0.0) as usize).min(stripes - 1);
            let (dx, dy) = (x - (stripe as f64 + 0.5), y - 0.5);
            (dx * dx + dy * dy < ROCK_RADIUS * ROCK_RADIUS).then_some(stripe as u32)
        })
        .collect()
}

/// Sets the material of every held root of `forest` (each a single leaf) from its rock
/// `rock_of_root` (by root): rock or fluid.
fn set_materials(forest: &mut Forest, rock_of_root: &[Option<u32>]) {
    for (root, rock) in rock_of_root.iter().enumerate() {
        if forest.holds(root as u32) {
            let id = forest.leaf_id(root as u32, 0);
            forest.leaf_data_mut(id)[0] = material(*rock);
        }
    }
}

/// The material a root starts with: rock when it belongs to a rock, else fluid.
pub fn material(rock: Option<u32>) -> f64 {
    if rock.is_some() {
        ROCK
    } else {
        FLUID
    }
}

/// The number of roots of the domain of `stripes` stripes of `cells` cubes each,
/// `6 · (stripes · cells[0]) · cells[1] · cells[2]`, computed without overflow.
///
/// # Errors
/// When a count is 0 or the box would be too large for 32-bit numbers.
pub fn roots(stripes: usize, cells: [usize; 3]) -> Result<usize> {
    Ok(box_size(box_cells(stripes, cells)?)?.1)
}

/// The box's extent: `[stripes, 1, cells[2]/cells[1]]`.
fn box_size_of(stripes: usize, cells: [usize; 3]) -> [f64; 3] {
    [stripes as f64, 1.0, cells[2] as f64 / cells[1] as f64]
}

/// The cubes of the whole box along x, y and z.
fn box_cells(stripes: usize, cells: [usize; 3]) -> Result<[usize; 3]> {
    let nx = cells[0].checked_mul(stripes).ok_or_else(|| {
        Error::Setting(format!(
            "box: {} cubes per stripe × {stripes} stripes is too many cubes along x",
            cells[0]
        ))
    })?;
    Ok([nx, cells[1], cells[2]])
}

/// `k` distinct numbers of `0..n`, ascending (a partial Fisher–Yates shuffle).
pub fn choose(n: usize, k: usize, rng: &mut Rng) -> Vec<u32> {
    let mut all: Vec<u32> = (0..n as u32).collect();
    for i in 0..k {
        let j = i + rng.below(n - i);
        all.swap(i, j);
    }
    let mut chosen = all[..k].to_vec();
    chosen.sort_unstable();
    chosen
}
