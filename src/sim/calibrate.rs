//! Calibrating the simulated machine from the machine it runs on (issue 13): the per-leaf cost
//! of the real ranks' kernel, the transport's latency and bandwidth by ping-pong over a
//! [`Comm`], and the cost and size of a packed tree per element. [`measure`] takes them,
//! [`Machine::measured`] turns them into the simulated machine's constants.
//!
//! **What each constant is.**
//! - `t_leaf`: [`Kernel::seconds_per_leaf`] of a kernel of [`Kernel::DEFAULT_SWEEPS`] sweeps, the work
//!   a real rank does per leaf for one level (it stands for the solver's `N_adapt` iterations).
//! - `latency`: half the round trip of a [`CalibrationOptions::small_bytes`] message between
//!   ranks 0 and 1 (one-way time, the send's and the receive's overheads included).
//! - `bandwidth`: `(large − small) / (t_large − t_small)` of the same ping-pong with a
//!   [`CalibrationOptions::large_bytes`] message. Each hop sends a fresh copy of the buffer (as
//!   packing writes one), so the threads backend, which moves buffers without copying them,
//!   pays one pass over the data per hop, as MPI does at least.
//! - `t_handle`: sending a small message to this rank and taking it out of the inbox (the
//!   transport's share of handling a control message; the protocol's own decisions are CPU
//!   time the simulated balancer already measures).
//! - `element_bytes` and `t_pack`: the encoded bytes of every tree of a forest over its
//!   elements, and the time to pack and encode them ([`crate::adapt::Forest::take_trees`]) plus
//!   to decode and unpack them ([`crate::adapt::Forest::put_trees`]), per element.
//! - `t_face` keeps the SP2 model's form, [`LEVEL_FACE_BYTES`] per cut face (what a real rank
//!   sends per cut face of a root it processed) over the measured bandwidth, and
//!   `check_interval` the SP2 default: how often a busy rank polls is a setting of the run, not
//!   of the machine.
//! - `served_between_jobs` is true: a rank answers a data request between two of its roots.
//!
//! Timings are medians of repeated trials. Every rank times the kernel, the packing and the
//! message handling at the same time, as the ranks of a run process at the same time (on
//! shared cores they slow each other down as they would in the run), and the constants are
//! the means over the ranks; rank 0 times the ping-pong with rank 1 and broadcasts the result,
//! so every rank returns the same constants. They are readings of a clock: two calibrations differ, but a
//! simulation given the same constants is deterministic. On a busy machine a calibration can
//! fail (a ping-pong too noisy to give a bandwidth), so the example below is compiled, not run;
//! the command's tests run it, trying again while the machine is busy.
//!
//! ```no_run
//! use plume::comm::launch_threads;
//! use plume::sim::calibrate::{measure, sample_forest, CalibrationOptions};
//! use plume::sim::Machine;
//! let quick = CalibrationOptions::quick();
//! let measured = launch_threads(2, |comm| {
//!     let mut forest = sample_forest(quick.refinements)?;
//!     measure(comm, &mut forest, &quick)
//! })
//! .unwrap();
//! assert_eq!(measured[0], measured[1]);
//! let machine = Machine::measured(&measured[0]);
//! assert!(machine.latency > 0.0 && machine.bandwidth.is_finite());
//! ```

use std::time::Instant;

use super::{Machine, LEVEL_FACE_BYTES};
use crate::adapt::{AdaptOptions, Forest, TreePacket};
use crate::comm::{Comm, CommExt, ReduceOp, Tag};
use crate::dist::Kernel;
use crate::mesh::generate_box;
use crate::{Error, Result};

/// The message tag of the ping-pong (any tag works: nothing else is in flight).
const PING_TAG: Tag = 7;

/// How much to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CalibrationOptions {
    /// Sweeps of the kernel timed for `t_leaf`.
    pub sweeps: u32,
    /// Uniform refinements of the sample forest ([`sample_forest`]).
    pub refinements: u8,
    /// Timings of the kernel over the sample forest (the median is kept).
    pub kernel_trials: usize,
    /// Pack-and-unpack round trips of the sample forest's trees (the median is kept).
    pub pack_trials: usize,
    /// Bytes of the ping-pong's small message (the latency).
    pub small_bytes: usize,
    /// Bytes of the ping-pong's large message (the bandwidth).
    pub large_bytes: usize,
    /// Round trips per timed batch of the ping-pong.
    pub round_trips: usize,
    /// Timed batches per message size (the median is kept), after one untimed batch.
    pub batches: usize,
}

impl Default for CalibrationOptions {
    /// [`Kernel::DEFAULT_SWEEPS`], a forest of 24,576 leaves, 5 kernel and pack trials, ping-pongs of
    /// 64 B and 1 MiB, 9 batches of 50 round trips (about 2 s in all on 2 cores).
    fn default() -> Self {
        CalibrationOptions {
            sweeps: Kernel::DEFAULT_SWEEPS,
            refinements: 2,
            kernel_trials: 5,
            pack_trials: 5,
            small_bytes: 64,
            large_bytes: 1 << 20,
            round_trips: 50,
            batches: 9,
        }
    }
}

