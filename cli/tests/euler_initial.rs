//! The initial state resolved before t = 0: the initial refinement looks at every variable, so
//! the blast's pressure sphere (density uniform) is refined to the deepest level all round.

mod euler_common;

use plume::adapt::InitialMesh;
use plume::mesh::generate_box;
use plume_cases::euler::{Case, FluxScheme, TimeScheme};

#[test]
fn every_leaf_the_blasts_sphere_crosses_starts_at_the_deepest_level() {
    let initial = InitialMesh::new(generate_box([6, 6, 6], [1.0; 3]).unwrap()).unwrap();
    let (centre, radius) = ([0.5; 3], 0.3);
    let cfg = euler_common::adaptive(
        Case::blast(centre, radius),
        FluxScheme::Hllc,
        TimeScheme::SspRk2,
        0,
    );
    let out = euler_common::run(2, &initial, cfg, Some(0));
    let inside =
        |x: &[f64; 3]| (0..3).map(|d| (x[d] - centre[d]).powi(2)).sum::<f64>() < radius * radius;
    let mut crossed = 0;
    for leaf in &out.leaves {
        let n = leaf.corners.iter().filter(|c| inside(c)).count();
        if n > 0 && n < 4 {
            crossed += 1;
            assert_eq!(leaf.level, cfg.indicator.max_depth, "{leaf:?}");
        }
    }
    assert!(
        crossed > 0 && out.leaves.len() > initial.nroots(),
        "{crossed}"
    );
}
