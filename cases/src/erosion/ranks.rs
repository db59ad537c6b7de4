//! The erosion case on real ranks (`distributed.md`): one rank's part of a run through
//! [`plume::dist::Run`]. Each rank draws the erosion of the front leaves it holds (the draws
//! depend on the leaves, not on who holds them), turns them to fluid and steps the run; the
//! front around the changed roots is refreshed with the fluid faces of neighbouring roots held
//! elsewhere. Rank 0 gathers the fluid work of the refreshed roots, keeps the records and the policy as the
//! single-process run does ([`super::run`]), decides each balance and broadcasts the new
//! owners, and the trees move: a run's records are the single-process run's for every P and
//! backend.

use std::collections::{BTreeSet, HashSet};

use crate::error::{Error, Result};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafId, NO_ELEM};
use plume::comm::{Comm, CommExt, ReduceOp};
use plume::dist::{GatheredPlum, Mark, Run};

use crate::budget;

use super::front::{root_fluid_faces, Erosion, FLUID, ROCK};
use super::{check_iteration, domain, layout, ErosionConfig, ErosionRun, Ledger, Moment};

/// Checks, before a run on ranks starts, that this process can hold the records of `runs`
/// runs and its ranks' copies of the initial mesh (`ranks_here` of them: all of them on
/// threads, one under MPI); returns the number of roots.
///
/// # Errors
/// When the box is too large for its numbers or for the budget.
pub fn check_memory(cfg: &ErosionConfig, runs: usize, ranks_here: usize) -> Result<usize> {
    let roots = super::check_memory(cfg, runs)?;
    let copies = (roots as u128).saturating_mul(ranks_here as u128);
    cfg.budget.check(
        &format!("the erosion case's {roots} roots on {ranks_here} ranks in this process"),
        budget::EROSION.bytes(copies, copies),
        "use fewer ranks or fewer `cells`",
    )?;
    Ok(roots)
}

/// What every rank of a process starts from: the domain's initial mesh (thread ranks share
/// one copy of it), its adaptation options and leaves, and its rocks. The domain's own forest
/// is not kept: each rank's run builds its own.
pub struct Start {
    initial: InitialMesh,
    opts: AdaptOptions,
    leaves: usize,
    rock_of_root: Vec<Option<u32>>,
    probability: Vec<f64>,
    strong: Vec<u32>,
}

/// The start of `cfg`'s run, built once per process ([`run_rank_on`]).
///
/// # Errors
/// The domain's errors ([`domain::build`]).
pub fn start(cfg: &ErosionConfig) -> Result<Start> {
    let domain::Domain {
        forest,
        rock_of_root,
        probability,
        strong,
    } = domain::build(cfg.procs, cfg.cells, cfg.strong, cfg.seed, cfg.max_depth)?;
    Ok(Start {
        initial: forest.initial().clone(),
        opts: forest.options().clone(),
        leaves: forest.nleaves(),
        rock_of_root,
        probability,
        strong,
    })
}

/// Runs this rank's part of the erosion case `cfg` (on `comm.size()` ranks, which must be
/// `cfg.procs`). `each(moment, forest, owner)` is called on every rank with its forest and
/// the owners, for the initial mesh and partition and after every iteration; its errors end
/// every rank. Returns the run on rank 0, `None` on the others.
///
/// # Errors
/// [`Error::WrongRanks`] when `cfg` is not for `comm.size()` ranks; any rank's error, on
/// every rank.
pub fn run_rank<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ErosionConfig,
    each: impl FnMut(Moment, &Forest, &[u32]) -> Result<()>,
) -> Result<Option<ErosionRun>> {
    if cfg.procs != comm.size() {
        return Err(Error::WrongRanks {
            set_for: cfg.procs,
            has: comm.size(),
        });
    }
    comm.agree_as(super::check_memory(cfg, 1))?;
    let start = comm.agree_as(start(cfg))?;
    run_rank_on(comm, cfg, &start, each)
}

