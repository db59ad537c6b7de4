//! The MPI backend of `plume::comm` under `mpirun` (built only with `--features mpi`).
//!
//! MPI initialises once per process, so this test is its own launcher (`harness = false`):
//! run by cargo, it starts `mpirun -n N` on its own binary with `rank SCENARIO`, and each
//! process runs that scenario as one rank through `with_mpi`. The scenarios: the collective and
//! message checks of `tests/comm_checks` for N = 1…4; one rank failing at an agreement (every
//! rank exits non-zero and one message is printed); one rank failing alone or panicking while
//! the others wait (the job is aborted); the distributed adaptive loop (`plume::dist::Run`) for
//! N = 1…4, whose union of leaves is the serial forest's and whose per-level metrics are the
//! threads backend's; the start-up checks of `tests/startup_checks` (SFC partition on ranks,
//! spread mesh, generated blocks, vertex directory) for N = 2…4; runs started from chunks
//! (`Run::from_chunk`), whose shares and records are the threads backend's, for N = 2…4; SBN processing levels for N = 2…4 (and with a slow rank), whose roots,
//! leaves and digest are the single rank's (the tree checksum unchanged by each level), and a rank failing in one (every
//! rank exits non-zero with one message); HybridLB's decisions for N = 4, which are the
//! in-process simulation's. `mpirun --timeout` turns a hang into exit code 110, which the failure
//! scenarios must not see.

mod comm_checks;
mod external;
mod startup_checks;

use plume::adapt::{AdaptOptions, Forest, LeafView};
use plume::balance::hier::{
    balance, balance_on_ranks, Clock, CommData, HierOptions, LbTest, ObjData, Strategy, Tree,
};
use plume::balance::SbnOptions;
use plume::balance::{Accept, Plum, PlumOptions};
use plume::comm::{launch_threads, with_mpi, Comm, CommExt, MpiComm};
use plume::dist::{BalanceAt, GatheredPlum, Hook, Kernel, LevelOptions, Mark, Processing, Run};
use plume::mesh::generate_box;
use plume::Error;
use std::io::Write;
use std::process::Output;

/// `mpirun`'s exit code when its `--timeout` ends the job.
const MPIRUN_TIMEOUT_EXIT: i32 = 110;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("rank") {
        std::process::exit(run_rank(args.get(2).map_or("", String::as_str)));
    }
    for procs in 1..=4 {
        the_checks_pass_on(procs);
    }
    for procs in 1..=4 {
        the_adaptive_loop_matches_the_threads_backend(procs);
    }
    example_4_prints_the_same_mesh_on_any_number_of_ranks();
    for procs in 2..=4 {
        the_start_up_checks_pass_on(procs);
    }
    for procs in 2..=4 {
        the_chunk_start_matches_the_threads_backend(procs);
    }
    for procs in 2..=4 {
        sbn_levels_match_one_rank(procs, "sbn");
    }
    sbn_levels_match_one_rank(3, "sbn-slow");
    a_rank_failing_in_an_sbn_level_ends_every_rank_with_one_message();
    hierarchical_decisions_match_the_simulation(4);
    an_agreed_failure_ends_every_rank_with_one_message();
    a_rank_failing_alone_aborts_the_job();
    a_panicking_rank_aborts_the_job();
    println!("comm_mpi: all scenarios passed");
}

/// The failure a scenario makes rank 1 report.
fn unreadable() -> Error {
    Error::Io {
        path: "mesh_1.msh".into(),
        message: "No such file or directory".into(),
    }
}

