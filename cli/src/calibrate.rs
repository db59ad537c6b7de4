//! `plume calibrate`: measures this machine for the simulated machine
//! (`plume::sim::calibrate`) on 2 thread ranks, or on the processes of an `mpirun` job, prints
//! the constants and writes them as JSON that `plume compare shock --machine FILE.json` reads.
//! Also where a `--machine` word becomes the constants ([`machine`]).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use plume::io::write_atomically;
use plume::sim::calibrate::{CalibrationOptions, Measurements};
use plume::sim::Machine;

use super::common::{check_extension, create_parent, say};
use super::failure::{CliResult, Failure};
use super::machine::on_threads;
use super::options::BackendName;
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

/// `plume calibrate --backend mpi`: this process's rank of the `mpirun` job; rank 0 reports.
#[cfg(feature = "mpi")]
fn mpi(args: &CalibrateArgs, opts: &CalibrationOptions) -> CliResult {
    use plume::sim::calibrate::{measure, sample_forest};
    use plume_cases::ranks::{agree, mpi_job};
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
