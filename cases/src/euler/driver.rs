//! One rank's part of an Euler run: a [`Run`] carrying the conserved variables on its
//! leaves, the [`FlowMesh`] rebuilt after each adaptation step, and the loop's pieces: the
//! initial mesh adapted to the initial state, an iteration of the scheme, an adaptation step
//! driven by the indicator ([`super::indicator`]). Balancing is the run's balancer's in the adaptation
//! steps (PLUM, or the diffusive repartitioner: trees migrated by the [`Run`]), or SBN's while the ranks compute each stage of an iteration
//! ([`super::balanced`]; trees move lazily).

use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use plume::adapt::{AdaptOptions, InitialMesh, LeafId, Transfer};
use plume::balance::SbnOptions;
use plume::comm::{Comm, CommExt};
use plume::dist::{
    BalanceAt, Balancer, FirstOwners, LevelMetrics, LevelOptions, Moved, ProcessedLevel,
    Processing, Run, StepReport,
};
use plume::hash::{mix64, IntMap};
use plume::metrics::{Phase, RankCpu};

use super::balanced::StageJobs;
use super::cases::Case;
use super::gas::NVARS;
use super::indicator::{marks, IndicatorOptions, Variables};
use super::mesh::FlowMesh;
use super::scheme::{Boundaries, Scheme, SchemeOptions, Stage, StepCounts};
use super::totals::{TotalSums, Totals};
use crate::budget::{self, Budget};
use crate::checkpoint::Checkpoints;
use plume::numbers::short;

/// The smallest CFL number a run takes: a thousandth of the stable step is already far below
/// what first-order accuracy asks for, and smaller ones only multiply the iterations.
pub const MIN_CFL: f64 = 1e-3;

/// How the mesh is refined before the flow starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InitialRefinement {
    /// By the indicator on the initial state on every variable (density, pressure, velocity:
    /// whatever `--indicator-vars` says of the flow), `max_depth` rounds, the state sampled at
    /// each new leaf's centroid.
    Adaptive,
    /// Every leaf, this many levels.
    Uniform(u8),
}

/// The settings of an Euler run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct EulerConfig {
    /// The initial state.
    pub case: Case,
    /// Flux, time integration, CFL.
    pub scheme: SchemeOptions,
    /// Refine and coarsen thresholds, maximum depth.
    pub indicator: IndicatorOptions,
    /// The initial refinement.
    pub initial: InitialRefinement,
    /// Adapt every this many iterations (0: never).
    pub adapt_every: usize,
    /// Physical time to reach.
    pub t_end: f64,
    /// The memory the run may use (unlimited by default; the command line reads the
    /// system's). Not part of the case: never written to the reports.
    #[serde(skip)]
    pub memory: MemoryBudget,
}

/// The memory an Euler run may use in this process, checked before each adaptation step (the
/// initial refinement's included) against the leaves the step would make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBudget {
    /// What the process may still allocate.
    pub budget: Budget,
    /// The run's ranks this process holds: all of them on threads (their leaves add up), one
    /// under MPI.
    pub ranks_here: usize,
}

impl MemoryBudget {
    /// No limit (library callers that guard nothing).
    pub const UNLIMITED: MemoryBudget = MemoryBudget {
        budget: Budget::UNLIMITED,
        ranks_here: 1,
    };

    /// Refuses a step that would leave `leaves` leaves in this process (`all` on every rank,
    /// for the message) over `roots` roots (one copy a rank held here), at [`budget::EULER`].
    ///
    /// # Errors
    /// [`Error::MemoryExceeded`]: what the step would need and what is available.
    pub fn check(&self, roots: usize, (leaves, all): (u128, u64), what: &str) -> Result<()> {
        self.budget.check(
            &format!("{what} (about {all} leaves)"),
            budget::EULER.bytes(self.root_copies(roots), leaves),
            "lower `max_depth` or use a smaller mesh",
        )
    }

    /// The copies of `roots` roots this process holds: one a rank held here.
    pub fn root_copies(&self, roots: usize) -> u128 {
        (roots as u128).saturating_mul(self.ranks_here as u128)
    }
}

