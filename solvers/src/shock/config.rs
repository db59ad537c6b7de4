//! What a shock-wave run is asked to do: [`ShockConfig`] (ranks, balancer, PLUM's and SBN's
//! options, the machine, the front, levels, the memory budget), the choices it names
//! ([`Balancer`], [`BalanceAt`]), and the command-line words its options are written with in
//! the reports ([`accept_word`], [`variant_word`]).

use plume::balance::{Accept, PlumOptions, SbnOptions, Variant};
use plume::sim::Machine;
use serde::Serialize;

use crate::budget::Budget;
use crate::cli::names::{ObjectiveName, PartitionerName, PolicyName};

use super::front::Front;

/// When PLUM balances within an adaptation step; written as on the command line (`before`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BalanceAt {
    /// After closure, on predicted weights, before subdivision (PLUM's way: less data moves).
    #[serde(rename = "before")]
    BeforeSubdivision,
    /// After subdivision, on the new weights.
    #[serde(rename = "after")]
    AfterSubdivision,
}

/// Which balancer a track runs; written as on the command line (`plum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Balancer {
    /// PLUM: repartition, remap, migrate (semi-dynamic).
    Plum,
    /// SBN: balance while processing, move data lazily (dynamic).
    Sbn,
    /// No balancing: the roots stay on the ranks of the initial partition.
    None,
}

/// A shock-wave run's configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShockConfig {
    /// Number of ranks.
    pub procs: usize,
    /// The balancer.
    pub balancer: Balancer,
    /// PLUM's reassignment objective.
    pub objective: ObjectiveName,
    /// PLUM's partitioner; also makes the initial partition.
    pub partitioner: PartitionerName,
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
    /// The simulated machine both are timed on.
    pub machine: Machine,
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
            policy: PolicyName::Threshold(None),
            parts_per_proc: 1,
            levels: 9,
            seed: 1,
            balance_at: BalanceAt::BeforeSubdivision,
            plum: PlumOptions::new(procs),
            sbn: SbnOptions::default(),
            machine: Machine::default(),
            front: Front::default(),
            processing: None,
            budget: Budget::UNLIMITED,
        }
    }
}

/// The word `--accept` takes for `accept`.
pub fn accept_word(accept: Accept) -> &'static str {
    match accept {
        Accept::CostModel => "cost",
        Accept::Always => "always",
        Accept::Never => "never",
    }
}

/// The word `--variant` takes for `variant`.
pub fn variant_word(variant: Variant) -> &'static str {
    match variant {
        Variant::Basic => "basic",
        Variant::Heuristic => "heuristic",
    }
}

/// `options` as JSON with `accept` spelled as on the command line.
fn plum_options_json<S: serde::Serializer>(
    options: &PlumOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("accept", accept_word(options.accept))];
    with_words(options, &spelled).serialize(s)
}

/// `options` as JSON with `variant` spelled as on the command line.
fn sbn_options_json<S: serde::Serializer>(
    options: &SbnOptions,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let spelled = [("variant", variant_word(options.variant))];
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
