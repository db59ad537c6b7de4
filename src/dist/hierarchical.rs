//! [`Hierarchical`]: [Zheng 2011]'s HybridLB (`docs/design/hierarchical.md`) as a run's balancer.
//! Its objects are the roots each rank holds (load `PWgt · T_iter`: one solver iteration of the
//! root's leaves; home the rank; size the elements the tree moves with), its communication records
//! the roots' face neighbours (`CWgt · FACE_BYTES` a solver iteration, both ways). Each step
//! the ranks' loads are all-gathered and PLUM's policy asked; if it balances, the three
//! phases run over the ranks' point-to-point messages ([`run_on_ranks`]): each lowest leader
//! gathers only its domain's roots, the levels above work on their children's totals (unless
//! told otherwise), and every rank learns which of its roots leave; PLUM's accept rule then
//! weighs the gain against the cost, as for [`Diffusive`](super::Diffusive).
//!
//! Its decisions are the in-process simulation's ([`crate::balance::hier::balance`]) on the
//! same objects and records, bit for bit. Rank 0 gathers nothing more than its own lowest
//! domain's roots, unless the run's records ask for the whole graph
//! ([`Hierarchical::keeping_records`]).

use std::time::{Duration, Instant};

use super::balancer::{
    check_ranks, first_by, BalanceOutcome, Balancer, Decision, HeldRows, HierStats,
};
use super::gathered::Gathered;
use super::verdict;
use crate::balance::hier::{run_on_ranks, CommData, HierOptions, ObjData, RankOutcome, Tree};
use crate::balance::plum::BalanceTimes;
use crate::balance::policy::{restore_policy, save_policy};
use crate::balance::{Balance, BalancePolicy, PlumOptions, Threshold};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::graph::DualGraph;
use crate::metrics::Movement;
use crate::partition::{Metis, Partitioner};
use crate::remap::RemapInfo;
use crate::solver_model::FACE_BYTES;
use crate::{Error, Result};

/// HybridLB over the ranks' rows (see the module doc).
pub struct Hierarchical {
    tree: Tree,
    opts: HierOptions,
    plum: PlumOptions,
    policy: Box<dyn BalancePolicy>,
    first: Box<dyn Partitioner>,
    /// Rank 0's whole graph for the records, when kept.
    records: Option<Gathered>,
}

impl Hierarchical {
    /// HybridLB over `tree` with `opts` (the lowest level's strategy; `max_objects: None`
    /// means a lowest domain's share of the roots, [`Hierarchical::domain_share`]), PLUM's
    /// 1.05 threshold and `plum`'s accept rule and cost model (its `T_iter` makes the loads);
    /// the first owners by METIS, as PLUM's.
    ///
    /// # Errors
    /// As [`Hierarchical::with`].
    pub fn new(tree: Tree, opts: HierOptions, plum: PlumOptions) -> Result<Hierarchical> {
        let policy = Box::new(Threshold::default());
        Hierarchical::with(tree, opts, plum, policy, Box::new(Metis::default()))
    }

    /// HybridLB over `tree` when `policy` asks, with `plum`'s accept rule and cost model;
    /// `first` makes the first owners.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless `plum` is for the tree's processors with one part each.
    pub fn with(
        tree: Tree,
        opts: HierOptions,
        plum: PlumOptions,
        policy: Box<dyn BalancePolicy>,
        first: Box<dyn Partitioner>,
    ) -> Result<Hierarchical> {
        check_ranks("hierarchical", tree.nprocs(), plum.nprocs)?;
        if plum.parts_per_proc != 1 {
            return Err(Error::Invalid(format!(
                "hierarchical: its parts are the ranks, one per rank, not {}",
                plum.parts_per_proc
            )));
        }
        Ok(Hierarchical {
            tree,
            opts,
            plum,
            policy,
            first,
            records: None,
        })
    }

    /// This balancer with rank 0 also keeping the whole graph and every root's owner for the
    /// run's records (each rank sends rank 0 its changed rows, as
    /// [`GatheredPlum`](super::GatheredPlum) does, and the roots that left it): the decisions
    /// do not read them, and [`HierStats`] does not count them.
    pub fn keeping_records(mut self) -> Hierarchical {
        self.records = Some(Gathered::default());
        self
    }

