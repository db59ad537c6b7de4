//! [`Select`]: [Pearce 2014]'s choice among doing nothing, a diffusive step and a global
//! repartition (`docs/design/diffusive.md`) as a run's balancer. At every decision point the ranks
//! all-gather their loads (`PWgt`, in seconds of an iteration: `· T_iter`), the elements they
//! hold (the sizes their trees move with) and the ranks next to them: O(P) each, the quotient
//! graph. Rank 0 predicts the three actions' times over the `N_adapt` iterations to the next
//! adaptation ([`select`](crate::balance::select)) with the costs measured so far and
//! broadcasts the choice; then every rank does it:
//! - none: nothing moves;
//! - diffusive: [`Diffusive`], the diffusive repartitioner on the ranks' rows, realising the
//!   flows of the `N_adapt` sweeps Algorithm 5 simulated (one a step; the run's steps are the
//!   decision points, so they are realised at once, in one round);
//! - global: [`GatheredPlum`]'s repartition on rank 0, forced (neither the policy nor the
//!   accept rule is asked: the selection weighed it).
//!
//! When PLUM proposed (the exact estimate, or the replay), the global action's time takes the
//! largest load the proposal leaves in place of eq. 3.5's mean (plume's decision: whole roots
//! never reach the mean; [Pearce 2014]'s formula stands otherwise).
//!
//! The costs: `α`, `β` fitted on the balances done (`α + β · MaxV` against their modelled
//! cost, as `cost-benefit` fits them; PLUM's `overhead` and `per_element` before two balances
//! moved different amounts); `C_dec_diff` the measured time of one sweep of the simulation on
//! rank 0; `C_dec_global` PLUM's measured partition + similarity + remap time, of this
//! decision's proposal when there is one, else of the last global repartition (0 before the
//! first). Measured times make a run's choices depend on the machine: [`SelectOptions::decision`]
//! fixes them for a reproducible run.
//!
//! Rank 0 keeps PLUM's gathered graph up to date at every decision point (the global action
//! needs it; the changed rows only, as [`GatheredPlum`] always does) and hears of the roots
//! diffusion moved, so that it keeps every root's owner. With [`SelectOptions::replay`] it
//! also replays the decision point under all three actions on that graph
//! (`docs/design/diffusive.md`): each action's new owners (the diffusive repartitioner on the whole
//! graph gives the owners it gives on the ranks; PLUM's proposal), its decision cost, the modelled
//! cost of what it moves and `N_adapt` iterations at the largest load it leaves.

use std::time::Instant;

use super::balancer::{BalanceOutcome, Balancer, Decision, HeldRows};
use super::{Diffusive, GatheredPlum};
use crate::balance::policy::{decode_history, encode_history, tag_state, untag_state};
use crate::balance::{
    elements_to_move, select, Accept, Action, ActionCosts, Balance, MovementCost, Periodic, Plum,
    Replay, Selection,
};
use crate::comm::{Comm, CommExt};
use crate::graph::DualGraph;
use crate::metrics::{rank_loads, Imbalance, Movement};
use crate::partition::{simulate, Diffusion, Metis, Quotient, Refinement, Sweeps};
use crate::{Error, Result};

/// The name [`Select`]'s state is tagged with in a checkpoint.
const SELECT: &str = "select";

/// How the elements a global repartition moves (`ElementsMoved_global`) are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MovedEstimate {
    /// Eq. 3.3 as [Pearce 2014] prints it: `E_max · L_ave / (L_max − L_ave)` (0 when balanced).
    Seed,
    /// plume's inversion of eq. 3.3 ([`elements_to_move`]).
    Plume,
    /// The `MaxV` of the remap PLUM proposes now (rank 0 runs PLUM at every decision point).
    #[default]
    Exact,
}

/// [`Select`]'s settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectOptions {
    /// `λ*` of Algorithm 5, percent: the sweeps started above it are `convergence_steps`.
    pub threshold_pct: f64,
    /// The diffusion constant; `None`: `1 / (1 + Δ)` of the quotient graph.
    pub gamma: Option<f64>,
    /// Which `ElementsMoved_global` the prediction uses.
    pub moved: MovedEstimate,
    /// Replay every decision point under the three actions on rank 0 (`docs/design/diffusive.md`).
    pub replay: bool,
    /// `(C_dec_diff, C_dec_global)` in seconds (`C_dec_diff` a sweep's); `None`: measured.
    pub decision: Option<(f64, f64)>,
}

