//! CPU accounting of ranks (`docs/performance.md`): what
//! each rank's CPU clock counted in each phase of a step or of start-up, and the measures
//! drawn from it.
//!
//! A rank's work is cut into *segments* at every collective (where ranks wait for each other)
//! and at every change of phase; every rank makes the same collectives in the same order, so
//! segment `k` is the same stretch of the program on every rank. With `t[p][k]` rank p's CPU
//! seconds in segment k:
//!
//! - a phase's **per-rank seconds** are `Σ_{k in phase} t[p][k]`, their **max** and **sum**
//!   over ranks;
//! - its **critical path** is `Σ_{k in phase} max_p t[p][k]`: on P dedicated cores with free
//!   messages the phase cannot take less. Hence `max ≤ critical ≤ sum` for every phase;
//! - a step's critical path is the sum of its phases'; a run's, start-up's plus its steps';
//! - **speed-up at P** = CPU seconds of the P = 1 run / critical path at P; **work inflation**
//!   = CPU seconds summed over ranks at P / CPU seconds at P = 1.
//!
//! ```
//! use plume::metrics::{CpuAccount, Phase, RankCpu};
//! // Rank 0 is slow in the first closure round, rank 1 in the second.
//! let r0 = RankCpu::from_segments(vec![(Phase::Close, 3.0), (Phase::Close, 1.0)]);
//! let r1 = RankCpu::from_segments(vec![(Phase::Close, 1.0), (Phase::Close, 2.0)]);
//! let account = CpuAccount::from_ranks(&[r0, r1]).unwrap();
//! let close = &account.phases[&Phase::Close];
//! assert_eq!(close.per_rank_s, vec![4.0, 3.0]);
//! assert_eq!((close.max_s, close.critical_s, close.sum_s), (4.0, 5.0, 7.0));
//! assert_eq!(account.critical_path_s(), 5.0);
//! ```

use crate::{Error, Result};
use std::collections::BTreeMap;

/// A phase of start-up or of a step, in the order they run (`serde`: snake case).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Start-up: reading the mesh file (done by the caller, before the ranks or on them).
    Read,
    /// Start-up: the initial mesh's topology and checks (`InitialMesh::new`).
    Topology,
    /// Start-up: the first partition of the roots (rank 0's dual graph and partitioner, the
    /// broadcast of the owners).
    FirstPartition,
    /// Start-up: the rank's forest of the roots it owns.
    Forest,
    /// Step: marking the leaves.
    Mark,
    /// Step: coarsening and its exchanges.
    Coarsen,
    /// Step: the distributed closure, round by round.
    Close,
    /// Step: predicting the weights and gathering them on rank 0.
    Predict,
    /// Step: balancing (rank 0's partitioner, similarity matrix and remap; the broadcast).
    Balance,
    /// Step: migration (packing, the all-to-all, unpacking).
    Migrate,
    /// Step: subdivision.
    Subdivide,
    /// Step: the weights after subdivision, gathered on rank 0.
    Weights,
    /// Step: summing the step's numbers over ranks.
    Sums,
    /// Between steps, a solver's own phase ([`crate::dist::Run::account`]): its time step,
    /// the local bound and the reduction over ranks.
    TimeStep,
    /// Between steps, a solver's own phase: its fluxes and updates of the leaves held here.
    Flux,
    /// Between steps: the exchange of the ghosts' data ([`crate::dist::Run::refresh_halo`]).
    Halo,
    /// Between steps, a solver's own phase: what it rebuilds after a step (its halo and
    /// geometry, its checks of the totals).
    Rebuild,
    /// Between steps: a processing level ([`crate::dist::Run::process`]).
    Process,
}

impl Phase {
    /// Whether the phase belongs to start-up rather than to a step.
    pub fn is_startup(self) -> bool {
        self <= Phase::Forest
    }
}

/// One rank's CPU seconds, segment by segment (see the module doc), in program order.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RankCpu {
    segments: Vec<(Phase, f64)>,
}

