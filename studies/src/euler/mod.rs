//! `plume study euler`: the Euler solver checked as a CFD user would (issue 26, item 3). Sod and
//! Toro's tests 1–5 along x on uniform levels against the exact Riemann solution; a smooth
//! density wave against its translated initial state; the 3-D blast in an octant against the
//! 1-D spherically symmetric reference ([`plume_cases::euler::spherical`]); each scheme asked
//! for (first and second order) side by side, the L1 density error and its observed order
//! between levels, and adaptive runs against the finest uniform level (the share of its leaves
//! they need).
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | [`EulerStudyConfig`], the problems, [`run`], the rows |
//! | `runs.rs` | one run of a problem on one rank and what is measured at its end |
//! | `report.rs` | `euler.md`, `euler.json` and the charts |

pub mod report;
pub mod runs;

use std::time::Instant;

use plume_cases::euler::spherical::{shock_radius, Geometry, RadialFlow};
use plume_cases::euler::{Case, RiemannReference, SchemeOptions, State1d, TORO_TESTS};
use plume_cases::provenance::Provenance;
use rayon::prelude::*;
use serde::Serialize;

pub use runs::{Measured, Quantity};

/// A scheme of the study with the name its columns carry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedScheme {
    /// The spatial order, 1 or 2.
    pub order: u8,
    /// The name: `first order`, `second order`.
    pub name: String,
    /// The scheme's settings.
    pub scheme: SchemeOptions,
}

impl NamedScheme {
    /// The solver's scheme of spatial order `order` as `plume run euler` runs it: 1 with
    /// explicit Euler in time ([`SchemeOptions::first_order`]), 2 the default (SSP-RK2,
    /// Venkatakrishnan's limiter); `None` for another order.
    pub fn of_order(order: u8) -> Option<NamedScheme> {
        let (name, scheme) = match order {
            1 => ("first order", SchemeOptions::first_order()),
            2 => ("second order", SchemeOptions::default()),
            _ => return None,
        };
        Some(NamedScheme {
            order,
            name: name.into(),
            scheme,
        })
    }
}

/// What `plume study euler` runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EulerStudyConfig {
    /// The schemes compared.
    pub schemes: Vec<NamedScheme>,
    /// The Riemann problems and the wave run on uniform levels 0 to this.
    pub levels: u8,
    /// Cubes along the tube `[0, 1]` of the Riemann problems and the wave (a leaf's extent
    /// along x at level `l` is `1 / (cubes · 2^l)`).
    pub tube_cubes: usize,
    /// The blast runs on uniform levels 0 to this.
    pub blast_levels: u8,
    /// Cubes along each side of the blast's octant `[0, 1]³`.
    pub blast_cubes: usize,
    /// Cells of the 1-D spherical reference over the radii `[0, √3]`.
    pub reference_cells: usize,
    /// The adaptive runs refine leaves whose density jump exceeds this.
    pub refine_above: f64,
    /// … and coarsen families whose jumps all lie below this.
    pub coarsen_below: f64,
    /// The adaptive runs adapt every this many iterations.
    pub adapt_every: usize,
}

impl EulerStudyConfig {
    /// The study as `viz/euler` holds it: levels 0–3 on an 8-cube tube, the blast on levels
    /// 0–2 of a 6-cube octant, a reference of 4,000 cells, the Sod test's thresholds (0.01 and
    /// 0.002), adaptation every 2 iterations.
    pub fn standard(schemes: Vec<NamedScheme>) -> EulerStudyConfig {
        EulerStudyConfig {
            schemes,
            levels: 3,
            tube_cubes: 8,
            blast_levels: 2,
            blast_cubes: 6,
            reference_cells: 4000,
            refine_above: 0.01,
            coarsen_below: 0.002,
            adapt_every: 2,
        }
    }

