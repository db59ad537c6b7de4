//! Checkpoint and restart (issue 27.3): a shock run stopped after level k and continued from
//! its checkpoint on another number of thread ranks gives the uninterrupted run's mesh at
//! every level (`Forest::checksum` of every leaf) and its records that do not depend on P
//! (`level`, `leaves`); an Euler run continued so gives the uninterrupted flow's records bit
//! for bit (the clocks and the balancer's aside); continued on the P that wrote it, either
//! case gives every record field but the clocks bit for bit, the balancer's (`load_imb`, the
//! moves) included; corrupt, cut, incomplete or another run's checkpoints are refused with
//! one line and exit 1.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use common::{euler_moved_trees, fails, ok, records_without, TempDir, EULER_BALANCER_FIELDS};
use plume::comm::{launch_threads, Comm, CommExt, CpuClock, ReduceOp};
use plume::dist::CpuLaps;
use plume::mesh::Mesh;
use plume_cases::checkpoint::Checkpoints;
use plume_cases::shock::{ranks::run_rank, ShockConfig};
use serde_json::Value;

/// The shock case on `procs` thread ranks up to `levels` with `checkpoints`: each level's
/// digest of the whole mesh, from the first level `each_level` sees.
fn digests(
    mesh: &Mesh,
    procs: usize,
    levels: usize,
    checkpoints: &Checkpoints,
) -> Vec<(usize, u64)> {
    let mut cfg = ShockConfig::new(procs);
    cfg.levels = levels;
    let seen = Mutex::new(BTreeMap::new());
    launch_threads(procs, |comm| {
        let mesh = (comm.rank() == 0).then(|| mesh.clone());
        let serial = CpuLaps::start(CpuClock::Process);
        let run = run_rank(
            comm,
            &cfg,
            (mesh, &serial),
            true,
            checkpoints,
            |level, _, forest, _| {
                let digest = comm.reduce_u64(forest.checksum(), ReduceOp::Sum)?;
                seen.lock().unwrap().insert(level, digest);
                Ok(())
            },
        );
        comm.agree(run.map_err(|e| plume::Error::Invalid(e.to_string())))
    })
    .unwrap();
    seen.into_inner().unwrap().into_iter().collect()
}

#[test]
fn a_restart_on_other_thread_ranks_builds_the_uninterrupted_mesh() {
    let dir = TempDir::new("ckpt-digests");
    let mesh = plume::mesh::generate_box([8, 4, 4], [2.0, 1.0, 1.0]).unwrap();
    let whole = digests(&mesh, 1, 6, &Checkpoints::default());
    assert_eq!(whole.len(), 7, "levels 0 to 6");
    // The front changes the mesh at every level.
    assert!(whole.windows(2).all(|w| w[0].1 != w[1].1), "{whole:?}");
    for (before, k, after) in [(1, 2, 3), (4, 3, 2)] {
        let ckpt = dir.path(&format!("p{before}"));
        let writing = Checkpoints {
            every: Some(k),
            dir: ckpt.clone(),
            restart: None,
        };
        assert_eq!(digests(&mesh, before, k, &writing), whole[..=k]);
        let continuing = Checkpoints {
            restart: Some(ckpt),
            ..Checkpoints::default()
        };
        let got = digests(&mesh, after, 6, &continuing);
        assert_eq!(got, whole[k..], "P = {before} → {after} after level {k}");
    }
}

/// The `level` and `leaves` of each record of run folder `dir`'s `metrics.json`.
fn leaves(dir: &Path) -> Vec<(u64, u64)> {
    let text = std::fs::read_to_string(dir.join("metrics.json")).unwrap();
    let metrics: Value = serde_json::from_str(&text).unwrap();
    let levels = metrics["levels"].as_array().expect("levels");
    levels
        .iter()
        .map(|r| (r["level"].as_u64().unwrap(), r["leaves"].as_u64().unwrap()))
        .collect()
}

/// `run shock` on `procs` thread ranks of the mesh `mesh` up to `levels`, into `out`, with
/// `more` options.
fn shock(mesh: &str, procs: usize, levels: usize, out: &str, more: &[&str]) {
    let (p, l) = (procs.to_string(), levels.to_string());
    let args = [
        "run", "shock", "--mesh", mesh, "--procs", &p, "--levels", &l,
    ];
    ok(&[&args[..], &["--vtk", "none", "--out", out], more].concat());
}

