//! `plume run euler`: the files a run writes (pieces, indices, a collection in physical time,
//! the reports) and its usage errors.

mod common;

use common::{euler_moved_trees, fails, ok, records_without, TempDir, EULER_BALANCER_FIELDS};
use plume::io::{read_vtu, CellValues};

#[test]
fn a_sod_run_writes_pieces_indices_a_pvd_in_physical_time_and_the_reports() {
    let dir = TempDir::new("euler-sod");
    let out = dir.arg("sod");
    // First order: a monotone scheme, so every density lies between Sod's two states (second
    // order's limiters keep the faces' states within their neighbours' range, not the leaves'
    // new states exactly).
    let run = ok(&[
        "run",
        "euler",
        "--order",
        "1",
        "--procs",
        "2",
        "--t-end",
        "0.02",
        "--output-every",
        "40",
        "--probe",
        "0.3,0.03,0.03",
        "--probe",
        "0.7,0.03,0.03",
        "--out",
        &out,
    ]);
    assert!(
        run.stdout.contains("| iteration | time | leaves |"),
        "{}",
        run.stdout
    );
    let pvd = std::fs::read_to_string(dir.path("sod/euler.pvd")).unwrap();
    let times: Vec<f64> = pvd
        .split("timestep=\"")
        .skip(1)
        .map(|t| t[..t.find('"').unwrap()].parse().unwrap())
        .collect();
    assert!(times.len() >= 3, "{pvd}");
    assert_eq!(times[0], 0.0);
    assert_eq!(*times.last().unwrap(), 0.02, "the last output is at t_end");
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let last = times.len() - 1;
    let index = std::fs::read_to_string(dir.path(&format!("sod/step_{last:04}.pvtu"))).unwrap();
    assert!(
        index.contains("Name=\"velocity\" NumberOfComponents=\"3\""),
        "{index}"
    );
    // Density from the pieces: Sod's two states, and everything between them.
    let mut densities = Vec::new();
    for rank in 0..2 {
        let piece = dir.path(&format!("sod/step_{last:04}/r{rank:04}.vtu"));
        let text = std::fs::read(&piece).unwrap();
        assert!(String::from_utf8_lossy(&text).contains("Name=\"velocity\""));
        let vtu = read_vtu(&piece).unwrap();
        let names: Vec<&str> = vtu.cell_data.iter().map(|a| a.name.as_str()).collect();
        assert!(
            names.contains(&"density") && names.contains(&"pressure"),
            "{names:?}"
        );
        if let Some(CellValues::Float(rho)) = vtu
            .cell_data
            .iter()
            .find(|a| a.name == "density")
            .map(|a| &a.values)
        {
            densities.extend_from_slice(rho);
        }
    }
    let (lo, hi) = densities
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &r| (l.min(r), h.max(r)));
    assert!(
        (lo - 0.125).abs() < 1e-9 && (hi - 1.0).abs() < 1e-9,
        "{lo} {hi}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("sod/metrics.json")).unwrap())
            .unwrap();
    let records = json["iterations"].as_array().unwrap();
    assert_eq!(records.len(), times.len());
    assert_eq!(json["config"]["procs"], 2);
    assert_eq!(json["config"]["case"]["name"], "sod");
    for r in records {
        for key in [
            "leaves",
            "mass_change",
            "adapt_conservation",
            "load_imb",
            "time_ms",
        ] {
            assert!(!r[key].is_null(), "{key} in {r}");
        }
    }
    assert!(dir.path("sod/summary.md").exists() && dir.path("sod/metrics.csv").exists());
    // The density's L1 error: none at the start (the leaves hold the exact initial states),
    // then growing with the smeared waves, but small.
    let l1: Vec<f64> = records
        .iter()
        .map(|r| r["density_l1"].as_f64().unwrap())
        .collect();
    assert_eq!(l1[0], 0.0);
    assert!(l1.windows(2).all(|w| w[0] < w[1]), "{l1:?}");
    assert!(l1[last] < 0.02, "{l1:?}");
    let chart = std::fs::read_to_string(dir.path("sod/density.svg")).unwrap();
    assert!(chart.contains("exact solution") && chart.contains("t = 0.0200"));
    // A probe row per output, left of the interface Sod's left state until the rarefaction
    // arrives (it has not by t = 0.02; the scheme's diffusion reaches further, by 1e-9),
    // right of it the right state.
    for (i, rho) in [(0, 1.0), (1, 0.125)] {
        let csv = std::fs::read_to_string(dir.path(&format!("sod/probe_{i}.csv"))).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("time,iteration,x,y,z,level,density,velocity_x,velocity_y,velocity_z,pressure")
        );
        let rows: Vec<Vec<f64>> = lines
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), times.len(), "{csv}");
        for (row, t) in rows.iter().zip(&times) {
            assert_eq!(row[0], *t);
            assert!((row[6] - rho).abs() < 1e-6, "{csv}");
        }
    }
}

