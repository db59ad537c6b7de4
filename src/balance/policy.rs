//! *When* to balance: one trait, [`BalancePolicy`], and the policies of the seeds. A policy
//! sees the per-rank loads expected for the coming phase and the solver model (seconds per
//! unit of weight per iteration, iterations until the next adaptation), and is told the cost of
//! every balance that happened. Decisions use modelled times only, never wall-clock readings,
//! so runs are reproducible.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::movement_cost::{elements_to_move, MovementCost};
use crate::{Error, Result};

/// What a policy sees at an adaptation step.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// Per-rank load (sum of `PWgt`, or modelled work) under the current assignment.
    pub loads: &'a [f64],
    /// Solver time per unit of load per iteration, in seconds (`T_iter`).
    pub time_per_load: f64,
    /// Solver iterations until the next adaptation (`N_adapt`).
    pub iterations: usize,
}

impl Observation<'_> {
    /// Largest load.
    pub fn max(&self) -> f64 {
        self.loads.iter().copied().fold(0.0, f64::max)
    }

    /// Mean load.
    pub fn mean(&self) -> f64 {
        self.loads.iter().sum::<f64>() / self.loads.len().max(1) as f64
    }

    /// `max / mean` (1 when every load is zero).
    pub fn load_imb(&self) -> f64 {
        crate::metrics::Imbalance::from_f64(self.loads).load_imb
    }

    /// Modelled time of one solver iteration: the most loaded rank's.
    pub fn iteration_time(&self) -> f64 {
        self.max() * self.time_per_load
    }
}

/// Decides whether to balance at an adaptation step.
pub trait BalancePolicy {
    /// Short name, as on the command line.
    fn name(&self) -> String;
    /// True when the balancer should run now.
    fn should_balance(&mut self, obs: &Observation) -> bool;
    /// Told after a balance was carried out, with its modelled cost in seconds.
    fn balanced(&mut self, cost: f64);
    /// Told after a balance was carried out, with its cost in seconds and the elements the
    /// busiest rank moved (`MaxV` of what moved). By default the elements are ignored.
    fn balanced_moving(&mut self, cost: f64, _elements: u64) {
        self.balanced(cost);
    }
    /// The share of the total load each of `nranks` ranks should get from the coming balance
    /// (shares sum to 1), or `None` for equal shares, the standard method. Only anticipating
    /// policies ([`super::Ulba`]) ask for uneven shares.
    fn target_shares(&self, _nranks: usize) -> Option<Vec<f64>> {
        None
    }
    /// The policy's history, for a checkpoint: what it carries from one step to the next
    /// (a step count, the costs measured, the degradation accumulated), not its settings.
    /// Empty by default: a policy without history.
    fn save_state(&self) -> Vec<u8> {
        Vec::new()
    }
    /// Takes back the history [`BalancePolicy::save_state`] gave, on a policy of the same
    /// name and settings (a run continued from a checkpoint), which then decides as the
    /// policy that saved it would have.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `bytes` are not this policy's history (by default: any but
    /// none).
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        match bytes.is_empty() {
            true => Ok(()),
            false => Err(Error::Invalid(format!(
                "{}: the policy keeps no history, but was given {} bytes of one",
                self.name(),
                bytes.len()
            ))),
        }
    }
}

/// A policy's history in bytes (bincode).
pub(crate) fn encode_history<T: Serialize + ?Sized>(history: &T) -> Vec<u8> {
    bincode::serialize(history).expect("a history of numbers and vectors always encodes")
}

/// The history `bytes` of the policy or balancer `name`.
///
/// # Errors
/// [`Error::Invalid`] when `bytes` do not decode as `T`.
pub(crate) fn decode_history<T: DeserializeOwned>(name: &str, bytes: &[u8]) -> Result<T> {
    bincode::deserialize(bytes)
        .map_err(|e| Error::Invalid(format!("{name}: the state given is not its history: {e}")))
}

/// `state` tagged with the name of what saved it (a balancer's state in a checkpoint, see
/// [`untag_state`]).
pub(crate) fn tag_state(name: &str, state: Vec<u8>) -> Vec<u8> {
    encode_history(&(name, state))
}