#[test]
fn run_shock_continued_gives_the_uninterrupted_records() {
    let dir = TempDir::new("ckpt-cli");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "4", "-o", &mesh]);
    shock(&mesh, 1, 6, &dir.arg("whole"), &[]);
    let whole = leaves(&dir.path("whole"));
    assert_eq!(
        whole.iter().map(|r| r.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    for (before, k, after) in [(1, 2, 3), (4, 3, 2)] {
        let first = dir.arg(&format!("first{before}"));
        shock(
            &mesh,
            before,
            k,
            &first,
            &["--checkpoint-every", &k.to_string()],
        );
        let ckpt = dir.path(&format!("first{before}")).join("checkpoint");
        assert!(ckpt.join("manifest").is_file());
        let then = dir.arg(&format!("then{after}"));
        let from = ckpt.display().to_string();
        shock(&mesh, after, 6, &then, &["--restart", &from]);
        assert_eq!(
            leaves(Path::new(&then)),
            whole[k..],
            "P = {before} → {after}"
        );
    }
}

/// The fields of a `plume run shock` record that depend on the clocks: the stage times and
/// the balancer's share of them.
const SHOCK_CLOCKS: [&str; 2] = ["time_ms", "balance_pct"];

#[test]
fn run_shock_continued_on_its_ranks_gives_every_record_bit_for_bit() {
    let dir = TempDir::new("ckpt-same-p");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "4", "-o", &mesh]);
    for (procs, k) in [(2, 3), (3, 2)] {
        let whole = dir.arg(&format!("whole{procs}"));
        shock(&mesh, procs, 6, &whole, &[]);
        let whole = records_without(Path::new(&whole), "levels", &SHOCK_CLOCKS);
        // The levels after the checkpoint balance and move trees: the owners matter.
        let moved: u64 = whole[k..]
            .iter()
            .map(|r| r["trees_moved"].as_u64().unwrap())
            .sum();
        assert!(moved > 0, "P = {procs}: nothing moved after level {k}");
        let first = dir.arg(&format!("first{procs}"));
        let every = k.to_string();
        shock(&mesh, procs, k, &first, &["--checkpoint-every", &every]);
        let from = Path::new(&first).join("checkpoint").display().to_string();
        let then = dir.arg(&format!("then{procs}"));
        shock(&mesh, procs, 6, &then, &["--restart", &from]);
        let got = records_without(Path::new(&then), "levels", &SHOCK_CLOCKS);
        assert_eq!(got, whole[k..], "P = {procs} → {procs} after level {k}");
    }
}

#[test]
fn run_shock_continued_keeps_its_policy_history() {
    // A policy with a history (a step count, measured costs, accumulated degradation and
    // increase rates): continued on the P that wrote it, the run decides as the
    // uninterrupted one did at every later level.
    let dir = TempDir::new("ckpt-policy");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "4", "-o", &mesh]);
    let (procs, k) = (2, 3);
    for policy in ["periodic:2", "cost-benefit", "ulba"] {
        let name = policy.replace(':', "");
        let with = ["--policy", policy];
        let whole = dir.arg(&format!("whole-{name}"));
        shock(&mesh, procs, 7, &whole, &with);
        let whole = records_without(Path::new(&whole), "levels", &SHOCK_CLOCKS);
        let triggered: Vec<bool> = whole
            .iter()
            .map(|r| r["balance_triggered"].as_bool().unwrap())
            .collect();
        // The history matters: the policy balanced before the checkpoint and decides
        // both ways after it.
        assert!(triggered[..k].contains(&true), "{policy}: {triggered:?}");
        let first = dir.arg(&format!("first-{name}"));
        let every = ["--checkpoint-every", "3"];
        shock(&mesh, procs, k, &first, &[&with[..], &every].concat());
        let from = Path::new(&first).join("checkpoint").display().to_string();
        let then = dir.arg(&format!("then-{name}"));
        shock(
            &mesh,
            procs,
            7,
            &then,
            &[&with[..], &["--restart", &from]].concat(),
        );
        let got = records_without(Path::new(&then), "levels", &SHOCK_CLOCKS);
        assert_eq!(got, whole[k..], "{policy}: P = {procs} after level {k}");
    }
}

