//! The `plume` command as users run it: the built binary, its output files, its messages and
//! exit codes (0 success, 1 error, 2 usage error), and no panic on bad input.

use plume::io::{read_vtu, CellValues, VtuMesh};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;
#[path = "../../tests/external/mod.rs"]
mod external;
use common::{fails, ok, TempDir};

/// The `name value` lines that `plume info` (MeshInfo) and `plume graph` print.
fn fields(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| {
            let (name, value) = l.rsplit_once("  ")?;
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect()
}

fn number(fields: &BTreeMap<String, String>, name: &str) -> f64 {
    fields
        .get(name)
        .unwrap_or_else(|| panic!("no '{name}' in {fields:?}"))
        .parse()
        .unwrap()
}

fn ints<'a>(vtu: &'a VtuMesh, name: &str) -> &'a [i32] {
    match vtu
        .cell_data
        .iter()
        .find(|a| a.name == name)
        .map(|a| &a.values)
    {
        Some(CellValues::Int(v)) => v,
        other => panic!("cell array '{name}': {other:?}"),
    }
}

fn centroid(vtu: &VtuMesh, tet: usize) -> [f64; 3] {
    let mut c = [0.0; 3];
    for &v in &vtu.mesh.tets[tet] {
        for (ci, x) in c.iter_mut().zip(vtu.mesh.coords[v as usize]) {
            *ci += x / 4.0;
        }
    }
    c
}

#[test]
fn mesh_box_then_info_in_both_formats() {
    let dir = TempDir::new("box");
    for file in ["box.msh", "box.vtu"] {
        let path = dir.arg(file);
        ok(&[
            "mesh", "box", "--cells", "2", "1", "1", "--size", "2", "1", "1", "-o", &path,
        ]);
        let info = fields(&ok(&["info", &path]).stdout);
        assert_eq!(number(&info, "vertices"), 12.0, "{file}");
        assert_eq!(number(&info, "elements"), 12.0, "{file}");
        assert_eq!(number(&info, "boundary faces"), 20.0, "{file}");
        assert!((number(&info, "volume") - 2.0).abs() < 1e-9, "{file}");
    }
    // Default size: unit cubes. A missing folder is created.
    let path = dir.arg("sub/folder/cubes.msh");
    ok(&["mesh", "box", "--cells", "3", "2", "1", "-o", &path]);
    let info = fields(&ok(&["info", &path]).stdout);
    assert_eq!(number(&info, "elements"), 36.0);
    assert!((number(&info, "volume") - 6.0).abs() < 1e-9);
}

#[test]
fn info_prints_the_bounding_box_and_the_physical_groups() {
    let dir = TempDir::new("groups");
    let path = dir.path("groups.msh");
    std::fs::write(
        &path,
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 5 \"outflow\"\n\
         3 6 \"fluid\"\n$EndPhysicalNames\n$Nodes\n4\n1 0 0 0\n2 2 0 0\n3 0 1 0\n\
         4 0 0 3\n$EndNodes\n$Elements\n2\n1 2 2 5 1 1 2 3\n2 4 2 6 1 1 2 3 4\n$EndElements\n",
    )
    .unwrap();
    let run = ok(&["info", &path.display().to_string()]);
    let info = fields(&run.stdout);
    assert_eq!(
        info["bounding box"], "(0, 0, 0) – (2, 1, 3)",
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("group 'outflow'  surface 5, 1 faces")
            && run.stdout.contains("group 'fluid'  volume 6, 1 elements"),
        "{}",
        run.stdout
    );
}

#[test]
fn info_reports_skipped_and_reoriented_elements_on_stderr() {
    let dir = TempDir::new("notes");
    let path = dir.path("inverted.msh");
    std::fs::write(
        &path,
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n\
         $EndNodes\n$Elements\n2\n1 2 2 0 1 1 2 3\n2 4 2 0 1 2 1 3 4\n$EndElements\n",
    )
    .unwrap();
    let run = ok(&["info", &path.display().to_string()]);
    assert_eq!(number(&fields(&run.stdout), "elements"), 1.0);
    assert!(run.stderr.contains("note:") && run.stderr.contains("skipped 1 triangles"));
    assert!(run.stderr.contains("warning:") && run.stderr.contains("re-oriented 1"));
}