/// The state in `bytes` (from [`tag_state`]) when it was saved by `name`; `None` when it is
/// another's (a run continued with another policy or balancer, whose history starts afresh)
/// or there is none.
///
/// # Errors
/// [`Error::Invalid`] when `bytes` are not a tagged state.
pub(crate) fn untag_state(name: &str, bytes: &[u8]) -> Result<Option<Vec<u8>>> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let (tag, state): (String, Vec<u8>) = decode_history(name, bytes)?;
    Ok((tag == name).then_some(state))
}

/// `policy`'s history tagged with its name, for a checkpoint: [`restore_policy`] gives it
/// back to the same policy only.
pub fn save_policy(policy: &dyn BalancePolicy) -> Vec<u8> {
    tag_state(&policy.name(), policy.save_state())
}

/// Gives `policy` the history in `bytes` ([`save_policy`]) when it is its own (a policy of
/// the same name); another policy's is ignored: its history starts afresh.
///
/// # Errors
/// [`Error::Invalid`] when `bytes` are no saved history, and as
/// [`BalancePolicy::restore_state`].
pub fn restore_policy(policy: &mut dyn BalancePolicy, bytes: &[u8]) -> Result<()> {
    match untag_state(&policy.name(), bytes)? {
        Some(state) => policy.restore_state(&state),
        None => Ok(()),
    }
}

/// Never balance: the baseline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Never;

impl BalancePolicy for Never {
    fn name(&self) -> String {
        "never".into()
    }
    fn should_balance(&mut self, _obs: &Observation) -> bool {
        false
    }
    fn balanced(&mut self, _cost: f64) {}
}

/// Balance at every `every`-th step (steps `every`, `2·every`, …), whatever the loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Periodic {
    /// The period, in steps (at least 1).
    pub every: usize,
    steps: usize,
}

impl Periodic {
    /// A policy balancing every `every` steps (`every` of 0 is taken as 1).
    pub fn new(every: usize) -> Self {
        Periodic {
            every: every.max(1),
            steps: 0,
        }
    }
}

impl BalancePolicy for Periodic {
    fn name(&self) -> String {
        format!("periodic:{}", self.every)
    }
    fn should_balance(&mut self, _obs: &Observation) -> bool {
        self.steps += 1;
        self.steps.is_multiple_of(self.every)
    }
    fn balanced(&mut self, _cost: f64) {}
    /// The steps seen.
    fn save_state(&self) -> Vec<u8> {
        encode_history(&(self.steps as u64))
    }
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let steps: u64 = decode_history(&self.name(), bytes)?;
        self.steps = steps as usize;
        Ok(())
    }
}

/// PLUM's rule: balance when `LoadImb` reaches a threshold (default 1.05).
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// Balance when `max / mean ≥ threshold`.
    pub threshold: f64,
}

impl Default for Threshold {
    fn default() -> Self {
        Threshold { threshold: 1.05 }
    }
}

impl BalancePolicy for Threshold {
    fn name(&self) -> String {
        format!("threshold:{}", self.threshold)
    }
    fn should_balance(&mut self, obs: &Observation) -> bool {
        obs.load_imb() >= self.threshold
    }
    fn balanced(&mut self, _cost: f64) {}
}

/// The costs of the balances seen so far: their mean is what the next one is expected to
/// cost (`initial` before the first).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BalanceCosts {
    /// Cost assumed before any balance was measured, in seconds.
    pub initial: f64,
    sum: f64,
    count: usize,
}

impl BalanceCosts {
    /// No balance seen yet; `initial` seconds assumed.
    pub fn new(initial: f64) -> Self {
        BalanceCosts {
            initial,
            sum: 0.0,
            count: 0,
        }
    }

    /// Records a balance that cost `cost` seconds.
    pub fn record(&mut self, cost: f64) {
        self.sum += cost;
        self.count += 1;
    }

    /// The mean cost seen, `initial` before the first balance.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            self.initial
        } else {
            self.sum / self.count as f64
        }
    }
}

