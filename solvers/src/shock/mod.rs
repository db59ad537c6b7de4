//! The shock-wave test case (seed 004 §5.3, `test-cases.md`): a cylinder with its axis along z
//! moves along +x across a box elongated along x; leaves it touches are refined up to a maximum
//! depth, refined leaves it has left behind are coarsened, one level per adaptation. Each
//! adaptation is followed by one or more *tracks* ([`Track`]): a balancer on P ranks (PLUM,
//! SBN, or none) that owns its assignment, processes the level on the simulated machine and
//! records the level's metrics. The adaptation does not depend on the balancing, so
//! `plume compare` runs every (method, P) track on one adaptation. `plume run shock` with PLUM
//! or no balancer runs the case on real ranks instead ([`ranks`]), with the same marks
//! (`FrontAt`) and the same level records, made on rank 0.
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

mod mesh;
mod plum_track;
pub mod ranks;
mod record;
mod sbn_ranks;
mod sbn_track;
mod stage;

use std::time::Instant;

use plume::adapt::{AdaptOptions, Forest, LeafId, LeafView, Locator, Region};
use plume::balance::{Accept, PlumOptions, SbnOptions, Variant};
use plume::dist::Mark;
use plume::graph::{DualGraph, Weights};
use plume::mesh::{geometry, Mesh};
use plume::sim::Machine;
use plume::Result;
use serde::Serialize;

use crate::budget::{self, Budget};
pub use mesh::{published_mesh, published_mesh_and_source, PUBLISHED_MESH_NAME};

use crate::cli::names::{ObjectiveName, PartitionerName, PolicyName};
pub use record::{error_pct, LevelRecord, MeasuredRecord, SbnRecord, SimRecord, Traffic};
pub use stage::{balancer_ms, Stage, StageTimes};

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

/// When PLUM balances within an adaptation step; written as on the command line (`before`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BalanceAt {
    /// After closure, on predicted weights, before subdivision (PLUM's way: less data moves).
    #[serde(rename = "before")]
    BeforeSubdivision,
    /// After subdivision, on the new weights.
    #[serde(rename = "after")]
    AfterSubdivision,
}

/// Which balancer a track runs; written as on the command line (`plum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Balancer {
    /// PLUM: repartition, remap, migrate (semi-dynamic).
    Plum,
    /// SBN: balance while processing, move data lazily (dynamic).
    Sbn,
    /// No balancing: the roots stay on the ranks of the initial partition.
    None,
}

/// A shock-wave run's configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShockConfig {
    /// Number of ranks.
    pub procs: usize,
    /// The balancer.
    pub balancer: Balancer,
    /// PLUM's reassignment objective.
    pub objective: ObjectiveName,
    /// PLUM's partitioner; also makes the initial partition.
    pub partitioner: PartitionerName,
    /// PLUM's when-to-balance policy (no assumed first cost, ULBA with α 0.4 and z 3).
    pub policy: PolicyName,
    /// PLUM's parts per processor.
    pub parts_per_proc: usize,
    /// Adaptation levels.
    pub levels: usize,
    /// Seed of the partitioner.
    pub seed: u64,
    /// When PLUM balances.
    pub balance_at: BalanceAt,
    /// PLUM's accept rule and cost model.
    #[serde(serialize_with = "plum_options_json")]
    pub plum: PlumOptions,
    /// SBN's options.
    #[serde(serialize_with = "sbn_options_json")]
    pub sbn: SbnOptions,
    /// The simulated machine both are timed on.
    pub machine: Machine,
    /// The front.
    pub front: Front,
    /// On ranks: process every level with this kernel after its step (SBN balancing while
    /// the ranks process; PLUM and no balancing processing statically). `None`: no processing
    /// level (the simulated machine times the levels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processing: Option<plume::dist::Kernel>,
    /// The memory the run may use, checked before it starts and before each level's
    /// subdivision (unlimited by default; the command line reads the system's). Not part of
    /// the case: never written to the reports.
    #[serde(skip)]
    pub budget: Budget,
}

