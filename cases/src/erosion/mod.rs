//! The erosion test solver (`docs/commands.md`, [Boulmier 2019, §IV-B] in 3-D): a fluid erodes P
//! rocks, one per stripe of the box, and the eroded rock is refined, so work grows where erosion
//! happens and keeps growing there. Each iteration every fluid leaf does one unit of work; the
//! iteration's modelled time is that of the slowest rank ([`machine`]); after it the policy
//! decides whether to balance, with equal shares (the standard method) or ULBA's, and the
//! partitioning (or the hierarchical balancer, `cfg.hier`) decides who gets which roots.
//!
//! | file | owns |
//! | --- | --- |
//! | `mod.rs` | the configuration, the iteration loop, its records and summary |
//! | `domain.rs` | the box, the rocks, the strong rocks drawn from the seed |
//! | `front.rs` | rock/fluid leaves, the erosion front, one erosion step |
//! | `layout.rs` | the PLUM pipeline on the fluid work: stripes or graph partitioning, or the hierarchical balancer |
//! | `machine.rs` | the modelled step and balance times |
//! | `ranks.rs` | the case on real ranks through `plume::dist::Run` |
//! | `select.rs` | `--policy select`: the choice among none, diffusive and global |

pub mod domain;
pub mod front;
pub mod layout;
pub mod machine;
mod output;
pub mod ranks;
pub mod run_ranks;
mod select;

use plume::balance::policy::{restore_policy, save_policy};
use plume::balance::{
    migrate, AppModel, BalanceCosts, BalancePolicy, IncreaseRates, MovementCost, Observation,
    StepTime,
};
use plume::graph::root_centroids;
use plume::graph::DualGraph;
use plume::metrics::{rank_loads, Imbalance, Movement};
use serde::{Deserialize, Serialize};

use crate::budget::{self, Budget};
use crate::hier::HierSettings;
use crate::words::{PartitionKind, PolicyName, PolicySettings};
use front::Erosion;
use layout::fluid_weights;
use machine::Machine;

/// The configuration of an erosion run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErosionConfig {
    /// Ranks P, which is also the number of stripes and rocks.
    pub procs: usize,
    /// When to balance.
    pub policy: PolicyName,
    /// ULBA's α.
    pub alpha: f64,
    /// ULBA's z-score threshold.
    pub z_threshold: f64,
    /// The iteration time the standard and ULBA triggers read (Alg. 1: median of three).
    pub step_time: StepTime,
    /// Whether ULBA's trigger adds its overhead (eq. 9 and 11) to the mean cost.
    pub ulba_overhead: bool,
    /// Stripes or graph (with `hier`: the first owners only).
    pub partition: PartitionKind,
    /// The hierarchical balancer's tree and strategy (`--balancer hier`: it decides every
    /// balance from the current owners, on ranks with no rank gathering more than its lowest
    /// domain's roots); `None` for the partitioning's own balances. Written only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<HierSettings>,
    /// Iterations.
    pub iterations: usize,
    /// Seed of the strong rocks and of the erosion draws.
    pub seed: u64,
    /// Strongly erodible rocks.
    pub strong: usize,
    /// Cubes per unit stripe (x, y, z), six tetrahedra each.
    pub cells: [usize; 3],
    /// Maximum refinement depth of eroded rock.
    pub max_depth: u8,
    /// The modelled machine.
    pub machine: Machine,
    /// The memory the run may use, checked before it starts and before each iteration's
    /// adaptation (unlimited by default; the command line reads the system's). Not part of
    /// the case: never written to the reports.
    #[serde(skip)]
    pub budget: Budget,
}

impl ErosionConfig {
    /// The defaults at P ranks: standard policy, α 0.4, z 3.0, [Boulmier 2019]'s triggers (median
    /// of three, ULBA's overhead term), stripes, 200 iterations,
    /// seed 1, one strong rock, 28 × 28 × 1 cubes (4,704 roots) per stripe, depth 1. The
    /// one-cube-high slab is [Boulmier 2019]'s 2-D case extruded: the rock's radius is 7 cubes, so
    /// the strong rock erodes over some 60 iterations (14 × 14 × 4 cubes give it 3.5 cubes and
    /// a third of that). Depth 2 refines the whole box through the closure around the fronts
    /// (1.4 M leaves at P = 16), too slow for 200 iterations at P = 32.
    pub fn new(procs: usize) -> Self {
        ErosionConfig {
            procs,
            policy: PolicyName::Standard,
            alpha: 0.4,
            z_threshold: 3.0,
            step_time: StepTime::MedianOfThree,
            ulba_overhead: true,
            partition: PartitionKind::Stripes,
            hier: None,
            iterations: 200,
            seed: 1,
            strong: 1,
            cells: [28, 28, 1],
            max_depth: 1,
            machine: Machine::default(),
            budget: Budget::UNLIMITED,
        }
    }

