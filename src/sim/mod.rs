//! The simulated machine (`docs/design/sbn.md`): P processors in virtual time, a
//! latency/bandwidth message model, and one adaptation level's processing either under the SBN
//! balancer ([`sbn_level()`]) or under a static PLUM assignment ([`plum_level()`]), so that both
//! methods are compared on the same solver model. Deterministic: events are ordered by time,
//! then by the order they were created.
//!
//! **Units.** The clock runs in seconds. Processing root v for one level (`N_adapt` solver
//! iterations) costs `Wgt_v · t_leaf`; its communication `Comm_p^v · t_face` (every cut leaf
//! face exchanges `face_bytes` per iteration); bringing its data `RWgt_v · element_bytes /
//! bandwidth` plus a request/reply round trip. A control message costs `latency +
//! bytes / bandwidth` in flight and `t_handle` of the receiver's time; a busy processor looks
//! at its messages every `check_interval` (and between jobs). The defaults are PLUM's
//! solver model (5 µs per leaf per iteration, 20 iterations) and the SP2's network (40 µs,
//! 36 MB/s), with 50 bytes per element (PLUM's `M`) and 40 bytes per face.
//! The balancers see the same costs ([`Machine::cost_model`]): their `QWgt` and `ΔCut` are in
//! seconds of this machine, where [Harvey 2001] counted a leaf, a cut face and a moved element as
//! one unit each. [`calibrate`] measures the constants on the machine plume runs on instead
//! ([`Machine::measured`]), and [`Machine::validated`] checks constants read from a file
//! against their physical [`RANGES`].

pub mod calibrate;
mod events;
pub mod hier;
pub mod plum_level;
pub mod sbn_level;

pub use hier::HierPartitioner;
pub use plum_level::{flows_over_links, plum_level, plum_level_over, PlumLevel};

use crate::graph::DualGraph;
use crate::metrics::{CostModel, CostScales};
use crate::partition::UnitCosts;
pub use crate::solver_model::{FACE_BYTES, ITERATIONS, LEVEL_FACE_BYTES};
use crate::{Error, Result};
pub use sbn_level::{sbn_level, SbnLevel};

/// The simulated machine's constants. In JSON (`plume calibrate` writes it, `--machine FILE`
/// reads it) an object with exactly these fields.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// Seconds to process one leaf for one level (`T_iter · N_adapt`).
    pub t_leaf: f64,
    /// Seconds of communication per cut leaf face for one level.
    pub t_face: f64,
    /// Message latency, seconds.
    pub latency: f64,
    /// Link bandwidth, bytes per second.
    pub bandwidth: f64,
    /// Bytes of one element's data when it moves.
    pub element_bytes: f64,
    /// Seconds a processor spends handling one control message.
    pub t_handle: f64,
    /// Seconds to pack one element's data into a message and unpack it at the other end (0 in
    /// the SP2 model, which counted only the transfer).
    pub t_pack: f64,
    /// Seconds between two checks for messages by a busy processor (the frequency `f` of
    /// [Harvey 2001, §5.7]).
    pub check_interval: f64,
    /// How a processor holding data answers a request for it: `false` (the SP2 model, and the
    /// default when a file leaves it out) by its transport without its CPU, one-sided as MPI
    /// RMA, at once; `true` as plume's ranks do, between two of its jobs: the request waits
    /// for the holder's job in progress to end, and packing the data takes the holder's time.
    #[serde(default)]
    pub served_between_jobs: bool,
}

impl Default for Machine {
    /// The SP2 model: 5 µs per leaf per iteration, [`FACE_BYTES`] per cut face per iteration,
    /// [`ITERATIONS`] iterations, 40 µs and 36 MB/s, 50 bytes per element, data requests
    /// served one-sided.
    fn default() -> Self {
        let bandwidth = 36e6;
        Machine {
            t_leaf: 5e-6 * ITERATIONS,
            t_face: LEVEL_FACE_BYTES / bandwidth,
            latency: 40e-6,
            bandwidth,
            element_bytes: 50.0,
            t_handle: 5e-6,
            t_pack: 0.0,
            check_interval: 1e-3,
            served_between_jobs: false,
        }
    }
}

