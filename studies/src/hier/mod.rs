//! [Zheng 2011]'s lb_test at its scale (`docs/design/hierarchical.md`): `N` objects with loads in
//! [1, 10] ms, ring communication and [Zheng 2011]'s sorted placement, balanced on P simulated
//! processors by the central strategies (GreedyLB, GreedyCommLB, RefineLB: the one-level
//! tree, B.11 test 10), PLUM's METIS + remap (central too) and HybridLB, for every P of the
//! study; and table 5's sweep of the tree's levels. Every time is the simulated clock's
//! (`plume::balance::hier::Clock`: the SP2 network and [`plume::balance::hier::T_OP`] per
//! modelled strategy operation), so the files are the same bit for bit on every run.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | [`HierConfig`], [`run`], one P's balances ([`balance_all`]) and the sweep |
//! | `memory.rs` | the study's peak memory estimate (bytes per object and per processor) |
//! | `published.rs` | [Zheng 2011]'s tables 2–5 and its models `[H2]`, `[H3]` |
//! | `report.rs` | `hier.md`, `hier.json` and the charts |
//!
//! Memory is `O(N + P)`: the objects and their records once, one balance at a time (the
//! strategies' databases, one copy per level of full databases), and small rows per P.

pub mod memory;
pub mod published;
pub mod report;

use plume::balance::hier::{
    balance, db_bytes, round_time, step_time, Clock, CommData, HierBalance, HierOptions, LbTest,
    LevelReport, ObjData, PhaseTimes, Round, Strategy, Tree,
};
use plume::balance::{Accept, Plum, PlumOptions, Threshold};
use plume::graph::GraphView;
use plume::metrics::{Imbalance, Movement};
use plume::partition::Metis;
use plume::remap::TotalVGreedy;
use serde::Serialize;

use plume_cases::provenance::Provenance;

/// What `plume study hier` runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HierConfig {
    /// The numbers of simulated processors, in the order run.
    pub procs: Vec<usize>,
    /// lb_test's objects.
    pub objects: usize,
    /// Processors per lowest domain of HybridLB's two-level tree (`[P / lowest, lowest]`; the
    /// seed's Ranger runs: 512).
    pub lowest: usize,
    /// Table 5's threshold: a domain of more objects works semi-centralized.
    pub max_objects: usize,
    /// PLUM (METIS + remap) runs only up to this many objects (`None`: always).
    pub plum_max_objects: Option<usize>,
    /// The levels sweep (table 5): processors, …
    pub sweep_procs: usize,
    /// … objects, …
    pub sweep_objects: usize,
    /// … and the numbers of levels, each a uniform tree of the smallest branching reaching
    /// the processors.
    pub sweep_levels: Vec<usize>,
    /// Seed of lb_test's loads.
    pub seed: u64,
    /// The simulated machine.
    pub clock: Clock,
}

impl HierConfig {
    /// [Zheng 2011]'s study: P = 1,024 … 65,536, 1,048,576 objects, lowest domains of 512
    /// processors, the threshold of 65,536 objects; table 5's sweep (4,096 processors,
    /// 524,288 objects, 3, 4, 5, 7 and 13 levels, and the central 2).
    pub fn seed_study() -> HierConfig {
        HierConfig {
            procs: vec![1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536],
            objects: 1_048_576,
            lowest: 512,
            max_objects: 65_536,
            plum_max_objects: None,
            sweep_procs: 4_096,
            sweep_objects: 524_288,
            sweep_levels: vec![2, 3, 4, 5, 7, 13],
            seed: 1,
            clock: Clock::default(),
        }
    }

