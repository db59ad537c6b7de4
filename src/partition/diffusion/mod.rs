//! The diffusive repartitioner (`docs/design/diffusive.md`; [Harvey 2001, §5.1.2]'s "diffusive
//! repartitioners … use the current partition as a starting point"): from the current owners,
//! 1. the quotient graph `Q` of the parts ([`Quotient`]);
//! 2. synchronous diffusion sweeps on the parts' loads (`PWgt`), accumulating the net flow
//!    `F_kj` across every edge of `Q` ([`diffuse`]);
//! 3. each part gives away roots to realise its outgoing flows, largest first, choosing by
//!    `ΔCut` and growing breadth-first ([`give_away`]);
//! 4. rounds: 1–3 again from the new owners, until a round moves nothing, does not lower `λ`
//!    (its moves are then withdrawn) or [`Diffusion::rounds`] have run. A part passing load
//!    along (a flow out larger than what it holds near the receiver) gives in the next round
//!    what it received in this one; a root moves at most once per round;
//! 5. boundary refinement ([`Refinement`]): passes of greedy gain moves of boundary roots
//!    between neighbouring parts under a balance bound, which lower the cut the flows left
//!    and never raise it (`refine.rs`, after ParMETIS's adaptive k-way refinement);
//! 6. the new owners and a [`DiffusionReport`].
//!
//! Steps 1–2 need only `Q` and the P loads, which ranks can all-gather; steps 3 and 5 need
//! only a rank's own rows of the dual graph ([`Rows`]) and P sums. So no rank needs the whole graph:
//! [`Diffusion::on_rank`] runs it on ranks ([`crate::comm`]), [`Diffusion::rebalance`] on the
//! whole graph, with the same owners. Parts are ranks: under PLUM the remap is the identity.
//!
//! [Pearce 2014]'s Algorithm 5, the simulator of diffusion that weighs it against global
//! balancing, runs on the same sweep: [`simulate`].
//!
//! ```
//! use plume::graph::GraphView;
//! use plume::partition::{Diffusion, Sweeps};
//! // A path of 12 unit roots on parts [0×6, 1×3, 2×3] (`docs/design/diffusive.md`).
//! let xadj: Vec<u32> = (0..12).map(|v: u32| (2 * v).saturating_sub(1)).chain([22]).collect();
//! let adjncy: Vec<u32> = (0..12u32)
//!     .flat_map(|v| [v.wrapping_sub(1), v + 1].into_iter().filter(|&w| w < 12))
//!     .collect();
//! let g = GraphView::new(&xadj, &adjncy, &[1; 22], &[1; 12]).unwrap();
//! let owners = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2];
//! let one = Diffusion { sweeps: Sweeps::Fixed(1), rounds: 1, ..Default::default() };
//! let (new, report) = one.rebalance(&g, &owners, 3).unwrap();
//! assert_eq!(new, [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]); // root 5 moves to part 1
//! assert_eq!(report.roots_moved, 1);
//! ```

mod give;
mod held;
mod quotient;
mod ranks;
mod refine;
mod sweep;

pub use give::{give_away, Rows};
pub use quotient::Quotient;
pub use ranks::RankDiffusion;
pub use sweep::{
    check_diffusion, diffuse, lambda_pct, simulate, sweep, Diffused, Flow, Simulation, Sweeps,
};

use super::{check_arguments, finish, PartitionInfo, Partitioner, Targets};
use crate::graph::GraphView;
use crate::metrics::{rank_loads, Movement};
use crate::{Error, Result};
pub(crate) use held::Flat;

/// `λ*` of [`Diffusion::default`], percent: diffusion runs until the diffused loads are within
/// 1 % of the mean, below PLUM's trigger (`LoadImb` 1.05), so that rounding to whole roots
/// leaves the next step below the trigger.
pub const DEFAULT_LAMBDA_PCT: f64 = 1.0;

/// Most sweeps of [`Diffusion::default`]: enough for a path of 100 parts to converge; a sweep
/// costs one pass over `Q`'s edges.
pub const DEFAULT_MAX_SWEEPS: usize = 100_000;

/// Most rounds of [`Diffusion::default`]. Each round after the first realises what whole
/// roots and parts passing load along left of the previous round's flows; on the shock case
/// (P = 8 … 32) the rounds stop by themselves well before this.
pub const DEFAULT_MAX_ROUNDS: usize = 64;

