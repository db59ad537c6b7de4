//! The adaptive loop on real ranks (`docs/design/distributed.md`): each rank holds the replicated
//! initial mesh (thread ranks share one copy, [`Run::on`]) or only its part of it
//! ([`Run::on_parts`], cut from the whole mesh; [`Run::from_chunk`], the parallel start-up from the
//! ranks' chunks, where no rank holds the whole mesh), the trees of the roots it owns and their
//! weights; trees move between ranks as packed bytes.
//!
//! [`Run`] is one rank's part of a run and owns the whole sequence of a step, so that the
//! steps cannot be called in a wrong order: [`Run::step`] marks (the caller's indicator, on
//! the leaves held here), coarsens, closes, predicts the weights, balances, migrates,
//! subdivides and updates the weights.
//!
//! The balancer is a role ([`Balancer`]): it sees this rank's rows of the dual graph (its
//! roots' weights, their neighbours with their owners) and decides which roots held here leave;
//! the run all-gathers the moves and migrates the trees. [`GatheredPlum`] is [Harvey 2001]'s PLUM
//! (rank 0 gathers the weights, partitions with any partitioner and sends each rank its moves),
//! [`Diffusive`] the diffusive repartitioner on the ranks' rows (nothing gathered),
//! [`NoBalancing`] none. A leaf's weight is 1 unless the caller gives each leaf its cost
//! ([`Run::leaf_cost`], a [`LeafCost`]): `PWgt` then sums the costs, and every balancer
//! balances the real work.
//!
//! One implementation of each algorithm: a rank's trees live in an ordinary
//! [`Forest`] that holds only them (the other roots stay bare and
//! unvisited); coarsening, closure and subdivision are the forest's own, and the ranks only
//! exchange what crosses a rank boundary (`exchange`): shared edges' use while coarsening,
//! shared edges bisected by the closure. Vertices are named by key between ranks, so nothing
//! depends on which rank created what, and the union of the ranks' leaves is the mesh one rank
//! would build. Migration is one all-to-all of packed trees (`migration`).
//!
//! Between steps, [`Run::process`] runs a processing level: every root processed once by a
//! [`Kernel`], each rank its own roots, or SBN balancing while the ranks work and moving trees
//! lazily as real messages (`level`, `sbn`), on parts as on the whole mesh.
//!
//! Every rank accounts its CPU time in start-up and in each step, phase by phase, cut at every
//! collective (`accounting`): [`Run::startup_cpu`], [`StepReport::cpu`], and [`gather_cpu`]
//! for every rank's ([`crate::metrics::CpuAccount`]: critical path, maxima and sums).
//!
//! For a solver on the leaves, [`Run::halo`] gives this rank's leaf adjacency with ghosts of
//! the other ranks' leaves across rank boundaries, and [`Run::refresh_halo`] their new data;
//! [`Run::leaf_geometry`] and [`GhostLeaf::geometry`] their volumes, centroids, face normals
//! and areas; [`Run::for_each_leaf_mut`] every leaf's data in adjacency order;
//! [`Run::step_with_transfer`] moves the solver's own arrays across a step, family by family
//! (a [`LeafMap`]); [`Run::probe`] reads the solution at given points wherever their leaves
//! are held. Leaf ids and halos know the generation of the leaves they were taken on: after
//! a step (or trees moved) they are refused ([`Error::StaleLeafId`], [`Error::StaleHalo`]),
//! never read as another leaf's.
//!
//! ```
//! use plume::adapt::AdaptOptions;
//! use plume::balance::{Plum, PlumOptions};
//! use plume::comm::launch_threads;
//! use plume::dist::{GatheredPlum, Mark, Run};
//! use plume::mesh::generate_box;
//! let leaves = launch_threads(2, |comm| {
//!     let mesh = generate_box([3, 3, 3], [1.0, 1.0, 1.0])?;
//!     let plum = GatheredPlum::new(Plum::new(PlumOptions::new(2))?);
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
mod balancer;
mod checkpoint;
mod codec;
mod diffusive;
mod exchange;
mod families;
mod gathered;
mod halo;
mod hierarchical;
mod kernel;
mod level;
mod migration;
mod probe;
mod process;
mod rows;
mod sbn;
mod select;
mod share;
mod verdict;

