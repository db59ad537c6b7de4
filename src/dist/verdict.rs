//! The verdict shared by the balancers that decide on the ranks' rows with nothing gathered
//! ([`Diffusive`](super::Diffusive), [`Hierarchical`](super::Hierarchical)): every rank's load
//! all-gathered, the policy asked (every rank sees the same loads: they decide alike), and
//! once the ranks know which roots they would give away, the loads after and the flows of
//! what would move summed over the ranks, for PLUM's accept rule to weigh the gain against the
//! cost.

use super::balancer::{BalanceOutcome, HeldRows};
use crate::balance::{BalancePolicy, Observation, PlumOptions};
use crate::comm::{Comm, CommExt, ReduceOp};
use crate::metrics::Movement;
use crate::{Error, Result};

/// The loads a step starts from and what the policy made of them.
pub(super) struct Asked {
    /// Every rank's load (`Σ PWgt` of its rows).
    pub(super) loads: Vec<u64>,
    /// The outcome when the policy does not balance (`None`: it does).
    pub(super) untriggered: Option<BalanceOutcome>,
}

/// All-gathers the ranks' loads and asks `policy` whether to balance (a collective); `name`
/// names the balancer in the refusal of uneven target shares, which it cannot aim at.
///
/// # Errors
/// The transport's; [`Error::Invalid`] when the policy asks for uneven shares.
pub(super) fn ask(
    name: &str,
    comm: &dyn Comm,
    held: &HeldRows<'_>,
    opts: &PlumOptions,
    policy: &mut dyn BalancePolicy,
) -> Result<Asked> {
    let loads: Vec<u64> = comm.all_gather_serde(&held.rows.pwgt.iter().sum::<u64>())?;
    let before: Vec<f64> = loads.iter().map(|&l| l as f64).collect();
    let obs = observation(opts, &before);
    if !policy.should_balance(&obs) {
        let imb = obs.load_imb();
        let untriggered = BalanceOutcome::untriggered(imb);
        return Ok(Asked {
            loads,
            untriggered: Some(untriggered),
        });
    }
    if let Some(s) = policy.target_shares(comm.size()) {
        if s.iter().any(|&x| x != s[0]) {
            return Err(Error::Invalid(format!(
                "{name}: the policy asks for uneven shares; {name} balances to equal shares only"
            )));
        }
    }
    Ok(Asked {
        loads,
        untriggered: None,
    })
}

/// Weighs the roots this rank would give away (`given`, from its rows `held`) against the
/// loads the step started from (a collective): the loads after and the moving sizes sent and
/// received are summed over the ranks, and PLUM's accept rule decides; an accepted move is
/// told to `policy`.
///
/// # Errors
/// The transport's.
///
/// # Panics
/// When a root given away is not one of the rows.
pub(super) fn weigh(
    comm: &dyn Comm,
    held: &HeldRows<'_>,
    loads: &[u64],
    given: &[(u32, u32)],
    opts: &PlumOptions,
    policy: &mut dyn BalancePolicy,
) -> Result<BalanceOutcome> {
    let (rank, p) = (comm.rank(), comm.size());
    let rows = held.rows;
    // PWgt sent and received by each rank, then the moving sizes sent and received.
    let mut flows = vec![0u64; 4 * p];
    for &(r, to) in given {
        let i = rows
            .roots
            .binary_search(&r)
            .expect("a root given away is one of the rows");
        flows[rank] += rows.pwgt[i];
        flows[p + to as usize] += rows.pwgt[i];
        flows[2 * p + rank] += held.moving[i];
        flows[3 * p + to as usize] += held.moving[i];
    }
    let flows = comm.all_reduce_u64(&flows, ReduceOp::Sum)?;
    let before: Vec<f64> = loads.iter().map(|&l| l as f64).collect();
    let after: Vec<f64> = (0..p)
        .map(|k| (loads[k] - flows[k] + flows[p + k]) as f64)
        .collect();
    let (before, after) = (observation(opts, &before), observation(opts, &after));
    let movement = Movement::from_flows(flows[2 * p..3 * p].to_vec(), flows[3 * p..].to_vec());
    let gain = opts.model.gain(before.max(), after.max());
    let cost = opts.model.cost(movement.max_sr);
    let accepted = opts.accept.accepts(gain, cost);
    if accepted {
        policy.balanced_moving(cost, movement.max_v);
    }
    Ok(BalanceOutcome {
        load_imb_before: before.load_imb(),
        load_imb_after: after.load_imb(),
        triggered: true,
        accepted,
        gain,
        cost,
        volumes: [movement.total_v, movement.max_v, movement.max_sr],
        select: None,
    })
}

/// What the policy and the cost model see of the ranks' `loads`.
fn observation<'a>(opts: &PlumOptions, loads: &'a [f64]) -> Observation<'a> {
    Observation {
        loads,
        time_per_load: opts.model.time_per_load,
        iterations: opts.model.iterations,
    }
}
