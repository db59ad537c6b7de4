//! [`Run::process`]: a processing level run on the ranks, statically or balanced by SBN
//! ([`super::level`] says what a level is and what it reports; [`super::sbn`] runs it).

use super::level::{Hook, LevelOptions, ProcessedLevel, Processing};
use super::{RootWork, Run};
use crate::balance::sbn::prepartition::prepartition;
use crate::balance::sbn::Shared;
use crate::comm::{Comm, CommExt};
use crate::graph::Weights;
use crate::metrics::CostModel;
use crate::Result;

/// A dual graph as broadcast: `xadj`, `adjncy` and the weights.
pub(super) type SharedGraph = (Vec<u32>, Vec<u32>, Weights);

impl<C: Comm + ?Sized> Run<'_, C> {
    /// Processes every root once with `work` on every rank (a collective), statically
    /// or balanced by SBN, after which every root is owned by the rank that processed it (its
    /// tree is there). Call it between steps; with SBN, build the run with
    /// [`BalanceAt::Never`](super::BalanceAt::Never) so that only SBN balances.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::Error::Invalid) when SBN's options are not for this run's
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
    /// and rank 0's current weights (only rank 0 keeps them between steps; the levels between
    /// two steps share them).
    fn shared_graph(&self) -> Result<SharedGraph> {
        let (xadj, adjncy, _) =
            crate::graph::face_adjacency(self.forest.topology(), self.forest.nroots());
        let rank0 = self.graph.as_ref().map(|g| {
            let w = &g.weights;
            (w.pwgt.clone(), w.rwgt.clone(), w.cwgt.clone())
        });
        let (pwgt, rwgt, cwgt) = self.comm.broadcast_serde(0, rank0.as_ref())?;
        Ok((xadj, adjncy, Weights { pwgt, rwgt, cwgt }))
    }
}
