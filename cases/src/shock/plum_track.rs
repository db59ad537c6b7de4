//! The PLUM track (and the no-balancing baseline): balance before subdivision on predicted
//! weights (or after it), migrate the trees, then process the level with the static
//! assignment on the simulated machine.

use crate::error::Result;
use plume::adapt::Forest;
use plume::balance::{migrate_counted, Balance, Migration, Plum};
use plume::graph::{DualGraph, Weights};
use plume::metrics::{Cut, Movement};
use plume::sim::{plum_level_over, processing_times};

use crate::hier::HierSettings;
use crate::minex::MinexPartitioner;
use crate::words::PartitionerName;
use crate::words::{PolicyName, PolicySettings};
use plume::balance::hier::{Clock, HierBalance};
use plume::partition::minex::MinexReport;
use plume::partition::Partitioner;
use plume::remap::{Identity, Remapper};
use plume::sim::flows_over_links;
use plume::sim::HierPartitioner;
use std::sync::Arc;

use super::record::loads_and_cut;
use super::track::Track;
use super::{BalanceAt, Balancer, LevelRecord, ShockConfig, SimRecord, Stage, StageTimes};

/// PLUM on its assignment; with [`Balancer::None`] it never balances.
pub(super) struct PlumTrack {
    cfg: ShockConfig,
    plum: Plum,
    owner: Vec<u32>,
    balance: Option<Balance>,
    /// The owners at the start of the level, before balancing.
    start: Vec<u32>,
    moved: Migration,
    /// The flows of what moved (elements of the trees as packed).
    flows: Movement,
    times: StageTimes,
    /// With [`Balancer::Hier`]: the partitioner PLUM runs, and its report of this level's
    /// balance (`None` when it did not balance).
    hier: Option<Arc<HierPartitioner>>,
    hier_balance: Option<HierBalance>,
    /// With MinEX: the partitioner PLUM runs, and its report of this level's balance.
    minex: Option<Arc<MinexPartitioner>>,
    minex_report: Option<MinexReport>,
    /// Each root's elements as its tree moved at this level's balance (empty without one).
    moving: Vec<u64>,
}

impl PlumTrack {
    /// The track of `cfg`, starting from the partitioner's initial partition.
    pub(super) fn new(cfg: &ShockConfig, graph: &DualGraph) -> Result<Self> {
        cfg.machine_grid()?;
        let (plum, hier, minex) = plum_and_reporters(cfg)?;
        let owner = plum.initial_assignment(&graph.view(&graph.weights)?)?;
        Ok(PlumTrack {
            cfg: cfg.clone(),
            plum,
            start: owner.clone(),
            owner,
            balance: None,
            moved: Migration::default(),
            flows: Movement::from_flows(vec![0; cfg.procs], vec![0; cfg.procs]),
            times: StageTimes::new(),
            hier,
            hier_balance: None,
            minex,
            minex_report: None,
            moving: Vec::new(),
        })
    }

    fn balance_and_migrate(
        &mut self,
        graph: &DualGraph,
        weights: &Weights,
        forest: &Forest,
    ) -> Result<()> {
        let clock = std::time::Instant::now();
        // The trees move as they are now: before subdivision, smaller than predicted.
        let moving: Vec<u64> = forest.trees().iter().map(|t| t.nelems() as u64).collect();
        let b = self
            .plum
            .balance_moving(&graph.view(weights)?, &self.owner, &moving)?;
        if let Some(new_owner) = &b.new_owner {
            (self.moved, self.flows) =
                migrate_counted(forest, &mut self.owner, new_owner, self.cfg.procs);
        }
        self.times = balancer_times(&b, clock.elapsed());
        self.balance = Some(b);
        self.hier_balance = self.hier.as_ref().and_then(|h| h.take_last());
        self.minex_report = self.minex.as_ref().and_then(|m| m.take_last());
        self.moving = moving;
        Ok(())
    }

    fn balances(&self, at: BalanceAt) -> bool {
        matches!(self.cfg.balancer, Balancer::Plum | Balancer::Hier) && self.cfg.balance_at == at
    }
}

impl Track for PlumTrack {
    fn owner(&self) -> &[u32] {
        &self.owner
    }

    fn hier_balance(&self) -> Option<&HierBalance> {
        self.hier_balance.as_ref()
    }