/// A copy of the checkpoint folder `from` into `to`, the file `name` changed by `alter`
/// (`false`: left out).
fn copy_altered(from: &Path, to: &Path, name: &str, alter: fn(&mut Vec<u8>) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let mut bytes = std::fs::read(entry.path()).unwrap();
        if entry.file_name() != name || alter(&mut bytes) {
            std::fs::write(to.join(entry.file_name()), bytes).unwrap();
        }
    }
}

/// Alters a file's bytes; false: leaves the file out.
type Alter = fn(&mut Vec<u8>) -> bool;

#[test]
fn corrupt_cut_incomplete_or_foreign_checkpoints_are_refused() {
    let dir = TempDir::new("ckpt-corrupt");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "4", "-o", &mesh]);
    shock(&mesh, 2, 2, &dir.arg("first"), &["--checkpoint-every", "1"]);
    let ckpt = dir.path("first").join("checkpoint");
    let restart = |from: &Path, more: &[&str], needles: &[&str]| {
        let (out, from) = (dir.arg("then"), from.display().to_string());
        let args = [
            "run", "shock", "--mesh", &mesh, "--procs", "3", "--levels", "4",
        ];
        let tail = ["--vtk", "none", "--out", &out, "--restart", &from];
        fails(&[&args[..], &tail, more].concat(), 1, needles);
    };
    let cases: [(&str, Alter, &[&str]); 5] = [
        (
            "trees_r0001.bin",
            |b| {
                let i = b.len() / 2;
                b[i] ^= 4;
                true
            },
            &["trees_r0001.bin", "CRC"],
        ),
        (
            "trees_r0000.bin",
            |b| {
                b.truncate(b.len() - 1);
                true
            },
            &["trees_r0000.bin", "bytes where"],
        ),
        ("trees_r0001.bin", |_| false, &["trees_r0001.bin"]),
        (
            "manifest",
            |b| {
                b[30] ^= 1;
                true
            },
            &["manifest"],
        ),
        (
            "state.bin",
            |b| {
                b[0] ^= 1;
                true
            },
            &["state.bin", "CRC"],
        ),
    ];
    for (k, (name, alter, needles)) in cases.into_iter().enumerate() {
        let copy = dir.path(&format!("copy{k}"));
        copy_altered(&ckpt, &copy, name, alter);
        restart(&copy, &[], needles);
    }
    // Another run's: another front, another mesh.
    restart(
        &ckpt,
        &["--uniform", "1"],
        &["another run's checkpoint", "uniform: 0"],
    );
    let other = dir.arg("other.msh");
    ok(&["mesh", "box", "--cells", "8", "4", "5", "-o", &other]);
    let (out, from) = (dir.arg("then"), ckpt.display().to_string());
    let args = [
        "run", "shock", "--mesh", &other, "--procs", "2", "--levels", "4",
    ];
    let tail = ["--vtk", "none", "--out", &out, "--restart", &from];
    fails(
        &[&args[..], &tail].concat(),
        1,
        &["another run's checkpoint", "initial mesh"],
    );
    // A checkpoint at the run's last level or beyond has nothing to continue.
    let args = [
        "run", "shock", "--mesh", &mesh, "--levels", "2", "--out", &out,
    ];
    fails(
        &[&args[..], &["--restart", &from]].concat(),
        1,
        &["ends at 2"],
    );
    // A folder no checkpoint was written to.
    let none = dir.arg("none");
    fails(
        &[&args[..], &["--restart", &none]].concat(),
        1,
        &["manifest"],
    );
}

#[test]
fn checkpoint_options_are_checked() {
    let dir = TempDir::new("ckpt-usage");
    let out = dir.arg("out");
    let run = ["run", "shock", "--levels", "1", "--out", &out];
    fails(
        &[&run[..], &["--checkpoint-every", "0"]].concat(),
        2,
        &["at least 1"],
    );
    fails(
        &[&run[..], &["--checkpoint-dir", &out]].concat(),
        2,
        &["--checkpoint-every"],
    );
    let sbn = ["--balancer", "sbn", "--restart", &out];
    fails(&[&run[..], &sbn].concat(), 2, &["--backend"]);
}

