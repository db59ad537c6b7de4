//! MinEX and the grid of clusters as the cases set them (`docs/design/minex.md`): the machine's
//! grid (`--grid clusters=C,interconnect=I`, [`GridSpec`]), MinEX's settings (`--throttle`,
//! `--coarsen-to`, `--latency`: [`MinexSettings`]), MinEX as PLUM's repartitioner keeping its
//! last report ([`MinexPartitioner`]), and the score of any level's assignment under MinEX's
//! model ([`MinexModel`]), so that every balancer is measured on one scale.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use plume::graph::{DualGraph, GraphView};
use plume::metrics::{CostModel, GridSlowdowns};
use plume::partition::minex::{MinexReport, QwgtSummary};
use plume::partition::{
    score, Grid, Latency, Minex, MinexOptions, PartitionInfo, Partitioner, Targets, UnitCosts,
};
use plume::sim::Machine;
use serde::Serialize;

/// The machine as a grid of clusters ([Harvey 2001]'s experiments, §7.1.1): the processors in
/// `clusters` contiguous clusters as even as possible, links `interconnect` times slower
/// between clusters than inside one ([`Grid::even`]). Written `clusters=C,interconnect=I`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridSpec {
    /// Number of clusters C (at least 1, at most P).
    pub clusters: usize,
    /// `Connect` between two clusters (at least 1).
    pub interconnect: u32,
}

impl GridSpec {
    /// The grid of `procs` processors.
    ///
    /// # Errors
    /// [`Grid::even`]'s: more clusters than processors.
    pub fn grid(&self, procs: usize) -> plume::Result<Grid> {
        Grid::even(procs, self.clusters, self.interconnect)
    }
}

impl fmt::Display for GridSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "clusters={},interconnect={}",
            self.clusters, self.interconnect
        )
    }
}

impl FromStr for GridSpec {
    type Err = String;

    /// `clusters=C,interconnect=I` (in either order): C ≥ 1 and I ≥ 1 whole numbers.
    fn from_str(s: &str) -> Result<Self, String> {
        let (mut clusters, mut interconnect) = (None, None);
        for item in s.split(',') {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not key=value"))?;
            let slot = match key.trim() {
                "clusters" => &mut clusters,
                "interconnect" => &mut interconnect,
                other => return Err(format!("unknown key '{other}' (clusters, interconnect)")),
            };
            if slot.is_some() {
                return Err(format!("{key} given twice"));
            }
            let n: u32 = value
                .trim()
                .parse()
                .map_err(|_| format!("{key} must be a whole number, not '{value}'"))?;
            if n < 1 {
                return Err(format!("{key} must be at least 1, not {n}"));
            }
            *slot = Some(n);
        }
        match (clusters, interconnect) {
            (Some(c), Some(i)) => Ok(GridSpec {
                clusters: c as usize,
                interconnect: i,
            }),
            _ => Err("needs clusters=C,interconnect=I".into()),
        }
    }
}

impl Serialize for GridSpec {
    /// `{"clusters": C, "interconnect": I}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("GridSpec", 2)?;
        st.serialize_field("clusters", &self.clusters)?;
        st.serialize_field("interconnect", &self.interconnect)?;
        st.end()
    }
}

/// MinEX's settings a run names (`config.minex`: an infinite τ written `"inf"`, `coarsen_to`
/// only when set).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MinexSettings {
    /// ThroTTle τ ≥ 0 (infinite: rule R2 off).
    #[serde(serialize_with = "plume::partition::minex::throttle_json")]
    pub throttle: f64,
    /// Contract to at most this many vertices (`None`: MinEX's default, `10 · P`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coarsen_to: Option<usize>,
}

impl Default for MinexSettings {
    /// MinEX's defaults ([`MinexOptions::new`]).
    fn default() -> Self {
        let defaults = MinexOptions::new(Grid::single(1).expect("one processor is a grid"));
        MinexSettings {
            throttle: defaults.throttle,
            coarsen_to: defaults.coarsen_to,
        }
    }
}

/// Everything MinEX balances with in a run: its settings, the machine's grid (`None`: one
/// cluster of the parts asked for), the latency model and the cost of a unit of each weight.
#[derive(Debug, Clone)]
pub struct MinexSetup {
    /// τ and the contraction target.
    pub settings: MinexSettings,
    /// The grid (`None`: one homogeneous cluster).
    pub grid: Option<Grid>,
    /// The latency model.
    pub latency: Latency,
    /// A unit of each weight (the simulated machine's nanoseconds in the cases).
    pub costs: UnitCosts,
}

impl Default for MinexSetup {
    /// MinEX's defaults on one cluster, no tolerance, in the SP2 machine's nanoseconds.
    fn default() -> Self {
        MinexSetup {
            settings: MinexSettings::default(),
            grid: None,
            latency: Latency::None,
            costs: Machine::default().unit_costs(),
        }
    }
}