/// [Pearce 2014] (Pearce, eq. 3.1–3.7): balance when the time the imbalance costs until the next
/// adaptation, `N_adapt · T_iter · (L_max − L_ave)`, exceeds the expected cost of balancing,
/// `α + β · E` (eq. 3.2, [`MovementCost`]) with `α`, `β` fitted on the balances measured so far
/// (`initial_cost` before the first, their mean until two moved different amounts) and `E` the
/// elements eq. 3.3 expects the most loaded rank to send, its load counted in elements (one unit
/// of load, one element): `L_max − L_ave`.
#[derive(Debug, Clone, PartialEq)]
pub struct CostBenefit {
    /// The balances measured, and the cost assumed before the first.
    pub movement: MovementCost,
    /// `E` at the last decision: the elements recorded with a cost told without them.
    last_elements: f64,
}

impl CostBenefit {
    /// A policy assuming `initial_cost` seconds per balance until one is measured.
    pub fn new(initial_cost: f64) -> Self {
        CostBenefit {
            movement: MovementCost::new(initial_cost),
            last_elements: 0.0,
        }
    }

    /// The elements eq. 3.3 expects a balance of `obs` to move from the most loaded rank.
    pub fn expected_elements(obs: &Observation) -> f64 {
        elements_to_move(obs.max(), obs.max(), obs.mean())
    }

    /// The cost a balance of `obs` is expected to have.
    pub fn expected_cost(&self, obs: &Observation) -> f64 {
        self.movement.estimate(Self::expected_elements(obs))
    }

    /// The time lost to imbalance until the next adaptation (eq. 3.7 minus eq. 3.5).
    pub fn expected_loss(obs: &Observation) -> f64 {
        obs.iterations as f64 * obs.time_per_load * (obs.max() - obs.mean())
    }
}

impl BalancePolicy for CostBenefit {
    fn name(&self) -> String {
        "cost-benefit".into()
    }
    fn should_balance(&mut self, obs: &Observation) -> bool {
        self.last_elements = Self::expected_elements(obs);
        Self::expected_loss(obs) > self.expected_cost(obs)
    }
    fn balanced(&mut self, cost: f64) {
        self.movement.record(self.last_elements, cost);
    }
    fn balanced_moving(&mut self, cost: f64, elements: u64) {
        self.movement.record(elements as f64, cost);
    }
    /// The balances measured and the last decision's `E`.
    fn save_state(&self) -> Vec<u8> {
        encode_history(&(self.movement.history(), self.last_elements))
    }
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let (movement, last) = decode_history(&self.name(), bytes)?;
        self.movement.restore(movement);
        self.last_elements = last;
        Ok(())
    }
}

/// Which iteration time [Boulmier 2019]'s trigger compares with its reference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepTime {
    /// The last iteration's time.
    Last,
    /// The median of the last three iterations' times since the last balance (Alg. 1
    /// line 14; the mean of two right after a balance). The window restarts at a balance: the
    /// times before it were measured on another partition. A single late or early iteration
    /// then moves the degradation by the neighbouring iteration's time, not its own.
    #[default]
    MedianOfThree,
}

impl StepTime {
    /// The iteration time this reading gives from the times since the last balance, oldest
    /// first (`None` when there is none).
    pub fn read(self, since_balance: &[f64]) -> Option<f64> {
        let last = *since_balance.last()?;
        Some(match self {
            StepTime::Last => last,
            StepTime::MedianOfThree => {
                let mut w: Vec<f64> =
                    since_balance[since_balance.len().saturating_sub(3)..].to_vec();
                w.sort_by(f64::total_cmp);
                match w.len() {
                    2 => 0.5 * (w[0] + w[1]),
                    n => w[n / 2],
                }
            }
        })
    }
}

