//! Helpers shared by the integration tests: small meshes and forest queries.
#![allow(dead_code)]

pub mod adjacency;

use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafId, LeafView, NO_ELEM};
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::{Comm, CommExt};
use plume::dist::{GatheredPlum, Mark, Run};
use plume::hash::mix64;
use plume::mesh::{generate_box, geometry, Mesh};
use plume::{Error, Result};

/// The reference tetrahedron.
pub fn one_tet() -> Mesh {
    Mesh::new(
        vec![[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]],
        vec![[0, 1, 2, 3]],
    )
}

/// Two tetrahedra sharing the face (1, 2, 3).
pub fn two_tets() -> Mesh {
    Mesh::new(
        vec![
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
            [1., 1., 1.],
        ],
        vec![[0, 1, 2, 3], [4, 3, 2, 1]],
    )
}

/// A forest with the given maximum depth and solution fields.
pub fn forest(mesh: Mesh, max_depth: u8, nfields: usize) -> Forest {
    let f = Forest::new(
        mesh,
        AdaptOptions {
            max_depth,
            nfields,
            ..AdaptOptions::default()
        },
    )
    .unwrap();
    assert!(geometry::volume(&f.mesh().corners(0)) > 0.0);
    f
}

/// Leaves with their volumes and levels, in canonical order.
pub fn leaf_volumes(f: &Forest) -> Vec<(LeafId, f64, u8)> {
    let mut out = Vec::new();
    f.for_each_leaf(|l| out.push((l.id, geometry::volume(&l.corners), l.level)));
    out
}

/// Refines every leaf once.
pub fn refine_all(f: &mut Forest) {
    f.mark_refine_where(|_| true);
    f.adapt().unwrap();
}

/// Coarsens every leaf once.
pub fn coarsen_all(f: &mut Forest) {
    f.mark_coarsen_where(|_| true);
    f.adapt().unwrap();
}

/// True when point `p` lies inside (or on) the tetrahedron `t`.
pub fn contains(t: &[[f64; 3]; 4], p: [f64; 3]) -> bool {
    let v = geometry::volume(t);
    (0..4).all(|i| {
        let mut q = *t;
        q[i] = p;
        geometry::volume(&q) >= -1e-12 * v.abs()
    })
}

/// The elements of `mesh` whose centroid satisfies `keep`, as a mesh of its own (vertices
/// renumbered in order of first use).
pub fn submesh(mesh: &Mesh, keep: impl Fn([f64; 3]) -> bool) -> Mesh {
    let mut new_of = vec![u32::MAX; mesh.nverts()];
    let mut out = Mesh::new(Vec::new(), Vec::new());
    for e in 0..mesh.nelems() {
        if !keep(geometry::centroid(&mesh.corners(e))) {
            continue;
        }
        let t = mesh.tets[e].map(|v| {
            if new_of[v as usize] == u32::MAX {
                new_of[v as usize] = out.coords.len() as u32;
                out.coords.push(mesh.coords[v as usize]);
            }
            new_of[v as usize]
        });
        out.tets.push(t);
    }
    out
}

/// Every rank's check that each root is held by exactly the rank `owner` names.
pub fn check_ownership<C: Comm + ?Sized>(run: &Run<'_, C>) -> Result<()> {
    let held = run.comm().all_gather_serde(&run.held_roots())?;
    let mut holder = vec![None; run.owner().len()];
    for (rank, roots) in held.iter().enumerate() {
        for &r in roots {
            if holder[r as usize].replace(rank).is_some() {
                return Err(Error::Invalid(format!("root {r} is held twice")));
            }
        }
    }
    for (r, h) in holder.iter().enumerate() {
        if *h != Some(run.owner()[r] as usize) {
            return Err(Error::Invalid(format!(
                "root {r}: held by {h:?}, owner {}",
                run.owner()[r]
            )));
        }
    }
    Ok(())
}