impl MinexSetup {
    /// MinEX on `procs` processors.
    ///
    /// # Errors
    /// [`Grid::single`]'s for no processor.
    fn minex(&self, procs: usize) -> plume::Result<Minex> {
        let grid = match &self.grid {
            Some(g) => g.clone(),
            None => Grid::single(procs)?,
        };
        let mut options = MinexOptions::new(grid);
        options.throttle = self.settings.throttle;
        options.coarsen_to = self.settings.coarsen_to;
        options.latency = self.latency.clone();
        options.costs = self.costs;
        Ok(Minex::new(options))
    }
}

/// MinEX as PLUM's repartitioner: from the current owners, one part per processor (PLUM's
/// remap is then the identity), weighing the data that would move now
/// ([`Partitioner::weighs_moving_sizes`]); keeps the report of its last call for the level's
/// record ([`MinexPartitioner::take_last`]), as [`plume::sim::HierPartitioner`] does.
pub struct MinexPartitioner {
    setup: MinexSetup,
    last: Mutex<Option<MinexReport>>,
}

impl MinexPartitioner {
    /// MinEX with `setup`.
    pub fn new(setup: MinexSetup) -> Self {
        MinexPartitioner {
            setup,
            last: Mutex::new(None),
        }
    }

    /// The report of the last call, taken: `None` until the next one.
    pub fn take_last(&self) -> Option<MinexReport> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Partitioner for MinexPartitioner {
    fn name(&self) -> &'static str {
        "minex"
    }

    /// From scratch: MinEX's own (METIS's partition taken as where the data is).
    fn partition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        part: &mut [u32],
    ) -> plume::Result<PartitionInfo> {
        self.setup
            .minex(targets.nparts().max(1))?
            .partition(graph, targets, part)
    }

    fn repartition(
        &self,
        graph: &GraphView<'_>,
        targets: Targets<'_>,
        current: &[u32],
        part: &mut [u32],
    ) -> plume::Result<PartitionInfo> {
        let minex = self.setup.minex(targets.nparts().max(1))?;
        let (info, report) = minex.repartition_reported(graph, targets, current, part)?;
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(report);
        Ok(info)
    }

    fn weighs_moving_sizes(&self) -> bool {
        true
    }
}

/// A level's assignment scored by MinEX's model on the run's grid and latency model, in
/// seconds of the simulated machine (`levels[].minex_model`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MinexModel {
    /// `MaxQWgt`: the most loaded processor's predicted time, seconds.
    pub max_qwgt_s: f64,
    /// `MaxQWgt / (QWgtTOT / P)`.
    pub qwgt_load_imb: f64,
}

impl MinexModel {
    /// The level of `graph` (its processed weights) processed on `owner` with every root's
    /// data on `start` before it and `moving[v]` elements in root v's tree when it moved, on
    /// `grid` under `latency` with `costs` (nanoseconds) per unit.
    ///
    /// # Errors
    /// [`score`]'s, for owners or sizes that do not fit the graph and the grid.
    pub fn of(
        graph: &DualGraph,
        (owner, start, moving): (&[u32], &[u32], &[u64]),
        grid: &Grid,
        latency: &Latency,
        costs: UnitCosts,
    ) -> plume::Result<MinexModel> {
        let view = graph.view(&graph.weights)?.with_sizes(moving)?;
        let totals = score(&view, grid, costs, owner, start)?;
        let qwgt: Vec<u64> = totals.iter().map(|t| latency.qwgt(t)).collect();
        let s = QwgtSummary::of(&qwgt);
        Ok(MinexModel {
            max_qwgt_s: s.max_qwgt as f64 * 1e-9,
            qwgt_load_imb: s.qwgt_load_imb,
        })
    }
}

/// `machine`'s cost model of `graph`'s weights on `grid` (processing × `Proc`, communication
/// × `Connect`; none without a grid, bit for bit [`Machine::cost_model`]), lent to `f`.
pub fn with_cost_model<R>(
    machine: &Machine,
    grid: Option<&Grid>,
    graph: &DualGraph,
    f: impl FnOnce(CostModel<'_>) -> R,
) -> R {
    let model = machine.cost_model(graph);
    match grid {
        Some(grid) => {
            let held = GridSlowdowns::new(grid);
            f(model.with_slowdowns(held.slowdowns()))
        }
        None => f(model),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_specs_parse_in_either_order_and_refuse_bad_values() {
        let spec = GridSpec {
            clusters: 2,
            interconnect: 10,
        };
        assert_eq!("clusters=2,interconnect=10".parse(), Ok(spec));
        assert_eq!("interconnect=10,clusters=2".parse(), Ok(spec));
        assert_eq!(spec.to_string().parse(), Ok(spec));
        for bad in [
            "clusters=2",
            "clusters=0,interconnect=3",
            "clusters=2,interconnect=0",
            "clusters=2,interconnect=NaN",
            "clusters=2,interconnect=1.5",
            "clusters=2,interconnect=3,clusters=1",
            "cluster=2,interconnect=3",
            "2,3",
        ] {
            assert!(bad.parse::<GridSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_write_an_infinite_throttle_as_a_word() {
        let s = MinexSettings {
            throttle: f64::INFINITY,
            coarsen_to: None,
        };
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"throttle":"inf"}"#);
        let s = MinexSettings {
            throttle: 3.0,
            coarsen_to: Some(40),
        };
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"throttle":3.0,"coarsen_to":40}"#
        );
    }
}
