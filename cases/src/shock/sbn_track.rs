//! The SBN track: every level is processed on the simulated machine with processors
//! balancing among themselves while they work, starting from where each root was processed
//! the level before; the trees whose processor changed then really move (serialized packets),
//! as they would have, lazily, during the level.

use crate::error::Result;
use plume::adapt::Forest;
use plume::balance::migrate;
use plume::balance::sbn::prepartition::prepartition;
use plume::balance::sbn::Shared;
use plume::graph::{DualGraph, Weights};
use plume::metrics::{GridSlowdowns, SysLoad};
use plume::sim::{processing_times, sbn_level};

use super::record::loads_and_cut;
use super::track::Track;
use super::{LevelRecord, SbnRecord, ShockConfig, SimRecord, Stage, StageTimes};

/// SBN on its assignment.
pub(super) struct SbnTrack {
    cfg: ShockConfig,
    owner: Vec<u32>,
}

impl SbnTrack {
    /// The track of `cfg`, starting from `owner` (the initial partition).
    pub(super) fn new(cfg: &ShockConfig, owner: Vec<u32>) -> Self {
        SbnTrack {
            cfg: cfg.clone(),
            owner,
        }
    }
}

impl Track for SbnTrack {
    fn owner(&self) -> &[u32] {
        &self.owner
    }

    fn before_subdivision(&mut self, _: &Forest, _: &DualGraph, _: &Weights) -> Result<()> {
        Ok(())
    }

    fn after_subdivision(
        &mut self,
        level: usize,
        forest: &Forest,
        graph: &DualGraph,
        adapt_ms: &StageTimes,
    ) -> Result<LevelRecord> {
        let cfg = &self.cfg;
        let grid = cfg.machine_grid()?;
        let held = grid.as_ref().map(GridSlowdowns::new);
        let mut model = cfg.machine.cost_model(graph);
        if let Some(held) = &held {
            model = model.with_slowdowns(held.slowdowns());
        }
        let clock = std::time::Instant::now();
        let opts = plume::balance::SbnOptions {
            seed: cfg.sbn.seed ^ level as u64,
            ..cfg.sbn
        };
        let data = self.owner.clone();
        if opts.prepartition {
            prepartition(&model, &data, &mut self.owner, cfg.procs, opts.seed);
        }
        let shared = Shared::new(model, cfg.procs, opts);
        let sim = sbn_level(&shared, &cfg.machine, &self.owner, &data)?;
        let simulation_ms = clock.elapsed().as_secs_f64() * 1e3;
        let before = loads_and_cut(graph, &data, cfg.procs).imbalance;
        self.owner.clone_from(&sim.processed_on);
        let qwgt = model.qwgt(&self.owner, &data, cfg.procs);
        let processing = processing_times(&model, &self.owner, cfg.procs);
        let qwgt_load_imb = SysLoad::new(&qwgt).load_imb(&qwgt);
        let clock = std::time::Instant::now();
        let rwgt = &graph.weights.rwgt;
        let minex_model = cfg.minex_model(graph, (&self.owner, &data, rwgt));
        let mut owner = data;
        let moved = migrate(forest, &mut owner, &self.owner);
        let migration_ms = clock.elapsed().as_secs_f64() * 1e3;
        let now = loads_and_cut(graph, &self.owner, cfg.procs);
        let imb = now.imbalance;
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let mut time_ms = adapt_ms.clone();
        let balancer = ms(sim.cpu.balancing) + ms(sim.cpu.selection) + ms(sim.cpu.migration);
        time_ms.insert(Stage::Balancing, ms(sim.cpu.balancing));
        time_ms.insert(Stage::VertexSelection, ms(sim.cpu.selection));
        time_ms.insert(Stage::Migration, ms(sim.cpu.migration) + migration_ms);
        time_ms.insert(Stage::Simulation, (simulation_ms - balancer).max(0.0));
        let solver = &cfg.plum.model;
        Ok(LevelRecord {
            level,
            leaves: forest.nleaves(),
            load_imb: imb.load_imb,
            lambda_pct: imb.lambda_pct,
            lb: imb.lb,
            load_imb_before: before.load_imb,
            load_moments: now.moments,
            pre_cut_pct: sim.pre_cut_pct,
            cut_pct: now.cut_pct,
            // What the simulated execution moved (a tree moved twice counts twice); SBN plans
            // nothing ahead, so its predicted figures are the same.
            total_v: sim.movement.total_v,
            max_v: sim.movement.max_v,
            max_sr: sim.movement.max_sr,
            predicted_total_v: sim.movement.total_v,
            predicted_max_v: sim.movement.max_v,
            predicted_max_sr: sim.movement.max_sr,
            identity_total_v: 0,
            comm_mb: moved.bytes as f64 / 1e6,
            trees_moved: moved.trees,
            balance_triggered: sim.balances > 0,
            remap_accepted: false,
            gain_s: 0.0,
            cost_s: 0.0,
            remapper: String::new(),
            solver_s: now.max as f64 * solver.time_per_load * solver.iterations as f64,
            balance_pct: 100.0 * super::balancer_ms(&time_ms)
                / time_ms.values().sum::<f64>().max(1e-9),
            sim: SimRecord::new(sim.makespan, &sim.split, &processing),
            sbn: Some(SbnRecord::new(&sim, qwgt_load_imb)),
            hier: None,
            minex: None,
            minex_model,
            measured: None,
            rank_times: Vec::new(),
            load_models: None,
            select: None,
            time_ms,
            processing_s: processing,
        })
    }
}