#[test]
fn a_blast_runs_on_three_ranks_without_balancing() {
    let dir = TempDir::new("euler-blast");
    let out = dir.arg("blast");
    ok(&[
        "run",
        "euler",
        "--case",
        "blast",
        "--procs",
        "3",
        "--balancer",
        "none",
        "--t-end",
        "0.01",
        "--max-depth",
        "1",
        "--flux",
        "rusanov",
        "--time",
        "ssp-rk2",
        "--vtk",
        "last",
        "--out",
        &out,
    ]);
    assert!(dir.path("blast/step_0000/r0002.vtu").exists());
    // No exact solution to measure a blast against: no error, no density chart.
    let json = std::fs::read_to_string(dir.path("blast/metrics.json")).unwrap();
    assert!(!json.contains("density_l1") && !dir.path("blast/density.svg").exists());
}

#[test]
fn sbn_balances_the_flow_while_the_ranks_compute_and_the_records_are_the_unbalanced_ones() {
    let dir = TempDir::new("euler-sbn");
    let common = [
        "run",
        "euler",
        "--procs",
        "3",
        "--time",
        "ssp-rk2",
        "--t-end",
        "0.03",
        "--output-every",
        "20",
        "--vtk",
        "none",
    ];
    let (sbn, none) = (dir.arg("sbn"), dir.arg("none"));
    ok(&[
        &common[..],
        &[
            "--balancer",
            "sbn",
            "--variant",
            "heuristic",
            "--sbn-policy",
            "seed",
            "--prepartition",
            "--out",
            &sbn,
        ],
    ]
    .concat());
    ok(&[&common[..], &["--balancer", "none", "--out", &none]].concat());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("sbn/metrics.json")).unwrap())
            .unwrap();
    assert_eq!(json["config"]["balancer"], "sbn");
    assert_eq!(json["config"]["sbn"]["variant"], "Heuristic");
    assert_eq!(json["config"]["sbn"]["policies"]["first_half"], "Seed");
    assert_eq!(json["config"]["sbn"]["prepartition"], true);
    assert!(euler_moved_trees(&dir.path("sbn")) > 0, "SBN moved no tree");
    // What the balancer decides and the clocks aside, the records are the same.
    assert_eq!(
        records_without(&dir.path("sbn"), "iterations", &EULER_BALANCER_FIELDS),
        records_without(&dir.path("none"), "iterations", &EULER_BALANCER_FIELDS)
    );
}

#[test]
fn bad_options_are_one_line_usage_errors() {
    let dir = TempDir::new("euler-bad");
    let out = dir.arg("bad");
    let cases: [(&[&str], &str); 17] = [
        (&["--probe", "1,2"], "--probe"),
        (
            &["--probe", "0.5,9,0"],
            "--probe 0.5,9,0 lies outside the mesh",
        ),
        (&["--left", "1,2"], "--left"),
        (&["--right", "1,0,-1"], "--right"),
        (&["--cfl", "0"], "--cfl"),
        (&["--procs", "0"], "--procs"),
        (&["--interface", "5"], "--interface"),
        (&["--coarsen-below", "0.5"], "--coarsen-below"),
        (&["--left", "1,-30,0.01", "--right", "1,30,0.01"], "vacuum"),
        (&["--order", "3"], "--order"),
        (&["--limiter", "minmod"], "--limiter"),
        (&["--order", "1", "--limiter", "barth"], "--limiter"),
        (&["--limiter", "barth", "--venkat-k", "2"], "--venkat-k"),
        (&["--venkat-k=-1"], "--venkat-k"),
        (&["--gamma", "1"], "--gamma 1 must be above 1"),
        (&["--gamma", "0.5"], "--gamma"),
        (&["--gamma", "inf"], "--gamma"),
    ];
    for (args, needle) in cases {
        let all = [&["run", "euler", "--out", out.as_str()], args].concat();
        fails(&all, 2, &[needle]);
    }
}

