//! The adaptive loop on real ranks (`distributed.md`): each rank holds the replicated initial
//! mesh (thread ranks share one copy, [`Run::on`]) and the trees of the roots it owns, rank 0
//! the dual graph it balances; trees move between ranks as packed bytes.
//!
//! [`Run`] is one rank's part of a run and owns the whole sequence of a step, so that the
//! steps cannot be called in a wrong order: [`Run::step`] marks (the caller's indicator, on
//! the leaves held here), coarsens, closes, predicts the weights, balances with PLUM, migrates,
//! subdivides and updates the weights.
//!
//! One implementation of each algorithm: a rank's trees live in an ordinary
//! [`Forest`] that holds only them (the other roots stay bare and
//! unvisited); coarsening, closure and subdivision are the forest's own, and the ranks only
//! exchange what crosses a rank boundary (`exchange`): shared edges' use while coarsening,
//! shared edges bisected by the closure. Vertices are named by key between ranks, so nothing
//! depends on which rank created what, and the union of the ranks' leaves is the mesh one rank
//! would build. PLUM runs once, on rank 0, on the per-root weights every rank sends it, and
//! its decision is broadcast (every rank running the same partitioner would repeat rank 0's
//! work P times over on shared cores); migration is one all-to-all of packed trees
//! (`migration`).
//!
//! Between steps, [`Run::process`] runs a processing level: every root processed once by a
//! [`Kernel`], each rank its own roots, or SBN balancing while the ranks work and moving trees
//! lazily as real messages (`level`, `sbn`).
//!
//! Every rank accounts its CPU time in start-up and in each step, phase by phase, cut at every
//! collective (`accounting`): [`Run::startup_cpu`], [`StepReport::cpu`], and [`gather_cpu`]
//! for every rank's ([`crate::metrics::CpuAccount`]: critical path, maxima and sums).
//!
//! For a solver on the leaves, [`Run::halo`] gives this rank's leaf adjacency with ghosts of
//! the other ranks' leaves across rank boundaries, and [`Run::refresh_halo`] their new data;
//! [`Run::probe`] reads the solution at given points wherever their leaves are held.
//!
//! ```
//! use plume::adapt::AdaptOptions;
//! use plume::balance::{Plum, PlumOptions};
//! use plume::comm::launch_threads;
//! use plume::dist::{Mark, Run};
//! use plume::mesh::generate_box;
//! let leaves = launch_threads(2, |comm| {
//!     let mesh = generate_box([3, 3, 3], [1.0, 1.0, 1.0])?;
//!     let plum = Plum::new(PlumOptions::new(2))?;
//!     let mut run = Run::new(comm, mesh, AdaptOptions::default(), plum)?;
//!     let report = run.step(|leaf| {
//!         if leaf.centroid[0] < 0.3 { Mark::Refine } else { Mark::Keep }
//!     })?;
//!     Ok(report.metrics.leaves)
//! })
//! .unwrap();
//! assert_eq!(leaves[0], leaves[1]);
//! assert!(leaves[0] > 162);
//! ```

mod accounting;
mod codec;
mod exchange;
mod halo;
mod kernel;
mod level;
mod migration;
mod probe;
mod process;
mod sbn;
mod share;

pub use accounting::{gather_cpu, CpuLaps};
pub use halo::{GhostLeaf, Halo};
pub use kernel::{Kernel, Processed, RootWork};
pub use level::{
    Hook, LevelOptions, LevelTimes, ProcessedLevel, Processing, RankLevel, Traffic, WireKind,
};
pub use migration::{MigrationTimes, Moved};
pub use probe::ProbeReading;
pub use share::Share;

use std::time::{Duration, Instant};

use crate::adapt::{AdaptOptions, Forest, InitialMesh, LeafId, LeafView};
use crate::balance::{Balance, Plum};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::graph::{DualGraph, TreeWeights, Weights};
use crate::mesh::Mesh;
use crate::metrics::{Phase, RankCpu};
use crate::{Error, Result};

/// What the caller's indicator asks for one leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Leave it as it is.
    Keep,
    /// Refine it (1:8).
    Refine,
    /// Coarsen it (its family goes when all siblings ask too).
    Coarsen,
}

/// What each rank holds of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holding {
    /// The whole initial mesh (thread ranks share one copy) and every root's owner.
    Whole,
    /// Its part: its roots and their ghost layer ([`Share`]).
    Parts,
}

