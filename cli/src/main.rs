//! The `plume` command line: argument parsing (clap), one module per subcommand, and the one
//! place where failures become a message on stderr and an exit code.
//!
//! | file | owns |
//! | --- | --- |
//! | `main.rs` | [`Cli`], [`main`] and the exit codes |
//! | `failure.rs` | [`Failure`]: why a command failed, its message and exit code |
//! | `mesh.rs` | `plume mesh box` |
//! | `info.rs` | `plume info` |
//! | `refine.rs` | `plume refine` |
//! | `graph.rs` | `plume graph` |
//! | `shock.rs` | `plume run shock` |
//! | `compare.rs` | `plume compare shock` |
//! | `calibrate.rs` | `plume calibrate` |
//! | `machine.rs` | the constants `--machine` names |
//! | `options.rs` | what several subcommands' options share: the cases' words, `--backend`, the shock case's options |
//! | `erosion.rs` | `plume run erosion` |
//! | `euler.rs` | `plume run euler` |
//! | `study.rs` | `plume study erosion2d`, `plume study model`, `plume study hier` |
//! | `common.rs` | loading meshes with their notes, output paths, level limits, stdout |
//! | `progress.rs` | progress bars on stderr, shown only when stderr is a terminal |
//! | `signals.rs` | SIGINT / SIGTERM: remove the temporary files, one line, exit 130 / 143 |
//!
//! Exit codes: 0 on success, 2 on a usage error (clap's own, or an option value found wrong
//! after parsing), 1 on any other error. Every failure prints one line, `plume: <message>`,
//! naming the file, option or value at fault. SIGINT and SIGTERM stop the process with
//! `plume: interrupted by SIGINT` (or `SIGTERM`) and exit code 130 (143).

mod calibrate;
mod checkpoint;
mod common;
mod compare;
mod erosion;
mod euler;
mod failure;
mod graph;
mod info;
mod machine;
mod mesh;
mod options;
mod progress;
mod refine;
mod shock;
mod signals;
mod study;
mod study_euler;
mod study_minex;

use clap::{Parser, Subcommand};
use failure::{CliResult, Failure};
use std::process::ExitCode;

/// Adaptive unstructured tetrahedral meshes and their load balancing.
#[derive(Debug, Parser)]
#[command(name = "plume", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate a mesh.
    #[command(subcommand)]
    Mesh(mesh::MeshCommand),
    /// Validate a mesh (.msh or .vtu) and print its counts, volume, dihedral-angle range and
    /// boundary faces.
    Info(info::InfoArgs),
    /// Refine a mesh uniformly or around a sphere and write the leaves as .vtu.
    Refine(refine::RefineArgs),
    /// Write the dual graph of a mesh in METIS format (vertex weight PWgt, edge weight CWgt).
    Graph(graph::GraphArgs),
    /// Run a test case on P ranks with a balancer and report per-level metrics.
    #[command(subcommand)]
    Run(RunCommand),
    /// Run a test case with PLUM and SBN side by side for several P.
    #[command(subcommand)]
    Compare(compare::CompareCommand),
    /// Measure this machine (kernel per leaf, message latency and bandwidth, packed trees) for
    /// the simulated machine, print the constants and write them as JSON for
    /// `plume compare shock --machine FILE.json`.
    Calibrate(calibrate::CalibrateArgs),
    /// Reproduce a source's studies under its own conditions ([Boulmier 2019]: the 2-D erosion
    /// experiment, the model's figures).
    #[command(subcommand)]
    Study(study::StudyCommand),
}

/// The test cases `plume run` knows.
#[derive(Debug, Subcommand)]
pub enum RunCommand {
    /// The moving shock wave [Harvey 2001, §5.3] balanced the PLUM way, on P thread or MPI ranks.
    Shock(shock::ShockArgs),
    /// A fluid eroding P rocks, balanced by a when-to-balance policy [Boulmier 2019].
    Erosion(erosion::ErosionArgs),
    /// A finite-volume Euler flow (Sod tube, blast) driving the adaptation, balanced by PLUM
    /// on P thread or MPI ranks.
    Euler(Box<euler::EulerArgs>),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Mesh(cmd) => mesh::run(cmd),
        Command::Info(args) => info::run(args),
        Command::Refine(args) => refine::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Run(RunCommand::Shock(args)) => shock::run(args),
        Command::Run(RunCommand::Erosion(args)) => erosion::run(args),
        Command::Run(RunCommand::Euler(args)) => euler::run(&args),
        Command::Compare(cmd) => compare::run(cmd),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Study(cmd) => study::run(cmd),
    }
}

