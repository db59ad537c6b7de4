//! The totals of the conserved variables, `Σ V·u` over all leaves, summed exactly
//! ([`ExactSum`]): each rank adds its leaves' values in any order, the ranks all-gather one
//! accumulator per sum (O(P), not a value per root) and the exact total is rounded once, so
//! the bits do not depend on P or on which rank holds which leaf.

use plume::adapt::{Forest, LeafView};
use plume::comm::{all_exact_sums, Comm, CommExt, ExactSum};
use plume::mesh::geometry;
use plume::Result;

use super::gas::{Conserved, NVARS};
use super::mesh::FlowMesh;

/// One rank's part of `N` sums over every rank's leaves, held exactly: adding every rank's
/// parts ([`LeafSums::gather`], [`LeafSums::total`]) gives the same bits at any P.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LeafSums<const N: usize> {
    sums: Vec<ExactSum>,
}

/// The [`Totals`]' values of a leaf: `V·u` then `V·|u|` per conserved variable.
pub type TotalSums = LeafSums<{ 2 * NVARS }>;

impl<const N: usize> Default for LeafSums<N> {
    fn default() -> Self {
        LeafSums {
            sums: vec![ExactSum::default(); N],
        }
    }
}

impl<const N: usize> LeafSums<N> {
    /// The sums of `f(leaf, V)` over the leaves `forest` holds, `V` a leaf's volume from its
    /// corners.
    pub fn of_forest(forest: &Forest, f: impl Fn(&LeafView, f64) -> [f64; N]) -> Self {
        let mut sums = LeafSums::default();
        forest.for_each_leaf(|leaf| {
            let volume = geometry::volume(&leaf.corners).abs();
            sums.add(f(leaf, volume));
        });
        sums
    }

    /// Adds the values of a leaf.
    fn add(&mut self, values: [f64; N]) {
        for (s, x) in self.sums.iter_mut().zip(values) {
            s.add(x);
        }
    }

    /// The sums of every rank's parts `ranks`, rounded.
    pub fn total(ranks: &[Self]) -> [f64; N] {
        let mut total = LeafSums::<N>::default();
        for rank in ranks {
            for (t, s) in total.sums.iter_mut().zip(&rank.sums) {
                t.merge(s);
            }
        }
        std::array::from_fn(|k| total.sums[k].value())
    }

    /// The sum over every rank's leaves of `f(leaf, V)` (a collective; see the type's doc).
    ///
    /// # Errors
    /// Transport errors.
    pub fn gather<C: Comm + ?Sized>(
        comm: &C,
        forest: &Forest,
        f: impl Fn(&LeafView, f64) -> [f64; N],
    ) -> Result<[f64; N]> {
        let sums = all_exact_sums(comm, &Self::of_forest(forest, f).sums)?;
        Ok(std::array::from_fn(|k| sums[k]))
    }
}

impl TotalSums {
    /// The totals' sums of the leaves of `mesh`, from its volumes and states: the same bits
    /// as the forest's while the states are those of the forest (after [`FlowMesh::build`]
    /// or [`FlowMesh::publish`]), without visiting the forest.
    pub fn of_mesh(mesh: &FlowMesh) -> Self {
        let mut sums = LeafSums::default();
        for (g, u) in mesh.geometry.iter().zip(&mesh.state) {
            sums.add(total_values(g.volume, u));
        }
        sums
    }
}

/// A leaf's values in the [`Totals`]: `V·u` then `V·|u|` per conserved variable.
fn total_values(v: f64, u: &[f64]) -> [f64; 2 * NVARS] {
    std::array::from_fn(|k| {
        let x = u[k % NVARS];
        v * if k < NVARS { x } else { x.abs() }
    })
}

/// Total mass, momentum (3) and energy, and the sum of `V·|u_c|` of each (the scale the
/// relative errors divide by).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
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
        let sums = TotalSums::gather(comm, forest, |leaf, v| total_values(v, leaf.data))?;
        Ok(Totals::of(sums))
    }

    /// The totals of two states of the run, each given by every rank's [`TotalSums`] of it
    /// (e.g. before and after an adaptation step), in one collective: the same bits as two
    /// [`Totals::gather`]s.
    ///
    /// # Errors
    /// Transport errors.
    pub fn gather_two<C: Comm + ?Sized>(
        comm: &C,
        first: TotalSums,
        second: TotalSums,
    ) -> Result<(Totals, Totals)> {
        let (firsts, seconds): (Vec<_>, Vec<_>) =
            comm.all_gather_serde(&(first, second))?.into_iter().unzip();
        Ok((
            Totals::of(TotalSums::total(&firsts)),
            Totals::of(TotalSums::total(&seconds)),
        ))
    }

    /// The totals of the summed [`total_values`].
    fn of(sums: [f64; 2 * NVARS]) -> Totals {
        Totals {
            sum: std::array::from_fn(|c| sums[c]),
            scale: std::array::from_fn(|c| sums[NVARS + c]),
        }
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
