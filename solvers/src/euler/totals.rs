//! The totals of the conserved variables, `Σ V·u` over all leaves, summed in an order that
//! does not depend on P: each rank sums the leaves of each root it holds in the tree's
//! canonical order, the per-root sums are gathered and added in root order.

use plume::adapt::Forest;
use plume::comm::{Comm, CommExt};
use plume::mesh::geometry;
use plume::Result;

use super::gas::{Conserved, NVARS};
use super::mesh::FlowMesh;

/// One rank's part of the [`Totals`]: per root it holds, in root order, `(root, Σ V·u,
/// Σ V·|u|)` over the root's leaves in canonical order.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RootSums(Vec<(u32, Conserved, Conserved)>);

impl RootSums {
    /// The sums of the leaves `forest` holds, their volumes from their corners.
    pub fn of_forest(forest: &Forest) -> RootSums {
        let mut sums = RootSums::default();
        forest.for_each_leaf(|leaf| {
            sums.add(
                leaf.id.root,
                geometry::volume(&leaf.corners).abs(),
                leaf.data,
            );
        });
        sums
    }

    /// The sums of the leaves of `mesh`, from its volumes and states: the same bits as
    /// [`RootSums::of_forest`] while the states are those of the forest (after
    /// [`FlowMesh::build`] or [`FlowMesh::publish`]), without visiting the forest.
    pub fn of_mesh(mesh: &FlowMesh) -> RootSums {
        let mut sums = RootSums::default();
        let leaves = &mesh.halo.adjacency.leaves;
        for ((id, g), u) in leaves.iter().zip(&mesh.geometry).zip(&mesh.state) {
            sums.add(id.root, g.volume, u);
        }
        sums
    }

    /// Adds a leaf of root `root` (after the leaves of every lower root) of volume `v` and
    /// state `u`.
    fn add(&mut self, root: u32, v: f64, u: &[f64]) {
        if self.0.last().is_none_or(|r| r.0 != root) {
            self.0.push((root, [0.0; NVARS], [0.0; NVARS]));
        }
        let (_, sum, scale) = self.0.last_mut().expect("pushed above");
        for c in 0..NVARS {
            sum[c] += v * u[c];
            scale[c] += v * u[c].abs();
        }
    }

    /// The totals of every rank's sums, added in root order.
    fn total(ranks: Vec<RootSums>) -> Totals {
        let mut all: Vec<(u32, Conserved, Conserved)> =
            ranks.into_iter().flat_map(|r| r.0).collect();
        all.sort_unstable_by_key(|r| r.0);
        let mut totals = Totals::default();
        for (_, sum, scale) in &all {
            for c in 0..NVARS {
                totals.sum[c] += sum[c];
                totals.scale[c] += scale[c];
            }
        }
        totals
    }
}

/// Total mass, momentum (3) and energy, and the sum of `V·|u_c|` of each (the scale the
/// relative errors divide by).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Totals {
    /// `Σ V·u` per conserved variable.
    pub sum: Conserved,
    /// `Σ V·|u|` per conserved variable.
    pub scale: Conserved,
}

impl Totals {
    /// The totals over the leaves every rank's `forest` holds (a collective).
    ///
    /// # Errors
    /// Transport errors.
    pub fn gather<C: Comm + ?Sized>(comm: &C, forest: &Forest) -> Result<Totals> {
        let all = comm.all_gather_serde(&RootSums::of_forest(forest))?;
        Ok(RootSums::total(all))
    }

    /// The totals of two states of the run, each given by every rank's [`RootSums`] of it
    /// (e.g. before and after an adaptation step), in one collective: the same bits as two
    /// [`Totals::gather`]s.
    ///
    /// # Errors
    /// Transport errors.
    pub fn gather_two<C: Comm + ?Sized>(
        comm: &C,
        first: RootSums,
        second: RootSums,
    ) -> Result<(Totals, Totals)> {
        let (firsts, seconds) = comm.all_gather_serde(&(first, second))?.into_iter().unzip();
        Ok((RootSums::total(firsts), RootSums::total(seconds)))
    }

    /// The relative change from `before` of mass, momentum (the largest of its three
    /// components) and energy: `|Δ Σ V·u| / Σ V·|u|` (0 for a variable zero everywhere).
    pub fn change_from(&self, before: &Totals) -> [f64; 3] {
        let rel = |c: usize| {
            let d = (self.sum[c] - before.sum[c]).abs();
            if before.scale[c] > 0.0 {
                d / before.scale[c]
            } else {
                d
            }
        };
        [rel(0), rel(1).max(rel(2)).max(rel(3)), rel(4)]
    }
}
