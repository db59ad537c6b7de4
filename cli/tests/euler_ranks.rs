//! The Euler solver's result does not depend on P: the same leaves with the same states, bit
//! for bit, on 1, 2 and 3 thread ranks (the fluxes in the canonical orientation, each leaf's
//! faces summed in a fixed order, the time step a global minimum; at second order each face's
//! reconstructed states made by the ranks holding its leaves), nor on the balancer: SBN,
//! which moves trees while the ranks compute, gives PLUM's flow.

mod euler_common;

use euler_common::{adaptive, run, run_balanced, Outcome};
use plume::adapt::InitialMesh;
use plume::balance::{SbnOptions, Variant};
use plume::mesh::generate_box;
use plume_cases::euler::{Case, FluxScheme, Order, TimeScheme};

#[test]
fn the_flow_is_the_same_bit_for_bit_on_1_2_and_3_ranks() {
    let initial = InitialMesh::new(generate_box([6, 2, 2], [1.0, 0.3, 0.3]).unwrap()).unwrap();
    for (flux, time, order) in [
        (FluxScheme::Hllc, TimeScheme::SspRk2, Order::Second),
        (FluxScheme::Rusanov, TimeScheme::SspRk3, Order::Second),
        (FluxScheme::Hllc, TimeScheme::Euler, Order::First),
    ] {
        let mut cfg = adaptive(Case::sod(0.5), flux, time, 3);
        cfg.scheme.order = order;
        let serial = run(1, &initial, cfg, Some(15));
        assert!(serial.leaves.len() > 144, "the run refined");
        for procs in [2, 3] {
            same_flow(&run(procs, &initial, cfg, Some(15)), &serial, procs);
        }
    }
}

#[test]
fn sbn_moves_trees_while_the_ranks_compute_and_the_flow_stays_the_same_bit_for_bit() {
    let initial = InitialMesh::new(generate_box([6, 2, 2], [1.0, 0.3, 0.3]).unwrap()).unwrap();
    let mut moved = 0;
    for (flux, time, order, variant) in [
        (
            FluxScheme::Hllc,
            TimeScheme::SspRk2,
            Order::Second,
            Variant::Basic,
        ),
        (
            FluxScheme::Rusanov,
            TimeScheme::SspRk3,
            Order::Second,
            Variant::Heuristic,
        ),
        (
            FluxScheme::Hllc,
            TimeScheme::Euler,
            Order::First,
            Variant::Basic,
        ),
    ] {
        let mut cfg = adaptive(Case::sod(0.5), flux, time, 3);
        cfg.scheme.order = order;
        let serial = run(1, &initial, cfg, Some(15));
        let sbn = SbnOptions {
            variant,
            ..SbnOptions::default()
        };
        for procs in [2, 3] {
            let balanced = run_balanced(procs, &initial, cfg, Some(15), Some(sbn));
            same_flow(&balanced, &serial, procs);
            moved += balanced.moved_trees;
        }
    }
    // The refinement around the interface loads some ranks far more than others (LoadImb
    // above 2 at the start): SBN moves work.
    assert!(moved > 0, "SBN moved no tree");
}

/// Asserts that `ranks` holds the leaves of `serial` with the same states, bit for bit.
fn same_flow(ranks: &Outcome, serial: &Outcome, procs: usize) {
    assert_eq!(ranks.leaves.len(), serial.leaves.len(), "P = {procs}");
    for (a, b) in ranks.leaves.iter().zip(&serial.leaves) {
        assert_eq!(a.keys, b.keys, "P = {procs}");
        assert_eq!(
            a.state.map(f64::to_bits),
            b.state.map(f64::to_bits),
            "P = {procs}: leaf {:?}",
            a.keys
        );
    }
}
