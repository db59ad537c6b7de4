//! The shock-wave test case (seed 004 §5.3, `test-cases.md`): a cylinder with its axis along z
//! moves along +x across a box elongated along x; leaves it touches are refined up to a maximum
//! depth, refined leaves it has left behind are coarsened, one level per adaptation. After each
//! adaptation the roots are balanced over P ranks the PLUM way, and the level's metrics are
//! recorded.
//!
//! **Calibration** (the published case grows from 50,000 to 1,833,730 elements over 9 levels):
//! on the shipped 50,136-element mesh of [0, 4] × [0, 1]², a front of radius 0.16 growing by
//! 13.5% a level, starting at x = 0.3 and moving 0.3 a level, refined to depth 3, grows the mesh
//! to 68,128 / 130,053 / 168,192 / 218,340 / 347,818 / 547,022 / 859,340 / 1,274,645 /
//! 1,828,034 leaves over the 9 levels. A constant radius cannot reach the published growth
//! (the refined band's volume stays constant), hence the growth.
//!
//! **Solver model.** Between adaptations the solver runs `N_adapt` iterations; an iteration on a
//! rank costs `T_iter` per leaf it owns. The level's modelled solver time is that of the most
//! loaded rank; PLUM's gain/cost rule uses the same model.

use std::collections::BTreeMap;
use std::time::Instant;

use plume::adapt::{AdaptOptions, Forest};
use plume::balance::{migrate, Balance, Migration, Plum, PlumOptions};
use plume::graph::{DualGraph, Weights};
use plume::mesh::{geometry, Mesh};
use plume::metrics::{rank_loads, Cut, Imbalance, Movement};
use plume::Result;

/// The moving front: a cylinder along z through `(x, 0.5)` (scaled to the box's y extent).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Front {
    /// Centre's x at level 1, as a fraction of the box length.
    pub start: f64,
    /// Distance the centre moves per level, as a fraction of the box length.
    pub step: f64,
    /// Radius at level 1, as a fraction of the box's y extent.
    pub radius: f64,
    /// Relative growth of the radius per level.
    pub growth: f64,
    /// Maximum refinement depth inside the front.
    pub max_depth: u8,
}

impl Default for Front {
    fn default() -> Self {
        Front {
            start: 0.075,
            step: 0.075,
            radius: 0.16,
            growth: 0.135,
            max_depth: 3,
        }
    }
}

/// When PLUM balances within an adaptation step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BalanceAt {
    /// After closure, on predicted weights, before subdivision (PLUM's way: less data moves).
    BeforeSubdivision,
    /// After subdivision, on the new weights.
    AfterSubdivision,
}

/// A shock-wave run's configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShockConfig {
    /// Number of ranks.
    pub procs: usize,
    /// Balance with PLUM (`true`) or not at all (`false`: the roots stay on the ranks of the
    /// initial mesh's partition).
    pub balance: bool,
    /// Reassignment objective (`totalv`, `totalv-greedy`, `maxv`, `maxsr`, `identity`).
    pub objective: String,
    /// Partitioner (`metis`, `rcb`).
    pub partitioner: String,
    /// When-to-balance policy (`threshold[:X]`, `cost-benefit[:C]`, `degradation[:C]`).
    pub policy: String,
    /// Parts per processor.
    pub parts_per_proc: usize,
    /// Adaptation levels.
    pub levels: usize,
    /// Seed of the partitioner.
    pub seed: u64,
    /// When balancing happens.
    pub balance_at: BalanceAt,
    /// PLUM's accept rule and cost model.
    pub plum: PlumOptions,
    /// The front.
    pub front: Front,
}

impl ShockConfig {
    /// The published case's shape on `procs` ranks: PLUM with METIS, optimal TotalV, threshold
    /// 1.05, balancing before subdivision, 9 levels.
    pub fn new(procs: usize) -> Self {
        ShockConfig {
            procs,
            balance: true,
            objective: "totalv".into(),
            partitioner: "metis".into(),
            policy: "threshold".into(),
            parts_per_proc: 1,
            levels: 9,
            seed: 1,
            balance_at: BalanceAt::BeforeSubdivision,
            plum: PlumOptions::new(procs),
            front: Front::default(),
        }
    }
}

