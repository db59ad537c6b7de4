//! Issue 21 (10, 13): the studies estimate their size before they start and refuse, with a
//! one-line usage error naming the option at fault, what they could not hold or finish; a
//! count too large to allocate at all is such a refusal, never a "capacity overflow" panic.

mod common;
use common::{fails, TempDir};

/// Runs `plume study <args…> --out <fresh folder>` and expects a usage error whose one line
/// names `option`, before the folder is made.
fn refused(args: &[&str], option: &str) {
    let dir = TempDir::new("study-guard");
    let out = dir.arg("out");
    let run = fails(&[&["study"], args, &["--out", &out]].concat(), 2, &[option]);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(!dir.path("out").exists(), "{args:?} made its folder");
}

#[test]
fn counts_too_large_to_allocate_are_usage_errors_naming_the_option() {
    let max = u64::MAX.to_string();
    refused(
        &["erosion2d", "--seeds", &max],
        "--seeds 18446744073709551615",
    );
    refused(
        &["model", "--instances", &max],
        "--instances 18446744073709551615",
    );
    refused(
        &["model", "--instances", "1", "--alpha-steps", &max],
        "--alpha-steps 18446744073709551615",
    );
}

#[test]
fn studies_larger_than_memory_or_too_long_are_refused_up_front() {
    // 10^17 iterations: their records alone pass what a process can address.
    refused(
        &["erosion2d", "--iterations", "100000000000000000"],
        "--iterations 100000000000000000: the study would need about",
    );
    refused(
        &[
            "erosion2d",
            "--seeds",
            "100000000000000000",
            "--iterations",
            "10",
        ],
        "--seeds 100000000000000000",
    );
    // 10^12 annealing moves: small, but about a month of CPU.
    refused(
        &[
            "model",
            "--shares",
            "1",
            "--instances",
            "100000",
            "--anneal-moves",
            "10000000",
        ],
        "model evaluations, more than the limit of 1e11",
    );
}

#[test]
fn hier_study_options_out_of_range_are_usage_errors_naming_the_option() {
    // Not a multiple of the lowest domains, a lowest domain of one processor, a tree deeper
    // than the sweep's processors fill, more processors than objects.
    refused(&["hier", "--procs", "1000"], "--procs 1000");
    refused(&["hier", "--lowest", "1"], "--lowest 1");
    refused(&["hier", "--sweep-levels", "3,40"], "--sweep-levels 40");
    refused(
        &["hier", "--procs", "1024", "--objects", "1000"],
        "--procs 1024: more processors than the 1000 --objects",
    );
    refused(&["hier", "--max-objects", "0"], "--max-objects");
    // 4·10⁹ objects: about 1.5 TB, refused before anything is allocated.
    refused(
        &["hier", "--procs", "1024", "--objects", "4000000000"],
        "--objects 4000000000 with --procs 1024: the study would need about",
    );
    refused(
        &["hier", "--sweep-objects", "4000000000"],
        "--sweep-objects 4000000000: the study would need about",
    );
}
