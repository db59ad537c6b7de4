//! The shock case in one process: [`run`] and [`run_many`] adapt the mesh level by level and
//! let one or more [`Track`]s (PLUM, SBN or none, each on its own assignment) balance and
//! record every level on the simulated machine; [`ShockRun`] is a finished run, made here or
//! on ranks (`ranks.rs`).

use std::time::Instant;

use crate::error::Result;
use plume::adapt::{AdaptOptions, Forest, Locator};
use plume::graph::DualGraph;
use plume::mesh::{geometry, Mesh};

use crate::budget;

use super::front::{mark_front, FrontAt};
use super::memory::{balancing_bytes, check_memory, fits, uniform_what, UNIFORM_HINT};
use super::track::Track;
use super::{plum_track, sbn_track};
use super::{Balancer, ShockConfig};
use super::{LevelRecord, Stage, StageTimes};

/// A finished run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShockRun {
    /// The configuration.
    pub config: ShockConfig,
    /// Roots of the initial mesh.
    pub roots: usize,
    /// One record per level.
    pub levels: Vec<LevelRecord>,
    /// On real ranks: the ranks' CPU account (`metrics.json`'s `cpu`).
    pub cpu: Option<plume::metrics::RunCpu>,
}

impl ShockRun {
    /// [Huck 2010]'s decomposition of the whole run on the simulated machine, the levels as its
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
    /// [`ShockRun::time_balance`] as `time_balance`; on real ranks, their CPU account as
    /// `cpu`.
    pub fn report(&self) -> crate::report::Report {
        let mut report = crate::report::Report::new(&self.config, "levels", &self.levels);
        if let Some(b) = self.time_balance() {
            report.insert_summary("time_balance", &b);
        }
        if let Some(cpu) = &self.cpu {
            report.insert_run("cpu", cpu);
        }
        if let Some(select) = crate::selection::SelectSummary::of(
            self.levels.iter().filter_map(|l| l.select.as_ref()),
        ) {
            report.insert_summary("select", &select);
        }
        report
    }
}

/// The track `cfg` asks for, starting from the initial partition of `graph`.
pub fn track(cfg: &ShockConfig, graph: &DualGraph) -> Result<Box<dyn Track>> {
    if cfg.procs == 0 || cfg.procs > graph.nvertices() {
        return Err(crate::Error::RanksExceedRoots {
            procs: cfg.procs,
            roots: graph.nvertices(),
        });
    }
    super::select::refuse_on_the_simulated_machine(cfg)?;
    let plum = plum_track::PlumTrack::new(cfg, graph)?;
    Ok(match cfg.balancer {
        Balancer::Plum | Balancer::None | Balancer::Hier => Box::new(plum),
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
    each_level: impl FnMut(usize, &Forest, &[Box<dyn Track>], &[LevelRecord]) -> Result<()>,
) -> Result<Vec<ShockRun>> {
    run_many_with(cfgs, mesh, |cfg, _, graph| track(cfg, graph), each_level)
}

/// [`run_many`] with the tracks made by `make` (one per configuration; [`track`] in
/// [`run_many`]), so that a caller can wrap them (the recorder of `sequence.rs`).
pub(super) fn run_many_with(
    cfgs: &[ShockConfig],
    mesh: Mesh,
    make: impl Fn(&ShockConfig, &Forest, &DualGraph) -> Result<Box<dyn Track>>,
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
    refine_to_base(&mut forest, first, roots, balancing)?;
    let mut graph = DualGraph::new(&forest);
    let mut tracks = cfgs
        .iter()
        .map(|cfg| make(cfg, &forest, &graph))
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
            cpu: None,
        })
        .collect())
}

/// Refines every root of `forest` uniformly `cfg.front.uniform` times (the base depth of the
/// front), checking each time that the leaves fit the budget of `cfg` on `roots` roots with
/// `balancing` bytes of balancer tables.
fn refine_to_base(
    forest: &mut Forest,
    cfg: &ShockConfig,
    roots: usize,
    balancing: u128,
) -> Result<()> {
    let times = cfg.front.uniform;
    for time in 1..=times {
        let leaves = budget::leaves_after(forest.nleaves(), forest.nleaves());
        fits(
            &cfg.budget,
            [roots as u128, leaves, balancing],
            &uniform_what(time, times, leaves),
            UNIFORM_HINT,
        )?;
        forest.mark_refine_where(|_| true);
        forest.adapt()?;
    }
    Ok(())
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