    /// A lowest domain's share of `nroots` roots, `⌈nroots · G / P⌉` for the first lowest
    /// domain's `G` processors: with `max_objects: None`, a domain holding more roots works
    /// on its children's totals (never a lowest one), so that no leader gathers more than
    /// its lowest domain's roots.
    pub fn domain_share(tree: &Tree, nroots: usize) -> usize {
        let g = tree.children(tree.proc_level() - 1, 0).len();
        (nroots * g).div_ceil(tree.nprocs())
    }

    /// The options of one balance of `nroots` roots.
    fn options(&self, nroots: usize) -> HierOptions {
        HierOptions {
            max_objects: (self.opts.max_objects)
                .or_else(|| Some(Hierarchical::domain_share(&self.tree, nroots))),
            ..self.opts
        }
    }
}

/// The objects (the roots held) and records (their face neighbours, one record a neighbour)
/// of `held` on rank `home`, a root's load being `PWgt · time_per_load` seconds and a record
/// `CWgt · FACE_BYTES` bytes: one solver iteration.
pub fn mesh_objects(
    held: &HeldRows<'_>,
    home: u32,
    time_per_load: f64,
) -> (Vec<ObjData>, Vec<CommData>) {
    let rows = held.rows;
    let mut objs = Vec::with_capacity(rows.roots.len());
    let mut records = Vec::with_capacity(rows.adjncy.len());
    for (i, &root) in rows.roots.iter().enumerate() {
        objs.push(mesh_object(root, home, rows.pwgt[i], time_per_load));
        let e = rows.xadj[i] as usize..rows.xadj[i + 1] as usize;
        for (&to, &cwgt) in rows.adjncy[e.clone()].iter().zip(&rows.cwgt[e]) {
            records.push(mesh_record(root, to, cwgt));
        }
    }
    (objs, records)
}

/// Root `root` on rank `home` with `pwgt` as an object (see [`mesh_objects`]).
pub(crate) fn mesh_object(root: u32, home: u32, pwgt: u64, time_per_load: f64) -> ObjData {
    ObjData {
        id: root,
        home,
        load: pwgt as f64 * time_per_load,
    }
}

/// The record of root `from`'s face neighbour `to` with `cwgt` (see [`mesh_objects`]).
pub(crate) fn mesh_record(from: u32, to: u32, cwgt: u64) -> CommData {
    CommData {
        from,
        to,
        bytes: cwgt as f64 * FACE_BYTES,
    }
}

/// The numbers of every rank's `outcome` (a collective).
fn stats(comm: &dyn Comm, tree: &Tree, outcome: &RankOutcome, seconds: f64) -> Result<HierStats> {
    let levels = tree.proc_level();
    let mut local = vec![0u64; 3 * levels + 4];
    for (node, info) in &outcome.domains {
        let l = node.level;
        local[l] = local[l].max(info.objects);
        local[levels + l] = local[levels + l].max(info.bytes);
        local[2 * levels + l] += u64::from(info.semi);
    }
    let r = outcome.received;
    let rank0 = u64::from(comm.rank() == 0);
    local[3 * levels] = rank0 * r.objects;
    local[3 * levels + 1] = rank0 * r.records;
    local[3 * levels + 2] = rank0 * r.bytes;
    local[3 * levels + 3] = r.objects;
    let max = comm.all_reduce_u64(&local, ReduceOp::Max)?;
    let semi = comm.all_reduce_u64(&local[2 * levels..3 * levels], ReduceOp::Sum)?;
    let seconds: Vec<f64> = comm.all_gather_serde(&seconds)?;
    Ok(HierStats {
        max_db_objects: max[..levels].to_vec(),
        max_db_bytes: max[levels..2 * levels].to_vec(),
        semi_domains: semi,
        rank0_roots: max[3 * levels],
        rank0_records: max[3 * levels + 1],
        rank0_bytes: max[3 * levels + 2],
        max_roots: max[3 * levels + 3],
        seconds: seconds.into_iter().fold(0.0, f64::max),
    })
}

