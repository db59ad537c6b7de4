//! The hierarchical balancer as the cases set it ([`HierSettings`]: `--tree` and
//! `--hier-strategy`), one wiring for every case that runs on ranks.

use plume::balance::hier::{Clock, HierOptions, PickRule, Strategy};
use plume::balance::{BalancePolicy, PlumOptions};
use plume::dist::Hierarchical;
use plume::partition::Partitioner;
use plume::sim::HierPartitioner;
use serde::Serialize;

use crate::words::{TreeSpec, Words};

/// The hierarchical balancer's settings: its tree and the strategy of its lowest domains.
#[derive(Debug, Clone, PartialEq)]
pub struct HierSettings {
    /// The tree.
    pub tree: TreeSpec,
    /// The lowest domains' strategy.
    pub strategy: Strategy,
}

impl HierSettings {
    /// The default on `procs` ranks: [`TreeSpec::default_for`], METIS in the lowest domains
    /// (`docs/design/hierarchical.md`: on the mesh, Greedy would cut almost every face).
    pub fn new(procs: usize) -> HierSettings {
        HierSettings {
            tree: TreeSpec::default_for(procs),
            strategy: Strategy::Metis,
        }
    }

    /// The balancer on `plum.nprocs` ranks, balancing when `policy` asks with `plum`'s accept
    /// rule and cost model, `first` making the first owners; rank 0 keeps the whole graph
    /// for the records when `records`.
    ///
    /// # Errors
    /// A tree that does not fit the ranks ([`TreeSpec::build`]).
    pub fn balancer(
        &self,
        plum: PlumOptions,
        policy: Box<dyn BalancePolicy>,
        first: Box<dyn Partitioner>,
        records: bool,
    ) -> plume::Result<Hierarchical> {
        let tree = self.tree.build(plum.nprocs)?;
        let h = Hierarchical::with(tree, self.options(), plum, policy, first)?;
        Ok(if records { h.keeping_records() } else { h })
    }

    /// The balancer on `procs` processors of the simulated machine, in one process
    /// ([`HierPartitioner`], PLUM's repartitioner with the identity remap: the ranks'
    /// decisions), its phases timed by `clock`, a root's load being `PWgt · time_per_load` as
    /// on ranks.
    ///
    /// # Errors
    /// A tree that does not fit the processors ([`TreeSpec::build`]).
    pub fn simulated(
        &self,
        procs: usize,
        clock: Clock,
        time_per_load: f64,
    ) -> plume::Result<HierPartitioner> {
        let tree = self.tree.build(procs)?;
        Ok(HierPartitioner::new(
            tree,
            self.options(),
            clock,
            time_per_load,
        ))
    }

    /// HybridLB's options for the mesh: the lowest domains' strategy, and pieces picked by
    /// cut at the semi-centralized levels ([`PickRule::Cut`]: B.4's heaviest roots lie
    /// scattered over a domain, and each one sent cuts its faces twice).
    pub fn options(&self) -> HierOptions {
        HierOptions {
            strategy: self.strategy,
            pick: PickRule::Cut,
            ..HierOptions::default()
        }
    }
}

impl Serialize for HierSettings {
    /// `{"tree": "8,4", "strategy": "metis"}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("HierSettings", 2)?;
        st.serialize_field("tree", &self.tree.to_string())?;
        st.serialize_field("strategy", self.strategy.word())?;
        st.end()
    }
}
