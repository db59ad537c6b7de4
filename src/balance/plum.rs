//! The PLUM pipeline ([Harvey 2001, §5.1], `docs/design/plum.md`): decide whether to balance, split
//! the graph into `P·F` parts on the given (usually predicted) weights, build the similarity
//! matrix between the current owners and the new parts, map parts onto processors so that
//! little data moves, and accept the new assignment only when its gain pays for its cost.
//! The caller migrates the data ([`super::ranks::migrate`] for trees) and subdivides.
//!
//! The graph is any [`GraphView`]: the dual graph of a forest ([`DualGraph::view`]) or a user's
//! own. Processors may be given uneven *target shares* of the total weight (ULBA's, from the
//! policy's [`BalancePolicy::target_shares`], or the caller's in [`Plum::propose`]): part `j`
//! is then cut to processor `j / F`'s share and only goes to a processor with the same share.
//!
//! ```
//! use plume::balance::{Accept, Plum, PlumOptions};
//! use plume::graph::GraphView;
//! // A ring of 8 vertices, all on rank 0 of 2.
//! let xadj: Vec<u32> = (0..=8).map(|v| 2 * v).collect();
//! let adjncy: Vec<u32> = (0..8).flat_map(|v| [(v + 7) % 8, (v + 1) % 8]).collect();
//! let (ewgt, vwgt) = (vec![1; 16], vec![1; 8]);
//! let graph = GraphView::new(&xadj, &adjncy, &ewgt, &vwgt).unwrap();
//! let opts = PlumOptions { accept: Accept::Always, ..PlumOptions::new(2) };
//! let mut plum = Plum::new(opts).unwrap();
//! let b = plum.balance(&graph, &[0; 8]).unwrap();
//! assert!(b.triggered && b.accepted);
//! let new_owner = b.new_owner.unwrap();
//! assert_eq!(new_owner.iter().filter(|&&p| p == 1).count(), 4);
//! // Rank 1 asks for three quarters of the work.
//! let b = plum.propose(&graph, &[0; 8], Some(&[0.25, 0.75])).unwrap();
//! assert_eq!(b.new_owner.unwrap().iter().filter(|&&p| p == 1).count(), 6);
//! ```
//!
//! [`DualGraph::view`]: crate::graph::DualGraph::view

use std::time::{Duration, Instant};

use super::policy::{BalancePolicy, Observation, Threshold};
use crate::graph::GraphView;
use crate::metrics::{rank_loads, Movement};
use crate::partition::{Metis, PartitionInfo, Partitioner, Targets};
use crate::remap::{
    remap_within_classes, Identity, RemapInfo, Remapper, SimilarityMatrix, TotalVOptimal,
};
use crate::{Error, Result};

/// PLUM's cost model for accepting a remap (`docs/design/plum.md`), in seconds:
/// `Gain = T_iter · N_adapt · (Wmax_old − Wmax_new)`, `Cost = M · MaxSR + O`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RemapCostModel {
    /// `T_iter`: solver time per unit of `PWgt` (one leaf) per iteration.
    pub time_per_load: f64,
    /// `N_adapt`: solver iterations between two adaptations.
    pub iterations: usize,
    /// `M`: time to move one element (one unit of `RWgt`) through the busiest link.
    pub per_element: f64,
    /// `O`: fixed cost of a remap (set-up, messages).
    pub overhead: f64,
}

impl Default for RemapCostModel {
    /// A leaf costs 5 µs per iteration, 20 iterations between adaptations; moving an element
    /// costs its ~50 bytes at the SP2's 36 MB/s (1.4 µs), plus 1 ms of set-up.
    fn default() -> Self {
        RemapCostModel {
            time_per_load: 5e-6,
            iterations: 20,
            per_element: 50.0 / 36e6,
            overhead: 1e-3,
        }
    }
}

impl RemapCostModel {
    /// Time gained until the next adaptation by lowering the heaviest load.
    pub fn gain(&self, wmax_old: f64, wmax_new: f64) -> f64 {
        self.time_per_load * self.iterations as f64 * (wmax_old - wmax_new)
    }

    /// Time a remap moving `max_sr` elements (max sent + max received) costs.
    pub fn cost(&self, max_sr: u64) -> f64 {
        self.per_element * max_sr as f64 + self.overhead
    }
}

/// Whether a computed remap is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Accept {
    /// Only when `Gain > Cost` ([`RemapCostModel`]).
    #[default]
    CostModel,
    /// Always.
    Always,
    /// Never (the remap is computed and reported, not applied).
    Never,
}

