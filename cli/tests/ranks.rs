//! `plume run shock` on real ranks (issue 12.4): P thread ranks give the records of the
//! single-process simulated run, bit for bit (times aside), for every P; the pieces each rank
//! writes open in VTK's parallel reader as one grid with every leaf once; `--backend mpi` is a
//! usage error without the feature. SBN on thread ranks processes every level (measured times,
//! messages) and leaves the mesh PLUM's.

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;
#[path = "common/vtk.rs"]
mod vtk;

use std::path::Path;

use common::{fails, ok, TempDir};
use plume_cases::shock::{self, ShockConfig};
use serde_json::Value;
use vtk::{field, vtk_read};

/// The level records of a `metrics.json` with the wall-clock fields (`time_ms` and the
/// balancer's share of it) taken out.
fn records_without_times(levels: &Value) -> Vec<Value> {
    levels
        .as_array()
        .expect("levels")
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let fields = r.as_object_mut().expect("a record");
            assert!(fields.remove("time_ms").is_some(), "a record has time_ms");
            assert!(fields.remove("balance_pct").is_some());
            r
        })
        .collect()
}

/// The `metrics.json` of the run folder `dir`.
fn metrics(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("metrics.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `run`'s `metrics.json` as written and read back (floats read back the same way).
fn as_written(run: &shock::ShockRun) -> Value {
    serde_json::from_str(&run.report().json().unwrap()).unwrap()
}

#[test]
fn thread_ranks_give_the_simulated_runs_records_for_every_p() {
    let mesh = shock::published_mesh().unwrap();
    for procs in 1..=4usize {
        let mut cfg = ShockConfig::new(procs);
        cfg.levels = 3;
        let simulated = shock::run(&cfg, mesh.clone(), |_, _, _, _| Ok(())).unwrap();
        let expected = records_without_times(&as_written(&simulated)["levels"]);
        let dir = TempDir::new(&format!("ranks-{procs}"));
        let p = procs.to_string();
        let out = dir.arg("out");
        ok(&[
            "run", "shock", "--procs", &p, "--levels", "3", "--vtk", "none", "--out", &out,
        ]);
        let got = metrics(&dir.path("out"));
        let got = records_without_times(&got["levels"]);
        assert_eq!(got.len(), 3);
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "P = {procs}");
        }
        // Beyond one rank the runs remap: the records compare trees that really moved.
        let moved = got.iter().any(|r| r["total_v"].as_u64() > Some(0));
        assert_eq!(moved, procs > 1, "P = {procs}");
    }
}

/// Issue 23 (7): `--uniform L` refines every root L times before level 1, on ranks as in one
/// process (the same records), and the front coarsens no leaf above depth L: every level
/// keeps more than 8^L leaves a root. L above the front's depth is a usage error.
#[test]
fn a_uniform_base_is_refined_before_the_levels_and_kept() {
    let dir = TempDir::new("ranks-uniform");
    let mesh_file = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "8", "2", "2", "-o", &mesh_file]);
    let (mesh, _) = plume::io::read_mesh(&dir.path("box.msh")).unwrap();
    let roots = mesh.nelems() as u64;
    let mut cfg = ShockConfig::new(2);
    cfg.levels = 4;
    cfg.front.uniform = 1;
    let simulated = shock::run(&cfg, mesh, |_, _, _, _| Ok(())).unwrap();
    let expected = records_without_times(&as_written(&simulated)["levels"]);
    let out = dir.arg("out");
    let args = [
        "run",
        "shock",
        "--procs",
        "2",
        "--levels",
        "4",
        "--uniform",
        "1",
    ];
    ok(&[
        &args[..],
        &["--mesh", &mesh_file, "--vtk", "none", "--out", &out],
    ]
    .concat());
    let written = metrics(&dir.path("out"));
    assert_eq!(written["config"]["front"]["uniform"], 1);
    let got = records_without_times(&written["levels"]);
    assert_eq!(got, expected);
    for record in &got {
        assert!(record["leaves"].as_u64().unwrap() > 8 * roots, "{record}");
    }
    let too_deep = [&args[..6], &["--uniform", "4", "--out", &out]].concat();
    fails(&too_deep, 2, &["--uniform 4 must be from 0 to 3"]);
}

