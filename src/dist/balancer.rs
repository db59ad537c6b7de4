//! The balancer as a role of [`Run`](super::Run): any [`Balancer`] decides, on every rank,
//! which of the roots it holds leave and where they go, from this rank's rows of the dual
//! graph ([`HeldRows`]) and a collective transport; the run applies the moves (it all-gathers
//! them, O(moved), and migrates the trees).
//!
//! Three come with plume: [`GatheredPlum`](super::GatheredPlum) ([Harvey 2001]'s PLUM: rank 0
//! gathers the weights, runs PLUM with any partitioner and sends each rank its moves),
//! [`Diffusive`](super::Diffusive) (the diffusive repartitioner on the ranks' rows, nothing
//! gathered) and [`NoBalancing`]; a user brings their own by implementing the trait.

use crate::balance::Balance;
use crate::comm::Comm;
use crate::graph::DualGraph;
use crate::partition::{Partitioner, Rows, Targets};
use crate::{Error, Result};

/// What a balancer sees on one rank at one step: this rank's rows of the dual graph.
#[derive(Debug, Clone, Copy)]
pub struct HeldRows<'a> {
    /// The rows of the roots held here: their global ids ascending, `PWgt` (their leaves, or
    /// the leaves' costs under the run's [`LeafCost`](crate::graph::LeafCost)), `RWgt` (their
    /// elements; predicted ones when the run balances before subdivision), and their face
    /// neighbours' global ids with `CWgt` and current owners.
    pub rows: Rows<'a>,
    /// Per row, the elements the tree has now: the size it moves with (below the predicted
    /// `RWgt` when the run balances before subdivision, equal to it after).
    pub moving: &'a [u64],
    /// Roots of the whole mesh.
    pub nroots: usize,
}

/// One rank's part of a balancer's decision at one step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decision {
    /// The roots held here that leave, each with its new owner (another rank), ascending by
    /// root.
    pub leaving: Vec<(u32, u32)>,
    /// The decision's numbers, the same on every rank (`None`: the balancer reports none).
    pub outcome: Option<BalanceOutcome>,
    /// PLUM's whole decision, on the rank that ran it (rank 0 of
    /// [`GatheredPlum`](super::GatheredPlum)), for the records.
    pub plum: Option<Balance>,
    /// The hierarchical balancer's numbers, the same on every rank
    /// ([`Hierarchical`](super::Hierarchical); `None` for the others).
    pub hier: Option<HierStats>,
}

/// A balancer's decision at one step, the same on every rank.
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
    /// [`Select`](super::Select)'s predictions, choice and replay at this decision point
    /// (`None` from the other balancers).
    pub select: Option<super::SelectRecord>,
}

/// The hierarchical balancer's ([`Hierarchical`](super::Hierarchical)) numbers at one balance, the same on every rank.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct HierStats {
    /// Per tree level above the processors (the top first): the objects of the largest
    /// database a leader held.
    pub max_db_objects: Vec<u64>,
    /// … and its bytes by eq. (2) (16 an object or a record).
    pub max_db_bytes: Vec<u64>,
    /// Per level: how many domains worked on their children's totals.
    pub semi_domains: Vec<u64>,
    /// Roots (objects) rank 0 received from the other ranks in phase 1.
    pub rank0_roots: u64,
    /// Face records rank 0 received from the other ranks in phase 1.
    pub rank0_records: u64,
    /// The most roots any rank received.
    pub max_roots: u64,
    /// Bytes of the three phases' messages rank 0 received.
    pub rank0_bytes: u64,
    /// The slowest rank's seconds in the three phases (wall clock). Not written: a record's
    /// times are apart from its numbers (PLUM's records put it in the partition stage).
    #[serde(skip)]
    pub seconds: f64,
}

impl BalanceOutcome {
    /// A step the policy did not balance, at `LoadImb` `load_imb`: nothing proposed.
    pub fn untriggered(load_imb: f64) -> BalanceOutcome {
        BalanceOutcome {
            load_imb_before: load_imb,
            load_imb_after: load_imb,
            triggered: false,
            accepted: false,
            gain: 0.0,
            cost: 0.0,
            volumes: [0; 3],
            select: None,
        }
    }

    /// The numbers of PLUM's decision `b`.
    pub fn of(b: &Balance) -> BalanceOutcome {
        BalanceOutcome {
            load_imb_before: b.load_imb_before,
            load_imb_after: b.load_imb_after,
            triggered: b.triggered,
            accepted: b.accepted,
            gain: b.gain,
            cost: b.cost,
            volumes: [b.movement.total_v, b.movement.max_v, b.movement.max_sr],
            select: None,
        }
    }
}

/// What decides, at each step of a [`Run`](super::Run), which roots move between ranks (see
/// the module doc). Every method but [`Balancer::first_owners`] is called on every rank.
///
/// A user's own, passing each rank's lowest root on at every step:
///
/// ```
/// use plume::adapt::AdaptOptions;
/// use plume::comm::{launch_threads, Comm};
/// use plume::dist::{Balancer, Decision, HeldRows, Mark, NoBalancing, Run};
/// use plume::graph::DualGraph;
/// use plume::mesh::generate_box;
/// use plume::partition::Rcb;
///
/// /// Gives this rank's lowest root to the next rank at every step.
/// struct Pass(NoBalancing);
///
/// impl Balancer for Pass {
///     fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> plume::Result<Vec<u32>> {
///         self.0.first_owners(graph, ranks)
///     }
///     fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> plume::Result<Decision> {
///         let next = ((comm.rank() + 1) % comm.size()) as u32;
///         let leaving = match held.rows.roots.first() {
///             Some(&r) if comm.size() > 1 => vec![(r, next)],
///             _ => Vec::new(),
///         };
///         Ok(Decision { leaving, ..Decision::default() })
///     }
/// }
///
/// let moved = launch_threads(2, |comm| {
///     let mesh = generate_box([3, 3, 3], [1.0; 3])?;
///     let pass = Pass(NoBalancing::new(Box::new(Rcb)));
///     let mut run = Run::new(comm, mesh, AdaptOptions::default(), pass)?;
///     let report = run.step(|_| Mark::Keep)?;
///     Ok(report.metrics.moved.trees)
/// })
/// .unwrap();
/// assert_eq!(moved, [2, 2]);
/// ```
pub trait Balancer {
    /// Checks, on every rank at start-up, that the balancer is set for a run on `ranks` ranks:
    /// any set-up is fine by default.
    ///
    /// # Errors
    /// When it is set for another number of ranks.
    fn check(&self, ranks: usize) -> Result<()> {
        let _ = ranks;
        Ok(())
    }

