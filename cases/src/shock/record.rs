//! What a shock-wave run records per level: the metrics every balancer shares ([Harvey 2001]
//! tables 8, 9, 12), the simulated machine's time split, and SBN's own columns (tables 6, 7,
//! 10, 11), and the loads and Cut% of an assignment the records are made from
//! ([`loads_and_cut`]).

use plume::dist::{LevelTimes, ProcessedLevel, WireKind};
use plume::metrics::{Moments, TimeBalance};
use plume::sim::{sbn_level::MessageCounts, SbnLevel, TimeSplit};

use plume::graph::DualGraph;

use super::StageTimes;

/// One adaptation level's record.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LevelRecord {
    /// Level, from 1.
    pub level: usize,
    /// Leaves after the level's adaptation.
    pub leaves: usize,
    /// `max / mean` of the ranks' leaves where the level was processed.
    pub load_imb: f64,
    /// Percent imbalance `(max/mean − 1)·100`.
    pub lambda_pct: f64,
    /// `mean / max`.
    pub lb: f64,
    /// `LoadImb` before balancing (same weights).
    pub load_imb_before: f64,
    /// σ, skewness and kurtosis of the ranks' leaves where the level was processed ([Pearce 2014]
    /// eq. 2.6–2.8).
    pub load_moments: Moments,
    /// Pre-Exec Cut%: the assignment at the start of the level, before balancing, on the
    /// level's adapted weights [Harvey 2001, tables 10–12].
    pub pre_cut_pct: f64,
    /// Post-Exec Cut%: percent of the communication weight crossing ranks where the level was
    /// processed.
    pub cut_pct: f64,
    /// `TotalV`: elements of the trees that moved, as they were packed (PLUM: before
    /// subdivision by default; SBN: after it, every move of the simulated level).
    pub total_v: u64,
    /// `MaxV` of what moved.
    pub max_v: u64,
    /// `MaxSR` of what moved.
    pub max_sr: u64,
    /// `TotalV` in the sizes the balancer planned with: PLUM's remap on the weights it
    /// balanced on (predicted ones before subdivision); SBN, planning nothing ahead: `total_v`.
    pub predicted_total_v: u64,
    /// `MaxV`, same sizes.
    pub predicted_max_v: u64,
    /// `MaxSR`, same sizes.
    pub predicted_max_sr: u64,
    /// `TotalV` the identity mapping of the same parts would have moved, in the planned sizes
    /// (PLUM's baseline; 0 for SBN).
    pub identity_total_v: u64,
    /// Megabytes of serialized trees actually moved.
    pub comm_mb: f64,
    /// Trees actually moved.
    pub trees_moved: usize,
    /// PLUM: the policy asked for a repartition. SBN: a balance operation ran.
    pub balance_triggered: bool,
    /// PLUM: the remap was carried out (always false for SBN, which never remaps).
    pub remap_accepted: bool,
    /// Modelled gain of the remap, seconds (PLUM).
    pub gain_s: f64,
    /// Modelled cost of the remap, seconds (PLUM).
    pub cost_s: f64,
    /// The reassignment solver that ran (PLUM; empty when none did).
    pub remapper: String,
    /// Modelled solver time until the next adaptation (the most loaded rank's), seconds.
    pub solver_s: f64,
    /// The balancer's share of the level's wall-clock time, percent.
    pub balance_pct: f64,
    /// The level on the simulated machine.
    pub sim: SimRecord,
    /// SBN's own columns (absent for PLUM).
    #[serde(flatten)]
    pub sbn: Option<SbnRecord>,
    /// The hierarchical balancer's numbers when it balanced (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<plume::dist::HierStats>,
    /// MinEX's report when it balanced the level (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minex: Option<plume::partition::minex::MinexReport>,
    /// The level's assignment scored by MinEX's model on the run's grid and latency model
    /// (with `--grid` or `--partitioner minex`, for every balancer; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minex_model: Option<crate::minex::MinexModel>,
    /// The processing level as measured on the ranks (absent when the level was not
    /// processed on them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredRecord>,
    /// Each rank's measured times in the processing level (empty when it was not processed
    /// on ranks); printed, not written to `metrics.csv`.
    #[serde(skip)]
    pub rank_times: Vec<LevelTimes>,
    /// How well each load model predicted the ranks' measured processing times (static
    /// processing levels on two ranks or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_models: Option<super::load_models::LoadModels>,
    /// `--policy select`: the three predicted times, `convergence_steps`, the choice and its
    /// replay at this level's decision point (absent under the other policies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<crate::selection::LevelSelect>,
    /// Wall-clock milliseconds per stage.
    pub time_ms: StageTimes,
    /// Each processor's simulated processing time in the level, seconds ([Huck 2010]'s `t_{p,i}`,
    /// the level being iteration i); not written to the reports, which hold the run's
    /// decomposition instead ([`super::ShockRun::time_balance`]).
    #[serde(skip)]
    pub processing_s: Vec<f64>,
}

