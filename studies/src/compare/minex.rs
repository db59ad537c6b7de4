//! The MinEX group of the comparison (`compare shock --minex`): MinEX (one cluster, no
//! tolerance, the study's default ThroTTle) replayed over the recorded shock sequence
//! ([`plume_cases::shock::Sequence`]) for every P, each level from its own previous
//! assignment, with PLUM (METIS + optimal TotalV, accepted always) replayed the same way
//! beside it, so that both are timed from the same predicted weights on the comparison's
//! machine. Built on `plume study minex`'s replays (`crate::minex::replay`) rather than on a
//! PLUM track with `--partitioner minex`: the live PLUM group's records differ from the
//! replay's where PLUM's policy declines to balance.

use plume::partition::Grid;
use plume::sim::Machine;
use plume_cases::shock::Sequence;
use serde::Serialize;

use super::Comparison;
use crate::minex::replay::{initial, replay, score_levels, Levels, Method, Total};
use crate::minex::{MinexConfig, Tolerance};

/// MinEX and PLUM replayed at one P, summed over the levels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinexRow {
    /// Processors.
    pub procs: usize,
    /// MinEX's ThroTTle.
    pub throttle: f64,
    /// MinEX's sums and means (wall-clock partitioning time left out of the JSON).
    pub minex: Total,
    /// PLUM's, replayed on the same levels.
    pub plum_replayed: Total,
}

/// MinEX and PLUM replayed over `seq` for every P of `procs`, timed on `machine`.
///
/// # Errors
/// A one-line message naming the P that failed.
pub fn minex_group(
    seq: &Sequence,
    procs: &[usize],
    machine: &Machine,
) -> Result<Vec<MinexRow>, String> {
    let cfg = MinexConfig {
        sp2: *machine,
        measured: *machine,
        ..MinexConfig::seed_study()
    };
    let levels = Levels::new(seq).map_err(|e| format!("the recorded sequence: {e}"))?;
    procs
        .iter()
        .map(|&p| {
            let err = |e: plume::Error| format!("MinEX at P = {p}: {e}");
            let grid = Grid::single(p).map_err(err)?;
            let start = if p == 1 {
                vec![0; seq.centroids.len()]
            } else {
                initial(seq, p).map_err(err)?
            };
            // MinEX balances the costs of the machine it is timed on (`docs/design/minex.md`).
            let mut opts = cfg.minex(grid.clone(), Tolerance::None, cfg.tau());
            opts.costs = machine.unit_costs();
            let total = |method, opts| -> Result<Total, String> {
                let r = replay(&levels, &start, method, &grid, opts).map_err(err)?;
                let (_, mut t) =
                    score_levels(&cfg, &levels, &start, &grid, Tolerance::None, &r.steps)
                        .map_err(err)?;
                t.partition_ms = 0.0;
                Ok(t)
            };
            Ok(MinexRow {
                procs: p,
                throttle: cfg.tau(),
                minex: total(Method::Minex, Some(&opts))?,
                plum_replayed: total(Method::Plum, None)?,
            })
        })
        .collect()
}

impl Comparison {
    /// The MinEX section of `compare.md` (empty without the group).
    pub(super) fn minex_markdown(&self) -> String {
        let Some(rows) = &self.minex else {
            return String::new();
        };
        let mut t = "\n## MinEX beside PLUM, replayed on the recorded levels\n\n".to_string();
        t += "MinEX (`docs/design/minex.md`; one cluster, no tolerance, ThroTTle as given, balancing this machine's \
              costs in nanoseconds) and PLUM (METIS \
              + optimal TotalV, accepted always) replayed over the same recorded sequence \
              (predicted weights, each level from the method's own previous assignment; \
              `plume study minex`), timed on this comparison's machine: summed simulated T \
              (seconds), mean leaf LoadImb, mean Cut%, summed MaxSR of what moved, and summed \
              `MaxQWgt` of MinEX's model (seed units). PLUM's live group above balances only when \
              its policy asks; the replayed PLUM always does.\n\n";
        t +=
            "| P | τ | T MinEX | T PLUM | LoadImb MinEX | LoadImb PLUM | Cut% MinEX | Cut% PLUM | \
              MaxSR MinEX | MaxSR PLUM | MaxQWgt MinEX | MaxQWgt PLUM |\n";
        t += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in rows {
            let (m, p) = (&r.minex, &r.plum_replayed);
            t += &format!(
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} | {:.1} | {} | {} | {} | {} |\n",
                r.procs,
                r.throttle,
                m.t_sp2,
                p.t_sp2,
                m.leaf_load_imb,
                p.leaf_load_imb,
                m.cut_pct,
                p.cut_pct,
                m.max_sr,
                p.max_sr,
                m.max_qwgt,
                p.max_qwgt
            );
        }
        t
    }
}