#[test]
fn refine_uniform_once_gives_eight_children_per_root() {
    let dir = TempDir::new("uniform");
    let (mesh, out) = (dir.arg("box.msh"), dir.arg("out/uniform.vtu"));
    ok(&["mesh", "box", "--cells", "2", "1", "1", "-o", &mesh]);
    let run = ok(&["refine", &mesh, "--uniform", "1", "-o", &out]);
    assert!(run.stdout.contains("96"), "{}", run.stdout);
    let vtu = read_vtu(Path::new(&out)).unwrap();
    assert_eq!(vtu.mesh.tets.len(), 96);
    assert!(ints(&vtu, "level").iter().all(|&l| l == 1));
    assert!(ints(&vtu, "pattern").iter().all(|&p| p == 8));
    let mut per_root = BTreeMap::new();
    for &r in ints(&vtu, "root") {
        *per_root.entry(r).or_insert(0) += 1;
    }
    assert_eq!(per_root.len(), 12);
    assert!(per_root.values().all(|&n| n == 8));
    // The written leaves are a valid mesh of the same volume.
    let info = fields(&ok(&["info", &out]).stdout);
    assert!((number(&info, "volume") - 2.0).abs() < 1e-9);

    // Zero levels write the mesh as read.
    ok(&["refine", &mesh, "--uniform", "0", "-o", &out]);
    assert_eq!(read_vtu(Path::new(&out)).unwrap().mesh.tets.len(), 12);
}

#[test]
fn refine_writes_zlib_by_default_and_raw_on_request() {
    let dir = TempDir::new("compression");
    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "3", "2", "2", "-o", &mesh]);
    let mut files = Vec::new();
    for option in [None, Some("zlib"), Some("none")] {
        let out = dir.arg(&format!("{option:?}.vtu"));
        let mut args = vec!["refine", &mesh, "--uniform", "1", "-o", &out];
        args.extend(option.iter().flat_map(|o| ["--vtk-compression", o]));
        ok(&args);
        let bytes = std::fs::read(&out).unwrap();
        let zlib = String::from_utf8_lossy(&bytes[..600]).contains("vtkZLibDataCompressor");
        assert_eq!(zlib, option != Some("none"), "{option:?}");
        files.push((bytes.len(), read_vtu(Path::new(&out)).unwrap()));
    }
    assert!(files[0].0 < files[2].0, "zlib is smaller than raw");
    assert!(files.iter().all(|(_, vtu)| *vtu == files[0].1));
    let out = dir.arg("x.vtu");
    let args = ["refine", &mesh, "--uniform", "1", "-o", &out];
    fails(
        &[&args[..], &["--vtk-compression", "lz4"]].concat(),
        2,
        &["lz4"],
    );
}

#[test]
fn refine_sphere_is_finer_near_the_centre() {
    let dir = TempDir::new("sphere");
    let (mesh, out) = (dir.arg("box.msh"), dir.arg("sphere.vtu"));
    ok(&[
        "mesh", "box", "--cells", "8", "2", "2", "--size", "4", "1", "1", "-o", &mesh,
    ]);
    ok(&[
        "refine", &mesh, "--sphere", "1", "0.5", "0.5", "0.3", "--levels", "2", "-o", &out,
    ]);
    let vtu = read_vtu(Path::new(&out)).unwrap();
    let levels = ints(&vtu, "level");
    let (mut near, mut far) = (0, 0);
    let (mut near_level, mut far_level) = (0, 0);
    for (t, &level) in levels.iter().enumerate() {
        let c = centroid(&vtu, t);
        let d = |x: f64| ((c[0] - x).powi(2) + (c[1] - 0.5).powi(2) + (c[2] - 0.5).powi(2)).sqrt();
        if d(1.0) < 0.5 {
            near += 1;
            near_level = near_level.max(level);
        } else if d(3.0) < 0.5 {
            far += 1;
            far_level = far_level.max(level);
        }
    }
    assert!(near > 4 * far, "near {near}, far {far}");
    assert_eq!((near_level, far_level), (2, 0));
    assert!(ints(&vtu, "pattern").contains(&8));
}