/// One adaptation level's record (the columns of seed 004 tables 8, 9, 12).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LevelRecord {
    /// Level, from 1.
    pub level: usize,
    /// Leaves after the level's adaptation.
    pub elements: usize,
    /// `max / mean` of the ranks' leaves after balancing.
    pub load_imb: f64,
    /// Percent imbalance `(max/mean − 1)·100`.
    pub lambda_pct: f64,
    /// `mean / max`.
    pub lb: f64,
    /// `LoadImb` before balancing (same weights).
    pub load_imb_before: f64,
    /// Percent of the communication weight crossing ranks.
    pub cut_pct: f64,
    /// `TotalV` of the remap: `RWgt` moved, on the weights balanced on (predicted ones when
    /// balancing before subdivision), as the remapper optimized it.
    pub total_v: u64,
    /// `MaxV` of the remap, same weights.
    pub max_v: u64,
    /// `MaxSR` of the remap, same weights.
    pub max_sr: u64,
    /// `TotalV` the identity mapping of the same parts would have moved (baseline).
    pub identity_total_v: u64,
    /// Megabytes of serialized trees actually moved.
    pub comm_mb: f64,
    /// Trees actually moved.
    pub trees_moved: usize,
    /// Elements of the trees actually moved (smaller than `total_v` when balancing before
    /// subdivision: the trees move before they grow).
    pub elements_moved: u64,
    /// The policy asked for a repartition.
    pub balance_triggered: bool,
    /// The remap was carried out.
    pub remap_accepted: bool,
    /// Modelled gain of the remap, seconds.
    pub gain_s: f64,
    /// Modelled cost of the remap, seconds.
    pub cost_s: f64,
    /// The reassignment solver that ran (empty when none did).
    pub remapper: String,
    /// Modelled solver time until the next adaptation, seconds.
    pub solver_s: f64,
    /// The balancer's share of the level's wall-clock time (partition, similarity matrix,
    /// reassignment, migration), percent.
    pub balance_pct: f64,
    /// Wall-clock milliseconds per stage.
    pub time_ms: BTreeMap<String, f64>,
}

/// A finished run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShockRun {
    /// The configuration.
    pub config: ShockConfig,
    /// Roots of the initial mesh.
    pub roots: usize,
    /// One record per level.
    pub levels: Vec<LevelRecord>,
}

/// Runs the shock-wave case on `mesh`; `each_level` sees the forest and the owners after every
/// level (to write VTK files, advance a progress bar).
pub fn run(
    cfg: &ShockConfig,
    mesh: Mesh,
    mut each_level: impl FnMut(usize, &Forest, &[u32]) -> Result<()>,
) -> Result<ShockRun> {
    let roots = mesh.nelems();
    if cfg.procs == 0 || cfg.procs > roots {
        return Err(plume::Error::Invalid(format!(
            "--procs {} must be between 1 and the number of roots ({roots})",
            cfg.procs
        )));
    }
    let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
    let mut forest = Forest::new(
        mesh,
        AdaptOptions {
            max_depth: cfg.front.max_depth,
            nfields: 0,
        },
    )?;
    let mut graph = DualGraph::new(&forest);
    let mut plum = make_plum(cfg, &forest)?;
    let mut owner = plum.initial_assignment(&graph)?;
    let mut levels = Vec::with_capacity(cfg.levels);
    for level in 1..=cfg.levels {
        let mut watch = Stopwatch::start();
        mark_front(&mut forest, &cfg.front, level, lo, hi);
        watch.lap("mark");
        forest.coarsen()?;
        watch.lap("coarsen");
        forest.close()?;
        watch.lap("closure");

        let mut balance = None;
        let mut moved = Migration::default();
        if cfg.balance && cfg.balance_at == BalanceAt::BeforeSubdivision {
            let predicted = graph.predict(&forest);
            watch.lap("predict");
            let b = balance_and_migrate(
                &mut plum, &graph, &predicted, &forest, &mut owner, &mut moved,
            )?;
            watch.balance(&b);
            balance = Some(b);
        }
        let report = forest.subdivide();
        watch.lap("subdivision");
        graph.update(&forest, &report.changed_roots);
        watch.lap("weights");
        if cfg.balance && cfg.balance_at == BalanceAt::AfterSubdivision {
            let weights = graph.weights.clone();
            let b =
                balance_and_migrate(&mut plum, &graph, &weights, &forest, &mut owner, &mut moved)?;
            watch.balance(&b);
            balance = Some(b);
        }
        let time_ms = watch.times;
        levels.push(level_record(
            cfg,
            level,
            &forest,
            &graph,
            &owner,
            balance.as_ref(),
            moved,
            time_ms,
        ));
        each_level(level, &forest, &owner)?;
    }
    Ok(ShockRun {
        config: cfg.clone(),
        roots,
        levels,
    })
}

fn make_plum(cfg: &ShockConfig, forest: &Forest) -> Result<Plum> {
    let centroids: Vec<[f64; 3]> = (0..forest.nroots())
        .map(|e| geometry::centroid(&forest.mesh().corners(e)))
        .collect();
    let partitioner: Box<dyn plume::partition::Partitioner> = match cfg.partitioner.as_str() {
        "metis" => Box::new(plume::partition::Metis {
            seed: cfg.seed as i32,
            ..Default::default()
        }),
        name => plume::partition::partitioner_by_name(name, &centroids)?,
    };
    let mut opts = cfg.plum.clone();
    opts.nprocs = cfg.procs;
    opts.parts_per_proc = cfg.parts_per_proc;
    Plum::with(
        opts,
        partitioner,
        plume::remap::remapper_by_name(&cfg.objective)?,
        plume::balance::policy_by_name(&cfg.policy)?,
    )
}

fn balance_and_migrate(
    plum: &mut Plum,
    graph: &DualGraph,
    weights: &Weights,
    forest: &Forest,
    owner: &mut [u32],
    moved: &mut Migration,
) -> Result<Balance> {
    let b = plum.balance(graph, weights, owner)?;
    if let Some(new_owner) = &b.new_owner {
        *moved = migrate(forest, owner, new_owner);
    }
    Ok(b)
}

