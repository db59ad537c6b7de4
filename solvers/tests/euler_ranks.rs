//! The Euler solver's result does not depend on P: the same leaves with the same states, bit
//! for bit, on 1, 2 and 3 thread ranks (the fluxes in the canonical orientation, each leaf's
//! faces summed in a fixed order, the time step a global minimum).

mod euler_common;

use euler_common::{adaptive, run};
use plume::adapt::InitialMesh;
use plume::mesh::generate_box;
use plume_solvers::euler::{Case, FluxScheme, TimeScheme};

#[test]
fn the_flow_is_the_same_bit_for_bit_on_1_2_and_3_ranks() {
    let initial = InitialMesh::new(generate_box([6, 2, 2], [1.0, 0.3, 0.3]).unwrap()).unwrap();
    for (flux, time) in [
        (FluxScheme::Hllc, TimeScheme::Euler),
        (FluxScheme::Rusanov, TimeScheme::SspRk2),
    ] {
        let cfg = adaptive(Case::sod(0.5), flux, time, 3);
        let serial = run(1, &initial, cfg, Some(15));
        assert!(serial.leaves.len() > 144, "the run refined");
        for procs in [2, 3] {
            let ranks = run(procs, &initial, cfg, Some(15));
            assert_eq!(ranks.leaves.len(), serial.leaves.len(), "P = {procs}");
            for (a, b) in ranks.leaves.iter().zip(&serial.leaves) {
                assert_eq!(a.keys, b.keys, "P = {procs}");
                assert_eq!(
                    a.state.map(f64::to_bits),
                    b.state.map(f64::to_bits),
                    "P = {procs}, {flux:?}: leaf {:?}",
                    a.keys
                );
            }
        }
    }
}
