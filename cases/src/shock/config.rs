//! What a shock-wave run is asked to do: [`ShockConfig`] (ranks, balancer, PLUM's and SBN's
//! options, the machine, the front, levels, the memory budget); its options are written in the
//! reports with the cases' words ([`crate::words`]).

use plume::balance::{PlumOptions, SbnOptions};
use plume::dist::BalanceAt;
use plume::sim::Machine;
use serde::Serialize;

use crate::budget::Budget;
use crate::hier::HierSettings;
use crate::minex::{with_cost_model, GridSpec, MinexModel, MinexSettings, MinexSetup};
use crate::words::{
    Balancer, InitialName, LatencyName, ObjectiveName, PartitionerName, PolicyName, Words,
};
use plume::partition::Grid;

use super::front::Front;

/// A shock-wave run's configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShockConfig {
    /// Number of ranks.
    pub procs: usize,
    /// The balancer.
    pub balancer: Balancer,
    /// PLUM's reassignment objective.
    pub objective: ObjectiveName,
    /// PLUM's partitioner (`diffusion`: one part per rank, with the `identity` objective).
    pub partitioner: PartitionerName,
    /// What makes the first owners (written only when not the default `metis`, so that the
    /// records of the published runs stay as they were).
    #[serde(skip_serializing_if = "InitialName::is_metis")]
    pub initial: InitialName,
    /// PLUM's when-to-balance policy (no assumed first cost, ULBA with α 0.4 and z 3).
    pub policy: PolicyName,
    /// PLUM's parts per processor.
    pub parts_per_proc: usize,
    /// Adaptation levels.
    pub levels: usize,
    /// Seed of the partitioner.
    pub seed: u64,
    /// When PLUM balances.
    pub balance_at: BalanceAt,
    /// PLUM's accept rule and cost model.
    #[serde(serialize_with = "plum_options_json")]
    pub plum: PlumOptions,
    /// SBN's options.
    #[serde(serialize_with = "sbn_options_json")]
    pub sbn: SbnOptions,
    /// The hierarchical balancer's tree and strategy (with `balancer: hier`; written only
    /// then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hier: Option<HierSettings>,
    /// The simulated machine both are timed on.
    pub machine: Machine,
    /// On ranks: the table sets each processing level's time predicted on `machine` beside
    /// the measured one. Only when the machine was asked for or calibrated: the default SP2
    /// model predicts a 1990s machine, not the one the ranks run on. The records keep the
    /// prediction either way.
    #[serde(skip)]
    pub predicts: bool,
    /// The machine as a grid of clusters (`--grid`): processing × `Proc`, communication and
    /// the remap's flight time × `Connect` (written only when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridSpec>,
    /// MinEX's latency model, which also scores every level's assignment (written with
    /// `--partitioner minex` only; `none` when not given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencyName>,
    /// MinEX's settings (with `--partitioner minex` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minex: Option<MinexSettings>,
    /// The front.
    pub front: Front,
    /// On ranks: process every level with this kernel after its step (SBN balancing while
    /// the ranks process; PLUM and no balancing processing statically). `None`: no processing
    /// level (the simulated machine times the levels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processing: Option<plume::dist::Kernel>,
    /// The memory the run may use, checked before it starts and before each level's
    /// subdivision (unlimited by default; the command line reads the system's). Not part of
    /// the case: never written to the reports.
    #[serde(skip)]
    pub budget: Budget,
}

impl ShockConfig {
    /// The published case's shape on `procs` ranks: PLUM with METIS, optimal TotalV, threshold
    /// 1.05, balancing before subdivision, 9 levels; SBN Basic when chosen.
    pub fn new(procs: usize) -> Self {
        ShockConfig {
            procs,
            balancer: Balancer::Plum,
            objective: ObjectiveName::TotalV,
            partitioner: PartitionerName::Metis,
            initial: InitialName::Metis,
            policy: PolicyName::Threshold(None),
            parts_per_proc: 1,
            levels: 9,
            seed: 1,
            balance_at: BalanceAt::Predicted,
            plum: PlumOptions::new(procs),
            sbn: SbnOptions::default(),
            hier: None,
            machine: Machine::default(),
            predicts: false,
            grid: None,
            latency: None,
            minex: None,
            front: Front::default(),
            processing: None,
            budget: Budget::UNLIMITED,
        }
    }
}

impl ShockConfig {
    /// The machine's grid (`None` without `--grid`: a homogeneous machine).
    ///
    /// # Errors
    /// A grid that does not fit `procs` (more clusters than processors).
    pub fn machine_grid(&self) -> plume::Result<Option<Grid>> {
        self.grid.map(|spec| spec.grid(self.procs)).transpose()
    }

