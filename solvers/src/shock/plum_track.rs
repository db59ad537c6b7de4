//! The PLUM track (and the no-balancing baseline): balance before subdivision on predicted
//! weights (or after it), migrate the trees, then process the level with the static
//! assignment on the simulated machine.

use plume::adapt::Forest;
use plume::balance::{migrate, Balance, Migration, Plum};
use plume::graph::{DualGraph, Weights};
use plume::mesh::geometry;
use plume::metrics::Movement;
use plume::sim::plum_level;
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
    moved: Migration,
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
            owner,
            balance: None,
            moved: Migration::default(),
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
        let b = self.plum.balance(&graph.view(weights)?, &self.owner)?;
        if let Some(new_owner) = &b.new_owner {
            self.moved = migrate(forest, &mut self.owner, new_owner);
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
        self.moved = Migration::default();
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
        let (imb, max_load, cut_pct) = loads_and_cut(graph, &self.owner, cfg.procs);
        let accepted = balance.is_some_and(|b| b.accepted);
        let none = Movement::new(&self.owner, &self.owner, &graph.weights.rwgt, cfg.procs);
        let (movement, identity) = match balance {
            Some(b) if b.accepted => (b.movement.clone(), b.identity.total_v),
            _ => (none, 0),
        };
        let overhead = cfg.plum.model.overhead;
        let sim = plum_level(
            &cfg.machine.cost_model(graph),
            &cfg.machine,
            &self.owner,
            cfg.procs,
            &movement,
            overhead,
        );
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
            cut_pct,
            total_v: movement.total_v,
            max_v: movement.max_v,
            max_sr: movement.max_sr,
            identity_total_v: identity,
            comm_mb: self.moved.bytes as f64 / 1e6,
            trees_moved: self.moved.trees,
            elements_moved: self.moved.elements,
            balance_triggered: balance.is_some_and(|b| b.triggered),
            remap_accepted: accepted,
            gain_s: balance.map_or(0.0, |b| b.gain),
            cost_s: balance.map_or(0.0, |b| b.cost),
            remapper: balance
                .and_then(|b| b.remap.as_ref())
                .map_or(String::new(), |r| r.solver.to_string()),
            solver_s: max_load as f64 * model.time_per_load * model.iterations as f64,
            balance_pct: 100.0 * super::balancer_ms(&time_ms)
                / time_ms.values().sum::<f64>().max(1e-9),
            sim: SimRecord::new(sim.makespan, &sim.split),
            sbn: None,
            time_ms,
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
