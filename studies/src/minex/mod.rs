//! [Harvey 2001]'s MinEX experiments on plume's shock sequence (`docs/design/minex.md`): the 9
//! levels' weights are recorded once ([`plume_cases::shock::Sequence`]) and every
//! configuration replays them, each level starting from that configuration's own previous
//! assignment (the first from the initial METIS partition): MinEX on a grid of clusters with
//! a latency model and a ThroTTle, PLUM (METIS k-way on the predicted weights, optimal TotalV
//! remap, accepted always), METIS with identity mapping, a cluster-aware METIS (parts sized
//! by the clusters first, then each cluster's part into its processors) and no
//! repartitioning. Every assignment is scored with MinEX's model ([`plume::partition::score`],
//! seed units) and timed on the simulated machine with the grid's slowdowns.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | [`MinexConfig`], [`run`], the rows of the study |
//! | `replay.rs` | the methods' sequences of assignments and their scores per level |
//! | `checks.rs` | A.8's R1–R6 and A.11's figures, evaluated on the rows |
//! | `memory.rs` | the study's peak memory estimate |
//! | `published.rs` | [Harvey 2001]'s tables 14–22 |
//! | `report.rs` | `minex.md`, `minex.json` and the charts |

pub mod checks;
pub mod memory;
pub mod published;
pub mod replay;
pub mod report;

use std::time::Instant;

use plume::partition::minex::ThrottleJson;
use plume::partition::{Grid, Latency, MinexOptions};
use plume::sim::Machine;
use plume_cases::provenance::Provenance;
use plume_cases::shock::Sequence;
use serde::{Serialize, Serializer};

pub use checks::Check;
pub use replay::{LevelScore, Method, Replayed, Steps, Total};

/// The latency tolerance of a row (`docs/design/minex.md`), by its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tolerance {
    /// No tolerance: every cost adds up.
    None,
    /// Maximum tolerance: transmission hides under processing.
    Max,
}

impl Tolerance {
    /// The word on the command line and in the tables.
    pub fn word(self) -> &'static str {
        match self {
            Tolerance::None => "none",
            Tolerance::Max => "max",
        }
    }

    /// Its name in a sentence: `no` or `maximum` (tolerance).
    pub fn label(self) -> &'static str {
        match self {
            Tolerance::None => "no",
            Tolerance::Max => "maximum",
        }
    }

    /// The tolerance a word names.
    ///
    /// # Errors
    /// A word that is neither `none` nor `max`.
    pub fn parse(word: &str) -> Result<Tolerance, String> {
        match word {
            "none" => Ok(Tolerance::None),
            "max" => Ok(Tolerance::Max),
            other => Err(format!("--latency {other}: expected none or max")),
        }
    }

    /// MinEX's latency model.
    pub fn latency(self) -> Latency {
        match self {
            Tolerance::None => Latency::None,
            Tolerance::Max => Latency::Max,
        }
    }
}

/// Writes a ThroTTle ([`ThrottleJson`]: `"inf"` for ∞), `null` when absent.
fn throttle_json<S: Serializer>(t: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    t.map(ThrottleJson).serialize(s)
}

/// Writes a list of ThroTTles ([`ThrottleJson`]).
fn throttles_json<S: Serializer>(ts: &[f64], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ts.iter().map(|&t| ThrottleJson(t)))
}

/// What `plume study minex` runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinexConfig {
    /// Processors of tables 14–15 and 17–22.
    pub procs: usize,
    /// Numbers of clusters (tables 14–15, 17–22).
    pub clusters: Vec<usize>,
    /// Interconnect slowdowns between clusters (tables 17–22; tables 14–15 use 3, or the
    /// first when 3 is not listed).
    pub interconnect: Vec<u32>,
    /// ThroTTle values of tables 14–15 (`inf`: ∞).
    #[serde(serialize_with = "throttles_json")]
    pub throttle: Vec<f64>,
    /// ThroTTle of every other MinEX row.
    #[serde(serialize_with = "throttle_json")]
    pub default_throttle: Option<f64>,
    /// Latency tolerances.
    pub latency: Vec<Tolerance>,
    /// Processors of table 16 (one cluster).
    pub scale_procs: Vec<usize>,
    /// Contraction targets swept at `procs` on one cluster, as multiples of P (`None`: no
    /// contraction; A.6-6); empty: no sweep.
    pub coarsen_to: Vec<Option<usize>>,
    /// METIS's seed (the initial partition, PLUM's and the baselines' partitions).
    pub seed: u64,
    /// The SP2 machine T is simulated on.
    pub sp2: Machine,
    /// The measured-like machine: the SP2's with `t_leaf` 20 times smaller (`docs/design/minex.md`:
    /// this machine's measured leaf cost), deterministic unlike a calibration.
    pub measured: Machine,
}