impl ShockConfig {
    /// The published case's shape on `procs` ranks: PLUM with METIS, optimal TotalV, threshold
    /// 1.05, balancing before subdivision, 9 levels; SBN Basic when chosen.
    pub fn new(procs: usize) -> Self {
        ShockConfig {
            procs,
            balancer: Balancer::Plum,
            objective: ObjectiveName::TotalV,
            partitioner: PartitionerName::Metis,
            policy: PolicyName::Threshold(None),
            parts_per_proc: 1,
            levels: 9,
            seed: 1,
            balance_at: BalanceAt::BeforeSubdivision,
            plum: PlumOptions::new(procs),
            sbn: SbnOptions::default(),
            machine: Machine::default(),
            front: Front::default(),
            processing: None,
            budget: Budget::UNLIMITED,
        }
    }
}

/// The word `--accept` takes for `accept`.
pub fn accept_word(accept: Accept) -> &'static str {
    match accept {
        Accept::CostModel => "cost",
        Accept::Always => "always",
        Accept::Never => "never",
    }
}

/// The word `--variant` takes for `variant`.
pub fn variant_word(variant: Variant) -> &'static str {
    match variant {
        Variant::Basic => "basic",
        Variant::Heuristic => "heuristic",
    }
}

/// `options` as JSON with `accept` spelled as on the command line.
fn plum_options_json<S: serde::Serializer>(
    options: &PlumOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("accept", accept_word(options.accept))];
    with_words(options, &spelled).serialize(s)
}

/// `options` as JSON with `variant` spelled as on the command line.
fn sbn_options_json<S: serde::Serializer>(
    options: &SbnOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("variant", variant_word(options.variant))];
    with_words(options, &spelled).serialize(s)
}