/// [Boulmier 2019, Alg. 1] (after Zhai et al.): the time of the iteration just after the last
/// balance is the reference; each step adds `N_adapt · (t − t_ref)` to the degradation, `t` the
/// iteration time read as [`StepTime`] says (the median of the last three by default), and
/// the balancer runs once the degradation reaches the mean balancing cost (`initial_cost`
/// before the first balance).
#[derive(Debug, Clone, PartialEq)]
pub struct Degradation {
    /// The costs seen, and the one assumed before the first.
    pub costs: BalanceCosts,
    /// Which iteration time is compared with the reference.
    pub step_time: StepTime,
    reference: Option<f64>,
    recent: Vec<f64>,
    degradation: f64,
}

impl Degradation {
    /// Alg. 1's trigger (median of three) assuming `initial_cost` seconds per balance until
    /// one is measured.
    pub fn new(initial_cost: f64) -> Self {
        Self::with_step_time(initial_cost, StepTime::default())
    }

    /// The trigger reading the iteration time as `step_time`.
    pub fn with_step_time(initial_cost: f64, step_time: StepTime) -> Self {
        Degradation {
            costs: BalanceCosts::new(initial_cost),
            step_time,
            reference: None,
            recent: Vec::with_capacity(3),
            degradation: 0.0,
        }
    }

    /// Degradation accumulated since the last balance, in seconds.
    pub fn degradation(&self) -> f64 {
        self.degradation
    }

    /// Adds the step `obs` to the degradation and returns the new total (Alg. 1 lines 11–15).
    pub fn accumulate(&mut self, obs: &Observation) -> f64 {
        let t = obs.iteration_time();
        let reference = *self.reference.get_or_insert(t);
        if self.recent.len() == 3 {
            self.recent.remove(0);
        }
        self.recent.push(t);
        let read = self.step_time.read(&self.recent).unwrap_or(t);
        self.degradation += obs.iterations as f64 * (read - reference).max(0.0);
        self.degradation
    }
}

impl BalancePolicy for Degradation {
    fn name(&self) -> String {
        match self.step_time {
            StepTime::MedianOfThree => "degradation".into(),
            StepTime::Last => "degradation-last".into(),
        }
    }
    fn should_balance(&mut self, obs: &Observation) -> bool {
        self.accumulate(obs) >= self.costs.mean()
    }
    fn balanced(&mut self, cost: f64) {
        self.costs.record(cost);
        self.reference = None;
        self.recent.clear();
        self.degradation = 0.0;
    }
    /// The costs seen, the reference, the recent iteration times and the degradation.
    fn save_state(&self) -> Vec<u8> {
        encode_history(&self.history())
    }
    fn restore_state(&mut self, bytes: &[u8]) -> Result<()> {
        let history = decode_history(&self.name(), bytes)?;
        self.restore(history);
        Ok(())
    }
}

/// [`Degradation`]'s history: the costs' sum and count, the reference, the recent times and
/// the degradation.
pub(crate) type DegradationHistory = ((f64, u64), Option<f64>, Vec<f64>, f64);

impl Degradation {
    /// What the trigger carries from step to step (not its settings).
    pub(crate) fn history(&self) -> DegradationHistory {
        let costs = (self.costs.sum, self.costs.count as u64);
        let recent = self.recent.clone();
        (costs, self.reference, recent, self.degradation)
    }