impl Default for SelectOptions {
    /// `λ*` 5 % (PLUM's trigger, `LoadImb` 1.05), the safe γ, the exact estimate, no replay,
    /// measured decision costs.
    fn default() -> Self {
        SelectOptions {
            threshold_pct: 5.0,
            gamma: None,
            moved: MovedEstimate::Exact,
            replay: false,
            decision: None,
        }
    }
}

/// `ElementsMoved_global` by each estimate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MovedGlobal {
    /// Eq. 3.3 as printed.
    pub seed: f64,
    /// plume's inversion.
    pub plume: f64,
    /// The proposal's `MaxV` (`None` when PLUM was not asked).
    pub exact: Option<f64>,
}

impl MovedGlobal {
    /// The estimates for parts with `loads` holding `elements` (`E_max`: the elements of
    /// the first most loaded part), `exact` the proposal's `MaxV` when there is one.
    ///
    /// ```
    /// use plume::dist::MovedGlobal;
    /// // Loads 150 and 50 (mean 100), the heavier part holding 3000 elements.
    /// let m = MovedGlobal::of(&[150.0, 50.0], &[3000.0, 1000.0], None);
    /// assert_eq!((m.seed, m.plume), (6000.0, 1000.0));
    /// ```
    pub fn of(loads: &[f64], elements: &[f64], exact: Option<f64>) -> MovedGlobal {
        let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
        let heaviest = (0..loads.len()).fold(0, |m, k| if loads[k] > loads[m] { k } else { m });
        let (max, e_max) = (
            loads.get(heaviest).copied().unwrap_or(0.0),
            elements.get(heaviest).copied().unwrap_or(0.0),
        );
        MovedGlobal {
            seed: match max > mean {
                true => e_max * mean / (max - mean),
                false => 0.0,
            },
            plume: elements_to_move(e_max, max, mean),
            exact,
        }
    }
}

/// What [`Select`] found at one decision point, the same on every rank.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SelectRecord {
    /// The three predicted times, `convergence_steps` and the choice.
    pub selection: Selection,
    /// The costs the prediction used (`global`: `C_global`, the movement included).
    pub costs: ActionCosts,
    /// `ElementsMoved_global` by each estimate.
    pub moved_global: MovedGlobal,
    /// The three actions replayed (with [`SelectOptions::replay`]).
    pub replay: Option<Replay>,
}

/// The choice among none, diffusive and global as a run's balancer (see the module doc).
pub struct Select {
    plum: GatheredPlum,
    diffusive: Diffusive,
    diffusion: Diffusion,
    opts: SelectOptions,
    /// `T_iter`, `N_adapt` and the modelled cost of moving.
    model: crate::balance::RemapCostModel,
    /// The balances done: `(MaxV, modelled cost)`.
    movement: MovementCost,
    /// Rank 0's: PLUM's decision time at the last global repartition, seconds.
    last_global: f64,
    /// Ranks the balancer is set for.
    procs: usize,
}

impl Select {
    /// The choice over `plum`'s ranks, cost model, partitioners and remapper (its policy and
    /// accept rule are not asked: the selection decides), the diffusive step the diffusive
    /// repartitioner's, `N_adapt` sweeps in one round.
    ///
    /// # Errors
    /// [`Error::Invalid`] unless PLUM has one part per rank (the selection's parts are the
    /// ranks) and `opts` are numbers in range.
    pub fn new(mut plum: Plum, opts: SelectOptions) -> Result<Select> {
        let p = plum.opts.nprocs;
        if plum.opts.parts_per_proc != 1 {
            return Err(Error::Invalid(format!(
                "select: its parts are the ranks, one per rank, not {}",
                plum.opts.parts_per_proc
            )));
        }
        if !(opts.threshold_pct.is_finite() && opts.threshold_pct >= 0.0) {
            return Err(Error::Invalid(format!(
                "select: the threshold λ* = {} % is not a non-negative number",
                opts.threshold_pct
            )));
        }
        if let Some((sweep, global)) = opts.decision {
            if !(sweep >= 0.0 && global >= 0.0 && sweep.is_finite() && global.is_finite()) {
                return Err(Error::Invalid(format!(
                    "select: decision costs ({sweep}, {global}) s are not non-negative numbers"
                )));
            }
        }
        plum.opts.accept = Accept::Always;
        let model = plum.opts.model;
        let diffusion = Diffusion {
            sweeps: Sweeps::Fixed(model.iterations.max(1)),
            gamma: opts.gamma,
            rounds: 1,
            refine: Refinement::OFF,
        };
        let diffusive = Diffusive::with(
            plum.opts.clone(),
            diffusion,
            Box::new(Periodic::new(1)),
            Box::new(Metis::default()),
        )?;
        Ok(Select {
            procs: p,
            plum: GatheredPlum::new(plum),
            diffusive,
            diffusion,
            opts,
            model,
            movement: MovementCost::new(0.0),
            last_global: 0.0,
        })
    }