/// Runs `scenario` as this process's rank; prints an agreed error on rank 0 only and returns
/// the process's exit code.
fn run_rank(scenario: &str) -> i32 {
    let mut rank = 0;
    let mut printed = false;
    let outcome = with_mpi(|comm| {
        rank = comm.rank();
        match scenario {
            "checks" => comm_checks::all(comm).map(|()| {
                if comm.rank() == 0 {
                    println!("checks passed on {} ranks", comm.size());
                }
            }),
            "startup" => startup_checks::all(comm).map(|()| {
                if comm.rank() == 0 {
                    println!("start-up checks passed on {} ranks", comm.size());
                }
            }),
            "chunk-start" => reported(
                comm,
                startup_checks::chunk_run::chunk_start(comm),
                &mut printed,
            )
            .map(|lines| {
                if comm.rank() == 0 {
                    for line in lines {
                        println!("{line}");
                    }
                }
            }),
            "agreed-failure" => {
                let local = if comm.rank() == 1 {
                    Err(unreadable())
                } else {
                    Ok(())
                };
                reported(comm, comm.agree(local), &mut printed)?;
                comm.barrier()
            }
            "dist" => reported(comm, dist_levels(comm), &mut printed).map(|lines| {
                for line in lines {
                    println!("{line}");
                }
            }),
            "sbn" | "sbn-slow" | "sbn-failure" => {
                let hook = match scenario {
                    "sbn-slow" => Some(Hook::Slow {
                        rank: 1,
                        pause: std::time::Duration::from_millis(2),
                    }),
                    "sbn-failure" => Some(Hook::Fail { rank: 1, after: 3 }),
                    _ => None,
                };
                reported(comm, sbn_levels(comm, hook), &mut printed).map(|lines| {
                    for line in lines {
                        println!("{line}");
                    }
                })
            }
            "hier" => reported(comm, hier_moves(comm), &mut printed).map(|lines| {
                for line in lines {
                    println!("{line}");
                }
            }),
            "lone-failure" if comm.rank() == 1 => Err(unreadable()),
            "lone-failure" => comm.barrier(),
            "panic" if comm.rank() == 1 => panic!("rank 1 lost its mesh"),
            "panic" => comm.barrier(),
            _ => Err(Error::Invalid(format!("unknown scenario {scenario:?}"))),
        }
    });
    match outcome {
        Ok(()) => 0,
        Err(error) => {
            if rank == 0 && !printed {
                // One write, so that `mpirun` forwards the line whole.
                let line = format!("plume: {error}\n");
                std::io::stderr().write_all(line.as_bytes()).unwrap();
            }
            1
        }
    }
}

/// Passes on `result`, an outcome every rank shares (agreed); when it is an error, rank 0
/// prints it (setting `printed`) before any rank goes on to exit: `mpirun` ends the job once
/// a process exits non-zero and may drop what rank 0 had not written yet.
fn reported<T>(comm: &MpiComm, result: plume::Result<T>, printed: &mut bool) -> plume::Result<T> {
    if let Err(error) = &result {
        if comm.rank() == 0 {
            // One write, so that `mpirun` forwards the line whole.
            let line = format!("plume: {error}\n");
            std::io::stderr().write_all(line.as_bytes()).unwrap();
            *printed = true;
        }
        comm.barrier()?;
    }
    result
}

/// `mpirun -n procs` on this binary running `scenario`, ended after `timeout` seconds.
fn mpirun(procs: usize, scenario: &str, timeout: u32) -> Output {
    let own = std::env::current_exe().expect("the test binary's path");
    external::mpirun(procs, timeout, &own, &["rank", scenario])
}

/// The lines of `text` that are plume's error messages.
fn plume_lines(text: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| l.starts_with("plume: "))
        .map(String::from)
        .collect()
}

/// Asserts that `output` is a job ended by a failure (not by the timeout) whose `plume: `
/// lines are `messages`.
fn assert_failed_with(output: &Output, messages: &[String], scenario: &str) {
    let code = output.status.code();
    assert!(
        code.is_some_and(|c| c != 0 && c != MPIRUN_TIMEOUT_EXIT),
        "{scenario}: mpirun exited with {code:?}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(plume_lines(&output.stderr), messages, "{scenario}");
}

fn the_checks_pass_on(procs: usize) {
    let output = mpirun(procs, "checks", 60);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "checks on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.trim(),
        format!("checks passed on {procs} ranks"),
        "checks on {procs} ranks"
    );
    println!("test comm_mpi: checks on {procs} ranks ... ok");
}

fn the_start_up_checks_pass_on(procs: usize) {
    let output = mpirun(procs, "startup", 60);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "start-up checks on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.trim(),
        format!("start-up checks passed on {procs} ranks"),
        "start-up checks on {procs} ranks"
    );
    println!("test comm_mpi: start-up checks on {procs} ranks ... ok");
}

fn an_agreed_failure_ends_every_rank_with_one_message() {
    let output = mpirun(3, "agreed-failure", 20);
    let expected = [format!("plume: {}", unreadable())];
    assert_failed_with(&output, &expected, "agreed failure");
    println!("test comm_mpi: an agreed failure ends every rank with one message ... ok");
}

