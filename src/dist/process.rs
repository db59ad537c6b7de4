//! [`Run::process`]: a processing level run on the ranks, statically or balanced by SBN
//! ([`super::level`] says what a level is and what it reports; [`super::sbn`] runs it).

use super::level::{Hook, LevelOptions, ProcessedLevel, Processing};
use super::{RootWork, Run};
use crate::balance::sbn::prepartition::prepartition;
use crate::balance::sbn::Shared;
use crate::comm::{Comm, CommExt};
use crate::graph::Weights;
use crate::metrics::CostModel;
use crate::{Error, Result};

/// A dual graph as every rank of a processing level holds it: `xadj`, `adjncy` and the
/// weights.
pub(super) type SharedGraph = (Vec<u32>, Vec<u32>, Weights);

/// A rank's roots with their `PWgt`, `RWgt` and `CWgt` (their rows' entries in turn).
type RankWeights = (Vec<u32>, Vec<u64>, Vec<u64>, Vec<u64>);

impl<C: Comm + ?Sized> Run<'_, C> {
    /// Processes every root once with `work` on every rank (a collective), statically
    /// or balanced by SBN, after which every root is owned by the rank that processed it (its
    /// tree is there). Call it between steps; with SBN, build the run with
    /// [`BalanceAt::Never`](super::BalanceAt::Never) so that only SBN balances.
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
        if !self.share.is_whole() {
            return comm.agree(Err(crate::Error::Invalid(
                "a processing level needs every rank to hold the whole mesh (`Run::on`)".into(),
            )));
        }
        if self.level_graph.is_none() {
            self.level_graph = Some(self.shared_graph()?);
        }
        let (xadj, adjncy, weights) = self.level_graph.as_ref().expect("just set");
        let model = CostModel::new(xadj, adjncy, weights).with_scales(opts.scales);
        let hook = opts.hook.filter(|h| match *h {
            Hook::Slow { rank, .. } | Hook::Fail { rank, .. } => rank == comm.rank(),
        });
        let shared = match opts.processing {
            Processing::Static => None,
            Processing::Sbn(sbn) => Some(Shared::new(model, comm.size(), sbn)),
        };
        // §5.6's pre-partition: the same on every rank (same graph, weights, owners and
        // seed); it queues roots away from their data, which moves when they are processed.
        let queued = match opts.processing {
            Processing::Sbn(sbn) if sbn.prepartition => {
                let owner = self.share.owner();
                let mut assigned = owner.to_vec();
                prepartition(&model, owner, &mut assigned, comm.size(), sbn.seed);
                Some(assigned)
            }
            _ => None,
        };
        let engine = super::sbn::Engine::new(
            comm,
            &mut self.forest,
            &model,
            shared.as_ref(),
            (self.share.owner(), queued.as_deref()),
            (work, hook),
        );
        let (mine, owner) = engine.run()?;
        self.share.set_whole_owner(owner);
        Ok(ProcessedLevel {
            ranks: comm.all_gather_serde(&mine)?,
        })
    }

    /// The dual graph on every rank: its adjacency from the initial mesh every rank holds,
    /// and the current weights of every root, all-gathered from the rows of the ranks that
    /// hold them (SBN's cost model is O(roots) on every rank; the levels between two steps
    /// share it).
    fn shared_graph(&mut self) -> Result<SharedGraph> {
        let n = self.forest.nroots();
        let (xadj, adjncy, _) = crate::graph::face_adjacency(self.forest.topology(), n);
        let rows = self.rows(false);
        let rows = rows.rows;
        let mine = (rows.roots, rows.pwgt, rows.rwgt, rows.cwgt);
        let all: Vec<RankWeights> = self.comm.all_gather_serde(&mine)?;
        let mut w = Weights {
            pwgt: vec![0; n],
            rwgt: vec![0; n],
            cwgt: vec![0; adjncy.len()],
        };
        for (roots, pwgt, rwgt, cwgt) in all {
            let mut entries = cwgt.into_iter();
            for (i, &r) in roots.iter().enumerate() {
                let r = r as usize;
                w.pwgt[r] = pwgt[i];
                w.rwgt[r] = rwgt[i];
                // A rank's row lists the root's face neighbours ascending, as the graph does;
                // the entry of the same edge in the neighbour's row gets the same weight from
                // its holder (leaf faces match across a root face between steps).
                for k in xadj[r] as usize..xadj[r + 1] as usize {
                    w.cwgt[k] = entries.next().ok_or_else(|| {
                        Error::Invalid(format!("a rank's row of root {r} is short of edges"))
                    })?;
                }
            }
        }
        Ok((xadj, adjncy, w))
    }
}