#[test]
fn graph_is_a_symmetric_metis_graph_of_the_roots() {
    let dir = TempDir::new("graph");
    let (mesh, graph) = (dir.arg("box.msh"), dir.arg("box.graph"));
    ok(&["mesh", "box", "--cells", "2", "2", "1", "-o", &mesh]);
    let info = fields(&ok(&["info", &mesh]).stdout);
    let roots = number(&info, "elements") as usize;
    let shared_faces = (4 * roots - number(&info, "boundary faces") as usize) / 2;

    let run = ok(&["graph", &mesh, "--uniform", "1", "-o", &graph]);
    let printed = fields(&run.stdout);
    assert_eq!(number(&printed, "vertices (roots)") as usize, roots);
    assert_eq!(number(&printed, "edges (faces)") as usize, shared_faces);
    assert_eq!(number(&printed, "total PWgt") as usize, 8 * roots);

    let text = std::fs::read_to_string(&graph).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), format!("{roots} {shared_faces} 011"));
    let mut edges = BTreeMap::new();
    let mut rows = 0;
    for (v, line) in lines.enumerate() {
        let numbers: Vec<u64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(numbers.len() % 2 == 1, "line {}: {line}", v + 2);
        assert_eq!(numbers[0], 8, "PWgt of root {v} after one uniform level");
        for pair in numbers[1..].chunks(2) {
            assert!((1..=roots as u64).contains(&pair[0]) && pair[0] != v as u64 + 1);
            assert!(pair[1] > 0);
            edges.insert((v as u64 + 1, pair[0]), pair[1]);
        }
        rows += 1;
    }
    assert_eq!(rows, roots);
    assert_eq!(edges.len(), 2 * shared_faces);
    for (&(a, b), w) in &edges {
        assert_eq!(edges.get(&(b, a)), Some(w), "edge {a}–{b} not symmetric");
    }

    let out = external::program("gpmetis")
        .arg(&graph)
        .arg("4")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gpmetis {graph} 4:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let parts = std::fs::read_to_string(format!("{graph}.part.4")).unwrap();
    let parts: Vec<u32> = parts.lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(parts.len(), roots);
    assert!(parts.iter().all(|&p| p < 4));
}