fn a_rank_failing_alone_aborts_the_job() {
    let output = mpirun(3, "lone-failure", 20);
    let expected = [format!("plume: {}", unreadable())];
    assert_failed_with(&output, &expected, "lone failure");
    println!("test comm_mpi: a rank failing alone aborts the job ... ok");
}

fn a_panicking_rank_aborts_the_job() {
    let output = mpirun(3, "panic", 20);
    // The panic has printed itself; nobody adds a `plume: ` line.
    assert_failed_with(&output, &[], "panic");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("rank 1 lost its mesh"), "{stderr}");
    println!("test comm_mpi: a panicking rank aborts the job ... ok");
}

/// Levels of the distributed loop in [`dist_levels`].
const DIST_LEVELS: usize = 4;

/// A sphere sweeping along x: leaves near its surface refined, far ones coarsened.
fn sphere_mark(leaf: &LeafView, level: usize) -> Mark {
    let centre = [0.2 + 0.2 * level as f64, 0.5, 0.5];
    let d = leaf
        .centroid
        .iter()
        .zip(centre)
        .map(|(c, m)| (c - m).powi(2))
        .sum::<f64>()
        .sqrt();
    let gap = (d - 0.3).abs();
    let size = (leaf.corners[0][0] - leaf.corners[1][0]).abs() + 0.05 / f64::from(leaf.level + 1);
    if gap < size {
        Mark::Refine
    } else if gap > 3.0 * size {
        Mark::Coarsen
    } else {
        Mark::Keep
    }
}

/// Leaves as (root, level, sorted vertex keys).
fn leaf_keys(forest: &Forest) -> Vec<(u32, u8, [u64; 4])> {
    let mut out = Vec::new();
    forest.for_each_leaf(|l| {
        let mut keys = l.verts.map(|v| forest.vertices()[v].key);
        keys.sort_unstable();
        out.push((l.id.root, l.level, keys));
    });
    out
}

/// The distributed loop on `comm`: on rank 0, one line of metrics per level (times left out);
/// fails on every rank when the union of the ranks' leaves is not the serial forest's.
fn dist_levels<C: Comm + ?Sized>(comm: &C) -> plume::Result<Vec<String>> {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0])?;
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: 0,
        ..AdaptOptions::default()
    };
    let plum_opts = PlumOptions {
        accept: Accept::Always,
        ..PlumOptions::new(comm.size())
    };
    let mut run = Run::new(
        comm,
        mesh.clone(),
        opts.clone(),
        GatheredPlum::new(Plum::new(plum_opts)?),
    )?;
    let mut serial = Forest::new(mesh, opts)?;
    let mut lines = Vec::new();
    for level in 0..DIST_LEVELS {
        let report = run.step(|leaf| sphere_mark(leaf, level))?;
        same_as_serial(&run, &mut serial, level)?;
        if comm.rank() == 0 {
            lines.push(format!("level {level}: {:?}", report.metrics));
        }
    }
    Ok(lines)
}

/// Adapts `serial` as level `level` marks and fails on every rank unless the union of the
/// ranks' leaves is its leaves.
fn same_as_serial<C: Comm + ?Sized>(
    run: &Run<'_, C>,
    serial: &mut Forest,
    level: usize,
) -> plume::Result<()> {
    let mut marks = Vec::new();
    serial.for_each_leaf(|l| marks.push((l.id, sphere_mark(l, level))));
    for (id, mark) in marks {
        match mark {
            Mark::Refine => serial.mark_refine(id),
            Mark::Coarsen => serial.mark_coarsen(id),
            Mark::Keep => {}
        }
    }
    serial.adapt()?;
    let mut union: Vec<_> = run
        .comm()
        .all_gather_serde(&leaf_keys(run.forest()))?
        .into_iter()
        .flatten()
        .collect();
    union.sort_unstable();
    let mut expected = leaf_keys(serial);
    expected.sort_unstable();
    if union != expected {
        return Err(Error::Invalid(format!(
            "level {level}: the ranks' leaves are not the serial forest's"
        )));
    }
    Ok(())
}

