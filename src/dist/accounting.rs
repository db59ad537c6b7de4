//! Per-rank CPU accounting of a [`Run`](super::Run)'s start-up and steps
//! ([`crate::metrics::RankCpu`]): the run's transport is wrapped so that every collective,
//! and every change of phase, reads the rank's CPU clock ([`Comm::cpu_clock`]) once and closes
//! a segment. Outside start-up and steps (processing levels, the halo, probes) nothing is
//! recorded and the wrapper only forwards, unless the caller accounts its own phases there
//! ([`Run::account`](super::Run::account)).

use crate::comm::{Comm, CommExt, CpuClock, Message, ReduceOp, Tag};
use crate::metrics::{CpuAccount, Phase, RankCpu};
use crate::{Error, Result};
use std::cell::RefCell;
use std::time::Duration;

/// A stopwatch on a CPU clock whose laps each count for a phase: the segments a
/// [`RankCpu`] is made of. The run's transport keeps one per rank; a caller times work done
/// once before the ranks start (reading a mesh) with one on [`CpuClock::Process`].
#[derive(Debug, Clone)]
pub struct CpuLaps {
    clock: CpuClock,
    since: Duration,
    segments: Vec<(Phase, f64)>,
}

impl CpuLaps {
    /// Starts timing on `clock`.
    pub fn start(clock: CpuClock) -> CpuLaps {
        CpuLaps {
            clock,
            since: clock.now(),
            segments: Vec::new(),
        }
    }

    /// Ends a lap here (one clock read): the seconds since the last lap (or the start) count
    /// for `phase`.
    pub fn lap(&mut self, phase: Phase) {
        let now = self.clock.now();
        self.segments
            .push((phase, now.saturating_sub(self.since).as_secs_f64()));
        self.since = now;
    }

    /// The laps so far, in order.
    pub fn segments(&self) -> &[(Phase, f64)] {
        &self.segments
    }
}

/// The laps recorded so far and the phase of the open one.
struct Recording {
    laps: CpuLaps,
    phase: Phase,
}

/// A transport that accounts the rank's CPU time between its collectives (see the module doc).
pub(crate) struct Accounted<'c, C: Comm + ?Sized> {
    inner: &'c C,
    clock: CpuClock,
    recording: RefCell<Option<Recording>>,
}

impl<'c, C: Comm + ?Sized> Accounted<'c, C> {
    /// `inner`, not recording.
    pub(crate) fn new(inner: &'c C) -> Self {
        Accounted {
            inner,
            clock: inner.cpu_clock(),
            recording: RefCell::new(None),
        }
    }

    /// The transport underneath.
    pub(crate) fn inner(&self) -> &'c C {
        self.inner
    }

    /// Starts recording (dropping anything recorded and not taken) with `phase` open.
    pub(crate) fn start(&self, phase: Phase) {
        *self.recording.borrow_mut() = Some(Recording {
            laps: CpuLaps::start(self.clock),
            phase,
        });
    }

    /// Closes the open segment and opens one of `phase` (nothing when not recording).
    pub(crate) fn enter(&self, phase: Phase) {
        self.cut(Some(phase));
    }

    /// [`Accounted::enter`] when recording, else [`Accounted::start`]: the caller's phases
    /// between steps, recorded until [`Accounted::take`].
    pub(crate) fn account(&self, phase: Phase) {
        let recording = self.recording.borrow().is_some();
        if recording {
            self.enter(phase);
        } else {
            self.start(phase);
        }
    }

    /// Closes the open segment and stops recording: this rank's account since
    /// [`Accounted::start`] (empty when not recording).
    pub(crate) fn take(&self) -> RankCpu {
        self.cut(None);
        let segments = self.recording.borrow_mut().take().map(|r| r.laps.segments);
        RankCpu::from_segments(segments.unwrap_or_default())
    }

    /// Closes the open segment (one clock read) and opens the next, of `next` or of the same
    /// phase.
    fn cut(&self, next: Option<Phase>) {
        if let Some(r) = self.recording.borrow_mut().as_mut() {
            r.laps.lap(r.phase);
            r.phase = next.unwrap_or(r.phase);
        }
    }
}

impl<C: Comm + ?Sized> Comm for Accounted<'_, C> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }

    fn size(&self) -> usize {
        self.inner.size()
    }

    fn barrier(&self) -> Result<()> {
        self.cut(None);
        self.inner.barrier()
    }

    fn all_gather_bytes(&self, bytes: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        self.cut(None);
        self.inner.all_gather_bytes(bytes)
    }

    fn all_to_all_bytes(&self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        self.cut(None);
        self.inner.all_to_all_bytes(outgoing)
    }

    fn broadcast_bytes(&self, root: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        self.cut(None);
        self.inner.broadcast_bytes(root, bytes)
    }

    fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Result<Vec<u64>> {
        self.cut(None);
        self.inner.all_reduce_u64(values, op)
    }

    fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Result<Vec<f64>> {
        self.cut(None);
        self.inner.all_reduce_f64(values, op)
    }

    fn agree_on_failure(&self, failure: Option<&Error>) -> Result<()> {
        self.cut(None);
        self.inner.agree_on_failure(failure)
    }

    fn send(&self, dest: usize, tag: Tag, bytes: Vec<u8>) -> Result<()> {
        self.inner.send(dest, tag, bytes)
    }

    fn try_receive(&self) -> Result<Option<Message>> {
        self.inner.try_receive()
    }

    fn receive(&self) -> Result<Message> {
        self.inner.receive()
    }

    fn cpu_clock(&self) -> CpuClock {
        self.clock
    }
}

/// Every rank's `cpu` (a [`StepReport`](super::StepReport)'s or
/// [`Run::startup_cpu`](super::Run::startup_cpu)) gathered into one account, equal on every
/// rank (a collective).
///
/// # Errors
/// Transport errors; [`CpuAccount::from_ranks`]'s (the same on every rank).
pub fn gather_cpu<C: Comm + ?Sized>(comm: &C, cpu: &RankCpu) -> Result<CpuAccount> {
    CpuAccount::from_ranks(&comm.all_gather_serde(cpu)?)
}