#[test]
fn bad_input_gets_a_clear_message_and_exit_code() {
    let dir = TempDir::new("bad");
    let missing = dir.arg("missing.msh");
    let out = dir.arg("out.vtu");
    fails(&["info", &missing], 1, &[&missing]);
    fails(
        &["refine", &missing, "--uniform", "1", "-o", &out],
        1,
        &[&missing],
    );
    fails(&["graph", &missing, "-o", &dir.arg("g")], 1, &[&missing]);
    fails(
        &["info", &dir.arg("mesh.stl")],
        2,
        &["mesh.stl", ".msh or .vtu"],
    );

    let garbage = dir.path("garbage.msh");
    std::fs::write(&garbage, "$MeshFormat\nnot a version\n").unwrap();
    fails(
        &["info", &garbage.display().to_string()],
        1,
        &["garbage.msh"],
    );

    let mesh = dir.arg("box.msh");
    ok(&["mesh", "box", "--cells", "2", "1", "1", "-o", &mesh]);
    fails(
        &[
            "mesh",
            "box",
            "--cells",
            "1",
            "1",
            "1",
            "-o",
            &dir.arg("box.stl"),
        ],
        2,
        &["box.stl", "-o"],
    );
    fails(
        &["refine", &mesh, "--uniform", "1", "-o", &dir.arg("r.msh")],
        2,
        &["r.msh", ".vtu"],
    );
    fails(
        &["mesh", "box", "--cells", "0", "1", "1", "-o", &mesh],
        2,
        &["--cells", "at least 1"],
    );
    fails(
        &[
            "mesh", "box", "--cells", "1", "1", "1", "--size", "1", "-2", "1", "-o", &mesh,
        ],
        2,
        &["--size", "positive"],
    );

    // Usage errors: clap's own and the ones found after parsing.
    fails(&["info"], 2, &["FILE"]);
    fails(&["frobnicate"], 2, &["frobnicate"]);
    fails(&["info", &mesh, "--bogus"], 2, &["--bogus"]);
    fails(&["refine", &mesh, "-o", &out], 2, &["--uniform"]);
    fails(
        &[
            "refine",
            &mesh,
            "--uniform",
            "1",
            "--sphere",
            "0",
            "0",
            "0",
            "1",
            "--levels",
            "1",
            "-o",
            &out,
        ],
        2,
        &["cannot be used with"],
    );
    fails(
        &["refine", &mesh, "--sphere", "0", "0", "0", "1", "-o", &out],
        2,
        &["--levels"],
    );
    fails(
        &["refine", &mesh, "--uniform", "13", "-o", &out],
        2,
        &["--uniform", "0 to 12"],
    );
    fails(
        &[
            "refine", &mesh, "--sphere", "0", "0", "0", "-1", "--levels", "1", "-o", &out,
        ],
        2,
        &["radius"],
    );

    // Too much refinement is refused before any work (past 2^31 leaves: a usage error).
    fails(
        &["refine", &mesh, "--uniform", "12", "-o", &out],
        2,
        &["--uniform 12", "leaves"],
    );
    fails(
        &["graph", &mesh, "--uniform", "12", "-o", &dir.arg("g")],
        2,
        &["--uniform 12"],
    );
    assert!(!Path::new(&out).exists());
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["mesh", "box", "--help"],
        vec!["info", "--help"],
        vec!["refine", "--help"],
        vec!["graph", "--help"],
        vec!["run", "shock", "--help"],
        vec!["compare", "shock", "--help"],
        vec!["study", "erosion2d", "--help"],
        vec!["study", "model", "--help"],
    ] {
        let run = ok(&args);
        assert!(run.stdout.contains("Usage: plume"), "{args:?}");
    }
    assert!(ok(&["mesh", "box", "--help"])
        .stdout
        .contains("default: NX NY NZ"));
}