/// Boundary refinement after the flows: passes of greedy moves of boundary roots to the
/// neighbouring part that saves the most cut weight, each pass from the parts on one side of
/// a bit of their numbers to those on the other side, within a balance bound (`refine.rs`'s
/// module doc). The cut never rises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refinement {
    /// Most times the parts' fragments are given away before rounds run again: each part
    /// gives every connected piece of it but the heaviest to the part it shares the most
    /// `CWgt` with (the cut falls), then rounds rebalance; a tidying and its rounds are
    /// withdrawn, ending them, when they leave `λ` above the larger of `λ` before and
    /// `100 · slack`. 0: none.
    pub tidy: usize,
    /// Most cycles of passes (a cycle: `2 ⌈log₂ P⌉` passes, every ordered pair of parts
    /// once); a cycle that moves nothing ends them; 0: no refinement.
    pub cycles: usize,
    /// The balance bound, a fraction of the mean load: no move takes a part above
    /// `mean (1 + slack)` or one below `mean (1 − slack)`.
    pub slack: f64,
}

impl Refinement {
    /// No tidying and no refinement passes: the rounds alone, the repartitioner as
    /// `docs/design/diffusive.md` describes it.
    pub const OFF: Refinement = Refinement {
        tidy: 0,
        cycles: 0,
        slack: 0.03,
    };

    /// Whether it neither tidies nor refines.
    pub fn is_off(&self) -> bool {
        self.tidy == 0 && self.cycles == 0
    }
}

/// [`Refinement::default`]: at most 6 tidyings and 8 cycles, within 3 % of the mean load (below PLUM's
/// trigger, `LoadImb` 1.05).
impl Default for Refinement {
    fn default() -> Self {
        Refinement {
            tidy: 6,
            cycles: 8,
            slack: 0.03,
        }
    }
}

/// The diffusive repartitioner's options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Diffusion {
    /// When the sweeps stop: `Fixed(1)` is one diffusive step, `UntilBalanced` "global by
    /// diffusion".
    pub sweeps: Sweeps,
    /// The diffusion constant; `None`: `1 / (1 + Δ)` ([`Quotient::safe_gamma`]).
    pub gamma: Option<f64>,
    /// Most rounds of quotient graph → flows → choice (`1`: the flows of the first owners
    /// only, as `docs/design/diffusive.md` states them). Rounds stop earlier when one moves
    /// nothing or does not lower `λ`.
    pub rounds: usize,
    /// The boundary refinement after the rounds.
    pub refine: Refinement,
}

impl Default for Diffusion {
    /// Until `λ ≤ 1 %`, `γ = 1 / (1 + Δ)`, up to 64 rounds; neither tidying nor refinement
    /// ([`Refinement::OFF`]: the repartitioner of `docs/design/diffusive.md`;
    /// [`Refinement::default`] lowers the cut for more collectives a balance).
    fn default() -> Self {
        Diffusion {
            sweeps: Sweeps::UntilBalanced {
                lambda_pct: DEFAULT_LAMBDA_PCT,
                max: DEFAULT_MAX_SWEEPS,
            },
            gamma: None,
            rounds: DEFAULT_MAX_ROUNDS,
            refine: Refinement::OFF,
        }
    }
}

/// What the diffusive repartitioner did.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionReport {
    /// The diffusion constant of the first round.
    pub gamma: f64,
    /// Sweeps run, over all rounds.
    pub sweeps: usize,
    /// Rounds whose moves stand (those after each tidying included).
    pub rounds: usize,
    /// The net flows `F_kj > 0` of the first round, largest first.
    pub flows: Vec<Flow>,
    /// Roots whose owner at the end differs from their owner at the start.
    pub roots_moved: usize,
    /// Roots moved with their fragments by the tidying that stands (a root may move several
    /// times in a call).
    pub tidied: usize,
    /// Moves the refinement passes made.
    pub refine_moves: usize,
    /// Their `PWgt`.
    pub weight_moved: u64,
    /// `λ` of the parts' `PWgt` before, percent.
    pub lambda_before: f64,
    /// `λ` of the first round's diffused loads (before rounding to whole roots), percent.
    pub lambda_diffused: f64,
    /// `λ` of the parts' `PWgt` after, percent.
    pub lambda_after: f64,
    /// TotalV, MaxV, MaxSR from the first owners to the last, in the graph's sizes (`RWgt`).
    pub movement: Movement,
    /// True when the last round's moves would not have lowered `λ` (whole roots rounding
    /// several flows into one part the same way) and were withdrawn; the other fields
    /// describe the rounds that stand.
    pub withdrawn: bool,
}

