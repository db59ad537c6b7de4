//! The shock case as the `dist` and `scaling` benchmarks run it with the library alone: the
//! shipped `meshes/shock_box.msh`, depth 3, and a cylinder along z sweeping it level by level
//! (as `plume run shock` marks).

use plume::adapt::{AdaptOptions, LeafView};
use plume::dist::Mark;
use plume::mesh::{geometry, Mesh};

/// The shock case's front at `level` (1-based) on the [0, 4] × [0, 1]² box: refine the leaves
/// the cylinder touches, coarsen refined leaves it left.
pub fn shock_mark(leaf: &LeafView, level: usize) -> Mark {
    let centre = [4.0 * (0.075 + 0.075 * (level - 1) as f64), 0.5];
    let radius = 0.16 * 1.135f64.powi(level as i32 - 1);
    let reach = leaf
        .corners
        .iter()
        .map(|&p| geometry::dist2(p, leaf.centroid).sqrt())
        .fold(0.0, f64::max);
    let c = leaf.centroid;
    if ((c[0] - centre[0]).powi(2) + (c[1] - centre[1]).powi(2)).sqrt() <= radius + reach {
        Mark::Refine
    } else if leaf.level > 0 {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// The shock case's adaptation options.
pub fn options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 3,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// The shipped shock mesh, read (from the root crate's benches or plume-cases', one folder
/// down).
pub fn read_shock_mesh() -> Mesh {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = ["meshes", "../meshes"]
        .map(|m| here.join(m).join("shock_box.msh"))
        .into_iter()
        .find(|p| p.exists())
        .expect("the shipped meshes/shock_box.msh");
    let (mesh, _) = plume::io::read_mesh(&path).expect("shipped mesh");
    mesh
}
