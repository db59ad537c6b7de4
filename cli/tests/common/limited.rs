//! Runs of `plume` within a memory limit: its address space capped (`ulimit -v`, set in the
//! child before it starts), reaped with `wait4` for its peak memory.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

/// What one run of `plume` gave.
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// What it printed on stderr.
    pub stderr: String,
    /// Its peak resident set size, in kilobytes.
    pub max_rss_kb: i64,
}

/// Runs `plume args…` in its own process, with its address space limited to `limit` bytes
/// (`ulimit -v`) when given, and reaps it with `wait4` for its peak memory. A limited run
/// keeps glibc to two malloc arenas: each thread's arena reserves 64 MB of address space, so
/// that on a many-core machine the thread pool alone would exhaust a few hundred MB before
/// plume allocates anything (seen: `compare shock` aborting under 512 MB with 8 threads).
#[allow(clippy::zombie_processes)] // reaped by wait4, which std does not see
pub fn plume(args: &[&str], limit: Option<u64>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plume"));
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    if let Some(bytes) = limit {
        cmd.env("MALLOC_ARENA_MAX", "2");
        let rlimit = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        };
        // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_AS, &rlimit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let mut child = cmd.spawn().expect("start plume");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet reaped (std never waited for it).
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    let status = std::process::ExitStatus::from_raw(status);
    Run {
        code: status
            .code()
            .unwrap_or_else(|| panic!("plume {args:?} was killed by a signal: {stderr}")),
        stderr,
        max_rss_kb: usage.ru_maxrss,
    }
}