impl Accept {
    /// Whether a remap of modelled `gain` and `cost` (seconds) is carried out.
    pub fn accepts(self, gain: f64, cost: f64) -> bool {
        match self {
            Accept::CostModel => gain > cost,
            Accept::Always => true,
            Accept::Never => false,
        }
    }
}

/// The options of the PLUM balancer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlumOptions {
    /// Number of processors `P`.
    pub nprocs: usize,
    /// Parts per processor `F` (the dual graph is split into `P·F` parts).
    pub parts_per_proc: usize,
    /// When a computed remap is carried out.
    pub accept: Accept,
    /// The gain / cost model.
    pub model: RemapCostModel,
}

impl PlumOptions {
    /// `P` processors, one part each, cost-model acceptance.
    pub fn new(nprocs: usize) -> Self {
        PlumOptions {
            nprocs,
            parts_per_proc: 1,
            accept: Accept::default(),
            model: RemapCostModel::default(),
        }
    }
}

/// Wall-clock time of each stage of a balancing step (reported, never used to decide).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BalanceTimes {
    /// Repartitioning.
    pub partition: Duration,
    /// Building the similarity matrix.
    pub similarity: Duration,
    /// Processor reassignment.
    pub reassign: Duration,
}

/// What one PLUM step found and decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Balance {
    /// `LoadImb` of the current assignment on the given weights.
    pub load_imb_before: f64,
    /// `LoadImb` of the proposed assignment (equal to `load_imb_before` when not triggered).
    pub load_imb_after: f64,
    /// True when the policy asked for a repartition.
    pub triggered: bool,
    /// True when the new assignment is to be carried out.
    pub accepted: bool,
    /// Modelled gain of the proposed assignment, seconds.
    pub gain: f64,
    /// Modelled cost of the proposed assignment, seconds.
    pub cost: f64,
    /// Data the proposed assignment moves, in the sizes of what moves (the graph's sizes unless
    /// given: [`Plum::balance_moving`]); the cost is computed on it. Zero when not triggered.
    pub movement: Movement,
    /// Data the proposed assignment moves in the graph's sizes, the remap objective's (for the
    /// dual graph balanced before subdivision: predicted `RWgt`). Zero when not triggered.
    pub planned: Movement,
    /// Data the identity mapping of the same parts (part `j·F + k` to processor `j`) would move:
    /// the baseline a partitioner alone gives.
    pub identity: Movement,
    /// What the partitioner did.
    pub partition: Option<PartitionInfo>,
    /// What the remapper did.
    pub remap: Option<RemapInfo>,
    /// Stage times.
    pub times: BalanceTimes,
    /// The proposed owner of every vertex, when accepted.
    pub new_owner: Option<Vec<u32>>,
}

/// The PLUM balancer: options plus the three policies it is built from.
pub struct Plum {
    /// Options.
    pub opts: PlumOptions,
    partitioner: Box<dyn Partitioner>,
    /// Makes the first partition instead of `partitioner` when set ([`Plum::first_by`]).
    first: Option<Box<dyn Partitioner>>,
    remapper: Box<dyn Remapper>,
    policy: Box<dyn BalancePolicy>,
}

impl Plum {
    /// PLUM with METIS, the optimal TotalV remapper and the 1.05 threshold.
    ///
    /// # Errors
    /// [`Error::Zero`] when `P` or `F` is 0.
    pub fn new(opts: PlumOptions) -> Result<Plum> {
        Plum::with(
            opts,
            Box::new(Metis::default()),
            Box::new(TotalVOptimal),
            Box::new(Threshold::default()),
        )
    }

    /// PLUM with the given partitioner, remapper and policy.
    ///
    /// # Errors
    /// [`Error::Zero`] when `P` or `F` is 0.
    pub fn with(
        opts: PlumOptions,
        partitioner: Box<dyn Partitioner>,
        remapper: Box<dyn Remapper>,
        policy: Box<dyn BalancePolicy>,
    ) -> Result<Plum> {
        check_options(&opts)?;
        Ok(Plum {
            opts,
            partitioner,
            first: None,
            remapper,
            policy,
        })
    }

    /// The policy's history tagged with its name, for a checkpoint
    /// ([`BalancePolicy::save_state`]).
    pub fn save_state(&self) -> Vec<u8> {
        super::policy::save_policy(self.policy.as_ref())
    }

