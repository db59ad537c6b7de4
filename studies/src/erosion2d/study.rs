//! The studies of [Boulmier 2019, §IV-B]: for every P and number of strong rocks, the standard
//! method and ULBA over several seeds (figure 4a; their medians); the usage per iteration of one of
//! those runs (figure 4b, at the smallest P); ULBA's time against α (figure 5). Each is done
//! at every level of fixed balancing cost asked for, on the same recorded erosion.

use plume::balance::{Degradation, Ulba};
use rayon::prelude::*;
use serde::Serialize;

use super::grid::{Geometry, Trace};
use super::machine::Machine;
use super::replay::{initial_cost, replay, IterationRecord, Replay, RunSummary};
use plume_cases::budget::bytes;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyConfig {
    /// The numbers of PEs.
    pub procs: Vec<usize>,
    /// The numbers of strongly erodible rocks.
    pub strong: Vec<usize>,
    /// The seeds (strong rocks' places and erosion draws); medians are over them.
    pub seeds: Vec<u64>,
    /// ULBA's α for figures 4a and 4b.
    pub alpha: f64,
    /// The α values of figure 5 (empty: no sweep).
    pub alphas: Vec<f64>,
    /// z-score above which a PE's workload increase rate marks it overloading.
    pub z_threshold: f64,
    /// Iterations per run.
    pub iterations: usize,
    /// Columns per initial stripe (W).
    pub stripe_width: usize,
    /// Rows (H).
    pub height: usize,
    /// Rock radius (R).
    pub radius: usize,
    /// The modelled machine (its `balance_fixed` is replaced by each level of `lb_fixed`).
    pub machine: Machine,
    /// Fixed costs added to every balance, seconds: each level is a study of its own.
    pub lb_fixed: Vec<f64>,
}

impl StudyConfig {
    /// [Boulmier 2019]'s study: P = 32, 64, 128, 256; 1, 2, 3 strong rocks; seeds 1–5; α = 0.4 and
    /// the sweep 0, 0.1, …, 0.8; z > 3; 1000 × 1000 cells per PE, rocks of radius 250;
    /// `iterations` iterations; the default machine, no fixed cost.
    pub fn seed_study(iterations: usize) -> StudyConfig {
        let scale = Geometry::seed_scale(1);
        StudyConfig {
            procs: vec![32, 64, 128, 256],
            strong: vec![1, 2, 3],
            seeds: (1..=5).collect(),
            alpha: 0.4,
            alphas: (0..=8).map(|k| f64::from(k) / 10.0).collect(),
            z_threshold: 3.0,
            iterations,
            stripe_width: scale.stripe_width,
            height: scale.height,
            radius: scale.radius,
            machine: Machine::default(),
            lb_fixed: vec![0.0],
        }
    }

    /// The grid at `procs` PEs.
    pub fn geometry(&self, procs: usize) -> Geometry {
        Geometry {
            procs,
            stripe_width: self.stripe_width,
            height: self.height,
            radius: self.radius,
        }
    }

    /// The number of strong rocks of figures 4b and 5: one if studied (as in [Boulmier 2019]), else
    /// the first listed.
    pub fn sweep_strong(&self) -> usize {
        if self.strong.contains(&1) {
            1
        } else {
            self.strong.first().copied().unwrap_or(1)
        }
    }

    /// Checks the configuration.
    ///
    /// # Errors
    /// A message naming the value at fault.
    pub fn check(&self) -> Result<(), String> {
        if self.procs.is_empty()
            || self.strong.is_empty()
            || self.seeds.is_empty()
            || self.lb_fixed.is_empty()
        {
            return Err(
                "the study needs at least one P, number of strong rocks, seed and fixed cost"
                    .into(),
            );
        }
        if let Some(c) = self
            .lb_fixed
            .iter()
            .find(|c| !(c.is_finite() && **c >= 0.0))
        {
            return Err(format!(
                "the fixed balancing cost {} must be a non-negative number",
                plume::numbers::short(*c)
            ));
        }
        for &p in &self.procs {
            self.geometry(p).check()?;
            if let Some(s) = self.strong.iter().find(|&&s| s > p) {
                return Err(format!("{s} strong rocks exceed the {p} rocks at P = {p}"));
            }
        }
        let unit = |a: f64| a.is_finite() && (0.0..=1.0).contains(&a);
        if let Some(a) = std::iter::once(&self.alpha)
            .chain(&self.alphas)
            .find(|a| !unit(**a))
        {
            return Err(format!(
                "α = {} must lie in [0, 1]",
                plume::numbers::short(*a)
            ));
        }
        if !(self.z_threshold.is_finite() && self.z_threshold >= 0.0) {
            return Err(format!(
                "the z-score threshold {} must be a non-negative number",
                self.z_threshold
            ));
        }
        if self.iterations == 0 {
            return Err("a run needs at least one iteration".into());
        }
        Ok(())
    }
}

