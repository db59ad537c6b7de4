//! [`Run::process`]: a processing level run on the ranks, statically or balanced by SBN
//! ([`super::level`] says what a level is and what it reports; [`super::sbn`] runs it).
//!
//! Statically each rank processes the roots it holds and reads their neighbours' owners from
//! its own rows of the dual graph: nothing is gathered. SBN's processors each keep the level's
//! graph and a location table over every root (`O(roots)` on every rank: the location table,
//! the queue's index and the graph's rows, all-gathered from the ranks' rows); when ranks hold
//! parts of the mesh, a tree SBN moves to a rank whose part lacks it arrives with the roots
//! around it, and after the level each rank's part is cut back to its roots and their ghost
//! layer.

use super::level::{Hook, LevelOptions, ProcessedLevel, Processing};
use super::sbn::{Engine, Plan};
use super::{RootWork, Run};
use crate::balance::sbn::prepartition::prepartition;
use crate::balance::sbn::{SbnOptions, Shared};
use crate::comm::{Comm, CommExt};
use crate::graph::Weights;
use crate::metrics::CostModel;
use crate::{Error, Result};

/// A dual graph as every rank of an SBN level holds it: `xadj`, `adjncy` and the weights, by
/// global id.
pub(super) type SharedGraph = (Vec<u32>, Vec<u32>, Weights);

/// A rank's rows: its roots, their `xadj` (from 0), neighbours, `PWgt`, `RWgt` and `CWgt`.
type RankRows = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u64>, Vec<u64>, Vec<u64>);