impl RankCpu {
    /// A rank's account from its segments in program order.
    pub fn from_segments(segments: Vec<(Phase, f64)>) -> RankCpu {
        RankCpu { segments }
    }

    /// The segments, in program order.
    pub fn segments(&self) -> &[(Phase, f64)] {
        &self.segments
    }

    /// Seconds spent in `phase`.
    pub fn seconds(&self, phase: Phase) -> f64 {
        self.segments
            .iter()
            .filter(|(p, _)| *p == phase)
            .map(|(_, s)| s)
            .sum()
    }

    /// Seconds per phase (only the phases the rank went through).
    pub fn by_phase(&self) -> BTreeMap<Phase, f64> {
        let mut by = BTreeMap::new();
        for &(phase, s) in &self.segments {
            *by.entry(phase).or_insert(0.0) += s;
        }
        by
    }

    /// Seconds over every phase.
    pub fn total(&self) -> f64 {
        self.segments.iter().map(|(_, s)| s).sum()
    }
}

/// One phase over all ranks.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct PhaseCpu {
    /// Each rank's CPU seconds in the phase, indexed by rank.
    pub per_rank_s: Vec<f64>,
    /// The largest of `per_rank_s`.
    pub max_s: f64,
    /// The sum of `per_rank_s`: the phase's work.
    pub sum_s: f64,
    /// The phase's critical path: the sum over its segments of the largest rank's seconds
    /// (`max_s ≤ critical_s ≤ sum_s`).
    pub critical_s: f64,
}

impl PhaseCpu {
    /// Adds `other` (the same phase at a later step, or an account of as many ranks).
    fn add(&mut self, other: &PhaseCpu) {
        if self.per_rank_s.len() < other.per_rank_s.len() {
            self.per_rank_s.resize(other.per_rank_s.len(), 0.0);
        }
        for (a, b) in self.per_rank_s.iter_mut().zip(&other.per_rank_s) {
            *a += b;
        }
        self.max_s = self.per_rank_s.iter().copied().fold(0.0, f64::max);
        self.sum_s += other.sum_s;
        self.critical_s += other.critical_s;
    }
}

/// The CPU account of one step (or of start-up) over all ranks, per phase.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CpuAccount {
    /// The phases the ranks went through.
    pub phases: BTreeMap<Phase, PhaseCpu>,
}

impl CpuAccount {
    /// The account from every rank's segments, indexed by rank.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there is no rank, the ranks' segments do not line up (a
    /// different number, or a different phase at the same place: they did not make the same
    /// collectives), or a value is negative or not finite.
    pub fn from_ranks(ranks: &[RankCpu]) -> Result<CpuAccount> {
        let Some(first) = ranks.first() else {
            return Err(Error::Invalid("cpu account: no rank".into()));
        };
        let nranks = ranks.len();
        for (p, rank) in ranks.iter().enumerate() {
            if rank.segments.len() != first.segments.len() {
                return Err(Error::Invalid(format!(
                    "cpu account: rank {p} has {} segments, rank 0 has {}: the ranks did not \
                     make the same collectives",
                    rank.segments.len(),
                    first.segments.len()
                )));
            }
            for (k, (&(phase, s), &(phase0, _))) in
                rank.segments.iter().zip(&first.segments).enumerate()
            {
                if phase != phase0 {
                    return Err(Error::Invalid(format!(
                        "cpu account: segment {k} is {phase:?} on rank {p} but {phase0:?} on \
                         rank 0"
                    )));
                }
                if !s.is_finite() || s < 0.0 {
                    return Err(Error::Invalid(format!(
                        "cpu account: rank {p} counted {s} s in segment {k} ({phase:?})"
                    )));
                }
            }
        }
        let mut phases: BTreeMap<Phase, PhaseCpu> = BTreeMap::new();
        for (k, &(phase, _)) in first.segments.iter().enumerate() {
            let entry = phases.entry(phase).or_insert_with(|| PhaseCpu {
                per_rank_s: vec![0.0; nranks],
                ..PhaseCpu::default()
            });
            let mut largest = 0.0f64;
            for (p, rank) in ranks.iter().enumerate() {
                let s = rank.segments[k].1;
                entry.per_rank_s[p] += s;
                largest = largest.max(s);
            }
            entry.critical_s += largest;
        }
        for phase in phases.values_mut() {
            phase.max_s = phase.per_rank_s.iter().copied().fold(0.0, f64::max);
            phase.sum_s = phase.per_rank_s.iter().sum();
        }
        Ok(CpuAccount { phases })
    }