#[test]
fn without_balancing_the_ranks_keep_their_roots_and_match_the_simulated_run() {
    let mesh = shock::published_mesh().unwrap();
    let mut cfg = ShockConfig::new(3);
    cfg.levels = 2;
    cfg.balancer = shock::Balancer::None;
    let simulated = shock::run(&cfg, mesh, |_, _, _, _| Ok(())).unwrap();
    let expected = records_without_times(&as_written(&simulated)["levels"]);
    let dir = TempDir::new("ranks-none");
    let out = dir.arg("out");
    let args = [
        "run",
        "shock",
        "--procs",
        "3",
        "--levels",
        "2",
        "--balancer",
        "none",
    ];
    ok(&[&args[..], &["--vtk", "none", "--out", &out]].concat());
    let got = records_without_times(&metrics(&dir.path("out"))["levels"]);
    assert_eq!(got, expected);
    assert!(got.iter().all(|r| r["total_v"] == 0 && r["comm_mb"] == 0.0));
}

#[test]
fn each_levels_pieces_open_in_vtk_as_one_grid_of_the_reported_leaves() {
    let dir = TempDir::new("ranks-pieces");
    let out = dir.path("out");
    let args = [
        "run", "shock", "--procs", "3", "--levels", "2", "--vtk", "all",
    ];
    ok(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    let levels = metrics(&out)["levels"].clone();
    let pvd = std::fs::read_to_string(out.join("shock.pvd")).unwrap();
    for level in 0..=2usize {
        let index = format!("level_{level:04}.pvtu");
        assert!(pvd.contains(&format!("file=\"{index}\"")), "{pvd}");
        let report = vtk_read(&out.join(&index));
        let leaves: usize = match level {
            0 => shock::published_mesh().unwrap().nelems(),
            _ => levels[level - 1]["leaves"].as_u64().unwrap() as usize,
        };
        assert_eq!(field(&report, "cells"), leaves.to_string(), "{index}");
        assert_eq!(field(&report, "arrays"), "root,level,pattern,rank");
        assert_eq!(
            field(&report, "array rank"),
            "int 0 2",
            "every rank's piece"
        );
        let volume: f64 = field(&report, "volume").parse().unwrap();
        assert!((volume - 4.0).abs() < 1e-9, "{index}: volume {volume}");
        let pieces: usize = (0..3)
            .map(|rank| {
                let piece = out.join(format!("level_{level:04}/r{rank:04}.vtu"));
                field(&vtk_read(&piece), "cells").parse::<usize>().unwrap()
            })
            .sum();
        assert_eq!(pieces, leaves, "{index}: the pieces' cells");
    }
    // A rerun with fewer levels and ranks removes the old pieces and their folders.
    let args = [
        "run", "shock", "--procs", "2", "--levels", "1", "--vtk", "last",
    ];
    ok(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    assert!(!out.join("level_0002").exists() && !out.join("level_0002.pvtu").exists());
    assert!(!out.join("level_0001/r0002.vtu").exists());
    assert!(out.join("level_0001/r0001.vtu").exists());
}

#[test]
fn the_mpi_backend_without_mpi_and_processing_off_ranks_are_usage_errors() {
    let dir = TempDir::new("ranks-mpi-usage");
    let out = dir.arg("out");
    if !cfg!(feature = "mpi") {
        fails(
            &["run", "shock", "--backend", "mpi", "--out", &out],
            2,
            &["--backend mpi", "--features mpi"],
        );
    }
    fails(
        &[
            "run",
            "shock",
            "--balancer",
            "sbn",
            "--process",
            "--out",
            &out,
        ],
        2,
        &["--process", "--backend"],
    );
    assert!(!dir.path("out").exists(), "a usage error writes nothing");
}

/// `plume run shock --levels 2 --vtk none` with `args` into `dir/name`; its `metrics.json`.
fn run_levels(dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let out = dir.arg(name);
    let mut all = vec![
        "run", "shock", "--levels", "2", "--vtk", "none", "--out", &out,
    ];
    all.extend_from_slice(args);
    ok(&all);
    metrics(&dir.path(name))
}

#[test]
fn sbn_on_thread_ranks_processes_every_level_and_keeps_the_mesh() {
    let dir = TempDir::new("ranks-sbn");
    for procs in ["2", "3"] {
        let sbn = run_levels(
            &dir,
            &format!("sbn{procs}"),
            &[
                "--balancer",
                "sbn",
                "--backend",
                "threads",
                "--procs",
                procs,
            ],
        );
        let plum = run_levels(
            &dir,
            &format!("plum{procs}"),
            &["--process", "--procs", procs],
        );
        for (s, p) in sbn["levels"]
            .as_array()
            .unwrap()
            .iter()
            .zip(plum["levels"].as_array().unwrap())
        {
            // SBN moves data and never changes the mesh.
            assert_eq!(s["leaves"], p["leaves"], "P = {procs}");
            for r in [s, p] {
                let m = &r["measured"];
                assert!(m["wall_s"].as_f64().unwrap() > 0.0, "{m}");
                assert!(m["processing_s"].as_f64().unwrap() > 0.0, "{m}");
                assert!(m["kernel_s_per_leaf"].as_f64().unwrap() > 0.0, "{m}");
                assert!(m["face_messages"].as_u64().unwrap() > 0, "{m}");
            }
            // PLUM's processing level moves nothing; SBN's balancing messages are counted.
            assert_eq!(p["measured"]["migration_s"].as_f64(), Some(0.0));
            assert!(s["messages"]["balance"].as_u64().unwrap() > 0, "{s}");
        }
        let summary = std::fs::read_to_string(dir.path(&format!("sbn{procs}/summary.md"))).unwrap();
        assert!(summary.contains("ns per leaf"), "{summary}");
        assert!(
            summary.contains("| 2 | 1 |"),
            "a row per rank and level: {summary}"
        );
    }
}

#[test]
fn a_piece_one_rank_cannot_write_ends_every_rank_with_one_message() {
    let dir = TempDir::new("ranks-bad-piece");
    // Rank 1's first piece cannot be written: a folder stands in its place.
    std::fs::create_dir_all(dir.path("out/level_0000/r0001.vtu/x")).unwrap();
    let out = dir.arg("out");
    let run = fails(
        &[
            "run", "shock", "--procs", "3", "--levels", "1", "--out", &out,
        ],
        1,
        &["r0001.vtu"],
    );
    assert!(run.stdout.is_empty(), "nothing printed: {}", run.stdout);
    assert!(!dir.path("out/metrics.json").exists());
}

/// PLUM's options reach rank 0's balancer: balancing after subdivision with another
/// objective, accept rule, F and policy gives the simulated run's records too.
#[test]
fn thread_ranks_follow_plums_options_as_the_simulated_run_does() {
    let mut cfg = ShockConfig::new(3);
    cfg.levels = 2;
    cfg.balance_at = shock::BalanceAt::AfterSubdivision;
    cfg.objective = plume_cases::words::ObjectiveName::MaxSR;
    cfg.plum.accept = plume::balance::Accept::Always;
    cfg.parts_per_proc = 2;
    cfg.policy = "periodic:2".parse().unwrap();
    let simulated = shock::run(&cfg, shock::published_mesh().unwrap(), |_, _, _, _| Ok(()));
    let expected = records_without_times(&as_written(&simulated.unwrap())["levels"]);
    let dir = TempDir::new("ranks-options");
    let out = dir.arg("out");
    let args = [
        "run",
        "shock",
        "--procs",
        "3",
        "--levels",
        "2",
        "--balance-at",
        "after",
        "--objective",
        "maxsr",
        "--accept",
        "always",
        "--parts-per-proc",
        "2",
        "--policy",
        "periodic:2",
    ];
    ok(&[&args[..], &["--vtk", "none", "--out", &out]].concat());
    let got = records_without_times(&metrics(&dir.path("out"))["levels"]);
    assert_eq!(got, expected);
    assert!(got.iter().any(|r| r["remap_accepted"] == true));
}