/// When PLUM balances within a step; serialised as `before`, `after` and `never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum BalanceAt {
    /// After closure, on the predicted weights; trees move before they grow (PLUM's way).
    #[default]
    #[serde(rename = "before")]
    Predicted,
    /// After subdivision, on the new weights.
    #[serde(rename = "after")]
    AfterSubdivision,
    /// Never: the roots stay where they are in a step (SBN balances while processing,
    /// [`Run::process`]).
    #[serde(rename = "never")]
    Never,
}

/// PLUM's decision at one step, as every rank receives it from rank 0.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BalanceOutcome {
    /// `LoadImb` of the current assignment.
    pub load_imb_before: f64,
    /// `LoadImb` of the proposed one.
    pub load_imb_after: f64,
    /// The policy asked for a repartition.
    pub triggered: bool,
    /// The new assignment was carried out.
    pub accepted: bool,
    /// Modelled gain, seconds.
    pub gain: f64,
    /// Modelled cost, seconds.
    pub cost: f64,
    /// `TotalV`, `MaxV` and `MaxSR` of the proposed remap in the sizes of what moves (the
    /// trees as they are when they move: before subdivision by default), which the accept
    /// rule costs.
    pub volumes: [u64; 3],
}

/// The numbers of one step, summed over ranks: the same on every rank and backend.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LevelMetrics {
    /// Steps done, this one included.
    pub level: usize,
    /// Leaves after the step.
    pub leaves: u64,
    /// Families removed by coarsening.
    pub coarsened: u64,
    /// Elements divided.
    pub divided: u64,
    /// Green families upgraded to 1:8.
    pub upgraded: u64,
    /// Rounds of the distributed closure.
    pub closure_rounds: usize,
    /// PLUM's decision.
    pub balance: Option<BalanceOutcome>,
    /// What migration moved.
    pub moved: Moved,
}

/// Wall-clock time of each stage of a step on this rank.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimes {
    /// Marking.
    pub mark: Duration,
    /// Coarsening (exchange included).
    pub coarsen: Duration,
    /// Closure (exchange included).
    pub close: Duration,
    /// Predicting the weights (and gathering them on rank 0).
    pub predict: Duration,
    /// Updating the weights after subdivision (and gathering them on rank 0).
    pub weights: Duration,
    /// Balancing (rank 0's PLUM and the broadcast).
    pub balance: Duration,
    /// Migration.
    pub migrate: Duration,
    /// Migration's phases (part of `migrate`).
    pub migration: MigrationTimes,
    /// Subdivision.
    pub subdivide: Duration,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepReport {
    /// The step's numbers (equal on every rank).
    pub metrics: LevelMetrics,
    /// This rank's stage times.
    pub times: StepTimes,
    /// This rank's CPU seconds per phase, segment by segment ([`gather_cpu`] gathers every
    /// rank's into a [`CpuAccount`](crate::metrics::CpuAccount)).
    pub cpu: RankCpu,
}

/// One rank's part of a distributed adaptive run (see the module doc).
pub struct Run<'c, C: Comm + ?Sized> {
    /// The transport, accounting this rank's CPU time in start-up and steps.
    comm: accounting::Accounted<'c, C>,
    /// This rank's CPU seconds in start-up.
    startup_cpu: RankCpu,
    forest: Forest,
    /// The dual graph with the gathered weights, on rank 0 (which balances).
    graph: Option<DualGraph>,
    /// The part of the mesh this rank holds, with the owner of each of its roots.
    share: Share,
    /// Every root's owner on rank 0 when ranks hold parts of the mesh (rank 0 balances on the
    /// whole graph: the gathered path, by choice); `None` elsewhere and when every rank holds
    /// the whole mesh (the share has every owner).
    owner_gathered: Option<Vec<u32>>,
    plum: Plum,
    /// Rank 0's last balancing decision.
    last: Option<Balance>,
    at: BalanceAt,
    level: usize,
    /// The dual graph every rank of a processing level balances on, as rank 0 last
    /// broadcast it (until a step changes its weights).
    level_graph: Option<process::SharedGraph>,
}