/// The rounds of one call so far, the same on every rank.
#[derive(Clone)]
struct Tally {
    /// γ, the flows and the diffused `λ` of the first round.
    first: Option<(f64, Vec<Flow>, f64)>,
    sweeps: usize,
    rounds: usize,
    withdrawn: bool,
    tidied: usize,
    refine_moves: usize,
    /// The parts' `PWgt` before the call and after the rounds that stand.
    start: Vec<u64>,
    loads: Vec<u64>,
}

impl Tally {
    fn new(loads: Vec<u64>) -> Tally {
        Tally {
            first: None,
            sweeps: 0,
            rounds: 0,
            withdrawn: false,
            tidied: 0,
            refine_moves: 0,
            start: loads.clone(),
            loads,
        }
    }

    /// Records a round (its γ, sweeps, flows, whether it moved a root, the loads it leaves)
    /// and says whether its moves stand: they moved something and lowered `λ`.
    fn round(
        &mut self,
        gamma: f64,
        diffused: &Diffused,
        flows: Vec<Flow>,
        moved: bool,
        after: Vec<u64>,
    ) -> bool {
        if self.first.is_none() {
            self.first = Some((gamma, flows, lambda_pct(&diffused.loads)));
        }
        self.sweeps += diffused.sweeps;
        if !moved {
            return false;
        }
        if lambda_pct(&as_f64(&after)) >= lambda_pct(&as_f64(&self.loads)) {
            self.withdrawn = true;
            return false;
        }
        self.rounds += 1;
        self.loads = after;
        true
    }

    /// The report, with what moved from the first owners to the last.
    fn report(self, roots_moved: usize, weight_moved: u64, movement: Movement) -> DiffusionReport {
        let (gamma, flows, lambda_diffused) = self.first.expect("at least one round");
        DiffusionReport {
            gamma,
            sweeps: self.sweeps,
            rounds: self.rounds,
            flows,
            roots_moved,
            tidied: self.tidied,
            refine_moves: self.refine_moves,
            weight_moved,
            lambda_before: lambda_pct(&as_f64(&self.start)),
            lambda_diffused,
            lambda_after: lambda_pct(&as_f64(&self.loads)),
            movement,
            withdrawn: self.withdrawn,
        }
    }
}

/// The flows one round realises: a part passing load along may have to send on more than it
/// holds (it receives in the same round); its outgoing flows are scaled down so that it keeps
/// at least half of the smaller of its load and the mean, and the next round sends on the
/// rest. A part that gave everything away would leave the quotient graph for good.
/// Largest first, as [`Diffused::flows`].
fn within_reach(mut flows: Vec<Flow>, loads: &[f64]) -> Vec<Flow> {
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let mut out = vec![0.0; loads.len()];
    flows.iter().for_each(|f| out[f.from as usize] += f.amount);
    for f in &mut flows {
        let k = f.from as usize;
        let reach = loads[k] - loads[k].min(mean) / 2.0;
        if out[k] > reach {
            f.amount *= reach / out[k];
        }
    }
    flows.sort_by(|x, y| {
        y.amount
            .total_cmp(&x.amount)
            .then((x.from, x.to).cmp(&(y.from, y.to)))
    });
    flows
}

/// Each part's rows of `graph` under `owner`, as a rank holds them.
fn parts_rows(graph: &GraphView<'_>, owner: &[u32], nparts: usize) -> Vec<Flat> {
    let mut members = vec![Vec::new(); nparts];
    (0..owner.len() as u32).for_each(|v| members[owner[v as usize] as usize].push(v));
    members
        .iter()
        .map(|roots| Flat::of_graph(graph, owner, roots))
        .collect()
}