    /// Gives the policy the history in `bytes` ([`Plum::save_state`]) when it is its own (the
    /// same policy's); another policy's is ignored: its history starts afresh.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `bytes` are not a saved history.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        super::policy::restore_policy(self.policy.as_mut(), bytes)
    }

    /// This PLUM with `first` making the first partition ([`Plum::initial_assignment`]) and
    /// its own partitioner only rebalancing: a space-filling curve to start, or a start for a
    /// repartitioner that refuses to make one ([`crate::partition::Diffusion`]).
    pub fn first_by(mut self, first: Box<dyn Partitioner>) -> Plum {
        self.first = Some(first);
        self
    }

    /// The assignment a run starts from: the graph split into `P` parts of equal weight by the
    /// first partitioner ([`Plum::first_by`]; the partitioner unless set), part `p` on rank
    /// `p`.
    ///
    /// # Errors
    /// [`Error::TooFewVertices`] when the graph has fewer than `P` vertices, and the
    /// partitioner's errors.
    pub fn initial_assignment(&self, graph: &GraphView<'_>) -> Result<Vec<u32>> {
        check_options(&self.opts)?;
        let mut owner = vec![0u32; graph.nvertices()];
        self.first.as_ref().unwrap_or(&self.partitioner).partition(
            graph,
            Targets::Equal(self.opts.nprocs),
            &mut owner,
        )?;
        Ok(owner)
    }

    /// One balancing step for the assignment `owner` (vertex → processor) on the weights of
    /// `graph` (for the dual graph, predicted before subdivision or current after it): asks
    /// the policy whether to balance and, if so, [`Plum::propose`]s a new assignment with the
    /// policy's target shares. Returns the decision and, when accepted, the new owners; `owner`
    /// itself is left for the caller to migrate.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `owner` has one entry per vertex,
    /// [`Error::RankOutOfRange`] for an owner `≥ P`, [`Error::TooFewVertices`] when `P·F`
    /// exceeds the vertices, [`Error::InvalidShare`] for bad shares from the policy, and the
    /// partitioner's and remapper's errors.
    pub fn balance(&mut self, graph: &GraphView<'_>, owner: &[u32]) -> Result<Balance> {
        self.balance_moving(graph, owner, graph.sizes())
    }

    /// [`Plum::balance`] when what moves is not what the remap counts: `moving[v]` is the size
    /// vertex v's data will have when it moves (for trees moved before subdivision: their
    /// elements now, while the graph holds predicted sizes). The accept rule's cost and the
    /// policy's record use it (`docs/design/plum.md`).
    ///
    /// # Errors
    /// As [`Plum::balance`], and [`Error::LengthMismatch`] unless `moving` has one entry per
    /// vertex.
    pub fn balance_moving(
        &mut self,
        graph: &GraphView<'_>,
        owner: &[u32],
        moving: &[u64],
    ) -> Result<Balance> {
        self.check(graph, owner)?;
        Error::check_len("moving sizes", graph.nvertices(), moving.len())?;
        let p = self.opts.nprocs;
        let loads_old = to_f64(&rank_loads(graph.vertex_weights(), owner, p));
        let obs = self.observation(&loads_old);
        if !self.policy.should_balance(&obs) {
            let before = obs.load_imb();
            let stay = Movement::new(owner, owner, moving, p);
            return Ok(Balance {
                load_imb_before: before,
                load_imb_after: before,
                triggered: false,
                accepted: false,
                gain: 0.0,
                cost: 0.0,
                movement: stay.clone(),
                planned: stay.clone(),
                identity: stay,
                partition: None,
                remap: None,
                times: BalanceTimes::default(),
                new_owner: None,
            });
        }
        let shares = self.policy.target_shares(p);
        let out = self.propose_moving(graph, owner, shares.as_deref(), moving)?;
        if out.accepted {
            self.policy.balanced_moving(out.cost, out.movement.max_v);
        }
        Ok(out)
    }

    /// PLUM steps 4–7 without asking the policy (for callers that decide when to balance
    /// themselves): partitions `graph` into `P·F` parts, processor `i`'s `F` parts aiming at
    /// `shares[i]` of the total weight (equal shares when `None`), remaps them, and applies the
    /// acceptance rule. The policy is neither asked nor told.
    ///
    /// # Errors
    /// As [`Plum::balance`], and [`Error::LengthMismatch`] unless `shares` has `P` entries.
    pub fn propose(
        &self,
        graph: &GraphView<'_>,
        owner: &[u32],
        shares: Option<&[f64]>,
    ) -> Result<Balance> {
        self.propose_moving(graph, owner, shares, graph.sizes())
    }

    /// [`Plum::propose`] with the sizes of what moves given apart from the graph's
    /// (see [`Plum::balance_moving`]): the remap minimizes its objective on the graph's sizes,
    /// the cost is that of `moving`.
    ///
    /// # Errors
    /// As [`Plum::propose`], and [`Error::LengthMismatch`] unless `moving` has one entry per
    /// vertex.
    pub fn propose_moving(
        &self,
        graph: &GraphView<'_>,
        owner: &[u32],
        shares: Option<&[f64]>,
        moving: &[u64],
    ) -> Result<Balance> {
        self.check(graph, owner)?;
        Error::check_len("moving sizes", graph.nvertices(), moving.len())?;
        let (p, f) = (self.opts.nprocs, self.opts.parts_per_proc);
        if let Some(shares) = shares {
            Error::check_len("target shares", p, shares.len())?;
            Targets::Shares(shares).check()?;
        }
        let part_shares: Option<Vec<f64>> = shares.map(|s| (0..p * f).map(|j| s[j / f]).collect());
        let targets = match &part_shares {
            Some(s) => Targets::Shares(s),
            None => Targets::Equal(p * f),
        };
        let mut times = BalanceTimes::default();

        let start = Instant::now();
        let mut part = vec![0u32; graph.nvertices()];
        // With one part per processor, parts are processors: a repartitioner may start from
        // the current owners.
        let partition = match f {
            1 if self.partitioner.weighs_moving_sizes() => {
                let now = graph.with_sizes(moving)?;
                self.partitioner
                    .repartition(&now, targets, owner, &mut part)?
            }
            1 => self
                .partitioner
                .repartition(graph, targets, owner, &mut part)?,
            _ => self.partitioner.partition(graph, targets, &mut part)?,
        };
        times.partition = start.elapsed();

        let start = Instant::now();
        let sim = SimilarityMatrix::new(owner, &part, graph.sizes(), p, f)?;
        times.similarity = start.elapsed();

        let start = Instant::now();
        let mut part2proc = vec![0u32; p * f];
        let remap = match shares {
            None => self.remapper.remap(&sim, &mut part2proc)?,
            Some(s) => {
                let class = share_classes(s);
                remap_within_classes(self.remapper.as_ref(), &sim, &class, &mut part2proc)?
            }
        };
        // The remapper may be the caller's: its mapping indexes the processors below.
        crate::remap::check_mapping(&sim, &part2proc)?;
        times.reassign = start.elapsed();
        let mut identity = vec![0u32; p * f];
        let identity = Identity.remap(&sim, &mut identity)?.volumes;

        let new_owner: Vec<u32> = part.iter().map(|&j| part2proc[j as usize]).collect();
        let loads_old = to_f64(&rank_loads(graph.vertex_weights(), owner, p));
        let loads_new = to_f64(&rank_loads(graph.vertex_weights(), &new_owner, p));
        let (before, after) = (self.observation(&loads_old), self.observation(&loads_new));
        let gain = self.opts.model.gain(before.max(), after.max());
        let movement = Movement::new(owner, &new_owner, moving, p);
        let cost = self.opts.model.cost(movement.max_sr);
        let accepted = self.opts.accept.accepts(gain, cost);
        Ok(Balance {
            load_imb_before: before.load_imb(),
            load_imb_after: after.load_imb(),
            triggered: true,
            accepted,
            gain,
            cost,
            movement,
            planned: remap.volumes.clone(),
            identity,
            partition: Some(partition),
            remap: Some(remap),
            times,
            new_owner: accepted.then_some(new_owner),
        })
    }

    /// What the policy and the cost model see of per-rank loads.
    fn observation<'a>(&self, loads: &'a [f64]) -> Observation<'a> {
        Observation {
            loads,
            time_per_load: self.opts.model.time_per_load,
            iterations: self.opts.model.iterations,
        }
    }

    /// The checks of every balancing step: options, one owner `< P` per vertex, `P·F` parts
    /// possible.
    fn check(&self, graph: &GraphView<'_>, owner: &[u32]) -> Result<()> {
        check_options(&self.opts)?;
        let (p, f) = (self.opts.nprocs, self.opts.parts_per_proc);
        super::ranks::check_assignment("owner", owner, graph.nvertices(), p)?;
        let parts = p.saturating_mul(f);
        if parts > graph.nvertices() {
            return Err(Error::TooFewVertices {
                parts,
                vertices: graph.nvertices(),
            });
        }
        Ok(())
    }
}

/// `P ≥ 1` and `F ≥ 1`.
fn check_options(opts: &PlumOptions) -> Result<()> {
    if opts.nprocs == 0 {
        return Err(Error::Zero { what: "processors" });
    }
    if opts.parts_per_proc == 0 {
        return Err(Error::Zero {
            what: "parts per processor",
        });
    }
    Ok(())
}

/// The class of every processor: processors with bitwise equal shares share a class.
fn share_classes(shares: &[f64]) -> Vec<u32> {
    let mut distinct: Vec<u64> = shares.iter().map(|s| s.to_bits()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    shares
        .iter()
        .map(|s| distinct.binary_search(&s.to_bits()).expect("listed") as u32)
        .collect()
}

fn to_f64(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}