    /// Checks the settings; the message names the option at fault.
    ///
    /// # Errors
    /// No scheme; more than 5 levels (the finest tube would hold over a million leaves);
    /// fewer than 1 cube or 100 reference cells; thresholds not `0 ≤ coarsen < refine`.
    pub fn check(&self) -> Result<(), String> {
        if self.schemes.is_empty() {
            return Err("--orders must list at least one order".into());
        }
        if self.levels > 5 || self.blast_levels > 4 {
            return Err(format!(
                "--levels {} / --blast-levels {}: at most 5 and 4 (the finest meshes would \
                 hold millions of leaves)",
                self.levels, self.blast_levels
            ));
        }
        if self.tube_cubes == 0 || self.blast_cubes == 0 || self.tube_cubes > 256 {
            return Err("--tube-cubes (1 to 256) and --blast-cubes (at least 1)".into());
        }
        if self.blast_cubes > 16 {
            return Err(format!(
                "--blast-cubes {}: at most 16 (the finest octant would hold millions of leaves)",
                self.blast_cubes
            ));
        }
        if self.reference_cells < 100 || self.reference_cells > 1_000_000 {
            return Err(format!(
                "--reference-cells {}: from 100 to 1,000,000",
                self.reference_cells
            ));
        }
        if !(self.coarsen_below >= 0.0 && self.refine_above > self.coarsen_below) {
            return Err(format!(
                "--coarsen-below {} must be at least 0 and below --refine-above {}",
                self.coarsen_below, self.refine_above
            ));
        }
        if self.adapt_every == 0 {
            return Err("--adapt-every must be at least 1".into());
        }
        Ok(())
    }
}

/// The domain a problem runs in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    /// The tube `[0, 1] × [0, 1/n]²` of `n` cubes, its ends transmissive.
    Tube,
    /// The same tube with the flow entering at x = 0 through an inflow boundary (the case's
    /// inflow state outside) and leaving at x = 1 through a transmissive one: an end where a
    /// subsonic flow enters needs its state given (a transmissive one there lets the
    /// second-order scheme's boundary value drift away; see `docs/euler.md`).
    Channel,
    /// The octant `[0, 1]³` of `n³` cubes, its faces walls (the three through the centre are
    /// the planes of symmetry).
    Octant,
}

/// One problem of the study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// Short name (files and tables): `sod`, `toro1` … `toro5`, `wave`, `blast`.
    pub name: String,
    /// What a reader calls it.
    pub title: String,
    /// The initial state.
    pub case: Case,
    /// The output time.
    pub t_end: f64,
    /// Where it runs.
    pub domain: Domain,
}

/// The study's blast: pressure 1 within 0.4 of the octant's corner, 0.1 outside, density 1.
const BLAST_RADIUS: f64 = 0.4;

/// The blast's output time: its shock has run to about r = 0.7, within the octant.
const BLAST_T_END: f64 = 0.25;

/// Sod's output time (the solver's Sod tests').
const SOD_T_END: f64 = 0.2;

impl Problem {
    /// Sod, Toro's tests 1–5, the wave and the blast.
    pub fn all() -> Vec<Problem> {
        let tube = |name: String, title: String, case, t_end| Problem {
            name,
            title,
            case,
            t_end,
            domain: Domain::Tube,
        };
        let mut problems = vec![tube(
            "sod".into(),
            format!("Sod, t = {SOD_T_END}"),
            Case::sod(0.5),
            SOD_T_END,
        )];
        for t in TORO_TESTS {
            problems.push(tube(
                format!("toro{}", t.number),
                format!("Toro's test {}, t = {}", t.number, t.t_end),
                t.case(),
                t.t_end,
            ));
        }
        problems.push(Problem {
            name: "wave".into(),
            title: "Smooth density wave, t = 0.4".into(),
            case: Case::Wave {
                base: State1d {
                    rho: 1.0,
                    u: 1.0,
                    p: 1.0,
                },
                amplitude: 0.5,
                centre: 0.3,
                half_width: 0.2,
            },
            t_end: 0.4,
            domain: Domain::Channel,
        });
        problems.push(Problem {
            name: "blast".into(),
            title: format!("Blast in an octant, t = {BLAST_T_END}"),
            case: Case::blast([0.0; 3], BLAST_RADIUS),
            t_end: BLAST_T_END,
            domain: Domain::Octant,
        });
        problems
    }