/// The Sod tube with its outputs every 20 iterations.
const SOD: [&str; 6] = ["run", "euler", "--output-every", "20", "--vtk", "none"];

/// `run euler` (the Sod tube) on `procs` thread ranks up to `t_end` into `out`, with `more`
/// options: its flow records (the clocks and the balancer's fields aside).
fn sod(dir: &TempDir, (procs, t_end): (usize, &str), out: &str, more: &[&str]) -> Vec<Value> {
    let p = procs.to_string();
    let args = ["--procs", &p, "--t-end", t_end, "--out", &dir.arg(out)];
    ok(&[&SOD[..], &args, more].concat());
    records_without(&dir.path(out), "iterations", &EULER_BALANCER_FIELDS)
}

#[test]
fn run_euler_continued_gives_the_uninterrupted_flow_bit_for_bit() {
    let dir = TempDir::new("ckpt-euler");
    let whole = sod(&dir, (2, "0.05"), "whole", &[]);
    for (before, (t, every), after) in [(1, ("0.02", 40), 3), (4, ("0.03", 20), 2)] {
        let first = format!("first{before}");
        let every_arg = every.to_string();
        let written = sod(
            &dir,
            (before, t),
            &first,
            &["--checkpoint-every", &every_arg],
        );
        // The last output before the run ended whose iteration is a multiple of `every`.
        let iteration = |r: &Value| r["iteration"].as_u64().unwrap();
        let ended = written.last().map(iteration).unwrap();
        let at = written
            .iter()
            .map(iteration)
            .filter(|&i| i % every == 0 && i < ended)
            .max()
            .unwrap();
        let from = dir.path(&first).join("checkpoint").display().to_string();
        let then = format!("then{after}");
        let got = sod(&dir, (after, "0.05"), &then, &["--restart", &from]);
        let expected: Vec<Value> = whole
            .iter()
            .filter(|r| iteration(r) > at)
            .cloned()
            .collect();
        assert!(expected.len() > 3, "{expected:?}");
        assert_eq!(got, expected, "P = {before} → {after} from iteration {at}");
    }
    // Another scheme's checkpoint; one where the run has ended already.
    let from = dir.path("first1").join("checkpoint").display().to_string();
    let out = dir.arg("other");
    let args = ["--procs", "2", "--out", &out, "--restart", &from];
    fails(
        &[&SOD[..], &args, &["--flux", "rusanov"]].concat(),
        1,
        &["another run's checkpoint"],
    );
    fails(
        &[&SOD[..], &args, &["--t-end", "0.01"]].concat(),
        1,
        &["ask for more"],
    );
    let every = ["--checkpoint-every", "30"];
    fails(
        &[&SOD[..], &every].concat(),
        2,
        &["multiple of --output-every 20"],
    );
}

#[test]
fn run_euler_continued_on_its_ranks_gives_every_record_bit_for_bit() {
    let dir = TempDir::new("ckpt-euler-same-p");
    // The clocks alone differ: the balancer's fields (`load_imb`, `moved_*`) are kept.
    let clocks = ["time_ms", "flux_rate"];
    let iteration = |r: &Value| r["iteration"].as_u64().unwrap();
    for procs in [2, 3] {
        let whole = dir.arg(&format!("whole{procs}"));
        sod(&dir, (procs, "0.05"), &format!("whole{procs}"), &[]);
        let whole_records = records_without(Path::new(&whole), "iterations", &clocks);
        let first = format!("first{procs}");
        sod(&dir, (procs, "0.02"), &first, &["--checkpoint-every", "20"]);
        let written = records_without(&dir.path(&first), "iterations", &clocks);
        let ended = written.last().map(iteration).unwrap();
        let at = written
            .iter()
            .map(iteration)
            .filter(|&i| i % 20 == 0 && i < ended)
            .max()
            .unwrap();
        let from = dir.path(&first).join("checkpoint").display().to_string();
        let then = format!("then{procs}");
        sod(&dir, (procs, "0.05"), &then, &["--restart", &from]);
        let got = records_without(&dir.path(&then), "iterations", &clocks);
        let expected: Vec<Value> = whole_records
            .into_iter()
            .filter(|r| iteration(r) > at)
            .collect();
        assert!(expected.len() > 3, "{expected:?}");
        // The restarted run balances and moves trees: the owners matter.
        assert!(euler_moved_trees(&dir.path(&then)) > 0, "P = {procs}");
        assert_eq!(got, expected, "P = {procs} → {procs} from iteration {at}");
    }
}