/// The distributed loop without PLUM, each step followed by an SBN processing level (`hook`
/// on one rank): on rank 0, one line per level with what is the same for every P (roots and
/// leaves processed, the kernel's digest); fails on every rank
/// when the level changed a tree, a root is not held by exactly its owner, or the union of
/// the ranks' leaves is not the serial forest's.
fn sbn_levels<C: Comm + ?Sized>(comm: &C, hook: Option<Hook>) -> plume::Result<Vec<String>> {
    let mesh = generate_box([4, 3, 3], [1.0, 1.0, 1.0])?;
    let opts = AdaptOptions {
        max_depth: 3,
        nfields: 0,
        ..AdaptOptions::default()
    };
    let plum = Plum::new(PlumOptions::new(comm.size()))?;
    let mut run = Run::new(comm, mesh.clone(), opts.clone(), GatheredPlum::new(plum))?
        .balance_at(BalanceAt::Never);
    let mut serial = Forest::new(mesh, opts)?;
    let level_opts = LevelOptions {
        hook,
        ..LevelOptions::new(Processing::Sbn(SbnOptions::default()))
    };
    let mut lines = Vec::new();
    for level in 0..DIST_LEVELS {
        run.step(|leaf| sphere_mark(leaf, level))?;
        let before = run.checksum()?;
        let processed = run.process(&level_opts, &mut Kernel::new(20))?;
        let after = run.checksum()?;
        if before != after {
            return Err(Error::Invalid(format!("level {level} changed a tree")));
        }
        let held = comm.all_gather_serde(&run.held_roots())?;
        let owned = held.iter().enumerate().all(|(rank, roots)| {
            roots
                .iter()
                .all(|&r| run.owner()[r as usize] as usize == rank)
        });
        if !owned || held.iter().map(Vec::len).sum::<usize>() != run.owner().len() {
            return Err(Error::Invalid(format!(
                "level {level}: roots not held by their owners"
            )));
        }
        same_as_serial(&run, &mut serial, level)?;
        if comm.rank() == 0 {
            lines.push(format!(
                "level {level}: roots {} leaves {} digest {}",
                processed.roots(),
                processed.leaves(),
                processed.digest()
            ));
        }
    }
    Ok(lines)
}

/// The hierarchical balancer's settings the `hier` scenario decides with on `procs` ranks:
/// a uniform tree and a list, every lowest strategy, with and without semi-centralized levels.
fn hier_settings(procs: usize) -> Vec<(Tree, HierOptions)> {
    let trees = [
        Tree::uniform(procs, 2).expect("a binary tree"),
        Tree::from_list(procs, &[procs]).expect("one level"),
    ];
    let mut settings = Vec::new();
    for tree in trees {
        for strategy in [Strategy::Greedy, Strategy::GreedyComm, Strategy::Refine] {
            for max_objects in [None, Some(30)] {
                let opts = HierOptions {
                    strategy,
                    max_objects,
                    ..HierOptions::default()
                };
                settings.push((tree.clone(), opts));
            }
        }
    }
    settings
}

/// `lb_test`'s objects for `procs` ranks: 40 per rank, ring communication.
fn hier_objects(procs: usize) -> plume::Result<(Vec<ObjData>, Vec<CommData>)> {
    LbTest::new(40 * procs, procs).generate()
}

/// Each rank balances its own `lb_test` objects with HybridLB over the transport (every
/// setting of [`hier_settings`]); rank 0 gathers the moves and writes, per setting, every
/// object's destination.
fn hier_moves<C: Comm + ?Sized>(comm: &C) -> plume::Result<Vec<String>> {
    let (objs, records) = hier_objects(comm.size())?;
    let me = comm.rank() as u32;
    let mut lines = Vec::new();
    for (tree, opts) in hier_settings(comm.size()) {
        let mine: Vec<ObjData> = objs.iter().filter(|o| o.home == me).copied().collect();
        let sent: Vec<CommData> = records
            .iter()
            .filter(|r| objs[r.from as usize].home == me)
            .copied()
            .collect();
        let moves = balance_on_ranks(comm, &tree, &opts, mine, sent)?;
        let all = comm.all_gather_serde(&moves)?;
        let mut dest: Vec<u32> = objs.iter().map(|o| o.home).collect();
        for &(id, to) in all.iter().flatten() {
            dest[id as usize] = to;
        }
        if comm.rank() == 0 {
            lines.push(format!("{dest:?}"));
        }
    }
    Ok(lines)
}