#[test]
fn plum_balances_by_diffusion_on_the_ranks_unless_told_otherwise() {
    let dir = TempDir::new("euler-partitioner");
    let blast = [
        "run", "euler", "--case", "blast", "--procs", "3", "--t-end", "0.03", "--vtk", "none",
    ];
    let config = |name: &str, more: &[&str]| {
        let out = dir.arg(name);
        ok(&[&blast[..], &["--out", &out], more].concat());
        let text = std::fs::read_to_string(dir.path(name).join("metrics.json")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["config"].clone()
    };
    assert_eq!(config("default", &[])["partitioner"], "diffusion");
    let records =
        |name: &str| records_without(&dir.path(name), "iterations", &["time_ms", "flux_rate"]);
    config("diffusion", &["--partitioner", "diffusion"]);
    assert_eq!(records("default"), records("diffusion"));
    assert!(
        euler_moved_trees(&dir.path("default")) > 0,
        "diffusion moved nothing"
    );
    // METIS is still there, on rank 0's gathered graph, and written as the default it was.
    assert!(config("metis", &["--partitioner", "metis"])
        .get("partitioner")
        .is_none());
    // Without PLUM no partitioner is named, and none may be given.
    assert!(config("none", &["--balancer", "none"])
        .get("partitioner")
        .is_none());
    let out = dir.arg("refused");
    fails(
        &[
            &blast[..],
            &[
                "--balancer",
                "sbn",
                "--partitioner",
                "diffusion",
                "--out",
                &out,
            ],
        ]
        .concat(),
        2,
        &["--partitioner diffusion is PLUM's"],
    );
}

/// Two tetrahedra sharing the face x + y + z = 1, and a triangle of the group `outflow` lying
/// on that shared (interior) face.
/// Two tetrahedra (centroids at x = 0.25 and 0.5) whose triangle `triangle` (Gmsh node
/// numbers) is the surface group `group`, tag 2.
fn two_tets_with_group(group: &str, triangle: &str) -> String {
    format!(
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 2 \"{group}\"\n\
         $EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n\
         $Elements\n3\n1 2 2 2 2 {triangle}\n2 4 2 0 0 1 2 3 4\n3 4 2 0 0 2 3 4 5\n$EndElements\n"
    )
}

#[test]
fn input_that_cannot_apply_is_refused_not_ignored() {
    let dir = TempDir::new("euler-ignored");
    let out = dir.arg("out");
    let run = |args: &[&'static str]| -> Vec<String> {
        let head = ["run", "euler", "--out", out.as_str()];
        head.iter().chain(args).map(|a| a.to_string()).collect()
    };
    // One case's options with the other case.
    for (args, needle) in [
        (
            &["--case", "blast", "--left", "1,0,1"][..],
            "--left applies to --case sod",
        ),
        (
            &["--case", "blast", "--right", "1,0,1"],
            "--right applies to --case sod",
        ),
        (
            &["--case", "blast", "--interface", "0.5"],
            "--interface applies",
        ),
        (&["--radius", "0.1"], "--radius applies to --case blast"),
    ] {
        fails(&refs(&run(args)), 2, &[needle]);
    }
    // A sphere or an interface that leaves every leaf in one state.
    fails(
        &refs(&run(&["--case", "blast", "--radius", "0.01"])),
        2,
        &["--radius 0.01", "outside the sphere", "stay at rest"],
    );
    fails(
        &refs(&run(&["--case", "blast", "--radius", "5"])),
        2,
        &["--radius 5", "inside the sphere"],
    );
    fails(
        &refs(&run(&["--interface", "0.01"])),
        2,
        &["--interface 0.01", "right side", "stay uniform"],
    );
    // A boundary group on interior faces.
    let mesh = dir.path("inside.msh");
    // The group's triangle 2 3 4 is the face the two tetrahedra share.
    std::fs::write(&mesh, two_tets_with_group("outflow", "2 3 4")).unwrap();
    let mut with_mesh = run(&["--procs", "1", "--mesh"]);
    with_mesh.push(mesh.to_str().unwrap().to_string());
    let failed = fails(&refs(&with_mesh), 1, &["'outflow'", "no boundary face"]);
    assert!(failed.stdout.is_empty(), "{}", failed.stdout);
    assert!(!dir.path("out").exists(), "a refused run writes nothing");
}

/// `args` as the `&str`s the helpers take.
fn refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn the_density_error_is_left_out_once_a_wave_reaches_an_end_of_the_tube() {
    // The interface at 0.9: Sod's shock (speed 1.7522) reaches x = 1 at t = 0.0571.
    let dir = TempDir::new("euler-walls");
    let out = dir.arg("sod");
    let run = ok(&[
        "run",
        "euler",
        "--interface",
        "0.9",
        "--t-end",
        "0.08",
        "--max-depth",
        "1",
        "--output-every",
        "20",
        "--vtk",
        "none",
        "--out",
        &out,
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("sod/metrics.json")).unwrap())
            .unwrap();
    let records = json["iterations"].as_array().unwrap();
    let reached = 0.1 / 1.7522;
    let (before, after): (Vec<_>, Vec<_>) = records
        .iter()
        .partition(|r| r["time"].as_f64().unwrap() < reached - 1e-3);
    assert!(before.len() >= 3 && after.len() >= 3, "{records:?}");
    assert!(
        before.iter().all(|r| r["density_l1"].is_f64()),
        "{before:?}"
    );
    assert!(
        after.iter().all(|r| r.get("density_l1").is_none()),
        "{after:?}"
    );
    // The summary's mean is over the records that have an error.
    let mean = before
        .iter()
        .map(|r| r["density_l1"].as_f64().unwrap())
        .sum::<f64>()
        / before.len() as f64;
    let summary = json["summary"]["density_l1"].as_f64().unwrap();
    assert!(
        (summary - mean).abs() < 1e-12 * mean.max(1.0),
        "{summary} {mean}"
    );
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(rows.last().unwrap().contains("| – |"), "{rows:?}");
    assert!(
        run.stdout.contains("From t = 0.0570726 on a wave"),
        "{}",
        run.stdout
    );
    let summary_md = std::fs::read_to_string(dir.path("sod/summary.md")).unwrap();
    assert!(summary_md.contains("density L1 error is left out"));
    let svg = std::fs::read_to_string(dir.path("sod/density.svg")).unwrap();
    assert!(svg.contains("exact curve left out") && !svg.contains("exact solution"));
}

#[test]
fn states_that_would_overflow_are_usage_errors_naming_the_option() {
    let dir = TempDir::new("euler-overflow");
    let out = dir.arg("out");
    for (side, state, needle) in [
        ("--left", "1,0,1e300", "--left 1,0,1e300: "),
        ("--right", "1,1e200,1", "--right 1,1e200,1: "),
        ("--left", "1e-300,0,1", "--left 1e-300,0,1: "),
    ] {
        let run = fails(
            &["run", "euler", "--out", &out, side, state],
            2,
            &[needle, "overflowing"],
        );
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
}

#[test]
fn runs_that_would_never_finish_are_refused_before_they_start() {
    let dir = TempDir::new("euler-endless");
    let out = dir.arg("out");
    let base = ["run", "euler", "--out", out.as_str(), "--vtk", "none"];
    let with = |args: &[&'static str]| [&base[..], args].concat();
    let run = fails(
        &with(&["--cfl", "1e-300"]),
        2,
        &["--cfl 1e-300 must be from 0.001"],
    );
    assert!(run.stderr.len() < 200, "{}", run.stderr);
    fails(
        &with(&["--t-end", "1e308"]),
        2,
        &[
            "--t-end 1e308 would take more than 1e308 iterations",
            "--max-iterations 1000000",
        ],
    );
    // Pressures 1e10 and 1e-10: sound at 1.2e5, steps of about 3.6e-9.
    fails(
        &with(&["--left", "1,0,1e10", "--right", "1,0,1e-10"]),
        2,
        &["about 5.48455e7 iterations", "signals of speed 118322"],
    );
    // The estimate of a short run on the unrefined tube: steps of 1.46e-3, 7 iterations.
    let short = ["--t-end", "0.01", "--max-depth", "0"];
    fails(
        &with(&[&short[..], &["--max-iterations", "6"]].concat()),
        2,
        &["about 7 iterations", "more than --max-iterations 6"],
    );
    ok(&with(&[&short[..], &["--max-iterations", "7"]].concat()));
    assert!(dir.path("out/metrics.json").exists());
}

#[test]
fn boundary_groups_take_the_kind_bc_names_before_the_run_starts() {
    let dir = TempDir::new("euler-bc");
    let mesh = dir.arg("far.msh");
    std::fs::write(&mesh, two_tets_with_group("far", "1 2 3")).unwrap();
    let out = dir.arg("out");
    let run = |extra: &[&str]| -> Vec<String> {
        let base = [
            "run",
            "euler",
            "--procs",
            "1",
            "--mesh",
            &mesh,
            "--interface",
            "0.4",
            "--t-end",
            "0.01",
            "--max-depth",
            "0",
            "--vtk",
            "none",
            "--out",
            &out,
        ];
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    // A group whose name is no kind, not named by --bc: refused before the table.
    let failed = fails(&refs(&run(&[])), 1, &["'far'", "--bc far=KIND"]);
    assert!(failed.stdout.is_empty(), "{}", failed.stdout);
    let failed = fails(
        &refs(&run(&["--bc", "near=wall"])),
        1,
        &["--bc near", "far"],
    );
    assert!(failed.stdout.is_empty(), "{}", failed.stdout);
    fails(
        &refs(&run(&["--bc", "far=bogus"])),
        2,
        &["--bc", "farfield"],
    );
    fails(&refs(&run(&["--inflow", "1,0,0,0"])), 2, &["--inflow"]);
    // Named, it runs, and the records say how.
    ok(&refs(&run(&[
        "--bc",
        "far=farfield",
        "--inflow",
        "1,0.5,0,0,1",
    ])));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("out/metrics.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["config"]["bc"],
        serde_json::json!([["far", "farfield"]])
    );
    assert_eq!(json["config"]["inflow"]["vel"][0], 0.5);
}