    /// `(α, β)`: fitted on the balances done, PLUM's cost model before.
    fn alpha_beta(&self) -> (f64, f64) {
        self.movement
            .fit()
            .unwrap_or((self.model.overhead, self.model.per_element))
    }

    /// Rank 0's decision from every rank's `(PWgt, elements, neighbouring ranks)`: the record
    /// and PLUM's proposal when it made one.
    fn decide(&self, ranks: &[(u64, u64, Vec<u32>)]) -> Result<(SelectRecord, Option<Balance>)> {
        let p = ranks.len();
        let t = self.model.time_per_load;
        let steps = self.model.iterations;
        let loads: Vec<f64> = ranks.iter().map(|r| r.0 as f64 * t).collect();
        let elements: Vec<f64> = ranks.iter().map(|r| r.1 as f64).collect();
        let edges = ranks
            .iter()
            .enumerate()
            .flat_map(|(k, r)| r.2.iter().map(move |&j| (k as u32, j)));
        let q = Quotient::from_edges(p, edges);
        let gamma = self.opts.gamma.unwrap_or_else(|| q.safe_gamma());
        let asks_plum = self.opts.moved == MovedEstimate::Exact || self.opts.replay;
        let proposal = asks_plum.then(|| self.plum.propose()).transpose()?;
        let clock = Instant::now();
        simulate(&loads, &elements, &q, gamma, self.opts.threshold_pct, steps)?;
        let swept = clock.elapsed().as_secs_f64() / steps.max(1) as f64;
        let proposed = proposal.as_ref().map(|b| {
            let times = b.times;
            (times.partition + times.similarity + times.reassign).as_secs_f64()
        });
        let (sweep, deciding) = self
            .opts
            .decision
            .unwrap_or((swept, proposed.unwrap_or(self.last_global)));
        let exact = proposal.as_ref().map(|b| b.movement.max_v as f64);
        let moved_global = MovedGlobal::of(&loads, &elements, exact);
        let moved = match self.opts.moved {
            MovedEstimate::Seed => moved_global.seed,
            MovedEstimate::Plume => moved_global.plume,
            MovedEstimate::Exact => moved_global.exact.unwrap_or(0.0),
        };
        let (alpha, beta) = self.alpha_beta();
        let costs = ActionCosts {
            alpha,
            beta,
            diffusive_decision: sweep,
            global: deciding + alpha + beta * moved,
        };
        let threshold = self.opts.threshold_pct;
        let mut selection = select(&loads, &elements, &q, (gamma, threshold), steps, &costs)?;
        if let Some(after) = proposal.as_ref().and_then(|b| self.largest_load(b)) {
            selection = selection.with_global(costs.global + steps as f64 * after);
        }
        let replay = match (&proposal, self.opts.replay) {
            (Some(b), true) => Some(self.replay(b, (sweep * steps as f64, deciding))?),
            _ => None,
        };
        let record = SelectRecord {
            selection,
            costs,
            moved_global,
            replay,
        };
        Ok((record, proposal))
    }

    /// Rank 0's replay of the decision point under the three actions (`global`: PLUM's
    /// proposal; `decision`: the diffusive and the global action's decision costs).
    fn replay(&self, global: &Balance, (diffusing, deciding): (f64, f64)) -> Result<Replay> {
        let (graph, owner, moving) = self.plum.whole().ok_or_else(|| {
            Error::Invalid("select: rank 0 has no dual graph to replay on".into())
        })?;
        let view = graph.view(&graph.weights)?;
        let p = self.procs;
        let time = |new: &[u32], decision: f64| {
            let m = Movement::new(owner, new, moving, p);
            let moving_cost = match m.total_v > 0 {
                true => self.model.cost(m.max_sr),
                false => 0.0,
            };
            let max = rank_loads(view.vertex_weights(), new, p)
                .into_iter()
                .max()
                .unwrap_or(0);
            decision + moving_cost + self.steps() * max as f64 * self.model.time_per_load
        };
        let (diffused, _) = self.diffusion.rebalance(&view, owner, p)?;
        let proposed = global.new_owner.as_deref().unwrap_or(owner);
        Ok(Replay {
            none: time(owner, 0.0),
            diffusive: time(&diffused, diffusing),
            global: time(proposed, deciding),
        })
    }

