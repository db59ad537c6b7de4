//! The Euler solver (criterion). Run with `cargo bench -p plume-cases --bench euler`.
//!
//! - `residual/hllc_1`, `residual/rusanov_1`: one first-order residual (every leaf's four
//!   face fluxes, summed) on a Sod tube of ~25,000 leaves on one rank; `residual/hllc_2`,
//!   `residual/rusanov_2` the second-order one, its gradients, limiter and reconstruction
//!   included; the throughput is leaf-face flux evaluations per second on one core, timed on
//!   the thread's CPU clock (other jobs on the machine do not stretch it as they stretch wall
//!   time);
//! - `flux/hllc`: one HLLC flux across a face, alone;
//! - `sod_adaptive/p1`, `/p2`: 40 iterations of an adaptive Sod run (adapting every 2) on 1
//!   and 2 thread ranks, balanced by PLUM; the share of the ranks' time spent in the flow,
//!   adaptation, balancing and migration is printed before the measurements of a selected
//!   benchmark.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use plume::adapt::InitialMesh;
use plume::balance::sbn::policy::FirstHalf;
use plume::balance::{Plum, PlumOptions, SbnOptions};
use plume::comm::CpuClock;
use plume::dist::GatheredPlum;
use plume::mesh::generate_box;
use plume_cases::euler::mesh::FlowMesh;
use plume_cases::euler::reconstruct::FaceStates;
use plume_cases::euler::scheme::{Boundaries, Order, Scheme, Sides, States};
use plume_cases::euler::{
    Case, EulerConfig, EulerRun, FlowTimes, FluxScheme, Gas, IndicatorOptions, InitialRefinement,
    MemoryBudget, Primitive, SchemeOptions,
};
use plume_cases::ranks::launch_threads;

/// A Sod tube refined uniformly twice, on one rank.
fn tube() -> (FlowMesh, InitialMesh) {
    let initial =
        InitialMesh::new(generate_box([64, 1, 1], [1.0, 1.0 / 64.0, 1.0 / 64.0]).unwrap()).unwrap();
    let cfg = config(InitialRefinement::Uniform(2), 0);
    let mesh = launch_threads(1, |comm| {
        let euler = EulerRun::new(
            comm,
            &initial,
            cfg,
            GatheredPlum::new(Plum::new(PlumOptions::new(1))?),
        )?;
        Ok(euler.mesh.clone())
    })
    .unwrap()
    .remove(0);
    (mesh, initial)
}

fn config(initial: InitialRefinement, adapt_every: usize) -> EulerConfig {
    EulerConfig {
        case: Case::sod(0.5),
        scheme: SchemeOptions::default(),
        indicator: IndicatorOptions {
            max_depth: 2,
            ..IndicatorOptions::default()
        },
        initial,
        adapt_every,
        t_end: 1.0,
        memory: MemoryBudget::UNLIMITED,
    }
}

fn residual(c: &mut Criterion) {
    let (mesh, initial) = tube();
    let mut g = c.benchmark_group("residual");
    g.throughput(Throughput::Elements(4 * mesh.nleaves() as u64));
    for (flux, order) in [
        (FluxScheme::Hllc, Order::First),
        (FluxScheme::Rusanov, Order::First),
        (FluxScheme::Hllc, Order::Second),
        (FluxScheme::Rusanov, Order::Second),
    ] {
        let scheme = Scheme {
            opts: SchemeOptions {
                flux,
                order,
                ..SchemeOptions::default()
            },
            boundaries: Boundaries::from_tags(
                &initial.mesh().tags,
                &[],
                Primitive::at_rest(1.0, 1.0),
            )
            .unwrap(),
        };
        let mut rate = vec![[0.0; 5]; mesh.nleaves()];
        let name = format!("{flux:?}_{}", order as u8 + 1).to_lowercase();
        // One rank, no ghosts: the states the fluxes read need no exchange.
        let states = |mesh: &FlowMesh| match order {
            Order::First => States::Cells(Sides::of(mesh, scheme.opts.gas)),
            Order::Second => {
                let (leaves, fallbacks) = scheme.reconstruction().leaf_faces(mesh);
                States::Faces(FaceStates {
                    leaves,
                    ghosts: Vec::new(),
                    fallbacks,
                })
            }
        };
        // Timed on the thread's CPU clock: one core's work, whatever else the machine runs.
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let start = CpuClock::Thread.now();
                for _ in 0..iters {
                    scheme.residual(black_box(&mesh), &states(&mesh), &mut rate);
                }
                CpuClock::Thread.now() - start
            })
        });
    }
    g.finish();
    let left = Primitive {
        rho: 1.0,
        vel: [0.3, 0.1, 0.0],
        p: 1.0,
    }
    .conserved(Gas::default());
    let right = Primitive {
        rho: 0.125,
        vel: [0.0, 0.2, -0.1],
        p: 0.1,
    }
    .conserved(Gas::default());
    let n = [0.6, 0.0, 0.8];
    let mut g = c.benchmark_group("flux");
    g.throughput(Throughput::Elements(1));
    g.bench_function("hllc", |b| {
        b.iter(|| {
            FluxScheme::Hllc.flux(
                Gas::default(),
                black_box(&left),
                black_box(&right),
                black_box(n),
            )
        })
    });
    g.finish();
}

