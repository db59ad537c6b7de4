//! `plume calibrate`: measures this machine for the simulated machine
//! (`plume::sim::calibrate`) on 2 thread ranks, or on the processes of an `mpirun` job, prints
//! the constants and writes them as JSON that `plume compare shock --machine FILE.json` reads.
//! Also where a `--machine` word becomes the constants ([`machine`]).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use plume::comm::launch_threads;
use plume::io::write_atomically;
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions, Measurements};
use plume::sim::Machine;

use super::common::{check_extension, create_parent, say};
use super::run::BackendName;
use super::{CliResult, Failure};
use plume_cases::words::MachineName;
use plume_studies::compare::machine_table;

/// Arguments of `plume calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// How the ranks talk: 2 threads of this process, or the processes of
    /// `mpirun -n 2 plume calibrate --backend mpi` (a plume built with `--features mpi`; ranks
    /// beyond the first two only wait).
    #[arg(long, value_enum, default_value_t = BackendName::Threads)]
    pub backend: BackendName,
    /// Also write the constants to this JSON file, for `plume compare shock --machine FILE`.
    #[arg(long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// A fast, coarse calibration: a smaller forest and message, fewer trials.
    #[arg(long)]
    pub quick: bool,
}

/// Runs `plume calibrate`.
pub fn run(args: CalibrateArgs) -> CliResult {
    if let Some(out) = &args.out {
        check_extension(out, "--out", &["json"])?;
    }
    let opts = if args.quick {
        CalibrationOptions::quick()
    } else {
        CalibrationOptions::default()
    };
    match args.backend {
        BackendName::Threads => report(&args, &on_threads(&opts)?),
        BackendName::Mpi => mpi(&args, &opts),
    }
}

/// The constants `name` stands for: the SP2 model, this machine measured on 2 thread ranks,
/// or a file's (every field of [`Machine`], checked by [`Machine::validated`]; at most
/// [`MACHINE_FILE_BYTES`]).
///
/// # Errors
/// A file that cannot be read, is not a machine's constants or holds a bad value
/// ([`Failure::Error`], naming the file); a failed calibration.
pub(super) fn machine(name: &MachineName) -> CliResult<Machine> {
    match name {
        MachineName::Sp2 => Ok(Machine::default()),
        MachineName::Measured => Ok(Machine::measured(&on_threads(
            &CalibrationOptions::default(),
        )?)),
        MachineName::File(path) => read_machine(path),
    }
}

/// The largest machine file read, in bytes (its constants take a few hundred).
const MACHINE_FILE_BYTES: u64 = 1 << 20;

/// The constants in the JSON file at `path` (at most [`MACHINE_FILE_BYTES`]; a UTF-8
/// byte-order mark before them is skipped).
fn read_machine(path: &Path) -> CliResult<Machine> {
    let at = |m: String| Failure::Error(format!("{}: {m}", path.display()));
    let text = plume::io::read_json_text(path, MACHINE_FILE_BYTES).map_err(|e| match e {
        plume::Error::Io { message, .. } => at(format!("cannot read: {message}")),
        other => Failure::from(other),
    })?;
    let machine: Machine = serde_json::from_str(&text)
        .map_err(|e| at(format!("not the constants of a machine: {e}")))?;
    machine.validated().map_err(|e| at(e.to_string()))
}

/// Calibrates on 2 threads of this process.
fn on_threads(opts: &CalibrationOptions) -> CliResult<Measurements> {
    let mut every = launch_threads(2, |comm| {
        let mut forest = sample_forest(opts.refinements)?;
        measure(comm, &mut forest, opts)
    })?;
    Ok(every.swap_remove(0))
}

/// `plume calibrate --backend mpi`: this process's rank of the `mpirun` job; rank 0 reports.
#[cfg(feature = "mpi")]
fn mpi(args: &CalibrateArgs, opts: &CalibrationOptions) -> CliResult {
    use plume::comm::Comm;
    use plume_cases::rank_job::{agree, mpi_job};
    let job = mpi_job(&super::progress::Terminal, |comm| {
        let measured = measure(comm, &mut sample_forest(opts.refinements)?, opts)?;
        let reported = match comm.rank() {
            0 => report(args, &measured).map_err(plume_cases::Error::from),
            _ => Ok(()),
        };
        agree(comm, reported)
    });
    Ok(job?)
}

/// Without MPI built in, `--backend mpi` is a usage error saying how to get it.
#[cfg(not(feature = "mpi"))]
fn mpi(_: &CalibrateArgs, _: &CalibrationOptions) -> CliResult {
    Err(Failure::Usage(
        "--backend mpi needs a plume built with MPI: `cargo build --release --features mpi` \
         (with Open MPI's libopenmpi-dev), then `mpirun -n 2 plume calibrate --backend mpi`"
            .into(),
    ))
}

/// Prints what was measured and the machine's constants, and writes them to `--out`.
fn report(args: &CalibrateArgs, m: &Measurements) -> CliResult {
    let machine = Machine::measured(m).validated()?;
    say(format!(
        "# This machine ({} backend)\n\nKernel of {} sweeps: {:.3} µs per leaf. Ping-pong \
         between ranks 0 and 1: {:.2} µs one way, {:.0} MB/s. A packed tree: {:.1} bytes and \
         {:.0} ns (pack and unpack) per element.\n\n{}",
        args.backend
            .to_possible_value()
            .expect("no backend is skipped")
            .get_name(),
        m.sweeps,
        m.seconds_per_leaf * 1e6,
        m.latency * 1e6,
        m.bandwidth / 1e6,
        m.element_bytes,
        m.t_pack * 1e9,
        machine_table(&machine)
    ))?;
    if let Some(out) = &args.out {
        create_parent(out)?;
        let json = plume_cases::report::finite::pretty_json("machine", &machine)
            .map_err(Failure::Error)?;
        write_atomically(out, |w| w.write_all(json.as_bytes()))?;
        say(format!("wrote {}", out.display()))?;
    }
    Ok(())
}