    /// Checks the settings; the message names the option at fault.
    ///
    /// # Errors
    /// One line naming the option: no processor or one processor, objects fewer than a P
    /// ([Zheng 2011]'s placement gives every processor at least one), a P that is not a multiple
    /// of `lowest` above it, a level count below 2 or beyond what the sweep's processors fill.
    pub fn check(&self) -> Result<(), String> {
        if self.procs.is_empty() {
            return Err("--procs must list at least one number of processors".into());
        }
        if self.lowest < 2 {
            return Err(format!(
                "--lowest {}: a lowest domain needs at least 2 processors",
                self.lowest
            ));
        }
        for &p in &self.procs {
            if p < 2 * self.lowest || p % self.lowest != 0 {
                return Err(format!(
                    "--procs {p}: HybridLB's tree [P / {0}, {0}] needs P a multiple of --lowest \
                     {0} and at least twice it",
                    self.lowest
                ));
            }
            if p > self.objects {
                return Err(format!(
                    "--procs {p}: more processors than the {} --objects",
                    self.objects
                ));
            }
        }
        if self.objects > u32::MAX as usize {
            return Err(format!("--objects {}: above 2^32 − 1", self.objects));
        }
        if self.sweep_procs < 2 || self.sweep_procs > self.sweep_objects {
            return Err(format!(
                "--sweep-procs {}: needs 2 to --sweep-objects {} processors",
                self.sweep_procs, self.sweep_objects
            ));
        }
        if self.sweep_objects > u32::MAX as usize {
            return Err(format!(
                "--sweep-objects {}: above 2^32 − 1",
                self.sweep_objects
            ));
        }
        for &l in &self.sweep_levels {
            Tree::with_levels(self.sweep_procs, l)
                .map_err(|e| format!("--sweep-levels {l}: {e}"))?;
        }
        Ok(())
    }
}

/// The balancers of the study.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Method {
    /// Central GreedyLB.
    Greedy,
    /// Central GreedyCommLB.
    GreedyComm,
    /// Central RefineLB with its binary search.
    Refine,
    /// PLUM: METIS k-way into P parts, the greedy TotalV remap (central).
    Plum,
    /// HybridLB: tree `[P / lowest, lowest]`, GreedyLB at the lowest level.
    Hybrid,
}

impl Method {
    /// All, in the tables' order.
    pub const ALL: [Method; 5] = [
        Method::Greedy,
        Method::GreedyComm,
        Method::Refine,
        Method::Plum,
        Method::Hybrid,
    ];

    /// The name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Method::Greedy => "GreedyLB",
            Method::GreedyComm => "GreedyCommLB",
            Method::Refine => "RefineLB",
            Method::Plum => "PLUM",
            Method::Hybrid => "HybridLB",
        }
    }
}

/// One balancer's balance of lb_test at one P.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodRun {
    /// The balancer.
    pub method: Method,
    /// Objects that change processor (tables 2 and 4).
    pub migrated: usize,
    /// Simulated seconds by phase (table 3, fig. 7).
    pub times: PhaseTimes,
    /// The largest database one processor held, bytes by eq. (2) (fig. 5).
    pub peak_db_bytes: u64,
    /// The heaviest processor's load after, seconds.
    pub max_load: f64,
    /// `max / mean` load after.
    pub load_imb: f64,
    /// Time per step after (fig. 6): the heaviest processor's load and its messages to
    /// objects elsewhere.
    pub step_time: f64,
}

/// Every balancer at one P.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcsRow {
    /// Processors.
    pub procs: usize,
    /// HybridLB's tree, branchings from the top.
    pub tree: Vec<usize>,
    /// Time per step of [Zheng 2011]'s placement, before balancing.
    pub step_time_before: f64,
    /// Its heaviest processor's load.
    pub max_load_before: f64,
    /// One run per balancer, in [`Method::ALL`]'s order (PLUM left out above
    /// `plum_max_objects`).
    pub runs: Vec<MethodRun>,
    /// HybridLB's report per tree level.
    pub hybrid_levels: Vec<LevelReport>,
}

impl ProcsRow {
    /// The run of `method`, if it ran.
    pub fn run(&self, method: Method) -> Option<&MethodRun> {
        self.runs.iter().find(|r| r.method == method)
    }
}