    fn before_subdivision(
        &mut self,
        forest: &Forest,
        graph: &DualGraph,
        predicted: &Weights,
    ) -> Result<()> {
        self.balance = None;
        self.start.clone_from(&self.owner);
        self.moved = Migration::default();
        self.flows = Movement::from_flows(vec![0; self.cfg.procs], vec![0; self.cfg.procs]);
        self.times.clear();
        self.hier_balance = None;
        self.minex_report = None;
        self.moving.clear();
        if self.balances(BalanceAt::Predicted) {
            self.balance_and_migrate(graph, predicted, forest)?;
        }
        Ok(())
    }

    fn after_subdivision(
        &mut self,
        level: usize,
        forest: &Forest,
        graph: &DualGraph,
        adapt_ms: &StageTimes,
    ) -> Result<LevelRecord> {
        if self.balances(BalanceAt::AfterSubdivision) {
            self.balance_and_migrate(graph, &graph.weights.clone(), forest)?;
        }
        let mut time_ms = adapt_ms.clone();
        time_ms.extend(&self.times);
        Ok(plum_record(
            &self.cfg,
            PlumLevel {
                level,
                leaves: forest.nleaves(),
                graph,
                owner: &self.owner,
                start: &self.start,
                balance: self.balance.as_ref(),
                flows: &self.flows,
                moved: self.moved,
                time_ms,
                hier: None,
                moving: (!self.moving.is_empty()).then_some(&self.moving[..]),
                minex: self.minex_report.take(),
            },
        ))
    }
}

/// PLUM's stage times of a balancing step that took `total` with the migration it asked for:
/// partition, similarity matrix and reassignment as PLUM timed them, the rest as migration.
pub(super) fn balancer_times(b: &Balance, total: std::time::Duration) -> StageTimes {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let stages = ms(b.times.partition) + ms(b.times.similarity) + ms(b.times.reassign);
    StageTimes::from([
        (Stage::Partition, ms(b.times.partition)),
        (Stage::Similarity, ms(b.times.similarity)),
        (Stage::Reassignment, ms(b.times.reassign)),
        (Stage::Migration, (ms(total) - stages).max(0.0)),
    ])
}

/// What a level balanced by PLUM (or by nothing) ended with, for its record.
pub(super) struct PlumLevel<'a> {
    /// The level, from 1.
    pub level: usize,
    /// Leaves after the level.
    pub leaves: usize,
    /// The dual graph with the level's weights.
    pub graph: &'a DualGraph,
    /// The owners the level was processed with.
    pub owner: &'a [u32],
    /// The owners at the start of the level, before balancing.
    pub start: &'a [u32],
    /// PLUM's decision (none without balancing).
    pub balance: Option<&'a Balance>,
    /// The flows of what moved.
    pub flows: &'a Movement,
    /// What moved.
    pub moved: Migration,
    /// The level's stage times.
    pub time_ms: StageTimes,
    /// The hierarchical balancer's numbers (none for the others).
    pub hier: Option<plume::dist::HierStats>,
    /// Each root's elements as its tree moved at the level's balance (`None` without one:
    /// nothing moved, the graph's sizes stand in).
    pub moving: Option<&'a [u64]>,
    /// MinEX's report when it balanced the level.
    pub minex: Option<MinexReport>,
}

