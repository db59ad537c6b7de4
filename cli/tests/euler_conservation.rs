//! Conservation and free-stream preservation of the Euler solver on thread ranks: mass,
//! momentum and energy unchanged to round-off by every adaptation and migration step (on 1 and
//! 3 ranks), mass and energy by every flow step in a closed box, and a uniform flow uniform
//! through steps and adaptation.

mod euler_common;

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::dist::GatheredPlum;
use plume::mesh::{generate_box, PhysicalName};
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, InitialRefinement, Order, SchemeOptions, State1d, TimeScheme,
};
use plume_cases::ranks::launch_threads;

fn blast_config(order: Order, time: TimeScheme) -> EulerConfig {
    let blast = Case::blast([0.3, 0.5, 0.5], 0.25);
    let mut cfg = euler_common::adaptive(blast, SchemeOptions::default().flux, time, 2);
    cfg.scheme.order = order;
    cfg
}

/// Runs the blast in a closed box on `procs` ranks for `iterations` iterations; returns the
/// largest relative change of (mass, momentum, energy) across an adaptation step and of
/// (mass, energy) across a flow step.
fn closed_box(
    procs: usize,
    (order, time): (Order, TimeScheme),
    iterations: usize,
) -> ([f64; 3], [f64; 2]) {
    let initial = InitialMesh::new(generate_box([3, 3, 3], [1.0; 3]).unwrap()).unwrap();
    let per_rank = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut euler = EulerRun::new(
            comm,
            &initial,
            blast_config(order, time),
            GatheredPlum::new(plum),
        )?;
        let mut flow = [0.0f64; 2];
        for _ in 0..iterations {
            let before = euler.totals()?;
            let adapted = euler.iterate()?.is_some();
            if !adapted {
                let change = euler.totals()?.change_from(&before);
                flow = [flow[0].max(change[0]), flow[1].max(change[2])];
            }
        }
        Ok((euler.take_adapt_change(), flow))
    })
    .unwrap();
    per_rank[0]
}

#[test]
fn adaptation_and_migration_conserve_mass_momentum_and_energy() {
    for procs in [1, 3] {
        for order in [Order::First, Order::Second] {
            let (adapt, _) = closed_box(procs, (order, TimeScheme::Euler), 12);
            assert!(
                adapt.iter().all(|&c| c <= 1e-12),
                "P = {procs}, {order:?}: {adapt:?}"
            );
        }
    }
}

#[test]
fn a_flow_step_in_a_closed_box_conserves_mass_and_energy() {
    for order in [Order::First, Order::Second] {
        for time in [TimeScheme::Euler, TimeScheme::SspRk2, TimeScheme::SspRk3] {
            let (_, flow) = closed_box(2, (order, time), 6);
            assert!(
                flow.iter().all(|&c| c <= 1e-13),
                "{order:?} {time:?}: {flow:?}"
            );
        }
    }
}

#[test]
fn a_uniform_flow_stays_uniform_through_steps_and_adaptation() {
    // All sides transmissive, the same state left and right: a uniform flow along x.
    let mut mesh = generate_box([3, 2, 2], [1.5, 1.0, 1.0]).unwrap();
    mesh.tag_boundary(|_, _| 1).unwrap();
    mesh.tags.names.push(PhysicalName {
        dim: 2,
        tag: 1,
        name: "outflow".into(),
    });
    let initial = InitialMesh::new(mesh).unwrap();
    let state = State1d {
        rho: 1.0,
        u: 0.5,
        p: 1.0,
    };
    let cfg = EulerConfig {
        case: Case::Sod {
            left: state,
            right: state,
            interface: 0.75,
        },
        initial: InitialRefinement::Uniform(1),
        adapt_every: 0,
        ..blast_config(Order::Second, TimeScheme::SspRk2)
    };
    let worst = launch_threads(2, |comm| {
        let plum = Plum::new(PlumOptions::new(2))?;
        let mut euler = EulerRun::new(comm, &initial, cfg, GatheredPlum::new(plum))?;
        for step in 0..6 {
            euler.iterate()?;
            // Refine some leaves, coarsen others: the transfer keeps the state.
            let leaves = &euler.mesh.halo.adjacency.leaves;
            let (refine, coarsen) = if step % 2 == 0 {
                (leaves.iter().step_by(3).copied().collect(), Vec::new())
            } else {
                (Vec::new(), leaves.clone())
            };
            euler.adapt_marked(refine, coarsen)?;
        }
        let uniform = state;
        let worst = euler_common::samples(&euler)
            .iter()
            .map(|l| {
                let u = l.state;
                (u[0] - uniform.rho)
                    .abs()
                    .max((u[1] / u[0] - uniform.u).abs())
                    .max((u[2] / u[0]).abs())
                    .max((u[3] / u[0]).abs())
            })
            .fold(0.0, f64::max);
        Ok(worst)
    })
    .unwrap();
    assert!(worst.iter().all(|&w| w < 1e-12), "{worst:?}");
}
