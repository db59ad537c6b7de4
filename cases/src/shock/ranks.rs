//! The shock case on real ranks (`docs/design/distributed.md`): one rank's part of a run through
//! [`plume::dist::Run`] (each rank holding its part of the mesh), which marks with the front, adapts, balances with PLUM (rank 0
//! decides and broadcasts) and migrates the trees. Rank 0 holds the gathered weights and
//! owners and makes each level's record as the single-process track does
//! (`plum_record`), the simulated machine's figures included: a run's records are the
//! simulated run's for every P and backend, and the threads backend at P = 1 is the serial
//! program. With a processing kernel (`ShockConfig::processing`) every step is followed by a
//! processing level on the ranks (`Run::process`): SBN balances in it and moves trees lazily
//! (`sbn_ranks`), PLUM and no balancing process statically; the records then hold what was
//! measured.

use std::time::Instant;

use crate::error::{Error, Result};
use plume::adapt::{AdaptOptions, Forest};
use plume::balance::Migration;
use plume::comm::{Comm, CommExt};
use plume::dist::{self, FirstOwners, Run, StepReport};
use plume::mesh::chunk::spread;
use plume::mesh::{geometry, Mesh};
use plume::metrics::Movement;

use super::front::{front_marks, FrontAt};
use super::load_models::LoadModels;
use super::memory::{
    balancer_name, balancing_bytes, check_uniform, fits, uniform_what, UNIFORM_HINT,
};
use super::plum_track::{balancer_times, plum_over, plum_record, PlumLevel};
use super::stage::adaptation_times_ms;
use super::{Balancer, LevelRecord, ShockConfig, ShockRun};
use crate::budget;
use crate::checkpoint::Checkpoints;
use crate::hier::HierSettings;
use crate::minex::MinexPartitioner;
use crate::words::PolicySettings;
use plume::balance::PlumOptions;
use std::sync::Arc;