/// Bytes a per-iteration record costs in the report: the record, its copy, and its
/// pretty-printed JSON (about 190 bytes measured, rounded up).
const BYTES_PER_KEPT_RECORD: u64 = 256;

/// Bytes a seed's results cost per case (P and number of strong rocks) and fixed-cost level:
/// its [`SeedRun`] and its pretty-printed JSON (about 700 bytes measured, rounded up).
const BYTES_PER_SEED_RUN: u64 = 1024;

/// The estimated peak memory of a study, split by what it grows with, so that a refusal can
/// name the option at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StudySize {
    /// What grows with the iterations: the recorded erosion and the replays' records of the
    /// seeds in flight, and figure 4b's records with their JSON.
    pub iterations: u128,
    /// What grows with the seeds times the iterations: figure 4b's records of every seed,
    /// kept until the seed of median gain is known.
    pub records: u128,
    /// What grows with the seeds: every seed's results in every case and their JSON.
    pub seeds: u128,
    /// The grids of the seeds in flight (columns, rock discs, eroded cells).
    pub grid: u128,
}

impl StudySize {
    /// The whole estimate, bytes.
    pub fn total(&self) -> u128 {
        self.iterations
            .saturating_add(self.records)
            .saturating_add(self.seeds)
            .saturating_add(self.grid)
    }
}

impl StudyConfig {
    /// The estimated peak memory of [`run`] and the report with `seeds` seeds (the list
    /// `self.seeds` is not read, so that the estimate can come before it is made) on
    /// `threads` threads. Saturating: no size overflows.
    pub fn size(&self, seeds: u64, threads: usize) -> StudySize {
        let n = |x: usize| x as u128;
        let seeds = u128::from(seeds);
        let in_flight = seeds.min(n(threads.max(1)));
        let levels = n(self.lb_fixed.len());
        let cases = n(self.procs.len())
            .saturating_mul(n(self.strong.len()))
            .saturating_mul(levels);
        let sweep = n(self.procs.len())
            .saturating_mul(levels)
            .saturating_mul(n(self.alphas.len()));
        let record = std::mem::size_of::<IterationRecord>() as u64;
        let iterations = n(self.iterations).saturating_add(1);
        // In flight: the trace's offsets (8 bytes an iteration) and one replay's records.
        let flight = bytes(in_flight.saturating_mul(iterations), 8 + record);
        let kept = seeds.saturating_mul(levels).saturating_mul(2);
        let reported = levels.saturating_mul(2).saturating_mul(iterations);
        let per_seed = bytes(cases, BYTES_PER_SEED_RUN).saturating_add(bytes(sweep, 64));
        let procs = self.procs.iter().copied().max().map_or(0, n);
        let columns = procs.saturating_mul(n(self.stripe_width));
        // Column sums (grid, trace, replay: 4 + 4 + 4 + 8 bytes), two bits per disc cell
        // ((2R)² each) and 4 bytes per eroded cell of the trace.
        let disc = n(self.radius)
            .saturating_mul(n(self.radius))
            .saturating_mul(4);
        let grid = bytes(columns, 20).saturating_add(bytes(procs.saturating_mul(disc), 5));
        StudySize {
            iterations: flight.saturating_add(bytes(reported, BYTES_PER_KEPT_RECORD)),
            records: bytes(kept.saturating_mul(iterations), record),
            seeds: bytes(seeds, 48).saturating_add(seeds.saturating_mul(per_seed)),
            grid: in_flight.saturating_mul(grid),
        }
    }
}

/// The standard method and ULBA on one seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedRun {
    /// The seed.
    pub seed: u64,
    /// The strongly erodible rocks.
    pub strong_rocks: Vec<u32>,
    /// Total work at the end.
    pub final_work: u64,
    /// The standard method's totals.
    pub standard: RunSummary,
    /// ULBA's.
    pub ulba: RunSummary,
}

/// Medians over seeds of a method's totals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Medians {
    /// Total modelled time, seconds.
    pub total_time: f64,
    /// Balances.
    pub lb_calls: f64,
    /// Balances with uneven shares.
    pub uneven_calls: f64,
    /// Mean PE usage.
    pub mean_usage: f64,
}

