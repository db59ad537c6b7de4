//! The erosion case's domain: a box of P unit stripes along x, `[0, P] × [0, 1] × [0, h]`, one
//! cylindrical rock (axis along z, radius 0.25) centred in each stripe. A root belongs to the
//! rock of its stripe when its centroid lies inside the cylinder; its leaves start as rock,
//! all others as fluid. `strong` rocks, drawn from the seed, erode with probability 0.4, the
//! others with 0.02.

use plume::adapt::{AdaptOptions, Forest, LeafId, Transfer};
use plume::mesh::{box_size, generate_box};
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
    if strong > stripes {
        return Err(Error::SettingOutOfRange {
            setting: "strong".into(),
            value: strong.to_string(),
            rule: format!("exceeds the {stripes} rocks (one per rank)"),
        });
    }
    let height = cells[2] as f64 / cells[1] as f64;
    let mesh = generate_box(box_cells(stripes, cells)?, [stripes as f64, 1.0, height])?;
    let mut forest = Forest::new(
        mesh,
        // One field: the rock/fluid flag, a label kept through every adaptation.
        AdaptOptions {
            max_depth,
            ..AdaptOptions::with_fields(vec![Transfer::Inherit])
        },
    )?;
    let mut rock_of_root = Vec::with_capacity(forest.nroots());
    forest.for_each_leaf(|l| {
        let [x, y, _] = l.centroid;
        let stripe = (x.floor().max(0.0) as usize).min(stripes - 1);
        let (dx, dy) = (x - (stripe as f64 + 0.5), y - 0.5);
        rock_of_root.push((dx * dx + dy * dy < ROCK_RADIUS * ROCK_RADIUS).then_some(stripe as u32));
    });
    for (root, rock) in rock_of_root.iter().enumerate() {
        let id = LeafId {
            root: root as u32,
            elem: 0,
        };
        forest.leaf_data_mut(id)[0] = if rock.is_some() { ROCK } else { FLUID };
    }
    let strong = choose(stripes, strong, &mut Rng::new(seed));
    let probability = (0..stripes as u32)
        .map(|r| if strong.contains(&r) { STRONG } else { WEAK })
        .collect();
    Ok(Domain {
        forest,
        rock_of_root,
        probability,
        strong,
    })
}

/// The number of roots of the domain of `stripes` stripes of `cells` cubes each,
/// `6 · (stripes · cells[0]) · cells[1] · cells[2]`, computed without overflow.
///
/// # Errors
/// When a count is 0 or the box would be too large for 32-bit numbers.
pub fn roots(stripes: usize, cells: [usize; 3]) -> Result<usize> {
    Ok(box_size(box_cells(stripes, cells)?)?.1)
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
