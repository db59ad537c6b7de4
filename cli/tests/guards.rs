//! Memory and size guards (issue 9): every command refuses inputs too large for the memory it
//! can get, or for its 32-bit numbers, before it allocates them: one `plume:` line, exit code
//! 2 for an option value out of its fixed range and 1 for too little memory, no panic, and a
//! small peak memory (the child's maximum resident set size, read with `wait4`).

mod common;
use common::limited::{plume, Run};
use common::TempDir;
use plume_cases::budget::Budget;
use plume_cases::erosion::{self, ErosionConfig};
use plume_cases::shock::{self, Balancer, ShockConfig};

/// Peak memory a refusal may take: the binary, its libraries and a small mesh.
const SMALL_KB: i64 = 100_000;

/// Runs `plume args…` (with the address-space `limit`, if any) and expects it to refuse with
/// exit code `code` and one `plume:` line holding every string of `needles`, without
/// panicking or allocating much.
fn refuses(args: &[&str], limit: Option<u64>, code: i32, needles: &[&str]) -> Run {
    let run = plume(args, limit);
    assert_eq!(run.code, code, "plume {args:?}: stderr:\n{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.starts_with("plume: note:"))
        .collect();
    assert_eq!(lines.len(), 1, "plume {args:?}: {lines:?}");
    assert!(lines[0].starts_with("plume: "), "{lines:?}");
    for needle in needles {
        assert!(lines[0].contains(needle), "'{needle}' not in {lines:?}");
    }
    assert!(
        run.max_rss_kb > 0 && run.max_rss_kb < SMALL_KB,
        "plume {args:?} took {} kB before refusing",
        run.max_rss_kb
    );
    run
}

/// One gigabyte.
const GB: u64 = 1 << 30;

/// `parts` as owned arguments, for tests that build command lines.
fn args(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// Owned arguments borrowed, for [`plume`] and [`refuses`].
fn args_of(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// [`refuses`] on owned arguments.
fn refuses_args(args: &[String], limit: Option<u64>, code: i32, needles: &[&str]) {
    refuses(&args_of(args), limit, code, needles);
}

#[test]
fn mesh_box_refuses_overflowing_and_oversized_cells() {
    let dir = TempDir::new("guard-box");
    let out = dir.arg("box.msh");
    let mesh =
        |cells: [&str; 3]| args(&[&["mesh", "box", "--cells"], &cells[..], &["-o", &out]].concat());
    // 6·NX·NY·NZ overflows 64 bits (and 128); then merely past 32-bit numbers.
    let huge = mesh(["18446744073709551615", "1", "9223372036854775808"]);
    refuses_args(&huge, None, 2, &["18446744073709551615", "32-bit"]);
    refuses_args(
        &mesh(["4294967296", "4294967296", "1"]),
        None,
        2,
        &["32-bit"],
    );
    refuses_args(&mesh(["2000", "2000", "100"]), None, 2, &["32-bit"]);
    // 1.8 billion elements fit the numbers but need hundreds of GB.
    let big = mesh(["1000", "1000", "300"]);
    refuses_args(&big, None, 1, &["--cells 1000 1000 300", "GB"]);
    // 6 million elements need about 1.5 GB: refused under a 1 GB address space.
    let limited = mesh(["100", "100", "100"]);
    refuses_args(&limited, Some(GB), 1, &["6000000 elements", "GB"]);
    assert!(!dir.path("box.msh").exists());
}

#[test]
fn run_erosion_refuses_overflowing_and_oversized_cells() {
    let dir = TempDir::new("guard-erosion");
    let out = dir.arg("out");
    let erosion = |cells: [&str; 3]| {
        args(&[&["run", "erosion", "--cells"], &cells[..], &["--out", &out]].concat())
    };
    // NX · P overflows before 6·(NX·P)·NY·NZ does.
    refuses_args(
        &erosion(["18446744073709551615", "1", "2"]),
        None,
        2,
        &["--cells"],
    );
    refuses_args(&erosion(["100000", "100000", "1"]), None, 2, &["32-bit"]);
    // 1.5 billion roots: terabytes.
    refuses_args(&erosion(["4000", "4000", "2"]), None, 1, &["roots", "GB"]);
    // 1.2 million roots, about 1.2 GB: refused under 1 GB.
    refuses_args(&erosion(["100", "250", "1"]), Some(GB), 1, &["roots", "GB"]);
    // Every run of --compare keeps a record per iteration.
    let mut endless = erosion(["28", "28", "1"]);
    endless.extend(args(&["--iterations", "18446744073709551615", "--compare"]));
    refuses_args(
        &endless,
        None,
        1,
        &["18446744073709551615 iterations", "GB"],
    );
    assert!(!dir.path("out").exists());
}

#[test]
fn refine_refuses_more_leaves_than_memory_or_numbers_allow() {
    let dir = TempDir::new("guard-refine");
    let mesh = dir.arg("box.msh");
    let out = dir.arg("out.vtu");
    assert_eq!(
        plume(
            &["mesh", "box", "--cells", "4", "4", "4", "-o", &mesh],
            None
        )
        .code,
        0
    );
    let refine = |how: &[&str]| args(&[&["refine", &mesh], how, &["-o", &out]].concat());
    // 384 roots × 8^9 leaves pass 2^31; × 8^7, 805 million leaves, need hundreds of GB.
    refuses_args(
        &refine(&["--uniform", "9"]),
        None,
        2,
        &["--uniform 9", "2^31"],
    );
    refuses_args(
        &refine(&["--uniform", "7"]),
        None,
        1,
        &["--uniform 7", "leaves", "GB"],
    );
    // 12.6 million leaves, about 1 GB.
    refuses_args(
        &refine(&["--uniform", "5"]),
        Some(GB),
        1,
        &["--uniform 5", "969 MB"],
    );
    // Around a sphere holding the whole box, level by level: level 4's 1.6 million leaves
    // (121 MB) are refused under 128 MB, after level 3's 196,608 were made.
    let sphere = refine(&["--sphere", "2", "2", "2", "10", "--levels", "5"]);
    refuses_args(&sphere, Some(GB / 8), 1, &["--levels 5: level 4", "MB"]);
    assert!(!dir.path("out.vtu").exists());
    // What the guard accepts fits: 196,608 leaves (15 MB) under 256 MB.
    let fits = plume(&args_of(&refine(&["--uniform", "3"])), Some(GB / 4));
    assert_eq!(fits.code, 0, "{}", fits.stderr);
    assert!(dir.path("out.vtu").exists());
}

/// Issue 23 (7): the guards estimate at the bytes per root and leaf each command was measured
/// to hold (`plume_cases::budget`), not at a common 400 or 512 a leaf: runs the former
/// constants refused run, within the estimate, and runs past it are still refused.
#[test]
fn runs_that_fit_their_measured_footprint_are_not_refused() {
    use plume_cases::budget::{REFINE, SHOCK};
    let dir = TempDir::new("guard-footprint");
    let mesh = dir.arg("box.msh");
    let out = dir.arg("out.vtu");
    let code = plume(
        &["mesh", "box", "--cells", "4", "4", "4", "-o", &mesh],
        None,
    )
    .code;
    assert_eq!(code, 0);
    // 1.57 million leaves of 384 roots: 629 MB at 400 bytes a leaf, refused under 512 MB;
    // about 121 MB now, and the run fits.
    let limit = Some(GB / 2);
    let refine = plume(&["refine", &mesh, "--uniform", "4", "-o", &out], limit);
    assert_eq!(refine.code, 0, "{}", refine.stderr);
    let estimate = REFINE.bytes(384, 384 << 12);
    assert!(
        refine.max_rss_kb as u128 * 1024 <= estimate,
        "{} kB",
        refine.max_rss_kb
    );
    refuses(
        &["refine", &mesh, "--uniform", "5", "-o", &out],
        limit,
        1,
        &["--uniform 5", "12582912 leaves", "MB", "use fewer levels"],
    );
    // The published shock mesh for 6 levels on one rank (594,757 leaves at the last): refused
    // at level 5 at 512 bytes a leaf and a root under 384 MB, it fits now; 9 levels do not.
    let folder = dir.arg("shock");
    let shock = |levels: &str| {
        args(&[
            "run", "shock", "--procs", "1", "--levels", levels, "--vtk", "none", "--out", &folder,
        ])
    };
    let limit = Some(384 << 20);
    let six = plume(&args_of(&shock("6")), limit);
    assert_eq!(six.code, 0, "{}", six.stderr);
    let estimate = SHOCK.bytes(50_136, 594_757);
    assert!(
        six.max_rss_kb as u128 * 1024 <= estimate,
        "{} kB",
        six.max_rss_kb
    );
    std::fs::remove_dir_all(dir.path("shock")).unwrap();
    refuses_args(
        &shock("9"),
        limit,
        1,
        &["level 7 of 9", "MB", "use fewer levels"],
    );
}

#[test]
fn shock_refuses_more_processors_than_roots_or_memory_allow() {
    let dir = TempDir::new("guard-shock");
    let mesh = dir.arg("box.msh");
    let out = dir.arg("out");
    // 3,000 roots.
    assert_eq!(
        plume(
            &["mesh", "box", "--cells", "10", "10", "5", "-o", &mesh],
            None
        )
        .code,
        0
    );
    let shock =
        |extra: &[&str]| args(&[&["run", "shock", "--mesh", &mesh, "--out", &out], extra].concat());
    refuses_args(
        &shock(&["--procs", "3001"]),
        None,
        2,
        &["--procs 3001", "(3000)"],
    );
    let overflow = shock(&["--procs", "2", "--parts-per-proc", "9223372036854775808"]);
    refuses_args(&overflow, None, 2, &["--parts-per-proc", "3000 roots"]);
    let parts = shock(&["--procs", "1000", "--parts-per-proc", "4"]);
    refuses_args(&parts, None, 2, &["4000 parts"]);
    let mut compare = shock(&["--procs", "2,3001"]);
    compare[0] = "compare".into();
    refuses_args(&compare, None, 2, &["--procs 3001"]);
    // PLUM's optimal TotalV on 3,000 parts builds two dense 3,000 × 3,000 matrices (144 MB),
    // which do not fit a 100 MB address space. (SBN's directory and queues, O(roots + P),
    // take 13 MB there.)
    let limit = Some(100 << 20);
    refuses_args(
        &shock(&["--procs", "3000"]),
        limit,
        1,
        &["PLUM on P = 3000", "MB"],
    );
    assert!(!dir.path("out").exists());
    // What the guard accepts fits: SBN on 3,000 processors under 512 MB.
    let one_level = shock(&["--procs", "3000", "--balancer", "sbn", "--levels", "1"]);
    let fits = plume(&args_of(&one_level), Some(GB / 2));
    assert_eq!(fits.code, 0, "{}", fits.stderr);
}

#[test]
fn run_estimates_saturate_instead_of_overflowing() {
    let budget = Budget::bytes(1 << 40);
    for balancer in [Balancer::Plum, Balancer::Sbn] {
        let mut cfg = ShockConfig::new(usize::MAX);
        cfg.balancer = balancer;
        cfg.parts_per_proc = usize::MAX;
        cfg.budget = budget;
        let err = shock::check_memory(&[cfg.clone()], usize::MAX).unwrap_err();
        // PLUM's P·F × P·F matrices saturate; SBN's O(roots + P) does not.
        let want = match balancer {
            Balancer::Plum => "3.4e29 GB",
            _ => " GB",
        };
        assert!(err.to_string().contains(want), "{err}");
        cfg.budget = Budget::UNLIMITED;
        assert!(shock::check_memory(&[cfg], usize::MAX).is_ok());
    }
    let mut small = ShockConfig::new(8);
    small.budget = budget;
    assert!(shock::check_memory(&[small], 50_000).is_ok());

    let mut cfg = ErosionConfig::new(usize::MAX);
    cfg.cells = [usize::MAX, usize::MAX, usize::MAX];
    cfg.budget = budget;
    assert!(erosion::check_memory(&cfg, 1).is_err());
    cfg = ErosionConfig::new(8);
    cfg.iterations = usize::MAX;
    cfg.budget = budget;
    let err = erosion::check_memory(&cfg, usize::MAX).unwrap_err();
    assert!(err.to_string().contains("iterations"), "{err}");
    cfg.iterations = 200;
    assert_eq!(erosion::check_memory(&cfg, 11).unwrap(), 8 * 4704);
}

/// A machine file of the SP2's constants with `field` set to `value` (a JSON number), written
/// as `name` in `dir`.
fn machine_file(dir: &TempDir, name: &str, field: &str, value: &str) -> String {
    let mut machine = serde_json::to_value(plume::sim::Machine::default()).unwrap();
    machine[field] = serde_json::from_str(value).unwrap();
    let path = dir.arg(name);
    std::fs::write(&path, machine.to_string()).unwrap();
    path
}

/// Issue 21 (7, 9, 11): a machine file is read within a bound (a link to `/dev/zero` stops at
/// once, a large file is refused from its size) and its constants must lie in their physical
/// ranges: `t_leaf` 1e308 (which gave `null` times with exit 0) and 2,000 s (which livelocked
/// the SBN simulation) are refused before any work, naming the constant and its range.
#[test]
fn machine_files_are_bounded_in_size_and_constants() {
    let dir = TempDir::new("guard-machine");
    let out = dir.arg("out");
    let run = |machine: &str| {
        args(&[
            "run",
            "shock",
            "--balancer",
            "sbn",
            "--levels",
            "1",
            "--machine",
            machine,
            "--out",
            &out,
        ])
    };
    for (value, shown) in [("1e308", "1e308"), ("2000", "2000"), ("0", "0")] {
        let path = machine_file(&dir, &format!("t{value}.json"), "t_leaf", value);
        refuses_args(
            &run(&path),
            None,
            1,
            &[
                &path,
                &format!(
                    "machine constant t_leaf is {shown}: it must be a number from 1e-12 to 1 s"
                ),
            ],
        );
    }
    let path = machine_file(&dir, "bw.json", "bandwidth", "1e308");
    refuses_args(
        &run(&path),
        None,
        1,
        &["machine constant bandwidth is 1e308"],
    );
    let zero = dir.path("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let zero = zero.display().to_string();
    refuses_args(&run(&zero), Some(GB), 1, &[&zero, "not JSON"]);
    let large = dir.arg("large.json");
    std::fs::write(&large, vec![b' '; 2 << 20]).unwrap();
    refuses_args(&run(&large), None, 1, &[&large, "more than plume reads"]);
    assert!(!dir.path("out").exists(), "nothing is written");
}

/// Issue 21 (22): a UTF-8 byte-order mark before a machine file's JSON (as some editors
/// write) is skipped: the file gives the same run as without it.
#[test]
fn a_machine_file_may_start_with_a_byte_order_mark() {
    let dir = TempDir::new("guard-bom");
    let plain = machine_file(&dir, "plain.json", "t_leaf", "2e-4");
    let bom = dir.arg("bom.json");
    let text = std::fs::read(&plain).unwrap();
    std::fs::write(&bom, [&b"\xEF\xBB\xBF"[..], &text].concat()).unwrap();
    let records = |machine: &str, out: &str| {
        let dir_out = dir.path(out);
        let args = args(&[
            "run",
            "shock",
            "--balancer",
            "sbn",
            "--procs",
            "2",
            "--levels",
            "1",
            "--vtk",
            "none",
            "--machine",
            machine,
            "--out",
            &dir_out.display().to_string(),
        ]);
        common::ok(&args_of(&args));
        common::records_without(&dir_out, "levels", &["time_ms", "balance_pct"])
    };
    assert_eq!(records(&bom, "with"), records(&plain, "without"));
}

/// Issue 21 (7, 15): options whose value would overflow, or is not finite, are refused when
/// the command line is parsed, with their range in short numbers (never 309 digits), before
/// the study runs.
#[test]
fn option_values_out_of_their_range_are_usage_errors() {
    let dir = TempDir::new("guard-ranges");
    let out = dir.arg("out");
    let study =
        |option: &str, value: &str| args(&["study", "erosion2d", option, value, "--out", &out]);
    for (option, value, range) in [
        ("--lb-fixed-ms", "1e308", "from 0 to 1e6"),
        ("--lb-fixed-ms", "0,inf", "from 0 to 1e6"),
        ("--bandwidth-gbs", "1e308", "from 1e-6 to 10000"),
        ("--cell-ns", "NaN", "from 0.001 to 1e9"),
        ("--z-threshold", "inf", "finite"),
    ] {
        let args = study(option, value);
        let run = plume(&args_of(&args), None);
        assert_eq!(run.code, 2, "{option} {value}: {}", run.stderr);
        assert!(
            run.stderr.contains(option) && run.stderr.contains(range),
            "{}",
            run.stderr
        );
        assert!(run.stderr.len() < 200, "{}", run.stderr);
    }
    let euler = args(&["run", "euler", "--refine-above", "inf", "--out", &out]);
    let run = plume(&args_of(&euler), None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--refine-above"), "{}", run.stderr);
    assert!(!dir.path("out").exists(), "nothing is written");
}