impl MinexConfig {
    /// [Harvey 2001]'s study: P = 32, clusters 1–8, I ∈ {3, 10, 100, 1,000, 10,000}, τ ∈ {0, 3,
    /// 16, 32, 64, 128, ∞}, both tolerances, table 16's P = 2 … 1,024, no contraction sweep.
    pub fn seed_study() -> MinexConfig {
        let sp2 = Machine::default();
        MinexConfig {
            procs: 32,
            clusters: (1..=8).collect(),
            interconnect: vec![3, 10, 100, 1_000, 10_000],
            throttle: vec![0.0, 3.0, 16.0, 32.0, 64.0, 128.0, f64::INFINITY],
            default_throttle: Some(64.0),
            latency: vec![Tolerance::None, Tolerance::Max],
            scale_procs: (1..=10).map(|k| 1 << k).collect(),
            coarsen_to: Vec::new(),
            seed: 1,
            sp2,
            measured: Machine {
                t_leaf: sp2.t_leaf / 20.0,
                ..sp2
            },
        }
    }

    /// The ThroTTle of rows outside tables 14–15.
    pub fn tau(&self) -> f64 {
        self.default_throttle.unwrap_or(f64::INFINITY)
    }

    /// The interconnect slowdown of tables 14–15.
    pub fn throttle_interconnect(&self) -> u32 {
        if self.interconnect.contains(&3) {
            3
        } else {
            self.interconnect[0]
        }
    }

    /// The tolerance of tables 14–15 (maximum, as [Harvey 2001]'s τ = ∞ column equals its table
    /// 16's maximum-tolerance value), or the only one listed.
    pub fn throttle_latency(&self) -> Tolerance {
        if self.latency.contains(&Tolerance::Max) {
            Tolerance::Max
        } else {
            self.latency[0]
        }
    }

    /// Checks the settings against a sequence of `roots` roots; the message names the option.
    ///
    /// # Errors
    /// No cluster, interconnect, latency or processors; more clusters than processors; a
    /// slowdown below 1; a ThroTTle below 0 or NaN; more processors than roots.
    pub fn check(&self, roots: usize) -> Result<(), String> {
        if self.clusters.is_empty() || self.interconnect.is_empty() || self.latency.is_empty() {
            return Err("--clusters, --interconnect and --latency must each list a value".into());
        }
        if self.throttle.is_empty() {
            return Err("--throttle must list at least one value".into());
        }
        let procs = std::iter::once(("--procs", self.procs));
        for (option, p) in procs.chain(self.scale_procs.iter().map(|&p| ("--scale-procs", p))) {
            if p < 1 || p > roots {
                return Err(format!(
                    "{option} {p}: needs 1 to {roots} processors (the roots)"
                ));
            }
        }
        for &c in &self.clusters {
            if c < 1 || c > self.procs {
                return Err(format!(
                    "--clusters {c}: needs 1 to {} clusters (--procs {})",
                    self.procs, self.procs
                ));
            }
        }
        if let Some(i) = self.interconnect.iter().find(|&&i| i < 1) {
            return Err(format!("--interconnect {i}: a slowdown is at least 1"));
        }
        if let Some(t) = self.throttle.iter().find(|t| t.is_nan() || **t < 0.0) {
            return Err(format!("--throttle {t}: ThroTTle is at least 0"));
        }
        Ok(())
    }

