//! `--policy select` in the shock case on ranks (`diffusion.md` C.1, C.6): the balancer
//! ([`plume::dist::Select`] over the case's PLUM), what a level records of its decision, and
//! the run's summary of the choices and their replays.

use plume::balance::{Action, Plum, Replay, ReplaySummary};
use plume::dist::{self, BalanceOutcome, GatheredPlum, Select, SelectOptions, SelectRecord};

use plume::metrics::Movement;

use super::{Balancer, LevelRecord, ShockConfig};
use crate::words::PolicyName;

/// The balancer of a run of `cfg` on ranks with `plum` (the case's PLUM): with PLUM under
/// `--policy select`, the choice among none, diffusive and global (every decision point
/// replayed); PLUM on rank 0 otherwise.
///
/// # Errors
/// [`Select::new`]'s.
pub(super) fn balancer(cfg: &ShockConfig, plum: Plum) -> plume::Result<Box<dyn dist::Balancer>> {
    Ok(match (cfg.balancer, cfg.policy) {
        (Balancer::Plum, PolicyName::Select) => Box::new(Select::new(
            plum,
            SelectOptions {
                replay: true,
                ..SelectOptions::default()
            },
        )?),
        _ => Box::new(GatheredPlum::new(plum)),
    })
}

/// What moved in a step whose balancer reported `outcome` without PLUM's decision (the
/// diffusive action): its `TotalV`, `MaxV` and `MaxSR`; nothing otherwise.
pub(super) fn moved_without_plum(outcome: Option<&BalanceOutcome>, procs: usize) -> Movement {
    match outcome {
        Some(o) if o.select.is_some() && o.accepted => Movement {
            sent: Vec::new(),
            recv: Vec::new(),
            total_v: o.volumes[0],
            max_v: o.volumes[1],
            max_sr: o.volumes[2],
        },
        _ => Movement::from_flows(vec![0; procs], vec![0; procs]),
    }
}

/// Adds to `record` (made as PLUM's) the selection of `outcome`; a diffusive action's
/// decision numbers stand for PLUM's.
pub(super) fn with_selection(
    mut record: LevelRecord,
    outcome: Option<&BalanceOutcome>,
) -> LevelRecord {
    let Some((o, select)) = outcome.and_then(|o| o.select.as_ref().map(|s| (o, s))) else {
        return record;
    };
    if select.selection.choice == Action::Diffusive {
        record.load_imb_before = o.load_imb_before;
        record.balance_triggered = o.triggered;
        record.remap_accepted = o.accepted;
        record.gain_s = o.gain;
        record.cost_s = o.cost;
    }
    record.select = Some(LevelSelect::of(select));
    record
}

/// A level's decision under `--policy select`, flat (`levels[].select` in `metrics.json`, one
/// column each in `metrics.csv`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LevelSelect {
    /// `AppTime_none` predicted (eq. 3.7), seconds.
    pub none_s: f64,
    /// `AppTime_diff` predicted (eq. 3.6, Algorithm 5), seconds.
    pub diffusive_s: f64,
    /// `AppTime_global` predicted (eq. 3.5), seconds.
    pub global_s: f64,
    /// Algorithm 5's sweeps started above `λ*`.
    pub convergence_steps: usize,
    /// The action chosen.
    pub choice: Action,
    /// `α` the prediction used, seconds.
    pub alpha_s: f64,
    /// `β`, seconds per element.
    pub beta_s: f64,
    /// `C_dec_diff`, one sweep's decision, seconds.
    pub diffusive_decision_s: f64,
    /// `C_global`, the whole global repartition, seconds.
    pub global_cost_s: f64,
    /// `ElementsMoved_global` by eq. 3.3 as the seed prints it.
    pub moved_seed: f64,
    /// By plume's inversion of eq. 3.3.
    pub moved_plume: f64,
    /// The `MaxV` of PLUM's proposal (the estimate used).
    pub moved_exact: Option<f64>,
    /// The three actions replayed from the level's state (C.6), seconds.
    pub replay_none_s: Option<f64>,
    /// The diffusive action replayed.
    pub replay_diffusive_s: Option<f64>,
    /// The global repartition replayed.
    pub replay_global_s: Option<f64>,
}

impl LevelSelect {
    /// The flat form of `r`.
    fn of(r: &SelectRecord) -> LevelSelect {
        let (s, c, m) = (r.selection, r.costs, r.moved_global);
        LevelSelect {
            none_s: s.none,
            diffusive_s: s.diffusive,
            global_s: s.global,
            convergence_steps: s.convergence_steps,
            choice: s.choice,
            alpha_s: c.alpha,
            beta_s: c.beta,
            diffusive_decision_s: c.diffusive_decision,
            global_cost_s: c.global,
            moved_seed: m.seed,
            moved_plume: m.plume,
            moved_exact: m.exact,
            replay_none_s: r.replay.map(|p| p.none),
            replay_diffusive_s: r.replay.map(|p| p.diffusive),
            replay_global_s: r.replay.map(|p| p.global),
        }
    }

    /// The replay, when there is one.
    fn replay(&self) -> Option<Replay> {
        Some(Replay {
            none: self.replay_none_s?,
            diffusive: self.replay_diffusive_s?,
            global: self.replay_global_s?,
        })
    }
}

/// The run's choices and their replays (`metrics.json`'s `summary.select`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SelectSummary {
    /// Decision points that chose none, diffusive and global.
    pub chosen: [usize; 3],
    /// How the choices fared in the replays.
    pub replay: ReplaySummary,
}

impl SelectSummary {
    /// The summary of the levels' selections; `None` when no level has one.
    pub fn of(levels: &[LevelRecord]) -> Option<SelectSummary> {
        let records: Vec<&LevelSelect> = levels.iter().filter_map(|l| l.select.as_ref()).collect();
        if records.is_empty() {
            return None;
        }
        let mut chosen = [0; 3];
        for r in &records {
            chosen[r.choice as usize] += 1;
        }
        let replays = records
            .iter()
            .filter_map(|r| r.replay().map(|p| (r.choice, p)));
        Some(SelectSummary {
            chosen,
            replay: ReplaySummary::of(replays),
        })
    }

    /// The lines `summary.md` gives the choices and their replays.
    pub fn text(&self) -> String {
        let [none, diffusive, global] = self.chosen;
        let r = &self.replay;
        format!(
            "\nselect (seed 000's choice, diffusion.md C.1): none {none}, diffusive {diffusive}, \
             global {global} of {} decision points\n\
             replayed under all three actions (C.6): the choice was the fastest at {} of {} \
             ({:.1} %); a wrong choice cost at most {:.2} % (mean {:.2} %) over the fastest; \
             chosen {:.4} s against {:.4} s for the fastest at every point\n",
            none + diffusive + global,
            r.fastest_chosen,
            r.decisions,
            r.fastest_pct,
            r.worst_wrong_pct,
            r.mean_wrong_pct,
            r.chosen_total,
            r.fastest_total,
        )
    }
}

/// Refuses `--policy select` where the case has no diffusive action: on the simulated
/// machine (the single-process tracks of `run_many`, `compare shock`).
///
/// # Errors
/// [`crate::Error::SettingOutOfRange`] for `select`.
pub(super) fn refuse_on_the_simulated_machine(cfg: &ShockConfig) -> crate::Result<()> {
    match cfg.policy {
        PolicyName::Select => Err(crate::Error::SettingOutOfRange {
            setting: "policy".into(),
            value: "select".into(),
            rule: "runs on ranks only (plume run shock): the simulated machine has no diffusive \
                   level yet"
                .into(),
        }),
        _ => Ok(()),
    }
}