/// Runs this rank's part of the shock case with `cfg` (PLUM, SBN or no balancer, on
/// `comm.size()` ranks; with `cfg.processing`, each step is followed by a processing level:
/// SBN balances in it, the others process statically) from `mesh`, the mesh rank 0 read
/// (`Some` there, `None` on every other rank), which rank 0 spreads in chunks so that each
/// rank holds only its part and rank 0 its gathered balancer's graph
/// ([`FirstOwners::Balancer`]) (`serial`: the CPU this process spent reading the mesh and
/// building it, for the run's CPU account); `all_ranks_here` says whether
/// this process holds every rank (threads) or only this one (MPI), for the memory checks.
/// `each_level` sees, on every rank, the level, its record (on rank 0; none at level 0, the
/// initial mesh and partition), this rank's forest and the owners, at level 0 and after every
/// level; its errors end every rank. With `checkpoints`, the run continues from a checkpoint
/// (its records start after the checkpoint's level, whose mesh `each_level` sees first) and
/// writes them as asked. Returns the run on rank 0, `None` on the others.
///
/// # Errors
/// [`Error::WrongRanks`] when `cfg` is not for `comm.size()` ranks,
/// [`Error::SettingOutOfRange`] when it asks for SBN without a processing kernel; any rank's
/// error, on every rank.
pub fn run_rank<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ShockConfig,
    (mesh, serial): (Option<Mesh>, &plume::dist::CpuLaps),
    all_ranks_here: bool,
    checkpoints: &Checkpoints,
    mut each_level: impl FnMut(usize, Option<&LevelRecord>, &Forest, &[u32]) -> Result<()>,
) -> Result<Option<ShockRun>> {
    if cfg.procs != comm.size() {
        return Err(Error::WrongRanks {
            set_for: cfg.procs,
            has: comm.size(),
        });
    }
    if cfg.balancer == Balancer::Sbn && cfg.processing.is_none() {
        return Err(Error::SettingOutOfRange {
            setting: "balancer".into(),
            value: "SBN".into(),
            rule: "on ranks balances while the ranks process the levels: it needs a \
                   `processing` kernel"
                .into(),
        });
    }
    let facts = mesh.as_ref().map(|mesh| (mesh.nelems(), bounds(mesh)));
    let (roots, (lo, hi)) = comm.broadcast_serde(0, facts.as_ref())?;
    let ranks_here = if all_ranks_here { cfg.procs } else { 1 };
    comm.agree_as(check_memory(cfg, roots, ranks_here))?;
    comm.agree_as(cfg.machine_grid())?;
    // The partitioners run on rank 0's dual graph, whose coordinates are the root centroids.
    let (balancer, minex) = comm.agree_as(balancer_over(cfg))?;
    let minex = minex.as_deref();
    let opts = AdaptOptions {
        max_depth: cfg.front.max_depth,
        nfields: 0,
        ..AdaptOptions::default()
    };
    let at = match cfg.balancer {
        Balancer::Sbn => dist::BalanceAt::Never,
        _ => cfg.balance_at,
    };
    // Each rank holds only its part of the mesh, processing levels included.
    let chunk = |comm: &C| spread(comm, mesh);
    let mut run =
        Run::from_chunk(comm, chunk, opts, balancer, FirstOwners::Balancer)?.balance_at(at);
    let mut cpu = crate::cpu::start(comm, run.startup_cpu(), Some(serial))?;
    let identity = identity(cfg);
    // A checkpoint holds the uniform refinement's steps.
    let first = checkpoints.restart::<_, usize>(&mut run, &identity)?;
    if let Some(level) = first.filter(|&level| level >= cfg.levels) {
        let levels = cfg.levels;
        let what = format!("the run was written after level {level}, this run ends at {levels}");
        return Err(checkpoints.nothing_left(&what));
    }
    let first = first.unwrap_or(0);
    if checkpoints.restart.is_none() {
        refine_to_base(cfg, &mut run, &mut cpu, ranks_here)?;
    }
    let s_per_leaf = kernel_cost(&run, cfg)?;
    comm.agree_as(each_level(first, None, run.forest(), run.owner()))?;
    let mut levels = Vec::with_capacity(cfg.levels - first);
    for level in first + 1..=cfg.levels {
        let front = FrontAt::new(&cfg.front, level, lo, hi);
        let marking = Instant::now();
        let marks = front_marks(run.forest(), run.forest().initial().locator(), &front);
        let marking = marking.elapsed();
        check_level_memory(cfg, &run, marks.divided, level, ranks_here)?;
        let start = (comm.rank() == 0).then(|| gathered_owner(&run).to_vec());
        let mut report = run.step_marked(marks.refine, marks.coarsen)?;
        report.times.mark += marking;
        // The case's level, not the run's step count: the uniform refinement's steps come first.
        report.metrics.level = level;
        crate::cpu::add_step(comm, &mut cpu, &report.cpu)?;
        let record = match cfg.processing {
            None => start.map(|start| record(cfg, &run, &report, (&start, minex))),
            Some(kernel) => {
                let previous = levels.last().map(processing_times);
                let start = (&report, start);
                let level = (level, previous.as_deref());
                let start = (start, minex);
                process(cfg, &mut run, kernel, level, start, s_per_leaf)?
            }
        };
        comm.agree_as(each_level(
            level,
            record.as_ref(),
            run.forest(),
            run.owner(),
        ))?;
        levels.extend(record);
        checkpoints.write_if_due(&run, &identity, level, || level)?;
    }
    Ok((comm.rank() == 0).then(|| ShockRun {
        config: cfg.clone(),
        roots,
        levels,
        cpu: Some(cpu),
    }))
}

/// What a checkpoint of the case run with `cfg` must match to continue it: the case and its
/// front (the mesh's own hash is the library's); the balancer, P and backend may change.
fn identity(cfg: &ShockConfig) -> String {
    format!("shock case, front {:?}", cfg.front)
}

/// The kernel's measured seconds per leaf on rank 0's initial trees (0 elsewhere, and
/// without a processing level); a collective.
fn kernel_cost<C: Comm + ?Sized>(run: &Run<C>, cfg: &ShockConfig) -> Result<f64> {
    let measured = match cfg.processing {
        Some(kernel) if run.comm().rank() == 0 => kernel.seconds_per_leaf(run.forest(), 3),
        _ => Ok(0.0),
    };
    Ok(run.comm().agree_as(measured)?)
}

/// Each rank's processing seconds in `record`'s level.
fn processing_times(record: &LevelRecord) -> Vec<f64> {
    record.rank_times.iter().map(|t| t.processing).collect()
}

