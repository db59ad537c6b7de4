//! One adaptation level processed with a static assignment after a PLUM balance, on the
//! simulated machine: everybody waits for the remap (its time is set by `MaxSR`: the busiest
//! sender packs, then the busiest receiver unpacks), then each processor processes its roots
//! with all their data local.

use super::{Machine, TimeSplit};
use crate::metrics::{CostModel, Movement};

/// What one level under PLUM took.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PlumLevel {
    /// Simulated time of the remap, seconds (0 when nothing moved).
    pub remap: f64,
    /// Remap plus the slowest processor's processing, seconds.
    pub makespan: f64,
    /// Processor time by activity, summed over processors.
    pub split: TimeSplit,
}

/// Simulates a level processed on `owner` (`procs` processors) after a remap that moved
/// `movement` (`RWgt`), with a fixed `overhead` (seconds: partitioning and set-up) when a
/// remap happened. Processing and communication cost what `model` says (seconds: build it with
/// [`Machine::cost_model`]).
pub fn plum_level(
    model: &CostModel,
    machine: &Machine,
    owner: &[u32],
    procs: usize,
    movement: &Movement,
    overhead: f64,
) -> PlumLevel {
    let remap = if movement.total_v > 0 {
        overhead + machine.transfer(movement.max_sr as f64)
    } else {
        0.0
    };
    let work = super::processing_times(model, owner, procs);
    let mut comm = vec![0.0; procs];
    for (v, &p) in owner.iter().enumerate() {
        comm[p as usize] += model.comm(v as u32, p, owner);
    }
    let slowest = (0..procs).map(|p| work[p] + comm[p]).fold(0.0, f64::max);
    let makespan = remap + slowest;
    let mut split = TimeSplit {
        processing: work.iter().sum(),
        communication: comm.iter().sum(),
        distribution: remap * procs as f64,
        idle: 0.0,
    };
    split.idle =
        (procs as f64 * makespan - split.processing - split.communication - split.distribution)
            .max(0.0);
    PlumLevel {
        remap,
        makespan,
        split,
    }
}