/// [`run_rank`] from `start` (the same on every rank; thread ranks share one): every rank of a
/// process holds one copy of the domain's mesh, not one each (the domain grows with P, a
/// stripe per rank).
///
/// # Errors
/// As [`run_rank`].
pub fn run_rank_on<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ErosionConfig,
    start: &Start,
    mut each: impl FnMut(Moment, &Forest, &[u32]) -> Result<()>,
) -> Result<Option<ErosionRun>> {
    if cfg.procs != comm.size() {
        return Err(Error::WrongRanks {
            set_for: cfg.procs,
            has: comm.size(),
        });
    }
    let roots = comm.agree_as(super::check_memory(cfg, 1))?;
    let mesh = start.initial.mesh();
    let mut ledger = comm.agree_as(match comm.rank() {
        0 => Ledger::new(cfg, mesh).map(Some),
        _ => Ok(None),
    })?;
    let p = cfg.procs;
    // The run's own balancer never triggers: the policy decides on rank 0.
    let plum = comm.agree_as(layout::balancer(
        cfg.partition,
        mesh,
        p,
        p as f64,
        p * cfg.cells[0],
    ))?;
    let nroots = start.initial.nroots();
    let mut leaves = start.leaves as u64;
    let opts = start.opts.clone();
    let rock_of_root = start.rock_of_root.clone();
    let probability = start.probability.clone();
    let strong = start.strong.clone();
    let mut run = Run::on(comm, &start.initial, opts, GatheredPlum::new(plum))?;
    let mut cpu = crate::cpu::start(comm, run.startup_cpu(), None)?;
    for r in run.held_roots() {
        let material = if rock_of_root[r as usize].is_some() {
            ROCK
        } else {
            FLUID
        };
        run.leaf_data_mut(LeafId { root: r, elem: 0 })[0] = material;
    }
    let mut erosion = Erosion::unrefreshed(
        nroots,
        rock_of_root,
        probability,
        plume::hash::mix64(cfg.seed),
    );
    let all: Vec<u32> = (0..nroots as u32).collect();
    refresh(&run, &mut erosion, &all)?;
    let mut fluid = vec![0; nroots];
    gather_fluid(&run, &erosion, &all, &mut fluid)?;
    let initial = ledger
        .as_ref()
        .map(|l| l.initial_owner(run.graph().expect("rank 0 keeps the graph"), &fluid))
        .transpose();
    let initial = comm.agree_as(initial)?;
    let initial: Vec<u32> = comm.broadcast_serde(0, initial.as_ref())?;
    migrate(&mut run, &mut erosion, &initial)?;
    let mut moment = Moment {
        iterations: 0,
        time: 0.0,
    };
    comm.agree_as(each(moment, run.forest(), run.owner()))?;
    for iteration in 0..cfg.iterations {
        let mut record = ledger.as_mut().map(|l| {
            let graph = run.graph().expect("rank 0 keeps the graph");
            l.observe(iteration, leaves as usize, &fluid, graph, run.owner())
        });
        let eroded = erosion.draw(run.forest());
        let refine: HashSet<LeafId> = eroded
            .iter()
            .copied()
            .filter(|id| {
                let tree = &run.forest().trees()[id.root as usize];
                tree.elems[id.elem as usize].level < cfg.max_depth
            })
            .collect();
        let divided = comm.reduce_u64(refine.len() as u64, ReduceOp::Sum)?;
        comm.agree_as(check_iteration(
            cfg,
            roots,
            iteration,
            leaves as usize,
            divided as usize,
        ))?;
        for &id in &eroded {
            run.leaf_data_mut(id)[0] = FLUID;
        }
        let before = held_leaves(run.forest());
        let report = run.step(|leaf| {
            if refine.contains(&leaf.id) {
                Mark::Refine
            } else {
                Mark::Keep
            }
        })?;
        leaves = report.metrics.leaves;
        crate::cpu::add_step(comm, &mut cpu, &report.cpu)?;
        // The trees that grew (the step moved none: the run's own balancer never triggers).
        let mut changed: Vec<u32> = eroded.iter().map(|id| id.root).collect();
        changed.extend(
            held_leaves(run.forest())
                .into_iter()
                .zip(before)
                .filter(|(now, then)| now != then)
                .map(|(now, _)| now.0),
        );
        let around = refresh_around(&run, &mut erosion, &changed)?;
        gather_fluid(&run, &erosion, &around, &mut fluid)?;
        let nb_eroded = comm.reduce_u64(eroded.len() as u64, ReduceOp::Sum)?;
        let decided = match (ledger.as_mut(), record.as_mut()) {
            (Some(l), Some(record)) => {
                record.eroded = nb_eroded as usize;
                let graph = run.graph().expect("rank 0 keeps the graph");
                l.decide(record, graph, &fluid, run.owner()).map(Some)
            }
            _ => Ok(None),
        };
        let decided = comm.agree_as(decided)?;
        let new_owner: Option<Vec<u32>> = comm.broadcast_serde(0, decided.as_ref())?;
        if let Some(new_owner) = new_owner {
            migrate(&mut run, &mut erosion, &new_owner)?;
        }
        moment.iterations += 1;
        if let Some(record) = &record {
            moment.time += record.time;
        }
        moment.time = broadcast_f64(comm, moment.time)?;
        comm.agree_as(each(moment, run.forest(), run.owner()))?;
        if let (Some(l), Some(record)) = (ledger.as_mut(), record) {
            l.records.push(record);
        }
    }
    let work: u64 = fluid.iter().sum();
    Ok(ledger.map(|l| ErosionRun {
        cpu: Some(cpu),
        ..l.finish(strong, nroots, leaves as usize, work)
    }))
}

