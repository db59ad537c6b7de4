//! The `plume` command: see `plume --help` and [`plume_solvers::cli`].
fn main() -> std::process::ExitCode {
    plume_solvers::cli::main()
}
