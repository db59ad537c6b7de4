//! A processing level on thread ranks (`plume::dist::Run::process`): under SBN and statically,
//! for P = 1…4, every root is processed exactly once (the kernel's digest summed over the
//! ranks is the single rank's, and so is the count), every root is owned by exactly the rank
//! holding its tree afterwards, the checksum of all trees is unchanged by the level, and the
//! mesh after the next steps is PLUM's; the level ends also when one rank is slow (work is
//! balanced away from it while it works); a rank failing in the level ends every rank with
//! its error, never a hang. The same holds when each rank holds only its part of the mesh
//! (`Run::on_parts`), whose ghost layer is then checked by brute force after every step and
//! every level.

mod common;

use common::{check_ownership, check_parts, without_hang};
use plume::adapt::{AdaptOptions, Forest, InitialMesh, LeafView};
use plume::balance::{Accept, Plum, PlumOptions, SbnOptions};
use plume::comm::{launch_threads, Comm, CommExt};
use plume::dist::{
    BalanceAt, GatheredPlum, Hook, Kernel, LevelOptions, Mark, ProcessedLevel, Processing, Run,
    WireKind,
};
use plume::mesh::{generate_box, Mesh};
use plume::Result;
use std::time::Duration;

const STEPS: usize = 3;

fn mesh() -> Mesh {
    generate_box([4, 4, 3], [1.0, 1.0, 0.75]).unwrap()
}

fn adapt_options() -> AdaptOptions {
    AdaptOptions {
        max_depth: 2,
        nfields: 1,
        ..AdaptOptions::default()
    }
}

/// Refines near a plane moving along x, coarsens far from it.
fn mark(leaf: &LeafView, step: usize) -> Mark {
    let x = 0.2 + 0.25 * step as f64;
    let gap = (leaf.centroid[0] - x).abs();
    if gap < 0.15 {
        Mark::Refine
    } else if gap > 0.4 {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// One leaf as every rank names it: root, level, sorted vertex keys, data bits.
type LeafKey = (u32, u8, [u64; 4], Vec<u64>);

fn leaf_keys(forest: &Forest) -> Vec<LeafKey> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        let mut keys = l.verts.map(|v| forest.vertices()[v].key);
        keys.sort_unstable();
        let data = l.data.iter().map(|x| x.to_bits()).collect();
        let root = forest.initial().root_gid(l.id.root);
        out.push((root, l.level, keys, data));
    });
    out
}

/// Gives every held leaf a value depending on its history and place (data must travel).
fn solve(run: &mut Run<'_, impl Comm + ?Sized>) {
    let mut values = Vec::new();
    run.forest()
        .for_each_leaf(|l| values.push((l.id, 0.5 * l.data[0] + l.centroid[0])));
    for (id, value) in values {
        run.leaf_data_mut(id).expect("ids of the current leaves")[0] = value;
    }
}

/// How a test run balances.
#[derive(Clone, Copy)]
enum Mode {
    /// PLUM in the step, then a static processing level.
    Plum,
    /// No balance in the step, then an SBN level.
    Sbn,
    /// As `Sbn`, the level starting with SBN's pre-partitioner (§5.6).
    SbnPrepartitioned,
}

/// What one step and its level gave, on rank 0.
struct Level {
    leaves: Vec<LeafKey>,
    processed: ProcessedLevel,
    checksums: (u64, u64),
}

/// Every rank holds the whole mesh.
const WHOLE: bool = false;
/// Every rank holds its part of the mesh.
const PARTS: bool = true;

/// `STEPS` steps, each followed by a processing level, on `procs` thread ranks.
fn run(procs: usize, mode: Mode, hook: Option<Hook>) -> Result<Vec<Level>> {
    run_holding(procs, mode, hook, WHOLE)
}