/// HybridLB's decisions under `mpirun -n procs` are the in-process simulation's, bit for bit
/// (B.11 test 11 on MPI ranks).
fn hierarchical_decisions_match_the_simulation(procs: usize) {
    let output = mpirun(procs, "hier", 60);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "hier on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let (objs, records) = hier_objects(procs).expect("lb_test objects");
    let simulated: Vec<String> = hier_settings(procs)
        .iter()
        .map(|(tree, opts)| {
            let sim = balance(tree, opts, &Clock::default(), &objs, &records, None)
                .expect("the simulation");
            assert!(sim.migrated > 0, "{opts:?}: the balancer moved nothing");
            format!("{:?}", sim.dest)
        })
        .collect();
    let mpi: Vec<String> = stdout.lines().map(String::from).collect();
    assert_eq!(
        mpi, simulated,
        "hier on {procs} ranks: not the simulation's"
    );
    println!("test comm_mpi: hierarchical decisions on {procs} ranks match the simulation ... ok");
}

/// The SBN levels of [`sbn_levels`] under `mpirun` (`scenario`: `sbn` or `sbn-slow`) give
/// the single thread rank's lines.
fn sbn_levels_match_one_rank(procs: usize, scenario: &str) {
    let output = mpirun(procs, scenario, 120);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{scenario} on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let one = launch_threads(1, |comm| sbn_levels(comm, None)).expect("one thread rank");
    let mpi: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        mpi, one[0],
        "{scenario} on {procs} ranks: not the single rank's"
    );
    assert_eq!(mpi.len(), DIST_LEVELS);
    println!("test comm_mpi: {scenario} levels on {procs} ranks match one rank ... ok");
}

fn a_rank_failing_in_an_sbn_level_ends_every_rank_with_one_message() {
    let output = mpirun(3, "sbn-failure", 60);
    let expected = ["plume: rank 1 failed (test hook)".to_string()];
    assert_failed_with(&output, &expected, "sbn failure");
    println!("test comm_mpi: a rank failing in an SBN level ends every rank ... ok");
}

/// A run started from chunks under `mpirun` (the share check, then each kind of first
/// owners) prints the lines the threads backend gives.
fn the_chunk_start_matches_the_threads_backend(procs: usize) {
    let output = mpirun(procs, "chunk-start", 120);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "chunk start on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let threads =
        launch_threads(procs, startup_checks::chunk_run::chunk_start).expect("threads backend");
    let mpi: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        mpi, threads[0],
        "chunk start on {procs} ranks: MPI and threads differ"
    );
    assert_eq!(mpi.len(), 2 * 3);
    println!("test comm_mpi: the chunk start on {procs} ranks matches threads ... ok");
}

/// `examples/ex4_mpi.rs` (built by `cargo test` with the feature): its lines (per step the
/// leaves, their depths summed, families coarsened, elements divided, the checksum) are the same on 1, 2
/// and 3 ranks, and its own check of the depths it moved through the leaf map passes.
fn example_4_prints_the_same_mesh_on_any_number_of_ranks() {
    let own = std::env::current_exe().expect("the test binary's path");
    let example = own
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .join("examples/ex4_mpi");
    assert!(
        example.exists(),
        "{} is not built: `cargo build --release -p plume --features mpi --example ex4_mpi` \
         first (.ci/run does)",
        example.display()
    );
    let lines: Vec<Vec<String>> = (1..=3)
        .map(|procs| {
            let output = external::mpirun(procs, 120, &example, &[]);
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "ex4_mpi on {procs} ranks: {:?}\n{stdout}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
            stdout.lines().map(String::from).collect()
        })
        .collect();
    assert_eq!(lines[0].len(), 4, "{:?}", lines[0]);
    assert_eq!(lines[0], lines[1], "ex4_mpi: 1 and 2 ranks differ");
    assert_eq!(lines[0], lines[2], "ex4_mpi: 1 and 3 ranks differ");
    println!("test comm_mpi: example 4 prints the same mesh on 1, 2 and 3 ranks ... ok");
}

fn the_adaptive_loop_matches_the_threads_backend(procs: usize) {
    let output = mpirun(procs, "dist", 120);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "dist on {procs} ranks: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let threads = launch_threads(procs, dist_levels).expect("threads backend");
    let mpi: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        mpi, threads[0],
        "dist on {procs} ranks: MPI and threads differ"
    );
    assert_eq!(mpi.len(), DIST_LEVELS);
    println!("test comm_mpi: the adaptive loop on {procs} ranks matches threads ... ok");
}