    /// Takes back a [`Degradation::history`].
    pub(crate) fn restore(&mut self, ((sum, count), reference, recent, d): DegradationHistory) {
        (self.costs.sum, self.costs.count) = (sum, count as usize);
        (self.reference, self.recent, self.degradation) = (reference, recent, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(loads: &[f64]) -> Observation<'_> {
        Observation {
            loads,
            time_per_load: 1e-3,
            iterations: 10,
        }
    }

    #[test]
    fn threshold_skips_below_and_balances_at_or_above() {
        let mut p = Threshold::default();
        assert!(!p.should_balance(&obs(&[100.0, 104.0, 100.0, 100.0]))); // 1.0297
        assert!(p.should_balance(&obs(&[100.0, 120.0, 100.0, 100.0]))); // 1.1429
    }

    #[test]
    fn cost_benefit_weighs_loss_against_mean_cost() {
        // Loss = 10 iterations · 1 ms · (120 − 105) = 0.15 s.
        let loads = [100.0, 120.0, 100.0, 100.0];
        assert!((CostBenefit::expected_loss(&obs(&loads)) - 0.15).abs() < 1e-12);
        let mut p = CostBenefit::new(0.1);
        assert!(p.should_balance(&obs(&loads)));
        p.balanced(0.2);
        assert!(
            !p.should_balance(&obs(&loads)),
            "cost 0.2 s exceeds the 0.15 s gain"
        );
        p.balanced(0.0); // mean cost 0.1 s
        assert!(p.should_balance(&obs(&loads)));
    }

    #[test]
    fn cost_benefit_fits_the_cost_of_what_moved() {
        // Loads 100, 120, 100, 100: loss 0.15 s, E = 120 − 105 = 15 elements.
        let loads = [100.0, 120.0, 100.0, 100.0];
        let mut p = CostBenefit::new(0.1);
        assert_eq!(CostBenefit::expected_elements(&obs(&loads)), 15.0);
        // Two balances: 10 elements for 0.1 s, 20 for 0.2 s → α = 0, β = 0.01 s per element.
        p.balanced_moving(0.1, 10);
        p.balanced_moving(0.2, 20);
        assert!((p.expected_cost(&obs(&loads)) - 0.15).abs() < 1e-12);
        // A cheaper slope: 0.005 s per element, 0.075 s < 0.15 s.
        let mut q = CostBenefit::new(1.0);
        q.balanced_moving(0.05, 10);
        q.balanced_moving(0.1, 20);
        assert!(q.should_balance(&obs(&loads)));
        // Told without elements, the cost is recorded at the last decision's E (15).
        q.balanced(1.0);
        let (_, beta) = q.movement.fit().unwrap();
        assert!(beta > 0.005, "{beta}");
    }

    #[test]
    fn degradation_accumulates_from_the_reference_step() {
        let mut p = Degradation::with_step_time(0.05, StepTime::Last);
        // Reference iteration time 0.1 s: no degradation yet.
        assert!(!p.should_balance(&obs(&[100.0, 100.0])));
        // 0.102 s: degradation 10 · 0.002 = 0.02 s < 0.05.
        assert!(!p.should_balance(&obs(&[102.0, 100.0])));
        assert!((p.degradation() - 0.02).abs() < 1e-12);
        // 0.104 s: + 0.04 = 0.06 s ≥ 0.05.
        assert!(p.should_balance(&obs(&[104.0, 100.0])));
        p.balanced(0.05);
        assert_eq!(p.degradation(), 0.0);
        assert!(
            !p.should_balance(&obs(&[104.0, 100.0])),
            "new reference after a balance"
        );
    }

    #[test]
    fn median_of_three_reads_a_hand_made_series() {
        fn at(loads: &[f64]) -> Observation<'_> {
            Observation {
                loads,
                time_per_load: 1e-3,
                iterations: 1,
            }
        }
        let median = StepTime::MedianOfThree;
        assert_eq!(median.read(&[]), None);
        assert_eq!(median.read(&[4.0]), Some(4.0));
        assert_eq!(median.read(&[4.0, 6.0]), Some(5.0));
        assert_eq!(median.read(&[4.0, 9.0, 6.0]), Some(6.0));
        assert_eq!(StepTime::Last.read(&[4.0, 9.0, 6.0]), Some(6.0));
        // Times (ms) 100, 100, 130 (a spike), 101, 102 after a balance, one iteration per
        // step: the median ignores the spike, the last time does not.
        let series = [100.0, 100.0, 130.0, 101.0, 102.0];
        let run = |step_time| {
            let mut p = Degradation::with_step_time(1.0, step_time);
            series
                .iter()
                .map(|&t| p.accumulate(&at(&[t, 0.0])))
                .collect::<Vec<f64>>()
        };
        // Medians: 100, 100, 100, 101, 102 → degradation 0, 0, 0, 1, 3 ms.
        let expect = [0.0, 0.0, 0.0, 0.001, 0.003];
        for (d, e) in run(median).iter().zip(expect) {
            assert!((d - e).abs() < 1e-12, "{d} vs {e}");
        }
        // Last: 0, 0, 30, 31, 33 ms.
        assert!((run(StepTime::Last)[4] - 0.033).abs() < 1e-12);
        // The window restarts at a balance: the spike before it is forgotten.
        let mut p = Degradation::new(0.0);
        let spike = [130.0, 0.0];
        let calm = [100.0, 0.0];
        p.accumulate(&at(&spike));
        p.accumulate(&at(&spike));
        p.balanced(0.0);
        // Across the balance the window would be 130, 130, 100: a median of 130.
        assert_eq!(p.accumulate(&at(&calm)), 0.0);
        assert_eq!(p.accumulate(&at(&calm)), 0.0);
    }

