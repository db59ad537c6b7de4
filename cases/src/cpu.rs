//! The CPU account of a case run on ranks (issue 23): every rank's CPU seconds per phase of
//! start-up, of every step and (the Euler flow) of the work between steps
//! ([`plume::metrics::RunCpu`]), gathered on every rank after start-up and after each step (or
//! output); rank 0 writes it as `metrics.json`'s `cpu` (the records
//! already use `measured` for a processing level's times) and as one line of `summary.md`.
//! Like `time_ms` it varies from run to run.

use plume::comm::Comm;
use plume::dist::{gather_cpu, CpuLaps};
use plume::metrics::{RankCpu, RunCpu};
use plume::Result;

/// The run's account from start-up's `startup` (this rank's; a collective) and `serial`, the
/// work done once before the ranks started, if counted (on the critical path).
///
/// # Errors
/// Transport errors; the ranks' accounts not lining up.
pub fn start<C: Comm + ?Sized>(
    comm: &C,
    startup: &RankCpu,
    serial: Option<&CpuLaps>,
) -> Result<RunCpu> {
    let mut account = RunCpu::new(&gather_cpu(comm, startup)?);
    for &(phase, seconds) in serial.map_or(&[][..], |s| s.segments()) {
        account.add_serial(phase, seconds)?;
    }
    Ok(account)
}

/// Adds a step whose report holds this rank's `cpu` (a collective).
///
/// # Errors
/// As [`start`].
pub fn add_step<C: Comm + ?Sized>(comm: &C, account: &mut RunCpu, cpu: &RankCpu) -> Result<()> {
    account.add_step(&gather_cpu(comm, cpu)?);
    Ok(())
}

/// Adds work done between steps whose account holds this rank's `cpu` (a solver's flow; a
/// collective).
///
/// # Errors
/// As [`start`].
pub fn add_between_steps<C: Comm + ?Sized>(
    comm: &C,
    account: &mut RunCpu,
    cpu: &RankCpu,
) -> Result<()> {
    account.add_between_steps(&gather_cpu(comm, cpu)?);
    Ok(())
}

/// `summary.md`'s line of the account.
pub fn summary_line(account: &RunCpu) -> String {
    format!(
        "\nCPU: critical path {:.3} s, Σ over ranks {:.3} s, start-up {:.0} %\n",
        account.critical_path_s(),
        account.cpu_s(),
        100.0 * account.startup_share()
    )
}
