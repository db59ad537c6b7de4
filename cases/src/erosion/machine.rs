//! The modelled machine of the erosion runs: every time is computed from counts, never read
//! from a clock, so a run is the same bit for bit on any machine.
//!
//! - A step of rank p takes `work_p / ω + halo_p · face_bytes / bandwidth`: its fluid leaves
//!   at `ω` leaf updates per second, plus the exchange of the leaf faces it shares with other
//!   ranks (`CWgt` of its cut dual edges).
//! - A balance costs `fixed + MaxSR · element_bytes / bandwidth`: the partitioning and its
//!   broadcast, plus the busiest sender's and receiver's elements (`RWgt`) moved.

use plume::graph::DualGraph;
use plume::metrics::CostModel;

/// The machine's constants.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Machine {
    /// `ω`: fluid leaf updates per second of one rank.
    pub omega: f64,
    /// Bytes exchanged per shared leaf face per step.
    pub face_bytes: f64,
    /// Bytes per second of a link.
    pub bandwidth: f64,
    /// Fixed cost of a balance (partition and broadcast), seconds.
    pub balance_fixed: f64,
    /// Bytes of one migrated element.
    pub element_bytes: f64,
}

impl Default for Machine {
    /// 10⁶ leaf updates per second (1 µs per leaf, a finite-volume update), 40-byte faces
    /// (five doubles), 1 GB/s links, 5 ms per balance (about one step of a 5,000-leaf stripe)
    /// plus 64 bytes per element moved.
    fn default() -> Self {
        Machine {
            omega: 1e6,
            face_bytes: 40.0,
            bandwidth: 1e9,
            balance_fixed: 5e-3,
            element_bytes: 64.0,
        }
    }
}

impl Machine {
    /// Modelled time of one step on every rank, from its fluid work and the shared faces of
    /// the roots it owns (`owner`).
    pub fn step_times(&self, work: &[u64], graph: &DualGraph, owner: &[u32]) -> Vec<f64> {
        let mut times: Vec<f64> = work.iter().map(|&w| w as f64 / self.omega).collect();
        let cost = CostModel::of(graph);
        for (v, &p) in owner.iter().enumerate() {
            let halo = cost.comm(v as u32, p, owner);
            times[p as usize] += halo * self.face_bytes / self.bandwidth;
        }
        times
    }

    /// Seconds of one fluid leaf update, `1 / ω`: a root's load per unit of fluid work.
    pub fn time_per_leaf(&self) -> f64 {
        1.0 / self.omega
    }

    /// Modelled cost of a balance moving `max_sr` elements (max sent + max received).
    pub fn balance_cost(&self, max_sr: u64) -> f64 {
        self.balance_fixed + max_sr as f64 * self.element_bytes / self.bandwidth
    }
}