impl<'c, C: Comm + ?Sized> Run<'c, C> {
    /// Starts a run on every rank (a collective): every rank passes the same mesh, options
    /// and balancer (only rank 0's balancer runs). The roots are first split by the
    /// balancer's partitioner on rank 0.
    ///
    /// # Errors
    /// The mesh's errors ([`InitialMesh::new`]) and [`Run::on`]'s, on every rank.
    pub fn new(comm: &'c C, mesh: Mesh, opts: AdaptOptions, plum: Plum) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::Topology);
        let initial = comm.agree(InitialMesh::new(mesh))?;
        Run::start(comm, &initial, opts, plum, Holding::Whole)
    }

    /// [`Run::new`] on an initial mesh built once: thread ranks share one copy of it.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the balancer is not set for `comm.size()` processors;
    /// [`AdaptOptions::check`]'s errors; the partitioner's errors (on every rank, through
    /// [`CommExt::agree`]).
    pub fn on(comm: &'c C, initial: &InitialMesh, opts: AdaptOptions, plum: Plum) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::FirstPartition);
        Run::start(comm, initial, opts, plum, Holding::Whole)
    }

    /// [`Run::on`] with each rank holding only its part of the mesh: its roots and their
    /// ghost layer ([`Share`]); `initial` is dropped by the run once the parts are cut.
    ///
    /// # Errors
    /// As [`Run::on`].
    pub fn on_parts(
        comm: &'c C,
        initial: &InitialMesh,
        opts: AdaptOptions,
        plum: Plum,
    ) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::FirstPartition);
        Run::start(comm, initial, opts, plum, Holding::Parts)
    }

    /// [`Run::on`] on the accounting transport, recording since start-up began.
    fn start(
        comm: accounting::Accounted<'c, C>,
        initial: &InitialMesh,
        opts: AdaptOptions,
        plum: Plum,
        holding: Holding,
    ) -> Result<Self> {
        comm.enter(Phase::FirstPartition);
        comm.agree(opts.check())?;
        let nprocs = comm.size();
        if plum.opts.nprocs != nprocs {
            return comm.agree(Err(Error::Invalid(format!(
                "plum: the balancer is set for {} processors but the run has {nprocs} ranks",
                plum.opts.nprocs
            ))));
        }
        // Only rank 0 balances: only it keeps the dual graph and its weights.
        let initial_split = if comm.rank() == 0 {
            let graph = DualGraph::new(&Forest::on(initial, opts.clone()));
            graph
                .view(&graph.weights)
                .and_then(|g| plum.initial_assignment(&g))
                .map(|owner| Some((graph, owner)))
        } else {
            Ok(None)
        };
        let (graph, owner) = comm.agree(initial_split)?.unzip();
        let owner: Vec<u32> = comm.broadcast_serde(0, owner.as_ref())?;
        comm.enter(Phase::Forest);
        let (share, owner_gathered) = match holding {
            Holding::Whole => (Share::whole(initial, owner), None),
            Holding::Parts => {
                let share = Share::of_rank(initial, &owner, comm.rank() as u32, nprocs);
                (comm.agree(share)?, graph.is_some().then_some(owner))
            }
        };
        let me = comm.rank() as u32;
        let held = share.owner().iter().map(|&o| o == me).collect();
        let forest = Forest::holding(share.initial(), opts, held);
        let startup_cpu = comm.take();
        Ok(Run {
            comm,
            startup_cpu,
            forest,
            graph,
            share,
            owner_gathered,
            plum,
            last: None,
            at: BalanceAt::default(),
            level: 0,
            level_graph: None,
        })
    }

    /// Balances at `at` instead of on the predicted weights.
    pub fn balance_at(mut self, at: BalanceAt) -> Self {
        self.at = at;
        self
    }

    /// This rank's forest: the trees of the roots it owns (the others are bare roots it does
    /// not hold; [`Forest::for_each_leaf`] visits only the held ones).
    pub fn forest(&self) -> &Forest {
        &self.forest
    }

    /// The owner of every root of this rank's forest, by local root id (with every rank
    /// holding the whole mesh, [`Run::on`], every root's, the same on every rank).
    pub fn owner(&self) -> &[u32] {
        self.share.owner()
    }

    /// The part of the mesh this rank holds.
    pub fn share(&self) -> &Share {
        &self.share
    }

    /// Every root's owner (by global id) where a rank keeps them all: on every rank when
    /// every rank holds the whole mesh ([`Run::on`]), on rank 0 alone when ranks hold parts
    /// (rank 0 balances on the gathered graph); `None` elsewhere.
    pub fn gathered_owner(&self) -> Option<&[u32]> {
        match &self.owner_gathered {
            Some(owner) => Some(owner),
            None => self.share.is_whole().then(|| self.share.owner()),
        }
    }

    /// The dual graph's current weights on rank 0, which gathers them from every rank and
    /// balances (`None` on the other ranks).
    pub fn weights(&self) -> Option<&Weights> {
        self.graph.as_ref().map(|g| &g.weights)
    }

    /// The dual graph with its current weights on rank 0, which gathers them from every rank
    /// and balances (`None` on the other ranks).
    pub fn graph(&self) -> Option<&DualGraph> {
        self.graph.as_ref()
    }

    /// PLUM's whole decision at the last step on rank 0, which balances (`None` on the other
    /// ranks and before the first step).
    pub fn balance(&self) -> Option<&Balance> {
        self.last.as_ref()
    }

    /// The transport.
    pub fn comm(&self) -> &C {
        self.comm.inner()
    }

    /// This rank's CPU seconds in start-up, from the call of [`Run::new`] (or [`Run::on`]) to
    /// its return, per phase ([`gather_cpu`] gathers every rank's).
    pub fn startup_cpu(&self) -> &RankCpu {
        &self.startup_cpu
    }

    /// Steps done.
    pub fn level(&self) -> usize {
        self.level
    }

    /// Solution values of a leaf held here (for the solver between steps).
    ///
    /// # Panics
    /// When `id` is not a leaf of a tree held here.
    #[track_caller]
    pub fn leaf_data_mut(&mut self, id: LeafId) -> &mut [f64] {
        assert!(
            self.forest.holds(id.root),
            "root {} is not held here",
            id.root
        );
        self.forest.leaf_data_mut(id)
    }

    /// One adaptation step on every rank (a collective): mark with `mark` (called on every
    /// leaf held here), coarsen, close, predict, balance, migrate, subdivide, update weights.
    ///
    /// # Errors
    /// Any rank's error, on every rank.
    pub fn step(&mut self, mut mark: impl FnMut(&LeafView) -> Mark) -> Result<StepReport> {
        self.comm.start(Phase::Mark);
        let start = Instant::now();
        let (mut refine, mut coarsen) = (Vec::new(), Vec::new());
        self.forest.for_each_leaf(|leaf| match mark(leaf) {
            Mark::Keep => {}
            Mark::Refine => refine.push(leaf.id),
            Mark::Coarsen => coarsen.push(leaf.id),
        });
        self.step_with(start, refine, coarsen)
    }

    /// [`Run::step`] with the marks chosen by the caller: the leaves held here to refine and
    /// to coarsen (e.g. only those of the roots a [`Locator`](crate::adapt::Locator) finds
    /// near a region). The same leaves in the same order make the same step as [`Run::step`].
    ///
    /// # Errors
    /// [`Error::NotALeaf`] when an id is not a leaf held here (the lowest such rank's, on every
    /// rank); any rank's error, on every rank.
    pub fn step_marked(&mut self, refine: Vec<LeafId>, coarsen: Vec<LeafId>) -> Result<StepReport> {
        self.comm.start(Phase::Mark);
        let start = Instant::now();
        let forest = &self.forest;
        let bad = refine.iter().chain(&coarsen).find(|id| {
            id.root as usize >= forest.nroots()
                || !forest.holds(id.root)
                || forest.trees()[id.root as usize]
                    .elems
                    .get(id.elem as usize)
                    .is_none_or(|e| !e.is_leaf())
        });
        let checked = match bad {
            Some(id) => Err(Error::NotALeaf {
                root: id.root,
                elem: id.elem,
                rank: self.comm.rank(),
            }),
            None => Ok(()),
        };
        self.comm.agree(checked)?;
        self.step_with(start, refine, coarsen)
    }

    /// The step after marking (started at `start`): marks `refine` and `coarsen` (leaves held
    /// here), coarsens, closes, predicts, balances, migrates, subdivides, updates weights.
    fn step_with(
        &mut self,
        start: Instant,
        refine: Vec<LeafId>,
        coarsen: Vec<LeafId>,
    ) -> Result<StepReport> {
        let mut times = StepTimes::default();
        self.level_graph = None;
        refine
            .into_iter()
            .for_each(|id| self.forest.mark_refine(id));
        coarsen
            .into_iter()
            .for_each(|id| self.forest.mark_coarsen(id));
        times.mark = start.elapsed();

        self.comm.enter(Phase::Coarsen);
        let start = Instant::now();
        let mut sync = exchange::CoarsenExchange::new(&self.comm, self.share.owner());
        self.forest.coarsen_with(&mut sync)?;
        times.coarsen = start.elapsed();

        self.comm.enter(Phase::Close);
        let start = Instant::now();
        let closure_rounds = exchange::close(&self.comm, &mut self.forest, self.share.owner())?;
        times.close = start.elapsed();

        let mut balance = None;
        let mut moved = Moved::default();
        if self.at == BalanceAt::Predicted {
            self.comm.enter(Phase::Predict);
            let start = Instant::now();
            let roots = self.forest.pending_roots();
            let predicted = self.gather_weights(&roots, true)?;
            let moving = predicted.map(|p| {
                let graph = self.graph.as_mut().expect("rank 0 keeps the dual graph");
                // The trees move as they are now, smaller than predicted: the accept rule
                // costs what will move.
                let mut moving = graph.weights.rwgt.clone();
                for (r, _, elems) in &p {
                    moving[*r as usize] = *elems;
                }
                // The subdivided trees will have the weights predicted for them, wherever they
                // go: the graph takes them now, and no tree is walked or gathered after the
                // subdivision.
                let p: Vec<(u32, TreeWeights)> = p.into_iter().map(|(r, w, _)| (r, w)).collect();
                graph.set_tree_weights(&p);
                moving
            });
            times.predict = start.elapsed();
            (balance, moved) = self.balance_and_migrate(moving, &mut times)?;
        }

        self.comm.enter(Phase::Subdivide);
        let start = Instant::now();
        let report = self.forest.subdivide();
        times.subdivide = start.elapsed();

        self.comm.enter(Phase::Weights);
        let start = Instant::now();
        if self.at != BalanceAt::Predicted {
            self.update_weights(&report.changed_roots)?;
        }
        times.weights += start.elapsed();
        if self.at == BalanceAt::AfterSubdivision {
            let moving = self.weights().map(|w| w.rwgt.clone());
            (balance, moved) = self.balance_and_migrate(moving, &mut times)?;
        }

        self.level += 1;
        self.comm.enter(Phase::Sums);
        let sums = self.comm.all_reduce_u64(
            &[
                self.held_leaves(),
                report.coarsened as u64,
                report.divided as u64,
                report.upgraded as u64,
            ],
            ReduceOp::Sum,
        )?;
        Ok(StepReport {
            metrics: LevelMetrics {
                level: self.level,
                leaves: sums[0],
                coarsened: sums[1],
                divided: sums[2],
                upgraded: sums[3],
                closure_rounds,
                balance,
                moved,
            },
            times,
            cpu: self.comm.take(),
        })
    }

    /// Moves trees to the owners `new_owner` (one rank `< P` per root, the same on every
    /// rank) between steps (a collective): for a partition of the caller's own. Returns what
    /// moved over all ranks and this rank's times of the migration's phases.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] or [`Error::RankOutOfRange`] for a bad `new_owner`; a
    /// migration error on any rank, on every rank.
    pub fn migrate_to(&mut self, new_owner: &[u32]) -> Result<(Moved, MigrationTimes)> {
        crate::balance::ranks::check_assignment(
            "new owner",
            new_owner,
            self.share.nroots(),
            self.comm.size(),
        )?;
        // A tree's weights do not depend on where it is.
        let leaving = self.leaving(new_owner);
        migration::migrate(
            self.comm.inner(),
            &mut self.forest,
            &mut self.share,
            &leaving,
        )
    }

    /// The roots held here that `new_owner` (every root's) gives to another rank, with it.
    fn leaving(&self, new_owner: &[u32]) -> Vec<(u32, u32)> {
        let me = self.comm.rank() as u32;
        let initial = self.forest.initial();
        (0..self.forest.nroots() as u32)
            .filter(|&r| self.forest.holds(r))
            .map(|r| (r, new_owner[initial.root_gid(r) as usize]))
            .filter(|&(_, to)| to != me)
            .collect()
    }

    /// A checksum of every tree of the run (a collective): the same whichever rank holds
    /// which tree, so a migration leaves it unchanged.
    ///
    /// # Errors
    /// Transport errors.
    pub fn checksum(&self) -> Result<u64> {
        let local = migration::checksum(&self.forest);
        self.comm.reduce_u64(local, ReduceOp::Sum)
    }

    /// The roots held here, ascending.
    pub fn held_roots(&self) -> Vec<u32> {
        (0..self.forest.nroots() as u32)
            .filter(|&r| self.forest.holds(r))
            .collect()
    }

    /// Leaves held here.
    fn held_leaves(&self) -> u64 {
        (0..self.forest.nroots())
            .filter(|&r| self.forest.holds(r as u32))
            .map(|r| u64::from(self.forest.trees()[r].nleaves))
            .sum()
    }

    /// The weights of `roots` (held here; current, or predicted between closure and
    /// subdivision) and their trees' elements now, with every other rank's, ascending by
    /// root, on rank 0 (`None` on the others: only rank 0 balances, so only it keeps the
    /// graph's weights).
    fn gather_weights(
        &self,
        roots: &[u32],
        predict: bool,
    ) -> Result<Option<Vec<(u32, TreeWeights, u64)>>> {
        let mut outgoing: Vec<Vec<(u32, TreeWeights, u64)>> = vec![Vec::new(); self.comm.size()];
        let initial = self.forest.initial();
        outgoing[0] = roots
            .iter()
            .map(|&r| {
                let elems = self.forest.trees()[r as usize].nelems() as u64;
                let weights = TreeWeights::of(&self.forest, r, predict);
                (initial.root_gid(r), weights, elems)
            })
            .collect();
        let incoming = self.comm.all_to_all_serde(&outgoing)?;
        if self.comm.rank() != 0 {
            return Ok(None);
        }
        let mut all: Vec<(u32, TreeWeights, u64)> = incoming.into_iter().flatten().collect();
        // Each rank sends its roots ascending: the stable sort merges the ranks' runs.
        all.sort_by_key(|t| t.0);
        Ok(Some(all))
    }

    /// Brings the current weights of `roots` (held here) up to date on rank 0.
    fn update_weights(&mut self, roots: &[u32]) -> Result<()> {
        if let Some(current) = self.gather_weights(roots, false)? {
            let current: Vec<(u32, TreeWeights)> =
                current.into_iter().map(|(r, w, _)| (r, w)).collect();
            let graph = self.graph.as_mut().expect("rank 0 keeps the dual graph");
            graph.set_tree_weights(&current);
        }
        Ok(())
    }

    /// PLUM on rank 0 with its dual graph's weights and `moving`, the sizes of the trees as
    /// they would move (rank 0's; `None` elsewhere), its decision broadcast, and the migration
    /// it asks for.
    fn balance_and_migrate(
        &mut self,
        moving: Option<Vec<u64>>,
        times: &mut StepTimes,
    ) -> Result<(Option<BalanceOutcome>, Moved)> {
        self.comm.enter(Phase::Balance);
        let start = Instant::now();
        self.last = None;
        let decided = if let Some(moving) = &moving {
            let graph = self.graph.as_ref().expect("rank 0 keeps the dual graph");
            graph
                .view(&graph.weights)
                .and_then(|g| {
                    let owner = self.owner_gathered.as_deref().unwrap_or(self.share.owner());
                    self.plum.balance_moving(&g, owner, moving)
                })
                .map(|b| {
                    let outcome = BalanceOutcome {
                        load_imb_before: b.load_imb_before,
                        load_imb_after: b.load_imb_after,
                        triggered: b.triggered,
                        accepted: b.accepted,
                        gain: b.gain,
                        cost: b.cost,
                        volumes: [b.movement.total_v, b.movement.max_v, b.movement.max_sr],
                    };
                    let new_owner = b.new_owner.clone();
                    self.last = Some(b);
                    Some((outcome, new_owner))
                })
        } else {
            Ok(None)
        };
        let decided = self.comm.agree(decided)?;
        let (outcome, new_owner): (BalanceOutcome, Option<Vec<u32>>) =
            self.comm.broadcast_serde(0, decided.as_ref())?;
        times.balance += start.elapsed();
        self.comm.enter(Phase::Migrate);
        let start = Instant::now();
        let (moved, phases) = match new_owner {
            Some(new_owner) => {
                let leaving = self.leaving(&new_owner);
                if let Some(owner) = &mut self.owner_gathered {
                    owner.copy_from_slice(&new_owner);
                }
                migration::migrate(&self.comm, &mut self.forest, &mut self.share, &leaving)?
            }
            None => Default::default(),
        };
        times.migration = phases;
        times.migrate += start.elapsed();
        Ok((Some(outcome), moved))
    }
}