/// The processing level after step `level` (`report`; `start`: the owners before it, on rank
/// 0, and MinEX when PLUM runs it; `previous`: each rank's processing seconds at the previous
/// level, on rank 0): SBN
/// balancing while the ranks process, or each rank processing its own roots, its load models
/// then weighed against what the ranks measured. Returns rank 0's record of the level.
fn process<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &mut Run<C>,
    kernel: plume::dist::Kernel,
    (level, previous): (usize, Option<&[f64]>),
    ((report, start), minex): ((&StepReport, Option<Vec<u32>>), Option<&MinexPartitioner>),
    s_per_leaf: f64,
) -> Result<Option<LevelRecord>> {
    let sbn = (cfg.balancer == Balancer::Sbn).then_some(plume::balance::SbnOptions {
        seed: cfg.sbn.seed ^ level as u64,
        ..cfg.sbn
    });
    let processing = sbn.map_or(dist::Processing::Static, dist::Processing::Sbn);
    let opts = dist::LevelOptions {
        scales: cfg.machine.scales(),
        ..dist::LevelOptions::new(processing)
    };
    // The owners the level starts from: after the step's balance (none under SBN).
    let from = (run.comm().rank() == 0).then(|| gathered_owner(run).to_vec());
    let processed = run.process(&opts, &mut { kernel })?;
    // Rank 0 predicts; a failure there ends every rank.
    let predicted = match (&from, run.graph()) {
        (Some(from), Some(graph)) => predicted(cfg, graph, from, sbn),
        _ => Ok(0.0),
    };
    let predicted = run.comm().agree_as(predicted)?;
    let Some(start) = start else {
        return Ok(None);
    };
    let measured = (&processed, s_per_leaf, predicted);
    Ok(Some(match sbn {
        Some(_) => super::sbn_ranks::sbn_record(cfg, run, report, &start, measured),
        None => {
            let record = record(cfg, run, report, (&start, minex));
            let mut record = super::sbn_ranks::with_measured(record, measured);
            record.load_models = load_models(cfg, run, &processed, previous);
            record
        }
    }))
}

/// The load models of a static level the ranks `processed` (on rank 0, which keeps the dual
/// graph and the owners the level ran on), against each rank's measured processing time;
/// `previous`: each rank's time at the previous level.
fn load_models<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &Run<C>,
    processed: &dist::ProcessedLevel,
    previous: Option<&[f64]>,
) -> Option<LoadModels> {
    let (graph, owner) = (run.graph()?, run.gathered_owner()?);
    let measured: Vec<f64> = processed.ranks.iter().map(|r| r.times.processing).collect();
    let leaves: Vec<f64> = processed.ranks.iter().map(|r| r.leaves as f64).collect();
    let qwgt = cfg.with_costs(graph, |model| model.qwgt(owner, owner, cfg.procs));
    LoadModels::new(&measured, &leaves, &qwgt, previous)
}

/// The simulated machine's time for a processing level of `graph`'s weights starting from
/// `from`, statically or balanced by SBN with `sbn`, as the ranks process it: the level the
/// ranks measured, predicted (seconds; the remap is the step's, not the level's).
fn predicted(
    cfg: &ShockConfig,
    graph: &plume::graph::DualGraph,
    from: &[u32],
    sbn: Option<plume::balance::SbnOptions>,
) -> Result<f64> {
    cfg.with_costs(graph, |model| {
        Ok(match sbn {
            Some(opts) => {
                let shared = plume::balance::sbn::Shared::new(model, cfg.procs, opts);
                plume::sim::sbn_level(&shared, &cfg.machine, from, from)?.makespan
            }
            None => {
                let none = Movement::from_flows(vec![0; cfg.procs], vec![0; cfg.procs]);
                let level =
                    plume::sim::plum_level(&model, &cfg.machine, from, cfg.procs, &none, 0.0);
                level.makespan
            }
        })
    })
}

/// A run's balancer on ranks, and MinEX when PLUM runs it (to read its reports on rank 0).
type BalancerAndMinex = (Box<dyn dist::Balancer>, Option<Arc<MinexPartitioner>>);

/// The balancer `cfg` asks for on ranks: PLUM on rank 0's gathered weights (which also runs the `none` and `sbn`
/// runs: its policy never balances, SBN balances while processing; with MinEX, also MinEX),
/// or the hierarchical balancer, rank 0 keeping the whole graph for the records.
fn balancer_over(cfg: &ShockConfig) -> plume::Result<BalancerAndMinex> {
    if cfg.balancer != Balancer::Hier {
        let (plum, minex) = plum_over(cfg)?;
        return Ok((super::select::balancer(cfg, plum)?, minex));
    }
    let hier = cfg
        .hier
        .clone()
        .unwrap_or_else(|| HierSettings::new(cfg.procs));
    let plum = PlumOptions {
        nprocs: cfg.procs,
        ..cfg.plum.clone()
    };
    let policy = cfg.policy.build(PolicySettings::default());
    let first = cfg.initial.build(cfg.seed);
    Ok((Box::new(hier.balancer(plum, policy, first, true)?), None))
}

/// The bounding box of `mesh`'s vertices.
fn bounds(mesh: &Mesh) -> ([f64; 3], [f64; 3]) {
    geometry::bounding_box(mesh.coords.iter().copied())
}