/// One tree of the levels sweep (table 5, figs 3 and 4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepRow {
    /// Levels L of the tree, the processors included.
    pub levels: usize,
    /// Its uniform branching G.
    pub branching: usize,
    /// Table 5's shrink level: the topmost level working on full databases.
    pub shrink_level: usize,
    /// Objects of the largest domain at the shrink level.
    pub shrink_objects: u64,
    /// Simulated seconds by phase.
    pub times: PhaseTimes,
    /// `[H2]`'s modelled operations for this tree (B.7), and in seconds at the clock's
    /// `t_op`.
    pub model_ops: f64,
    /// `[H3]`'s messages of the three phases (a leader's to itself included).
    pub messages_formula: u64,
    /// Messages of phase 1's totals actually sent between processors, times three phases.
    pub messages_sent: u64,
    /// The largest database of a domain, bytes.
    pub peak_db_bytes: u64,
    /// The heaviest processor's load after, seconds.
    pub max_load: f64,
}

/// The whole study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HierStudy {
    /// Where it comes from (written first in `hier.json` when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What was run.
    pub config: HierConfig,
    /// One row per P.
    pub rows: Vec<ProcsRow>,
    /// The levels sweep.
    pub sweep: Vec<SweepRow>,
}

/// Runs the study: every P of `cfg.procs`, then the sweep; `done(what)` after each.
///
/// # Errors
/// A one-line message (the configuration's, or a balancer's failure).
pub fn run(cfg: &HierConfig, mut done: impl FnMut(&str)) -> Result<HierStudy, String> {
    cfg.check()?;
    let mut rows = Vec::with_capacity(cfg.procs.len());
    for &p in &cfg.procs {
        let (objs, records) = lb_test(cfg, cfg.objects, p)?;
        let (row, _) = balance_all(cfg, &objs, &records, p)?;
        rows.push(row);
        done(&format!("P = {p}"));
    }
    let sweep = sweep(cfg)?;
    done("levels sweep");
    Ok(HierStudy {
        provenance: None,
        config: cfg.clone(),
        rows,
        sweep,
    })
}

/// lb_test's objects and records for `n` objects on `p` processors, seeded as `cfg` says.
fn lb_test(cfg: &HierConfig, n: usize, p: usize) -> Result<(Vec<ObjData>, Vec<CommData>), String> {
    let t = LbTest {
        seed: cfg.seed,
        ..LbTest::new(n, p)
    };
    t.generate().map_err(|e| e.to_string())
}

/// Balances `objs` (homes on `p` processors) with every balancer of [`Method::ALL`]; returns
/// the row and each run's destination of every object (in the order of `objs`).
///
/// # Errors
/// A balancer's failure, as one line.
pub fn balance_all(
    cfg: &HierConfig,
    objs: &[ObjData],
    records: &[CommData],
    p: usize,
) -> Result<(ProcsRow, Vec<Vec<u32>>), String> {
    let err = |e: plume::Error| format!("P = {p}: {e}");
    let central = Tree::from_list(p, &[p]).map_err(err)?;
    let list = [p / cfg.lowest, cfg.lowest];
    let hybrid_tree = Tree::from_list(p, &list).map_err(err)?;
    let mut runs = Vec::new();
    let mut dests = Vec::new();
    let mut before = None;
    let mut hybrid_levels = Vec::new();
    let mut central_greedy: Option<HierBalance> = None;
    for method in Method::ALL {
        let strategy = match method {
            Method::GreedyComm => Strategy::GreedyComm,
            Method::Refine => Strategy::Refine,
            _ => Strategy::Greedy,
        };
        let opts = HierOptions {
            strategy,
            max_objects: Some(cfg.max_objects),
            bandwidth: cfg.clock.machine.bandwidth,
            ..HierOptions::default()
        };
        let (run, dest) = match method {
            Method::Plum => {
                if cfg.plum_max_objects.is_some_and(|m| objs.len() > m) {
                    continue;
                }
                let greedy = central_greedy.as_ref().expect("GreedyLB runs first");
                plum(cfg, objs, records, p, greedy).map_err(err)?
            }
            _ => {
                let tree = if method == Method::Hybrid {
                    &hybrid_tree
                } else {
                    &central
                };
                let b = balance(tree, &opts, &cfg.clock, objs, records, None).map_err(err)?;
                before.get_or_insert((b.step_time.0, b.max_load.0));
                let run = MethodRun {
                    method,
                    migrated: b.migrated,
                    times: positive_zeros(b.times),
                    peak_db_bytes: b.levels.iter().map(|l| l.max_bytes).max().unwrap_or(0),
                    max_load: b.max_load.1,
                    load_imb: b.load_imb,
                    step_time: b.step_time.1,
                };
                if method == Method::Hybrid {
                    hybrid_levels = b.levels.clone();
                }
                let dest = b.dest.clone();
                if method == Method::Greedy {
                    central_greedy = Some(b);
                }
                (run, dest)
            }
        };
        runs.push(run);
        dests.push(dest);
    }
    let (step_time_before, max_load_before) = before.expect("the central strategies ran");
    let row = ProcsRow {
        procs: p,
        tree: list.to_vec(),
        step_time_before,
        max_load_before,
        runs,
        hybrid_levels,
    };
    Ok((row, dests))
}

