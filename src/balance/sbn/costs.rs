//! The costs of a root on a processor as a balancing processor sees them: the one view that
//! the job queue, the choice of roots to give away and the pre-partitioner share.

use super::directory::Directory;
use crate::metrics::CostModel;

/// The costs of one root on one processor as a balancing processor sees them
/// (`docs/fields.md`): `Wgt_v`, `Comm_p^v`, `Remap_p^v`.
pub trait RootCosts {
    /// `Wgt_v`: processing cost.
    fn wgt(&self, v: u32) -> f64;
    /// `Comm_p^v`: communication with the neighbours whose data is not on p.
    fn comm(&self, v: u32, p: u32) -> f64;
    /// `Remap_p^v`: bringing v's data to p (0 when it is there).
    fn remap(&self, v: u32, p: u32) -> f64;

    /// The weight root v adds to the queue of p: `Wgt_v + Comm_p^v + Remap_p^v`.
    fn queued_weight(&self, v: u32, p: u32) -> f64 {
        self.wgt(v) + self.comm(v, p) + self.remap(v, p)
    }

    /// `ΔCut = Remap_q^v − Remap_p^v + Comm_q^v − Comm_p^v`, divided by `Wgt_v` when positive:
    /// the increase in communication and redistribution per unit of work moved (negative: the
    /// move saves).
    fn delta_cut(&self, v: u32, p: u32, q: u32) -> f64 {
        let d = self.remap(v, q) - self.remap(v, p) + self.comm(v, q) - self.comm(v, p);
        if d > 0.0 {
            d / self.wgt(v).max(f64::MIN_POSITIVE)
        } else {
            d
        }
    }
}

/// The costs of the cost model with the roots' data where `location` says (a processor's
/// location table, or the data's actual places).
#[derive(Debug, Clone, Copy)]
pub struct Located<'a> {
    /// Weights, graph and unit costs.
    pub model: &'a CostModel<'a>,
    /// `D(v)` for every root.
    pub location: &'a [u32],
}

impl RootCosts for Located<'_> {
    fn wgt(&self, v: u32) -> f64 {
        self.model.wgt(v, 0)
    }
    fn comm(&self, v: u32, p: u32) -> f64 {
        self.model.comm(v, p, self.location)
    }
    fn remap(&self, v: u32, p: u32) -> f64 {
        self.model.remap(v, p, self.location)
    }
}

/// The costs of the cost model with the roots' data where a processor's [`Directory`]
/// believes it is.
#[derive(Debug, Clone, Copy)]
pub struct Believed<'a> {
    /// Weights, graph and unit costs.
    pub model: &'a CostModel<'a>,
    /// The processor's knowledge of the data's places.
    pub directory: &'a Directory,
}

impl RootCosts for Believed<'_> {
    fn wgt(&self, v: u32) -> f64 {
        self.model.wgt(v, 0)
    }
    fn comm(&self, v: u32, p: u32) -> f64 {
        self.model.comm_with(v, p, |w| self.directory.holder(w))
    }
    fn remap(&self, v: u32, p: u32) -> f64 {
        self.model.remap_from(v, p, self.directory.holder(v))
    }
}
