//! The erosion case on real ranks (`docs/design/distributed.md`): one rank's part of a run through
//! [`plume::dist::Run`], started from chunks: each rank generates its block of the box
//! ([`domain::chunk`]) and holds only its part of the mesh (its roots and their ghost layer)
//! with the rocks, fronts and fluid work of that part, by local root. Each rank draws the
//! erosion of the front leaves it holds (the draws depend on the leaves, not on who holds
//! them), turns them to fluid and steps the run; each rank refreshes the front around the roots
//! it changed, tells the holders of their neighbours across its boundary to refresh those, and
//! asks the holders of the neighbours of its rock roots for their fluid faces.
//!
//! Rank 0 keeps the records and the policy as the single-process run does ([`super::run`]), on
//! the gathered path: it holds every root's fluid work (sent by the holders of the roots each
//! iteration changed), owner and, for the stripes, centroid, and the balancer's gathered dual
//! graph. It decides each balance and sends each rank the roots that leave it, and the trees
//! move: a run's records are the single-process run's for every P and backend.
//!
//! With the hierarchical balancer (`cfg.hier`) rank 0 decides only *when* to balance; the
//! ranks then run HybridLB's phases on the roots each holds, a root's load its fluid work (the
//! run's leaf cost: one a fluid leaf), so that no rank gathers more than its lowest domain's
//! roots for the decision ([`Run::balance_now`]). Rank 0 still holds every root's fluid work,
//! owner and `CWgt` for the records and the policy: an iteration's modelled time is its slowest
//! rank's fluid work and cut faces. The records are the single-process run's with the
//! simulated hierarchical balancer ([`crate::hier::HierSettings::simulated`]), whose decisions
//! the ranks' are, plus what the phases gathered (`hier`).
//!
//! A run writes checkpoints after the iterations a [`Checkpoints`] asks for and continues from
//! one ([`run_rank_from`]): the trees (their leaves' rock or fluid), the iterations done, the
//! modelled time, the draws done and rank 0's ledger (the policy's history, the increase rates
//! and the costs). The fronts and the fluid work are computed again from the trees. The box
//! depends on P (one stripe and rock per rank), so a checkpoint continues on the P that
//! wrote it only: its identity names the stripes.

use std::collections::{BTreeSet, HashSet};

use crate::error::{Error, Result};
use plume::adapt::LeafView;
use plume::adapt::{Forest, LeafId, NO_ELEM};
use plume::balance::{Accept, Periodic, PlumOptions, RemapCostModel};
use plume::comm::{Comm, CommExt, ReduceOp};
use plume::dist::{BalanceAt, Balancer, FirstOwners, GatheredPlum, Mark, Run};
use plume::mesh::chunk::Chunk;
use plume::metrics::{Phase, RankCpu};

use crate::budget;
use crate::checkpoint::Checkpoints;
use crate::words::PartitionKind;

use super::front::{root_fluid_faces, Erosion, FaceKeys, Halo, FLUID};
use super::{
    check_iteration, domain, layout, ErosionConfig, ErosionRun, Ledger, LedgerState, Moment,
};

/// Checks, before a run on ranks starts, that this process can hold the records of `runs`
/// runs, rank 0's tables of every root and its ranks' parts of the mesh (`ranks_here` of
/// them: all of them on threads, one under MPI), each taken as twice its share of the roots
/// (its own and its ghost layer); returns the number of roots.
///
/// # Errors
/// When the box is too large for its numbers or for the budget.
pub fn check_memory(cfg: &ErosionConfig, runs: usize, ranks_here: usize) -> Result<usize> {
    let roots = super::check_memory(cfg, runs)?;
    let parts = (roots as u128).saturating_mul(2 * ranks_here as u128) / cfg.procs.max(1) as u128;
    cfg.budget.check(
        &format!("the erosion case's {roots} roots on {ranks_here} ranks in this process"),
        budget::EROSION.bytes(roots as u128 + parts, roots as u128 + parts),
        "use fewer ranks or fewer `cells`",
    )?;
    Ok(roots)
}