/// A level on the simulated machine (`plume::sim`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SimRecord {
    /// Simulated time of the level (PLUM: remap + processing), seconds.
    pub time_s: f64,
    /// Share of processor time processing leaves, percent.
    pub processing_pct: f64,
    /// Share communicating with neighbours, percent.
    pub communication_pct: f64,
    /// Share moving data and handling balancing messages, percent.
    pub distribution_pct: f64,
    /// Share idle, percent.
    pub idle_pct: f64,
    /// [Huck 2010]'s `LB = mean_p T_p / max_p T_p`, `T_p` processor p's processing time.
    pub lb: f64,
    /// [Huck 2010]'s `μLB = max_p T_p / T_ideal`: 1, the level being one iteration
    /// (`T_ideal = max_p T_p`).
    pub mu_lb: f64,
    /// [Huck 2010]'s `Transfer = T_ideal / T`, `T` the level's simulated time.
    pub transfer: f64,
    /// [Huck 2010]'s `η = LB · μLB · Transfer = mean_p T_p / T`.
    pub eta: f64,
}

impl SimRecord {
    /// The record of a level that took `time_s` split as `split`, its processors processing
    /// for `processing[p]` seconds each.
    pub fn new(time_s: f64, split: &TimeSplit, processing: &[f64]) -> SimRecord {
        let [processing_pct, communication_pct, distribution_pct, idle_pct] = split.percentages();
        let t_ideal = processing.iter().copied().fold(0.0, f64::max);
        // No time at all (no leaf processed): nothing to be lost.
        let balance = TimeBalance::from_totals(processing, t_ideal, time_s).ok();
        let read = |f: fn(&TimeBalance) -> f64| balance.as_ref().map_or(1.0, f);
        SimRecord {
            time_s,
            processing_pct,
            communication_pct,
            distribution_pct,
            idle_pct,
            lb: read(|b| b.lb),
            mu_lb: read(|b| b.mu_lb),
            transfer: read(|b| b.transfer),
            eta: read(|b| b.eta),
        }
    }
}

/// SBN's columns of a level.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SbnRecord {
    /// `max_p QWgt(p) / WSysLL` where the roots were processed [Harvey 2001, §5.3.1].
    pub qwgt_load_imb: f64,
    /// Roots reassigned by distribution messages.
    pub roots_transferred: u64,
    /// Roots whose data moved.
    pub data_moves: u64,
    /// Balance operations started.
    pub balances: u64,
    /// Messages by kind.
    pub messages: Traffic,
    /// Bytes by kind.
    pub message_bytes: Traffic,
}

/// A count per message kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Traffic {
    /// Balancing messages.
    pub balance: u64,
    /// Distribution messages.
    pub distribution: u64,
    /// Migration messages.
    pub migration: u64,
    /// Locate messages.
    pub locate: u64,
}

impl SbnRecord {
    /// The SBN columns of a level processed on the ranks; `qwgt_load_imb` is computed by the
    /// caller.
    pub fn measured(level: &ProcessedLevel, qwgt_load_imb: f64) -> SbnRecord {
        let sum = |f: fn(&plume::dist::RankLevel) -> u64| level.ranks.iter().map(f).sum();
        let by = |f: fn(plume::dist::Traffic) -> u64| Traffic {
            balance: f(level.traffic(WireKind::Balance)),
            distribution: f(level.traffic(WireKind::Distribution)),
            migration: f(level.traffic(WireKind::Migration)),
            locate: f(level.traffic(WireKind::Locate)),
        };
        SbnRecord {
            qwgt_load_imb,
            roots_transferred: sum(|r| r.roots_transferred),
            data_moves: sum(|r| r.data_moves),
            balances: sum(|r| r.balances),
            messages: by(|t| t.messages),
            message_bytes: by(|t| t.bytes),
        }
    }

    /// The SBN columns of a simulated level; `qwgt_load_imb` is computed by the caller.
    pub fn new(level: &SbnLevel, qwgt_load_imb: f64) -> SbnRecord {
        let m: &MessageCounts = &level.messages;
        SbnRecord {
            qwgt_load_imb,
            roots_transferred: level.roots_transferred,
            data_moves: level.data_moves,
            balances: level.balances,
            messages: Traffic {
                balance: m.balance.messages,
                distribution: m.distribution.messages,
                migration: m.migration.messages,
                locate: m.locate.messages,
            },
            message_bytes: Traffic {
                balance: m.balance.bytes,
                distribution: m.distribution.bytes,
                migration: m.migration.bytes,
                locate: m.locate.bytes,
            },
        }
    }
}