/// Every constant's name, physical range (bounds included) and unit: what
/// [`Machine::validated`] accepts. The ranges hold any machine plume could be run on with room
/// to spare (a leaf from a picosecond to a second per level, links from 1 kB/s to 10 TB/s), and
/// keep every time the simulation adds up finite: at most 2^31 leaves of a second each.
pub const RANGES: [(&str, f64, f64, &str); 8] = [
    ("t_leaf", 1e-12, 1.0, "s"),
    ("t_face", 1e-12, 1.0, "s"),
    ("latency", 1e-12, 1.0, "s"),
    ("bandwidth", 1e3, 1e13, "B/s"),
    ("element_bytes", 1.0, 1e6, "B"),
    ("t_handle", 0.0, 1.0, "s"),
    ("t_pack", 0.0, 1.0, "s"),
    ("check_interval", 1e-9, 1.0, "s"),
];

impl Machine {
    /// `self` if every constant lies in its range of [`RANGES`] (a number that is not finite
    /// never does).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first constant that does not, and its range.
    pub fn validated(self) -> Result<Machine> {
        let values = [
            self.t_leaf,
            self.t_face,
            self.latency,
            self.bandwidth,
            self.element_bytes,
            self.t_handle,
            self.t_pack,
            self.check_interval,
        ];
        for ((name, lo, hi, unit), value) in RANGES.into_iter().zip(values) {
            if !(lo..=hi).contains(&value) {
                let short = crate::numbers::short;
                return Err(Error::Invalid(format!(
                    "machine constant {name} is {}: it must be a number from {} to {} {unit}",
                    short(value),
                    short(lo),
                    short(hi)
                )));
            }
        }
        Ok(self)
    }

    /// The unit costs of this machine, in seconds: a leaf processed for a level, a cut face
    /// for a level, an element moved (sent, packed and unpacked).
    pub fn scales(&self) -> CostScales {
        CostScales {
            work: self.t_leaf,
            comm: self.t_face,
            remap: self.element_bytes / self.bandwidth + self.t_pack,
        }
    }

    /// The unit costs of this machine for MinEX, in whole nanoseconds (rounded): a leaf, a
    /// cut face (its packing is in `t_face`), an element in flight, and half of `t_pack` for
    /// packing an element and half for unpacking it.
    pub fn unit_costs(&self) -> UnitCosts {
        let ns = |seconds: f64| (seconds * 1e9).round() as u64;
        UnitCosts {
            work: ns(self.t_leaf),
            comm: ns(self.t_face),
            comm_pack: 0,
            remap: ns(self.element_bytes / self.bandwidth),
            remap_pack: ns(self.t_pack / 2.0),
        }
    }

    /// The cost model of `graph`'s current weights on this machine (seconds).
    pub fn cost_model<'a>(&self, graph: &'a DualGraph) -> CostModel<'a> {
        CostModel::of(graph).with_scales(self.scales())
    }

    /// Time a message of `bytes` spends in flight.
    pub fn flight(&self, bytes: f64) -> f64 {
        self.latency + bytes / self.bandwidth
    }

    /// Time to move `elements` elements of data in one message: in flight, packed and
    /// unpacked.
    pub fn transfer(&self, elements: f64) -> f64 {
        self.flight(elements * self.element_bytes) + elements * self.t_pack
    }

    /// Time to bring `elements` elements of data from another processor (request + reply).
    pub fn fetch(&self, elements: f64) -> f64 {
        self.latency + self.transfer(elements)
    }
}

/// Each of `procs` processors' time processing leaves in a level whose roots were processed on
/// `owner` (`Σ_{owner[v]=p} Wgt_v`, seconds of `model`): the computation [Huck 2010]'s `T_p`
/// counts, communication and waiting excluded.
pub fn processing_times(model: &CostModel, owner: &[u32], procs: usize) -> Vec<f64> {
    let mut work = vec![0.0; procs];
    for (v, &p) in owner.iter().enumerate() {
        work[p as usize] += model.wgt(v as u32, p);
    }
    work
}

/// How a level's processor time was spent, summed over processors (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct TimeSplit {
    /// Processing the leaves.
    pub processing: f64,
    /// Communicating with neighbours whose data is elsewhere.
    pub communication: f64,
    /// Moving data and handling balancing messages.
    pub distribution: f64,
    /// Waiting.
    pub idle: f64,
}

impl TimeSplit {
    /// The four shares in percent of `P · makespan`, in the order of the fields.
    pub fn percentages(&self) -> [f64; 4] {
        let total = self.processing + self.communication + self.distribution + self.idle;
        let pct = |x: f64| if total > 0.0 { 100.0 * x / total } else { 0.0 };
        [
            pct(self.processing),
            pct(self.communication),
            pct(self.distribution),
            pct(self.idle),
        ]
    }
}