/// The moves each part makes by `choose` from its `rows`, all parts' together, ascending by
/// root.
fn each_of(
    rows: &[Flat],
    mut choose: impl FnMut(Rows<'_>, u32) -> Result<Vec<(u32, u32)>>,
) -> Result<Vec<(u32, u32)>> {
    let mut moves = Vec::new();
    for (k, r) in rows.iter().enumerate() {
        moves.extend(choose(r.rows(), k as u32)?);
    }
    moves.sort_unstable();
    Ok(moves)
}

/// The moves each part of `owner` makes by `choose` from its own rows of `graph`.
fn each_part(
    graph: &GraphView<'_>,
    owner: &[u32],
    nparts: usize,
    choose: impl FnMut(Rows<'_>, u32) -> Result<Vec<(u32, u32)>>,
) -> Result<Vec<(u32, u32)>> {
    each_of(&parts_rows(graph, owner, nparts), choose)
}

fn as_f64(loads: &[u64]) -> Vec<f64> {
    loads.iter().map(|&l| l as f64).collect()
}

impl Diffusion {
    /// The diffusion constant for `q`, the sweeps from the parts' `loads`, and the flows a
    /// round realises ([`within_reach`]).
    fn plan(&self, q: &Quotient, loads: &[f64]) -> Result<(f64, Diffused, Vec<Flow>)> {
        let gamma = self.gamma.unwrap_or_else(|| q.safe_gamma());
        let diffused = diffuse(q, loads, gamma, self.sweeps)?;
        let flows = within_reach(diffused.flows(q), loads);
        Ok((gamma, diffused, flows))
    }

    /// The new owner of every vertex of `graph` from `owner` (a part `< nparts` per vertex),
    /// with the report. Each part's choice reads only its own rows, as on ranks. Never raises
    /// `λ`: a round whose moves would not lower it is withdrawn
    /// ([`DiffusionReport::withdrawn`]) and ends the call.
    ///
    /// # Errors
    /// [`Error::Zero`] for no parts or rounds, [`Error::LengthMismatch`] and
    /// [`Error::RankOutOfRange`] for a bad `owner`, [`Error::Invalid`] for a bad γ.
    pub fn rebalance(
        &self,
        graph: &GraphView<'_>,
        owner: &[u32],
        nparts: usize,
    ) -> Result<(Vec<u32>, DiffusionReport)> {
        self.check(nparts)?;
        crate::balance::ranks::check_assignment("owner", owner, graph.nvertices(), nparts)?;
        let pwgt = graph.vertex_weights();
        let mut new = owner.to_vec();
        let mut tally = Tally::new(rank_loads(pwgt, owner, nparts));
        self.rounds_of_parts(graph, &mut new, &mut tally)?;
        for _ in 0..self.refine.tidy {
            let kept = (new.clone(), tally.clone());
            let moves = each_part(graph, &new, nparts, refine::fragments)?;
            if moves.is_empty() {
                break;
            }
            moves.iter().for_each(|&(v, to)| new[v as usize] = to);
            tally.loads = rank_loads(pwgt, &new, nparts);
            tally.tidied += moves.len();
            self.rounds_of_parts(graph, &mut new, &mut tally)?;
            if !self.tidy_stands(&kept.1, &tally) {
                (new, tally) = kept;
                break;
            }
        }
        self.refine_parts(graph, &mut new, &mut tally)?;
        let moved: Vec<usize> = (0..new.len()).filter(|&v| new[v] != owner[v]).collect();
        let report = tally.report(
            moved.len(),
            moved.iter().map(|&v| pwgt[v]).sum(),
            Movement::new(owner, &new, graph.sizes(), nparts),
        );
        Ok((new, report))
    }

    /// The rounds from the owners `new` of `graph` (the loads in `tally`), each part's moves
    /// read from its own rows as on ranks.
    fn rounds_of_parts(
        &self,
        graph: &GraphView<'_>,
        new: &mut Vec<u32>,
        tally: &mut Tally,
    ) -> Result<()> {
        let nparts = tally.loads.len();
        for _ in 0..self.rounds {
            let q = Quotient::of_partition(graph.xadj(), graph.adjncy(), new, nparts);
            let (gamma, diffused, flows) = self.plan(&q, &as_f64(&tally.loads))?;
            let moves = each_part(graph, new, nparts, |rows, k| give_away(rows, k, &flows))?;
            let mut next = new.clone();
            moves.iter().for_each(|&(v, to)| next[v as usize] = to);
            let after = rank_loads(graph.vertex_weights(), &next, nparts);
            if !tally.round(gamma, &diffused, flows, next != *new, after) {
                break;
            }
            *new = next;
        }
        Ok(())
    }

    /// A tidying and the rounds after it stand when they leave `λ` within the larger of
    /// `λ` before (`kept`) and the refinement's slack.
    fn tidy_stands(&self, kept: &Tally, tally: &Tally) -> bool {
        let lambda = |t: &Tally| lambda_pct(&as_f64(&t.loads));
        lambda(tally) <= lambda(kept).max(100.0 * self.refine.slack)
    }

    /// [`Refinement`] of the owners `new` of `graph` (the loads in `tally`), each part's
    /// moves read from its own rows as on ranks; the loads and the moves counted in `tally`.
    fn refine_parts(
        &self,
        graph: &GraphView<'_>,
        new: &mut [u32],
        tally: &mut Tally,
    ) -> Result<()> {
        let nparts = tally.loads.len();
        let bounds = refine::bounds(&tally.loads, self.refine.slack);
        for _ in 0..self.refine.cycles {
            let before = tally.refine_moves;
            for pass in refine::Pass::cycle(nparts) {
                let w = graph.vertex_weights();
                let unlimited = |rows: Rows<'_>, k: u32| {
                    refine::refine_moves(rows, k, pass, refine::Limits::none(nparts))
                };
                let rows = parts_rows(graph, new, nparts);
                let mut asked = vec![vec![0u64; nparts]; nparts];
                for (v, to) in each_of(&rows, unlimited)? {
                    asked[new[v as usize] as usize][to as usize] += w[v as usize];
                }
                let totals: Vec<u64> = (0..nparts)
                    .map(|j| asked.iter().map(|a| a[j]).sum())
                    .collect();
                let limited = |rows: Rows<'_>, k: u32| {
                    let limits =
                        refine::limits(&asked[k as usize], &totals, &tally.loads, k, bounds);
                    refine::refine_moves(rows, k, pass, limits)
                };
                let moves = each_of(&rows, limited)?;
                let mut loads = tally.loads.clone();
                for &(v, to) in &moves {
                    loads[new[v as usize] as usize] -= w[v as usize];
                    loads[to as usize] += w[v as usize];
                    new[v as usize] = to;
                }
                tally.refine_moves += moves.len();
                tally.loads = loads;
            }
            if tally.refine_moves == before {
                break;
            }
        }
        Ok(())
    }

    /// Parts and rounds are not zero.
    fn check(&self, nparts: usize) -> Result<()> {
        if nparts == 0 {
            return Err(Error::Zero { what: "parts" });
        }
        if self.rounds == 0 {
            return Err(Error::Zero {
                what: "diffusion rounds",
            });
        }
        let slack = self.refine.slack;
        if !(0.0..1.0).contains(&slack) {
            return Err(Error::Invalid(format!(
                "diffusion: the refinement's slack must be a fraction from 0 to below 1, not {slack}"
            )));
        }
        Ok(())
    }
}