impl CalibrationOptions {
    /// A fast, coarse calibration for tests and examples: a forest of 3,072 leaves, 3 trials,
    /// a 256 KiB large message, 5 batches of 20 round trips.
    pub fn quick() -> Self {
        CalibrationOptions {
            refinements: 1,
            kernel_trials: 3,
            pack_trials: 3,
            large_bytes: 1 << 18,
            round_trips: 20,
            batches: 5,
            ..CalibrationOptions::default()
        }
    }
}

/// What [`measure`] measured, in seconds and bytes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurements {
    /// The kernel's sweeps per leaf.
    pub sweeps: u32,
    /// Seconds the kernel takes per leaf.
    pub seconds_per_leaf: f64,
    /// One-way time of a small message, seconds.
    pub latency: f64,
    /// Bytes per second of large messages beyond the small one's time.
    pub bandwidth: f64,
    /// Seconds to handle one small message (send to self and receive).
    pub t_handle: f64,
    /// Encoded bytes of a packed tree per element.
    pub element_bytes: f64,
    /// Seconds to pack, encode, decode and unpack a tree per element.
    pub t_pack: f64,
}

impl Machine {
    /// The simulated machine with measured constants (see [`crate::sim::calibrate`] for what
    /// each is): the SP2 model's form of `t_face` on the measured bandwidth, its
    /// `check_interval`, data requests served between jobs as the ranks serve them.
    pub fn measured(m: &Measurements) -> Machine {
        Machine {
            t_leaf: m.seconds_per_leaf,
            t_face: LEVEL_FACE_BYTES / m.bandwidth,
            latency: m.latency,
            bandwidth: m.bandwidth,
            element_bytes: m.element_bytes,
            t_handle: m.t_handle,
            t_pack: m.t_pack,
            check_interval: Machine::default().check_interval,
            served_between_jobs: true,
        }
    }
}

/// The forest calibration times: a 4 × 4 × 4 box (384 tetrahedra) refined uniformly
/// `refinements` times (trees of 1 + 8 + … + 8^refinements elements), no field.
///
/// # Errors
/// Refinement errors (none for `refinements ≤ 8`, the default depth limit).
pub fn sample_forest(refinements: u8) -> Result<Forest> {
    let mut forest = Forest::new(generate_box([4, 4, 4], [1.0; 3])?, AdaptOptions::default())?;
    for _ in 0..refinements {
        forest.mark_refine_where(|_| true);
        forest.adapt()?;
    }
    Ok(forest)
}

/// Measures this machine on `comm` (at least 2 ranks; every rank calls it): every rank times
/// the kernel and the packing on its `forest` (the means over the ranks are kept), rank 0 the
/// ping-pong with rank 1, and every rank returns rank 0's result. `forest` holds the same trees
/// afterwards (they are packed and unpacked).
///
/// # Errors
/// [`Error::Invalid`] with fewer than 2 ranks, zero trials, batches or round trips, a forest
/// with no leaf, or a ping-pong whose large message was not slower than its small one (a
/// bandwidth that cannot be measured); a transport's error.
pub fn measure<C: Comm + ?Sized>(
    comm: &C,
    forest: &mut Forest,
    opts: &CalibrationOptions,
) -> Result<Measurements> {
    check(comm.size(), opts)?;
    let local = comm.agree(local_costs(comm, forest, opts))?;
    let sums = comm.all_reduce_f64(&local, ReduceOp::Sum)?;
    let [seconds_per_leaf, t_handle, element_bytes, t_pack] =
        [0, 1, 2, 3].map(|k| sums[k] / comm.size() as f64);
    let small = ping_pong(comm, opts.small_bytes, opts)?;
    let large = ping_pong(comm, opts.large_bytes, opts)?;
    let bandwidth = (opts.large_bytes - opts.small_bytes) as f64 / (large - small);
    let measured = match comm.rank() {
        0 if !(bandwidth.is_finite() && bandwidth > 0.0) => Err(Error::Invalid(format!(
            "the bandwidth cannot be measured: a {} B message took {} s one way, a {} B one {} \
             s (is the machine busy?)",
            opts.large_bytes,
            crate::numbers::short(large),
            opts.small_bytes,
            crate::numbers::short(small)
        ))),
        0 => Ok(Some(Measurements {
            sweeps: opts.sweeps,
            seconds_per_leaf,
            latency: small,
            bandwidth,
            t_handle,
            element_bytes,
            t_pack,
        })),
        _ => Ok(None),
    };
    let measured = comm.agree(measured)?;
    comm.broadcast_serde(0, measured.as_ref())
}