    /// MinEX's options on `grid` with `latency` and ThroTTle `tau`.
    pub fn minex(&self, grid: Grid, latency: Tolerance, tau: f64) -> MinexOptions {
        MinexOptions {
            throttle: tau,
            latency: latency.latency(),
            ..MinexOptions::new(grid)
        }
    }
}

/// One configuration's replay, scored on one grid with one tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The method.
    pub method: Method,
    /// Processors.
    pub procs: usize,
    /// Clusters of the grid.
    pub clusters: usize,
    /// Interconnect slowdown between clusters.
    pub interconnect: u32,
    /// The tolerance it is scored (and for MinEX run) with.
    pub latency: Tolerance,
    /// MinEX's ThroTTle (none for the others).
    #[serde(serialize_with = "throttle_json")]
    pub throttle: Option<f64>,
    /// MinEX's contraction target, vertices (none: its default `10 · P`).
    pub coarsen_to: Option<usize>,
    /// Per level.
    pub levels: Vec<LevelScore>,
    /// Summed (or averaged) over the levels.
    pub total: Total,
}

/// The whole study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinexStudy {
    /// Where it comes from (written first in `minex.json` when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What was run.
    pub config: MinexConfig,
    /// Roots of the recorded sequence and leaves of its levels.
    pub roots: usize,
    /// Leaves after each level.
    pub leaves: Vec<usize>,
    /// Every row.
    pub rows: Vec<Row>,
    /// A.8's and A.11's checks, measured.
    pub checks: Vec<Check>,
    /// Wall seconds of the replays (not of the recording).
    pub replay_s: f64,
}

/// Which rows a lookup wants.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// Method.
    pub method: Method,
    /// Processors.
    pub procs: usize,
    /// Clusters.
    pub clusters: usize,
    /// Interconnect (ignored on one cluster).
    pub interconnect: u32,
    /// Tolerance.
    pub latency: Tolerance,
    /// ThroTTle (MinEX only).
    pub throttle: Option<f64>,
}

impl MinexStudy {
    /// The row `key` names (the default contraction), if it ran.
    pub fn row(&self, key: Key) -> Option<&Row> {
        self.rows.iter().find(|r| {
            r.method == key.method
                && r.procs == key.procs
                && r.clusters == key.clusters
                && (r.clusters == 1 || r.interconnect == key.interconnect)
                && r.latency == key.latency
                && r.coarsen_to.is_none()
                && (key.method != Method::Minex || r.throttle == key.throttle)
        })
    }

    /// This study with every wall-clock time zeroed (the rest is the same bit for bit on
    /// every run).
    pub fn without_times(&self) -> MinexStudy {
        let mut s = self.clone();
        s.provenance = None;
        s.replay_s = 0.0;
        for r in &mut s.rows {
            r.total.partition_ms = 0.0;
            for l in &mut r.levels {
                l.partition_ms = 0.0;
            }
        }
        for c in &mut s.checks {
            if c.id == "A.11-cost" {
                c.measured = String::new();
                c.holds = None;
            }
        }
        s
    }
}

/// Replays every configuration of `cfg` over `seq`; `done(what)` after each group.
///
/// # Errors
/// A one-line message: the configuration's, or a partitioner's failure.
pub fn run(
    cfg: &MinexConfig,
    seq: &Sequence,
    mut done: impl FnMut(&str),
) -> Result<MinexStudy, String> {
    let roots = seq.centroids.len();
    cfg.check(roots)?;
    let clock = Instant::now();
    let mut rows = Vec::new();
    let mut procs = vec![cfg.procs];
    procs.extend(cfg.scale_procs.iter().filter(|&&p| p != cfg.procs));
    let levels = replay::Levels::new(seq).map_err(|e| format!("the recorded sequence: {e}"))?;
    for &p in &procs {
        replay::rows_for(cfg, &levels, p, &mut rows)?;
        done(&format!("P = {p}"));
    }
    let mut study = MinexStudy {
        provenance: None,
        config: cfg.clone(),
        roots,
        leaves: seq.levels.iter().map(|l| l.leaves).collect(),
        rows,
        checks: Vec::new(),
        replay_s: 0.0,
    };
    study.checks = checks::evaluate(&study);
    study.replay_s = clock.elapsed().as_secs_f64();
    Ok(study)
}