#[test]
fn run_shock_writes_its_reports_and_vtk_series() {
    let dir = TempDir::new("run-shock");
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    let out = dir.arg("out");
    let run = ok(&[
        "run",
        "shock",
        "--procs",
        "4",
        "--levels",
        "2",
        "--vtk",
        "all",
        "--mesh",
        &mesh.display().to_string(),
        "--out",
        &out,
    ]);
    assert!(run.stdout.contains("| level | leaves |"), "{}", run.stdout);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("out/metrics.json")).unwrap())
            .unwrap();
    let levels = json["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    for key in [
        "level",
        "leaves",
        "load_imb",
        "cut_pct",
        "total_v",
        "max_v",
        "max_sr",
        "comm_mb",
        "remap_accepted",
    ] {
        assert!(levels[0].get(key).is_some(), "level record lacks {key}");
        let in_summary = match key {
            "level" => None,
            "remap_accepted" => Some("remap_accepted_share"),
            key => Some(key),
        };
        if let Some(name) = in_summary {
            assert!(json["summary"].get(name).is_some(), "summary lacks {name}");
        }
    }
    assert!(levels[0]["time_ms"]["partition"].is_number());
    assert_eq!(json["config"]["procs"], 4);
    let csv = std::fs::read_to_string(dir.path("out/metrics.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3);
    assert!(csv.starts_with("level,leaves,"));
    assert_eq!(
        std::fs::read_to_string(dir.path("out/summary.md"))
            .unwrap()
            .trim(),
        run.stdout
            .lines()
            .take_while(|l| !l.starts_with("wrote"))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
    );
    // Each of the 4 ranks writes its piece of a level, its leaves with its rank.
    let pieces = |level: usize| -> Vec<_> {
        (0..4)
            .map(|r| read_vtu(&dir.path(&format!("out/level_{level:04}/r{r:04}.vtu"))).unwrap())
            .collect()
    };
    let last = pieces(2);
    let cells: usize = last.iter().map(|p| p.mesh.tets.len()).sum();
    assert_eq!(cells as u64, levels[1]["leaves"].as_u64().unwrap());
    for (r, piece) in last.iter().enumerate() {
        let names: Vec<&str> = piece.cell_data.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["root", "level", "pattern", "rank"]);
        assert!(ints(piece, "rank").iter().all(|&rank| rank == r as i32));
    }
    // Level 0 is the initial mesh, on its initial partition.
    let first = pieces(0);
    let roots = plume::io::read_mesh(&mesh).unwrap().0.nelems();
    assert_eq!(
        first.iter().map(|p| p.mesh.tets.len()).sum::<usize>(),
        roots
    );
    assert!(first
        .iter()
        .all(|p| ints(p, "level").iter().all(|&l| l == 0)));
    // The series lists every level's index of pieces, the level number as its time.
    let pvd = std::fs::read_to_string(dir.path("out/shock.pvd")).unwrap();
    for level in 0..=2 {
        let entry = format!(r#"timestep="{level}" group="" part="0" file="level_000{level}.pvtu""#);
        assert!(pvd.contains(&entry), "{pvd}");
        assert!(dir.path(&format!("out/level_000{level}.pvtu")).is_file());
    }
}

#[test]
fn run_shock_with_sbn_and_compare_write_their_reports() {
    let dir = TempDir::new("sbn-compare");
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../meshes/shock_box.msh");
    let mesh = mesh.display().to_string();
    let run = ok(&[
        "run",
        "shock",
        "--balancer",
        "sbn",
        "--variant",
        "heuristic",
        "--procs",
        "6",
        "--levels",
        "1",
        "--vtk",
        "none",
        "--mesh",
        &mesh,
        "--out",
        &dir.arg("sbn"),
    ]);
    assert!(run.stdout.contains("SBN heuristic") && run.stdout.contains("Post-Exec Cut%"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("sbn/metrics.json")).unwrap())
            .unwrap();
    let level = &json["levels"][0];
    for key in [
        "qwgt_load_imb",
        "pre_cut_pct",
        "cut_pct",
        "roots_transferred",
    ] {
        assert!(level[key].is_number(), "{key}");
    }
    assert!(level["messages"]["locate"].is_number() && level["sim"]["idle_pct"].is_number());
    assert!(level["time_ms"]["vertex_selection"].is_number());
    let run = ok(&[
        "compare",
        "shock",
        "--procs",
        "2,5",
        "--levels",
        "1",
        "--mesh",
        &mesh,
        "--out",
        &dir.arg("cmp"),
    ]);
    assert!(run.stdout.contains("Table 8") && run.stdout.contains("| 5 |"));
    for file in [
        "compare.json",
        "compare.md",
        "loadimb.svg",
        "cut.svg",
        "maxsr.svg",
        "time.svg",
    ] {
        assert!(dir.path("cmp").join(file).exists(), "{file}");
    }
    fails(&["compare", "shock", "--procs", "2,0"], 2, &["--procs"]);
    fails(&["compare", "shock", "--procs", "two"], 2, &["--procs"]);
    fails(&["compare", "shock", "--levels", "0"], 2, &["--levels"]);
}

#[test]
fn run_shock_is_the_same_case_from_any_folder() {
    let dir = TempDir::new("anywhere");
    let elsewhere = dir.path("cwd");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let levels_of = |cwd: &Path, out: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_plume"))
            .current_dir(cwd)
            .args([
                "run", "shock", "--levels", "2", "--vtk", "none", "--out", out,
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && stderr.is_empty(), "{stderr}");
        let json = std::fs::read_to_string(Path::new(out).join("metrics.json")).unwrap();
        let mut levels: serde_json::Value = serde_json::from_str(&json).unwrap();
        for level in levels["levels"].as_array_mut().unwrap() {
            let level = level.as_object_mut().unwrap();
            // Wall-clock measures differ from run to run.
            level.retain(|key, _| !["time_ms", "sim", "balance_pct"].contains(&key.as_str()));
        }
        levels["levels"].take()
    };
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let from_repository = levels_of(&repository, &dir.arg("in-repo"));
    let from_elsewhere = levels_of(&elsewhere, &dir.arg("elsewhere"));
    assert_eq!(from_repository, from_elsewhere);
    assert_eq!(
        from_elsewhere[0]["leaves"], 68_128,
        "the published mesh's first level"
    );
}

#[test]
fn wrong_option_words_are_one_line_usage_errors_naming_the_option() {
    for args in [
        &["run", "shock", "--partitioner", "scotch"][..],
        &["run", "shock", "--objective", "MaxSR"],
        &["run", "shock", "--policy", "threshold:x"],
        &["run", "shock", "--vtk", "first"],
        &["run", "erosion", "--policy", "cost-benefit:-1"],
        &["run", "erosion", "--partition", "metis"],
        &["compare", "shock", "--variant", "fast"],
    ] {
        let (option, word) = (args[2], args[3]);
        let run = fails(args, 2, &[option, word]);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "plume {args:?}: {lines:?}");
        assert!(lines[0].starts_with("plume: "), "{lines:?}");
    }
}

