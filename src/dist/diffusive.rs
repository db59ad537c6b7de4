//! [`Diffusive`]: PLUM's pipeline with the diffusive repartitioner (`docs/design/diffusive.md`) on
//! the ranks' rows, nothing gathered. Each step: the P loads are all-gathered and the policy
//! asks whether to balance; if so, [`Diffusion::on_rank`] moves roots between neighbouring
//! ranks along the flows of the quotient graph, each rank choosing by `ΔCut` from its own rows,
//! then gives away its fragments and refines its boundaries (parts are ranks: the remap is the
//! identity); the P loads after and the flows of what would
//! move are summed over the ranks, and PLUM's accept rule weighs the gain against the cost.
//!
//! No rank holds more than its rows, the quotient graph (P vertices) and O(P) sums. Its
//! decisions are those of [`GatheredPlum`](super::GatheredPlum) with the same options, the
//! [`Diffusion`] partitioner and the identity remap, bit for bit.

use super::balancer::{check_ranks, first_by, Balancer, Decision, HeldRows};
use super::verdict;
use crate::balance::policy::{restore_policy, save_policy};
use crate::balance::{BalancePolicy, PlumOptions, Threshold};
use crate::comm::Comm;
use crate::graph::DualGraph;
use crate::partition::{Diffusion, Metis, Partitioner};
use crate::{Error, Result};

/// The diffusive repartitioner as a run's balancer (see the module doc).
pub struct Diffusive {
    opts: PlumOptions,
    diffusion: Diffusion,
    policy: Box<dyn BalancePolicy>,
    first: Box<dyn Partitioner>,
}

impl Diffusive {
    /// Diffusion with its defaults, PLUM's 1.05 threshold and `opts`' accept rule and cost
    /// model, the first owners by METIS.
    ///
    /// # Errors
    /// As [`Diffusive::with`].
    pub fn new(opts: PlumOptions) -> Result<Diffusive> {
        Diffusive::with(
            opts,
            Diffusion::default(),
            Box::new(Threshold::default()),
            Box::new(Metis::default()),
        )
    }

    /// `diffusion` balancing when `policy` asks, on `opts.nprocs` ranks with `opts`' accept
    /// rule and cost model; `first` makes the first owners.
    ///
    /// # Errors
    /// [`Error::Zero`] for no ranks; [`Error::Invalid`] unless `opts.parts_per_proc` is 1
    /// (diffusion's parts are the ranks).
    pub fn with(
        opts: PlumOptions,
        diffusion: Diffusion,
        policy: Box<dyn BalancePolicy>,
        first: Box<dyn Partitioner>,
    ) -> Result<Diffusive> {
        if opts.nprocs == 0 {
            return Err(Error::Zero { what: "processors" });
        }
        if opts.parts_per_proc != 1 {
            return Err(Error::Invalid(format!(
                "diffusion: its parts are the ranks, one per rank, not {}",
                opts.parts_per_proc
            )));
        }
        Ok(Diffusive {
            opts,
            diffusion,
            policy,
            first,
        })
    }
}

impl Balancer for Diffusive {
    fn check(&self, ranks: usize) -> Result<()> {
        check_ranks("diffusion", self.opts.nprocs, ranks)
    }

    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        first_by(self.first.as_ref(), &graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        let asked = verdict::ask("diffusion", comm, &held, &self.opts, self.policy.as_mut())?;
        if let Some(outcome) = asked.untriggered {
            return Ok(Decision {
                outcome: Some(outcome),
                ..Decision::default()
            });
        }
        let given = self.diffusion.on_rank(comm, held.rows)?.given;
        let policy = self.policy.as_mut();
        let outcome = verdict::weigh(comm, &held, &asked.loads, &given, &self.opts, policy)?;
        Ok(Decision {
            leaving: if outcome.accepted { given } else { Vec::new() },
            outcome: Some(outcome),
            ..Decision::default()
        })
    }

    /// The policy's history: every rank's policy sees the same loads, so rank 0's is every
    /// rank's.
    fn save_state(&self) -> Vec<u8> {
        save_policy(self.policy.as_ref())
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        restore_policy(self.policy.as_mut(), bytes)
    }
}
