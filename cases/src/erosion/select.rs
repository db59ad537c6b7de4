//! `--policy select` in the erosion case (`docs/design/diffusive.md`): after each iteration rank 0
//! (or the one process) predicts, over the next [`HORIZON`] iterations, doing nothing, one
//! diffusion sweep before each iteration (the diffusive repartitioner, one sweep, one round) and
//! a global repartition (the case's PLUM: the stripes or METIS), and does the smallest. Each
//! decision point is replayed under the three actions as they are done (the diffusive one: one
//! sweep), each followed by `HORIZON` iterations on the loads of the coming iteration: the cost
//! of what the action moves plus `HORIZON` times the largest step time it leaves.
//!
//! The global action's time is eq. 3.5's with the largest step time PLUM's proposal leaves in
//! place of the mean (plume's decision: the stripes' whole roots and the halo never reach the
//! mean). Everything is the case's modelled machine, so a run is reproducible: the loads are the
//! ranks' modelled step times (fluid work and halo), a balance of either kind costs
//! [`Machine::balance_cost`](super::machine::Machine::balance_cost) of what it moves
//! (`α + β · MaxSR`: the fixed cost stands for deciding), so `C_dec = 0`; `α`, `β` are fitted on
//! the balances done (`MaxV` against their cost), the machine's before.

use plume::balance::{select, Action, ActionCosts, MovementCost, Plum, Replay};
use plume::dist::{MovedGlobal, SelectRecord};
use plume::graph::DualGraph;
use plume::metrics::{rank_loads, Movement};
use plume::partition::{Diffusion, Quotient, Refinement, Sweeps};

use super::layout::fluid_weights;
use super::ErosionConfig;

/// Iterations a decision point looks ahead (`steps` of eq. 3.4–3.7): shock's `N_adapt`; the
/// erosion case decides after every iteration, and a balance lasts tens of them.
pub const HORIZON: usize = 20;

/// `λ*` of Algorithm 5, percent: PLUM's trigger, `LoadImb` 1.05.
const THRESHOLD_PCT: f64 = 5.0;

/// The choice's state: the balances done, for `α` and `β`.
pub(super) struct Selector {
    /// The balances done (`MaxV` against their cost): a checkpoint keeps them.
    pub(super) movement: MovementCost,
}

/// What a decision point chose and did.
pub(super) struct Chosen {
    /// The new owners (`None`: none was chosen).
    pub new_owner: Option<Vec<u32>>,
    /// The modelled cost of the action, seconds.
    pub cost: f64,
    /// The record.
    pub record: SelectRecord,
}

impl Selector {
    /// No balance done yet.
    pub(super) fn new() -> Selector {
        Selector {
            movement: MovementCost::new(0.0),
        }
    }

    /// The choice after an iteration of `cfg`'s run with `plum` (the case's, accepting every
    /// remap) on `graph` with `fluid` work per root and the owners `owner`.
    pub(super) fn decide(
        &mut self,
        cfg: &ErosionConfig,
        plum: &Plum,
        graph: &DualGraph,
        fluid: &[u64],
        owner: &[u32],
    ) -> plume::Result<Chosen> {
        let p = cfg.procs;
        let m = &cfg.machine;
        let times = |o: &[u32]| m.step_times(&rank_loads(fluid, o, p), graph, o);
        let loads = times(owner);
        let elements: Vec<f64> = rank_loads(&graph.weights.rwgt, owner, p)
            .iter()
            .map(|&e| e as f64)
            .collect();
        let q = Quotient::of_partition(graph.xadj(), graph.adjncy(), owner, p);
        let weights = fluid_weights(graph, fluid);
        let view = graph.view(&weights)?;
        let proposal = plum.propose(&view, owner, None)?;
        let global = proposal.new_owner.unwrap_or_else(|| owner.to_vec());
        let sweep = Diffusion {
            sweeps: Sweeps::Fixed(1),
            gamma: None,
            rounds: 1,
            refine: Refinement::OFF,
        };
        let (diffused, _) = sweep.rebalance(&view, owner, p)?;
        let per_element = m.element_bytes / m.bandwidth;
        let (alpha, beta) = self
            .movement
            .fit()
            .unwrap_or((m.balance_fixed, per_element));
        let exact = proposal.movement.max_v as f64;
        let costs = ActionCosts {
            alpha,
            beta,
            diffusive_decision: 0.0,
            global: alpha + beta * exact,
        };
        let gamma = q.safe_gamma();
        let selection = select(
            &loads,
            &elements,
            &q,
            (gamma, THRESHOLD_PCT),
            HORIZON,
            &costs,
        )?;
        // The global action's time with the largest load PLUM's proposal leaves, not the
        // mean (eq. 3.5 assumes a perfect balance; whole roots and the halo fall short of it).
        let max = |t: Vec<f64>| t.into_iter().fold(0.0, f64::max);
        let steps = HORIZON as f64;
        let selection = selection.with_global(costs.global + steps * max(times(&global)));
        let moving = |new: &[u32]| Movement::new(owner, new, &graph.weights.rwgt, p);
        let cost_of = |new: &[u32]| {
            let mv = moving(new);
            (mv.total_v > 0).then(|| (m.balance_cost(mv.max_sr), mv.max_v))
        };
        let replayed = |new: &[u32]| cost_of(new).map_or(0.0, |c| c.0) + steps * max(times(new));
        let replay = Replay {
            none: steps * max(loads.clone()),
            diffusive: replayed(&diffused),
            global: replayed(&global),
        };
        let new_owner = match selection.choice {
            Action::None => None,
            Action::Diffusive => Some(diffused),
            Action::Global => Some(global),
        };
        let done = new_owner.as_deref().and_then(cost_of);
        if let Some((cost, max_v)) = done {
            self.movement.record(max_v as f64, cost);
        }
        Ok(Chosen {
            cost: done.map_or(0.0, |c| c.0),
            new_owner: new_owner.filter(|_| done.is_some()),
            record: SelectRecord {
                selection,
                costs,
                moved_global: MovedGlobal::of(&loads, &elements, Some(exact)),
                replay: Some(replay),
            },
        })
    }
}