    /// Refuses the hierarchical balancer with a policy it cannot serve: ULBA's uneven target
    /// shares (HybridLB balances each domain to its number of ranks: it has no share of a
    /// rank's to aim at) and `select`'s choice (whose global action is PLUM's repartition).
    ///
    /// # Errors
    /// [`crate::Error::SettingOutOfRange`] naming the policy.
    pub fn check_balancer(&self) -> crate::error::Result<()> {
        let rule = match (&self.hier, self.policy) {
            (Some(_), PolicyName::Ulba) => {
                "balances to uneven shares, which `balancer` hier cannot aim at: it balances \
                 each domain to its number of ranks"
            }
            (Some(_), PolicyName::Select) => {
                "chooses among none, a diffusive step and PLUM's global repartition: not with \
                 `balancer` hier"
            }
            _ => return Ok(()),
        };
        Err(crate::Error::SettingOutOfRange {
            setting: "policy".into(),
            value: self.policy.to_string(),
            rule: rule.into(),
        })
    }

    /// The policy object: the cost-based triggers (standard, ULBA, degradation and
    /// cost-benefit without `:C`) assume a balance costs the machine's fixed balance cost until
    /// one is measured.
    pub fn build_policy(&self) -> Box<dyn BalancePolicy> {
        self.policy.build(PolicySettings {
            initial_cost: self.machine.balance_fixed,
            alpha: self.alpha,
            z_threshold: self.z_threshold,
            step_time: self.step_time,
            ulba_overhead: self.ulba_overhead,
        })
    }
}

/// One iteration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IterationRecord {
    /// Iteration number, from 0.
    pub iteration: usize,
    /// Leaves (rock and fluid) during the iteration.
    pub leaves: usize,
    /// Fluid leaves: the iteration's total work.
    pub work: u64,
    /// `max / mean` of the ranks' modelled times.
    pub load_imb: f64,
    /// `mean / max` of the ranks' modelled times (processor usage).
    pub usage: f64,
    /// True when the balancer ran after this iteration.
    pub balanced: bool,
    /// Modelled time: the slowest rank's step, plus the balance's cost when one ran, seconds
    /// (`time_s` in the files).
    #[serde(rename = "time_s")]
    pub time: f64,
    /// Modelled cost of the balance (0 when none ran), seconds (`lb_cost_s` in the files).
    #[serde(rename = "lb_cost_s")]
    pub lb_cost: f64,
    /// Rock leaves eroded at the end of the iteration.
    pub eroded: usize,
    /// Ranks whose workload increase rate had a z-score above the threshold.
    pub overloading: usize,
    /// At a balance: iterations until ULBA's overloading ranks catch up [Boulmier 2019, eq. 8].
    pub sigma_minus: Option<f64>,
    /// At a balance: iterations until the next balance should come (eq. 12), by the analytic
    /// model fed with the measured rates and mean cost.
    pub sigma_plus: Option<f64>,
    /// `--policy select`: the decision point after this iteration (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<crate::selection::LevelSelect>,
    /// The hierarchical balancer's numbers at a balance on ranks (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<plume::dist::HierStats>,
}

/// Totals of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErosionSummary {
    /// Sum of the iterations' modelled times, seconds (`total_time_s` in the files).
    #[serde(rename = "total_time_s")]
    pub total_time: f64,
    /// Balances carried out.
    pub lb_calls: usize,
    /// Mean processor usage over the iterations.
    pub mean_usage: f64,
    /// Mean iterations between balances (from the start), `None` without balances.
    pub mean_interval: Option<f64>,
    /// Mean `σ+` the model suggested at the balances, `None` when it had no estimate.
    pub mean_sigma_plus: Option<f64>,
    /// Leaves at the end.
    pub final_leaves: usize,
    /// Fluid leaves at the end.
    pub final_work: u64,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct ErosionRun {
    /// Its configuration.
    pub config: ErosionConfig,
    /// One record per iteration.
    pub iterations: Vec<IterationRecord>,
    /// Totals.
    pub summary: ErosionSummary,
    /// The strongly erodible rocks.
    pub strong: Vec<u32>,
    /// Roots of the mesh.
    pub roots: usize,
    /// On real ranks: the ranks' CPU account (`metrics.json`'s `cpu`).
    pub cpu: Option<plume::metrics::RunCpu>,
}