/// Rank 0's `value` on every rank.
fn broadcast_f64<C: Comm + ?Sized>(comm: &C, value: f64) -> Result<f64> {
    Ok(comm.broadcast_serde(0, (comm.rank() == 0).then_some(&value))?)
}

/// `(root, leaves)` of every tree held in `forest`, ascending by root.
fn held_leaves(forest: &Forest) -> Vec<(u32, u32)> {
    (0..forest.nroots() as u32)
        .filter(|&r| forest.holds(r))
        .map(|r| (r, forest.trees()[r as usize].nleaves))
        .collect()
}

/// Moves the trees to `new_owner` (a collective) and refreshes the erosion of the roots that
/// moved: the new holders compute their fronts, the old ones forget them.
fn migrate<C: Comm + ?Sized>(
    run: &mut Run<C>,
    erosion: &mut Erosion,
    new_owner: &[u32],
) -> Result<()> {
    let moved: Vec<u32> = (0..new_owner.len() as u32)
        .filter(|&r| run.owner()[r as usize] != new_owner[r as usize])
        .collect();
    run.migrate_to(new_owner)?;
    refresh(run, erosion, &moved)
}

/// Brings rank 0's `fluid` work of every root up to date with the erosion of `roots` (the
/// same on every rank; a collective): each rank sends those it holds.
fn gather_fluid<C: Comm + ?Sized>(
    run: &Run<C>,
    erosion: &Erosion,
    roots: &[u32],
    fluid: &mut [u64],
) -> Result<()> {
    let comm = run.comm();
    let mut outgoing: Vec<Vec<(u32, u64)>> = vec![Vec::new(); comm.size()];
    outgoing[0] = roots
        .iter()
        .filter(|&&r| run.forest().holds(r))
        .map(|&r| (r, erosion.fluid()[r as usize]))
        .collect();
    let incoming = comm.all_to_all_serde(&outgoing)?;
    if comm.rank() == 0 {
        for (r, f) in incoming.into_iter().flatten() {
            fluid[r as usize] = f;
        }
    }
    Ok(())
}

/// Refreshes the erosion around the roots `changed` on this rank (a collective: every rank
/// passes its own): the changed roots of every rank and their face neighbours, which it
/// returns, ascending.
fn refresh_around<C: Comm + ?Sized>(
    run: &Run<C>,
    erosion: &mut Erosion,
    changed: &[u32],
) -> Result<Vec<u32>> {
    let forest = run.forest();
    let all: Vec<Vec<u32>> = run.comm().all_gather_serde(&changed.to_vec())?;
    let mut around = BTreeSet::new();
    for r in all.into_iter().flatten() {
        around.insert(r);
        around.extend(
            forest
                .root_face_neighbours(r)
                .into_iter()
                .filter(|&x| x != NO_ELEM),
        );
    }
    let around: Vec<u32> = around.into_iter().collect();
    refresh(run, erosion, &around)?;
    Ok(around)
}

/// Refreshes the erosion of `roots` (the same on every rank; a collective): each rank sends
/// the fluid faces of the roots it holds to the holders of their rock neighbours among
/// `roots`, then refreshes those of `roots` it holds and forgets the others.
fn refresh<C: Comm + ?Sized>(run: &Run<C>, erosion: &mut Erosion, roots: &[u32]) -> Result<()> {
    let comm = run.comm();
    let (forest, owner) = (run.forest(), run.owner());
    let mut sent = HashSet::new();
    let mut outgoing: Vec<Vec<(u32, Vec<[u64; 3]>)>> = vec![Vec::new(); comm.size()];
    for &r in roots {
        let dest = owner[r as usize] as usize;
        if dest == comm.rank() || !erosion.is_rock(r) {
            continue;
        }
        for s in forest.root_face_neighbours(r) {
            if s != NO_ELEM && forest.holds(s) && sent.insert((dest, s)) {
                outgoing[dest].push((s, root_fluid_faces(forest, s)));
            }
        }
    }
    let halo = comm
        .all_to_all_serde(&outgoing)?
        .into_iter()
        .flatten()
        .collect();
    erosion.refresh(forest, roots, &halo);
    Ok(())
}
