//! Gradients of the primitive variables `(ρ, u, v, w, p)` on each leaf, by weighted least
//! squares over what lies beyond its four faces: a neighbouring leaf (held here or a ghost) at
//! its centroid, or, across a boundary face, the leaf's mirror image through the face with
//! the boundary's outside state ([`Boundaries::outside`]), so every leaf has four
//! neighbours. With `d_k` the offset from the leaf's centroid to neighbour `k`, the gradient
//! minimises `Σ_k |∇W·d_k − ΔW_k|²` (equal weights: [`super::lsq`] says why): it is exact for a
//! linear field, and the normal matrix depends on the geometry only ([`super::lsq::LeastSquares`], built
//! once per flow mesh). A leaf whose neighbours lie (nearly) in a plane gets a zero gradient.
//!
//! Every leaf's gradient is computed by the rank holding it, from its own neighbours' states
//! and centroids in local face order: the same bits on any P.

use plume::adapt::Across;

use super::boundary::Boundaries;
use super::gas::{Gas, Primitive, NVARS};
use super::mesh::FlowMesh;

pub use super::lsq::Gradient;

/// A state's primitive variables as an array `[ρ, u, v, w, p]`.
#[inline]
pub fn primitive_array(w: &Primitive) -> [f64; NVARS] {
    [w.rho, w.vel[0], w.vel[1], w.vel[2], w.p]
}

/// The primitive state of an array `[ρ, u, v, w, p]`.
#[inline]
pub fn primitive_of_array(a: &[f64; NVARS]) -> Primitive {
    Primitive {
        rho: a[0],
        vel: [a[1], a[2], a[3]],
        p: a[4],
    }
}

/// The primitive variables beyond each face of leaf `i`: its neighbours' (`leaves` and
/// `ghosts` hold every leaf's and ghost's), or the boundary's outside state.
#[inline]
pub fn neighbour_values(
    mesh: &FlowMesh,
    boundaries: &Boundaries,
    (leaves, ghosts): (&[[f64; NVARS]], &[[f64; NVARS]]),
    i: usize,
) -> [[f64; NVARS]; 4] {
    let mut values = [[0.0; NVARS]; 4];
    for (k, (value, across)) in values
        .iter_mut()
        .zip(&mesh.halo.adjacency.across[i])
        .enumerate()
    {
        *value = match *across {
            Across::Leaf { leaf, .. } => leaves[leaf as usize],
            Across::Ghost { ghost, .. } => ghosts[ghost as usize],
            Across::Remote { .. } => unreachable!("the halo resolves every face between leaves"),
            Across::Boundary { tag } => outside_value(mesh, boundaries, &leaves[i], (i, k), tag),
        };
    }
    values
}

/// The primitive variables outside face `k` of leaf `i` of `mesh`, tagged `tag`, the leaf's
/// being `inside` (kept out of [`neighbour_values`]'s loop: boundary faces are few).
#[inline(never)]
fn outside_value(
    mesh: &FlowMesh,
    boundaries: &Boundaries,
    inside: &[f64; NVARS],
    (i, k): (usize, usize),
    tag: u32,
) -> [f64; NVARS] {
    let n = mesh.geometry[i].faces[k].outward_normal();
    primitive_array(&boundaries.outside(tag, &primitive_of_array(inside), n))
}

/// The primitive variables in `gas` of `mesh`'s leaves and of its ghosts, in their orders.
pub fn mesh_primitives(mesh: &FlowMesh, gas: Gas) -> (Vec<[f64; NVARS]>, Vec<[f64; NVARS]>) {
    let leaves = mesh
        .state
        .iter()
        .map(|u| primitive_array(&Primitive::of(u, gas)))
        .collect();
    let ghosts = (0..mesh.halo.ghosts.len() as u32)
        .map(|g| primitive_array(&Primitive::of(&mesh.ghost_state(g), gas)))
        .collect();
    (leaves, ghosts)
}

/// The (unlimited) gradient of the primitive variables in `gas` on every leaf of `mesh`, in
/// leaf order, with `boundaries` standing beyond boundary faces.
pub fn primitive_gradients(mesh: &FlowMesh, boundaries: &Boundaries, gas: Gas) -> Vec<Gradient> {
    let (leaves, ghosts) = mesh_primitives(mesh, gas);
    (0..mesh.nleaves())
        .map(|i| {
            let beyond = neighbour_values(mesh, boundaries, (&leaves, &ghosts), i);
            mesh.least_squares()[i]
                .gradient(&beyond.map(|b| std::array::from_fn(|v| b[v] - leaves[i][v])))
        })
        .collect()
}