impl<C: Comm + ?Sized> Run<'_, C> {
    /// Processes every root once with `work` on every rank (a collective), statically
    /// or balanced by SBN, after which every root is owned by the rank that processed it (its
    /// tree is there). Call it between steps; with SBN, build the run with
    /// [`BalanceAt::Never`](super::BalanceAt::Never) so that only SBN balances. Works whether
    /// each rank holds the whole mesh ([`Run::on`]) or its part ([`Run::on_parts`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] when SBN's options are not for this run's
    /// ranks; any rank's work, transport or protocol error, on every rank, never a hang.
    ///
    /// # Panics
    /// When a root was processed twice or never (a bug guard: only a plume bug reaches it).
    pub fn process(
        &mut self,
        opts: &LevelOptions,
        work: &mut dyn RootWork,
    ) -> Result<ProcessedLevel> {
        let comm = self.comm.inner();
        let hook = opts.hook.filter(|h| match *h {
            Hook::Slow { rank, .. } | Hook::Fail { rank, .. } => rank == comm.rank(),
        });
        let mine = match opts.processing {
            Processing::Static => {
                let rows = self.rows(false);
                let parts = (&mut self.forest, &self.share);
                let engine = Engine::new(comm, parts, Plan::Static(&rows.rows), (work, hook));
                engine.run()?.0
            }
            Processing::Sbn(sbn) => self.process_sbn(sbn, opts, (work, hook))?,
        };
        Ok(ProcessedLevel {
            ranks: comm.all_gather_serde(&mine)?,
        })
    }

    /// [`Run::process`] balanced by SBN with `sbn`: returns this rank's account.
    fn process_sbn(
        &mut self,
        sbn: SbnOptions,
        opts: &LevelOptions,
        (work, hook): (&mut dyn RootWork, Option<Hook>),
    ) -> Result<super::RankLevel> {
        let comm = self.comm.inner();
        if self.level_graph.is_none() {
            self.level_graph = Some(self.shared_graph()?);
        }
        let owner = self.every_owner()?;
        let (xadj, adjncy, weights) = self.level_graph.as_ref().expect("just set");
        let model = CostModel::new(xadj, adjncy, weights).with_scales(opts.scales);
        let shared = Shared::new(model, comm.size(), sbn);
        // §5.6's pre-partition: the same on every rank (same graph, weights, owners and
        // seed); it queues roots away from their data, which moves when they are processed.
        let queued = sbn.prepartition.then(|| {
            let mut assigned = owner.clone();
            prepartition(&model, &owner, &mut assigned, comm.size(), sbn.seed);
            assigned
        });
        let plan = Plan::Sbn {
            shared: &shared,
            owner: &owner,
            queued: queued.as_deref(),
        };
        let parts = (&mut self.forest, &self.share);
        let (mine, after, parked) = Engine::new(comm, parts, plan, (work, hook)).run()?;
        let after = after.expect("an SBN level returns the owners");
        if self.share.is_whole() {
            self.share.set_whole_owner(after);
            return Ok(mine);
        }
        self.settle(&owner, &after, parked)?;
        // Rank 0's balancer told where the trees went (a gathered balancer keeps every
        // root's owner).
        let rows = self.rows(false);
        self.balancer
            .observe(&self.comm, rows.held(self.share.nroots()))?;
        Ok(mine)
    }

    /// After an SBN level on parts (a collective): each rank asks the owners at the start
    /// (`before`, by global id) of the roots it holds now for the records of the roots around
    /// them, then holds its roots (`after`) and their ghost layer, the parked trees put in.
    fn settle(
        &mut self,
        before: &[u32],
        after: &[u32],
        parked: Vec<super::sbn::Parked>,
    ) -> Result<()> {
        let comm = self.comm.inner();
        let (me, size) = (comm.rank() as u32, comm.size());
        let initial = self.forest.initial();
        // A root that was its own at the start has the roots around it in the part; the
        // others' come from their owners at the start.
        let mut kept = Vec::new();
        let mut asked: Vec<Vec<u32>> = vec![Vec::new(); size];
        for r in self.held_roots() {
            match before[initial.root_gid(r) as usize] {
                o if o == me => kept.push(r),
                o => asked[o as usize].push(initial.root_gid(r)),
            }
        }
        for (p, _) in &parked {
            asked[before[p.root as usize] as usize].push(p.root);
        }
        let questions: Vec<Vec<u32>> = comm.all_to_all_serde(&asked)?;
        let answers: Result<Vec<Vec<_>>> = questions
            .iter()
            .enumerate()
            .map(|(from, roots)| {
                let local: Option<Vec<u32>> = roots
                    .iter()
                    .map(|&g| self.share.initial().local_root(g))
                    .collect();
                let local = local.ok_or_else(|| Error::Protocol {
                    from,
                    message: format!("rank {me} was asked for roots it did not own"),
                })?;
                Ok(self.share.stars(&local))
            })
            .collect();
        let answers = comm.agree(answers)?;
        let records: Vec<Vec<_>> = comm.all_to_all_serde(&answers)?;
        let settled = (|| {
            let mut records: Vec<_> = records.into_iter().flatten().collect();
            records.extend(self.share.stars(&kept));
            let next = self.share.settled(&records, after, (me, size))?;
            if !next.initial().same(self.share.initial()) {
                self.forest.move_onto(next.initial());
            }
            let packets: Vec<_> = parked.into_iter().map(|(p, _)| p).collect();
            self.forest.put_trees(&packets)?;
            self.share = next;
            Ok(())
        })();
        comm.agree(settled)
    }

    /// Every root's owner by global id, all-gathered from the roots each rank holds (SBN's
    /// location table starts from it).
    fn every_owner(&self) -> Result<Vec<u32>> {
        if self.share.is_whole() {
            return Ok(self.share.owner().to_vec());
        }
        let held: Vec<u32> = self
            .held_roots()
            .into_iter()
            .map(|r| self.forest.initial().root_gid(r))
            .collect();
        let all: Vec<Vec<u32>> = self.comm.all_gather_serde(&held)?;
        let mut owner = vec![u32::MAX; self.share.nroots()];
        for (rank, roots) in all.iter().enumerate() {
            for &g in roots {
                owner[g as usize] = rank as u32;
            }
        }
        let unowned = owner.iter().position(|&o| o == u32::MAX);
        self.comm.agree(unowned.map_or(Ok(()), |g| {
            Err(Error::Inconsistent {
                check: "processing level",
                message: format!("root {g} is held by no rank"),
            })
        }))?;
        Ok(owner)
    }

    /// The dual graph on every rank, by global id: every rank's rows of it (its roots'
    /// neighbours and current weights) all-gathered (SBN's cost model is O(roots) on every
    /// rank; the levels between two steps share it).
    fn shared_graph(&mut self) -> Result<SharedGraph> {
        let n = self.share.nroots();
        let rows = self.rows(false).rows;
        let mine: RankRows = (
            rows.roots,
            rows.xadj,
            rows.adjncy,
            rows.pwgt,
            rows.rwgt,
            rows.cwgt,
        );
        let all: Vec<RankRows> = self.comm.all_gather_serde(&mine)?;
        let mut degree = vec![0u32; n + 1];
        for (roots, xadj, ..) in &all {
            for (i, &r) in roots.iter().enumerate() {
                degree[r as usize + 1] = xadj[i + 1] - xadj[i];
            }
        }
        let xadj: Vec<u32> = degree
            .iter()
            .scan(0u32, |sum, &d| {
                *sum += d;
                Some(*sum)
            })
            .collect();
        let edges = xadj[n] as usize;
        let mut adjncy = vec![u32::MAX; edges];
        let mut w = Weights {
            pwgt: vec![0; n],
            rwgt: vec![0; n],
            cwgt: vec![0; edges],
        };
        for (roots, rxadj, radjncy, pwgt, rwgt, cwgt) in all {
            for (i, &r) in roots.iter().enumerate() {
                let r = r as usize;
                w.pwgt[r] = pwgt[i];
                w.rwgt[r] = rwgt[i];
                let (from, to) = (rxadj[i] as usize, rxadj[i + 1] as usize);
                let at = xadj[r] as usize;
                adjncy[at..at + to - from].copy_from_slice(&radjncy[from..to]);
                w.cwgt[at..at + to - from].copy_from_slice(&cwgt[from..to]);
            }
        }
        // Every root is held by one rank: a root no rank sent leaves its row empty, and an
        // edge of the graph is in both its ends' rows.
        let asymmetric = (0..n).find(|&r| {
            (xadj[r] as usize..xadj[r + 1] as usize).any(|k| {
                let s = adjncy[k] as usize;
                s >= n || !adjncy[xadj[s] as usize..xadj[s + 1] as usize].contains(&(r as u32))
            })
        });
        self.comm.agree(asymmetric.map_or(Ok(()), |r| {
            Err(Error::Invalid(format!(
                "the ranks' rows of root {r} do not make a symmetric graph"
            )))
        }))?;
        Ok((xadj, adjncy, w))
    }
}
