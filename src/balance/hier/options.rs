//! HybridLB's options ([`HierOptions`]).

use serde::Serialize;

use super::strategies::{PickRule, Strategy};

/// Options of HybridLB.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HierOptions {
    /// The lowest level's strategy.
    pub strategy: Strategy,
    /// Table 5's rule: a domain of more objects works semi-centralized (never the lowest
    /// domains). `None`: no limit.
    pub max_objects: Option<usize>,
    /// Eq. (2)'s `M̄`: a domain whose database exceeds it drops its lightest records, then
    /// works semi-centralized (never the lowest). `None`: no limit.
    pub max_bytes: Option<u64>,
    /// Bandwidth GreedyCommLB charges messages at, bytes per second.
    pub bandwidth: f64,
    /// How an overloaded child picks what it sends at a semi-centralized level.
    pub pick: PickRule,
}

impl Default for HierOptions {
    /// GreedyLB at the lowest level, no reduction, the SP2's 36 MB/s, B.4's heaviest-first
    /// pick.
    fn default() -> Self {
        HierOptions {
            strategy: Strategy::Greedy,
            max_objects: None,
            max_bytes: None,
            bandwidth: crate::sim::Machine::default().bandwidth,
            pick: PickRule::Heaviest,
        }
    }
}
