//! The `plume` command line: argument parsing (clap), one module per subcommand, and the one
//! place where failures become a message on stderr and an exit code.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | [`Cli`], [`main`], [`Failure`] and the exit codes |
//! | `mesh.rs` | `plume mesh box` |
//! | `info.rs` | `plume info` |
//! | `refine.rs` | `plume refine` |
//! | `graph.rs` | `plume graph` |
//! | `run.rs` | `plume run shock` |
//! | `compare.rs` | `plume compare shock` |
//! | `erosion.rs` | `plume run erosion` |
//! | `study.rs` | `plume study erosion2d`, `plume study model` |
//! | `common.rs` | loading meshes with their notes, output paths, level limits, stdout |
//! | `progress.rs` | progress bars on stderr, shown only when stderr is a terminal |
//! | `stream.rs` | reports printed on stdout line by line as the work produces them |
//! | `signals.rs` | SIGINT / SIGTERM: remove the temporary files, one line, exit 130 / 143 |
//!
//! Exit codes: 0 on success, 2 on a usage error (clap's own, or an option value found wrong
//! after parsing), 1 on any other error. Every failure prints one line, `plume: <message>`,
//! naming the file, option or value at fault. SIGINT and SIGTERM stop the process with
//! `plume: interrupted by SIGINT` (or `SIGTERM`) and exit code 130 (143).

mod common;
mod compare;
mod erosion;
mod graph;
mod info;
mod mesh;
mod progress;
mod refine;
mod run;
mod signals;
mod stream;
mod study;

use clap::{Parser, Subcommand};
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
    Run(run::RunCommand),
    /// Run a test case with PLUM and SBN side by side for several P.
    #[command(subcommand)]
    Compare(compare::CompareCommand),
    /// Reproduce a seed's studies under its own conditions (seed 001: the 2-D erosion
    /// experiment, the model's figures).
    #[command(subcommand)]
    Study(study::StudyCommand),
}

/// Why a command failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// An option value is wrong in a way clap could not see (exit code 2).
    Usage(String),
    /// Anything else: unreadable or invalid input, a file that cannot be written (exit code 1).
    Error(String),
}

impl Failure {
    /// The process exit code: 2 for usage errors, 1 otherwise.
    pub fn code(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Error(_) => 1,
        }
    }

    /// The message, on one line.
    pub fn message(&self) -> String {
        let (Failure::Usage(m) | Failure::Error(m)) = self;
        m.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

impl From<plume::Error> for Failure {
    fn from(e: plume::Error) -> Self {
        Failure::Error(e.to_string())
    }
}

/// Result of a subcommand.
pub type CliResult<T = ()> = Result<T, Failure>;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Mesh(cmd) => mesh::run(cmd),
        Command::Info(args) => info::run(args),
        Command::Refine(args) => refine::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Run(cmd) => run::run(cmd),
        Command::Compare(cmd) => compare::run(cmd),
        Command::Study(cmd) => study::run(cmd),
    }
}

/// Entry point of the `plume` binary: routes SIGINT and SIGTERM to the signal thread, parses
/// the command line (clap prints its own usage errors and exits with code 2), runs it, and
/// turns a failure into `plume: <message>` on stderr with exit code 1 or 2.
pub fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse();
    let outcome = run(cli);
    signals::settle();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("plume: {}", failure.message());
            ExitCode::from(failure.code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn failure_messages_are_one_line() {
        let f = Failure::Error("a\nb  c".into());
        assert_eq!((f.message().as_str(), f.code()), ("a b c", 1));
        assert_eq!(Failure::Usage("x".into()).code(), 2);
    }
}