/// Where [`run`] stands when it calls back: at the start, or after an iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moment {
    /// Iterations done: 0 for the initial mesh and partition, `i + 1` after iteration `i`.
    pub iterations: usize,
    /// Modelled time since the start: the sum of the done iterations' `time`.
    pub time: f64,
}

/// Checks, before anything is built, that the domain of `cfg` and the records of `runs` runs
/// of its iterations fit its memory budget; returns its number of roots. [`run`] checks it
/// (for one run), and each iteration's growth.
///
/// # Errors
/// When the box is too large for its numbers or for the budget.
pub fn check_memory(cfg: &ErosionConfig, runs: usize) -> crate::error::Result<usize> {
    let roots = domain::roots(cfg.procs, cfg.cells)?;
    let records = (cfg.iterations as u128).saturating_mul(runs as u128);
    let record_bytes = budget::bytes(records, std::mem::size_of::<IterationRecord>() as u64);
    let need = budget::EROSION
        .bytes(roots as u128, roots as u128)
        .saturating_add(record_bytes);
    let what = format!(
        "the erosion case on {roots} roots for {} iterations",
        cfg.iterations
    );
    cfg.budget
        .check(&what, need, "use fewer `cells`, ranks or iterations")?;
    Ok(roots)
}

/// Runs the erosion case. `each(moment, forest, owner)` is called with the initial mesh and
/// partition, then after every iteration (erosion and balance done), e.g. to write VTK files.
///
/// # Errors
/// When the configuration is impossible (no rank, more strong rocks than rocks) or a step
/// fails; `each`'s errors are passed on.
pub fn run(
    cfg: &ErosionConfig,
    mut each: impl FnMut(Moment, &plume::adapt::Forest, &[u32]) -> crate::error::Result<()>,
) -> crate::error::Result<ErosionRun> {
    if cfg.procs == 0 {
        return Err(crate::Error::SettingOutOfRange {
            setting: "procs".into(),
            value: "0".into(),
            rule: "must be at least 1: the erosion case needs a rank".into(),
        });
    }
    let roots = check_memory(cfg, 1)?;
    let domain = domain::build(cfg.procs, cfg.cells, cfg.strong, cfg.seed, cfg.max_depth)?;
    let mut forest = domain.forest;
    let mut erosion = Erosion::new(
        &forest,
        domain.rock_of_root,
        domain.probability,
        plume::hash::mix64(cfg.seed),
    );
    let mut graph = DualGraph::new(&forest);
    let mut ledger = Ledger::new(cfg, &root_centroids(forest.mesh()))?;
    let mut owner = ledger.initial_owner(&graph, erosion.fluid())?;
    let mut moment = Moment {
        iterations: 0,
        time: 0.0,
    };
    each(moment, &forest, &owner)?;
    for iteration in 0..cfg.iterations {
        let mut record =
            ledger.observe(iteration, forest.nleaves(), erosion.fluid(), &graph, &owner);
        let eroded = erosion.erode(&mut forest, cfg.max_depth);
        check_iteration(cfg, roots, iteration, forest.nleaves(), eroded.divided)?;
        let step = erosion.settle(&mut forest, eroded)?;
        graph.update(&forest, &step.changed_roots);
        record.eroded = step.eroded.len();
        if let Some(new_owner) = ledger.decide(&mut record, &graph, erosion.fluid(), &owner)? {
            migrate(&forest, &mut owner, &new_owner);
        }
        moment.iterations += 1;
        moment.time += record.time;
        each(moment, &forest, &owner)?;
        ledger.records.push(record);
    }
    Ok(ledger.finish(
        domain.strong,
        forest.nroots(),
        forest.nleaves(),
        erosion.fluid().iter().sum(),
    ))
}

/// Refuses iteration `iteration` when its leaves (`leaves` now, `divided` of them to be
/// refined) would not fit the budget of a run on `roots` roots.
fn check_iteration(
    cfg: &ErosionConfig,
    roots: usize,
    iteration: usize,
    leaves: usize,
    divided: usize,
) -> crate::error::Result<()> {
    let leaves = budget::leaves_after(leaves, divided);
    cfg.budget.check(
        &format!("iteration {iteration}: about {leaves} leaves"),
        budget::EROSION.bytes(roots as u128, leaves),
        "use a smaller `max_depth`, fewer `cells` or fewer iterations",
    )
}