#[test]
fn run_shock_rejects_bad_options() {
    fails(&["run", "shock", "--procs", "0"], 2, &["--procs"]);
    fails(
        &["run", "shock", "--objective", "fastest"],
        2,
        &["--objective", "totalv"],
    );
    fails(&["run", "shock", "--policy", "sometimes"], 2, &["--policy"]);
    fails(&["run", "shock", "--balancer", "magic"], 2, &[]);
    fails(
        &["run", "shock", "--mesh", "/nonexistent/mesh.msh"],
        1,
        &["/nonexistent/mesh.msh"],
    );
    let dir = TempDir::new("run-shock-tiny");
    ok(&[
        "mesh",
        "box",
        "--cells",
        "1",
        "1",
        "1",
        "-o",
        &dir.arg("tiny.msh"),
    ]);
    fails(
        &[
            "run",
            "shock",
            "--mesh",
            &dir.arg("tiny.msh"),
            "--out",
            &dir.arg("out"),
        ],
        2,
        &["--procs 8", "roots (6)"],
    );
}

/// Issue 21 (22): SBN's options given with another balancer were silently ignored by `run
/// shock` and `run euler`; each is a usage error naming the option and the balancer, before
/// anything is written. With `--balancer sbn` they are accepted.
#[test]
fn sbn_options_with_another_balancer_are_usage_errors() {
    let dir = TempDir::new("sbn-options");
    let out = dir.arg("out");
    for run in ["shock", "euler"] {
        for (balancer, option) in [
            ("plum", &["--variant", "heuristic"][..]),
            ("none", &["--prepartition"][..]),
            ("plum", &["--sbn-policy", "plume"][..]),
            ("none", &["--variant", "basic"][..]),
        ] {
            let args = [
                &["run", run, "--balancer", balancer][..],
                option,
                &["--out", &out],
            ]
            .concat();
            fails(
                &args,
                2,
                &[&format!(
                    "{} applies to --balancer sbn only, not --balancer {balancer}",
                    option[0]
                )],
            );
        }
    }
    assert!(!dir.path("out").exists(), "nothing is written");
    ok(&[
        "run",
        "shock",
        "--balancer",
        "sbn",
        "--variant",
        "heuristic",
        "--prepartition",
        "--sbn-policy",
        "plume",
        "--procs",
        "2",
        "--levels",
        "1",
        "--vtk",
        "none",
        "--out",
        &out,
    ]);
}
