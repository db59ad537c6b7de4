//! Runs of the Euler solver on thread ranks for the `euler_*` tests, and what they compare.
#![allow(dead_code)]

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions, SbnOptions};
use plume::dist::GatheredPlum;
use plume::mesh::geometry;
use plume_cases::euler::{
    Case, Conserved, EulerConfig, EulerRun, FluxScheme, IndicatorOptions, InitialRefinement,
    MemoryBudget, RiemannReference, SchemeOptions, State1d, TimeScheme,
};
use plume_cases::ranks::launch_threads;

/// One leaf at the end of a run, named by its sorted vertex keys.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafSample {
    /// Sorted vertex keys.
    pub keys: [u64; 4],
    /// Depth below its root.
    pub level: u8,
    /// Centroid.
    pub centroid: [f64; 3],
    /// Corners.
    pub corners: [[f64; 3]; 4],
    /// Volume.
    pub volume: f64,
    /// State.
    pub state: Conserved,
}

/// A run's leaves (all ranks', sorted by keys) and its leaf count per adaptation step.
pub struct Outcome {
    /// The leaves.
    pub leaves: Vec<LeafSample>,
    /// Iterations done.
    pub iterations: usize,
    /// Trees the balancer moved over the run.
    pub moved_trees: u64,
}

/// Runs `cfg` on `procs` thread ranks over `mesh` for `iterations` iterations (to `t_end`
/// when `None`), balanced by PLUM.
pub fn run(
    procs: usize,
    initial: &InitialMesh,
    cfg: EulerConfig,
    iterations: Option<usize>,
) -> Outcome {
    run_balanced(procs, initial, cfg, iterations, None)
}

/// As [`run`], balanced by SBN with `sbn` when it is given, else by PLUM.
pub fn run_balanced(
    procs: usize,
    initial: &InitialMesh,
    cfg: EulerConfig,
    iterations: Option<usize>,
    sbn: Option<SbnOptions>,
) -> Outcome {
    let per_rank = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions::new(procs))?;
        let mut euler = match sbn {
            Some(sbn) => EulerRun::with_sbn(comm, initial, cfg, (GatheredPlum::new(plum), sbn))?,
            None => EulerRun::new(comm, initial, cfg, GatheredPlum::new(plum))?,
        };
        while !euler.finished() && iterations.is_none_or(|n| euler.iteration < n) {
            euler.iterate()?;
        }
        let moved = euler.take_moved().trees;
        Ok((samples(&euler), euler.iteration, moved))
    })
    .unwrap();
    let (iterations, moved_trees) = (per_rank[0].1, per_rank[0].2);
    let mut leaves: Vec<LeafSample> = per_rank.into_iter().flat_map(|r| r.0).collect();
    leaves.sort_by_key(|l| l.keys);
    Outcome {
        leaves,
        iterations,
        moved_trees,
    }
}

/// The leaves an Euler run holds on this rank.
pub fn samples<C: plume::comm::Comm + ?Sized>(euler: &EulerRun<C>) -> Vec<LeafSample> {
    let forest = euler.run.forest();
    let mut out = Vec::new();
    forest.for_each_leaf(|leaf| {
        let mut keys = leaf.verts.map(|v| forest.vertices()[v].key);
        keys.sort_unstable();
        out.push(LeafSample {
            keys,
            level: leaf.level,
            centroid: leaf.centroid,
            corners: leaf.corners,
            volume: geometry::volume(&leaf.corners).abs(),
            state: std::array::from_fn(|k| leaf.data[k]),
        });
    });
    out
}

/// The volume-weighted L1 error of the density against the exact solution of the Riemann
/// problem of `left` and `right` in `gas` with its interface at `interface`, at time `t`.
pub fn density_l1(
    leaves: &[LeafSample],
    (left, right): (State1d, State1d),
    (interface, t): (f64, f64),
    gas: plume_cases::euler::Gas,
) -> f64 {
    let exact = RiemannReference::new((left, right), interface, gas).unwrap();
    let (mut err, mut vol) = (0.0, 0.0);
    for l in leaves {
        let rho = exact.density(l.centroid[0], t);
        err += l.volume * (l.state[0] - rho).abs();
        vol += l.volume;
    }
    err / vol
}

/// Sod's states.
pub fn sod_states() -> (State1d, State1d) {
    (
        State1d {
            rho: 1.0,
            u: 0.0,
            p: 1.0,
        },
        State1d {
            rho: 0.125,
            u: 0.0,
            p: 0.1,
        },
    )
}

/// `case` refined by the indicator to depth 2 at the start and every `adapt_every`
/// iterations, with `flux` and `time`, run until t = 1 (tests stop it earlier).
pub fn adaptive(case: Case, flux: FluxScheme, time: TimeScheme, adapt_every: usize) -> EulerConfig {
    EulerConfig {
        case,
        scheme: SchemeOptions {
            flux,
            time,
            ..SchemeOptions::default()
        },
        indicator: IndicatorOptions {
            max_depth: 2,
            ..IndicatorOptions::default()
        },
        initial: InitialRefinement::Adaptive,
        adapt_every,
        t_end: 1.0,
        memory: MemoryBudget::UNLIMITED,
    }
}
