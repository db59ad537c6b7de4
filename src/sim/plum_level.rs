//! One adaptation level processed with a static assignment after a PLUM balance, on the
//! simulated machine: everybody waits for the remap (its time is set by `MaxSR`: the busiest
//! sender packs, then the busiest receiver unpacks), then each processor processes its roots
//! with all their data local.

use super::{Machine, TimeSplit};
use crate::metrics::{CostModel, Movement};
use crate::partition::Grid;

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
    plum_level_over(model, machine, owner, procs, (movement, movement), overhead)
}

/// [`plum_level`] on a machine whose links are slower between some processors (a grid of
/// clusters): `(movement, over_links)` are the elements that moved and the same flows with
/// each tree's elements multiplied by the `Connect` slowdown of the link it crossed. The
/// remap's flight time is that of `over_links`' `MaxSR` (the busiest sender's plus the busiest
/// receiver's slowed elements), its packing that of `movement`'s (packing is processor time,
/// not link time). With `over_links` = `movement` it is [`plum_level`], bit for bit.
pub fn plum_level_over(
    model: &CostModel,
    machine: &Machine,
    owner: &[u32],
    procs: usize,
    (movement, over_links): (&Movement, &Movement),
    overhead: f64,
) -> PlumLevel {
    let remap = if movement.total_v > 0 {
        let flight = machine.flight(over_links.max_sr as f64 * machine.element_bytes);
        overhead + (flight + movement.max_sr as f64 * machine.t_pack)
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

/// The flows of a move from `start` to `owner` with `moving[v]` elements in root v's tree,
/// each tree's elements multiplied by the `Connect` slowdown of the link it crossed on
/// `grid` (the remap's flight time on a clustered machine: [`plum_level_over`]).
pub fn flows_over_links(grid: &Grid, (start, owner, moving): (&[u32], &[u32], &[u64])) -> Movement {
    let slowed: Vec<u64> = (start.iter().zip(owner).zip(moving))
        .map(|((&o, &a), &m)| m * u64::from(grid.connect(o, a)))
        .collect();
    Movement::new(start, owner, &slowed, grid.nprocs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::partition::Grid;

    #[test]
    fn flows_over_links_slow_only_what_crosses_clusters() {
        // Processors 0, 1 in cluster 0 and 2, 3 in cluster 1; Connect 10 between them.
        let grid = Grid::even(4, 2, 10).unwrap();
        let (start, owner, moving) = ([0, 0, 2, 3], [1, 2, 2, 3], [5, 7, 1, 1]);
        let m = flows_over_links(&grid, (&start, &owner, &moving));
        // Root 0 stays in cluster 0 (5 elements), root 1 crosses (7 · 10).
        assert_eq!((m.sent[0], m.recv[1], m.recv[2]), (75, 5, 70));
        assert_eq!(m.max_sr, 75 + 70);
        let uniform = Grid::even(4, 2, 1).unwrap();
        let plain = Movement::new(&start, &owner, &moving, 4);
        assert_eq!(flows_over_links(&uniform, (&start, &owner, &moving)), plain);
    }

    use crate::graph::Weights;

    #[test]
    fn slower_links_lengthen_only_the_remaps_flight() {
        // Two roots, no edge; root 0 moves 0 → 1 with 10 elements.
        let w = Weights {
            pwgt: vec![2, 3],
            rwgt: vec![10, 1],
            cwgt: vec![],
        };
        let model = CostModel::new(&[0, 0, 0], &[], &w);
        let machine = Machine {
            t_pack: 1e-3,
            ..Machine::default()
        };
        let moved = Movement::new(&[0, 1], &[1, 1], &w.rwgt, 2);
        let plain = plum_level(&model, &machine, &[1, 1], 2, &moved, 0.5);
        let same = plum_level_over(&model, &machine, &[1, 1], 2, (&moved, &moved), 0.5);
        assert_eq!(plain, same, "the same flows: the same level, bit for bit");
        // The link is 10 times slower: 10 × 20 elements (sent + received) in flight.
        let slowed = Movement::new(&[0, 1], &[1, 1], &[100, 1], 2);
        let over = plum_level_over(&model, &machine, &[1, 1], 2, (&moved, &slowed), 0.5);
        let flight = |elements: f64| machine.flight(elements * machine.element_bytes);
        let expected = 0.5 + flight(200.0) + 20.0 * machine.t_pack;
        assert_eq!(over.remap, expected);
        assert!(over.remap > plain.remap);
        assert_eq!(over.makespan - over.remap, plain.makespan - plain.remap);
    }
}