/// What the ledger carries from one iteration to the next besides its records, which a
/// checkpoint keeps: the policy's history ([`save_policy`]: another policy does not take it
/// back), the increase rates, the balances' costs and `--policy select`'s.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LedgerState {
    policy: Vec<u8>,
    rates: IncreaseRates,
    costs: BalanceCosts,
    selector: Option<MovementCost>,
}

/// What decides and records the run (the one process's, or rank 0's on ranks): the balancer,
/// the policy, the measured rates and costs, and the records so far.
struct Ledger<'a> {
    cfg: &'a ErosionConfig,
    plum: plume::balance::Plum,
    policy: Box<dyn BalancePolicy>,
    rates: IncreaseRates,
    costs: BalanceCosts,
    records: Vec<IterationRecord>,
    /// The ranks' modelled loads of the iteration under way.
    loads: Vec<f64>,
    /// `--policy select`'s choice, in place of the policy.
    selector: Option<select::Selector>,
}

impl<'a> Ledger<'a> {
    /// The ledger of `cfg`'s run on the domain whose roots' centroids are `centroids` (which
    /// the stripes cut; the graph partitioning needs none).
    fn new(cfg: &'a ErosionConfig, centroids: &[[f64; 3]]) -> crate::error::Result<Self> {
        cfg.check_balancer()?;
        Ok(Ledger {
            cfg,
            plum: layout::balancer_of(cfg, centroids)?,
            policy: cfg.build_policy(),
            rates: IncreaseRates::default(),
            costs: BalanceCosts::new(0.0),
            records: Vec::new(),
            loads: Vec::new(),
            selector: (cfg.policy == PolicyName::Select).then(select::Selector::new),
        })
    }

    /// What a checkpoint keeps of the ledger.
    fn state(&self) -> LedgerState {
        LedgerState {
            policy: save_policy(self.policy.as_ref()),
            rates: self.rates.clone(),
            costs: self.costs.clone(),
            selector: self.selector.as_ref().map(|s| s.movement.clone()),
        }
    }

    /// Takes back a checkpoint's [`Ledger::state`]; the policy's history only when it is
    /// the same policy's (another policy starts afresh).
    fn resume(&mut self, state: LedgerState) -> crate::error::Result<()> {
        restore_policy(self.policy.as_mut(), &state.policy)?;
        self.rates = state.rates;
        self.costs = state.costs;
        if let (Some(selector), Some(movement)) = (self.selector.as_mut(), state.selector) {
            selector.movement = movement;
        }
        Ok(())
    }

    /// The initial partition of the roots on their `fluid` work.
    fn initial_owner(&self, graph: &DualGraph, fluid: &[u64]) -> crate::error::Result<Vec<u32>> {
        let weights = fluid_weights(graph, fluid);
        Ok(self.plum.initial_assignment(&graph.view(&weights)?)?)
    }

    /// The record of iteration `iteration` as it starts (`leaves` leaves, `fluid` work per
    /// root, `owner` the partition), before its erosion.
    fn observe(
        &mut self,
        iteration: usize,
        leaves: usize,
        fluid: &[u64],
        graph: &DualGraph,
        owner: &[u32],
    ) -> IterationRecord {
        let cfg = self.cfg;
        let work = rank_loads(fluid, owner, cfg.procs);
        let times = cfg.machine.step_times(&work, graph, owner);
        let balance = Imbalance::from_f64(&times);
        self.loads = times.iter().map(|t| t * cfg.machine.omega).collect();
        self.rates.observe(&self.loads);
        IterationRecord {
            iteration,
            leaves,
            work: work.iter().sum(),
            load_imb: balance.load_imb,
            usage: balance.lb,
            balanced: false,
            time: times.iter().copied().fold(0.0, f64::max),
            lb_cost: 0.0,
            eroded: 0,
            overloading: self
                .rates
                .overloading(cfg.z_threshold)
                .iter()
                .filter(|&&o| o)
                .count(),
            sigma_minus: None,
            sigma_plus: None,
            select: None,
            hier: None,
        }
    }

    /// After the iteration's erosion (`graph` and `fluid` updated): whether the policy
    /// balances, recorded in `record`; the new owners when the balance moves roots.
    fn decide(
        &mut self,
        record: &mut IterationRecord,
        graph: &DualGraph,
        fluid: &[u64],
        owner: &[u32],
    ) -> crate::error::Result<Option<Vec<u32>>> {
        let cfg = self.cfg;
        if let Some(selector) = self.selector.as_mut() {
            let chosen = selector.decide(cfg, &self.plum, graph, fluid, owner)?;
            record.select = Some(crate::selection::LevelSelect::of(&chosen.record));
            if chosen.new_owner.is_some() {
                self.rates.rebalanced();
                self.costs.record(chosen.cost);
                record.balanced = true;
                record.lb_cost = chosen.cost;
                record.time += chosen.cost;
            }
            return Ok(chosen.new_owner);
        }
        if !self.triggers() {
            return Ok(None);
        }
        let shares = self.policy.target_shares(cfg.procs);
        let weights = fluid_weights(graph, fluid);
        let proposal = self
            .plum
            .propose(&graph.view(&weights)?, owner, shares.as_deref())?;
        self.settle(record, &proposal.movement, shares.is_some());
        Ok(proposal.new_owner)
    }