    /// The pressure the blast's shock runs into (`None` for the others).
    pub fn ambient_pressure(&self) -> Option<f64> {
        match self.case {
            Case::Blast { outside, .. } => Some(outside),
            _ => None,
        }
    }

    /// True for the problems whose adaptive runs the study measures.
    pub fn adapts(&self) -> bool {
        matches!(self.name.as_str(), "sod" | "wave" | "blast")
    }
}

/// The exact (or reference) solution a problem is measured against at its output time.
#[derive(Debug, Clone)]
pub enum Exact {
    /// A Riemann problem along x.
    Riemann(RiemannReference),
    /// The wave: its initial state moved.
    Wave(Case),
    /// The blast: the 1-D spherical reference around the octant's corner.
    Radial(Box<RadialFlow>),
}

impl Exact {
    /// The reference of `problem` (the blast's computed on `cells` radial cells).
    ///
    /// # Errors
    /// A one-line message: states the exact solver refuses, or a failed reference run.
    pub fn of(problem: &Problem, cells: usize) -> Result<Exact, String> {
        match problem.case {
            Case::Sod { .. } => problem
                .case
                .reference(plume_cases::euler::Gas::default())
                .map(Exact::Riemann)
                .ok_or_else(|| format!("{}: no exact solution", problem.name)),
            Case::Wave { .. } => Ok(Exact::Wave(problem.case)),
            Case::Blast {
                radius,
                rho,
                inside,
                outside,
                ..
            } => {
                let initial = |r: f64| State1d {
                    rho,
                    u: 0.0,
                    p: if r < radius { inside } else { outside },
                };
                let mut flow = RadialFlow::new(
                    Geometry::Spherical,
                    (0.0, 3f64.sqrt()),
                    (cells, plume_cases::euler::Gas::default()),
                    initial,
                )
                .map_err(|e| e.to_string())?;
                flow.advance_to(problem.t_end).map_err(|e| e.to_string())?;
                Ok(Exact::Radial(Box::new(flow)))
            }
        }
    }

    /// The coordinate the profiles follow: x in the tube, the distance from the corner in the
    /// octant.
    pub fn coordinate(&self, x: [f64; 3]) -> f64 {
        match self {
            Exact::Radial(_) => (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt(),
            _ => x[0],
        }
    }

    /// The exact state at coordinate `s` ([`Exact::coordinate`]) at time `t`.
    pub fn state(&self, s: f64, t: f64) -> State1d {
        match self {
            Exact::Riemann(r) => r.state(s, t),
            Exact::Wave(case) => {
                let w = case.state_at([s, 0.0, 0.0]);
                State1d {
                    rho: case.wave_density([s, 0.0, 0.0], t).unwrap_or(w.rho),
                    u: w.vel[0],
                    p: w.p,
                }
            }
            Exact::Radial(flow) => flow.state_at(s),
        }
    }

    /// The shock radius of the reference (the blast's) running into gas of pressure
    /// `ambient`.
    pub fn shock_radius(&self, ambient: f64) -> Option<f64> {
        match self {
            Exact::Radial(flow) => {
                let p: Vec<(f64, f64)> = flow.profile().iter().map(|(r, s)| (*r, s.p)).collect();
                shock_radius(&p, ambient)
            }
            _ => None,
        }
    }
}

/// How a run's mesh is refined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Refinement {
    /// Every leaf to `level`, never adapted.
    Uniform {
        /// The level.
        level: u8,
    },
    /// By the density-jump indicator up to `max_depth`, every `adapt_every` iterations.
    Adaptive {
        /// The deepest level.
        max_depth: u8,
    },
}

/// One run of the study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The problem's name.
    pub problem: String,
    /// The scheme's name.
    pub scheme: String,
    /// How the mesh was refined.
    pub refinement: Refinement,
    /// What was measured.
    #[serde(flatten)]
    pub measured: Measured,
    /// The observed order of the L1 error against the previous uniform level:
    /// `log₂(e_{l−1} / e_l)` (none on level 0 and for adaptive runs).
    pub order: Option<f64>,
}