/// The record of a level balanced by PLUM (or by nothing) on `cfg`'s simulated machine.
pub(super) fn plum_record(cfg: &ShockConfig, at: PlumLevel) -> LevelRecord {
    let PlumLevel {
        graph,
        owner,
        balance,
        ..
    } = at;
    let now = loads_and_cut(graph, owner, cfg.procs);
    let imb = now.imbalance;
    let w = &graph.weights;
    let pre_cut = Cut::new(graph.xadj(), graph.adjncy(), &w.cwgt, at.start);
    let accepted = balance.is_some_and(|b| b.accepted);
    let (planned, identity) = match balance {
        Some(b) if b.accepted => (b.planned.clone(), b.identity.total_v),
        _ => (at.flows.clone(), 0),
    };
    let overhead = cfg.plum.model.overhead;
    let moving = at.moving.unwrap_or(&w.rwgt);
    let grid = cfg.machine_grid().expect("the run checked its grid");
    // On a grid each tree's elements fly `Connect` times slower between clusters.
    let over_links = grid
        .as_ref()
        .map(|g| flows_over_links(g, (at.start, owner, moving)));
    let (sim, processing) = cfg.with_costs(graph, |costs| {
        let flows = (at.flows, over_links.as_ref().unwrap_or(at.flows));
        let sim = plum_level_over(&costs, &cfg.machine, owner, cfg.procs, flows, overhead);
        (sim, processing_times(&costs, owner, cfg.procs))
    });
    let minex_model = cfg.minex_model(graph, (owner, at.start, moving));
    let model = &cfg.plum.model;
    let time_ms = at.time_ms;
    LevelRecord {
        level: at.level,
        leaves: at.leaves,
        load_imb: imb.load_imb,
        lambda_pct: imb.lambda_pct,
        lb: imb.lb,
        load_imb_before: balance.map_or(imb.load_imb, |b| b.load_imb_before),
        load_moments: now.moments,
        pre_cut_pct: pre_cut.percent(),
        cut_pct: now.cut_pct,
        total_v: at.flows.total_v,
        max_v: at.flows.max_v,
        max_sr: at.flows.max_sr,
        predicted_total_v: planned.total_v,
        predicted_max_v: planned.max_v,
        predicted_max_sr: planned.max_sr,
        identity_total_v: identity,
        comm_mb: at.moved.bytes as f64 / 1e6,
        trees_moved: at.moved.trees,
        balance_triggered: balance.is_some_and(|b| b.triggered),
        remap_accepted: accepted,
        gain_s: balance.map_or(0.0, |b| b.gain),
        cost_s: balance.map_or(0.0, |b| b.cost),
        remapper: balance
            .and_then(|b| b.remap.as_ref())
            .map_or(String::new(), |r| r.solver.to_string()),
        solver_s: now.max as f64 * model.time_per_load * model.iterations as f64,
        balance_pct: 100.0 * super::balancer_ms(&time_ms) / time_ms.values().sum::<f64>().max(1e-9),
        sim: SimRecord::new(sim.makespan, &sim.split, &processing),
        sbn: None,
        hier: at.hier,
        minex: at.minex,
        minex_model,
        measured: None,
        rank_times: Vec::new(),
        load_models: None,
        select: None,
        time_ms,
        processing_s: processing,
    }
}

/// PLUM and, when it runs them, the hierarchical partitioner or MinEX, whose reports the
/// records read.
type Built = (
    Plum,
    Option<Arc<HierPartitioner>>,
    Option<Arc<MinexPartitioner>>,
);

/// PLUM as `cfg` sets it (geometric partitioners cut the dual graph's root centroids); with
/// [`Balancer::None`] its policy never balances. Also MinEX when PLUM runs it.
pub(super) fn plum_over(cfg: &ShockConfig) -> plume::Result<(Plum, Option<Arc<MinexPartitioner>>)> {
    let (plum, _, minex) = plum_and_reporters(cfg)?;
    Ok((plum, minex))
}

/// [`plum_over`], and with [`Balancer::Hier`] the hierarchical partitioner it runs: PLUM
/// and the partitioners whose reports the records read.
fn plum_and_reporters(cfg: &ShockConfig) -> plume::Result<Built> {
    let mut opts = cfg.plum.clone();
    opts.nprocs = cfg.procs;
    opts.parts_per_proc = cfg.parts_per_proc;
    let policy = match cfg.balancer {
        Balancer::None => PolicyName::Never,
        Balancer::Plum | Balancer::Sbn | Balancer::Hier => cfg.policy,
    };
    let (mut hier_partitioner, mut minex) = (None, None);
    let (partitioner, remapper): (Box<dyn Partitioner>, Box<dyn Remapper>) = match cfg.balancer {
        // The hierarchical balancer on the simulated machine: its decisions are the parts,
        // one a processor, kept where they are.
        Balancer::Hier => {
            let hier = cfg
                .hier
                .clone()
                .unwrap_or_else(|| HierSettings::new(cfg.procs));
            let clock = Clock {
                machine: cfg.machine,
                ..Clock::default()
            };
            let t = cfg.plum.model.time_per_load;
            let hier = Arc::new(hier.simulated(cfg.procs, clock, t)?);
            hier_partitioner = Some(Arc::clone(&hier));
            (Box::new(hier), Box::new(Identity))
        }
        // MinEX on the machine's grid and in its units: its output is the processors.
        _ if cfg.partitioner == PartitionerName::Minex => {
            let m = Arc::new(MinexPartitioner::new(cfg.minex_setup()?));
            minex = Some(Arc::clone(&m));
            (Box::new(m), Box::new(Identity))
        }
        _ => (cfg.partitioner.build(cfg.seed), cfg.objective.build()),
    };
    let plum = Plum::with(
        opts,
        partitioner,
        remapper,
        policy.build(PolicySettings::default()),
    )?;
    let plum = plum.first_by(cfg.initial.build(cfg.seed));
    Ok((plum, hier_partitioner, minex))
}