    /// The critical path: the sum of the phases'.
    pub fn critical_path_s(&self) -> f64 {
        self.phases.values().map(|p| p.critical_s).sum()
    }

    /// CPU seconds summed over ranks and phases.
    pub fn cpu_s(&self) -> f64 {
        self.phases.values().map(|p| p.sum_s).sum()
    }
}

/// The CPU account of a whole run: start-up's and the steps' summed, phase by phase. This is
/// what a report writes as `measured` (its `Serialize` form adds the totals).
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct RunCpu {
    /// Start-up's phases and, after the first step, the steps' summed over steps.
    pub phases: BTreeMap<Phase, PhaseCpu>,
    /// The critical path of each step, in order.
    pub step_critical_path_s: Vec<f64>,
}

impl RunCpu {
    /// A run's account from its start-up's.
    pub fn new(startup: &CpuAccount) -> RunCpu {
        let mut run = RunCpu::default();
        run.add(startup);
        run
    }

    /// Adds a step's account.
    pub fn add_step(&mut self, step: &CpuAccount) {
        self.add(step);
        self.step_critical_path_s.push(step.critical_path_s());
    }

    /// Adds `seconds` of work in `phase` done once, by rank 0 or before the ranks started
    /// (reading the mesh once for thread ranks that share it): it lies on the critical path.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `seconds` is negative or not finite.
    pub fn add_serial(&mut self, phase: Phase, seconds: f64) -> Result<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(Error::Invalid(format!(
                "cpu account: {seconds} s of serial {phase:?}"
            )));
        }
        let nranks = self.phases.values().map(|p| p.per_rank_s.len()).max();
        let mut per_rank_s = vec![0.0; nranks.unwrap_or(1).max(1)];
        per_rank_s[0] = seconds;
        let serial = PhaseCpu {
            per_rank_s,
            max_s: seconds,
            sum_s: seconds,
            critical_s: seconds,
        };
        self.phases.entry(phase).or_default().add(&serial);
        Ok(())
    }

    /// Adds the account of work done between steps (a solver's flow, a processing level;
    /// [`crate::dist::Run::account`]): its phases count in the run's, no step's.
    pub fn add_between_steps(&mut self, work: &CpuAccount) {
        self.add(work);
    }

    fn add(&mut self, account: &CpuAccount) {
        for (&phase, cpu) in &account.phases {
            self.phases.entry(phase).or_default().add(cpu);
        }
    }

    /// The run's critical path: start-up's plus every step's.
    pub fn critical_path_s(&self) -> f64 {
        self.phases.values().map(|p| p.critical_s).sum()
    }

    /// CPU seconds summed over ranks, phases and steps.
    pub fn cpu_s(&self) -> f64 {
        self.phases.values().map(|p| p.sum_s).sum()
    }

    /// Start-up's critical path.
    pub fn startup_critical_path_s(&self) -> f64 {
        self.phases
            .iter()
            .filter(|(p, _)| p.is_startup())
            .map(|(_, c)| c.critical_s)
            .sum()
    }

    /// Start-up's share of the run's critical path (0 when the run took no time).
    pub fn startup_share(&self) -> f64 {
        let total = self.critical_path_s();
        if total > 0.0 {
            self.startup_critical_path_s() / total
        } else {
            0.0
        }
    }

    /// Speed-up at this run's P over a P = 1 run that took `serial_cpu_s` CPU seconds:
    /// `serial_cpu_s / critical path` (`None` when this run's critical path is zero).
    pub fn speed_up(&self, serial_cpu_s: f64) -> Option<f64> {
        let path = self.critical_path_s();
        (path > 0.0).then(|| serial_cpu_s / path)
    }

    /// Work inflation over a P = 1 run that took `serial_cpu_s` CPU seconds: this run's CPU
    /// seconds summed over ranks / `serial_cpu_s` (`None` when `serial_cpu_s` is zero).
    pub fn work_inflation(&self, serial_cpu_s: f64) -> Option<f64> {
        (serial_cpu_s > 0.0).then(|| self.cpu_s() / serial_cpu_s)
    }
}