pub use accounting::{gather_cpu, CpuLaps};
pub use balancer::{BalanceOutcome, Balancer, Decision, HeldRows, HierStats, NoBalancing};
pub use checkpoint::Restarted;
pub use diffusive::Diffusive;
pub use families::{Change, Family, LeafMap, UserTransfer};
pub use gathered::GatheredPlum;
pub use halo::{GhostLeaf, Halo};
pub(crate) use hierarchical::{mesh_object, mesh_record};
pub use hierarchical::{mesh_objects, Hierarchical};
pub use kernel::{Kernel, Processed, RootWork};
pub use level::{
    Hook, LevelOptions, LevelTimes, ProcessedLevel, Processing, RankLevel, Traffic, WireKind,
};
pub use migration::{MigrationTimes, Moved};
pub use probe::ProbeReading;
pub use select::{MovedEstimate, MovedGlobal, Select, SelectOptions, SelectRecord};
pub use share::Share;

use std::time::{Duration, Instant};

pub use crate::graph::LeafCost;

use crate::adapt::{AdaptOptions, Forest, InitialMesh, LeafId, LeafView};
use crate::balance::Balance;
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::graph::{DualGraph, TreeWeights, Weights};
use crate::mesh::{cell::LeafGeometry, chunk::Chunk, Mesh};
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

/// When the balancer balances within a step; serialised as `before`, `after` and `never`.
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
    /// The balancer's decision (`None` when it reports none or did not balance).
    pub balance: Option<BalanceOutcome>,
    /// The hierarchical balancer's numbers ([`Hierarchical`]; `None` for the others).
    pub hier: Option<HierStats>,
    /// What migration moved.
    pub moved: Moved,
}

/// What [`Run::balance_now`] did, the same on every rank.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rebalanced {
    /// The balancer's decision (`None` when it reports none).
    pub balance: Option<BalanceOutcome>,
    /// The hierarchical balancer's numbers ([`Hierarchical`]; `None` for the others).
    pub hier: Option<HierStats>,
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
    /// Predicting the weights of the trees held here.
    pub predict: Duration,
    /// Updating the weights after subdivision (and the balancer's look at them when it does
    /// not balance in the step: [`BalanceAt::Never`]).
    pub weights: Duration,
    /// Balancing (the balancer, its gathering included, and the all-gather of the moves).
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

/// Where [`Run::from_chunk`] takes the first owners from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstOwners {
    /// The Hilbert curve through the root centroids, sorted across the ranks
    /// ([`sfc_first_owners`](crate::partition::sfc_first_owners), every root weighing 1):
    /// nothing gathered, the owners of [`Sfc`](crate::partition::Sfc) on the initial dual
    /// graph. The balancer's [`Balancer::first_owners`] is not called: not for a balancer
    /// that keeps the graph it makes them on ([`GatheredPlum`]; it refuses to balance
    /// without it).
    Sfc,
    /// The balancer's [`Balancer::first_owners`] on rank 0, as [`Run::on`]: rank 0 gathers
    /// the chunks into the whole mesh ([`gather`](crate::mesh::chunk::gather)), builds its dual
    /// graph, gives it to the balancer and drops the mesh; each rank gets its chunk's owners.
    /// Start-up's gathered path, by choice (METIS, and PLUM on the gathered graph).
    Balancer,
}

/// What each rank holds of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holding {
    /// The whole initial mesh (thread ranks share one copy) and every root's owner.
    Whole,
    /// Its part: its roots and their ghost layer ([`Share`]).
    Parts,
}

/// One rank's part of a distributed adaptive run (see the module doc).
pub struct Run<'c, C: Comm + ?Sized> {
    /// The transport, accounting this rank's CPU time in start-up and steps.
    comm: accounting::Accounted<'c, C>,
    /// This rank's CPU seconds in start-up.
    startup_cpu: RankCpu,
    forest: Forest,
    /// The part of the mesh this rank holds, with the owner of each of its roots.
    share: Share,
    balancer: Box<dyn Balancer + 'c>,
    /// The caller's cost of each leaf (`None`: leaves are counted).
    cost: Option<Box<dyn LeafCost + 'c>>,
    /// The weights of the trees held here.
    weights: rows::HeldWeights,
    /// PLUM's last whole decision, on the rank that ran it.
    last: Option<Balance>,
    at: BalanceAt,
    level: usize,
    /// The dual graph every rank of a processing level balances on, as the ranks last
    /// all-gathered it (until a step changes its weights).
    level_graph: Option<process::SharedGraph>,
}

