//! The totals of the conserved variables, `Σ V·u` over all leaves, summed in an order that
//! does not depend on P: each rank sums the leaves of each root it holds in the tree's
//! canonical order, the per-root sums are gathered and added in root order.

use plume::adapt::Forest;
use plume::comm::{Comm, CommExt};
use plume::mesh::geometry;
use plume::Result;

use super::gas::{Conserved, NVARS};

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
        let mut per_root: Vec<(u32, Conserved, Conserved)> = Vec::new();
        forest.for_each_leaf(|leaf| {
            let v = geometry::volume(&leaf.corners).abs();
            if per_root.last().is_none_or(|r| r.0 != leaf.id.root) {
                per_root.push((leaf.id.root, [0.0; NVARS], [0.0; NVARS]));
            }
            let (_, sum, scale) = per_root.last_mut().expect("pushed above");
            for c in 0..NVARS {
                sum[c] += v * leaf.data[c];
                scale[c] += v * leaf.data[c].abs();
            }
        });
        let mut all: Vec<(u32, Conserved, Conserved)> = comm
            .all_gather_serde(&per_root)?
            .into_iter()
            .flatten()
            .collect();
        all.sort_unstable_by_key(|r| r.0);
        let mut totals = Totals::default();
        for (_, sum, scale) in &all {
            for c in 0..NVARS {
                totals.sum[c] += sum[c];
                totals.scale[c] += scale[c];
            }
        }
        Ok(totals)
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
