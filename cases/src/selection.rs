//! `--policy select` in the cases (`docs/design/diffusive.md`): the balancer on ranks over a
//! case's PLUM ([`replayed`]), one decision point's record, flat ([`LevelSelect`]), and a
//! run's summary of the choices and their replays ([`SelectSummary`]).

use plume::balance::{Action, Plum, Replay, ReplaySummary};
use plume::dist::{Select, SelectOptions, SelectRecord};

/// The choice among none, the diffusive repartitioner and `plum` (the case's PLUM, the global
/// action) on ranks, every decision point replayed under the three actions (C.6).
///
/// # Errors
/// [`Select::new`]'s.
pub fn replayed(plum: Plum) -> plume::Result<Select> {
    Select::new(
        plum,
        SelectOptions {
            replay: true,
            ..SelectOptions::default()
        },
    )
}

/// A decision point's record under `--policy select`, flat (`levels[].select` or
/// `iterations[].select` in `metrics.json`, one column each in `metrics.csv`).
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
    /// `ElementsMoved_global` by eq. 3.3 as [Pearce 2014] prints it.
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
    pub fn of(r: &SelectRecord) -> LevelSelect {
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

/// A run's choices and their replays (`metrics.json`'s `summary.select`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SelectSummary {
    /// Decision points that chose none, diffusive and global.
    pub chosen: [usize; 3],
    /// How the choices fared in the replays.
    pub replay: ReplaySummary,
}

impl SelectSummary {
    /// The summary of a run's decision points' `records`; `None` without one.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a LevelSelect>) -> Option<SelectSummary> {
        let records: Vec<&LevelSelect> = records.into_iter().collect();
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
            "\nselect ([Pearce 2014]'s choice, `docs/design/diffusive.md`): none {none}, diffusive {diffusive}, \
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