/// Modelled operations of PLUM's strategy on `n` objects, `c` records and `p` processors
/// (plume decision, B.10's operation-count model): METIS k-way `(n + c) log₂ p` (coarsening
/// and refinement touch every vertex and edge once per level, the initial partition and the
/// k-way refinement's gains `log₂ p` each), plus the similarity matrix and greedy remap
/// sorting at most `n` nonzeros, `n log₂ n`.
pub fn plum_ops(n: usize, c: usize, p: usize) -> f64 {
    let lg = |x: usize| (x.max(2) as f64).log2();
    (n + c) as f64 * lg(p) + n as f64 * lg(n)
}

/// PLUM on lb_test: the ring as a graph (vertex weight the load in microseconds, edge weight
/// the bytes both ways), METIS into P parts, the greedy TotalV remap, always accepted. Its
/// collection is central GreedyLB's (the same database to processor 0); its matching a
/// round of the moves from processor 0 to every processor.
fn plum(
    cfg: &HierConfig,
    objs: &[ObjData],
    records: &[CommData],
    p: usize,
    greedy: &HierBalance,
) -> plume::Result<(MethodRun, Vec<u32>)> {
    let n = objs.len();
    // Adjacency from the records, both directions merged (lb_test's ids are 0..n).
    let mut rows: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
    for r in records {
        let w = r.bytes.round().max(1.0) as u64;
        let (a, b) = (r.from as usize, r.to as usize);
        if a != b {
            rows[a].push((r.to, w));
            rows[b].push((r.from, w));
        }
    }
    let mut xadj = Vec::with_capacity(n + 1);
    xadj.push(0u32);
    let (mut adjncy, mut ewgt) = (Vec::new(), Vec::new());
    for row in &mut rows {
        row.sort_unstable();
        let mut merged: Vec<(u32, u64)> = Vec::with_capacity(row.len());
        for &(v, w) in row.iter() {
            match merged.last_mut() {
                Some(last) if last.0 == v => last.1 += w,
                _ => merged.push((v, w)),
            }
        }
        adjncy.extend(merged.iter().map(|e| e.0));
        ewgt.extend(merged.iter().map(|e| e.1));
        xadj.push(adjncy.len() as u32);
    }
    drop(rows);
    let vwgt: Vec<u64> = objs
        .iter()
        .map(|o| (o.load * 1e6).round().max(1.0) as u64)
        .collect();
    let ones = vec![1u64; n];
    let graph = GraphView::new(&xadj, &adjncy, &ewgt, &vwgt)?.with_sizes(&ones)?;
    let home: Vec<u32> = objs.iter().map(|o| o.home).collect();
    let opts = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(p)
    };
    let plum = Plum::with(
        opts,
        Box::new(Metis::default()),
        Box::new(TotalVGreedy),
        Box::new(Threshold::default()),
    )?;
    let b = plum.propose(&graph, &home, None)?;
    let dest = b.new_owner.expect("accepted always");
    let movement = Movement::new(&home, &dest, &ones, p);
    let m = &cfg.clock.machine;
    let migrated = home.iter().zip(&dest).filter(|(a, b)| a != b).count();
    let matches = Round {
        messages: p as u64,
        sent: p as u64 - 1,
        bytes: 12 * migrated as u64,
        max_bytes: 12 * migrated as u64,
        max_children: p as u64,
    };
    let times = PhaseTimes {
        collection: greedy.times.collection,
        strategy: plum_ops(n, records.len(), p) * cfg.clock.t_op,
        decisions: 0.0,
        matching: round_time(&matches, m),
        migration: if movement.total_v > 0 {
            m.transfer(movement.max_sr as f64)
        } else {
            0.0
        },
    };
    let mut loads = vec![0.0; p];
    for (o, &d) in objs.iter().zip(&dest) {
        loads[d as usize] += o.load;
    }
    let index = sorted_ids(objs);
    let run = MethodRun {
        method: Method::Plum,
        migrated,
        times,
        peak_db_bytes: db_bytes(n, records.len()),
        max_load: loads.iter().copied().fold(0.0, f64::max),
        load_imb: Imbalance::from_f64(&loads).load_imb,
        step_time: step_time(objs, &dest, records, &index, p, m.bandwidth),
    };
    Ok((run, dest))
}

