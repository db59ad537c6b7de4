//! [`Diffusive`]: PLUM's pipeline with the diffusive repartitioner (`diffusion.md` C.2(a)) on
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

use super::balancer::{check_ranks, first_by, BalanceOutcome, Balancer, Decision, HeldRows};
use crate::balance::{BalancePolicy, Observation, PlumOptions, Threshold};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::graph::DualGraph;
use crate::metrics::Movement;
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

    /// What the policy and the cost model see of the ranks' `loads`.
    fn observation<'a>(&self, loads: &'a [f64]) -> Observation<'a> {
        Observation {
            loads,
            time_per_load: self.opts.model.time_per_load,
            iterations: self.opts.model.iterations,
        }
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
        let (rank, p) = (comm.rank(), comm.size());
        let rows = held.rows;
        let loads: Vec<u64> = comm.all_gather_serde(&rows.pwgt.iter().sum::<u64>())?;
        let before: Vec<f64> = loads.iter().map(|&l| l as f64).collect();
        let obs = self.observation(&before);
        // Every rank's policy sees the same loads: they decide alike.
        if !self.policy.should_balance(&obs) {
            let imb = obs.load_imb();
            return Ok(Decision {
                outcome: Some(BalanceOutcome {
                    load_imb_before: imb,
                    load_imb_after: imb,
                    triggered: false,
                    accepted: false,
                    gain: 0.0,
                    cost: 0.0,
                    volumes: [0; 3],
                    select: None,
                }),
                ..Decision::default()
            });
        }
        if let Some(s) = self.policy.target_shares(p) {
            if s.iter().any(|&x| x != s[0]) {
                return Err(Error::Invalid(
                    "diffusion: the policy asks for uneven shares; diffusion balances to equal \
                     shares only"
                        .into(),
                ));
            }
        }
        let given = self.diffusion.on_rank(comm, rows)?.given;
        // PWgt sent and received by each rank, then the moving sizes sent and received.
        let mut flows = vec![0u64; 4 * p];
        for &(r, to) in &given {
            let i = rows
                .roots
                .binary_search(&r)
                .expect("diffusion gives away roots of the rows");
            flows[rank] += rows.pwgt[i];
            flows[p + to as usize] += rows.pwgt[i];
            flows[2 * p + rank] += held.moving[i];
            flows[3 * p + to as usize] += held.moving[i];
        }
        let flows = comm.all_reduce_u64(&flows, ReduceOp::Sum)?;
        let after: Vec<f64> = (0..p)
            .map(|k| (loads[k] - flows[k] + flows[p + k]) as f64)
            .collect();
        let after = self.observation(&after);
        let movement = Movement::from_flows(flows[2 * p..3 * p].to_vec(), flows[3 * p..].to_vec());
        let gain = self.opts.model.gain(obs.max(), after.max());
        let cost = self.opts.model.cost(movement.max_sr);
        let accepted = self.opts.accept.accepts(gain, cost);
        if accepted {
            self.policy.balanced_moving(cost, movement.max_v);
        }
        Ok(Decision {
            leaving: if accepted { given } else { Vec::new() },
            outcome: Some(BalanceOutcome {
                load_imb_before: obs.load_imb(),
                load_imb_after: after.load_imb(),
                triggered: true,
                accepted,
                gain,
                cost,
                volumes: [movement.total_v, movement.max_v, movement.max_sr],
                select: None,
            }),
            plum: None,
        })
    }
}
