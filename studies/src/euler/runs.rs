//! One run of the Euler study: a problem's mesh (the tube or the octant), the solver run on one
//! thread rank to the output time, then what the study measures at the end: the L1 density
//! error against the problem's reference, the leaves (at the end and averaged over the
//! iterations), the profiles along x or r, the blast's shock radius.

use std::time::Instant;

use plume::adapt::InitialMesh;
use plume::balance::{Plum, PlumOptions};
use plume::dist::GatheredPlum;
use plume::mesh::{generate_box, PhysicalName};
use plume_cases::euler::spherical::shock_radius;
use plume_cases::euler::validation::{density_l1, profile};
use plume_cases::euler::{
    EulerConfig, EulerRun, IndicatorOptions, InitialRefinement, MemoryBudget, Primitive,
};
use plume_cases::ranks::launch_threads;
use serde::Serialize;

use super::{Domain, EulerStudyConfig, Exact, NamedScheme, Problem, Refinement};

/// A value of the flow a profile follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantity {
    /// ρ.
    Density,
    /// u along x.
    Velocity,
    /// p.
    Pressure,
}

impl Quantity {
    /// The three, in the order of the profiles.
    pub const ALL: [Quantity; 3] = [Quantity::Density, Quantity::Velocity, Quantity::Pressure];

    /// The value of `w`.
    pub fn of(self, w: &Primitive) -> f64 {
        match self {
            Quantity::Density => w.rho,
            Quantity::Velocity => w.vel[0],
            Quantity::Pressure => w.p,
        }
    }

    /// Its word in files and labels.
    pub fn word(self) -> &'static str {
        match self {
            Quantity::Density => "density",
            Quantity::Velocity => "velocity",
            Quantity::Pressure => "pressure",
        }
    }
}

/// What a run measured at its end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// Leaves at the end.
    pub leaves: u64,
    /// Leaves averaged over the iterations.
    pub mean_leaves: f64,
    /// The volume-weighted L1 error of the density against the reference.
    pub l1: f64,
    /// Iterations done.
    pub iterations: usize,
    /// The extent along x (the tube) or r (the octant) of a leaf of the finest level reached,
    /// its root cube's edge halved once a level.
    pub leaf_size: f64,
    /// The shock radius of the blast (pressure half way up its outer jump, over slabs of r
    /// one finest leaf wide).
    pub shock_radius: Option<f64>,
    /// Wall seconds of the run.
    pub seconds: f64,
    /// The profiles of density, velocity and pressure ([`Quantity::ALL`]) over slabs of the
    /// coordinate one finest leaf wide (drawn, not written to the JSON).
    #[serde(skip)]
    pub profiles: Vec<Vec<(f64, f64)>>,
}

/// The tube `[0, 1] × [0, 1/n]²` of `n` cubes, its end x = 1 transmissive, its end x = 0 of
/// the boundary kind `entry` (`outflow`: transmissive; `inflow`: the case's inflow state
/// outside), its sides walls (the flow along x slides along them).
fn tube(cubes: usize, entry: &str) -> plume::Result<InitialMesh> {
    let h = 1.0 / cubes as f64;
    let mut mesh = generate_box([cubes, 1, 1], [1.0, h, h])?;
    mesh.tag_boundary(|centre, _| {
        if centre[0] >= 1.0 {
            1
        } else if centre[0] <= 0.0 {
            2
        } else {
            0
        }
    })?;
    for (tag, name) in [(1, "outflow"), (2, entry)] {
        mesh.tags.names.push(PhysicalName {
            dim: 2,
            tag,
            name: name.into(),
        });
    }
    InitialMesh::new(mesh)
}

/// The octant `[0, 1]³` of `n³` cubes, walls all round.
fn octant(cubes: usize) -> plume::Result<InitialMesh> {
    InitialMesh::new(generate_box([cubes; 3], [1.0; 3])?)
}

/// Runs `problem` with `scheme` refined as `refinement` says, and measures it against `exact`.
///
/// # Errors
/// A one-line message: the mesh's or the run's failure.
pub fn run(
    cfg: &EulerStudyConfig,
    problem: &Problem,
    exact: &Exact,
    scheme: &NamedScheme,
    refinement: Refinement,
) -> Result<Measured, String> {
    let clock = Instant::now();
    let (initial, cubes) = match problem.domain {
        Domain::Tube => (tube(cfg.tube_cubes, "outflow"), cfg.tube_cubes),
        Domain::Channel => (tube(cfg.tube_cubes, "inflow"), cfg.tube_cubes),
        Domain::Octant => (octant(cfg.blast_cubes), cfg.blast_cubes),
    };
    let initial = initial.map_err(|e| e.to_string())?;
    let (depth, start, adapt_every) = match refinement {
        Refinement::Uniform { level } => (level, InitialRefinement::Uniform(level), 0),
        // The blast's density is uniform at t = 0: the density-jump indicator would not see
        // its sphere, so its adaptive run starts from the finest level and coarsens.
        Refinement::Adaptive { max_depth } if problem.domain == Domain::Octant => (
            max_depth,
            InitialRefinement::Uniform(max_depth),
            cfg.adapt_every,
        ),
        Refinement::Adaptive { max_depth } => {
            (max_depth, InitialRefinement::Adaptive, cfg.adapt_every)
        }
    };
    let euler = EulerConfig {
        case: problem.case,
        scheme: scheme.scheme,
        indicator: IndicatorOptions {
            refine_above: cfg.refine_above,
            coarsen_below: cfg.coarsen_below,
            max_depth: depth,
            ..IndicatorOptions::default()
        },
        initial: start,
        adapt_every,
        t_end: problem.t_end,
        memory: MemoryBudget::UNLIMITED,
    };
    let leaf_size = 1.0 / (cubes as f64 * f64::from(1u32 << depth));
    // Slabs one finest leaf wide over [0, 1] (x in the tube, r in the octant).
    let slabs = (1.0 / leaf_size).round() as usize;
    let along = |x: [f64; 3]| exact.coordinate(x);
    let t = problem.t_end;
    let ended = launch_threads(1, |comm| {
        let plum = Plum::new(PlumOptions::new(1))?;
        let mut run = EulerRun::new(comm, &initial, euler, GatheredPlum::new(plum))?;
        let mut leaf_iterations = 0.0;
        while !run.finished() {
            run.iterate()?;
            leaf_iterations += run.mesh.nleaves() as f64;
        }
        let forest = run.run.forest();
        let l1 = density_l1(comm, forest, |x| exact.state(along(x), t).rho)?;
        let profiles = Quantity::ALL
            .iter()
            .map(|q| {
                profile(
                    comm,
                    forest,
                    (along, (0.0, 1.0), slabs),
                    (|w: &Primitive| q.of(w), plume_cases::euler::Gas::default()),
                )
            })
            .collect::<plume_cases::Result<Vec<_>>>()?;
        let iterations = run.iteration;
        Ok((
            forest.nleaves() as u64,
            leaf_iterations / iterations.max(1) as f64,
            l1,
            iterations,
            profiles,
        ))
    })
    .map_err(|e| e.to_string())?;
    let (leaves, mean_leaves, l1, iterations, profiles) =
        ended.into_iter().next().expect("one rank ran");
    let shock_radius = problem
        .ambient_pressure()
        .and_then(|ambient| shock_radius(&profiles[2], ambient));
    Ok(Measured {
        leaves,
        mean_leaves,
        l1,
        iterations,
        leaf_size,
        shock_radius,
        seconds: clock.elapsed().as_secs_f64(),
        profiles,
    })
}