/// Every rank's check, when ranks hold parts of `whole`: each root is held by exactly one
/// rank; each rank's part is its roots and exactly the roots sharing a vertex with them (the
/// ghost layer, by brute force over `whole`), each with the owner that holds it.
pub fn check_parts<C: Comm + ?Sized>(run: &Run<'_, C>, whole: &InitialMesh) -> Result<()> {
    let part = run.share().initial();
    let own: Vec<u32> = run.held_roots().iter().map(|&r| part.root_gid(r)).collect();
    let held = run.comm().all_gather_serde(&own)?;
    let n = whole.nroots();
    let mut holder = vec![u32::MAX; n];
    for (rank, roots) in held.iter().enumerate() {
        for &g in roots {
            if std::mem::replace(&mut holder[g as usize], rank as u32) != u32::MAX {
                return Err(Error::Invalid(format!("root {g} is held twice")));
            }
        }
    }
    if let Some(g) = holder.iter().position(|&h| h == u32::MAX) {
        return Err(Error::Invalid(format!("root {g} is held by no rank")));
    }
    let (mesh, topo) = (whole.mesh(), whole.topology());
    let mut ghost_layer: Vec<u32> = own
        .iter()
        .flat_map(|&g| mesh.tets[g as usize])
        .flat_map(|v| topo.elems_around(v).iter().copied())
        .collect();
    ghost_layer.sort_unstable();
    ghost_layer.dedup();
    let gids: Vec<u32> = (0..part.nroots() as u32)
        .map(|r| part.root_gid(r))
        .collect();
    if gids != ghost_layer {
        return Err(Error::Invalid(format!(
            "rank {}: its part has {} roots, its roots and ghost layer {}",
            run.comm().rank(),
            gids.len(),
            ghost_layer.len()
        )));
    }
    // The forest's per-root tables are the part's, not the whole mesh's.
    if run.forest().nroots() != gids.len() || run.owner().len() != gids.len() {
        return Err(Error::Invalid(format!(
            "rank {}: {} trees and {} owners for a part of {} roots",
            run.comm().rank(),
            run.forest().nroots(),
            run.owner().len(),
            gids.len()
        )));
    }
    for (r, &g) in gids.iter().enumerate() {
        if run.owner()[r] != holder[g as usize] {
            return Err(Error::Invalid(format!(
                "root {g}: held by {}, the part says {}",
                holder[g as usize],
                run.owner()[r]
            )));
        }
    }
    Ok(())
}

/// `run()`'s result, or a failed test if it takes longer than two minutes (a hang).
pub fn without_hang<T: Send + 'static>(run: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(run()));
    result
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the ranks hung")
}

/// Random marks that depend only on the leaf's place and the step (so every rank marks a leaf
/// alike): about 12 % refine, 38 % coarsen.
pub fn random_mark(leaf: &LeafView, step: usize) -> Mark {
    let h = leaf
        .centroid
        .iter()
        .fold(step as u64, |h, x| mix64(h ^ x.to_bits()));
    match h % 100 {
        0..=11 => Mark::Refine,
        12..=49 => Mark::Coarsen,
        _ => Mark::Keep,
    }
}

/// One adaptation step of a serial forest with the marks `mark` gives its leaves, as
/// [`Run::step`] marks the leaves of a rank.
pub fn step_serial(forest: &mut Forest, mark: impl Fn(&LeafView) -> Mark) {
    let mut marks = Vec::new();
    forest.for_each_leaf(|l| marks.push((l.id, mark(l))));
    for (id, m) in marks {
        match m {
            Mark::Refine => forest.mark_refine(id),
            Mark::Coarsen => forest.mark_coarsen(id),
            Mark::Keep => {}
        }
    }
    forest.adapt().unwrap();
}

/// A hash of element `e` of tree `r` and `salt` that every rank computes alike (from vertex
/// keys, not ids).
pub fn elem_hash(forest: &Forest, r: u32, e: u32, salt: u64) -> u64 {
    let mut keys = forest.trees()[r as usize].elems[e as usize]
        .verts
        .map(|v| forest.vertices()[v].key);
    keys.sort_unstable();
    keys.iter().fold(mix64(salt), |h, &k| mix64(h ^ k))
}

/// Marks from hashes that every rank draws alike: whole families coarsened (by their
/// parent's hash, 40 %), a quarter of the other leaves refined.
pub fn hash_marks(forest: &Forest, salt: u64) -> (Vec<LeafId>, Vec<LeafId>) {
    let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
    forest.for_each_leaf(|l| {
        let parent = forest.trees()[l.id.root as usize].elems[l.id.elem as usize].parent;
        if parent != NO_ELEM && elem_hash(forest, l.id.root, parent, salt) % 5 < 2 {
            coarsen.push(l.id);
        } else if elem_hash(forest, l.id.root, l.id.elem, salt).is_multiple_of(4) {
            refine.push(l.id);
        }
    });
    (refine, coarsen)
}

/// A run on a box of 4 × 2 × 2 cubes (1 × 0.6 × 0.5) whose PLUM carries out every balance it
/// proposes, so that steps move trees.
pub fn moving_box_run<'c, C: Comm + ?Sized>(comm: &'c C, opts: AdaptOptions) -> Result<Run<'c, C>> {
    let mesh = generate_box([4, 2, 2], [1.0, 0.6, 0.5])?;
    let plum = Plum::new(PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(comm.size())
    })?;
    Run::new(comm, mesh, opts, GatheredPlum::new(plum))
}
