//! What every processor reads and none changes: the balancer's options ([`SbnOptions`], the
//! [`Variant`] among them) and [`Shared`], the costs, the network and the mean job weight.

use crate::balance::sbn::network::{Network, Pattern, Template};
use crate::balance::sbn::policy::{Policies, Units};
use crate::balance::sbn::select::Selection;
use crate::balance::sbn::thresholds::WeightThresholds;
use crate::metrics::{CostModel, CostScales};

/// Which SBN algorithm balances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Variant {
    /// Gathers the exact total over the whole network (fig. 5).
    Basic,
    /// Stops at the first processor loaded enough, estimating the level (fig. 8).
    Heuristic,
}

/// The SBN balancer's options.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SbnOptions {
    /// Basic or Heuristic.
    pub variant: Variant,
    /// `ConstParam` of `UpdateLoad` ([Harvey 2001] found 2 best).
    pub const_param: u64,
    /// Jobs processed between two checks for messages (`J_avg / f` of §5.7's `MinTh` bound).
    pub jobs_per_check: f64,
    /// How roots to give away are chosen.
    pub selection: Selection,
    /// [Harvey 2001]'s explicit choices, or plume's named alternatives.
    pub policies: Policies,
    /// Run the pre-partitioner (§5.6) before each level.
    pub prepartition: bool,
    /// Seed of the random pattern and sample choices.
    pub seed: u64,
}

impl Default for SbnOptions {
    fn default() -> Self {
        SbnOptions {
            variant: Variant::Basic,
            const_param: 2,
            jobs_per_check: 1.0,
            selection: Selection::default(),
            policies: Policies::default(),
            prepartition: false,
            seed: 1,
        }
    }
}

/// What every processor shares: the costs, the network, the options. Its size does not
/// grow with P (patterns are computed on demand, [`Network::pattern`]).
#[derive(Debug)]
pub struct Shared<'a> {
    /// Weights and graph, in the machine's unit (what processing really costs).
    pub model: CostModel<'a>,
    /// The same costs in the balancer's unit ([`Units`]): what the processors weigh.
    pub costs: CostModel<'a>,
    /// The SBN over the processors.
    pub network: Network,
    /// Options.
    pub opts: SbnOptions,
    /// Mean weight of a job (`Wgt` per root), converting job thresholds into weights.
    pub job_weight: f64,
}

impl<'a> Shared<'a> {
    /// The shared state of `procs` processors balancing the roots of `model`; the processors
    /// weigh them in `model`'s unit or in [Harvey 2001]'s ([`Units`]).
    pub fn new(model: CostModel<'a>, procs: usize, opts: SbnOptions) -> Self {
        let network = Network::with_topology(procs, opts.policies.topology);
        let costs = match opts.policies.units {
            Units::Seed => model.with_scales(CostScales::default()),
            Units::Machine => model,
        };
        let n = costs.weights.pwgt.len();
        let total: f64 = (0..n as u32).map(|v| costs.wgt(v, 0)).sum();
        let job_weight = if total > 0.0 { total / n as f64 } else { 1.0 };
        Shared {
            model,
            costs,
            network,
            opts,
            job_weight,
        }
    }

    /// The pattern rooted at `source` for `template`.
    pub fn pattern(&self, source: u32, template: Template) -> Pattern {
        self.network.pattern(source as usize, template)
    }

    /// The thresholds for a system level (weights).
    pub fn thresholds(&self, sys_ll: f64) -> WeightThresholds {
        WeightThresholds::new(
            sys_ll,
            self.job_weight,
            self.network.procs(),
            self.opts.const_param,
            self.opts.jobs_per_check,
        )
    }
}