impl Medians {
    fn of<'a>(runs: impl Iterator<Item = &'a RunSummary> + Clone) -> Medians {
        Medians {
            total_time: median(runs.clone().map(|r| r.total_time)),
            lb_calls: median(runs.clone().map(|r| r.lb_calls as f64)),
            uneven_calls: median(runs.clone().map(|r| r.uneven_calls as f64)),
            mean_usage: median(runs.map(|r| r.mean_usage)),
        }
    }
}

/// One P and number of strong rocks (a group of bars of figure 4a).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The fixed cost per balance, seconds.
    pub lb_fixed: f64,
    /// PEs.
    pub procs: usize,
    /// Strongly erodible rocks.
    pub strong: usize,
    /// One entry per seed.
    pub runs: Vec<SeedRun>,
    /// The standard method's medians.
    pub standard: Medians,
    /// ULBA's medians.
    pub ulba: Medians,
    /// ULBA's gain, `1 − ULBA/standard` of the median times, percent.
    pub gain_pct: f64,
    /// The smallest and largest gain over the seeds, percent.
    pub gain_range_pct: (f64, f64),
}

/// ULBA at one α and P (a point of figure 5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlphaPoint {
    /// The fixed cost per balance, seconds.
    pub lb_fixed: f64,
    /// PEs.
    pub procs: usize,
    /// α.
    pub alpha: f64,
    /// Total time per seed.
    pub times: Vec<f64>,
    /// Balances per seed.
    pub calls: Vec<usize>,
    /// Median time.
    pub median_time: f64,
    /// Median balances.
    pub median_calls: f64,
}

/// The per-iteration records of the standard method and ULBA on one seed (figure 4b).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageRun {
    /// The fixed cost per balance, seconds.
    pub lb_fixed: f64,
    /// PEs.
    pub procs: usize,
    /// Strongly erodible rocks.
    pub strong: usize,
    /// The seed whose ULBA/standard time ratio is the median of the seeds'.
    pub seed: u64,
    /// The standard method, per iteration.
    pub standard: Vec<IterationRecord>,
    /// ULBA, per iteration.
    pub ulba: Vec<IterationRecord>,
}

/// All results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Study {
    /// What was run.
    pub config: StudyConfig,
    /// Figure 4a.
    pub cases: Vec<Case>,
    /// Figure 5.
    pub alpha: Vec<AlphaPoint>,
    /// Figure 4b, one per fixed-cost level.
    pub usage: Vec<UsageRun>,
}

/// The median (the mean of the middle two for an even count; NaN when empty).
pub fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The standard method: Alg. 1's trigger with the median of three.
pub fn standard_policy(trace: &Trace, machine: &Machine) -> Degradation {
    Degradation::new(initial_cost(trace, machine))
}

/// ULBA with `alpha`: the same trigger plus ULBA's overhead, z-score `z_threshold`.
pub fn ulba_policy(trace: &Trace, machine: &Machine, alpha: f64, z_threshold: f64) -> Ulba {
    Ulba::new(alpha, z_threshold, initial_cost(trace, machine))
}

/// Runs the study, the seeds of each P and number of strong rocks in parallel.
/// `recorded(p, strong)` is called after each such group (for progress).
///
/// # Errors
/// When the configuration is invalid ([`StudyConfig::check`]) or a replay fails.
pub fn run(cfg: &StudyConfig, mut recorded: impl FnMut(usize, usize)) -> Result<Study, String> {
    cfg.check()?;
    let sweep_strong = cfg.sweep_strong();
    let usage_procs = cfg.procs.iter().copied().min().unwrap_or(0);
    let mut cases = Vec::new();
    let mut alpha = Vec::new();
    let mut usage = Vec::new();
    for &p in &cfg.procs {
        for &strong in &cfg.strong {
            let keep_records = strong == sweep_strong && p == usage_procs;
            let outcomes = cfg
                .seeds
                .par_iter()
                .map(|&seed| one_seed(cfg, p, strong, seed, keep_records))
                .collect::<Result<Vec<SeedOutcome>, String>>()?;
            for (level, &lb_fixed) in cfg.lb_fixed.iter().enumerate() {
                let runs = outcomes
                    .iter()
                    .map(|o| SeedRun {
                        seed: o.seed,
                        strong_rocks: o.strong_rocks.clone(),
                        final_work: o.final_work,
                        standard: o.levels[level].standard.summary,
                        ulba: o.levels[level].ulba.summary,
                    })
                    .collect();
                let case = case(lb_fixed, p, strong, runs);
                if keep_records {
                    usage.push(usage_run(&case, &outcomes, level));
                }
                cases.push(case);
                if strong == sweep_strong {
                    alpha.extend(cfg.alphas.iter().enumerate().map(|(k, &a)| {
                        let runs = outcomes.iter().map(|o| &o.levels[level].sweep[k]);
                        AlphaPoint {
                            lb_fixed,
                            procs: p,
                            alpha: a,
                            times: runs.clone().map(|r| r.total_time).collect(),
                            calls: runs.clone().map(|r| r.lb_calls).collect(),
                            median_time: median(runs.clone().map(|r| r.total_time)),
                            median_calls: median(runs.map(|r| r.lb_calls as f64)),
                        }
                    }));
                }
            }
            recorded(p, strong);
        }
    }
    Ok(Study {
        config: cfg.clone(),
        cases,
        alpha,
        usage,
    })
}