/// The decision as PLUM's records read it, on rank 0 keeping the records, as PLUM with the
/// identity remap of the same owners would report it ([`crate::sim::HierPartitioner`]): the
/// verdict, what moved in the sizes it moves with and in the graph's (`movement`), the three
/// phases' time as the partition stage, and the new owners when accepted.
fn as_plum(
    verdict: &BalanceOutcome,
    hier: &HierStats,
    (movement, planned): (Movement, Movement),
    owners: Option<&[u32]>,
) -> Balance {
    Balance {
        load_imb_before: verdict.load_imb_before,
        load_imb_after: verdict.load_imb_after,
        triggered: verdict.triggered,
        accepted: verdict.accepted,
        gain: verdict.gain,
        cost: verdict.cost,
        identity: planned.clone(),
        remap: Some(RemapInfo {
            solver: "identity",
            objective: None,
            exact: false,
            volumes: planned.clone(),
        }),
        planned,
        movement,
        partition: None,
        times: BalanceTimes {
            partition: Duration::from_secs_f64(hier.seconds),
            ..BalanceTimes::default()
        },
        new_owner: owners.filter(|_| verdict.accepted).map(<[u32]>::to_vec),
    }
}

impl Balancer for Hierarchical {
    fn check(&self, ranks: usize) -> Result<()> {
        check_ranks("hierarchical", self.tree.nprocs(), ranks)
    }

    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        let owner = first_by(self.first.as_ref(), &graph, ranks)?;
        if let Some(records) = self.records.as_mut() {
            records.keep(graph, owner.clone());
        }
        Ok(owner)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        if let Some(records) = self.records.as_mut() {
            let gathered = records.gather(comm, held)?;
            comm.agree(gathered)?;
        }
        let policy = self.policy.as_mut();
        let asked = verdict::ask("hierarchical", comm, &held, &self.plum, policy)?;
        if let Some(outcome) = asked.untriggered {
            return Ok(Decision {
                outcome: Some(outcome),
                ..Decision::default()
            });
        }
        let start = Instant::now();
        let (objs, records) =
            mesh_objects(&held, comm.rank() as u32, self.plum.model.time_per_load);
        let opts = self.options(held.nroots);
        let outcome = run_on_ranks(comm, &self.tree, &opts, objs, records);
        let outcome = comm.agree(outcome)?;
        let seconds = start.elapsed().as_secs_f64();
        let mut given = outcome.moves.clone();
        given.sort_unstable();
        let hier = stats(comm, &self.tree, &outcome, seconds)?;
        let policy = self.policy.as_mut();
        let verdict = verdict::weigh(comm, &held, &asked.loads, &given, &self.plum, policy)?;
        let leaving = if verdict.accepted { given } else { Vec::new() };
        let mut plum = None;
        if let Some(records) = self.records.as_mut() {
            let movement = records.moved(comm, &leaving)?;
            plum = movement.map(|m| as_plum(&verdict, &hier, m, records.owners()));
        }
        Ok(Decision {
            leaving,
            outcome: Some(verdict),
            plum,
            hier: Some(hier),
        })
    }

    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        match self.records.as_mut() {
            Some(records) => {
                let gathered = records.gather(comm, held)?;
                comm.agree(gathered)
            }
            None => Ok(()),
        }
    }

    /// The policy's history: every rank's policy sees the same loads, so rank 0's is every
    /// rank's.
    fn save_state(&self) -> Vec<u8> {
        save_policy(self.policy.as_ref())
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        restore_policy(self.policy.as_mut(), bytes)
    }

    fn graph(&self) -> Option<&DualGraph> {
        self.records.as_ref().and_then(Gathered::graph)
    }

    fn owners(&self) -> Option<&[u32]> {
        self.records.as_ref().and_then(Gathered::owners)
    }

    fn moving(&self) -> Option<&[u64]> {
        self.records.as_ref().and_then(Gathered::moving)
    }
}
