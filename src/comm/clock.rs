//! The CPU clock a rank reads to account for its own work (`docs/performance.md`): CPU time, unlike
//! wall time, does not grow while a rank waits in a collective on threads, nor while other jobs
//! hold the machine's cores.

use std::time::Duration;

/// Which CPU clock measures one rank's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuClock {
    /// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): a thread rank's own work,
    /// not its siblings' nor that of helper threads (rayon's pool) it hands work to.
    Thread,
    /// The whole process's CPU time (`CLOCK_PROCESS_CPUTIME_ID`): an MPI rank is a process,
    /// its helper threads included. MPI libraries poll while a rank waits in a blocking call,
    /// so under MPI this counts waiting too.
    Process,
}

impl CpuClock {
    /// The CPU time this clock has counted so far (one `clock_gettime` call).
    ///
    /// # Panics
    /// If the system refuses the clock (Linux always provides both).
    pub fn now(self) -> Duration {
        let id = match self {
            CpuClock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
            CpuClock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
        };
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec for the call to fill.
        let status = unsafe { libc::clock_gettime(id, &mut t) };
        assert_eq!(status, 0, "clock_gettime refused the {self:?} CPU clock");
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::CpuClock;

    #[test]
    fn both_clocks_count_work_and_never_go_back() {
        for clock in [CpuClock::Thread, CpuClock::Process] {
            let before = clock.now();
            let mut x = 1u64;
            for i in 0..2_000_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
            std::hint::black_box(x);
            assert!(clock.now() > before, "{clock:?}");
        }
    }
}