/// Entry point of the `plume` binary: routes SIGINT and SIGTERM to the signal thread, parses
/// the command line (a usage error clap finds becomes `plume: <message>` on one line, exit
/// code 2), runs it, and turns a failure into `plume: <message>` on stderr with exit code 1
/// or 2.
fn main() -> ExitCode {
    signals::install();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprintln!("plume: {}", usage_line(&e));
            return ExitCode::from(e.exit_code() as u8);
        }
        Err(e) => e.exit(),
    };
    let outcome = run(cli);
    signals::settle();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Silent(code)) => ExitCode::from(code),
        Err(failure) => {
            eprintln!("plume: {}", failure.message());
            ExitCode::from(failure.code())
        }
    }
}

/// Clap's usage error as one line: its message without the `error:` prefix and the hint to
/// try `--help`, e.g. `invalid value 'fastest' for '--objective <OBJECTIVE>' [possible values:
/// totalv, …]`.
fn usage_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let text = text.trim_start().trim_start_matches("error:");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("For more information"))
        .collect();
    Failure::Usage(kept.join(" ")).message()
}

#[cfg(test)]
mod tests {
    use super::failure::printable;
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn printable_escapes_control_characters_and_keeps_the_rest() {
        assert_eq!(
            printable("a\u{1b}]0;x\u{7}b\u{7f}\u{9b}c\u{202e}d – 45°"),
            "a\\x1b]0;x\\x07b\\x7f\\u{9b}c\\u{202e}d – 45°"
        );
        let failure = Failure::Error("bad 'line\u{1b}[2J'\n  here".into());
        assert_eq!(failure.message(), "bad 'line\\x1b[2J' here");
    }

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The value `option` takes in `plume <command…> <option> <word>`, as written back, or
    /// the one-line usage error and its exit code.
    fn parse(command: &[&str], option: &str, word: &str) -> Result<String, (String, i32)> {
        let args = [&["plume"], command, &[option, word]].concat();
        let cli = Cli::try_parse_from(args).map_err(|e| (usage_line(&e), e.exit_code()))?;
        Ok(match cli.command {
            Command::Run(RunCommand::Shock(a)) => match option {
                "--partitioner" => a.partitioner.to_string(),
                "--objective" => a.objective.to_string(),
                "--policy" => a.policy.to_string(),
                _ => a.vtk.to_string(),
            },
            Command::Run(RunCommand::Erosion(a)) => match option {
                "--partition" => a.partition.to_string(),
                "--policy" => a.policy.to_string(),
                _ => a.vtk.to_string(),
            },
            _ => unreachable!("only run subcommands are parsed here"),
        })
    }

    const POLICIES: [&str; 10] = [
        "never",
        "periodic:20",
        "threshold",
        "threshold:1.1",
        "cost-benefit",
        "cost-benefit:0.01",
        "degradation",
        "degradation:0.005",
        "standard",
        "ulba",
    ];

    #[test]
    fn every_documented_word_parses_and_a_wrong_one_is_a_usage_error_naming_the_option() {
        let shock: &[&str] = &["run", "shock"];
        let erosion: &[&str] = &["run", "erosion"];
        let vtk = ["all", "last", "none"];
        let cases: [(&[&str], &str, &[&str], &str); 7] = [
            (shock, "--partitioner", &["metis", "rcb"], "scotch"),
            (
                shock,
                "--objective",
                &["totalv", "totalv-greedy", "maxv", "maxsr", "identity"],
                "MaxSR",
            ),
            (shock, "--policy", &POLICIES, "sometimes"),
            (shock, "--vtk", &vtk, "first"),
            (erosion, "--policy", &POLICIES, "periodic:0"),
            (erosion, "--partition", &["stripes", "graph"], "metis"),
            (erosion, "--vtk", &vtk, "every"),
        ];
        for (command, option, words, wrong) in cases {
            for word in words {
                assert_eq!(parse(command, option, word).as_deref(), Ok(*word));
            }
            let (message, code) = parse(command, option, wrong).unwrap_err();
            assert_eq!(code, 2, "{message}");
            assert!(
                message.contains(option) && message.contains(wrong) && !message.contains('\n'),
                "{message}"
            );
        }
    }

    #[test]
    fn failure_messages_are_one_line() {
        let f = Failure::Error("a\nb  c".into());
        assert_eq!((f.message().as_str(), f.code()), ("a b c", 1));
        assert_eq!(Failure::Usage("x".into()).code(), 2);
    }
}