/// The standard method and ULBA replayed at one fixed-cost level.
struct LevelOutcome {
    standard: Replay,
    ulba: Replay,
    /// ULBA at every α of the sweep (empty unless this is the sweep's case).
    sweep: Vec<RunSummary>,
}

/// One seed at one P and number of strong rocks, every fixed-cost level.
struct SeedOutcome {
    seed: u64,
    strong_rocks: Vec<u32>,
    final_work: u64,
    levels: Vec<LevelOutcome>,
}

/// Records the erosion of one seed and replays it under every policy and fixed-cost level;
/// per-iteration records are dropped unless `keep_records`.
fn one_seed(
    cfg: &StudyConfig,
    p: usize,
    strong: usize,
    seed: u64,
    keep_records: bool,
) -> Result<SeedOutcome, String> {
    let trace = Trace::record(
        super::seeded_grid(cfg.geometry(p), strong, seed)?,
        cfg.iterations,
    );
    let fail = |e: plume::Error| e.to_string();
    let mut levels = Vec::new();
    for &lb_fixed in &cfg.lb_fixed {
        let m = Machine {
            balance_fixed: lb_fixed,
            ..cfg.machine
        };
        let mut standard = replay(&trace, &m, &mut standard_policy(&trace, &m)).map_err(fail)?;
        let mut ulba = replay(
            &trace,
            &m,
            &mut ulba_policy(&trace, &m, cfg.alpha, cfg.z_threshold),
        )
        .map_err(fail)?;
        let mut sweep = Vec::new();
        if strong == cfg.sweep_strong() {
            for &a in &cfg.alphas {
                let r = replay(&trace, &m, &mut ulba_policy(&trace, &m, a, cfg.z_threshold))
                    .map_err(fail)?;
                sweep.push(r.summary);
            }
        }
        if !keep_records {
            for r in [&mut standard, &mut ulba] {
                r.records = Vec::new();
                r.column_work = Vec::new();
            }
        }
        levels.push(LevelOutcome {
            standard,
            ulba,
            sweep,
        });
    }
    Ok(SeedOutcome {
        seed,
        strong_rocks: trace.strong.clone(),
        final_work: trace.last.column_work().iter().map(|&w| u64::from(w)).sum(),
        levels,
    })
}

fn gain_pct(standard: f64, ulba: f64) -> f64 {
    (1.0 - ulba / standard) * 100.0
}

fn case(lb_fixed: f64, procs: usize, strong: usize, runs: Vec<SeedRun>) -> Case {
    let standard = Medians::of(runs.iter().map(|r| &r.standard));
    let ulba = Medians::of(runs.iter().map(|r| &r.ulba));
    let gains = runs
        .iter()
        .map(|r| gain_pct(r.standard.total_time, r.ulba.total_time));
    let gain_range_pct = gains.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), g| {
        (lo.min(g), hi.max(g))
    });
    Case {
        lb_fixed,
        procs,
        strong,
        gain_pct: gain_pct(standard.total_time, ulba.total_time),
        gain_range_pct,
        runs,
        standard,
        ulba,
    }
}

/// The per-iteration records of the seed whose gain is the median of the case's (the lower
/// middle for an even count).
fn usage_run(case: &Case, outcomes: &[SeedOutcome], level: usize) -> UsageRun {
    let mut by_gain: Vec<(f64, usize)> = case
        .runs
        .iter()
        .enumerate()
        .map(|(k, r)| (gain_pct(r.standard.total_time, r.ulba.total_time), k))
        .collect();
    by_gain.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let o = &outcomes[by_gain[(by_gain.len() - 1) / 2].1];
    UsageRun {
        lb_fixed: case.lb_fixed,
        procs: case.procs,
        strong: case.strong,
        seed: o.seed,
        standard: o.levels[level].standard.records.clone(),
        ulba: o.levels[level].ulba.records.clone(),
    }
}