impl EulerConfig {
    /// What a checkpoint of a run with these settings must match to continue it: the case,
    /// scheme, indicator, initial refinement and adaptation period, which shape the flow and
    /// its mesh (`t_end` may grow; the mesh's own hash is the library's).
    pub fn identity(&self) -> String {
        format!(
            "euler case {:?}, scheme {:?}, indicator {:?}, initial {:?}, adapt every {}",
            self.case, self.scheme, self.indicator, self.initial, self.adapt_every
        )
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::SettingOutOfRange`] naming the setting at fault.
    pub fn check(&self) -> Result<()> {
        let bad = |setting: &'static str, value: String, rule: String| {
            Err(Error::SettingOutOfRange {
                setting: setting.into(),
                value,
                rule,
            })
        };
        let cfl = self.scheme.cfl;
        if !(MIN_CFL..=1.0).contains(&cfl) {
            return bad(
                "cfl",
                short(cfl),
                format!("must be from {MIN_CFL} to 1 (smaller steps only multiply the iterations)"),
            );
        }
        if !(self.t_end > 0.0 && self.t_end.is_finite()) {
            return bad("t_end", self.t_end.to_string(), "must be positive".into());
        }
        let i = &self.indicator;
        if !(i.coarsen_below >= 0.0 && i.refine_above > i.coarsen_below) {
            return bad(
                "coarsen_below",
                i.coarsen_below.to_string(),
                format!(
                    "must be at least 0 and below `refine_above` {}",
                    i.refine_above
                ),
            );
        }
        if i.max_depth > 8 {
            return bad(
                "max_depth",
                i.max_depth.to_string(),
                "must be at most 8".into(),
            );
        }
        Ok(())
    }
}

/// The forest's options of a run with `cfg`: deep enough for its refinements, the five
/// conserved variables transferred conservatively (they are densities).
fn adapt_options(cfg: &EulerConfig) -> AdaptOptions {
    AdaptOptions {
        max_depth: cfg.indicator.max_depth.max(match cfg.initial {
            InitialRefinement::Uniform(l) => l,
            InitialRefinement::Adaptive => 0,
        }),
        ..AdaptOptions::with_fields(vec![Transfer::Conservative; NVARS])
    }
}

/// Time spent by this rank, by stage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlowTimes {
    /// Fluxes, updates and halo exchanges.
    pub flow: Duration,
    /// Marking, coarsening, closure, subdivision, weights and rebuilding the flow mesh.
    pub adaptation: Duration,
    /// PLUM's decision, or SBN's messages and choices.
    pub balancing: Duration,
    /// Moving trees (PLUM's migration, SBN's lazy moves).
    pub migration: Duration,
}

/// One rank's part of an Euler run (see the module doc).
pub struct EulerRun<'c, C: Comm + ?Sized> {
    /// The distributed forest.
    pub run: Run<'c, C>,
    /// The leaves held here as the scheme sees them.
    pub mesh: FlowMesh,
    scheme: Scheme,
    cfg: EulerConfig,
    /// Physical time reached.
    pub time: f64,
    /// Iterations done.
    pub iteration: usize,
    /// Time spent here, by stage.
    pub times: FlowTimes,
    /// Leaf-face flux evaluations done here.
    pub flux_evaluations: u64,
    /// Faces of leaves held here whose second-order reconstruction fell back to first order
    /// (a non-positive density or pressure), over all stages.
    pub fallbacks: u64,
    /// What the adaptation steps moved, since the last [`EulerRun::take_moved`].
    moved: Moved,
    /// The largest relative change of mass, momentum and energy across one adaptation step
    /// (migration included) since the last [`EulerRun::take_adapt_change`].
    adapt_change: [f64; 3],
    /// SBN's options when SBN balances the stages (PLUM balances none of the steps then).
    sbn: Option<SbnOptions>,
    /// This rank's CPU account of each adaptation step since the last
    /// [`EulerRun::take_step_cpu`].
    step_cpu: Vec<RankCpu>,
    /// The numbers of each adaptation step since the last [`EulerRun::take_steps`], with the
    /// iterations done before it.
    steps: Vec<(usize, LevelMetrics)>,
    /// This rank's CPU segments between the adaptation steps (the flow, the indicator, the
    /// flow mesh's rebuild) since the last [`EulerRun::take_flow_cpu`], as [`Run::account`]
    /// cut them, up to the last step.
    flow_cpu: Vec<(Phase, f64)>,
}

impl<'c, C: Comm + ?Sized> EulerRun<'c, C> {
    /// Starts a run (a collective: every rank passes the same mesh, settings and balancer):
    /// the roots split by the balancer's first partition, the mesh refined to the initial
    /// state as `cfg.initial` says, the state set at every leaf's centroid; the balancer
    /// balances in each adaptation step, on the predicted weights.
    ///
    /// # Errors
    /// [`Error::SettingOutOfRange`] for bad settings, [`Error::Input`] for bad boundary
    /// groups; the run's errors.
    pub fn new(
        comm: &'c C,
        initial: &InitialMesh,
        cfg: EulerConfig,
        balancer: impl Balancer + 'c,
    ) -> Result<Self> {
        Self::start(comm, initial, cfg, balancer, None)
    }

    /// As [`EulerRun::new`], balanced by SBN with `sbn` while the ranks compute each stage
    /// of an iteration; the balancer only makes the first owners (never asked to balance:
    /// [`plume::dist::NoBalancing`] is the one to pass).
    ///
    /// # Errors
    /// As [`EulerRun::new`].
    pub fn with_sbn(
        comm: &'c C,
        initial: &InitialMesh,
        cfg: EulerConfig,
        (balancer, sbn): (impl Balancer + 'c, SbnOptions),
    ) -> Result<Self> {
        Self::start(comm, initial, cfg, balancer, Some(sbn))
    }

    /// As [`EulerRun::new`] (or [`EulerRun::with_sbn`] when `sbn` is given), each rank
    /// starting from its chunk of the mesh ([`Run::from_chunk`]: `chunk` makes it, `first` says
    /// where the first owners come from), with the boundary conditions `boundaries` of the
    /// whole mesh's groups ([`Boundaries::from_tags`], which needs every boundary tag): no rank
    /// holds the whole mesh.
    ///
    /// # Errors
    /// [`Error::SettingOutOfRange`] for bad settings; the run's errors.
    pub fn from_chunk(
        comm: &'c C,
        chunk: impl FnOnce(&C) -> plume::Result<plume::mesh::chunk::Chunk>,
        (cfg, boundaries, sbn): (EulerConfig, Boundaries, Option<SbnOptions>),
        balancer: impl Balancer + 'c,
        first: FirstOwners,
    ) -> Result<Self> {
        cfg.check()?;
        let run = Run::from_chunk(comm, chunk, adapt_options(&cfg), balancer, first)?;
        Self::adapted(run, boundaries, cfg, sbn)
    }

    /// As [`EulerRun::from_chunk`], continuing the run written in the checkpoint
    /// `checkpoints.restart` (a collective): the leaves and their conserved states are the
    /// checkpoint's, on any number of ranks; the time and iteration the caller's state `S`
    /// holds are set by the caller. Returns the run and that state.
    ///
    /// # Errors
    /// As [`EulerRun::from_chunk`]; [`Checkpoints::restart`]'s; [`Error::Input`] when no
    /// checkpoint is asked for.
    pub fn from_checkpoint<S: serde::de::DeserializeOwned>(
        comm: &'c C,
        chunk: impl FnOnce(&C) -> plume::Result<plume::mesh::chunk::Chunk>,
        (cfg, boundaries, sbn): (EulerConfig, Boundaries, Option<SbnOptions>),
        (balancer, first): (impl Balancer + 'c, FirstOwners),
        checkpoints: &Checkpoints,
    ) -> Result<(Self, S)> {
        cfg.check()?;
        let mut run = Run::from_chunk(comm, chunk, adapt_options(&cfg), balancer, first)?;
        let state = checkpoints
            .restart(&mut run, &cfg.identity())?
            .ok_or_else(|| Error::Input("no checkpoint to continue from".into()))?;
        Ok((Self::on(run, boundaries, cfg, sbn)?, state))
    }

    /// [`EulerRun::new`] or [`EulerRun::with_sbn`].
    fn start(
        comm: &'c C,
        initial: &InitialMesh,
        cfg: EulerConfig,
        balancer: impl Balancer + 'c,
        sbn: Option<SbnOptions>,
    ) -> Result<Self> {
        cfg.check()?;
        let boundaries = Boundaries::from_tags(&initial.mesh().tags, &[], cfg.case.inflow())?;
        let opts = adapt_options(&cfg);
        // Each rank holds only its part of the mesh, SBN's processing levels included.
        let run = Run::on_parts(comm, initial, opts, balancer)?;
        Self::adapted(run, boundaries, cfg, sbn)
    }

    /// The run on `run` once started: the state set at every leaf's centroid and the mesh
    /// refined to it as `cfg.initial` says; `run`'s balancer balances in each adaptation step
    /// on the predicted weights, or SBN with `sbn` while the ranks compute.
    fn adapted(
        run: Run<'c, C>,
        boundaries: Boundaries,
        cfg: EulerConfig,
        sbn: Option<SbnOptions>,
    ) -> Result<Self> {
        let mut euler = Self::on(run, boundaries, cfg, sbn)?;
        euler.set_initial_state()?;
        let rounds = match cfg.initial {
            InitialRefinement::Adaptive => cfg.indicator.max_depth,
            InitialRefinement::Uniform(l) => l,
        };
        for _ in 0..rounds {
            let refine = match cfg.initial {
                // Every variable: an initial state may jump in pressure alone (the blast).
                InitialRefinement::Adaptive => {
                    let on_all = IndicatorOptions {
                        variables: Variables::ALL,
                        ..cfg.indicator
                    };
                    marks(&euler.mesh, euler.scheme.on(), &on_all).refine
                }
                InitialRefinement::Uniform(_) => euler.mesh.halo.adjacency.leaves.clone(),
            };
            euler.adapt_marked(refine, Vec::new())?;
            euler.set_initial_state()?;
        }
        Ok(euler)
    }

    /// The run on `run` as its leaves are: the flow mesh of their states; `run`'s balancer
    /// balances in each adaptation step on the predicted weights, or SBN with `sbn` while the
    /// ranks compute.
    fn on(
        run: Run<'c, C>,
        boundaries: Boundaries,
        cfg: EulerConfig,
        sbn: Option<SbnOptions>,
    ) -> Result<Self> {
        let at = match sbn {
            Some(_) => BalanceAt::Never,
            None => BalanceAt::Predicted,
        };
        let run = run.balance_at(at);
        Ok(EulerRun {
            mesh: FlowMesh::build(&run)?,
            run,
            scheme: Scheme {
                opts: cfg.scheme,
                boundaries,
            },
            cfg,
            time: 0.0,
            iteration: 0,
            times: FlowTimes::default(),
            flux_evaluations: 0,
            fallbacks: 0,
            moved: Moved::default(),
            adapt_change: [0.0; 3],
            sbn,
            step_cpu: Vec::new(),
            steps: Vec::new(),
            flow_cpu: Vec::new(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &EulerConfig {
        &self.cfg
    }

    /// True once the run reached `t_end`.
    pub fn finished(&self) -> bool {
        self.time >= self.cfg.t_end
    }

    /// One iteration of the scheme (a collective), its step cut to end at `t_end`; then an
    /// adaptation step when one is due. Returns the adaptation step's report.
    ///
    /// # Errors
    /// A flow that is no longer physical; the run's errors; on every rank.
    pub fn iterate(&mut self) -> Result<Option<StepReport>> {
        let start = Instant::now();
        let moving_before = self.times.balancing + self.times.migration;
        let dt = self
            .scheme
            .time_step(&self.run, &self.mesh, self.cfg.t_end - self.time)
            .map_err(|e| match e {
                Error::Unphysical { at: None, detail } => Error::Unphysical {
                    at: Some((self.iteration, self.time)),
                    detail,
                },
                e => e,
            })?;
        let counts = match self.sbn {
            None => self.scheme.advance(&mut self.run, &mut self.mesh, dt)?,
            Some(sbn) => self.advance_balanced(sbn, dt)?,
        };
        self.flux_evaluations += counts.evaluations;
        self.fallbacks += counts.fallbacks;
        self.time = if dt == self.cfg.t_end - self.time {
            self.cfg.t_end
        } else {
            self.time + dt
        };
        self.iteration += 1;
        let moving = self.times.balancing + self.times.migration - moving_before;
        self.times.flow += start.elapsed().saturating_sub(moving);
        let due = self.cfg.adapt_every > 0 && self.iteration.is_multiple_of(self.cfg.adapt_every);
        if due && !self.finished() {
            return self.adapt().map(Some);
        }
        Ok(None)
    }

    /// An adaptation step by the indicator (a collective).
    ///
    /// # Errors
    /// The run's errors, on every rank.
    pub fn adapt(&mut self) -> Result<StepReport> {
        self.run.account(Phase::Mark);
        let start = Instant::now();
        let marks = marks(&self.mesh, self.scheme.on(), &self.cfg.indicator);
        self.times.adaptation += start.elapsed();
        self.adapt_marked(marks.refine, marks.coarsen)
    }

    /// The totals of the conserved variables (a collective).
    ///
    /// # Errors
    /// Transport errors.
    pub fn totals(&self) -> Result<Totals> {
        Ok(Totals::gather(self.run.comm(), self.run.forest())?)
    }

    /// This rank's CPU account of each adaptation step since the last call (the initial
    /// refinement's included), in order.
    pub fn take_step_cpu(&mut self) -> Vec<RankCpu> {
        std::mem::take(&mut self.step_cpu)
    }

    /// This rank's CPU account between the adaptation steps since the last call (a segment at
    /// every collective of the flow: its time steps, fluxes and halo exchanges, the indicator,
    /// the flow mesh's rebuild and the totals' check after each step), as [`Run::account`]
    /// recorded it; recording stops until the flow goes on. Every rank's has the same
    /// segments. The account grows by a few segments an iteration until taken (the run's
    /// driver takes it at every output).
    pub fn take_flow_cpu(&mut self) -> RankCpu {
        let mut segments = std::mem::take(&mut self.flow_cpu);
        segments.extend_from_slice(self.run.take_cpu().segments());
        RankCpu::from_segments(segments)
    }

    /// The numbers of each adaptation step since the last call (the initial refinement's
    /// included, at iteration 0), in order, each with the iterations done before it: the
    /// balancer's decision, what moved (the same on every rank).
    pub fn take_steps(&mut self) -> Vec<(usize, LevelMetrics)> {
        std::mem::take(&mut self.steps)
    }

    /// What the adaptation steps moved since the last call.
    pub fn take_moved(&mut self) -> Moved {
        std::mem::take(&mut self.moved)
    }

    /// The largest relative change of mass, momentum and energy ([`Totals::change_from`])
    /// across one adaptation step, migration included, since the last call: zero to round-off
    /// when the transfer is conservative.
    pub fn take_adapt_change(&mut self) -> [f64; 3] {
        std::mem::take(&mut self.adapt_change)
    }

    /// An adaptation step with the caller's marks (leaves held here; a collective), then
    /// the flow mesh rebuilt; the totals before and after it are compared.
    ///
    /// # Errors
    /// The run's errors ([`Run::step_marked`]), on every rank.
    pub fn adapt_marked(
        &mut self,
        refine: Vec<plume::adapt::LeafId>,
        coarsen: Vec<plume::adapt::LeafId>,
    ) -> Result<StepReport> {
        let start = Instant::now();
        // The memory check's collective ends the indicator's segment.
        self.run.account(Phase::Mark);
        self.check_memory(refine.len())?;
        // The flow mesh holds the forest's volumes and states: the totals before and after
        // the step come from it, gathered in one collective.
        let before = TotalSums::of_mesh(&self.mesh);
        // The step accounts itself: what was recorded before it is kept first.
        self.flow_cpu
            .extend_from_slice(self.run.take_cpu().segments());
        let report = self.run.step_marked(refine, coarsen)?;
        self.run.account(Phase::Rebuild);
        self.mesh = self.mesh.rebuild(&self.run)?;
        let after = TotalSums::of_mesh(&self.mesh);
        self.run.account(Phase::Sums);
        let (before, after) = Totals::gather_two(self.run.comm(), before, after)?;
        let change = after.change_from(&before);
        for (max, c) in self.adapt_change.iter_mut().zip(change) {
            *max = max.max(c);
        }
        let t = &report.times;
        let moving = t.balance + t.migrate;
        self.times.adaptation += start.elapsed().saturating_sub(moving);
        self.times.balancing += t.balance;
        self.times.migration += t.migrate;
        let m = report.metrics.moved;
        self.moved.trees += m.trees;
        self.moved.elements += m.elements;
        self.moved.bytes += m.bytes;
        self.step_cpu.push(report.cpu.clone());
        self.steps.push((self.iteration, report.metrics.clone()));
        Ok(report)
    }

    /// Refuses (on every rank: a collective) an adaptation step whose marks divide `divided`
    /// of the leaves held here when the leaves it would make do not fit this process's memory:
    /// every rank's on threads, this rank's under MPI.
    fn check_memory(&self, divided: usize) -> Result<()> {
        let comm = self.run.comm();
        let memory = &self.cfg.memory;
        let (here, all) = budget::leaves_after_step(
            comm,
            self.run.forest().nleaves(),
            divided,
            memory.ranks_here,
        )?;
        let what = match self.iteration {
            0 => "the initial refinement".to_string(),
            i => format!("the adaptation step at iteration {i}"),
        };
        comm.agree_as(memory.check(self.run.share().nroots(), (here, all), &what))
    }

    /// One iteration's stages as processing levels balanced by SBN (a collective; see
    /// [`super::balanced`]).
    fn advance_balanced(&mut self, sbn: SbnOptions, dt: f64) -> Result<StepCounts> {
        let mut starts = IntMap::default();
        let mut counts = StepCounts::default();
        for (s, &stage) in Stage::of(self.scheme.opts.time).iter().enumerate() {
            let seed = sbn.seed ^ mix64((self.iteration as u64) << 2 | s as u64);
            let opts = LevelOptions::new(Processing::Sbn(SbnOptions { seed, ..sbn }));
            self.run.account(Phase::Flux);
            let states = self.scheme.stage_states(&self.run, &self.mesh)?;
            counts.fallbacks += states.fallbacks();
            let mut jobs = StageJobs::new(&self.scheme, (&self.mesh, &states), (stage, dt), starts);
            self.run.account(Phase::Process);
            let level = self.run.process(&opts, &mut jobs)?;
            let (done, n) = jobs.finish();
            counts.evaluations += n;
            self.count_level(&level);
            let clock = Instant::now();
            let moved = level.ranks.iter().any(|r| r.data_moves > 0);
            starts = IntMap::default();
            for (g, d) in done {
                match d.here {
                    Some(range) if !moved => self.mesh.state[range].copy_from_slice(&d.states),
                    // Trees moved: the part, and its local ids, may have changed with them.
                    _ => {
                        let forest = self.run.forest();
                        let r = forest.initial().local_root(g).ok_or_else(|| {
                            plume::Error::Invalid(format!("root {g} was processed here, not held"))
                        })?;
                        let mut ids: Vec<LeafId> = Vec::with_capacity(d.states.len());
                        forest.for_each_leaf_in(&[r], |leaf| ids.push(leaf.id));
                        for (id, u) in ids.into_iter().zip(&d.states) {
                            self.run.leaf_data_mut(id)?.copy_from_slice(u);
                        }
                    }
                }
                starts.insert(g, d.starts);
            }
            // Trees that moved are a new halo to build, counted as migration.
            if moved {
                self.mesh = self.mesh.rebuild(&self.run)?;
                self.times.migration += clock.elapsed();
            } else {
                self.mesh.publish(&mut self.run)?;
            }
        }
        Ok(counts)
    }

    /// Adds what an SBN level moved and this rank's balancing and migration times.
    fn count_level(&mut self, level: &ProcessedLevel) {
        let mine = &level.ranks[self.run.comm().rank()].times;
        self.times.balancing += Duration::from_secs_f64(mine.balancing);
        self.times.migration += Duration::from_secs_f64(mine.migration);
        self.moved.trees += level.ranks.iter().map(|r| r.data_moves).sum::<u64>();
        self.moved.elements += level.movement().total_v;
        self.moved.bytes += level.traffic(plume::dist::WireKind::Migration).bytes;
    }

    /// Sets every leaf's state to the case's at its centroid.
    fn set_initial_state(&mut self) -> Result<()> {
        let mut states = Vec::with_capacity(self.mesh.nleaves());
        self.run.forest().for_each_leaf(|leaf| {
            states.push(
                self.cfg
                    .case
                    .state_at(leaf.centroid)
                    .conserved(self.cfg.scheme.gas),
            );
        });
        self.mesh.state = states;
        self.mesh.publish(&mut self.run)
    }
}