    /// Whether the policy balances after the iteration under way (not `--policy select`'s
    /// choice, which [`Ledger::decide`] makes).
    fn triggers(&mut self) -> bool {
        let obs = Observation {
            loads: &self.loads,
            time_per_load: self.cfg.machine.time_per_leaf(),
            iterations: 1,
        };
        self.policy.should_balance(&obs)
    }

    /// Records in `record` the balance the policy asked for, which moved `movement` (the
    /// trees' elements; to uneven shares when `uneven`), and tells the policy, the rates and
    /// the costs.
    fn settle(&mut self, record: &mut IterationRecord, movement: &Movement, uneven: bool) {
        let cfg = self.cfg;
        let cost = cfg.machine.balance_cost(movement.max_sr);
        self.policy.balanced_moving(cost, movement.max_v);
        self.rates.rebalanced();
        self.costs.record(cost);
        let alpha = if uneven { cfg.alpha } else { 0.0 };
        let mean_cost = self.costs.mean();
        let total: f64 = self.loads.iter().sum();
        if let Some(model) = fitted_model(&self.rates, cfg, alpha, mean_cost) {
            record.sigma_minus = Some(model.sigma_minus(total));
            record.sigma_plus = Some(model.sigma_plus(total));
        }
        record.balanced = true;
        record.lb_cost = cost;
        record.time += cost;
    }

    /// The finished run.
    fn finish(self, strong: Vec<u32>, roots: usize, leaves: usize, work: u64) -> ErosionRun {
        let summary = summarize(&self.records, leaves, work);
        ErosionRun {
            config: self.cfg.clone(),
            iterations: self.records,
            summary,
            strong,
            roots,
            cpu: None,
        }
    }
}

/// [Boulmier 2019]'s model with the rates measured so far: `N` the overloading ranks (the fastest
/// growing one when none passes the z-score, Menon's "most loaded"), `a` the others' mean
/// rate, `m` the overloading ranks' mean rate above it. `None` before rates are known, when
/// the overloading ranks do not grow faster, or when they are most of the ranks.
fn fitted_model(
    rates: &IncreaseRates,
    cfg: &ErosionConfig,
    alpha: f64,
    cost: f64,
) -> Option<AppModel> {
    let r = rates.rates()?;
    let mut over = rates.overloading(cfg.z_threshold);
    if !over.contains(&true) {
        let top = (0..r.len()).max_by(|&i, &j| r[i].total_cmp(&r[j]))?;
        over[top] = true;
    }
    let n = over.iter().filter(|&&o| o).count();
    if 2 * n >= r.len() {
        return None;
    }
    let mean_of = |want: bool| {
        let picked: Vec<f64> = r
            .iter()
            .zip(&over)
            .filter(|p| *p.1 == want)
            .map(|p| *p.0)
            .collect();
        picked.iter().sum::<f64>() / picked.len() as f64
    };
    let a = mean_of(false);
    let m = mean_of(true) - a;
    (m > 0.0).then_some(AppModel {
        ranks: r.len(),
        overloading: n,
        a,
        m,
        alpha,
        omega: cfg.machine.omega,
        cost,
    })
}

fn summarize(records: &[IterationRecord], final_leaves: usize, final_work: u64) -> ErosionSummary {
    let n = records.len().max(1) as f64;
    let lb_calls = records.iter().filter(|r| r.balanced).count();
    let sigmas: Vec<f64> = records.iter().filter_map(|r| r.sigma_plus).collect();
    ErosionSummary {
        total_time: records.iter().map(|r| r.time).sum(),
        lb_calls,
        mean_usage: records.iter().map(|r| r.usage).sum::<f64>() / n,
        mean_interval: (lb_calls > 0).then(|| records.len() as f64 / lb_calls as f64),
        mean_sigma_plus: (!sigmas.is_empty())
            .then(|| sigmas.iter().sum::<f64>() / sigmas.len() as f64),
        final_leaves,
        final_work,
    }
}
