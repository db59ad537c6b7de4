//! What every balancer's track is to the serial driver (`serial.rs`): [`Track`], a balancer
//! following the adaptation level by level on its own assignment. Its own file so that the
//! tracks (`plum_track.rs`, `sbn_track.rs`) and the driver that makes them do not import each
//! other.

use crate::error::Result;
use plume::adapt::Forest;
use plume::graph::{DualGraph, Weights};

use super::{LevelRecord, StageTimes};

/// A balancer following the adaptation level by level on its own assignment.
pub trait Track {
    /// The rank owning every root (after the last level: where it was processed).
    fn owner(&self) -> &[u32];
    /// After closure, before subdivision, with the predicted weights.
    fn before_subdivision(
        &mut self,
        forest: &Forest,
        graph: &DualGraph,
        predicted: &Weights,
    ) -> Result<()>;
    /// After subdivision and the weight update: finish balancing, process the level on the
    /// simulated machine, and return its record (`adapt_ms`: the adaptation's stage times).
    fn after_subdivision(
        &mut self,
        level: usize,
        forest: &Forest,
        graph: &DualGraph,
        adapt_ms: &StageTimes,
    ) -> Result<LevelRecord>;
    /// The hierarchical balancer's report of this level's balance (its databases, its phases'
    /// simulated time), when the track balances with it and balanced at this level.
    fn hier_balance(&self) -> Option<&plume::balance::hier::HierBalance> {
        None
    }
}
