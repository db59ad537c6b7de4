//! One P's averages of PLUM and SBN ([`Row`]) and of the hierarchical balancer ([`HierRow`]),
//! read from the runs' summaries, as the tables and charts show them.

use serde_json::{Map, Value};

use super::hier::summed_t;
use super::{Comparison, HierRun};
use plume_cases::shock::{ShockRun, Stage};
use plume_cases::words::Words;

impl Comparison {
    /// One row per P, in the order run.
    pub(super) fn rows(&self) -> Vec<Row> {
        self.procs
            .iter()
            .zip(self.plum.iter().zip(&self.sbn))
            .map(|(&procs, (plum, sbn))| Row::new(procs, plum, sbn))
            .collect()
    }

    /// One row per P the hierarchical balancer ran at (P of at least 2), in the order run.
    pub(super) fn hier_rows(&self) -> Vec<HierRow> {
        self.procs
            .iter()
            .zip(self.plum.iter().zip(&self.hier))
            .filter_map(|(&procs, (plum, hier))| {
                hier.as_ref().map(|h| HierRow::new(procs, plum, h))
            })
            .collect()
    }
}

/// One P's numbers of the hierarchical balancer, beside PLUM's where compared.
pub(super) struct HierRow {
    pub(super) procs: usize,
    pub(super) tree: String,
    pub(super) strategy: &'static str,
    /// Summed simulated T, (PLUM, hier).
    pub(super) t_s: (f64, f64),
    pub(super) load_imb: f64,
    /// Cut%, (PLUM, hier).
    pub(super) cut_pct: (f64, f64),
    pub(super) total_v: f64,
    pub(super) max_sr: f64,
    pub(super) comm_mb: f64,
    pub(super) largest_db_bytes: Option<u64>,
    pub(super) db_ratio: Option<f64>,
}

impl HierRow {
    fn new(procs: usize, plum: &ShockRun, hier: &HierRun) -> HierRow {
        let (p, h) = (summary(plum), summary(&hier.run));
        let settings = hier.settings();
        HierRow {
            procs,
            tree: settings.tree.to_string(),
            strategy: settings.strategy.word(),
            t_s: (summed_t(plum), summed_t(&hier.run)),
            load_imb: field(&h, "load_imb"),
            cut_pct: (field(&p, "cut_pct"), field(&h, "cut_pct")),
            total_v: field(&h, "total_v"),
            max_sr: field(&h, "max_sr"),
            comm_mb: field(&h, "comm_mb"),
            largest_db_bytes: hier.databases.largest_bytes(),
            db_ratio: hier.db_ratio,
        }
    }
}

/// One P's averages, (PLUM, SBN) where both have them.
pub(super) struct Row {
    pub(super) procs: usize,
    pub(super) load_imb: (f64, f64),
    pub(super) qwgt_load_imb: f64,
    pub(super) plum_pre_cut_pct: f64,
    pub(super) cut_pct: (f64, f64),
    pub(super) total_v: (f64, f64),
    pub(super) max_sr: (f64, f64),
    pub(super) plum_predicted_max_sr: f64,
    pub(super) lb: (f64, f64),
    pub(super) mu_lb: (f64, f64),
    pub(super) transfer: (f64, f64),
    pub(super) eta: (f64, f64),
    pub(super) comm_mb: (f64, f64),
    pub(super) sim_s: (f64, f64),
    pub(super) idle_pct: (f64, f64),
    pub(super) plum_partition_ms: f64,
    pub(super) plum_remap_pct: f64,
    pub(super) sbn_balancer_ms: f64,
    pub(super) sbn_selection_pct: f64,
    pub(super) sbn_distribution_pct: f64,
}

impl Row {
    fn new(procs: usize, plum: &ShockRun, sbn: &ShockRun) -> Row {
        let (p, s) = (summary(plum), summary(sbn));
        let both = |path: &str| (field(&p, path), field(&s, path));
        let ms = |summary: &Map<String, Value>, stage: Stage| {
            field(summary, &format!("time_ms.{}", stage.name()))
        };
        let plum_partition_ms = [Stage::Partition, Stage::Similarity, Stage::Reassignment]
            .into_iter()
            .map(|stage| ms(&p, stage))
            .sum();
        let sbn_selection = ms(&s, Stage::VertexSelection);
        let sbn_balancer_ms = ms(&s, Stage::Balancing) + sbn_selection + ms(&s, Stage::Migration);
        Row {
            procs,
            load_imb: both("load_imb"),
            qwgt_load_imb: field(&s, "qwgt_load_imb"),
            plum_pre_cut_pct: field(&p, "pre_cut_pct"),
            cut_pct: both("cut_pct"),
            total_v: both("total_v"),
            max_sr: both("max_sr"),
            plum_predicted_max_sr: field(&p, "predicted_max_sr"),
            lb: both("time_balance.lb"),
            mu_lb: both("time_balance.mu_lb"),
            transfer: both("time_balance.transfer"),
            eta: both("time_balance.eta"),
            comm_mb: both("comm_mb"),
            sim_s: both("sim.time_s"),
            idle_pct: both("sim.idle_pct"),
            plum_partition_ms,
            plum_remap_pct: remap_pct(plum),
            sbn_balancer_ms,
            sbn_selection_pct: 100.0 * sbn_selection / sbn_balancer_ms.max(1e-12),
            sbn_distribution_pct: field(&s, "sim.distribution_pct"),
        }
    }
}

/// The number at `outer` or `outer.inner` in a summary (0 when absent).
fn field(summary: &Map<String, Value>, path: &str) -> f64 {
    let (outer, inner) = match path.split_once('.') {
        Some((o, i)) => (o, Some(i)),
        None => (path, None),
    };
    let v = summary.get(outer);
    let v = match inner {
        Some(i) => v.and_then(|x| x.get(i)),
        None => v,
    };
    v.and_then(Value::as_f64).unwrap_or(0.0)
}

/// A run's averages over its levels.
pub(super) fn summary(run: &ShockRun) -> Map<String, Value> {
    run.report().summary
}

/// PLUM's remap share of the simulated time, over all levels.
fn remap_pct(run: &ShockRun) -> f64 {
    let total: f64 = run.levels.iter().map(|l| l.sim.time_s).sum();
    let remap: f64 = run
        .levels
        .iter()
        .map(|l| l.sim.time_s * l.sim.distribution_pct / 100.0)
        .sum();
    100.0 * remap / total.max(1e-12)
}