/// `t` with its zeros positive: a phase without messages sums an empty list, which Rust's
/// `f64` sum gives as `-0.0`, printed `-0.0000` and written `-0.0` otherwise.
fn positive_zeros(t: PhaseTimes) -> PhaseTimes {
    PhaseTimes {
        collection: t.collection + 0.0,
        strategy: t.strategy + 0.0,
        decisions: t.decisions + 0.0,
        matching: t.matching + 0.0,
        migration: t.migration + 0.0,
    }
}

/// `(id, index)` sorted by id.
fn sorted_ids(objs: &[ObjData]) -> Vec<(u32, usize)> {
    let mut index: Vec<(u32, usize)> = objs.iter().enumerate().map(|(i, o)| (o.id, i)).collect();
    index.sort_unstable();
    index
}

/// Table 5's sweep: HybridLB (GreedyLB lowest, the threshold) on uniform trees of each
/// number of levels.
fn sweep(cfg: &HierConfig) -> Result<Vec<SweepRow>, String> {
    let (p, n) = (cfg.sweep_procs, cfg.sweep_objects);
    let (objs, records) = lb_test(cfg, n, p)?;
    let opts = HierOptions {
        max_objects: Some(cfg.max_objects),
        bandwidth: cfg.clock.machine.bandwidth,
        ..HierOptions::default()
    };
    let mut out = Vec::with_capacity(cfg.sweep_levels.len());
    for &levels in &cfg.sweep_levels {
        let err = |e: plume::Error| format!("--sweep-levels {levels}: {e}");
        let tree = Tree::with_levels(p, levels).map_err(err)?;
        let branching = tree.span(tree.levels() - 2);
        let b = balance(&tree, &opts, &cfg.clock, &objs, &records, None).map_err(err)?;
        let shrink = b.levels.iter().position(|l| l.mode != "semi").unwrap_or(0);
        let (formula, sent) = tree.messages_per_phase();
        out.push(SweepRow {
            levels,
            branching,
            shrink_level: shrink,
            shrink_objects: b.levels[shrink].max_objects,
            times: positive_zeros(b.times),
            model_ops: published::level_model(n as f64, p as f64, levels, cfg.max_objects as f64),
            messages_formula: 3 * formula,
            messages_sent: 3 * sent,
            peak_db_bytes: b.levels.iter().map(|l| l.max_bytes).max().unwrap_or(0),
            max_load: b.max_load.1,
        });
    }
    Ok(out)
}