    /// The first owner (a rank `< ranks`) of every root, on rank 0 only, from the whole dual
    /// graph of the initial mesh (every root one leaf, every weight 1), which the balancer may
    /// keep. Start-up's gathered path: the run broadcasts the owners.
    ///
    /// # Errors
    /// The partitioner's (e.g. fewer roots than ranks).
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>>;

    /// Decides which roots held here leave, and where to: a collective, every rank calling it
    /// at the same step with its own rows. An error must reach every rank
    /// ([`CommExt::agree`](crate::comm::CommExt::agree)) so that none waits on another.
    ///
    /// # Errors
    /// The balancer's and the transport's, on every rank.
    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision>;

    /// Sees this rank's rows after a step it did not balance in
    /// ([`BalanceAt::Never`](super::BalanceAt::Never)): a collective like
    /// [`Balancer::balance`]; nothing by default.
    ///
    /// # Errors
    /// As [`Balancer::balance`].
    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        let _ = (comm, held);
        Ok(())
    }

    /// The state a checkpoint keeps of the balancer ([`Run::checkpoint`](super::Run::checkpoint)
    /// writes rank 0's): what it carries from step to step that the trees do not hold, its
    /// policy's history. Empty by default.
    fn save_state(&self) -> Vec<u8> {
        Vec::new()
    }

    /// Takes back rank 0's [`Balancer::save_state`] of a checkpoint written on as many ranks
    /// ([`Run::restart`](super::Run::restart) gives it to every rank), so that the balancer
    /// decides as the one that wrote it would have. A state it does not recognise (another
    /// balancer's or policy's) leaves it as it is; by default every state does.
    ///
    /// # Errors
    /// When `bytes` claim to be its state but do not decode.
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let _ = bytes;
        Ok(())
    }

    /// The dual graph with every root's current weights, on a rank that gathers it for the
    /// records (rank 0 of [`GatheredPlum`](super::GatheredPlum)); `None` by default.
    fn graph(&self) -> Option<&DualGraph> {
        None
    }

    /// Every root's owner (by global id), on a rank that keeps them for the records (rank 0
    /// of [`GatheredPlum`](super::GatheredPlum)); `None` by default.
    fn owners(&self) -> Option<&[u32]> {
        None
    }

    /// Every root's size as its tree last moved or would move (elements, by global id), on a
    /// rank that keeps them for the records (rank 0 of [`GatheredPlum`](super::GatheredPlum));
    /// `None` by default.
    fn moving(&self) -> Option<&[u64]> {
        None
    }
}

impl<B: Balancer + ?Sized> Balancer for Box<B> {
    fn check(&self, ranks: usize) -> Result<()> {
        (**self).check(ranks)
    }

    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        (**self).first_owners(graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        (**self).balance(comm, held)
    }

    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        (**self).observe(comm, held)
    }

    fn save_state(&self) -> Vec<u8> {
        (**self).save_state()
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).restore_state(bytes)
    }

    fn graph(&self) -> Option<&DualGraph> {
        (**self).graph()
    }

    fn owners(&self) -> Option<&[u32]> {
        (**self).owners()
    }

    fn moving(&self) -> Option<&[u64]> {
        (**self).moving()
    }
}

/// No balancing: the roots stay on their first owners, which a partitioner makes (e.g. a run
/// balanced by SBN while the ranks process, [`Run::process`](super::Run::process)). Nothing is
/// gathered after start-up.
pub struct NoBalancing {
    first: Box<dyn Partitioner>,
}

impl NoBalancing {
    /// The first owners by `first` (one part per rank, equal weights).
    pub fn new(first: Box<dyn Partitioner>) -> NoBalancing {
        NoBalancing { first }
    }
}

impl Balancer for NoBalancing {
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        first_by(self.first.as_ref(), &graph, ranks)
    }

    /// Nothing leaves; no collective.
    fn balance(&mut self, _comm: &dyn Comm, _held: HeldRows<'_>) -> Result<Decision> {
        Ok(Decision::default())
    }
}

/// The first owners of `graph`'s roots on `ranks` ranks by `first` (equal weights, part `p` on
/// rank `p`).
pub(super) fn first_by(
    first: &dyn Partitioner,
    graph: &DualGraph,
    ranks: usize,
) -> Result<Vec<u32>> {
    if ranks == 0 {
        return Err(Error::Zero { what: "ranks" });
    }
    let mut owner = vec![0u32; graph.nvertices()];
    first.partition(
        &graph.view(&graph.weights)?,
        Targets::Equal(ranks),
        &mut owner,
    )?;
    Ok(owner)
}

/// The error of a balancer set for `set_for` ranks in a run on `ranks`.
pub(super) fn check_ranks(name: &str, set_for: usize, ranks: usize) -> Result<()> {
    if set_for == ranks {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "{name}: the balancer is set for {set_for} processors but the run has {ranks} ranks"
        )))
    }
}