/// What an adaptive run reached against the finest uniform level of the same scheme.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fraction {
    /// The problem.
    pub problem: String,
    /// The scheme.
    pub scheme: String,
    /// The finest uniform level's leaves.
    pub uniform_leaves: u64,
    /// Its L1 density error.
    pub uniform_l1: f64,
    /// The adaptive run's leaves at the end.
    pub adaptive_leaves: u64,
    /// Its leaves averaged over the iterations (what its flux evaluations cost).
    pub adaptive_mean_leaves: f64,
    /// Its L1 density error.
    pub adaptive_l1: f64,
    /// `adaptive_mean_leaves / uniform_leaves`.
    pub fraction: f64,
    /// `adaptive_l1 / uniform_l1`: at most 1 when the adaptive run reached the uniform error.
    pub error_ratio: f64,
}

/// The whole study.
#[derive(Debug, Clone, Serialize)]
pub struct EulerStudy {
    /// Where it comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What was run.
    pub config: EulerStudyConfig,
    /// The problems.
    pub problems: Vec<Problem>,
    /// The blast reference's shock radius at the output time.
    pub reference_shock_radius: Option<f64>,
    /// Every run.
    pub rows: Vec<Row>,
    /// The adaptive runs against the finest uniform levels.
    pub fractions: Vec<Fraction>,
    /// Wall seconds of the whole study.
    pub wall_s: f64,
    /// The references, for the charts.
    #[serde(skip)]
    pub exact: Vec<Exact>,
}

impl EulerStudy {
    /// The row of `problem` run with `scheme` and `refinement`.
    pub fn row(&self, problem: &str, scheme: &str, refinement: Refinement) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.problem == problem && r.scheme == scheme && r.refinement == refinement)
    }

    /// The finest uniform level of `problem`.
    pub fn finest(&self, problem: &Problem) -> u8 {
        match problem.domain {
            Domain::Tube | Domain::Channel => self.config.levels,
            Domain::Octant => self.config.blast_levels,
        }
    }
}

/// One run to do: a problem, a scheme, a refinement.
struct Job {
    problem: usize,
    scheme: usize,
    refinement: Refinement,
}

