//! Leaf and ghost geometry from the library (`Run::leaf_geometry`, `GhostLeaf::geometry`): on
//! thread ranks after a refining step, the two sides of every face — a leaf held here and a
//! leaf or ghost across it — have the same canonical normal and area bit for bit and opposite
//! sides, and the leaves' volumes add up to the box's.

use plume::adapt::{Across, AdaptOptions};
use plume::balance::{Plum, PlumOptions};
use plume::comm::{launch_threads, Comm, ReduceOp};
use plume::dist::{GatheredPlum, Mark, Run};
use plume::mesh::generate_box;

#[test]
fn both_sides_of_every_face_see_the_same_face() {
    let volumes = launch_threads(3, |comm| {
        let plum = GatheredPlum::new(Plum::new(PlumOptions::new(3))?);
        let mesh = generate_box([3, 2, 2], [1.5, 1.0, 1.0])?;
        let mut run = Run::new(comm, mesh, AdaptOptions::default(), plum)?;
        run.step(|l| match l.centroid[0] < 0.7 {
            true => Mark::Refine,
            false => Mark::Keep,
        })?;
        let halo = run.halo()?;
        let leaves: Vec<_> = halo
            .adjacency
            .leaves
            .iter()
            .map(|&id| run.leaf_geometry(id))
            .collect::<plume::Result<_>>()?;
        let ghosts: Vec<_> = halo.ghosts.iter().map(|g| g.geometry()).collect();
        assert!(!ghosts.is_empty());
        for (i, across) in halo.adjacency.across.iter().enumerate() {
            for (k, a) in across.iter().enumerate() {
                let other = match *a {
                    Across::Leaf { leaf, face } => leaves[leaf as usize].faces[face as usize],
                    Across::Ghost { ghost, face } => ghosts[ghost as usize].faces[face as usize],
                    _ => continue,
                };
                let mine = leaves[i].faces[k];
                assert_eq!((mine.normal, mine.area), (other.normal, other.area));
                assert_ne!(mine.outward, other.outward);
            }
        }
        let volume: f64 = leaves.iter().map(|g| g.volume).sum();
        comm.all_reduce_f64(&[volume], ReduceOp::Sum)
    })
    .unwrap();
    // 1.5 m³ summed from ~10³ leaves: rounding far below 1e-12.
    assert!(
        volumes.iter().all(|v| (v[0] - 1.5).abs() < 1e-12),
        "{volumes:?}"
    );
}
