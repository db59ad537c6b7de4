//! The adaptation indicator (`flow-solver.md`): per leaf, the largest normalised density
//! jump `|ρ_a − ρ_b| / min(ρ_a, ρ_b)` across its faces (boundary faces count 0); leaves above
//! the refine threshold are refined, families whose leaves are all below the coarsen
//! threshold are coarsened (the forest removes a family only when all its leaves ask).

use plume::adapt::LeafId;

use super::mesh::FlowMesh;

/// When to refine and coarsen.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct IndicatorOptions {
    /// Refine a leaf whose jump exceeds this.
    pub refine_above: f64,
    /// Coarsen a leaf whose jump is below this.
    pub coarsen_below: f64,
    /// Deepest level a leaf is refined to.
    pub max_depth: u8,
}

impl Default for IndicatorOptions {
    fn default() -> Self {
        IndicatorOptions {
            refine_above: 0.1,
            coarsen_below: 0.02,
            max_depth: 3,
        }
    }
}

/// The leaves to refine and to coarsen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    /// Leaves to refine.
    pub refine: Vec<LeafId>,
    /// Leaves to coarsen.
    pub coarsen: Vec<LeafId>,
}

/// The indicator of every leaf of `mesh`, in leaf order.
pub fn density_jumps(mesh: &FlowMesh) -> Vec<f64> {
    (0..mesh.nleaves())
        .map(|i| {
            let rho = mesh.state[i][0];
            (0..4)
                .filter_map(|k| mesh.neighbour_state(i, k))
                .map(|other| (rho - other[0]).abs() / rho.min(other[0]))
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The marks of `mesh`'s leaves under `opts`.
pub fn marks(mesh: &FlowMesh, opts: &IndicatorOptions) -> Marks {
    let mut marks = Marks::default();
    for ((jump, &level), &id) in density_jumps(mesh)
        .iter()
        .zip(&mesh.level)
        .zip(&mesh.halo.adjacency.leaves)
    {
        if *jump > opts.refine_above && level < opts.max_depth {
            marks.refine.push(id);
        } else if *jump < opts.coarsen_below && level > 0 {
            marks.coarsen.push(id);
        }
    }
    marks
}