    /// Loads that drift apart and jump back, step by step.
    fn drifting(step: usize) -> Vec<f64> {
        let s = (step % 7) as f64;
        vec![100.0 + 9.0 * s, 100.0 - 2.0 * s, 101.0 + (step % 3) as f64]
    }

    /// Runs `policy` over steps `steps`, telling it of a balance (cost by step) whenever it
    /// balances; its decisions.
    fn decide(policy: &mut dyn BalancePolicy, steps: std::ops::Range<usize>) -> Vec<bool> {
        steps
            .map(|step| {
                let loads = drifting(step);
                let yes = policy.should_balance(&obs(&loads));
                if yes {
                    policy.balanced_moving(0.01 * (step % 5) as f64, 10 * step as u64);
                }
                yes
            })
            .collect()
    }

    #[test]
    fn a_restored_history_decides_as_the_policy_that_saved_it() {
        type Make = fn() -> Box<dyn BalancePolicy>;
        let policies: [Make; 5] = [
            || Box::new(Periodic::new(3)),
            || Box::new(CostBenefit::new(0.02)),
            || Box::new(Degradation::new(0.02)),
            || Box::new(Degradation::with_step_time(0.02, StepTime::Last)),
            || Box::new(crate::balance::Ulba::new(0.4, 1.0, 0.02)),
        ];
        for make in policies {
            let mut whole = make();
            let all = decide(whole.as_mut(), 0..40);
            for k in [5, 17] {
                let mut first = make();
                decide(first.as_mut(), 0..k);
                let mut then = make();
                then.restore_state(&first.save_state()).unwrap();
                let name = then.name();
                assert_eq!(decide(then.as_mut(), k..40), all[k..], "{name} from {k}");
                // Without the history, the decisions differ.
                assert_ne!(decide(make().as_mut(), k..40), all[k..], "{name} from {k}");
            }
        }
    }

    #[test]
    fn a_history_goes_only_to_its_own_policy() {
        let mut p = Periodic::new(2);
        p.should_balance(&obs(&[1.0, 2.0]));
        let saved = save_policy(&p);
        // Another policy ignores it; the same policy takes it back.
        let mut other = Periodic::new(3);
        restore_policy(&mut other, &saved).unwrap();
        assert_eq!(other, Periodic::new(3));
        let mut same = Periodic::new(2);
        restore_policy(&mut same, &saved).unwrap();
        assert_eq!(same, p);
        // A policy without history takes none; bytes that are no history are refused.
        assert!(Threshold::default().restore_state(&[]).is_ok());
        assert!(Threshold::default().restore_state(&[1]).is_err());
        assert!(Periodic::new(2).restore_state(&[1, 2]).is_err());
        assert!(restore_policy(&mut same, &[7]).is_err());
    }

    #[test]
    fn never_never_and_periodic_every_kth_step() {
        let loads = [100.0, 300.0];
        assert!(!Never.should_balance(&obs(&loads)));
        let mut p = Periodic::new(3);
        let calls: Vec<bool> = (0..7).map(|_| p.should_balance(&obs(&loads))).collect();
        assert_eq!(calls, [false, false, true, false, false, true, false]);
        assert_eq!(p.name(), "periodic:3");
        assert_eq!(Periodic::new(0).every, 1);
        assert_eq!(p.target_shares(2), None);
    }
}