/// A processing level measured on the ranks (`plume::dist::Run::process`): wall-clock
/// seconds summed over the ranks by activity, the work actually processed and the messages by
/// kind.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MeasuredRecord {
    /// The level's wall-clock time (the slowest rank's), seconds.
    pub wall_s: f64,
    /// Running the kernel, seconds over all ranks.
    pub processing_s: f64,
    /// Sending the cut faces' messages.
    pub communication_s: f64,
    /// Lazy data moves (asking, waiting, packing, unpacking).
    pub migration_s: f64,
    /// Handling SBN's messages and thresholds.
    pub balancing_s: f64,
    /// Waiting with nothing to do, for the other ranks at the end, and the termination.
    pub idle_s: f64,
    /// `max / mean` of the leaves each rank processed.
    pub work_load_imb: f64,
    /// The kernel's measured seconds per leaf (on rank 0, before the run).
    pub kernel_s_per_leaf: f64,
    /// Messages of the cut faces.
    pub face_messages: u64,
    /// Bytes of the cut faces' messages.
    pub face_bytes: u64,
    /// The simulated machine's time for the same level (the same weights, starting owners,
    /// kernel and SBN seed; `config.machine`'s constants), seconds.
    pub predicted_s: f64,
    /// The prediction's error: `100 · (predicted_s − wall_s) / wall_s` (0 for a level of no
    /// time).
    pub error_pct: f64,
}

impl MeasuredRecord {
    /// The record of `level`, with the kernel's measured `s_per_leaf` and the simulated
    /// machine's `predicted_s`.
    pub fn new(level: &ProcessedLevel, s_per_leaf: f64, predicted_s: f64) -> Self {
        let sum = |f: fn(&LevelTimes) -> f64| level.ranks.iter().map(|r| f(&r.times)).sum();
        let faces = level.traffic(WireKind::Faces);
        MeasuredRecord {
            wall_s: level.wall(),
            processing_s: sum(|t| t.processing),
            communication_s: sum(|t| t.communication),
            migration_s: sum(|t| t.migration),
            balancing_s: sum(|t| t.balancing),
            idle_s: sum(|t| t.idle),
            work_load_imb: level.load_imb(),
            kernel_s_per_leaf: s_per_leaf,
            face_messages: faces.messages,
            face_bytes: faces.bytes,
            predicted_s,
            error_pct: error_pct(predicted_s, level.wall()),
        }
    }

    /// Percent of the ranks' summed time spent as `part` says.
    pub fn pct(&self, part: f64) -> f64 {
        let total = self.processing_s
            + self.communication_s
            + self.migration_s
            + self.balancing_s
            + self.idle_s;
        if total > 0.0 {
            100.0 * part / total
        } else {
            0.0
        }
    }
}

/// The error of `predicted` seconds against `measured` ones, in percent of `measured` (0 when
/// `measured` is not positive).
pub fn error_pct(predicted: f64, measured: f64) -> f64 {
    if measured > 0.0 {
        100.0 * (predicted - measured) / measured
    } else {
        0.0
    }
}

/// The loads of the assignment `owner` on the current weights: their imbalance, moments and
/// largest value, and the assignment's Cut%.
pub(crate) fn loads_and_cut(graph: &DualGraph, owner: &[u32], procs: usize) -> LevelLoads {
    let w = &graph.weights;
    let loads = plume::metrics::rank_loads(&w.pwgt, owner, procs);
    let cut = plume::metrics::Cut::new(graph.xadj(), graph.adjncy(), &w.cwgt, owner);
    LevelLoads {
        imbalance: plume::metrics::Imbalance::from_u64(&loads),
        moments: plume::metrics::Moments::from_u64(&loads),
        max: loads.iter().copied().max().unwrap_or(0),
        cut_pct: cut.percent(),
    }
}

/// What [`loads_and_cut`] finds.
pub(crate) struct LevelLoads {
    /// LoadImb, λ and LB of the ranks' leaves.
    pub imbalance: plume::metrics::Imbalance,
    /// Their σ, skewness and kurtosis.
    pub moments: plume::metrics::Moments,
    /// The largest.
    pub max: u64,
    /// Cut% of the assignment.
    pub cut_pct: f64,
}

#[cfg(test)]
mod tests {
    use super::error_pct;

    #[test]
    fn the_error_is_signed_and_relative_to_the_measured_time() {
        assert!((error_pct(1.2, 1.0) - 20.0).abs() < 1e-12);
        assert!((error_pct(0.5, 2.0) + 75.0).abs() < 1e-12);
        assert_eq!(error_pct(3.0, 0.0), 0.0);
    }
}