/// What rank 0 holds of every root to keep the records and decide the balances: the gathered
/// path.
struct Rank0<'a> {
    ledger: Ledger<'a>,
    /// Fluid work of every root, by global id.
    fluid: Vec<u64>,
    /// Owner of every root, by global id.
    owner: Vec<u32>,
}

/// What an erosion run's checkpoint holds besides the trees: the iterations done, the modelled
/// time, the draws done, the leaves, and rank 0's ledger (`None` from the other ranks; rank
/// 0's is written).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Resumed {
    iterations: usize,
    time: f64,
    draws: u64,
    leaves: u64,
    ledger: Option<LedgerState>,
}

/// What a checkpoint of the run `cfg` must match to continue it: the box (its stripes, so
/// P, and cubes), the rocks and the erosion (seed, strong rocks, depth); the policy and the
/// balancer may change.
fn identity(cfg: &ErosionConfig) -> String {
    let [x, y, z] = cfg.cells;
    format!(
        "erosion case, {} stripes of {x}x{y}x{z} cubes, seed {}, {} strong, depth {}",
        cfg.procs, cfg.seed, cfg.strong, cfg.max_depth
    )
}

/// Runs this rank's part of the erosion case `cfg` (on `comm.size()` ranks, which must be
/// `cfg.procs`), from this rank's chunk of the box. `each(moment, forest, owner)` is called on
/// every rank with its forest and the owners of its part's roots, for the initial mesh and
/// partition and after every iteration; its errors end every rank. Returns the run on rank 0,
/// `None` on the others.
///
/// # Errors
/// [`Error::WrongRanks`] when `cfg` is not for `comm.size()` ranks; any rank's error, on
/// every rank.
pub fn run_rank<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ErosionConfig,
    each: impl FnMut(Moment, &Forest, &[u32]) -> Result<()>,
) -> Result<Option<ErosionRun>> {
    run_rank_from(comm, cfg, &Checkpoints::default(), each)
}

