//! The PLUM pipeline (seed 004 §5.1, `plum.md` steps 3–7): decide whether to balance, split the
//! dual graph into `P·F` parts on the given (usually predicted) weights, build the similarity
//! matrix between the current owners and the new parts, map parts onto processors so that
//! little data moves, and accept the new assignment only when its gain pays for its cost.
//! The caller migrates the trees ([`super::ranks::migrate`]) and subdivides.

use std::time::{Duration, Instant};

use super::policy::{BalancePolicy, Observation, Threshold};
use crate::graph::{DualGraph, Weights};
use crate::metrics::{rank_loads, Movement};
use crate::partition::{Metis, PartitionInfo, Partitioner};
use crate::remap::{Identity, RemapInfo, Remapper, SimilarityMatrix, TotalVOptimal};
use crate::{Error, Result};

/// PLUM's cost model for accepting a remap (`plum.md` step 7), in seconds:
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
    /// Data the proposed assignment moves (`RWgt` of the weights balanced on); zero when not
    /// triggered.
    pub movement: Movement,
    /// Data the identity mapping of the same parts (part `j·F + k` to processor `j`) would move:
    /// the baseline a partitioner alone gives.
    pub identity: Movement,
    /// What the partitioner did.
    pub partition: Option<PartitionInfo>,
    /// What the remapper did.
    pub remap: Option<RemapInfo>,
    /// Stage times.
    pub times: BalanceTimes,
    /// The proposed owner of every root, when accepted.
    pub new_owner: Option<Vec<u32>>,
}

/// The PLUM balancer: options plus the three policies it is built from.
pub struct Plum {
    /// Options.
    pub opts: PlumOptions,
    partitioner: Box<dyn Partitioner>,
    remapper: Box<dyn Remapper>,
    policy: Box<dyn BalancePolicy>,
}

impl Plum {
    /// PLUM with METIS, the optimal TotalV remapper and the 1.05 threshold.
    pub fn new(opts: PlumOptions) -> Result<Plum> {
        Plum::with(
            opts,
            Box::new(Metis::default()),
            Box::new(TotalVOptimal),
            Box::new(Threshold::default()),
        )
    }

    /// PLUM with the given partitioner, remapper and policy.
    pub fn with(
        opts: PlumOptions,
        partitioner: Box<dyn Partitioner>,
        remapper: Box<dyn Remapper>,
        policy: Box<dyn BalancePolicy>,
    ) -> Result<Plum> {
        if opts.nprocs == 0 || opts.parts_per_proc == 0 {
            return Err(Error::Invalid(format!(
                "PLUM needs at least one processor and one part per processor, got P = {} and F = {}",
                opts.nprocs, opts.parts_per_proc
            )));
        }
        Ok(Plum {
            opts,
            partitioner,
            remapper,
            policy,
        })
    }

    /// The assignment a run starts from: the dual graph of the (unrefined) mesh split into
    /// `P` parts by the partitioner, part `p` on rank `p`.
    pub fn initial_assignment(&self, graph: &DualGraph) -> Result<Vec<u32>> {
        let mut owner = vec![0u32; graph.nvertices()];
        self.partitioner
            .partition(graph, &graph.weights, self.opts.nprocs, &mut owner)?;
        Ok(owner)
    }

    /// One balancing step for the assignment `owner` (root → processor) on `weights`
    /// (predicted before subdivision, or current after it). Returns the decision and, when
    /// accepted, the new owners; `owner` itself is left for the caller to migrate.
    pub fn balance(
        &mut self,
        graph: &DualGraph,
        weights: &Weights,
        owner: &[u32],
    ) -> Result<Balance> {
        let (p, f) = (self.opts.nprocs, self.opts.parts_per_proc);
        let nroots = graph.nvertices();
        if p.checked_mul(f).is_none_or(|parts| parts > nroots) {
            return Err(Error::Invalid(format!(
                "{p} processors × {f} parts each is more parts than the {nroots} roots of the mesh"
            )));
        }
        let loads_old = to_f64(&rank_loads(&weights.pwgt, owner, p));
        let obs = Observation {
            loads: &loads_old,
            time_per_load: self.opts.model.time_per_load,
            iterations: self.opts.model.iterations,
        };
        let before = obs.load_imb();
        let mut out = Balance {
            load_imb_before: before,
            load_imb_after: before,
            triggered: false,
            accepted: false,
            gain: 0.0,
            cost: 0.0,
            movement: Movement::new(owner, owner, &weights.rwgt, p),
            identity: Movement::new(owner, owner, &weights.rwgt, p),
            partition: None,
            remap: None,
            times: BalanceTimes::default(),
            new_owner: None,
        };
        if !self.policy.should_balance(&obs) {
            return Ok(out);
        }
        out.triggered = true;

        let start = Instant::now();
        let mut part = vec![0u32; nroots];
        out.partition = Some(
            self.partitioner
                .partition(graph, weights, p * f, &mut part)?,
        );
        out.times.partition = start.elapsed();

        let start = Instant::now();
        let sim = SimilarityMatrix::new(owner, &part, &weights.rwgt, p, f)?;
        out.times.similarity = start.elapsed();

        let start = Instant::now();
        let mut part2proc = vec![0u32; p * f];
        let remap = self.remapper.remap(&sim, &mut part2proc)?;
        out.times.reassign = start.elapsed();
        let mut identity = vec![0u32; p * f];
        out.identity = Identity.remap(&sim, &mut identity)?.volumes;

        let new_owner: Vec<u32> = part.iter().map(|&j| part2proc[j as usize]).collect();
        let loads_new = to_f64(&rank_loads(&weights.pwgt, &new_owner, p));
        let after = Observation {
            loads: &loads_new,
            ..obs
        };
        out.load_imb_after = after.load_imb();
        out.movement = remap.volumes.clone();
        out.gain = self.opts.model.gain(obs.max(), after.max());
        out.cost = self.opts.model.cost(out.movement.max_sr);
        out.remap = Some(remap);
        out.accepted = match self.opts.accept {
            Accept::CostModel => out.gain > out.cost,
            Accept::Always => true,
            Accept::Never => false,
        };
        if out.accepted {
            self.policy.balanced(out.cost);
            out.new_owner = Some(new_owner);
        }
        Ok(out)
    }
}

fn to_f64(v: &[u64]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}