/// `value` as a JSON object whose fields named in `words` hold the given words instead.
fn with_words(value: &impl serde::Serialize, words: &[(&str, &str)]) -> serde_json::Value {
    let mut json = serde_json::to_value(value).expect("options serialize");
    for (field, word) in words {
        json[*field] = serde_json::Value::from(*word);
    }
    json
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

impl ShockRun {
    /// Seed 003's decomposition of the whole run on the simulated machine, the levels as its
    /// iterations: `T_p` processor p's processing time summed over the levels, `T_ideal` the
    /// sum of each level's largest, `T` the sum of the levels' times. `μLB < 1` when the most
    /// loaded processor changes from level to level. `None` without a level.
    pub fn time_balance(&self) -> Option<plume::metrics::TimeBalance> {
        let procs = self.config.procs;
        let times: Vec<Vec<f64>> = (0..procs)
            .map(|p| self.levels.iter().map(|l| l.processing_s[p]).collect())
            .collect();
        let elapsed = self.levels.iter().map(|l| l.sim.time_s).sum();
        plume::metrics::TimeBalance::new(&times, elapsed).ok()
    }

    /// The run's report: its levels, their summary and, in the summary, the run's
    /// [`ShockRun::time_balance`] as `time_balance`.
    pub fn report(&self) -> crate::report::Report {
        let mut report = crate::report::Report::new(&self.config, "levels", &self.levels);
        if let Some(b) = self.time_balance() {
            report.insert_summary("time_balance", &b);
        }
        report
    }
}

/// A balancer following the adaptation level by level on its own assignment.
pub trait Track {
    /// The rank owning every root (after the last level: where it was processed).
    fn owner(&self) -> &[u32];
    /// After closure, before subdivision, with the predicted weights.
    fn before_subdivision(
        &mut self,
        forest: &Forest,
        graph: &DualGraph,
        predicted: &Weights,
    ) -> Result<()>;
    /// After subdivision and the weight update: finish balancing, process the level on the
    /// simulated machine, and return its record (`adapt_ms`: the adaptation's stage times).
    fn after_subdivision(
        &mut self,
        level: usize,
        forest: &Forest,
        graph: &DualGraph,
        adapt_ms: &StageTimes,
    ) -> Result<LevelRecord>;
}

/// The track `cfg` asks for, starting from the initial partition of `graph`.
pub fn track(cfg: &ShockConfig, forest: &Forest, graph: &DualGraph) -> Result<Box<dyn Track>> {
    if cfg.procs == 0 || cfg.procs > graph.nvertices() {
        return Err(plume::Error::Invalid(format!(
            "--procs {} must be between 1 and the number of roots ({})",
            cfg.procs,
            graph.nvertices()
        )));
    }
    let plum = plum_track::PlumTrack::new(cfg, forest, graph)?;
    Ok(match cfg.balancer {
        Balancer::Plum | Balancer::None => Box::new(plum),
        Balancer::Sbn => Box::new(sbn_track::SbnTrack::new(cfg, plum.owner().to_vec())),
    })
}

/// Runs the shock-wave case on `mesh` with one balancer; `each_level` sees the level number,
/// its record (none at level 0, the initial mesh and partition), the forest and the owners, at
/// level 0 and after every level (to print the record's row as the level ends, write VTK files,
/// advance a progress bar).
pub fn run(
    cfg: &ShockConfig,
    mesh: Mesh,
    mut each_level: impl FnMut(usize, Option<&LevelRecord>, &Forest, &[u32]) -> Result<()>,
) -> Result<ShockRun> {
    let mut runs = run_many(
        std::slice::from_ref(cfg),
        mesh,
        |level, forest, tracks, records| {
            each_level(level, records.first(), forest, tracks[0].owner())
        },
    )?;
    Ok(runs.remove(0))
}

/// Runs the shock-wave case once and balances it with every configuration of `cfgs` side by
/// side (they must agree on the front and the number of levels, which `cfgs[0]` gives);
/// `each_level` sees the level number, the forest, the tracks and their records of the level
/// (one per configuration; none at level 0, the initial mesh and partitions), at level 0 and
/// after every level.
pub fn run_many(
    cfgs: &[ShockConfig],
    mesh: Mesh,
    mut each_level: impl FnMut(usize, &Forest, &[Box<dyn Track>], &[LevelRecord]) -> Result<()>,
) -> Result<Vec<ShockRun>> {
    let Some(first) = cfgs.first() else {
        return Ok(Vec::new());
    };
    let roots = mesh.nelems();
    check_memory(cfgs, roots)?;
    let balancing = balancing_bytes(cfgs, roots).0;
    let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
    let locator = Locator::new(&mesh);
    let mut forest = Forest::new(
        mesh,
        AdaptOptions {
            max_depth: first.front.max_depth,
            nfields: 0,
            ..AdaptOptions::default()
        },
    )?;
    let mut graph = DualGraph::new(&forest);
    let mut tracks = cfgs
        .iter()
        .map(|cfg| track(cfg, &forest, &graph))
        .collect::<Result<Vec<_>>>()?;
    let mut levels = vec![Vec::with_capacity(first.levels); cfgs.len()];
    each_level(0, &forest, &tracks, &[])?;
    for level in 1..=first.levels {
        let mut watch = Stopwatch::start();
        let front = FrontAt::new(&first.front, level, lo, hi);
        let divided = mark_front(&mut forest, &locator, &front);
        let leaves = budget::leaves_after(forest.nleaves(), divided);
        fits(
            &first.budget,
            [roots as u128, leaves, balancing],
            &format!("level {level} of {}: about {leaves} leaves", first.levels),
            "use fewer levels",
        )?;
        watch.lap(Stage::Mark);
        forest.coarsen()?;
        watch.lap(Stage::Coarsen);
        forest.close()?;
        watch.lap(Stage::Closure);
        let predicted = graph.predict(&forest);
        watch.lap(Stage::Predict);
        for t in &mut tracks {
            t.before_subdivision(&forest, &graph, &predicted)?;
        }
        watch.skip();
        let report = forest.subdivide();
        watch.lap(Stage::Subdivision);
        graph.update(&forest, &report.changed_roots);
        watch.lap(Stage::Weights);
        let mut this_level = Vec::with_capacity(tracks.len());
        for t in &mut tracks {
            this_level.push(t.after_subdivision(level, &forest, &graph, &watch.times)?);
        }
        each_level(level, &forest, &tracks, &this_level)?;
        for (records, record) in levels.iter_mut().zip(this_level) {
            records.push(record);
        }
    }
    Ok(cfgs
        .iter()
        .zip(levels)
        .map(|(cfg, levels)| ShockRun {
            config: cfg.clone(),
            roots,
            levels,
        })
        .collect())
}

/// Wall-clock milliseconds per stage of a level.
struct Stopwatch {
    clock: Instant,
    times: StageTimes,
}

impl Stopwatch {
    fn start() -> Self {
        Stopwatch {
            clock: Instant::now(),
            times: StageTimes::new(),
        }
    }

    /// Records the time since the last lap under `stage`.
    fn lap(&mut self, stage: Stage) {
        self.times
            .insert(stage, self.clock.elapsed().as_secs_f64() * 1e3);
        self.clock = Instant::now();
    }

    /// Restarts the lap without recording it (time the tracks record themselves).
    fn skip(&mut self) {
        self.clock = Instant::now();
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

/// Checks, before anything is built, that running `cfgs` (as [`run_many`] does) on a mesh of
/// `roots` roots fits the memory budget of `cfgs[0]`: the forest and graph of the initial
/// mesh and the largest balancer's tables. [`run_many`] checks it, and each level's growth.
///
/// # Errors
/// When the budget is too small, naming the balancer and P that need the most.
pub fn check_memory(cfgs: &[ShockConfig], roots: usize) -> Result<()> {
    let (balancing, largest) = balancing_bytes(cfgs, roots);
    let Some(cfg) = largest else {
        return Ok(());
    };
    let name = balancer_name(cfg.balancer);
    fits(
        &cfgs[0].budget,
        [roots as u128, roots as u128, balancing],
        &format!(
            "the shock case on {roots} roots with {name} on P = {}",
            cfg.procs
        ),
        "use fewer processors or a smaller mesh",
    )
}

/// The balancer's name in messages.
fn balancer_name(balancer: Balancer) -> &'static str {
    match balancer {
        Balancer::Plum => "PLUM",
        Balancer::Sbn => "SBN",
        Balancer::None => "no balancer",
    }
}

/// Refuses `[roots, leaves, balancing bytes]` beyond `budget`.
fn fits(
    budget: &Budget,
    [roots, leaves, balancing]: [u128; 3],
    what: &str,
    hint: &str,
) -> Result<()> {
    let need = budget::run_bytes(roots, leaves).saturating_add(balancing);
    budget
        .check(what, need, hint)
        .map_err(plume::Error::Invalid)
}

/// The tracks balance one after the other: the bytes of the largest balancer's tables among
/// `cfgs`, and its configuration.
fn balancing_bytes(cfgs: &[ShockConfig], roots: usize) -> (u128, Option<&ShockConfig>) {
    cfgs.iter()
        .map(|c| (balancer_bytes(c, roots), Some(c)))
        .max_by_key(|&(bytes, _)| bytes)
        .unwrap_or((0, None))
}

/// The memory a balancer needs besides the forest's, for `roots` roots: SBN's per-processor
/// tables, PLUM's dense remap matrices.
fn balancer_bytes(cfg: &ShockConfig, roots: usize) -> u128 {
    let procs = cfg.procs as u128;
    match cfg.balancer {
        Balancer::Sbn => budget::bytes(
            procs.saturating_mul(roots as u128),
            budget::SBN_BYTES_PER_PROC_ROOT,
        ),
        Balancer::Plum => {
            let parts = procs.saturating_mul(cfg.parts_per_proc as u128);
            budget::bytes(
                parts.saturating_mul(parts),
                budget::remap_bytes_per_entry(cfg.objective),
            )
        }
        Balancer::None => 0,
    }
}

/// The front at one level: which leaves it touches.
pub(crate) struct FrontAt {
    /// The cylinder's axis (x, y).
    centre: [f64; 2],
    radius: f64,
    max_depth: u8,
}

impl FrontAt {
    /// `front` at `level` in the box `[lo, hi]`.
    pub(crate) fn new(front: &Front, level: usize, lo: [f64; 3], hi: [f64; 3]) -> Self {
        let length = hi[0] - lo[0];
        let width = hi[1] - lo[1];
        FrontAt {
            centre: [
                lo[0] + length * (front.start + front.step * (level - 1) as f64),
                lo[1] + 0.5 * width,
            ],
            radius: width * front.radius * (1.0 + front.growth).powi(level as i32 - 1),
            max_depth: front.max_depth,
        }
    }

    /// What the front asks of `leaf`: refine it when the front touches it, coarsen it when
    /// refined and untouched.
    pub(crate) fn mark(&self, leaf: &LeafView) -> Mark {
        let c = leaf.centroid;
        let reach = leaf
            .corners
            .iter()
            .map(|&p| geometry::dist2(p, c).sqrt())
            .fold(0.0, f64::max);
        let d = ((c[0] - self.centre[0]).powi(2) + (c[1] - self.centre[1]).powi(2)).sqrt();
        if d <= self.radius + reach {
            Mark::Refine
        } else if leaf.level > 0 {
            Mark::Coarsen
        } else {
            Mark::Keep
        }
    }

    /// The front as a region: the cylinder the leaves' bounding balls are tested against.
    pub(crate) fn region(&self) -> Region {
        Region::Cylinder {
            axis: 2,
            centre: [self.centre[0], self.centre[1], 0.0],
            radius: self.radius,
        }
    }
}

/// The leaves the front asks to refine and to coarsen, in [`Forest::for_each_leaf`]'s order.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FrontMarks {
    /// Leaves to refine.
    pub(crate) refine: Vec<LeafId>,
    /// Leaves to coarsen.
    pub(crate) coarsen: Vec<LeafId>,
    /// How many of `refine` the step divides (below the maximum depth).
    pub(crate) divided: usize,
}

/// What [`FrontAt::mark`] asks of the leaves of the trees `forest` holds, visiting only the
/// roots `locator` finds within reach of the front: the leaves of the others are untouched,
/// so coarsened when refined, kept when roots.
pub(crate) fn front_marks(forest: &Forest, locator: &Locator, at: &FrontAt) -> FrontMarks {
    let near = locator.roots_reaching(&at.region());
    let mut marks = FrontMarks::default();
    let mut next_near = near.iter().copied().peekable();
    for r in 0..forest.nroots() as u32 {
        if next_near.next_if_eq(&r).is_some() {
            forest.for_each_leaf_in(&[r], |l| match at.mark(l) {
                Mark::Refine => {
                    marks.refine.push(l.id);
                    marks.divided += usize::from(l.level < at.max_depth);
                }
                Mark::Coarsen => marks.coarsen.push(l.id),
                Mark::Keep => {}
            });
        } else if forest.holds(r) && forest.trees()[r as usize].nleaves > 1 {
            let leaves = forest.trees()[r as usize].leaves_dfs();
            marks
                .coarsen
                .extend(leaves.into_iter().map(|elem| LeafId { root: r, elem }));
        }
    }
    marks
}

/// Marks the leaves [`FrontAt::mark`] asks to refine or coarsen at `level` (through
/// [`front_marks`]); returns how many of them the step divides.
fn mark_front(forest: &mut Forest, locator: &Locator, at: &FrontAt) -> usize {
    let marks = front_marks(forest, locator, at);
    marks
        .refine
        .into_iter()
        .for_each(|id| forest.mark_refine(id));
    marks
        .coarsen
        .into_iter()
        .for_each(|id| forest.mark_coarsen(id));
    marks.divided
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks of a walk over every leaf, as the front marked before the locator.
    fn walk_marks(forest: &Forest, at: &FrontAt) -> FrontMarks {
        let mut marks = FrontMarks::default();
        forest.for_each_leaf(|l| match at.mark(l) {
            Mark::Refine => {
                marks.refine.push(l.id);
                marks.divided += usize::from(l.level < at.max_depth);
            }
            Mark::Coarsen => marks.coarsen.push(l.id),
            Mark::Keep => {}
        });
        marks
    }

    #[test]
    fn the_front_marks_near_roots_only_and_marks_as_a_walk_over_every_leaf() {
        let mesh = plume::mesh::generate_box([16, 4, 4], [4.0, 1.0, 1.0]).unwrap();
        let (lo, hi) = geometry::bounding_box(mesh.coords.iter().copied());
        let locator = Locator::new(&mesh);
        let front = Front::default();
        let opts = AdaptOptions {
            max_depth: front.max_depth,
            nfields: 0,
            ..AdaptOptions::default()
        };
        let mut forest = Forest::new(mesh, opts).unwrap();
        for level in 1..=6 {
            let at = FrontAt::new(&front, level, lo, hi);
            let marks = front_marks(&forest, &locator, &at);
            assert_eq!(marks, walk_marks(&forest, &at), "level {level}");
            assert!(marks.divided > 0, "level {level}: the front refines");
            // One rank's part: the trees of odd roots held elsewhere.
            let mut part = forest.clone();
            let odd: Vec<u32> = (1..part.nroots() as u32).step_by(2).collect();
            part.take_trees(&odd).unwrap();
            assert_eq!(
                front_marks(&part, &locator, &at),
                walk_marks(&part, &at),
                "level {level}, even roots"
            );
            mark_front(&mut forest, &locator, &at);
            forest.adapt().unwrap();
        }
        assert!(
            locator
                .roots_reaching(&FrontAt::new(&front, 6, lo, hi).region())
                .len()
                < forest.nroots() / 2,
            "the front's region holds a minority of the roots"
        );
    }
}