/// SBN's options as `plume run euler --balancer sbn` sets them: no work sent back with a
/// balance request.
fn sbn_options() -> SbnOptions {
    let mut sbn = SbnOptions::default();
    sbn.policies.first_half = FirstHalf::Off;
    sbn
}

/// 40 iterations of an adaptive Sod run on `procs` thread ranks balanced by PLUM, or by SBN
/// when `sbn`; the ranks' summed times.
fn sod_adaptive(initial: &InitialMesh, procs: usize, sbn: bool) -> FlowTimes {
    let cfg = config(InitialRefinement::Adaptive, 2);
    let times = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut euler = match sbn {
            true => {
                EulerRun::with_sbn(comm, initial, cfg, (GatheredPlum::new(plum), sbn_options()))?
            }
            false => EulerRun::new(comm, initial, cfg, GatheredPlum::new(plum))?,
        };
        for _ in 0..40 {
            euler.iterate()?;
        }
        Ok(euler.times)
    })
    .unwrap();
    times
        .into_iter()
        .fold(FlowTimes::default(), |a, t| FlowTimes {
            flow: a.flow + t.flow,
            adaptation: a.adaptation + t.adaptation,
            balancing: a.balancing + t.balancing,
            migration: a.migration + t.migration,
        })
}

/// The share of the ranks' summed time `t` each part of run `name` took, on stderr.
fn print_shares(name: &str, t: &FlowTimes) {
    let all = (t.flow + t.adaptation + t.balancing + t.migration).as_secs_f64();
    let pct = |d: std::time::Duration| 100.0 * d.as_secs_f64() / all;
    eprintln!(
        "sod_adaptive {name}: flow {:.1} %, adaptation {:.1} %, balancing {:.1} %, \
         migration {:.1} % of {all:.3} s (summed over ranks)",
        pct(t.flow),
        pct(t.adaptation),
        pct(t.balancing),
        pct(t.migration)
    );
}

fn shares(c: &mut Criterion) {
    let initial =
        InitialMesh::new(generate_box([32, 2, 2], [1.0, 1.0 / 16.0, 1.0 / 16.0]).unwrap()).unwrap();
    let mut g = c.benchmark_group("sod_adaptive");
    g.sample_size(10);
    for (procs, sbn) in [(1, false), (2, false), (2, true)] {
        let name = format!("p{procs}{}", if sbn { "_sbn" } else { "" });
        // The shares of one run, printed when the benchmark is selected (the closure runs
        // only then), before its measurements.
        let mut printed = false;
        g.bench_function(name.as_str(), |b| {
            if !std::mem::replace(&mut printed, true) {
                print_shares(&name, &sod_adaptive(&initial, procs, sbn));
            }
            b.iter(|| sod_adaptive(&initial, procs, sbn))
        });
    }
    g.finish();
}

criterion_group!(benches, residual, shares);
criterion_main!(benches);
