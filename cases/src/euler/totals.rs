//! The totals of the conserved variables, `Σ V·u` over all leaves, summed in an order that
//! does not depend on P: each rank sums the leaves of each root it holds in the tree's
//! canonical order, the per-root sums are gathered and added in root order.

use plume::adapt::{Forest, LeafView};
use plume::comm::{Comm, CommExt};
use plume::mesh::geometry;
use plume::Result;

use super::gas::{Conserved, NVARS};
use super::mesh::FlowMesh;

/// One rank's part of a sum over every rank's leaves of `N` values a leaf: per root it
/// holds, in root order, `(root, sums)` over the root's leaves in canonical order. Adding
/// every rank's parts in root order ([`RootSums::total`]) gives the same bits at any P.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RootSums<const N: usize> {
    /// The roots, ascending.
    roots: Vec<u32>,
    /// `N` sums per root, in the order of `roots`.
    sums: Vec<f64>,
}

/// The [`Totals`]' values of a leaf: `V·u` then `V·|u|` per conserved variable.
pub type TotalSums = RootSums<{ 2 * NVARS }>;

impl<const N: usize> Default for RootSums<N> {
    fn default() -> Self {
        RootSums {
            roots: Vec::new(),
            sums: Vec::new(),
        }
    }
}

impl<const N: usize> RootSums<N> {
    /// The sums of `f(leaf, V)` over the leaves `forest` holds, `V` a leaf's volume from its
    /// corners.
    pub fn of_forest(forest: &Forest, f: impl Fn(&LeafView, f64) -> [f64; N]) -> Self {
        let mut sums = RootSums::default();
        let part = forest.initial();
        forest.for_each_leaf(|leaf| {
            let volume = geometry::volume(&leaf.corners).abs();
            sums.add(part.root_gid(leaf.id.root), f(leaf, volume));
        });
        sums
    }

    /// Adds the values of a leaf of root `root` (after the leaves of every lower root).
    fn add(&mut self, root: u32, values: [f64; N]) {
        if self.roots.last() != Some(&root) {
            self.roots.push(root);
            self.sums.extend([0.0; N]);
        }
        let last = self.sums.len() - N;
        for (s, x) in self.sums[last..].iter_mut().zip(values) {
            *s += x;
        }
    }

    /// The sums of every rank's parts, added in root order.
    pub fn total(ranks: Vec<Self>) -> [f64; N] {
        let mut all: Vec<(u32, &[f64])> = ranks
            .iter()
            .flat_map(|r| r.roots.iter().copied().zip(r.sums.chunks_exact(N)))
            .collect();
        all.sort_unstable_by_key(|r| r.0);
        let mut total = [0.0; N];
        for (_, sums) in &all {
            for (t, s) in total.iter_mut().zip(*sums) {
                *t += s;
            }
        }
        total
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
        Ok(Self::total(
            comm.all_gather_serde(&Self::of_forest(forest, f))?,
        ))
    }
}

impl TotalSums {
    /// The totals' sums of the leaves of `mesh`, from its volumes and states: the same bits
    /// as the forest's while the states are those of the forest (after [`FlowMesh::build`]
    /// or [`FlowMesh::publish`]), without visiting the forest.
    pub fn of_mesh(mesh: &FlowMesh) -> Self {
        let mut sums = RootSums::default();
        for ((&root, g), u) in mesh.root_gid.iter().zip(&mesh.geometry).zip(&mesh.state) {
            sums.add(root, total_values(g.volume, u));
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
        let sums = TotalSums::gather(comm, forest, |leaf, v| total_values(v, leaf.data))?;
        Ok(Totals::of(sums))
    }

    /// The totals of two states of the run, each given by every rank's [`RootSums`] of it
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
        let (firsts, seconds) = comm.all_gather_serde(&(first, second))?.into_iter().unzip();
        Ok((
            Totals::of(TotalSums::total(firsts)),
            Totals::of(TotalSums::total(seconds)),
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