/// Runs the study on the threads of rayon's pool (one rank a run); `done(what)` after each
/// run.
///
/// # Errors
/// A one-line message: the configuration's, or a run's failure.
pub fn run(cfg: &EulerStudyConfig, done: impl Fn(&str) + Sync) -> Result<EulerStudy, String> {
    cfg.check()?;
    let clock = Instant::now();
    let problems = Problem::all();
    let exact = problems
        .iter()
        .map(|p| Exact::of(p, cfg.reference_cells))
        .collect::<Result<Vec<_>, _>>()?;
    let mut jobs = jobs(cfg, &problems);
    // The costliest first (the finest levels, the blast), so the pool ends together.
    jobs.sort_by_key(|j| {
        let level = match j.refinement {
            Refinement::Uniform { level } => level,
            Refinement::Adaptive { max_depth } => max_depth,
        };
        let octant = problems[j.problem].domain == Domain::Octant;
        std::cmp::Reverse((level + u8::from(octant), j.problem))
    });
    let measured =
        jobs.par_iter()
            .with_max_len(1)
            .map(|job| {
                let problem = &problems[job.problem];
                let scheme = &cfg.schemes[job.scheme];
                let m = runs::run(cfg, problem, &exact[job.problem], scheme, job.refinement)
                    .map_err(|e| {
                        format!(
                            "{} ({}, {:?}): {e}",
                            problem.name, scheme.name, job.refinement
                        )
                    })?;
                done(&format!(
                    "{} {} {:?}",
                    problem.name, scheme.name, job.refinement
                ));
                Ok(m)
            })
            .collect::<Result<Vec<_>, String>>()?;
    let mut rows: Vec<Row> = jobs
        .iter()
        .zip(measured)
        .map(|(job, measured)| Row {
            problem: problems[job.problem].name.clone(),
            scheme: cfg.schemes[job.scheme].name.clone(),
            refinement: job.refinement,
            measured,
            order: None,
        })
        .collect();
    // Back in the problems' order, by scheme and level.
    let place = |r: &Row| {
        let p = problems.iter().position(|p| p.name == r.problem);
        let s = cfg.schemes.iter().position(|s| s.name == r.scheme);
        let l = match r.refinement {
            Refinement::Uniform { level } => level,
            Refinement::Adaptive { .. } => u8::MAX,
        };
        (p, s, l)
    };
    rows.sort_by_key(place);
    for i in 1..rows.len() {
        if let (Refinement::Uniform { level }, Refinement::Uniform { level: before }) =
            (rows[i].refinement, rows[i - 1].refinement)
        {
            let same =
                rows[i].problem == rows[i - 1].problem && rows[i].scheme == rows[i - 1].scheme;
            if same && level == before + 1 {
                let ratio = rows[i - 1].measured.l1 / rows[i].measured.l1;
                rows[i].order = (ratio.is_finite() && ratio > 0.0).then(|| ratio.log2());
            }
        }
    }
    let mut study = EulerStudy {
        provenance: None,
        config: cfg.clone(),
        reference_shock_radius: problems
            .iter()
            .zip(&exact)
            .find_map(|(p, e)| e.shock_radius(p.ambient_pressure()?)),
        problems,
        rows,
        fractions: Vec::new(),
        wall_s: 0.0,
        exact,
    };
    study.fractions = fractions(&study);
    study.wall_s = clock.elapsed().as_secs_f64();
    Ok(study)
}

/// The number of runs `cfg` makes (for a progress bar).
pub fn runs_of(cfg: &EulerStudyConfig) -> usize {
    jobs(cfg, &Problem::all()).len()
}

/// The runs of `cfg` over `problems`: every uniform level and, for the problems that adapt,
/// an adaptive run, with every scheme.
fn jobs(cfg: &EulerStudyConfig, problems: &[Problem]) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (p, problem) in problems.iter().enumerate() {
        let finest = match problem.domain {
            Domain::Tube | Domain::Channel => cfg.levels,
            Domain::Octant => cfg.blast_levels,
        };
        for s in 0..cfg.schemes.len() {
            for level in 0..=finest {
                let refinement = Refinement::Uniform { level };
                jobs.push(Job {
                    problem: p,
                    scheme: s,
                    refinement,
                });
            }
            if problem.adapts() {
                let refinement = Refinement::Adaptive { max_depth: finest };
                jobs.push(Job {
                    problem: p,
                    scheme: s,
                    refinement,
                });
            }
        }
    }
    jobs
}

/// Every adaptive run against its finest uniform level.
fn fractions(study: &EulerStudy) -> Vec<Fraction> {
    let mut out = Vec::new();
    for problem in study.problems.iter().filter(|p| p.adapts()) {
        let finest = study.finest(problem);
        for scheme in &study.config.schemes {
            let uniform = study.row(
                &problem.name,
                &scheme.name,
                Refinement::Uniform { level: finest },
            );
            let adaptive = study.row(
                &problem.name,
                &scheme.name,
                Refinement::Adaptive { max_depth: finest },
            );
            if let (Some(u), Some(a)) = (uniform, adaptive) {
                let (u, a) = (&u.measured, &a.measured);
                out.push(Fraction {
                    problem: problem.name.clone(),
                    scheme: scheme.name.clone(),
                    uniform_leaves: u.leaves,
                    uniform_l1: u.l1,
                    adaptive_leaves: a.leaves,
                    adaptive_mean_leaves: a.mean_leaves,
                    adaptive_l1: a.l1,
                    fraction: a.mean_leaves / u.leaves as f64,
                    error_ratio: a.l1 / u.l1,
                });
            }
        }
    }
    out
}