/// [`run`] with each rank holding the whole mesh or (`parts`) its part, checked after every
/// step and level.
fn run_holding(procs: usize, mode: Mode, hook: Option<Hook>, parts: bool) -> Result<Vec<Level>> {
    let mesh = mesh();
    let initial = InitialMesh::new(mesh.clone())?;
    let check = |run: &Run<'_, _>| match parts {
        true => check_parts(run, &initial),
        false => check_ownership(run),
    };
    let per_rank = launch_threads(procs, |comm| {
        let plum = Plum::new(PlumOptions {
            accept: Accept::Always,
            ..PlumOptions::new(procs)
        })?;
        let (at, processing) = match mode {
            Mode::Plum => (BalanceAt::Predicted, Processing::Static),
            Mode::Sbn => (BalanceAt::Never, Processing::Sbn(SbnOptions::default())),
            Mode::SbnPrepartitioned => (
                BalanceAt::Never,
                Processing::Sbn(SbnOptions {
                    prepartition: true,
                    ..SbnOptions::default()
                }),
            ),
        };
        let plum = GatheredPlum::new(plum);
        let run = match parts {
            true => Run::on_parts(comm, &initial, adapt_options(), plum)?,
            false => Run::new(comm, mesh.clone(), adapt_options(), plum)?,
        };
        let mut run = run.balance_at(at);
        let opts = LevelOptions {
            hook,
            ..LevelOptions::new(processing)
        };
        let mut levels = Vec::new();
        for step in 0..STEPS {
            run.step(|leaf| mark(leaf, step))?;
            check(&run)?;
            solve(&mut run);
            let before = run.checksum()?;
            let processed = run.process(&opts, &mut Kernel::new(20))?;
            let after = run.checksum()?;
            check(&run)?;
            run.forest().check_structure()?;
            let mut leaves: Vec<Vec<LeafKey>> = comm.all_gather_serde(&leaf_keys(run.forest()))?;
            let mut all: Vec<LeafKey> = leaves.drain(..).flatten().collect();
            all.sort_unstable();
            levels.push(Level {
                leaves: all,
                processed,
                checksums: (before, after),
            });
        }
        Ok(levels)
    })?;
    Ok(per_rank.into_iter().next().expect("rank 0"))
}

/// The reference: one rank, static processing.
fn serial() -> Vec<Level> {
    run(1, Mode::Plum, None).unwrap()
}

fn check_against(reference: &[Level], levels: &[Level], what: &str) {
    let nroots = mesh().nelems() as u64;
    for (step, (want, got)) in reference.iter().zip(levels).enumerate() {
        let p = &got.processed;
        assert_eq!(p.roots(), nroots, "{what}, step {step}: roots processed");
        assert_eq!(
            p.digest(),
            want.processed.digest(),
            "{what}, step {step}: every root processed exactly once"
        );
        assert_eq!(p.leaves(), want.processed.leaves(), "{what}, step {step}");
        assert_eq!(
            got.checksums.0, got.checksums.1,
            "{what}, step {step}: the level changed a tree"
        );
        assert!(
            got.leaves == want.leaves,
            "{what}, step {step}: the mesh differs from the single rank's"
        );
    }
}

#[test]
fn sbn_processes_every_root_once_and_keeps_the_mesh() {
    without_hang(|| {
        let reference = serial();
        for procs in 1..=4 {
            let sbn = run(procs, Mode::Sbn, None).unwrap();
            check_against(&reference, &sbn, &format!("SBN, P = {procs}"));
            assert!(
                sbn.iter().all(|l| l.processed.tables_agree()),
                "SBN, P = {procs}: a home rank's directory disagrees with the owners"
            );
            let pre = run(procs, Mode::SbnPrepartitioned, None).unwrap();
            check_against(
                &reference,
                &pre,
                &format!("SBN pre-partitioned, P = {procs}"),
            );
            let plum = run(procs, Mode::Plum, None).unwrap();
            check_against(&reference, &plum, &format!("PLUM, P = {procs}"));
            for (s, p) in sbn.iter().zip(&plum) {
                assert!(s.leaves == p.leaves, "SBN and PLUM meshes differ");
            }
        }
    });
}

#[test]
fn static_processing_moves_nothing_and_pays_the_cut_faces() {
    without_hang(|| {
        let levels = run(3, Mode::Plum, None).unwrap();
        for level in &levels {
            let p = &level.processed;
            assert_eq!(p.movement().total_v, 0);
            assert_eq!(p.traffic(WireKind::Migration).messages, 0);
            assert_eq!(p.traffic(WireKind::Balance).messages, 0);
            let faces = p.traffic(WireKind::Faces);
            assert!(faces.messages > 0 && faces.bytes > 0, "no face messages");
        }
    });
}