    /// Whether every level records its assignment scored by MinEX's model
    /// (`levels[].minex_model`): with a grid or with MinEX, so that other records stay as
    /// they were.
    pub fn scores_minex(&self) -> bool {
        self.grid.is_some() || self.partitioner == PartitionerName::Minex
    }

    /// MinEX as this run sets it: on the machine's grid, in its nanoseconds.
    ///
    /// # Errors
    /// As [`ShockConfig::machine_grid`].
    pub fn minex_setup(&self) -> plume::Result<MinexSetup> {
        Ok(MinexSetup {
            settings: self.minex.unwrap_or_default(),
            grid: self.machine_grid()?,
            latency: self.latency.unwrap_or(LatencyName::None).model(),
            costs: self.machine.unit_costs(),
        })
    }

    /// The level of `graph` processed on `owner` (each root's data on `start` before it,
    /// `moving` its tree's elements when it moved) scored by MinEX's model on the run's grid
    /// and latency model, when the run records it ([`ShockConfig::scores_minex`]).
    pub(super) fn minex_model(
        &self,
        graph: &plume::graph::DualGraph,
        (owner, start, moving): (&[u32], &[u32], &[u64]),
    ) -> Option<MinexModel> {
        if !self.scores_minex() {
            return None;
        }
        let setup = self.minex_setup().ok()?;
        let grid = match setup.grid {
            Some(grid) => grid,
            None => Grid::single(self.procs).ok()?,
        };
        let latency = setup.latency.clone();
        MinexModel::of(graph, (owner, start, moving), &grid, &latency, setup.costs).ok()
    }

    /// `self`'s cost model of `graph` on the simulated machine and its grid, lent to `f`.
    ///
    /// # Panics
    /// On a grid that does not fit the processors: the runs check it when they start
    /// ([`ShockConfig::machine_grid`]).
    #[track_caller]
    pub(super) fn with_costs<R>(
        &self,
        graph: &plume::graph::DualGraph,
        f: impl FnOnce(plume::metrics::CostModel<'_>) -> R,
    ) -> R {
        let grid = self.machine_grid().expect("the run checked its grid");
        with_cost_model(&self.machine, grid.as_ref(), graph, f)
    }
}

/// `options` as JSON with `accept` spelled as the cases' words.
fn plum_options_json<S: serde::Serializer>(
    options: &PlumOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("accept", options.accept.word())];
    with_words(options, &spelled).serialize(s)
}

/// `options` as JSON with `variant` spelled as the cases' words.
fn sbn_options_json<S: serde::Serializer>(
    options: &SbnOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("variant", options.variant.word())];
    with_words(options, &spelled).serialize(s)
}

/// `value` as a JSON object whose fields named in `words` hold the given words instead.
fn with_words(value: &impl serde::Serialize, words: &[(&str, &str)]) -> serde_json::Value {
    let mut json = serde_json::to_value(value).expect("options serialize");
    for (field, word) in words {
        json[*field] = serde_json::Value::from(*word);
    }
    json
}

#[cfg(test)]
mod tests {
    use super::*;
    use plume::balance::{Accept, Variant};

    /// The JSON of `value`, a string.
    fn json(value: impl serde::Serialize) -> String {
        serde_json::to_value(value)
            .unwrap()
            .as_str()
            .unwrap()
            .into()
    }

    #[test]
    fn the_json_config_spells_options_as_the_command_line_does() {
        for (b, word, _) in Balancer::ALL {
            assert_eq!(json(b), *word);
        }
        for (b, word, _) in BalanceAt::ALL {
            assert_eq!(json(b), *word);
        }
        for (a, word, _) in Accept::ALL {
            let mut cfg = ShockConfig::new(4);
            cfg.plum.accept = *a;
            assert_eq!(serde_json::to_value(&cfg).unwrap()["plum"]["accept"], *word);
        }
        for (v, word, _) in Variant::ALL {
            let mut cfg = ShockConfig::new(4);
            cfg.sbn.variant = *v;
            assert_eq!(serde_json::to_value(&cfg).unwrap()["sbn"]["variant"], *word);
        }
        let mut cfg = ShockConfig::new(4);
        cfg.plum.accept = Accept::Always;
        cfg.sbn.variant = Variant::Heuristic;
        let cfg = serde_json::to_value(&cfg).unwrap();
        assert_eq!(
            (&cfg["plum"]["accept"], &cfg["sbn"]["variant"]),
            (&"always".into(), &"heuristic".into())
        );
        assert_eq!(cfg["balance_at"], "before");
    }
}