    /// The largest load (seconds of an iteration) PLUM's proposal `b` leaves, on rank 0's
    /// graph (`None` elsewhere).
    fn largest_load(&self, b: &Balance) -> Option<f64> {
        let (graph, owner, _) = self.plum.whole()?;
        let new = b.new_owner.as_deref().unwrap_or(owner);
        let loads = rank_loads(&graph.weights.pwgt, new, self.procs);
        Some(loads.into_iter().max().unwrap_or(0) as f64 * self.model.time_per_load)
    }

    /// `N_adapt`, as a number of steps to multiply by.
    fn steps(&self) -> f64 {
        self.model.iterations as f64
    }
}

impl Balancer for Select {
    fn check(&self, ranks: usize) -> Result<()> {
        self.plum.check(ranks)
    }

    /// PLUM's first partition; rank 0 keeps the graph.
    fn first_owners(&mut self, graph: DualGraph, ranks: usize) -> Result<Vec<u32>> {
        self.plum.first_owners(graph, ranks)
    }

    fn balance(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<Decision> {
        self.plum.observe(comm, held)?;
        let rows = held.rows;
        let rank = comm.rank() as u32;
        let mut adjacent: Vec<u32> = rows.owner.iter().copied().filter(|&o| o != rank).collect();
        adjacent.sort_unstable();
        adjacent.dedup();
        let mine = (
            rows.pwgt.iter().sum::<u64>(),
            held.moving.iter().sum::<u64>(),
            adjacent,
        );
        let ranks: Vec<(u64, u64, Vec<u32>)> = comm.all_gather_serde(&mine)?;
        let decided = match rank {
            0 => self.decide(&ranks).map(Some),
            _ => Ok(None),
        };
        let decided = comm.agree(decided)?;
        let (record, proposal) = match decided {
            Some((record, proposal)) => (Some(record), proposal),
            None => (None, None),
        };
        let record: SelectRecord = comm.broadcast_serde(0, record.as_ref())?;
        let mut decision = match record.selection.choice {
            Action::None => {
                let loads: Vec<f64> = ranks.iter().map(|r| r.0 as f64).collect();
                let imb = Imbalance::from_f64(&loads).load_imb;
                Decision {
                    outcome: Some(BalanceOutcome::untriggered(imb)),
                    ..Decision::default()
                }
            }
            Action::Diffusive => {
                let d = self.diffusive.balance(comm, held)?;
                self.plum.moved_by_others(comm, &d.leaving)?;
                d
            }
            Action::Global => {
                let proposed = match (rank, proposal) {
                    (0, Some(b)) => Ok(Some(b)),
                    (0, None) => self.plum.propose().map(Some),
                    _ => Ok(None),
                };
                let d = self.plum.carry_out(comm, proposed)?;
                if let Some(b) = &d.plum {
                    let t = b.times;
                    self.last_global = (t.partition + t.similarity + t.reassign).as_secs_f64();
                }
                d
            }
        };
        if let Some(outcome) = decision.outcome.as_mut() {
            if outcome.accepted && outcome.volumes[0] > 0 {
                self.movement
                    .record(outcome.volumes[1] as f64, outcome.cost);
            }
            outcome.select = Some(record);
        }
        Ok(decision)
    }

    fn observe(&mut self, comm: &dyn Comm, held: HeldRows<'_>) -> Result<()> {
        self.plum.observe(comm, held)
    }

    /// The balances done (every rank's), rank 0's last global decision time and the
    /// diffusive step's policy's history.
    fn save_state(&self) -> Vec<u8> {
        let history = (
            self.movement.history(),
            self.last_global,
            self.diffusive.save_state(),
        );
        tag_state(SELECT, encode_history(&history))
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(state) = untag_state(SELECT, bytes)? else {
            return Ok(());
        };
        let (movement, last_global, diffusive): (_, f64, Vec<u8>) = decode_history(SELECT, &state)?;
        self.movement.restore(movement);
        self.last_global = last_global;
        self.diffusive.restore_state(&diffusive)
    }

    fn graph(&self) -> Option<&DualGraph> {
        self.plum.graph()
    }

    fn owners(&self) -> Option<&[u32]> {
        self.plum.owners()
    }

    fn moving(&self) -> Option<&[u64]> {
        self.plum.moving()
    }
}
