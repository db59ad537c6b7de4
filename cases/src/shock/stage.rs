//! The stages a shock-wave level is timed in: the keys of a level record's `time_ms`, each
//! written under one fixed name, and a step's adaptation times on the ranks under them
//! ([`adaptation_times_ms`]).

use std::collections::BTreeMap;

use plume::dist::StepTimes;

/// A timed stage of a level: the adaptation's, then PLUM's or SBN's.
///
/// Declared in the alphabetical order of their names, so that `time_ms` keeps its fields (and
/// `metrics.csv` its columns) in that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// SBN: balance operations [Harvey 2001, fig. 5 or 8].
    Balancing,
    /// Adaptation: the closure of the marks.
    Closure,
    /// Adaptation: coarsening.
    Coarsen,
    /// Adaptation: marking the leaves the front touches.
    Mark,
    /// PLUM: moving the trees; SBN: its migration messages and moving the trees.
    Migration,
    /// PLUM: repartitioning the dual graph.
    Partition,
    /// Adaptation: the predicted weights.
    Predict,
    /// PLUM: the processor reassignment.
    Reassignment,
    /// PLUM: the similarity matrix.
    Similarity,
    /// SBN: processing the level on the simulated machine, its balancing stages left out.
    Simulation,
    /// Adaptation: subdivision.
    Subdivision,
    /// SBN: choosing the roots to transfer.
    VertexSelection,
    /// Adaptation: updating the dual graph's weights.
    Weights,
}

/// Wall-clock milliseconds per stage.
pub type StageTimes = BTreeMap<Stage, f64>;

impl Stage {
    /// The stages that are the balancer's work: PLUM's partition, similarity matrix,
    /// reassignment and migration; SBN's balancing, vertex selection and migration.
    pub const BALANCER: [Stage; 6] = [
        Stage::Partition,
        Stage::Similarity,
        Stage::Reassignment,
        Stage::Migration,
        Stage::Balancing,
        Stage::VertexSelection,
    ];

    /// The stage's name in `time_ms` (`metrics.json`) and `metrics.csv` (`time_ms.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Balancing => "balancing",
            Stage::Closure => "closure",
            Stage::Coarsen => "coarsen",
            Stage::Mark => "mark",
            Stage::Migration => "migration",
            Stage::Partition => "partition",
            Stage::Predict => "predict",
            Stage::Reassignment => "reassignment",
            Stage::Similarity => "similarity",
            Stage::Simulation => "simulation",
            Stage::Subdivision => "subdivision",
            Stage::VertexSelection => "vertex_selection",
            Stage::Weights => "weights",
        }
    }
}

impl serde::Serialize for Stage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Milliseconds the balancer took in a level's stage times ([`Stage::BALANCER`]).
pub fn balancer_ms(time_ms: &StageTimes) -> f64 {
    Stage::BALANCER.iter().filter_map(|s| time_ms.get(s)).sum()
}

/// The adaptation stages' times of a step on this rank, in milliseconds (balancing and
/// migration are the balancer's to add).
pub(super) fn adaptation_times_ms(t: &StepTimes) -> StageTimes {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    StageTimes::from([
        (Stage::Mark, ms(t.mark)),
        (Stage::Coarsen, ms(t.coarsen)),
        (Stage::Closure, ms(t.close)),
        (Stage::Predict, ms(t.predict)),
        (Stage::Subdivision, ms(t.subdivide)),
        (Stage::Weights, ms(t.weights)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_times_are_written_under_their_names_in_alphabetical_order() {
        let all = [
            Stage::Weights,
            Stage::Mark,
            Stage::VertexSelection,
            Stage::Balancing,
            Stage::Closure,
            Stage::Coarsen,
            Stage::Migration,
            Stage::Partition,
            Stage::Predict,
            Stage::Reassignment,
            Stage::Similarity,
            Stage::Simulation,
            Stage::Subdivision,
        ];
        let times: StageTimes = all.iter().map(|&s| (s, 1.0)).collect();
        let json = serde_json::to_value(&times).unwrap();
        let names: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), all.len(), "one name per stage");
        assert!(names.contains(&"vertex_selection"));
        assert_eq!(balancer_ms(&times), 6.0);
    }
}