/// Checks, before a run on ranks starts, that this process can hold its ranks' copies of the
/// initial mesh and graph of `roots` roots (`ranks_here` of them) and rank 0's balancer.
///
/// # Errors
/// When the budget is too small.
pub fn check_memory(cfg: &ShockConfig, roots: usize, ranks_here: usize) -> Result<()> {
    let balancing = balancing_bytes(std::slice::from_ref(cfg), roots).0;
    let copies = (roots as u128).saturating_mul(ranks_here as u128);
    fits(
        &cfg.budget,
        [copies, roots as u128, balancing],
        &format!(
            "the shock case on {roots} roots with {} on P = {} ranks ({ranks_here} in this \
             process)",
            balancer_name(cfg.balancer),
            cfg.procs
        ),
        "use fewer ranks or a smaller mesh",
    )?;
    check_uniform(cfg, [copies, roots as u128], balancing)
}

/// Refines every root uniformly `cfg.front.uniform` times before level 1, a step of every
/// rank each (its CPU accounted as a step's), refusing a step whose leaves would not fit this
/// process.
fn refine_to_base<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &mut Run<C>,
    cpu: &mut plume::metrics::RunCpu,
    ranks_here: usize,
) -> Result<()> {
    let times = cfg.front.uniform;
    for time in 1..=times {
        let comm = run.comm();
        let nleaves = run.forest().nleaves();
        let (here, all) = budget::leaves_after_step(comm, nleaves, nleaves, ranks_here)?;
        let roots = run.share().nroots();
        let balancing = balancing_bytes(std::slice::from_ref(cfg), roots).0;
        let copies = (roots as u128).saturating_mul(ranks_here as u128);
        comm.agree_as(fits(
            &cfg.budget,
            [copies, here, balancing],
            &uniform_what(time, times, u128::from(all)),
            UNIFORM_HINT,
        ))?;
        let report = run.step(|_| dist::Mark::Refine)?;
        crate::cpu::add_step(run.comm(), cpu, &report.cpu)?;
    }
    Ok(())
}

/// Refuses a level whose leaves (when the front's marks divide `divided` of the leaves held
/// here) would not fit this process: every rank's leaves on threads, this rank's under MPI (a
/// collective).
fn check_level_memory<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &Run<C>,
    divided: usize,
    level: usize,
    ranks_here: usize,
) -> Result<()> {
    let comm = run.comm();
    let (here, all) = budget::leaves_after_step(comm, run.forest().nleaves(), divided, ranks_here)?;
    let roots = run.share().nroots() as u128;
    let balancing = balancing_bytes(std::slice::from_ref(cfg), run.share().nroots()).0;
    comm.agree_as(fits(
        &cfg.budget,
        [roots.saturating_mul(ranks_here as u128), here, balancing],
        &format!("level {level} of {}: about {all} leaves", cfg.levels),
        "use fewer levels",
    ))
}

/// Every root's owner, on rank 0 (which balances on the gathered graph).
///
/// # Panics
/// On another rank.
#[track_caller]
fn gathered_owner<'a, C: Comm + ?Sized>(run: &'a Run<C>) -> &'a [u32] {
    run.gathered_owner()
        .expect("rank 0 keeps every root's owner")
}

/// Rank 0's record of the level `report` ended (`start`: the owners before it; `minex`:
/// MinEX when PLUM runs it, its report of the level's balance taken).
fn record<C: Comm + ?Sized>(
    cfg: &ShockConfig,
    run: &Run<C>,
    report: &StepReport,
    (start, minex): (&[u32], Option<&MinexPartitioner>),
) -> LevelRecord {
    let graph = run.graph().expect("rank 0 keeps the dual graph");
    let balance = run
        .balance()
        .filter(|_| matches!(cfg.balancer, Balancer::Plum | Balancer::Hier));
    let outcome = report.metrics.balance.as_ref();
    let flows = match balance {
        // The accept rule's movement is in the sizes of what moved.
        Some(b) if b.accepted => b.movement.clone(),
        _ => super::select::moved_without_plum(outcome, cfg.procs),
    };
    let moved = report.metrics.moved;
    debug_assert_eq!(
        moved.elements, flows.total_v,
        "what moved is what PLUM costed"
    );
    let t = &report.times;
    let mut time_ms = adaptation_times_ms(t);
    if let Some(b) = balance {
        time_ms.extend(balancer_times(b, t.balance + t.migrate));
    }
    let record = plum_record(
        cfg,
        PlumLevel {
            level: report.metrics.level,
            leaves: report.metrics.leaves as usize,
            graph,
            owner: gathered_owner(run),
            start,
            balance,
            flows: &flows,
            moved: Migration {
                trees: moved.trees as usize,
                elements: moved.elements,
                bytes: moved.bytes,
            },
            time_ms,
            hier: report.metrics.hier.clone(),
            moving: balance.and(run.gathered_moving()),
            minex: minex.and_then(MinexPartitioner::take_last),
        },
    );
    super::select::with_selection(record, outcome)
}