/// Wall-clock milliseconds per stage of a level.
struct Stopwatch {
    clock: Instant,
    times: BTreeMap<String, f64>,
}

impl Stopwatch {
    fn start() -> Self {
        Stopwatch {
            clock: Instant::now(),
            times: BTreeMap::new(),
        }
    }

    /// Records the time since the last lap under `stage`.
    fn lap(&mut self, stage: &str) {
        self.times
            .insert(stage.to_string(), self.clock.elapsed().as_secs_f64() * 1e3);
        self.clock = Instant::now();
    }

    /// Records a balancing step: its own stage times, and the rest of the lap as migration.
    fn balance(&mut self, b: &Balance) {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let stages = ms(b.times.partition) + ms(b.times.similarity) + ms(b.times.reassign);
        let lap = self.clock.elapsed().as_secs_f64() * 1e3;
        self.times.insert("partition".into(), ms(b.times.partition));
        self.times
            .insert("similarity".into(), ms(b.times.similarity));
        self.times
            .insert("reassignment".into(), ms(b.times.reassign));
        self.times
            .insert("migration".into(), (lap - stages).max(0.0));
        self.clock = Instant::now();
    }
}

#[allow(clippy::too_many_arguments)]
fn level_record(
    cfg: &ShockConfig,
    level: usize,
    forest: &Forest,
    graph: &DualGraph,
    owner: &[u32],
    balance: Option<&Balance>,
    moved: Migration,
    time_ms: BTreeMap<String, f64>,
) -> LevelRecord {
    let w = &graph.weights;
    let loads = rank_loads(&w.pwgt, owner, cfg.procs);
    let imb = Imbalance::from_u64(&loads);
    let cut = Cut::new(&graph.xadj, &graph.adjncy, &w.cwgt, owner);
    let accepted = balance.is_some_and(|b| b.accepted);
    let none = Movement::new(owner, owner, &w.rwgt, cfg.procs);
    let (movement, identity) = match balance {
        Some(b) if b.accepted => (b.movement.clone(), b.identity.total_v),
        _ => (none, 0),
    };
    let max_load = loads.iter().copied().max().unwrap_or(0) as f64;
    LevelRecord {
        level,
        elements: forest.nleaves(),
        load_imb: imb.load_imb,
        lambda_pct: imb.lambda_pct,
        lb: imb.lb,
        load_imb_before: balance.map_or(imb.load_imb, |b| b.load_imb_before),
        cut_pct: cut.percent(),
        total_v: movement.total_v,
        max_v: movement.max_v,
        max_sr: movement.max_sr,
        identity_total_v: identity,
        comm_mb: moved.bytes as f64 / 1e6,
        trees_moved: moved.trees,
        elements_moved: moved.elements,
        balance_triggered: balance.is_some_and(|b| b.triggered),
        remap_accepted: accepted,
        gain_s: balance.map_or(0.0, |b| b.gain),
        cost_s: balance.map_or(0.0, |b| b.cost),
        remapper: balance
            .and_then(|b| b.remap.as_ref())
            .map_or(String::new(), |r| r.solver.to_string()),
        solver_s: max_load * cfg.plum.model.time_per_load * cfg.plum.model.iterations as f64,
        balance_pct: 100.0 * balancer_ms(&time_ms) / time_ms.values().sum::<f64>().max(1e-9),
        time_ms,
    }
}

/// Milliseconds the balancer took in a level's stage times.
pub fn balancer_ms(time_ms: &BTreeMap<String, f64>) -> f64 {
    ["partition", "similarity", "reassignment", "migration"]
        .iter()
        .filter_map(|k| time_ms.get(*k))
        .sum()
}

/// Marks the leaves the front touches at `level` for refinement and the refined leaves it does
/// not touch for coarsening.
fn mark_front(forest: &mut Forest, front: &Front, level: usize, lo: [f64; 3], hi: [f64; 3]) {
    let length = hi[0] - lo[0];
    let width = hi[1] - lo[1];
    let centre = [
        lo[0] + length * (front.start + front.step * (level - 1) as f64),
        lo[1] + 0.5 * width,
    ];
    let radius = width * front.radius * (1.0 + front.growth).powi(level as i32 - 1);
    let touches = |corners: &[[f64; 3]; 4], c: [f64; 3]| {
        let d2 = |p: [f64; 3]| (p[0] - centre[0]).powi(2) + (p[1] - centre[1]).powi(2);
        let reach = corners
            .iter()
            .map(|&p| geometry::dist2(p, c).sqrt())
            .fold(0.0, f64::max);
        d2(c).sqrt() <= radius + reach
    };
    let mut refine = Vec::new();
    let mut coarsen = Vec::new();
    forest.for_each_leaf(|l| {
        if touches(&l.corners, l.centroid) {
            refine.push(l.id);
        } else if l.level > 0 {
            coarsen.push(l.id);
        }
    });
    refine.into_iter().for_each(|id| forest.mark_refine(id));
    coarsen.into_iter().for_each(|id| forest.mark_coarsen(id));
}