impl Partitioner for Diffusion {
    /// `diffusion`, or `diffusion-cut` when it tidies or refines its parts ([`Refinement`]).
    fn name(&self) -> &'static str {
        match self.refine.is_off() {
            true => "diffusion",
            false => "diffusion-cut",
        }
    }

    /// Refused: diffusion starts from the current owners ([`Partitioner::repartition`]).
    fn partition(
        &self,
        _graph: &GraphView<'_>,
        _targets: Targets<'_>,
        _part: &mut [u32],
    ) -> Result<PartitionInfo> {
        Err(Error::Invalid(
            "the diffusion repartitioner starts from the current owners: it rebalances, it \
             does not make a first partition (use sfc, rcb or metis for that, and one part per \
             rank)"
                .into(),
        ))
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> Result<PartitionInfo> {
        check_arguments(graph, targets, part)?;
        if let Targets::Shares(s) = targets {
            if s.iter().any(|&x| x != s[0]) {
                return Err(Error::Invalid(
                    "the diffusion repartitioner balances to equal shares only".into(),
                ));
            }
        }
        let (new, _) = self.rebalance(graph, current, targets.nparts())?;
        part.copy_from_slice(&new);
        Ok(finish("diffusion", graph, targets.nparts(), part, (1, 1)))
    }
}

#[cfg(test)]
mod tests;
