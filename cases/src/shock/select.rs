//! `--policy select` in the shock case on ranks (`docs/design/diffusive.md`): the balancer
//! ([`plume::dist::Select`] over the case's PLUM), what a level records of its decision, and
//! the run's summary of the choices and their replays.

use plume::balance::{Action, Plum};
use plume::dist::{self, BalanceOutcome, GatheredPlum};
use plume::metrics::Movement;

use super::{Balancer, LevelRecord, ShockConfig};
use crate::selection::LevelSelect;
use crate::words::PolicyName;

/// The balancer of a run of `cfg` on ranks with `plum` (the case's PLUM): with PLUM under
/// `--policy select`, the choice among none, diffusive and global (every decision point
/// replayed); PLUM on rank 0 otherwise.
///
/// # Errors
/// [`plume::dist::Select::new`]'s.
pub(super) fn balancer(cfg: &ShockConfig, plum: Plum) -> plume::Result<Box<dyn dist::Balancer>> {
    Ok(match (cfg.balancer, cfg.policy) {
        (Balancer::Plum, PolicyName::Select) => Box::new(crate::selection::replayed(plum)?),
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
