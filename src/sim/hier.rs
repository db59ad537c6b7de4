//! Hierarchical balancing on the simulated machine (`docs/design/hierarchical.md`: "the simulated
//! clock lives in `src/sim/hier.rs`"): [`HierPartitioner`] runs HybridLB's three phases in one
//! process ([`balance`]) over the dual graph as a repartitioner from the current owners, so
//! that PLUM's pipeline (policy, the identity remap, the accept rule, the records) runs it as
//! it runs METIS: the single-process shock case balances with it on P simulated processors.
//! The objects and records are those [`crate::dist::Hierarchical`] builds from
//! the ranks' rows, and a domain holding more roots than a lowest domain's share works on
//! totals, as there.

use std::sync::Mutex;

use crate::balance::hier::{balance, Clock, CommData, HierBalance, HierOptions, ObjData, Tree};
use crate::dist::{mesh_object, mesh_record, Hierarchical};
use crate::graph::GraphView;
use crate::metrics::Cut;
use crate::partition::{PartitionInfo, Partitioner, Targets};
use crate::{Error, Result};

/// HybridLB over `tree` as a repartitioner (see the module doc); keeps its last balance's
/// report ([`HierPartitioner::last`]).
pub struct HierPartitioner {
    tree: Tree,
    opts: HierOptions,
    clock: Clock,
    time_per_load: f64,
    last: Mutex<Option<HierBalance>>,
}

impl HierPartitioner {
    /// HybridLB over `tree` with `opts` (`max_objects: None`: a lowest domain's share of the
    /// roots, [`Hierarchical::domain_share`]) on the machine `clock`, a root's load being
    /// `PWgt · time_per_load`.
    pub fn new(tree: Tree, opts: HierOptions, clock: Clock, time_per_load: f64) -> Self {
        HierPartitioner {
            tree,
            opts,
            clock,
            time_per_load,
            last: Mutex::new(None),
        }
    }

    /// The report of the last balance (per level: the largest database; simulated time by
    /// phase), `None` before the first.
    pub fn last(&self) -> Option<HierBalance> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The report of the last balance, taken: `None` until the next balance (a caller reading
    /// it after every step sees only the balances of that step).
    pub fn take_last(&self) -> Option<HierBalance> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Partitioner for HierPartitioner {
    fn name(&self) -> &'static str {
        "hier"
    }

    /// Refused: HybridLB balances from the current owners ([`Partitioner::repartition`]).
    fn partition(
        &self,
        _graph: &GraphView<'_>,
        _targets: Targets<'_>,
        _part: &mut [u32],
    ) -> Result<PartitionInfo> {
        Err(Error::Invalid(
            "hier: balances from the current owners; another partitioner makes the first".into(),
        ))
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        crate::partition::check_arguments(graph, targets, part)?;
        let p = self.tree.nprocs();
        if targets != Targets::Equal(p) {
            return Err(Error::Invalid(format!(
                "hier: balances {p} processors to equal shares, one part each"
            )));
        }
        let n = graph.nvertices();
        Error::check_len("current owners", n, current.len())?;
        let mut objs: Vec<ObjData> = Vec::with_capacity(n);
        let mut records: Vec<CommData> = Vec::new();
        let (w, ew) = (graph.vertex_weights(), graph.edge_weights());
        for v in 0..n {
            let v32 = v as u32;
            objs.push(mesh_object(v32, current[v], w[v], self.time_per_load));
            let e = graph.xadj()[v] as usize..graph.xadj()[v + 1] as usize;
            for (&to, &cwgt) in graph.adjncy()[e.clone()].iter().zip(&ew[e]) {
                records.push(mesh_record(v32, to, cwgt));
            }
        }
        let opts = HierOptions {
            max_objects: (self.opts.max_objects)
                .or_else(|| Some(Hierarchical::domain_share(&self.tree, n))),
            ..self.opts
        };
        let b = balance(
            &self.tree,
            &opts,
            &self.clock,
            &objs,
            &records,
            Some(graph.sizes()),
        )?;
        part.copy_from_slice(&b.dest);
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(b);
        let cut = Cut::new(graph.xadj(), graph.adjncy(), ew, part);
        Ok(PartitionInfo {
            algorithm: "hier",
            nparts: p,
            edge_cut: cut.cut,
            total_edge_weight: cut.total,
            repair_moves: 0,
            vertex_weight_divisor: 1,
            edge_weight_divisor: 1,
        })
    }
}
