//! The PLUM track (and the no-balancing baseline): balance before subdivision on predicted
//! weights (or after it), migrate the trees, then process the level with the static
//! assignment on the simulated machine.

use plume::adapt::Forest;
use plume::balance::{migrate_counted, Balance, Migration, Plum};
use plume::graph::{DualGraph, Weights};
use plume::mesh::geometry;
use plume::metrics::{Cut, Movement};
use plume::sim::{plum_level, processing_times};
use plume::Result;

use crate::cli::names::PolicySettings;

use super::{
    loads_and_cut, BalanceAt, Balancer, LevelRecord, ShockConfig, SimRecord, Stage, StageTimes,
    Track,
};

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
}

impl PlumTrack {
    /// The track of `cfg`, starting from the partitioner's initial partition.
    pub(super) fn new(cfg: &ShockConfig, forest: &Forest, graph: &DualGraph) -> Result<Self> {
        let plum = make_plum(cfg, forest)?;
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
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let stages = ms(b.times.partition) + ms(b.times.similarity) + ms(b.times.reassign);
        let total = ms(clock.elapsed());
        self.times.insert(Stage::Partition, ms(b.times.partition));
        self.times.insert(Stage::Similarity, ms(b.times.similarity));
        self.times.insert(Stage::Reassignment, ms(b.times.reassign));
        self.times
            .insert(Stage::Migration, (total - stages).max(0.0));
        self.balance = Some(b);
        Ok(())
    }

    fn balances(&self, at: BalanceAt) -> bool {
        self.cfg.balancer == Balancer::Plum && self.cfg.balance_at == at
    }
}

impl Track for PlumTrack {
    fn owner(&self) -> &[u32] {
        &self.owner
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
        if self.balances(BalanceAt::BeforeSubdivision) {
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
        let cfg = &self.cfg;
        let balance = self.balance.as_ref();
        let now = loads_and_cut(graph, &self.owner, cfg.procs);
        let imb = now.imbalance;
        let w = &graph.weights;
        let pre_cut = Cut::new(graph.xadj(), graph.adjncy(), &w.cwgt, &self.start);
        let accepted = balance.is_some_and(|b| b.accepted);
        let (planned, identity) = match balance {
            Some(b) if b.accepted => (b.planned.clone(), b.identity.total_v),
            _ => (self.flows.clone(), 0),
        };
        let overhead = cfg.plum.model.overhead;
        let costs = cfg.machine.cost_model(graph);
        let sim = plum_level(
            &costs,
            &cfg.machine,
            &self.owner,
            cfg.procs,
            &self.flows,
            overhead,
        );
        let processing = processing_times(&costs, &self.owner, cfg.procs);
        let mut time_ms = adapt_ms.clone();
        time_ms.extend(&self.times);
        let model = &cfg.plum.model;
        Ok(LevelRecord {
            level,
            leaves: forest.nleaves(),
            load_imb: imb.load_imb,
            lambda_pct: imb.lambda_pct,
            lb: imb.lb,
            load_imb_before: balance.map_or(imb.load_imb, |b| b.load_imb_before),
            load_moments: now.moments,
            pre_cut_pct: pre_cut.percent(),
            cut_pct: now.cut_pct,
            total_v: self.flows.total_v,
            max_v: self.flows.max_v,
            max_sr: self.flows.max_sr,
            predicted_total_v: planned.total_v,
            predicted_max_v: planned.max_v,
            predicted_max_sr: planned.max_sr,
            identity_total_v: identity,
            comm_mb: self.moved.bytes as f64 / 1e6,
            trees_moved: self.moved.trees,
            balance_triggered: balance.is_some_and(|b| b.triggered),
            remap_accepted: accepted,
            gain_s: balance.map_or(0.0, |b| b.gain),
            cost_s: balance.map_or(0.0, |b| b.cost),
            remapper: balance
                .and_then(|b| b.remap.as_ref())
                .map_or(String::new(), |r| r.solver.to_string()),
            solver_s: now.max as f64 * model.time_per_load * model.iterations as f64,
            balance_pct: 100.0 * super::balancer_ms(&time_ms)
                / time_ms.values().sum::<f64>().max(1e-9),
            sim: SimRecord::new(sim.makespan, &sim.split, &processing),
            sbn: None,
            time_ms,
            processing_s: processing,
        })
    }
}

fn make_plum(cfg: &ShockConfig, forest: &Forest) -> Result<Plum> {
    let centroids: Vec<[f64; 3]> = (0..forest.nroots())
        .map(|e| geometry::centroid(&forest.mesh().corners(e)))
        .collect();
    let mut opts = cfg.plum.clone();
    opts.nprocs = cfg.procs;
    opts.parts_per_proc = cfg.parts_per_proc;
    Plum::with(
        opts,
        cfg.partitioner.build(cfg.seed, &centroids),
        cfg.objective.build(),
        cfg.policy.build(PolicySettings::default()),
    )
}