impl<'c, C: Comm + ?Sized> Run<'c, C> {
    /// Starts a run on every rank (a collective): every rank passes the same mesh, options
    /// and balancer (set alike: each rank's runs its part). The balancer makes the first
    /// owners on rank 0 ([`Balancer::first_owners`]).
    ///
    /// # Errors
    /// The mesh's errors ([`InitialMesh::new`]) and [`Run::on`]'s, on every rank.
    pub fn new(
        comm: &'c C,
        mesh: Mesh,
        opts: AdaptOptions,
        balancer: impl Balancer + 'c,
    ) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::Topology);
        let initial = comm.agree(InitialMesh::new(mesh))?;
        Run::start(comm, &initial, opts, Box::new(balancer), Holding::Whole)
    }

    /// [`Run::new`] on an initial mesh built once: thread ranks share one copy of it.
    ///
    /// # Errors
    /// The balancer's [`Balancer::check`] (e.g. [`Error::Invalid`] when it is not set for
    /// `comm.size()` ranks); [`AdaptOptions::check`]'s errors; the first partition's errors
    /// (on every rank, through [`CommExt::agree`]).
    pub fn on(
        comm: &'c C,
        initial: &InitialMesh,
        opts: AdaptOptions,
        balancer: impl Balancer + 'c,
    ) -> Result<Self> {
        Run::begin(comm, initial, opts, Box::new(balancer), Holding::Whole)
    }

    /// [`Run::on`] with each rank holding only its part of the mesh: its roots and their
    /// ghost layer ([`Share`]); the run keeps nothing of `initial` once the parts are cut.
    ///
    /// # Errors
    /// As [`Run::on`].
    pub fn on_parts(
        comm: &'c C,
        initial: &InitialMesh,
        opts: AdaptOptions,
        balancer: impl Balancer + 'c,
    ) -> Result<Self> {
        Run::begin(comm, initial, opts, Box::new(balancer), Holding::Parts)
    }

    /// [`Run::on`] or [`Run::on_parts`]: start-up's accounting begins here.
    fn begin(
        comm: &'c C,
        initial: &InitialMesh,
        opts: AdaptOptions,
        balancer: Box<dyn Balancer + 'c>,
        holding: Holding,
    ) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::FirstPartition);
        Run::start(comm, initial, opts, balancer, holding)
    }

    /// Starts a run on every rank from the ranks' chunks of the mesh (a collective): the
    /// parallel start-up (`docs/performance.md`). `chunk` makes this rank's chunk (the block
    /// of its rank: [`spread`](crate::mesh::chunk::spread) of a mesh rank 0 read,
    /// [`generate_box_chunk`](crate::mesh::generate_box_chunk)); `first` says where the first
    /// owners come from. Each rank then holds its part of the mesh (its roots and their ghost
    /// layer, [`Share::of_chunk`]) and no rank holds the whole mesh, but for rank 0 while
    /// its balancer makes the first owners ([`FirstOwners::Balancer`]). Start-up's CPU
    /// account ([`Run::startup_cpu`]) holds the chunk's making (`Read`), the first owners
    /// (`FirstPartition`), the share (`Topology`: the vertex directory, the records and the
    /// part's topology) and the forest (`Forest`).
    ///
    /// The run is the one [`Run::on_parts`] starts on the whole mesh with the same first
    /// owners: [`FirstOwners::Balancer`] gives the balancer's, [`FirstOwners::Sfc`] those of
    /// [`Sfc`](crate::partition::Sfc) on the initial dual graph.
    ///
    /// ```
    /// use plume::adapt::AdaptOptions;
    /// use plume::comm::{launch_threads, Comm, ThreadComm};
    /// use plume::dist::{FirstOwners, Mark, NoBalancing, Run};
    /// use plume::mesh::generate_box_chunk;
    /// use plume::partition::Rcb;
    /// let leaves = launch_threads(3, |comm| {
    ///     let chunk = |c: &ThreadComm| generate_box_chunk([3, 3, 3], [1.0; 3], c.rank(), c.size());
    ///     let none = NoBalancing::new(Box::new(Rcb)); // never asked
    ///     let opts = AdaptOptions::default();
    ///     let mut run = Run::from_chunk(comm, chunk, opts, none, FirstOwners::Sfc)?;
    ///     Ok(run.step(|_| Mark::Refine)?.metrics.leaves)
    /// })
    /// .unwrap();
    /// assert_eq!(leaves, [162 * 8; 3]);
    /// ```
    ///
    /// # Errors
    /// `chunk`'s (which must be the same on every rank: [`spread`](crate::mesh::chunk::spread)'s
    /// are); as [`Run::on`]; [`Share::of_chunk`]'s; on every rank.
    pub fn from_chunk(
        comm: &'c C,
        chunk: impl FnOnce(&C) -> Result<Chunk>,
        opts: AdaptOptions,
        balancer: impl Balancer + 'c,
        first: FirstOwners,
    ) -> Result<Self> {
        let comm = accounting::Accounted::new(comm);
        comm.start(Phase::Read);
        let chunk = comm.agree(chunk(comm.inner()))?;
        comm.enter(Phase::FirstPartition);
        let mut balancer: Box<dyn Balancer + 'c> = Box::new(balancer);
        Run::check(&comm, &opts, balancer.as_ref())?;
        let owner = match first {
            FirstOwners::Sfc => {
                let ids: Vec<u32> = chunk.roots().collect();
                let unit = vec![1; ids.len()];
                crate::partition::sfc_first_owners(&comm, &ids, &chunk.centroids(), &unit)?
            }
            FirstOwners::Balancer => {
                let whole = crate::mesh::chunk::gather(&comm, &chunk)?;
                let whole = comm.agree(whole.map(InitialMesh::new).transpose())?;
                let owner = Run::first_owners(&comm, whole.as_ref(), &opts, balancer.as_mut())?;
                // Each rank its chunk's block of the owners.
                let mut outgoing = vec![Vec::new(); comm.size()];
                if let Some(owner) = owner {
                    for (k, block) in outgoing.iter_mut().enumerate() {
                        let roots = crate::mesh::chunk::block(owner.len(), comm.size(), k);
                        *block = owner[roots].to_vec();
                    }
                }
                comm.all_to_all_serde(&outgoing)?.swap_remove(0)
            }
        };
        comm.enter(Phase::Topology);
        let share = Share::of_chunk(&comm, &chunk, &owner)?;
        drop(chunk);
        comm.enter(Phase::Forest);
        Ok(Run::holding(comm, share, opts, balancer))
    }

    /// [`Run::on`] on the accounting transport, recording since start-up began.
    fn start(
        comm: accounting::Accounted<'c, C>,
        initial: &InitialMesh,
        opts: AdaptOptions,
        mut balancer: Box<dyn Balancer + 'c>,
        holding: Holding,
    ) -> Result<Self> {
        comm.enter(Phase::FirstPartition);
        Run::check(&comm, &opts, balancer.as_ref())?;
        let root = (comm.rank() == 0).then_some(initial);
        let owner = Run::first_owners(&comm, root, &opts, balancer.as_mut())?;
        let owner: Vec<u32> = comm.broadcast_serde(0, owner.as_ref())?;
        comm.enter(Phase::Forest);
        let share = match holding {
            Holding::Whole => Share::whole(initial, owner),
            Holding::Parts => comm.agree(Share::of_rank(
                initial,
                &owner,
                comm.rank() as u32,
                comm.size(),
            ))?,
        };
        Ok(Run::holding(comm, share, opts, balancer))
    }

    /// Checks, on every rank, the options and the balancer of a run on `comm`.
    fn check(
        comm: &accounting::Accounted<'c, C>,
        opts: &AdaptOptions,
        balancer: &(dyn Balancer + 'c),
    ) -> Result<()> {
        comm.agree(opts.check())?;
        comm.agree(balancer.check(comm.size()))
    }

    /// Start-up's gathered path: rank 0, which passes the whole mesh `whole` (the others
    /// `None`), partitions its whole dual graph with the balancer (which may keep it); a
    /// collective checking the owners. Returns them on rank 0.
    fn first_owners(
        comm: &accounting::Accounted<'c, C>,
        whole: Option<&InitialMesh>,
        opts: &AdaptOptions,
        balancer: &mut (dyn Balancer + 'c),
    ) -> Result<Option<Vec<u32>>> {
        let first = match whole {
            Some(initial) => {
                let graph = DualGraph::new(&Forest::on(initial, opts.clone()));
                balancer
                    .first_owners(graph, comm.size())
                    .and_then(|owner| {
                        crate::balance::ranks::check_assignment(
                            "first owner",
                            &owner,
                            initial.nroots(),
                            comm.size(),
                        )
                        .map(|()| owner)
                    })
                    .map(Some)
            }
            None => Ok(None),
        };
        comm.agree(first)
    }

    /// The run holding `share` once start-up made it: the forest of the roots owned here;
    /// start-up's accounting ends.
    fn holding(
        comm: accounting::Accounted<'c, C>,
        share: Share,
        opts: AdaptOptions,
        balancer: Box<dyn Balancer + 'c>,
    ) -> Self {
        let me = comm.rank() as u32;
        let held = share.owner().iter().map(|&o| o == me).collect();
        let forest = Forest::holding(share.initial(), opts, held);
        let startup_cpu = comm.take();
        Run {
            comm,
            startup_cpu,
            forest,
            share,
            balancer,
            cost: None,
            weights: rows::HeldWeights::default(),
            last: None,
            at: BalanceAt::default(),
            level: 0,
            level_graph: None,
        }
    }

    /// Balances at `at` instead of on the predicted weights.
    pub fn balance_at(mut self, at: BalanceAt) -> Self {
        self.at = at;
        self
    }

    /// Weighs each leaf by `cost` instead of counting it: `PWgt`, which every balancer and
    /// SBN's processing levels balance, is then the sum of the costs of a tree's leaves, and a
    /// leaf about to be divided before the balance predicts its children's from
    /// [`LeafCost::child_cost`] (by default the leaf's own each). `cost` is called on every
    /// leaf held here each time the weights are taken (once a step, and for a processing
    /// level), since it may read what the caller changes between steps (the leaves' data).
    ///
    /// ```
    /// use plume::adapt::{AdaptOptions, LeafView};
    /// use plume::balance::{Plum, PlumOptions};
    /// use plume::comm::launch_threads;
    /// use plume::dist::{GatheredPlum, Mark, Run};
    /// use plume::mesh::generate_box;
    /// // Leaves left of x = 0.5 cost 5, the others 1.
    /// let cost = |leaf: &LeafView| if leaf.centroid[0] < 0.5 { 5 } else { 1 };
    /// let pwgt = launch_threads(2, |comm| {
    ///     let mesh = generate_box([4, 2, 2], [1.0; 3])?;
    ///     let plum = GatheredPlum::new(Plum::new(PlumOptions::new(2))?);
    ///     let mut run = Run::new(comm, mesh, AdaptOptions::default(), plum)?.leaf_cost(cost);
    ///     run.step(|_| Mark::Keep)?;
    ///     Ok(run.weights().map(|w| w.pwgt.iter().sum::<u64>()))
    /// })
    /// .unwrap();
    /// // 96 roots, half of them left of x = 0.5: rank 0's graph weighs 48 × 5 + 48.
    /// assert_eq!(pwgt[0], Some(288));
    /// ```
    pub fn leaf_cost(mut self, cost: impl LeafCost + 'c) -> Self {
        self.cost = Some(Box::new(cost));
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
    /// every rank holds the whole mesh ([`Run::on`]); else on a rank whose balancer keeps
    /// them (rank 0 of [`GatheredPlum`]); `None` elsewhere.
    pub fn gathered_owner(&self) -> Option<&[u32]> {
        match self.share.is_whole() {
            true => Some(self.share.owner()),
            false => self.balancer.owners(),
        }
    }

    /// Every root's size as its tree moved at the last balance (elements, by global id), on a
    /// rank whose balancer gathers them (rank 0 of [`GatheredPlum`]); `None` elsewhere.
    pub fn gathered_moving(&self) -> Option<&[u64]> {
        self.balancer.moving()
    }

    /// The dual graph's current weights on a rank whose balancer gathers them (rank 0 of
    /// [`GatheredPlum`]; `None` elsewhere and with other balancers).
    pub fn weights(&self) -> Option<&Weights> {
        self.graph().map(|g| &g.weights)
    }

    /// The dual graph with its current weights on a rank whose balancer gathers them (rank 0
    /// of [`GatheredPlum`]; `None` elsewhere and with other balancers).
    pub fn graph(&self) -> Option<&DualGraph> {
        self.balancer.graph()
    }

    /// PLUM's whole decision at the last step, on the rank that ran it (rank 0 of
    /// [`GatheredPlum`]; `None` elsewhere, with other balancers and before the first step).
    pub fn balance(&self) -> Option<&Balance> {
        self.last.as_ref()
    }

    /// The transport.
    pub fn comm(&self) -> &C {
        self.comm.inner()
    }

    /// This rank's CPU seconds in start-up, from the call of [`Run::new`] (or [`Run::on`],
    /// [`Run::from_chunk`]) to its return, per phase ([`gather_cpu`] gathers every rank's).
    pub fn startup_cpu(&self) -> &RankCpu {
        &self.startup_cpu
    }

    /// Accounts this rank's CPU time from here on in `phase`, work of the caller's own between
    /// steps (a solver's flow, a processing level): cut at every collective of the run
    /// ([`Run::refresh_halo`], [`Run::process`], ...) as start-up and steps are. Call it again
    /// to change phase, or with the same phase just before a collective the caller makes on
    /// [`Run::comm`], so that the segments end there too. [`Run::take_cpu`] ends the account
    /// (it holds a segment per collective until then); a step starts its own and drops what
    /// was not taken.
    pub fn account(&self, phase: Phase) {
        self.comm.account(phase);
    }

    /// This rank's CPU seconds since [`Run::account`] began recording, segment by segment
    /// ([`gather_cpu`] gathers every rank's); recording stops. Empty when nothing was recorded.
    pub fn take_cpu(&self) -> RankCpu {
        self.comm.take()
    }

    /// Steps done.
    pub fn level(&self) -> usize {
        self.level
    }

    /// Solution values of a leaf held here (for the solver between steps).
    ///
    /// # Errors
    /// [`Error::StaleLeafId`] when `id` was taken before the leaves last changed (a step,
    /// trees moved); [`Error::NotALeaf`] when it is not a leaf of a tree held here.
    pub fn leaf_data(&self, id: LeafId) -> Result<&[f64]> {
        self.check_leaf(id)?;
        Ok(self.forest.leaf_data(id))
    }

    /// Mutable solution values of a leaf held here (for the solver between steps).
    ///
    /// # Errors
    /// As [`Run::leaf_data`].
    pub fn leaf_data_mut(&mut self, id: LeafId) -> Result<&mut [f64]> {
        self.check_leaf(id)?;
        Ok(self.forest.leaf_data_mut(id))
    }

    /// Calls `f` with every leaf held here, its index in the leaves' order (that of
    /// [`Forest::leaves`] and of the halo's [`adjacency`](Halo::adjacency): roots ascending,
    /// each tree in canonical order), its id and its mutable values: the whole mesh's data
    /// in one pass, e.g. a solver's state written back after an iteration.
    ///
    /// ```
    /// use plume::adapt::AdaptOptions;
    /// use plume::balance::{Plum, PlumOptions};
    /// use plume::comm::launch_threads;
    /// use plume::dist::{GatheredPlum, Run};
    /// use plume::mesh::generate_box;
    /// launch_threads(2, |comm| {
    ///     let opts = AdaptOptions { nfields: 1, ..AdaptOptions::default() };
    ///     let plum = GatheredPlum::new(Plum::new(PlumOptions::new(2))?);
    ///     let mut run = Run::new(comm, generate_box([2, 2, 2], [1.0; 3])?, opts, plum)?;
    ///     let state: Vec<f64> = (0..run.forest().nleaves()).map(|i| i as f64).collect();
    ///     run.for_each_leaf_mut(|i, _, data| data[0] = state[i]);
    ///     let halo = run.halo()?;
    ///     assert_eq!(run.leaf_data(halo.adjacency.leaves[3])?[0], 3.0);
    ///     Ok(())
    /// })
    /// .unwrap();
    /// ```
    pub fn for_each_leaf_mut(&mut self, mut f: impl FnMut(usize, LeafId, &mut [f64])) {
        let (nf, generation) = (self.forest.options().nfields, self.forest.generation());
        let mut index = 0;
        for r in 0..self.forest.nroots() as u32 {
            if !self.forest.holds(r) {
                continue;
            }
            let tree = &mut self.forest.trees[r as usize];
            for i in tree.leaves_dfs() {
                let id = LeafId {
                    root: r,
                    elem: i,
                    generation,
                };
                let at = i as usize * nf;
                f(index, id, &mut tree.data[at..at + nf]);
                index += 1;
            }
        }
    }

    /// The volume, centroid and faces (unit normals and areas in the canonical orientation)
    /// of a leaf held here; a ghost's are [`GhostLeaf::geometry`], the same bits.
    ///
    /// # Errors
    /// As [`Run::leaf_data`].
    pub fn leaf_geometry(&self, id: LeafId) -> Result<LeafGeometry> {
        self.check_leaf(id)?;
        let forest = &self.forest;
        let verts = forest.trees()[id.root as usize].elems[id.elem as usize]
            .verts
            .map(|v| &forest.vertices()[v]);
        Ok(LeafGeometry::new(
            &verts.map(|v| v.pos),
            &verts.map(|v| v.key),
        ))
    }

    /// Fails unless `id` is a leaf held here, of the current generation.
    fn check_leaf(&self, id: LeafId) -> Result<()> {
        let current = self.forest.generation();
        if id.generation != current {
            return Err(Error::StaleLeafId {
                root: id.root,
                elem: id.elem,
                generation: id.generation,
                current,
            });
        }
        let forest = &self.forest;
        let leaf = (id.root as usize) < forest.nroots()
            && forest.holds(id.root)
            && forest.trees()[id.root as usize]
                .elems
                .get(id.elem as usize)
                .is_some_and(|e| e.is_leaf());
        match leaf {
            true => Ok(()),
            false => Err(Error::NotALeaf {
                root: id.root,
                elem: id.elem,
                rank: self.comm.rank(),
            }),
        }
    }

    /// One adaptation step on every rank (a collective): mark with `mark` (called on every
    /// leaf held here, in the adjacency order: [`LeafView::index`] counts up from 0 as
    /// [`Run::for_each_leaf_mut`]'s index and [`LeafAdjacency::leaves`]' positions do, so a
    /// solver marks from its own per-leaf arrays), coarsen, close, predict, balance, migrate,
    /// subdivide, update weights.
    ///
    /// [`LeafAdjacency::leaves`]: crate::adapt::LeafAdjacency::leaves
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
    /// [`Error::StaleLeafId`] when an id is of an older generation of the leaves,
    /// [`Error::NotALeaf`] when an id is not a leaf held here (the lowest such rank's, on every
    /// rank); any rank's error, on every rank.
    pub fn step_marked(&mut self, refine: Vec<LeafId>, coarsen: Vec<LeafId>) -> Result<StepReport> {
        self.comm.start(Phase::Mark);
        let start = Instant::now();
        let checked = refine
            .iter()
            .chain(&coarsen)
            .try_for_each(|&id| self.check_leaf(id));
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
        let mut hier = None;
        let mut moved = Moved::default();
        if self.at == BalanceAt::Predicted {
            self.comm.enter(Phase::Predict);
            let start = Instant::now();
            // The subdivided trees will have the weights predicted for them: no tree is walked
            // after the subdivision.
            let rows = self.rows(true);
            times.predict = start.elapsed();
            (balance, hier, moved) = self.balance_and_migrate(&rows, &mut times)?;
        }

        self.comm.enter(Phase::Subdivide);
        let start = Instant::now();
        let report = self.forest.subdivide();
        times.subdivide = start.elapsed();

        self.comm.enter(Phase::Weights);
        let start = Instant::now();
        let rows = (self.at != BalanceAt::Predicted).then(|| {
            let initial = self.forest.initial();
            let changed: Vec<u32> = report
                .changed_roots
                .iter()
                .map(|&r| initial.root_gid(r))
                .collect();
            self.weights.forget(&changed);
            self.rows(false)
        });
        if let (BalanceAt::Never, Some(rows)) = (self.at, &rows) {
            let held = rows.held(self.share.nroots());
            self.balancer.observe(&self.comm, held)?;
        }
        times.weights += start.elapsed();
        if let (BalanceAt::AfterSubdivision, Some(rows)) = (self.at, &rows) {
            (balance, hier, moved) = self.balance_and_migrate(rows, &mut times)?;
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
                hier,
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
        let me = self.comm.rank() as u32;
        let initial = self.forest.initial();
        let leaving: Vec<(u32, u32)> = (0..self.forest.nroots() as u32)
            .filter(|&r| self.forest.holds(r))
            .map(|r| (r, new_owner[initial.root_gid(r) as usize]))
            .filter(|&(_, to)| to != me)
            .collect();
        // A tree's weights do not depend on where it is.
        migration::migrate(
            self.comm.inner(),
            &mut self.forest,
            &mut self.share,
            &leaving,
        )
    }

    /// Moves the trees `leaving` between steps (a collective): `(global id of a root held
    /// here, its new owner)`, ascending, each for another rank; every rank passes its own
    /// roots that leave, so that a partition decided elsewhere (rank 0's, sent to each rank)
    /// moves with nothing sized by the whole mesh on any rank. Returns what moved over all
    /// ranks and this rank's times of the migration's phases.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the roots are not ascending and distinct or one stays on this
    /// rank, [`Error::RootNotHeld`], [`Error::RankOutOfRange`] (the lowest failing rank's, on
    /// every rank); a migration error on any rank, on every rank.
    pub fn migrate_leaving(&mut self, leaving: &[(u32, u32)]) -> Result<(Moved, MigrationTimes)> {
        self.comm.agree(self.check_leaving(leaving))?;
        let initial = self.forest.initial();
        let local: Vec<(u32, u32)> = leaving
            .iter()
            .map(|&(g, to)| (initial.local_root(g).expect("checked: held here"), to))
            .collect();
        migration::migrate(self.comm.inner(), &mut self.forest, &mut self.share, &local)
    }

    /// Balances between steps (a collective): the balancer decides on the current weights of
    /// the trees held here, as a step balancing after subdivision would, and the trees move,
    /// without adapting. For a caller that decides itself when to balance (its steps at
    /// [`BalanceAt::Never`], its balancer balancing whenever asked). Returns the balancer's
    /// numbers and what moved; the rank that keeps the balancer's whole decision has it in
    /// [`Run::balance`].
    ///
    /// # Errors
    /// The balancer's and the migration's, on every rank.
    pub fn balance_now(&mut self) -> Result<Rebalanced> {
        // The trees move: a processing level's graph of them is no longer theirs.
        self.level_graph = None;
        let rows = self.rows(false);
        let mut times = StepTimes::default();
        let (balance, hier, moved) = self.balance_and_migrate(&rows, &mut times)?;
        Ok(Rebalanced {
            balance,
            hier,
            moved,
        })
    }

    /// A checksum of every leaf of the run, its root, level, corners and data (a collective):
    /// the same whichever rank holds which tree and however a tree is stored, so a migration
    /// leaves it unchanged and runs on any P with the same mesh give the same value.
    ///
    /// # Errors
    /// Transport errors.
    pub fn checksum(&self) -> Result<u64> {
        let local = self.forest.checksum();
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

    /// This rank's rows of the dual graph: current weights, or with `predict` (between
    /// closure and subdivision) those the pending trees will have.
    fn rows(&mut self, predict: bool) -> rows::OwnRows {
        let cost = self.cost.as_deref();
        self.weights
            .rows(&self.forest, self.share.owner(), predict, cost)
    }

    /// The balancer's decision on `rows` (every rank's, checked and agreed), the moves
    /// all-gathered and the migration they ask for.
    fn balance_and_migrate(
        &mut self,
        rows: &rows::OwnRows,
        times: &mut StepTimes,
    ) -> Result<(Option<BalanceOutcome>, Option<HierStats>, Moved)> {
        self.comm.enter(Phase::Balance);
        let start = Instant::now();
        self.last = None;
        let held = rows.held(self.share.nroots());
        let decided = self.balancer.balance(&self.comm, held);
        let decided = decided.and_then(|d| self.check_leaving(&d.leaving).map(|()| d));
        let Decision {
            leaving,
            outcome,
            plum,
            hier,
        } = self.comm.agree(decided)?;
        self.last = plum;
        let anything_moves = self.comm.any(!leaving.is_empty())?;
        times.balance += start.elapsed();
        self.comm.enter(Phase::Migrate);
        let start = Instant::now();
        let mut moved = Moved::default();
        if anything_moves {
            // Each tree's weights go to its new holder, which need not walk it.
            let mut weights = vec![Vec::new(); self.comm.size()];
            for &(r, to) in &leaving {
                let w = self.weights.get(r).expect("the rows were just taken");
                weights[to as usize].push((r, w));
            }
            let initial = self.forest.initial();
            let local: Vec<(u32, u32)> = leaving
                .iter()
                .map(|&(g, to)| (initial.local_root(g).expect("checked: held here"), to))
                .collect();
            let phases;
            (moved, phases) =
                migration::migrate(&self.comm, &mut self.forest, &mut self.share, &local)?;
            times.migration = phases;
            let arrived: Vec<Vec<(u32, TreeWeights)>> = self.comm.all_to_all_serde(&weights)?;
            for (r, w) in arrived.into_iter().flatten() {
                self.weights.arrived(r, w);
            }
        }
        times.migrate += start.elapsed();
        Ok((outcome, hier, moved))
    }

    /// Checks the roots leaving this rank (a balancer's decision, or the caller's moves):
    /// held here, ascending, each for another rank.
    fn check_leaving(&self, leaving: &[(u32, u32)]) -> Result<()> {
        let (rank, size) = (self.comm.rank(), self.comm.size());
        if leaving.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(Error::Invalid(format!(
                "balancer: the roots leaving rank {rank} are not ascending and distinct"
            )));
        }
        for &(r, to) in leaving {
            let here = self.forest.initial().local_root(r);
            if !here.is_some_and(|local| self.forest.holds(local)) {
                return Err(Error::RootNotHeld { root: r });
            }
            if to as usize >= size {
                return Err(Error::RankOutOfRange {
                    vertex: r as usize,
                    rank: to,
                    nranks: size,
                });
            }
            if to as usize == rank {
                return Err(Error::Invalid(format!(
                    "balancer: root {r} leaves rank {rank} for rank {rank}"
                )));
            }
        }
        Ok(())
    }
}