#[test]
fn termination_holds_with_a_slow_rank_and_work_moves_away_from_it() {
    without_hang(|| {
        let reference = serial();
        let hook = Hook::Slow {
            rank: 1,
            pause: Duration::from_millis(2),
        };
        let levels = run(3, Mode::Sbn, Some(hook)).unwrap();
        check_against(&reference, &levels, "SBN with a slow rank");
        let moved: u64 = levels
            .iter()
            .map(|l| l.processed.ranks.iter().map(|r| r.data_moves).sum::<u64>())
            .sum();
        assert!(moved > 0, "no tree moved away from the slow rank");
        // Over the levels the slow rank processes less than the others do on average.
        let total =
            |rank: usize| -> u64 { levels.iter().map(|l| l.processed.ranks[rank].roots).sum() };
        let (slow, others) = (total(1), (total(0) + total(2)) / 2);
        assert!(
            slow < others,
            "the slow rank processed {slow} roots, the others {others} each"
        );
        for level in &levels {
            let p = &level.processed;
            assert_eq!(
                p.movement().total_v,
                p.ranks.iter().map(|r| r.elements_received).sum()
            );
        }
    });
}

#[test]
fn a_rank_failing_in_the_level_ends_every_rank_with_its_error() {
    without_hang(|| {
        for (procs, mode) in [(2, Mode::Sbn), (4, Mode::Sbn), (3, Mode::Plum)] {
            let hook = Hook::Fail { rank: 1, after: 3 };
            let err = run(procs, mode, Some(hook)).err().expect("the run fails");
            assert!(
                err.to_string().contains("rank 1 failed (test hook)"),
                "P = {procs}: {err}"
            );
        }
    });
}

#[test]
fn on_parts_every_root_is_processed_once_and_the_ghost_layers_follow() {
    without_hang(|| {
        let reference = serial();
        for procs in 1..=4 {
            for (mode, what) in [
                (Mode::Plum, "static"),
                (Mode::Sbn, "SBN"),
                (Mode::SbnPrepartitioned, "SBN pre-partitioned"),
            ] {
                let levels = run_holding(procs, mode, None, PARTS).unwrap();
                check_against(
                    &reference,
                    &levels,
                    &format!("{what} on parts, P = {procs}"),
                );
            }
        }
    });
}

#[test]
fn on_parts_static_levels_pay_the_same_cut_faces_as_on_the_whole_mesh() {
    without_hang(|| {
        let whole = run_holding(3, Mode::Plum, None, WHOLE).unwrap();
        let parts = run_holding(3, Mode::Plum, None, PARTS).unwrap();
        for (w, p) in whole.iter().zip(&parts) {
            for kind in WireKind::ALL {
                assert_eq!(w.processed.traffic(kind), p.processed.traffic(kind));
            }
            let count = |l: &Level| {
                l.processed
                    .ranks
                    .iter()
                    .map(|r| r.roots)
                    .collect::<Vec<_>>()
            };
            assert_eq!(count(w), count(p), "each rank processes its own roots");
        }
    });
}

#[test]
fn on_parts_trees_moved_to_a_slow_ranks_neighbours_are_held_with_their_ghosts() {
    without_hang(|| {
        let reference = serial();
        let hook = Hook::Slow {
            rank: 1,
            pause: Duration::from_millis(2),
        };
        let levels = run_holding(3, Mode::Sbn, Some(hook), PARTS).unwrap();
        check_against(&reference, &levels, "SBN on parts with a slow rank");
        let moved: u64 = levels
            .iter()
            .map(|l| l.processed.ranks.iter().map(|r| r.data_moves).sum::<u64>())
            .sum();
        assert!(moved > 0, "no tree moved away from the slow rank");
        let hook = Hook::Fail { rank: 1, after: 3 };
        let err = run_holding(3, Mode::Sbn, Some(hook), PARTS)
            .err()
            .expect("the run fails");
        assert!(
            err.to_string().contains("rank 1 failed (test hook)"),
            "{err}"
        );
    });
}