/// `measured` in `metrics.json`: the totals first, then every phase.
impl serde::Serialize for RunCpu {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("RunCpu", 6)?;
        m.serialize_field("critical_path_s", &self.critical_path_s())?;
        m.serialize_field("cpu_s", &self.cpu_s())?;
        m.serialize_field("startup_critical_path_s", &self.startup_critical_path_s())?;
        m.serialize_field("startup_share", &self.startup_share())?;
        m.serialize_field("step_critical_path_s", &self.step_critical_path_s)?;
        m.serialize_field("phases", &self.phases)?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(segments: &[(Phase, f64)]) -> RankCpu {
        RankCpu::from_segments(segments.to_vec())
    }

    #[test]
    fn ranks_whose_segments_do_not_line_up_are_refused() {
        let a = rank(&[(Phase::Close, 1.0), (Phase::Close, 1.0)]);
        let fewer = rank(&[(Phase::Close, 1.0)]);
        let other = rank(&[(Phase::Close, 1.0), (Phase::Predict, 1.0)]);
        let negative = rank(&[(Phase::Close, 1.0), (Phase::Close, -1.0)]);
        for b in [fewer, other, negative] {
            assert!(CpuAccount::from_ranks(&[a.clone(), b]).is_err());
        }
        assert!(CpuAccount::from_ranks(&[]).is_err());
    }

    #[test]
    fn a_run_worked_by_hand() {
        // Start-up: rank 0 partitions alone (2 s) while rank 1 waits, then both build their
        // forests (1 s and 3 s). One step: marking, 1 s each.
        let startup = CpuAccount::from_ranks(&[
            rank(&[(Phase::FirstPartition, 2.0), (Phase::Forest, 1.0)]),
            rank(&[(Phase::FirstPartition, 0.0), (Phase::Forest, 3.0)]),
        ])
        .unwrap();
        let step =
            CpuAccount::from_ranks(&[rank(&[(Phase::Mark, 1.0)]), rank(&[(Phase::Mark, 1.0)])])
                .unwrap();
        let mut run = RunCpu::new(&startup);
        run.add_step(&step);
        run.add_serial(Phase::Read, 1.0).unwrap();
        assert_eq!(run.critical_path_s(), 1.0 + 2.0 + 3.0 + 1.0);
        assert_eq!(run.cpu_s(), 1.0 + 2.0 + 4.0 + 2.0);
        assert_eq!(run.startup_critical_path_s(), 6.0);
        assert_eq!(run.startup_share(), 6.0 / 7.0);
        assert_eq!(run.step_critical_path_s, vec![1.0]);
        assert_eq!(run.phases[&Phase::Read].per_rank_s, vec![1.0, 0.0]);
        // The same work on one rank took 7 s.
        assert_eq!(run.speed_up(7.0), Some(1.0));
        assert_eq!(run.work_inflation(7.0), Some(9.0 / 7.0));
        assert!(run.add_serial(Phase::Read, f64::NAN).is_err());
        let json = serde_json::to_value(&run).unwrap();
        assert_eq!(json["critical_path_s"], 7.0);
        assert_eq!(json["phases"]["forest"]["max_s"], 3.0);
    }
}
