//! The constants of the simulated machine a `--machine` word names ([`machine`]): the SP2
//! model, this machine measured on 2 threads ([`on_threads`], also `plume calibrate`'s), or a
//! file `plume calibrate --out` wrote.

use std::path::Path;

use plume::comm::launch_threads;
use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions, Measurements};
use plume::sim::Machine;

use super::failure::{CliResult, Failure};
use plume_cases::words::MachineName;

/// The constants `name` stands for: the SP2 model, this machine measured on 2 thread ranks,
/// or a file's (every field of [`Machine`], checked by [`Machine::validated`]; at most
/// [`MACHINE_FILE_BYTES`]).
///
/// # Errors
/// A file that cannot be read, is not a machine's constants or holds a bad value
/// ([`Failure::Error`], naming the file); a failed calibration.
pub fn machine(name: &MachineName) -> CliResult<Machine> {
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
pub fn on_threads(opts: &CalibrationOptions) -> CliResult<Measurements> {
    let mut every = launch_threads(2, |comm| {
        let mut forest = sample_forest(opts.refinements)?;
        measure(comm, &mut forest, opts)
    })?;
    Ok(every.swap_remove(0))
}