/// `run erosion` on 4 thread ranks of a small box (4 stripes of 8 × 8 × 1 cubes) for
/// `iterations` into `out`, with `more` options: its records.
fn erosion(dir: &TempDir, iterations: usize, out: &str, more: &[&str]) -> Vec<Value> {
    let n = iterations.to_string();
    let box_ = ["--procs", "4", "--cells", "8", "8", "1", "--iterations", &n];
    let args = ["run", "erosion", "--vtk", "none", "--out", &dir.arg(out)];
    ok(&[&args[..], &box_, more].concat());
    records_without(&dir.path(out), "iterations", &[])
}

#[test]
fn run_erosion_continued_gives_every_record_bit_for_bit() {
    // Written after iteration 20 of a run stopped at 25, continued to 40: every record
    // (all modelled: no clock in them) is the uninterrupted run's, with each policy's
    // history (the trigger's degradation and costs, ULBA's rates, the selection's fit, the
    // periodic count) and with the hierarchical balancer.
    let dir = TempDir::new("ckpt-erosion");
    let policies: [&[&str]; 5] = [
        &[],
        &["--policy", "ulba"],
        &["--policy", "select"],
        &["--policy", "periodic:3"],
        &["--balancer", "hier", "--tree", "2"],
    ];
    for (k, with) in policies.into_iter().enumerate() {
        let whole = erosion(&dir, 40, &format!("whole{k}"), with);
        let balanced = |r: &[Value]| r.iter().filter(|r| r["balanced"] == true).count();
        assert!(
            balanced(&whole[..20]) > 0 && balanced(&whole[20..]) > 0,
            "{with:?}: the run balances before and after the checkpoint"
        );
        let first = format!("first{k}");
        let every = ["--checkpoint-every", "10"];
        erosion(&dir, 25, &first, &[with, &every].concat());
        let from = dir.path(&first).join("checkpoint").display().to_string();
        let got = erosion(
            &dir,
            40,
            &format!("then{k}"),
            &[with, &["--restart", &from]].concat(),
        );
        assert_eq!(got, whole[20..], "{with:?}");
    }
}

#[test]
fn run_erosion_refuses_another_box_or_a_corrupt_checkpoint() {
    let dir = TempDir::new("ckpt-erosion-bad");
    erosion(&dir, 10, "first", &["--checkpoint-every", "5"]);
    let ckpt = dir.path("first").join("checkpoint");
    let from = ckpt.display().to_string();
    let restart = |from: &str, procs: &str, more: &[&str], code: i32, needles: &[&str]| {
        let out = dir.arg("then");
        let args = ["run", "erosion", "--procs", procs, "--cells", "8", "8", "1"];
        let tail = ["--vtk", "none", "--out", &out, "--restart", from];
        fails(&[&args[..], &tail, more].concat(), code, needles);
    };
    let twenty = ["--iterations", "20"];
    // The box has one stripe per rank: another P is another box.
    restart(
        &from,
        "3",
        &twenty,
        1,
        &["another run's checkpoint", "4 stripes"],
    );
    restart(
        &from,
        "4",
        &[&twenty[..], &["--seed", "2"]].concat(),
        1,
        &["seed 1"],
    );
    restart(&from, "4", &["--iterations", "10"], 1, &["ask for more"]);
    let compare = [&twenty[..], &["--compare"]].concat();
    restart(&from, "4", &compare, 2, &["--compare"]);
    // A flipped byte in the balancer's or the case's state.
    for name in ["balancer.bin", "state.bin"] {
        let copy = dir.path(&format!("copy-{name}"));
        copy_altered(&ckpt, &copy, name, |b| {
            let i = b.len() / 2;
            b[i] ^= 8;
            true
        });
        let copy = copy.display().to_string();
        restart(&copy, "4", &twenty, 1, &[name, "CRC"]);
    }
}
