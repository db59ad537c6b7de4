//! HybridLB's options ([`HierOptions`]).

use serde::Serialize;

use super::strategies::{Pick, Strategy};

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
    /// How a full domain under a semi-centralized parent picks what it sends away (not
    /// written: only the mesh's balancers set it).
    #[serde(skip)]
    pub pick: Pick,
}

impl Default for HierOptions {
    /// GreedyLB at the lowest level, no reduction, the SP2's 36 MB/s.
    fn default() -> Self {
        HierOptions {
            strategy: Strategy::Greedy,
            max_objects: None,
            max_bytes: None,
            bandwidth: crate::sim::Machine::default().bandwidth,
            pick: Pick::Heaviest,
        }
    }
}