/// `Err` unless the options can measure anything on `size` ranks.
fn check(size: usize, opts: &CalibrationOptions) -> Result<()> {
    if size < 2 {
        return Err(Error::Invalid(format!(
            "calibration needs at least 2 ranks for its ping-pong, got {size}"
        )));
    }
    let counts = [
        ("kernel trials", opts.kernel_trials),
        ("pack trials", opts.pack_trials),
        ("round trips", opts.round_trips),
        ("batches", opts.batches),
    ];
    if let Some((what, _)) = counts.iter().find(|c| c.1 == 0) {
        return Err(Error::Invalid(format!(
            "calibration needs at least one of its {what}"
        )));
    }
    if opts.large_bytes <= opts.small_bytes {
        return Err(Error::Invalid(format!(
            "the ping-pong's large message ({} B) must be larger than its small one ({} B)",
            opts.large_bytes, opts.small_bytes
        )));
    }
    Ok(())
}

/// What each rank measures on its own: seconds per leaf, seconds per handled message, and
/// bytes and seconds of a packed tree per element.
fn local_costs<C: Comm + ?Sized>(
    comm: &C,
    forest: &mut Forest,
    opts: &CalibrationOptions,
) -> Result<[f64; 4]> {
    let per_leaf = Kernel::new(opts.sweeps).seconds_per_leaf(forest, opts.kernel_trials)?;
    let t_handle = handle_time(comm, opts)?;
    let (element_bytes, t_pack) = pack_costs(forest, opts.pack_trials)?;
    Ok([per_leaf, t_handle, element_bytes, t_pack])
}

/// Seconds of each of `trials` runs of `f` (at least one), fastest first.
fn sorted_seconds(trials: usize, mut f: impl FnMut() -> Result<()>) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(trials.max(1));
    for _ in 0..trials.max(1) {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

/// Median seconds of `trials` runs of `f` (at least one).
fn median_seconds(trials: usize, f: impl FnMut() -> Result<()>) -> Result<f64> {
    let times = sorted_seconds(trials, f)?;
    Ok(times[times.len() / 2])
}

/// Seconds to send a small message to this rank and take it out of the inbox.
fn handle_time<C: Comm + ?Sized>(comm: &C, opts: &CalibrationOptions) -> Result<f64> {
    let me = comm.rank();
    let batch = median_seconds(opts.batches, || {
        for _ in 0..opts.round_trips {
            comm.send(me, PING_TAG, vec![0; opts.small_bytes])?;
            while comm.try_receive()?.is_none() {}
        }
        Ok(())
    })?;
    Ok(batch / opts.round_trips as f64)
}

/// Encoded bytes per element of every tree `forest` holds, and the median seconds per element
/// of `trials` round trips (pack and encode, decode and unpack).
fn pack_costs(forest: &mut Forest, trials: usize) -> Result<(f64, f64)> {
    let roots: Vec<u32> = (0..forest.nroots() as u32)
        .filter(|&r| forest.holds(r))
        .collect();
    let (mut elements, mut bytes) = (0usize, 0usize);
    let seconds = median_seconds(trials, || {
        let packets = forest.take_trees(&roots)?;
        elements = packets.iter().map(|p| p.nelems()).sum();
        let encoded = bincode::serialize(&packets).expect("tree packets encode");
        bytes = encoded.len();
        let packets: Vec<TreePacket> = bincode::deserialize(std::hint::black_box(&encoded))
            .expect("tree packets decode as they were encoded");
        forest.put_trees(&packets)
    })?;
    if elements == 0 {
        return Err(Error::Invalid(
            "forest: packing cannot be timed on a forest with no tree".into(),
        ));
    }
    Ok((bytes as f64 / elements as f64, seconds / elements as f64))
}

/// One-way seconds of a `bytes`-byte message between ranks 0 and 1: half the round trip of the
/// fastest of [`CalibrationOptions::batches`] batches (after one untimed), on rank 0; 0
/// elsewhere. The fastest, not the median: a rank woken late (another program, or other ranks,
/// on the cores) only adds time, and on a loaded 2-core machine the median of a 64 B exchange
/// came out slower than a 256 KiB one. Every rank calls it (the other ranks wait at its
/// barriers).
fn ping_pong<C: Comm + ?Sized>(comm: &C, bytes: usize, opts: &CalibrationOptions) -> Result<f64> {
    comm.barrier()?;
    let round_trips = |n: usize| -> Result<()> {
        let payload = vec![0xa5; bytes];
        for _ in 0..n {
            match comm.rank() {
                0 => {
                    comm.send(1, PING_TAG, payload.clone())?;
                    std::hint::black_box(comm.receive()?);
                }
                1 => {
                    let back = comm.receive()?;
                    comm.send(0, PING_TAG, back.bytes.clone())?;
                }
                _ => {}
            }
        }
        Ok(())
    };
    round_trips(opts.round_trips)?;
    let batch = sorted_seconds(opts.batches, || round_trips(opts.round_trips))?[0];
    comm.barrier()?;
    Ok(match comm.rank() {
        0 => batch / (2 * opts.round_trips) as f64,
        _ => 0.0,
    })
}