/// [`run_rank`] writing the checkpoints `checkpoints` asks for (after the iterations that
/// are a multiple of `checkpoints.every`) and continuing from `checkpoints.restart` when set:
/// then the records start after the checkpoint's iteration, `each` sees its mesh first, and
/// every record is the uninterrupted run's bit for bit.
///
/// # Errors
/// As [`run_rank`]; [`Checkpoints::restart`]'s (a checkpoint of another box, P included);
/// [`Error::Input`] for a checkpoint at or past the run's last iteration.
pub fn run_rank_from<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ErosionConfig,
    checkpoints: &Checkpoints,
    mut each: impl FnMut(Moment, &Forest, &[u32]) -> Result<()>,
) -> Result<Option<ErosionRun>> {
    if cfg.procs != comm.size() {
        return Err(Error::WrongRanks {
            set_for: cfg.procs,
            has: comm.size(),
        });
    }
    let roots = comm.agree_as(super::check_memory(cfg, 1))?;
    let (strong, probability) =
        comm.agree_as(domain::strong_rocks(cfg.procs, cfg.strong, cfg.seed))?;
    let chunk = comm.agree_as(domain::chunk(
        cfg.procs,
        cfg.cells,
        comm.rank(),
        comm.size(),
    ))?;
    let centroids = gathered_centroids(comm, cfg, &chunk)?;
    let ledger = comm.agree_as(match comm.rank() {
        0 => Ledger::new(cfg, &centroids).map(Some),
        _ => Ok(None),
    })?;
    let balancer = comm.agree_as(run_balancer(cfg, &centroids))?;
    drop(centroids);
    let opts = domain::options(cfg.max_depth);
    let mut run = Run::from_chunk(comm, |_| Ok(chunk), opts, balancer, FirstOwners::Balancer)?;
    if cfg.hier.is_some() {
        // The balances come between the steps, on the fluid work.
        run = run.balance_at(BalanceAt::Never).leaf_cost(fluid_leaf);
    }
    let mut cpu = crate::cpu::start(comm, run.startup_cpu(), None)?;
    let identity = identity(cfg);
    let resumed = checkpoints.restart::<_, Resumed>(&mut run, &identity)?;
    if let Some(done) = resumed.as_ref().map(|r| r.iterations) {
        if done >= cfg.iterations {
            let iterations = cfg.iterations;
            let what =
                format!("the run was written after {done} iterations, this run does {iterations}");
            return Err(checkpoints.nothing_left(&what));
        }
    }
    // The trees, and so the part, are the checkpoint's.
    let rocks = domain::rocks(run.forest().initial().mesh(), cfg.procs);
    if resumed.is_none() {
        for r in run.held_roots() {
            let id = run.forest().leaf_id(r, 0);
            run.leaf_data_mut(id)?[0] = domain::material(rocks[r as usize]);
        }
    }
    let mut erosion = Erosion::unrefreshed(rocks, probability, plume::hash::mix64(cfg.seed));
    if let Some(resumed) = &resumed {
        erosion.resume_draws(resumed.draws);
    }
    // This rank's CPU between start-up and the steps and between the steps (the erosion's
    // own work), segment by segment: the draws (`Flux`), the fronts' refresh (`Halo`), the
    // fluid work and rank 0's decision (`Balance`), the balances' migrations (`Migrate`); cut
    // at every collective.
    let mut between: Vec<(Phase, f64)> = Vec::new();
    run.account(Phase::Halo);
    let held = run.held_roots();
    refresh(&run, &mut erosion, &held)?;
    let mut rank0 = ledger.map(|ledger| Rank0 {
        ledger,
        fluid: vec![0; roots],
        owner: run
            .gathered_owner()
            .expect("rank 0 keeps the owners")
            .to_vec(),
    });
    gather_fluid(&run, &erosion, &held, rank0.as_mut())?;
    let (mut leaves, mut moment) = match resumed {
        None => {
            start_owners(&mut run, &mut erosion, rank0.as_mut(), cfg.procs)?;
            // Every root starts as one leaf.
            let start = Moment {
                iterations: 0,
                time: 0.0,
            };
            (roots as u64, start)
        }
        Some(resumed) => {
            let ledger = match (rank0.as_mut(), resumed.ledger) {
                (Some(r0), Some(state)) => r0.ledger.resume(state),
                (Some(_), None) => Err(Error::Input(
                    "the checkpoint holds no ledger: its state is not this case's".into(),
                )),
                _ => Ok(()),
            };
            comm.agree_as(ledger)?;
            let at = Moment {
                iterations: resumed.iterations,
                time: resumed.time,
            };
            (resumed.leaves, at)
        }
    };
    // The output (`each`) is not the erosion's work.
    between.extend_from_slice(run.take_cpu().segments());
    comm.agree_as(each(moment, run.forest(), run.owner()))?;
    for iteration in moment.iterations..cfg.iterations {
        run.account(Phase::Flux);
        let mut record = rank0.as_mut().map(|r0| {
            let graph = run.graph().expect("rank 0 keeps the graph");
            let fluid = &r0.fluid;
            r0.ledger
                .observe(iteration, leaves as usize, fluid, graph, &r0.owner)
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
        run.account(Phase::Flux);
        let divided = comm.reduce_u64(refine.len() as u64, ReduceOp::Sum)?;
        run.account(Phase::Flux);
        comm.agree_as(check_iteration(
            cfg,
            roots,
            iteration,
            leaves as usize,
            divided as usize,
        ))?;
        for &id in &eroded {
            run.leaf_data_mut(id)?[0] = FLUID;
        }
        let before = held_leaves(run.forest());
        // The step accounts itself: what was recorded before it is kept first.
        between.extend_from_slice(run.take_cpu().segments());
        let report = run.step(|leaf| {
            if refine.contains(&leaf.id) {
                Mark::Refine
            } else {
                Mark::Keep
            }
        })?;
        leaves = report.metrics.leaves;
        crate::cpu::add_step(comm, &mut cpu, &report.cpu)?;
        run.account(Phase::Halo);
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
        gather_fluid(&run, &erosion, &around, rank0.as_mut())?;
        run.account(Phase::Balance);
        let nb_eroded = comm.reduce_u64(eroded.len() as u64, ReduceOp::Sum)?;
        let decided = match (rank0.as_mut(), record.as_mut()) {
            (Some(r0), Some(record)) => {
                record.eroded = nb_eroded as usize;
                match cfg.hier {
                    Some(_) => Ok(r0.ledger.triggers().then_some(Decided::Hierarchical)),
                    None => {
                        let graph = run.graph().expect("rank 0 keeps the graph");
                        let owners = r0.ledger.decide(record, graph, &r0.fluid, &r0.owner);
                        owners.map(|o| o.map(Decided::Owners))
                    }
                }
            }
            _ => Ok(None),
        };
        run.account(Phase::Balance);
        let decided = comm.agree_as(decided)?;
        let balances = decided.is_some();
        run.account(Phase::Balance);
        let balances = comm.broadcast_serde(0, rank0.as_ref().map(|_| &balances))?;
        if balances && cfg.hier.is_some() {
            let hier = carry(&mut run, &mut erosion, cfg.procs, Run::balance_now)?.hier;
            if let (Some(r0), Some(record)) = (rank0.as_mut(), record.as_mut()) {
                let balance = run.balance().expect("rank 0 keeps the decision");
                r0.ledger.settle(record, &balance.movement, false);
                let owner = run.gathered_owner().expect("rank 0 keeps the owners");
                r0.owner.copy_from_slice(owner);
                record.hier = hier;
            }
        } else if balances {
            let moves = rank0
                .as_mut()
                .zip(decided.and_then(Decided::owners))
                .map(|(r0, o)| (&mut r0.owner, o));
            migrate(&mut run, &mut erosion, moves, cfg.procs)?;
        }
        moment.iterations += 1;
        if let Some(record) = &record {
            moment.time += record.time;
        }
        run.account(Phase::Balance);
        moment.time = broadcast_f64(comm, moment.time)?;
        // The output (`each`) is not the erosion's work.
        between.extend_from_slice(run.take_cpu().segments());
        comm.agree_as(each(moment, run.forest(), run.owner()))?;
        if let (Some(r0), Some(record)) = (rank0.as_mut(), record) {
            r0.ledger.records.push(record);
        }
        let state = || Resumed {
            iterations: moment.iterations,
            time: moment.time,
            draws: erosion.draws(),
            leaves,
            ledger: rank0.as_ref().map(|r0| r0.ledger.state()),
        };
        checkpoints.write_if_due(&run, &identity, moment.iterations, state)?;
    }
    crate::cpu::add_between_steps(comm, &mut cpu, &RankCpu::from_segments(between))?;
    Ok(rank0.map(|r0| {
        let work: u64 = r0.fluid.iter().sum();
        ErosionRun {
            cpu: Some(cpu),
            ..r0.ledger.finish(strong, roots, leaves as usize, work)
        }
    }))
}

/// Moves the trees to the owners the run starts from: rank 0's partition of the roots on
/// their fluid work (a collective).
fn start_owners<C: Comm + ?Sized>(
    run: &mut Run<C>,
    erosion: &mut Erosion,
    rank0: Option<&mut Rank0>,
    stripes: usize,
) -> Result<()> {
    let initial = rank0.as_ref().map(|r0| {
        let graph = run.graph().expect("rank 0 keeps the graph");
        r0.ledger.initial_owner(graph, &r0.fluid)
    });
    run.account(Phase::Balance);
    let initial = run.comm().agree_as(initial.transpose())?;
    let moves = rank0.zip(initial).map(|(r0, o)| (&mut r0.owner, o));
    migrate(run, erosion, moves, stripes)
}

/// Rank 0's decision after an iteration that balances.
enum Decided {
    /// Every root's new owner, from rank 0's balancer.
    Owners(Vec<u32>),
    /// The hierarchical balancer decides on the ranks.
    Hierarchical,
}

impl Decided {
    /// The new owners rank 0 decided (`None`: the ranks decide them).
    fn owners(self) -> Option<Vec<u32>> {
        match self {
            Decided::Owners(o) => Some(o),
            Decided::Hierarchical => None,
        }
    }
}

/// The run's own balancer for `cfg` (roots' centroids `centroids` on rank 0 for the stripes):
/// PLUM on rank 0's gathered graph, which never triggers (the policy decides on rank 0 and
/// rank 0 sends the moves), or the hierarchical balancer, balancing whenever rank 0's policy
/// asks ([`Run::balance_now`]) on the ranks' fluid work, rank 0 keeping the graph for the
/// records. Both make the first owners by `cfg.partition`.
fn run_balancer(cfg: &ErosionConfig, centroids: &[[f64; 3]]) -> Result<Box<dyn Balancer>> {
    let Some(hier) = &cfg.hier else {
        return Ok(Box::new(GatheredPlum::new(layout::balancer_of(
            cfg, centroids,
        )?)));
    };
    let plum = PlumOptions {
        accept: Accept::Always,
        model: RemapCostModel {
            time_per_load: cfg.machine.time_per_leaf(),
            ..RemapCostModel::default()
        },
        ..PlumOptions::new(cfg.procs)
    };
    let first = layout::first_partitioner(cfg, centroids);
    Ok(Box::new(hier.balancer(
        plum,
        Box::new(Periodic::new(1)),
        first,
        true,
    )?))
}

/// A leaf's cost on ranks balanced by the hierarchical balancer: one a fluid leaf, the
/// erosion's work (a root's cost is its fluid work).
fn fluid_leaf(leaf: &LeafView) -> u64 {
    u64::from(leaf.data[0] == FLUID)
}

/// Every root's centroid, by global id, on rank 0 when the stripes cut them (a collective;
/// empty on the other ranks and for the graph partitioning): the ranks' chunks' in rank
/// order.
fn gathered_centroids<C: Comm + ?Sized>(
    comm: &C,
    cfg: &ErosionConfig,
    chunk: &Chunk,
) -> Result<Vec<[f64; 3]>> {
    if cfg.partition != PartitionKind::Stripes {
        return Ok(Vec::new());
    }
    let mut outgoing = vec![Vec::new(); comm.size()];
    outgoing[0] = chunk.centroids();
    Ok(comm.all_to_all_serde(&outgoing)?.concat())
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

/// Moves the trees to the owners `new_owner` (every root's, on rank 0, whose `owner` holds
/// the current ones and takes the new; `None` elsewhere; a collective): rank 0 sends each rank
/// the roots that leave it, the trees move, and the erosion follows: the new holders compute
/// the fronts of the roots that arrived, the old ones forget them.
fn migrate<C: Comm + ?Sized>(
    run: &mut Run<C>,
    erosion: &mut Erosion,
    moves: Option<(&mut Vec<u32>, Vec<u32>)>,
    stripes: usize,
) -> Result<()> {
    let comm = run.comm();
    let mut outgoing: Vec<Vec<(u32, u32)>> = vec![Vec::new(); comm.size()];
    if let Some((owner, new_owner)) = moves {
        for (r, (&from, &to)) in owner.iter().zip(&new_owner).enumerate() {
            if from != to {
                outgoing[from as usize].push((r as u32, to));
            }
        }
        *owner = new_owner;
    }
    run.account(Phase::Migrate);
    let leaving = comm.all_to_all_serde(&outgoing)?.swap_remove(0);
    carry(run, erosion, stripes, |run| run.migrate_leaving(&leaving))?;
    Ok(())
}

/// Moves trees by `moving` (a collective: a migration of the run) and the erosion follows: the
/// new holders compute the fronts of the roots that arrived, the old ones forget them.
/// Returns what `moving` returned.
fn carry<'c, C: Comm + ?Sized, T>(
    run: &mut Run<'c, C>,
    erosion: &mut Erosion,
    stripes: usize,
    moving: impl FnOnce(&mut Run<'c, C>) -> plume::Result<T>,
) -> Result<T> {
    // The part's global ids before the migration renumbers it (its roots' local ids).
    let part = run.forest().initial();
    let gids_before: Vec<u32> = (0..part.nroots() as u32)
        .map(|r| part.root_gid(r))
        .collect();
    // Ascending: a part numbers its roots by ascending global id.
    let held_before: Vec<u32> = run
        .held_roots()
        .into_iter()
        .map(|r| gids_before[r as usize])
        .collect();
    let moved = moving(run)?;
    let forest = run.forest();
    let initial = forest.initial();
    erosion.renumber(&gids_before, forest, domain::rocks(initial.mesh(), stripes));
    let arrived: Vec<u32> = run
        .held_roots()
        .into_iter()
        .filter(|&r| held_before.binary_search(&initial.root_gid(r)).is_err())
        .collect();
    refresh(run, erosion, &arrived)?;
    Ok(moved)
}

/// Brings rank 0's fluid work of every root up to date with the erosion of `roots` (roots
/// held here; a collective): each rank sends those it refreshed.
fn gather_fluid<C: Comm + ?Sized>(
    run: &Run<C>,
    erosion: &Erosion,
    roots: &[u32],
    rank0: Option<&mut Rank0>,
) -> Result<()> {
    let comm = run.comm();
    let initial = run.forest().initial();
    let mut outgoing: Vec<Vec<(u32, u64)>> = vec![Vec::new(); comm.size()];
    outgoing[0] = roots
        .iter()
        .map(|&r| (initial.root_gid(r), erosion.fluid()[r as usize]))
        .collect();
    run.account(Phase::Balance);
    let incoming = comm.all_to_all_serde(&outgoing)?;
    if let Some(r0) = rank0 {
        for (g, f) in incoming.into_iter().flatten() {
            r0.fluid[g as usize] = f;
        }
    }
    Ok(())
}

/// Refreshes the erosion around the roots `changed` (held here) on every rank (a collective:
/// every rank passes its own): the changed roots and their face neighbours, each refreshed by
/// its holder; returns those held here, ascending.
fn refresh_around<C: Comm + ?Sized>(
    run: &Run<C>,
    erosion: &mut Erosion,
    changed: &[u32],
) -> Result<Vec<u32>> {
    let (forest, owner, comm) = (run.forest(), run.owner(), run.comm());
    let initial = forest.initial();
    let mut around = BTreeSet::new();
    // To each rank, the roots it holds next to the roots changed here.
    let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); comm.size()];
    for &r in changed {
        let nbrs = forest.root_face_neighbours(r);
        for s in std::iter::once(r).chain(nbrs.into_iter().filter(|&x| x != NO_ELEM)) {
            if forest.holds(s) {
                around.insert(s);
            } else {
                outgoing[owner[s as usize] as usize].push(initial.root_gid(s));
            }
        }
    }
    run.account(Phase::Halo);
    for g in comm.all_to_all_serde(&outgoing)?.into_iter().flatten() {
        let r = initial.local_root(g).filter(|&r| forest.holds(r));
        around.insert(r.expect("the owner of a root holds it"));
    }
    let around: Vec<u32> = around.into_iter().collect();
    refresh(run, erosion, &around)?;
    Ok(around)
}

/// Refreshes the erosion of `roots` (held here; a collective: every rank passes its own):
/// each rank asks the holders of the neighbours of its rock roots among `roots` held elsewhere
/// for their fluid faces, then refreshes `roots`.
fn refresh<C: Comm + ?Sized>(run: &Run<C>, erosion: &mut Erosion, roots: &[u32]) -> Result<()> {
    let (forest, owner, comm) = (run.forest(), run.owner(), run.comm());
    let initial = forest.initial();
    let mut asked: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); comm.size()];
    for &r in roots.iter().filter(|&&r| erosion.is_rock(r)) {
        for s in forest.root_face_neighbours(r) {
            if s != NO_ELEM && !forest.holds(s) {
                asked[owner[s as usize] as usize].insert(initial.root_gid(s));
            }
        }
    }
    let asked: Vec<Vec<u32>> = asked.into_iter().map(|a| a.into_iter().collect()).collect();
    run.account(Phase::Halo);
    let answers: Vec<Vec<(u32, Vec<FaceKeys>)>> = comm
        .all_to_all_serde(&asked)?
        .into_iter()
        .map(|gids| {
            gids.into_iter()
                .map(|g| {
                    let faces = initial.local_root(g).map(|s| root_fluid_faces(forest, s));
                    (g, faces.unwrap_or_default())
                })
                .collect()
        })
        .collect();
    run.account(Phase::Halo);
    let halo: Halo = comm
        .all_to_all_serde(&answers)?
        .into_iter()
        .flatten()
        .map(|(g, faces)| (initial.local_root(g).expect("asked from here"), faces))
        .collect();
    erosion.refresh(forest, roots, &halo);
    Ok(())
}
