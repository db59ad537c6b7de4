//! The records of a level processed on the ranks (`plume::dist::Run::process`): SBN's, built
//! like the simulated track's from what the ranks measured and moved, and the measured part
//! any balancer's record gets.

use plume::comm::Comm;
use plume::dist::{ProcessedLevel, Run, StepReport};
use plume::metrics::SysLoad;

use super::record::loads_and_cut;
use super::stage::adaptation_times_ms;
use super::{LevelRecord, MeasuredRecord, SbnRecord, ShockConfig, SimRecord, Stage};

/// A processing level as measured: what the ranks did, the kernel's seconds per leaf, and the
/// simulated machine's predicted time for the same level (seconds).
pub(super) type Measured<'a> = (&'a ProcessedLevel, f64, f64);

/// Adds the measured processing level to `record`.
pub(super) fn with_measured(
    mut record: LevelRecord,
    (processed, s_per_leaf, predicted_s): Measured,
) -> LevelRecord {
    record.measured = Some(MeasuredRecord::new(processed, s_per_leaf, predicted_s));
    record.rank_times = processed.ranks.iter().map(|r| r.times).collect();
    record
}

/// Rank 0's record of an SBN level on the ranks: the step `report`, then the processing level
/// (`processed`, with the kernel's cost and the predicted time) that started from the owners
/// `start` (where the data was) and left the roots
/// on `run`'s owners (where they were processed). The simulated machine's figures are the
/// measured ones: the level's wall-clock time and its split summed over the ranks.
pub(super) fn sbn_record<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &Run<C>,
    report: &StepReport,
    start: &[u32],
    (processed, s_per_leaf, predicted_s): Measured,
) -> LevelRecord {
    let graph = run.graph().expect("rank 0 keeps the dual graph");
    let owner = run
        .gathered_owner()
        .expect("a processing level holds every owner");
    let before = loads_and_cut(graph, start, cfg.procs);
    let now = loads_and_cut(graph, owner, cfg.procs);
    let qwgt = cfg.with_costs(graph, |model| model.qwgt(owner, owner, cfg.procs));
    let minex_model = cfg.minex_model(graph, (owner, start, &graph.weights.rwgt));
    let qwgt_load_imb = SysLoad::new(&qwgt).load_imb(&qwgt);
    let movement = processed.movement();
    let measured = MeasuredRecord::new(processed, s_per_leaf, predicted_s);
    let rank0 = &processed.ranks[0].times;
    let mut time_ms = adaptation_times_ms(&report.times);
    time_ms.extend([
        (Stage::Balancing, rank0.balancing * 1e3),
        (Stage::Migration, rank0.migration * 1e3),
    ]);
    let split = plume::sim::TimeSplit {
        processing: measured.processing_s,
        communication: measured.communication_s,
        distribution: measured.migration_s + measured.balancing_s,
        idle: measured.idle_s,
    };
    let processing: Vec<f64> = processed.ranks.iter().map(|r| r.times.processing).collect();
    let solver = &cfg.plum.model;
    let migration_bytes = processed.traffic(plume::dist::WireKind::Migration).bytes;
    let data_moves = processed.ranks.iter().map(|r| r.data_moves).sum::<u64>();
    let balances = processed.ranks.iter().map(|r| r.balances).sum::<u64>();
    LevelRecord {
        level: report.metrics.level,
        leaves: report.metrics.leaves as usize,
        load_imb: now.imbalance.load_imb,
        lambda_pct: now.imbalance.lambda_pct,
        lb: now.imbalance.lb,
        load_imb_before: before.imbalance.load_imb,
        load_moments: now.moments,
        pre_cut_pct: before.cut_pct,
        cut_pct: now.cut_pct,
        total_v: movement.total_v,
        max_v: movement.max_v,
        max_sr: movement.max_sr,
        predicted_total_v: movement.total_v,
        predicted_max_v: movement.max_v,
        predicted_max_sr: movement.max_sr,
        identity_total_v: 0,
        comm_mb: migration_bytes as f64 / 1e6,
        trees_moved: data_moves as usize,
        balance_triggered: balances > 0,
        remap_accepted: false,
        gain_s: 0.0,
        cost_s: 0.0,
        remapper: String::new(),
        solver_s: now.max as f64 * solver.time_per_load * solver.iterations as f64,
        balance_pct: 100.0 * super::balancer_ms(&time_ms) / time_ms.values().sum::<f64>().max(1e-9),
        sim: SimRecord::new(measured.wall_s, &split, &processing),
        sbn: Some(SbnRecord::measured(processed, qwgt_load_imb)),
        hier: None,
        minex: None,
        minex_model,
        measured: Some(measured),
        rank_times: processed.ranks.iter().map(|r| r.times).collect(),
        load_models: None,
        select: None,
        time_ms,
        processing_s: processing,
    }
}
